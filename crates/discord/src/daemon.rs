//! `discord-manager ingest`: the supervisor that ties the REST client, serenity's gateway
//! client, the writer thread and the backfill worker together, and stops them cleanly.
//!
//! Start-up checks the token over REST (`/users/@me`), records the application's owner, asks
//! the configured API base for the gateway URL itself (serenity would silently fall back to
//! the real gateway if that request failed; here a failure is an error, and a loopback API
//! base must answer a loopback gateway) and sets that URL on the client. Every IDENTIFY is
//! recorded and paced by the budget in [`super::budget`]. The scheduler
//! ([`discord_manager_core::business::schedules::job::run_schedules`]) sends scheduled
//! messages as they fall due, through the same REST client. SIGINT and SIGTERM stop the client and the scheduler, let the
//! writer commit everything received, and record a clean stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use discord_manager_attachments::Cache;
use discord_manager_core::business::kernel::context::{OwnerContext, Source, build_owner_context};
use discord_manager_core::business::schedules;
use discord_manager_core::config::ImportWindow;
use discord_manager_core::config::{Config, GuildScope};
use discord_manager_ingest::channels::kind_of;
use discord_manager_ingest::ids::TypedId;
use discord_manager_store::{GatewayEventKind, IdentitySource, Store};
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::ChannelAccess;
use discord_manager_vocabulary::snowflake;
use serenity::gateway::{ConnectionStage, GatewayError, ShardManager, ShardRunnerMessage};
use serenity::model::channel::{ChannelType, GuildChannel};
use serenity::model::gateway::GatewayIntents;
use serenity::model::id::{ChannelId, GuildId};
#[cfg(unix)]
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::{mpsc, watch};
use tokio::task::{JoinError, JoinHandle};
use tracing::{info, warn};

use super::attachment_fetcher::Fetcher;
use super::backfill::{self, Batch};
use super::budget;
use super::cdn::CdnPolicy;
use super::channel_work::{ChannelJob, blocking};
use super::gateway::{Notice, Received, Writer, relay};
use super::gateway_tap::GatewayTap;
use super::identify_watch::IdentifyCount;
use super::rest::{Rest, RestError, RetryPolicy};
use super::sender::RestSender;

/// The events the store needs: guilds, channels, roles; guild and direct messages with their
/// content (Message Content is privileged: enable it in the Developer Portal); reactions; poll
/// votes.
pub fn intents() -> GatewayIntents {
    GatewayIntents::GUILDS
        | GatewayIntents::GUILD_MESSAGES
        | GatewayIntents::GUILD_MESSAGE_REACTIONS
        | GatewayIntents::DIRECT_MESSAGES
        | GatewayIntents::DIRECT_MESSAGE_REACTIONS
        | GatewayIntents::MESSAGE_CONTENT
        | GatewayIntents::GUILD_MESSAGE_POLLS
        | GatewayIntents::DIRECT_MESSAGE_POLLS
}

/// What the owner may tune on the command line.
#[derive(Debug, Clone, Copy)]
pub struct IngestOptions {
    /// How often every channel is checked against Discord for missed messages.
    pub repair_every: Duration,
    /// How often a sign of life is recorded while connected.
    pub alive_every: Duration,
    /// How much history from before the store began is imported for each channel.
    pub import: ImportWindow,
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            repair_every: backfill::DEFAULT_REPAIR_EVERY,
            alive_every: Duration::from_secs(30),
            import: ImportWindow::DEFAULT,
        }
    }
}

/// Runs the daemon until SIGINT or SIGTERM (Ok) or a fatal error (the token rejected, the
/// intents refused).
///
/// `identifies` is the count of IDENTIFYs the process's tracing layer sees leave
/// ([`identify_watch`](super::identify_watch)); the IDENTIFY budget counts serenity's own from it.
pub fn run_ingest(
    config: &Config,
    store: Store,
    options: IngestOptions,
    identifies: IdentifyCount,
) -> Result<()> {
    // Before any request: a second daemon on this store leaves without touching Discord.
    let _claim = store.claim_ingest()?;
    // One thread for everything async: serenity spawns a task per dispatch, and on a
    // single-threaded runtime they run in the order they were spawned, so the writer receives
    // events in the order the gateway sent them (a READY before its GUILD_CREATEs).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::internal("Cannot start the runtime").with_source(error))?;
    runtime.block_on(supervise(config, Arc::new(store), options, identifies))
}

/// The signals that stop the daemon cleanly: SIGTERM and SIGINT on Unix, Ctrl-C elsewhere.
#[cfg(unix)]
struct Signals {
    terminate: Signal,
    interrupt: Signal,
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn listen() -> Result<Signals> {
        Ok(Signals)
    }

    async fn next(&mut self) -> &'static str {
        match tokio::signal::ctrl_c().await {
            Ok(()) => "Ctrl-C",
            // No console to listen on: nothing will ask the daemon to stop but its supervisor.
            Err(_) => std::future::pending().await,
        }
    }
}

#[cfg(unix)]
impl Signals {
    fn listen() -> Result<Signals> {
        let listen = |kind| {
            signal(kind).map_err(|error| {
                Error::internal("Cannot listen for stop signals").with_source(error)
            })
        };
        Ok(Signals {
            terminate: listen(SignalKind::terminate())?,
            interrupt: listen(SignalKind::interrupt())?,
        })
    }

    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
        }
    }
}

/// Whether a URL's host is this machine.
fn is_loopback(url: &str) -> bool {
    let Some(url) = reqwest::Url::parse(url).ok() else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A local API base (a fake Discord) must answer a local gateway: never let a test setup reach
/// the real gateway.
fn check_gateway(base: &str, gateway: &str) -> Result<()> {
    if is_loopback(base) && !is_loopback(gateway) {
        return Err(Error::config(format!(
            "DISCORD_API_BASE is a local address ({base}) but its /api/v10/gateway answered \
             {gateway}: refusing to connect a local setup to a gateway elsewhere"
        )));
    }
    Ok(())
}

/// The error a gateway failure ends the daemon with, if it is fatal.
fn fatal(error: &serenity::Error) -> Option<Error> {
    match error {
        serenity::Error::Gateway(GatewayError::InvalidAuthentication) => Some(Error::new(
            ErrorKind::Discord,
            "Discord rejected the bot token (gateway close code 4004, authentication failed): \
             check DISCORD_TOKEN",
        )),
        serenity::Error::Gateway(GatewayError::DisallowedGatewayIntents) => Some(Error::new(
            ErrorKind::Discord,
            "Discord refused the gateway intents (close code 4014): enable the Message Content \
             intent for this bot (Discord Developer Portal → your application → Bot → \
             Privileged Gateway Intents)",
        )),
        serenity::Error::Gateway(GatewayError::InvalidGatewayIntents) => Some(Error::new(
            ErrorKind::Discord,
            "Discord says the gateway intents are invalid (close code 4013)",
        )),
        _ => None,
    }
}

/// How long a stop waits for a gateway connection that is still being opened.
const CONNECT_PATIENCE: Duration = Duration::from_secs(10);

/// Stops serenity's client and waits for it. Each running shard is told to shut down
/// directly first: after serenity restarts a shard by itself, its manager's `shutdown_all`
/// finds a stale "finished" notice from that restart, forgets the new runner without telling
/// it, and leaves it connected (and holding a relay, so the writer's queue would never close).
///
/// While the shard is still connecting it has no runner yet, and `shutdown_all` returns at
/// once without stopping anything: the shard would then connect and run for ever. So the stop
/// waits for the runner to exist (serenity offers no notice of it, hence the short polls), and
/// if the connection never comes up within [`CONNECT_PATIENCE`], the client is dropped instead.
async fn stop_client(manager: &ShardManager, mut running: JoinHandle<serenity::Result<()>>) {
    let deadline = tokio::time::Instant::now() + CONNECT_PATIENCE;
    while manager.runners.lock().await.is_empty() && !running.is_finished() {
        if tokio::time::Instant::now() >= deadline {
            warn!("the gateway connection did not come up; dropping it");
            running.abort();
            let _ = (&mut running).await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shut_down_shards(manager).await;
    let _ = running.await;
}

/// Tells each running shard to shut down, then the manager (see [`stop_client`] for why both).
async fn shut_down_shards(manager: &ShardManager) {
    for (id, runner) in manager.runners.lock().await.iter() {
        runner
            .runner_tx
            .send_to_shard(ShardRunnerMessage::Shutdown(*id, 1000));
    }
    manager.shutdown_all().await;
}

/// Records `count` IDENTIFYs serenity sent by itself (a session that could not be resumed).
fn record_reidentifies(store: &Store, count: u64) -> Result<()> {
    store.write(|writer| {
        for _ in 0..count {
            writer.record_gateway_event(
                GatewayEventKind::Identify,
                None,
                Some("serenity identified again: the session could not be resumed"),
            )?;
        }
        Ok(())
    })
}

/// What the IDENTIFY budget says now.
struct IdentifyBudget {
    /// How long to wait before the next IDENTIFY.
    wait: Duration,
    /// The IDENTIFYs the budget counted (those within its window).
    recent: usize,
}

/// The one budget check, over the IDENTIFYs the store recorded within the budget's window: the
/// identify-wait waits for it, and a session that sees serenity identify again ends on it.
fn identify_budget(store: &Store) -> Result<IdentifyBudget> {
    let since = Instant::now().minus_seconds(budget::window().as_secs() as i64);
    let history =
        store.read(|reader| reader.gateway_events_since(GatewayEventKind::Identify, since))?;
    Ok(IdentifyBudget {
        wait: budget::identify_delay(&history, Instant::now()),
        recent: history.len(),
    })
}

/// The IDENTIFYs one gateway client sent, as [`identify_watch`](super::identify_watch) sees them leave.
struct Identifies {
    sent: watch::Receiver<u64>,
    /// The count when last asked.
    seen: u64,
    /// The client's first IDENTIFY, which [`Supervisor::connect`] records before it is sent.
    first_pending: bool,
}

impl Identifies {
    /// Counts every IDENTIFY `count` sees sent from now on.
    fn watch(count: &IdentifyCount) -> Identifies {
        let mut sent = count.watch();
        let seen = *sent.borrow_and_update();
        Identifies {
            sent,
            seen,
            first_pending: true,
        }
    }

    /// The IDENTIFYs sent since last asked that nothing recorded yet.
    fn unrecorded(&mut self) -> u64 {
        let sent = *self.sent.borrow_and_update();
        let mut unrecorded = sent.saturating_sub(self.seen);
        self.seen = sent;
        if self.first_pending && unrecorded > 0 {
            self.first_pending = false;
            unrecorded -= 1;
        }
        unrecorded
    }
}

async fn connected(manager: &ShardManager) -> bool {
    manager
        .runners
        .lock()
        .await
        .values()
        .any(|runner| runner.stage == ConnectionStage::Connected)
}

/// Records the application's owner (the default owner when DISCORD_OWNER_ID is not set): the
/// team's owner for a team application, else the owner.
async fn learn_owner(rest: &Rest, store: &Arc<Store>) {
    match rest.application_owner().await {
        Ok(Some(owner)) => {
            let store = Arc::clone(store);
            let recorded = tokio::task::spawn_blocking(move || {
                discord_manager_ingest::guilds::record_application_owner(
                    &store,
                    &owner,
                    IdentitySource::Application,
                )
            })
            .await;
            if let Ok(Err(error)) = recorded {
                warn!("could not record the application's owner: {error:#}");
            }
        }
        Ok(None) => warn!("Discord did not say who owns the application"),
        Err(error) => warn!(
            "could not learn the application's owner: {}",
            error.describe()
        ),
    }
}

/// How far the host's clock may drift from Discord's before the daemon warns. Discord's `Date`
/// header has whole seconds, so a smaller figure would warn about rounding.
pub const CLOCK_WARNING_MS: i64 = 5_000;

/// Records Discord's clock beside the host's, as the REST client last saw it, and warns when
/// they disagree by more than a few seconds. Coverage never depends on the host's clock, but
/// the arrival clock, `since` windows and schedules do.
async fn record_discord_clock(rest: &Rest, store: &Arc<Store>) {
    let Some(reading) = rest.discord_clock() else {
        return;
    };
    let ahead = reading.host_ahead_ms();
    if ahead.abs() > CLOCK_WARNING_MS {
        warn!(
            host_ahead_ms = ahead,
            "this machine's clock is {:.0} s {} Discord's (Discord's Date header said {}): \
             set the clock (NTP) so that schedules and time windows mean what they say",
            ahead.abs() as f64 / 1_000.0,
            if ahead > 0 { "ahead of" } else { "behind" },
            reading.discord_at
        );
    }
    let store = Arc::clone(store);
    let recorded = tokio::task::spawn_blocking(move || {
        store.write(|writer| writer.record_discord_clock(reading))
    })
    .await;
    if let Ok(Err(error)) = recorded {
        warn!("could not record Discord's clock: {error:#}");
    }
}

/// Start-up over REST: the token, the owner, the gateway URL.
async fn prepare(rest: &Rest, store: &Arc<Store>) -> Result<String> {
    info!("Discord REST API: {}", rest.base());
    let me = rest.current_user().await?;
    info!("the token belongs to the bot {} ({})", me.name, me.id);
    learn_owner(rest, store).await;
    let gateway = rest.gateway_url().await.map_err(|error| {
        Error::new(
            ErrorKind::Discord,
            format!(
                "Cannot learn the gateway URL from {}: {} (refusing to guess one)",
                rest.url_of(&serenity::http::Route::Gateway),
                error.describe()
            ),
        )
    })?;
    check_gateway(rest.base(), &gateway)?;
    record_discord_clock(rest, store).await;
    Ok(gateway)
}

/// How a gateway session ended.
enum SessionEnd {
    /// Connect again, once the identify-wait allows.
    Reconnect,
    /// A stop signal (its name): stop cleanly.
    Stopped(&'static str),
    /// A fatal error: leave promptly.
    Failed(Error),
}

/// What runs beside the gateway for the whole run.
struct Workers {
    /// The store writer's thread ([`Writer`]).
    writer: std::thread::JoinHandle<()>,
    /// [`backfill::run_worker`].
    backfill: JoinHandle<Result<()>>,
    /// [`schedules::job::run_schedules`].
    scheduler: JoinHandle<()>,
    /// [`repair_loop`].
    repairs: JoinHandle<()>,
    /// [`Fetcher::run`], unless the owner keeps no attachments' files.
    attachments: Option<JoinHandle<()>>,
    /// [`super::embedder::run`], unless search by meaning is off.
    embedder: Option<JoinHandle<()>>,
    /// [`super::payload_reader::run`]: every kept payload read again after an upgrade.
    payload_reader: JoinHandle<()>,
}

/// The supervisor of one `ingest` run, in four steps: [`Supervisor::start`] (the REST checks,
/// then the workers), the [identify-wait](Supervisor::identify_wait) (the one place the
/// IDENTIFY budget is waited for), a [session](Supervisor::session) per gateway client, and
/// [shutdown](Supervisor::shut_down).
struct Supervisor {
    store: Arc<Store>,
    rest: Arc<Rest>,
    /// The gateway URL start-up learned and checked.
    gateway: String,
    signals: Signals,
    /// The IDENTIFYs the process's tracing layer saw leave.
    identifies: IdentifyCount,
    alive_every: Duration,
    /// Into the writer's queue. Every gateway client's relay holds a clone, so the queue closes,
    /// and the writer finishes, only once the last client is gone and this is dropped.
    queue: mpsc::UnboundedSender<Received>,
    /// Into the backfill worker's queue, open until the writer (which also sends to it) drained.
    backfill: mpsc::UnboundedSender<Batch>,
    notices: mpsc::UnboundedReceiver<Notice>,
    /// Turns true when the workers are to stop.
    stopping: watch::Sender<bool>,
    /// Events committed this run.
    stored: Arc<AtomicU64>,
    workers: Workers,
}

/// Runs the supervisor's steps: start, then sessions (each after the identify-wait) until a stop
/// signal or a fatal error, then shutdown.
async fn supervise(
    config: &Config,
    store: Arc<Store>,
    options: IngestOptions,
    identifies: IdentifyCount,
) -> Result<()> {
    let Some(mut supervisor) = Supervisor::start(config, store, options, identifies).await? else {
        return Ok(());
    };
    let outcome = supervisor.run_sessions().await;
    supervisor.shut_down(outcome).await
}

impl Supervisor {
    /// Start-up: the token, the checks over REST, then the workers. A stop signal before the
    /// checks are done ends the run there (None).
    async fn start(
        config: &Config,
        store: Arc<Store>,
        options: IngestOptions,
        identifies: IdentifyCount,
    ) -> Result<Option<Supervisor>> {
        let token = config.token.clone().ok_or_else(|| {
            Error::config("ingest needs the bot token: set DISCORD_TOKEN (in the environment, the env file DISCORD_MANAGER_ENV_FILE names, or the config file)")
        })?;
        let mut signals = Signals::listen()?;
        let rest = Arc::new(Rest::new(
            &token,
            config.api_base.as_deref(),
            RetryPolicy::default(),
        )?);
        let gateway = tokio::select! {
            prepared = prepare(&rest, &store) => prepared?,
            name = signals.next() => {
                info!("stopping: {name} received before connecting");
                return Ok(None);
            }
        };
        Supervisor::launch(config, options, store, rest, gateway, signals, identifies).map(Some)
    }

    /// Starts what runs beside the gateway for the whole run: the writer thread, the backfill
    /// worker, the scheduler and the repairs.
    fn launch(
        config: &Config,
        options: IngestOptions,
        store: Arc<Store>,
        rest: Arc<Rest>,
        gateway: String,
        signals: Signals,
        identifies: IdentifyCount,
    ) -> Result<Supervisor> {
        let (queue, queued) = mpsc::unbounded_channel();
        let (backfill, batches) = mpsc::unbounded_channel();
        let (notify, notices) = mpsc::unbounded_channel();
        let (stopping, stop) = watch::channel(false);
        let stored = Arc::new(AtomicU64::new(0));
        let writer = spawn_writer(
            Writer {
                store: Arc::clone(&store),
                guild_scope: config.guild_scope.clone(),
                run_started_at: Instant::now(),
                backfill: backfill.clone(),
                notices: notify,
                stored: Arc::clone(&stored),
            },
            queued,
        )?;
        let backfill_worker = tokio::spawn(backfill::run_worker(
            Arc::clone(&rest),
            Arc::clone(&store),
            batches,
            stop.clone(),
            options.import,
        ));
        // Built after start-up learned the owner; the scheduler checks every message against it
        // again when it falls due (read-only mode, the channel's permissions by then).
        let context = build_owner_context(config, &store, Source::Daemon)?;
        let attachments = spawn_fetcher(config, &store, &rest, stop.clone())?;
        let embedder = if config.meaning {
            Some(tokio::spawn(super::embedder::run(
                Arc::clone(&store),
                stop.clone(),
            )))
        } else {
            info!("messages are not embedded for search by meaning (DISCORD_MANAGER_MEANING=off)");
            None
        };
        let payload_reader =
            tokio::spawn(super::payload_reader::run(Arc::clone(&store), stop.clone()));
        let scheduler = spawn_scheduler(&store, &rest, context, stop);
        let repairs = tokio::spawn(repair_loop(
            Arc::clone(&rest),
            Arc::clone(&store),
            config.guild_scope.clone(),
            backfill.clone(),
            options.repair_every,
        ));
        Ok(Supervisor {
            store,
            rest,
            gateway,
            signals,
            identifies,
            alive_every: options.alive_every,
            queue,
            backfill,
            notices,
            stopping,
            stored,
            workers: Workers {
                writer,
                backfill: backfill_worker,
                scheduler,
                repairs,
                attachments,
                embedder,
                payload_reader,
            },
        })
    }

    /// Gateway sessions one after another, each once the identify-wait allows it, until a stop
    /// signal (its name) or a fatal error.
    async fn run_sessions(&mut self) -> Result<&'static str> {
        loop {
            if let Some(name) = self.identify_wait().await? {
                return Ok(name);
            }
            match self.session().await {
                SessionEnd::Reconnect => {}
                SessionEnd::Stopped(name) => return Ok(name),
                SessionEnd::Failed(error) => return Err(error),
            }
        }
    }

    /// Waits as long as the IDENTIFY budget says before the next session's IDENTIFY; a stop
    /// signal meanwhile ends the run (its name).
    async fn identify_wait(&mut self) -> Result<Option<&'static str>> {
        let budget = identify_budget(&self.store)?;
        if budget.wait.is_zero() {
            return Ok(None);
        }
        warn!(
            "waiting {} before identifying: {} identifies in the last {} minutes \
             (Discord resets a bot's token after 1000 in a day)",
            budget::describe(budget.wait),
            budget.recent,
            budget::window().as_secs() / 60
        );
        tokio::select! {
            _ = tokio::time::sleep(budget.wait) => Ok(None),
            name = self.signals.next() => Ok(Some(name)),
        }
    }

    /// One gateway client, from its first IDENTIFY until it stops by itself or must be stopped:
    /// a stop signal, serenity identifying again past the budget, a store that cannot be
    /// written.
    async fn session(&mut self) -> SessionEnd {
        // The tap lives as long as the session: dropped after serenity's client has stopped
        // (or at any return), it ends its relays, and with them this session's dispatches.
        let (client, mut identifies, _tap) = match self.connect().await {
            Ok(connected) => connected,
            Err(error) => return SessionEnd::Failed(error),
        };
        let manager = Arc::clone(&client.shard_manager);
        let mut client = client;
        let mut running = tokio::spawn(async move { client.start().await });
        let mut alive = tokio::time::interval_at(
            tokio::time::Instant::now() + self.alive_every,
            self.alive_every,
        );
        let end = loop {
            let end = tokio::select! {
                finished = &mut running => return client_finished(&manager, finished).await,
                name = self.signals.next() => {
                    info!("stopping: {name} received");
                    Some(SessionEnd::Stopped(name))
                }
                // READY is not enough: an IDENTIFY Discord closes before READY counts too.
                Ok(()) = identifies.sent.changed() => self.after_identifies(&mut identifies),
                // Identifies are counted as they leave; of the writer's notices, only a store
                // that cannot be written any more needs an answer: stop, as cleanly as a signal.
                Some(notice) = self.notices.recv() => match notice {
                    Notice::StoreUnwritable(error) => Some(SessionEnd::Failed(error)),
                    Notice::SessionStarted { .. } | Notice::Resumed => None,
                },
                _ = alive.tick() => {
                    if self.workers.writer.is_finished() {
                        // It stops by itself only when the store cannot be written: say why.
                        // Without a reason nothing records events any more: better to stop
                        // loudly (a supervisor restarts the daemon, and backfill covers the gap).
                        match self.writer_failure() {
                            Some(error) => Some(SessionEnd::Failed(error)),
                            None => return SessionEnd::Failed(Error::internal(
                                "The store writer stopped unexpectedly; see the log above",
                            )),
                        }
                    } else {
                        self.record_alive(&manager).await.err().map(SessionEnd::Failed)
                    }
                }
            };
            if let Some(end) = end {
                break end;
            }
        };
        stop_client(&manager, running).await;
        end
    }

    /// A new gateway client: its first IDENTIFY recorded before it is sent, serenity's client on
    /// our Http (the API base, the rate limiter off), pointed at a gateway tap that relays to the
    /// gateway start-up checked and hands every dispatch, as Discord sent it, to the writer.
    async fn connect(&self) -> Result<(serenity::Client, Identifies, GatewayTap)> {
        // Every IDENTIFY serenity sends from here on is counted as it leaves; the first one of
        // this client is the one recorded just below, before it is sent.
        let identifies = Identifies::watch(&self.identifies);
        self.store.write(|writer| {
            writer.record_gateway_event(GatewayEventKind::Identify, None, Some(&self.gateway))
        })?;
        let (dispatches, tapped) = mpsc::unbounded_channel();
        let tap = GatewayTap::start(self.gateway.clone(), dispatches)
            .await
            .map_err(|error| {
                Error::new(
                    ErrorKind::Discord,
                    format!("Cannot open the gateway tap on this machine's loopback: {error}"),
                )
            })?;
        tokio::spawn(relay(tapped, self.queue.clone()));
        // serenity's own events are not read: the tap's are the same dispatches, whole.
        let client =
            serenity::client::ClientBuilder::new_with_http(self.rest.client_http(), intents());
        let client = client.await.map_err(|error| {
            Error::new(
                ErrorKind::Discord,
                format!("Cannot build the gateway client: {error}"),
            )
        })?;
        // serenity asked the base for the gateway itself and silently falls back to the real
        // gateway if that failed: set the tap, which relays to the URL this daemon checked.
        *client.ws_url.lock().await = tap.url().to_owned();
        info!("connecting to the gateway at {}", self.gateway);
        Ok((client, identifies, tap))
    }

    /// Records the IDENTIFYs serenity sent by itself since last seen; when the budget then says
    /// to wait, the session ends, so that the identify-wait paces the next IDENTIFY.
    fn after_identifies(&self, identifies: &mut Identifies) -> Option<SessionEnd> {
        let unrecorded = identifies.unrecorded();
        if unrecorded == 0 {
            return None;
        }
        let budget = record_reidentifies(&self.store, unrecorded)
            .and_then(|()| identify_budget(&self.store));
        match budget {
            Ok(budget) if budget.wait.is_zero() => None,
            Ok(_) => {
                warn!("the gateway keeps needing a new session; pausing before the next IDENTIFY");
                Some(SessionEnd::Reconnect)
            }
            Err(error) => Some(SessionEnd::Failed(error)),
        }
    }

    /// Why the writer stopped, if it said so.
    fn writer_failure(&mut self) -> Option<Error> {
        while let Ok(notice) = self.notices.try_recv() {
            if let Notice::StoreUnwritable(error) = notice {
                return Some(error);
            }
        }
        None
    }

    /// A sign of life while connected, with the count of events stored this run.
    async fn record_alive(&self, manager: &ShardManager) -> Result<()> {
        if connected(manager).await {
            let detail = format!(
                "{} events stored this run",
                self.stored.load(Ordering::Relaxed)
            );
            self.store.write(|writer| {
                writer.record_gateway_event(GatewayEventKind::Alive, None, Some(&detail))
            })?;
        }
        Ok(())
    }

    /// Shutdown. The repairs stop at once; after a fatal error everything else does too (nothing
    /// more will arrive: leave promptly). After a stop signal the backfill worker and the
    /// scheduler stop between steps, the writer commits everything received, and the clean stop
    /// is recorded.
    async fn shut_down(self, outcome: Result<&'static str>) -> Result<()> {
        let Supervisor {
            store,
            queue,
            backfill,
            stopping,
            stored,
            workers,
            ..
        } = self;
        let _ = stopping.send(true);
        workers.repairs.abort();
        if let Some(attachments) = workers.attachments {
            // It stops at once: a download in progress is dropped, and fetched again next time.
            let _ = attachments.await;
        }
        if let Some(embedder) = workers.embedder {
            // It stops after its batch: a batch cut short is embedded again next time.
            let _ = embedder.await;
        }
        // It stops after its page; the next start reads again from the first.
        let _ = workers.payload_reader.await;
        let signal = match outcome {
            Ok(signal) => signal,
            Err(error) => {
                workers.backfill.abort();
                workers.scheduler.abort();
                return Err(error);
            }
        };
        let _ = workers.backfill.await;
        // A post in flight is dropped; its attempt is on record, and the next start retries it
        // with the same nonce, so Discord answers the message if it exists.
        let _ = workers.scheduler.await;
        drop(queue);
        drop(backfill);
        let writer = workers.writer;
        let drained = tokio::task::spawn_blocking(move || writer.join());
        match tokio::time::timeout(Duration::from_secs(30), drained).await {
            Ok(_) => {
                let detail = format!("stopped on {signal}");
                store.write(|writer| {
                    writer.record_gateway_event(GatewayEventKind::Stop, None, Some(&detail))
                })?;
                info!(
                    "stopped cleanly: {} events stored this run",
                    stored.load(Ordering::Relaxed)
                );
            }
            Err(_) => warn!(
                "stopped, but the gateway queue did not drain within 30 s: events still \
                 queued were not stored (the next start backfills the messages among them)"
            ),
        }
        Ok(())
    }
}

/// Starts the writer's thread on `queue`.
fn spawn_writer(
    writer: Writer,
    queue: mpsc::UnboundedReceiver<Received>,
) -> Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("store-writer".into())
        .spawn(move || writer.run(queue))
        .map_err(|error| Error::internal("Cannot start the writer").with_source(error))
}

/// Starts the attachment fetcher, which keeps files until `stop` turns true; none when the
/// owner keeps no files, or the cache folder cannot be made (said in the log: ingest goes on).
fn spawn_fetcher(
    config: &Config,
    store: &Arc<Store>,
    rest: &Arc<Rest>,
    stop: watch::Receiver<bool>,
) -> Result<Option<JoinHandle<()>>> {
    if !config.attachments.enabled {
        info!("attachments' files are not kept (DISCORD_MANAGER_ATTACHMENTS=0)");
        return Ok(None);
    }
    let cache = match Cache::open(store.path()) {
        Ok(cache) => cache,
        Err(error) => {
            warn!(
                "attachments' files are not kept this run: the cache folder {} cannot be \
                 made ({error})",
                Cache::folder_of(store.path()).display()
            );
            return Ok(None);
        }
    };
    // This daemon holds the store's ingest claim: it is the cache's one writer.
    match cache.clear_interrupted_writes() {
        Ok(0) => {}
        Ok(cleared) => info!("cleared {cleared} partial attachment downloads a crash left"),
        Err(error) => warn!("cannot clear the partial downloads a crash left: {error:#}"),
    }
    let fetcher = Fetcher::new(
        Arc::clone(store),
        Arc::clone(rest),
        cache,
        config.attachments,
        super::attachment_fetcher::FileScope {
            guilds: config.guild_scope.clone(),
            direct_messages: config.allow_dms,
        },
        CdnPolicy::for_api_base(config.api_base.as_deref()),
    )?;
    Ok(Some(tokio::spawn(fetcher.run(stop))))
}

/// Starts the scheduler, which sends what falls due until `stop` turns true.
fn spawn_scheduler(
    store: &Arc<Store>,
    rest: &Arc<Rest>,
    context: OwnerContext,
    mut stop: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let sender = RestSender::new(Arc::clone(rest), Arc::clone(store));
    let store = Arc::clone(store);
    tokio::spawn(async move {
        let stopping = async move {
            let _ = stop.wait_for(|stopping| *stopping).await;
        };
        schedules::job::run_schedules(&store, &sender, &context, stopping).await;
    })
}

/// What a gateway client that stopped by itself means: a fatal close or a crash ends the run;
/// anything else connects again, once serenity's shards are told to stop.
async fn client_finished(
    manager: &ShardManager,
    finished: std::result::Result<serenity::Result<()>, JoinError>,
) -> SessionEnd {
    match finished {
        Ok(Ok(())) => warn!("the gateway client stopped by itself; starting it again"),
        Ok(Err(error)) => {
            if let Some(fatal) = fatal(&error) {
                return SessionEnd::Failed(fatal);
            }
            warn!("the gateway client failed ({error:#}); starting it again");
            shut_down_shards(manager).await;
        }
        Err(error) => {
            return SessionEnd::Failed(Error::internal(format!(
                "The gateway client crashed: {error}"
            )));
        }
    }
    SessionEnd::Reconnect
}

/// How soon after start the first repair pass runs (at most).
const FIRST_REPAIR_AFTER: Duration = Duration::from_secs(10);

/// Every `every`, checks each channel against Discord and backfills those with messages
/// beyond their coverage (what the gateway never delivered, or serenity could not parse).
async fn repair_loop(
    rest: Arc<Rest>,
    store: Arc<Store>,
    guild_scope: GuildScope,
    backfill: mpsc::UnboundedSender<Batch>,
    every: Duration,
) {
    // A first pass soon after start (once the gateway's guilds are in the store) discovers
    // what a session cannot announce: threads archived while the daemon was down.
    let first = every.min(FIRST_REPAIR_AFTER);
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + first, every);
    loop {
        ticker.tick().await;
        if let Err(error) = repair_pass(&rest, &store, &guild_scope, &backfill).await {
            warn!("the periodic repair failed: {error:#}");
        }
    }
}

/// Every archived thread, public and private, of the readable channels among `seen` that can
/// hold threads, paging Discord's lists to their end. Private ones need Manage Threads: a
/// refusal there is expected and skipped quietly; any other failure is logged and the rest
/// goes on (the next repair tries again).
async fn archived_threads(
    rest: &Rest,
    store: &Arc<Store>,
    seen: &[GuildChannel],
) -> Vec<GuildChannel> {
    let parents: Vec<ChannelId> = {
        let store = Arc::clone(store);
        let candidates: Vec<u64> = seen
            .iter()
            .filter(|channel| {
                matches!(
                    channel.kind,
                    ChannelType::Text | ChannelType::News | ChannelType::Forum
                ) || u8::from(channel.kind) == 16
            })
            .map(|channel| channel.id.get())
            .collect();
        let readable = tokio::task::spawn_blocking(move || {
            store.read(|reader| {
                let mut readable = Vec::new();
                for id in candidates {
                    if reader
                        .channel(&ChannelId::new(id).typed())?
                        .is_some_and(|known| known.access == ChannelAccess::Readable)
                    {
                        readable.push(ChannelId::new(id));
                    }
                }
                Ok(readable)
            })
        })
        .await;
        match readable {
            Ok(Ok(readable)) => readable,
            _ => return Vec::new(),
        }
    };
    let mut found = Vec::new();
    for parent in parents {
        for private in [false, true] {
            let mut before: Option<String> = None;
            loop {
                let page = match rest
                    .archived_threads(parent, private, before.as_deref())
                    .await
                {
                    Ok(page) => page,
                    Err(RestError::Forbidden(_)) => break,
                    Err(error) => {
                        warn!(channel = %parent, "repair: cannot list archived threads: {}", error.describe());
                        break;
                    }
                };
                let oldest = page
                    .threads
                    .iter()
                    .filter_map(|thread| thread.thread_metadata.as_ref())
                    .filter_map(|metadata| metadata.archive_timestamp)
                    .min();
                let more = page.has_more && !page.threads.is_empty();
                found.extend(page.threads);
                match oldest.and_then(|oldest| oldest.to_rfc3339()) {
                    Some(oldest) if more => before = Some(oldest),
                    _ => break,
                }
            }
        }
    }
    found
}

/// One repair: each guild in scope the store holds channels of, listed over REST and queued
/// for backfill; Discord's clock beside the host's; each direct-message channel, asked for its
/// newest message and queued.
async fn repair_pass(
    rest: &Rest,
    store: &Arc<Store>,
    guild_scope: &GuildScope,
    backfill: &mpsc::UnboundedSender<Batch>,
) -> Result<()> {
    let channels = {
        let store = Arc::clone(store);
        blocking(move || store.read(|reader| reader.channels())).await?
    };
    let mut guilds: Vec<snowflake::GuildId> = channels
        .iter()
        .filter(|channel| !channel.removed)
        .filter_map(|channel| channel.guild_id)
        .filter(|guild| guild_scope.includes(guild))
        .collect();
    guilds.sort();
    guilds.dedup();
    for guild in guilds {
        repair_guild(rest, store, &guild, backfill).await?;
    }
    record_discord_clock(rest, store).await;
    let mut direct = Vec::new();
    for mut job in backfill::direct_jobs(&channels) {
        if let Ok(serenity::model::channel::Channel::Private(private)) =
            rest.channel(job.channel_id).await
        {
            job.last_message_id = private.last_message_id;
            direct.push(job);
        }
    }
    if !direct.is_empty() {
        let _ = backfill.send(Batch {
            reason: "repair",
            label: "direct messages".to_string(),
            channels: direct,
        });
    }
    Ok(())
}

/// Lists a guild's channels, active threads and archived threads over REST, records them, and
/// queues for backfill those with newer messages. A listing Discord refuses is logged and the
/// guild left to the next repair.
async fn repair_guild(
    rest: &Rest,
    store: &Arc<Store>,
    guild: &snowflake::GuildId,
    backfill: &mpsc::UnboundedSender<Batch>,
) -> Result<()> {
    let guild_id = GuildId::new(guild.get());
    let mut seen = match rest.guild_channels(guild_id).await {
        Ok(channels) => channels,
        Err(error) => {
            warn!(guild = %guild, "repair: cannot list the guild's channels: {}", error.describe());
            return Ok(());
        }
    };
    match rest.active_threads(guild_id).await {
        Ok(threads) => seen.extend(threads.threads),
        Err(error) => {
            warn!(guild = %guild, "repair: cannot list active threads: {}", error.describe())
        }
    }
    let archived = archived_threads(rest, store, &seen).await;
    seen.extend(archived);
    let jobs = {
        let store = Arc::clone(store);
        blocking(move || record_listing(&store, &seen)).await?
    };
    let _ = backfill.send(Batch {
        reason: "repair",
        label: format!("guild {guild}"),
        channels: jobs,
    });
    Ok(())
}

/// Records what REST shows of a guild's channels like a gateway sighting (overwrites and
/// readability stay current) and answers which to backfill. A thread the store never saw
/// (created, maybe archived, while the daemon was down) begins where its id says, before its
/// first backfill reads from there.
fn record_listing(store: &Store, listed: &[GuildChannel]) -> Result<Vec<ChannelJob>> {
    for channel in listed {
        discord_manager_ingest::channels::record_channel(store, channel)?;
    }
    let threads = listed
        .iter()
        .filter(|channel| kind_of(channel.kind).is_thread());
    store.write(|writer| backfill::record_thread_beginnings(writer, threads))?;
    backfill::listed_jobs(store, listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_api_base_must_answer_a_local_gateway() {
        assert_eq!(
            check_gateway("http://127.0.0.1:8080", "ws://127.0.0.1:9090"),
            Ok(())
        );
        assert_eq!(
            check_gateway("https://discord.com", "wss://gateway.discord.gg"),
            Ok(())
        );
        assert_eq!(
            check_gateway("http://127.0.0.1:8080", "wss://gateway.discord.gg")
                .unwrap_err()
                .message(),
            "DISCORD_API_BASE is a local address (http://127.0.0.1:8080) but its \
             /api/v10/gateway answered wss://gateway.discord.gg: refusing to connect a local \
             setup to a gateway elsewhere"
        );
        assert!(is_loopback("http://localhost:1"));
        assert!(is_loopback("ws://[::1]:1"));
        assert!(!is_loopback("ws://10.0.0.1:1"));
    }
}
