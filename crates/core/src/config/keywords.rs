//! The owner's keywords (`DISCORD_MANAGER_KEYWORDS`), like Slack's "My keywords": words or
//! quoted phrases the briefing looks for in what others wrote.
//!
//! The list is comma-separated; a phrase in double quotes may hold commas
//! (`deploy, "cache eviction", "Paris, office"`). Each keyword is matched as whole words,
//! through the full-text index, case and accents aside. A keyword must have a letter or a digit;
//! at most [`MAX_KEYWORDS`] are kept, each at most [`MAX_KEYWORD_CHARS`] characters, so that
//! one briefing's searches stay few and short.

use discord_manager_vocabulary::error::{Error, Result};

/// How many keywords the owner may set.
pub const MAX_KEYWORDS: usize = 25;

/// How long one keyword may be, in characters.
pub const MAX_KEYWORD_CHARS: usize = 100;

const VARIABLE: &str = "DISCORD_MANAGER_KEYWORDS";

/// The owner's keywords, in the order configured, without repeats (case aside).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keywords {
    words: Vec<String>,
}

impl Keywords {
    /// The keywords of a `DISCORD_MANAGER_KEYWORDS` value. Refused, naming the entry by its
    /// position (its text may be anything), when a quote is left open, an entry has no letter
    /// or digit, or the list or an entry is too long.
    pub fn parse(text: &str) -> Result<Keywords> {
        let mut words: Vec<String> = Vec::new();
        for (index, entry) in entries(text)?.into_iter().enumerate() {
            let position = index + 1;
            if !entry.chars().any(char::is_alphanumeric) {
                return Err(Error::config(format!(
                    "{VARIABLE}: entry {position} has no letter or digit; a keyword is a word \
                     or a quoted phrase"
                )));
            }
            if entry.chars().count() > MAX_KEYWORD_CHARS {
                return Err(Error::config(format!(
                    "{VARIABLE}: entry {position} is longer than {MAX_KEYWORD_CHARS} \
                     characters; a keyword is a word or a short phrase"
                )));
            }
            if !words
                .iter()
                .any(|known| known.to_lowercase() == entry.to_lowercase())
            {
                words.push(entry);
            }
        }
        if words.len() > MAX_KEYWORDS {
            return Err(Error::config(format!(
                "{VARIABLE} lists {} keywords; at most {MAX_KEYWORDS} are allowed",
                words.len()
            )));
        }
        Ok(Keywords { words })
    }

    /// Keywords given directly (tests, the demo), each as written.
    pub fn of(words: &[&str]) -> Keywords {
        Keywords {
            words: words.iter().map(|word| word.to_string()).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(String::as_str)
    }
}

/// The entries of the list: split at commas outside quotes, trimmed, empty ones dropped.
fn entries(text: &str) -> Result<Vec<String>> {
    let mut entries = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for character in text.chars() {
        match character {
            '"' => quoted = !quoted,
            ',' if !quoted => entries.push(std::mem::take(&mut current)),
            other => current.push(other),
        }
    }
    if quoted {
        return Err(Error::config(format!(
            "{VARIABLE} has a quote that is never closed; put each phrase between two double \
             quotes"
        )));
    }
    entries.push(current);
    Ok(entries
        .into_iter()
        .map(|entry| entry.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|entry| !entry.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(keywords: &Keywords) -> Vec<&str> {
        keywords.iter().collect()
    }

    #[test]
    fn words_and_quoted_phrases_are_split_at_commas_outside_quotes() {
        let keywords =
            Keywords::parse(r#" deploy, "cache  eviction" ,"Paris, office",,Deploy"#).unwrap();
        assert_eq!(
            words(&keywords),
            ["deploy", "cache eviction", "Paris, office"]
        );
        assert!(Keywords::parse("  ").unwrap().is_empty());
    }

    #[test]
    fn an_open_quote_an_entry_without_letters_and_too_many_are_refused_by_position() {
        let open = Keywords::parse(r#"deploy, "cache"#)
            .unwrap_err()
            .to_string();
        assert!(open.contains("never closed"), "{open}");
        let symbols = Keywords::parse("deploy, !!!").unwrap_err().to_string();
        assert!(
            symbols.contains("entry 2 has no letter or digit"),
            "{symbols}"
        );
        assert!(!symbols.contains("!!!"), "{symbols}");
        let long = format!("ok, {}", "a".repeat(MAX_KEYWORD_CHARS + 1));
        let long = Keywords::parse(&long).unwrap_err().to_string();
        assert!(long.contains("entry 2 is longer than 100"), "{long}");
        let exactly = "a".repeat(MAX_KEYWORD_CHARS);
        assert_eq!(
            words(&Keywords::parse(&exactly).unwrap()),
            [exactly.as_str()]
        );
        let list: Vec<String> = (0..=MAX_KEYWORDS).map(|n| format!("word{n}")).collect();
        let many = Keywords::parse(&list.join(",")).unwrap_err().to_string();
        assert!(many.contains("lists 26 keywords; at most 25"), "{many}");
        assert_eq!(
            Keywords::parse(&list[..MAX_KEYWORDS].join(","))
                .unwrap()
                .iter()
                .count(),
            MAX_KEYWORDS
        );
    }
}
