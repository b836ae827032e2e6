//! A token Discord rejects fails `doctor`'s token check with the fix (a new token from the
//! Developer Portal, then `setup`), the checks that need an accepted token are skipped, the
//! exit code is 1, and the token never appears in the output.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let rejected = "a-token.never-issued.7f3e";
    let store = Store::without_owner()
        .setting("DISCORD_TOKEN", rejected)
        .setting("DISCORD_API_BASE", fake.api_base());

    let assert = store.cli().run_with(&["doctor"], "", &[]).code(1).stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[2..5],
        [
            "FAIL  token: Discord rejected the token (401 Unauthorized). Fix: copy a new one \
             from the Developer Portal → your application → Bot → Reset Token, then run \
             `discord-manager setup`",
            "skip  message-content: not checked: the token was not accepted",
            "skip  guilds: not checked: the token was not accepted",
        ],
        "{stdout}"
    );
    assert!(!stdout.contains(rejected), "the token is never printed");
    assert!(!stdout.contains("never-issued"), "no part of it either");
    let asked: Vec<String> = fake.requests().into_iter().map(|request| request.path).collect();
    assert_eq!(asked, ["/api/v10/users/@me"]);
}
