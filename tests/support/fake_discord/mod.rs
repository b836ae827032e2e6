//! A fake Discord for tests: an HTTP server and a gateway WebSocket on 127.0.0.1 that the real
//! `discord-manager ingest` (serenity underneath) is pointed at with `DISCORD_API_BASE`.
//!
//! Self-contained test support, shared by `tests/` and `e2e/` (include it with
//! `#[path = ".../tests/support/fake_discord/mod.rs"] mod fake_discord;`). It runs on its own
//! runtime thread and offers a blocking API, so synchronous tests can drive it.
//!
//! - HTTP: `GET /api/v10/gateway` (and `/gateway/bot`) answer this fake's own `ws://` URL;
//!   `/users/@me`, `/oauth2/applications/@me`, `/guilds/{id}/channels`,
//!   `/guilds/{id}/threads/active`, `/channels/{id}/threads/archived/{public,private}`,
//!   `/channels/{id}` and `/channels/{id}/messages`
//!   (`after`/`before`/`limit`, newest first even with `after`, no `guild_id` or `member` on
//!   messages, like Discord) answer from the fake's world. `POST /channels/{id}/messages`
//!   creates the bot's message like Discord: the same `nonce` with `enforce_nonce` answers the
//!   message created before instead of a second one, a `message_reference` with
//!   `fail_if_not_exists` must name a message of that channel, and the new message enters the
//!   history and is echoed over a connected gateway session. Every request is recorded, with
//!   its JSON body.
//! - Gateway: HELLO, IDENTIFY (READY, then a GUILD_CREATE per guild), RESUME (the session's
//!   dispatches after the client's sequence, then RESUMED), heartbeat ACKs, dispatches, close
//!   codes. Every frame in and out is recorded.
//! - Scripting: [`FakeDiscord::play`] takes the feed format of `seed/` (JSON Lines of
//!   `{"t", "d"}`, `@now-2h` instants) plus `"@id:NAME"` strings, each replaced by a fresh
//!   snowflake minted now (the same NAME gives the same id within one fake). Messages played
//!   enter the channel history too; [`FakeDiscord::post_offline`] adds to the history only, as
//!   if posted while the daemon was not connected.
//! - CDN (`cdn.rs`): attachment bytes at `/attachments/{channel}/{attachment}/{filename}`,
//!   signed URLs that expire on the fake's clock (404 past `ex`, as Discord answers), a file
//!   gone with its message, `GET /channels/{id}/messages/{id}` answering fresh URLs, and a
//!   lever to stall a download midway. Its requests are recorded with the API's.
//! - Levers: a clock offset from the host's (snowflakes, timestamps and the `Date` header
//!   follow it); threads archived while nobody listened (only the archived lists show them); hold new gateway connections before their handshake; close the socket with a code; stop acknowledging heartbeats; reject the token on
//!   IDENTIFY (close 4004); close every IDENTIFY before READY with a code; replay a whole session on RESUME; send a raw frame; answer HTTP
//!   requests with a status a number of times, before doing what they ask or (a lost answer)
//!   after.
//! - What `setup` and `doctor` ask (a block of its own at the end of this file):
//!   `/users/@me/guilds` (`after`, `limit`), `/guilds/{id}/roles`, `/guilds/{id}/members/{id}`;
//!   levers to set the application's flags (its privileged intents), add a guild the bot is in
//!   (REST only: it has no channels and is never announced over the gateway) and change a
//!   role's permissions.

#![allow(dead_code)]

#[path = "../discord_api/mod.rs"]
mod discord_api;

mod cdn;
#[path = "../message_shapes.rs"]
pub mod shapes;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant as StdInstant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// The demo guild's feed: the fake's world comes from its READY and GUILD_CREATE.
const DEMO_FEED: &str = include_str!("../../../seed/demo.jsonl");
const DEMO_APPLICATION: &str = include_str!("../../../seed/application.json");
const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;

/// The demo guild and its channels, as ids.
pub const GUILD: &str = "1200000000000000001";
pub const GENERAL: &str = "1400000000000000001";
pub const RELEASES: &str = "1400000000000000002";
pub const INCIDENTS: &str = "1400000000000000003";
pub const ROLLOUT_THREAD: &str = "1400000000000000005";
pub const OWNER: &str = "1000000000000000001";
pub const GRACE: &str = "1000000000000000002";
pub const LINUS: &str = "1000000000000000003";
pub const BOT: &str = "1100000000000000001";

/// One HTTP request the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The path without the query, e.g. `/api/v10/channels/1/messages`.
    pub path: String,
    pub query: Vec<(String, String)>,
    /// Whether it carried `Authorization: Bot <the fake's token>`.
    pub authorized: bool,
    /// The JSON body, if it had one.
    pub body: Option<Value>,
    pub status: u16,
}

impl Request {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client (the product) to the fake.
    In,
    /// From the fake to the client.
    Out,
}

/// One gateway frame, in or out.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Which connection (1, 2, …).
    pub connection: u32,
    pub direction: Direction,
    /// The opcode; `None` for a close frame or a frame that is not JSON.
    pub op: Option<u64>,
    pub t: Option<String>,
    pub s: Option<u64>,
    /// The close code of a close frame.
    pub close: Option<u16>,
    pub payload: Value,
}

/// An HTTP failure to inject.
#[derive(Debug, Clone)]
struct Failure {
    path_contains: String,
    /// Only requests with this method (None: any).
    method: Option<String>,
    /// Matching requests answered normally before the failures start.
    skip: u32,
    status: u16,
    remaining: u32,
    retry_after: f64,
    /// Do what the request asks, then answer the failure: the answer got lost on the way.
    after_effect: bool,
}

#[derive(Default)]
struct Session {
    id: String,
    /// Every dispatch of the session with its sequence number, for RESUME.
    dispatched: Vec<(u64, Value)>,
}

enum Command {
    Dispatch(Value),
    Close(u16),
    Raw(String),
}

struct Connection {
    number: u32,
    commands: mpsc::UnboundedSender<Command>,
    /// The session this connection speaks for, once identified or resumed.
    session: Option<String>,
}

struct State {
    requests: Vec<Request>,
    frames: Vec<Frame>,
    connections: u32,
    current: Option<Connection>,
    sessions: HashMap<String, Session>,
    /// Dispatches waiting for a connection with a session.
    pending: Vec<Value>,
    ready: Value,
    guilds: Vec<Value>,
    application: Value,
    /// Channel id → (message id → message as REST returns it).
    history: BTreeMap<u64, BTreeMap<u64, Value>>,
    ids: HashMap<String, String>,
    last_id: u64,
    /// Connections whose heartbeats go unanswered.
    unacked: Vec<u32>,
    /// What `GET /gateway` answers instead of the fake's own URL.
    gateway_override: Option<String>,
    reject_identify: bool,
    /// Closes every IDENTIFY with this code instead of answering READY.
    close_identify_with: Option<u16>,
    replay_whole_session_on_resume: bool,
    failures: Vec<Failure>,
    heartbeat_interval_ms: u64,
    /// Nonce → the message `POST /channels/{id}/messages` created with it.
    nonces: HashMap<String, Value>,
    /// New gateway connections wait, before their WebSocket handshake, while this is set.
    hold_handshakes: bool,
    /// How far this Discord's clock is ahead of the host's, in milliseconds (negative:
    /// behind): the snowflakes it mints, its timestamps and its `Date` header follow it.
    clock_offset_ms: i64,
    /// Archived threads (public and private), as `GET /channels/{id}/threads/archived/*`
    /// lists them; never announced over the gateway.
    archived_threads: Vec<Value>,
    /// Every way a request the fake was sent, or an answer it gave, departs from Discord's
    /// OpenAPI spec (see `discord_api`): dropping the fake fails the test while any is here.
    spec_violations: Vec<String>,
    /// Attachment id → the file the CDN serves ([`cdn`]).
    files: HashMap<String, cdn::CdnFile>,
    /// While set, the CDN sends this many bytes of a file, then stalls.
    stall_cdn_after: Option<usize>,
}

struct Inner {
    state: Mutex<State>,
    changed: Condvar,
    token: String,
    ws_url: String,
    /// The HTTP server's base (`http://127.0.0.1:port`), which the CDN's URLs are on.
    http_url: String,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record_frame(&self, frame: Frame) {
        self.lock().frames.push(frame);
        self.changed.notify_all();
    }
}

/// The fake Discord. Dropping it stops its servers.
pub struct FakeDiscord {
    inner: Arc<Inner>,
    http_url: String,
    runtime: Option<tokio::runtime::Runtime>,
}

/// How the fake is set up.
#[derive(Debug, Clone)]
pub struct Options {
    /// The bot token the fake accepts.
    pub token: String,
    /// The heartbeat interval HELLO announces, in milliseconds.
    pub heartbeat_interval_ms: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            token: "fake-token.4d1c9b.7e2a".to_string(),
            heartbeat_interval_ms: 1_000,
        }
    }
}

impl FakeDiscord {
    pub fn start() -> FakeDiscord {
        FakeDiscord::start_with(Options::default())
    }

    pub fn start_with(options: Options) -> FakeDiscord {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("the fake Discord's runtime starts");
        // Bound here, synchronously, so the fake can start from inside a test's runtime too.
        let bind = || {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
            listener
                .set_nonblocking(true)
                .expect("a non-blocking listener");
            listener
        };
        let (http, ws) = (bind(), bind());
        let http_url = format!("http://{}", http.local_addr().unwrap());
        let ws_url = format!("ws://{}", ws.local_addr().unwrap());
        let lines = discord_manager_ingest::feed::parse_feed(
            DEMO_FEED,
            discord_manager_vocabulary::instant::Instant::now(),
        )
        .expect("the demo feed parses");
        let mut ready = Value::Null;
        let mut guilds = Vec::new();
        for line in lines {
            if let discord_manager_ingest::feed::FeedLine::Dispatch { kind, payload, .. } = line {
                match kind.as_str() {
                    "READY" => ready = payload["d"].clone(),
                    "GUILD_CREATE" => guilds.push(payload["d"].clone()),
                    _ => {}
                }
            }
        }
        assert!(ready.is_object(), "the demo feed has a READY");
        let inner = Arc::new(Inner {
            state: Mutex::new(State {
                requests: Vec::new(),
                frames: Vec::new(),
                connections: 0,
                current: None,
                sessions: HashMap::new(),
                pending: Vec::new(),
                ready,
                guilds,
                application: serde_json::from_str(DEMO_APPLICATION).expect("application.json"),
                history: BTreeMap::new(),
                ids: HashMap::new(),
                last_id: 0,
                unacked: Vec::new(),
                gateway_override: None,
                reject_identify: false,
                close_identify_with: None,
                replay_whole_session_on_resume: false,
                failures: Vec::new(),
                heartbeat_interval_ms: options.heartbeat_interval_ms,
                nonces: HashMap::new(),
                hold_handshakes: false,
                clock_offset_ms: 0,
                archived_threads: Vec::new(),
                spec_violations: Vec::new(),
                files: HashMap::new(),
                stall_cdn_after: None,
            }),
            changed: Condvar::new(),
            token: options.token,
            ws_url,
            http_url: http_url.clone(),
        });
        let (serving_http, serving_ws) = (Arc::clone(&inner), Arc::clone(&inner));
        runtime.spawn(async move {
            let listener = TcpListener::from_std(http).expect("the HTTP listener");
            serve_http(listener, serving_http).await;
        });
        runtime.spawn(async move {
            let listener = TcpListener::from_std(ws).expect("the WebSocket listener");
            serve_gateway(listener, serving_ws).await;
        });
        FakeDiscord {
            inner,
            http_url,
            runtime: Some(runtime),
        }
    }

    /// What `DISCORD_API_BASE` must be set to.
    pub fn api_base(&self) -> &str {
        &self.http_url
    }

    /// The gateway URL `GET /api/v10/gateway` answers.
    pub fn gateway_url(&self) -> &str {
        &self.inner.ws_url
    }

    /// The token the fake accepts.
    pub fn token(&self) -> &str {
        &self.inner.token
    }

    /// The id minted for `"@id:NAME"`.
    pub fn id(&self, name: &str) -> String {
        self.inner
            .lock()
            .ids
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("no id was minted for @id:{name}"))
    }

    /// A fresh snowflake, minted now, higher than every one before.
    pub fn mint(&self) -> String {
        mint(&mut self.inner.lock()).to_string()
    }

    /// Sets this Discord's clock `offset_ms` ahead of the host's (negative: behind): from now
    /// on its snowflakes, message timestamps, `@now` in played feeds and `Date` headers follow
    /// it. Snowflakes stay increasing: one minted after a move back is still above the last.
    pub fn set_clock_offset_ms(&self, offset_ms: i64) {
        self.inner.lock().clock_offset_ms = offset_ms;
    }

    /// A thread of `parent` created and archived while no session was connected: only the
    /// archived-thread lists show it. Its id is minted now and registered as `@id:NAME`.
    pub fn archived_thread(&self, name: &str, parent: &str, title: &str, private: bool) -> String {
        let mut state = self.inner.lock();
        let id = mint(&mut state).to_string();
        state.ids.insert(name.to_string(), id.clone());
        let guild = state
            .guilds
            .iter()
            .find(|guild| {
                guild["channels"]
                    .as_array()
                    .is_some_and(|all| all.iter().any(|c| c["id"] == parent))
            })
            .and_then(|guild| guild["id"].as_str())
            .unwrap_or_default()
            .to_string();
        let archived_at = discord_now(&state).to_string();
        state.archived_threads.push(json!({
            "id": id, "guild_id": guild, "parent_id": parent, "name": title,
            "type": if private { 12 } else { 11 }, "owner_id": LINUS,
            "permission_overwrites": [], "nsfw": false, "message_count": 0, "member_count": 1,
            "thread_metadata": {"archived": true, "auto_archive_duration": 60,
                                "archive_timestamp": archived_at, "locked": false},
        }));
        id
    }

    /// Dispatches every line of a feed over the gateway (queued until a session is up) and
    /// applies messages to the channel history.
    pub fn play(&self, feed: &str) {
        for payload in self.resolve(feed) {
            self.apply_to_history(&payload);
            self.dispatch(payload);
        }
    }

    /// Adds the feed's messages to the channel history without dispatching them: what was
    /// posted while the daemon was not listening.
    pub fn post_offline(&self, feed: &str) {
        for payload in self.resolve(feed) {
            self.apply_to_history(&payload);
        }
    }

    /// Dispatches one payload (`{"t", "d"}`) exactly as given, without touching the history.
    pub fn dispatch(&self, payload: Value) {
        let mut state = self.inner.lock();
        let ready = state
            .current
            .as_ref()
            .filter(|connection| connection.session.is_some())
            .map(|connection| connection.commands.clone());
        match ready {
            Some(commands) => {
                let _ = commands.send(Command::Dispatch(payload));
            }
            None => state.pending.push(payload),
        }
    }

    /// Sends a text frame exactly as given (a malformed dispatch, say).
    pub fn send_raw(&self, text: &str) {
        if let Some(connection) = &self.inner.lock().current {
            let _ = connection.commands.send(Command::Raw(text.to_string()));
        }
    }

    /// Closes the current connection with a close code (4000: unknown error, resumable).
    pub fn close(&self, code: u16) {
        if let Some(connection) = &self.inner.lock().current {
            let _ = connection.commands.send(Command::Close(code));
        }
    }

    /// Stops answering the current connection's heartbeats (later connections are answered):
    /// serenity gives up on it and identifies again.
    pub fn stop_acking_current_connection(&self) {
        let mut state = self.inner.lock();
        if let Some(number) = state.current.as_ref().map(|connection| connection.number) {
            state.unacked.push(number);
        }
    }

    /// Makes `GET /api/v10/gateway` answer this URL instead of the fake's own.
    pub fn answer_gateway_url(&self, url: &str) {
        self.inner.lock().gateway_override = Some(url.to_string());
    }

    /// While `hold` is set, new gateway connections get no WebSocket handshake: the client is
    /// stuck connecting.
    pub fn hold_handshakes(&self, hold: bool) {
        self.inner.lock().hold_handshakes = hold;
    }

    /// Closes with 4004 (authentication failed) on every IDENTIFY.
    pub fn reject_identify(&self, reject: bool) {
        self.inner.lock().reject_identify = reject;
    }

    /// Closes every IDENTIFY with `code` (4009: session timed out, which serenity answers by
    /// identifying again) before any READY; None answers them again.
    pub fn close_identify_with(&self, code: Option<u16>) {
        self.inner.lock().close_identify_with = code;
    }

    /// On RESUME, replays every dispatch of the session (not just those after the client's
    /// sequence): Discord delivering events twice.
    pub fn replay_whole_session_on_resume(&self, replay: bool) {
        self.inner.lock().replay_whole_session_on_resume = replay;
    }

    /// The next `times` HTTP requests whose path contains `path_contains` answer `status`
    /// (a 429 says `retry_after` seconds).
    pub fn fail_http(&self, path_contains: &str, status: u16, times: u32, retry_after: f64) {
        self.fail_http_after(path_contains, 0, status, times, retry_after);
    }

    /// Like [`FakeDiscord::fail_http`], after `skip` matching requests were answered normally.
    pub fn fail_http_after(
        &self,
        path_contains: &str,
        skip: u32,
        status: u16,
        times: u32,
        retry_after: f64,
    ) {
        self.inner.lock().failures.push(Failure {
            path_contains: path_contains.to_string(),
            method: None,
            skip,
            status,
            remaining: times,
            retry_after,
            after_effect: false,
        });
    }

    /// The next `times` message posts (`POST /channels/{id}/messages`) answer `status` without
    /// creating anything (a 429 says `retry_after` seconds; a 403 is Missing Permissions).
    pub fn fail_posts(&self, status: u16, times: u32, retry_after: f64) {
        self.push_post_failure(status, times, retry_after, false);
    }

    /// The next `times` message posts create their message but are answered `status`: Discord
    /// did it, and the answer was lost on the way.
    pub fn lose_post_answers(&self, status: u16, times: u32) {
        self.push_post_failure(status, times, 0.0, true);
    }

    fn push_post_failure(&self, status: u16, times: u32, retry_after: f64, after_effect: bool) {
        self.inner.lock().failures.push(Failure {
            path_contains: "/messages".to_string(),
            method: Some("POST".to_string()),
            skip: 0,
            status,
            remaining: times,
            retry_after,
            after_effect,
        });
    }

    /// The next `times` requests with this method whose path contains `path_contains` answer
    /// `status` without doing anything (a 429 says `retry_after` seconds).
    pub fn fail_requests(
        &self,
        method: &str,
        path_contains: &str,
        status: u16,
        times: u32,
        retry_after: f64,
    ) {
        self.inner.lock().failures.push(Failure {
            path_contains: path_contains.to_string(),
            method: Some(method.to_string()),
            skip: 0,
            status,
            remaining: times,
            retry_after,
            after_effect: false,
        });
    }

    /// The messages `POST /channels/{id}/messages` asked for, as their JSON bodies, in order.
    pub fn posts(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|request| request.method == "POST" && request.path.ends_with("/messages"))
            .filter_map(|request| request.body)
            .collect()
    }

    /// The messages of a channel's history, oldest first, as REST returns them.
    pub fn history(&self, channel: &str) -> Vec<Value> {
        let channel: u64 = channel.parse().expect("a channel id");
        self.inner
            .lock()
            .history
            .get(&channel)
            .map(|messages| messages.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn requests(&self) -> Vec<Request> {
        self.inner.lock().requests.clone()
    }

    pub fn frames(&self) -> Vec<Frame> {
        self.inner.lock().frames.clone()
    }

    /// Frames the client sent with this opcode (2 IDENTIFY, 6 RESUME, 1 heartbeat).
    pub fn frames_in(&self, op: u64) -> Vec<Frame> {
        self.frames()
            .into_iter()
            .filter(|frame| frame.direction == Direction::In && frame.op == Some(op))
            .collect()
    }

    /// Blocks until `condition` holds on the fake's records, or panics after `timeout` naming
    /// what was awaited.
    pub fn wait_for(&self, what: &str, timeout: Duration, condition: impl Fn(&FakeView) -> bool) {
        let deadline = StdInstant::now() + timeout;
        let mut state = self.inner.lock();
        loop {
            let view = FakeView {
                requests: &state.requests,
                frames: &state.frames,
            };
            if condition(&view) {
                return;
            }
            let now = StdInstant::now();
            if now >= deadline {
                panic!(
                    "the fake Discord waited {timeout:?} for {what}; requests: {:#?}; frames in: {:?}",
                    state.requests,
                    state
                        .frames
                        .iter()
                        .filter(|frame| frame.direction == Direction::In)
                        .map(|frame| (frame.connection, frame.op, frame.close))
                        .collect::<Vec<_>>()
                );
            }
            state = self
                .inner
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// A MESSAGE_CREATE feed line, as Discord sends it, by one of the demo's people.
    pub fn message_line(id: &str, channel: &str, author: &str, content: &str) -> String {
        FakeDiscord::message_value(id, channel, author, content).to_string()
    }

    /// The user object of one of the demo's people.
    pub fn user(id: &str) -> Value {
        let name = match id {
            OWNER => "ada",
            GRACE => "grace",
            LINUS => "linus",
            BOT => "keeper",
            _ => "margaret",
        };
        json!({"id": id, "username": name, "discriminator": "0", "global_name": null,
               "avatar": null, "bot": id == BOT})
    }

    /// A direct message to the bot, as the gateway delivers it: no guild, no member.
    pub fn direct_message_line(id: &str, channel: &str, author: &str, content: &str) -> String {
        let mut direct = FakeDiscord::message_value(id, channel, author, content);
        let data = direct["d"].as_object_mut().expect("a dispatch's data");
        data.remove("guild_id");
        data.remove("member");
        direct.to_string()
    }

    /// [`FakeDiscord::message_line`] as a value, to adjust before playing it.
    pub fn message_value(id: &str, channel: &str, author: &str, content: &str) -> Value {
        let (name, roles) = match author {
            OWNER => ("ada", json!(["1300000000000000001"])),
            GRACE => ("grace", json!(["1300000000000000001"])),
            LINUS => ("linus", json!([])),
            _ => ("margaret", json!([])),
        };
        json!({"t": "MESSAGE_CREATE", "d": {
            "id": id, "channel_id": channel, "guild_id": GUILD,
            "author": {"id": author, "username": name, "discriminator": "0", "global_name": null,
                       "avatar": null, "bot": false},
            "member": {"roles": roles, "joined_at": "@now-30d", "deaf": false, "mute": false,
                       "flags": 0, "pending": false},
            "content": content, "timestamp": "@now", "edited_timestamp": null, "tts": false,
            "mention_everyone": false, "mentions": [], "mention_roles": [], "attachments": [],
            "embeds": [], "pinned": false, "type": 0, "flags": 0}})
    }

    fn resolve(&self, feed: &str) -> Vec<Value> {
        let mut text = String::with_capacity(feed.len());
        let mut rest = feed;
        while let Some(start) = rest.find("\"@id:") {
            text.push_str(&rest[..start]);
            let after = &rest[start + 5..];
            let end = after.find('"').expect("an @id: string ends with a quote");
            let name = &after[..end];
            let id = {
                let mut state = self.inner.lock();
                match state.ids.get(name) {
                    Some(id) => id.clone(),
                    None => {
                        let id = mint(&mut state).to_string();
                        state.ids.insert(name.to_string(), id.clone());
                        id
                    }
                }
            };
            text.push('"');
            text.push_str(&id);
            text.push('"');
            rest = &after[end + 1..];
        }
        text.push_str(rest);
        let now = discord_now(&self.inner.lock());
        discord_manager_ingest::feed::parse_feed(&text, now)
            .expect("the test feed parses")
            .into_iter()
            .filter_map(|line| match line {
                discord_manager_ingest::feed::FeedLine::Dispatch { payload, .. } => Some(payload),
                _ => None,
            })
            .collect()
    }

    fn apply_to_history(&self, payload: &Value) {
        let data = &payload["d"];
        let id = |value: &Value| value.as_str().and_then(|id| id.parse::<u64>().ok());
        let mut state = self.inner.lock();
        match payload["t"].as_str() {
            Some("MESSAGE_CREATE") => {
                if let (Some(channel), Some(message)) = (id(&data["channel_id"]), id(&data["id"])) {
                    let mut rest = data.clone();
                    if let Some(object) = rest.as_object_mut() {
                        // Discord's REST messages carry neither of these.
                        object.remove("guild_id");
                        object.remove("member");
                    }
                    state
                        .history
                        .entry(channel)
                        .or_default()
                        .insert(message, rest);
                }
            }
            Some("MESSAGE_UPDATE") => {
                if let (Some(channel), Some(message)) = (id(&data["channel_id"]), id(&data["id"]))
                    && let Some(stored) = state
                        .history
                        .get_mut(&channel)
                        .and_then(|messages| messages.get_mut(&message))
                {
                    // What REST shows afterwards: the edit, and what an update brings besides
                    // (an unfurl's embeds, a pin).
                    for field in [
                        "content",
                        "edited_timestamp",
                        "mentions",
                        "mention_roles",
                        "embeds",
                        "attachments",
                        "pinned",
                        "flags",
                        "poll",
                    ] {
                        if let Some(value) = data.get(field) {
                            stored[field] = value.clone();
                        }
                    }
                }
            }
            Some("MESSAGE_DELETE") => {
                if let (Some(channel), Some(message)) = (id(&data["channel_id"]), id(&data["id"]))
                    && let Some(messages) = state.history.get_mut(&channel)
                {
                    messages.remove(&message);
                }
            }
            _ => {}
        }
    }
}

impl Drop for FakeDiscord {
    /// Stops the servers, and fails the test if anything the fake was asked or answered is
    /// not as Discord's spec has it (unless the test is failing already).
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        let violations = std::mem::take(&mut self.inner.lock().spec_violations);
        if !violations.is_empty() && !std::thread::panicking() {
            panic!(
                "the fake Discord was asked or answered what Discord's OpenAPI spec does not have:\n{}",
                violations.join("\n")
            );
        }
    }
}

/// What [`FakeDiscord::wait_for`] conditions look at.
pub struct FakeView<'a> {
    pub requests: &'a [Request],
    pub frames: &'a [Frame],
}

impl FakeView<'_> {
    pub fn count_in(&self, op: u64) -> usize {
        self.frames
            .iter()
            .filter(|frame| frame.direction == Direction::In && frame.op == Some(op))
            .count()
    }

    pub fn count_out(&self, t: &str) -> usize {
        self.frames
            .iter()
            .filter(|frame| frame.direction == Direction::Out && frame.t.as_deref() == Some(t))
            .count()
    }

    pub fn requests_to(&self, path_contains: &str) -> usize {
        self.requests
            .iter()
            .filter(|request| request.path.contains(path_contains))
            .count()
    }
}

/// The instant on this Discord's clock.
fn discord_now(state: &State) -> discord_manager_vocabulary::instant::Instant {
    discord_manager_vocabulary::instant::Instant::now().plus_micros(state.clock_offset_ms * 1_000)
}

/// `Date` as an HTTP answer carries it: whole seconds, on this Discord's clock.
fn http_date(state: &State) -> String {
    let micros = discord_now(state).as_micros();
    let at = jiff::Timestamp::from_second(micros.div_euclid(1_000_000))
        .expect("a representable instant");
    at.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn mint(state: &mut State) -> u64 {
    let ms = (discord_now(state).as_micros() / 1_000) as u64;
    let id = ((ms - DISCORD_EPOCH_MS) << 22).max(state.last_id + 1);
    state.last_id = id;
    id
}

// ---------------------------------------------------------------- HTTP

async fn serve_http(listener: TcpListener, inner: Arc<Inner>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let inner = Arc::clone(&inner);
        tokio::spawn(async move {
            let _ = handle_http(stream, inner).await;
        });
    }
}

async fn handle_http(stream: TcpStream, inner: Arc<Inner>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let target = parts.next().unwrap_or("").to_string();
        let mut authorization = None;
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).await? == 0 {
                return Ok(());
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                match name.trim().to_ascii_lowercase().as_str() {
                    "authorization" => authorization = Some(value.trim().to_string()),
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    _ => {}
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).await?;
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path.to_string(), query.to_string()),
            None => (target.clone(), String::new()),
        };
        let query: Vec<(String, String)> = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| match pair.split_once('=') {
                Some((key, value)) => (key.to_string(), value.to_string()),
                None => (pair.to_string(), String::new()),
            })
            .collect();
        let authorized = authorization.as_deref() == Some(&format!("Bot {}", inner.token));
        if cdn::is_cdn(&path) {
            cdn::serve(&inner, reader.get_mut(), method, path, query, authorized).await?;
            continue;
        }
        let body: Option<Value> = serde_json::from_slice(&body).ok();
        let (status, headers, json) = respond(
            &inner,
            &Incoming {
                method: &method,
                path: &path,
                query: &query,
                body: body.as_ref(),
                authorized,
            },
        );
        let mut violations = discord_api::check_request(&method, &path, &query, body.as_ref());
        violations.extend(discord_api::check_response(&method, &path, status, &json));
        {
            let mut state = inner.lock();
            state.spec_violations.extend(violations);
            state.requests.push(Request {
                method,
                path,
                query,
                authorized,
                body,
                status,
            });
        }
        inner.changed.notify_all();
        // A 204 has no body at all.
        let body = if status == 204 {
            String::new()
        } else {
            json.to_string()
        };
        let date = http_date(&inner.lock());
        let mut response = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             date: {date}\r\n",
            reason(status),
            body.len()
        );
        for (name, value) in headers {
            response.push_str(&format!("{name}: {value}\r\n"));
        }
        response.push_str("\r\n");
        response.push_str(&body);
        reader.get_mut().write_all(response.as_bytes()).await?;
        reader.get_mut().flush().await?;
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

type Response = (u16, Vec<(String, String)>, Value);

/// One request as the routes read it.
struct Incoming<'a> {
    method: &'a str,
    path: &'a str,
    query: &'a [(String, String)],
    body: Option<&'a Value>,
    authorized: bool,
}

fn respond(inner: &Inner, request: &Incoming<'_>) -> Response {
    let (method, path) = (request.method, request.path);
    let mut state = inner.lock();
    let failing = state.failures.iter_mut().find(|failure| {
        failure.remaining > 0
            && path.contains(&failure.path_contains)
            && failure.method.as_deref().is_none_or(|only| only == method)
    });
    let failing = match failing {
        Some(failure) if failure.skip > 0 => {
            failure.skip -= 1;
            None
        }
        other => other,
    };
    if let Some(failure) = failing {
        failure.remaining -= 1;
        let (status, retry_after, after_effect) =
            (failure.status, failure.retry_after, failure.after_effect);
        if after_effect {
            let _ = answer(inner, &mut state, request);
        }
        let error = |message: &str, code: u64| json!({"message": message, "code": code});
        return match status {
            429 => (
                429,
                vec![("retry-after".into(), retry_after.ceil().to_string())],
                json!({"message": "You are being rate limited.", "retry_after": retry_after,
                       "global": false, "code": 0}),
            ),
            403 => (403, Vec::new(), error("Missing Permissions", 50013)),
            404 => (404, Vec::new(), error("Unknown Channel", 10003)),
            _ => (status, Vec::new(), error("Server error", 0)),
        };
    }
    answer(inner, &mut state, request)
}

/// What Discord answers a request (no failure injected).
fn answer(inner: &Inner, state: &mut State, request: &Incoming<'_>) -> Response {
    let Incoming {
        method,
        path,
        query,
        body,
        authorized,
    } = *request;
    if !authorized {
        return (
            401,
            Vec::new(),
            json!({"message": "401: Unauthorized", "code": 0}),
        );
    }
    let not_found = (
        404,
        Vec::new(),
        json!({"message": "404: Not Found", "code": 0}),
    );
    let Some(route) = path.strip_prefix("/api/v10") else {
        return not_found;
    };
    let segments: Vec<&str> = route.trim_matches('/').split('/').collect();
    let param = |name: &str| {
        query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let ok = |value: Value| (200, Vec::new(), value);
    if let Some(response) = bot_check_routes(state, method, &segments, query) {
        return response;
    }
    match (method, segments.as_slice()) {
        ("GET", ["gateway"]) => ok(json!({
            "url": state.gateway_override.clone().unwrap_or_else(|| inner.ws_url.clone())
        })),
        ("GET", ["gateway", "bot"]) => ok(json!({
            "url": inner.ws_url, "shards": 1,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        })),
        ("GET", ["users", "@me"]) => ok(rest_current_user(&state.ready["user"])),
        ("GET", ["oauth2", "applications", "@me"]) => ok(rest_application(&state.application)),
        ("GET", ["guilds", guild, "channels"]) => {
            let Some(found) = state.guilds.iter().find(|g| g["id"] == *guild) else {
                return not_found;
            };
            let channels: Vec<Value> = found["channels"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|channel| with_last_message(state, channel, guild))
                .collect();
            ok(Value::Array(channels))
        }
        ("GET", ["guilds", guild, "threads", "active"]) => {
            let Some(found) = state.guilds.iter().find(|g| g["id"] == *guild) else {
                return not_found;
            };
            let threads: Vec<Value> = found["threads"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|thread| with_last_message(state, thread, guild))
                .collect();
            ok(json!({"threads": threads, "members": [], "has_more": false}))
        }
        ("GET", ["channels", channel, "threads", "archived", which]) => {
            let private = *which == "private";
            let before = param("before");
            let limit: usize = param("limit")
                .and_then(|limit| limit.parse().ok())
                .unwrap_or(50);
            let mut threads: Vec<Value> = state
                .archived_threads
                .iter()
                .filter(|thread| {
                    thread["parent_id"] == *channel
                        && (thread["type"] == 12) == private
                        && before.as_deref().is_none_or(|before| {
                            thread["thread_metadata"]["archive_timestamp"]
                                .as_str()
                                .is_some_and(|at| at < before)
                        })
                })
                .cloned()
                .collect();
            // Most recently archived first, like Discord.
            threads.sort_by(|a, b| {
                b["thread_metadata"]["archive_timestamp"]
                    .as_str()
                    .cmp(&a["thread_metadata"]["archive_timestamp"].as_str())
            });
            let has_more = threads.len() > limit;
            threads.truncate(limit);
            let guild = threads
                .first()
                .and_then(|thread| thread["guild_id"].as_str())
                .unwrap_or_default()
                .to_string();
            let threads: Vec<Value> = threads
                .into_iter()
                .map(|thread| with_last_message(state, thread, &guild))
                .collect();
            ok(json!({"threads": threads, "members": [], "has_more": has_more}))
        }
        ("GET", ["channels", channel]) => {
            if let Some(thread) = state
                .archived_threads
                .iter()
                .find(|thread| thread["id"] == *channel)
            {
                let guild = thread["guild_id"].as_str().unwrap_or_default().to_string();
                return ok(with_last_message(state, thread.clone(), &guild));
            }
            for guild in &state.guilds {
                let guild_id = guild["id"].as_str().unwrap_or_default().to_string();
                for list in ["channels", "threads"] {
                    if let Some(found) = guild[list]
                        .as_array()
                        .and_then(|all| all.iter().find(|c| c["id"] == *channel))
                    {
                        return ok(with_last_message(state, found.clone(), &guild_id));
                    }
                }
            }
            not_found
        }
        ("GET", ["channels", channel, "messages"]) => {
            let Ok(channel) = channel.parse::<u64>() else {
                return not_found;
            };
            let limit: usize = param("limit")
                .and_then(|limit| limit.parse().ok())
                .unwrap_or(50)
                .clamp(1, 100);
            let empty = BTreeMap::new();
            let messages = state.history.get(&channel).unwrap_or(&empty);
            let mut page: Vec<Value> = if let Some(after) =
                param("after").and_then(|after| after.parse::<u64>().ok())
            {
                // The oldest `limit` after `after`, returned newest first, like Discord.
                messages
                    .range(after + 1..)
                    .take(limit)
                    .map(|(_, message)| message.clone())
                    .collect()
            } else if let Some(before) =
                param("before").and_then(|before| before.parse::<u64>().ok())
            {
                let mut newest: Vec<Value> = messages
                    .range(..before)
                    .rev()
                    .take(limit)
                    .map(|(_, message)| message.clone())
                    .collect();
                newest.reverse();
                newest
            } else {
                let mut newest: Vec<Value> = messages.values().rev().take(limit).cloned().collect();
                newest.reverse();
                newest
            };
            page.reverse();
            ok(page.iter().map(rest_message).collect())
        }
        ("GET", ["channels", channel, "messages", message]) => {
            let Some(mut found) = stored_message(state, channel, message).cloned() else {
                return unknown_message();
            };
            cdn::sign_afresh(inner, state, &mut found);
            ok(rest_message(&found))
        }
        ("POST", ["channels", channel, "messages"]) => post_message(inner, state, channel, body),
        ("PATCH", ["channels", channel, "messages", message]) => {
            edit_message(inner, state, channel, message, body)
        }
        ("DELETE", ["channels", channel, "messages", message]) => {
            delete_message(inner, state, channel, message)
        }
        (
            "PUT",
            [
                "channels",
                channel,
                "messages",
                message,
                "reactions",
                emoji,
                "@me",
            ],
        ) => react(inner, state, channel, message, emoji, true),
        (
            "DELETE",
            [
                "channels",
                channel,
                "messages",
                message,
                "reactions",
                emoji,
                "@me",
            ],
        ) => react(inner, state, channel, message, emoji, false),
        _ => not_found,
    }
}

/// `POST /channels/{id}/messages`, as Discord does it for a bot.
fn post_message(inner: &Inner, state: &mut State, channel: &str, body: Option<&Value>) -> Response {
    let refuse = |status: u16, message: &str, code: u64| {
        (
            status,
            Vec::new(),
            json!({"message": message, "code": code}),
        )
    };
    let Some(body) = body else {
        return refuse(400, "Cannot send an empty message", 50006);
    };
    let guild = state.guilds.iter().find(|guild| {
        ["channels", "threads"].iter().any(|list| {
            guild[*list]
                .as_array()
                .is_some_and(|all| all.iter().any(|c| c["id"] == *channel))
        })
    });
    let Some(guild_id) = guild
        .and_then(|guild| guild["id"].as_str())
        .map(str::to_string)
    else {
        return refuse(404, "Unknown Channel", 10003);
    };
    let nonce = body["nonce"].as_str().map(str::to_string);
    if body["enforce_nonce"] == json!(true)
        && let Some(created) = nonce.as_ref().and_then(|nonce| state.nonces.get(nonce))
    {
        return (200, Vec::new(), rest_message(created));
    }
    let content = body["content"].as_str().unwrap_or_default().to_string();
    if content.is_empty() || content.chars().count() > 2000 {
        return refuse(400, "Invalid Form Body", 50035);
    }
    let channel_number: u64 = channel.parse().unwrap_or_default();
    let reference = body["message_reference"]["message_id"].as_str();
    let referenced = match reference {
        None => None,
        Some(id) => {
            let found = id.parse::<u64>().ok().and_then(|id| {
                state
                    .history
                    .get(&channel_number)
                    .and_then(|messages| messages.get(&id))
                    .cloned()
            });
            match found {
                Some(found) => Some(found),
                None if body["message_reference"]["fail_if_not_exists"] == json!(false) => None,
                None => return refuse(400, "Invalid Form Body", 50035),
            }
        }
    };
    let id = mint(state).to_string();
    let mut bot = state.ready["user"].clone();
    bot["bot"] = json!(true);
    let mut message = json!({
        "id": id, "channel_id": channel, "author": bot, "content": content,
        "timestamp": discord_now(state).to_string(), "edited_timestamp": null, "tts": false,
        "mention_everyone": false, "mentions": [], "mention_roles": [], "attachments": [],
        "embeds": [], "pinned": false, "type": 0,
        // Discord keeps the one flag a bot may set on creation, SUPPRESS_EMBEDS (1 << 2).
        "flags": body["flags"].as_u64().unwrap_or(0) & (1 << 2),
    });
    if let Some(nonce) = &nonce {
        message["nonce"] = json!(nonce);
    }
    if let Some(referenced) = referenced {
        message["type"] = json!(19);
        message["message_reference"] = json!({
            "type": 0, "message_id": referenced["id"], "channel_id": channel, "guild_id": guild_id,
        });
        message["referenced_message"] = referenced;
    }
    state
        .history
        .entry(channel_number)
        .or_default()
        .insert(id.parse().unwrap_or_default(), message.clone());
    if let Some(nonce) = nonce {
        state.nonces.insert(nonce, message.clone());
    }
    // The gateway echoes the bot's own message, with the guild, to a connected session.
    let mut echoed = message.clone();
    echoed["guild_id"] = json!(guild_id);
    echoed["member"] = json!({"roles": [], "joined_at": discord_now(state).to_string(), "deaf": false, "mute": false,
                              "flags": 0, "pending": false});
    dispatch_live(inner, state, json!({"t": "MESSAGE_CREATE", "d": echoed}));
    (200, Vec::new(), rest_message(&message))
}

/// Dispatches to the connected session, if there is one: Discord does not keep events for a
/// bot that is not connected (a later backfill finds the message in the history).
/// Discord's 404 for a message it does not know.
fn unknown_message() -> Response {
    (
        404,
        Vec::new(),
        json!({"message": "Unknown Message", "code": 10008}),
    )
}

/// The guild a channel or thread belongs to.
fn guild_of(state: &State, channel: &str) -> Option<String> {
    state
        .guilds
        .iter()
        .find(|guild| {
            ["channels", "threads"].iter().any(|list| {
                guild[*list]
                    .as_array()
                    .is_some_and(|all| all.iter().any(|c| c["id"] == *channel))
            })
        })
        .and_then(|guild| guild["id"].as_str())
        .map(str::to_string)
}

/// A stored message of a channel's history, by ids as the path writes them.
fn stored_message<'a>(state: &'a mut State, channel: &str, message: &str) -> Option<&'a mut Value> {
    let (channel, message) = (channel.parse::<u64>().ok()?, message.parse::<u64>().ok()?);
    state.history.get_mut(&channel)?.get_mut(&message)
}

/// `PATCH /channels/{c}/messages/{m}`, as Discord does it: only the bot's own message, whose
/// content is replaced, and whose SUPPRESS_EMBEDS flag (the only one an edit may set or unset)
/// follows `flags` when the body has it; answers the message as edited, and the gateway echoes
/// the update.
fn edit_message(
    inner: &Inner,
    state: &mut State,
    channel: &str,
    message: &str,
    body: Option<&Value>,
) -> Response {
    let bot = state.ready["user"]["id"].clone();
    let now = discord_now(state).to_string();
    let guild = guild_of(state, channel);
    let content = body
        .and_then(|body| body["content"].as_str())
        .unwrap_or_default();
    if content.is_empty() || content.chars().count() > 2000 {
        return (
            400,
            Vec::new(),
            json!({"message": "Invalid Form Body", "code": 50035}),
        );
    }
    let Some(stored) = stored_message(state, channel, message) else {
        return unknown_message();
    };
    if stored["author"]["id"] != bot {
        return (
            403,
            Vec::new(),
            json!({"message": "Cannot edit a message authored by another user", "code": 50005}),
        );
    }
    stored["content"] = json!(content);
    stored["edited_timestamp"] = json!(now);
    if let Some(flags) = body.and_then(|body| body["flags"].as_u64()) {
        const SUPPRESS_EMBEDS: u64 = 1 << 2;
        let kept = stored["flags"].as_u64().unwrap_or(0) & !SUPPRESS_EMBEDS;
        stored["flags"] = json!(kept | (flags & SUPPRESS_EMBEDS));
    }
    let edited = stored.clone();
    let mut echoed = edited.clone();
    echoed["guild_id"] = json!(guild);
    dispatch_live(inner, state, json!({"t": "MESSAGE_UPDATE", "d": echoed}));
    (200, Vec::new(), rest_message(&edited))
}

/// `DELETE /channels/{c}/messages/{m}`: the message leaves the history (204); one Discord
/// does not know is a 404, Unknown Message. The gateway echoes the deletion.
fn delete_message(inner: &Inner, state: &mut State, channel: &str, message: &str) -> Response {
    let guild = guild_of(state, channel);
    let removed = match (channel.parse::<u64>(), message.parse::<u64>()) {
        (Ok(channel), Ok(message)) => state
            .history
            .get_mut(&channel)
            .and_then(|messages| messages.remove(&message)),
        _ => None,
    };
    if removed.is_none() {
        return unknown_message();
    }
    let deletion = json!({"id": message, "channel_id": channel, "guild_id": guild});
    dispatch_live(inner, state, json!({"t": "MESSAGE_DELETE", "d": deletion}));
    (204, Vec::new(), Value::Null)
}

/// `PUT`/`DELETE /channels/{c}/messages/{m}/reactions/{emoji}/@me`: the bot's own reaction
/// (204, idempotent like Discord's); the gateway echoes it. `emoji` is as the path carries it:
/// percent-encoded Unicode, or `name:id`.
fn react(
    inner: &Inner,
    state: &mut State,
    channel: &str,
    message: &str,
    emoji: &str,
    add: bool,
) -> Response {
    let bot = state.ready["user"]["id"].clone();
    let guild = guild_of(state, channel);
    if stored_message(state, channel, message).is_none() {
        return unknown_message();
    }
    let emoji = match emoji.split_once(':') {
        Some((name, id)) => json!({"id": id, "name": name, "animated": false}),
        None => json!({"id": null, "name": percent_decoded(emoji)}),
    };
    let kind = if add {
        "MESSAGE_REACTION_ADD"
    } else {
        "MESSAGE_REACTION_REMOVE"
    };
    let reaction = json!({"user_id": bot, "channel_id": channel, "message_id": message,
                          "guild_id": guild, "emoji": emoji, "burst": false, "type": 0});
    dispatch_live(inner, state, json!({"t": kind, "d": reaction}));
    (204, Vec::new(), Value::Null)
}

/// A path segment's `%XX` escapes decoded.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| text.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

fn dispatch_live(_inner: &Inner, state: &mut State, payload: Value) {
    if let Some(connection) = state
        .current
        .as_ref()
        .filter(|connection| connection.session.is_some())
    {
        let _ = connection.commands.send(Command::Dispatch(payload));
    }
}

fn with_last_message(state: &State, mut channel: Value, guild: &str) -> Value {
    let last = channel["id"]
        .as_str()
        .and_then(|id| id.parse::<u64>().ok())
        .and_then(|id| state.history.get(&id))
        .and_then(|messages| messages.keys().next_back())
        .map(|id| Value::String(id.to_string()))
        .unwrap_or(Value::Null);
    channel["last_message_id"] = last;
    channel["guild_id"] = Value::String(guild.to_string());
    rest_channel(&channel)
}

// ---------------------------------------------------------------- gateway

async fn serve_gateway(listener: TcpListener, inner: Arc<Inner>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let inner = Arc::clone(&inner);
        tokio::spawn(async move {
            // A held connection gets no WebSocket handshake until released.
            while inner.lock().hold_handshakes {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let _ = handle_gateway(stream, inner).await;
        });
    }
}

fn frame_of(connection: u32, direction: Direction, payload: Value) -> Frame {
    Frame {
        connection,
        direction,
        op: payload["op"].as_u64(),
        t: payload["t"].as_str().map(str::to_string),
        s: payload["s"].as_u64(),
        close: None,
        payload,
    }
}

async fn handle_gateway(stream: TcpStream, inner: Arc<Inner>) -> Result<(), String> {
    let mut socket = tokio_tungstenite::accept_async(stream)
        .await
        .map_err(|error| error.to_string())?;
    let (commands, mut commanded) = mpsc::unbounded_channel();
    let (number, interval) = {
        let mut state = inner.lock();
        state.connections += 1;
        let number = state.connections;
        state.current = Some(Connection {
            number,
            commands,
            session: None,
        });
        (number, state.heartbeat_interval_ms)
    };
    inner.changed.notify_all();

    // Sends a payload, recording it.
    macro_rules! send {
        ($payload:expr) => {{
            let payload: Value = $payload;
            inner.record_frame(frame_of(number, Direction::Out, payload.clone()));
            socket
                .send(WsMessage::Text(payload.to_string()))
                .await
                .map_err(|error| error.to_string())?;
        }};
    }
    // Sends a dispatch in the current session with the next sequence number.
    macro_rules! dispatch {
        ($payload:expr) => {{
            let payload: Value = $payload;
            let framed = {
                let mut state = inner.lock();
                let session_id = state
                    .current
                    .as_ref()
                    .and_then(|connection| connection.session.clone());
                match session_id.and_then(|id| state.sessions.get_mut(&id)) {
                    Some(session) => {
                        let seq = session.dispatched.len() as u64 + 1;
                        let framed = json!({"op": 0, "s": seq, "t": payload["t"], "d": payload["d"]});
                        session.dispatched.push((seq, framed.clone()));
                        Some(framed)
                    }
                    None => {
                        state.pending.push(payload.clone());
                        None
                    }
                }
            };
            if let Some(framed) = framed {
                send!(framed);
            }
        }};
    }
    macro_rules! close {
        ($code:expr, $reason:expr) => {{
            let code: u16 = $code;
            inner.record_frame(Frame {
                connection: number,
                direction: Direction::Out,
                op: None,
                t: None,
                s: None,
                close: Some(code),
                payload: Value::Null,
            });
            let _ = socket
                .send(WsMessage::Close(Some(CloseFrame {
                    code: CloseCode::from(code),
                    reason: $reason.into(),
                })))
                .await;
            let _ = socket.flush().await;
            forget_connection(&inner, number);
            return Ok(());
        }};
    }

    send!(json!({"op": 10, "s": null, "t": null, "d": {"heartbeat_interval": interval}}));
    loop {
        tokio::select! {
            command = commanded.recv() => match command {
                Some(Command::Dispatch(payload)) => dispatch!(payload),
                Some(Command::Raw(text)) => {
                    inner.record_frame(Frame {
                        connection: number, direction: Direction::Out, op: None, t: None, s: None,
                        close: None, payload: Value::String(text.clone()),
                    });
                    socket.send(WsMessage::Text(text)).await.map_err(|error| error.to_string())?;
                }
                Some(Command::Close(code)) => close!(code, "closed by the test"),
                None => return Ok(()),
            },
            incoming = socket.next() => {
                let message = match incoming {
                    Some(Ok(message)) => message,
                    _ => {
                        forget_connection(&inner, number);
                        return Ok(());
                    }
                };
                let text = match message {
                    WsMessage::Text(text) => text,
                    WsMessage::Close(frame) => {
                        inner.record_frame(Frame {
                            connection: number, direction: Direction::In, op: None, t: None, s: None,
                            close: frame.map(|frame| u16::from(frame.code)), payload: Value::Null,
                        });
                        forget_connection(&inner, number);
                        return Ok(());
                    }
                    _ => continue,
                };
                let payload: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                inner.record_frame(frame_of(number, Direction::In, payload.clone()));
                match payload["op"].as_u64() {
                    Some(1) if !inner.lock().unacked.contains(&number) => {
                        send!(json!({"op": 11, "s": null, "t": null, "d": null}));
                    }
                    Some(2) => {
                        let token = payload["d"]["token"].as_str().unwrap_or("");
                        let accepted = token.trim_start_matches("Bot ") == inner.token;
                        if inner.lock().reject_identify || !accepted {
                            close!(4004, "Authentication failed.");
                        }
                        let closing = inner.lock().close_identify_with;
                        if let Some(code) = closing {
                            close!(code, "closed by the test before READY");
                        }
                        let (ready, guilds) = {
                            let mut state = inner.lock();
                            let id = format!("fake-session-{number}");
                            state.sessions.insert(id.clone(), Session { id: id.clone(), dispatched: Vec::new() });
                            if let Some(connection) = state.current.as_mut().filter(|c| c.number == number) {
                                connection.session = Some(id.clone());
                            }
                            let mut ready = state.ready.clone();
                            ready["session_id"] = Value::String(id);
                            ready["resume_gateway_url"] = Value::String(inner.ws_url.clone());
                            // Like Discord, each channel and thread says its newest message.
                            let guilds: Vec<Value> = state.guilds.iter().map(|guild| {
                                let mut guild = guild.clone();
                                let id = guild["id"].as_str().unwrap_or_default().to_string();
                                for list in ["channels", "threads"] {
                                    if let Some(all) = guild[list].as_array() {
                                        let with_last: Vec<Value> = all.iter().map(|channel| with_last_message(&state, channel.clone(), &id)).collect();
                                        guild[list] = Value::Array(with_last);
                                    }
                                }
                                guild
                            }).collect();
                            (ready, guilds)
                        };
                        dispatch!(json!({"t": "READY", "d": ready}));
                        for guild in guilds {
                            dispatch!(json!({"t": "GUILD_CREATE", "d": guild}));
                        }
                        let pending = std::mem::take(&mut inner.lock().pending);
                        for payload in pending {
                            dispatch!(payload);
                        }
                    }
                    Some(6) => {
                        let session_id = payload["d"]["session_id"].as_str().unwrap_or("").to_string();
                        let seq = payload["d"]["seq"].as_u64().unwrap_or(0);
                        let replay = {
                            let mut state = inner.lock();
                            let whole = state.replay_whole_session_on_resume;
                            let replay = state.sessions.get(&session_id).map(|session| {
                                session
                                    .dispatched
                                    .iter()
                                    .filter(|(s, _)| whole || *s > seq)
                                    // Discord never replays a READY.
                                    .filter(|(_, framed)| framed["t"] != "READY")
                                    .map(|(_, framed)| framed.clone())
                                    .collect::<Vec<_>>()
                            });
                            if replay.is_some()
                                && let Some(connection) =
                                    state.current.as_mut().filter(|c| c.number == number)
                            {
                                connection.session = Some(session_id.clone());
                            }
                            replay
                        };
                        match replay {
                            Some(frames) => {
                                for framed in frames {
                                    send!(framed);
                                }
                                dispatch!(json!({"t": "RESUMED", "d": {}}));
                                let pending = std::mem::take(&mut inner.lock().pending);
                                for payload in pending {
                                    dispatch!(payload);
                                }
                            }
                            None => send!(json!({"op": 9, "s": null, "t": null, "d": false})),
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

fn forget_connection(inner: &Inner, number: u32) {
    let mut state = inner.lock();
    if state
        .current
        .as_ref()
        .is_some_and(|connection| connection.number == number)
    {
        state.current = None;
    }
    drop(state);
    inner.changed.notify_all();
}

// ------------------------------------------------ what `setup` and `doctor` ask

impl FakeDiscord {
    /// Sets the flags `GET /oauth2/applications/@me` answers: `1 << 19` is the Message Content
    /// intent of a bot in fewer than 100 guilds, `0` no privileged intent at all (the default).
    pub fn set_application_flags(&self, flags: u64) {
        self.inner.lock().application["flags"] = json!(flags);
    }

    /// Adds a guild the bot is in, named `name`, with only the @everyone role (View Channels,
    /// Send Messages, Read Message History), the bot as its one member and no channels; REST
    /// lists it, the gateway never announces it. Answers its id.
    pub fn add_guild(&self, name: &str) -> String {
        let mut state = self.inner.lock();
        let id = mint(&mut state).to_string();
        let bot = state.ready["user"].clone();
        state.guilds.push(json!({
            "id": id,
            "name": name,
            "roles": [{"id": id, "name": "@everyone", "permissions": "68608"}],
            "members": [{"user": bot, "roles": []}],
            "channels": [],
            "threads": [],
        }));
        id
    }

    /// Gives the role `role` of `guild` exactly these permission bits.
    pub fn set_role_permissions(&self, guild: &str, role: &str, bits: u64) {
        let mut state = self.inner.lock();
        let role = state
            .guilds
            .iter_mut()
            .find(|found| found["id"] == guild)
            .and_then(|found| found["roles"].as_array_mut())
            .and_then(|roles| roles.iter_mut().find(|found| found["id"] == role))
            .unwrap_or_else(|| panic!("the fake has no role {role} in the guild {guild}"));
        role["permissions"] = json!(bits.to_string());
    }
}

/// `GET /users/@me/guilds`, `/guilds/{id}/roles` and `/guilds/{id}/members/{user}`, from the
/// fake's guilds; None for any other route.
fn bot_check_routes(
    state: &State,
    method: &str,
    segments: &[&str],
    query: &[(String, String)],
) -> Option<Response> {
    let param = |name: &str| {
        query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let guild_of = |id: &str| state.guilds.iter().find(|guild| guild["id"] == id);
    let unknown = |what: &str, code: u64| {
        Some((
            404,
            Vec::new(),
            json!({"message": format!("Unknown {what}"), "code": code}),
        ))
    };
    match (method, segments) {
        ("GET", ["users", "@me", "guilds"]) => {
            let after: u64 = param("after").and_then(|id| id.parse().ok()).unwrap_or(0);
            let limit: usize = param("limit")
                .and_then(|limit| limit.parse().ok())
                .unwrap_or(200);
            let mut guilds: Vec<&Value> = state
                .guilds
                .iter()
                .filter(|guild| {
                    guild["id"].as_str().and_then(|id| id.parse::<u64>().ok()) > Some(after)
                })
                .collect();
            guilds.sort_by_key(|guild| guild["id"].as_str().and_then(|id| id.parse::<u64>().ok()));
            let listed: Vec<Value> = guilds
                .into_iter()
                .take(limit)
                .map(|guild| {
                    json!({"id": guild["id"], "name": guild["name"], "icon": null, "banner": null,
                           "owner": false, "permissions": "0", "features": []})
                })
                .collect();
            Some((200, Vec::new(), Value::Array(listed)))
        }
        ("GET", ["guilds", guild, "roles"]) => match guild_of(guild) {
            Some(found) => Some((
                200,
                Vec::new(),
                found["roles"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(rest_role)
                    .collect(),
            )),
            None => unknown("Guild", 10004),
        },
        ("GET", ["guilds", guild, "members", user]) => {
            let Some(found) = guild_of(guild) else {
                return unknown("Guild", 10004);
            };
            match found["members"]
                .as_array()
                .and_then(|members| members.iter().find(|member| member["user"]["id"] == *user))
            {
                Some(member) => Some((200, Vec::new(), rest_member(member))),
                None => unknown("Member", 10007),
            }
        }
        _ => None,
    }
}

// ---------------------------------------------------------------- what REST answers
//
// The fake's world comes from gateway payloads (the demo feed's READY, GUILD_CREATE and
// MESSAGE_CREATE). Discord's REST API shows the same objects with fields of their own and
// without some the gateway adds: these write an object as Discord's OpenAPI spec has REST
// answer it, and `discord_api` holds every answer to that spec.

/// A user inside a message, a member or an application (`UserResponse`): every field Discord
/// always sends, `null` where the world does not say.
fn rest_user(user: &Value) -> Value {
    let field = |name: &str, otherwise: Value| user.get(name).cloned().unwrap_or(otherwise);
    let mut rest = json!({
        "id": user["id"],
        "username": user["username"],
        "avatar": field("avatar", Value::Null),
        "discriminator": field("discriminator", json!("0")),
        "public_flags": field("public_flags", json!(0)),
        "flags": field("flags", json!(0)),
        "global_name": field("global_name", Value::Null),
        "primary_guild": field("primary_guild", Value::Null),
    });
    for optional in [
        "bot",
        "system",
        "banner",
        "accent_color",
        "avatar_decoration_data",
    ] {
        if let Some(value) = user.get(optional) {
            rest[optional] = value.clone();
        }
    }
    rest
}

/// The bot's own user, as `GET /users/@me` answers it (`UserPIIResponse`).
fn rest_current_user(user: &Value) -> Value {
    let mut rest = rest_user(user);
    rest["mfa_enabled"] = user.get("mfa_enabled").cloned().unwrap_or(json!(false));
    rest["locale"] = user.get("locale").cloned().unwrap_or(json!("en-US"));
    if let Some(verified) = user.get("verified") {
        rest["verified"] = verified.clone();
    }
    rest
}

/// A message as REST answers it (`MessageResponse`): users as [`rest_user`] writes them,
/// `components` always there, and the message it answers without its own reactions or reply
/// (`BasicMessageResponse`).
fn rest_message(message: &Value) -> Value {
    let mut rest = message.clone();
    let Some(object) = rest.as_object_mut() else {
        return rest;
    };
    object.remove("guild_id");
    object.remove("member");
    object.entry("components").or_insert_with(|| json!([]));
    if let Some(author) = message.get("author") {
        object.insert("author".into(), rest_user(author));
    }
    if let Some(mentions) = message.get("mentions").and_then(Value::as_array) {
        object.insert("mentions".into(), mentions.iter().map(rest_user).collect());
    }
    if let Some(referenced) = message.get("referenced_message").filter(|r| r.is_object()) {
        let mut basic = rest_message(referenced);
        if let Some(basic) = basic.as_object_mut() {
            basic.remove("reactions");
            basic.remove("referenced_message");
        }
        object.insert("referenced_message".into(), basic);
    }
    rest
}

/// A guild channel or a thread as REST answers it: `flags` always there; a thread
/// (`ThreadResponse`) with its `total_message_sent` and without what only channels have.
fn rest_channel(channel: &Value) -> Value {
    let mut rest = channel.clone();
    let Some(object) = rest.as_object_mut() else {
        return rest;
    };
    object.entry("flags").or_insert_with(|| json!(0));
    if matches!(channel["type"].as_u64(), Some(10..=12)) {
        for only_channels in ["position", "permission_overwrites", "nsfw", "topic"] {
            object.remove(only_channels);
        }
        let sent = channel["message_count"].clone();
        object
            .entry("total_message_sent")
            .or_insert(if sent.is_null() { json!(0) } else { sent });
    }
    rest
}

/// A role as `GET /guilds/{id}/roles` answers it (`GuildRoleResponse`).
fn rest_role(role: &Value) -> Value {
    let mut rest = role.clone();
    if let Some(object) = rest.as_object_mut() {
        for nullable in ["icon", "unicode_emoji"] {
            object.entry(nullable).or_insert(Value::Null);
        }
    }
    rest
}

/// A member as `GET /guilds/{id}/members/{id}` answers it (`GuildMemberResponse`).
fn rest_member(member: &Value) -> Value {
    let mut rest = member.clone();
    if let Some(object) = rest.as_object_mut() {
        for nullable in [
            "avatar",
            "banner",
            "nick",
            "premium_since",
            "communication_disabled_until",
        ] {
            object.entry(nullable).or_insert(Value::Null);
        }
        if let Some(user) = member.get("user") {
            object.insert("user".into(), rest_user(user));
        }
    }
    rest
}

/// The bot's application as `GET /oauth2/applications/@me` answers it
/// (`PrivateApplicationResponse`): the demo's, with what Discord always sends besides.
fn rest_application(application: &Value) -> Value {
    let mut rest = application.clone();
    let Some(object) = rest.as_object_mut() else {
        return rest;
    };
    for (name, value) in [
        ("icon", Value::Null),
        ("type", Value::Null),
        (
            "verify_key",
            json!("0d1c9b7e2a4f6e8d0c1b3a5f7e9d2c4b6a8f0e1d3c5b7a9f2e4d6c8b0a1f3e5d"),
        ),
        ("flags_new", Value::Null),
        ("redirect_uris", json!([])),
        ("interactions_endpoint_url", Value::Null),
        ("role_connections_verification_url", Value::Null),
        ("approximate_guild_count", json!(1)),
        ("approximate_user_install_count", json!(0)),
        ("approximate_user_authorization_count", json!(1)),
        ("explicit_content_filter", json!(0)),
        ("team", Value::Null),
        ("eligible_oauth2_scopes", json!(["bot"])),
    ] {
        object.entry(name).or_insert(value);
    }
    if object["flags_new"].is_null() {
        let flags = object["flags"].as_u64().unwrap_or(0).to_string();
        object.insert("flags_new".into(), json!(flags));
    }
    if let Some(owner) = application.get("owner") {
        object.insert("owner".into(), rest_user(owner));
    }
    rest
}
