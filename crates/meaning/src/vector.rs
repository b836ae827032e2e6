//! A unit vector in its stored form: 384 signed bytes, each coordinate scaled so the largest
//! in magnitude is ±127 (384 bytes a message; no scale is stored: the cosine does not depend
//! on it). At load each vector's length is computed from its bytes, and its sign bits (48
//! bytes) are derived for the first, coarse pass of the scan; neither is stored.

use discord_manager_vocabulary::error::{Error, Result};

use crate::model::DIMENSIONS;

/// How many 64-bit words hold a vector's sign bits.
pub const CODE_WORDS: usize = DIMENSIONS / 64;

/// The stored form of a vector of [`DIMENSIONS`] coordinates.
pub fn quantise(vector: &[f32]) -> Result<Vec<u8>> {
    if vector.len() != DIMENSIONS {
        return Err(Error::internal(format!(
            "A vector of {} coordinates where {DIMENSIONS} are wanted",
            vector.len()
        )));
    }
    let largest = vector.iter().fold(0f32, |largest, x| largest.max(x.abs()));
    if !largest.is_finite() || largest == 0.0 {
        return Err(Error::internal(
            "A vector of zeros or non-finite coordinates",
        ));
    }
    Ok(vector
        .iter()
        .map(|x| ((x / largest * 127.0).round() as i8) as u8)
        .collect())
}

/// A stored vector's coordinates, or None when the bytes are not one.
pub fn coordinates(bytes: &[u8]) -> Option<Vec<i8>> {
    (bytes.len() == DIMENSIONS).then(|| bytes.iter().map(|byte| *byte as i8).collect())
}

/// The sign bits of a vector: bit `i` set when coordinate `i` is positive.
pub fn sign_code(coordinates: &[i8]) -> [u64; CODE_WORDS] {
    let mut code = [0u64; CODE_WORDS];
    for (i, x) in coordinates.iter().enumerate() {
        if *x > 0 {
            code[i / 64] |= 1 << (i % 64);
        }
    }
    code
}

/// The sign bits of a query's coordinates.
pub fn query_code(query: &[f32]) -> [u64; CODE_WORDS] {
    let mut code = [0u64; CODE_WORDS];
    for (i, x) in query.iter().enumerate().take(DIMENSIONS) {
        if *x > 0.0 {
            code[i / 64] |= 1 << (i % 64);
        }
    }
    code
}

/// How many sign bits two codes disagree on: fewer is closer.
pub fn hamming(a: &[u64; CODE_WORDS], b: &[u64; CODE_WORDS]) -> u32 {
    a.iter().zip(b).map(|(a, b)| (a ^ b).count_ones()).sum()
}

/// 1 / the length of a stored vector (its bytes read as coordinates).
pub fn inverse_length(coordinates: &[i8]) -> f32 {
    let squares: i32 = coordinates
        .iter()
        .map(|x| i32::from(*x) * i32::from(*x))
        .sum();
    if squares == 0 {
        0.0
    } else {
        1.0 / (squares as f32).sqrt()
    }
}

/// The dot product of a query (unit length) with stored coordinates.
pub fn dot(query: &[f32], coordinates: &[i8]) -> f32 {
    query
        .iter()
        .zip(coordinates)
        .map(|(q, x)| q * f32::from(*x))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u32) -> Vec<f32> {
        let raw: Vec<f32> = (0..DIMENSIONS as u32)
            .map(|i| (((i * 7919 + seed * 104_729) % 1000) as f32 / 500.0) - 1.0)
            .collect();
        let length = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
        raw.into_iter().map(|x| x / length).collect()
    }

    #[test]
    fn a_stored_vector_is_384_bytes_whose_cosine_is_within_a_hundredth_of_the_exact_one() {
        let (a, b) = (unit(1), unit(2));
        let stored = quantise(&b).expect("a vector");
        assert_eq!(stored.len(), 384);
        let coordinates = coordinates(&stored).expect("384 bytes");
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let compact = dot(&a, &coordinates) * inverse_length(&coordinates);
        assert!((exact - compact).abs() < 0.01, "{exact} vs {compact}");
        assert!(coordinates.iter().any(|x| x.abs() == 127));
    }

    #[test]
    fn a_vector_of_another_size_or_of_zeros_is_refused() {
        assert!(quantise(&[0.5; 383]).is_err());
        assert!(quantise(&[0.0; DIMENSIONS]).is_err());
        assert!(coordinates(&[0u8; 383]).is_none());
    }

    #[test]
    fn sign_codes_agree_with_themselves_and_disagree_with_their_opposite() {
        // No coordinate near zero, so none rounds to a zero byte.
        let raw: Vec<f32> = (0..DIMENSIONS)
            .map(|i| {
                if i % 3 == 0 {
                    -1.0
                } else {
                    0.5 + (i % 5) as f32 / 10.0
                }
            })
            .collect();
        let length = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
        let a: Vec<f32> = raw.iter().map(|x| x / length).collect();
        let code = sign_code(&coordinates(&quantise(&a).expect("a vector")).expect("384 bytes"));
        assert_eq!(code, query_code(&a));
        assert_eq!(hamming(&code, &query_code(&a)), 0);
        let opposite: Vec<f32> = a.iter().map(|x| -x).collect();
        assert_eq!(hamming(&code, &query_code(&opposite)), 384);
    }
}
