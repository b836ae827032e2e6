//! The memory `attachments_get` takes to serve an image, counted by the allocator: every byte
//! the call allocates, from reading the kept file to the encoded answer, stays within
//! [`IMAGE_BUDGET`] for the largest images it serves (a 9999 × 9999 greyscale PNG and JPEG),
//! and an image whose work would not fit is refused before its pixels are decoded.
//!
//! A test binary of its own: its allocator counts the whole process, so it holds one test,
//! which runs its cases one after another.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};

use discord_manager_attachments::Cache;
use discord_manager_core::business::attachments::get::{
    GetAttachment, IMAGE_BUDGET, get_attachment,
};
use discord_manager_core::business::{AttachmentWork, OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_playback::world::{World, id};
use discord_manager_store::AttachmentOutcome;
use image::{DynamicImage, GrayImage, ImageFormat};
use serde_json::json;

/// The system allocator, counting the bytes live and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, size) };
        if !moved.is_null() {
            // Counted as both blocks live at once, which a move is.
            grew(size);
            LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        moved
    }
}

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::SeqCst) + size;
    PEAK.fetch_max(live, Ordering::SeqCst);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live above what was live before `work`, while it ran.
fn peak_of<T>(work: impl FnOnce() -> T) -> (T, u64) {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let result = work();
    let peak = PEAK.load(Ordering::SeqCst).saturating_sub(before);
    (result, peak as u64)
}

/// A greyscale PNG of `side` × `side` pixels, all black: about 100 KB that decode to `side`².
fn grey_png(side: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    DynamicImage::ImageLuma8(GrayImage::new(side, side))
        .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap();
    bytes
}

/// A greyscale baseline JPEG of `side` × `side` pixels, every 8 × 8 block flat: its Huffman
/// tables hold two codes each (`00`: a DC difference of 0, and in the AC table the block's
/// end), so every block is four zero bits.
fn grey_jpeg(side: u16) -> Vec<u8> {
    fn segment(bytes: &mut Vec<u8>, marker: u8, data: &[u8]) {
        bytes.extend([0xff, marker]);
        bytes.extend(u16::try_from(data.len() + 2).unwrap().to_be_bytes());
        bytes.extend(data);
    }
    let mut bytes = vec![0xff, 0xd8];
    let mut quantisation = vec![0u8];
    quantisation.extend([1u8; 64]);
    segment(&mut bytes, 0xdb, &quantisation);
    let mut frame = vec![8u8];
    frame.extend(side.to_be_bytes());
    frame.extend(side.to_be_bytes());
    frame.extend([1, 1, 0x11, 0]);
    segment(&mut bytes, 0xc0, &frame);
    let mut counts = vec![0u8, 2];
    counts.extend([0u8; 14]);
    for class in [0x00u8, 0x10] {
        let mut table = vec![class];
        table.extend(&counts);
        table.extend([0, 1]);
        segment(&mut bytes, 0xc4, &table);
    }
    segment(&mut bytes, 0xda, &[1, 1, 0, 0, 0x3f, 0]);
    let blocks = (usize::from(side).div_ceil(8)).pow(2);
    bytes.extend(vec![0u8; (blocks * 4).div_ceil(8)]);
    bytes.extend([0xff, 0xd9]);
    bytes
}

/// A message in `world` with one attachment named `filename`, kept in the cache as `bytes`.
fn kept_attachment(world: &World, filename: &str, content_type: &str, bytes: &[u8]) -> String {
    let attachment_id = discord_manager_playback::world::new_id();
    let channel = world.channel("screenshots");
    world.post(
        channel,
        world.owner_id,
        "",
        json!({"attachments": [{"id": attachment_id, "filename": filename,
                                "size": bytes.len(), "url": "https://cdn.invalid/file",
                                "proxy_url": "https://media.invalid/file",
                                "content_type": content_type}]}),
    );
    let kept = Cache::open(world.store.path())
        .unwrap()
        .keep(bytes, u64::MAX)
        .unwrap();
    world
        .store
        .write(|writer| {
            writer.record_attachment_outcome(
                &id(&attachment_id),
                &AttachmentOutcome::Fetched {
                    hash: kept.hash.as_str().to_string(),
                    bytes: kept.bytes,
                },
            )
        })
        .unwrap();
    attachment_id
}

fn context(world: &World) -> OwnerContext {
    OwnerContext {
        meaning: false,
        attachment_work: AttachmentWork::new(1),
        ..OwnerContext::with_unset_settings(
            Some(world.owner_id),
            GuildScope::only(vec![world.guild_id]),
            Source::Mcp,
        )
    }
}

const MIB: u64 = 1024 * 1024;

#[test]
fn serving_the_largest_images_stays_within_the_budget_and_a_larger_one_is_refused_unread() {
    let world = World::alone();
    let context = context(&world);
    let get = |attachment_id: &str| {
        get_attachment(
            &world.store,
            GetAttachment {
                attachment_id: id(attachment_id),
                cursor: None,
            },
            &context,
        )
    };
    let png = kept_attachment(&world, "scan.png", "image/png", &grey_png(9999));
    let jpeg = kept_attachment(&world, "scan.jpg", "image/jpeg", &grey_jpeg(9999));

    // A photograph as an encoder writes one: 5000 × 5000 in colour, 71.5 MiB of pixels.
    let photograph = {
        let pixels = image::RgbImage::from_fn(5000, 5000, |x, y| {
            image::Rgb([(x * 7 + y) as u8, (y * 3) as u8, (x ^ y) as u8])
        });
        let mut bytes = Vec::new();
        DynamicImage::ImageRgb8(pixels)
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Jpeg)
            .unwrap();
        kept_attachment(&world, "photo.jpg", "image/jpeg", &bytes)
    };

    let cases = [
        ("greyscale PNG", &png, 9999, 9999 * 9999),
        ("greyscale JPEG", &jpeg, 9999, 9999 * 9999),
        ("colour JPEG", &photograph, 5000, 5000 * 5000 * 3),
    ];
    for (name, attachment_id, side, pixel_bytes) in cases {
        let (answer, peak) = peak_of(|| get(attachment_id));
        eprintln!("{name}: {:.1} MiB at the peak", peak as f64 / MIB as f64);
        let answer = answer.unwrap_or_else(|error| panic!("{name}: {}", error.message()));
        let shown = answer.image.expect("an image");
        assert_eq!((shown.width, shown.height), (side, side), "{name}");
        assert_eq!(
            (shown.served_width, shown.served_height),
            (1072, 1072),
            "{name}"
        );
        assert!(
            peak <= IMAGE_BUDGET,
            "{name}: serving it took {:.1} MiB at its peak, more than the {} MiB budget",
            peak as f64 / MIB as f64,
            IMAGE_BUDGET / MIB
        );
        assert!(
            peak > pixel_bytes,
            "{name}: {peak} bytes: its pixels were decoded"
        );
    }

    // An 8K screenshot's pixels (7680 × 4320, RGBA) do not fit: refused from its header, the
    // call allocating next to nothing.
    let mut screenshot = Vec::new();
    DynamicImage::ImageRgba8(image::RgbaImage::new(7680, 4320))
        .write_to(&mut Cursor::new(&mut screenshot), ImageFormat::Png)
        .unwrap();
    let screenshot = kept_attachment(&world, "8k.png", "image/png", &screenshot);
    let (refused, peak) = peak_of(|| get(&screenshot));
    let Err(refusal) = refused else {
        panic!("the 8K screenshot was shown");
    };
    assert!(
        refusal.message().contains("7680×4320")
            && refusal
                .message()
                .contains(&format!("{} MiB", IMAGE_BUDGET / MIB)),
        "{}",
        refusal.message()
    );
    assert!(peak < 8 * MIB, "refused after allocating {peak} bytes");
}
