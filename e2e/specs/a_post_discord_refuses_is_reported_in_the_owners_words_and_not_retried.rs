//! Discord refuses a post (403 Missing Permissions, though the stored permissions allowed it):
//! the send fails with exit 7 and Discord's reason in the owner's words, after one request,
//! and nothing is stored.

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::{store_sending_to, EVER, caught_up};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake);

    fake.fail_posts(403, 1, 0.0);
    store
        .cli()
        .run(&["send", "Hello?", "--channel-id", GENERAL])
        .failure()
        .code(7)
        .stdout("")
        .stderr(format!(
            "error: Discord refused to let the bot post in channel {GENERAL}: Missing \
             Permissions (403, code 50013); nothing was sent\n"
        ));
    assert_eq!(fake.posts().len(), 1, "a refusal is not retried");
    assert_eq!(fake.history(GENERAL).len(), 0);
    assert_eq!(caught_up(&store, GENERAL, EVER).len(), 0);
}
