//! Through the gateway: a voice message reads as `[voice message, 0:08]` (Discord's
//! `duration_secs` of 7.2, rounded up), and its audio is kept by default, byte for byte.

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, shapes};
use crate::support::live::{Daemon, EVER, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let audio = cache::file_bytes(3, 14_211);
    let file = fake.attachment(GENERAL, "voice-message.ogg", "audio/ogg", &audio);
    let id = file["id"].as_str().unwrap().to_string();
    let mut voice = FakeDiscord::message_value("@id:voice", GENERAL, GRACE, "");
    shapes::voice_message(&mut voice["d"], file, 7.2);
    fake.play(&voice.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));

    let messages = caught_up_until(&store, GENERAL, "the voice message", |m| m.len() == 1);
    assert_eq!(messages[0]["voiceMessage"], true);
    assert_eq!(messages[0]["attachments"][0]["durationMs"], 7200);
    assert_eq!(cache::files(&store), [cache::as_kept(&audio)]);
    let page = store.cli().run(&["catch-up", "--since", EVER]).success();
    let page = String::from_utf8_lossy(&page.get_output().stdout).into_owned();
    assert!(page.contains("[voice message, 0:08]"), "{page}");
    daemon.stop();
}
