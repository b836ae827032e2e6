//! Instants: at the JSON boundary, ISO-8601 UTC text of fixed width with microseconds
//! (`2026-11-29T18:54:18.123456Z`); in the store (behind the `sqlite` feature), an INTEGER of
//! microseconds since 1970, so an instant is 8 bytes and orders as a number.
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
        let micros = match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_micros()).unwrap_or(i64::MAX),
            Err(before) => {
                i64::try_from(before.duration().as_micros()).map_or(i64::MIN, |micros| -micros)
            }
        };
        Instant { micros }
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
        // Every instant the product wrote is in its own fixed-width form (a stored one, until
        // migration 0035 made them numbers): read that directly; anything else goes through
        // RFC 3339.
        Instant::parse_fixed_width(text).or_else(|| Instant::parse_rfc3339(text))
    }

    /// RFC 3339's `date-time` (section 5.6), exactly: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction of one or more digits (kept to the microsecond, the rest cut off), then `Z` or
    /// `±HH:MM`; `T` and `Z` in either case, as the RFC allows. Nothing else that ISO 8601 or
    /// its extensions would take: no missing seconds, no space for `T`, no comma, no offset
    /// without its colon, no bracketed zone. A leap second (`:60`) is taken only where one can
    /// be, the last second of a UTC day, as that day's last microsecond.
    fn parse_rfc3339(text: &str) -> Option<Instant> {
        let bytes = text.as_bytes();
        let number = |from: usize, to: usize| -> Option<i64> {
            bytes.get(from..to)?.iter().try_fold(0i64, |value, &byte| {
                byte.is_ascii_digit()
                    .then(|| value * 10 + i64::from(byte - b'0'))
            })
        };
        let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
        if bytes.len() < 20
            || separators
                .iter()
                .any(|&(at, separator)| bytes[at] != separator)
            || !matches!(bytes[10], b'T' | b't')
        {
            return None;
        }
        let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
        let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
        let mut at = 19;
        let mut micros = 0;
        if bytes[at] == b'.' {
            let digits = bytes[at + 1..]
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .count();
            if digits == 0 {
                return None;
            }
            let kept = number(at + 1, at + 1 + digits.min(6))?;
            micros = kept * 10_i64.pow(6 - digits.min(6) as u32);
            at += 1 + digits;
        }
        let offset_seconds = match &bytes[at..] {
            [b'Z' | b'z'] => 0,
            [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
                let (hours, minutes) = (number(at + 1, at + 3)?, number(at + 4, at + 6)?);
                if hours > 23 || minutes > 59 {
                    return None;
                }
                let magnitude = hours * 3_600 + minutes * 60;
                if *sign == b'-' { -magnitude } else { magnitude }
            }
            _ => return None,
        };
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 60
        {
            return None;
        }
        let leap = second == 60;
        let seconds = days_from_civil(year, month, day) * 86_400
            + hour * 3_600
            + minute * 60
            + second.min(59)
            - offset_seconds;
        if leap {
            // 23:59:60 in UTC only, read as 23:59:59.999999.
            return (seconds.rem_euclid(86_400) == 86_399).then(|| Instant {
                micros: seconds * MICROS_PER_SECOND + (MICROS_PER_SECOND - 1),
            });
        }
        Some(Instant {
            micros: seconds * MICROS_PER_SECOND + micros,
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

/// Bound as SQLite's 64-bit INTEGER: the instant's microseconds since 1970 (the store holds
/// every instant so since `migrations/0035_instants_as_numbers.sql`, and they order as numbers).
#[cfg(feature = "sqlite")]
impl rusqlite::types::ToSql for Instant {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(rusqlite::types::ToSqlOutput::Owned(
            rusqlite::types::Value::Integer(self.micros),
        ))
    }
}

/// Read back from the INTEGER [`ToSql`](rusqlite::types::ToSql) wrote, and from nothing else:
/// an instant the store holds in any other form is a damaged store, said as one.
#[cfg(feature = "sqlite")]
impl rusqlite::types::FromSql for Instant {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        use rusqlite::types::{FromSqlError, ValueRef};
        match value {
            ValueRef::Integer(micros) => Ok(Instant { micros }),
            other => {
                let shown = match other {
                    ValueRef::Text(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
                    ValueRef::Real(number) => number.to_string(),
                    ValueRef::Blob(bytes) => format!("{} bytes", bytes.len()),
                    _ => "nothing".to_string(),
                };
                Err(FromSqlError::Other(Box::new(
                    crate::error::Error::internal(format!(
                        "The store is damaged: it holds {shown} where an instant belongs"
                    ))
                    .with_hint(
                        "Restore the store from a backup, or run `doctor` to see what else is wrong",
                    ),
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests;
