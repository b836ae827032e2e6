//! When the application does not have the Message Content intent, `setup` still writes the
//! configuration (exit 0) and says, on the intent's own line, to switch it on and why, under
//! the Developer Portal address of this very bot.

use crate::support::Store;
use crate::support::fake_discord::{BOT, FakeDiscord};

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(0);
    let store = Store::without_owner().setting("DISCORD_API_BASE", fake.api_base());

    let assert = store
        .cli()
        .run_with(
            &["setup", "--token-stdin", "--all-guilds"],
            &format!("{}\n", fake.token()),
            &[],
        )
        .code(0)
        .stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    let heading = lines
        .iter()
        .position(|line| line.starts_with("Privileged intents"))
        .unwrap_or_else(|| panic!("no intents heading: {stdout}"));
    assert_eq!(
        lines[heading],
        format!(
            "Privileged intents (Developer Portal → your application → Bot → Privileged \
             Gateway Intents: https://discord.com/developers/applications/{BOT}/bot):"
        )
    );
    assert_eq!(
        lines[heading + 1],
        "  Message Content Intent: OFF: switch it on there, then save; without it every \
         message reaches the bot without its text"
    );
    assert!(store.config_file().is_file(), "the configuration is written all the same");
}
