//! Message objects of the shapes Discord sends today that serenity's model reads in part or
//! not at all, each written over a plain message's data (`d`) as Discord writes it
//! (`MessageResponse` in Discord's OpenAPI spec, which `tests/discord_api.rs` holds each one
//! to): a bot's Components V2 post, a member's join, a voice message, a slash command's
//! answer. The E2E specs play them through the fake Discord's gateway.

use serde_json::{Value, json};

/// A deploy bot's Components V2 alert: the flag IS_COMPONENTS_V2 (1 << 15), no content, its
/// text in TextDisplays inside a Container, and a link button to its logs.
pub fn components_v2_alert(message: &mut Value, headline: &str, detail: &str) {
    message["flags"] = json!(1 << 15);
    message["content"] = json!("");
    message["components"] = json!([{"type": 17, "id": 1, "accent_color": 15158332,
        "spoiler": false, "components": [
            {"type": 10, "id": 2, "content": headline},
            {"type": 10, "id": 3, "content": detail},
            {"type": 1, "id": 4, "components": [
                {"type": 2, "id": 5, "style": 5, "label": "Logs",
                 "url": "https://ci.example/runs/7"}]}]}]);
}

/// Discord's notice that the author joined the server (USER_JOIN, type 7): no content.
pub fn member_joined(message: &mut Value) {
    message["type"] = json!(7);
    message["content"] = json!("");
}

/// A voice message (the flag IS_VOICE_MESSAGE, 1 << 13): its one attachment is the audio
/// (`attachment`, an attachment object named `voice-message.ogg` of type `audio/ogg`), with
/// its length and waveform.
pub fn voice_message(message: &mut Value, mut attachment: Value, seconds: f64) {
    attachment["duration_secs"] = json!(seconds);
    attachment["waveform"] = json!("AAAAJ1tzXGBsc2FNUFxsXXRSTUpTY2NbWVdfYWZf");
    attachment["flags"] = json!(8192);
    message["flags"] = json!(1 << 13);
    message["content"] = json!("");
    message["attachments"] = json!([attachment]);
}

/// A bot's answer to `/name`, run by `user` (CHAT_INPUT_COMMAND, type 20): the command's name
/// in `interaction`, who ran it in `interaction_metadata` too.
pub fn slash_command_answer(message: &mut Value, name: &str, user: &Value) {
    message["type"] = json!(20);
    message["interaction_metadata"] = json!({"id": "1800000000000000001", "type": 2,
        "user": user, "authorizing_integration_owners": {"0": "1200000000000000001"}});
    message["interaction"] = json!({"id": "1800000000000000001", "type": 2, "name": name,
        "user": user});
}
