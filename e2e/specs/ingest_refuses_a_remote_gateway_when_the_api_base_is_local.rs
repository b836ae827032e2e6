//! serenity falls back to the real gateway silently; the product does not: a local API base
//! (a fake Discord) that answers a gateway elsewhere is refused before any connection.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::{Daemon, PATIENCE};

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.answer_gateway_url("wss://gateway.discord.gg");
    let store = Store::without_owner();
    let mut daemon = Daemon::start(&fake, &store);
    let status = daemon.wait_exit(PATIENCE);

    assert_eq!(status.code(), Some(6), "a configuration error");
    assert_eq!(
        daemon.output().last().map(String::as_str),
        Some(
            format!(
                "error: DISCORD_API_BASE is a local address ({}) but its /api/v10/gateway \
                 answered wss://gateway.discord.gg: refusing to connect a local setup to a \
                 gateway elsewhere",
                fake.api_base()
            )
            .as_str()
        )
    );
    assert!(fake.frames().is_empty(), "no gateway connection was made");
    daemon.assert_hygiene();
}
