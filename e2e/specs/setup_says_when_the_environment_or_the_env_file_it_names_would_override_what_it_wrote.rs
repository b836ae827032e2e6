//! The config file loses to the environment and to the env file the environment names in
//! `DISCORD_MANAGER_ENV_FILE`, so when either sets a variable `setup` writes, setup says so,
//! naming the variable and where it is set, right after saying what it wrote. A `.env` in the
//! working directory is never read, so it is never named.

use std::os::unix::fs::PermissionsExt;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, OWNER};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let env_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(env_file.path(), "DISCORD_GUILD_IDS=1200000000000000001\n").unwrap();
    std::fs::set_permissions(env_file.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let store = Store::without_owner()
        .setting("DISCORD_API_BASE", fake.api_base())
        .setting("DISCORD_OWNER_ID", OWNER)
        .setting(
            "DISCORD_MANAGER_ENV_FILE",
            &env_file.path().display().to_string(),
        );
    std::fs::write(store.folder().join(".env"), "DISCORD_MANAGER_SEND_CHANNELS=1\n").unwrap();

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
             file."
                .to_string(),
            format!(
                "Note: DISCORD_GUILD_IDS is also set in the env file {}, which wins over the \
                 config file.",
                env_file.path().display()
            ),
        ],
        "{stdout}"
    );
    assert_eq!(lines[5], "", "{stdout}");
}
