//! `attachments_get`'s file handling: hostile images refused in words under the decode
//! limits and the memory budget, both sides of the downscale bound, and a text file read in
//! pages to its end, each page from a window of the file.

use std::io::{Cursor, Read, Seek, SeekFrom};

use discord_manager_vocabulary::error::Result;
use image::{DynamicImage, ImageFormat, RgbImage};

use super::get::{
    DECODED_SIDE, IMAGE_BUDGET, LONGEST_SIDE, MOST_PIXELS, TextPage, decode_limits, image_work,
    serve_image, served_size, text_cursor, text_page,
};
use crate::answer::Image;

/// [`serve_image`] of a file whose bytes are `bytes`.
fn serve(bytes: &[u8]) -> std::result::Result<(super::get::ImageShown, Image), String> {
    serve_image(Cursor::new(bytes), bytes.len() as u64)
}

/// The page of the text `bytes` from `start`, as much as `room` holds.
fn page(bytes: &[u8], start: u64, room: usize) -> Result<TextPage> {
    text_page(
        &mut Cursor::new(bytes),
        bytes.len() as u64,
        start,
        room,
        &discord_manager_playback::world::id("1600000000000000001"),
    )
    .unwrap()
}

/// A PNG of `width` × `height`, its pixels a gradient.
fn png(width: u32, height: u32) -> Vec<u8> {
    let image = RgbImage::from_fn(width, height, |x, y| image::Rgb([x as u8, y as u8, 7]));
    let mut bytes = Vec::new();
    DynamicImage::ImageRgb8(image)
        .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap();
    bytes
}

/// A 1×1 PNG whose header declares `width` × `height`: a decompression bomb's front, with its
/// header's CRC made right, so only the declared size gives it away.
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = png(1, 1);
    // Signature (8), IHDR length (4) and type (4), then width and height.
    bytes[16..20].copy_from_slice(&width.to_be_bytes());
    bytes[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

/// CRC-32 as PNG's chunks carry it.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in data {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_decompression_bomb_is_refused_by_its_declared_size_before_any_pixel_is_read() {
    let refusal = serve(&png_declaring(100_000, 100_000)).unwrap_err();
    assert_eq!(
        refusal,
        "decoding it would take more than the 128 MiB of memory this server gives one image \
         (10000 pixels a side at most)"
    );
}

#[test]
fn an_image_within_the_side_limit_but_over_the_memory_limit_is_refused() {
    let refusal = serve(&png_declaring(DECODED_SIDE, DECODED_SIDE)).unwrap_err();
    assert_eq!(
        refusal,
        "showing its 10000×10000 pixels would take 311 MiB of memory, more than the 128 MiB \
         this server gives one image"
    );
}

#[test]
fn a_truncated_png_is_refused_as_truncated() {
    let whole = png(64, 64);
    let refusal = serve(&whole[..whole.len() / 2]).unwrap_err();
    assert!(
        refusal.starts_with("it is truncated or damaged ("),
        "{refusal}"
    );
}

#[test]
fn a_text_file_labelled_as_an_image_is_refused_whatever_its_label() {
    let refusal = serve(b"2026-12-01 03:12 eu-west-2 p99 latency 840 ms\n").unwrap_err();
    assert_eq!(
        refusal,
        "it is not a PNG, JPEG, GIF or WebP image, whatever its name or type says"
    );
}

#[test]
fn a_zero_byte_file_is_refused_as_empty() {
    assert_eq!(serve(&[]).unwrap_err(), "the file is empty (0 bytes)");
}

#[test]
fn the_decode_limits_are_on() {
    let limits = decode_limits();
    assert_eq!(limits.max_image_width, Some(DECODED_SIDE));
    assert_eq!(limits.max_image_height, Some(DECODED_SIDE));
    assert_eq!(limits.max_alloc, Some(128 * 1024 * 1024));
    assert_eq!(IMAGE_BUDGET, 128 * 1024 * 1024);
}

#[test]
fn an_image_at_the_bound_is_served_as_it_is_and_one_pixel_over_is_downscaled() {
    assert_eq!(served_size(LONGEST_SIDE, 100), (LONGEST_SIDE, 100));
    assert_eq!(served_size(LONGEST_SIDE + 1, 100), (LONGEST_SIDE, 99));
    assert_eq!(served_size(100, LONGEST_SIDE + 1), (99, LONGEST_SIDE));
    // The pixel bound: 1000 × 1150 is exactly MOST_PIXELS, 1001 × 1150 is over.
    assert_eq!(1000 * 1150, MOST_PIXELS);
    assert_eq!(served_size(1000, 1150), (1000, 1150));
    let (width, height) = served_size(1001, 1150);
    assert!(u64::from(width) * u64::from(height) <= MOST_PIXELS);
    assert_eq!((width, height), (1000, 1149));
}

#[test]
fn a_screenshot_is_served_downscaled_keeping_its_aspect_as_png() {
    let (shown, image) = serve(&png(3000, 1000)).unwrap();
    assert_eq!((shown.width, shown.height), (3000, 1000));
    assert_eq!((shown.served_width, shown.served_height), (1568, 522));
    assert_eq!(image.media_type, "image/png");
    let decoded = image::load_from_memory(&image.bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1568, 522));
}

#[test]
fn a_gif_is_served_from_its_first_frame_only() {
    let frame = |colour: [u8; 4]| {
        image::Frame::new(image::RgbaImage::from_pixel(40, 30, image::Rgba(colour)))
    };
    let mut gif = Vec::new();
    image::codecs::gif::GifEncoder::new(&mut gif)
        .encode_frames([frame([255, 0, 0, 255]), frame([0, 0, 255, 255])])
        .unwrap();
    let (shown, image) = serve(&gif).unwrap();
    assert_eq!((shown.width, shown.height), (40, 30));
    let first = image::load_from_memory(&image.bytes).unwrap().to_rgba8();
    assert_eq!(first.get_pixel(20, 15), &image::Rgba([255, 0, 0, 255]));
}

#[test]
fn a_webp_is_served() {
    let mut webp = Vec::new();
    DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(
        50,
        20,
        image::Rgba([1, 2, 3, 255]),
    ))
    .write_to(&mut Cursor::new(&mut webp), ImageFormat::WebP)
    .unwrap();
    let (shown, _) = serve(&webp).unwrap();
    assert_eq!((shown.served_width, shown.served_height), (50, 20));
}

#[test]
fn a_small_image_is_served_at_its_own_size() {
    let (shown, image) = serve(&png(320, 200)).unwrap();
    assert_eq!((shown.served_width, shown.served_height), (320, 200));
    let decoded = image::load_from_memory(&image.bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (320, 200));
}

#[test]
fn a_text_file_is_read_in_pages_to_its_end_exactly_once() {
    let text: String = (0..400).map(|n| format!("line {n}: p99 ok\n")).collect();
    let mut read = String::new();
    let mut start = 0;
    let mut pages = 0;
    loop {
        let page = page(text.as_bytes(), start, 2_000).unwrap();
        pages += 1;
        assert_eq!(page.from, start);
        assert_eq!(page.length, text.len() as u64);
        assert!(!page.lossy);
        read.push_str(&page.content);
        let Some(cursor) = page.next_cursor else {
            assert_eq!(page.to, text.len() as u64);
            break;
        };
        let parts: Vec<&str> = cursor.split('_').collect();
        assert_eq!(parts[0], "1600000000000000001");
        start = parts[1].parse().unwrap();
        assert_eq!(start, page.to);
    }
    assert_eq!(read, text);
    assert!(pages > 3, "{pages} pages");
}

/// The pages of `bytes`, each as much as `room` holds, read from cursor to cursor.
fn every_page(bytes: &[u8], room: usize) -> Vec<TextPage> {
    let mut pages = Vec::new();
    let mut start = 0;
    loop {
        let page = page(bytes, start, room).unwrap();
        assert_eq!(page.from, start);
        assert!(
            page.to > start || page.to == bytes.len() as u64,
            "a page moves on"
        );
        let next = page
            .next_cursor
            .as_ref()
            .map(|cursor| cursor.split('_').nth(1).unwrap().parse::<u64>().unwrap());
        pages.push(page);
        match next {
            Some(next) => start = next,
            None => return pages,
        }
    }
}

#[test]
fn small_pages_of_a_mixed_file_read_as_the_whole_file_scrubbed_and_shown_lossily() {
    // Characters of every width, a zero-width joiner between emoji (kept) and between letters
    // (removed), a zero-width space and a bidi override (removed), a line separator (a line
    // end), and bytes that are not UTF-8, so that some page ends cut into each.
    let mut bytes = Vec::new();
    for round in 0..40 {
        bytes.extend(
            format!(
                "{round}: é ü 中文 👩\u{200D}💻 a\u{200D}b zero\u{200B}width \u{202E}evil\u{2028}"
            )
            .as_bytes(),
        );
        bytes.extend(b"\xff\xfe raw \xe4\xb8 cut\n");
    }
    let whole =
        crate::business::kernel::untrusted::scrub(&String::from_utf8_lossy(&bytes)).into_owned();
    // Rooms that hold a joined emoji whole (22 bytes): a page is not cut inside one.
    for room in [24, 64, 500, 4_000] {
        let pages = every_page(&bytes, room);
        let read: String = pages.iter().map(|page| page.content.as_str()).collect();
        assert_eq!(read, whole, "pages of {room} bytes");
        assert_eq!(pages.last().unwrap().to, bytes.len() as u64);
        assert!(pages.iter().any(|page| page.lossy), "room {room}");
        assert!(
            pages.iter().all(|page| page.length == bytes.len() as u64),
            "the length is the file's"
        );
    }
}

/// A file that counts the bytes read from it.
struct Counted<'a> {
    file: Cursor<&'a [u8]>,
    read: u64,
}

impl Read for Counted<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.file.read(buffer)?;
        self.read += read as u64;
        Ok(read)
    }
}

impl Seek for Counted<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.file.seek(to)
    }
}

#[test]
fn a_page_deep_in_an_8_mib_file_reads_only_a_window_of_it() {
    // One 8 MiB line: a page from its middle reads the page's room and a few bytes more.
    let bytes = vec![b'x'; 8 * 1024 * 1024];
    let mut file = Counted {
        file: Cursor::new(&bytes),
        read: 0,
    };
    let id = discord_manager_playback::world::id("1600000000000000001");
    let start = 4 * 1024 * 1024 + 3;
    let page = text_page(&mut file, bytes.len() as u64, start, 2_000, &id)
        .unwrap()
        .unwrap();
    // Each `x` costs two bytes of answer: one in the JSON, one in the text block.
    assert_eq!((page.from, page.to), (start, start + 1_000));
    assert_eq!(page.length, bytes.len() as u64);
    assert_eq!(
        page.next_cursor.as_deref(),
        Some(format!("1600000000000000001_{}", start + 1_000).as_str())
    );
    assert!(
        file.read <= 2_000 + 16,
        "read {} bytes for a page",
        file.read
    );
}

#[test]
fn a_cursor_past_the_end_of_the_file_is_refused() {
    let refusal = page(b"short", 6, 2_000).unwrap_err();
    assert_eq!(
        refusal.message(),
        "`cursor`: the text of attachment 1600000000000000001 has no position 6: pass the \
         `nextCursor` of its previous answer"
    );
    assert_eq!(page(b"short", 5, 2_000).unwrap().content.as_str(), "");
}

#[test]
fn invalid_utf8_is_shown_lossily_and_says_so() {
    let page = page(b"ok \xff\xfe done", 0, 2_000).unwrap();
    assert!(page.lossy);
    assert_eq!(page.content.as_str(), "ok \u{fffd}\u{fffd} done");
    assert_eq!(page.next_cursor, None);
}

#[test]
fn an_image_work_is_counted_from_its_declared_size() {
    // A 9999 × 9999 greyscale scan: its pixels, the 1072 × 1072 copy and its encoding.
    let (width, height) = served_size(9999, 9999);
    assert_eq!((width, height), (1072, 1072));
    let work = image_work(100_000, (9999, 9999), (width, height), 1);
    assert!(work <= IMAGE_BUDGET, "{work}");
    assert!(work > 9999 * 9999, "{work}");
    // An 8K RGBA screenshot is over, whatever its file's size.
    let (width, height) = served_size(7680, 4320);
    assert!(image_work(1, (7680, 4320), (width, height), 4) > IMAGE_BUDGET);
}

#[test]
fn a_cursor_of_another_attachment_is_refused_naming_cursor() {
    assert_eq!(
        text_cursor(
            "1600000000000000001_120",
            &discord_manager_playback::world::id("1600000000000000001")
        )
        .unwrap(),
        120
    );
    let refusal = text_cursor(
        "1600000000000000002_120",
        &discord_manager_playback::world::id("1600000000000000001"),
    )
    .unwrap_err();
    assert_eq!(
        refusal.message(),
        "`cursor`: 1600000000000000002_120 is not a cursor of attachment 1600000000000000001: \
         pass the `nextCursor` of its previous answer"
    );
    assert!(
        text_cursor(
            "nonsense",
            &discord_manager_playback::world::id("1600000000000000001")
        )
        .is_err()
    );
}

/// A message in `world` with a text attachment kept in the cache as `bytes`: its id.
fn kept_text(world: &discord_manager_playback::world::World, bytes: &[u8]) -> String {
    use discord_manager_attachments::Cache;
    use discord_manager_store::AttachmentOutcome;
    let attachment_id = discord_manager_playback::world::new_id();
    let channel = world.channel("logs");
    world.post(
        channel,
        world.owner_id,
        "",
        serde_json::json!({"attachments": [{"id": attachment_id, "filename": "node.log",
            "size": bytes.len(), "url": "https://cdn.invalid/node.log",
            "proxy_url": "https://media.invalid/node.log", "content_type": "text/plain"}]}),
    );
    let kept = Cache::open(world.store.path())
        .unwrap()
        .keep(bytes, u64::MAX)
        .unwrap();
    world
        .store
        .write(|writer| {
            writer.record_attachment_outcome(
                &discord_manager_playback::world::id(&attachment_id),
                &AttachmentOutcome::Fetched {
                    hash: kept.hash.as_str().to_string(),
                    bytes: kept.bytes,
                },
            )
        })
        .unwrap();
    attachment_id
}

#[test]
fn reading_a_kept_file_waits_for_a_turn_of_the_contexts_attachment_work() {
    use crate::business::AttachmentWork;
    use crate::test_fixtures::WorldContext;
    let world = discord_manager_playback::world::World::alone();
    let attachment_id = kept_text(&world, b"2026-12-01 03:12 p99 840 ms\n");
    let context = crate::business::OwnerContext {
        attachment_work: AttachmentWork::new(1),
        ..world.context()
    };
    let held = context.attachment_work.take_turn();
    let (answered, answer) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let input = super::get::GetAttachment {
                attachment_id: discord_manager_playback::world::id(&attachment_id),
                cursor: None,
            };
            answered
                .send(super::get::get_attachment(&world.store, input, &context))
                .unwrap();
        });
        // Without a timer: until the call waits for the turn held here; an answer first fails.
        while context.attachment_work.waiting() < 1 {
            if answer.try_recv().is_ok() {
                panic!("the call read the file while every turn was held");
            }
            std::thread::yield_now();
        }
        drop(held);
        let page = answer.recv().unwrap().unwrap().text.unwrap();
        assert_eq!(page.content.as_str(), "2026-12-01 03:12 p99 840 ms\n");
    });
    assert_eq!(context.attachment_work.inside(), 0);
}
