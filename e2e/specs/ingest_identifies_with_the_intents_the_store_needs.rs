//! The IDENTIFY asks for guilds, guild messages with their content, reactions and poll votes,
//! and direct messages with their reactions and poll votes: nothing less (the store would miss
//! events) and nothing privileged beyond Message Content.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::Daemon;

const GUILDS: u64 = 1 << 0;
const GUILD_MESSAGES: u64 = 1 << 9;
const GUILD_MESSAGE_REACTIONS: u64 = 1 << 10;
const DIRECT_MESSAGES: u64 = 1 << 12;
const DIRECT_MESSAGE_REACTIONS: u64 = 1 << 13;
const MESSAGE_CONTENT: u64 = 1 << 15;
const GUILD_MESSAGE_POLLS: u64 = 1 << 24;
const DIRECT_MESSAGE_POLLS: u64 = 1 << 25;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let identify = &fake.frames_in(2)[0];
    assert_eq!(
        identify.payload["d"]["intents"].as_u64(),
        Some(
            GUILDS
                | GUILD_MESSAGES
                | GUILD_MESSAGE_REACTIONS
                | DIRECT_MESSAGES
                | DIRECT_MESSAGE_REACTIONS
                | MESSAGE_CONTENT
                | GUILD_MESSAGE_POLLS
                | DIRECT_MESSAGE_POLLS
        )
    );
    let connected = daemon.wait_for("connecting to the gateway at ");
    assert!(connected.ends_with(fake.gateway_url()), "{connected}");
    daemon.stop();
}
