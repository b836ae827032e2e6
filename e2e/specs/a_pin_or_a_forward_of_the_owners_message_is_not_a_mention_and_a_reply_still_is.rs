//! Through the gateway: Grace pins the owner's message (a type-6 notice whose
//! `message_reference` points at it) and Linus forwards it (a reference of type 1 with its
//! snapshot). Neither answers the owner, so neither is in `mentions list` nor in the
//! briefing's "Needs you"; Grace's reply to the same message (type 19) still is, in both.

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, GUILD, LINUS, OWNER};
use crate::support::live::{Daemon, EVER, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let own = FakeDiscord::message_value("@id:own", GENERAL, OWNER, "Release notes are up");
    let reference = json!({"message_id": "@id:own", "channel_id": GENERAL, "guild_id": GUILD});
    // Discord's pin notice: no content, the pinner as author, a reference and nothing else.
    let mut pin = FakeDiscord::message_value("@id:pin", GENERAL, GRACE, "");
    pin["d"]["type"] = json!(6);
    pin["d"]["message_reference"] = reference.clone();
    // A forward: a default message with no content, a reference of type 1 and the snapshot.
    let mut forward = FakeDiscord::message_value("@id:forward", GENERAL, LINUS, "");
    forward["d"]["message_reference"] = json!({"type": 1, "message_id": "@id:own",
        "channel_id": GENERAL, "guild_id": GUILD});
    forward["d"]["message_snapshots"] = json!([{"message": {"type": 0,
        "content": "Release notes are up", "mentions": [], "mention_roles": [],
        "attachments": [], "embeds": [], "timestamp": "@now", "edited_timestamp": null,
        "flags": 0, "components": []}}]);
    let mut reply = FakeDiscord::message_value("@id:reply", GENERAL, GRACE, "Thanks, reading now");
    reply["d"]["type"] = json!(19);
    reply["d"]["message_reference"] = reference;
    let mut replied_to = own["d"].clone();
    replied_to.as_object_mut().unwrap().remove("member");
    reply["d"]["referenced_message"] = replied_to;
    fake.play(&[own, pin, forward, reply].map(|line| line.to_string()).join("\n"));
    caught_up_until(&store, GENERAL, "all four messages", |m| m.len() == 4);

    let mentions = store.cli().json_value(&["mentions", "list", "--since", EVER]);
    assert_eq!(listed(&mentions["mentions"]), [fake.id("reply")]);

    let briefing = store.cli().json_value(&["briefing", "--since", EVER]);
    let needs = &briefing["needsYou"];
    assert_eq!(listed(&needs["items"]), [fake.id("reply")]);
    assert_eq!(needs["total"], 1);
    daemon.stop();
}

fn listed(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["messageId"].as_str().unwrap().to_string())
        .collect()
}
