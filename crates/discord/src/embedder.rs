//! The daemon's embedder: runs the embedding pass
//! (`discord_manager_core::business::messages::embedding`) beside the gateway for the whole
//! run, so every message, new, edited, backfilled or imported, gets its vector for search by
//! meaning. Each batch runs on a blocking thread and writes in a transaction of its own,
//! never in the gateway writer's. Idle, it looks again every [`IDLE`].
//!
//! Progress: on a terminal a bar of embedded messages out of all; elsewhere a log line every
//! [`LOG_EVERY`] messages and when the pass catches up. `store_status` shows the same count.

use std::sync::Arc;
use std::time::Duration;

use discord_manager_core::business::messages::embedding::EmbeddingPass;
use discord_manager_store::Store;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::channel_work::blocking;

/// How long the embedder waits when nothing is left to embed.
const IDLE: Duration = Duration::from_secs(2);
/// How many messages between two progress lines off a terminal.
const LOG_EVERY: u64 = 5_000;

/// Embeds until `stop` turns true. The model's weights load on the first batch.
pub async fn run(store: Arc<Store>, mut stop: watch::Receiver<bool>) {
    let pass = match blocking(EmbeddingPass::new).await {
        Ok(pass) => pass,
        Err(error) => {
            warn!("search by meaning is unavailable this run: {error:#}");
            return;
        }
    };
    // A step of long texts gives up between chunks once the daemon stops.
    let flag = pass.stop_flag();
    let mut stopping = stop.clone();
    tokio::spawn(async move {
        if stopping.wait_for(|stopping| *stopping).await.is_ok() {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let mut pass = Some(pass);
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("embedding [{bar:30}] {pos} of {len} messages")
            .expect("a template")
            .progress_chars("#>-"),
    );
    let mut embedded_this_run: u64 = 0;
    let mut logged_at: u64 = 0;
    let mut caught_up = false;
    loop {
        if *stop.borrow() {
            break;
        }
        let Some(mut running) = pass.take() else {
            break;
        };
        let batch_store = Arc::clone(&store);
        let outcome = tokio::task::spawn_blocking(move || {
            let step = running.step(&batch_store);
            let progress = running.progress(&batch_store);
            (running, step, progress)
        })
        .await;
        let Ok((running, step, progress)) = outcome else {
            warn!("the embedder stopped: a batch failed to run");
            break;
        };
        pass = Some(running);
        let step = match step {
            Ok(step) => step,
            Err(error) => {
                warn!("cannot embed the next messages: {error:#}");
                if wait(&mut stop, IDLE).await {
                    break;
                }
                continue;
            }
        };
        embedded_this_run += step.embedded as u64;
        if let Ok(progress) = progress {
            bar.set_length(progress.messages);
            bar.set_position(progress.embedded.min(progress.messages));
            if bar.is_hidden() && embedded_this_run >= logged_at + LOG_EVERY {
                logged_at = embedded_this_run;
                info!(
                    "embedding for search by meaning: {} of {} messages",
                    progress.embedded, progress.messages
                );
            }
            if step.idle && !caught_up && embedded_this_run > 0 {
                info!(
                    "search by meaning is up to date: {} of {} messages embedded \
                     ({embedded_this_run} this run)",
                    progress.embedded, progress.messages
                );
            }
        }
        caught_up = step.idle;
        if step.idle && wait(&mut stop, IDLE).await {
            break;
        }
    }
    bar.finish_and_clear();
}

/// Waits `duration`, or until `stop` turns true (then true).
async fn wait(stop: &mut watch::Receiver<bool>, duration: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(duration) => {}
        _ = stop.wait_for(|stopping| *stopping) => return true,
    }
    *stop.borrow()
}
