//! Live ingestion: the real `discord-manager ingest` (serenity's own gateway and REST code) as
//! a child process pointed at the fake Discord (`fake_discord`) with `DISCORD_API_BASE`, and
//! the product's own `--json` answers as the window on the store.
//!
//! Waits are on deterministic signals: a line the daemon logs, a record of the fake, or the
//! product's own answer polled until it holds (the poll's pauses are never the proof).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::fake_discord::FakeDiscord;
use super::mcp::BINARY;
use super::store::Store;
/// How long a spec waits for something the product should do within a second or two.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The messages `catch-up` shows for one channel since an instant (up to 500).
pub fn caught_up(store: &Store, channel: &str, since: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut page = store.cli().json_value(&[
        "catch-up",
        "--channel-id",
        channel,
        "--since",
        since,
        "--limit",
        "500",
    ]);
    // Every page of the window, following the cursor as an assistant would.
    loop {
        messages.extend(
            page["channels"]
                .as_array()
                .and_then(|channels| channels.first())
                .and_then(|channel| channel["messages"].as_array().cloned())
                .unwrap_or_default(),
        );
        let Some(cursor) = page["nextCursor"].as_str().map(str::to_string) else {
            return messages;
        };
        page = store.cli().json_value(&[
            "catch-up",
            "--channel-id",
            channel,
            "--cursor",
            &cursor,
            "--limit",
            "500",
        ]);
    }
}

/// The beginning of time, for a catch-up of everything.
pub const EVER: &str = "2000-01-01T00:00:00Z";

/// The store's status (`status --json`).
pub fn status(store: &Store) -> Value {
    store.cli().json_value(&["status"])
}

/// Polls catch-up of one channel until `done` holds on its messages; returns them.
pub fn caught_up_until(
    store: &Store,
    channel: &str,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let messages = caught_up(store, channel, EVER);
        if done(&messages) {
            return messages;
        }
        if Instant::now() >= deadline {
            panic!("waited {PATIENCE:?} for {what}; catch-up shows {messages:#?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Now less a minute, in whole minutes, as milliseconds since the Unix epoch: the newest
/// message of a history posted before the daemon first ran.
pub fn a_minute_ago_ms() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_millis() as u64;
    now / 60_000 * 60_000 - 60_000
}

/// Posts `count` messages to `channel`'s history as if before the daemon ever ran, the newest
/// at `newest_ms` and each `every_minutes` before the next, each with the snowflake Discord
/// mints at its instant; returns their ids, newest first (index k: k × `every_minutes` old).
pub fn history_before_install(
    fake: &FakeDiscord,
    channel: &str,
    newest_ms: u64,
    every_minutes: u64,
    count: u64,
) -> Vec<String> {
    const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;
    let mut ids = Vec::new();
    let mut lines = Vec::new();
    for k in 0..count {
        let at_ms = newest_ms - k * every_minutes * 60_000;
        let id = ((at_ms - DISCORD_EPOCH_MS) << 22).to_string();
        let author = if k % 2 == 0 {
            super::fake_discord::GRACE
        } else {
            super::fake_discord::LINUS
        };
        let mut line = FakeDiscord::message_value(&id, channel, author, &format!("message {k}"));
        line["d"]["timestamp"] = Value::String(
            discord_manager_vocabulary::instant::Instant::from_micros(at_ms as i64 * 1_000)
                .to_iso(),
        );
        lines.push(line.to_string());
        ids.push(id);
    }
    fake.post_offline(&lines.join("\n"));
    ids
}

/// The ids of messages, in the order given.
pub fn ids(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(|message| {
            message["messageId"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Lines a child wrote, shared with the threads that read them.
#[derive(Default)]
struct Lines {
    lines: Mutex<Vec<String>>,
    added: Condvar,
}

/// A store that ingest filled from the fake's demo guild (the daemon is stopped again), with
/// sends going to the fake: a send's checks know the channels, and the only requests the fake
/// receives from then on are the spec's.
pub fn store_sending_to(fake: &FakeDiscord) -> Store {
    let store = Store::without_owner().sending_to(fake);
    let daemon = Daemon::start(fake, &store);
    daemon.wait_until_caught_up(1);
    daemon.stop();
    store
}

/// A running `discord-manager ingest`.
pub struct Daemon {
    child: Child,
    output: Arc<Lines>,
    token: String,
    gateway: String,
    status: Option<ExitStatus>,
}

/// How a daemon is started.
pub struct Start<'a> {
    pub token: &'a str,
    pub rust_log: &'a str,
    pub arguments: &'a [&'a str],
}

impl Daemon {
    /// Starts `ingest` against the fake, with the fake's token.
    pub fn start(fake: &FakeDiscord, store: &Store) -> Daemon {
        Daemon::start_with(
            fake,
            store,
            Start {
                token: fake.token(),
                rust_log: "warn,discord_manager=info",
                arguments: &[],
            },
        )
    }

    /// Starts `ingest` against the fake with these variables added to the store's environment.
    pub fn start_with_env(fake: &FakeDiscord, store: &Store, extra: &[(&str, &str)]) -> Daemon {
        Daemon::spawn(
            fake,
            store,
            Start {
                token: fake.token(),
                rust_log: "warn,discord_manager=info",
                arguments: &[],
            },
            extra,
        )
    }

    pub fn start_with(fake: &FakeDiscord, store: &Store, start: Start<'_>) -> Daemon {
        Daemon::spawn(fake, store, start, &[])
    }

    fn spawn(
        fake: &FakeDiscord,
        store: &Store,
        start: Start<'_>,
        extra: &[(&str, &str)],
    ) -> Daemon {
        let mut child = Command::new(BINARY)
            .env_clear()
            .envs(store.env())
            .envs(extra.iter().copied())
            .current_dir(store.folder())
            .arg("ingest")
            .args(start.arguments)
            .env("DISCORD_TOKEN", start.token)
            .env("DISCORD_API_BASE", fake.api_base())
            .env("RUST_LOG", start.rust_log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ingest starts");
        let output = Arc::new(Lines::default());
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let output = Arc::clone(&output);
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    output.lines.lock().unwrap().push(line);
                    output.added.notify_all();
                }
            });
        }
        Daemon {
            child,
            output,
            token: start.token.to_string(),
            gateway: fake.gateway_url().to_string(),
            status: None,
        }
    }

    /// The daemon's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the daemon wrote so far (stdout and stderr).
    pub fn output(&self) -> Vec<String> {
        self.output.lines.lock().unwrap().clone()
    }

    /// Waits until the daemon writes a line containing `needle` (the `nth` such line, from 1);
    /// returns it.
    pub fn wait_for_nth(&self, needle: &str, nth: usize) -> String {
        let deadline = Instant::now() + PATIENCE;
        let mut lines = self.output.lines.lock().unwrap();
        loop {
            if let Some(line) = lines
                .iter()
                .filter(|line| line.contains(needle))
                .nth(nth - 1)
            {
                return line.clone();
            }
            let now = Instant::now();
            assert!(
                now < deadline,
                "waited {PATIENCE:?} for the daemon to log {needle:?} (#{nth}); it logged:\n{}",
                lines.join("\n")
            );
            lines = self
                .output
                .added
                .wait_timeout(lines, deadline - now)
                .unwrap()
                .0;
        }
    }

    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_for_nth(needle, 1)
    }

    /// Waits for the start-up backfill of the demo guild: the daemon is connected, has
    /// recorded the guild and proved its channels complete.
    pub fn wait_until_caught_up(&self, nth: usize) {
        self.wait_for_nth("for guild Lighthouse Labs", nth);
    }

    /// Waits for the daemon to exit and returns how.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("the daemon can be waited on") {
                self.status = Some(status);
                // Let the readers take the last lines.
                std::thread::sleep(Duration::from_millis(50));
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the daemon did not exit within {timeout:?}; it logged:\n{}",
                self.output().join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `kill -9`: no chance to clean up.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        self.status = Some(self.child.wait().expect("the daemon can be waited on"));
    }

    /// `kill -9`, then two messages posted in #general while the daemon is down (`down1` by
    /// Grace, `down2` by Linus), then a new daemon, caught up once.
    pub fn kill9_and_restart_after_two_posts(
        mut self,
        fake: &FakeDiscord,
        store: &Store,
    ) -> Daemon {
        use super::fake_discord::{GENERAL, GRACE, LINUS};
        self.kill9();
        fake.post_offline(
            &[
                FakeDiscord::message_line("@id:down1", GENERAL, GRACE, "posted while down"),
                FakeDiscord::message_line("@id:down2", GENERAL, LINUS, "also while down"),
            ]
            .join("\n"),
        );
        let daemon = Daemon::start(fake, store);
        daemon.wait_until_caught_up(1);
        daemon
    }

    /// SIGTERM, then waits for the exit; returns how it exited.
    pub fn terminate(&mut self) -> ExitStatus {
        self.send_sigterm();
        self.wait_exit(PATIENCE)
    }

    /// SIGTERM, without waiting for the exit.
    pub fn send_sigterm(&self) {
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM could not be sent");
    }

    /// What every spec checks at the end: the daemon only ever used the fake's gateway, and
    /// the token never appeared in anything it wrote.
    pub fn assert_hygiene(&self) {
        let output = self.output();
        for line in &output {
            assert!(
                !line.contains(&self.token),
                "the token appeared in the daemon's output: {line}"
            );
            if let Some((_, url)) = line.split_once("connecting to the gateway at ") {
                assert!(
                    url.starts_with(&self.gateway),
                    "the daemon connected to a gateway other than the fake's: {line}"
                );
            }
        }
    }

    /// SIGTERM, a clean exit, and the hygiene checks.
    pub fn stop(mut self) {
        let status = self.terminate();
        assert!(
            status.success(),
            "the daemon did not stop cleanly ({status}); it logged:\n{}",
            self.output().join("\n")
        );
        self.assert_hygiene();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Polls `schedules list` until `done` holds on the scheduled messages; returns them.
pub fn schedules_until(
    store: &Store,
    what: &str,
    done: impl Fn(&[super::Schedule]) -> bool,
) -> Vec<super::Schedule> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let listed: super::Schedules = store.cli().json(&["schedules", "list"]);
        if done(&listed.schedules) {
            return listed.schedules;
        }
        if Instant::now() >= deadline {
            panic!("waited {PATIENCE:?} for {what}; schedules list shows {listed:#?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
