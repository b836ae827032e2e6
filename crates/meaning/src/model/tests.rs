//! The bundled encoder's tests: its identity, its weights' values, and what it finds.

use super::*;

#[test]
fn the_model_embeds_the_same_after_its_files_pages_are_given_back() {
    let encoder = Encoder::bundled().unwrap();
    let texts = [
        "what did we decide about cache eviction?",
        "¿qué decidimos sobre el desalojo de la caché?",
    ];
    let before: Vec<Vec<f32>> = texts
        .iter()
        .map(|text| encoder.embed_question(text).unwrap())
        .collect();
    bundled_file().give_back();
    // A text whose words reach embedding chunks no text above read, and the same texts.
    let fresh = encoder
        .embed_question("Ωμέγα ψηφιακή ζυγαριά 量子计算机")
        .unwrap();
    assert_eq!(fresh.len(), DIMENSIONS);
    for (text, vector) in texts.iter().zip(before) {
        assert_eq!(encoder.embed_question(text).unwrap(), vector, "{text}");
    }
    // The bytes read again are the file's: its digest is unchanged.
    assert_eq!(file_digest(), FILE_SHA256);
}

/// The SHA-256 of the vendored file (crates/meaning/model/PROVENANCE.md).
const FILE_SHA256: &str = "c72f7c5db0b14677fc66e633e1d4494cc3438bcdbee6715930adba6ba28d5d95";

/// The SHA-256 of the model's values, whatever the file's layout
/// ([`crate::e5::weights::values_digest`]): the same for version 1 of the file, whose own
/// SHA-256 the identity names.
const VALUES_SHA256: &str = "26acb4e05e74f4e8cf910b1163ac6d9d8f3ce6382e2df6e5df2b991286f11a73";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The SHA-256 of the file as it reads now, in hex.
fn file_digest() -> String {
    use sha2::{Digest, Sha256};
    hex(&Sha256::digest(WEIGHTS))
}

#[test]
fn the_bundled_identity_is_the_full_model_description_and_another_is_refused() {
    let bundled = Identity::bundled();
    assert!(bundled.as_str().contains("\"dimensions\":384"));
    assert!(bundled.as_str().contains("\"max_tokens\":512"));
    assert!(bundled.as_str().contains("\"query\":\"query: \""));
    assert_eq!(bundled.name(), "multilingual-e5-small-q4/v1");
    assert!(bundled.require_same(&Identity::bundled()).is_ok());
    // The same model name with other weights is another coordinate space.
    let other = Identity::from_stored(bundled.as_str().replace("sha256:", "sha256:0"));
    let refusal = other.require_same(&bundled).expect_err("another identity");
    assert!(
        refusal
            .message()
            .starts_with("These vectors were made by multilingual-e5-small-q4/v1"),
        "{}",
        refusal.message()
    );
    // The vectors of the model before this one are never compared with this one's.
    let before = Identity::from_stored(
        r#"{"id":"pocket-encoder/minilm-l3-q4-g32-v1","dimensions":384,"max_tokens":128}"#,
    );
    let refusal = bundled.require_same(&before).expect_err("the model before");
    assert!(
        refusal.message().starts_with(
            "These vectors were made by pocket-encoder/minilm-l3-q4-g32-v1 and the \
             question by multilingual-e5-small-q4/v1: vectors of different models are \
             never compared"
        ),
        "{}",
        refusal.message()
    );
}

#[test]
fn the_identity_names_the_weights_whose_values_the_vendored_file_holds() {
    assert_eq!(file_digest(), FILE_SHA256);
    let values = crate::e5::weights::values_digest(WEIGHTS).expect("the file reads");
    assert_eq!(hex(&values), VALUES_SHA256);
    assert!(
        Identity::bundled()
            .as_str()
            .contains(&format!("\"weights\":\"sha256:{WEIGHTS_SHA256}\""))
    );
}

/// The index over the messages' vectors, and the keys closest to `question`, best first.
fn ranked(encoder: &Encoder, messages: &[&str], question: &str) -> Vec<i64> {
    use crate::centre::Centre;
    use crate::scan::{Row, ScanFilter, ScanIndex};
    use crate::vector::quantise;

    let vectors = encoder.embed_messages(messages).expect("vectors");
    assert_eq!(vectors.len(), messages.len());
    assert!(vectors.iter().all(|vector| vector.len() == DIMENSIONS));
    let length: f32 = vectors[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((length - 1.0).abs() < 1e-4, "{length}");
    let stored: Vec<Vec<u8>> = vectors
        .iter()
        .map(|vector| quantise(vector).expect("a vector"))
        .collect();
    let centre = Centre::of(stored.iter().map(Vec::as_slice)).expect("vectors");
    let mut index = ScanIndex::new(encoder.identity().clone(), centre);
    for (key, vector) in vectors.iter().enumerate() {
        index.put(Row {
            key: key as i64 + 1,
            channel_id: "1".parse().unwrap(),
            author_id: "2".parse().unwrap(),
            arrived: 0,
            sent: 0,
            vector: quantise(vector).expect("a vector"),
        });
    }
    let query = encoder
        .embed_question(question)
        .expect("the question's vector");
    let filter = ScanFilter {
        channel_ids: vec!["1".parse().unwrap()],
        ..ScanFilter::default()
    };
    let candidates = index
        .candidates(encoder.identity(), &query, &filter, messages.len())
        .expect("a search");
    let stored = candidates.into_iter().map(|key| {
        let vector = &vectors[key as usize - 1];
        (key, quantise(vector).expect("a vector"))
    });
    let found = crate::scan::rescore(&query, stored, messages.len());
    assert!(found[0].score > found[1].score, "{found:?}");
    found.iter().map(|found| found.key).collect()
}

/// The question shares no content word with its target (the meaning evaluation set's
/// p094); the distractor shares "test" with it and nothing of its meaning.
#[test]
fn a_paraphrase_finds_its_message_by_meaning_where_it_shares_no_word() {
    let messages = [
        "restore drill went fine, 1.2TB restored in 47 min from the nightly snapshot",
        "ci is down to 11 min from 26 after caching the cargo registry and splitting the test shards",
        "friday team lunch at the thai place? need headcount by wed",
        "pg primary fell over at 02:14, failover to the replica took ~90s",
    ];
    let encoder = Encoder::bundled().expect("the bundled encoder");
    let found = ranked(
        &encoder,
        &messages,
        "did the recovery test from backups succeed?",
    );
    assert_eq!(found[0], 1, "{found:?}");
}

/// The evaluation set's m034, its distractor m117, two others and a Spanish message of the
/// set (m152, redis restarted), asked for in English (p018) and in Spanish (t007). With its
/// language in it, the Spanish question put the Spanish message first and the browser's cache
/// before the decision; taken off the language directions, it finds the decision first.
#[test]
fn the_cache_eviction_decision_is_found_first_in_english_and_in_spanish() {
    let messages = [
        "cleared my browser cache and the bug went away lol classic",
        "ok decision: we drop the LRU and go with per-key TTLs, 5 min default. simpler to \
         reason about and redis does the work",
        "aws bill down 22% after moving batch jobs to spot instances",
        "friday team lunch at the thai place? need headcount by wed",
        "reinicié el nodo de redis, la memoria estaba al 98%",
    ];
    let encoder = Encoder::bundled().expect("the bundled encoder");
    let found = ranked(
        &encoder,
        &messages,
        "what did we decide about cache eviction?",
    );
    assert_eq!(found, [2, 1, 5, 4, 3]);
    let found = ranked(
        &encoder,
        &messages,
        "¿qué decidimos sobre la expiración de la caché?",
    );
    assert_eq!(found, [2, 1, 5, 4, 3]);
}

#[test]
fn a_blank_text_is_refused_in_words_and_a_long_one_is_cut() {
    let encoder = Encoder::bundled().expect("the bundled encoder");
    let refusal = encoder
        .embed_messages(&["ok", " \n\t "])
        .expect_err("blank");
    assert_eq!(
        refusal.message(),
        "Text 2 of 2 to embed is blank: search by meaning needs words to compare"
    );
    let refusal = encoder.embed_question("").expect_err("blank");
    assert_eq!(
        refusal.message(),
        "Text 1 of 1 to embed is blank: search by meaning needs words to compare"
    );
    let long = "word ".repeat(20_000);
    let cut = encoder.embed_one(&long).expect("cut");
    assert_eq!(cut.len(), DIMENSIONS);
    // The model reads 512 tokens: what is past them changes nothing.
    let longer = format!("{long} and a different ending altogether");
    let same = encoder.embed_one(&longer).expect("cut");
    assert_eq!(cut, same);
}
