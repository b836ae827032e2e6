//! Posts the owner approves: the port through which the business layer asks the owner, in
//! person, whether one post an assistant wants to make may go out.
//!
//! An assistant (MCP) posts, replies, edits and schedules only in the channels the owner listed
//! in DISCORD_MANAGER_SEND_CHANNELS. When the MCP client can show the owner a form (MCP
//! elicitation), a post outside that list is not refused outright: the owner is shown the
//! exact channel and the exact text, and only their yes lets that one message out. With
//! DISCORD_MANAGER_CONFIRM_POSTS=1 every post is asked about, listed channels included.
//!
//! The business layer decides when to ask (`outbox::check_channel`), after every refusal that
//! does not depend on the owner's word (the token, read-only mode, scope, the channel, the
//! bot's permissions, the rate); the surface that can reach the person implements
//! [`OwnerApproval`] (the MCP server, through the client's form). The CLI has none: the owner
//! typing a command is already the owner's word. The model cannot answer the form: the client
//! shows it to the person, and the answer comes back to the server, never through the model.

use std::fmt::{self, Write as _};
use std::future::Future;
use std::pin::Pin;

use discord_manager_store::{Store, Writer};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use super::untrusted::is_unseen;
use crate::business::OwnerContext;

/// What an assistant asks to do, in the form's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostKind {
    /// A new message (`messages_send`).
    Post,
    /// A reply to a message (`messages_send` with `replyToMessageId`).
    Reply,
    /// New text for one of the bot's messages (`messages_edit`).
    Edit,
    /// A message to send later (`schedules_add`).
    Schedule,
}

/// Why the owner is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskReason {
    /// The channel is not in DISCORD_MANAGER_SEND_CHANNELS (or that list is unset).
    Unlisted,
    /// DISCORD_MANAGER_CONFIRM_POSTS is 1: every post is asked about.
    ConfirmPosts,
}

/// One post the owner is asked to approve: exactly what would go out, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    pub kind: PostKind,
    pub reason: AskReason,
    pub channel_id: ChannelId,
    /// The channel's name, scrubbed of invisible characters.
    pub channel_name: String,
    /// The exact text that would go out.
    pub content: String,
    /// The message it replies to, or the bot's message it edits.
    pub message_id: Option<MessageId>,
    /// When a scheduled message would go out.
    pub send_at: Option<Instant>,
}

impl ApprovalRequest {
    /// The form's message, in the form's words first: what would go out, where, why the owner
    /// is asked, and what to look at closely; then the text, last, each of its lines behind a
    /// `│` so nothing in it can pass for the form's own words, its length in characters and
    /// lines stated before it. What a screen would not show is made visible there (a control
    /// character as its symbol, `␛`; an invisible one as its code point, `⟨U+202E⟩`) and
    /// counted, ASCII controls included; a run of blank lines or of spaces is shown as one
    /// marker, so no payload hides past the form's edge. The text posted is the text as it
    /// is: only the form shows it this way.
    pub fn message(&self) -> String {
        let channel = format!("#{} (channel {})", self.channel_name, self.channel_id);
        let what = match (self.kind, &self.message_id, self.send_at) {
            (PostKind::Reply, Some(message), _) => {
                format!("reply to message {message} in {channel}")
            }
            (PostKind::Edit, Some(message), _) => {
                format!("change the text of the bot's message {message} in {channel} to")
            }
            (PostKind::Schedule, _, Some(send_at)) => {
                format!("schedule this message for {channel}, to be sent at {send_at}")
            }
            _ => format!("post this message in {channel}"),
        };
        let why = match self.reason {
            AskReason::Unlisted => format!(
                "You are asked because {channel} is not in DISCORD_MANAGER_SEND_CHANNELS: \
                 accepting allows this one message only."
            ),
            AskReason::ConfirmPosts => {
                "You are asked because DISCORD_MANAGER_CONFIRM_POSTS is 1.".to_string()
            }
        };
        let shown = ShownText::of(&self.content);
        let mut form = format!(
            "An assistant asks to {what}, as the bot. {why} Accept to let it go out once; \
             decline and nothing is sent."
        );
        shown.write_notes(&mut form);
        let (characters, lines) = (self.content.chars().count(), shown.lines);
        let _ = write!(
            form,
            "\n\nThe text is {characters} {} on {lines} {}, every line below marked │, and \
             nothing after them:\n",
            plural(characters, "character", "characters"),
            plural(lines, "line", "lines"),
        );
        form.push_str(&shown.text);
        form
    }
}

fn plural<'a>(count: usize, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 { one } else { many }
}

/// Runs of more blank lines than this are shown as one marker line.
const BLANK_LINES_SHOWN: usize = 2;
/// Runs of more spaces (or other blank characters) than this, within a line, are shown as one
/// marker.
const BLANKS_SHOWN: usize = 16;

/// A text as the approval form shows it: every line behind `│ `, what a screen would not show
/// made visible, long blank runs folded, and what was found.
#[derive(Debug, Default, PartialEq, Eq)]
struct ShownText {
    text: String,
    /// The text's lines (a line end starts one more).
    lines: usize,
    /// Control characters (ASCII's included, the line end excepted), shown as symbols.
    controls: usize,
    /// Invisible or direction-changing characters (what [`scrub`] removes from strangers'
    /// text), shown as their code points.
    invisible: usize,
    /// Each run of blank lines folded: its length, and the line it follows (0: the start).
    blank_runs: Vec<(usize, usize)>,
    /// Blank runs folded within lines.
    blank_spans: usize,
}

impl ShownText {
    fn of(content: &str) -> ShownText {
        let mut shown = ShownText::default();
        let lines: Vec<&str> = content.split('\n').collect();
        shown.lines = lines.len();
        let mut blank_run = 0;
        for (number, line) in lines.iter().enumerate() {
            let visible = shown.visible_line(line);
            if visible.is_empty() {
                blank_run += 1;
                continue;
            }
            shown.blank_lines(blank_run, number - blank_run);
            blank_run = 0;
            let _ = writeln!(shown.text, "│ {visible}");
        }
        shown.blank_lines(blank_run, lines.len() - blank_run);
        shown.text.push_str("└ end of the text");
        shown
    }

    /// A run of `run` blank lines after line `after` (0: the start): each as `│`, or one marker
    /// when the run is long.
    fn blank_lines(&mut self, run: usize, after: usize) {
        if run > BLANK_LINES_SHOWN {
            self.blank_runs.push((run, after));
            let _ = writeln!(self.text, "│ ⟨{run} blank lines⟩");
        } else {
            for _ in 0..run {
                self.text.push_str("│\n");
            }
        }
    }

    /// One line with its controls and invisible characters made visible and its long blank
    /// runs folded, counting each; empty for a line of blanks alone.
    fn visible_line(&mut self, line: &str) -> String {
        let characters: Vec<char> = line.chars().collect();
        let mut visible = String::with_capacity(line.len());
        let mut blanks = 0;
        for (position, &character) in characters.iter().enumerate() {
            let before = position.checked_sub(1).map(|before| characters[before]);
            let after = characters.get(position + 1).copied();
            let unseen = is_unseen(character, before, after);
            if character.is_whitespace() && !character.is_control() && !unseen {
                blanks += 1;
                continue;
            }
            self.blanks(&mut visible, blanks);
            blanks = 0;
            match character {
                '\u{0}'..='\u{1f}' | '\u{7f}' => {
                    self.controls += 1;
                    visible.push(control_picture(character));
                }
                _ if character.is_control() => {
                    self.controls += 1;
                    let _ = write!(visible, "⟨U+{:04X}⟩", u32::from(character));
                }
                _ if unseen => {
                    self.invisible += 1;
                    let _ = write!(visible, "⟨U+{:04X}⟩", u32::from(character));
                }
                _ => visible.push(character),
            }
        }
        if !visible.is_empty() {
            self.blanks(&mut visible, blanks);
        }
        visible
    }

    /// `count` blanks within a line: as they are, or one marker when the run is long.
    fn blanks(&mut self, visible: &mut String, count: usize) {
        if count > BLANKS_SHOWN {
            self.blank_spans += 1;
            let _ = write!(visible, "⟨{count} spaces⟩");
        } else {
            visible.extend(std::iter::repeat_n(' ', count));
        }
    }

    /// What the owner should look at closely, each a paragraph of `form`; none for a plain
    /// text.
    fn write_notes(&self, form: &mut String) {
        let characters = |count: usize| plural(count, "character", "characters");
        match (self.controls, self.invisible) {
            (0, 0) => {}
            (controls, invisible) => {
                let _ = write!(form, "\n\nLook closely: the text holds ");
                if controls > 0 {
                    let _ = write!(
                        form,
                        "{controls} control {} (shown as symbols such as ␛ or ␍)",
                        characters(controls)
                    );
                }
                if controls > 0 && invisible > 0 {
                    form.push_str(" and ");
                }
                if invisible > 0 {
                    let _ = write!(
                        form,
                        "{invisible} invisible or direction-changing {} (shown as ⟨U+…⟩)",
                        characters(invisible)
                    );
                }
                form.push_str(", which a screen would not show as they are.");
            }
        }
        for &(run, after) in &self.blank_runs {
            let _ = write!(
                form,
                "\n\nLook closely: the text has {run} blank lines in a row "
            );
            let _ = match after {
                0 => write!(form, "at its start"),
                line => write!(form, "after line {line}"),
            };
            form.push_str(", shown as one line: read on past them.");
        }
        if self.blank_spans > 0 {
            let _ = write!(
                form,
                "\n\nLook closely: {} {} long runs of spaces, each shown as one marker.",
                self.blank_spans,
                plural(self.blank_spans, "line has", "lines have")
            );
        }
    }
}

/// An ASCII control character as the symbol Unicode draws for it (`␛` for ESC, `␡` for DEL).
fn control_picture(character: char) -> char {
    match character {
        '\u{7f}' => '\u{2421}',
        _ => char::from_u32(0x2400 + u32::from(character)).unwrap_or('\u{FFFD}'),
    }
}

/// What the owner answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// The owner accepted: the post goes out, once.
    Approved,
    /// The owner declined.
    Declined,
    /// The owner dismissed the form without choosing.
    Cancelled,
    /// The owner could not be asked (the client failed to show the form or to answer), why.
    Unavailable(String),
}

/// The answer to one question, when the owner has given it.
pub type Answer<'a> = Pin<Box<dyn Future<Output = Approval> + Send + 'a>>;

/// Asks the owner, in person, about one post. Implemented by the surface that can reach the
/// person (the MCP server, through the client's form); present in the owner context only
/// when it can.
pub trait OwnerApproval: Send + Sync + fmt::Debug {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> Answer<'a>;
}

/// Asks the owner about `request` through `approval`; Ok only when they accepted. Any other
/// answer is a refusal in the owner's words (kind Denied), and nothing is sent.
pub(crate) async fn ask(
    approval: Option<&dyn OwnerApproval>,
    request: &ApprovalRequest,
) -> Result<()> {
    let Some(approval) = approval else {
        return Err(Error::internal(
            "The owner's approval is needed, but there is no way to ask them",
        ));
    };
    // By id only: a channel's name is anyone's words, and a refusal is the server's voice.
    let channel = format!("channel {}", request.channel_id);
    match approval.ask(request).await {
        Approval::Approved => Ok(()),
        Approval::Declined => Err(Error::denied(format!(
            "The owner declined the message for {channel}; nothing was sent"
        ))),
        Approval::Cancelled => Err(Error::denied(format!(
            "The owner closed the form without approving the message for {channel}; nothing \
             was sent"
        ))),
        Approval::Unavailable(why) => Err(Error::denied(format!(
            "The owner could not be asked about the message for {channel} ({why}); nothing \
             was sent"
        ))),
    }
}

/// Whether the owner approved this very post in a form (asked once, then checked again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Consent {
    /// The owner has not been asked (yet).
    NotAsked,
    /// The owner accepted this exact post.
    Approved,
}

/// What the owner's lists say of a post that passed every refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clearance {
    /// It may go out.
    Allowed,
    /// It may go out once the owner approves it.
    AskOwner(AskReason),
}

/// What a post's checks came to, in their transaction: cleared (and recorded), or a question
/// for the owner (nothing recorded).
pub(crate) enum Checked<T> {
    Cleared(T),
    Ask(ApprovalRequest),
}

/// Runs `check` (a post's every check, and its record once cleared, in one write transaction)
/// without the owner's word. When it asks, the owner is asked, outside any transaction; on
/// their yes it runs again as approved, every check made again (the rate may have filled
/// while the form was open), so an approved post is still refused for anything else.
pub(crate) async fn cleared<T: Send>(
    store: &Store,
    context: &OwnerContext,
    check: impl Fn(&mut Writer<'_>, Consent) -> Result<Checked<T>> + Sync,
) -> Result<T> {
    let request = match store.write(|writer| check(writer, Consent::NotAsked))? {
        Checked::Cleared(value) => return Ok(value),
        Checked::Ask(request) => request,
    };
    ask(context.owner_approval.as_deref(), &request).await?;
    match store.write(|writer| check(writer, Consent::Approved))? {
        Checked::Cleared(value) => Ok(value),
        Checked::Ask(_) => Err(Error::internal(
            "The owner approved the message, but it was asked about again",
        )),
    }
}

#[cfg(test)]
mod tests;
