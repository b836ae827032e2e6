//! A briefing's window: where each readable channel in scope starts, where the window ends,
//! and what arrived in it per channel, read once for every section.

use std::collections::{BTreeMap, HashMap};

use discord_manager_store::{ChannelRecord, Reader, WindowMessage};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId};

use crate::business::OwnerContext;
use crate::business::channels::chosen_readable_channels;
use crate::business::kernel::model::OwnerView;

/// How far back a channel without a read marker starts: a day.
const DEFAULT_LOOKBACK_SECONDS: i64 = crate::business::kernel::DEFAULT_LOOKBACK_SECONDS;

/// What one channel received in the window.
#[derive(Debug, Clone)]
pub(super) struct ChannelNews {
    pub messages: u64,
    pub replies: u64,
    /// Messages from others than the owner and the bot.
    pub from_others: u64,
    /// Reactions added.
    pub reactions: u64,
    /// Each author's id, name and number of messages.
    pub authors: BTreeMap<UserId, (String, u64)>,
    /// The first and the newest message, and the newest from others.
    pub first: MessageId,
    pub newest: MessageId,
    pub newest_from_others: Option<MessageId>,
    /// In a direct-message channel, every message from others (the briefing's candidates for
    /// Needs you), read here with the rest of the window rather than read again.
    pub direct_from_others: Vec<MessageId>,
}

impl ChannelNews {
    /// A channel's news from its first message in the window, counted as the window reads it.
    fn starting_at(first: &MessageId) -> ChannelNews {
        ChannelNews {
            messages: 0,
            replies: 0,
            from_others: 0,
            reactions: 0,
            authors: BTreeMap::new(),
            first: *first,
            newest: *first,
            newest_from_others: None,
            direct_from_others: Vec::new(),
        }
    }
}

/// The window of one briefing.
pub(super) struct Window {
    /// The `since` asked for; None: the read markers.
    pub since: Option<Instant>,
    pub through: Instant,
    pub lookback_days: u32,
    pub now: Instant,
    /// Where a channel without a read marker starts (or every channel, with `since`).
    pub default_start: Instant,
    /// The readable channels in scope, by id.
    pub channels: HashMap<ChannelId, ChannelRecord>,
    /// Each readable channel's start, inclusive.
    pub starts: HashMap<ChannelId, Instant>,
    /// Channels with news, by id.
    pub news: HashMap<ChannelId, ChannelNews>,
    pub owner_id: UserId,
    pub owner: OwnerView,
    /// The owner and the bot: who answers for the owner.
    answerers: Vec<UserId>,
}

impl Window {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read(
        reader: &Reader<'_>,
        context: &OwnerContext,
        owner_id: &UserId,
        since: Option<Instant>,
        through: Option<Instant>,
        lookback_days: u32,
        now: Instant,
    ) -> Result<Window> {
        let through = match through {
            Some(through) => through,
            None => reader.clock_now()?,
        };
        let default_start =
            since.unwrap_or_else(|| through.minus_seconds(DEFAULT_LOOKBACK_SECONDS));
        let channels: HashMap<ChannelId, ChannelRecord> =
            chosen_readable_channels(reader, context, None)?
                .into_iter()
                .map(|channel| (channel.channel_id, channel))
                .collect();
        let markers = match since {
            Some(_) => HashMap::new(),
            None => reader.read_markers()?,
        };
        let starts: HashMap<ChannelId, Instant> = channels
            .keys()
            .map(|id| {
                let start = markers
                    .get(id)
                    .map_or(default_start, |marked| marked.plus_micros(1));
                (*id, start)
            })
            .collect();
        let owner = context.owner_view(reader)?;
        let answerers = std::iter::once(*owner_id)
            .chain(owner.bot_user_id)
            .collect();
        let mut window = Window {
            since,
            through,
            lookback_days,
            now,
            default_start,
            channels,
            starts,
            news: HashMap::new(),
            owner_id: *owner_id,
            owner,
            answerers,
        };
        window.read_news(reader)?;
        Ok(window)
    }

    /// The earliest start of any channel (the default start when there is none).
    pub(super) fn earliest_start(&self) -> Instant {
        self.starts
            .values()
            .copied()
            .min()
            .unwrap_or(self.default_start)
    }

    /// Whether a message that arrived at `at` in `channel_id` is in the window.
    pub(super) fn holds(&self, channel_id: &ChannelId, at: Instant) -> bool {
        at <= self.through
            && self
                .starts
                .get(channel_id)
                .is_some_and(|start| at >= *start)
    }

    /// The owner and the bot: who answers for the owner.
    pub(super) fn answerers(&self) -> Vec<&UserId> {
        self.answerers.iter().collect()
    }

    pub(super) fn is_answerer(&self, author_id: &UserId) -> bool {
        self.answerers.iter().any(|id| id == author_id)
    }

    /// The window's messages of readable channels, each held to its channel's start, counted
    /// per channel: one read of the window for every section.
    fn read_news(&mut self, reader: &Reader<'_>) -> Result<()> {
        let mut messages: Vec<WindowMessage> =
            reader.window_messages(self.earliest_start(), self.through)?;
        // A notice Discord wrote (a join, a pin, a boost) is noise: it makes no channel busy.
        messages.retain(|message| {
            !message.notice && self.holds(&message.channel_id, message.created_at)
        });
        for message in messages {
            let direct = self
                .channels
                .get(&message.channel_id)
                .is_some_and(|channel| channel.guild_id.is_none());
            let from_others = !self.is_answerer(&message.author_id);
            let news = self
                .news
                .entry(message.channel_id)
                .or_insert_with(|| ChannelNews::starting_at(&message.message_id));
            news.messages += 1;
            news.replies += u64::from(message.replies);
            news.newest = message.message_id;
            if from_others {
                news.from_others += 1;
                news.newest_from_others = Some(message.message_id);
                if direct {
                    news.direct_from_others.push(message.message_id);
                }
            }
            let author = news
                .authors
                .entry(message.author_id)
                .or_insert_with(|| (String::new(), 0));
            author.0 = message.author_name;
            author.1 += 1;
        }
        for (channel_id, added) in reader.reactions_added(self.earliest_start(), self.through)? {
            let Some(start) = self.starts.get(&channel_id) else {
                continue;
            };
            let count = added.iter().filter(|at| *at >= start).count() as u64;
            if let Some(news) = self.news.get_mut(&channel_id) {
                news.reactions += count;
            }
        }
        Ok(())
    }
}
