//! An application without the Message Content intent fails `doctor`'s intent check, with the
//! Developer Portal address of this bot where it is switched on, and exit code 1.

use crate::support::Store;
use crate::support::fake_discord::{BOT, FakeDiscord};

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(0);
    let store = Store::without_owner().sending_to(&fake);

    let assert = store.cli().run_with(&["doctor"], "", &[]).code(1).stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[3],
        format!(
            "FAIL  message-content: the Message Content intent is off: without it every \
             message reaches the bot without its text. Fix: switch on Message Content Intent \
             under Bot → Privileged Gateway Intents at \
             https://discord.com/developers/applications/{BOT}/bot, save, then restart ingest"
        ),
        "{stdout}"
    );
}
