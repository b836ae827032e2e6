//! An emoji the bot reacts with, as the owner writes it: a Unicode emoji (👍, 🚀, 1️⃣), or a
//! custom one of a guild as `name:id` or as Discord writes it in a message (`<:name:id>`, and
//! `<a:name:id>` for an animated one).
//!
//! Only the form is checked here, before any request: whether the guild has that custom emoji
//! is Discord's to say (a refusal comes back in the owner's words).

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake::EmojiId;
use serde_json::{Value, json};

/// Discord's limit on a custom emoji's name.
const MAX_NAME_CHARACTERS: usize = 32;
/// Longer than any Unicode emoji sequence (a family with skin tones is 11 code points).
const MAX_UNICODE_CODE_POINTS: usize = 16;
/// COMBINING ENCLOSING KEYCAP: `1️⃣` is `1`, VARIATION SELECTOR-16, then this.
const KEYCAP: char = '\u{20E3}';

/// One emoji, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Emoji {
    Unicode(String),
    Custom {
        name: String,
        id: EmojiId,
        animated: bool,
    },
}

impl Emoji {
    /// Reads the `emoji` field; an owner-worded error names it and says what is wanted.
    pub fn parse(text: &str) -> Result<Emoji> {
        let text = text.trim();
        let wanted = |why: &str| {
            Error::input(format!(
                "`emoji` must be one emoji (👍) or a custom emoji as name:id (party:1234567890) \
                 or <:name:id>; {why}"
            ))
        };
        if text.is_empty() {
            return Err(wanted("got nothing"));
        }
        if let Some(custom) = custom_parts(text) {
            let (name, id, animated) = custom;
            let name_fits = (2..=MAX_NAME_CHARACTERS).contains(&name.chars().count())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !name_fits {
                return Err(wanted(&format!(
                    "a custom emoji's name is 2 to {MAX_NAME_CHARACTERS} letters, digits or _"
                )));
            }
            let Some(id) = EmojiId::parse(id) else {
                return Err(wanted("a custom emoji's id is its Discord id, digits only"));
            };
            return Ok(Emoji::Custom {
                name: name.to_string(),
                id,
                animated,
            });
        }
        if looks_like_unicode_emoji(text) {
            return Ok(Emoji::Unicode(text.to_string()));
        }
        Err(wanted("that is text, not an emoji"))
    }

    /// The emoji as a reaction route names it: a Unicode emoji percent-encoded, a custom one
    /// as `name:id`.
    pub fn route_text(&self) -> String {
        match self {
            Emoji::Unicode(text) => text
                .bytes()
                .map(|byte| match byte {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (byte as char).to_string(),
                    _ => format!("%{byte:02X}"),
                })
                .collect(),
            Emoji::Custom { name, id, .. } => format!("{name}:{id}"),
        }
    }

    /// The emoji object of Discord's reaction events (`{"id", "name", "animated"}`).
    pub fn discord_object(&self) -> Value {
        match self {
            Emoji::Unicode(text) => json!({"id": null, "name": text}),
            Emoji::Custom { name, id, animated } => {
                json!({"id": id, "name": name, "animated": animated})
            }
        }
    }

    /// The emoji as the store and every result write it: Unicode as itself, a custom one as
    /// Discord writes it in a message (`<:name:id>`).
    pub fn text(&self) -> String {
        match self {
            Emoji::Unicode(text) => text.clone(),
            Emoji::Custom { name, id, animated } => {
                format!("<{}:{name}:{id}>", if *animated { "a" } else { "" })
            }
        }
    }
}

/// `name:id`, `<:name:id>` or `<a:name:id>` as (name, id, animated); None for anything else.
fn custom_parts(text: &str) -> Option<(&str, &str, bool)> {
    let (inner, animated) = match text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        Some(inner) => match inner.strip_prefix("a:") {
            Some(rest) => (rest, true),
            None => (inner.strip_prefix(':')?, false),
        },
        None => (text, false),
    };
    let (name, id) = inner.split_once(':')?;
    // `:thumbsup:` is a shortcode, which Discord's API does not take: text, not a custom emoji.
    (!name.is_empty()).then_some((name, id, animated))
}

/// Whether `text` can be one Unicode emoji: short, no spaces or controls, and no letter or
/// digit of plain text except the base of a keycap (`1️⃣`, `#️⃣`). Which sequences Discord has
/// is Discord's to say.
fn looks_like_unicode_emoji(text: &str) -> bool {
    let count = text.chars().count();
    let keycap = text.ends_with(KEYCAP);
    (1..=MAX_UNICODE_CODE_POINTS).contains(&count)
        && text.chars().all(|c| {
            !c.is_whitespace()
                && !c.is_control()
                && (!c.is_ascii() || (keycap && matches!(c, '0'..='9' | '#' | '*')))
        })
        && !text.chars().any(|c| c.is_alphanumeric() && !c.is_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        Emoji::parse(text).unwrap_err().message().to_string()
    }

    #[test]
    fn unicode_emoji_are_taken_as_written_and_percent_encoded_for_the_route() {
        for emoji in ["👍", "🚀", "1️⃣", "#️⃣", "👨‍👩‍👧‍👦", "✅", "🇫🇷"]
        {
            assert_eq!(Emoji::parse(emoji).unwrap(), Emoji::Unicode(emoji.into()));
        }
        let thumbs = Emoji::parse(" 👍 ").unwrap();
        assert_eq!(thumbs.route_text(), "%F0%9F%91%8D");
        assert_eq!(thumbs.text(), "👍");
        assert_eq!(thumbs.discord_object(), json!({"id": null, "name": "👍"}));
    }

    #[test]
    fn a_custom_emoji_is_name_id_or_as_discord_writes_it() {
        let plain = Emoji::Custom {
            name: "party_parrot".into(),
            id: "1234567890".parse().unwrap(),
            animated: false,
        };
        assert_eq!(Emoji::parse("party_parrot:1234567890").unwrap(), plain);
        assert_eq!(Emoji::parse("<:party_parrot:1234567890>").unwrap(), plain);
        let animated = Emoji::parse("<a:party_parrot:1234567890>").unwrap();
        assert_eq!(animated.text(), "<a:party_parrot:1234567890>");
        assert_eq!(animated.route_text(), "party_parrot:1234567890");
        assert_eq!(
            animated.discord_object(),
            json!({"id": "1234567890", "name": "party_parrot", "animated": true})
        );
        assert_eq!(plain.text(), "<:party_parrot:1234567890>");
    }

    #[test]
    fn anything_else_is_refused_naming_the_field() {
        let wanted = "`emoji` must be one emoji (👍) or a custom emoji as name:id \
                      (party:1234567890) or <:name:id>; ";
        assert_eq!(refusal(""), format!("{wanted}got nothing"));
        assert_eq!(refusal("   "), format!("{wanted}got nothing"));
        for text in [
            "thumbsup",
            ":thumbsup:",
            "1",
            "👍 👍",
            "ok👍",
            "é",
            "日本",
            "\u{7}",
        ] {
            assert_eq!(
                refusal(text),
                format!("{wanted}that is text, not an emoji"),
                "{text:?}"
            );
        }
        assert_eq!(
            refusal(&"🚀".repeat(17)),
            format!("{wanted}that is text, not an emoji")
        );
        for text in [
            "p:123",
            "bad-name:123",
            "<:p:123>",
            &format!("{}:1", "n".repeat(33)),
        ] {
            assert_eq!(
                refusal(text),
                format!("{wanted}a custom emoji's name is 2 to 32 letters, digits or _"),
                "{text:?}"
            );
        }
        for text in [
            "party:",
            "party:12a",
            "party:0",
            "party:99999999999999999999999",
        ] {
            assert_eq!(
                refusal(text),
                format!("{wanted}a custom emoji's id is its Discord id, digits only"),
                "{text:?}"
            );
        }
    }
}
