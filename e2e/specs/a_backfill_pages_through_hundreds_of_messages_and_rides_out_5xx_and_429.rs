//! What arrived while the daemon was down is backfilled page by page (Discord answers newest
//! first, even with `after`), in Discord's order, through server errors and a rate limit.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, caught_up, ids, EVER};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    daemon.kill9();

    let lines: Vec<String> = (0..250)
        .map(|n| FakeDiscord::message_line(&format!("@id:m{n}"), GENERAL, GRACE, &format!("note {n}")))
        .collect();
    fake.post_offline(&lines.join("\n"));
    let history = format!("/channels/{GENERAL}/messages");
    fake.fail_http(&history, 503, 2, 0.0);
    fake.fail_http(&history, 429, 1, 0.25);
    let first_run_requests = fake.requests().len();

    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let messages = caught_up(&store, GENERAL, EVER);
    let expected: Vec<String> = (0..250).map(|n| fake.id(&format!("m{n}"))).collect();
    assert_eq!(ids(&messages), expected, "every message once, in Discord's order");
    let pages: Vec<(u16, String)> = fake.requests()[first_run_requests..]
        .iter()
        .filter(|request| request.path.ends_with(&history))
        .map(|request| (request.status, request.param("after").unwrap_or("").to_string()))
        .collect();
    let start = pages[0].1.clone();
    assert_eq!(
        pages,
        vec![
            (503, start.clone()),
            (503, start.clone()),
            (429, start.clone()),
            (200, start),
            // The next page starts after the newest of the previous one, its first element.
            (200, fake.id("m99")),
            (200, fake.id("m199")),
        ]
    );
    daemon.stop();
}
