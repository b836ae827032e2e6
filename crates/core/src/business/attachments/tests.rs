//! `attachments_get`'s file handling: hostile images refused in words under the decode
//! limits, both sides of the downscale bound, and a text file read in pages to its end.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, RgbImage};

use super::get::{
    DECODED_SIDE, LONGEST_SIDE, MOST_PIXELS, decode_limits, serve_image, served_size, text_cursor,
    text_page,
};

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
    let refusal = serve_image(&png_declaring(100_000, 100_000)).unwrap_err();
    assert_eq!(
        refusal,
        "decoding it would take more than the 96 MiB of memory this server gives one image \
         (10000 pixels a side at most)"
    );
}

#[test]
fn an_image_within_the_side_limit_but_over_the_memory_limit_is_refused() {
    let refusal = serve_image(&png_declaring(DECODED_SIDE, DECODED_SIDE)).unwrap_err();
    assert_eq!(
        refusal,
        "decoding it would take more than the 96 MiB of memory this server gives one image \
         (10000 pixels a side at most)"
    );
}

#[test]
fn a_truncated_png_is_refused_as_truncated() {
    let whole = png(64, 64);
    let refusal = serve_image(&whole[..whole.len() / 2]).unwrap_err();
    assert!(
        refusal.starts_with("it is truncated or damaged ("),
        "{refusal}"
    );
}

#[test]
fn a_text_file_labelled_as_an_image_is_refused_whatever_its_label() {
    let refusal = serve_image(b"2026-12-01 03:12 eu-west-2 p99 latency 840 ms\n").unwrap_err();
    assert_eq!(
        refusal,
        "it is not a PNG, JPEG, GIF or WebP image, whatever its name or type says"
    );
}

#[test]
fn a_zero_byte_file_is_refused_as_empty() {
    assert_eq!(serve_image(&[]).unwrap_err(), "the file is empty (0 bytes)");
}

#[test]
fn the_decode_limits_are_on() {
    let limits = decode_limits();
    assert_eq!(limits.max_image_width, Some(DECODED_SIDE));
    assert_eq!(limits.max_image_height, Some(DECODED_SIDE));
    assert_eq!(limits.max_alloc, Some(96 * 1024 * 1024));
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
    let (shown, image) = serve_image(&png(3000, 1000)).unwrap();
    assert_eq!((shown.width, shown.height), (3000, 1000));
    assert_eq!((shown.served_width, shown.served_height), (1568, 522));
    assert_eq!(image.media_type, "image/png");
    let decoded = image::load_from_memory(&image.bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1568, 522));
}

#[test]
fn a_small_image_is_served_at_its_own_size() {
    let (shown, image) = serve_image(&png(320, 200)).unwrap();
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
        let page = text_page(
            text.as_bytes(),
            start,
            2_000,
            &discord_manager_playback::world::id("1600000000000000001"),
        )
        .unwrap();
        pages += 1;
        assert_eq!(page.from, start as u64);
        assert!(!page.lossy);
        read.push_str(&page.content);
        let Some(cursor) = page.next_cursor else {
            assert_eq!(page.to, text.len() as u64);
            break;
        };
        let parts: Vec<&str> = cursor.split('_').collect();
        assert_eq!(parts[0], "1600000000000000001");
        start = parts[1].parse().unwrap();
        assert_eq!(start as u64, page.to);
    }
    assert_eq!(read, text);
    assert!(pages > 3, "{pages} pages");
}

#[test]
fn invalid_utf8_is_shown_lossily_and_says_so() {
    let page = text_page(
        b"ok \xff\xfe done",
        0,
        2_000,
        &discord_manager_playback::world::id("1"),
    )
    .unwrap();
    assert!(page.lossy);
    assert_eq!(page.content.as_str(), "ok \u{fffd}\u{fffd} done");
    assert_eq!(page.next_cursor, None);
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
