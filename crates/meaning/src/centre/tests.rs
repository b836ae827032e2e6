//! Unit tests of `centre`.

use super::*;
use crate::vector::{hamming, quantise, sign_code};

/// A unit vector of a large part every vector shares (0.5 on every coordinate) and a part of
/// its own: `own` on coordinate `axis`, and `-own` on `axis + 192`.
fn shared_and(axis: usize, own: f32) -> Vec<f32> {
    let mut vector = vec![0.5; DIMENSIONS];
    vector[axis] += own;
    vector[axis + DIMENSIONS / 2] -= own;
    let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    vector.into_iter().map(|x| x / length).collect()
}

fn stored(vector: &[f32]) -> Vec<u8> {
    quantise(vector).expect("a vector")
}

#[test]
fn the_centre_is_the_mean_of_the_unit_vectors_and_passes_over_what_is_not_one() {
    let mut a = vec![0.0; DIMENSIONS];
    a[0] = 1.0;
    let mut b = vec![0.0; DIMENSIONS];
    b[1] = -2.0;
    b[2] = 2.0;
    let (a, b) = (stored(&a), stored(&b));
    let centre = Centre::of([a.as_slice(), &[], b.as_slice(), &[1, 2, 3]]).expect("two vectors");
    let half_root = 0.5 / 2f32.sqrt();
    let expected: Vec<f32> = (0..DIMENSIONS)
        .map(|i| match i {
            0 => 0.5,
            1 => -half_root,
            2 => half_root,
            _ => 0.0,
        })
        .collect();
    for (got, wanted) in centre.mean.iter().zip(&expected) {
        assert!((got - wanted).abs() < 1e-6, "{got} vs {wanted}");
    }
    assert_eq!(Centre::of([&[][..], &[7u8; 3][..]]), None);
    assert_eq!(Centre::of(std::iter::empty()), None);
}

#[test]
fn a_centre_reads_back_from_its_bytes_with_its_fingerprint_and_damaged_bytes_are_refused() {
    let centre = Centre::of([stored(&shared_and(3, 0.4)).as_slice()]).expect("a vector");
    let bytes = centre.to_bytes();
    assert_eq!(bytes.len(), DIMENSIONS * 4);
    let read = Centre::from_bytes(&bytes).expect("its own bytes");
    assert_eq!(read, centre);
    assert_eq!(read.fingerprint(), centre.fingerprint());
    assert_ne!(centre.fingerprint(), Centre::none().fingerprint());

    let message = |bytes: &[u8]| Centre::from_bytes(bytes).unwrap_err().to_string();
    assert_eq!(
        message(&bytes[4..]),
        "The centre of the store's vectors is damaged"
    );
    let mut not_a_number = bytes.clone();
    not_a_number[..4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_eq!(
        message(&not_a_number),
        "The centre of the store's vectors is damaged"
    );
}

#[test]
fn no_centre_gives_each_vectors_own_sign_bits() {
    let vector = stored(&shared_and(5, -0.3));
    let coordinates = coordinates(&vector).expect("384 bytes");
    assert_eq!(Centre::none().code(&coordinates), sign_code(&coordinates));
    let question = shared_and(5, -0.3);
    assert_eq!(Centre::none().question(&question), question);
}

#[test]
fn centred_sign_bits_tell_apart_vectors_whose_own_sign_bits_agree_everywhere() {
    let (a, b) = (stored(&shared_and(10, 0.3)), stored(&shared_and(20, 0.3)));
    let (a, b) = (coordinates(&a).unwrap(), coordinates(&b).unwrap());
    // Uncentred, the shared part decides every sign: the two look the same.
    assert_eq!(hamming(&sign_code(&a), &sign_code(&b)), 0);

    let centre = Centre::of([
        &stored(&shared_and(10, 0.3))[..],
        &stored(&shared_and(20, 0.3)),
    ])
    .expect("two vectors");
    let (a_code, b_code) = (centre.code(&a), centre.code(&b));
    // Centred, each is above the mean on its own coordinates and below it on the other's.
    for axis in [10, 20 + DIMENSIONS / 2] {
        assert_eq!((a_code[axis / 64] >> (axis % 64)) & 1, 1, "a at {axis}");
        assert_eq!((b_code[axis / 64] >> (axis % 64)) & 1, 0, "b at {axis}");
    }
    for axis in [20, 10 + DIMENSIONS / 2] {
        assert_eq!((a_code[axis / 64] >> (axis % 64)) & 1, 0, "a at {axis}");
        assert_eq!((b_code[axis / 64] >> (axis % 64)) & 1, 1, "b at {axis}");
    }
    assert_eq!(hamming(&a_code, &b_code), 4);
    // The question less the centre is what its bits are taken of.
    let question = shared_and(10, 0.3);
    let less = centre.question(&question);
    assert!(
        less[10] > 0.0 && less[20] < 0.0,
        "{} {}",
        less[10],
        less[20]
    );
}
