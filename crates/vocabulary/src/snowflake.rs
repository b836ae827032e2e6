//! Discord's ids (snowflakes): the validated id every input and answer carries, and the one
//! place that knows how an id encodes the millisecond Discord minted it.
//!
//! A snowflake is milliseconds since Discord's epoch (the first instant of 2015) shifted left
//! by 22 bits, above a worker, process and sequence number. Nothing here reads the host's
//! clock: an id made from an instant is only ever a bound or a stand-in (the demo seed, the
//! benchmark's generator), never a claim about what Discord has minted.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

use crate::instant::Instant;

/// Discord's epoch, 2015-01-01T00:00:00Z, in milliseconds since the Unix epoch.
pub const DISCORD_EPOCH_MILLIS: i64 = 1_420_070_400_000;

/// The bits below an id's timestamp: worker, process and sequence number.
const TIMESTAMP_SHIFT: u32 = 22;

/// The id of a message minted at `at` with `sequence` in its low bits (masked to them), so that
/// ids minted in one millisecond differ. An instant before Discord's epoch is held at it.
pub fn snowflake_at(at: Instant, sequence: u64) -> u64 {
    let millis = (at.as_micros() / 1_000 - DISCORD_EPOCH_MILLIS).max(0) as u64;
    (millis << TIMESTAMP_SHIFT) | (sequence & ((1 << TIMESTAMP_SHIFT) - 1))
}

/// The millisecond Discord minted `id`, as an instant.
pub fn minted_at(id: u64) -> Instant {
    Instant::from_micros(((id >> TIMESTAMP_SHIFT) as i64 + DISCORD_EPOCH_MILLIS) * 1_000)
}

/// The lowest id Discord can have minted `days` days before it minted `id`: a window measured
/// in Discord's own ids, with no reading of the host's clock.
pub fn days_before(id: u64, days: u64) -> u64 {
    const DAY_MILLIS: u64 = 86_400_000;
    let minted = id >> TIMESTAMP_SHIFT;
    minted.saturating_sub(days.saturating_mul(DAY_MILLIS)) << TIMESTAMP_SHIFT
}

/// A Discord id (a snowflake), always written as a string of digits: JSON numbers cannot hold
/// every snowflake exactly.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct DiscordId(String);

impl DiscordId {
    pub fn parse(text: &str) -> Option<DiscordId> {
        let valid = !text.is_empty()
            && text.len() <= 20
            && text.bytes().all(|byte| byte.is_ascii_digit())
            && text.parse::<u64>().is_ok_and(|id| id > 0);
        valid.then(|| DiscordId(text.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DiscordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DiscordId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        DiscordId::parse(&text).ok_or_else(|| serde::de::Error::custom("not a Discord id"))
    }
}

impl JsonSchema for DiscordId {
    fn schema_name() -> Cow<'static, str> {
        "DiscordId".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": "^[0-9]{1,20}$" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_minted_at_an_instant_reads_back_as_that_millisecond() {
        // Discord's documented example: 175928847299117063 was minted 2016-04-30T11:18:25.796Z.
        let documented = 175_928_847_299_117_063;
        assert_eq!(
            minted_at(documented).to_iso(),
            "2016-04-30T11:18:25.796000Z"
        );
        let at = minted_at(documented);
        assert_eq!(snowflake_at(at, 0) >> 22, documented >> 22);
        assert_eq!(snowflake_at(at, 7) & 0x3f_ffff, 7);
        // The sequence is masked to its 22 bits and never reaches the timestamp.
        assert_eq!(snowflake_at(at, 1 << 22) >> 22, documented >> 22);
    }

    #[test]
    fn days_before_is_whole_days_of_milliseconds_below_the_ids_own() {
        let id = 175_928_847_299_117_063;
        let week = days_before(id, 7);
        assert_eq!(
            minted_at(id).as_micros() - minted_at(week).as_micros(),
            7 * 86_400_000_000
        );
        // The low bits are cleared: the lowest id of that millisecond.
        assert_eq!(week & 0x3f_ffff, 0);
        assert_eq!(days_before(id, 100_000), 0);
    }

    #[test]
    fn an_instant_before_discords_epoch_is_held_at_it() {
        assert_eq!(snowflake_at(Instant::from_micros(0), 3), 3);
        assert_eq!(minted_at(0).as_micros(), DISCORD_EPOCH_MILLIS * 1_000);
    }

    #[test]
    fn an_id_is_one_to_twenty_digits_and_not_zero() {
        assert!(DiscordId::parse("1").is_some());
        assert!(DiscordId::parse("18446744073709551615").is_some());
        for refused in [
            "",
            "0",
            "18446744073709551616",
            "12a",
            "-1",
            " 1",
            "123456789012345678901",
        ] {
            assert!(
                DiscordId::parse(refused).is_none(),
                "{refused:?} was accepted"
            );
        }
    }
}
