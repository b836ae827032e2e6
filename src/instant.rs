//! Instants at the JSON boundary and in the store: ISO-8601 UTC text of fixed width
//! with microseconds (`2026-11-29T18:54:18.123456Z`), so that text order is time order.
//!
//! Input accepts any RFC 3339 instant (any offset, any fraction) and normalises it to UTC;
//! output is always the fixed-width form.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// A point in time with microsecond precision, always UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    micros: i64,
}

const MICROS_PER_SECOND: i64 = 1_000_000;

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

    /// Parses an RFC 3339 instant such as `2026-11-29T18:54:18Z` or `2026-11-29T19:54:18.5+01:00`.
    pub fn parse(text: &str) -> Option<Instant> {
        OffsetDateTime::parse(text, &Rfc3339)
            .ok()
            .map(Instant::from_offset_date_time)
    }

    fn from_offset_date_time(at: OffsetDateTime) -> Instant {
        let micros = at.unix_timestamp_nanos() / 1_000;
        Instant {
            micros: micros as i64,
        }
    }

    pub fn plus_micros(self, micros: i64) -> Instant {
        Instant {
            micros: self.micros + micros,
        }
    }

    pub fn minus_seconds(self, seconds: i64) -> Instant {
        Instant {
            micros: self.micros - seconds * MICROS_PER_SECOND,
        }
    }

    pub fn plus_seconds(self, seconds: i64) -> Instant {
        Instant {
            micros: self.micros + seconds * MICROS_PER_SECOND,
        }
    }

    /// The fixed-width ISO-8601 UTC text used everywhere this instant is written down.
    pub fn to_iso(self) -> String {
        let at = OffsetDateTime::from_unix_timestamp_nanos(self.micros as i128 * 1_000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
            .to_offset(UtcOffset::UTC);
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second(),
            at.microsecond()
        )
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

    #[test]
    fn rejects_text_that_is_not_an_instant() {
        assert_eq!(Instant::parse("yesterday"), None);
        assert_eq!(Instant::parse("2026-11-29"), None);
        assert_eq!(Instant::parse("2026-11-29 18:54:18"), None);
    }
}
