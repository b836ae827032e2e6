//! What the owner reads in a terminal: every capability's human rendering on the demo store,
//! snapshotted, so a change to a table is seen in review like a change to a schema.
//!
//! The real binary runs each command over a fresh demo store with `TZ=UTC` and an emptied
//! environment. The demo's instants are relative to when it was seeded, and a message the
//! demo's scheduler sent gets a snowflake from the clock: both are masked (each digit becomes
//! `#`, so the tables keep their widths) before comparing. The cases are listed per command
//! and held against the registry, so a new capability without a snapshot fails here.

use std::path::Path;

use assert_cmd::Command;
use discord_manager::registry;

/// The demo's ids are all of the form 1X000000000000000NN; anything else is from the clock.
fn is_demo_id(digits: &str) -> bool {
    digits.len() == 19 && digits[2..].starts_with("000000000000")
}

/// Masks every instant (`2026-12-01T07:32:05.575658Z`, `2026-12-01 07:32`), and every
/// snowflake and cursor the demo did not fix, digit for digit.
fn masked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let digit = |at: usize| chars.get(at).is_some_and(char::is_ascii_digit);
    let mut at = 0;
    while at < chars.len() {
        // An instant starts with YYYY-MM-DD.
        let date = (0..4).all(|i| digit(at + i))
            && chars.get(at + 4) == Some(&'-')
            && (5..7).all(|i| digit(at + i))
            && chars.get(at + 7) == Some(&'-')
            && (8..10).all(|i| digit(at + i));
        if date {
            let mut end = at + 10;
            while end < chars.len()
                && (chars[end].is_ascii_digit() || matches!(chars[end], 'T' | ' ' | ':' | '.'))
                // A space continues an instant only before its time of day.
                && (chars[end] != ' ' || digit(end + 1))
            {
                end += 1;
            }
            for slot in &mut out[at..end] {
                if slot.is_ascii_digit() {
                    *slot = '#';
                }
            }
            at = end;
            continue;
        }
        if digit(at) && (at == 0 || !chars[at - 1].is_ascii_alphanumeric()) {
            let mut end = at;
            while digit(end) {
                end += 1;
            }
            let number: String = chars[at..end].iter().collect();
            if number.len() >= 15 && !is_demo_id(&number) {
                out[at..end].iter_mut().for_each(|slot| *slot = '#');
            }
            at = end;
            continue;
        }
        at += 1;
    }
    out.into_iter().collect()
}

/// A token of the right shape, for the commands that need one configured; nothing here
/// reaches Discord (scheduling only records).
const TOKEN: &str = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GdemoX.abcdefghijklmnopqrstuvwxyz0123456789AB";

fn run(db: &Path, args: &[String]) -> String {
    let mut command = Command::cargo_bin("discord-manager").unwrap();
    command.env_clear().env("TZ", "UTC");
    if args[0] == "schedules" {
        command.env("DISCORD_TOKEN", TOKEN);
    }
    let output = command.arg("--db").arg(db).args(args).output().unwrap();
    let mut shown = String::from_utf8(output.stdout).unwrap();
    let errors = String::from_utf8(output.stderr).unwrap();
    if !errors.is_empty() {
        shown.push_str(&format!(
            "[stderr, exit {:?}]\n{errors}",
            output.status.code()
        ));
    }
    // The file's size depends on when SQLite last checkpointed; the rest is the demo's.
    masked(&shown).replace(&shown_size(&shown), "#.# MB on disk")
}

/// The "0.3 MB on disk" of a status, or something that is in no output.
fn shown_size(shown: &str) -> String {
    shown
        .find(" MB on disk")
        .and_then(|end| {
            let start = shown[..end].rfind(' ')? + 1;
            Some(format!("{} MB on disk", &shown[start..end]))
        })
        .unwrap_or_else(|| "\u{0}".to_string())
}

/// Each capability's command lines, in registry order (bookmarks are added before they are
/// resolved, schedules before one is cancelled).
fn cases() -> Vec<(&'static str, Vec<Vec<String>>)> {
    let in_a_month = discord_manager::instant::Instant::now()
        .plus_seconds(30 * 86_400)
        .to_string();
    let lines = |lines: Vec<Vec<&str>>| -> Vec<Vec<String>> {
        lines
            .into_iter()
            .map(|line| line.into_iter().map(str::to_string).collect())
            .collect()
    };
    let month = in_a_month.as_str();
    vec![
        ("channels_list", lines(vec![vec!["channels", "list"]])),
        (
            "channels_mark_read",
            lines(vec![vec![
                "mark-read",
                "--channel-id",
                "1400000000000000005",
            ]]),
        ),
        (
            "messages_catch_up",
            lines(vec![
                vec!["catch-up"],
                vec!["catch-up", "--limit", "3"],
                vec!["catch-up", "--channel-id", "1400000000000000004"],
                vec!["catch-up", "--from-read-markers"],
            ]),
        ),
        (
            "messages_history",
            lines(vec![vec!["history", "1400000000000000003"]]),
        ),
        ("messages_search", lines(vec![vec!["search", "standup"]])),
        (
            "messages_send",
            lines(vec![vec![
                "send",
                "hello",
                "--channel-id",
                "1400000000000000001",
            ]]),
        ),
        (
            "messages_edit",
            lines(vec![vec![
                "edit",
                "1500000000000000030",
                "--content",
                "Deploy window opens at 16:00 UTC.",
            ]]),
        ),
        (
            "messages_delete",
            lines(vec![vec!["delete", "1500000000000000030"]]),
        ),
        (
            "reactions_add",
            lines(vec![vec![
                "reactions",
                "add",
                "1500000000000000011",
                "--emoji",
                "🚀",
            ]]),
        ),
        (
            "reactions_remove",
            lines(vec![vec![
                "reactions",
                "remove",
                "1500000000000000011",
                "--emoji",
                "✅",
            ]]),
        ),
        ("activity_briefing", lines(vec![vec!["briefing"]])),
        ("mentions_list", lines(vec![vec!["mentions", "list"]])),
        (
            "mentions_awaiting_reply",
            lines(vec![vec![
                "mentions",
                "awaiting-reply",
                "--silence-minutes",
                "0",
            ]]),
        ),
        (
            "mentions_dismiss",
            lines(vec![vec!["mentions", "dismiss", "1500000000000000013"]]),
        ),
        ("activity_wait", lines(vec![vec!["wait"]])),
        ("activity_digest", lines(vec![vec!["digest"]])),
        (
            "bookmarks_add",
            lines(vec![vec![
                "bookmarks",
                "add",
                "1500000000000000008",
                "--note",
                "postmortem",
            ]]),
        ),
        ("bookmarks_list", lines(vec![vec!["bookmarks", "list"]])),
        (
            "bookmarks_resolve",
            lines(vec![vec!["bookmarks", "resolve", "1500000000000000008"]]),
        ),
        ("store_status", lines(vec![vec!["status"]])),
        (
            "schedules_add",
            lines(vec![vec![
                "schedules",
                "add",
                "Retro at 4pm",
                "--channel-id",
                "1400000000000000001",
                "--send-at",
                month,
            ]]),
        ),
        ("schedules_list", lines(vec![vec!["schedules", "list"]])),
        (
            "schedules_cancel",
            lines(vec![vec!["schedules", "cancel", "5"]]),
        ),
    ]
}

#[test]
fn every_capability_renders_for_a_person_as_snapshotted() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("demo.sqlite3");
    Command::cargo_bin("discord-manager")
        .unwrap()
        .env_clear()
        .args(["seed", "--db"])
        .arg(&db)
        .assert()
        .success();
    let cases = cases();
    let listed: Vec<&str> = cases.iter().map(|(name, _)| *name).collect();
    let registered: Vec<&str> = registry::capabilities().iter().map(|c| c.name).collect();
    assert_eq!(
        listed, registered,
        "every capability has a human snapshot, in registry order"
    );
    for (name, command_lines) in cases {
        let mut rendered = String::new();
        for args in command_lines {
            rendered.push_str(&masked(&format!("$ discord-manager {}\n", args.join(" "))));
            rendered.push_str(&run(&db, &args));
            rendered.push('\n');
        }
        insta::assert_snapshot!(name, rendered);
    }
}

#[test]
fn masking_keeps_widths_and_the_demos_own_ids() {
    assert_eq!(
        masked("│ 2026-12-01 07:44 ┆ sent as 1577228867267985408 ┆ 1500000000000000001 │"),
        "│ ####-##-## ##:## ┆ sent as ################### ┆ 1500000000000000001 │"
    );
    assert_eq!(
        masked("watermark: 2026-12-01T07:32:05.575658Z (pass"),
        "watermark: ####-##-##T##:##:##.######Z (pass"
    );
}
