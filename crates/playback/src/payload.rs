//! Discord's message and user objects, written once: the JSON of a MESSAGE_CREATE, of a REST
//! message, and of a message's author.
//!
//! The demo's stand-in Discord, the synthetic generator and the unit-test world all play
//! Discord's side, and the recorders parse what they play as Discord's own JSON. Each used to
//! spell the whole object out, so a field the recorders came to read had to be added in every
//! copy and a copy that missed one tested less than it seemed to. Here the object is built
//! from what varies between messages; every other field has a plain message's value (no
//! attachment, embed, pin or text-to-speech), as Discord sends it.
//!
//! The builders produce [`Value`]s rather than serenity's types because the demo and the
//! synthetic generator know no serenity, and because what is played must be what Discord
//! sends: the recorders' own parsing of it is part of what is exercised.

use serde_json::{Map, Value, json};

/// The message type of a plain message.
const DEFAULT: u8 = 0;
/// The message type of a reply (it carries a `message_reference`).
const REPLY: u8 = 19;

/// A Discord user object, as a message's `author` or an entry of its `mentions`.
#[derive(Debug, Clone, Default)]
pub struct User {
    pub id: String,
    pub username: String,
    /// The display name; `None` for an account without one (it is then `null`).
    pub global_name: Option<String>,
    pub bot: bool,
}

impl User {
    /// The user object Discord sends: the account has the new unique username (discriminator
    /// `"0"`) and no avatar.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": null,
            "bot": self.bot,
        })
    }
}

/// A Discord message object. Build it with the fields that vary and `..Message::default()`
/// for the rest, which are a plain message's: in no guild (as a REST answer or a direct
/// message is), never edited, mentioning no one, no flags.
#[derive(Debug, Clone, Default)]
pub struct Message<'a> {
    pub id: &'a str,
    pub channel_id: &'a str,
    /// Present on a gateway event in a guild; absent from REST answers and direct messages.
    pub guild_id: Option<&'a str>,
    pub author: User,
    pub content: &'a str,
    /// When Discord says it was sent (ISO-8601).
    pub timestamp: &'a str,
    /// When it was last edited (ISO-8601); `None` if never.
    pub edited_timestamp: Option<&'a str>,
    pub mention_everyone: bool,
    /// The user objects of the users it mentions.
    pub mentions: &'a [Value],
    pub mention_roles: &'a [String],
    pub flags: u64,
    /// The nonce the sender gave, which Discord echoes in its answer.
    pub nonce: Option<&'a str>,
    /// The message this one replies to, in the same channel: it makes the message a reply
    /// (type 19) with a `message_reference` to it.
    pub reply_to: Option<&'a str>,
    /// The replied-to message itself, which the gateway sends along with a reply.
    pub referenced_message: Option<Box<Message<'a>>>,
}

impl Message<'_> {
    /// The message object, with every field the recorders read.
    pub fn to_json(&self) -> Value {
        let mut message = Map::new();
        message.insert("id".into(), json!(self.id));
        message.insert("channel_id".into(), json!(self.channel_id));
        if let Some(guild_id) = self.guild_id {
            message.insert("guild_id".into(), json!(guild_id));
        }
        message.insert("author".into(), self.author.to_json());
        message.insert("content".into(), json!(self.content));
        message.insert("timestamp".into(), json!(self.timestamp));
        message.insert("edited_timestamp".into(), json!(self.edited_timestamp));
        message.insert("tts".into(), json!(false));
        message.insert("mention_everyone".into(), json!(self.mention_everyone));
        message.insert("mentions".into(), json!(self.mentions));
        message.insert("mention_roles".into(), json!(self.mention_roles));
        message.insert("attachments".into(), json!([]));
        message.insert("embeds".into(), json!([]));
        message.insert("pinned".into(), json!(false));
        message.insert("flags".into(), json!(self.flags));
        if let Some(nonce) = self.nonce {
            message.insert("nonce".into(), json!(nonce));
        }
        let kind = match self.reply_to {
            Some(reply_to) => {
                message.insert("message_reference".into(), self.reference(reply_to));
                REPLY
            }
            None => DEFAULT,
        };
        message.insert("type".into(), json!(kind));
        if let Some(referenced) = &self.referenced_message {
            message.insert("referenced_message".into(), referenced.to_json());
        }
        Value::Object(message)
    }

    /// A reference to `message_id` in this message's channel (and guild, if it is in one).
    fn reference(&self, message_id: &str) -> Value {
        let mut reference = json!({"message_id": message_id, "channel_id": self.channel_id});
        if let Some(guild_id) = self.guild_id {
            reference["guild_id"] = json!(guild_id);
        }
        reference
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn author() -> User {
        User {
            id: "1000000000000000002".into(),
            username: "grace".into(),
            global_name: Some("Grace".into()),
            bot: false,
        }
    }

    #[test]
    fn a_plain_message_has_every_field_at_a_plain_messages_value() {
        let message = Message {
            id: "1500000000000000001",
            channel_id: "1400000000000000001",
            author: author(),
            content: "hello",
            timestamp: "2026-11-29T12:00:00Z",
            ..Message::default()
        };
        assert_eq!(
            message.to_json(),
            json!({
                "id": "1500000000000000001", "channel_id": "1400000000000000001",
                "author": {"id": "1000000000000000002", "username": "grace", "discriminator": "0",
                           "global_name": "Grace", "avatar": null, "bot": false},
                "content": "hello", "timestamp": "2026-11-29T12:00:00Z", "edited_timestamp": null,
                "tts": false, "mention_everyone": false, "mentions": [], "mention_roles": [],
                "attachments": [], "embeds": [], "pinned": false, "type": 0, "flags": 0
            })
        );
    }

    #[test]
    fn a_reply_in_a_guild_references_its_target_in_the_same_channel_and_guild() {
        let target = Message {
            id: "1500000000000000001",
            channel_id: "1400000000000000001",
            guild_id: Some("1200000000000000001"),
            author: author(),
            content: "deploy at 5?",
            timestamp: "2026-11-29T12:00:00Z",
            ..Message::default()
        };
        let reply = Message {
            id: "1500000000000000002",
            content: "yes",
            nonce: Some("n-1"),
            edited_timestamp: Some("2026-11-29T12:05:00Z"),
            reply_to: Some(target.id),
            referenced_message: Some(Box::new(target.clone())),
            ..target.clone()
        }
        .to_json();
        assert_eq!(reply["type"], 19);
        assert_eq!(
            reply["message_reference"],
            json!({"message_id": "1500000000000000001", "channel_id": "1400000000000000001",
                   "guild_id": "1200000000000000001"})
        );
        assert_eq!(reply["referenced_message"], target.to_json());
        assert_eq!(reply["nonce"], "n-1");
        assert_eq!(reply["edited_timestamp"], "2026-11-29T12:05:00Z");
        assert_eq!(reply["guild_id"], "1200000000000000001");
    }

    #[test]
    fn a_reply_outside_a_guild_references_no_guild() {
        let reply = Message {
            id: "1500000000000000002",
            channel_id: "1400000000000000001",
            reply_to: Some("1500000000000000001"),
            ..Message::default()
        }
        .to_json();
        assert_eq!(
            reply["message_reference"],
            json!({"message_id": "1500000000000000001", "channel_id": "1400000000000000001"})
        );
        assert!(reply.get("guild_id").is_none());
        assert!(reply.get("nonce").is_none());
    }
}
