use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // A log that is not valid UTF-8: its page shows it lossily, --out writes it as it is.
    let bytes = cache::file_bytes(3, 20_000);
    let attachment = fake.attachment(INCIDENTS, "node.log", "text/plain", &bytes);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:dump", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));
    daemon.stop();

    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("node.log");
    let out_arg = out.to_str().unwrap();
    let written = store
        .cli()
        .run(&["attachments", "get", &id, "--out", out_arg])
        .success();
    let said = String::from_utf8(written.get_output().stdout.clone()).unwrap();
    assert_eq!(said, format!("Wrote {} bytes to {out_arg}\n", bytes.len()));
    assert_eq!(std::fs::read(&out).unwrap(), bytes, "the exact bytes kept");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    // Again to the same path: refused, and the file is left as it was.
    let refused = store
        .cli()
        .run(&["attachments", "get", &id, "--out", out_arg])
        .failure();
    let error = String::from_utf8(refused.get_output().stderr.clone()).unwrap();
    assert!(
        error.contains(&format!(
            "`--out`: {out_arg} already exists: give a path that does not, nothing is overwritten"
        )),
        "{error}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
}
