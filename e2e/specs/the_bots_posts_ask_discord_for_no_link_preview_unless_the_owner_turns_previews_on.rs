//! Discord fetches a link's preview as soon as a message is posted, so a URL the bot posts is
//! requested without anyone clicking it. The owner's `send` from the CLI (not limited to
//! DISCORD_MANAGER_SEND_CHANNELS) posts with SUPPRESS_EMBEDS (flags 1 << 2), and Discord's
//! answer is recorded; with DISCORD_MANAGER_LINK_PREVIEWS=1 the post carries no flag.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::store_sending_to;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake);
    let link = "notes: https://example.invalid/notes?from=keeper";
    let sent = store
        .cli()
        .json_value(&["send", link, "--channel-id", GENERAL]);
    assert_eq!(sent["content"], link);
    let store = store.setting("DISCORD_MANAGER_LINK_PREVIEWS", "1");
    store
        .cli()
        .json_value(&["send", "with a preview", "--channel-id", GENERAL]);

    let posts = fake.posts();
    assert_eq!(posts.len(), 2, "{posts:#?}");
    assert_eq!(posts[0]["content"], link);
    assert_eq!(posts[0]["flags"], json!(4));
    assert_eq!(posts[1]["content"], "with a preview");
    assert_eq!(posts[1].get("flags"), None);
}
