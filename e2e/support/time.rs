//! Instants as the harness writes them into a feed and as the product writes them back.
//!
//! Discord sends timestamps as `2026-11-29T18:54:18.123456+00:00`; the product answers with
//! fixed-width UTC text, `2026-11-29T18:54:18.123456Z`. A [`Stamp`] knows both spellings, so a
//! spec compares the product's text with the value its feed used, never with a restated string.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;

/// A point in time with microsecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    micros: i128,
}

impl Stamp {
    /// The wall clock now: the anchor a feed's relative instants hang from.
    pub fn now() -> Stamp {
        Stamp {
            micros: i128::from(Timestamp::now().as_microsecond()),
        }
    }

    /// Reads an instant the product wrote. Panics naming the text when it is not one.
    pub fn parse(text: &str) -> Stamp {
        let at: Timestamp = text
            .parse()
            .unwrap_or_else(|error| panic!("{text:?} is not an RFC 3339 instant: {error}"));
        Stamp {
            micros: i128::from(at.as_microsecond()),
        }
    }

    pub fn plus_micros(self, micros: i128) -> Stamp {
        Stamp {
            micros: self.micros + micros,
        }
    }

    pub fn plus_minutes(self, minutes: i128) -> Stamp {
        self.plus_micros(minutes * 60 * 1_000_000)
    }

    pub fn minus_minutes(self, minutes: i128) -> Stamp {
        self.plus_minutes(-minutes)
    }

    /// The stamp's wall-clock time `offset` ahead of UTC.
    fn date_time(self, offset: Offset) -> DateTime {
        let micros = i64::try_from(self.micros).expect("a stamp within the calendar");
        offset
            .to_datetime(Timestamp::from_microsecond(micros).expect("a stamp within the calendar"))
    }

    fn spelled(self, zone: &str) -> String {
        self.spelled_in(self.date_time(Offset::UTC), zone)
    }

    fn spelled_in(self, at: DateTime, zone: &str) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}{zone}",
            at.year(),
            at.month(),
            at.day(),
            at.hour(),
            at.minute(),
            at.second(),
            at.subsec_nanosecond() / 1_000
        )
    }

    /// As the product writes it: fixed-width UTC with microseconds and `Z`.
    pub fn iso(self) -> String {
        self.spelled("Z")
    }

    /// The same instant on a clock `hours` ahead of UTC, e.g. `2026-11-29T20:54:18.123456+02:00`.
    pub fn at_offset(self, hours: i8) -> String {
        self.spelled_in(
            self.date_time(Offset::constant(hours)),
            &format!("{:+03}:00", hours),
        )
    }

    /// As Discord sends it in a gateway payload.
    pub fn wire(self) -> String {
        self.spelled("+00:00")
    }
}

/// The instant one microsecond after `iso`, written as the product writes instants.
pub fn micro_after(iso: &str) -> String {
    Stamp::parse(iso).plus_micros(1).iso()
}

/// The instant one microsecond before `iso`, written as the product writes instants.
pub fn micro_before(iso: &str) -> String {
    Stamp::parse(iso).plus_micros(-1).iso()
}
