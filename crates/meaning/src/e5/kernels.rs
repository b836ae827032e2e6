//! The arithmetic of the forward pass: 4-bit weight matrices times activations quantised to
//! 8 bits per group of 32, with integer dot products (AVX2 when the processor has it, found
//! at run time, and a portable loop otherwise: both give the same integers), layer norm and
//! GELU.
//!
//! A weight is `(n − 8) × dw` with `n` a nibble in 0..=15 and `dw` its group's scale; an
//! activation is `q × da` with `q` in −127..=127. A group's contribution to an output is
//! `dw × da × (Σ n·q − 8 Σ q)`: the nibbles multiply the bytes as unsigned times signed
//! integers and the offset is folded in once per group through the activations' sum.

/// Weights per quantisation group.
pub(crate) const GROUP: usize = 32;

/// An f16 (IEEE half) as an f32.
pub(crate) fn f16_to_f32(half: u16) -> f32 {
    let sign = u32::from(half & 0x8000) << 16;
    let exponent = u32::from((half >> 10) & 0x1f);
    let mantissa = u32::from(half & 0x3ff);
    let bits = match (exponent, mantissa) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: normalise the mantissa.
            let shift = mantissa.leading_zeros() - 21;
            let mantissa = (mantissa << shift) & 0x3ff;
            sign | ((127 - 15 + 1 - shift) << 23) | (mantissa << 13)
        }
        (31, _) => sign | 0x7f80_0000 | (mantissa << 13),
        _ => sign | ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

/// A matrix of `rows` × `columns` 4-bit weights and a bias per row.
pub(crate) struct Matrix {
    pub rows: usize,
    pub columns: usize,
    /// A scale per group, row by row.
    scales: Vec<f32>,
    /// 16 bytes per group, row by row: byte `j`'s low nibble is weight `j`, its high one
    /// weight `j + 16`.
    nibbles: Vec<u8>,
    pub bias: Vec<f32>,
}

impl Matrix {
    /// A matrix from the file's groups (an f16 scale and 16 bytes each).
    pub(crate) fn from_groups(
        groups: &[u8],
        rows: usize,
        columns: usize,
        bias: Vec<f32>,
    ) -> Matrix {
        let mut scales = Vec::with_capacity(groups.len() / 18);
        let mut nibbles = Vec::with_capacity(groups.len() / 18 * 16);
        for group in groups.chunks_exact(18) {
            scales.push(f16_to_f32(u16::from_le_bytes([group[0], group[1]])));
            nibbles.extend_from_slice(&group[2..]);
        }
        Matrix {
            rows,
            columns,
            scales,
            nibbles,
            bias,
        }
    }
}

/// Activations quantised to 8 bits: per token, per group, the bytes, the scale and the sum.
#[derive(Default)]
pub(crate) struct Quantised {
    pub columns: usize,
    pub values: Vec<i8>,
    pub scales: Vec<f32>,
    pub sums: Vec<i32>,
}

impl Quantised {
    /// Quantises `tokens` rows of `columns` values, reusing this buffer's memory.
    pub(crate) fn quantise(&mut self, x: &[f32], columns: usize) {
        let groups = x.len() / GROUP;
        self.columns = columns;
        self.values.resize(x.len(), 0);
        self.scales.resize(groups, 0.0);
        self.sums.resize(groups, 0);
        for (((group, values), scale), sum) in x
            .chunks_exact(GROUP)
            .zip(self.values.chunks_exact_mut(GROUP))
            .zip(self.scales.iter_mut())
            .zip(self.sums.iter_mut())
        {
            let largest = group
                .iter()
                .fold(0.0f32, |most, value| most.max(value.abs()));
            *scale = largest / 127.0;
            let inverse = if largest > 0.0 { 127.0 / largest } else { 0.0 };
            let mut total = 0;
            for (value, out) in group.iter().zip(values.iter_mut()) {
                let rounded = (value * inverse).round_ties_even().clamp(-128.0, 127.0) as i32;
                *out = rounded as i8;
                total += rounded;
            }
            *sum = total;
        }
    }

    fn tokens(&self) -> usize {
        self.values.len() / self.columns.max(1)
    }
}

/// Rows of weights expanded together: each token's group of activations is loaded once for
/// all of them.
const ROWS: usize = 8;

/// `out[t][r] = bias[r] + Σ_c x[t][c] · w[r][c]` for every token `t` of `x` and row `r` of
/// `matrix`, `out` being tokens × rows.
pub(crate) fn multiply(matrix: &Matrix, x: &Quantised, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the processor has AVX2 and FMA, checked just above.
            unsafe { avx2::multiply(matrix, x, out) };
            return;
        }
    }
    multiply_portable(matrix, x, out);
}

/// Each row's nibbles as bytes 0..=15 in weight order, `ROWS` rows at a time.
fn expand(matrix: &Matrix, first: usize, count: usize, expanded: &mut [u8]) {
    let groups = matrix.columns / GROUP;
    for r in 0..count {
        let row = first + r;
        let nibbles = &matrix.nibbles[row * groups * 16..(row + 1) * groups * 16];
        let out = &mut expanded[r * matrix.columns..(r + 1) * matrix.columns];
        for (packed, weights) in nibbles.chunks_exact(16).zip(out.chunks_exact_mut(GROUP)) {
            for (j, byte) in packed.iter().enumerate() {
                weights[j] = byte & 0x0f;
                weights[j + 16] = byte >> 4;
            }
        }
    }
}

/// The same products in plain Rust, for processors without AVX2 (and tested against it).
pub(crate) fn multiply_portable(matrix: &Matrix, x: &Quantised, out: &mut [f32]) {
    let columns = matrix.columns;
    let groups = columns / GROUP;
    let mut expanded = vec![0u8; ROWS * columns];
    for first in (0..matrix.rows).step_by(ROWS) {
        let count = ROWS.min(matrix.rows - first);
        expand(matrix, first, count, &mut expanded);
        for t in 0..x.tokens() {
            let values = &x.values[t * columns..(t + 1) * columns];
            let scales = &x.scales[t * groups..(t + 1) * groups];
            let sums = &x.sums[t * groups..(t + 1) * groups];
            for r in 0..count {
                let row = first + r;
                let weights = &expanded[r * columns..(r + 1) * columns];
                let row_scales = &matrix.scales[row * groups..(row + 1) * groups];
                let mut total = 0.0f32;
                for g in 0..groups {
                    let w = &weights[g * GROUP..(g + 1) * GROUP];
                    let a = &values[g * GROUP..(g + 1) * GROUP];
                    let dot: i32 = w
                        .iter()
                        .zip(a)
                        .map(|(w, a)| i32::from(*w) * i32::from(*a))
                        .sum();
                    total += row_scales[g] * scales[g] * (dot - 8 * sums[g]) as f32;
                }
                out[t * matrix.rows + row] = matrix.bias[row] + total;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The products with AVX2: `maddubs` multiplies 32 nibbles by 32 signed bytes into 16
    //! pair sums, `madd` by ones widens them to 8 lanes of i32, and each group's sum is
    //! scaled into 8 lanes of f32 with one fused multiply-add; one horizontal sum per output.

    use super::{GROUP, Matrix, Quantised, ROWS, expand};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn multiply(matrix: &Matrix, x: &Quantised, out: &mut [f32]) {
        let columns = matrix.columns;
        let groups = columns / GROUP;
        let mut expanded = vec![0u8; ROWS * columns];
        let ones = _mm256_set1_epi16(1);
        for first in (0..matrix.rows).step_by(ROWS) {
            let count = ROWS.min(matrix.rows - first);
            expand(matrix, first, count, &mut expanded);
            let row_scales = &matrix.scales[first * groups..(first + count) * groups];
            for t in 0..x.tokens() {
                let values = &x.values[t * columns..(t + 1) * columns];
                let scales = &x.scales[t * groups..(t + 1) * groups];
                let sums = &x.sums[t * groups..(t + 1) * groups];
                let mut lanes = [_mm256_setzero_ps(); ROWS];
                let mut offsets = [0.0f32; ROWS];
                for g in 0..groups {
                    // SAFETY: `values` holds `columns` bytes, g * GROUP + 32 <= columns.
                    let a = unsafe {
                        _mm256_loadu_si256(values.as_ptr().add(g * GROUP) as *const __m256i)
                    };
                    let (da, sa) = (scales[g], sums[g] as f32);
                    for r in 0..count {
                        // SAFETY: row r of `expanded` holds `columns` bytes.
                        let w = unsafe {
                            _mm256_loadu_si256(
                                expanded.as_ptr().add(r * columns + g * GROUP) as *const __m256i
                            )
                        };
                        let pairs = _mm256_maddubs_epi16(w, a);
                        let dot = _mm256_madd_epi16(pairs, ones);
                        let scale = row_scales[r * groups + g] * da;
                        lanes[r] = _mm256_fmadd_ps(
                            _mm256_cvtepi32_ps(dot),
                            _mm256_set1_ps(scale),
                            lanes[r],
                        );
                        offsets[r] += scale * sa;
                    }
                }
                for r in 0..count {
                    out[t * matrix.rows + first + r] =
                        matrix.bias[first + r] + sum(lanes[r]) - 8.0 * offsets[r];
                }
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    fn sum(lanes: __m256) -> f32 {
        let low = _mm256_castps256_ps128(lanes);
        let high = _mm256_extractf128_ps(lanes, 1);
        let four = _mm_add_ps(low, high);
        let two = _mm_add_ps(four, _mm_movehl_ps(four, four));
        let one = _mm_add_ss(two, _mm_shuffle_ps(two, two, 1));
        _mm_cvtss_f32(one)
    }
}

/// `x = norm(x + add)` row by row (`add` absent: `x = norm(x)`).
pub(crate) fn add_and_normalise(
    x: &mut [f32],
    add: Option<&[f32]>,
    weight: &[f32],
    bias: &[f32],
    epsilon: f32,
) {
    let size = weight.len();
    for (t, row) in x.chunks_exact_mut(size).enumerate() {
        if let Some(add) = add {
            for (value, plus) in row.iter_mut().zip(&add[t * size..(t + 1) * size]) {
                *value += plus;
            }
        }
        let mean = row.iter().sum::<f32>() / size as f32;
        let variance = row
            .iter()
            .map(|value| (value - mean) * (value - mean))
            .sum::<f32>()
            / size as f32;
        let inverse = 1.0 / (variance + epsilon).sqrt();
        for ((value, weight), bias) in row.iter_mut().zip(weight).zip(bias) {
            *value = (*value - mean) * inverse * weight + bias;
        }
    }
}

/// GELU, the exact form `x/2 · (1 + erf(x/√2))`.
pub(crate) fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function, to within 1.2e-7 (W. J. Cody's rational approximation of erfc as
/// given in Numerical Recipes, `erfcc`), computed in f64.
pub(crate) fn erf(x: f32) -> f32 {
    let z = f64::from(x).abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let polynomial = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let complement = t * polynomial.exp();
    let value = 1.0 - complement;
    (if x >= 0.0 { value } else { -value }) as f32
}

/// `Σ a·b` over two equal slices, in eight lanes (vectorised by the compiler).
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = a.len() / 8;
    for c in 0..chunks {
        for l in 0..8 {
            lanes[l] += a[c * 8 + l] * b[c * 8 + l];
        }
    }
    let mut total: f32 = lanes.iter().sum();
    for i in chunks * 8..a.len() {
        total += a[i] * b[i];
    }
    total
}
