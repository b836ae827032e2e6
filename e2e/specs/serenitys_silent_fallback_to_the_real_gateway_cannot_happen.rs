//! serenity asks `/api/v10/gateway` itself when its client is built and, if that request
//! fails, silently connects to the real gateway. The daemon asks first, checks the answer and
//! sets it on the client: with serenity's own request failing, it still connects to the fake.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    // The daemon's own request is answered; every later one (serenity's) fails.
    fake.fail_http_after("/api/v10/gateway", 1, 500, 1000, 0.0);
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let asked: Vec<u16> = fake
        .requests()
        .iter()
        .filter(|request| request.path == "/api/v10/gateway")
        .map(|request| request.status)
        .collect();
    assert_eq!(asked, [200, 500], "serenity's own request did fail");
    assert_eq!(fake.frames_in(2).len(), 1, "and the daemon identified with the fake");
    daemon.stop();
}
