//! With `DISCORD_GUILD_IDS` naming a guild the bot is not in, `doctor`'s guilds check fails
//! with the invite URL as the fix, and names the guild the bot is in that is out of scope;
//! only the guild in scope gets its channels checked; exit code 1.

use crate::support::Store;
use crate::support::fake_discord::{BOT, FakeDiscord, GUILD};

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(1 << 19);
    let side = fake.add_guild("Side Project");
    let missing = "1299999999999999999";
    let store = Store::without_owner()
        .sending_to(&fake)
        .scoped_to(&[GUILD, missing]);

    let assert = store.cli().run_with(&["doctor"], "", &[]).code(1).stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[4],
        format!(
            "FAIL  guilds: in scope: Lighthouse Labs ({GUILD}); out of scope (not in \
             DISCORD_GUILD_IDS): Side Project ({side}); in DISCORD_GUILD_IDS but the bot is not \
             in: {missing}. Fix: invite the bot there \
             (https://discord.com/oauth2/authorize?client_id={BOT}&scope=bot&permissions=292057844800) \
             or take the id out of DISCORD_GUILD_IDS"
        ),
        "{stdout}"
    );
    let channel_lines: Vec<&&str> = lines
        .iter()
        .filter(|line| line[6..].starts_with("channels:"))
        .collect();
    assert_eq!(channel_lines.len(), 1, "{stdout}");
    assert!(channel_lines[0].contains("Lighthouse Labs"), "{stdout}");
    let looked_into: Vec<String> = fake
        .requests()
        .into_iter()
        .map(|request| request.path)
        .filter(|path| path.contains(&format!("/guilds/{side}/")))
        .collect();
    assert_eq!(looked_into, Vec::<String>::new(), "a guild out of scope is not looked into");
}
