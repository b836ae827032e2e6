//! What an assistant is handed by a prompt on the demo store, snapshotted, so a change to a
//! prompt's words is seen in review like a change to a schema.
//!
//! Each prompt is rendered as `prompts/get` renders it (`discord_manager::mcp::prompt`) over a
//! fresh demo store. The demo's instants are relative to when it was seeded, the bot's reminder
//! gets a snowflake from the clock, and the fence's nonce is drawn afresh for every answer: all
//! are masked before comparing. The briefing (`what-did-i-miss`) is left out: its waits are
//! counted in minutes from the seed, so its text moves with the clock; the seed coverage gate
//! (`tests/seed_coverage.rs`) checks what it shows.

use std::sync::Arc;

use assert_cmd::Command;
use discord_manager_core::business::Source;
use discord_manager_core::business::kernel::context::build_owner_context;
use discord_manager_core::config::Config;
use discord_manager_core::registry::Services;
use discord_manager_store::Store;
use serde_json::{Value, json};

use crate::human_output::masked;

/// Each nonce of a fence (`‹1f2e3d4c›`, `‹/1f2e3d4c›`) as `‹nonce›`, `‹/nonce›`.
fn nonces_masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('‹') {
        out.push_str(&rest[..at + '‹'.len_utf8()]);
        rest = &rest[at + '‹'.len_utf8()..];
        let slash = rest.starts_with('/');
        let body = if slash { &rest[1..] } else { rest };
        let hex = body
            .get(..8)
            .is_some_and(|nonce| nonce.chars().all(|c| c.is_ascii_hexdigit()))
            && body.get(8..).is_some_and(|after| after.starts_with('›'));
        if hex {
            out.push_str(if slash { "/nonce" } else { "nonce" });
            rest = &body[8..];
        }
    }
    out.push_str(rest);
    out
}

#[tokio::test]
async fn each_prompt_reads_on_the_demo_store_as_snapshotted() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("demo.sqlite3");
    Command::cargo_bin("discord-manager")
        .unwrap()
        .env_clear()
        .args(["seed", "--db"])
        .arg(&path)
        .assert()
        .success();
    let store = Arc::new(Store::open(&path).unwrap());
    let config = Config::from_lookup(|_| None).unwrap();
    let context = build_owner_context(&config, &store, Source::Mcp).unwrap();
    let services = Services {
        store,
        context,
        sender: None,
    };
    let cases: [(&str, Value); 2] = [
        ("triage-my-mentions", json!({})),
        (
            "reply-to-a-message",
            json!({"message": "1500000000000000014", "channel": "1400000000000000003"}),
        ),
    ];
    for (name, arguments) in cases {
        let text =
            discord_manager::mcp::prompt(name, arguments.as_object().cloned(), services.clone())
                .await
                .unwrap_or_else(|error| {
                    panic!("{name} failed on the demo store: {}", error.message)
                });
        let shown = nonces_masked(&masked(&text));
        insta::with_settings!({prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("prompt_text__{name}"), shown);
        });
    }
}

#[test]
fn nonces_are_masked_and_other_guillemets_kept() {
    assert_eq!(
        nonces_masked("‹0badc0de›hi ‹x›‹/0badc0de› ‹/nothex!›"),
        "‹nonce›hi ‹x›‹/nonce› ‹/nothex!›"
    );
}
