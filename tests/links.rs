//! Discord links in, over the whole surface: every input that takes a channel's or a message's
//! id (its schema's `format` is `channel-id-or-link`, `message-id-or-link`, or
//! `message-id-or-date-time` for history's anchors, found by walking the registry, no tool
//! named here) also takes Discord's link to it, with the same answer as
//! the id; a link to a server the store does not hold is refused naming the field; a message's
//! field refuses a channel's link; and where one call takes a channel and a message, a message
//! link into another channel is refused naming both.
//!
//! Each case runs the real binary with `--json` on its own copy of one demo store (`seed`), the
//! id form and the link form each on a fresh copy, since some calls write; the two answers are
//! compared with instants and clock-made ids masked as the human snapshots mask them.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use discord_manager::cli::command_line;
use discord_manager_core::business::kernel::examples::Sample;
use discord_manager_core::business::kernel::model::MESSAGE_OR_INSTANT;
use discord_manager_core::registry::{self, Capability};
use discord_manager_store::Store;
use discord_manager_vocabulary::snowflake::link::{CHANNEL_ID_OR_LINK, MESSAGE_ID_OR_LINK};
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, is_discord_id};
use serde_json::{Map, Value};

use crate::human_output::masked;

/// A token of the right shape (nothing here reaches Discord), as the human snapshots use.
const TOKEN: &str = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GdemoX.abcdefghijklmnopqrstuvwxyz0123456789AB";

/// A server no demo store holds.
const ELSEWHERE: &str = "1200000000000000099";

/// The fields of `capability` that take an id or a link, with their format.
fn linked_fields(capability: &Capability) -> Vec<(String, &'static str)> {
    capability.input_schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(
            |(name, schema)| match schema.get("format").and_then(Value::as_str) {
                Some(CHANNEL_ID_OR_LINK) => Some((name.clone(), CHANNEL_ID_OR_LINK)),
                Some(MESSAGE_ID_OR_LINK) => Some((name.clone(), MESSAGE_ID_OR_LINK)),
                // History's anchors: a message's id or an instant, and a message's link.
                Some(MESSAGE_OR_INSTANT) => Some((name.clone(), MESSAGE_OR_INSTANT)),
                _ => None,
            },
        )
        .collect()
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// What the binary answers `arguments` with on a fresh copy of the demo store: exit code,
/// stdout and stderr, masked.
fn answer(demo: &Path, scratch: &Path, capability: &Capability, arguments: &Value) -> String {
    let _ = std::fs::remove_dir_all(scratch);
    copy_folder(demo, scratch);
    let mut command = Command::cargo_bin("discord-manager").unwrap();
    command.env_clear().env("TZ", "UTC");
    // Scheduling only records, so it is given a token to get past its check; a send is not,
    // and is refused for want of one, the same whichever form its ids took.
    if capability.command[0] == "schedules" {
        command.env("DISCORD_TOKEN", TOKEN);
    }
    let output = command
        .arg("--db")
        .arg(scratch.join("demo.sqlite3"))
        .arg("--json")
        .args(command_line(capability, arguments))
        .output()
        .unwrap();
    masked(&format!(
        "exit {:?}\n{}{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// The arguments a case starts from: the capability's first demonstration that gives `field`
/// an id, or its first demonstration with the sample's channel or message put in.
fn with_an_id(capability: &Capability, sample: &Sample, field: &str, format: &str) -> Value {
    let demo = capability.examples(sample).demo;
    if let Some(given) = demo.iter().find(|arguments| {
        arguments
            .get(field)
            .and_then(Value::as_str)
            .is_some_and(is_discord_id)
    }) {
        return given.clone();
    }
    let mut arguments = demo
        .first()
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let id = if format == CHANNEL_ID_OR_LINK {
        sample.channel.to_string()
    } else {
        sample.message.to_string()
    };
    arguments.insert(field.to_string(), Value::String(id));
    Value::Object(arguments)
}

struct Case {
    capability: &'static Capability,
    field: String,
    format: &'static str,
    by_id: Value,
    /// `(server, channel, message)` of the id the field was given.
    place: (String, String, Option<String>),
}

impl Case {
    fn with(&self, value: String) -> Value {
        let mut arguments: Map<String, Value> = self.by_id.as_object().cloned().unwrap();
        arguments.insert(self.field.clone(), Value::String(value));
        Value::Object(arguments)
    }

    fn link(&self, server: &str) -> String {
        let (_, channel, message) = &self.place;
        match message {
            Some(message) => format!("https://discord.com/channels/{server}/{channel}/{message}"),
            None => format!("https://discord.com/channels/{server}/{channel}"),
        }
    }
}

fn seeded() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let demo = folder.path().join("demo");
    std::fs::create_dir_all(&demo).unwrap();
    Command::cargo_bin("discord-manager")
        .unwrap()
        .env_clear()
        .args(["seed", "--db"])
        .arg(demo.join("demo.sqlite3"))
        .assert()
        .success();
    (folder, demo)
}

/// Every id-taking field of every capability, with where its demonstration's id is.
fn cases(demo: &Path) -> Vec<Case> {
    let lookup = tempfile::tempdir().unwrap();
    copy_folder(demo, lookup.path());
    let store = Store::open(&lookup.path().join("demo.sqlite3")).unwrap();
    let sample = Sample::of_the_demo();
    let mut cases = Vec::new();
    for capability in registry::capabilities() {
        for (field, format) in linked_fields(capability) {
            let by_id = with_an_id(capability, &sample, &field, format);
            let id = by_id[&field].as_str().unwrap().to_string();
            let place = store
                .read(|reader| {
                    Ok(if format != CHANNEL_ID_OR_LINK {
                        let message = reader
                            .message(&MessageId::parse(&id).unwrap())?
                            .unwrap_or_else(|| panic!("the demo holds no message {id}"));
                        (
                            message.guild_id.map(|g| g.to_string()),
                            message.channel_id.to_string(),
                            Some(id.clone()),
                        )
                    } else {
                        let channel = reader
                            .channel(&ChannelId::parse(&id).unwrap())?
                            .unwrap_or_else(|| panic!("the demo holds no channel {id}"));
                        (channel.guild_id.map(|g| g.to_string()), id.clone(), None)
                    })
                })
                .unwrap();
            let (server, channel, message) = place;
            // A message's link names its channel: a channel given beside it is that channel
            // (a demonstration may reply across channels by id, which a link cannot).
            let mut by_id = by_id;
            if message.is_some() {
                for (other, other_format) in linked_fields(capability) {
                    if other_format == CHANNEL_ID_OR_LINK && by_id.get(&other).is_some() {
                        by_id[&other] = Value::String(channel.clone());
                    }
                }
            }
            cases.push(Case {
                capability,
                field,
                format,
                by_id,
                place: (
                    server.unwrap_or_else(|| "@me".to_string()),
                    channel,
                    message,
                ),
            });
        }
    }
    cases
}

#[test]
fn every_id_taking_input_answers_a_link_as_its_id_and_refuses_another_servers_link_naming_the_field()
 {
    let (folder, demo) = seeded();
    let scratch = folder.path().join("scratch");
    let cases = cases(&demo);
    assert!(
        cases.len() >= 10,
        "only {} id-taking inputs were found: the walk lost its way",
        cases.len()
    );
    for case in &cases {
        let name = format!("{}.{}", case.capability.name, case.field);
        let by_id = answer(&demo, &scratch, case.capability, &case.by_id);
        let link = case.link(&case.place.0);
        let by_link = answer(&demo, &scratch, case.capability, &case.with(link.clone()));
        assert_eq!(
            by_link, by_id,
            "{name}: {link} answered otherwise than its id"
        );
        // A link from a test build of the client is the same link.
        let canary = link.replace("https://discord.com", "https://canary.discord.com");
        let by_canary = answer(&demo, &scratch, case.capability, &case.with(canary));
        assert_eq!(
            by_canary, by_id,
            "{name}: the canary link answered otherwise"
        );

        let elsewhere = answer(
            &demo,
            &scratch,
            case.capability,
            &case.with(case.link(ELSEWHERE)),
        );
        assert_eq!(
            elsewhere,
            format!(
                "exit Some(2)\nerror: `{}`: that link is to server {ELSEWHERE}, which this \
                 store does not hold; only links to the servers the bot is in (see `channels \
                 list`) are taken\n",
                case.field
            ),
            "{name}"
        );
    }
}

#[test]
fn a_message_field_refuses_a_channels_link_and_a_channel_field_takes_a_messages_channel() {
    let (folder, demo) = seeded();
    let scratch = folder.path().join("scratch");
    let cases = cases(&demo);
    let message_case = cases
        .iter()
        .find(|case| case.format == MESSAGE_ID_OR_LINK && case.capability.effect.read_only())
        .or_else(|| cases.iter().find(|case| case.format == MESSAGE_ID_OR_LINK))
        .expect("some input takes a message");
    let (server, channel, _) = &message_case.place;
    let refused = answer(
        &demo,
        &scratch,
        message_case.capability,
        &message_case.with(format!("https://discord.com/channels/{server}/{channel}")),
    );
    assert_eq!(
        refused,
        masked(&format!(
            "exit Some(2)\nerror: `{}` must be a message id (a string of digits such as \
             \"1189078123456789012\") or a Discord link to the message \
             (https://discord.com/channels/<server>/<channel>/<message>); that link is to a \
             channel, not to a message: copy the message's own link (Copy Message Link)\n",
            message_case.field
        ))
    );
    let channel_case = cases
        .iter()
        .find(|case| case.place.2.is_none() && case.capability.effect.read_only())
        .expect("some reader takes a channel");
    let by_id = answer(
        &demo,
        &scratch,
        channel_case.capability,
        &channel_case.by_id,
    );
    let (server, channel, _) = &channel_case.place;
    let message = &Sample::of_the_demo().message;
    let by_message_link = answer(
        &demo,
        &scratch,
        channel_case.capability,
        &channel_case.with(format!(
            "https://discord.com/channels/{server}/{channel}/{message}"
        )),
    );
    assert_eq!(by_message_link, by_id, "{}", channel_case.capability.name);
}

#[test]
fn a_channel_and_a_message_link_into_another_channel_are_refused_naming_both() {
    let (folder, demo) = seeded();
    let scratch = folder.path().join("scratch");
    let cases = cases(&demo);
    let mut checked = 0;
    for capability in registry::capabilities() {
        let fields = linked_fields(capability);
        let Some((channel_field, _)) = fields.iter().find(|(_, f)| *f == CHANNEL_ID_OR_LINK) else {
            continue;
        };
        let Some(message_case) = cases
            .iter()
            .find(|case| std::ptr::eq(case.capability, capability) && case.place.2.is_some())
        else {
            continue;
        };
        let (server, channel, message) = &message_case.place;
        let other = cases
            .iter()
            .map(|case| &case.place.1)
            .find(|other| *other != channel)
            .expect("the demo has more than one channel");
        let mut arguments = message_case.by_id.as_object().cloned().unwrap();
        arguments.insert(channel_field.clone(), Value::String(other.clone()));
        arguments.insert(
            message_case.field.clone(),
            Value::String(format!(
                "https://discord.com/channels/{server}/{channel}/{}",
                message.as_deref().unwrap()
            )),
        );
        let refused = answer(&demo, &scratch, capability, &Value::Object(arguments));
        assert_eq!(
            refused,
            format!(
                "exit Some(2)\nerror: `{channel_field}` is channel {other}, but `{}` is a link \
                 to a message in channel {channel}: give the channel the message is in, or \
                 leave the link out\n",
                message_case.field
            ),
            "{}",
            capability.name
        );
        checked += 1;
    }
    assert!(
        checked > 0,
        "no capability takes both a channel and a message"
    );
}

/// The `link` of every message object in `value` whose `messageId` is `message`.
fn links_of(value: &Value, message: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if object.get("messageId").and_then(Value::as_str) == Some(message)
                && let Some(link) = object.get("link").and_then(Value::as_str)
            {
                found.push(link.to_string());
            }
            object
                .values()
                .for_each(|item| links_of(item, message, found));
        }
        Value::Array(items) => items.iter().for_each(|item| links_of(item, message, found)),
        _ => {}
    }
}

#[test]
fn a_known_message_answers_with_the_link_that_opens_it_in_discord() {
    let (folder, demo) = seeded();
    let scratch = folder.path().join("scratch");
    copy_folder(&demo, &scratch);
    // Margaret's question in #general of the demo's server: every reader that shows it gives
    // the same link (search finds it by a word of it, history reads its channel).
    for args in [
        vec!["search", "benchmark"],
        vec!["history", "1400000000000000001"],
    ] {
        let output = Command::cargo_bin("discord-manager")
            .unwrap()
            .env_clear()
            .arg("--db")
            .arg(scratch.join("demo.sqlite3"))
            .arg("--json")
            .args(&args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
        let mut found = Vec::new();
        links_of(&answer, "1500000000000000004", &mut found);
        assert_eq!(
            found,
            [
                "https://discord.com/channels/1200000000000000001/1400000000000000001/1500000000000000004"
            ],
            "{args:?}"
        );
    }
}
