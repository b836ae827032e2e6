//! The directions in which the model's questions tell languages apart, and a question's vector
//! taken off them: so a question finds what answers it, whatever language that is written in,
//! rather than what shares its language.
//!
//! A multilingual encoder keeps the language of a text in its vector beside the meaning, much
//! of it along a few directions shared by every text of that language. Asked "¿qué decidimos
//! sobre la expiración de la caché?", the model ranked the English decision 14th of the
//! evaluation set's 153 messages, behind Spanish messages about other things: each Spanish
//! message shares the question's language component. Taking the mean of many texts of each
//! language, the differences between those means span where language lies; a question with
//! its part in that span taken away (and made unit length again) has no language left to
//! match on. Only the question changes: a stored vector is the model's as it is, and
//! `question · message` then equals the same dot product with the message also taken off
//! those directions, because the projection is symmetric and idempotent.
//!
//! The means come from a parallel corpus vendored beside the weights
//! (`crates/meaning/model/languages.tsv`): the same 40 everyday sentences written in 11
//! languages, none from the evaluation set. Being the same sentences, the differences of the
//! means hold language and not topic. The 10 directions are orthonormalised once by the
//! `language_directions` example and vendored as `language-directions.f32`; a test embeds the
//! corpus again and holds the file to what it gives.
//!
//! What it does on the evaluation set (docs/performance.md, "Meaning: the owner's
//! language"): the Spanish question ranks the decision first, where it ranked 14th; each
//! language's recall@10 holds or rises, and English paraphrases find 81 of 108, where 79.
//! Directions from either half of the corpus, or from the corpus without its Spanish column,
//! rank it first as well: they are the model's, not the corpus's.

use discord_manager_vocabulary::error::{Error, Result};

/// Orthonormal directions in which the model's question vectors differ by language alone.
#[derive(Debug, Clone, PartialEq)]
pub struct LanguageDirections {
    /// How many coordinates a direction has: the model's vectors'.
    dimensions: usize,
    /// The directions' coordinates, one direction after another.
    coordinates: Vec<f32>,
}

impl LanguageDirections {
    /// Directions of `dimensions` coordinates from their stored form; refused when the bytes
    /// are not whole rows of finite coordinates.
    pub fn from_bytes(bytes: &[u8], dimensions: usize) -> Result<LanguageDirections> {
        let row_bytes = dimensions * 4;
        if bytes.is_empty() || !bytes.len().is_multiple_of(row_bytes) {
            return Err(Error::internal(format!(
                "The language directions are damaged: {} bytes is not a whole number of \
                 {row_bytes}-byte rows",
                bytes.len()
            )));
        }
        let coordinates: Vec<f32> = bytes
            .as_chunks::<4>()
            .0
            .iter()
            .map(|four| f32::from_le_bytes(*four))
            .collect();
        if coordinates.iter().any(|x| !x.is_finite()) {
            return Err(Error::internal(
                "The language directions are damaged: a coordinate is not a number",
            ));
        }
        Ok(LanguageDirections {
            dimensions,
            coordinates,
        })
    }

    /// The stored form: each direction's coordinates as little-endian f32, one after another.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.coordinates
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect()
    }

    /// How many directions there are: one fewer than the corpus's languages.
    pub fn len(&self) -> usize {
        self.coordinates.len() / self.dimensions
    }

    pub fn is_empty(&self) -> bool {
        self.coordinates.is_empty()
    }

    /// Each direction's coordinates.
    pub fn rows(&self) -> impl Iterator<Item = &[f32]> {
        self.coordinates.chunks_exact(self.dimensions)
    }

    /// The directions a parallel corpus gives: `corpus` is tab-separated, a header row of
    /// language names, then one sentence per language in each row; `embed` gives questions'
    /// vectors as the model gives them, their language in them. The differences between the
    /// first language's mean and each other's are orthonormalised in order (modified
    /// Gram–Schmidt, in f64).
    pub fn of_corpus(
        corpus: &str,
        mut embed: impl FnMut(&[&str]) -> Result<Vec<Vec<f32>>>,
    ) -> Result<LanguageDirections> {
        let columns = parallel_columns(corpus)?;
        let mut means: Vec<(&str, Vec<f64>)> = Vec::with_capacity(columns.len());
        for (language, sentences) in &columns {
            let vectors = embed(sentences)?;
            let dimensions = vectors.first().map_or(0, Vec::len);
            let mut mean = vec![0f64; dimensions];
            for vector in &vectors {
                for (total, x) in mean.iter_mut().zip(vector) {
                    *total += f64::from(*x) / vectors.len() as f64;
                }
            }
            means.push((language, mean));
        }
        let first = means[0].1.clone();
        let mut rows: Vec<Vec<f64>> = Vec::with_capacity(means.len() - 1);
        for (language, mean) in &means[1..] {
            let mut direction: Vec<f64> = mean.iter().zip(&first).map(|(a, b)| a - b).collect();
            for row in &rows {
                let along: f64 = row.iter().zip(&direction).map(|(a, b)| a * b).sum();
                for (x, r) in direction.iter_mut().zip(row) {
                    *x -= along * r;
                }
            }
            let length = direction.iter().map(|x| x * x).sum::<f64>().sqrt();
            if length < 1e-6 {
                return Err(Error::internal(format!(
                    "The corpus's {language} column adds no direction of its own: its mean \
                     lies in the span of the columns before it"
                )));
            }
            rows.push(direction.into_iter().map(|x| x / length).collect());
        }
        Ok(LanguageDirections {
            dimensions: first.len(),
            coordinates: rows.into_iter().flatten().map(|x| x as f32).collect(),
        })
    }

    /// `question` (a unit vector) less its part along every direction, made unit length again.
    pub fn take_from(&self, question: &mut [f32]) {
        for row in self.rows() {
            let along: f32 = row.iter().zip(question.iter()).map(|(a, b)| a * b).sum();
            for (x, r) in question.iter_mut().zip(row) {
                *x -= along * r;
            }
        }
        let length = question.iter().map(|x| x * x).sum::<f32>().sqrt();
        // A question lies along the directions alone only in theory; left as it is then.
        if length > f32::EPSILON {
            question.iter_mut().for_each(|x| *x /= length);
        }
    }
}

/// The corpus's columns: each language's name and its sentences, in the header's order.
fn parallel_columns(corpus: &str) -> Result<Vec<(&str, Vec<&str>)>> {
    let mut lines = corpus.lines().filter(|line| !line.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| Error::internal("The language corpus is empty"))?
        .split('\t')
        .collect();
    if header.len() < 2 {
        return Err(Error::internal(
            "The language corpus needs at least two languages, tab-separated",
        ));
    }
    let mut columns: Vec<(&str, Vec<&str>)> = header.iter().map(|&name| (name, vec![])).collect();
    for (number, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split('\t').collect();
        if cells.len() != header.len() || cells.iter().any(|cell| cell.trim().is_empty()) {
            return Err(Error::internal(format!(
                "Row {} of the language corpus holds {} cells where its header names {} \
                 languages, or a blank one",
                number + 1,
                cells.len(),
                header.len()
            )));
        }
        for ((_, sentences), cell) in columns.iter_mut().zip(cells) {
            sentences.push(cell);
        }
    }
    if columns[0].1.is_empty() {
        return Err(Error::internal("The language corpus has no sentences"));
    }
    Ok(columns)
}

#[cfg(test)]
mod tests;
