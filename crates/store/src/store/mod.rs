//! The store: one SQLite file, append-only history, and every SQL statement of the product.
//!
//! Nothing outside this module writes SQL. Reading goes through [`Store::read`] (one short
//! transaction per call, never held between calls, so an idle reader cannot make the WAL grow
//! while `ingest` writes); writing goes through [`Store::write`], which takes SQLite's write
//! lock first and then stamps every row from the arrival clock inside that same transaction,
//! so commit order and clock order agree across processes.

mod activity;
mod assistant_sends;
mod attachment_text;
mod attachments;
mod backup;
mod bookmarks;
mod briefing;
mod channels;
mod cjk;
mod clock;
mod compressed_pages;
mod coverage;
mod extras;
mod history;
mod identity;
mod imports;
mod ingest_claim;
mod meanings;
mod mention_state;
mod messages;
mod migrations;
mod open_lock;
mod ownership;
mod paths;
mod payloads;
mod push_deliveries;
mod reactions;
mod read_markers;
mod schedules;
mod search;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod text_index;
mod words;

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

pub use activity::{AuthorCount, ChannelActivity, WindowActivity};
pub use attachment_text::UnindexedFile;
pub use attachments::{AttachmentOutcome, AttachmentRecord, CacheTotals};
pub use backup::{BackupProgress, BackupRecord, BackupSummary};
pub use bookmarks::{BookmarkEvent, BookmarkKind};
pub use briefing::{KeywordMatch, WindowMessage};
pub use channels::{ChannelKind, ChannelRecord, GuildRecord, RolePermissions, Tag};
pub use compressed_pages::PageCompression;
pub use coverage::{
    BeginningSource, ChannelBeginning, ChannelCoverage, DiscordClockReading, GapKind, GapRecord,
    GatewayEventKind, GatewayEventRecord, NewCoverage, NewGap,
};
pub use extras::{
    Attachment, CommandRun, ComponentPart, Embed, EmbedField, Forwarded, MessageExtras, Poll,
    PollAnswer, PollVote, ReferredMessage, Sticker,
};
pub use history::{Anchor, HistoryPage, Position};
pub use identity::{Identity, IdentitySource};
pub use imports::{ImportState, NewImportStep};
pub use ingest_claim::{IngestClaim, IngestHolder};
pub use meanings::{
    MeaningProgress, MeaningWalk, StoredCentre, StoredMeaning, TextChanges, TextToEmbed,
};
pub use mention_state::MentionDismissal;
pub use messages::{
    ArrivalCounts, EditRecord, MentionCandidate, MessageRecord, NewEdit, NewMessage, Origin,
    Provenance,
};
pub use open_lock::ReplaceLock;
pub use paths::default_path;
pub use payloads::{KeptPayload, NewPayload};
pub use reactions::{ReactionChange, ReactionCount};
pub use schedules::{
    NewSchedule, ScheduleEvent, ScheduleEventDraft, ScheduleEventKind, ScheduleRecord,
};
pub use search::{
    AttachmentMatch, Author, FILES_RANKED, Has, OwnerMentions, SearchFilter, SearchHit, SearchPage,
};

/// How long a writer waits for another process's write lock before giving up.
/// Readers never wait: WAL lets them read the last committed state.
const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// Prepared statements kept per connection (the store has a few dozen distinct ones).
const STATEMENT_CACHE: usize = 128;

/// Why the file at `path` cannot serve as the store, in the owner's words: the path names
/// something that is not a store, or a store this user may not write, is the owner's to fix.
fn unusable_store(path: &Path, error: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode;
    let path = path.display();
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::config(format!(
            "{path} is not a discord-manager store (it is not an SQLite database): check --db \
             or DISCORD_MANAGER_DB"
        )),
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            Error::config(format!(
                "The store at {path} cannot be written ({error}): check the file's and its \
                 folder's permissions"
            ))
        }
        _ => error.into(),
    }
}

/// The SQLite VFS a connection opens the store through (see `compressed_pages.rs`),
/// registered on first use: what a tool that opens the store with rusqlite itself (the
/// benchmark, the measuring examples) must name, or it reads compressed pages as they lie.
pub fn vfs(pages: PageCompression) -> Result<&'static str> {
    compressed_pages::register()
        .map_err(|reason| Error::internal(format!("Cannot open the store: {reason}")))?;
    Ok(pages.vfs())
}

/// The settings of every connection to the store, writable or not.
fn configure(connection: &Connection, path: &Path) -> Result<()> {
    let unusable = |error| unusable_store(path, error);
    connection.busy_timeout(BUSY_TIMEOUT).map_err(unusable)?;
    // Every statement of the store is prepared once per connection and kept: with more
    // distinct statements than rusqlite's default 16, a long-lived MCP server serving
    // every tool would re-parse SQL on most calls.
    connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // The query planner stability guarantee: a statement's plan never depends on the values
    // bound to it. Without it, SQLite (built with STAT4, as rusqlite bundles it) marks a
    // cached statement expired whenever a value it could plan on is rebound (a `LIMIT ?`,
    // a bound value next to a partial index) and compiles it again on the next step: a
    // per-channel statement was recompiled once per channel. The store keeps no planner
    // statistics (it never runs ANALYZE), so a bound value never had a better plan to offer.
    connection.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    // 4 MiB of page cache instead of SQLite's 2 MiB: on a 1M-message store the pages a
    // reading call touches (the newest index leaves of ~450 channels, a page per bookmarked
    // or mentioned message) no longer fit in 2 MiB and were read again on every call
    // (callgrind: twice the reads of a 100k store). More would help more, but an MCP
    // server's resident memory is held to 30 MB; 4 MiB costs it ~1.2 MB.
    connection
        .pragma_update(None, "cache_size", -4096)
        .map_err(unusable)?;
    connection
        .pragma_update(None, "foreign_keys", "ON")
        .map_err(unusable)?;
    Ok(())
}

/// `--db` and `DISCORD_MANAGER_DB` name a file. SQLite would take `file:…` as a URI and
/// `:memory:` (or nothing) as a store that vanishes on exit: refused, so nothing is ever
/// recorded into a store that is not there.
fn refuse_sqlite_uri(path: &Path) -> Result<()> {
    let text = path.as_os_str().to_string_lossy();
    if text.is_empty() || text == ":memory:" || text.starts_with("file:") {
        return Err(Error::config(format!(
            "The store's path {text:?} is an SQLite URI or an in-memory database, not a file: \
             give --db or DISCORD_MANAGER_DB a file path (write ./{text} for a file of that name)"
        )));
    }
    Ok(())
}

/// Takes group and other permissions off a store file, if it has any and this user owns it.
#[cfg(unix)]
fn make_private(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(metadata) = std::fs::metadata(path) else {
        return;
    };
    let mode = metadata.permissions().mode();
    if mode & 0o077 != 0
        && let Err(error) =
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))
    {
        tracing::warn!(
            "{} may be read by others (mode {:04o}) and cannot be made private: {error}",
            path.display(),
            mode & 0o777
        );
    }
}

/// Elsewhere a file's access is its folder's ACL, which a new file inherits.
#[cfg(not(unix))]
fn make_private(_path: &Path) {}

/// `file:<path>?immutable=1`, the path percent-encoded.
fn immutable_uri(path: &Path) -> String {
    use std::fmt::Write as _;
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut uri = String::from("file:");
    for &byte in &bytes {
        if byte.is_ascii_alphanumeric() || b"/._-~".contains(&byte) {
            uri.push(byte as char);
        } else {
            // Writing to a String cannot fail.
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// Puts the store in WAL mode. On a new file, two processes switching it at once can find each
/// other holding the lock the switch upgrades from, and SQLite then answers busy at once rather
/// than wait (waiting could deadlock): the switch is tried again, within the busy timeout.
fn switch_to_wal(connection: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    loop {
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Err(error)
                if error.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Creates the store's folder (and the folders above it) if missing, private to this user
/// (0700 on Unix): the folder holds the whole history. A folder that exists is left as it is.
fn create_folder(path: &Path) -> Result<()> {
    let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    else {
        return Ok(());
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(parent).map_err(|error| {
        Error::config(format!(
            "Cannot create the store's folder {}: {error}",
            parent.display()
        ))
    })
}

/// An open store. Cheap to share behind an `Arc`; calls are serialised on one connection.
/// A call a client can cancel reads through a handle of its own ([`Store::cancelled_by`]).
pub struct Store {
    /// The connections and caches, shared by every handle on this store.
    shared: Arc<Shared>,
    /// The cancellation of the one call this handle was made for (see [`Store::cancelled_by`]).
    cancelled: Option<Arc<AtomicBool>>,
}

/// What every handle on one store shares.
struct Shared {
    connection: Mutex<Connection>,
    path: PathBuf,
    /// The channel list as of a `channel_events` high-water mark (see [`Reader::channels`]).
    channels: channels::ChannelCache,
    /// How long one read may run.
    read_limit: ReadLimit,
    /// Read-only connections for a read that finds the main connection busy (a write, or
    /// another thread's read): a slow read then holds up no other reader. Opened on demand,
    /// kept for the next time.
    spare_readers: Mutex<Vec<Connection>>,
    /// Whether the store is read as an immutable file (see [`Store::open`]).
    immutable: bool,
    /// This process's share of the store's open lock (see `open_lock.rs`), held while it lives.
    open_lock: open_lock::OpenLock,
}

/// A spare reader connection, given back to the store when the read is done.
struct SpareReader<'a> {
    store: &'a Store,
    connection: Option<Connection>,
}

impl Drop for SpareReader<'_> {
    fn drop(&mut self) {
        if let Some(connection) = self.connection.take() {
            self.store
                .shared
                .spare_readers
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(connection);
        }
    }
}

/// How long one read may run before SQLite is told to stop it: a wall-clock deadline, and for
/// tests a number of progress steps (each about [`PROGRESS_STEP`] virtual-machine
/// instructions), which stops a query at the same point on every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimit {
    pub deadline: Duration,
    pub steps: Option<u64>,
}

impl Default for ReadLimit {
    fn default() -> Self {
        ReadLimit {
            deadline: READ_DEADLINE,
            steps: None,
        }
    }
}

/// How long one read may take: every capability answers from indexes in milliseconds, so a
/// read still running after this is a query to narrow, not one to wait for.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// SQLite's virtual-machine instructions between two looks at the deadline and cancellation.
const PROGRESS_STEP: std::ffi::c_int = 1_000;

/// Held by a test while it forks child processes, and by a test of the store's file locks
/// while it takes them: a child holds every open file of its parent from the fork until it
/// execs, and with them the parent's locks, so a lock test would otherwise take another
/// test's child for another process holding the store.
#[cfg(test)]
pub(crate) fn no_forks_meanwhile() -> std::sync::MutexGuard<'static, ()> {
    static FORKS: Mutex<()> = Mutex::new(());
    FORKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why a read was stopped before it finished.
const STOPPED_FOR_TIME: u8 = 1;
const STOPPED_FOR_CANCELLATION: u8 = 2;

fn too_long_error(limit: ReadLimit) -> Error {
    Error::input(format!(
        "This took too long (more than {} s) and was stopped: narrow the query (a shorter \
         window, one channel, a longer word to search for, a smaller limit)",
        limit.deadline.as_secs()
    ))
}

/// The error of a read a client cancelled (it is not shown to anyone: the client gave up).
pub fn cancelled_error() -> Error {
    Error::input("The call was cancelled before it finished")
}

impl From<Shared> for Store {
    fn from(shared: Shared) -> Store {
        Store {
            shared: Arc::new(shared),
            cancelled: None,
        }
    }
}

impl Store {
    /// A handle on this same store for one call that a client can cancel: as soon as
    /// `cancelled` is set (the client's `notifications/cancelled`), the handle's read in
    /// progress is interrupted and every read through it fails with [`cancelled_error`].
    /// Other handles read on.
    pub fn cancelled_by(&self, cancelled: Arc<AtomicBool>) -> Store {
        Store {
            shared: Arc::clone(&self.shared),
            cancelled: Some(cancelled),
        }
    }

    /// Opens (creating if needed, with mode 0600) and migrates the store at `path`. A store
    /// that exists but cannot be written (a read-only file or filesystem, a full disk) is
    /// opened read-only instead, so every reading command still answers from it; a write
    /// then fails with the reason.
    ///
    /// A file that is not a discord-manager store (another program's SQLite database, or not
    /// SQLite at all) is refused before anything touches it, and left exactly as it was.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_as(path, PageCompression::Off)
    }

    /// [`open`](Store::open), with the store's pages written compressed or not (either way,
    /// pages written compressed before are read).
    pub fn open_as(path: &Path, pages: PageCompression) -> Result<Store> {
        refuse_sqlite_uri(path)?;
        let found = ownership::inspect(path)?;
        match Store::open_writable_as(path, pages) {
            Ok(store) => Ok(store),
            Err(failure) if found == ownership::Found::Store => {
                Store::open_read_only(path).map_err(|_| failure)
            }
            Err(failure) => Err(failure),
        }
    }

    /// Opens the store for writing, never read-only: what `ingest` and `seed` need.
    pub fn open_writable(path: &Path) -> Result<Store> {
        Store::open_writable_as(path, PageCompression::Off)
    }

    /// [`open_writable`](Store::open_writable), with the store's pages written compressed or
    /// not.
    pub fn open_writable_as(path: &Path, pages: PageCompression) -> Result<Store> {
        refuse_sqlite_uri(path)?;
        ownership::inspect(path)?;
        create_folder(path)?;
        Store::open_writable_with(path, open_lock::OpenLock::shared(path), pages)
    }

    /// [`open_writable`](Store::open_writable) once the file is known to be a store (or
    /// nothing yet), holding `open_lock`.
    fn open_writable_with(
        path: &Path,
        open_lock: open_lock::OpenLock,
        pages: PageCompression,
    ) -> Result<Store> {
        // The file may have been replaced while this process waited for the lock.
        ownership::inspect(path)?;
        // Create the file ourselves so it is private from its first byte; SQLite gives the
        // -wal and -shm files the same mode as the database file.
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(path).map_err(|error| {
            Error::config(format!(
                "Cannot open the store at {}: {error}",
                path.display()
            ))
        })?;
        // A file made before (or by another program) keeps its mode: take away what others
        // may do with it, before SQLite copies that mode to a new -wal and -shm.
        make_private(path);
        let flags = OpenFlags::default() & !OpenFlags::SQLITE_OPEN_URI;
        let mut connection = Connection::open_with_flags_and_vfs(path, flags, vfs(pages)?)
            .map_err(|error| {
                Error::config(format!(
                    "Cannot open the store at {}: {error}",
                    path.display()
                ))
            })?;
        let unusable = |error| unusable_store(path, error);
        configure(&connection, path)?;
        // The first statements that touch the file: where a wrong or unwritable file shows.
        if pages == PageCompression::On {
            compressed_pages::give_pages_room(&connection, &open_lock).map_err(unusable)?;
        }
        switch_to_wal(&connection).map_err(unusable)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(unusable)?;
        // A new store, or an earlier version's without an id, is stamped as a store (a demo
        // store has had its own id from the start).
        migrations::migrate(&mut connection, path, ownership::STORE_APPLICATION_ID)?;
        for suffix in ["-wal", "-shm"] {
            let mut companion = path.as_os_str().to_owned();
            companion.push(suffix);
            make_private(Path::new(&companion));
        }
        Ok(Store::from(Shared {
            connection: Mutex::new(connection),
            path: path.to_path_buf(),
            channels: channels::ChannelCache::default(),
            read_limit: ReadLimit::default(),
            spare_readers: Mutex::new(Vec::new()),
            immutable: false,
            open_lock,
        }))
    }

    /// Opens an existing store read-only. When even SQLite's shared-memory file cannot be made
    /// beside it (a read-only folder), the file is read as immutable: nothing can write it
    /// there either.
    fn open_read_only(path: &Path) -> Result<Store> {
        let open_lock = open_lock::OpenLock::shared(path);
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        const READ_SCHEMA: &str = "SELECT count(*) FROM sqlite_master";
        let readable = |connection: &Connection| {
            connection.query_row(READ_SCHEMA, [], |row| row.get::<_, i64>(0))
        };
        let mut immutable = false;
        let reading = vfs(PageCompression::Off)?;
        let connection = match Connection::open_with_flags_and_vfs(path, flags, reading) {
            Ok(connection) if readable(&connection).is_ok() => connection,
            _ => {
                immutable = true;
                let connection = Connection::open_with_flags_and_vfs(
                    immutable_uri(path),
                    flags | OpenFlags::SQLITE_OPEN_URI,
                    reading,
                )
                .map_err(|error| unusable_store(path, error))?;
                readable(&connection).map_err(|error| unusable_store(path, error))?;
                connection
            }
        };
        configure(&connection, path)?;
        migrations::check_current(&connection, path)?;
        Ok(Store::from(Shared {
            connection: Mutex::new(connection),
            path: path.to_path_buf(),
            channels: channels::ChannelCache::default(),
            read_limit: ReadLimit::default(),
            spare_readers: Mutex::new(Vec::new()),
            immutable,
            open_lock,
        }))
    }

    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Lets the store file grow by at most `pages` more pages on this connection (SQLite's
    /// `max_page_count`): past them every write fails as on a full disk. The `ingest` daemon
    /// takes it from `DISCORD_MANAGER_TEST_STORE_ROOM_PAGES`, a lever for tests of a full disk
    /// (a tiny filesystem is not available to them).
    pub fn limit_growth(&self, pages: u64) -> Result<()> {
        const PAGE_COUNT: &str = "PRAGMA page_count";
        let connection = self.lock();
        let now: i64 = connection.query_row(PAGE_COUNT, [], |row| row.get(0))?;
        let limit = now.saturating_add(i64::try_from(pages).unwrap_or(i64::MAX));
        // A pragma's value cannot be a parameter: rusqlite writes it into the statement.
        connection.pragma_update_and_check(None, "max_page_count", limit, |_| Ok(()))?;
        Ok(())
    }

    /// Marks the store as a demo store `seed` created (SQLite's `application_id` in the file's
    /// header), the only kind `seed --replace` may delete.
    pub fn mark_created_by_seed(&self) -> Result<()> {
        self.lock()
            .pragma_update(None, "application_id", ownership::SEED_APPLICATION_ID)?;
        Ok(())
    }

    /// Whether `seed` created this store (see [`mark_created_by_seed`](Store::mark_created_by_seed)).
    pub fn created_by_seed(&self) -> Result<bool> {
        const APPLICATION_ID: &str = "PRAGMA application_id";
        let id: i64 = self
            .lock()
            .query_row(APPLICATION_ID, [], |row| row.get(0))?;
        Ok(id == ownership::SEED_APPLICATION_ID)
    }

    /// SQLite's `quick_check` of the whole file: an empty list when the store is sound, else
    /// the first problems it names (`doctor` shows them). It reads every page, with no time
    /// limit.
    pub fn quick_check(&self) -> Result<Vec<String>> {
        const QUICK_CHECK: &str = "PRAGMA quick_check(10)";
        let connection = self.lock();
        let mut statement = connection.prepare(QUICK_CHECK)?;
        let found: Vec<String> = statement
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(if found == ["ok"] { Vec::new() } else { found })
    }

    /// Runs `read` inside one short read transaction: a consistent snapshot for the call,
    /// released as soon as it returns.
    ///
    /// The read is stopped (SQLite's progress handler) once it runs past the store's
    /// [`ReadLimit`], failing with an owner-worded "took too long, narrow the query", or as
    /// soon as the call this handle was made for is cancelled (see [`Store::cancelled_by`]).
    pub fn read<T>(&self, read: impl FnOnce(&Reader<'_>) -> Result<T>) -> Result<T> {
        let cancelled = self.cancelled.clone();
        // A call cancelled while it waited for the connection does not start its read.
        if cancelled
            .as_ref()
            .is_some_and(|cancelled| cancelled.load(Ordering::Relaxed))
        {
            return Err(cancelled_error());
        }
        // The main connection when it is free; a spare read-only one when it is not.
        let mut main: std::sync::MutexGuard<'_, Connection>;
        let mut spare: SpareReader<'_>;
        let connection: &mut Connection = match self.shared.connection.try_lock() {
            Ok(guard) => {
                main = guard;
                &mut main
            }
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                main = poisoned.into_inner();
                &mut main
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                spare = SpareReader {
                    store: self,
                    connection: Some(self.spare_reader()?),
                };
                spare.connection.as_mut().expect("just taken")
            }
        };
        let stopped = Arc::new(AtomicU8::new(0));
        let handler = {
            let stopped = Arc::clone(&stopped);
            let limit = self.shared.read_limit;
            let deadline = std::time::Instant::now() + limit.deadline;
            let mut steps = 0u64;
            move || {
                steps += 1;
                let why = if cancelled
                    .as_ref()
                    .is_some_and(|cancelled| cancelled.load(Ordering::Relaxed))
                {
                    STOPPED_FOR_CANCELLATION
                } else if limit.steps.is_some_and(|budget| steps > budget)
                    || std::time::Instant::now() >= deadline
                {
                    STOPPED_FOR_TIME
                } else {
                    return false;
                };
                stopped.store(why, Ordering::Relaxed);
                true
            }
        };
        connection.progress_handler(PROGRESS_STEP, Some(handler))?;
        let result = (|| {
            let transaction =
                connection.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let result = read(&Reader {
                connection: &transaction,
                channels: Some(&self.shared.channels),
            })?;
            transaction.finish()?;
            Ok(result)
        })();
        connection.progress_handler(0, None::<fn() -> bool>)?;
        match stopped.load(Ordering::Relaxed) {
            STOPPED_FOR_TIME => Err(too_long_error(self.shared.read_limit)),
            STOPPED_FOR_CANCELLATION => Err(cancelled_error()),
            _ => result,
        }
    }

    /// Changes how long one read may run (tests force a deadline with a step budget).
    /// Only before the store is shared: a handle made by [`Store::cancelled_by`] keeps the
    /// limit it was made with.
    pub fn set_read_limit(&mut self, limit: ReadLimit) {
        match Arc::get_mut(&mut self.shared) {
            Some(shared) => shared.read_limit = limit,
            None => panic!("a read limit is set before the store is shared"),
        }
    }

    /// Runs `write` inside one IMMEDIATE transaction: it commits entirely or not at all.
    pub fn write<T>(&self, write: impl FnOnce(&mut Writer<'_>) -> Result<T>) -> Result<T> {
        self.write_from(Instant::now(), write)
    }

    /// Like [`write`](Store::write), but the arrival clock starts from `start` instead of the
    /// wall clock: the transaction's first instant is `max(start, last handed out + 1 µs)`.
    ///
    /// Only the synthetic store generator (the `discord-manager-synthetic` crate) calls this, to lay months of
    /// generated history at the instants it was planned for (in the past of the wall clock);
    /// together with [`Writer::advance_clock_to`] each event of a batch gets its own instant.
    /// Live ingestion never does: its events arrive when they arrive. The clock's guarantees
    /// hold all the same, because they are relative to what was handed out, not to the wall
    /// clock: instants stay strictly increasing across the whole store, never earlier than the
    /// last one handed out, and a later commit (of any process) still gets a later instant.
    pub fn write_at<T>(
        &self,
        start: Instant,
        write: impl FnOnce(&mut Writer<'_>) -> Result<T>,
    ) -> Result<T> {
        self.write_from(start, write)
    }

    fn write_from<T>(
        &self,
        start: Instant,
        write: impl FnOnce(&mut Writer<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut connection = self.lock();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let clock = clock::Clock::start(&transaction, start)?;
        let mut writer = Writer { transaction, clock };
        let result = write(&mut writer)?;
        let Writer { transaction, clock } = writer;
        clock.finish(&transaction)?;
        transaction.commit()?;
        Ok(result)
    }

    /// A spare read-only connection: one kept from before, or a new one.
    fn spare_reader(&self) -> Result<Connection> {
        let kept = self
            .shared
            .spare_readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        if let Some(connection) = kept {
            return Ok(connection);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let reading = vfs(PageCompression::Off)?;
        let connection = if self.shared.immutable {
            Connection::open_with_flags_and_vfs(
                immutable_uri(&self.shared.path),
                flags | OpenFlags::SQLITE_OPEN_URI,
                reading,
            )
        } else {
            Connection::open_with_flags_and_vfs(&self.shared.path, flags, reading)
        }
        .map_err(|error| unusable_store(&self.shared.path, error))?;
        configure(&connection, &self.shared.path)?;
        Ok(connection)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a transaction open (rusqlite rolls
        // back on drop), so the connection is still sound.
        self.shared
            .connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Read access inside one transaction.
pub struct Reader<'a> {
    connection: &'a Connection,
    /// The store's channel cache; none inside a write transaction, whose own rows are not
    /// committed yet.
    channels: Option<&'a channels::ChannelCache>,
}

impl Reader<'_> {
    /// Whether nothing was ever recorded: the arrival clock has never moved.
    pub fn is_empty(&self) -> Result<bool> {
        let last: i64 = self
            .connection
            .query_row(clock::LAST_HANDED_OUT, [], |row| row.get(0))?;
        Ok(last == 0)
    }
}

/// Write access inside one IMMEDIATE transaction, with the arrival clock.
pub struct Writer<'a> {
    transaction: Transaction<'a>,
    clock: clock::Clock,
}

impl Writer<'_> {
    /// The next arrival instant: strictly after every instant the store has handed out.
    pub fn stamp(&mut self) -> Instant {
        self.clock.tick()
    }

    /// Gives back the instant just stamped for a row that was not written (it was already
    /// known): the next stamp is that instant again, and a transaction that wrote nothing
    /// leaves the clock where it was, so a reader polling the clock sees nothing new.
    pub(crate) fn unstamp(&mut self, instant: Instant) {
        self.clock.take_back(instant);
    }

    /// Moves the arrival clock forward so the next [`stamp`](Writer::stamp) is `at`, if `at`
    /// is later than the next instant it would hand out; an earlier `at` changes nothing.
    ///
    /// Only the synthetic store generator (the `discord-manager-synthetic` crate) calls this, with
    /// [`Store::write_at`]: it lays months of generated history in a few minutes, several
    /// events per transaction as the daemon batches them, each at its own planned instant.
    /// Live ingestion never does. The clock only ever moves forward, so instants stay strictly
    /// increasing and never earlier than the last one handed out.
    pub fn advance_clock_to(&mut self, at: Instant) {
        self.clock.advance_to(at);
    }

    /// Reads within the write transaction, seeing this transaction's own rows.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            connection: &self.transaction,
            channels: None,
        }
    }
}

#[cfg(test)]
mod tests;
