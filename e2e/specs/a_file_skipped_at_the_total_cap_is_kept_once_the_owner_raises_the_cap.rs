//! A file that would take the cache past its total cap is recorded skipped with zero
//! requests, and that skip is not final: once the owner raises the cap and ingest starts
//! again, it is fetched and kept, and what was kept before is not fetched again.

use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

const MIB: usize = 1024 * 1024;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().setting("DISCORD_MANAGER_ATTACHMENT_TOTAL_MB", "1");
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // The first fills the cache to its cap exactly; the second would pass it.
    let fills = cache::file_bytes(4, MIB);
    let later = cache::file_bytes(5, 1000);
    let first = fake.attachment(INCIDENTS, "first.log", "text/plain", &fills);
    let second = fake.attachment(INCIDENTS, "second.log", "text/plain", &later);
    let (first_id, second_id) = (
        first["id"].as_str().unwrap().to_string(),
        second["id"].as_str().unwrap().to_string(),
    );
    let mut message = FakeDiscord::message_value("@id:logs", INCIDENTS, GRACE, "two logs");
    message["d"]["attachments"] = json!([first, second]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {first_id}"));
    let skipped = daemon.wait_for(&format!("skipped attachment {second_id}"));
    assert!(
        skipped.contains(
            "total cap reached: the cache holds up to 1 MiB \
             (DISCORD_MANAGER_ATTACHMENT_TOTAL_MB); nothing is evicted, and it is fetched once \
             there is room (raise the cap)"
        ),
        "{skipped}"
    );
    daemon.stop();
    let first_path = format!("/attachments/{INCIDENTS}/{first_id}/first.log");
    let asked = || -> Vec<String> {
        fake.cdn_requests()
            .into_iter()
            .map(|request| request.path)
            .collect()
    };
    assert_eq!(asked(), std::slice::from_ref(&first_path), "no request for the skipped file");

    let raised = Daemon::start_with_env(
        &fake,
        &store,
        &[("DISCORD_MANAGER_ATTACHMENT_TOTAL_MB", "2")],
    );
    raised.wait_for(&format!("kept attachment {second_id}"));
    assert_eq!(
        asked(),
        [
            first_path,
            format!("/attachments/{INCIDENTS}/{second_id}/second.log")
        ],
        "the skipped file fetched once, the kept one never again"
    );
    let mut kept = vec![cache::as_kept(&fills), cache::as_kept(&later)];
    kept.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(cache::files(&store), kept);
    raised.stop();
}
