//! Instants as the harness writes them into a feed and as the product writes them back.
//!
//! Discord sends timestamps as `2026-11-29T18:54:18.123456+00:00`; the product answers with
//! fixed-width UTC text, `2026-11-29T18:54:18.123456Z`. A [`Stamp`] knows both spellings, so a
//! spec compares the product's text with the value its feed used, never with a restated string.

use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// A point in time with microsecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    micros: i128,
}

impl Stamp {
    /// The wall clock now: the anchor a feed's relative instants hang from.
    pub fn now() -> Stamp {
        Stamp {
            micros: OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000,
        }
    }

    /// Reads an instant the product wrote. Panics naming the text when it is not one.
    pub fn parse(text: &str) -> Stamp {
        let at = OffsetDateTime::parse(text, &Rfc3339)
            .unwrap_or_else(|error| panic!("{text:?} is not an RFC 3339 instant: {error}"));
        Stamp {
            micros: at.unix_timestamp_nanos() / 1_000,
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

    fn date_time(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp_nanos(self.micros * 1_000)
            .expect("a stamp within the calendar")
    }

    fn spelled(self, zone: &str) -> String {
        self.spelled_in(self.date_time(), zone)
    }

    fn spelled_in(self, at: OffsetDateTime, zone: &str) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}{zone}",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second(),
            at.microsecond()
        )
    }

    /// As the product writes it: fixed-width UTC with microseconds and `Z`.
    pub fn iso(self) -> String {
        self.spelled("Z")
    }

    /// The same instant on a clock `hours` ahead of UTC, e.g. `2026-11-29T20:54:18.123456+02:00`.
    pub fn at_offset(self, hours: i8) -> String {
        let offset = UtcOffset::from_hms(hours, 0, 0).expect("a whole-hour UTC offset");
        self.spelled_in(
            self.date_time().to_offset(offset),
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
