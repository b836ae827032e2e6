//! The config file loses to the environment and to `.env` in the working directory, so when
//! either sets a variable `setup` writes, setup says so, naming the variable and where it is
//! set, right after saying what it wrote.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, OWNER};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner()
        .setting("DISCORD_API_BASE", fake.api_base())
        .setting("DISCORD_OWNER_ID", OWNER);
    std::fs::write(store.folder().join(".env"), "DISCORD_GUILD_IDS=1200000000000000001\n")
        .unwrap();

    let assert = store
        .cli()
        .run_with(
            &["setup", "--token-stdin", "--all-guilds"],
            &format!("{}\n", fake.token()),
            &[],
        )
        .success()
        .stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[2].starts_with("Wrote "), "{stdout}");
    assert_eq!(
        lines[3..5],
        [
            "Note: DISCORD_OWNER_ID is also set in the environment, which wins over the config \
             file.",
            "Note: DISCORD_GUILD_IDS is also set in .env in this directory, which wins over the \
             config file.",
        ],
        "{stdout}"
    );
    assert_eq!(lines[5], "", "{stdout}");
}
