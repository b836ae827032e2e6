//! The language directions: derived from the vendored corpus, orthonormal, and taken wholly
//! off a question.

use super::*;
use crate::model::{DIMENSIONS, Encoder};

#[test]
fn the_vendored_directions_are_what_the_corpus_gives() {
    let encoder = Encoder::bundled().expect("the encoder");
    let corpus = include_str!("../../model/languages.tsv");
    let measured = LanguageDirections::of_corpus(corpus, |questions| {
        encoder.embed_questions_with_their_language(questions)
    })
    .expect("the directions");
    let vendored = encoder.language_directions();
    // 11 languages, so 10 directions.
    assert_eq!(vendored.len(), 10);
    assert_eq!(measured.len(), vendored.len());
    for (row, (measured, vendored)) in measured.rows().zip(vendored.rows()).enumerate() {
        for (i, (a, b)) in measured.iter().zip(vendored).enumerate() {
            assert!(
                (a - b).abs() < 1e-5,
                "row {row}, coordinate {i}: {a} against {b}"
            );
        }
    }
}

#[test]
fn the_directions_are_orthonormal() {
    let encoder = Encoder::bundled().expect("the encoder");
    let directions = encoder.language_directions();
    assert!(directions.rows().all(|row| row.len() == DIMENSIONS));
    for (i, a) in directions.rows().enumerate() {
        for (j, b) in directions.rows().enumerate() {
            let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            let wanted = if i == j { 1.0 } else { 0.0 };
            assert!((dot - wanted).abs() < 1e-5, "rows {i} and {j}: {dot}");
        }
    }
}

#[test]
fn a_question_keeps_nothing_along_the_directions_and_stays_unit_length() {
    let encoder = Encoder::bundled().expect("the encoder");
    let directions = encoder.language_directions();
    let question = "¿qué decidimos sobre la expiración de la caché?";
    let before = encoder
        .embed_questions_with_their_language(&[question])
        .expect("a vector")
        .remove(0);
    // The Spanish question has a part along the directions to lose.
    let along = |vector: &[f32]| -> f32 {
        directions
            .rows()
            .map(|row| {
                row.iter()
                    .zip(vector)
                    .map(|(a, b)| a * b)
                    .sum::<f32>()
                    .powi(2)
            })
            .sum::<f32>()
            .sqrt()
    };
    assert!(along(&before) > 0.05, "{}", along(&before));
    let after = encoder.embed_question(question).expect("a vector");
    assert!(along(&after) < 1e-5, "{}", along(&after));
    let length = after.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((length - 1.0).abs() < 1e-5, "{length}");
    // What is left is the model's vector less its part along them, scaled.
    let mut taken = before.clone();
    directions.take_from(&mut taken);
    assert_eq!(taken, after);
}

#[test]
fn damaged_directions_are_refused_in_words() {
    let refusal =
        LanguageDirections::from_bytes(&[0; 1537], DIMENSIONS).expect_err("a partial row");
    assert_eq!(
        refusal.message(),
        "The language directions are damaged: 1537 bytes is not a whole number of 1536-byte rows"
    );
    let mut bytes = vec![0u8; 1536];
    bytes[4..8].copy_from_slice(&f32::NAN.to_le_bytes());
    let refusal = LanguageDirections::from_bytes(&bytes, DIMENSIONS).expect_err("not a number");
    assert_eq!(
        refusal.message(),
        "The language directions are damaged: a coordinate is not a number"
    );
}

#[test]
fn a_corpus_whose_rows_miss_a_language_is_refused() {
    let mut embedded = 0;
    let refusal = LanguageDirections::of_corpus("en\tes\nhello\thola\nbye\n", |questions| {
        embedded += questions.len();
        Ok(vec![vec![1.0; DIMENSIONS]; questions.len()])
    })
    .expect_err("a short row");
    // Refused before anything is embedded.
    assert_eq!(embedded, 0);
    assert_eq!(
        refusal.message(),
        "Row 2 of the language corpus holds 1 cells where its header names 2 languages, or a blank \
         one"
    );
}

#[test]
fn a_language_whose_mean_adds_no_direction_is_refused() {
    // Every sentence embeds alike, so Spanish's mean is English's.
    let refusal = LanguageDirections::of_corpus("en\tes\nhello\thola\n", |questions| {
        Ok(vec![vec![0.5; DIMENSIONS]; questions.len()])
    })
    .expect_err("no direction");
    assert_eq!(
        refusal.message(),
        "The corpus's es column adds no direction of its own: its mean lies in the span of the \
         columns before it"
    );
}
