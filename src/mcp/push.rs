//! What needs the owner, pushed into the assistant's session as it arrives: Claude Code's
//! channel events (`notifications/claude/channel`, declared by the experimental capability
//! `claude/channel`). A client that does not know them ignores them.
//!
//! The items are [`arrivals`]: the briefing's "Needs you" and "Your keywords", of the kinds
//! `DISCORD_MANAGER_PUSH` names. Each event is short (who, where, when, the text fenced as
//! third-party data, as in every answer), and its `meta` carries the ids the tools take next.
//!
//! - **Replayed after downtime.** As it starts, a server pushes what arrived since the newest
//!   coverage any session recorded (a day back at most, the first time) that no session was
//!   given and the owner has not handled: the newest [`REPLAYED`] one by one, then one event
//!   that counts the rest and points to `activity_briefing`.
//! - **Recorded after it is written.** Each item given is recorded (`push_deliveries`) once
//!   its notification is handed to the transport, so a `kill -9` before that leaves it for
//!   the next start, never lost; after, only the few milliseconds before the record is written
//!   could repeat it.
//! - **Not noisy.** Items of one channel that arrive together are one event naming the count;
//!   at most [`EVENTS_A_MINUTE`] live events in any minute, the rest held and coalesced into
//!   one that counts them.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use discord_manager_core::answer::text::{TextBlock, at};
use discord_manager_core::business::activity::arrivals::{Arrival, ArrivalKind, arrivals};
use discord_manager_core::config::PushKinds;
use discord_manager_core::registry::Services;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::sync::watch;
use tracing::{debug, warn};

/// The notification Claude Code shows the model as a `<channel>` event.
pub const CHANNEL_METHOD: &str = "notifications/claude/channel";
/// The experimental capability that tells Claude Code the server sends them.
pub const CHANNEL_CAPABILITY: &str = "claude/channel";

/// How often the store's clock is read for news: a read of one row, ten times a second
/// (about 0.2% of a core; half the wait of reading it five times, docs/performance.md).
const POLL: Duration = Duration::from_millis(100);
/// The most live events in any minute.
pub const EVENTS_A_MINUTE: usize = 6;
/// The most items a starting server replays one by one.
pub const REPLAYED: usize = 20;
/// How far back a first start replays, with no session's coverage to start from.
const FIRST_REPLAY_SECONDS: i64 = 24 * 60 * 60;
/// How often a running session records how far it has pushed everything.
const COVERAGE_EVERY: Duration = Duration::from_secs(600);

/// One server's pushing: its services, the kinds pushed, and its name in the record.
pub(super) struct Pusher {
    services: Arc<Services>,
    kinds: PushKinds,
    session: String,
}

/// One event, and the items it gives the owner (each with the kind recorded for it).
struct Event {
    params: Value,
    items: Vec<(Arrival, &'static str)>,
}

impl Pusher {
    pub(super) fn new(services: Arc<Services>, kinds: PushKinds) -> Pusher {
        let session = format!("{}-{}", std::process::id(), Instant::now().as_micros());
        Pusher {
            services,
            kinds,
            session,
        }
    }

    /// Replays what no session was given, then pushes what arrives until the client goes or
    /// `stop` turns true (an event being pushed is recorded first).
    pub(super) async fn run(self, peer: Peer<RoleServer>, mut stop: watch::Receiver<bool>) {
        if !self.kinds.any() || self.services.context.owner_id.is_none() {
            debug!("nothing to push: push is off or the owner is unknown");
            return;
        }
        let mut after = match self.replay(&peer).await {
            Ok(through) => through,
            Err(error) => {
                warn!("cannot replay what arrived while no session ran: {error:#}");
                match self
                    .read(|store| store.read(|reader| reader.clock_now()))
                    .await
                {
                    Ok(now) => now,
                    Err(_) => return,
                }
            }
        };
        // The replay is recorded: from here the server writes only as it pushes, and every
        // ten minutes to record how far it has pushed.
        debug!("replayed what no session was given; pushing what arrives");
        let mut sent: VecDeque<tokio::time::Instant> = VecDeque::new();
        let mut held: Vec<Arrival> = Vec::new();
        let mut covered = tokio::time::Instant::now();
        loop {
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                _ = stop.wait_for(|stopping| *stopping) => return,
            }
            if peer.is_transport_closed() || *stop.borrow() {
                return;
            }
            let now = match self
                .read(|store| store.read(|reader| reader.clock_now()))
                .await
            {
                Ok(now) => now,
                Err(error) => {
                    warn!("cannot read the store's clock for news: {error:#}");
                    continue;
                }
            };
            if now > after {
                let (services, kinds) = (Arc::clone(&self.services), self.kinds);
                match self
                    .read(move |_| {
                        arrivals(&services.store, &services.context, kinds, after, Some(now))
                    })
                    .await
                {
                    Ok(new) => {
                        held.extend(new.items);
                        after = new.through;
                    }
                    Err(error) => {
                        warn!("cannot read what arrived: {error:#}");
                        continue;
                    }
                }
            }
            let clock = tokio::time::Instant::now();
            while sent
                .front()
                .is_some_and(|first| clock.duration_since(*first) >= Duration::from_secs(60))
            {
                sent.pop_front();
            }
            let room = EVENTS_A_MINUTE - sent.len();
            if room > 0 {
                for event in live_events(std::mem::take(&mut held), room) {
                    if !self.push(&peer, event).await {
                        return;
                    }
                    sent.push_back(clock);
                }
            }
            if held.is_empty() && covered.elapsed() >= COVERAGE_EVERY {
                covered = tokio::time::Instant::now();
                self.cover(after).await;
            }
        }
    }

    /// Pushes what arrived while no session ran; answers where the live pushing starts.
    async fn replay(&self, peer: &Peer<RoleServer>) -> Result<Instant> {
        let (services, kinds) = (Arc::clone(&self.services), self.kinds);
        let (missed, through) = self
            .read(move |store| {
                let now = store.read(|reader| reader.clock_now())?;
                let first = now.minus_seconds(FIRST_REPLAY_SECONDS);
                let from = store
                    .read(|reader| reader.push_coverage())?
                    .map_or(first, |covered| covered.max(first));
                let found = arrivals(store, &services.context, kinds, from, Some(now))?;
                let ids: Vec<_> = found
                    .items
                    .iter()
                    .map(|item| &item.message.message_id)
                    .collect();
                let given = store.read(|reader| reader.pushed_among(&ids))?;
                let missed: Vec<Arrival> = found
                    .items
                    .into_iter()
                    .filter(|item| !given.contains(&item.message.message_id))
                    .collect();
                Ok((missed, found.through))
            })
            .await?;
        for event in replay_events(missed) {
            if !self.push(peer, event).await {
                return Ok(through);
            }
        }
        self.cover(through).await;
        Ok(through)
    }

    /// Writes `event` to the client, then records its items; false when the client is gone.
    ///
    /// A notification handed to a transport that was open is recorded even when the session
    /// ends before the transport confirms it: rmcp writes it, then confirms on its next turn,
    /// and a client that closes the session on reading it ends that loop first. Recording it
    /// then is what keeps the next start from pushing it again.
    async fn push(&self, peer: &Peer<RoleServer>, event: Event) -> bool {
        if peer.is_transport_closed() {
            return false;
        }
        let notification = CustomNotification::new(CHANNEL_METHOD, Some(event.params));
        let sent = peer
            .send_notification(ServerNotification::CustomNotification(notification))
            .await;
        if let Err(error) = &sent {
            debug!("the session ended as an event was pushed: {error}");
        }
        let session = self.session.clone();
        let recorded = self
            .read(move |store| {
                store.write(|writer| {
                    for (item, kind) in &event.items {
                        writer.record_push_delivery(&session, &item.message.message_id, kind)?;
                    }
                    Ok(())
                })
            })
            .await;
        if let Err(error) = recorded {
            warn!("cannot record what was pushed: {error:#}");
        }
        sent.is_ok()
    }

    /// Records that everything through `through` was pushed.
    async fn cover(&self, through: Instant) {
        let session = self.session.clone();
        let recorded = self
            .read(move |store| store.write(|writer| writer.record_push_coverage(&session, through)))
            .await;
        if let Err(error) = recorded {
            warn!("cannot record how far pushing went: {error:#}");
        }
    }

    /// One store call on the blocking pool, so the protocol's thread never waits on SQLite.
    async fn read<T: Send + 'static>(
        &self,
        call: impl FnOnce(&discord_manager_store::Store) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let store = Arc::clone(&self.services.store);
        tokio::task::spawn_blocking(move || call(&store))
            .await
            .unwrap_or_else(|_| {
                Err(discord_manager_vocabulary::error::Error::internal(
                    "a store call for pushing failed unexpectedly",
                ))
            })
    }
}

/// The live events for `items` with `room` (at least one) events left this minute: each
/// channel's items as one event; past the room, the rest in one event that counts them.
fn live_events(items: Vec<Arrival>, room: usize) -> Vec<Event> {
    let mut channels: Vec<Vec<Arrival>> = Vec::new();
    for item in items {
        match channels
            .iter_mut()
            .find(|group| group[0].message.channel_id == item.message.channel_id)
        {
            Some(group) => group.push(item),
            None => channels.push(vec![item]),
        }
    }
    if channels.is_empty() {
        return Vec::new();
    }
    let mut events = Vec::new();
    let fits = if channels.len() <= room {
        channels.len()
    } else {
        room.saturating_sub(1)
    };
    let rest: Vec<Arrival> = channels.split_off(fits).into_iter().flatten().collect();
    for group in channels {
        events.push(match group.len() {
            1 => item_event(group.into_iter().next().expect("a group has an item")),
            _ => burst_event(group),
        });
    }
    if !rest.is_empty() {
        events.push(counted_event(rest, "counted", false));
    }
    events
}

/// The replay of `missed` (oldest first): the newest [`REPLAYED`] one by one, newest first,
/// then one event counting the rest.
fn replay_events(mut missed: Vec<Arrival>) -> Vec<Event> {
    missed.reverse();
    let rest = if missed.len() > REPLAYED {
        missed.split_off(REPLAYED)
    } else {
        Vec::new()
    };
    let mut events: Vec<Event> = missed.into_iter().map(item_event).collect();
    if !rest.is_empty() {
        events.push(counted_event(rest, "counted", true));
    }
    events
}

/// How an arrival's kind reads in an event.
fn kind_words(kind: ArrivalKind) -> &'static str {
    match kind {
        ArrivalKind::Mention => "A mention of you",
        ArrivalKind::Role => "A mention of your role",
        ArrivalKind::Reply => "A reply to you",
        ArrivalKind::DirectMessage => "A direct message to the bot",
        ArrivalKind::Keyword => "Your keyword",
    }
}

/// One item's event.
fn item_event(item: Arrival) -> Event {
    let mut text = TextBlock::new();
    let (author, channel, content) = (
        text.data(&item.message.author_name),
        text.data(&item.message.channel_name),
        text.data(&item.message.text),
    );
    let matched = match item.kind {
        ArrivalKind::Keyword => format!(" ({})", item.matched.join(", ")),
        _ => String::new(),
    };
    let _ = writeln!(
        text,
        "{}{matched}: {author} in {channel} (channel {}) at {}: {content}",
        kind_words(item.kind),
        item.message.channel_id,
        at(item.message.sent_at)
    );
    let _ = write!(
        text,
        "To answer, messages_send with replyToMessageId {}; to read around it, messages_history.",
        item.message.message_id
    );
    let params = json!({
        "content": text.finish(),
        "meta": {
            "kind": item.kind.as_str(),
            "message_id": item.message.message_id.to_string(),
            "channel_id": item.message.channel_id.to_string(),
        },
    });
    let kind = item.kind.as_str();
    Event {
        params,
        items: vec![(item, kind)],
    }
}

/// Items of one channel that arrived together: one event naming the count and the newest.
fn burst_event(group: Vec<Arrival>) -> Event {
    let newest = group.last().expect("a burst has items").clone();
    let mut text = TextBlock::new();
    let (author, channel, content) = (
        text.data(&newest.message.author_name),
        text.data(&newest.message.channel_name),
        text.data(&newest.message.text),
    );
    let _ = writeln!(
        text,
        "{} messages need you in {channel} (channel {}), the newest from {author} at {}: \
         {content}",
        group.len(),
        newest.message.channel_id,
        at(newest.message.sent_at)
    );
    let _ = write!(
        text,
        "Read them with messages_history (channelId {}) or activity_briefing.",
        newest.message.channel_id
    );
    let params = json!({
        "content": text.finish(),
        "meta": {
            "kind": "burst",
            "count": group.len().to_string(),
            "message_id": newest.message.message_id.to_string(),
            "channel_id": newest.message.channel_id.to_string(),
        },
    });
    Event {
        params,
        items: group
            .into_iter()
            .map(|item| {
                let kind = item.kind.as_str();
                (item, kind)
            })
            .collect(),
    }
}

/// Items only counted: past the minute's room, or past the replay's first [`REPLAYED`].
fn counted_event(items: Vec<Arrival>, kind: &'static str, replayed: bool) -> Event {
    let channels = {
        let mut ids: Vec<_> = items.iter().map(|item| &item.message.channel_id).collect();
        ids.sort();
        ids.dedup();
        ids.len()
    };
    let when = if replayed {
        "more arrived while no session was running and need you"
    } else {
        "more need you"
    };
    let content = format!(
        "{} {when}, in {channels} {}: call activity_briefing to see them.",
        items.len(),
        if channels == 1 { "channel" } else { "channels" }
    );
    let params = json!({
        "content": content,
        "meta": {"kind": "more", "count": items.len().to_string()},
    });
    Event {
        params,
        items: items.into_iter().map(|item| (item, kind)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use discord_manager_core::business::activity::briefing::Brief;

    use super::*;

    fn arrival(id: u64, channel: u64) -> Arrival {
        let at = Instant::parse("2026-12-05T10:00:00Z")
            .unwrap()
            .plus_seconds(i64::try_from(id).unwrap());
        Arrival {
            kind: ArrivalKind::Mention,
            message: Brief {
                message_id: id.to_string().parse().unwrap(),
                link: format!("https://discord.com/channels/1/{channel}/{id}"),
                channel_id: channel.to_string().parse().unwrap(),
                channel_name: "incidents".into(),
                author_name: "grace".into(),
                text: format!("ping {id}").into(),
                sent_at: at,
                deleted: false,
            },
            matched: Vec::new(),
            arrived_at: at,
        }
    }

    /// Each event's kind, and the ids it gives.
    fn shape(events: &[Event]) -> Vec<(String, Vec<String>)> {
        events
            .iter()
            .map(|event| {
                (
                    event.params["meta"]["kind"].as_str().unwrap().to_string(),
                    event
                        .items
                        .iter()
                        .map(|(item, _)| item.message.message_id.to_string())
                        .collect(),
                )
            })
            .collect()
    }

    fn ids(ids: &[u64]) -> Vec<String> {
        ids.iter().map(u64::to_string).collect()
    }

    #[test]
    fn each_channel_is_one_event_and_past_the_room_the_rest_is_one_that_counts_them() {
        let items = || vec![arrival(1, 7), arrival(2, 8), arrival(3, 7), arrival(4, 9)];
        // Room for the three channels: a burst, then two single items.
        assert_eq!(
            shape(&live_events(items(), 3)),
            [
                ("burst".to_string(), ids(&[1, 3])),
                ("mention".to_string(), ids(&[2])),
                ("mention".to_string(), ids(&[4])),
            ]
        );
        // One short: the last room counts the two channels left.
        assert_eq!(
            shape(&live_events(items(), 2)),
            [
                ("burst".to_string(), ids(&[1, 3])),
                ("more".to_string(), ids(&[2, 4])),
            ]
        );
        assert_eq!(
            shape(&live_events(items(), 1)),
            [("more".to_string(), ids(&[1, 3, 2, 4]))]
        );
        assert!(live_events(Vec::new(), 6).is_empty());
        let counted = &live_events(items(), 1)[0].params;
        assert_eq!(counted["meta"]["count"], "4");
        assert_eq!(
            counted["content"],
            "4 more need you, in 3 channels: call activity_briefing to see them."
        );
    }

    #[test]
    fn a_replay_gives_the_newest_twenty_one_by_one_then_counts_the_rest() {
        let missed: Vec<Arrival> = (1..=25).map(|id| arrival(id, 7)).collect();
        let events = replay_events(missed);
        assert_eq!(events.len(), 21);
        let newest: Vec<String> = shape(&events[..20])
            .into_iter()
            .flat_map(|(kind, ids)| {
                assert_eq!(kind, "mention");
                ids
            })
            .collect();
        assert_eq!(newest, ids(&(6..=25).rev().collect::<Vec<_>>()));
        assert_eq!(
            shape(&events[20..]),
            [("more".to_string(), ids(&[5, 4, 3, 2, 1]))]
        );
        assert_eq!(
            events[20].params["content"],
            "5 more arrived while no session was running and need you, in 1 channel: call \
             activity_briefing to see them."
        );
        // Exactly twenty: nothing counted.
        assert_eq!(
            replay_events((1..=20).map(|id| arrival(id, 7)).collect()).len(),
            20
        );
    }
}
