use crate::support::fake_discord::FakeDiscord;
use crate::support::Store;
use crate::support::live::{Daemon, PATIENCE, Start};

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.reject_identify(true);
    let store = Store::without_owner();
    // Everything logged, serenity's internals included, to show the token is never among it.
    let mut daemon = Daemon::start_with(
        &fake,
        &store,
        Start {
            token: fake.token(),
            rust_log: "trace",
            arguments: &[],
        },
    );
    let status = daemon.wait_exit(PATIENCE);

    assert_eq!(status.code(), Some(7), "Discord errors exit with 7");
    let output = daemon.output();
    assert_eq!(
        output.last().map(String::as_str),
        Some(
            "error: Discord rejected the bot token (gateway close code 4004, authentication \
             failed): check DISCORD_TOKEN"
        )
    );
    // Promptly: it gave up on the first rejection instead of identifying again.
    assert_eq!(fake.frames_in(2).len(), 1);
    daemon.assert_hygiene();
    // The token did reach the fake (so the check above had something to find).
    assert!(
        fake.frames_in(2)[0].payload["d"]["token"]
            .as_str()
            .is_some_and(|token| token.contains(fake.token()))
    );
}
