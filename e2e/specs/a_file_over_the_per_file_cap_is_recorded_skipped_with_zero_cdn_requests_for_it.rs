use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

const MIB: usize = 1024 * 1024;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().setting("DISCORD_MANAGER_ATTACHMENT_FILE_MB", "1");
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // One byte over the cap, then a file exactly at it: the first skipped, the second kept.
    let over = cache::file_bytes(2, MIB + 1);
    let at_cap = cache::file_bytes(3, MIB);
    let too_large = fake.attachment(INCIDENTS, "heap-dump.log", "text/plain", &over);
    let fits = fake.attachment(INCIDENTS, "gc.log", "text/plain", &at_cap);
    let (too_large_id, fits_id) = (
        too_large["id"].as_str().unwrap().to_string(),
        fits["id"].as_str().unwrap().to_string(),
    );
    let mut message = FakeDiscord::message_value("@id:logs", INCIDENTS, GRACE, "the logs");
    message["d"]["attachments"] = json!([too_large, fits]);
    fake.play(&message.to_string());

    let skipped = daemon.wait_for(&format!("skipped attachment {too_large_id}"));
    assert!(
        skipped.contains(
            "too large: 1048577 bytes, over the per-file cap of 1 MiB \
             (DISCORD_MANAGER_ATTACHMENT_FILE_MB)"
        ),
        "{skipped}"
    );
    daemon.wait_for(&format!("kept attachment {fits_id}"));

    let asked: Vec<String> = fake
        .cdn_requests()
        .into_iter()
        .map(|request| request.path)
        .collect();
    assert_eq!(
        asked,
        [format!("/attachments/{INCIDENTS}/{fits_id}/gc.log")],
        "no request for the file over the cap"
    );
    assert_eq!(cache::files(&store), [cache::as_kept(&at_cap)]);
    daemon.stop();
}
