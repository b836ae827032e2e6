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

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use discord_manager_store::{Store, Writer};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use super::untrusted::scrub;
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
    /// The form's message: what would go out, where, and why the owner is asked. The text is
    /// shown exactly; characters it holds that a screen would not show are counted.
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
        let hidden = self.content.chars().count() - scrub(&self.content).chars().count();
        let hidden = match hidden {
            0 => String::new(),
            count => format!(
                "\n\nThe text holds {count} invisible or control characters that may not show \
                 above."
            ),
        };
        format!(
            "An assistant asks to {what}, as the bot:\n\n{}{hidden}\n\n{why} Accept to let it \
             go out once; decline and nothing is sent.",
            self.content
        )
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
