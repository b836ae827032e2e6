use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

/// An 8K screenshot with transparency: 7680 × 4320 RGBA, a dark window with a band across.
fn screenshot() -> Vec<u8> {
    let mut pixels = RgbaImage::from_pixel(7680, 4320, Rgba([30, 30, 30, 255]));
    for x in 0..7680 {
        pixels.put_pixel(x, 2000 + (x % 300), Rgba([200, 40, 40, 128]));
    }
    let mut png = Vec::new();
    DynamicImage::ImageRgba8(pixels)
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .unwrap();
    png
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let png = screenshot();
    let attachment = fake.attachment(INCIDENTS, "desktop-8k.png", "image/png", &png);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:shot", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));
    daemon.stop();

    // Shown, its pixels do not fit the memory one image may take: refused, naming both.
    let shown = store.cli().run(&["attachments", "get", &id]).failure();
    let error = String::from_utf8(shown.get_output().stderr.clone()).unwrap();
    assert!(
        error.contains("cannot be shown: showing its 7680×4320 pixels would take")
            && error.contains("more than the 128 MiB this server gives one image"),
        "{error}"
    );

    // Saved, its bytes are copied as they were kept, never decoded.
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("desktop-8k.png");
    let out_arg = out.to_str().unwrap();
    let written = store
        .cli()
        .run(&["attachments", "get", &id, "--out", out_arg])
        .success();
    let said = String::from_utf8(written.get_output().stdout.clone()).unwrap();
    assert_eq!(said, format!("Wrote {} bytes to {out_arg}\n", png.len()));
    assert_eq!(std::fs::read(&out).unwrap(), png, "the exact bytes kept");
}
