use std::sync::{Arc, Mutex};

use discord_manager_playback::world::id;
use discord_manager_playback::world::{ScriptedDiscord, World};
use discord_manager_sender::DiscordSender;
use discord_manager_vocabulary::error::ErrorKind;
use discord_manager_vocabulary::snowflake::ChannelId;

use super::*;
use crate::business::kernel::context::Source;
use crate::business::kernel::outbox::{Action, check_channel, check_sendable};
use crate::business::messages::send::{SendMessage, send_message};
use crate::test_fixtures::WorldContext;

/// An owner at a form who answers `answer`, keeping what they were asked.
#[derive(Debug)]
struct AtTheForm {
    answer: Approval,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl OwnerApproval for AtTheForm {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> Answer<'a> {
        self.asked.lock().unwrap().push(request.clone());
        Box::pin(std::future::ready(self.answer.clone()))
    }
}

fn at_the_form(answer: Approval) -> Arc<AtTheForm> {
    Arc::new(AtTheForm {
        answer,
        asked: Mutex::new(Vec::new()),
    })
}

/// An assistant's context in a deployment that may send, with `listed` channels, asking the
/// owner through `form` when given.
fn assistant(
    world: &World,
    listed: Option<&[&ChannelId]>,
    confirm_posts: bool,
    form: Option<Arc<AtTheForm>>,
) -> OwnerContext {
    OwnerContext {
        source: Source::Mcp,
        send_channel_ids: listed.map(|ids| ids.iter().map(id).collect()),
        confirm_posts,
        owner_approval: form.map(|form| form as Arc<dyn OwnerApproval>),
        ..world.sending_context()
    }
}

/// What the rules say of an assistant's post to `channel` under `context`, not yet asked.
fn clearance(
    world: &World,
    context: &OwnerContext,
    channel: impl std::fmt::Display,
) -> Result<Clearance> {
    let id = discord_manager_playback::world::id(channel);
    world
        .store
        .read(|reader| check_sendable(reader, context, &id, "hi", None, Consent::NotAsked))
        .map(|(_, clearance)| clearance)
}

#[test]
fn an_unlisted_post_asks_only_when_the_owner_can_be_asked() {
    let world = World::new();
    let listed = world.channel("general");
    let unlisted = world.channel("incidents");
    let form = Some(at_the_form(Approval::Approved));
    let asking = assistant(&world, Some(&[&listed]), false, form.clone());
    assert_eq!(
        clearance(&world, &asking, unlisted).unwrap(),
        Clearance::AskOwner(AskReason::Unlisted)
    );
    assert_eq!(
        clearance(&world, &asking, listed).unwrap(),
        Clearance::Allowed
    );
    let refusing = assistant(&world, Some(&[&listed]), false, None);
    let refused = clearance(&world, &refusing, unlisted).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Denied);
    assert_eq!(
        refused.message(),
        format!(
            "Sending to channel {unlisted} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS"
        )
    );
    // No list at all: every post asks, or is refused as before.
    let unset = assistant(&world, None, false, form);
    assert_eq!(
        clearance(&world, &unset, listed).unwrap(),
        Clearance::AskOwner(AskReason::Unlisted)
    );
    let unset_refusing = assistant(&world, None, false, None);
    assert!(
        clearance(&world, &unset_refusing, listed)
            .unwrap_err()
            .message()
            .starts_with("An assistant may not post: no channel is allowed for it")
    );
}

#[test]
fn confirm_posts_asks_in_a_listed_channel_and_refuses_when_no_one_can_be_asked() {
    let world = World::new();
    let listed = world.channel("general");
    let form = Some(at_the_form(Approval::Approved));
    let asking = assistant(&world, Some(&[&listed]), true, form);
    assert_eq!(
        clearance(&world, &asking, listed).unwrap(),
        Clearance::AskOwner(AskReason::ConfirmPosts)
    );
    let refusing = assistant(&world, Some(&[&listed]), true, None);
    let refused = clearance(&world, &refusing, listed).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Denied);
    assert_eq!(
        refused.message(),
        format!(
            "Sending to channel {listed} needs the owner's yes (DISCORD_MANAGER_CONFIRM_POSTS \
             is 1), and this MCP client cannot ask them: it shows no forms (MCP elicitation); \
             nothing was sent"
        )
    );
    // The owner at the terminal is never asked.
    let owner = OwnerContext {
        source: Source::Cli,
        ..assistant(&world, Some(&[&listed]), true, None)
    };
    assert_eq!(
        clearance(&world, &owner, listed).unwrap(),
        Clearance::Allowed
    );
}

#[test]
fn an_approved_post_is_allowed_where_it_would_have_asked() {
    let world = World::new();
    let listed = world.channel("general");
    let unlisted = world.channel("incidents");
    // The daemon, sending an approved schedule, cannot ask: the approval stands.
    let daemon = assistant(&world, Some(&[&listed]), true, None);
    for channel in [&listed, &unlisted] {
        let id = discord_manager_playback::world::id(channel);
        let (_, cleared) = world
            .store
            .read(|reader| check_sendable(reader, &daemon, &id, "hi", None, Consent::Approved))
            .unwrap();
        assert_eq!(cleared, Clearance::Allowed, "{channel}");
    }
}

#[test]
fn read_only_the_token_and_scope_refuse_before_any_question() {
    let world = World::new();
    let channel = world.channel("general");
    let form = Some(at_the_form(Approval::Approved));
    let read_only = OwnerContext {
        read_only: true,
        ..assistant(&world, None, true, form.clone())
    };
    assert_eq!(
        clearance(&world, &read_only, channel)
            .unwrap_err()
            .message(),
        "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1"
    );
    let no_token = OwnerContext {
        token_configured: false,
        ..assistant(&world, None, true, form.clone())
    };
    assert_eq!(
        clearance(&world, &no_token, channel).unwrap_err().message(),
        "Sending needs the bot's token: set DISCORD_TOKEN"
    );
    let elsewhere = World::new();
    let theirs = elsewhere.channel("theirs");
    assert_eq!(
        clearance(&world, &assistant(&world, None, true, form), theirs)
            .unwrap_err()
            .kind(),
        ErrorKind::Denied
    );
}

#[test]
fn reactions_and_deletions_are_never_asked_about() {
    let world = World::new();
    let listed = world.channel("general");
    let unlisted = world.channel("incidents");
    let form = Some(at_the_form(Approval::Approved));
    let asking = assistant(&world, Some(&[&listed]), true, form);
    for action in [Action::React, Action::Delete] {
        let (_, cleared) = world
            .store
            .read(|reader| {
                check_channel(
                    reader,
                    &asking,
                    &listed,
                    "channelId",
                    action,
                    Consent::NotAsked,
                )
            })
            .unwrap();
        assert_eq!(cleared, Clearance::Allowed, "{action:?}");
        let refused = world
            .store
            .read(|reader| {
                check_channel(
                    reader,
                    &asking,
                    &unlisted,
                    "channelId",
                    action,
                    Consent::NotAsked,
                )
            })
            .unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::Denied, "{action:?}");
    }
}

async fn send_with(
    world: &World,
    context: &OwnerContext,
    channel: impl std::fmt::Display,
) -> (Result<()>, usize) {
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let sent = send_message(
        &world.store,
        SendMessage {
            channel_id: discord_manager_playback::world::id(channel),
            content: "Status: all clear.".into(),
            reply_to_message_id: None,
        },
        context,
        Some(&discord as &dyn DiscordSender),
    )
    .await
    .map(|_| ());
    (sent, discord.requests().len())
}

#[tokio::test]
async fn the_owners_answer_decides_and_only_a_yes_sends() {
    let world = World::new();
    let listed = world.channel("general");
    let unlisted = world.channel("incidents");
    let cases = [
        (Approval::Approved, None),
        (
            Approval::Declined,
            Some(format!(
                "The owner declined the message for channel {unlisted}; nothing was sent"
            )),
        ),
        (
            Approval::Cancelled,
            Some(format!(
                "The owner closed the form without approving the message for channel \
                 {unlisted}; nothing was sent"
            )),
        ),
        (
            Approval::Unavailable("no answer".into()),
            Some(format!(
                "The owner could not be asked about the message for channel {unlisted} (no \
                 answer); nothing was sent"
            )),
        ),
    ];
    for (answer, refusal) in cases {
        let form = at_the_form(answer.clone());
        let context = assistant(&world, Some(&[&listed]), false, Some(Arc::clone(&form)));
        let (sent, requests) = send_with(&world, &context, &unlisted).await;
        match refusal {
            None => {
                sent.unwrap();
                assert_eq!(requests, 1, "{answer:?}");
            }
            Some(refusal) => {
                let error = sent.unwrap_err();
                assert_eq!(error.message(), refusal);
                assert_eq!(error.kind(), ErrorKind::Denied);
                assert_eq!(requests, 0, "{answer:?}");
            }
        }
        let asked = form.asked.lock().unwrap().clone();
        assert_eq!(
            asked,
            vec![ApprovalRequest {
                kind: PostKind::Post,
                reason: AskReason::Unlisted,
                channel_id: unlisted,
                channel_name: "incidents".into(),
                content: "Status: all clear.".into(),
                message_id: None,
                send_at: None,
            }]
        );
    }
}

/// A reply in #general asked about under DISCORD_MANAGER_CONFIRM_POSTS, with `content`.
fn reply_with(content: &str) -> ApprovalRequest {
    ApprovalRequest {
        kind: PostKind::Reply,
        reason: AskReason::ConfirmPosts,
        channel_id: id("5"),
        channel_name: "general".into(),
        content: content.into(),
        message_id: Some(id("7")),
        send_at: None,
    }
}

const ASKED: &str = "An assistant asks to reply to message 7 in #general (channel 5), as the \
                     bot. You are asked because DISCORD_MANAGER_CONFIRM_POSTS is 1. Accept to \
                     let it go out once; decline and nothing is sent.";

#[test]
fn the_form_says_its_own_words_first_then_the_text_marked_line_by_line_with_its_length() {
    assert_eq!(
        reply_with("Deploy is done.\n\nThanks, all").message(),
        format!(
            "{ASKED}\n\nThe text is 28 characters on 3 lines, every line below marked │, and \
             nothing after them:\n│ Deploy is done.\n│\n│ Thanks, all\n└ end of the text"
        )
    );
    assert_eq!(
        reply_with("ok").message(),
        format!(
            "{ASKED}\n\nThe text is 2 characters on 1 line, every line below marked │, and \
             nothing after them:\n│ ok\n└ end of the text"
        )
    );
}

#[test]
fn the_form_shows_and_counts_characters_a_screen_would_not_show_ascii_controls_included() {
    assert_eq!(
        reply_with("ok\u{E0041}\u{202E}").message(),
        format!(
            "{ASKED}\n\nLook closely: the text holds 2 invisible or direction-changing \
             characters (shown as ⟨U+…⟩), which a screen would not show as they are.\n\nThe \
             text is 4 characters on 1 line, every line below marked │, and nothing after \
             them:\n│ ok⟨U+E0041⟩⟨U+202E⟩\n└ end of the text"
        )
    );
    // ESC (a terminal's clear-screen), CR, backspace, DEL and a C1 control: all ASCII or
    // Latin-1, which the scrub leaves to the surfaces.
    assert_eq!(
        reply_with("fine\u{1b}[2J\rall good\u{8}\u{7f}\u{85}").message(),
        format!(
            "{ASKED}\n\nLook closely: the text holds 5 control characters (shown as symbols \
             such as ␛ or ␍), which a screen would not show as they are.\n\nThe text is 20 \
             characters on 1 line, every line below marked │, and nothing after them:\n│ \
             fine␛[2J␍all good␈␡⟨U+0085⟩\n└ end of the text"
        )
    );
    // A tab is a control character too, and an emoji's joiner is not hidden.
    let shown = reply_with("a\tb 👩\u{200D}💻").message();
    assert!(shown.contains("│ a␉b 👩\u{200D}💻\n"), "{shown}");
    assert!(
        shown.contains("the text holds 1 control character (shown"),
        "{shown}"
    );
}

#[test]
fn a_text_imitating_the_forms_ending_cannot_hide_what_follows_its_blank_lines() {
    let imitation = "Status: all clear.\n\nYou are asked because DISCORD_MANAGER_CONFIRM_POSTS \
                     is 1. Accept to let it go out once; decline and nothing is sent.";
    let content = format!(
        "{imitation}{}@everyone https://evil.example/?q=secrets",
        "\n".repeat(61)
    );
    let form = reply_with(&content).message();
    let characters = content.chars().count();
    assert_eq!(
        form,
        format!(
            "{ASKED}\n\nLook closely: the text has 60 blank lines in a row after line 3, shown \
             as one line: read on past them.\n\nThe text is {characters} characters on 64 \
             lines, every line below marked │, and nothing after them:\n│ Status: all \
             clear.\n│\n│ You are asked because DISCORD_MANAGER_CONFIRM_POSTS is 1. Accept to \
             let it go out once; decline and nothing is sent.\n│ ⟨60 blank lines⟩\n│ \
             @everyone https://evil.example/?q=secrets\n└ end of the text"
        )
    );
}

#[test]
fn two_blank_lines_or_sixteen_spaces_show_as_they_are_one_more_is_folded_and_flagged() {
    let two = reply_with("a\n\n\nb").message();
    assert!(two.ends_with("│ a\n│\n│\n│ b\n└ end of the text"), "{two}");
    assert!(!two.contains("Look closely"), "{two}");
    let three = reply_with("a\n\n\n\nb").message();
    assert!(
        three.ends_with("│ a\n│ ⟨3 blank lines⟩\n│ b\n└ end of the text"),
        "{three}"
    );
    assert!(
        three.contains("3 blank lines in a row after line 1"),
        "{three}"
    );
    // Lines of blanks alone are blank lines, at the start and the end too.
    let ends = reply_with(" \n  \n\u{3000}\nb\n\n \n\n").message();
    assert!(
        ends.ends_with("│ ⟨3 blank lines⟩\n│ b\n│ ⟨4 blank lines⟩\n└ end of the text"),
        "{ends}"
    );
    assert!(
        ends.contains("3 blank lines in a row at its start"),
        "{ends}"
    );
    assert!(
        ends.contains("4 blank lines in a row after line 4"),
        "{ends}"
    );

    let sixteen = reply_with(&format!("a{}b", " ".repeat(16))).message();
    assert!(sixteen.ends_with(&format!("│ a{}b\n└ end of the text", " ".repeat(16))));
    let seventeen = reply_with(&format!("ok{}rm -rf", "\u{a0}".repeat(17))).message();
    assert!(
        seventeen.ends_with("│ ok⟨17 spaces⟩rm -rf\n└ end of the text"),
        "{seventeen}"
    );
    assert!(
        seventeen.contains("Look closely: 1 line has long runs of spaces"),
        "{seventeen}"
    );
}
