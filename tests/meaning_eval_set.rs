//! The meaning evaluation set (`benches/eval/meaning.json`) is held to its rules, and the words
//! baseline the benchmark measures on it runs here too, so neither can rot.
//!
//! The rules: at least 120 messages over several channels and authors; at least 100
//! paraphrase queries, each of which shares no content word with its target (nor with an
//! alternate), so words search cannot find it by its words; at least 15 exact queries, each of
//! whose words is in its target, so the set shows words search still finds what it finds
//! today; unique ids; every message a query names exists; every distractor shares a content
//! word with its query and is not one of its answers. A content word is what is left of the
//! text after lowercasing, splitting at every character that is not a letter or a digit,
//! dropping the stopwords below and stemming ([`content_words`]).
//!
//! The baseline itself (recall@10 on paraphrase queries) is measured by `cargo bench --bench
//! meaning`, never asserted: only the stable properties are, that words search finds every
//! exact query's target in its first ten results, and that search by meaning answers the set's
//! example question first, asked in English and in Spanish (the model's vectors are the same
//! bits on every machine, so its ranking is too).

#[path = "../benches/eval/mod.rs"]
mod eval;

use std::collections::{BTreeSet, HashSet};

use eval::{EvalSet, QueryKind};
use serde_json::json;

const MIN_MESSAGES: usize = 120;
const MIN_PARAPHRASE_QUERIES: usize = 100;
const MIN_EXACT_QUERIES: usize = 15;
const MIN_CHANNELS: usize = 6;
const MIN_AUTHORS: usize = 5;
/// Paraphrase queries that name at least one distractor.
const MIN_QUERIES_WITH_DISTRACTORS: usize = 40;

/// Words that carry no content: articles, pronouns, auxiliaries, prepositions, question words
/// and the pieces contractions split into.
const STOPWORDS: &str = "\
    a about above after again against all am an and any are aren as at be because been before \
    being below between both but by can couldn could d did didn do does doesn doing don down \
    during each few for from further had hadn has hasn have haven having he her here hers \
    herself him himself his how i if in into is isn it its itself just ll m me more most my \
    myself no nor not now o of off on once only or other our ours ourselves out over own re s \
    same she should shouldn so some such t than that the their theirs them themselves then \
    there these they this those through to too under until up us ve very was wasn we were \
    weren what when where which while who whom why will with won would wouldn you your yours \
    yourself yourselves";

fn is_stopword(word: &str) -> bool {
    STOPWORDS
        .split_whitespace()
        .any(|stopword| stopword == word)
}

/// A word's stem, simply: a trailing `ing`, `ed`, `es` or `s` dropped where a stem of three
/// letters or more is left (`ies` becomes `y`), then a doubled last consonant made single and
/// a trailing `e` dropped, so `deploys`, `deployed` and `deploying` are all `deploy`, `cache`
/// and `caches` both `cach`, `shipping` and `ship` both `ship`.
fn stem(word: &str) -> String {
    let mut stem = word.to_string();
    if let Some(base) = stem.strip_suffix("ies")
        && base.len() >= 2
    {
        stem = format!("{base}y");
    } else {
        for suffix in ["ing", "ed", "es", "s"] {
            if let Some(base) = stem.strip_suffix(suffix)
                && base.chars().count() >= 3
            {
                stem = base.to_string();
                break;
            }
        }
    }
    let letters: Vec<char> = stem.chars().collect();
    if let [.., before, last] = letters[..]
        && before == last
        && last.is_ascii_alphabetic()
        && !"aeiou".contains(last)
        && letters.len() >= 4
    {
        stem.pop();
    }
    if stem.chars().count() >= 4 && stem.ends_with('e') {
        stem.pop();
    }
    if stem.chars().count() >= 3
        && let Some(base) = stem.strip_suffix('i')
    {
        stem = format!("{base}y");
    }
    stem
}

/// The text's content words: lowercased, split at every character that is not a letter or a
/// digit (so punctuation, emoji and apostrophes go), stopwords dropped, each stemmed.
fn content_words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty() && !is_stopword(word))
        .map(stem)
        .collect()
}

/// The text's words as full-text search sees them: lowercased, split at every character that
/// is not a letter or a digit, none dropped, none stemmed.
fn search_words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

fn set() -> EvalSet {
    eval::load().unwrap_or_else(|error| panic!("{error}"))
}

/// Every way the set breaks its rules, each naming the query or message.
fn violations(set: &EvalSet) -> Vec<String> {
    let mut violations = Vec::new();
    let mut ids = HashSet::new();
    for id in set
        .messages
        .iter()
        .map(|message| &message.id)
        .chain(set.queries.iter().map(|query| &query.id))
    {
        if !ids.insert(id) {
            violations.push(format!("{id}: the id is used twice"));
        }
    }
    let channels: HashSet<_> = set.channels.iter().collect();
    let authors: HashSet<_> = set.authors.iter().map(|author| &author.username).collect();
    if !authors.contains(&set.owner) {
        violations.push(format!("the owner {:?} is not an author", set.owner));
    }
    for message in &set.messages {
        if !channels.contains(&message.channel) {
            violations.push(format!("{}: no channel {:?}", message.id, message.channel));
        }
        if !authors.contains(&message.author) {
            violations.push(format!("{}: no author {:?}", message.id, message.author));
        }
        if content_words(&message.text).is_empty() {
            violations.push(format!("{}: no content word", message.id));
        }
    }
    for query in &set.queries {
        let query_words = content_words(&query.text);
        for answer in query.answers() {
            let Some(message) = set.message(answer) else {
                violations.push(format!("{}: names no message {answer}", query.id));
                continue;
            };
            match query.kind {
                QueryKind::Paraphrase => {
                    let shared: Vec<_> = query_words
                        .intersection(&content_words(&message.text))
                        .cloned()
                        .collect();
                    if !shared.is_empty() {
                        violations.push(format!(
                            "{}: paraphrase shares {shared:?} with {answer}",
                            query.id
                        ));
                    }
                }
                QueryKind::Exact if answer == query.target => {
                    let target_words = search_words(&message.text);
                    let absent: Vec<_> = search_words(&query.text)
                        .into_iter()
                        .filter(|word| !target_words.contains(word))
                        .collect();
                    if !absent.is_empty() {
                        violations.push(format!(
                            "{}: exact query's {absent:?} not in its target {answer}",
                            query.id
                        ));
                    }
                }
                QueryKind::Exact => {}
                QueryKind::Translated if query.language() == message.language() => {
                    violations.push(format!(
                        "{}: translated query asked in {}, the language of {answer}",
                        query.id,
                        query.language()
                    ));
                }
                QueryKind::Translated => {}
            }
        }
        for distractor in &query.distractors {
            let Some(message) = set.message(distractor) else {
                violations.push(format!("{}: names no distractor {distractor}", query.id));
                continue;
            };
            if query.answers().any(|answer| answer == distractor) {
                violations.push(format!(
                    "{}: {distractor} is both an answer and a distractor",
                    query.id
                ));
            }
            if query_words.is_disjoint(&content_words(&message.text)) {
                violations.push(format!(
                    "{}: distractor {distractor} shares no content word with the query",
                    query.id
                ));
            }
        }
    }
    violations
}

#[test]
fn the_normaliser_drops_stopwords_and_punctuation_and_stems_plain_endings() {
    assert_eq!(
        content_words("What did we DECIDE about the caches?! 🔥 deploying, deployed, deploys"),
        BTreeSet::from(["decid".into(), "cach".into(), "deploy".into()])
    );
    assert_eq!(
        content_words("didn't ship; shipping it's replies replied reply"),
        BTreeSet::from(["ship".into(), "reply".into()])
    );
    // A stem keeps three letters: `bus` and `gas` are not cut to `bu` and `ga`.
    assert_eq!(
        content_words("bus gas is"),
        BTreeSet::from(["bus".into(), "gas".into()])
    );
    assert_eq!(
        search_words("p99 Latency, node-3!"),
        BTreeSet::from(["p99".into(), "latency".into(), "node".into(), "3".into()])
    );
}

#[test]
fn the_set_has_enough_messages_channels_authors_and_queries_of_each_kind() {
    let set = set();
    let count = |kind| {
        set.queries
            .iter()
            .filter(|query| query.kind == kind)
            .count()
    };
    let with_distractors = set
        .queries
        .iter()
        .filter(|query| query.kind == QueryKind::Paraphrase && !query.distractors.is_empty())
        .count();
    let used_channels: HashSet<_> = set
        .messages
        .iter()
        .map(|message| &message.channel)
        .collect();
    let used_authors: HashSet<_> = set.messages.iter().map(|message| &message.author).collect();
    let counts = [
        ("messages", set.messages.len(), MIN_MESSAGES),
        (
            "paraphrase queries",
            count(QueryKind::Paraphrase),
            MIN_PARAPHRASE_QUERIES,
        ),
        ("exact queries", count(QueryKind::Exact), MIN_EXACT_QUERIES),
        (
            "paraphrase queries with a distractor",
            with_distractors,
            MIN_QUERIES_WITH_DISTRACTORS,
        ),
        ("channels written in", used_channels.len(), MIN_CHANNELS),
        ("authors who write", used_authors.len(), MIN_AUTHORS),
    ];
    let short: Vec<_> = counts
        .iter()
        .filter(|(_, have, least)| have < least)
        .map(|(what, have, least)| format!("{have} {what}, at least {least} wanted"))
        .collect();
    assert!(short.is_empty(), "the set is short: {short:#?}");
}

/// The owner's language: at least 40 questions in at least 5 languages other than English,
/// each for an English message, and at least 20 messages in other languages, each asked for
/// in English.
#[test]
fn the_set_asks_in_several_languages_and_holds_messages_in_several() {
    let set = set();
    let translated = |asked_in_english: bool| {
        set.queries.iter().filter(move |query| {
            query.kind == QueryKind::Translated && (query.language() == "en") == asked_in_english
        })
    };
    let of_english: Vec<_> = translated(false)
        .filter(|query| {
            set.message(&query.target)
                .is_some_and(|m| m.language() == "en")
        })
        .collect();
    let languages: HashSet<&str> = of_english.iter().map(|query| query.language()).collect();
    assert!(
        of_english.len() >= 40,
        "{} questions in other languages",
        of_english.len()
    );
    assert!(languages.len() >= 5, "{languages:?}");
    let asked_for: HashSet<&str> = translated(true)
        .filter_map(|query| set.message(&query.target))
        .filter(|message| message.language() != "en")
        .map(|message| message.id.as_str())
        .collect();
    assert!(
        asked_for.len() >= 20,
        "{} messages in other languages",
        asked_for.len()
    );
}

#[test]
fn every_query_keeps_the_rules_of_its_kind() {
    let violations = violations(&set());
    assert!(
        violations.is_empty(),
        "{} rule(s) broken:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn the_checker_names_the_query_that_breaks_each_rule() {
    let mut set = set();
    let target = set.queries[0].target.clone();
    let target_text = set.message(&target).expect("the first target").text.clone();
    let first_word = target_text
        .split_whitespace()
        .find(|word| !content_words(word).is_empty())
        .expect("a content word in the target");
    let mut add = |id: &str, kind, text: String, distractors: Vec<String>| {
        set.queries.push(eval::Query {
            id: id.into(),
            kind,
            text,
            target: target.clone(),
            alternates: vec![],
            distractors,
            language: None,
        });
    };
    add(
        "broken-paraphrase",
        QueryKind::Paraphrase,
        format!("anything on {first_word}"),
        vec![],
    );
    add(
        "broken-exact",
        QueryKind::Exact,
        "zyzzyva quokka".into(),
        vec![],
    );
    add(
        "broken-distractor",
        QueryKind::Paraphrase,
        "zyzzyva".into(),
        vec![target.clone()],
    );
    add(
        "broken-translated",
        QueryKind::Translated,
        "asked in the target's own language".into(),
        vec![],
    );
    add(
        "q-dangling",
        QueryKind::Exact,
        first_word.into(),
        vec!["m999".into()],
    );
    set.queries.push(set.queries[0].clone());
    let violations = violations(&set);
    let named = |id: &str, what: &str| {
        violations
            .iter()
            .any(|violation| violation.starts_with(&format!("{id}: ")) && violation.contains(what))
    };
    let first = set.queries[0].id.clone();
    let expected = [
        ("broken-paraphrase", "paraphrase shares"),
        ("broken-exact", "not in its target"),
        ("broken-distractor", "shares no content word"),
        ("broken-distractor", "both an answer and a distractor"),
        ("broken-translated", "translated query asked in en"),
        ("q-dangling", "names no distractor m999"),
        (first.as_str(), "the id is used twice"),
    ];
    for (id, what) in expected {
        assert!(named(id, what), "{id} ({what}) not among {violations:#?}");
    }
    assert_eq!(violations.len(), expected.len(), "{violations:#?}");
}

#[test]
fn words_search_finds_every_exact_querys_target_in_its_first_ten_results() {
    let set = set();
    let built = set
        .build_in_temporary_folder()
        .unwrap_or_else(|error| panic!("{error}"));
    let (runtime, services) = (&built.runtime, &built.services);
    let exact = eval::recall(&set, runtime, services, QueryKind::Exact, &json!({}))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(
        exact.missed.is_empty(),
        "words search missed {:?}",
        exact.missed
    );
    assert_eq!(exact.found, exact.queries);
    // The paraphrase figure is the benchmark's to report; here only that every paraphrase
    // query runs and is counted.
    let paraphrase = eval::recall(&set, runtime, services, QueryKind::Paraphrase, &json!({}))
        .unwrap_or_else(|error| panic!("{error}"));
    let refused: Vec<_> = paraphrase
        .missed
        .iter()
        .filter(|(_, refusal)| refusal.is_some())
        .collect();
    assert!(refused.is_empty(), "search refused {refused:?}");
    assert_eq!(
        paraphrase.found + paraphrase.missed.len(),
        set.queries
            .iter()
            .filter(|query| query.kind == QueryKind::Paraphrase)
            .count()
    );
}

/// "what did we decide about cache eviction?" (p018) and the set's Spanish version of it
/// (t007, "¿qué decidimos sobre la expiración de la caché?") find the decision, m034, as the
/// first result, by meaning and by both fused; asked in Spanish, the model alone ranked it
/// 14th of 153, behind Spanish messages about other things, until the question was taken off
/// the directions in which languages differ (docs/performance.md, "Meaning: the owner's
/// language").
#[test]
fn the_cache_eviction_question_finds_the_decision_first_in_english_and_in_spanish() {
    let set = set();
    let built = set
        .build_in_temporary_folder()
        .unwrap_or_else(|error| panic!("{error}"));
    let (runtime, services) = (&built.runtime, &built.services);
    let asked = ["p018", "t007"];
    for query in asked {
        let target = set.queries.iter().find(|q| q.id == query).expect(query);
        assert_eq!(target.target, "m034", "{query}");
    }
    for mode in ["meaning", "both"] {
        let recall = eval::recall_of(&set, runtime, services, &json!({"mode": mode}), |query| {
            asked.contains(&query.id.as_str())
        })
        .unwrap_or_else(|error| panic!("{mode}: {error}"));
        assert_eq!(recall.queries, 2, "{mode}");
        assert_eq!(recall.first, 2, "{mode}: missed {:?}", recall.missed);
    }
}
