//! What the daemon keeps of attachments' files (`DISCORD_MANAGER_ATTACHMENT*`), and the one
//! rule that decides it for each file ([`AttachmentPolicy::decide`]).
//!
//! By default it keeps images and text-like files (txt, log, md, csv, json, source code…, told
//! by the media type Discord detected or, without one, by the file's extension) of up to
//! [`DEFAULT_FILE_MIB`] MiB each, within [`DEFAULT_TOTAL_MIB`] MiB in all:
//!
//! - 8 MiB a file: every screenshot and log excerpt a member without Nitro can post fits
//!   (Discord's upload limit for them is 10 MiB, and a screenshot is rarely over 2 MiB), while
//!   a video or an installer someone with Nitro posts (up to 500 MiB) is not kept unasked.
//! - 1 GiB in all: at 8 MiB the worst case is 128 files, at a typical 300 KiB screenshot
//!   about 3,500. Once it is reached, nothing is evicted: a later file that does not fit is
//!   recorded skipped ("total cap reached"), and that skip alone is not final: the daemon
//!   offers such a file again whenever the cache has room for it (the owner raised the cap),
//!   at its start and on each rescan.

use std::fmt;

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::words::TOTAL_CAP_REACHED;

/// The per-file cap unless the owner sets one, in MiB.
pub const DEFAULT_FILE_MIB: u64 = 8;
/// The total cap unless the owner sets one, in MiB.
pub const DEFAULT_TOTAL_MIB: u64 = 1024;
/// The largest per-file cap: Discord's largest upload (Nitro), 500 MiB.
const MAX_FILE_MIB: u64 = 500;
/// The largest total cap: 16 TiB.
const MAX_TOTAL_MIB: u64 = 16 * 1024 * 1024;

const MIB: u64 = 1024 * 1024;

/// The switch: `1` (the default) keeps files, `0` keeps none.
pub const SWITCH_VARIABLE: &str = "DISCORD_MANAGER_ATTACHMENTS";
/// Which kinds of file are kept.
pub const TYPES_VARIABLE: &str = "DISCORD_MANAGER_ATTACHMENT_TYPES";
/// The per-file cap, in MiB.
pub const FILE_CAP_VARIABLE: &str = "DISCORD_MANAGER_ATTACHMENT_FILE_MB";
/// The total cap, in MiB.
pub const TOTAL_CAP_VARIABLE: &str = "DISCORD_MANAGER_ATTACHMENT_TOTAL_MB";

/// What a file is, for the kinds the owner keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An image (`image/*`, or png, jpg, gif, webp… without a media type).
    Image,
    /// Text-like: text, logs, Markdown, CSV, JSON, YAML, source code.
    Text,
    /// A voice message's audio: small, and it is the message (Discord names every one
    /// `voice-message.ogg`, of type `audio/ogg`).
    Voice,
    /// Anything else: video, other audio, archives, documents, executables.
    Other,
}

/// The name Discord gives every voice message's file.
const VOICE_MESSAGE_FILENAME: &str = "voice-message.ogg";

/// Extensions that say "image" when Discord gave no media type.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "bmp", "avif"];
/// Extensions that say "text-like".
const TEXT_EXTENSIONS: &[&str] = &[
    "txt",
    "log",
    "md",
    "markdown",
    "csv",
    "tsv",
    "json",
    "jsonl",
    "ndjson",
    "yaml",
    "yml",
    "toml",
    "ini",
    "conf",
    "cfg",
    "env",
    "xml",
    "html",
    "css",
    "sql",
    "diff",
    "patch",
    "rs",
    "py",
    "js",
    "mjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "swift",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "rb",
    "php",
    "sh",
    "bash",
    "zsh",
    "ps1",
    "lua",
    "pl",
    "r",
    "scala",
    "tf",
    "proto",
    "graphql",
    "dockerfile",
];
/// Media types beyond `text/*` that are text-like.
const TEXT_MEDIA_TYPES: &[&str] = &[
    "application/json",
    "application/x-ndjson",
    "application/xml",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/javascript",
    "application/x-sh",
    "application/sql",
];

impl FileKind {
    /// The kind of a file by its media type (parameters aside) or, without one, its extension.
    pub fn of(filename: &str, content_type: Option<&str>) -> FileKind {
        if let Some(media) = content_type
            .map(|kind| {
                kind.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .filter(|media| !media.is_empty() && media != "application/octet-stream")
        {
            return if media == "audio/ogg" && filename == VOICE_MESSAGE_FILENAME {
                FileKind::Voice
            } else if media.starts_with("image/") && media != "image/svg+xml" {
                FileKind::Image
            } else if media.starts_with("text/")
                || TEXT_MEDIA_TYPES.contains(&media.as_str())
                || media == "image/svg+xml"
            {
                FileKind::Text
            } else {
                FileKind::Other
            };
        }
        let extension = filename
            .rsplit_once('.')
            .map(|(_, extension)| extension.to_ascii_lowercase())
            .unwrap_or_default();
        if IMAGE_EXTENSIONS.contains(&extension.as_str()) {
            FileKind::Image
        } else if TEXT_EXTENSIONS.contains(&extension.as_str()) {
            FileKind::Text
        } else {
            FileKind::Other
        }
    }
}

/// Why a file is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Larger than the per-file cap (its size as Discord announced it, or as it turned out).
    TooLarge { size: u64, cap: u64 },
    /// Of a kind the owner does not keep.
    TypeNotKept(FileKind),
    /// Keeping it would take the cache past its total cap.
    TotalCapReached { cap: u64 },
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::TooLarge { size, cap } => write!(
                f,
                "too large: {} bytes, over the per-file cap of {} MiB ({FILE_CAP_VARIABLE})",
                size,
                cap / MIB
            ),
            SkipReason::TypeNotKept(kind) => write!(
                f,
                "type not kept: {} files are not kept ({TYPES_VARIABLE})",
                match kind {
                    FileKind::Image => "image",
                    FileKind::Text => "text",
                    FileKind::Voice => "voice",
                    FileKind::Other => "other",
                }
            ),
            SkipReason::TotalCapReached { cap } => write!(
                f,
                "{TOTAL_CAP_REACHED}: the cache holds up to {} MiB ({TOTAL_CAP_VARIABLE}); \
                 nothing is evicted, and it is fetched once there is room (raise the cap)",
                cap / MIB
            ),
        }
    }
}

/// What the daemon keeps of attachments' files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachmentPolicy {
    /// Whether files are fetched at all.
    pub enabled: bool,
    pub images: bool,
    pub text: bool,
    /// Voice messages' audio.
    pub voice: bool,
    pub other: bool,
    /// The largest file kept, in bytes.
    pub file_cap: u64,
    /// The most the cache holds, in bytes.
    pub total_cap: u64,
}

impl Default for AttachmentPolicy {
    fn default() -> Self {
        AttachmentPolicy {
            enabled: true,
            images: true,
            text: true,
            voice: true,
            other: false,
            file_cap: DEFAULT_FILE_MIB * MIB,
            total_cap: DEFAULT_TOTAL_MIB * MIB,
        }
    }
}

impl AttachmentPolicy {
    /// The policy the variables set (`value` reads one, None when unset); the defaults for
    /// those unset. A malformed value is refused naming its variable and what it wants.
    pub fn from_values(value: impl Fn(&str) -> Option<String>) -> Result<AttachmentPolicy> {
        let mut policy = AttachmentPolicy::default();
        match value(SWITCH_VARIABLE).as_deref() {
            None | Some("1") | Some("true") => {}
            Some("0") | Some("false") => policy.enabled = false,
            Some(_) => {
                return Err(Error::config(format!(
                    "{SWITCH_VARIABLE} must be 1 (keep attachments' files, the default) or 0 \
                     (keep none)"
                )));
            }
        }
        if let Some(types) = value(TYPES_VARIABLE) {
            (policy.images, policy.text, policy.voice, policy.other) = kinds(&types)?;
        }
        if let Some(mib) = value(FILE_CAP_VARIABLE) {
            policy.file_cap = mebibytes(FILE_CAP_VARIABLE, &mib, MAX_FILE_MIB)? * MIB;
        }
        if let Some(mib) = value(TOTAL_CAP_VARIABLE) {
            policy.total_cap = mebibytes(TOTAL_CAP_VARIABLE, &mib, MAX_TOTAL_MIB)? * MIB;
        }
        Ok(policy)
    }

    /// Whether files of `kind` are kept.
    pub fn keeps(&self, kind: FileKind) -> bool {
        match kind {
            FileKind::Image => self.images,
            FileKind::Text => self.text,
            FileKind::Voice => self.voice,
            FileKind::Other => self.other,
        }
    }

    /// Whether the file `filename` (`content_type`, `size` bytes as announced) is to be
    /// fetched, with `kept_bytes` in the cache already; why not otherwise. Its kind first,
    /// then the per-file cap, then the total cap.
    pub fn decide(
        &self,
        filename: &str,
        content_type: Option<&str>,
        size: u64,
        kept_bytes: u64,
    ) -> std::result::Result<(), SkipReason> {
        let kind = FileKind::of(filename, content_type);
        if !self.keeps(kind) {
            return Err(SkipReason::TypeNotKept(kind));
        }
        if size > self.file_cap {
            return Err(SkipReason::TooLarge {
                size,
                cap: self.file_cap,
            });
        }
        if kept_bytes.saturating_add(size) > self.total_cap {
            return Err(SkipReason::TotalCapReached {
                cap: self.total_cap,
            });
        }
        Ok(())
    }
}

/// The kinds a `DISCORD_MANAGER_ATTACHMENT_TYPES` value lists: (images, text, voice, other).
fn kinds(text: &str) -> Result<(bool, bool, bool, bool)> {
    let wanted = || {
        Error::config(format!(
            "{TYPES_VARIABLE} must list the kinds of file to keep, separated by commas: images, \
             text, voice, other (or all); the default is images,text,voice"
        ))
    };
    let mut kinds = (false, false, false, false);
    let mut any = false;
    for entry in text
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
    {
        any = true;
        match entry.to_ascii_lowercase().as_str() {
            "images" | "image" => kinds.0 = true,
            "text" => kinds.1 = true,
            "voice" => kinds.2 = true,
            "other" => kinds.3 = true,
            "all" => kinds = (true, true, true, true),
            _ => return Err(wanted()),
        }
    }
    if any { Ok(kinds) } else { Err(wanted()) }
}

/// A whole number of MiB from 1 to `most`.
fn mebibytes(variable: &str, text: &str, most: u64) -> Result<u64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|mib| (1..=most).contains(mib))
        .ok_or_else(|| {
            Error::config(format!(
                "{variable} must be a whole number of MiB from 1 to {most}"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(pairs: &[(&str, &str)]) -> Result<AttachmentPolicy> {
        AttachmentPolicy::from_values(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn by_default_images_and_text_up_to_8_mib_each_within_1_gib_are_kept() {
        let policy = policy(&[]).unwrap();
        assert_eq!(policy, AttachmentPolicy::default());
        assert!(policy.enabled);
        assert_eq!(policy.file_cap, 8 * 1024 * 1024);
        assert_eq!(policy.total_cap, 1024 * 1024 * 1024);
        assert_eq!(policy.decide("shot.png", Some("image/png"), 10, 0), Ok(()));
        assert_eq!(policy.decide("deploy.log", None, 10, 0), Ok(()));
        assert_eq!(
            policy.decide("talk.mp4", Some("video/mp4"), 10, 0),
            Err(SkipReason::TypeNotKept(FileKind::Other))
        );
    }

    #[test]
    fn a_files_kind_is_its_media_type_or_else_its_extension() {
        let cases = [
            ("a.bin", Some("image/png"), FileKind::Image),
            ("a.png", Some("text/plain; charset=utf-8"), FileKind::Text),
            ("a.json", Some("application/json"), FileKind::Text),
            ("drawing.svg", Some("image/svg+xml"), FileKind::Text),
            ("a.zip", Some("application/zip"), FileKind::Other),
            ("main.rs", None, FileKind::Text),
            ("main.RS", Some("application/octet-stream"), FileKind::Text),
            ("photo.JPG", None, FileKind::Image),
            ("notes.csv", Some(""), FileKind::Text),
            ("README", None, FileKind::Other),
            ("setup.exe", None, FileKind::Other),
        ];
        for (filename, content_type, kind) in cases {
            assert_eq!(FileKind::of(filename, content_type), kind, "{filename}");
        }
    }

    #[test]
    fn the_per_file_cap_keeps_a_file_at_it_and_skips_one_byte_over() {
        let policy = policy(&[(FILE_CAP_VARIABLE, "1")]).unwrap();
        assert_eq!(policy.decide("a.png", Some("image/png"), MIB, 0), Ok(()));
        assert_eq!(
            policy.decide("a.png", Some("image/png"), MIB + 1, 0),
            Err(SkipReason::TooLarge {
                size: MIB + 1,
                cap: MIB
            })
        );
        assert_eq!(
            SkipReason::TooLarge {
                size: MIB + 1,
                cap: MIB
            }
            .to_string(),
            "too large: 1048577 bytes, over the per-file cap of 1 MiB \
             (DISCORD_MANAGER_ATTACHMENT_FILE_MB)"
        );
    }

    #[test]
    fn the_total_cap_keeps_a_file_that_fills_it_exactly_and_skips_one_that_would_pass_it() {
        let policy = policy(&[(TOTAL_CAP_VARIABLE, "2")]).unwrap();
        assert_eq!(policy.decide("a.txt", None, 10, 2 * MIB - 10), Ok(()));
        assert_eq!(
            policy.decide("a.txt", None, 11, 2 * MIB - 10),
            Err(SkipReason::TotalCapReached { cap: 2 * MIB })
        );
        // Past the cap already: nothing more, however small (nothing is evicted).
        assert_eq!(
            policy.decide("a.txt", None, 0, 2 * MIB + 1),
            Err(SkipReason::TotalCapReached { cap: 2 * MIB })
        );
    }

    #[test]
    fn a_voice_messages_audio_is_kept_by_default_and_other_audio_is_not() {
        let defaults = AttachmentPolicy::default();
        let voice = ("voice-message.ogg", Some("audio/ogg"));
        assert_eq!(FileKind::of(voice.0, voice.1), FileKind::Voice);
        assert_eq!(defaults.decide(voice.0, voice.1, 60_000, 0), Ok(()));
        // Both sides: another name, another type.
        assert_eq!(
            FileKind::of("podcast.ogg", Some("audio/ogg")),
            FileKind::Other
        );
        assert_eq!(
            FileKind::of("voice-message.ogg", Some("audio/mpeg")),
            FileKind::Other
        );
        assert_eq!(
            defaults.decide("podcast.ogg", Some("audio/ogg"), 60_000, 0),
            Err(SkipReason::TypeNotKept(FileKind::Other))
        );
        let no_voice = policy(&[(TYPES_VARIABLE, "images,text")]).unwrap();
        assert_eq!(
            no_voice.decide(voice.0, voice.1, 60_000, 0),
            Err(SkipReason::TypeNotKept(FileKind::Voice))
        );
    }

    #[test]
    fn the_kinds_kept_are_the_ones_listed() {
        let only_images = policy(&[(TYPES_VARIABLE, "images")]).unwrap();
        assert_eq!(only_images.decide("a.png", None, 1, 0), Ok(()));
        assert_eq!(
            only_images.decide("a.log", None, 1, 0),
            Err(SkipReason::TypeNotKept(FileKind::Text))
        );
        let all = policy(&[(TYPES_VARIABLE, "all")]).unwrap();
        assert!(all.images && all.text && all.voice && all.other);
        let spaced = policy(&[(TYPES_VARIABLE, " Text , other ")]).unwrap();
        assert_eq!(
            (spaced.images, spaced.text, spaced.other),
            (false, true, true)
        );
        assert!(!policy(&[(SWITCH_VARIABLE, "0")]).unwrap().enabled);
        assert!(policy(&[(SWITCH_VARIABLE, "1")]).unwrap().enabled);
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_variable_and_what_it_wants() {
        let refusal = |pairs: &[(&str, &str)]| policy(pairs).unwrap_err().message().to_string();
        let file_cap = "DISCORD_MANAGER_ATTACHMENT_FILE_MB must be a whole number of MiB from 1 \
                        to 500";
        // Both sides of each bound.
        assert_eq!(
            policy(&[(FILE_CAP_VARIABLE, "500")]).unwrap().file_cap,
            500 * MIB
        );
        assert_eq!(refusal(&[(FILE_CAP_VARIABLE, "501")]), file_cap);
        assert_eq!(policy(&[(FILE_CAP_VARIABLE, "1")]).unwrap().file_cap, MIB);
        assert_eq!(refusal(&[(FILE_CAP_VARIABLE, "0")]), file_cap);
        assert_eq!(refusal(&[(FILE_CAP_VARIABLE, "8MB")]), file_cap);
        assert_eq!(refusal(&[(FILE_CAP_VARIABLE, "-1")]), file_cap);
        let total = "DISCORD_MANAGER_ATTACHMENT_TOTAL_MB must be a whole number of MiB from 1 to \
                     16777216";
        assert_eq!(
            policy(&[(TOTAL_CAP_VARIABLE, "16777216")])
                .unwrap()
                .total_cap,
            16_777_216 * MIB
        );
        assert_eq!(refusal(&[(TOTAL_CAP_VARIABLE, "16777217")]), total);
        assert_eq!(refusal(&[(TOTAL_CAP_VARIABLE, "0")]), total);
        let types = "DISCORD_MANAGER_ATTACHMENT_TYPES must list the kinds of file to keep, \
                     separated by commas: images, text, voice, other (or all); the default is \
                     images,text,voice";
        assert_eq!(refusal(&[(TYPES_VARIABLE, "images,videos")]), types);
        assert_eq!(refusal(&[(TYPES_VARIABLE, ",")]), types);
        assert_eq!(
            refusal(&[(SWITCH_VARIABLE, "yes")]),
            "DISCORD_MANAGER_ATTACHMENTS must be 1 (keep attachments' files, the default) or 0 \
             (keep none)"
        );
    }
}
