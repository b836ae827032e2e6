//! The briefing's sections: what each one holds, in its documented order (each item's [`Key`]),
//! and a page of it as the budget admits it.

use std::collections::{HashMap, HashSet};

use discord_manager_store::{BookmarkEvent, MentionCandidate, MessageRecord, Reader};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::link::message_link;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId};
use serde::Serialize;

use super::rendering::needs_you_line;
use super::window::Window;
use super::{
    Brief, BriefingReport, ChannelCount, Conversation, Conversations, Discussion, Due, DueBookmark,
    DueItem, FailedSchedule, Key, KeywordHits, KeywordItem, MostActive, NeedReason, NeedsYou,
    NeedsYouItem, Quote, Rest, SectionName, cursor,
};
use crate::answer::text::TextBlock;
use crate::business::OwnerContext;
use crate::business::bookmarks::open_bookmarks_due;
use crate::business::kernel::budget::{Budget, serialized_len};
use crate::business::kernel::model::Shaper;
use crate::business::kernel::untrusted::Text;
use crate::business::mentions::{FIRST_MENTION_PAGE, closure, next_mention_page};
use crate::business::schedules::{self, ScheduleStatus};

/// A page of one section: where it starts (None: its beginning), how many items it may list,
/// and the room it may take.
pub(super) struct Page<'a> {
    pub from: Option<Key>,
    pub cap: usize,
    pub room: &'a mut Budget,
}

/// How many characters of a message's text an item shows, and of the message it replies to.
const BRIEF_CHARS: usize = 160;
const QUOTE_CHARS: usize = 80;

/// A due bookmark is listed from this long before its due time.
const DUE_SOON_SECONDS: i64 = 24 * 60 * 60;

/// A discussion is among the most active with at least this many messages from at least this
/// many people; a channel with at most `QUIET_MESSAGES` is quiet.
const ACTIVE_MESSAGES: u64 = 5;
const ACTIVE_PARTICIPANTS: usize = 2;
const QUIET_MESSAGES: u64 = 2;

/// How many of a conversation's participants are named.
const NAMED_PARTICIPANTS: usize = 5;

/// An open item addressed to the owner.
struct Need {
    reason: NeedReason,
    record: MessageRecord,
}

enum DueCandidate {
    /// `channel_id`: its message's, as the ranking read it.
    Bookmark {
        event: BookmarkEvent,
        channel_id: ChannelId,
        due: Instant,
    },
    Schedule(Box<schedules::Schedule>),
}

/// Every section's items in their order, read once per briefing: a page of one section still
/// needs the others, since an item appears in the first section that holds it.
pub(super) struct Ranked {
    needs: Vec<(Key, Need)>,
    closed: u64,
    keywords: Vec<(Key, KeywordHit)>,
    due: Vec<(Key, DueCandidate)>,
    conversations: Vec<(Key, ChannelId, Instant)>,
    most_active: Vec<(Key, ChannelId)>,
    rest: Vec<(Key, ChannelId)>,
    keyword_list: Vec<String>,
}

/// `text` on one line, cut to `count` characters, ending in `…` when cut.
fn first_chars(text: &str, count: usize) -> Text {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= count {
        return Text::new(&line);
    }
    let mut cut: String = line.chars().take(count.saturating_sub(1)).collect();
    cut.push('…');
    Text::new(&cut)
}

impl Ranked {
    pub(super) fn read(
        reader: &Reader<'_>,
        window: &Window,
        context: &OwnerContext,
    ) -> Result<Ranked> {
        let addressed = needs(reader, window)?;
        let keyword_list: Vec<String> = context.keywords.iter().map(str::to_string).collect();
        let keywords = keyword_hits(reader, window, &keyword_list, &addressed.ids)?;
        let due = due(reader, window, context)?;
        let Discussions {
            conversations,
            most_active,
            rest,
        } = discussions(reader, window)?;
        Ok(Ranked {
            needs: addressed.open,
            closed: addressed.closed,
            keywords,
            due,
            conversations,
            most_active,
            rest,
            keyword_list,
        })
    }

    /// Only what is addressed to the owner: "Needs you" and "Your keywords", every other
    /// section empty.
    pub(super) fn read_addressed(
        reader: &Reader<'_>,
        window: &Window,
        context: &OwnerContext,
    ) -> Result<Ranked> {
        let addressed = needs(reader, window)?;
        let keyword_list: Vec<String> = context.keywords.iter().map(str::to_string).collect();
        let keywords = keyword_hits(reader, window, &keyword_list, &addressed.ids)?;
        Ok(Ranked {
            needs: addressed.open,
            closed: addressed.closed,
            keywords,
            due: Vec::new(),
            conversations: Vec::new(),
            most_active: Vec::new(),
            rest: Vec::new(),
            keyword_list,
        })
    }

    /// Writes a page of `section` into `report`.
    pub(super) fn fill(
        &self,
        reader: &Reader<'_>,
        window: &Window,
        section: SectionName,
        page: Page<'_>,
        report: &mut BriefingReport,
    ) -> Result<()> {
        match section {
            SectionName::NeedsYou => report.needs_you = Some(self.needs_you(reader, window, page)?),
            SectionName::Keywords => {
                report.keywords = Some(self.keyword_page(reader, window, page)?)
            }
            SectionName::Due => report.due = Some(self.due_page(reader, window, page)?),
            SectionName::Conversations => {
                report.conversations = Some(self.conversations_page(reader, window, page)?)
            }
            SectionName::MostActive => {
                report.most_active = Some(self.most_active_page(reader, window, page)?)
            }
            SectionName::Rest => report.rest = Some(self.rest_page(window, page)),
        }
        Ok(())
    }

    fn needs_you(&self, reader: &Reader<'_>, window: &Window, page: Page<'_>) -> Result<NeedsYou> {
        let needs = from_key(&self.needs, page.from, |item| item.0);
        let shown = &needs[..needs.len().min(page.cap)];
        let quoted: Vec<&MessageId> = shown
            .iter()
            .filter_map(|(_, need)| need.record.reply_to_message_id.as_ref())
            .collect();
        let quotes: HashMap<MessageId, MessageRecord> = reader
            .messages(&quoted)?
            .into_iter()
            .flatten()
            .map(|record| (record.message_id, record))
            .collect();
        let shaper = Shaper::for_owner(
            reader,
            window.owner.clone(),
            shown
                .iter()
                .map(|(_, need)| &need.record)
                .chain(quotes.values()),
        )?;
        let keys: Vec<Key> = needs.iter().map(|(key, _)| *key).collect();
        // Priced by its own line, not the bound every other section uses: the section the
        // briefing exists for lists as many as truly fit.
        let (items, next) = list_priced(&keys, page, needs_you_cost, |index| {
            let need = &needs[index].1;
            let record = &need.record;
            let minutes = (window.now.as_micros() - record.sent_at.as_micros()).max(0) / 60_000_000;
            NeedsYouItem {
                reason: need.reason,
                message: brief(window, &shaper, record),
                waited_minutes: minutes as u64,
                replies_to: record.reply_to_message_id.as_ref().map(|id| {
                    let quoted = quotes.get(id);
                    Quote {
                        message_id: *id,
                        author_name: quoted.map(|record| Text::new(&record.author_name)),
                        text: quoted.map(|record| {
                            first_chars(&shaper.body(record).text_with_extras(), QUOTE_CHARS)
                        }),
                    }
                }),
            }
        });
        Ok(NeedsYou {
            total: self.needs.len() as u64,
            closed: self.closed,
            items,
            next_cursor: next.map(|key| cursor(window, SectionName::NeedsYou, key)),
        })
    }

    fn keyword_page(
        &self,
        reader: &Reader<'_>,
        window: &Window,
        page: Page<'_>,
    ) -> Result<KeywordHits> {
        let hits = from_key(&self.keywords, page.from, |item| item.0);
        let shown: Vec<&MessageId> = hits
            .iter()
            .take(page.cap)
            .map(|(_, hit)| &hit.message_id)
            .collect();
        let records: Vec<MessageRecord> = reader.messages(&shown)?.into_iter().flatten().collect();
        let shaper = Shaper::for_owner(reader, window.owner.clone(), &records)?;
        let keys: Vec<Key> = hits.iter().map(|(key, _)| *key).collect();
        let (items, next) = list(&keys, page, |index| {
            let hit = &hits[index].1;
            KeywordItem {
                matched: hit.matched.clone(),
                message: shown_or_missing(
                    window,
                    &shaper,
                    &records,
                    &hit.message_id,
                    &hit.channel_id,
                ),
            }
        });
        Ok(KeywordHits {
            keywords: self.keyword_list.clone(),
            total: self.keywords.len() as u64,
            items,
            next_cursor: next.map(|key| cursor(window, SectionName::Keywords, key)),
        })
    }

    fn due_page(&self, reader: &Reader<'_>, window: &Window, page: Page<'_>) -> Result<Due> {
        let due = from_key(&self.due, page.from, |item| item.0);
        let ids: Vec<&MessageId> = due
            .iter()
            .take(page.cap)
            .filter_map(|(_, candidate)| match candidate {
                DueCandidate::Bookmark { event, .. } => Some(&event.message_id),
                DueCandidate::Schedule(_) => None,
            })
            .collect();
        let records: Vec<MessageRecord> = reader.messages(&ids)?.into_iter().flatten().collect();
        let shaper = Shaper::for_owner(reader, window.owner.clone(), &records)?;
        let keys: Vec<Key> = due.iter().map(|(key, _)| *key).collect();
        let (items, next) = list(&keys, page, |index| match &due[index].1 {
            DueCandidate::Bookmark {
                event,
                channel_id,
                due,
            } => DueItem::Bookmark(DueBookmark {
                due_at: *due,
                overdue: *due < window.now,
                note: event.note.as_deref().map(Text::new),
                message: shown_or_missing(window, &shaper, &records, &event.message_id, channel_id),
            }),
            DueCandidate::Schedule(schedule) => DueItem::FailedSchedule(FailedSchedule {
                schedule_id: schedule.schedule_id,
                channel_id: schedule.channel_id,
                channel_name: schedule.channel_name.clone(),
                content: first_chars(&schedule.content, BRIEF_CHARS),
                send_at: schedule.send_at,
                failed_at: schedule.finished_at.unwrap_or(schedule.send_at),
                reason: schedule.reason.clone(),
            }),
        });
        Ok(Due {
            total: self.due.len() as u64,
            items,
            next_cursor: next.map(|key| cursor(window, SectionName::Due, key)),
        })
    }

    fn conversations_page(
        &self,
        reader: &Reader<'_>,
        window: &Window,
        page: Page<'_>,
    ) -> Result<Conversations> {
        let conversations = from_key(&self.conversations, page.from, |item| item.0);
        let newest: Vec<&MessageId> = conversations
            .iter()
            .take(page.cap)
            .filter_map(|(_, channel_id, _)| window.news[channel_id].newest_from_others.as_ref())
            .collect();
        let records: Vec<MessageRecord> = reader.messages(&newest)?.into_iter().flatten().collect();
        let shaper = Shaper::for_owner(reader, window.owner.clone(), &records)?;
        let keys: Vec<Key> = conversations.iter().map(|(key, _, _)| *key).collect();
        let (items, next) = list(&keys, page, |index| {
            let (_, channel_id, wrote_at) = &conversations[index];
            let news = &window.news[channel_id];
            let mut others: Vec<(&UserId, &(String, u64))> = news
                .authors
                .iter()
                .filter(|(author, _)| !window.is_answerer(author))
                .collect();
            others.sort_by(|a, b| b.1.1.cmp(&a.1.1).then_with(|| a.0.cmp(b.0)));
            Conversation {
                channel_id: *channel_id,
                channel_name: channel_name(window, channel_id),
                new_messages: news.from_others,
                participants: others
                    .iter()
                    .take(NAMED_PARTICIPANTS)
                    .map(|(_, (name, _))| Text::new(name))
                    .collect(),
                more_participants: others.len().saturating_sub(NAMED_PARTICIPANTS) as u64,
                you_wrote_at: *wrote_at,
                // A conversation has news from others: its newest from others is there.
                newest: shown_or_missing(
                    window,
                    &shaper,
                    &records,
                    news.newest_from_others.as_ref().unwrap_or(&news.newest),
                    channel_id,
                ),
            }
        });
        Ok(Conversations {
            total: self.conversations.len() as u64,
            items,
            next_cursor: next.map(|key| cursor(window, SectionName::Conversations, key)),
        })
    }

    fn most_active_page(
        &self,
        reader: &Reader<'_>,
        window: &Window,
        page: Page<'_>,
    ) -> Result<MostActive> {
        let active = from_key(&self.most_active, page.from, |item| item.0);
        let ids: Vec<&MessageId> = active
            .iter()
            .take(page.cap)
            .flat_map(|(_, channel_id)| {
                let news = &window.news[channel_id];
                [&news.first, &news.newest]
            })
            .collect();
        let records: Vec<MessageRecord> = reader.messages(&ids)?.into_iter().flatten().collect();
        let shaper = Shaper::for_owner(reader, window.owner.clone(), &records)?;
        let keys: Vec<Key> = active.iter().map(|(key, _)| *key).collect();
        let (items, next) = list(&keys, page, |index| {
            let channel_id = &active[index].1;
            let news = &window.news[channel_id];
            Discussion {
                channel_id: *channel_id,
                channel_name: channel_name(window, channel_id),
                messages: news.messages,
                replies: news.replies,
                participants: news.authors.len() as u64,
                reactions: news.reactions,
                opening: shown_or_missing(window, &shaper, &records, &news.first, channel_id),
                newest: (news.newest != news.first)
                    .then(|| shown_or_missing(window, &shaper, &records, &news.newest, channel_id)),
            }
        });
        Ok(MostActive {
            total: self.most_active.len() as u64,
            items,
            next_cursor: next.map(|key| cursor(window, SectionName::MostActive, key)),
        })
    }

    fn rest_page(&self, window: &Window, page: Page<'_>) -> Rest {
        let rest = from_key(&self.rest, page.from, |item| item.0);
        // A whole briefing lists the busier channels and counts the quiet ones; a page of
        // this section lists them too.
        let listable = match page.from {
            Some(_) => rest.len(),
            None => rest.iter().take_while(|(key, _)| key[0] == 0).count(),
        };
        let keys: Vec<Key> = rest.iter().map(|(key, _)| *key).collect();
        let cap = page.cap.min(listable);
        let (items, next) = list(&keys, Page { cap, ..page }, |index| {
            let channel_id = &rest[index].1;
            ChannelCount {
                channel_id: *channel_id,
                channel_name: channel_name(window, channel_id),
                messages: window.news[channel_id].messages,
            }
        });
        let quiet: Vec<u64> = rest[items.len()..]
            .iter()
            .filter(|(key, _)| key[0] == 1)
            .map(|(_, channel_id)| window.news[channel_id].messages)
            .collect();
        Rest {
            total: self.rest.len() as u64,
            messages: self
                .rest
                .iter()
                .map(|(_, channel_id)| window.news[channel_id].messages)
                .sum(),
            items,
            quiet_channels: quiet.len() as u64,
            quiet_messages: quiet.iter().sum(),
            next_cursor: next.map(|key| cursor(window, SectionName::Rest, key)),
        }
    }
}

/// The items at or after `from`, in key order (the items are sorted when ranked).
fn from_key<T>(items: &[T], from: Option<Key>, key: impl Fn(&T) -> Key) -> &[T] {
    match from {
        None => items,
        Some(from) => &items[items.partition_point(|item| key(item) < from)..],
    }
}

/// Lists items while they fit the page, and the key of the first one left out; each item
/// costs what [`Budget::cost`] bounds it to.
fn list<T: Serialize>(
    keys: &[Key],
    page: Page<'_>,
    shape: impl FnMut(usize) -> T,
) -> (Vec<T>, Option<Key>) {
    list_priced(keys, page, Budget::cost, shape)
}

/// [`list`], each item costing `price` of it.
fn list_priced<T: Serialize>(
    keys: &[Key],
    page: Page<'_>,
    price: impl Fn(&T) -> usize,
    mut shape: impl FnMut(usize) -> T,
) -> (Vec<T>, Option<Key>) {
    let mut items = Vec::new();
    for (index, key) in keys.iter().enumerate() {
        if index == page.cap {
            return (items, Some(*key));
        }
        let item = shape(index);
        if !page.room.take(price(&item)) {
            return (items, Some(*key));
        }
        items.push(item);
    }
    (items, None)
}

/// What an item of "Needs you" costs the answer exactly: its JSON and the comma after it,
/// and its line of the text block (fenced with a nonce of the length every nonce has) and
/// the line's end.
fn needs_you_cost(item: &NeedsYouItem) -> usize {
    let line = needs_you_line(&mut TextBlock::new(), item);
    serialized_len(item) + 1 + line.len() + 1
}

fn channel_name(window: &Window, channel_id: &ChannelId) -> Text {
    window.channels.get(channel_id).map_or_else(
        || Text::new(&channel_id.to_string()),
        |channel| Text::new(&channel.name),
    )
}

fn brief(window: &Window, shaper: &Shaper, record: &MessageRecord) -> Brief {
    let body = shaper.body(record);
    Brief {
        message_id: record.message_id,
        link: body.link.clone(),
        channel_id: record.channel_id,
        channel_name: channel_name(window, &record.channel_id),
        author_name: body.author_name.clone(),
        text: first_chars(&body.text_with_extras(), BRIEF_CHARS),
        sent_at: record.sent_at,
        deleted: record.deleted,
    }
}

/// Message `message_id` of channel `channel_id` as a brief, from the `records` read.
fn shown_or_missing(
    window: &Window,
    shaper: &Shaper,
    records: &[MessageRecord],
    message_id: &MessageId,
    channel_id: &ChannelId,
) -> Brief {
    records
        .iter()
        .find(|record| record.message_id == *message_id)
        .map_or_else(
            || missing(window, message_id, channel_id),
            |record| brief(window, shaper, record),
        )
}

/// A message the store no longer returns (it cannot happen to an append-only store; said
/// rather than panicked), named by its id and channel as far as they are known.
fn missing(window: &Window, message_id: &MessageId, channel_id: &ChannelId) -> Brief {
    let guild = window
        .channels
        .get(channel_id)
        .and_then(|channel| channel.guild_id.as_ref());
    Brief {
        message_id: *message_id,
        link: message_link(guild, channel_id, message_id),
        channel_id: *channel_id,
        channel_name: Text::new(""),
        author_name: Text::new(""),
        text: Text::new("(not in the store)"),
        sent_at: Instant::from_micros(0),
        deleted: false,
    }
}

/// Why a message needs the owner, or None when it does not address them.
fn need_reason(window: &Window, record: &MessageRecord) -> Option<NeedReason> {
    let owner = &window.owner_id;
    if window.is_answerer(&record.author_id) {
        return None;
    }
    if record.guild_id.is_none() {
        return Some(NeedReason::DirectMessage);
    }
    if record.mentioned_user_ids.contains(owner) {
        Some(NeedReason::Mention)
    } else if record.reply_to_author_id.as_ref() == Some(owner) {
        Some(NeedReason::Reply)
    } else if record
        .mentioned_role_ids
        .iter()
        .any(|role| window.owner.role_ids.contains(role))
    {
        Some(NeedReason::Role)
    } else if record.mention_everyone {
        Some(NeedReason::Everyone)
    } else {
        None
    }
}

fn tier(reason: NeedReason) -> i64 {
    match reason {
        NeedReason::DirectMessage => 0,
        NeedReason::Mention | NeedReason::Reply | NeedReason::Role => 1,
        NeedReason::Everyone => 2,
    }
}

/// The open items addressed to the owner in their order, how many were closed, and every
/// message addressed to the owner (open or closed), which no later section lists.
/// What the window holds addressed to the owner.
struct Addressed {
    open: Vec<(Key, Need)>,
    closed: u64,
    /// Every message addressed to the owner, open or closed.
    ids: HashSet<MessageId>,
}

fn needs(reader: &Reader<'_>, window: &Window) -> Result<Addressed> {
    let mut addressed = Addressed {
        open: Vec::new(),
        closed: 0,
        ids: HashSet::new(),
    };
    // The mentions of the window, in growing batches (each arm reads its own index range).
    // Each addresses the owner (it is why the store found it), so whether it is closed is
    // asked of its ids and time alone, and only the open ones are read whole: a busy month
    // closes tens of thousands that the briefing only counts.
    let mut batch_size = FIRST_MENTION_PAGE;
    let mut seen = HashSet::new();
    let mut open_mentions = Vec::new();
    let mut from = window.earliest_start();
    'mentions: loop {
        let batch = reader.mention_candidates_since(
            &window.owner_id,
            &window.owner.role_ids,
            from,
            batch_size,
        )?;
        let exhausted = batch.len() < batch_size;
        let Some(last) = batch.last().map(MentionCandidate::created_at) else {
            break;
        };
        for candidate in batch {
            if candidate.created_at() > window.through {
                break 'mentions;
            }
            if !window.holds(candidate.channel_id(), candidate.created_at())
                || !seen.insert(*candidate.message_id())
                || window.is_answerer(candidate.author_id())
            {
                continue;
            }
            if is_closed(
                reader,
                window,
                candidate.message_id(),
                candidate.channel_id(),
                candidate.sent_at(),
            )? {
                addressed.closed += 1;
                addressed.ids.insert(*candidate.message_id());
            } else {
                open_mentions.push(candidate);
            }
        }
        if exhausted {
            break;
        }
        from = last.plus_micros(1);
        batch_size = next_mention_page(batch_size);
    }
    for record in reader.hydrate_mentions(open_mentions)? {
        addressed.note_open(window, record);
    }
    // Direct messages in scope from others, as the window read them.
    let direct: Vec<&MessageId> = window
        .news
        .values()
        .flat_map(|news| &news.direct_from_others)
        .filter(|id| !seen.contains(*id))
        .collect();
    if !direct.is_empty() {
        for record in reader.messages(&direct)?.into_iter().flatten() {
            if need_reason(window, &record).is_none() {
                continue;
            }
            if is_closed(
                reader,
                window,
                &record.message_id,
                &record.channel_id,
                record.sent_at,
            )? {
                addressed.closed += 1;
                addressed.ids.insert(record.message_id);
            } else {
                addressed.note_open(window, record);
            }
        }
    }
    addressed.open.sort_by_key(|(key, _)| *key);
    Ok(addressed)
}

impl Addressed {
    /// An open message addressed to the owner, in its place among the others.
    fn note_open(&mut self, window: &Window, record: MessageRecord) {
        let Some(reason) = need_reason(window, &record) else {
            return;
        };
        self.ids.insert(record.message_id);
        let key = [
            tier(reason),
            record.sent_at.as_micros(),
            record.message_id.as_i64(),
        ];
        self.open.push((key, Need { reason, record }));
    }
}

/// Whether the owner answered, reacted to, wrote after or dismissed the message.
fn is_closed(
    reader: &Reader<'_>,
    window: &Window,
    message_id: &MessageId,
    channel_id: &ChannelId,
    sent_at: Instant,
) -> Result<bool> {
    Ok(closure(reader, &window.owner, message_id, channel_id, sent_at)?.is_some())
}

/// The messages of the window by others that hold one of `keywords`, oldest first, with the
/// keywords each holds; none addressed to the owner (those are in Needs you).
fn keyword_hits(
    reader: &Reader<'_>,
    window: &Window,
    keywords: &[String],
    addressed: &HashSet<MessageId>,
) -> Result<Vec<(Key, KeywordHit)>> {
    let mut hits: HashMap<MessageId, (Key, KeywordHit)> = HashMap::new();
    for keyword in keywords {
        for hit in reader.keyword_matches(keyword, window.earliest_start(), window.through)? {
            if !window.holds(&hit.channel_id, hit.created_at)
                || window.is_answerer(&hit.author_id)
                || addressed.contains(&hit.message_id)
            {
                continue;
            }
            let key = [0, hit.sent_at.as_micros(), hit.message_id.as_i64()];
            hits.entry(hit.message_id)
                .or_insert_with(|| {
                    let found = KeywordHit {
                        message_id: hit.message_id,
                        channel_id: hit.channel_id,
                        matched: Vec::new(),
                    };
                    (key, found)
                })
                .1
                .matched
                .push(keyword.clone());
        }
    }
    let mut hits: Vec<(Key, KeywordHit)> = hits.into_values().collect();
    hits.sort_by_key(|(key, _)| *key);
    Ok(hits)
}

/// Open bookmarks overdue or due within a day, and scheduled messages that failed in the
/// window, in scope.
fn due(
    reader: &Reader<'_>,
    window: &Window,
    context: &OwnerContext,
) -> Result<Vec<(Key, DueCandidate)>> {
    let mut due = Vec::new();
    let soon = window.now.plus_micros(DUE_SOON_SECONDS * 1_000_000);
    let bookmarks: Vec<(BookmarkEvent, Instant)> = open_bookmarks_due(reader)?
        .into_iter()
        .filter_map(|(event, due)| Some((event, due?)))
        .filter(|(_, due)| *due <= soon)
        .collect();
    let ids: Vec<&MessageId> = bookmarks
        .iter()
        .map(|(event, _)| &event.message_id)
        .collect();
    let messages = reader.messages(&ids)?;
    for ((event, due_at), message) in bookmarks.into_iter().zip(messages) {
        let Some(message) = message.filter(|message| context.in_scope(message.guild_id.as_ref()))
        else {
            continue;
        };
        let rank = if due_at < window.now { 0 } else { 1 };
        let key = [rank, due_at.as_micros(), event.created_at.as_micros()];
        due.push((
            key,
            DueCandidate::Bookmark {
                event,
                channel_id: message.channel_id,
                due: due_at,
            },
        ));
    }
    for record in reader.schedules()? {
        let failed_at = match record.outcome() {
            Some(outcome) if outcome.kind == discord_manager_store::ScheduleEventKind::Failed => {
                outcome.created_at
            }
            _ => continue,
        };
        let start = window
            .starts
            .get(&record.channel_id)
            .copied()
            .unwrap_or(window.default_start);
        if failed_at < start
            || failed_at > window.through
            || !schedules::in_scope(reader, &record, context)?
        {
            continue;
        }
        let schedule = schedules::view(reader, &record)?;
        debug_assert_eq!(schedule.status, ScheduleStatus::Failed);
        let key = [2, failed_at.as_micros(), record.schedule_id];
        due.push((key, DueCandidate::Schedule(Box::new(schedule))));
    }
    due.sort_by_key(|(key, _)| *key);
    Ok(due)
}

/// A message of the window that holds keywords, and which.
struct KeywordHit {
    message_id: MessageId,
    channel_id: ChannelId,
    matched: Vec<String>,
}

/// The channels with news, each in one of the last three sections.
struct Discussions {
    /// With when the owner or the bot last wrote there.
    conversations: Vec<(Key, ChannelId, Instant)>,
    most_active: Vec<(Key, ChannelId)>,
    rest: Vec<(Key, ChannelId)>,
}

/// The channels with news, each in one of the last three sections: the owner's conversations
/// (with when the owner or the bot last wrote there), the most active discussions, the rest.
fn discussions(reader: &Reader<'_>, window: &Window) -> Result<Discussions> {
    let lookback = i64::from(window.lookback_days) * 24 * 60 * 60;
    let written = reader.channels_written_by(
        &window.answerers(),
        window.through.minus_seconds(lookback),
        window.through,
    )?;
    let mut conversations = Vec::new();
    let mut most_active = Vec::new();
    let mut rest = Vec::new();
    for (channel_id, news) in &window.news {
        let id = channel_id.as_i64();
        if let Some(wrote_at) = written.get(channel_id)
            && news.from_others > 0
        {
            let key = [-(news.from_others as i64), 0, id];
            conversations.push((key, *channel_id, *wrote_at));
        } else if news.messages >= ACTIVE_MESSAGES && news.authors.len() >= ACTIVE_PARTICIPANTS {
            let score =
                news.messages + 2 * news.replies + 3 * news.authors.len() as u64 + news.reactions;
            most_active.push(([-(score as i64), 0, id], *channel_id));
        } else {
            let quiet = i64::from(news.messages <= QUIET_MESSAGES);
            rest.push(([quiet, -(news.messages as i64), id], *channel_id));
        }
    }
    conversations.sort_by_key(|(key, _, _)| *key);
    most_active.sort_by_key(|(key, _)| *key);
    rest.sort_by_key(|(key, _)| *key);
    Ok(Discussions {
        conversations,
        most_active,
        rest,
    })
}
