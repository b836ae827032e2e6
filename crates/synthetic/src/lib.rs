//! The synthetic store generator: realistic Discord history of any size, deterministic from a
//! seed number, recorded through the real recorders.
//!
//! This module owns the shape of that history (guilds, ~500 channels and threads, ~2,000
//! authors, who writes where and when, which messages mention the owner, get edited, deleted,
//! reacted to, replied to or bookmarked) and the tally of what it produced, so the benchmark
//! (`benches/store.rs`) and the test suite (`tests/benchmark_smoke.rs`) can build stores of
//! 10k to 1M messages and check the store holds exactly that.
//!
//! Nothing here writes SQL. Every Discord event is a gateway dispatch written as Discord's own
//! JSON, turned into serenity's event by [`decode_dispatch`] (exactly like a line of the
//! scripted feed in `seed/`) and recorded by [`record_dispatch_in`] with its JSON, several events per
//! transaction as the daemon batches them. The owner's bookmarks go through the bookmark
//! capabilities. The one thing the generator does that live ingestion does not is choose when
//! each event arrives: history spans months at a steady rate in the past of the wall clock, so
//! each transaction starts the arrival clock at its first event's instant
//! ([`Store::write_at`]) and moves it forward to each next event's instant
//! ([`Writer::advance_clock_to`]); neither ever moves it backward. Which events happen
//! depends only on the plan's message count and seed; when they arrive depends on its rate
//! and end instant too.

pub mod attachment_mix;
pub mod stand_in_meanings;

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::time::{Duration, Instant as Stopwatch};

use discord_manager_core::business::bookmarks::add::{AddBookmark, add_bookmark};
use discord_manager_core::business::bookmarks::resolve::{ResolveBookmark, resolve_bookmark};
use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_ingest::feed::decode_dispatch;
use discord_manager_ingest::guilds::record_application_owner_in;
use discord_manager_ingest::{Origin, Recorded, record_dispatch_in};
use discord_manager_playback::payload::{Message, User};
use discord_manager_store::{IdentitySource, Store, Writer};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId, snowflake_at};
use serde::Serialize;
use serde_json::{Value, json};

/// Guilds the history spans.
pub const GUILDS: u64 = 5;
/// Text and news channels per guild, of which [`NO_VIEW_PER_GUILD`] the bot cannot see and
/// [`NO_HISTORY_PER_GUILD`] it can see but not read.
pub const CHANNELS_PER_GUILD: u64 = 90;
pub const NO_VIEW_PER_GUILD: u64 = 6;
pub const NO_HISTORY_PER_GUILD: u64 = 4;
/// Threads per guild, created as history goes on; one per guild under a channel without
/// history access, so it is unreadable too.
pub const THREADS_PER_GUILD: u64 = 10;
/// People who write messages; the owner is one of them.
pub const AUTHORS: u64 = 2_000;
/// Bookmarks the owner adds at most (fewer for small stores), and every third is resolved.
pub const MAX_BOOKMARKS: u64 = 120;

/// The owner's Discord user id in every synthetic store.
pub const OWNER_ID: &str = "1000000000000000000";
/// The bot's user id.
pub const BOT_ID: &str = "1100000000000000001";

const MICROS_PER_DAY: i64 = 86_400_000_000;
/// Permission bits: VIEW_CHANNEL, SEND_MESSAGES, READ_MESSAGE_HISTORY, ADD_REACTIONS.
const VIEW: u64 = 1 << 10;
const HISTORY: u64 = 1 << 16;
const MEMBER_PERMISSIONS: u64 = VIEW | (1 << 11) | HISTORY | (1 << 6);

// Per-million chances of what happens to a message.
const MENTION_OWNER_PPM: u64 = 20_000;
const REPLY_PPM: u64 = 120_000;
const EDIT_PPM: u64 = 50_000;
const EDIT_TWICE_PPM: u64 = 100_000;
const DELETE_PPM: u64 = 10_000;
const REACTED_PPM: u64 = 100_000;
const REACTION_REMOVED_PPM: u64 = 150_000;
const OWNER_WRITES_PPM: u64 = 10_000;
const RARE_WORD_PPM: u64 = 300_000;
/// Words in the long tail, and the rank of the one searched for.
const VOCABULARY: u64 = 20_000;
const SEARCH_WORD_RANK: u64 = 100;

/// What to generate.
#[derive(Debug, Clone)]
pub struct Plan {
    /// How many messages.
    pub messages: u64,
    /// The seed number: the same seed and count give the same history, event for event.
    pub seed: u64,
    /// The steady rate of history: the store covers `messages / messages_per_day` days.
    pub messages_per_day: u64,
    /// Events per write transaction, as the daemon batches them.
    pub batch: usize,
    /// When the newest event of history arrives (later events — edits, deletions and
    /// reactions of the last messages, then the bookmarks — arrive just after).
    pub end: Instant,
}

impl Plan {
    /// `messages` messages from `seed`, 2,000 a day, 64 events per transaction, ending now.
    pub fn new(messages: u64, seed: u64) -> Plan {
        Plan {
            messages,
            seed,
            messages_per_day: 2_000,
            batch: 64,
            end: Instant::now(),
        }
    }
}

/// What the generator produced, tallied as it went: the store must hold exactly this.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Produced {
    /// The readable channel with the most traffic (none only for a store without one).
    pub busiest_readable_channel: Option<ChannelId>,
    pub guilds: u64,
    /// Channels and threads, readable or not.
    pub channels: u64,
    pub threads: u64,
    /// Channels and threads the bot cannot see (View Channel denied).
    pub no_view_channels: u64,
    /// Channels and threads the bot can see but not read (Read Message History denied).
    pub no_history_channels: u64,
    pub messages: u64,
    /// Bytes of the messages' payloads as Discord sent them (compact JSON): what keeping the
    /// raw payload beside the fields would add, before SQLite's own overhead.
    pub message_payload_bytes: u64,
    /// Distinct authors of at least one message.
    pub authors: u64,
    pub messages_by_owner: u64,
    pub replies: u64,
    /// Messages (not the owner's) that mention the owner in any way `mentions_list` counts:
    /// directly, through a role the owner holds, with @here, or by replying to the owner.
    pub owner_mentions: u64,
    /// Of those, the ones in channels the bot can read: what `mentions_list` lists.
    pub owner_mentions_readable: u64,
    /// User mentions of the owner (rows of the mention side table), including in edits.
    pub owner_user_mentions: u64,
    pub messages_edited: u64,
    pub edits: u64,
    pub deletions: u64,
    pub messages_with_reactions: u64,
    /// Reaction events that changed a message's reactions (adds and removes).
    pub reaction_events: u64,
    pub bookmarks_added: u64,
    pub bookmarks_resolved: u64,
    /// Gateway dispatches recorded (every one changes the store).
    pub events: u64,
    /// Write transactions they took.
    pub transactions: u64,
    /// Arrival instants of the first and last history event (bookmarks come after).
    pub first_arrival: Option<Instant>,
    pub last_arrival: Option<Instant>,
}

/// Where the generator's time went. Only `recording` is the recorders' (write transactions,
/// commit included); generating and decoding the payloads is the gateway's share of the work.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timing {
    pub recording: Duration,
    pub decoding: Duration,
    pub total: Duration,
}

/// Builds a synthetic history into an empty store.
pub fn build(store: &Store, plan: &Plan) -> Result<(Produced, Timing)> {
    let started = Stopwatch::now();
    if !store.read(|reader| reader.is_empty())? {
        return Err(Error::conflict(format!(
            "The store at {} is not empty: the generator writes only into an empty store",
            store.path().display()
        )));
    }
    if plan.batch == 0 || plan.messages_per_day == 0 {
        return Err(Error::input(
            "The plan needs at least one event per transaction and one message a day",
        ));
    }
    let mut generator = Generator::new(plan);
    let mut timing = Timing::default();
    // The owner, as the daemon learns it from the application, when history begins.
    store.write_at(generator.start.minus_seconds(3 * 3_600), |writer| {
        record_application_owner_in(writer, &owner_id(), IdentitySource::Synthetic)
    })?;
    let mut pending: Vec<(Instant, Value)> = Vec::with_capacity(plan.batch);
    generator.opening(&mut pending);
    flush(store, &mut pending, &mut generator.produced, &mut timing)?;
    for index in 0..plan.messages {
        generator.message(index, &mut pending);
        if pending.len() >= plan.batch {
            flush(store, &mut pending, &mut generator.produced, &mut timing)?;
        }
    }
    generator.drain(&mut pending);
    for chunk in pending.split_off(0).chunks(plan.batch) {
        let mut chunk = chunk.to_vec();
        flush(store, &mut chunk, &mut generator.produced, &mut timing)?;
    }
    generator.bookmarks(store)?;
    generator.produced.authors = generator.authors_seen.len() as u64;
    timing.total = started.elapsed();
    Ok((generator.produced, timing))
}

/// Decodes a batch of dispatches and records them in one transaction, each at its instant.
fn flush(
    store: &Store,
    pending: &mut Vec<(Instant, Value)>,
    produced: &mut Produced,
    timing: &mut Timing,
) -> Result<()> {
    if pending.is_empty() {
        return Ok(());
    }
    let decoding = Stopwatch::now();
    // The decoded events stay opaque here: what the feed decodes, the recorders take.
    let events: Vec<(Instant, _, Option<Value>)> = pending
        .drain(..)
        .map(|(at, mut payload)| {
            let event = decode_dispatch(0, &payload)?;
            // A message's JSON goes to the recorders beside it, as the gateway tap hands it.
            let data = match payload.get("t").and_then(Value::as_str) {
                Some("MESSAGE_CREATE" | "MESSAGE_UPDATE") => payload.get_mut("d").map(Value::take),
                _ => None,
            };
            Ok((at, event, data))
        })
        .collect::<Result<_>>()?;
    timing.decoding += decoding.elapsed();
    let recording = Stopwatch::now();
    let outcomes = store.write_at(events[0].0, |writer: &mut Writer<'_>| {
        events
            .iter()
            .map(|(at, event, data)| {
                writer.advance_clock_to(*at);
                record_dispatch_in(writer, event, data.as_ref(), Origin::Gateway)
            })
            .collect::<Result<Vec<Recorded>>>()
    })?;
    timing.recording += recording.elapsed();
    if let Some(position) = outcomes.iter().position(|o| *o != Recorded::Stored) {
        return Err(Error::internal(format!(
            "The generator's event at {} was {:?}, not stored: the generator and the recorders disagree",
            events[position].0, outcomes[position]
        )));
    }
    produced.events += events.len() as u64;
    produced.transactions += 1;
    if produced.first_arrival.is_none() {
        produced.first_arrival = events.first().map(|(at, _, _)| *at);
    }
    produced.last_arrival = events.last().map(|(at, _, _)| *at);
    Ok(())
}

/// splitmix64: tiny, fast and fully deterministic, for everything the generator and the
/// benchmark draw (histories, files, stand-in vectors, the kept screenshot).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A whole number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    fn between(&mut self, low: i64, high: i64) -> i64 {
        low + self.below((high - low) as u64 + 1) as i64
    }

    fn chance(&mut self, per_million: u64) -> bool {
        self.below(1_000_000) < per_million
    }

    /// A value evenly in [-1, 1).
    pub fn signed_unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// Zipf-like weights (1/(k+1)): a few busy channels and prolific authors, a long quiet tail.
struct Skewed {
    cumulative: Vec<u64>,
}

impl Skewed {
    fn new(count: u64) -> Skewed {
        let mut total = 0;
        let cumulative = (0..count)
            .map(|k| {
                total += 1_000_000_000 / (k + 1);
                total
            })
            .collect();
        Skewed { cumulative }
    }

    fn pick(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1);
        let target = rng.below(total);
        self.cumulative.partition_point(|&sum| sum <= target)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Readable,
    NoView,
    NoHistory,
}

struct Channel {
    id: ChannelId,
    guild: u64,
    access: Access,
    /// For a thread: its parent's position in the channel list, and when it is created.
    thread_of: Option<usize>,
    created_at_message: u64,
    /// The last few messages, for replies: id, author, content.
    recent: Vec<(String, u64, String)>,
}

/// A message's words and whom they address.
struct Words {
    content: String,
    mentions: Vec<Value>,
    mention_roles: Vec<String>,
    mention_everyone: bool,
    /// The message it replies to: id, author, and the start of its content.
    reply_to: Option<(String, u64, String)>,
}

/// Something that happens to a message after it arrived.
enum FollowUp {
    Edit {
        message_id: MessageId,
        channel: usize,
        content: String,
        edited_at: Instant,
        mentions_owner: bool,
    },
    Delete {
        message_id: MessageId,
        channel: usize,
    },
    React {
        message_id: MessageId,
        channel: usize,
        user: u64,
        emoji: &'static str,
        add: bool,
    },
}

struct Generator {
    rng: Rng,
    plan: Plan,
    start: Instant,
    gap: i64,
    channels: Vec<Channel>,
    /// Channels messages go to (the bot sees no message of a channel it cannot view).
    message_channels: Vec<usize>,
    channel_weights: Skewed,
    author_weights: Skewed,
    vocabulary: Skewed,
    follow_ups: BinaryHeap<Reverse<(i64, u64, usize)>>,
    follow_up_bodies: HashMap<usize, FollowUp>,
    next_follow_up: usize,
    /// Threads not created yet, the next one last.
    threads_to_open: Vec<usize>,
    bookmark_at: BTreeSet<u64>,
    bookmarked: Vec<MessageId>,
    authors_seen: BTreeSet<u64>,
    produced: Produced,
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "build", "is", "green", "again", "after", "the", "cache", "fix", "can", "someone",
    "review", "my", "pull", "request", "today", "release", "notes", "are", "up", "deploy",
    "rolled", "back", "because", "latency", "spiked", "on", "eu-west", "thanks", "for", "the",
    "quick", "turnaround", "meeting", "moved", "to", "thursday", "who", "owns", "the", "storage",
    "layer", "now", "benchmarks", "look", "good", "flaky", "test", "in", "ci", "again", "lunch",
    "anyone", "docs", "updated", "with", "examples", "migration", "ran", "fine", "on", "staging",
    "please", "sign", "off", "before", "we", "ship", "it", "looks", "like", "a", "race", "in",
    "the", "scheduler", "i", "will", "take", "a", "look", "tomorrow", "morning", "postmortem",
    "draft", "is", "ready", "for", "comments", "nice", "work", "everyone", "incident", "closed",
];
const EMOJI: &[&str] = &["👍", "🎉", "👀", "🚀", "❤️", "😂", "🙏", "✅"];

/// The `rank`-th word of the long tail: pronounceable, unique per rank, never one of [`WORDS`].
pub fn rare_word(rank: u64) -> String {
    const SYLLABLES: &[&str] = &[
        "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "bra", "dre", "fli", "gro",
        "ple", "qua", "shi", "tro", "wen", "yul",
    ];
    let mut word = String::from("z");
    let mut rest = rank;
    loop {
        word.push_str(SYLLABLES[(rest % SYLLABLES.len() as u64) as usize]);
        rest /= SYLLABLES.len() as u64;
        if rest == 0 {
            break;
        }
    }
    word
}

/// A word of the long tail that about one message in 3,000 contains: what the benchmark's
/// one-word search looks for.
pub fn search_word() -> String {
    rare_word(SEARCH_WORD_RANK)
}

/// The id of a message sent at `at` (history starts long after Discord's epoch, so it is
/// never zero).
fn message_snowflake(at: Instant, sequence: u64) -> MessageId {
    MessageId::from_u64(snowflake_at(at, sequence)).expect("a message is minted after 2015")
}

/// The id of the channel numbered `number` (the generator's numbers are never zero).
fn channel_id(number: u64) -> ChannelId {
    ChannelId::from_u64(number).expect("a channel's number is not zero")
}

/// The owner's id, [`OWNER_ID`].
fn owner_id() -> UserId {
    UserId::parse(OWNER_ID).expect("OWNER_ID is an id")
}

fn user_id(author: u64) -> String {
    (1_000_000_000_000_000_000u64 + author).to_string()
}

fn guild_id(guild: u64) -> String {
    (1_200_000_000_000_000_001u64 + guild).to_string()
}

/// Each guild has @everyone (the guild's id), a team role the owner holds, and a bots role.
fn team_role_id(guild: u64) -> String {
    (1_300_000_000_000_000_000u64 + guild * 10).to_string()
}

fn bots_role_id(guild: u64) -> String {
    (1_300_000_000_000_000_001u64 + guild * 10).to_string()
}

fn user(author: u64) -> User {
    User {
        id: user_id(author),
        username: format!("user{author:04}"),
        global_name: Some(if author == 0 {
            "Owner".to_string()
        } else {
            format!("User {author:04}")
        }),
        bot: false,
    }
}

fn user_json(author: u64) -> Value {
    user(author).to_json()
}

/// The roles an author holds in a guild: the owner and every tenth author are on the team.
fn member_roles(author: u64, guild: u64) -> Vec<String> {
    if author.is_multiple_of(10) {
        vec![team_role_id(guild)]
    } else {
        Vec::new()
    }
}

/// Who can read a guild's `position`-th channel: the first few are hidden from the bot, the
/// next few visible without history, the rest readable.
fn access_at(position: u64) -> Access {
    if position < NO_VIEW_PER_GUILD {
        Access::NoView
    } else if position < NO_VIEW_PER_GUILD + NO_HISTORY_PER_GUILD {
        Access::NoHistory
    } else {
        Access::Readable
    }
}

/// Every guild's text and news channels, guild by guild, in position order.
fn top_level_channels() -> Vec<Channel> {
    let mut channels = Vec::new();
    for guild in 0..GUILDS {
        for position in 0..CHANNELS_PER_GUILD {
            channels.push(Channel {
                id: channel_id(1_400_000_000_000_000_000u64 + guild * 1_000 + position),
                guild,
                access: access_at(position),
                thread_of: None,
                created_at_message: 0,
                recent: Vec::new(),
            });
        }
    }
    channels
}

/// Appends every guild's threads after the channels. A guild's first thread is under its
/// first channel without history (so it is unreadable too); each other one under one of the
/// guild's first 20 readable channels, drawn from `rng`. Threads are created evenly over the
/// `messages` of history, and take their parent's access.
fn add_threads(channels: &mut Vec<Channel>, rng: &mut Rng, messages: u64) {
    for guild in 0..GUILDS {
        for thread in 0..THREADS_PER_GUILD {
            let first = (guild * CHANNELS_PER_GUILD) as usize;
            let parent = if thread == 0 {
                first + NO_VIEW_PER_GUILD as usize
            } else {
                first + (NO_VIEW_PER_GUILD + NO_HISTORY_PER_GUILD) as usize + rng.below(20) as usize
            };
            let index = guild * THREADS_PER_GUILD + thread;
            channels.push(Channel {
                id: channel_id(1_400_000_000_000_000_000u64 + guild * 1_000 + 500 + thread),
                guild,
                access: channels[parent].access,
                thread_of: Some(parent),
                created_at_message: messages * index / (GUILDS * THREADS_PER_GUILD),
                recent: Vec::new(),
            });
        }
    }
}

/// The channels messages can go to (every one the bot can view), shuffled with `rng` so the
/// busy ones, which the skewed weights pick by position, are scattered over the guilds rather
/// than all in the first.
fn shuffled_message_channels(channels: &[Channel], rng: &mut Rng) -> Vec<usize> {
    let mut message_channels: Vec<usize> = (0..channels.len())
        .filter(|&index| channels[index].access != Access::NoView)
        .collect();
    for index in (1..message_channels.len()).rev() {
        let other = rng.below(index as u64 + 1) as usize;
        message_channels.swap(index, other);
    }
    message_channels
}

/// Which of the `messages` the owner bookmarks: one in 50, at most [`MAX_BOOKMARKS`].
fn bookmark_positions(rng: &mut Rng, messages: u64) -> BTreeSet<u64> {
    let mut bookmark_at = BTreeSet::new();
    let wanted = MAX_BOOKMARKS.min(messages / 50);
    while (bookmark_at.len() as u64) < wanted {
        bookmark_at.insert(rng.below(messages));
    }
    bookmark_at
}

/// The threads as a stack in the order history creates them: the next to open on top (last).
fn thread_opening_stack(channels: &[Channel]) -> Vec<usize> {
    let mut threads: Vec<usize> = (0..channels.len())
        .filter(|&index| channels[index].thread_of.is_some())
        .collect();
    threads.sort_by_key(|&index| Reverse(channels[index].created_at_message));
    threads
}

/// The tally of what the channel layout alone fixes; the rest is counted as history goes on.
fn layout_tally(channels: &[Channel], message_channels: &[usize]) -> Produced {
    let with_access = |access| channels.iter().filter(|c| c.access == access).count() as u64;
    let busiest_readable_channel = message_channels
        .iter()
        .find(|&&index| channels[index].access == Access::Readable)
        .map(|&index| channels[index].id);
    Produced {
        busiest_readable_channel,
        guilds: GUILDS,
        channels: channels.len() as u64,
        threads: GUILDS * THREADS_PER_GUILD,
        no_view_channels: with_access(Access::NoView),
        no_history_channels: with_access(Access::NoHistory),
        ..Produced::default()
    }
}

impl Generator {
    fn new(plan: &Plan) -> Generator {
        let mut rng = Rng(plan.seed);
        let gap = (MICROS_PER_DAY / plan.messages_per_day as i64).max(2);
        let start = plan.end.plus_micros(-gap * plan.messages as i64);
        // The seed's history depends on the order of these draws from `rng`: threads' parents,
        // then the shuffle, then the bookmarks.
        let mut channels = top_level_channels();
        add_threads(&mut channels, &mut rng, plan.messages);
        let message_channels = shuffled_message_channels(&channels, &mut rng);
        let bookmark_at = bookmark_positions(&mut rng, plan.messages);
        let threads_to_open = thread_opening_stack(&channels);
        let produced = layout_tally(&channels, &message_channels);
        Generator {
            rng,
            plan: plan.clone(),
            start,
            gap,
            channel_weights: Skewed::new(message_channels.len() as u64),
            author_weights: Skewed::new(AUTHORS - 1),
            vocabulary: Skewed::new(VOCABULARY),
            channels,
            message_channels,
            follow_ups: BinaryHeap::new(),
            follow_up_bodies: HashMap::new(),
            next_follow_up: 0,
            threads_to_open,
            bookmark_at,
            bookmarked: Vec::new(),
            authors_seen: BTreeSet::new(),
            produced,
        }
    }

    fn channel_json(&self, index: usize) -> Value {
        let channel = &self.channels[index];
        let guild = guild_id(channel.guild);
        let overwrites = match (channel.thread_of, channel.access) {
            (Some(_), _) | (None, Access::Readable) => json!([]),
            (None, Access::NoView) => {
                json!([{"id": guild, "type": 0, "allow": "0", "deny": VIEW.to_string()}])
            }
            (None, Access::NoHistory) => {
                json!([{"id": guild, "type": 0, "allow": "0", "deny": HISTORY.to_string()}])
            }
        };
        let position = index % CHANNELS_PER_GUILD as usize;
        let name = format!(
            "{}-{}",
            WORDS[position % WORDS.len()],
            WORDS[(position * 7 + 3) % WORDS.len()]
        );
        match channel.thread_of {
            None => json!({
                "id": channel.id, "guild_id": guild, "name": name,
                "type": if position % 10 == 9 { 5 } else { 0 },
                "position": position, "permission_overwrites": overwrites, "nsfw": false
            }),
            Some(parent) => json!({
                "id": channel.id, "guild_id": guild, "name": format!("thread {name}"),
                "type": 11, "position": 0, "permission_overwrites": overwrites, "nsfw": false,
                "parent_id": self.channels[parent].id,
                "thread_metadata": {"archived": false, "auto_archive_duration": 1440,
                                    "archive_timestamp": self.start.to_iso(), "locked": false},
                "owner_id": user_id(1), "member_count": 3, "message_count": 0,
                "newly_created": true
            }),
        }
    }

    /// READY, then each guild with its roles, the owner and the bot, and its channels.
    fn opening(&mut self, pending: &mut Vec<(Instant, Value)>) {
        let ready_at = self.start.minus_seconds(7_200);
        pending.push((
            ready_at,
            json!({"t": "READY", "d": {
                "v": 10,
                "user": {"id": BOT_ID, "username": "keeper", "discriminator": "0",
                         "global_name": "Keeper", "avatar": null, "bot": true,
                         "verified": true, "mfa_enabled": false},
                "guilds": (0..GUILDS).map(|g| json!({"id": guild_id(g), "unavailable": true})).collect::<Vec<_>>(),
                "session_id": "synthetic", "resume_gateway_url": "wss://gateway.discord.invalid",
                "application": {"id": BOT_ID, "flags": 0}, "private_channels": []
            }}),
        ));
        for guild in 0..GUILDS {
            let id = guild_id(guild);
            let role = |id: String, name: &str, permissions: u64| {
                json!({"id": id, "name": name, "color": 0, "hoist": false, "managed": false,
                       "mentionable": true, "permissions": permissions.to_string(),
                       "position": 1, "flags": 0,
                       "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null}})
            };
            let member = |user: Value, roles: Vec<String>| {
                json!({"user": user, "roles": roles, "joined_at": self.start.minus_seconds(86_400).to_iso(),
                       "deaf": false, "mute": false, "flags": 0, "pending": false})
            };
            let bot = User {
                id: BOT_ID.into(),
                username: "keeper".into(),
                global_name: Some("Keeper".into()),
                bot: true,
            }
            .to_json();
            let channels: Vec<Value> = (0..self.channels.len())
                .filter(|&index| {
                    self.channels[index].guild == guild && self.channels[index].thread_of.is_none()
                })
                .map(|index| self.channel_json(index))
                .collect();
            pending.push((
                ready_at.plus_seconds(60 * (guild as i64 + 1)),
                json!({"t": "GUILD_CREATE", "d": {
                    "id": id, "name": format!("Synthetic guild {guild}"), "icon": null,
                    "icon_hash": null, "splash": null, "discovery_splash": null,
                    "owner_id": OWNER_ID, "afk_channel_id": null, "afk_timeout": 300,
                    "verification_level": 1, "default_message_notifications": 1,
                    "explicit_content_filter": 0,
                    "roles": [
                        role(id.clone(), "@everyone", MEMBER_PERMISSIONS),
                        role(team_role_id(guild), "team", MEMBER_PERMISSIONS),
                        role(bots_role_id(guild), "bots", MEMBER_PERMISSIONS)
                    ],
                    "emojis": [], "features": [], "mfa_level": 0, "application_id": null,
                    "system_channel_id": null, "system_channel_flags": 0,
                    "rules_channel_id": null, "vanity_url_code": null, "description": null,
                    "banner": null, "premium_tier": 0, "preferred_locale": "en-US",
                    "public_updates_channel_id": null, "nsfw_level": 0, "stickers": [],
                    "premium_progress_bar_enabled": false,
                    "joined_at": self.start.minus_seconds(86_400).to_iso(), "large": true,
                    "member_count": AUTHORS + 1, "voice_states": [],
                    "members": [member(user_json(0), member_roles(0, guild)),
                                member(bot, vec![bots_role_id(guild)])],
                    "channels": channels, "threads": [], "presences": [],
                    "stage_instances": [], "guild_scheduled_events": []
                }}),
            ));
        }
    }

    fn content(&mut self) -> String {
        // Mostly short chatter, sometimes a paragraph.
        let words = if self.rng.chance(100_000) {
            self.rng.between(25, 80)
        } else {
            self.rng.between(3, 18)
        };
        let mut text = String::new();
        for position in 0..words {
            if position > 0 {
                text.push(' ');
            }
            text.push_str(WORDS[self.rng.below(WORDS.len() as u64) as usize]);
        }
        // Real chatter also names things (projects, hosts, people): a long tail of rarer words,
        // which is what a search looks for.
        if self.rng.chance(RARE_WORD_PPM) {
            text.push(' ');
            text.push_str(&rare_word(self.vocabulary.pick(&mut self.rng) as u64));
        }
        text
    }

    fn schedule(&mut self, at: i64, follow_up: FollowUp) {
        let id = self.next_follow_up;
        self.next_follow_up += 1;
        self.follow_ups.push(Reverse((at, id as u64, id)));
        self.follow_up_bodies.insert(id, follow_up);
    }

    /// Emits every follow-up due at or before `until`.
    fn due(&mut self, until: i64, pending: &mut Vec<(Instant, Value)>) {
        while let Some(Reverse((at, _, id))) = self.follow_ups.peek().copied() {
            if at > until {
                break;
            }
            self.follow_ups.pop();
            let body = self
                .follow_up_bodies
                .remove(&id)
                .expect("every scheduled follow-up has a body");
            let payload = self.follow_up_json(body);
            pending.push((Instant::from_micros(at), payload));
        }
    }

    fn follow_up_json(&mut self, follow_up: FollowUp) -> Value {
        match follow_up {
            FollowUp::Edit {
                message_id,
                channel,
                content,
                edited_at,
                mentions_owner,
            } => {
                let channel = &self.channels[channel];
                let mentions = if mentions_owner {
                    vec![user_json(0)]
                } else {
                    Vec::new()
                };
                json!({"t": "MESSAGE_UPDATE", "d": {
                    "id": message_id, "channel_id": channel.id, "guild_id": guild_id(channel.guild),
                    "content": content, "edited_timestamp": edited_at.to_iso(),
                    "mentions": mentions, "mention_roles": []
                }})
            }
            FollowUp::Delete {
                message_id,
                channel,
            } => {
                let channel = &self.channels[channel];
                json!({"t": "MESSAGE_DELETE", "d": {
                    "id": message_id, "channel_id": channel.id, "guild_id": guild_id(channel.guild)
                }})
            }
            FollowUp::React {
                message_id,
                channel,
                user,
                emoji,
                add,
            } => {
                let channel = &self.channels[channel];
                json!({"t": if add { "MESSAGE_REACTION_ADD" } else { "MESSAGE_REACTION_REMOVE" }, "d": {
                    "user_id": user_id(user), "channel_id": channel.id, "message_id": message_id,
                    "guild_id": guild_id(channel.guild), "emoji": {"id": null, "name": emoji},
                    "burst": false, "type": 0
                }})
            }
        }
    }

    /// The `index`-th message, the thread it may open, and the follow-ups due before it.
    fn message(&mut self, index: u64, pending: &mut Vec<(Instant, Value)>) {
        let arrival = self.start.as_micros()
            + self.gap * index as i64
            + self.rng.below((self.gap / 2) as u64) as i64;
        self.due(arrival, pending);
        self.open_threads_due(index, arrival, pending);
        let channel = self.channel_for(index);
        let guild = self.channels[channel].guild;
        let author = if self.rng.chance(OWNER_WRITES_PPM) {
            0
        } else {
            1 + self.author_weights.pick(&mut self.rng) as u64
        };
        let words = self.address(channel, author);
        let sent_at = Instant::from_micros(arrival - self.rng.between(0, 1_500_000));
        let message_id = message_snowflake(sent_at, index);
        let payload = self.payload(&message_id, channel, guild, author, sent_at, &words);
        let payload_bytes = payload.to_string().len() as u64;
        pending.push((
            Instant::from_micros(arrival),
            json!({"t": "MESSAGE_CREATE", "d": payload}),
        ));
        self.tally(channel, author, &words, payload_bytes);
        self.remember(index, channel, author, &message_id, &words.content);
        // What happens to it later.
        let last_edit = self.plan_edits(&message_id, channel, arrival, sent_at, &words);
        self.plan_reactions(&message_id, channel, arrival);
        self.plan_deletion(message_id, channel, last_edit);
    }

    /// Threads open at their planned point of history, just before the `index`-th message.
    fn open_threads_due(&mut self, index: u64, arrival: i64, pending: &mut Vec<(Instant, Value)>) {
        while let Some(&thread) = self.threads_to_open.last() {
            if self.channels[thread].created_at_message > index {
                break;
            }
            self.threads_to_open.pop();
            pending.push((
                Instant::from_micros(arrival - 1),
                json!({"t": "THREAD_CREATE", "d": self.channel_json(thread)}),
            ));
        }
    }

    /// Where the `index`-th message is posted: a weighted pick, in the parent while a picked
    /// thread does not exist yet.
    fn channel_for(&mut self, index: u64) -> usize {
        let channel = self.message_channels[self.channel_weights.pick(&mut self.rng)];
        match self.channels[channel].thread_of {
            Some(parent) if self.channels[channel].created_at_message > index => parent,
            _ => channel,
        }
    }

    /// A message's words and whom it addresses: now and then the owner (by name, by role,
    /// with @here, or by replying to the owner), or a reply to a recent message.
    fn address(&mut self, channel: usize, author: u64) -> Words {
        let guild = self.channels[channel].guild;
        let mut words = Words {
            content: self.content(),
            mentions: Vec::new(),
            mention_roles: Vec::new(),
            mention_everyone: false,
            reply_to: None,
        };
        let roll = self.rng.below(1_000_000);
        if roll < MENTION_OWNER_PPM && author != 0 {
            let kind = self.rng.below(100);
            let owner_message = self.channels[channel]
                .recent
                .iter()
                .rev()
                .find(|(_, by, _)| *by == 0)
                .cloned();
            match (kind, owner_message) {
                (0..=9, _) => {
                    words.content = format!("<@&{}> {}", team_role_id(guild), words.content);
                    words.mention_roles.push(team_role_id(guild));
                }
                (10..=14, _) => {
                    words.content = format!("@here {}", words.content);
                    words.mention_everyone = true;
                }
                (15..=24, Some(target)) => words.reply_to = Some(target),
                _ => {
                    words.content = format!("<@{OWNER_ID}> {}", words.content);
                    words.mentions.push(user_json(0));
                }
            }
        } else if roll < MENTION_OWNER_PPM + REPLY_PPM && !self.channels[channel].recent.is_empty()
        {
            let recent = &self.channels[channel].recent;
            let pick = self.rng.below(recent.len() as u64) as usize;
            words.reply_to = Some(recent[pick].clone());
        }
        words
    }

    /// The MESSAGE_CREATE payload Discord would send for it.
    fn payload(
        &self,
        message_id: &MessageId,
        channel: usize,
        guild: u64,
        author: u64,
        sent_at: Instant,
        words: &Words,
    ) -> Value {
        let channel_id = &*self.channels[channel].id.to_string();
        let id = message_id.to_string();
        let guild_id = guild_id(guild);
        let timestamp = sent_at.to_iso();
        let message = Message {
            id: &id,
            channel_id,
            guild_id: Some(&guild_id),
            author: user(author),
            content: &words.content,
            timestamp: &timestamp,
            ..Message::default()
        };
        // A reply carries the message it replies to. The recorders read only its id and
        // author, so it keeps the reply's own timestamp, as the generator always has: a
        // seed's payloads stay byte for byte what they were.
        let referenced = words
            .reply_to
            .as_ref()
            .map(|(id, author, content)| Message {
                id,
                author: user(*author),
                content,
                ..message.clone()
            });
        let mut payload = Message {
            mention_everyone: words.mention_everyone,
            mentions: &words.mentions,
            mention_roles: &words.mention_roles,
            reply_to: words.reply_to.as_ref().map(|(id, _, _)| id.as_str()),
            referenced_message: referenced.map(Box::new),
            ..message
        }
        .to_json();
        payload["member"] = json!({"roles": member_roles(author, guild),
                                   "joined_at": self.start.minus_seconds(86_400).to_iso(),
                                   "deaf": false, "mute": false, "flags": 0, "pending": false,
                                   "premium_since": null, "nick": null, "avatar": null,
                                   "banner": null, "communication_disabled_until": null});
        // The rest of what Discord's gateway sends with every message today (2026): the
        // author's avatar hash and profile fields, the channel's type, the sender's nonce and
        // the components list, so a kept payload weighs what a real one does.
        let mut avatar = Rng(author.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let author_object = &mut payload["author"];
        author_object["avatar"] = json!(format!(
            "{:016x}{:016x}",
            avatar.next_u64(),
            avatar.next_u64()
        ));
        for field in [
            "primary_guild",
            "clan",
            "collectibles",
            "display_name_styles",
            "avatar_decoration_data",
        ] {
            author_object[field] = Value::Null;
        }
        author_object["public_flags"] = json!(0);
        payload["channel_type"] = json!(0);
        payload["components"] = json!([]);
        payload["nonce"] = json!(message_id.to_string());
        payload
    }

    /// The tally, as `mentions_list` and the store will see it.
    fn tally(&mut self, channel: usize, author: u64, words: &Words, payload_bytes: u64) {
        let produced = &mut self.produced;
        produced.messages += 1;
        produced.message_payload_bytes += payload_bytes;
        self.authors_seen.insert(author);
        if author == 0 {
            produced.messages_by_owner += 1;
        }
        if words.reply_to.is_some() {
            produced.replies += 1;
        }
        let user_mention = !words.mentions.is_empty();
        if user_mention {
            produced.owner_user_mentions += 1;
        }
        let mentions_owner = author != 0
            && (user_mention
                || words.mention_everyone
                || !words.mention_roles.is_empty()
                || words.reply_to.as_ref().is_some_and(|(_, by, _)| *by == 0));
        if mentions_owner {
            produced.owner_mentions += 1;
            if self.channels[channel].access == Access::Readable {
                produced.owner_mentions_readable += 1;
            }
        }
    }

    /// The message among its channel's recent ones (what later replies pick from), and among
    /// the owner's bookmarks when its index was chosen for one.
    fn remember(
        &mut self,
        index: u64,
        channel: usize,
        author: u64,
        message_id: &MessageId,
        content: &str,
    ) {
        let recent = &mut self.channels[channel].recent;
        if recent.len() == 16 {
            recent.remove(0);
        }
        let snippet: String = content.chars().take(80).collect();
        recent.push((message_id.to_string(), author, snippet));
        if self.bookmark_at.contains(&index) {
            self.bookmarked.push(*message_id);
        }
    }

    /// Now and then an edit, or two, later; returns when the last one happens (the arrival
    /// when none does).
    fn plan_edits(
        &mut self,
        message_id: &MessageId,
        channel: usize,
        arrival: i64,
        sent_at: Instant,
        words: &Words,
    ) -> i64 {
        let end = self.plan.end.as_micros();
        let mut last_edit = arrival;
        if !self.rng.chance(EDIT_PPM) {
            return last_edit;
        }
        let times = if self.rng.chance(EDIT_TWICE_PPM) {
            2
        } else {
            1
        };
        self.produced.messages_edited += 1;
        for round in 0..times {
            last_edit += self.rng.between(30_000_000, 3_600_000_000);
            // Discord's edit timestamp: distinct per edit, which is what makes it an edit.
            let edited_at = Instant::from_micros(sent_at.as_micros() + (last_edit - arrival));
            self.produced.edits += 1;
            // Discord sends the mentions again with each edit; the store keeps one row.
            self.schedule(
                last_edit.min(end),
                FollowUp::Edit {
                    message_id: *message_id,
                    channel,
                    content: format!("{} (edit {})", words.content, round + 1),
                    edited_at,
                    mentions_owner: !words.mentions.is_empty(),
                },
            );
        }
        last_edit
    }

    /// Now and then reactions from a few people over the following half hour, one of them
    /// sometimes taken back.
    fn plan_reactions(&mut self, message_id: &MessageId, channel: usize, arrival: i64) {
        if !self.rng.chance(REACTED_PPM) {
            return;
        }
        let end = self.plan.end.as_micros();
        self.produced.messages_with_reactions += 1;
        let reactions = self.rng.between(1, 6);
        let mut given: Vec<(u64, &'static str)> = Vec::new();
        let mut at = arrival;
        for _ in 0..reactions {
            let user = 1 + self.author_weights.pick(&mut self.rng) as u64;
            let emoji = EMOJI[self.rng.below(EMOJI.len() as u64) as usize];
            at = (at + self.rng.between(1_000_000, 1_800_000_000)).min(end);
            if given.contains(&(user, emoji)) {
                continue;
            }
            given.push((user, emoji));
            self.produced.reaction_events += 1;
            let message_id = *message_id;
            self.schedule(
                at,
                FollowUp::React {
                    message_id,
                    channel,
                    user,
                    emoji,
                    add: true,
                },
            );
        }
        if self.rng.chance(REACTION_REMOVED_PPM) {
            let (user, emoji) = given[self.rng.below(given.len() as u64) as usize];
            self.produced.reaction_events += 1;
            let message_id = *message_id;
            let at = (at + 60_000_000).min(end);
            self.schedule(
                at,
                FollowUp::React {
                    message_id,
                    channel,
                    user,
                    emoji,
                    add: false,
                },
            );
        }
    }

    /// Now and then a deletion, after its last edit.
    fn plan_deletion(&mut self, message_id: MessageId, channel: usize, last_edit: i64) {
        if !self.rng.chance(DELETE_PPM) {
            return;
        }
        let end = self.plan.end.as_micros();
        self.produced.deletions += 1;
        let at = (last_edit + self.rng.between(60_000_000, 86_400_000_000)).min(end);
        self.schedule(
            at,
            FollowUp::Delete {
                message_id,
                channel,
            },
        );
    }

    /// Every follow-up still waiting, at the end of history.
    fn drain(&mut self, pending: &mut Vec<(Instant, Value)>) {
        self.due(i64::MAX, pending);
    }

    /// The owner's bookmarks, through the bookmark capabilities: added from the CLI and the
    /// MCP server in turn, and every third resolved.
    fn bookmarks(&mut self, store: &Store) -> Result<()> {
        let context = |source| {
            OwnerContext::with_unset_settings(Some(owner_id()), GuildScope::every_guild(), source)
        };
        for (position, message_id) in self.bookmarked.iter().enumerate() {
            let source = if position % 2 == 0 {
                Source::Cli
            } else {
                Source::Mcp
            };
            add_bookmark(
                store,
                AddBookmark {
                    message_id: *message_id,
                    note: Some(format!("synthetic bookmark {position}")),
                    due_at: None,
                },
                &context(source),
            )?;
            self.produced.bookmarks_added += 1;
        }
        for message_id in self.bookmarked.iter().step_by(3) {
            resolve_bookmark(
                store,
                ResolveBookmark {
                    message_id: *message_id,
                },
                &context(Source::Mcp),
            )?;
            self.produced.bookmarks_resolved += 1;
        }
        Ok(())
    }
}
