//! How a message reads wherever a result shows one: its row on a page and its line in a model's
//! text, and a [`Message`] answer (what `messages_send`, `messages_edit`, `messages_delete`,
//! `reactions_add` and `reactions_remove` return) as a page and as text. Every capability's
//! rendering that lists messages takes them from here.

use std::fmt::Write as _;

use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::answer::page::{Page, Render, excerpt, local};
use crate::answer::text::{ModelText, TextBlock, at};
use crate::business::kernel::message_extras::Attachment;
use crate::business::kernel::model::{AuthorKind, Message, MessageBody, Reaction};

/// One thing a message's flags say. Both renderings read the one list [`flags`] makes, each in
/// its own words, so neither can show a flag the other leaves out.
enum Flag<'a> {
    /// Who wrote it, when the name alone could mislead: a webhook shows any name it likes. The
    /// model's line says the author's kind before the author's id instead.
    Author(&'static str),
    MentionsOwner,
    Edited(Instant),
    Deleted,
    Pinned,
    Reply(MessageId),
    Reaction(&'a Reaction),
    /// A file attached, by the id `attachments_get` takes, and whether the file is kept (so it
    /// can be shown whatever became of Discord's URL or the message).
    Attachment(&'a Attachment),
}

/// A message's flags, in the order both renderings show them.
fn flags(message: &MessageBody) -> Vec<Flag<'_>> {
    let mut flags = Vec::new();
    match message.author_kind {
        AuthorKind::Webhook => flags.push(Flag::Author("webhook")),
        AuthorKind::Bot => flags.push(Flag::Author("bot")),
        AuthorKind::ThisBot => flags.push(Flag::Author("our bot")),
        AuthorKind::Owner | AuthorKind::Person => {}
    }
    if message.mentions_owner {
        flags.push(Flag::MentionsOwner);
    }
    if let Some(edited) = message.edited_at {
        flags.push(Flag::Edited(edited));
    }
    if message.deleted {
        flags.push(Flag::Deleted);
    }
    if message.pinned {
        flags.push(Flag::Pinned);
    }
    if let Some(reply) = &message.reply_to_message_id {
        flags.push(Flag::Reply(*reply));
    }
    flags.extend(message.reactions.iter().map(Flag::Reaction));
    flags.extend(message.attachments.iter().map(Flag::Attachment));
    flags
}

/// Whether an attachment's file is kept, as a flag says it.
fn kept(attachment: &Attachment) -> &'static str {
    if attachment.kept { "kept" } else { "not kept" }
}

/// The message's flags in a table's cell. A row has no room for attachment ids (`messages
/// get` and `--json` show them): its files are counted, and how many are kept (`📎2 kept`,
/// `📎1 of 2 kept`).
fn page_flags(message: &MessageBody) -> String {
    let (mut files, mut kept_files) = (0, 0);
    let mut words = flags(message)
        .into_iter()
        .filter_map(|flag| match flag {
            Flag::Author(kind) => Some(kind.to_string()),
            Flag::MentionsOwner => Some("@you".to_string()),
            Flag::Edited(_) => Some("edited".to_string()),
            Flag::Deleted => Some("deleted".to_string()),
            Flag::Pinned => Some("pinned".to_string()),
            Flag::Reply(_) => Some("reply".to_string()),
            Flag::Reaction(reaction) => Some(format!("{}×{}", reaction.emoji, reaction.count)),
            Flag::Attachment(attachment) => {
                files += 1;
                kept_files += u32::from(attachment.kept);
                None
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    if files > 0 {
        let separator = if words.is_empty() { "" } else { " " };
        let _ = match kept_files {
            kept if kept == files => write!(words, "{separator}📎{files} kept"),
            0 => write!(words, "{separator}📎{files} not kept"),
            kept => write!(words, "{separator}📎{kept} of {files} kept"),
        };
    }
    words
}

/// A message in a table whose rows all belong to one channel.
pub(crate) fn body_row(message: &MessageBody) -> Vec<String> {
    vec![
        local(message.sent_at),
        message.author_name.to_string(),
        excerpt(&message.text_with_extras(), 72),
        page_flags(message),
        message.message_id.to_string(),
    ]
}

/// A message in a table whose rows span channels: the channel is named, and the last cell is
/// the message's link (which every command that takes its id takes too).
pub(crate) fn message_row(message: &Message) -> Vec<String> {
    let body = &message.body;
    vec![
        local(body.sent_at),
        format!("#{}", message.channel_name),
        body.author_name.to_string(),
        excerpt(&body.text_with_extras(), 64),
        page_flags(body),
        body.link.clone(),
    ]
}

impl Render for Message {
    fn render(&self) -> Page {
        let body = &self.body;
        let reply = body
            .reply_to_message_id
            .as_ref()
            .map(|id| format!(" in reply to {id}"))
            .unwrap_or_default();
        format!(
            "Sent message {} in #{} as {}{reply}: {}\n",
            body.message_id,
            self.channel_name,
            body.author_name,
            excerpt(&body.content, 72)
        )
        .into()
    }
}

/// The message's flags at the end of its line: a reaction's emoji is fenced, since a custom
/// emoji's name is a stranger's to choose.
pub(crate) fn text_flags(text: &mut TextBlock, message: &MessageBody) -> String {
    let flags: Vec<String> = flags(message)
        .into_iter()
        .filter_map(|flag| match flag {
            Flag::Author(_) => None,
            Flag::MentionsOwner => Some("mentions you".to_string()),
            Flag::Edited(edited) => Some(format!("edited {}", at(edited))),
            Flag::Deleted => Some("deleted".to_string()),
            Flag::Pinned => Some("pinned".to_string()),
            Flag::Reply(reply) => Some(format!("reply to {reply}")),
            Flag::Reaction(reaction) => {
                Some(format!("{}×{}", text.data(&reaction.emoji), reaction.count))
            }
            Flag::Attachment(attachment) => {
                Some(format!("attachment {} {}", attachment.id, kept(attachment)))
            }
        })
        .collect();
    if flags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", flags.join(", "))
    }
}

/// Who wrote a message, as the line says it before the author's id: the name shown is the
/// author's to choose (a webhook may take the owner's), this is not.
pub(crate) fn author_kind(kind: AuthorKind) -> &'static str {
    match kind {
        AuthorKind::Owner => "the owner",
        AuthorKind::ThisBot => "this bot",
        AuthorKind::Bot => "bot",
        AuthorKind::Webhook => "webhook",
        AuthorKind::Person => "user",
    }
}

/// One message's line, without its channel.
pub(crate) fn body_line(text: &mut TextBlock, message: &MessageBody) -> String {
    line_of_body(text, message, "")
}

/// [`body_line`] with the message's link after its id: where the owner opens what they catch
/// up on.
pub(crate) fn linked_body_line(text: &mut TextBlock, message: &MessageBody) -> String {
    line_of_body(text, message, &format!(" ({})", message.link))
}

fn line_of_body(text: &mut TextBlock, message: &MessageBody, link: &str) -> String {
    format!(
        "- {} msg {}{link} by {} ({} {}): {}{}",
        at(message.sent_at),
        message.message_id,
        text.data(&message.author_name),
        author_kind(message.author_kind),
        message.author_id,
        text.data(&message.text_with_extras()),
        text_flags(text, message)
    )
}

/// One message's line, naming its channel and giving its link.
pub(crate) fn message_line(text: &mut TextBlock, message: &Message) -> String {
    let body = &message.body;
    format!(
        "- {} msg {} ({}) in {} (channel {}) by {} ({} {}): {}{}",
        at(body.sent_at),
        body.message_id,
        body.link,
        text.data(&format!("#{}", message.channel_name)),
        message.channel_id,
        text.data(&body.author_name),
        author_kind(body.author_kind),
        body.author_id,
        text.data(&body.text_with_extras()),
        text_flags(text, body)
    )
}

impl ModelText for Message {
    fn write_text(&self, text: &mut TextBlock) {
        let line = message_line(text, self);
        text.line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webhook_or_a_bot_is_flagged_whatever_name_it_shows() {
        let message = |author_kind| MessageBody {
            message_id: discord_manager_playback::world::id("1"),
            link: "https://discord.com/channels/@me/2/1".to_string(),
            author_id: discord_manager_playback::world::id("3"),
            author_name: "Ada".into(),
            content: "approved".into(),
            created_at: Instant::from_micros(0),
            sent_at: Instant::from_micros(0),
            edited_at: None,
            deleted: false,
            reply_to_message_id: None,
            reactions: Vec::new(),
            mentions_owner: false,
            author_kind,
            attachments: Vec::new(),
            embeds: Vec::new(),
            stickers: Vec::new(),
            poll: None,
            forwarded: Vec::new(),
            pinned: false,
            event: None,
            components: Vec::new(),
            command: None,
            refers_to: None,
            voice_message: false,
        };
        assert_eq!(page_flags(&message(AuthorKind::Webhook)), "webhook");
        assert_eq!(page_flags(&message(AuthorKind::Bot)), "bot");
        assert_eq!(page_flags(&message(AuthorKind::ThisBot)), "our bot");
        assert_eq!(page_flags(&message(AuthorKind::Owner)), "");
        assert_eq!(page_flags(&message(AuthorKind::Person)), "");
    }

    #[test]
    fn a_pinned_message_says_so_on_the_page_and_in_the_models_text() {
        let message = |pinned| -> MessageBody {
            serde_json::from_value(serde_json::json!({
                "messageId": "5", "link": "https://discord.com/channels/@me/2/5", "authorId": "6", "authorName": "Ada", "content": "rules",
                "createdAt": "2026-11-29T18:54:18.000001Z", "sentAt": "2026-11-29T18:54:18Z",
                "authorKind": "person", "pinned": pinned, "replyToMessageId": "4"
            }))
            .unwrap()
        };
        let mut text = TextBlock::with_nonce("00000000".into());
        assert_eq!(page_flags(&message(true)), "pinned reply");
        assert_eq!(
            text_flags(&mut text, &message(true)),
            " [pinned, reply to 4]"
        );
        assert_eq!(page_flags(&message(false)), "reply");
        assert_eq!(text_flags(&mut text, &message(false)), " [reply to 4]");
    }

    #[test]
    fn each_attachment_is_flagged_with_the_id_attachments_get_takes_and_whether_it_is_kept() {
        let message: MessageBody = serde_json::from_value(serde_json::json!({
            "messageId": "5", "link": "https://discord.com/channels/@me/2/5", "authorId": "6", "authorName": "Ada", "content": "graphs",
            "createdAt": "2026-11-29T18:54:18.000001Z", "sentAt": "2026-11-29T18:54:18Z",
            "authorKind": "person",
            "attachments": [
                {"attachmentId": "71", "filename": "p99.png", "size": 10, "url": "u",
                 "contentType": "image/png", "kept": true},
                {"attachmentId": "72", "filename": "trace.bin", "size": 99, "url": "u",
                 "kept": false}
            ]
        }))
        .unwrap();
        let mut text = TextBlock::with_nonce("00000000".into());
        assert_eq!(
            text_flags(&mut text, &message),
            " [attachment 71 kept, attachment 72 not kept]"
        );
        assert_eq!(page_flags(&message), "📎1 of 2 kept");
        assert_eq!(
            body_line(&mut text, &message),
            "- 2026-11-29T18:54:18Z msg 5 by ‹00000000›Ada‹/00000000› (user 6): \
             ‹00000000›graphs [image: p99.png] [file: trace.bin]‹/00000000› \
             [attachment 71 kept, attachment 72 not kept]"
        );
    }

    #[test]
    fn a_message_without_text_is_never_a_blank_line() {
        let embed_only: MessageBody = serde_json::from_value(serde_json::json!({
            "messageId": "5", "link": "https://discord.com/channels/@me/2/5", "authorId": "6", "authorName": "CI", "content": "",
            "createdAt": "2026-11-29T18:54:18.000001Z", "sentAt": "2026-11-29T18:54:18Z",
            "authorKind": "webhook", "embeds": [{"type": "rich", "title": "Build #4521 passed"}]
        }))
        .unwrap();
        let mut text = TextBlock::with_nonce("00000000".into());
        assert_eq!(
            body_line(&mut text, &embed_only),
            "- 2026-11-29T18:54:18Z msg 5 by ‹00000000›CI‹/00000000› (webhook 6): \
             ‹00000000›[embed: Build #4521 passed]‹/00000000›"
        );
    }
}
