//! What a message carries beyond its text, from serenity's types into the store's compact
//! shape: attachments, embeds, stickers, a poll, forwarded snapshots, type, flags, pinned state.
//! A MESSAGE_UPDATE is partial: what it carries replaces the stored value, the rest is kept
//! (an unfurl brings the embeds alone; a pin, `pinned` alone).

use discord_manager_store::{
    Attachment, Embed, EmbedField, Forwarded, MessageExtras, Poll, PollAnswer, PollVote, Sticker,
    Writer,
};
use discord_manager_vocabulary::error::Result;
use serenity::model::channel::{
    Attachment as DiscordAttachment, Embed as DiscordEmbed, Message, MessageSnapshot, MessageType,
    Poll as DiscordPoll,
};
use serenity::model::event::MessageUpdateEvent;
use serenity::model::id::{AnswerId, ChannelId, MessageId, UserId};
use serenity::model::sticker::StickerItem;

use super::Recorded;
use super::discord_time::instant_of;
use super::payload::MessagePayload;
use crate::ids::TypedId;

/// Discord's type number, with a default message and a reply both 0: a reply already shows
/// its target.
fn kind_of(kind: MessageType) -> u64 {
    match u8::from(kind) {
        19 => 0,
        other => u64::from(other),
    }
}

fn attachment(attachment: &DiscordAttachment) -> Attachment {
    Attachment {
        duration_ms: attachment
            .duration_secs
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
            .map(|seconds| (seconds * 1000.0).round() as u64),
        id: attachment.id.typed(),
        filename: attachment.filename.clone(),
        size: u64::from(attachment.size),
        content_type: attachment.content_type.clone(),
        url: attachment.url.clone(),
        width: attachment.width,
        height: attachment.height,
        description: attachment.description.clone(),
    }
}

fn embed(embed: &DiscordEmbed) -> Embed {
    Embed {
        kind: embed.kind.clone(),
        title: embed.title.clone(),
        description: embed.description.clone(),
        url: embed.url.clone(),
        author: embed.author.as_ref().map(|author| author.name.clone()),
        fields: embed
            .fields
            .iter()
            .map(|field| EmbedField {
                name: field.name.clone(),
                value: field.value.clone(),
            })
            .collect(),
        footer: embed.footer.as_ref().map(|footer| footer.text.clone()),
        provider: embed
            .provider
            .as_ref()
            .and_then(|provider| provider.name.clone()),
        image: embed.image.as_ref().map(|image| image.url.clone()),
    }
}

fn sticker(sticker: &StickerItem) -> Sticker {
    Sticker {
        id: sticker.id.typed(),
        name: sticker.name.clone(),
    }
}

fn poll(poll: &DiscordPoll) -> Poll {
    let counts = poll.results.as_ref();
    Poll {
        question: poll.question.text.clone().unwrap_or_default(),
        answers: poll
            .answers
            .iter()
            .map(|answer| PollAnswer {
                answer_id: answer.answer_id.get(),
                text: answer.poll_media.text.clone().unwrap_or_default(),
                // Discord lists only answers with votes: with results, a missing one has 0.
                votes: counts.map(|results| {
                    results
                        .answer_counts
                        .iter()
                        .find(|count| count.id == answer.answer_id)
                        .map_or(0, |count| count.count)
                }),
            })
            .collect(),
        expiry: poll
            .expiry
            .as_ref()
            .and_then(|expiry| instant_of(expiry).ok()),
        allow_multiselect: poll.allow_multiselect,
        finalized: counts.is_some_and(|results| results.is_finalized),
    }
}

fn forwarded(snapshot: &MessageSnapshot) -> Forwarded {
    Forwarded {
        content: snapshot.content.clone(),
        attachments: snapshot.attachments.iter().map(attachment).collect(),
        embeds: snapshot.embeds.iter().map(embed).collect(),
    }
}

/// MESSAGE_POLL_VOTE_ADD (`voted`) or MESSAGE_POLL_VOTE_REMOVE: one user's vote for one
/// answer; a replay writes nothing.
pub(crate) fn record_poll_vote_in(
    writer: &mut Writer<'_>,
    message_id: MessageId,
    channel_id: ChannelId,
    user_id: UserId,
    answer_id: AnswerId,
    voted: bool,
) -> Result<Recorded> {
    Ok(writer
        .record_poll_vote(&PollVote {
            message_id: message_id.typed(),
            channel_id: channel_id.typed(),
            user_id: user_id.typed(),
            answer_id: answer_id.get(),
            voted,
        })?
        .into())
}

/// A whole message's extras (MESSAGE_CREATE, a REST copy, the bot's own send): serenity's
/// model, and what only Discord's JSON of it (`payload`) says.
pub(crate) fn extras_of(message: &Message, payload: &MessagePayload<'_>) -> MessageExtras {
    MessageExtras {
        kind: kind_of(message.kind),
        flags: payload
            .flags()
            .unwrap_or_else(|| message.flags.map_or(0, |flags| flags.bits())),
        pinned: message.pinned,
        attachments: message.attachments.iter().map(attachment).collect(),
        embeds: message.embeds.iter().map(embed).collect(),
        stickers: message.sticker_items.iter().map(sticker).collect(),
        poll: message.poll.as_deref().map(poll),
        forwarded: message.message_snapshots.iter().map(forwarded).collect(),
        components: payload.components(),
        command: payload.command(),
        refers_to: payload.refers_to(),
    }
}

/// `current` with what only Discord's JSON of the message says read again from `payloads`,
/// oldest first (the newest that says a thing wins): its components, the command it answers,
/// the message it points at and every flag bit. What they do not say stays as it is.
pub(crate) fn read_from_payloads(
    current: &MessageExtras,
    payloads: &[MessagePayload<'_>],
) -> MessageExtras {
    let mut next = current.clone();
    for payload in payloads {
        if payload.has_components() {
            next.components = payload.components();
        }
        if let Some(command) = payload.command() {
            next.command = Some(command);
        }
        if let Some(referred) = payload.refers_to() {
            next.refers_to = Some(referred);
        }
        if let Some(flags) = payload.flags() {
            next.flags = flags;
        }
    }
    next
}

/// The extras after a partial MESSAGE_UPDATE of a message whose extras were `current`;
/// `payload` is the update as Discord sent it, which alone holds a Components V2 post's new
/// text and every flag bit.
pub(crate) fn updated_extras(
    current: &MessageExtras,
    update: &MessageUpdateEvent,
    payload: Option<&MessagePayload<'_>>,
) -> MessageExtras {
    let mut next = current.clone();
    if let Some(kind) = update.kind {
        next.kind = kind_of(kind);
    }
    if let Some(flags) = update.flags {
        next.flags = flags.map_or(0, |flags| flags.bits());
    }
    if let Some(payload) = payload {
        if let Some(flags) = payload.flags() {
            next.flags = flags;
        }
        if payload.has_components() {
            next.components = payload.components();
        }
    }
    if let Some(pinned) = update.pinned {
        next.pinned = pinned;
    }
    if let Some(attachments) = &update.attachments {
        next.attachments = attachments.iter().map(attachment).collect();
    }
    if let Some(embeds) = &update.embeds {
        next.embeds = embeds.iter().map(embed).collect();
    }
    if let Some(stickers) = &update.sticker_items {
        next.stickers = stickers.iter().map(sticker).collect();
    }
    next
}
