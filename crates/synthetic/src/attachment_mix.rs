//! The attachments a synthetic history's messages would carry: a documented mix of kinds and
//! sizes, deterministic from a seed, from which the benchmark works out what the attachment
//! cache would hold under the owner's policy.
//!
//! The synthetic stores themselves carry no attachments (their figures stay comparable with
//! every earlier run); this mix is a model beside them, not a measurement of Discord. Its
//! numbers are assumptions for a small software team's server, where files are mostly
//! screenshots of dashboards and terminals, photos, logs and the odd video or document:
//!
//! - [`MESSAGES_WITH_FILES_PPM`]: 4% of messages carry files; of those, 85% one file, 10%
//!   two, 5% three or four (Discord allows ten);
//! - each file's kind and size, drawn log-uniformly between two bounds (so the median is
//!   their geometric mean), by [`KINDS`]: PNG screenshots 45% (60 KB to 2 MB, median
//!   ~350 KB: a 1080p to 4K screen of text and charts), JPEG photos 20% (300 KB to 4 MB),
//!   GIFs 5% (200 KB to 12 MB, some over the 8 MiB per-file cap), text files and logs 10%
//!   (1 KB to 500 KB), videos 10% (2 MB to 60 MB), PDFs and archives 10% (50 KB to 20 MB).
//!
//! Another server is modelled by changing these constants; the benchmark prints the mix it
//! used beside its figures.

/// Messages that carry at least one file, per million.
pub const MESSAGES_WITH_FILES_PPM: u64 = 40_000;

/// One kind of file in the mix: its share of files (per million), its media type and
/// extension, and the bounds its size is drawn between, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileKindShare {
    pub share_ppm: u64,
    pub content_type: &'static str,
    pub extension: &'static str,
    pub smallest: u64,
    pub largest: u64,
}

/// The kinds of file, their shares (adding up to a million) and sizes.
pub const KINDS: [FileKindShare; 6] = [
    FileKindShare {
        share_ppm: 450_000,
        content_type: "image/png",
        extension: "png",
        smallest: 60_000,
        largest: 2_000_000,
    },
    FileKindShare {
        share_ppm: 200_000,
        content_type: "image/jpeg",
        extension: "jpg",
        smallest: 300_000,
        largest: 4_000_000,
    },
    FileKindShare {
        share_ppm: 50_000,
        content_type: "image/gif",
        extension: "gif",
        smallest: 200_000,
        largest: 12_000_000,
    },
    FileKindShare {
        share_ppm: 100_000,
        content_type: "text/plain; charset=utf-8",
        extension: "log",
        smallest: 1_000,
        largest: 500_000,
    },
    FileKindShare {
        share_ppm: 100_000,
        content_type: "video/mp4",
        extension: "mp4",
        smallest: 2_000_000,
        largest: 60_000_000,
    },
    FileKindShare {
        share_ppm: 100_000,
        content_type: "application/pdf",
        extension: "pdf",
        smallest: 50_000,
        largest: 20_000_000,
    },
];

/// One file a message carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// The message it is attached to: its position in the history, from 0.
    pub message: u64,
    pub filename: String,
    pub content_type: &'static str,
    pub size: u64,
}

/// The files of a history of `messages` messages, in the order they arrive, from `seed`.
pub fn planned_files(messages: u64, seed: u64) -> impl Iterator<Item = PlannedFile> {
    // A stream of its own: the history's other choices do not move when the mix changes.
    let mut rng = super::Rng(seed ^ 0xA77A_C4E5_F11E_5EED);
    (0..messages).flat_map(move |message| {
        let files = if rng.chance(MESSAGES_WITH_FILES_PPM) {
            match rng.below(100) {
                0..85 => 1,
                85..95 => 2,
                _ => 3 + rng.below(2),
            }
        } else {
            0
        };
        (0..files)
            .map(|index| {
                let mut pick = rng.below(1_000_000);
                let kind = KINDS
                    .iter()
                    .find(|kind| {
                        let inside = pick < kind.share_ppm;
                        pick = pick.saturating_sub(kind.share_ppm);
                        inside
                    })
                    .unwrap_or(&KINDS[0]);
                let (low, high) = ((kind.smallest as f64).ln(), (kind.largest as f64).ln());
                let unit = rng.below(1 << 53) as f64 / (1u64 << 53) as f64;
                PlannedFile {
                    message,
                    filename: format!("file-{message}-{index}.{}", kind.extension),
                    content_type: kind.content_type,
                    size: (low + unit * (high - low)).exp().round() as u64,
                }
            })
            .collect::<Vec<_>>()
    })
}
