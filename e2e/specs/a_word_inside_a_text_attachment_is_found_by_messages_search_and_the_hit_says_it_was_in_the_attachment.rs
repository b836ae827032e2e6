//! A log posted while ingest runs is kept, and its text is searched: `messages_search` finds
//! the message by a word that is only inside the file, the hit names the attachment and its
//! snippet is the file's text; a word of the message's own text is still a hit in the
//! message; the owner's page says where the match was, on the line that holds it.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;
use crate::support::{MatchedAttachment, SearchResults, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let log = b"deploy 4521 started\nstep 4: quokka-migration exited 137\n";
    let attachment = fake.attachment(INCIDENTS, "deploy.log", "text/plain; charset=utf-8", log);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut message =
        FakeDiscord::message_value("@id:log", INCIDENTS, GRACE, "the deploy died, log attached");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));
    let message_id = fake.id("log");

    let mcp = store.mcp().await;
    let found: SearchResults = mcp
        .call_ok("messages_search", json!({"query": "quokka"}))
        .await;
    assert_eq!(found.sorted_ids(), vec![message_id.as_str()]);
    assert_eq!(
        found.results[0].in_attachment,
        Some(MatchedAttachment {
            attachment_id: id.clone(),
            filename: "deploy.log".into(),
        })
    );
    assert_eq!(
        found.results[0].snippet,
        "deploy 4521 started\nstep 4: [quokka]-migration exited 137\n"
    );
    // The message's own words are a hit in the message, as always.
    let found: SearchResults = mcp
        .call_ok("messages_search", json!({"query": "died"}))
        .await;
    assert_eq!(found.sorted_ids(), vec![message_id.as_str()]);
    assert_eq!(found.results[0].in_attachment, None);
    assert_eq!(found.results[0].snippet, "the deploy [died], log attached");

    let searched = store.cli().run(&["search", "quokka"]).success();
    let page = String::from_utf8_lossy(&searched.get_output().stdout).into_owned();
    assert!(page.contains("in deploy.log: step 4: [quokka]-migration exited 137"), "{page}");
    daemon.stop();
}
