//! The benchmark's attachments (issue 25): a kept screenshot that `attachments_get` decodes and
//! downscales, and what the attachment cache would hold for a history of the synthetic mix
//! (`discord_manager_synthetic::attachment_mix`) under the owner's default policy.

use std::io::Cursor;
use std::sync::Arc;

use base64::Engine as _;
use discord_manager_core::config::{AttachmentPolicy, SkipReason};
use discord_manager_core::registry::{self, Services};
use discord_manager_ingest::Origin;
use discord_manager_store::Store;
use discord_manager_synthetic::Rng;
use discord_manager_synthetic::attachment_mix::{self, PlannedFile};
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use serde_json::{Value, json};

/// The message and the attachment [`play_kept_screenshot`] plays (next to the kept text file's
/// `1700000000000000001` and `…02`).
pub const SCREENSHOT_MESSAGE: &str = "1700000000000000003";
pub const SCREENSHOT_ATTACHMENT: &str = "1700000000000000004";
/// The screenshot's size in pixels: a wide monitoring dashboard, as a 3000-pixel-wide capture
/// of two screens side by side.
pub const SCREENSHOT_WIDTH: u32 = 3000;
pub const SCREENSHOT_HEIGHT: u32 = 1000;

/// The name the benchmark reports `attachments_get` on the screenshot under, beside the
/// registry's readers (whose `attachments_get` reads the kept text file).
pub const IMAGE_READER: &str = "attachments_get (image)";

/// The image reader's name and its call: the kept screenshot `attachment_id`, whole.
pub fn image_reader(attachment_id: &str) -> (&'static str, Value) {
    (IMAGE_READER, json!({"attachmentId": attachment_id}))
}

/// The image content an answer of `attachments_get` shows a model beside its result: its
/// media type and its bytes before base64 (MCP sends them as base64, a third more).
pub fn served_image(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    arguments: &Value,
) -> Result<Option<(&'static str, usize)>, String> {
    let capability =
        registry::find("attachments_get").map_err(|error| error.message().to_string())?;
    let outcome = runtime
        .block_on(capability.call(arguments.clone(), services))
        .map_err(|error| error.message().to_string())?;
    Ok(outcome
        .image()
        .map(|image| (image.media_type, image.bytes.len())))
}

/// Fills the rectangle at (`x`, `y`) of `width` × `height` pixels (clipped to the image).
fn fill(pixels: &mut RgbImage, x: u32, y: u32, width: u32, height: u32, colour: [u8; 3]) {
    for row in y..(y + height).min(pixels.height()) {
        for column in x..(x + width).min(pixels.width()) {
            pixels.put_pixel(column, row, Rgb(colour));
        }
    }
}

/// Writes a line of `words` pseudo-words at (`x`, `y`) in 7 × 11 glyphs drawn from a fixed
/// font of 64 shapes, so it compresses as text does, not as noise.
fn text(pixels: &mut RgbImage, font: &[[u16; 11]], noise: &mut Rng, x: u32, y: u32, words: u32) {
    let mut at = x;
    for _ in 0..words {
        for _ in 0..(2 + noise.below(8)) {
            let glyph = &font[noise.below(font.len() as u64) as usize];
            for (row, bits) in glyph.iter().enumerate() {
                for column in 0..7 {
                    if bits & (1 << column) != 0 && at + column < pixels.width() {
                        pixels.put_pixel(at + column, y + row as u32, Rgb([60, 64, 72]));
                    }
                }
            }
            at += 8;
        }
        at += 6;
    }
}

/// A realistic screenshot as a PNG: a 3000 × 1000 monitoring dashboard (a title bar, six
/// panels, each with a title, axis labels, grid lines and a noisy latency line, and a table
/// of text beneath), deterministic. Most of it is flat colour, as screenshots are, so it
/// compresses to a few hundred kilobytes.
pub fn screenshot_png() -> Vec<u8> {
    let mut noise = Rng(25);
    let font: Vec<[u16; 11]> = (0..64)
        .map(|_| {
            let mut glyph = [0u16; 11];
            for row in glyph.iter_mut().skip(2).take(8) {
                *row = (noise.next_u64() & 0x7f) as u16 & (noise.next_u64() & 0x7f) as u16;
            }
            glyph
        })
        .collect();
    let mut pixels =
        RgbImage::from_pixel(SCREENSHOT_WIDTH, SCREENSHOT_HEIGHT, Rgb([246, 247, 249]));
    fill(&mut pixels, 0, 0, SCREENSHOT_WIDTH, 48, [32, 34, 37]);
    text(&mut pixels, &font, &mut noise, 20, 18, 6);
    for panel in 0..6u32 {
        let (x, y) = (20 + (panel % 3) * 990, 68 + (panel / 3) * 300);
        fill(&mut pixels, x, y, 970, 280, [255, 255, 255]);
        fill(&mut pixels, x, y, 970, 1, [220, 222, 226]);
        text(&mut pixels, &font, &mut noise, x + 16, y + 12, 4);
        for line in 0..5 {
            fill(
                &mut pixels,
                x + 60,
                y + 60 + line * 44,
                890,
                1,
                [236, 238, 241],
            );
            text(
                &mut pixels,
                &font,
                &mut noise,
                x + 12,
                y + 55 + line * 44,
                1,
            );
        }
        let mut level: i64 = 120;
        for column in 0..890 {
            level = (level + noise.below(21) as i64 - 10).clamp(10, 210);
            let top = (y as i64 + 60 + 220 - level) as u32;
            fill(&mut pixels, x + 60 + column, top, 1, 3, [219, 68, 55]);
        }
    }
    for row in 0..14 {
        text(&mut pixels, &font, &mut noise, 24, 680 + row * 22, 40);
    }
    let mut png = Vec::new();
    DynamicImage::ImageRgb8(pixels)
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .expect("a PNG encodes in memory");
    png
}

/// Plays into `channel_id` a message carrying [`screenshot_png`], kept as the daemon's fetcher
/// keeps a file (through the seed's feed, as the kept text file is): what the benchmark points
/// `attachments_get` at for an image. Playing it again changes nothing. Returns the
/// attachment's id.
pub async fn play_kept_screenshot(
    store: &Arc<Store>,
    channel: &discord_manager_vocabulary::snowflake::ChannelId,
) -> Result<String, String> {
    let png = screenshot_png();
    let guild_id = store
        .read(|reader| reader.channel(channel))
        .map_err(|error| error.message().to_string())?
        .and_then(|channel| channel.guild_id);
    let message = json!({"t": "MESSAGE_CREATE", "d": {
        "id": SCREENSHOT_MESSAGE, "channel_id": channel, "guild_id": guild_id,
        "author": {"id": "1000000000000000099", "username": "sampler", "discriminator": "0",
                   "global_name": "Sampler", "avatar": null, "bot": false},
        "content": "", "timestamp": "@now-1h", "edited_timestamp": null,
        "tts": false, "mention_everyone": false, "mentions": [], "mention_roles": [],
        "attachments": [{"id": SCREENSHOT_ATTACHMENT, "filename": "eu-west-2-latency.png",
                         "size": png.len(), "width": SCREENSHOT_WIDTH, "height": SCREENSHOT_HEIGHT,
                         "url": "https://cdn.discordapp.com/attachments/1/4/eu-west-2-latency.png",
                         "proxy_url": "https://media.discordapp.net/attachments/1/4/eu-west-2-latency.png",
                         "content_type": "image/png"}],
        "embeds": [], "pinned": false, "type": 0, "flags": 0}});
    let kept = json!({"kept": {
        "attachmentId": SCREENSHOT_ATTACHMENT,
        "base64": base64::engine::general_purpose::STANDARD.encode(&png)}});
    discord_manager::seed::play_feed(store, &format!("{message}\n{kept}\n"), Origin::Seed)
        .await
        .map_err(|error| format!("the screenshot: {}", error.message()))?;
    Ok(SCREENSHOT_ATTACHMENT.to_string())
}

/// What the attachment cache would hold after `messages` messages of the synthetic mix
/// (seeded by `seed`), under the owner's default policy (images and text-like files, up to the
/// per-file cap, within the total cap): the files the messages carry, those the policy keeps
/// when the total cap is left aside, and those kept within it, in arrival order, with the
/// message whose file first found the cache full.
pub fn attachment_cache(messages: u64, seed: u64) -> Value {
    let policy = AttachmentPolicy::default();
    let unbounded = AttachmentPolicy {
        total_cap: u64::MAX,
        ..policy
    };
    let (mut files, mut bytes, mut carrying) = (0u64, 0u64, 0u64);
    let (mut eligible_files, mut eligible_bytes) = (0u64, 0u64);
    let (mut kept_files, mut kept_bytes) = (0u64, 0u64);
    let mut full_at: Option<u64> = None;
    let mut last_message = None;
    for PlannedFile {
        message,
        filename,
        content_type,
        size,
    } in attachment_mix::planned_files(messages, seed)
    {
        files += 1;
        bytes += size;
        if last_message != Some(message) {
            carrying += 1;
            last_message = Some(message);
        }
        if unbounded
            .decide(&filename, Some(content_type), size, 0)
            .is_ok()
        {
            eligible_files += 1;
            eligible_bytes += size;
        }
        match policy.decide(&filename, Some(content_type), size, kept_bytes) {
            Ok(()) => {
                kept_files += 1;
                kept_bytes += size;
            }
            Err(SkipReason::TotalCapReached { .. }) => {
                full_at.get_or_insert(message);
            }
            Err(_) => {}
        }
    }
    json!({
        "messages": messages,
        "messagesWithFiles": carrying,
        "files": files,
        "bytes": bytes,
        "keptWithoutTotalCap": {"files": eligible_files, "bytes": eligible_bytes},
        "keptWithinTotalCap": {"files": kept_files, "bytes": kept_bytes,
                               "totalCapBytes": policy.total_cap,
                               "fileCapBytes": policy.file_cap,
                               "firstSkippedAtMessage": full_at},
    })
}
