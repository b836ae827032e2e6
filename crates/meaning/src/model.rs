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
use crate::language::LanguageDirections;
use crate::resident::MappedFile;

/// How many coordinates a vector has.
pub const DIMENSIONS: usize = 384;

/// The model's weights, vendored (crates/meaning/model/PROVENANCE.md).
pub(crate) static WEIGHTS: &[u8] = include_bytes!("../model/multilingual-e5-small-q4.dme5");

/// The directions in which the model's questions differ by language alone, taken off every
/// question (crates/meaning/model/PROVENANCE.md; [`LanguageDirections`]).
static LANGUAGE_DIRECTIONS: &[u8] = include_bytes!("../model/language-directions.f32");

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
    languages: Arc<LanguageDirections>,
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
            languages: Arc::new(LanguageDirections::from_bytes(
                LANGUAGE_DIRECTIONS,
                DIMENSIONS,
            )?),
        })
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The directions every question is taken off ([`Encoder::embed_question`]).
    pub fn language_directions(&self) -> &LanguageDirections {
        &self.languages
    }

    /// One unit vector of [`DIMENSIONS`] coordinates per message text, in order (E5's
    /// `passage: ` side). A text is trimmed, and read to its first 512 tokens. A blank text
    /// is refused.
    pub fn embed_messages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_on(texts, Prefix::Passage)
    }

    /// The vector of a question (E5's `query: ` side), to compare with messages' vectors:
    /// the model's, taken off the directions in which languages differ
    /// ([`LanguageDirections`]), so it matches messages by meaning and not by language.
    pub fn embed_question(&self, question: &str) -> Result<Vec<f32>> {
        let mut vector = self
            .embed_on(&[question], Prefix::Query)?
            .pop()
            .ok_or_else(|| Error::internal("The sentence encoder returned no vector"))?;
        self.languages.take_from(&mut vector);
        Ok(vector)
    }

    /// Questions' vectors as the model gives them, their language still in them: what the
    /// language directions are measured from ([`LanguageDirections::of_corpus`]).
    pub fn embed_questions_with_their_language(&self, questions: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_on(questions, Prefix::Query)
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
mod tests;
