//! Measurement code shared by the benchmark (`benches/store.rs`) and its smoke test
//! (`tests/benchmark_smoke.rs`, which includes this file), so the code that produces the
//! published figures runs in every `cargo test` and cannot rot.
//!
//! It owns: timing samples and their percentiles, the reading capabilities measured (every
//! one the registry has, with the examples each declares), calling a capability in-process exactly as both
//! surfaces do, the size of an answer as an MCP client receives it, paging through a catch-up
//! window, and the raw rusqlite floor that ingestion is compared with; `attachments.rs` the
//! kept screenshot `attachments_get` is measured on and the attachment cache's model;
//! `search_modes.rs` search in each mode over stand-in vectors. It never asserts a duration.

#![allow(dead_code)]

pub mod attachments;
pub mod search_modes;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant as Stopwatch};

use discord_manager_core::business::kernel::examples::{Examples, Sample};
use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_core::registry::{self, Effect, Services};
use discord_manager_store::{PageCompression, Store};
use discord_manager_synthetic::OWNER_ID;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

/// Durations of repeated runs of one thing.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    sorted: Vec<Duration>,
}

impl Samples {
    pub fn new(mut durations: Vec<Duration>) -> Samples {
        durations.sort();
        Samples { sorted: durations }
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// The `p`-th percentile (nearest rank), in milliseconds.
    pub fn percentile_ms(&self, p: f64) -> f64 {
        if self.sorted.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * self.sorted.len() as f64).ceil() as usize;
        let index = rank.clamp(1, self.sorted.len()) - 1;
        self.sorted[index].as_secs_f64() * 1_000.0
    }

    pub fn p50_ms(&self) -> f64 {
        self.percentile_ms(50.0)
    }

    pub fn p95_ms(&self) -> f64 {
        self.percentile_ms(95.0)
    }

    pub fn to_json(&self) -> Value {
        json!({"p50Ms": round3(self.p50_ms()), "p95Ms": round3(self.p95_ms()),
               "maxMs": round3(self.percentile_ms(100.0)), "samples": self.len()})
    }
}

pub fn round3(value: f64) -> f64 {
    (value * 1_000.0).round() / 1_000.0
}

/// How many times to repeat a measurement: at least `min` runs, then more until `budget` is
/// spent or `max` runs are done; `warmup` unmeasured runs first.
#[derive(Debug, Clone, Copy)]
pub struct Repeat {
    pub warmup: usize,
    pub min: usize,
    pub max: usize,
    pub budget: Duration,
}

/// Runs `run` as `repeat` says and returns the measured durations.
pub fn measure<T, E: std::fmt::Debug>(
    repeat: Repeat,
    mut run: impl FnMut() -> Result<T, E>,
) -> Result<Samples, E> {
    for _ in 0..repeat.warmup {
        run()?;
    }
    let started = Stopwatch::now();
    let mut durations = Vec::new();
    while durations.len() < repeat.min
        || (durations.len() < repeat.max && started.elapsed() < repeat.budget)
    {
        let at = Stopwatch::now();
        run()?;
        durations.push(at.elapsed());
    }
    Ok(Samples::new(durations))
}

/// A day, in seconds: "one day" of the benchmark's readers and of its sample.
pub const DAY_SECONDS: i64 = 86_400;

/// The ids and instants of a generated store that its readers' examples point into: its
/// busiest channel and a message of it, an open mention of the owner, the searched word, and
/// the first and newest arrivals. The benchmark only reads, and no reader's example names the
/// bot's own message or a schedule, so those point at the same message and at no schedule.
pub fn sample(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    busiest_channel: &ChannelId,
    first_arrival: Instant,
    newest: Instant,
) -> Result<Sample, String> {
    let message = answer(
        runtime,
        services,
        "messages_history",
        &json!({"channelId": busiest_channel}),
    )?
    .structured["messages"][0]["messageId"]
        .as_str()
        .and_then(MessageId::parse)
        .ok_or("the busiest channel has no history")?;
    // A mention of the last day, else of the whole history: the first reads a day's mentions,
    // where reading them all from a store the page cache has dropped can pass a reader's
    // time limit at 1M.
    let first_mention = |since: Instant| -> Result<Option<MessageId>, String> {
        Ok(answer(
            runtime,
            services,
            "mentions_list",
            &json!({"since": since.to_iso()}),
        )?
        .structured["mentions"][0]["messageId"]
            .as_str()
            .and_then(MessageId::parse))
    };
    let mention = match first_mention(newest.minus_seconds(DAY_SECONDS))? {
        Some(mention) => mention,
        None => first_mention(first_arrival)?.ok_or("the store has no mention of the owner")?,
    };
    let channel = *busiest_channel;
    // The one file attachments_get reads: played into the store once, known after.
    let attachment = runtime
        .block_on(discord_manager::seed::play_kept_text_attachment(
            &services.store,
            &channel,
        ))
        .map_err(|error| format!("the sample's attachment: {}", error.message()))?;
    Ok(Sample {
        channel,
        bot_message: message,
        message,
        mention,
        word: discord_manager_synthetic::search_word(),
        attachment,
        schedule_id: 0,
        first_arrival,
        newest,
    })
}

/// Every reading capability of the registry (those that only read the store), with the
/// examples it declares for `sample`'s store: the benchmark measures each at its default and
/// sizes it at its largest. A new reader is measured without a line here.
pub fn readers(sample: &Sample) -> Vec<(&'static str, Examples)> {
    registry::capabilities()
        .iter()
        .filter(|capability| capability.effect == Effect::ReadsStore)
        .map(|capability| (capability.name, capability.examples(sample)))
        .collect()
}

/// Each reader's default call, as an owner would send it: mostly "the last day", as of the
/// newest arrival in the store.
pub fn defaults(sample: &Sample) -> Vec<(&'static str, Value)> {
    readers(sample)
        .into_iter()
        .map(|(tool, examples)| {
            let default = examples
                .default
                .unwrap_or_else(|| panic!("{tool} reads the store and declares no default call"));
            (tool, default)
        })
        .collect()
}

/// Each reader's largest inputs: every bound at the most its schema accepts, over the whole
/// history. Tools with several bounds have one case each; a tool's largest answer is the
/// largest of its cases and its default.
pub fn largest_inputs(sample: &Sample) -> Vec<(&'static str, Value)> {
    readers(sample)
        .into_iter()
        .flat_map(|(tool, examples)| examples.largest.into_iter().map(move |input| (tool, input)))
        .collect()
}

/// An answer as an MCP client receives it: the structured result (`structuredContent`) and
/// the text block written for a model, which the answer budget counts together.
#[derive(Debug, Clone)]
pub struct Answer {
    pub structured: Value,
    /// The structured result's compact JSON, in bytes.
    pub json_bytes: usize,
    /// The text block, in bytes.
    pub text_bytes: usize,
}

impl Answer {
    pub fn bytes(&self) -> usize {
        self.json_bytes + self.text_bytes
    }

    /// Estimated tokens: four bytes a token, rounded up.
    pub fn tokens(&self) -> usize {
        self.bytes().div_ceil(4)
    }

    pub fn to_json(&self) -> Value {
        json!({"jsonBytes": self.json_bytes, "textBytes": self.text_bytes,
               "bytes": self.bytes(), "tokens": self.tokens()})
    }
}

/// Calls a capability in-process and renders its answer as the MCP server does: the
/// structured result serialised, and the text block.
pub fn answer(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    tool: &str,
    arguments: &Value,
) -> Result<Answer, String> {
    let capability = registry::find(tool).map_err(|error| error.message().to_string())?;
    let outcome = runtime
        .block_on(capability.call(arguments.clone(), services))
        .map_err(|error| error.message().to_string())?;
    let structured = outcome.to_json();
    let json_bytes = serde_json::to_string(&structured)
        .map_err(|error| error.to_string())?
        .len();
    let text_bytes = outcome.to_text().len();
    Ok(Answer {
        structured,
        json_bytes,
        text_bytes,
    })
}

/// What reading one catch-up window to its end, page after page, took.
#[derive(Debug, Clone, Default)]
pub struct PageThrough {
    pub pages: usize,
    /// Every message id read, in the order the pages gave them.
    pub message_ids: Vec<String>,
    /// The answers' sizes, added up, and the largest page.
    pub bytes: usize,
    pub largest_page_bytes: usize,
    /// The last page's watermark.
    pub watermark: String,
}

/// Reads the catch-up window from `since` to its end with default inputs, passing each page's
/// `nextCursor` back as `cursor`, as an assistant would.
pub fn page_through(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    since: &str,
) -> Result<PageThrough, String> {
    let mut read = PageThrough::default();
    let mut arguments = json!({"since": since});
    loop {
        let page = answer(runtime, services, "messages_catch_up", &arguments)?;
        read.pages += 1;
        read.bytes += page.bytes();
        read.largest_page_bytes = read.largest_page_bytes.max(page.bytes());
        for channel in page.structured["channels"].as_array().into_iter().flatten() {
            for message in channel["messages"].as_array().into_iter().flatten() {
                read.message_ids.push(
                    message["messageId"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                );
            }
        }
        read.watermark = page.structured["watermark"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match page.structured["nextCursor"].as_str() {
            Some(cursor) => arguments = json!({"cursor": cursor}),
            None => return Ok(read),
        }
    }
}

/// The owner's context on a synthetic store, as the CLI builds it.
pub fn owner_context() -> OwnerContext {
    OwnerContext::with_unset_settings(
        Some(OWNER_ID.parse().expect("OWNER_ID is an id")),
        GuildScope::every_guild(),
        Source::Cli,
    )
}

/// Whether the benchmark's stores are written with their pages compressed (`BENCH_COMPRESS=1`).
pub fn page_compression() -> PageCompression {
    match std::env::var("BENCH_COMPRESS").as_deref() {
        Ok("1") => PageCompression::On,
        _ => PageCompression::Off,
    }
}

/// The store and context every in-process call uses.
pub fn services(path: &Path) -> Services {
    Services {
        store: Arc::new(
            Store::open_as(path, page_compression()).expect("the benchmark store opens"),
        ),
        context: owner_context(),
        // The benchmark measures reading; nothing is sent.
        sender: None,
    }
}

/// Calls a capability in-process through the registry: the same validation and business
/// call as the CLI and the MCP server, without their rendering. Returns the structured result.
pub fn call(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    tool: &str,
    arguments: &Value,
) -> Result<Value, String> {
    let capability = registry::find(tool).map_err(|error| error.message().to_string())?;
    runtime
        .block_on(capability.call(arguments.clone(), services))
        .map(|outcome| outcome.to_json())
        .map_err(|error| error.message().to_string())
}

/// The same call, keeping the typed result: what the business function costs.
pub fn call_unrendered(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    tool: &str,
    arguments: &Value,
) -> Result<(), String> {
    let capability = registry::find(tool).map_err(|error| error.message().to_string())?;
    runtime
        .block_on(capability.call(arguments.clone(), services))
        .map(drop)
        .map_err(|error| error.message().to_string())
}

/// Drops the store's files (the database and its write-ahead log) from the operating system's
/// page cache, so the next read comes from the disk, as the owner's first call of the day
/// does. It drops clean pages only: the benchmark checkpoints the store before it reads.
#[cfg(unix)]
pub fn evict_from_page_cache(path: &Path) -> std::io::Result<()> {
    for suffix in ["", "-wal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        match std::fs::File::open(&name) {
            Ok(file) => rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed)?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// The first call of the day, `runs` times: the store's pages dropped from the page cache, a
/// store opened afresh (so SQLite's own cache is empty too), and one call. Each sample is the
/// open and the call together.
#[cfg(unix)]
pub fn cold_calls(
    path: &Path,
    runtime: &tokio::runtime::Runtime,
    tool: &str,
    arguments: &Value,
    runs: usize,
) -> Result<Samples, String> {
    let mut durations = Vec::with_capacity(runs);
    for _ in 0..runs {
        evict_from_page_cache(path).map_err(|error| error.to_string())?;
        let at = Stopwatch::now();
        let services = services(path);
        call_unrendered(runtime, &services, tool, arguments)?;
        durations.push(at.elapsed());
    }
    Ok(Samples::new(durations))
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// What the raw floor did.
#[derive(Debug, Clone)]
pub struct Floor {
    /// Rows written, over every history table.
    pub rows: u64,
    pub transactions: u64,
    /// Time inside the write transactions, commit included.
    pub writing: Duration,
    /// The tables copied, with their row counts.
    pub tables: Vec<(String, u64)>,
    /// Virtual tables (full-text indexes) of the schema.
    pub virtual_tables: Vec<String>,
    /// Rows written into the full-text index `message_text`, and how many the product wrote.
    pub text_rows: u64,
    pub text_rows_in_source: u64,
}

const COPY_CHUNK: usize = 4_096;

/// The raw rusqlite floor for what a store holds: every row of every history table of
/// `source`, written into a fresh store at `target` (the same migrations, so the same indexes,
/// triggers and full-text tables) with plain cached INSERTs, in `transactions` transactions
/// of equal size and in arrival order, as fast as SQLite itself can take them. Only the write
/// transactions are timed; reading the rows back is not.
///
/// The full-text index `message_text` is a virtual table the store fills itself (it cannot
/// carry triggers): each message's and each edit's non-empty content is indexed as the row is
/// inserted. The floor does the same, right after the same rows, and counts what it wrote so
/// a caller can check it against the product's own index.
pub fn floor(source: &Path, target: &Path, transactions: u64) -> rusqlite::Result<Floor> {
    drop(Store::open(target).expect("the floor store opens and migrates"));
    // The floor store is plain; the source is read through the store's VFS, compressed or not.
    let reading = discord_manager_store::vfs(PageCompression::Off).expect("the VFS registers");
    let reader =
        Connection::open_with_flags_and_vfs(source, OpenFlags::SQLITE_OPEN_READ_ONLY, reading)?;
    let writer = Connection::open(target)?;
    writer.pragma_update(None, "journal_mode", "WAL")?;
    writer.pragma_update(None, "synchronous", "NORMAL")?;

    let schema: Vec<(String, String)> = reader
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let virtual_tables: Vec<String> = schema
        .iter()
        .filter(|(_, sql)| sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL TABLE"))
        .map(|(name, _)| name.clone())
        .collect();
    let mut tables: Vec<(String, Vec<String>)> = Vec::new();
    for (name, _) in &schema {
        let internal = name.starts_with("sqlite_")
            || virtual_tables
                .iter()
                .any(|v| name == v || name.starts_with(&format!("{v}_")));
        if internal {
            continue;
        }
        let columns: Vec<String> = reader
            .prepare(&format!("SELECT name FROM pragma_table_info('{name}')"))?
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        // History tables carry the arrival clock; the clock's own counter row does not.
        if columns.iter().any(|column| column == "created_at") {
            tables.push((name.clone(), columns));
        }
    }
    let total: u64 = tables
        .iter()
        .map(|(name, _)| {
            reader.query_row(&format!("SELECT count(*) FROM {name}"), [], |row| {
                row.get::<_, i64>(0)
            })
        })
        .sum::<rusqlite::Result<i64>>()? as u64;
    // Transaction k ends after row ⌊(k+1)·total/transactions⌋: as many commits as the
    // recorders made, of (nearly) equal size.
    let transactions = transactions.clamp(1, total.max(1));
    let boundary =
        |k: u64| (u128::from(k + 1) * u128::from(total) / u128::from(transactions)) as u64;

    // One cursor per table in arrival order, merged so rows go in as they arrived.
    let mut statements = Vec::new();
    for (name, _) in &tables {
        statements.push(reader.prepare(&format!("SELECT * FROM {name} ORDER BY created_at"))?);
    }
    let mut cursors = Vec::new();
    for statement in &mut statements {
        cursors.push(statement.query([])?);
    }
    let widths: Vec<usize> = tables.iter().map(|(_, columns)| columns.len()).collect();
    let mut heads: Vec<Option<(String, Vec<SqlValue>)>> = Vec::new();
    let arrival_columns: Vec<usize> = tables
        .iter()
        .map(|(_, columns)| columns.iter().position(|c| c == "created_at").unwrap_or(0))
        .collect();
    for (index, cursor) in cursors.iter_mut().enumerate() {
        heads.push(next_row(cursor, widths[index], arrival_columns[index])?);
    }
    let inserts: Vec<String> = tables
        .iter()
        .map(|(name, columns)| {
            let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
            format!(
                "INSERT INTO {name} ({}) VALUES ({})",
                columns.join(", "),
                marks.join(", ")
            )
        })
        .collect();

    let mut floor = Floor {
        rows: 0,
        transactions: 0,
        writing: Duration::ZERO,
        tables: tables.iter().map(|(name, _)| (name.clone(), 0)).collect(),
        virtual_tables,
        text_rows: 0,
        text_rows_in_source: 0,
    };
    let indexes_text = floor
        .virtual_tables
        .iter()
        .any(|name| name == "message_text");
    if indexes_text {
        floor.text_rows_in_source =
            reader.query_row("SELECT count(*) FROM message_text", [], |row| {
                row.get::<_, i64>(0)
            })? as u64;
    }
    // Where the content and the message id sit in `messages` and `message_edits` rows.
    let text_columns: Vec<Option<(usize, usize)>> = tables
        .iter()
        .map(|(name, columns)| {
            let at = |wanted: &str| columns.iter().position(|column| column == wanted);
            match name.as_str() {
                "messages" | "message_edits" if indexes_text => at("content").zip(at("message_id")),
                _ => None,
            }
        })
        .collect();
    let mut chunk: Vec<(usize, Vec<SqlValue>)> = Vec::with_capacity(COPY_CHUNK);
    let mut transaction_open = false;
    loop {
        // Read the next rows (untimed).
        chunk.clear();
        while chunk.len() < COPY_CHUNK {
            let Some(table) = heads
                .iter()
                .enumerate()
                .filter_map(|(index, head)| head.as_ref().map(|(at, _)| (index, at)))
                .min_by(|a, b| a.1.cmp(b.1))
                .map(|(index, _)| index)
            else {
                break;
            };
            let (_, values) = heads[table].take().expect("the chosen head exists");
            chunk.push((table, values));
            heads[table] = next_row(&mut cursors[table], widths[table], arrival_columns[table])?;
        }
        if chunk.is_empty() {
            break;
        }
        // Write them (timed), committing every `per_transaction` rows.
        let started = Stopwatch::now();
        for (table, values) in &chunk {
            if !transaction_open {
                writer.execute_batch("BEGIN IMMEDIATE")?;
                transaction_open = true;
            }
            writer
                .prepare_cached(&inserts[*table])?
                .execute(rusqlite::params_from_iter(values.iter()))?;
            if let Some((content, message_id)) = text_columns[*table] {
                let is_empty = matches!(&values[content], SqlValue::Text(text) if text.is_empty());
                if !is_empty {
                    writer
                        .prepare_cached(
                            "INSERT INTO message_text (content, message_id) VALUES (?1, ?2)",
                        )?
                        .execute([&values[content], &values[message_id]])?;
                    floor.text_rows += 1;
                }
            }
            floor.tables[*table].1 += 1;
            floor.rows += 1;
            if floor.rows == boundary(floor.transactions) {
                writer.execute_batch("COMMIT")?;
                transaction_open = false;
                floor.transactions += 1;
            }
        }
        floor.writing += started.elapsed();
    }
    if transaction_open {
        let started = Stopwatch::now();
        writer.execute_batch("COMMIT")?;
        floor.writing += started.elapsed();
        floor.transactions += 1;
    }
    drop(cursors);
    drop(statements);
    // Keep the writer's handle alive until here so the WAL is checkpointed on close.
    writer.close().map_err(|(_, error)| error)?;
    Ok(floor)
}

fn next_row(
    rows: &mut rusqlite::Rows<'_>,
    width: usize,
    arrival_column: usize,
) -> rusqlite::Result<Option<(String, Vec<SqlValue>)>> {
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let values: Vec<SqlValue> = (0..width)
        .map(|index| row.get::<_, SqlValue>(index))
        .collect::<rusqlite::Result<_>>()?;
    let arrival = match &values[arrival_column] {
        SqlValue::Text(text) => text.clone(),
        _ => String::new(),
    };
    Ok(Some((arrival, values)))
}

/// Folds the write-ahead log into the database file and returns the file's size in bytes.
pub fn checkpointed_size(path: &Path) -> rusqlite::Result<u64> {
    let vfs = discord_manager_store::vfs(page_compression()).expect("the store's VFS registers");
    let connection =
        Connection::open_with_flags_and_vfs(path, rusqlite::OpenFlags::default(), vfs)?;
    connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    drop(connection);
    let wal = std::fs::metadata(format!("{}-wal", path.display()))
        .map(|m| m.len())
        .unwrap_or(0);
    let file = std::fs::metadata(path).ok();
    // A store whose pages are compressed takes the blocks it holds, not its length.
    let bytes = match (page_compression(), file) {
        #[cfg(unix)]
        (PageCompression::On, Some(metadata)) => {
            std::os::unix::fs::MetadataExt::blocks(&metadata) * 512
        }
        (_, Some(metadata)) => metadata.len(),
        (_, None) => 0,
    };
    Ok(bytes + wal)
}

/// Peak resident memory (VmHWM) of a running process, in kB.
pub fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
}
