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
    /// The same scales by blocks of [`ROWS`] rows, group by group (`[block][group][row]`), so
    /// a group's scales of a block's rows are one vector (read by the x86-64 kernels alone).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    block_scales: Vec<f32>,
    /// The weights packed as the file keeps them, row by row: a group's 16 bytes, byte `j`
    /// holding weight `j` in its low nibble and weight `j + 16` in its high one. Kept packed
    /// (12 MB for the twelve layers, against 21 MB a byte each), a product reads half as
    /// much memory, which is what one question's few tokens wait on.
    packed: Vec<u8>,
    pub bias: Vec<f32>,
}

/// Bytes of a packed group's weights.
const PACKED: usize = GROUP / 2;

impl Matrix {
    /// A matrix from the file's groups (an f16 scale and 16 bytes each).
    pub(crate) fn from_groups(
        groups: &[u8],
        rows: usize,
        columns: usize,
        bias: Vec<f32>,
    ) -> Matrix {
        let mut scales = Vec::with_capacity(groups.len() / 18);
        let mut packed = Vec::with_capacity(groups.len() / 18 * PACKED);
        for group in groups.chunks_exact(18) {
            scales.push(f16_to_f32(u16::from_le_bytes([group[0], group[1]])));
            packed.extend_from_slice(&group[2..]);
        }
        let groups_per_row = columns / GROUP;
        let mut block_scales = Vec::with_capacity(rows / ROWS * ROWS * groups_per_row);
        for first in (0..rows - rows % ROWS).step_by(ROWS) {
            for g in 0..groups_per_row {
                for r in 0..ROWS {
                    block_scales.push(scales[(first + r) * groups_per_row + g]);
                }
            }
        }
        Matrix {
            rows,
            columns,
            scales,
            block_scales,
            packed,
            bias,
        }
    }

    /// Weight `column` of `row` as its nibble (0..=15).
    fn nibble(&self, row: usize, column: usize) -> u8 {
        let group = row * (self.columns / GROUP) + column / GROUP;
        let byte = self.packed[group * PACKED + column % PACKED];
        if column % GROUP < PACKED {
            byte & 0x0f
        } else {
            byte >> 4
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
    #[inline(always)]
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
                // Rounded to the nearest, ties to even (as `rintf`), by the 1.5 × 2^23 trick:
                // |value × inverse| <= 127, well inside its range, and no call to libm.
                let rounded = ((value * inverse + ROUNDING) - ROUNDING) as i32;
                *out = rounded as i8;
                total += rounded;
            }
            *sum = total;
        }
    }

    /// Tokens `range` of these activations.
    pub(crate) fn view(&self, range: std::ops::Range<usize>) -> Activations<'_> {
        let groups = self.columns / GROUP;
        Activations {
            columns: self.columns,
            values: &self.values[range.start * self.columns..range.end * self.columns],
            scales: &self.scales[range.start * groups..range.end * groups],
            sums: &self.sums[range.start * groups..range.end * groups],
        }
    }

    /// All the tokens.
    pub(crate) fn all(&self) -> Activations<'_> {
        self.view(0..self.values.len() / self.columns.max(1))
    }
}

/// Some tokens of quantised activations.
#[derive(Clone, Copy)]
pub(crate) struct Activations<'a> {
    columns: usize,
    values: &'a [i8],
    scales: &'a [f32],
    sums: &'a [i32],
}

impl Activations<'_> {
    fn tokens(&self) -> usize {
        self.values.len() / self.columns.max(1)
    }
}

/// 1.5 × 2^23: adding it leaves no fraction bits, so the addition rounds to an integer.
const ROUNDING: f32 = 12_582_912.0;

/// Rows of weights expanded together: each token's group of activations is loaded once for
/// all of them.
const ROWS: usize = 8;

/// `out[t][r] = bias[r] + Σ_c x[t][c] · w[r][c]` for every token `t` of `x` and row `r` of
/// `matrix`, `out` being tokens × rows.
pub(crate) fn multiply(matrix: &Matrix, x: Activations, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            if std::is_x86_feature_detected!("avxvnni") {
                // SAFETY: the processor has AVX2, FMA and AVX-VNNI, checked just above.
                unsafe { avx2::multiply_vnni(matrix, x, out) };
            } else {
                // SAFETY: the processor has AVX2 and FMA, checked just above.
                unsafe { avx2::multiply(matrix, x, out) };
            }
            return;
        }
    }
    multiply_portable(matrix, x, out, 0);
}

/// The same products in plain Rust, for processors without AVX2 (and tested against it), for
/// the rows from `from` on.
pub(crate) fn multiply_portable(matrix: &Matrix, x: Activations, out: &mut [f32], from: usize) {
    let columns = matrix.columns;
    let groups = columns / GROUP;
    for t in 0..x.tokens() {
        let values = &x.values[t * columns..(t + 1) * columns];
        let scales = &x.scales[t * groups..(t + 1) * groups];
        let sums = &x.sums[t * groups..(t + 1) * groups];
        for row in from..matrix.rows {
            let row_scales = &matrix.scales[row * groups..(row + 1) * groups];
            let mut total = 0.0f32;
            for g in 0..groups {
                let a = &values[g * GROUP..(g + 1) * GROUP];
                let dot: i32 = a
                    .iter()
                    .enumerate()
                    .map(|(j, a)| i32::from(matrix.nibble(row, g * GROUP + j)) * i32::from(*a))
                    .sum();
                total += row_scales[g] * scales[g] * (dot - 8 * sums[g]) as f32;
            }
            out[t * matrix.rows + row] = matrix.bias[row] + total;
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    //! The products with AVX2. Two groups of a row are one 32-byte load of packed weights:
    //! its low nibbles are weights 0..16 of both groups and its high nibbles weights 16..32,
    //! so the activations of the two groups are laid the same way (two lane permutes per
    //! token, shared by the block's rows). `maddubs` multiplies 32 nibbles by 32 signed bytes
    //! into 16 pair sums, the low and high nibbles' sums are added (at most 4 × 15 × 127, an
    //! i16 holds it) and `madd` by ones widens them to 8 lanes of i32: four for each group
    //! (with AVX-VNNI, `dpbusd` does the products and the widening). Each lane is scaled by
    //! its group's scales with one fused multiply-add, and one horizontal sum ends each
    //! output. A row's last group, when the count is odd, is done alone.

    use super::{Activations, GROUP, Matrix, PACKED, ROWS};
    use std::arch::x86_64::*;

    /// The loop of both variants; `$pair` makes 8 lanes of i32 (four per group) from the low
    /// and high nibbles and the two activation vectors laid to match, `$single` one group's
    /// 8 lanes from its 32 nibbles and activations. Blocks of [`ROWS`] rows: per token, each
    /// row's lanes gather its groups' scaled sums; the eight rows' lanes are then summed
    /// across in one vector, the rows' outputs side by side, and stored at once. Rows past
    /// the last whole block go the portable way.
    macro_rules! products {
        (
            $matrix:ident, $x:ident, $out:ident,
            pair = |$low:ident, $high:ident, $a_low:ident, $a_high:ident| $pair:expr,
            single = |$w:ident, $a:ident| $single:expr
        ) => {{
            let columns = $matrix.columns;
            let groups = columns / GROUP;
            let pairs = groups / 2;
            let row_bytes = groups * PACKED;
            let nibbles = _mm256_set1_epi8(0x0f);
            let whole = $matrix.rows - $matrix.rows % ROWS;
            for first in (0..whole).step_by(ROWS) {
                let packed = &$matrix.packed[first * row_bytes..(first + ROWS) * row_bytes];
                let block_scales = &$matrix.block_scales[first * groups..(first + ROWS) * groups];
                // SAFETY: the bias holds a value per row, first + 8 <= rows.
                let bias = unsafe { _mm256_loadu_ps($matrix.bias.as_ptr().add(first)) };
                for t in 0..$x.tokens() {
                    let values = &$x.values[t * columns..(t + 1) * columns];
                    let scales = &$x.scales[t * groups..(t + 1) * groups];
                    let sums = &$x.sums[t * groups..(t + 1) * groups];
                    let mut lanes = [_mm256_setzero_ps(); ROWS];
                    let mut offsets = _mm256_setzero_ps();
                    for p in 0..pairs {
                        let g = 2 * p;
                        // SAFETY: `values` holds `columns` bytes, (g + 2) * GROUP <= columns.
                        let (first_group, second_group) = unsafe {
                            let at = values.as_ptr().add(g * GROUP);
                            (
                                _mm256_loadu_si256(at as *const __m256i),
                                _mm256_loadu_si256(at.add(GROUP) as *const __m256i),
                            )
                        };
                        // Activations 0..16 of both groups, then 16..32 of both.
                        let $a_low = _mm256_permute2x128_si256(first_group, second_group, 0x20);
                        let $a_high = _mm256_permute2x128_si256(first_group, second_group, 0x31);
                        // SAFETY: `block_scales` holds 8 scales per group.
                        let (first_scales, second_scales) = unsafe {
                            (
                                _mm256_loadu_ps(block_scales.as_ptr().add(g * ROWS)),
                                _mm256_loadu_ps(block_scales.as_ptr().add((g + 1) * ROWS)),
                            )
                        };
                        let first_scaled = _mm256_mul_ps(first_scales, _mm256_set1_ps(scales[g]));
                        let second_scaled =
                            _mm256_mul_ps(second_scales, _mm256_set1_ps(scales[g + 1]));
                        offsets =
                            _mm256_fmadd_ps(first_scaled, _mm256_set1_ps(sums[g] as f32), offsets);
                        offsets = _mm256_fmadd_ps(
                            second_scaled,
                            _mm256_set1_ps(sums[g + 1] as f32),
                            offsets,
                        );
                        // Rows 0..4's scales of both groups, then rows 4..8's: row r's pair
                        // of scales, each over its group's four lanes, is one in-lane shuffle.
                        let rows_0_to_4 = _mm256_permute2f128_ps(first_scaled, second_scaled, 0x20);
                        let rows_4_to_8 = _mm256_permute2f128_ps(first_scaled, second_scaled, 0x31);
                        for (r, lane) in lanes.iter_mut().enumerate() {
                            // SAFETY: row r of `packed` holds `row_bytes` bytes, g * 16 + 32 of
                            // them are read.
                            let weights = unsafe {
                                _mm256_loadu_si256(packed.as_ptr().add(r * row_bytes + g * PACKED)
                                    as *const __m256i)
                            };
                            let $low = _mm256_and_si256(weights, nibbles);
                            let $high = _mm256_and_si256(_mm256_srli_epi16(weights, 4), nibbles);
                            let dot = $pair;
                            let scale = match r {
                                0 => _mm256_permute_ps(rows_0_to_4, 0x00),
                                1 => _mm256_permute_ps(rows_0_to_4, 0x55),
                                2 => _mm256_permute_ps(rows_0_to_4, 0xaa),
                                3 => _mm256_permute_ps(rows_0_to_4, 0xff),
                                4 => _mm256_permute_ps(rows_4_to_8, 0x00),
                                5 => _mm256_permute_ps(rows_4_to_8, 0x55),
                                6 => _mm256_permute_ps(rows_4_to_8, 0xaa),
                                _ => _mm256_permute_ps(rows_4_to_8, 0xff),
                            };
                            *lane = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), scale, *lane);
                        }
                    }
                    if groups % 2 == 1 {
                        let g = groups - 1;
                        // SAFETY: `values` holds `columns` bytes, (g + 1) * GROUP <= columns.
                        let $a = unsafe {
                            _mm256_loadu_si256(values.as_ptr().add(g * GROUP) as *const __m256i)
                        };
                        // SAFETY: `block_scales` holds 8 scales per group.
                        let row_scales =
                            unsafe { _mm256_loadu_ps(block_scales.as_ptr().add(g * ROWS)) };
                        let scaled = _mm256_mul_ps(row_scales, _mm256_set1_ps(scales[g]));
                        offsets = _mm256_fmadd_ps(scaled, _mm256_set1_ps(sums[g] as f32), offsets);
                        for (r, lane) in lanes.iter_mut().enumerate() {
                            // SAFETY: row r of `packed` holds `row_bytes` bytes, the last 16 are
                            // read.
                            let weights = unsafe {
                                _mm_loadu_si128(packed.as_ptr().add(r * row_bytes + g * PACKED)
                                    as *const __m128i)
                            };
                            let low = _mm_and_si128(weights, _mm256_castsi256_si128(nibbles));
                            let high = _mm_and_si128(
                                _mm_srli_epi16(weights, 4),
                                _mm256_castsi256_si128(nibbles),
                            );
                            let $w = _mm256_set_m128i(high, low);
                            let dot = $single;
                            let scale =
                                _mm256_permutevar8x32_ps(scaled, _mm256_set1_epi32(r as i32));
                            *lane = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), scale, *lane);
                        }
                    }
                    let rows = across(&lanes);
                    let result = _mm256_sub_ps(
                        _mm256_add_ps(rows, bias),
                        _mm256_mul_ps(offsets, _mm256_set1_ps(8.0)),
                    );
                    let at = t * $matrix.rows + first;
                    $out[at..at + ROWS].copy_from_slice(&to_array(result));
                }
            }
            if whole < $matrix.rows {
                super::multiply_portable($matrix, $x, $out, whole);
            }
        }};
    }

    #[target_feature(enable = "avx2,fma")]
    pub(crate) unsafe fn multiply(matrix: &Matrix, x: Activations, out: &mut [f32]) {
        let ones = _mm256_set1_epi16(1);
        products!(
            matrix,
            x,
            out,
            pair = |low, high, a_low, a_high| {
                let sums = _mm256_add_epi16(
                    _mm256_maddubs_epi16(low, a_low),
                    _mm256_maddubs_epi16(high, a_high),
                );
                _mm256_madd_epi16(sums, ones)
            },
            single = |w, a| _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), ones)
        )
    }

    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(crate) unsafe fn multiply_vnni(matrix: &Matrix, x: Activations, out: &mut [f32]) {
        products!(
            matrix,
            x,
            out,
            pair = |low, high, a_low, a_high| {
                let first = _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), low, a_low);
                _mm256_dpbusd_avx_epi32(first, high, a_high)
            },
            single = |w, a| _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), w, a)
        )
    }

    /// Eight vectors' sums, as one vector: lane `r` is the sum of `lanes[r]`.
    #[target_feature(enable = "avx2,fma")]
    fn across(lanes: &[__m256; ROWS]) -> __m256 {
        // Pairwise: after two rounds of hadd each 128-bit half holds four rows' partial sums.
        let a = _mm256_hadd_ps(lanes[0], lanes[1]);
        let b = _mm256_hadd_ps(lanes[2], lanes[3]);
        let c = _mm256_hadd_ps(lanes[4], lanes[5]);
        let d = _mm256_hadd_ps(lanes[6], lanes[7]);
        let ab = _mm256_hadd_ps(a, b); // low: rows 0-3 (low halves); high: rows 0-3 (high)
        let cd = _mm256_hadd_ps(c, d); // the same for rows 4-7
        let low = _mm256_permute2f128_ps(ab, cd, 0x20);
        let high = _mm256_permute2f128_ps(ab, cd, 0x31);
        _mm256_add_ps(low, high)
    }

    #[target_feature(enable = "avx2,fma")]
    fn to_array(vector: __m256) -> [f32; 8] {
        let mut out = [0.0f32; 8];
        // SAFETY: `out` holds 8 floats.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), vector) };
        out
    }
}

/// `x = norm(x + add)` row by row (`add` absent: `x = norm(x)`).
#[inline(always)]
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

/// GELU, the exact form `x/2 · (1 + erf(x/√2))`, of every value: a loop of arithmetic alone
/// (no call into libm), which the compiler runs several values at a time. A question's pass
/// takes it of some 130,000 values a thread, and libm's `expf` one at a time was a tenth of
/// the pass.
#[inline(always)]
pub(crate) fn gelu_all(values: &mut [f32]) {
    for value in values {
        *value = gelu(*value);
    }
}

/// GELU of one value (see [`gelu_all`]).
#[inline(always)]
pub(crate) fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function, to within 1.5e-7 (Abramowitz and Stegun, 7.1.26), in f32.
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let polynomial = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let value = 1.0 - polynomial * exp(-z * z);
    // The sign copied over without a branch.
    f32::from_bits(value.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// `e^x` to within 2 units in the last place, in arithmetic alone: `x = n · ln 2 + f` with
/// `n` an integer and `f` in [−½ ln 2, ½ ln 2] (ln 2 taken in two parts, as Cody and Waite do,
/// so `f` keeps its bits whatever `n`); `e^f` is its Taylor series to the 7th power (the first
/// omitted term is below 2^−28 there) and `2^n` is put straight into the exponent bits. Below
/// −87 it is about 2^−126: the softmax and GELU read such a value as the nothing it is.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    const LN_2_HIGH: f32 = 0.693_359_4;
    const LN_2_LOW: f32 = -2.121_944_4e-4;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + ROUNDING) - ROUNDING;
    let f = (x - n * LN_2_HIGH) - n * LN_2_LOW;
    let mut polynomial = 1.0 / 5040.0;
    for coefficient in [
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        polynomial = polynomial * f + coefficient;
    }
    polynomial * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// `Σ a·b` over two equal slices, in eight lanes (vectorised by the compiler: the chunks are
/// arrays, so no index is checked).
#[inline(always)]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (a_chunks, a_rest) = a.as_chunks::<8>();
    let (b_chunks, b_rest) = b.as_chunks::<8>();
    let mut lanes = [0.0f32; 8];
    for (a, b) in a_chunks.iter().zip(b_chunks) {
        for l in 0..8 {
            lanes[l] += a[l] * b[l];
        }
    }
    let mut total: f32 = lanes.iter().sum();
    for (a, b) in a_rest.iter().zip(b_rest) {
        total += a * b;
    }
    total
}
