//! The unit-test world (feature `world`): a world of one guild per test in the shared
//! unit-test store, built through the real recorders from Discord-shaped payloads, and a
//! scripted Discord that answers the bot's requests as a test asks.
//!
//! Every test gets fresh ids, so tests share one store without seeing each other's rows, and
//! nothing is ever cleaned up. The owner context scoped to a world's guild is the core's type:
//! the core's `test_fixtures::WorldContext` gives a [`World`] its `context()`.

use std::collections::VecDeque;
use std::fmt::Display;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use discord_manager_ingest::sent::StoreRecorder;
use discord_manager_ingest::{Origin, Recorded, record_dispatch};
use discord_manager_sender::{
    BotReaction, Delivered, Delivery, DiscordSender, MessageEdit, MessageToDelete, OutgoingMessage,
    SendFailure,
};
use discord_manager_store::Store;
use discord_manager_store::testing::{fresh_id, shared_store};
use discord_manager_vocabulary::snowflake::{ChannelId, GuildId, MessageId, RoleId, UserId};
use serde_json::{Value, json};
use serenity::model::event::Event;

use crate::demo::DemoDiscord;
use crate::payload::{Message, User};

/// The bot's user id: the same in every test, because the bot's identity is store-wide.
pub const BOT_ID: &str = "1100000000000000001";
pub const VIEW: u64 = 1 << 10;
pub const HISTORY: u64 = 1 << 16;
pub const SEND: u64 = 1 << 11;
pub const SEND_IN_THREADS: u64 = 1 << 38;

pub struct World {
    pub store: Arc<Store>,
    /// The folder of a store of its own, kept as long as the world.
    _folder: Option<Arc<tempfile::TempDir>>,
    pub guild_id: GuildId,
    pub owner_id: UserId,
    /// A role the owner holds.
    pub owner_role_id: RoleId,
}

/// The user object of `id`, named `name`; the bot's is a bot's.
pub fn user(id: impl Display, name: &str) -> Value {
    user_named(&id.to_string(), name).to_json()
}

fn user_named(id: &str, name: &str) -> User {
    User {
        id: id.into(),
        username: name.into(),
        global_name: Some(name.into()),
        bot: id == BOT_ID,
    }
}

fn member(id: &str, roles: &[&str]) -> Value {
    json!({"user": user(id, "member"), "roles": roles, "joined_at": "2026-01-01T00:00:00Z", "deaf": false, "mute": false, "flags": 0, "pending": false})
}

fn role(id: &str, permissions: u64) -> Value {
    json!({"id": id, "name": "role", "color": 0, "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
           "hoist": false, "managed": false, "mentionable": true, "permissions": permissions.to_string(), "position": 1, "flags": 0})
}

/// Plays one dispatch through the real recorders; fails loudly if it does not parse.
pub fn dispatch(store: &Store, kind: &str, data: Value) -> Recorded {
    let payload = json!({"t": kind, "d": data});
    let event =
        discord_manager_ingest::feed::decode_dispatch(0, &payload).expect("a valid dispatch");
    assert!(!matches!(event, Event::Unknown(_)), "{kind} did not parse");
    record_dispatch(store, &event, payload.get("d"), Origin::Gateway)
        .expect("the recorder succeeds")
}

impl World {
    /// A new guild with @everyone allowed to read and send (not in threads), the owner holding
    /// one role, in the shared unit-test store.
    #[allow(
        clippy::new_without_default,
        reason = "each call records a new guild in the shared store: not a default value"
    )]
    pub fn new() -> World {
        World::in_store(Arc::new(shared_store()), None)
    }

    /// A world in a store of its own: for the scheduler's job, which sends whatever is due in
    /// the whole store and so must not meet other tests' schedules.
    pub fn alone() -> World {
        let folder = tempfile::tempdir().expect("a folder for a store of its own");
        let store = Store::open(&folder.path().join("alone.sqlite3")).expect("the store opens");
        World::in_store(Arc::new(store), Some(Arc::new(folder)))
    }

    fn in_store(store: Arc<Store>, folder: Option<Arc<tempfile::TempDir>>) -> World {
        let guild_id = fresh_id();
        let owner_id = fresh_id();
        let owner_role_id = fresh_id();
        dispatch(
            &store,
            "READY",
            json!({"v": 10, "user": user(BOT_ID, "keeper"), "guilds": [], "session_id": "s",
                   "resume_gateway_url": "wss://gateway.invalid", "application": {"id": BOT_ID, "flags": 0}, "private_channels": []}),
        );
        let world = World {
            store,
            _folder: folder,
            guild_id,
            owner_id,
            owner_role_id,
        };
        dispatch(&world.store, "GUILD_CREATE", world.guild_payload());
        world
    }

    /// The guild's GUILD_CREATE, as Discord sends it when the bot connects or joins.
    pub fn guild_payload(&self) -> Value {
        let (guild_id, owner_id, owner_role_id) =
            (&self.guild_id, &self.owner_id, &self.owner_role_id);
        json!({"id": guild_id, "name": "test guild", "icon": null, "icon_hash": null, "splash": null, "discovery_splash": null,
                "owner_id": owner_id, "afk_channel_id": null, "afk_timeout": 300, "verification_level": 0,
                "default_message_notifications": 0, "explicit_content_filter": 0,
                "roles": [role(&guild_id.to_string(), VIEW | HISTORY | SEND), role(&owner_role_id.to_string(), VIEW | HISTORY | SEND)],
                "emojis": [], "features": [], "mfa_level": 0, "application_id": null, "system_channel_id": null,
                "system_channel_flags": 0, "rules_channel_id": null, "vanity_url_code": null, "description": null,
                "banner": null, "premium_tier": 0, "preferred_locale": "en-US", "public_updates_channel_id": null,
                "nsfw_level": 0, "stickers": [], "premium_progress_bar_enabled": false, "joined_at": "2026-01-01T00:00:00Z",
                "large": false, "member_count": 2, "voice_states": [],
                "members": [member(BOT_ID, &[]), member(&owner_id.to_string(), &[&owner_role_id.to_string()])],
                "channels": [], "threads": [], "presences": [], "stage_instances": [], "guild_scheduled_events": []})
    }

    /// The same store opened again, as another process (a restarted daemon) would open it.
    pub fn reopened_store(&self) -> Arc<Store> {
        Arc::new(Store::open(self.store.path()).expect("the store opens again"))
    }

    /// A thread of `parent`, and its id.
    pub fn thread(&self, parent: impl Display, name: &str) -> ChannelId {
        let id: ChannelId = fresh_id();
        dispatch(
            &self.store,
            "THREAD_CREATE",
            self.channel_payload(id, name, 11, Some(&parent.to_string()), json!([])),
        );
        id
    }

    pub fn channel_payload(
        &self,
        id: impl Display,
        name: &str,
        kind: u8,
        parent: Option<&str>,
        overwrites: Value,
    ) -> Value {
        let mut channel = json!({"id": id.to_string(), "guild_id": self.guild_id, "name": name, "type": kind, "position": 0,
                                 "permission_overwrites": overwrites, "nsfw": false});
        if let Some(parent) = parent {
            channel["parent_id"] = json!(parent);
        }
        if kind == 11 {
            channel["thread_metadata"] = json!({"archived": false, "auto_archive_duration": 1440,
                "archive_timestamp": "2026-01-01T00:00:00Z", "locked": false});
        }
        channel
    }

    /// A text channel with these overwrites (`[{"id","type","allow","deny"}]`).
    pub fn channel_with(&self, name: &str, overwrites: Value) -> ChannelId {
        let id: ChannelId = fresh_id();
        dispatch(
            &self.store,
            "CHANNEL_CREATE",
            self.channel_payload(id, name, 0, None, overwrites),
        );
        id
    }

    pub fn channel(&self, name: &str) -> ChannelId {
        self.channel_with(name, json!([]))
    }

    /// A message payload; `extra` fields are merged over the defaults.
    pub fn message_payload(
        &self,
        id: impl Display,
        channel_id: impl Display,
        author_id: impl Display,
        content: &str,
        extra: Value,
    ) -> Value {
        let (id, channel_id) = (id.to_string(), channel_id.to_string());
        let guild_id = self.guild_id.to_string();
        let mut message = Message {
            id: &id,
            channel_id: &channel_id,
            guild_id: Some(&guild_id),
            author: user_named(&author_id.to_string(), "author"),
            content,
            timestamp: "2026-11-29T10:00:00Z",
            ..Message::default()
        }
        .to_json();
        if let (Value::Object(message), Value::Object(extra)) = (&mut message, extra) {
            message.extend(extra);
        }
        message
    }

    /// Posts a message through MESSAGE_CREATE and returns its id.
    pub fn post(
        &self,
        channel_id: impl Display,
        author_id: impl Display,
        content: &str,
        extra: Value,
    ) -> MessageId {
        let id: MessageId = fresh_id();
        dispatch(
            &self.store,
            "MESSAGE_CREATE",
            self.message_payload(id, channel_id, author_id, content, extra),
        );
        id
    }

    /// A direct message from `author_id` to the bot, in a direct-message channel of its own
    /// (recorded as the daemon does, from the message): answers (channel, message). Only in a
    /// [`World::alone`]: a direct message is in no guild, so other tests would see it.
    pub fn direct_message(
        &self,
        author_id: impl Display,
        content: &str,
        extra: Value,
    ) -> (ChannelId, MessageId) {
        let channel: ChannelId = fresh_id();
        discord_manager_ingest::direct::record_direct_channel(
            &self.store,
            serenity::model::id::ChannelId::new(channel.get()),
            None,
        )
        .expect("the direct-message channel is recorded");
        let id: MessageId = fresh_id();
        let mut payload = self.message_payload(id, channel, author_id, content, extra);
        payload["guild_id"] = Value::Null;
        dispatch(&self.store, "MESSAGE_CREATE", payload);
        (channel, id)
    }

    pub fn edit(
        &self,
        channel_id: impl Display,
        message_id: impl Display,
        content: &str,
        edited_at: &str,
    ) -> Recorded {
        dispatch(
            &self.store,
            "MESSAGE_UPDATE",
            json!({"id": message_id.to_string(), "channel_id": channel_id.to_string(), "guild_id": self.guild_id, "content": content,
                   "edited_timestamp": edited_at, "mentions": [], "mention_roles": []}),
        )
    }

    pub fn delete(&self, channel_id: impl Display, message_id: impl Display) -> Recorded {
        dispatch(
            &self.store,
            "MESSAGE_DELETE",
            json!({"id": message_id.to_string(), "channel_id": channel_id.to_string(), "guild_id": self.guild_id}),
        )
    }

    pub fn react(
        &self,
        kind: &str,
        channel_id: impl Display,
        message_id: impl Display,
        user_id: impl Display,
        emoji: &str,
    ) -> Recorded {
        dispatch(
            &self.store,
            kind,
            json!({"user_id": user_id.to_string(), "channel_id": channel_id.to_string(), "message_id": message_id.to_string(), "guild_id": self.guild_id,
                   "emoji": {"id": null, "name": emoji}, "burst": false, "type": 0}),
        )
    }
}

/// A fresh id's digits, for a test that names a thing the store has not seen (or builds it
/// itself): see [`fresh_id`].
pub fn new_id() -> String {
    fresh_id()
}

/// `text` as an id of the kind the caller wants, if it is one: tests name ids however reads
/// best (a literal, a `String`, another kind's digits).
pub fn id_as<Id: FromStr>(text: impl Display) -> Option<Id> {
    text.to_string().parse().ok()
}

/// `text` as an id of the kind the caller wants; panics if it is not one (a test's own id).
pub fn id<Id: FromStr>(text: impl Display) -> Id {
    let text = text.to_string();
    id_as(&text).unwrap_or_else(|| panic!("{text:?} is not an id"))
}

/// What the scripted Discord answers to one request.
pub enum Answer {
    /// Does what was asked as Discord does (a post creates the message, the same one again for
    /// a nonce it has seen).
    Create,
    Fail(SendFailure),
    /// Does it, but the answer never arrives: the sender dies waiting.
    CreateThenHang,
    /// Never answers and does nothing.
    Hang,
}

/// One post the scripted Discord received: when (on tokio's clock, since the double was made)
/// and what.
#[derive(Debug, Clone)]
pub struct Request {
    pub at: Duration,
    pub message: OutgoingMessage,
}

/// One of the bot's follow-up actions, as the scripted Discord received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Acted {
    Edit(MessageEdit),
    Delete(MessageToDelete),
    /// The reaction, and whether it was added (else removed).
    React(BotReaction, bool),
}

/// A recording stand-in for Discord's REST API: answers each request as scripted (then
/// `Create`) and records every request it received. Discord's own side (which nonces it has
/// seen) lives in the [`DemoDiscord`] inside, so it survives a simulated daemon restart; like
/// every adapter, it records what Discord answered in the store.
pub struct ScriptedDiscord {
    discord: DemoDiscord,
    script: Mutex<VecDeque<Answer>>,
    requests: Mutex<Vec<Request>>,
    actions: Mutex<Vec<(Duration, Acted)>>,
    started: tokio::time::Instant,
}

impl ScriptedDiscord {
    pub fn new(store: &Arc<Store>, script: Vec<Answer>) -> ScriptedDiscord {
        ScriptedDiscord {
            discord: DemoDiscord::new(Arc::clone(store), StoreRecorder::new(Arc::clone(store))),
            script: Mutex::new(script.into()),
            requests: Mutex::new(Vec::new()),
            actions: Mutex::new(Vec::new()),
            started: tokio::time::Instant::now(),
        }
    }

    /// Answers as scripted from now on.
    pub fn then(&self, script: Vec<Answer>) {
        self.script.lock().unwrap().extend(script);
    }

    /// The posts it received.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The follow-up actions (edits, deletions, reactions) it received, each with when.
    pub fn actions(&self) -> Vec<(Duration, Acted)> {
        self.actions.lock().unwrap().clone()
    }

    /// How many messages Discord created.
    pub fn created(&self) -> usize {
        self.discord.created()
    }

    fn next_answer(&self) -> Answer {
        self.script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Answer::Create)
    }

    /// Answers one follow-up action as scripted, doing it through `done` when Discord would
    /// (an answer lost on the way, `CreateThenHang`, leaves Discord's side unmodelled: only
    /// posts keep one).
    async fn answer(&self, done: Delivery<'_>) -> std::result::Result<Delivered, SendFailure> {
        match self.next_answer() {
            Answer::Create => done.await,
            Answer::Fail(failure) => Err(failure),
            Answer::CreateThenHang | Answer::Hang => std::future::pending().await,
        }
    }

    fn record_action(&self, acted: Acted) {
        let at = self.started.elapsed();
        self.actions.lock().unwrap().push((at, acted));
    }
}

impl DiscordSender for ScriptedDiscord {
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Delivery<'a> {
        Box::pin(async move {
            self.requests.lock().unwrap().push(Request {
                at: self.started.elapsed(),
                message: message.clone(),
            });
            match self.next_answer() {
                Answer::Create => self.discord.post_message(message).await,
                Answer::Fail(failure) => Err(failure),
                Answer::CreateThenHang => {
                    // Discord created it; the answer, and so its recording, never arrives.
                    let _ = self.discord.create(message);
                    std::future::pending().await
                }
                Answer::Hang => std::future::pending().await,
            }
        })
    }

    fn edit_message<'a>(&'a self, edit: &'a MessageEdit) -> Delivery<'a> {
        Box::pin(async move {
            self.record_action(Acted::Edit(edit.clone()));
            self.answer(self.discord.edit_message(edit)).await
        })
    }

    fn delete_message<'a>(&'a self, target: &'a MessageToDelete) -> Delivery<'a> {
        Box::pin(async move {
            self.record_action(Acted::Delete(target.clone()));
            self.answer(self.discord.delete_message(target)).await
        })
    }

    fn react<'a>(&'a self, reaction: &'a BotReaction, add: bool) -> Delivery<'a> {
        Box::pin(async move {
            self.record_action(Acted::React(reaction.clone(), add));
            self.answer(self.discord.react(reaction, add)).await
        })
    }
}
