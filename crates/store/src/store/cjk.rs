//! Words in Chinese and Japanese, for full-text search (`migrations/0028_cjk_text.sql`).
//!
//! Chinese and Japanese are written without spaces, and FTS5's `unicode61` tokenizer keeps a
//! run of ideographs or kana as one token: "我们决定用LRU缓存" is one word to it, so the word
//! 缓存 ("cache") inside it was never found. Each text holding such a run is indexed a second
//! time, in `cjk_text` under the same rowid as its `message_text` row, written as [`grams`]
//! makes it: every run of those characters as its overlapping pairs (缓存 stays 缓存, 数据库
//! becomes 数据 据库), everything else as it was. A query's runs are rewritten the same way
//! ([`query`]): a word of two or more characters becomes the phrase of its pairs, which
//! occurs in a text exactly where the word does, with no dictionary of words needed. A word of
//! one character becomes the prefix of a pair (它 finds 它们); a single character at the end
//! of a run is not found that way, which a dictionary-free index of pairs accepts.
//!
//! Hangul is left out: Korean separates its words with spaces, which `unicode61` reads.

use std::fmt::Write as _;

/// Whether `c` is written without spaces between words: a CJK ideograph (the unified blocks,
/// their extensions and compatibility forms), hiragana or katakana (full and half width),
/// and the iteration mark 々.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3005}'
        | '\u{3040}'..='\u{309F}'
        | '\u{30A0}'..='\u{30FF}'
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9D}'
        | '\u{20000}'..='\u{2FA1F}')
}

/// The runs of CJK characters in `text`, in order.
pub(super) fn runs(text: &str) -> Vec<&str> {
    let mut runs = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (is_cjk(c), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                runs.push(&text[from..at]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        runs.push(&text[from..]);
    }
    runs
}

/// A run's pairs of neighbouring characters, separated by spaces; a run of one character is
/// itself.
fn pairs(run: &str, out: &mut String) {
    let characters: Vec<char> = run.chars().collect();
    if let [only] = characters.as_slice() {
        out.push(*only);
        return;
    }
    for (n, pair) in characters.windows(2).enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push(pair[0]);
        out.push(pair[1]);
    }
}

/// `text` as `cjk_text` indexes it: each CJK run as its pairs, set apart by spaces, the rest
/// as it was. None when `text` holds no CJK character (it needs no second row).
pub fn grams(text: &str) -> Option<String> {
    if !text.chars().any(is_cjk) {
        return None;
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut rest = text;
    for run in runs(text) {
        let at = rest.find(run).unwrap_or(rest.len());
        out.push_str(&rest[..at]);
        out.push(' ');
        pairs(run, &mut out);
        out.push(' ');
        rest = &rest[(at + run.len()).min(rest.len())..];
    }
    out.push_str(rest);
    Some(out)
}

/// An FTS5 query with its CJK runs rewritten for `cjk_text`: a run inside a quoted phrase
/// becomes its pairs in that phrase, a run outside one becomes a phrase of its own, and a
/// phrase that is one CJK character alone becomes the prefix of a pair. None when the query
/// holds no CJK character.
pub fn query(fts: &str) -> Option<String> {
    if !fts.chars().any(is_cjk) {
        return None;
    }
    let characters: Vec<char> = fts.chars().collect();
    let mut out = String::with_capacity(fts.len() * 2);
    let mut quoted = false;
    let mut at = 0;
    while at < characters.len() {
        let c = characters[at];
        if c == '"' {
            if quoted && characters.get(at + 1) == Some(&'"') {
                // A quote doubled inside a phrase is a quote of the text.
                out.push_str("\"\"");
                at += 2;
                continue;
            }
            quoted = !quoted;
            out.push('"');
            at += 1;
            continue;
        }
        if !is_cjk(c) {
            out.push(c);
            at += 1;
            continue;
        }
        let end = (at..characters.len())
            .find(|&n| !is_cjk(characters[n]))
            .unwrap_or(characters.len());
        let run: String = characters[at..end].iter().collect();
        let alone_in_phrase = quoted
            && end - at == 1
            && at > 0
            && characters[at - 1] == '"'
            && characters.get(end) == Some(&'"');
        if alone_in_phrase {
            // `"它"` → `"它"*`: the pairs it begins.
            let _ = write!(out, "{run}\"*");
            at = end + 1;
            quoted = false;
            continue;
        }
        if !quoted {
            out.push('"');
        }
        if quoted {
            out.push(' ');
        }
        pairs(&run, &mut out);
        if quoted {
            out.push(' ');
        } else if end - at == 1 {
            out.push_str("\"*");
        } else {
            out.push('"');
        }
        at = end;
    }
    Some(out)
}

/// Gives `connection` the SQL function `cjk_grams(text)`: [`grams`], NULL for a text that
/// needs no row in `cjk_text`. The migration that fills that index calls it.
pub(super) fn register_grams(connection: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    connection.create_scalar_function(
        "cjk_grams",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |context| {
            let text: Option<String> = context.get(0)?;
            Ok(text.as_deref().and_then(grams))
        },
    )
}

/// A snippet of `text` around the first of `runs` it holds, that run between `[` and `]`, with
/// up to `context` characters either side (`…` where it is cut); None when it holds none.
pub(super) fn snippet(text: &str, runs: &[&str], context: usize) -> Option<String> {
    let (at, run) = runs
        .iter()
        .filter_map(|run| text.find(run).map(|at| (at, *run)))
        .min_by_key(|(at, _)| *at)?;
    let before: Vec<char> = text[..at].chars().collect();
    let after: Vec<char> = text[at + run.len()..].chars().collect();
    let mut out = String::new();
    if before.len() > context {
        out.push('…');
    }
    out.extend(&before[before.len().saturating_sub(context)..]);
    let _ = write!(out, "[{run}]");
    out.extend(after.iter().take(context));
    if after.len() > context {
        out.push('…');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_indexed_as_the_pairs_of_its_cjk_runs_and_the_rest_as_it_was() {
        assert_eq!(grams("we chose LRU for the cache"), None);
        assert_eq!(
            grams("我们决定用LRU缓存").as_deref(),
            Some(" 我们 们决 决定 定用 LRU 缓存 ")
        );
        assert_eq!(
            grams("キャッシュの方針を決めた").as_deref(),
            Some(" キャ ャッ ッシ シュ ュの の方 方針 針を を決 決め めた ")
        );
        // A run of one character is itself.
        assert_eq!(grams("a 猫 b").as_deref(), Some("a  猫  b"));
        // Hangul is spaced by its writers, and left as it is.
        assert_eq!(grams("캐시 정책"), None);
    }

    #[test]
    fn a_querys_runs_become_phrases_of_pairs_and_one_character_alone_a_prefix() {
        assert_eq!(query("\"cache\""), None);
        assert_eq!(query("\"缓存\"").as_deref(), Some("\" 缓存 \""));
        assert_eq!(query("\"数据库\"").as_deref(), Some("\" 数据 据库 \""));
        assert_eq!(query("\"它\"").as_deref(), Some("\"它\"*"));
        // Outside quotes (a query written with syntax): a phrase of its own.
        assert_eq!(query("缓存 OR cache").as_deref(), Some("\"缓存\" OR cache"));
        assert_eq!(query("它 OR it").as_deref(), Some("\"它\"* OR it"));
        // Latin beside a run in one phrase keeps the phrase.
        assert_eq!(query("\"LRU缓存\"").as_deref(), Some("\"LRU 缓存 \""));
        // A doubled quote inside a phrase is text, not its end.
        assert_eq!(
            query("\"a\"\"b 缓存\"").as_deref(),
            Some("\"a\"\"b  缓存 \"")
        );
    }

    #[test]
    fn a_snippet_marks_the_first_run_found_with_context_either_side() {
        let text = "昨天我们讨论了很久，最后决定使用LRU缓存策略来处理热点数据";
        assert_eq!(
            snippet(text, &["缓存"], 4).as_deref(),
            Some("…用LRU[缓存]策略来处…")
        );
        assert_eq!(
            snippet(text, &["数据", "昨天"], 40).as_deref(),
            Some("[昨天]我们讨论了很久，最后决定使用LRU缓存策略来处理热点数据")
        );
        assert_eq!(snippet(text, &["猫"], 4), None);
    }

    /// The store's search by words, with Chinese and Japanese in it.
    mod in_the_store {
        use crate::store::messages::tests::new_message;
        use crate::store::{SearchFilter, Store};
        use discord_manager_vocabulary::snowflake::MessageId;

        fn store() -> (tempfile::TempDir, Store) {
            let folder = tempfile::tempdir().unwrap();
            let store = Store::open_writable(&folder.path().join("store.sqlite3")).unwrap();
            (folder, store)
        }

        fn post(store: &Store, channel: &str, content: &str) -> MessageId {
            let message = new_message(channel, "7", content);
            store
                .write(|writer| writer.insert_message(&message))
                .unwrap();
            message.message_id
        }

        /// What a search for `query` (as the business layer quotes plain words) finds in
        /// channels 300 and 301: each hit's message and snippet.
        fn search(store: &Store, query: &str) -> Vec<(MessageId, String)> {
            crate::store::testing::search_hits(store, query, &["300", "301"])
                .into_iter()
                .map(|hit| (hit.message.message_id, hit.snippet))
                .collect()
        }

        #[test]
        fn a_word_inside_a_chinese_or_japanese_sentence_is_found_by_words() {
            let (_folder, store) = store();
            let chinese = post(&store, "300", "最后我们决定使用LRU缓存策略");
            let japanese = post(&store, "301", "キャッシュの方針はLRUに決めました");
            post(&store, "300", "we chose LRU for the cache");
            // Two characters, three, a katakana word, and Latin beside a run.
            assert_eq!(
                search(&store, "\"缓存\""),
                [(chinese, "最后我们决定使用LRU[缓存]策略".to_string())]
            );
            assert_eq!(search(&store, "\"决定使用\"")[0].0, chinese);
            assert_eq!(
                search(&store, "\"キャッシュ\""),
                [(japanese, "[キャッシュ]の方針はLRUに決めました".to_string())]
            );
            assert_eq!(search(&store, "\"LRU缓存\"")[0].0, chinese);
            // A word with two words of the sentence ANDed, and one it does not hold.
            assert_eq!(search(&store, "\"缓存\" \"策略\"").len(), 1);
            assert_eq!(search(&store, "\"缓存\" \"数据库\""), []);
            // The same characters in another order are another word.
            assert_eq!(search(&store, "\"存缓\""), []);
            // One character finds the pairs it begins.
            assert_eq!(search(&store, "\"方\"")[0].0, japanese);
            // The filters hold: channel 301 alone has no 缓存.
            let only_301 = SearchFilter {
                channel_ids: vec!["301".parse().unwrap()],
                ..SearchFilter::default()
            };
            let found = store
                .read(|reader| reader.search("\"缓存\"", &only_301, 10))
                .unwrap()
                .unwrap();
            assert!(found.hits.is_empty());
            // English is found as before, by its own words.
            assert_eq!(search(&store, "\"cache\"").len(), 1);
        }

        /// Migration 0028 indexes what a store held before it.
        #[test]
        fn a_store_from_before_the_index_of_chinese_and_japanese_finds_their_words() {
            let (folder, store) = store();
            let path = folder.path().join("store.sqlite3");
            let chinese = post(&store, "300", "最后我们决定使用LRU缓存策略");
            drop(store);
            let connection = rusqlite::Connection::open(&path).unwrap();
            connection
                .execute_batch(crate::store::testing::BEFORE_0036)
                .unwrap();
            connection
                .execute_batch("DROP TABLE cjk_text; DROP TABLE IF EXISTS cjk_text_content; DROP TABLE meaning_walks; DROP TABLE meaning_blocks; PRAGMA user_version = 27;")
                .unwrap();
            drop(connection);
            let store = Store::open_writable(&path).unwrap();
            assert_eq!(search(&store, "\"缓存\"")[0].0, chinese);
        }
    }
}
