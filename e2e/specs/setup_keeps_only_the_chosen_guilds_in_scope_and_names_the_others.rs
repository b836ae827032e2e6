//! `setup --guild ID` keeps only that guild in scope (`DISCORD_GUILD_IDS`), names the guild
//! the bot is in that stays out of scope, and an id the bot is not in yet; without a terminal
//! and without `--guild` or `--all-guilds` it asks for them, listing the bot's guilds, and
//! writes nothing; an existing config file is replaced only with `--yes`.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GUILD, OWNER};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let side = fake.add_guild("Side Project");
    let store = Store::without_owner().setting("DISCORD_API_BASE", fake.api_base());
    let token = format!("{}\n", fake.token());

    let asked = store.cli().run_with(&["setup", "--token-stdin"], &token, &[]).code(2);
    assert_eq!(
        String::from_utf8_lossy(&asked.get_output().stderr),
        format!(
            "error: Say which guilds to keep in scope: --guild ID (repeated) or --all-guilds; \
             the bot is in Lighthouse Labs ({GUILD}), Side Project ({side})\n"
        )
    );
    assert!(!store.config_file().exists(), "nothing was written");

    let not_yet = "1299999999999999999";
    let assert = store
        .cli()
        .run_with(
            &["setup", "--token-stdin", "--guild", GUILD, "--guild", not_yet],
            &token,
            &[],
        )
        .success()
        .stderr("");
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[1..4],
        [
            format!("In scope: Lighthouse Labs ({GUILD}), {not_yet}."),
            format!("Not in yet: {not_yet}: invite the bot there with the URL below."),
            format!("Out of scope: Side Project ({side})."),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(store.config_file()).unwrap(),
        format!(
            "DISCORD_TOKEN={}\nDISCORD_OWNER_ID={OWNER}\nDISCORD_GUILD_IDS={GUILD},{not_yet}\n",
            fake.token()
        )
    );

    // Again, now that the file exists: refused without --yes, and the file is kept.
    let again = store
        .cli()
        .run_with(&["setup", "--token-stdin", "--guild", &side], &token, &[])
        .code(4);
    assert_eq!(
        String::from_utf8_lossy(&again.get_output().stderr),
        format!(
            "error: {} already exists: run again with --yes to replace its DISCORD_TOKEN, \
             DISCORD_OWNER_ID, DISCORD_GUILD_IDS (every other line is kept); nothing was \
             written\n",
            store.config_file().display()
        )
    );
    store
        .cli()
        .run_with(&["setup", "--token-stdin", "--guild", &side, "--yes"], &token, &[])
        .success();
    assert!(
        std::fs::read_to_string(store.config_file())
            .unwrap()
            .ends_with(&format!("DISCORD_GUILD_IDS={side}\n"))
    );
}
