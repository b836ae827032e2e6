//! Without the privileged Message Content intent Discord delivers every message with empty
//! content; the daemon says so instead of silently storing blanks.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let lines: Vec<String> = (0..20)
        .map(|n| FakeDiscord::message_line(&format!("@id:m{n}"), GENERAL, GRACE, ""))
        .collect();
    fake.play(&lines.join("\n"));

    let warning = daemon.wait_for("Message Content intent is probably off");
    assert!(
        warning.contains("the last 20 messages arrived with empty content"),
        "{warning}"
    );
    daemon.stop();
}
