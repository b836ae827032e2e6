//! The centre of a store's vectors: the mean of its unit vectors, taken away before sign bits
//! are taken, so the bits say where a message lies relative to the others rather than where
//! every message lies.
//!
//! The model's vectors share a large common part: most coordinates have the same sign whatever
//! the text, so uncentred sign bits agree on most bits for any two messages and the scan's
//! first pass ranks little better than chance. Over 10,153 real sentences, the 1,000 nearest
//! by uncentred sign bits kept 1,092 of 188 questions' exact ten (1,880); centred on the mean
//! of the sentences searched, 1,814 (docs/performance.md, "Search by meaning: candidates").
//! A mean taken from other text serves less well (the evaluation set's 133 lines: 1,571), so
//! each store's centre is taken from a sample of its own vectors, by the embedding pass, and
//! kept beside the model's vectors; every block of codes names the centre it was built with
//! ([`Centre::fingerprint`]), so a block of another centre is never mixed into an index.
//!
//! [`Centre::none`] (all zeros) stands for a store too small to have one yet: its sign bits are
//! the vectors' own.

use discord_manager_vocabulary::error::{Error, Result};

use crate::model::DIMENSIONS;
use crate::vector::{CODE_WORDS, coordinates, inverse_length};

/// The mean of a store's unit vectors, and the fingerprint of its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Centre {
    mean: Vec<f32>,
    fingerprint: u64,
}

impl Centre {
    /// No centre: sign bits are taken of the vectors as they are.
    pub fn none() -> Centre {
        Centre::from_mean(vec![0.0; DIMENSIONS])
    }

    /// The mean of the unit vectors `stored` (each in its stored form); None when none of them
    /// is a vector.
    pub fn of<'a>(stored: impl IntoIterator<Item = &'a [u8]>) -> Option<Centre> {
        let mut sum = vec![0f64; DIMENSIONS];
        let mut count = 0u64;
        for bytes in stored {
            let Some(coordinates) = coordinates(bytes) else {
                continue;
            };
            let scale = f64::from(inverse_length(&coordinates));
            if scale == 0.0 {
                continue;
            }
            for (total, x) in sum.iter_mut().zip(&coordinates) {
                *total += f64::from(*x) * scale;
            }
            count += 1;
        }
        (count > 0).then(|| {
            Centre::from_mean(
                sum.into_iter()
                    .map(|total| (total / count as f64) as f32)
                    .collect(),
            )
        })
    }

    fn from_mean(mean: Vec<f32>) -> Centre {
        let fingerprint = fingerprint(&Centre::bytes_of(&mean));
        Centre { mean, fingerprint }
    }

    /// The centre as the store keeps it: each coordinate of the mean as a little-endian f32.
    pub fn to_bytes(&self) -> Vec<u8> {
        Centre::bytes_of(&self.mean)
    }

    fn bytes_of(mean: &[f32]) -> Vec<u8> {
        mean.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A centre from the bytes the store keeps; refused when they are not one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Centre> {
        let damaged = || Error::internal("The centre of the store's vectors is damaged");
        if bytes.len() != DIMENSIONS * 4 {
            return Err(damaged());
        }
        let mean: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|four| f32::from_le_bytes([four[0], four[1], four[2], four[3]]))
            .collect();
        if mean.iter().any(|x| !x.is_finite()) {
            return Err(damaged());
        }
        Ok(Centre::from_mean(mean))
    }

    /// A number that differs between any two centres in practice (FNV-1a over the bytes): what
    /// a block of codes names its centre by.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The sign bits of a stored vector less the centre: bit `i` set when coordinate `i` of the
    /// unit vector lies above the centre's.
    pub fn code(&self, coordinates: &[i8]) -> [u64; CODE_WORDS] {
        let scale = inverse_length(coordinates);
        let mut code = [0u64; CODE_WORDS];
        for (i, (x, mean)) in coordinates.iter().zip(&self.mean).enumerate() {
            if f32::from(*x) * scale > *mean {
                code[i / 64] |= 1 << (i % 64);
            }
        }
        code
    }

    /// A question's unit vector less the centre: what its sign bits are taken of.
    pub fn question(&self, query: &[f32]) -> Vec<f32> {
        query
            .iter()
            .zip(&self.mean)
            .map(|(x, mean)| x - mean)
            .collect()
    }
}

/// FNV-1a, 64 bits: stable across builds and platforms, unlike the standard library's hasher.
fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
