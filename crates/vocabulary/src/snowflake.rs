//! Discord's ids (snowflakes): one validated type per kind of id ([`ChannelId`],
//! [`MessageId`], [`GuildId`], [`UserId`], [`RoleId`], [`AttachmentId`], [`ApplicationId`],
//! [`WebhookId`], [`EmojiId`], [`StickerId`], [`TagId`], and [`DiscordId`] where the kind is
//! not fixed) that every input, answer and store row carries, and the one place that knows how
//! an id encodes the millisecond Discord minted it.
//!
//! A snowflake is milliseconds since Discord's epoch (the first instant of 2015) shifted left
//! by 22 bits, above a worker, process and sequence number. Nothing here reads the host's
//! clock: an id made from an instant is only ever a bound or a stand-in (the demo seed, the
//! benchmark's generator), never a claim about what Discord has minted.

use std::borrow::Cow;
use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

#[cfg(feature = "sqlite")]
use crate::error::Error;
use crate::instant::Instant;

pub mod link;

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

/// Whether `text` is a Discord id: 1 to 20 digits, not zero, within a `u64`. Every kind of id
/// below is validated by this one rule.
pub fn is_discord_id(text: &str) -> bool {
    parse_id(text).is_some()
}

/// The number `text` writes, if it is a Discord id: one pass over the digits.
fn parse_id(text: &str) -> Option<NonZeroU64> {
    if text.is_empty() || text.len() > 20 {
        return None;
    }
    let value = text.bytes().try_fold(0u64, |value, byte| {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value.checked_mul(10)?.checked_add(u64::from(digit))
    })?;
    NonZeroU64::new(value)
}

/// How an id is stored: SQLite's INTEGER is a signed 64-bit number, and an id is kept as the
/// one with the same 64 bits. Discord's ids stay below 2^63 until 2084 (the top bit counts
/// milliseconds from 2015), so until then the stored number is the id itself and SQL's order
/// is the ids' order; an id above it still reads back exactly.
pub fn stored_bits(id: impl Snowflake) -> i64 {
    to_stored(id.number())
}

/// A snowflake's number (an id, or a bound between ids such as "complete through") as the store
/// holds it: the signed 64-bit number with the same bits (see [`stored_bits`]).
pub fn to_stored(number: u64) -> i64 {
    number as i64
}

/// The snowflake number the store holds as `stored`: the inverse of [`to_stored`].
pub fn from_stored(stored: i64) -> u64 {
    stored as u64
}

/// What every kind of id is: a non-zero 64-bit number under its kind's type.
pub trait Snowflake: Copy {
    /// The id's number.
    fn number(self) -> u64;
}

impl<T: Snowflake> Snowflake for &T {
    fn number(self) -> u64 {
        (*self).number()
    }
}

/// `ids` as one JSON array of the numbers the store holds ([`stored_bits`]), which SQL reads
/// with `json_each` and compares with the id columns as the integers they are.
#[cfg(feature = "sqlite")]
pub fn sql_id_array<T: Snowflake>(ids: impl IntoIterator<Item = T>) -> String {
    use std::fmt::Write;
    let mut json = String::from("[");
    for (n, id) in ids.into_iter().enumerate() {
        let separator = if n > 0 { "," } else { "" };
        let bits = stored_bits(id);
        // Writing to a String cannot fail.
        let _ = write!(json, "{separator}{bits}");
    }
    json.push(']');
    json
}

/// Why a text is not an id of a kind: owner-worded, naming the kind ("not a channel id").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAnId {
    kind: &'static str,
}

impl fmt::Display for NotAnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a {} id (a string of 1 to 20 digits such as \"1189078123456789012\")",
            self.kind
        )
    }
}

impl std::error::Error for NotAnId {}

/// One kind of Discord id: a validated snowflake that is never mistaken for another kind.
///
/// Each kind is its own type, so a channel's id cannot be passed where a message's is wanted.
/// They share this behaviour: written as a string of digits (JSON numbers cannot hold every
/// snowflake exactly), the same inline JSON Schema (an input's
/// `{"type":"string","pattern":"^[0-9]{1,20}$","format":"discord-id"}`, an answer's
/// `{"type":"string"}`; a
/// channel's and a message's input also take a Discord link, which their schema states),
/// `FromStr` for the command line, and, behind the `sqlite` feature, bound to and read from
/// SQLite as INTEGER ([`stored_bits`]). A stored value that is not an id reads back as an
/// owner-worded error, never a panic. Inside, an id is its number: `Copy`, ordered as numbers
/// (`9 < 10`), compared and hashed without reading digits.
/// The JSON Schema `format` of an input that takes a Discord id: what the input check holds a
/// field to is named by its format, never guessed from its `pattern`, which is there for the
/// client's own validator.
pub const ID_FORMAT: &str = "discord-id";

macro_rules! discord_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        discord_id! { $(#[$doc])* $name, $kind, input = json_schema!({ "type": "string", "pattern": "^[0-9]{1,20}$", "format": ID_FORMAT }) }
    };
    ($(#[$doc:meta])* $name:ident, $kind:literal, input = $input:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(NonZeroU64);

        impl $name {
            /// The id written in `text`, if `text` is one (see [`is_discord_id`]).
            pub fn parse(text: &str) -> Option<$name> {
                parse_id(text).map($name)
            }
            /// The id whose number is `id`; none for zero.
            pub fn from_u64(id: u64) -> Option<$name> {
                NonZeroU64::new(id).map($name)
            }
            /// The id whose number is `id` (Discord's clients hold ids as non-zero numbers).
            pub fn from_nonzero(id: NonZeroU64) -> $name {
                $name(id)
            }
            /// The id's number: for the arithmetic of [`minted_at`] and [`days_before`].
            pub fn get(self) -> u64 {
                self.0.get()
            }
            /// The id as the signed 64-bit number with the same bits: what the store's INTEGER
            /// columns and a cursor's keys hold (see [`stored_bits`]).
            pub fn as_i64(self) -> i64 {
                self.0.get() as i64
            }
        }

        impl Snowflake for $name {
            fn number(self) -> u64 {
                self.0.get()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        /// Written as its digits: a JSON number cannot hold every snowflake exactly.
        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(&self.0)
            }
        }

        /// An id equals the text that writes it (a test's or a map key's digits).
        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                parse_id(other) == Some(self.0)
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                parse_id(other) == Some(self.0)
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                parse_id(other) == Some(self.0)
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                other == self
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                other == self
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                other == self
            }
        }

        impl FromStr for $name {
            type Err = NotAnId;
            fn from_str(text: &str) -> Result<$name, NotAnId> {
                $name::parse(text).ok_or(NotAnId { kind: $kind })
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = Cow::<str>::deserialize(deserializer)?;
                $name::parse(&text).ok_or_else(|| serde::de::Error::custom(NotAnId { kind: $kind }))
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn inline_schema() -> bool {
                true
            }
            /// An input's schema carries the pattern the input check holds it to; an answer's
            /// says a string, as answers' ids always have (the schema snapshots hold both).
            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                if generator.contract().is_serialize() {
                    json_schema!({ "type": "string" })
                } else {
                    $input
                }
            }
        }

        #[cfg(feature = "sqlite")]
        impl rusqlite::types::ToSql for $name {
            /// Bound as SQLite's 64-bit INTEGER with the id's bits (see [`stored_bits`]).
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::Owned(
                    rusqlite::types::Value::Integer(stored_bits(*self)),
                ))
            }
        }

        #[cfg(feature = "sqlite")]
        impl rusqlite::types::FromSql for $name {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                stored_id(value, $kind).map($name)
            }
        }
    };
}

/// A stored id of `kind`, or an owner-worded error (an [`Error`], which
/// `From<rusqlite::Error>` keeps as it is) when the store holds something that is not one. The
/// store writes ids as INTEGER ([`stored_bits`]); the digits of an id as TEXT read too, as a
/// store written before ids were numbers held them.
#[cfg(feature = "sqlite")]
fn stored_id(
    value: rusqlite::types::ValueRef<'_>,
    kind: &'static str,
) -> rusqlite::types::FromSqlResult<NonZeroU64> {
    use rusqlite::types::{FromSqlError, ValueRef};
    let id = match value {
        ValueRef::Text(bytes) => std::str::from_utf8(bytes).ok().and_then(parse_id),
        ValueRef::Integer(number) => NonZeroU64::new(number as u64),
        _ => return Err(FromSqlError::InvalidType),
    };
    id.ok_or_else(|| {
        let shown = match value {
            ValueRef::Text(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
            ValueRef::Integer(number) => number.to_string(),
            _ => String::new(),
        };
        FromSqlError::Other(Box::new(
            Error::internal(format!(
                "The store is damaged: it holds {shown} where a {kind} id belongs, and that is \
                 not a Discord id"
            ))
            .with_hint(
                "Restore the store from a backup, or run `doctor` to see what else is wrong",
            ),
        ))
    })
}

discord_id! {
    /// A channel's id: a guild's text or voice channel, a thread, a forum, a category or a
    /// direct-message channel. An input takes a link to the channel or to a message in it
    /// too ([`link`]), which the input layer resolves to the channel's id.
    ChannelId, "channel", input = json_schema!({
        "type": "string",
        "format": link::CHANNEL_ID_OR_LINK,
        "pattern": link::ID_OR_LINK_PATTERN,
    })
}

discord_id! {
    /// A message's id (also the millisecond Discord minted it: [`minted_at`]). An input takes
    /// a link to the message too ([`link`]), which the input layer resolves to its id.
    MessageId, "message", input = json_schema!({
        "type": "string",
        "format": link::MESSAGE_ID_OR_LINK,
        "pattern": link::MESSAGE_ID_OR_LINK_PATTERN,
    })
}

discord_id! {
    /// A guild's (a server's) id; also the id of its @everyone role ([`RoleId::everyone_of`]).
    GuildId, "guild"
}

discord_id! {
    /// A user's id: a person, a bot or the owner.
    UserId, "user"
}

discord_id! {
    /// A role's id in a guild.
    RoleId, "role"
}

discord_id! {
    /// An attachment's id, unique across Discord.
    AttachmentId, "attachment"
}

discord_id! {
    /// An application's id (the bot's own, or the app behind an interaction's message).
    ApplicationId, "application"
}

discord_id! {
    /// A webhook's id, when a webhook posted a message.
    WebhookId, "webhook"
}

discord_id! {
    /// A custom emoji's id (a Unicode emoji has none).
    EmojiId, "emoji"
}

discord_id! {
    /// A sticker's id.
    StickerId, "sticker"
}

discord_id! {
    /// A forum's tag's id.
    TagId, "forum tag"
}

discord_id! {
    /// An id whose kind its field does not fix: a permission overwrite's target, a role's or
    /// a member's as the overwrite's kind says. Every other id has its own type.
    DiscordId, "Discord"
}

impl RoleId {
    /// The @everyone role of `guild`: Discord gives it the guild's own id.
    pub fn everyone_of(guild: &GuildId) -> RoleId {
        RoleId(guild.0)
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
        assert_eq!(ChannelId::parse("1").map(|id| id.get()), Some(1));
        assert_eq!(
            MessageId::parse("18446744073709551615").map(|id| id.get()),
            Some(u64::MAX)
        );
        for refused in [
            "",
            "0",
            "00",
            "18446744073709551616",
            "99999999999999999999",
            "12a",
            "+1",
            "1/",
            "1:",
            "-1",
            " 1",
            "1 ",
            "123456789012345678901",
        ] {
            assert!(!is_discord_id(refused), "{refused:?} was accepted");
            assert_eq!(ChannelId::parse(refused), None, "{refused:?} was accepted");
            assert_eq!(
                refused.parse::<GuildId>().unwrap_err().to_string(),
                "not a guild id (a string of 1 to 20 digits such as \"1189078123456789012\")"
            );
        }
        assert_eq!(UserId::from_u64(0), None);
        assert_eq!(UserId::from_u64(42).unwrap(), "42");
        assert_eq!(
            RoleId::from_nonzero(NonZeroU64::new(7).unwrap()).to_string(),
            "7"
        );
        let guild = GuildId::parse("99").unwrap();
        assert_eq!(RoleId::everyone_of(&guild).to_string(), "99");
    }

    #[test]
    fn ids_are_numbers_ordered_as_numbers_and_a_text_of_digits_equals_its_id() {
        let (nine, ten) = (
            ChannelId::parse("9").unwrap(),
            ChannelId::parse("10").unwrap(),
        );
        assert!(nine < ten, "9 sorts before 10, as numbers do");
        let mut ids = vec![ten, nine];
        ids.sort();
        assert_eq!(ids, [nine, ten]);
        // Copy: an id is used again after it is passed on.
        let copy = nine;
        assert_eq!(copy.get() + nine.get(), 18);
        assert_eq!(ChannelId::parse("007"), ChannelId::parse("7"));
        assert_eq!(ChannelId::parse("007").unwrap().to_string(), "7");
        assert_eq!(nine, "9");
        assert_ne!(nine, "09x");
        assert_eq!("10".to_string(), ten);
        assert_eq!(std::mem::size_of::<Option<MessageId>>(), 8);
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn an_id_is_stored_as_the_integer_with_its_bits_and_reads_back_from_an_integer_or_digits() {
        use rusqlite::types::{FromSql, ToSql, ToSqlOutput, Value, ValueRef};
        let id = MessageId::parse("1189078123456789012").unwrap();
        assert_eq!(
            id.to_sql().unwrap(),
            ToSqlOutput::Owned(Value::Integer(1_189_078_123_456_789_012))
        );
        assert_eq!(
            MessageId::column_result(ValueRef::Integer(1_189_078_123_456_789_012)).unwrap(),
            id
        );
        // A store written before ids were numbers held their digits.
        assert_eq!(
            MessageId::column_result(ValueRef::Text(b"1189078123456789012")).unwrap(),
            id
        );
        // Above 2^63 the stored number is negative and still reads back as the same id.
        let top = MessageId::from_u64(u64::MAX).unwrap();
        assert_eq!(stored_bits(top), -1);
        assert_eq!(
            MessageId::column_result(ValueRef::Integer(-1)).unwrap(),
            top
        );
        assert_eq!(from_stored(to_stored(u64::MAX)), u64::MAX);
        for damaged in [ValueRef::Integer(0), ValueRef::Text(b"12a")] {
            let error = MessageId::column_result(damaged).unwrap_err().to_string();
            assert!(error.contains("The store is damaged"), "{error}");
        }
        let ids = [9, 10].map(|id| ChannelId::from_u64(id).unwrap());
        assert_eq!(sql_id_array(ids), "[9,10]");
        assert_eq!(sql_id_array(Vec::<ChannelId>::new()), "[]");
    }

    #[test]
    fn an_id_is_written_as_a_string_of_digits_and_read_back() {
        let id = MessageId::parse("1189078123456789012").unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"1189078123456789012\"");
        assert_eq!(serde_json::from_str::<MessageId>(&json).unwrap(), id);
        for refused in [
            "\"\"",
            "\"0\"",
            "\"18446744073709551616\"",
            "\"12a\"",
            "\" 1\"",
        ] {
            let error = serde_json::from_str::<MessageId>(refused).unwrap_err();
            assert!(
                error.to_string().starts_with("not a message id"),
                "{refused}: {error}"
            );
        }
        // A JSON number is refused too: it cannot hold every snowflake exactly.
        assert!(serde_json::from_str::<MessageId>("1189078123456789012").is_err());
    }

    #[test]
    fn every_kind_has_the_one_inline_schema() {
        let expected = serde_json::json!({ "type": "string", "pattern": "^[0-9]{1,20}$", "format": "discord-id" });
        let schemas = [
            schemars::schema_for!(GuildId),
            schemars::schema_for!(UserId),
            schemars::schema_for!(RoleId),
            schemars::schema_for!(AttachmentId),
            schemars::schema_for!(ApplicationId),
            schemars::schema_for!(WebhookId),
            schemars::schema_for!(EmojiId),
            schemars::schema_for!(StickerId),
            schemars::schema_for!(TagId),
            schemars::schema_for!(DiscordId),
        ];
        for schema in schemas {
            let mut value = schema.to_value();
            let object = value.as_object_mut().unwrap();
            object.remove("$schema");
            object.remove("title");
            assert_eq!(value, expected);
        }
        // A channel's and a message's input take a link too, and say so.
        let channel = schemars::schema_for!(ChannelId).to_value();
        assert_eq!(channel["format"], "channel-id-or-link");
        assert_eq!(channel["pattern"], link::ID_OR_LINK_PATTERN);
        let message = schemars::schema_for!(MessageId).to_value();
        assert_eq!(message["format"], "message-id-or-link");
        assert_eq!(message["pattern"], link::MESSAGE_ID_OR_LINK_PATTERN);
        assert!(ChannelId::inline_schema());
        // An answer's id is described as the string it is written as.
        let answer = schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<MessageId>();
        assert_eq!(answer.get("type"), Some(&serde_json::json!("string")));
        assert_eq!(answer.get("pattern"), None);
    }
}
