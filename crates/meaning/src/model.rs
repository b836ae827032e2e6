//! The bundled encoder and the identity of its coordinate space.
//!
//! The encoder is multilingual-e5-small, 4-bit, run by [`crate::e5`]. Two vectors can be
//! compared only when the same model, weights, tokenizer, pooling, truncation and prefixes
//! made both: equal dimensions are not enough. [`Identity`] is the whole description
//! (serialised as JSON), stored once beside the vectors; [`Identity::require_same`] refuses
//! any other.

use std::sync::{Arc, OnceLock};

use discord_manager_vocabulary::error::{Error, Result};

use crate::e5::{Model, Prefix};
use crate::resident::MappedFile;

/// How many coordinates a vector has.
pub const DIMENSIONS: usize = 384;

/// The model's weights, vendored (crates/meaning/model/PROVENANCE.md).
pub(crate) static WEIGHTS: &[u8] = include_bytes!("../model/multilingual-e5-small-q4.dme5");

/// The digest the identity names for the weights: the SHA-256 of the model file as first
/// vendored (version 1 of its layout). The file has been laid out again since, with the same
/// values, so vectors made before are still this model's (a test holds the file's values to
/// the digest version 1's gave); other values would need another digest here, and so another
/// identity. A constant: hashing the file at every start would cost a tenth of a second.
const WEIGHTS_SHA256: &str = "b88004c06219985427d081bb980488880a4e78764cc64cd1e0b7cff112fe8e25";

/// The model's short name, for messages.
const MODEL_ID: &str = "multilingual-e5-small-q4/v1";

/// The full description of a coordinate space, as JSON text: what the store keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity(String);

impl Identity {
    /// The identity of the encoder in this binary.
    pub fn bundled() -> Identity {
        Identity(
            serde_json::json!({
                "id": MODEL_ID,
                "dimensions": DIMENSIONS,
                "max_tokens": 512,
                "tokenizer": "xlm-roberta sentencepiece unigram",
                "pooling": "mean over tokens, unit length",
                "prefixes": {"query": Prefix::Query.text(), "passage": Prefix::Passage.text()},
                "weights": format!("sha256:{WEIGHTS_SHA256}"),
            })
            .to_string(),
        )
    }

    /// An identity as the store kept it.
    pub fn from_stored(text: impl Into<String>) -> Identity {
        Identity(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The model's short name (`multilingual-e5-small-q4/v1`), for messages.
    pub fn name(&self) -> String {
        serde_json::from_str::<serde_json::Value>(&self.0)
            .ok()
            .and_then(|description| description["id"].as_str().map(str::to_string))
            .unwrap_or_else(|| "an unknown model".into())
    }

    /// Ok when `vectors`, the identity stored vectors were made by, is this very identity
    /// (the model asking); otherwise the refusal, naming both models.
    pub fn require_same(&self, vectors: &Identity) -> Result<()> {
        if self == vectors {
            return Ok(());
        }
        Err(Error::conflict(format!(
            "These vectors were made by {} and the question by {}: vectors of different \
             models are never compared. The ingest daemon re-embeds every message with the \
             model in this binary; search by meaning again once `store_status` shows them \
             embedded",
            vectors.name(),
            self.name()
        )))
    }
}

/// The encoder: loaded once per process (the weights are inside the binary), then shared.
#[derive(Clone)]
pub struct Encoder {
    model: Arc<Model>,
    identity: Identity,
}

/// The model, once loaded (or why it did not load).
static LOADED: OnceLock<std::result::Result<Arc<Model>, String>> = OnceLock::new();

impl Encoder {
    /// The bundled encoder; the first call in a process loads its layers (a few tens of
    /// milliseconds), later calls share them.
    pub fn bundled() -> Result<Encoder> {
        Ok(Encoder {
            model: bundled_model()?,
            identity: Identity::bundled(),
        })
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// One unit vector of [`DIMENSIONS`] coordinates per message text, in order (E5's
    /// `passage: ` side). A text is trimmed, and read to its first 512 tokens. A blank text
    /// is refused.
    pub fn embed_messages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_on(texts, Prefix::Passage)
    }

    /// The vector of a question (E5's `query: ` side), to compare with messages' vectors.
    pub fn embed_question(&self, question: &str) -> Result<Vec<f32>> {
        self.embed_on(&[question], Prefix::Query)?
            .pop()
            .ok_or_else(|| Error::internal("The sentence encoder returned no vector"))
    }

    /// Message texts' vectors: [`Encoder::embed_messages`].
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_messages(texts)
    }

    /// One message text's vector.
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        self.embed_messages(&[text])?
            .pop()
            .ok_or_else(|| Error::internal("The sentence encoder returned no vector"))
    }

    fn embed_on(&self, texts: &[&str], prefix: Prefix) -> Result<Vec<Vec<f32>>> {
        if let Some(position) = texts.iter().position(|text| text.trim().is_empty()) {
            return Err(Error::input(format!(
                "Text {} of {} to embed is blank: search by meaning needs words to compare",
                position + 1,
                texts.len()
            )));
        }
        self.model
            .embed(texts, prefix)
            .map_err(|fault| Error::internal(format!("The sentence encoder failed: {fault}")))
    }
}

/// The model's file as the binary maps it.
fn bundled_file() -> MappedFile {
    // SAFETY: `include_bytes!` data lies in the executable's read-only segment, a private
    // mapping of the executable's file that nothing writes.
    unsafe { MappedFile::new(WEIGHTS) }
}

/// The model of this binary, loaded on the first call.
pub(crate) fn bundled_model() -> Result<Arc<Model>> {
    LOADED
        .get_or_init(|| {
            let file = bundled_file();
            let model = Model::load(file).map(Arc::new);
            // The layers are unpacked: their packed bytes are not read again.
            file.give_back();
            model
        })
        .clone()
        .map_err(|fault| {
            Error::internal(format!(
                "The bundled sentence encoder did not load: {fault}"
            ))
        })
}

#[cfg(test)]
mod tests {
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

    /// The evaluation set's m034, its distractor m117 and two others, asked for in English
    /// (p018) and in Spanish (t007): the Spanish question, whose "caché" is the one word it
    /// shares with the English messages, puts the browser's cache first and the decision
    /// second.
    #[test]
    fn the_cache_eviction_decision_is_found_first_in_english_and_second_in_spanish() {
        let messages = [
            "cleared my browser cache and the bug went away lol classic",
            "ok decision: we drop the LRU and go with per-key TTLs, 5 min default. simpler to \
             reason about and redis does the work",
            "aws bill down 22% after moving batch jobs to spot instances",
            "friday team lunch at the thai place? need headcount by wed",
        ];
        let encoder = Encoder::bundled().expect("the bundled encoder");
        let found = ranked(
            &encoder,
            &messages,
            "what did we decide about cache eviction?",
        );
        assert_eq!(found, [2, 1, 4, 3]);
        let found = ranked(
            &encoder,
            &messages,
            "¿qué decidimos sobre la expiración de la caché?",
        );
        assert_eq!(found, [1, 2, 4, 3]);
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
}
