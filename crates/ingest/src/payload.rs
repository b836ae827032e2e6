//! What a message shows that serenity's model drops or half-keeps, read from the message
//! object as Discord sent it (its JSON): Components V2 (every top-level component that is not
//! an action row is dropped by serenity 0.12, with the flag bits it does not know), the
//! application command a message answers and who ran it, a voice message's length, and the
//! message a pin notice, a forward or a thread's starter points at.
//!
//! One reading for every path: the gateway's dispatch and a REST page hand over Discord's own
//! JSON; a path that has only serenity's model (a synthetic store) hands over that model
//! serialized back, which reads the same for everything serenity keeps. Field names and
//! component types are Discord's (`MessageResponse` in Discord's OpenAPI spec; the component
//! reference of the developer docs).

use discord_manager_store::{CommandRun, ComponentPart, ReferredMessage};
use discord_manager_vocabulary::snowflake::{ChannelId, GuildId, MessageId, UserId};
use serde_json::Value;

/// Discord's message type of a slash command's answer (CHAT_INPUT_COMMAND).
const CHAT_INPUT_COMMAND: u64 = 20;
/// Discord's message types whose reference is a reply's target: REPLY and CONTEXT_MENU_COMMAND.
const REPLY_TYPES: [u64; 2] = [19, 23];
/// A message reference's type when it forwards (`message_reference.type`).
const FORWARD_REFERENCE: u64 = 1;
/// How deep components nest at most (a Container holds Sections that hold a TextDisplay and
/// an accessory); anything deeper is not read, so a hostile payload cannot recurse without end.
const MOST_COMPONENT_DEPTH: usize = 8;
/// The most parts read from one message's components (Discord allows 40 components).
const MOST_COMPONENT_PARTS: usize = 64;

/// A message object as Discord sent it, read for what the store keeps beyond serenity's model.
pub struct MessagePayload<'a> {
    message: &'a Value,
}

impl<'a> MessagePayload<'a> {
    pub fn new(message: &'a Value) -> MessagePayload<'a> {
        MessagePayload { message }
    }

    fn number(&self, field: &str) -> Option<u64> {
        self.message.get(field).and_then(Value::as_u64)
    }

    /// Discord's message type (0 when absent, as in a partial update).
    pub fn kind(&self) -> Option<u64> {
        self.number("type")
    }

    /// Every flag bit Discord set, those serenity does not know included
    /// (`IS_COMPONENTS_V2`, 1 << 15).
    pub fn flags(&self) -> Option<u64> {
        self.number("flags")
    }

    /// Whether the payload carries components at all (a partial update may not).
    pub fn has_components(&self) -> bool {
        self.message.get("components").is_some()
    }

    /// What its components show a person, in reading order.
    pub fn components(&self) -> Vec<ComponentPart> {
        let mut parts = Vec::new();
        if let Some(components) = self.message.get("components") {
            read_components(components, 0, &mut parts);
        }
        parts
    }

    /// The application command this message answers: its name (with a slash for a slash
    /// command) from `interaction`, who ran it from `interaction_metadata` (else
    /// `interaction`).
    pub fn command(&self) -> Option<CommandRun> {
        let metadata = self.message.get("interaction_metadata");
        let interaction = self.message.get("interaction");
        let user = metadata
            .and_then(|metadata| metadata.get("user"))
            .or_else(|| interaction.and_then(|interaction| interaction.get("user")))?;
        let user_id = user
            .get("id")
            .and_then(Value::as_str)
            .and_then(UserId::parse)?;
        let user_name = ["global_name", "username"]
            .into_iter()
            .find_map(|field| user.get(field).and_then(Value::as_str))
            .unwrap_or_default()
            .to_string();
        let name = metadata
            .and_then(|metadata| metadata.get("name"))
            .or_else(|| interaction.and_then(|interaction| interaction.get("name")))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let name = match (name, self.kind()) {
            ("", _) => String::new(),
            (name, Some(CHAT_INPUT_COMMAND)) => format!("/{name}"),
            (name, _) => name.to_string(),
        };
        Some(CommandRun {
            name,
            user_id,
            user_name,
        })
    }

    /// The message a pin notice, a forward, a thread's starter or a crosspost points at; None
    /// for a reply (its target is the reply's own) and for a message with no reference.
    pub fn refers_to(&self) -> Option<ReferredMessage> {
        let reference = self.message.get("message_reference")?;
        let reference_kind = reference.get("type").and_then(Value::as_u64).unwrap_or(0);
        let replies = self.kind().is_some_and(|kind| REPLY_TYPES.contains(&kind));
        if replies && reference_kind != FORWARD_REFERENCE {
            return None;
        }
        let id = |field: &str| reference.get(field).and_then(Value::as_str);
        Some(ReferredMessage {
            guild_id: id("guild_id").and_then(GuildId::parse),
            channel_id: id("channel_id").and_then(ChannelId::parse)?,
            message_id: id("message_id").and_then(MessageId::parse),
        })
    }
}

/// Reads a list of components (or one component) into `parts`, depth first.
fn read_components(components: &Value, depth: usize, parts: &mut Vec<ComponentPart>) {
    if depth > MOST_COMPONENT_DEPTH {
        return;
    }
    match components {
        Value::Array(list) => {
            for component in list {
                read_components(component, depth + 1, parts);
            }
        }
        Value::Object(_) => read_component(components, depth, parts),
        _ => {}
    }
}

fn text_of(value: &Value, field: &str) -> String {
    value
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn push(parts: &mut Vec<ComponentPart>, kind: &str, text: String, url: Option<String>) {
    if parts.len() < MOST_COMPONENT_PARTS {
        parts.push(ComponentPart {
            kind: kind.to_string(),
            text,
            url,
        });
    }
}

/// A media item's (`{"media": {"url"}, "description"}`) part.
fn media(item: &Value, parts: &mut Vec<ComponentPart>) {
    let url = item
        .get("media")
        .and_then(|media| media.get("url"))
        .and_then(Value::as_str)
        .map(str::to_string);
    push(parts, "media", text_of(item, "description"), url);
}

fn read_component(component: &Value, depth: usize, parts: &mut Vec<ComponentPart>) {
    let children = |parts: &mut Vec<ComponentPart>| {
        if let Some(children) = component.get("components") {
            read_components(children, depth + 1, parts);
        }
    };
    match component.get("type").and_then(Value::as_u64) {
        // ActionRow, Container: their children in order.
        Some(1 | 17) => children(parts),
        // Button: a link (style 5) opens its url; others act in Discord.
        Some(2) => {
            let label = match text_of(component, "label") {
                label if label.is_empty() => component
                    .get("emoji")
                    .map(|emoji| text_of(emoji, "name"))
                    .unwrap_or_default(),
                label => label,
            };
            match component.get("url").and_then(Value::as_str) {
                Some(url) => push(parts, "link", label, Some(url.to_string())),
                None => push(parts, "button", label, None),
            }
        }
        // String, user, role, mentionable and channel selects: the placeholder, then the
        // options a string select lists.
        Some(3 | 5 | 6 | 7 | 8) => {
            let mut text = text_of(component, "placeholder");
            let options = component.get("options").and_then(Value::as_array);
            for option in options.into_iter().flatten() {
                let label = text_of(option, "label");
                if !label.is_empty() {
                    if !text.is_empty() {
                        text.push_str(" / ");
                    }
                    text.push_str(&label);
                }
            }
            push(parts, "select", text, None);
        }
        // Section: its texts, then its accessory (a button or a thumbnail).
        Some(9) => {
            children(parts);
            if let Some(accessory) = component.get("accessory") {
                read_components(accessory, depth + 1, parts);
            }
        }
        // TextDisplay: markdown a person reads.
        Some(10) => push(parts, "text", text_of(component, "content"), None),
        // Thumbnail.
        Some(11) => media(component, parts),
        // MediaGallery: each item.
        Some(12) => {
            let items = component.get("items").and_then(Value::as_array);
            for item in items.into_iter().flatten() {
                media(item, parts);
            }
        }
        // File: its name (the file itself is among the message's attachments).
        Some(13) => {
            let url = component
                .get("file")
                .and_then(|file| file.get("url"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let name = match text_of(component, "name") {
                name if name.is_empty() => url
                    .as_deref()
                    .and_then(|url| url.rsplit('/').next())
                    .map(|name| name.trim_start_matches("attachment://").to_string())
                    .unwrap_or_default(),
                name => name,
            };
            push(parts, "file", name, url);
        }
        // Separator: space, nothing to read.
        Some(14) => {}
        // Label (a modal's): its label, then its component.
        Some(18) => {
            push(parts, "text", text_of(component, "label"), None);
            if let Some(inner) = component.get("component") {
                read_components(inner, depth + 1, parts);
            }
        }
        // A type this version does not know: whatever it nests.
        _ => children(parts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds_and_texts(parts: &[ComponentPart]) -> Vec<(&str, &str)> {
        parts
            .iter()
            .map(|part| (part.kind.as_str(), part.text.as_str()))
            .collect()
    }

    #[test]
    fn a_components_v2_post_reads_every_text_in_order_with_its_buttons_media_and_files() {
        let message = json!({"flags": 32768, "components": [
            {"type": 17, "id": 1, "components": [
                {"type": 10, "id": 2, "content": "## Deploy failed"},
                {"type": 9, "id": 3, "components": [
                    {"type": 10, "id": 4, "content": "api-gateway on eu-west-2"}],
                 "accessory": {"type": 11, "id": 5, "media": {"url": "https://cdn.example/t.png"},
                               "description": "status chart"}},
                {"type": 14, "id": 6, "divider": true, "spacing": 1},
                {"type": 12, "id": 7, "items": [
                    {"media": {"url": "https://cdn.example/a.png"}, "description": "graph"}]},
                {"type": 13, "id": 8, "file": {"url": "attachment://deploy.log"}},
                {"type": 1, "id": 9, "components": [
                    {"type": 2, "id": 10, "style": 1, "label": "Retry", "custom_id": "retry"},
                    {"type": 2, "id": 11, "style": 5, "label": "Logs",
                     "url": "https://ci.example/run/7"}]}]}]});
        let parts = MessagePayload::new(&message).components();
        assert_eq!(
            kinds_and_texts(&parts),
            [
                ("text", "## Deploy failed"),
                ("text", "api-gateway on eu-west-2"),
                ("media", "status chart"),
                ("media", "graph"),
                ("file", "deploy.log"),
                ("button", "Retry"),
                ("link", "Logs"),
            ]
        );
        assert_eq!(parts[6].url.as_deref(), Some("https://ci.example/run/7"));
        assert_eq!(MessagePayload::new(&message).flags(), Some(32768));
    }

    #[test]
    fn a_select_reads_its_placeholder_and_options_and_nesting_past_the_limit_is_not_read() {
        let select = json!({"components": [{"type": 1, "components": [{"type": 3,
            "custom_id": "env", "placeholder": "Pick an environment",
            "options": [{"label": "staging", "value": "s"}, {"label": "prod", "value": "p"}]}]}]});
        assert_eq!(
            kinds_and_texts(&MessagePayload::new(&select).components()),
            [("select", "Pick an environment / staging / prod")]
        );
        let mut deep = json!({"type": 10, "content": "buried"});
        for _ in 0..20 {
            deep = json!({"type": 17, "components": [deep]});
        }
        let nested = json!({ "components": [deep] });
        assert_eq!(MessagePayload::new(&nested).components(), []);
    }

    #[test]
    fn a_slash_commands_answer_names_the_command_with_its_slash_and_who_ran_it() {
        let answer = json!({"type": 20,
            "interaction_metadata": {"id": "1", "type": 2,
                "user": {"id": "1000000000000000002", "username": "alice", "global_name": "Alice"}},
            "interaction": {"id": "1", "type": 2, "name": "deploy",
                "user": {"id": "1000000000000000002", "username": "alice"}}});
        let command = MessagePayload::new(&answer).command().unwrap();
        assert_eq!(command.name, "/deploy");
        assert_eq!(command.user_id.to_string(), "1000000000000000002");
        assert_eq!(command.user_name, "Alice");
        let context_menu = json!({"type": 23, "interaction": {"id": "1", "type": 2,
            "name": "Translate", "user": {"id": "1000000000000000003", "username": "linus"}}});
        let command = MessagePayload::new(&context_menu).command().unwrap();
        assert_eq!(
            (command.name.as_str(), command.user_name.as_str()),
            ("Translate", "linus")
        );
        assert_eq!(MessagePayload::new(&json!({"type": 0})).command(), None);
    }

    #[test]
    fn a_pin_a_forward_and_a_thread_starter_refer_to_a_message_and_a_reply_does_not() {
        let reference = json!({"message_id": "1500000000000000001",
            "channel_id": "1400000000000000001", "guild_id": "1200000000000000001"});
        for kind in [6, 21, 0] {
            let message = json!({"type": kind, "message_reference": reference});
            let referred = MessagePayload::new(&message).refers_to().unwrap();
            assert_eq!(referred.channel_id.to_string(), "1400000000000000001");
            assert_eq!(
                referred.message_id.as_ref().map(MessageId::to_string),
                Some("1500000000000000001".to_string())
            );
        }
        let mut forward_reference = reference.clone();
        forward_reference["type"] = json!(1);
        let forward = json!({"type": 0, "message_reference": forward_reference});
        assert!(MessagePayload::new(&forward).refers_to().is_some());
        let reply = json!({"type": 19, "message_reference": reference});
        assert_eq!(MessagePayload::new(&reply).refers_to(), None);
        assert_eq!(MessagePayload::new(&json!({"type": 0})).refers_to(), None);
    }
}
