//! A token Discord rejects (401) ends `setup` with exit 7 and a message saying where to get a
//! new one; no config file is written, and the token is never printed.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().setting("DISCORD_API_BASE", fake.api_base());
    let rejected = "a-token.never-issued.7f3e";

    let assert = store
        .cli()
        .run_with(
            &["setup", "--token-stdin", "--all-guilds"],
            &format!("{rejected}\n"),
            &[],
        )
        .code(7)
        .stdout("");

    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert_eq!(
        stderr,
        "error: Discord rejected this token (401 Unauthorized): copy it again from the \
         Developer Portal → your application → Bot → Reset Token; nothing was written\n"
    );
    assert!(!stderr.contains(rejected));
    assert!(!store.config_file().exists(), "no config file was written");
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].path, "/api/v10/users/@me");
    assert!(!requests[0].authorized);
}
