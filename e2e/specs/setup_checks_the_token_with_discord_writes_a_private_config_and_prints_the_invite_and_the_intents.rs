//! `setup --token-stdin --all-guilds` asks Discord whose bot the token is, writes the token,
//! the application's owner and the scope into the owner's config file with mode 0600, and
//! prints the invite URL with exactly the permissions the product uses, each explained, and
//! which privileged intents to switch on where. The token is never printed, and the next
//! command reads the configuration setup wrote.

use std::os::unix::fs::PermissionsExt;

use crate::support::Store;
use crate::support::fake_discord::{BOT, FakeDiscord, GUILD, OWNER};

/// The Message Content intent of a bot in fewer than 100 guilds.
const MESSAGE_CONTENT_LIMITED: u64 = 1 << 19;

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(MESSAGE_CONTENT_LIMITED);
    let store = Store::without_owner().setting("DISCORD_API_BASE", fake.api_base());
    let token = format!("{}\n", fake.token());

    let assert = store
        .cli()
        .run_with(&["setup", "--token-stdin", "--all-guilds"], &token, &[])
        .success()
        .stderr("");

    let config = store.config_file();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let expected = [
        format!(
            "The token belongs to the bot keeper ({BOT}) of the application Keeper ({BOT}), \
             owned by {OWNER}."
        ),
        format!("In scope: every guild the bot is in, now and later: Lighthouse Labs ({GUILD})."),
        format!(
            "Wrote {} (mode 0600): DISCORD_TOKEN, DISCORD_OWNER_ID, DISCORD_GUILD_IDS.",
            config.display()
        ),
        String::new(),
        format!(
            "Privileged intents (Developer Portal → your application → Bot → Privileged \
             Gateway Intents: https://discord.com/developers/applications/{BOT}/bot):"
        ),
        "  Message Content Intent: on (needed: without it every message reaches the bot \
         without its text)"
            .to_string(),
        "  Server Members Intent: off (not used: the daemon never asks for the member list)"
            .to_string(),
        "  Presence Intent: off (not used: the daemon never asks for presences)".to_string(),
        String::new(),
        "Invite the bot with exactly the permissions it uses:".to_string(),
        format!(
            "  https://discord.com/oauth2/authorize?client_id={BOT}&scope=bot&permissions=292057844800"
        ),
        "  View Channels: see the channels and receive their messages as they are posted"
            .to_string(),
        "  Manage Threads: list private threads, archived ones too, so none is missed (the bot \
         never changes a thread; without it only the private threads it was added to are read)"
            .to_string(),
        "  Send Messages: post what you send or schedule as the bot".to_string(),
        "  Send Messages in Threads: post in threads".to_string(),
        "  Read Message History: backfill what was posted while the daemon was not running"
            .to_string(),
        "  Add Reactions: react as the bot (`reactions add`) with an emoji nobody has used on \
         the message yet"
            .to_string(),
        String::new(),
        "Next: `discord-manager ingest` records what the bot sees; `discord-manager doctor` \
         checks everything; `discord-manager mcp config <client> --write` connects your \
         assistant."
            .to_string(),
    ];
    assert_eq!(stdout.lines().collect::<Vec<_>>(), expected);
    assert!(!stdout.contains(fake.token()), "the token is never printed");

    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        format!(
            "DISCORD_TOKEN={}\nDISCORD_OWNER_ID={OWNER}\nDISCORD_GUILD_IDS=\n",
            fake.token()
        )
    );
    let mode = std::fs::metadata(&config).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let asked: Vec<(String, bool)> = fake
        .requests()
        .into_iter()
        .map(|request| (request.path, request.authorized))
        .collect();
    assert_eq!(
        asked,
        [
            ("/api/v10/users/@me".to_string(), true),
            ("/api/v10/oauth2/applications/@me".to_string(), true),
            ("/api/v10/users/@me/guilds".to_string(), true),
        ]
    );

    // The next command runs on what setup wrote: doctor finds the token in the config file.
    let doctor = store.cli().run_with(&["doctor"], "", &[]);
    let output = String::from_utf8_lossy(&doctor.get_output().stdout).into_owned();
    assert!(
        output.lines().any(|line| line
            == format!("ok    token: Discord accepts it: the bot keeper ({BOT})")),
        "{output}"
    );
}
