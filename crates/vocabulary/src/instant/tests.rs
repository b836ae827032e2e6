//! Instants: the fixed-width text both ways, RFC 3339 exactly (checked against jiff), the
//! accepted range and saturating arithmetic.

use super::*;

#[test]
fn writes_fixed_width_utc_with_microseconds() {
    let at = Instant::parse("2026-11-29T19:54:18.5+01:00").unwrap();
    assert_eq!(at.to_iso(), "2026-11-29T18:54:18.500000Z");
    assert_eq!(
        Instant::from_micros(0).to_iso(),
        "1970-01-01T00:00:00.000000Z"
    );
}

#[test]
fn text_order_is_time_order() {
    let earlier = Instant::parse("2026-11-29T18:54:18.999999Z").unwrap();
    let later = earlier.plus_micros(1);
    assert_eq!(later.to_iso(), "2026-11-29T18:54:19.000000Z");
    assert!(earlier.to_iso() < later.to_iso());
}

#[test]
fn round_trips_through_its_own_text() {
    let at = Instant::parse("2026-01-02T03:04:05.000006Z").unwrap();
    assert_eq!(Instant::parse(&at.to_iso()), Some(at));
}

/// The digit-by-digit writer and reader agree with the general ones and with jiff, an
/// independent reading of RFC 3339, on every kind of date: both sides of the epoch, leap
/// days, century years, the ends of the four-digit years.
#[test]
fn the_fast_text_agrees_with_the_general_one() {
    let mut instants = vec![
        0,
        -1,
        1,
        951_782_400_000_000,     // 2000-02-29
        4_107_542_400_000_000,   // 2100-03-01
        -62_167_219_200_000_000, // 0000-01-01
        253_402_300_799_999_999, // 9999-12-31T23:59:59.999999
        1_795_974_858_123_456,
    ];
    // A deterministic walk over 400 years in uneven steps (about 11 days and a bit).
    let mut at = -2_208_988_800_000_000; // 1900-01-01
    while at < 10_413_792_000_000_000 {
        instants.push(at);
        at += 987_654_321_987;
    }
    for micros in instants {
        let instant = Instant::from_micros(micros);
        let text = instant.to_iso();
        assert_eq!(text, instant.to_iso_general(), "{micros}");
        assert_eq!(Instant::parse_fixed_width(&text), Some(instant), "{text}");
        assert_eq!(Instant::parse_rfc3339(&text), Some(instant), "{text}");
        // jiff's timestamps end 26 hours before ours (room for any offset).
        match text.parse::<jiff::Timestamp>() {
            Ok(jiff) => assert_eq!(jiff.as_microsecond(), micros, "{text}"),
            Err(_) => assert!(micros > 253_402_207_200_000_000, "{text}"),
        }
    }
}

#[test]
fn the_fast_reader_leaves_anything_unusual_to_the_general_one() {
    for text in [
        "2026-02-29T00:00:00.000000Z", // not a leap year
        "2026-13-01T00:00:00.000000Z",
        "2026-11-31T00:00:00.000000Z",
        "2026-11-29T24:00:00.000000Z",
        "2026-11-29T23:60:00.000000Z",
        "2026-11-29T23:59:60.000000Z", // a leap second
        "2026-11-29T23:59:59.00000aZ",
        "2026-11-29T23:59:59.000000+",
    ] {
        assert_eq!(Instant::parse_fixed_width(text), None, "{text}");
    }
    assert_eq!(
        Instant::parse_fixed_width("2024-02-29T23:59:59.999999Z"),
        Instant::parse("2024-02-29T23:59:59.999999+00:00")
    );
}

#[test]
fn rejects_text_that_is_not_an_instant() {
    assert_eq!(Instant::parse("yesterday"), None);
    assert_eq!(Instant::parse("2026-11-29"), None);
    assert_eq!(Instant::parse("2026-11-29 18:54:18"), None);
    // What ISO 8601 and its extensions take but RFC 3339 does not (jiff takes each).
    for text in [
        "2026-11-29 18:54:18Z",
        "2026-11-29T18:54Z",
        "2026-11-29T18:54:18,5Z",
        "2026-11-29T18:54:18+0100",
        "2026-11-29T18:54:18+01",
        "2026-11-29T18:54:18Z[Europe/Paris]",
        "+002026-11-29T18:54:18Z",
    ] {
        assert_eq!(Instant::parse(text), None, "{text}");
        assert!(text.parse::<jiff::Timestamp>().is_ok(), "{text}");
    }
    for text in [
        "2026-11-29T18:54:18.Z",
        "2026-11-29T18:54:18",
        "2026-11-29T18:54:18+24:00",
        "2026-11-29T18:54:18+01:60",
        "2026-11-29T18:54:18Z ",
        "2026-11-29T18:54:18.5ZZ",
    ] {
        assert_eq!(Instant::parse(text), None, "{text}");
    }
}

#[test]
fn takes_every_form_rfc_3339_allows_and_reads_it_as_jiff_does() {
    for (text, expected) in [
        ("2026-11-29t18:54:18z", "2026-11-29T18:54:18.000000Z"),
        ("2026-11-29T19:54:18.5+01:00", "2026-11-29T18:54:18.500000Z"),
        (
            "2026-11-29T18:54:18.123456789Z",
            "2026-11-29T18:54:18.123456Z",
        ),
        ("2026-11-29T18:54:18-00:00", "2026-11-29T18:54:18.000000Z"),
        ("2026-11-30T05:24:18+10:30", "2026-11-29T18:54:18.000000Z"),
    ] {
        let at = Instant::parse(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(at.to_iso(), expected, "{text}");
        let jiff: jiff::Timestamp = text.parse().unwrap();
        assert_eq!(jiff.as_microsecond(), at.as_micros(), "{text}");
    }
    // A leap second only at the end of a UTC day, as its last microsecond.
    assert_eq!(
        Instant::parse("2016-12-31T23:59:60Z").unwrap().to_iso(),
        "2016-12-31T23:59:59.999999Z"
    );
    assert_eq!(
        Instant::parse("2017-01-01T00:59:60+01:00")
            .unwrap()
            .to_iso(),
        "2016-12-31T23:59:59.999999Z"
    );
    assert_eq!(Instant::parse("2016-12-31T22:59:60Z"), None);
}

/// One step of a deterministic generator (SplitMix64), so the property tests below walk
/// the same thousands of points on every run.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn random_in(state: &mut u64, low: i64, high: i64) -> i64 {
    let span = (high as i128 - low as i128 + 1) as u128;
    (low as i128 + (next_random(state) as u128 % span) as i128) as i64
}

/// Property: every instant of the accepted range writes text that reads back as itself,
/// and the same instant written with any offset reads back as itself too.
#[test]
fn parsing_and_formatting_round_trip_over_the_whole_range() {
    let mut state = 0x5EED_u64;
    let mut points = vec![EARLIEST.micros, LATEST.micros, 0, -1];
    for _ in 0..20_000 {
        points.push(random_in(&mut state, EARLIEST.micros, LATEST.micros));
    }
    for micros in points {
        let instant = Instant::from_micros(micros);
        let text = instant.to_iso();
        assert_eq!(text.len(), 27, "{text}");
        assert_eq!(Instant::parse(&text), Some(instant), "{text}");

        // The same instant in local time at a random offset, when that local time is
        // still a four-digit year.
        let offset_minutes = random_in(&mut state, -(23 * 60 + 59), 23 * 60 + 59);
        let local = instant.plus_seconds(offset_minutes * 60);
        if !(EARLIEST..=LATEST).contains(&local) {
            continue;
        }
        let local_text = local.to_iso();
        let sign = if offset_minutes < 0 { '-' } else { '+' };
        let with_offset = format!(
            "{}{sign}{:02}:{:02}",
            &local_text[..26],
            offset_minutes.abs() / 60,
            offset_minutes.abs() % 60
        );
        assert_eq!(Instant::parse(&with_offset), Some(instant), "{with_offset}");
    }
}

#[test]
fn refuses_instants_outside_years_0000_to_9999_after_the_offset() {
    // Both sides of each end of the range.
    assert_eq!(Instant::parse("9999-12-31T23:59:59.999999Z"), Some(LATEST));
    assert_eq!(
        Instant::parse("9999-12-31T23:59:59.999999-00:00"),
        Some(LATEST)
    );
    assert_eq!(Instant::parse("9999-12-31T23:59:59-23:59"), None);
    assert_eq!(Instant::parse("9999-12-31T23:59:59.999999-00:01"), None);
    assert_eq!(Instant::parse("0000-01-01T00:00:00Z"), Some(EARLIEST));
    assert_eq!(Instant::parse("0000-01-01T00:01:00+00:01"), Some(EARLIEST));
    assert_eq!(Instant::parse("0000-01-01T00:00:00+00:01"), None);
    assert_eq!(Instant::parse("0000-01-01T00:00:59.999999+00:01"), None);
    // A malformed text is not "out of range": it is not an instant at all.
    assert!(Instant::is_out_of_range("9999-12-31T23:59:59-23:59"));
    assert!(Instant::is_out_of_range("0000-01-01T00:00:00+00:01"));
    assert!(!Instant::is_out_of_range("9999-12-31T23:59:59Z"));
    assert!(!Instant::is_out_of_range("yesterday"));
}

#[test]
fn arithmetic_past_the_range_never_comes_back_as_another_instant() {
    let past_the_end = LATEST.plus_seconds(86_400);
    assert_eq!(past_the_end.to_iso(), "10000-01-01T23:59:59.999999Z");
    assert_eq!(Instant::parse(&past_the_end.to_iso()), None);
    let far = Instant::from_micros(i64::MAX).plus_seconds(i64::MAX);
    assert_eq!(far.as_micros(), i64::MAX);
    assert!(!far.to_iso().starts_with("1970"), "{}", far.to_iso());
    assert_eq!(
        Instant::from_micros(i64::MIN).minus_seconds(1).as_micros(),
        i64::MIN
    );
}
