//! What the owner reads in a terminal: every capability's human rendering on the demo store,
//! snapshotted, so a change to a table is seen in review like a change to a schema.
//!
//! The real binary runs each command over a fresh demo store with `TZ=UTC` and an emptied
//! environment. The demo's instants are relative to when it was seeded, and a message the
//! demo's scheduler sent gets a snowflake from the clock: both are masked (each digit becomes
//! `#`, so the tables keep their widths) before comparing. The cases are each capability's
//! own demonstrations (`business::kernel::examples`), so a new capability has a snapshot here to
//! review before it passes.

use std::path::Path;

use assert_cmd::Command;
use discord_manager::cli::command_line;
use discord_manager_core::business::kernel::examples::Sample;
use discord_manager_core::registry;

/// The demo's ids are all of the form 1X000000000000000NN; anything else is from the clock.
fn is_demo_id(digits: &str) -> bool {
    digits.len() == 19 && digits[2..].starts_with("000000000000")
}

/// Masks every instant (`2026-12-01T07:32:05.575658Z`, `2026-12-01 07:32`), and every
/// snowflake and cursor the demo did not fix, digit for digit.
pub(crate) fn masked(text: &str) -> String {
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
    // Each capability's demonstrations (`business::kernel::examples`), as the owner types them, in the
    // order they run on one demo store.
    let sample = Sample::of_the_demo();
    for capability in registry::in_demo_order() {
        let demo = capability.examples(&sample).demo;
        assert!(!demo.is_empty(), "{} has no demonstration", capability.name);
        let mut rendered = String::new();
        for arguments in &demo {
            let args = command_line(capability, arguments);
            rendered.push_str(&masked(&format!("$ discord-manager {}\n", args.join(" "))));
            rendered.push_str(&run(&db, &args));
            rendered.push('\n');
        }
        // Named as when this file was a test binary of its own, not by its module path.
        insta::with_settings!({prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("human_output__{}", capability.name), rendered);
        });
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
