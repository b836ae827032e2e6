//! The checker that holds the fake Discord to Discord's OpenAPI spec
//! (`tests/support/discord_api`) tells a request and an answer Discord has from ones it does
//! not: each rule it applies fails on the case it exists for.

#[path = "support/discord_api/mod.rs"]
mod spec;

#[path = "support/message_shapes.rs"]
mod message_shapes;

use serde_json::{Value, json};
use spec::{check_request, check_response};

fn user() -> Value {
    json!({"id": "1000000000000000002", "username": "grace", "avatar": null,
           "discriminator": "0", "public_flags": 0, "flags": 0, "global_name": "Grace",
           "primary_guild": null})
}

fn message() -> Value {
    json!({"id": "1500000000000000001", "channel_id": "1400000000000000001", "type": 0,
           "content": "Morning all!", "mentions": [], "mention_roles": [], "attachments": [],
           "embeds": [], "timestamp": "2026-12-01T07:32:05.575000+00:00",
           "edited_timestamp": null, "flags": 0, "components": [], "author": user(),
           "pinned": false, "mention_everyone": false, "tts": false})
}

const MESSAGES: &str = "/api/v10/channels/1400000000000000001/messages";

#[test]
fn a_page_of_messages_as_discord_sends_it_passes() {
    let page = json!([message()]);
    assert_eq!(
        check_response("GET", MESSAGES, 200, &page),
        Vec::<String>::new()
    );
    let query = [
        ("limit".to_string(), "100".to_string()),
        ("after".to_string(), "0".to_string()),
    ];
    assert_eq!(
        check_request("GET", MESSAGES, &query, None),
        Vec::<String>::new()
    );
}

#[test]
fn an_answer_without_a_required_field_or_with_one_discord_never_sends_fails() {
    let mut missing = message();
    missing.as_object_mut().unwrap().remove("components");
    assert_eq!(
        check_response("GET", MESSAGES, 200, &json!([missing])),
        [
            "GET /channels/{channel_id}/messages answered 200[0]: the required field `components` is missing"
        ]
    );
    let mut invented = message();
    invented["guild_id"] = json!("1200000000000000001");
    assert_eq!(
        check_response("GET", MESSAGES, 200, &json!([invented])),
        [
            "GET /channels/{channel_id}/messages answered 200[0]: Discord's schema has no field `guild_id`"
        ]
    );
    let mut wrong = message();
    wrong["author"]["id"] = json!("01");
    assert_eq!(
        check_response("GET", MESSAGES, 200, &json!([wrong])),
        [
            "GET /channels/{channel_id}/messages answered 200[0].author.id: \"01\" is not a snowflake (digits)"
        ]
    );
}

#[test]
fn an_error_answer_is_held_to_discords_error_object_with_all_its_parts() {
    let limited = json!({"message": "You are being rate limited.", "retry_after": 1.5,
                         "global": false, "code": 0});
    assert_eq!(
        check_response("POST", MESSAGES, 429, &limited),
        Vec::<String>::new()
    );
    let mut without = limited.clone();
    without.as_object_mut().unwrap().remove("retry_after");
    assert_eq!(
        check_response("POST", MESSAGES, 429, &without),
        [
            "POST /channels/{channel_id}/messages answered 429: the required field `retry_after` is missing"
        ]
    );
    let mut extra = limited;
    extra["bucket"] = json!("x");
    assert_eq!(
        check_response("POST", MESSAGES, 429, &extra),
        [
            "POST /channels/{channel_id}/messages answered 429: Discord's schema has no field `bucket`"
        ]
    );
}

#[test]
fn a_request_discord_has_no_operation_parameter_or_body_for_fails() {
    assert_eq!(
        check_request("GET", "/api/v10/channels/1/pins/all", &[], None),
        ["GET /api/v10/channels/1/pins/all: Discord has no such operation"]
    );
    let query = [("newest".to_string(), "true".to_string())];
    assert_eq!(
        check_request("GET", MESSAGES, &query, None),
        ["GET /channels/{channel_id}/messages: Discord takes no query parameter `newest`"]
    );
    let query = [("limit".to_string(), "500".to_string())];
    assert_eq!(
        check_request("GET", MESSAGES, &query, None),
        ["GET /channels/{channel_id}/messages ?limit: 500 is above 100"]
    );
    assert_eq!(
        check_request("GET", "/api/v10/channels/general/messages", &[], None),
        ["GET /channels/{channel_id}/messages channel_id: \"general\" is not a snowflake (digits)"]
    );
    assert_eq!(
        check_request("POST", MESSAGES, &[], Some(&json!({"content": 5}))),
        ["POST /channels/{channel_id}/messages body.content: 5 is not string or null"]
    );
    assert_eq!(
        check_request(
            "POST",
            MESSAGES,
            &[],
            Some(&json!({"content": "hello", "nonce": "n1"}))
        ),
        Vec::<String>::new()
    );
}

/// A change from a plain message into one of another shape.
type Shape = Box<dyn Fn(&mut Value)>;

/// Every shape of message the E2E specs play through the fake Discord's gateway beyond a plain
/// one is a message Discord's spec has: a Components V2 post, a join, a voice message, a slash
/// command's answer, a pin notice and a forward (each as REST sends it: the gateway adds only
/// `guild_id` and `member`).
#[test]
fn each_shape_of_message_the_specs_play_is_one_discords_spec_has() {
    let grace = user();
    let voice_file = json!({"id": "1700000000000000001", "filename": "voice-message.ogg",
        "size": 14211, "url": "https://cdn.discordapp.com/attachments/1/1700000000000000001/voice-message.ogg",
        "proxy_url": "https://media.discordapp.net/attachments/1/1700000000000000001/voice-message.ogg",
        "content_type": "audio/ogg"});
    let reference = json!({"type": 0, "message_id": "1500000000000000000",
        "channel_id": "1400000000000000001", "guild_id": "1200000000000000001"});
    let shapes: Vec<(&str, Shape)> = vec![
        (
            "components v2",
            Box::new(|m| message_shapes::components_v2_alert(m, "Deploy failed", "api, eu-west-2")),
        ),
        ("join", Box::new(message_shapes::member_joined)),
        (
            "voice",
            Box::new(move |m| message_shapes::voice_message(m, voice_file.clone(), 7.2)),
        ),
        (
            "slash command",
            Box::new(move |m| message_shapes::slash_command_answer(m, "deploy", &grace)),
        ),
        (
            "pin",
            Box::new({
                let reference = reference.clone();
                move |m| {
                    m["type"] = json!(6);
                    m["content"] = json!("");
                    m["message_reference"] = reference.clone();
                }
            }),
        ),
        (
            "forward",
            Box::new(move |m| {
                let mut forward = reference.clone();
                forward["type"] = json!(1);
                m["content"] = json!("");
                m["message_reference"] = forward;
                m["message_snapshots"] = json!([{"message": {"type": 0, "content": "2.4 is out",
                    "mentions": [], "mention_roles": [], "attachments": [], "embeds": [],
                    "timestamp": "2026-12-01T07:32:05.575000+00:00", "edited_timestamp": null,
                    "flags": 0, "components": []}}]);
            }),
        ),
    ];
    let one = "/api/v10/channels/1400000000000000001/messages/1500000000000000001";
    for (name, shape) in &shapes {
        let mut shaped = message();
        shape(&mut shaped);
        assert_eq!(
            check_response("GET", one, 200, &shaped),
            Vec::<String>::new(),
            "{name}"
        );
    }
    // The check is not blind to these shapes: a TextDisplay without its content fails it.
    let mut broken = message();
    message_shapes::components_v2_alert(&mut broken, "Deploy failed", "api");
    broken["components"][0]["components"][0]
        .as_object_mut()
        .unwrap()
        .remove("content");
    assert_ne!(
        check_response("GET", one, 200, &broken),
        Vec::<String>::new()
    );
}
