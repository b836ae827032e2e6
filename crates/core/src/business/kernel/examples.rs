//! What each capability is shown and measured with, declared once beside its function.
//!
//! Every capability names an [`Examples`] function in its registry line. The gates and the
//! benchmark take their cases from it, none from a table of their own:
//! - the answer-budget gate calls [`Examples::default`] and every [`Examples::largest`] input
//!   on a generated store too large for any answer, described by a [`Sample`];
//! - the benchmark measures each reader at its default and sizes it at its largest;
//! - the human-output snapshots, the seed-coverage gate and the scrub gate call every
//!   [`Examples::demo`] input on the demo store (`seed`, `seed/demo.jsonl`), whose ids are the
//!   constants of [`demo`].
//!
//! A capability whose examples are empty fails each of those at once
//! (`registry::tests::every_capability_declares_examples_for_every_gate`).

use std::str::FromStr;

use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{AttachmentId, ChannelId, MessageId};
use serde_json::Value;

/// Where a generated store's examples point: the ids and instants the gate found in it.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The busiest channel the owner can read.
    pub channel: ChannelId,
    /// A message of that channel, someone else's.
    pub message: MessageId,
    /// One of the bot's own messages, for its edit and its deletion.
    pub bot_message: MessageId,
    /// A message that mentions the owner and is still open.
    pub mention: MessageId,
    /// A word the store's messages hold, for search.
    pub word: String,
    /// A kept text attachment longer than one answer, for `attachments_get`.
    pub attachment: AttachmentId,
    /// A scheduled message still pending.
    pub schedule_id: i64,
    /// The store's first arrival: `since` at its widest.
    pub first_arrival: Instant,
    /// The store's newest arrival: the day before it is "the last day" of a reader's default.
    pub newest: Instant,
}

impl Sample {
    /// The demo store's (`seed`): what the gates that run the demonstrations describe it with.
    pub fn of_the_demo() -> Sample {
        Sample {
            channel: demo_id(demo::GENERAL),
            message: demo_id(demo::MARGARETS_QUESTION),
            bot_message: demo_id(demo::BOTS_ANNOUNCEMENT),
            mention: demo_id(demo::OPEN_MENTION),
            word: "standup".to_string(),
            attachment: demo_id(demo::INCIDENT_LOG),
            schedule_id: demo::NEXT_SCHEDULE,
            first_arrival: Instant::parse(demo::EVER).expect("an instant"),
            newest: Instant::now(),
        }
    }

    /// `days` days before the newest arrival, as a `since` would be written.
    pub fn days_before_newest(&self, days: i64) -> String {
        self.newest.minus_seconds(days * 86_400).to_iso()
    }

    /// The whole history, as a `since` would be written.
    pub fn since_first(&self) -> String {
        self.first_arrival.to_iso()
    }
}

/// One of the demo store's ids (`demo`'s constants, each a Discord id).
fn demo_id<Id: FromStr>(digits: &str) -> Id {
    match digits.parse() {
        Ok(id) => id,
        Err(_) => panic!("the demo's {digits:?} is not a Discord id"),
    }
}

/// One capability's inputs, as an MCP client would send them (the CLI's command lines are
/// made from them).
#[derive(Debug, Clone, Default)]
pub struct Examples {
    /// The everyday call: every optional input left out, and a window (where there is one)
    /// ending at the sample's newest arrival rather than now. `None` for a capability whose
    /// call cannot be repeated on the same sample (a second dismissal of one mention is
    /// refused), so its largest call is the only one.
    pub default: Option<Value>,
    /// Each bound at the most its schema accepts: the longest text, the widest window, the
    /// highest limit. One input per bound where they compete.
    pub largest: Vec<Value>,
    /// What the demo store shows it with, in order: the human snapshot renders each, the
    /// seed-coverage gate checks their answers, the scrub gate holds each to the scrub.
    pub demo: Vec<Value>,
}

impl Examples {
    /// Every call on a generated store: the default, then each largest input.
    pub fn on_a_generated_store(&self) -> impl Iterator<Item = &Value> {
        self.default.iter().chain(&self.largest)
    }
}

/// A long text of `length` characters with the escaping JSON pays most for in ordinary
/// text: what a largest `content` or `note` is.
pub fn long_text(length: usize) -> String {
    "\"quoted\" line\n".chars().cycle().take(length).collect()
}

/// An instant `seconds` from now, as an input would be written: a schedule's `sendAt`, a
/// bookmark's `dueAt`.
pub fn from_now(seconds: i64) -> String {
    Instant::now().plus_seconds(seconds).to_iso()
}

/// The ids of the demo store, as `seed/demo.jsonl` writes them.
pub mod demo {
    /// `#general`.
    pub const GENERAL: &str = "1400000000000000001";
    /// `#releases`, an announcement channel.
    pub const RELEASES: &str = "1400000000000000002";
    /// `#incidents`, whose history has an edit and a deletion.
    pub const INCIDENTS: &str = "1400000000000000003";
    /// `#maintainers-only`.
    pub const MAINTAINERS_ONLY: &str = "1400000000000000004";
    /// The `v2.4 rollout` thread.
    pub const ROLLOUT: &str = "1400000000000000005";
    /// The latency graph attached to Margaret's message in `#incidents`, kept (an image).
    pub const INCIDENT_SCREENSHOT: &str = "1600000000000000001";
    /// The incident's timeline attached to the same message, kept (a text file).
    pub const INCIDENT_LOG: &str = "1600000000000000002";
    /// Margaret's question in `#general`, which the owner has not answered.
    pub const MARGARETS_QUESTION: &str = "1500000000000000004";
    /// The CI build's message, which the bot acknowledged with ✅.
    pub const CI_BUILD: &str = "1500000000000000011";
    /// A mention of the owner still open.
    pub const OPEN_MENTION: &str = "1500000000000000014";
    /// The bot's own announcement in `#releases`.
    pub const BOTS_ANNOUNCEMENT: &str = "1500000000000000030";
    /// The schedule the demo's first `schedules_add` creates.
    pub const NEXT_SCHEDULE: i64 = 5;
    /// Before anything in any store: `since` at its widest.
    pub const EVER: &str = "2000-01-01T00:00:00Z";
}
