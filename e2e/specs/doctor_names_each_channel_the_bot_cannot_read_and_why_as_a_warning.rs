//! Per guild in scope, `doctor` names each channel the bot cannot read and why (View Channel
//! denied, Read Message History denied), from Discord's roles and overwrites, with the fix;
//! the owner may have meant it, so it is a warning: with everything else in order, doctor
//! still exits 0.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::Daemon;

const MAINTAINERS_ONLY: &str = "1400000000000000004";
const OLD_ANNOUNCEMENTS: &str = "1400000000000000006";

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(1 << 19);
    let store = Store::without_owner().sending_to(&fake);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let assert = store.cli().run_with(&["doctor"], "", &[]).code(0).stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[5],
        format!(
            "warn  channels: Lighthouse Labs: the bot cannot read 2 of 5 channels: \
             #maintainers-only ({MAINTAINERS_ONLY}): the bot cannot view this channel (View \
             Channel is denied); #old-announcements ({OLD_ANNOUNCEMENTS}): the bot cannot read \
             this channel's history (Read Message History is denied). Fix: if it should read \
             them, allow View Channel and Read Message History for the bot's role in each \
             channel's permissions"
        ),
        "{stdout}"
    );
    assert_eq!(lines.last(), Some(&"Every check passed."), "{stdout}");
    daemon.stop();
}
