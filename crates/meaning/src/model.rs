//! The bundled encoder and the identity of its coordinate space.
//!
//! Two vectors can be compared only when the same model, weights, tokenizer, pooling and
//! truncation made both: equal dimensions are not enough. [`Identity`] is the whole
//! description (`pocket_encoder::ModelInfo`, serialised as JSON), stored once beside the
//! vectors; [`Identity::require_same`] refuses any other.

use discord_manager_vocabulary::error::{Error, Result};

/// How many coordinates a vector has.
pub const DIMENSIONS: usize = 384;

/// The full description of a coordinate space, as JSON text: what the store keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity(String);

impl Identity {
    /// The identity of the encoder in this binary.
    pub fn bundled() -> Identity {
        let info = pocket_encoder::model_info();
        // A ModelInfo is strings and numbers: its JSON cannot fail.
        let fallback = info.id.clone();
        Identity(serde_json::to_string(&info).unwrap_or(fallback))
    }

    /// An identity as the store kept it.
    pub fn from_stored(text: impl Into<String>) -> Identity {
        Identity(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The model's short name (`pocket-encoder/minilm-l3-q4-g32-v1`), for messages.
    pub fn name(&self) -> String {
        serde_json::from_str::<pocket_encoder::ModelInfo>(&self.0)
            .map(|info| info.id)
            .unwrap_or_else(|_| "an unknown model".into())
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
    encoder: pocket_encoder::Encoder,
    identity: Identity,
}

/// How many characters of a text are given to the model: it reads 128 tokens and drops the
/// rest, so a longer text only costs tokenizing time (and the model refuses over 64 KiB).
const MAX_CHARACTERS: usize = 2_000;

impl Encoder {
    /// The bundled encoder; the first call in a process loads its weights (a fraction of a
    /// second), later calls share them.
    pub fn bundled() -> Result<Encoder> {
        let encoder = pocket_encoder::Encoder::new().map_err(|error| {
            Error::internal(format!(
                "The bundled sentence encoder did not load: {error}"
            ))
        })?;
        Ok(Encoder {
            encoder,
            identity: Identity::bundled(),
        })
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// One unit vector of [`DIMENSIONS`] coordinates per text, in order; a text is cut to
    /// its first 2,000 characters (the model reads fewer). A blank text is refused.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let cut: Vec<&str> = texts
            .iter()
            .map(|text| match text.char_indices().nth(MAX_CHARACTERS) {
                Some((end, _)) => &text[..end],
                None => text,
            })
            .collect();
        self.encoder.embed(&cut).map_err(|error| match error {
            pocket_encoder::Error::Input(why) => Error::input(format!(
                "A text to search by meaning was refused by the encoder: {why}"
            )),
            pocket_encoder::Error::Inference(why) => {
                Error::internal(format!("The sentence encoder failed: {why}"))
            }
        })
    }

    /// One text's vector.
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        self.embed(&[text])?
            .pop()
            .ok_or_else(|| Error::internal("The sentence encoder returned no vector"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_identity_is_the_full_model_description_and_another_is_refused() {
        let bundled = Identity::bundled();
        assert!(bundled.as_str().contains("\"dimensions\":384"));
        assert!(bundled.as_str().contains("\"max_tokens\":128"));
        assert_eq!(bundled.name(), "pocket-encoder/minilm-l3-q4-g32-v1");
        assert!(bundled.require_same(&Identity::bundled()).is_ok());
        // The same model name with other weights is another coordinate space.
        let other = Identity::from_stored(bundled.as_str().replace("sha256:", "sha256:0"));
        let refusal = other.require_same(&bundled).expect_err("another identity");
        assert!(
            refusal
                .message()
                .starts_with("These vectors were made by pocket-encoder/minilm-l3-q4-g32-v1"),
            "{}",
            refusal.message()
        );
        assert!(refusal.message().contains("never compared"));
    }

    /// The question shares no content word with its target (the meaning evaluation set's
    /// p094); the distractor shares "test" with it and nothing of its meaning.
    #[test]
    fn a_paraphrase_finds_its_message_by_meaning_where_it_shares_no_word() {
        use crate::scan::{Row, ScanFilter, ScanIndex};
        use crate::vector::quantise;

        let messages = [
            "restore drill went fine, 1.2TB restored in 47 min from the nightly snapshot",
            "ci is down to 11 min from 26 after caching the cargo registry and splitting the test shards",
            "friday team lunch at the thai place? need headcount by wed",
            "pg primary fell over at 02:14, failover to the replica took ~90s",
        ];
        let encoder = Encoder::bundled().expect("the bundled encoder");
        let vectors = encoder.embed(&messages).expect("vectors");
        assert_eq!(vectors.len(), 4);
        assert!(vectors.iter().all(|vector| vector.len() == DIMENSIONS));
        let length: f32 = vectors[0].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-4, "{length}");
        let mut index = ScanIndex::new(encoder.identity().clone());
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
            .embed_one("did the recovery test from backups succeed?")
            .expect("the question's vector");
        let filter = ScanFilter {
            channel_ids: vec!["1".parse().unwrap()],
            ..ScanFilter::default()
        };
        let candidates = index
            .candidates(encoder.identity(), &query, &filter, 4)
            .expect("a search");
        let stored = candidates.into_iter().map(|key| {
            let vector = &vectors[key as usize - 1];
            (key, quantise(vector).expect("a vector"))
        });
        let found = crate::scan::rescore(&query, stored, 4);
        assert_eq!(found[0].key, 1, "{found:?}");
        assert!(found[0].score > found[1].score);
    }

    #[test]
    fn a_blank_text_is_refused_in_words_and_a_long_one_is_cut() {
        let encoder = Encoder::bundled().expect("the bundled encoder");
        let refusal = encoder.embed(&["   "]).expect_err("blank");
        assert_eq!(
            refusal.message(),
            "A text to search by meaning was refused by the encoder: text must not be empty"
        );
        let long = "word ".repeat(20_000);
        assert_eq!(encoder.embed_one(&long).expect("cut").len(), DIMENSIONS);
    }
}
