//! The daemon's reader of kept payloads: once after an upgrade to a version that reads more
//! from a message's payload (`discord_manager_ingest::kept_payload::READING_RULES` above the
//! store's newest `payload_readings`), it reads every kept payload again beside the gateway,
//! a page a transaction, so each message gains what the new rules read without asking Discord.
//! A stop ends it between pages; the next start walks again (a page read twice writes
//! nothing), and the pass is recorded only once it reached the last payload.

use std::sync::Arc;

use discord_manager_ingest::kept_payload::{READING_RULES, read_again};
use discord_manager_store::Store;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::MessageId;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::channel_work::blocking;

/// How many messages' payloads one transaction reads again.
const PAGE: usize = 500;

/// Reads every kept payload again when the store's reading rules are older than this
/// version's, until done or `stop` turns true.
pub async fn run(store: Arc<Store>, stop: watch::Receiver<bool>) {
    if let Err(error) = read_every_payload(&store, &stop).await {
        warn!(
            "could not read the kept message payloads again: {error} (the next start tries again)"
        );
    }
}

async fn read_every_payload(store: &Arc<Store>, stop: &watch::Receiver<bool>) -> Result<()> {
    let rules = {
        let store = Arc::clone(store);
        blocking(move || store.read(|reader| reader.payload_reading_rules())).await?
    };
    if rules.is_some_and(|rules| rules >= READING_RULES) {
        return Ok(());
    }
    let (mut read, mut changed) = (0u64, 0u64);
    let mut after: Option<MessageId> = None;
    loop {
        if *stop.borrow() {
            return Ok(());
        }
        let (page_store, page_after) = (Arc::clone(store), after);
        let page = blocking(move || read_again(&page_store, page_after.as_ref(), PAGE)).await?;
        read += page.read;
        changed += page.changed;
        match page.last {
            Some(last) => after = Some(last),
            None => break,
        }
    }
    let done = Arc::clone(store);
    blocking(move || done.write(|writer| writer.record_payload_reading(READING_RULES))).await?;
    info!(
        "read the kept payloads of {read} messages again with this version's reading rules: \
         {changed} gained what it reads"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(store: &Store) -> Option<u32> {
        store.read(|reader| reader.payload_reading_rules()).unwrap()
    }

    #[tokio::test]
    async fn a_pass_is_recorded_once_it_reached_the_end_and_not_when_stopped_first() {
        let folder = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open_writable(&folder.path().join("s.sqlite3")).unwrap());
        let (stop, stopped) = watch::channel(true);
        run(Arc::clone(&store), stopped.clone()).await;
        assert_eq!(rules(&store), None, "stopped before its first page");
        stop.send(false).unwrap();
        run(Arc::clone(&store), stopped.clone()).await;
        assert_eq!(rules(&store), Some(READING_RULES));
        // Current already: nothing more is recorded.
        run(Arc::clone(&store), stopped).await;
        let passes: i64 = discord_manager_store::testing::connection(&store)
            .query_row("SELECT count(*) FROM payload_readings", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(passes, 1);
    }
}
