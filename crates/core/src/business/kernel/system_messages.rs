//! What a message Discord writes itself says happened: a member joined, a message was pinned,
//! the server was boosted, a thread started, automod blocked a message, a poll closed. Such a
//! message has no text of its own (or only a name), and its author is the member it is about,
//! so without this sentence it reads as a blank line from a person. Discord's message types
//! are those of the developer docs ("Message Types"); a reply, a slash command's and a context
//! menu command's answer are messages like any other.

use std::fmt::Write as _;

use discord_manager_store::{Embed, MessageExtras};

/// Discord's message types that a person or an application wrote: DEFAULT (and REPLY, which
/// the store keeps as 0), CHAT_INPUT_COMMAND and CONTEXT_MENU_COMMAND.
const WRITTEN: [u64; 3] = [0, 20, 23];

/// Discord's message type of a pin notice.
pub(crate) const CHANNEL_PINNED_MESSAGE: u64 = 6;
/// Discord's message type of a thread's name announced in its parent channel.
const THREAD_CREATED: u64 = 18;
/// Discord's message type of a poll's result.
const POLL_RESULT: u64 = 46;

/// What happened, for a message Discord wrote; None for one a person or an application wrote.
/// The sentence's subject is the message's author (the member who joined, pinned, boosted).
pub(crate) fn what_happened(extras: &MessageExtras) -> Option<String> {
    let kind = extras.kind;
    if WRITTEN.contains(&kind) {
        return None;
    }
    let sentence = match kind {
        1 => "added someone to the group",
        2 => "removed someone from the group",
        3 => "started a call",
        4 => "renamed the group",
        5 => "changed the group's icon",
        CHANNEL_PINNED_MESSAGE => "pinned a message",
        7 => "joined the server",
        8 => "boosted the server",
        9 => "boosted the server to level 1",
        10 => "boosted the server to level 2",
        11 => "boosted the server to level 3",
        12 => "followed a channel into this one",
        14 => "the server was removed from Server Discovery",
        15 => "the server is back in Server Discovery",
        16 | 17 => "the server may be removed from Server Discovery",
        THREAD_CREATED => "started a thread",
        21 => "the message this thread started from",
        22 => "a reminder to invite people",
        24 => "automod blocked a message",
        25 => "subscribed to a role",
        26 => "an app upsell",
        27 => "started a stage",
        28 => "ended the stage",
        29 => "became a stage speaker",
        31 => "changed the stage topic",
        32 => "subscribed to an app",
        36 => "raid protection was turned on",
        37 => "raid protection was turned off",
        38 => "reported a raid",
        39 => "reported a false raid alarm",
        44 => "made a purchase",
        POLL_RESULT => return Some(poll_result(&extras.embeds)),
        other => return Some(format!("a Discord notice (message type {other})")),
    };
    Some(sentence.to_string())
}

/// A poll's result, from the `poll_result` embed Discord attaches: its question, the winning
/// answer and the votes.
fn poll_result(embeds: &[Embed]) -> String {
    let field = |name: &str| {
        embeds
            .iter()
            .flat_map(|embed| &embed.fields)
            .find(|field| field.name == name)
            .map(|field| field.value.as_str())
            .filter(|value| !value.is_empty())
    };
    let mut sentence = String::from("the poll closed");
    if let Some(question) = field("poll_question_text") {
        sentence.push_str(": ");
        sentence.push_str(question);
    }
    match (field("victor_answer_text"), field("victor_answer_votes")) {
        (Some(answer), Some(votes)) => {
            let _ = write!(sentence, " — {answer} won with {votes}");
        }
        (Some(answer), None) => {
            let _ = write!(sentence, " — {answer} won");
        }
        _ => sentence.push_str(" — no answer won"),
    }
    if let Some(total) = field("total_votes") {
        let _ = write!(sentence, " of {total} votes");
    }
    sentence
}

#[cfg(test)]
mod tests {
    use super::*;
    use discord_manager_store::EmbedField;

    fn of_kind(kind: u64) -> MessageExtras {
        MessageExtras {
            kind,
            ..MessageExtras::default()
        }
    }

    #[test]
    fn each_notice_reads_as_what_happened_and_a_written_message_as_nothing() {
        let said = |kind| what_happened(&of_kind(kind));
        assert_eq!(said(7).as_deref(), Some("joined the server"));
        assert_eq!(said(6).as_deref(), Some("pinned a message"));
        assert_eq!(said(8).as_deref(), Some("boosted the server"));
        assert_eq!(said(11).as_deref(), Some("boosted the server to level 3"));
        assert_eq!(said(18).as_deref(), Some("started a thread"));
        assert_eq!(said(24).as_deref(), Some("automod blocked a message"));
        assert_eq!(
            said(99).as_deref(),
            Some("a Discord notice (message type 99)")
        );
        for written in [0, 20, 23] {
            assert_eq!(said(written), None, "type {written}");
        }
    }

    #[test]
    fn a_poll_result_names_the_question_the_winner_and_the_votes() {
        let field = |name: &str, value: &str| EmbedField {
            name: name.into(),
            value: value.into(),
        };
        let mut extras = of_kind(46);
        extras.embeds = vec![Embed {
            kind: Some("poll_result".into()),
            fields: vec![
                field("poll_question_text", "Ship on Friday?"),
                field("victor_answer_votes", "5"),
                field("total_votes", "8"),
                field("victor_answer_text", "No"),
            ],
            ..Embed::default()
        }];
        assert_eq!(
            what_happened(&extras).as_deref(),
            Some("the poll closed: Ship on Friday? — No won with 5 of 8 votes")
        );
        extras.embeds.clear();
        assert_eq!(
            what_happened(&extras).as_deref(),
            Some("the poll closed — no answer won")
        );
    }
}
