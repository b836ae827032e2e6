use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, GUILD, INCIDENTS};
use crate::support::live::{Daemon, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let mut png = Vec::new();
    DynamicImage::ImageRgb8(RgbImage::from_pixel(640, 360, Rgb([30, 30, 30])))
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .unwrap();
    let attachment = fake.attachment(INCIDENTS, "outage.png", "image/png", &png);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:outage", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));

    // Deleted on Discord since: its CDN URL serves nothing any more.
    let delete = json!({"t": "MESSAGE_DELETE", "d": {"id": "@id:outage",
                        "channel_id": INCIDENTS, "guild_id": GUILD}});
    fake.play(&delete.to_string());
    let outage = fake.id("outage");
    caught_up_until(&store, INCIDENTS, "the deletion", |messages| {
        messages
            .iter()
            .any(|m| m["messageId"] == outage.as_str() && m["deleted"] == true)
    });
    daemon.stop();
    let requests = fake.cdn_requests().len();

    let mcp = store.mcp().await;
    let result = mcp
        .call("attachments_get", json!({"attachmentId": id}))
        .await;
    let answer = result.structured();
    assert_eq!(answer["state"], "kept");
    assert_eq!(answer["message"]["messageId"], outage.as_str());
    assert_eq!(answer["message"]["deleted"], true);
    assert_eq!(answer["image"]["servedWidth"], 640);
    assert_eq!(answer["image"]["servedHeight"], 360);
    assert_eq!(result.images.len(), 1);
    assert_eq!(result.images[0].0, "image/png");
    // Served from the cache: the CDN was not asked again.
    assert_eq!(fake.cdn_requests().len(), requests);
    mcp.stop().await;
}
