//! `discord-manager watch`: what needs the owner, printed as it arrives, for scripts and
//! clients without Claude Code's channels. The items are the MCP server's pushes, from the
//! same business function (`arrivals`): a line each on a terminal, one JSON object a line with
//! `--json`. `--since INSTANT` first prints what arrived from that instant of the arrival
//! clock on. It ends cleanly on SIGTERM or SIGINT, and when the reader of its output goes away.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgMatches, Command};
use discord_manager_core::answer::page::terminal_safe;
use discord_manager_core::answer::text::at;
use discord_manager_core::business::Source;
use discord_manager_core::business::activity::arrivals::{Arrival, ArrivalKind, arrivals};
use discord_manager_core::business::kernel::context::build_owner_context;
use discord_manager_core::config::{Config, PushKinds};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use tokio::signal::unix::{SignalKind, signal};

use super::{Failure, init_logging, open_store};

/// How often the store's clock is read for news.
const POLL: Duration = Duration::from_millis(200);

pub(crate) fn command() -> Command {
    Command::new("watch")
        .about("Print what needs you as it arrives (mentions, replies, direct messages in scope, your keywords), the items the MCP server pushes: a line each, or one JSON object a line with --json; ends on SIGTERM or when its reader goes away")
        .arg(
            Arg::new("since")
                .long("since")
                .value_name("INSTANT")
                .help("First print what arrived at or after this instant of the store's arrival clock (ISO-8601 UTC). Default: only what arrives from now on"),
        )
}

/// Runs `watch` until a signal or a closed pipe ends it.
pub(crate) fn run(db: Option<PathBuf>, json: bool, sub: &ArgMatches) -> Result<(), Failure> {
    init_logging("warn");
    let since = match sub.get_one::<String>("since") {
        None => None,
        Some(text) => Some(Instant::parse(text).ok_or_else(|| {
            Error::input(format!(
                "`--since`: {text:?} is not an instant; give one in ISO-8601 UTC, like \
                 2026-12-05T09:00:00Z"
            ))
        })?),
    };
    let config = Config::from_env()?;
    let store = open_store(db, &config)?;
    let context = build_owner_context(&config, &store, Source::Cli)?;
    if context.owner_id.is_none() {
        return Err(Error::config(
            "watch needs the owner's Discord user id to know what is addressed to them: set \
             DISCORD_OWNER_ID, or run ingest once so the store learns it",
        )
        .into());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::internal("Cannot start the runtime").with_source(error))?;
    // The kinds DISCORD_MANAGER_PUSH names; every kind when it is off (running watch asks).
    let kinds = if config.push.any() {
        config.push
    } else {
        PushKinds::default()
    };
    runtime.block_on(async {
        let listen = |kind| {
            signal(kind)
                .map_err(|error| Error::internal("Cannot listen for signals").with_source(error))
        };
        let mut terminate = listen(SignalKind::terminate())?;
        let mut interrupt = listen(SignalKind::interrupt())?;
        let mut after = match since {
            Some(since) => since.plus_micros(-1),
            None => store.read(|reader| reader.clock_now())?,
        };
        loop {
            let news = arrivals(&store, &context, kinds, after, None)?;
            after = news.through;
            for item in &news.items {
                if !print(item, json)? {
                    return Ok::<(), Failure>(());
                }
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                _ = terminate.recv() => return Ok(()),
                _ = interrupt.recv() => return Ok(()),
            }
        }
    })
}

/// Prints one item; false when the reader went away.
fn print(item: &Arrival, json: bool) -> Result<bool, Failure> {
    let line = if json {
        serde_json::to_string(item)
            .map_err(|error| Error::internal("Cannot write an item as JSON").with_source(error))?
    } else {
        let what = match item.kind {
            ArrivalKind::Mention => "mention",
            ArrivalKind::Role => "role mention",
            ArrivalKind::Reply => "reply",
            ArrivalKind::DirectMessage => "direct message",
            ArrivalKind::Keyword => "keyword",
        };
        terminal_safe(&format!(
            "{} {what} in #{} from {}: {}",
            at(item.message.sent_at),
            item.message.channel_name,
            item.message.author_name,
            item.message.text.replace('\n', " ")
        ))
        .into_owned()
    };
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(error) => Err(Error::internal("Cannot write to stdout")
            .with_source(error)
            .into()),
    }
}
