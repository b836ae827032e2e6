//! Instants at the JSON boundary and in the store: ISO-8601 UTC text of fixed width
//! with microseconds (`2026-11-29T18:54:18.123456Z`), so that text order is time order.
//!
//! Input accepts any RFC 3339 instant (any offset, any fraction) and normalises it to UTC;
//! output is always the fixed-width form. Only instants from [`EARLIEST`] to [`LATEST`] (years
//! 0000 to 9999 in UTC, after the offset is applied) are accepted: outside them the fixed-width
//! text cannot be written, and an instant that cannot be written down is refused rather than
//! silently turned into another one.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A point in time with microsecond precision, always UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    micros: i64,
}

const MICROS_PER_SECOND: i64 = 1_000_000;

/// 0000-01-01T00:00:00.000000Z, the earliest instant accepted.
pub const EARLIEST: Instant = Instant {
    micros: -62_167_219_200_000_000,
};
/// 9999-12-31T23:59:59.999999Z, the latest instant accepted.
pub const LATEST: Instant = Instant {
    micros: 253_402_300_799_999_999,
};

/// How the accepted range is described to the owner.
pub const RANGE: &str = "from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z (in UTC, after the offset is applied)";

impl Instant {
    /// The machine's wall clock now.
    pub fn now() -> Instant {
        Instant::from_offset_date_time(OffsetDateTime::now_utc())
    }

    pub fn from_micros(micros: i64) -> Instant {
        Instant { micros }
    }

    pub fn as_micros(self) -> i64 {
        self.micros
    }

    /// Parses an RFC 3339 instant such as `2026-11-29T18:54:18Z` or `2026-11-29T19:54:18.5+01:00`;
    /// None for anything else, including an instant outside [`EARLIEST`]..=[`LATEST`].
    pub fn parse(text: &str) -> Option<Instant> {
        Instant::parse_unbounded(text).filter(|at| (EARLIEST..=LATEST).contains(at))
    }

    /// Whether `text` is a well-formed RFC 3339 instant that falls outside the accepted range
    /// once its offset is applied (such as `9999-12-31T23:59:59-23:59`), so the refusal can say
    /// what is wrong with it rather than that it is not an instant at all.
    pub fn is_out_of_range(text: &str) -> bool {
        Instant::parse_unbounded(text).is_some_and(|at| !(EARLIEST..=LATEST).contains(&at))
    }

    fn parse_unbounded(text: &str) -> Option<Instant> {
        // Every instant the store reads back is in its own fixed-width form: read that
        // directly (a catch-up reads two per message); anything else goes through RFC 3339.
        Instant::parse_fixed_width(text).or_else(|| {
            OffsetDateTime::parse(text, &Rfc3339)
                .ok()
                .map(Instant::from_offset_date_time)
        })
    }

    /// `YYYY-MM-DDTHH:MM:SS.ffffffZ` exactly, with every field in range; None otherwise
    /// (including a leap second), for the general parser to decide.
    fn parse_fixed_width(text: &str) -> Option<Instant> {
        let bytes = text.as_bytes();
        if bytes.len() != 27
            || bytes[4] != b'-'
            || bytes[7] != b'-'
            || bytes[10] != b'T'
            || bytes[13] != b':'
            || bytes[16] != b':'
            || bytes[19] != b'.'
            || bytes[26] != b'Z'
        {
            return None;
        }
        let number = |from: usize, to: usize| -> Option<i64> {
            bytes[from..to].iter().try_fold(0i64, |value, &byte| {
                byte.is_ascii_digit()
                    .then(|| value * 10 + i64::from(byte - b'0'))
            })
        };
        let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
        let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
        let micros = number(20, 26)?;
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return None;
        }
        let seconds =
            days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
        Some(Instant {
            micros: seconds * MICROS_PER_SECOND + micros,
        })
    }

    fn from_offset_date_time(at: OffsetDateTime) -> Instant {
        let micros = at.unix_timestamp_nanos() / 1_000;
        Instant {
            micros: micros as i64,
        }
    }

    // Arithmetic saturates: an instant near the ends of the range moved past them stays a
    // written-down instant far away rather than wrapping around to one near 1970.
    pub fn plus_micros(self, micros: i64) -> Instant {
        Instant {
            micros: self.micros.saturating_add(micros),
        }
    }

    pub fn minus_seconds(self, seconds: i64) -> Instant {
        Instant {
            micros: self
                .micros
                .saturating_sub(seconds.saturating_mul(MICROS_PER_SECOND)),
        }
    }

    pub fn plus_seconds(self, seconds: i64) -> Instant {
        Instant {
            micros: self
                .micros
                .saturating_add(seconds.saturating_mul(MICROS_PER_SECOND)),
        }
    }

    /// The fixed-width ISO-8601 UTC text used everywhere this instant is written down.
    pub fn to_iso(self) -> String {
        let seconds = self.micros.div_euclid(MICROS_PER_SECOND);
        let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
        if !(0..=9999).contains(&year) {
            return self.to_iso_general();
        }
        // Written digit by digit: every row the store writes is stamped with this text, and
        // `format!` through `time` cost more than the row's own INSERT did.
        let second_of_day = seconds.rem_euclid(86_400);
        let mut text = [0u8; 27];
        let mut put = |at: usize, width: usize, mut value: i64| {
            for index in (at..at + width).rev() {
                text[index] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, month);
        put(8, 2, day);
        put(11, 2, second_of_day / 3_600);
        put(14, 2, second_of_day / 60 % 60);
        put(17, 2, second_of_day % 60);
        put(20, 6, self.micros.rem_euclid(MICROS_PER_SECOND));
        for (at, separator) in [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (26, b'Z'),
        ] {
            text[at] = separator;
        }
        String::from_utf8(text.to_vec()).unwrap_or_else(|_| self.to_iso_general())
    }

    /// [`to_iso`](Instant::to_iso) through `format!`, for any instant, including one outside
    /// years 0 to 9999 that only arithmetic can make (written with its real year, never as
    /// another instant).
    fn to_iso_general(self) -> String {
        let seconds = self.micros.div_euclid(MICROS_PER_SECOND);
        let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
        let second_of_day = seconds.rem_euclid(86_400);
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
            year,
            month,
            day,
            second_of_day / 3_600,
            second_of_day / 60 % 60,
            second_of_day % 60,
            self.micros.rem_euclid(MICROS_PER_SECOND)
        )
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date of a day since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_iso())
    }
}

impl Serialize for Instant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_iso())
    }
}

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        Instant::parse(&text).ok_or_else(|| serde::de::Error::custom(EXPECTED))
    }
}

/// How an instant is described to the owner when one was expected.
pub const EXPECTED: &str = "an ISO-8601 instant such as 2026-11-29T18:54:18Z";

impl JsonSchema for Instant {
    fn schema_name() -> Cow<'static, str> {
        "Instant".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": "date-time" })
    }
}

#[cfg(test)]
mod tests {
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

    /// The digit-by-digit writer and reader agree with `time` on every kind of date: both
    /// sides of the epoch, leap days, century years, the ends of the four-digit years.
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
            let general = OffsetDateTime::parse(&text, &Rfc3339)
                .ok()
                .map(Instant::from_offset_date_time);
            assert_eq!(general, Some(instant), "{text}");
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
}
