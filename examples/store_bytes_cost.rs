//! A measurement, not a test: what the store spends a message, table by table, against the raw
//! floor of the values it holds.
//!
//! `cargo run --release --example store_bytes_cost [messages]` (default 20,000) builds the
//! synthetic generator's history, checkpoints and vacuums it, then prints, for each table with
//! its indexes, the bytes SQLite's pages hold (`dbstat`) and the bytes of its values alone, both
//! per message. `KEEP_STORE=path` keeps the store there (or reuses one already there, for a
//! migration's timing); it is opened with this build, so an older store is migrated first and
//! the migration's time is printed.
//!
//! `--compressed` builds and measures the store with its pages written compressed
//! (`DISCORD_MANAGER_COMPRESS_STORE=1`): "on disk" is then the blocks the file holds, not its
//! length.
//!
//! `--text-ids` measures the migrations that made ids numbers (0030 to 0033), then instants
//! (0035) and the index of the messages' words without its own copy of their text (0036): the
//! history is built, then copied into a store of schema 29, whose id and instant
//! columns are TEXT as every store's were before it (SQLite writes each id's digits and each
//! instant's microseconds there as text, which 0035 reads back as the numbers they are). That
//! store is measured; migrations 0030 to 0034 are applied from their files, timed, and it is
//! measured again; then it is opened with this build, which applies 0035 and 0036, timed, and
//! measured a third time.
//!
//! **The raw floor** is what the history's values weigh with no key, index, page or record
//! header around them: every text and blob at its length in bytes, every integer, real,
//! Discord id and instant at 8 bytes (an id and an instant are 64-bit numbers, however the
//! store writes them), nothing for a NULL. The full-text indexes' own tables, and
//! `version_texts` (the later texts the messages' index reads: a copy of each edit's text, and
//! words derived from the extras), are left out of the floor (they are derived from the
//! messages) but not out of the store, so the ratio prices them. It asserts nothing.

use std::path::{Path, PathBuf};

use discord_manager_store::{PageCompression, Store};
use discord_manager_synthetic::{Plan, build};
use discord_manager_vocabulary::instant::Instant;
use rusqlite::{Connection, OpenFlags};

fn main() {
    let text_ids = std::env::args().any(|argument| argument == "--text-ids");
    let pages = if std::env::args().any(|argument| argument == "--compressed") {
        PageCompression::On
    } else {
        PageCompression::Off
    };
    let messages: u64 = std::env::args()
        .skip(1)
        .find_map(|count| count.parse().ok())
        .unwrap_or(20_000);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = std::env::var_os("KEEP_STORE")
        .map(PathBuf::from)
        .unwrap_or_else(|| folder.path().join("cost.sqlite3"));
    if path.exists() {
        let started = std::time::Instant::now();
        drop(Store::open_as(&path, pages).expect("the kept store opens"));
        println!(
            "opened (and migrated if older) {} in {:.1} s",
            path.display(),
            started.elapsed().as_secs_f64()
        );
    } else {
        let store = Store::open_as(&path, pages).expect("the store opens");
        let started = std::time::Instant::now();
        build(&store, &Plan::new(messages, 7)).expect("the history builds");
        println!(
            "built {messages} messages in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    if text_ids {
        let before = path.with_extension("text-ids.sqlite3");
        let _ = std::fs::remove_file(&before);
        with_text_ids(&path, &before);
        println!("\n## schema 29: ids and instants as TEXT");
        report(&before, PageCompression::Off);
        let started = std::time::Instant::now();
        apply_migrations(&before, 30..=34);
        println!(
            "\nmigrated ids to numbers (0030 to 0034) in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        println!("\n## schema 34: ids as numbers, instants as TEXT");
        report(&before, PageCompression::Off);
        let started = std::time::Instant::now();
        drop(Store::open(&before).expect("the older store opens and migrates"));
        println!(
            "\nmigrated instants to numbers and the words' index to no copy of its own (0035, \
             0036) in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        println!("\n## ids and instants as numbers, the words' index without its copy");
        report(&before, PageCompression::Off);
        return;
    }
    report(&path, pages);
}

/// The history of `source` copied into a new store at `target` of schema 29, from before ids
/// were numbers: every row as it is, each id written into its TEXT column as its digits.
fn with_text_ids(source: &Path, target: &Path) {
    let connection = Connection::open(target).expect("the older store opens");
    // 0028 fills its index from the texts already indexed; this store has none yet.
    connection
        .create_scalar_function(
            "cjk_grams",
            1,
            rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
            |_| Ok(None::<String>),
        )
        .expect("the function");
    run_migrations(&connection, 1..=29);
    connection
        .execute_batch("PRAGMA journal_mode = WAL;")
        .expect("schema 29");
    connection
        .execute("ATTACH DATABASE ?1 AS new", [source.display().to_string()])
        .expect("the built store");
    // The synthetic history is in Latin letters: no text for the index of Chinese and Japanese
    // words, whose rows (grams of a text, kept nowhere else) this copy could not make again.
    let cjk: i64 = connection
        .query_row("SELECT count(*) FROM new.cjk_text_docsize", [], |row| {
            row.get(0)
        })
        .expect("the CJK index");
    assert_eq!(cjk, 0, "this copy does not carry the CJK index");
    let tables: Vec<String> = connection
        .prepare(
            "SELECT name FROM new.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT LIKE '%text\\_%' ESCAPE '\\' \
             AND name <> 'version_texts' ORDER BY name",
        )
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .expect("the tables");
    // Each instant as that schema's code wrote it: its fixed-width text.
    connection
        .create_scalar_function(
            "instant_text",
            1,
            rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
            |context| {
                let micros: Option<i64> = context.get(0)?;
                Ok(micros.map(|micros| Instant::from_micros(micros).to_iso()))
            },
        )
        .expect("the function");
    // A row a migration made (the clock's) or the messages' trigger counted (the channels'
    // totals) is replaced by the copied one.
    let copy = tables
        .iter()
        .map(|table| {
            let columns: Vec<String> = connection
                .prepare(&format!(
                    "SELECT name FROM new.pragma_table_info('{table}')"
                ))
                .and_then(|mut statement| {
                    statement
                        .query_map([], |row| row.get(0))?
                        .collect::<rusqlite::Result<_>>()
                })
                .expect("the columns");
            let values: Vec<String> = columns
                .iter()
                .map(|column| {
                    if is_instant(column) {
                        format!("instant_text({column})")
                    } else {
                        column.clone()
                    }
                })
                .collect();
            format!(
                "INSERT OR REPLACE INTO main.{table} ({}) SELECT {} FROM new.{table};",
                columns.join(", "),
                values.join(", ")
            )
        })
        .collect::<String>();
    connection
        .execute_batch(&format!(
            "BEGIN; {copy}
             INSERT INTO main.message_text (rowid, content, message_id)
                 SELECT text_rowid, content, CAST(message_id AS TEXT)
                 FROM new.message_text_versions;
             INSERT INTO main.file_text (rowid, content, message_id)
                 SELECT rowid, content, CAST(message_id AS TEXT) FROM new.file_text;
             COMMIT;"
        ))
        .expect("the history is copied");
}

/// The migration files numbered within `numbers`, applied in order to the store at `path` in one
/// transaction, as the binary of their time would have.
fn apply_migrations(path: &Path, numbers: std::ops::RangeInclusive<u32>) {
    let mut connection = Connection::open(path).expect("the older store opens");
    let transaction = connection.transaction().expect("a transaction");
    run_migrations(&transaction, numbers);
    transaction.commit().expect("the migrations commit");
}

/// Runs the migration files numbered within `numbers` on `connection` and sets its schema
/// version to the last.
fn run_migrations(connection: &Connection, numbers: std::ops::RangeInclusive<u32>) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("the migrations")
        .map(|entry| entry.expect("a migration").path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .and_then(|name| name.get(..4))
                .and_then(|number| number.parse::<u32>().ok())
                .is_some_and(|number| numbers.contains(&number))
        })
        .collect();
    files.sort();
    for file in &files {
        let sql = std::fs::read_to_string(file).expect("a migration");
        connection
            .execute_batch(&sql)
            .expect("the migration applies");
    }
    connection
        .pragma_update(None, "user_version", numbers.end())
        .expect("the schema version");
}

/// Whether a column holds an instant: every `…_at`, and the read markers' and push coverage's
/// `…through`.
fn is_instant(column: &str) -> bool {
    column.ends_with("_at") || column.ends_with("through")
}

fn report(path: &Path, pages: PageCompression) {
    // Through the store's own VFS: SQLite's would read compressed pages as they lie.
    let vfs = discord_manager_store::vfs(pages).expect("the store's VFS registers");
    let connection = Connection::open_with_flags_and_vfs(path, OpenFlags::default(), vfs)
        .expect("the store opens");
    connection
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("vacuum");
    let count: f64 = connection
        .query_row("SELECT count(*) FROM messages", [], |row| {
            row.get::<_, i64>(0)
        })
        .expect("the messages") as f64;
    let metadata = std::fs::metadata(path).expect("its size");
    let length = metadata.len() as f64;
    #[cfg(unix)]
    let held = std::os::unix::fs::MetadataExt::blocks(&metadata) as f64 * 512.0;
    #[cfg(not(unix))]
    let held = length;
    // A compressed store's holes take no disk: what it costs is the blocks it holds.
    let file = match pages {
        PageCompression::On => held,
        PageCompression::Off => length,
    };
    println!(
        "the file: {:.0} B a message long, {:.0} B a message in blocks held",
        length / count,
        held / count
    );

    let tables: Vec<String> = connection
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY name",
        )
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .expect("the tables");
    let virtual_tables: Vec<String> = connection
        .prepare("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'")
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .expect("the virtual tables");
    // The full-text indexes' own tables, and the later texts the messages' index reads (a copy
    // of each edit's text, and words derived from the extras).
    let derived = |table: &str| {
        table == "version_texts"
            || virtual_tables
                .iter()
                .any(|name| table == name || table.starts_with(&format!("{name}_")))
    };

    let mut rows = Vec::new();
    let (mut pages_total, mut floor_total) = (0.0, 0.0);
    for table in &tables {
        let pages: f64 = connection
            .query_row(
                "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?1 OR name IN \
                 (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1)",
                [table],
                |row| row.get::<_, i64>(0),
            )
            .expect("dbstat") as f64;
        let floor = if derived(table) || virtual_tables.contains(table) {
            0.0
        } else {
            floor_of(&connection, table)
        };
        pages_total += pages;
        floor_total += floor;
        if pages > 0.0 {
            rows.push((table.clone(), pages, floor));
        }
    }
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!(
        "{count} messages, {:.0} B a message on disk ({:.2} GB per 1M)",
        file / count,
        file / count * 1e6 / 1e9
    );
    println!("| table (with its indexes) | pages B/message | floor B/message |");
    println!("|---|---:|---:|");
    for (table, pages, floor) in rows {
        println!("| {table} | {:.1} | {:.1} |", pages / count, floor / count);
    }
    println!(
        "| **all** | **{:.1}** | **{:.1}** |",
        pages_total / count,
        floor_total / count
    );
    println!("store ÷ raw floor: {:.2}", file / floor_total);
}

/// The bytes of `table`'s values alone: text and blob at their length, numbers, ids and
/// instants at 8.
fn floor_of(connection: &Connection, table: &str) -> f64 {
    let columns: Vec<String> = connection
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .expect("the columns");
    if columns.is_empty() {
        return 0.0;
    }
    let terms: Vec<String> = columns
        .iter()
        .map(|column| {
            let id = column == "id" || column.ends_with("_id");
            if id || is_instant(column) {
                format!("CASE WHEN \"{column}\" IS NULL THEN 0 ELSE 8 END")
            } else {
                format!(
                    "CASE typeof(\"{column}\") WHEN 'null' THEN 0 WHEN 'integer' THEN 8 \
                     WHEN 'real' THEN 8 ELSE length(CAST(\"{column}\" AS BLOB)) END"
                )
            }
        })
        .collect();
    connection
        .query_row(
            &format!(
                "SELECT coalesce(sum({}), 0) FROM \"{table}\"",
                terms.join(" + ")
            ),
            [],
            |row| row.get::<_, i64>(0),
        )
        .expect("the floor") as f64
}
