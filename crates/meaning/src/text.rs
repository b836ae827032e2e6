//! What of a message is embedded: the text full-text search indexes for it, as it is now.
//!
//! That is the message's current content (its latest edit's, else the original), then the
//! words of its embeds, attachments, stickers, poll and forwards, then the text of its kept
//! text files, one part a line, blank parts left out. The model reads the first 512 tokens,
//! so the message's own words come first. A message with no text at all (an image alone) has
//! nothing to embed.

use sha2::{Digest, Sha256};

/// The parts of a message that full-text search indexes, as they are now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageText<'a> {
    /// The current content.
    pub content: &'a str,
    /// The words of its embeds, attachments, stickers, poll and forwards.
    pub extras: &'a str,
    /// The text of each kept text file, in the order they were kept.
    pub files: Vec<&'a str>,
}

impl MessageText<'_> {
    /// The text to embed, or None when the message has no words.
    pub fn to_embed(&self) -> Option<String> {
        let parts: Vec<&str> = [self.content, self.extras]
            .into_iter()
            .chain(self.files.iter().copied())
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n"))
    }
}

/// Four bytes that change when the text embedded changes (a 32-bit value, which SQLite keeps
/// in four bytes): the store keeps them beside the vector, so a message whose text is the same
/// is not embedded again. Eight would cost the vectors' table a row in ten of every page
/// (CHANGELOG.md, "Issue 26: search by meaning"); a changed text keeps its old fingerprint
/// once in four billion, and is then embedded at its next change.
pub fn fingerprint(text: &str) -> i64 {
    let digest = Sha256::digest(text.as_bytes());
    let mut first = [0u8; 4];
    first.copy_from_slice(&digest[..4]);
    i64::from(i32::from_le_bytes(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_the_content_then_the_extras_then_each_file_blank_parts_left_out() {
        let text = MessageText {
            content: "deploy went out",
            extras: "  ",
            files: vec!["ERROR pool exhausted", ""],
        };
        assert_eq!(
            text.to_embed().as_deref(),
            Some("deploy went out\nERROR pool exhausted")
        );
        assert_eq!(MessageText::default().to_embed(), None);
        let only_files = MessageText {
            files: vec!["log line"],
            ..MessageText::default()
        };
        assert_eq!(only_files.to_embed().as_deref(), Some("log line"));
    }

    #[test]
    fn a_changed_text_has_another_fingerprint_and_the_same_text_the_same() {
        assert_eq!(
            fingerprint("we drop the LRU"),
            fingerprint("we drop the LRU")
        );
        assert_ne!(
            fingerprint("we drop the LRU"),
            fingerprint("we keep the LRU")
        );
    }
}
