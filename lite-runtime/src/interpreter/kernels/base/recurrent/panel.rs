//! The float matrix product of the recurrent kernels over weights packed once, transposed:
//! a panel holds column `k` of the matrix as `rows` consecutive values (zeros up to a whole
//! number of 8-value blocks), so each step's product runs across eight rows a register
//! (`out[r..r + 8] += panel[k][r..r + 8] * v[k]`), with no horizontal sums. The row-major
//! [`matmul_acc`](super::matmul_acc) sums eight lanes per row and adds them pairwise: a
//! recurrent step's rows are short (an LSTM's 20-128 units), so those sums and their tails
//! cost more than the products.
//!
//! Each result is the dot product summed from zero in column order (the reference kernels'
//! order), then added to the result, as `matmul_acc` adds it.
//!
//! The integer LSTM's int8 weights pack the same way, two columns at a time: a pair panel
//! holds, for each pair of columns, each row's two values side by side, so that eight rows'
//! products of two columns are one 16-bit multiply-add into eight 32-bit sums (SSE2's and
//! AVX2's `pmaddwd`, NEON's `smlal`). Integer sums in any order are the same integers.

use super::super::check::SHORT;
use super::{first, first_mut, no_products};
use crate::interpreter::KernelError;

#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
mod avx2;

/// Rows of 8-value blocks a panel holds per column for `rows` rows; `None` past `usize`.
#[must_use]
pub(crate) fn panel_rows(rows: usize) -> Option<usize> {
    Some(rows.checked_add(7)? / 8 * 8)
}

/// Values of the panel of a `rows x cols` matrix; `None` past `usize`.
#[must_use]
pub(crate) fn panel_len(rows: usize, cols: usize) -> Option<usize> {
    panel_rows(rows)?.checked_mul(cols)
}

/// Writes `matrix` (`rows x cols`, row-major) into `panel` transposed ([`panel_len`]
/// values: each column's `rows` values, then zeros to the block).
///
/// # Errors
/// [`SHORT`] if a slice is shorter than its sizes.
pub(crate) fn pack(
    matrix: &[f32],
    rows: usize,
    cols: usize,
    panel: &mut [f32],
) -> Result<(), KernelError> {
    let pr = panel_rows(rows).ok_or(SHORT)?;
    let matrix = first(matrix, rows.checked_mul(cols).ok_or(SHORT)?)?;
    let panel = first_mut(panel, pr.checked_mul(cols).ok_or(SHORT)?)?;
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    for (k, column) in panel.chunks_exact_mut(pr).enumerate() {
        let (values, pad) = column.split_at_mut(rows);
        for (v, row) in values.iter_mut().zip(matrix.chunks_exact(cols)) {
            *v = row[k];
        }
        pad.fill(0.0);
    }
    Ok(())
}

/// [`matmul_acc`](super::matmul_acc) over `panel` ([`pack`] of the `rows x cols` matrix):
/// `result[b * rows + r] += dot`, each dot product summed from zero in column order.
///
/// # Errors
/// [`SHORT`] if a slice is shorter than its sizes.
pub(crate) fn panel_matmul_acc(
    panel: &[f32],
    rows: usize,
    cols: usize,
    vectors: &[f32],
    batches: usize,
    result: &mut [f32],
) -> Result<(), KernelError> {
    let pr = panel_rows(rows).ok_or(SHORT)?;
    let panel = first(panel, pr.checked_mul(cols).ok_or(SHORT)?)?;
    let vectors = first(vectors, batches.checked_mul(cols).ok_or(SHORT)?)?;
    let result = first_mut(result, batches.checked_mul(rows).ok_or(SHORT)?)?;
    if no_products(rows, cols, batches, result) {
        return Ok(());
    }
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        unsafe { products_avx2(panel, pr, vectors, result) };
        return Ok(());
    }
    products(panel, pr, vectors, result);
    Ok(())
}

/// [`products`] compiled for AVX2: the same operations, eight lanes to a register.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn products_avx2(panel: &[f32], pr: usize, vectors: &[f32], result: &mut [f32]) {
    products(panel, pr, vectors, result);
}

/// Every vector's products (`panel` holds whole columns of `pr` values, one per vector
/// value; `result` whole rows), 32 rows at a time, then the last 8-24.
#[inline(always)]
fn products(panel: &[f32], pr: usize, vectors: &[f32], result: &mut [f32]) {
    let cols = panel.len() / pr;
    let rows = result.len() / (vectors.len() / cols);
    for (v, out) in vectors
        .chunks_exact(cols)
        .zip(result.chunks_exact_mut(rows))
    {
        let mut r0 = 0;
        while r0 + 32 <= pr {
            block::<4>(panel, pr, r0, v, out);
            r0 += 32;
        }
        match (pr - r0) / 8 {
            1 => block::<1>(panel, pr, r0, v, out),
            2 => block::<2>(panel, pr, r0, v, out),
            3 => block::<3>(panel, pr, r0, v, out),
            _ => {}
        }
    }
}

/// Rows `r0..r0 + 8 B` of one vector's product, kept in `B` registers over the columns.
#[inline(always)]
fn block<const B: usize>(panel: &[f32], pr: usize, r0: usize, v: &[f32], out: &mut [f32]) {
    let mut acc = [[0.0f32; 8]; B];
    for (column, &x) in panel.chunks_exact(pr).zip(v) {
        let Some(values) = column.get(r0..r0 + 8 * B) else {
            return;
        };
        for (a, w) in acc.iter_mut().zip(values.chunks_exact(8)) {
            for (a, &w) in a.iter_mut().zip(w) {
                *a += w * x;
            }
        }
    }
    let rows = out.get_mut(r0..).unwrap_or_default();
    for (o, a) in rows.iter_mut().zip(acc.iter().flatten()) {
        *o += a;
    }
}

/// Bytes of the pair panel of a `rows x cols` int8 matrix; `None` past `usize`.
#[must_use]
pub(crate) fn pairs_len(rows: usize, cols: usize) -> Option<usize> {
    panel_rows(rows)?
        .checked_mul(cols.div_ceil(2))?
        .checked_mul(2)
}

/// Writes `matrix` (`rows x cols` int8, row-major) into `panel` ([`pairs_len`] bytes): for
/// each pair of columns `2p, 2p + 1`, each row's two values, rows then zeros to the block
/// (a missing last column is zeros too).
///
/// # Errors
/// [`SHORT`] if a slice is shorter than its sizes.
pub(crate) fn pack_pairs(
    matrix: &[i8],
    rows: usize,
    cols: usize,
    panel: &mut [i8],
) -> Result<(), KernelError> {
    let pr = panel_rows(rows).ok_or(SHORT)?;
    let matrix = first(matrix, rows.checked_mul(cols).ok_or(SHORT)?)?;
    let panel = first_mut(panel, pairs_len(rows, cols).ok_or(SHORT)?)?;
    panel.fill(0);
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    for (p, pair) in panel.chunks_exact_mut(2 * pr).enumerate() {
        for (two, row) in pair.chunks_exact_mut(2).zip(matrix.chunks_exact(cols)) {
            two[0] = row[2 * p];
            two[1] = row.get(2 * p + 1).copied().unwrap_or(0);
        }
    }
    Ok(())
}

/// `sums[i] = sum_k (x[k] + offset) w[r0 + i][k]` for the `sums.len()` rows from `r0` (a
/// multiple of 8) of the matrix packed in `panel` ([`pack_pairs`] of `rows x x.len()`), in
/// wrapping 32-bit arithmetic; `x + offset` must fit 16 bits (an int8 value less an int8
/// zero point does).
///
/// # Errors
/// [`SHORT`] if the panel is shorter than its sizes, the rows run past `rows` or `r0` is not
/// a multiple of 8.
pub(crate) fn pair_dots(
    x: &[i8],
    offset: i16,
    panel: &[i8],
    rows: usize,
    r0: usize,
    sums: &mut [i32],
) -> Result<(), KernelError> {
    let pr = panel_rows(rows).ok_or(SHORT)?;
    let panel = first(panel, pairs_len(rows, x.len()).ok_or(SHORT)?)?;
    if r0 % 8 != 0 || r0.checked_add(sums.len()).is_none_or(|end| end > rows) {
        return Err(SHORT);
    }
    if x.is_empty() || sums.is_empty() {
        sums.fill(0);
        return Ok(());
    }
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the copy is compiled for.
        unsafe { pair_products_avx2(x, offset, panel, pr, r0, sums) };
        return Ok(());
    }
    pair_products(x, offset, panel, pr, r0, sums);
    Ok(())
}

/// [`pair_products`] in AVX2 ([`avx2::pair_block`]).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn pair_products_avx2(
    x: &[i8],
    offset: i16,
    panel: &[i8],
    pr: usize,
    r0: usize,
    sums: &mut [i32],
) {
    type Block = unsafe fn(&[i8], i16, &[i8], usize, usize, &mut [i32]);
    let mut at = 0;
    while at + 64 <= sums.len() {
        // SAFETY: the CPU has AVX2, as this function's caller promised.
        unsafe { avx2::pair_block::<8>(x, offset, panel, pr, r0 + at, &mut sums[at..at + 64]) };
        at += 64;
    }
    let rest = &mut sums[at..];
    let block: Block = match rest.len().div_ceil(8) {
        1 => avx2::pair_block::<1>,
        2 => avx2::pair_block::<2>,
        3 => avx2::pair_block::<3>,
        4 => avx2::pair_block::<4>,
        5 => avx2::pair_block::<5>,
        6 => avx2::pair_block::<6>,
        7 => avx2::pair_block::<7>,
        8 => avx2::pair_block::<8>,
        _ => return,
    };
    // SAFETY: the CPU has AVX2, as this function's caller promised.
    unsafe { block(x, offset, panel, pr, r0 + at, rest) };
}

/// [`pair_dots`]' body (checked sizes): 64 rows at a time, then the last 1-63.
#[inline(always)]
fn pair_products(x: &[i8], offset: i16, panel: &[i8], pr: usize, r0: usize, sums: &mut [i32]) {
    let mut at = 0;
    while at + 64 <= sums.len() {
        pair_block::<8>(x, offset, panel, pr, r0 + at, &mut sums[at..at + 64]);
        at += 64;
    }
    let rest = &mut sums[at..];
    match rest.len().div_ceil(8) {
        1 => pair_block::<1>(x, offset, panel, pr, r0 + at, rest),
        2 => pair_block::<2>(x, offset, panel, pr, r0 + at, rest),
        3 => pair_block::<3>(x, offset, panel, pr, r0 + at, rest),
        4 => pair_block::<4>(x, offset, panel, pr, r0 + at, rest),
        5 => pair_block::<5>(x, offset, panel, pr, r0 + at, rest),
        6 => pair_block::<6>(x, offset, panel, pr, r0 + at, rest),
        7 => pair_block::<7>(x, offset, panel, pr, r0 + at, rest),
        8 => pair_block::<8>(x, offset, panel, pr, r0 + at, rest),
        _ => {}
    }
}

/// Rows `r0..r0 + 8 B` (the panel's padding included; `sums` takes the first of them) of
/// one vector's product, in `B` registers of eight sums over the column pairs.
#[inline(always)]
fn pair_block<const B: usize>(
    x: &[i8],
    offset: i16,
    panel: &[i8],
    pr: usize,
    r0: usize,
    sums: &mut [i32],
) {
    let mut acc = [[0i32; 8]; B];
    let x16 = |k: usize| x.get(k).map_or(0, |&v| i16::from(v).wrapping_add(offset));
    for (p, pair) in panel.chunks_exact(2 * pr).enumerate() {
        let (a, b) = (i32::from(x16(2 * p)), i32::from(x16(2 * p + 1)));
        let Some(values) = pair.get(2 * r0..2 * r0 + 16 * B) else {
            return;
        };
        for (acc, w) in acc.iter_mut().zip(values.chunks_exact(16)) {
            for (s, two) in acc.iter_mut().zip(w.chunks_exact(2)) {
                let p = i32::from(two[0]) * a + i32::from(two[1]) * b;
                *s = s.wrapping_add(p);
            }
        }
    }
    for (s, a) in sums.iter_mut().zip(acc.iter().flatten()) {
        *s = *a;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    use crate::interpreter::kernels::proptest_config::cases;

    /// xorshift32 from `seed`: the tests' values.
    fn noise(seed: u32) -> impl FnMut() -> u32 {
        let mut x = seed | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        }
    }

    proptest! {
        #![proptest_config(cases(256, 4))]

        /// The panel's product is the reference's: each dot product summed from zero in
        /// column order, then added.
        #[test]
        fn panel_product_is_the_column_order_product(
            rows in 0usize..70,
            cols in 0usize..40,
            batches in 0usize..4,
            seed in any::<u32>(),
        ) {
            let mut bits = noise(seed);
            let mut next = move || (bits() >> 8) as f32 / (1 << 24) as f32 - 0.5;
            let matrix: Vec<f32> = (0..rows * cols).map(|_| next()).collect();
            let vectors: Vec<f32> = (0..batches * cols).map(|_| next()).collect();
            let start: Vec<f32> = (0..batches * rows).map(|_| next()).collect();
            let mut panel = vec![f32::NAN; panel_len(rows, cols).unwrap()];
            pack(&matrix, rows, cols, &mut panel).unwrap();
            let mut got = start.clone();
            panel_matmul_acc(&panel, rows, cols, &vectors, batches, &mut got).unwrap();
            let mut expected = start;
            for b in 0..batches {
                for r in 0..rows {
                    let mut dot = 0.0f32;
                    for k in 0..cols {
                        dot += matrix[r * cols + k] * vectors[b * cols + k];
                    }
                    expected[b * rows + r] += dot;
                }
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&got), bits(&expected));
        }
    }

    proptest! {
        #![proptest_config(cases(256, 4))]

        /// The pair panel's sums are the row-major integer dot products.
        #[test]
        fn pair_dots_are_the_row_dots(
            rows in 1usize..140,
            cols in 0usize..45,
            offset in -128i16..=128,
            seed in any::<u32>(),
            from in any::<prop::sample::Index>(),
            len in any::<prop::sample::Index>(),
        ) {
            let mut bits = noise(seed);
            let mut next = move || bits() as i8;
            let matrix: Vec<i8> = (0..rows * cols).map(|_| next()).collect();
            let v: Vec<i8> = (0..cols).map(|_| next()).collect();
            let mut panel = vec![99i8; pairs_len(rows, cols).unwrap()];
            pack_pairs(&matrix, rows, cols, &mut panel).unwrap();
            let r0 = from.index(rows) / 8 * 8;
            let n = len.index(rows - r0 + 1);
            let mut got = vec![7i32; n];
            pair_dots(&v, offset, &panel, rows, r0, &mut got).unwrap();
            // The portable body too, where the CPU took the AVX2 one above.
            let mut portable = vec![7i32; n];
            if cols > 0 && n > 0 {
                pair_products(&v, offset, &panel, panel_rows(rows).unwrap(), r0, &mut portable);
            } else {
                portable.fill(0);
            }
            prop_assert_eq!(&portable, &got);
            let expected: Vec<i32> = (r0..r0 + n)
                .map(|r| {
                    (0..cols).fold(0i32, |s, k| {
                        s.wrapping_add(
                            (i32::from(v[k]) + i32::from(offset)) * i32::from(matrix[r * cols + k]),
                        )
                    })
                })
                .collect();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn short_slices_are_errors() {
        assert_eq!(pack_pairs(&[1; 5], 3, 2, &mut [0; 16]), Err(SHORT));
        assert_eq!(pack_pairs(&[1; 6], 3, 2, &mut [0; 15]), Err(SHORT));
        let mut sums = [0i32; 3];
        assert_eq!(pair_dots(&[1; 2], 0, &[0; 15], 3, 0, &mut sums), Err(SHORT));
        assert_eq!(pair_dots(&[1; 2], 0, &[0; 16], 3, 1, &mut sums), Err(SHORT));
        assert_eq!(
            pair_dots(&[1; 2], 0, &[0; 16], 3, 1, &mut sums[..1]),
            Err(SHORT)
        );
        assert!(pair_dots(&[1; 2], 0, &[0; 16], 3, 0, &mut sums).is_ok());
        let mut out = [0.0f32; 3];
        assert_eq!(pack(&[1.0; 5], 3, 2, &mut [0.0; 16]), Err(SHORT));
        assert_eq!(pack(&[1.0; 6], 3, 2, &mut [0.0; 15]), Err(SHORT));
        assert_eq!(
            panel_matmul_acc(&[0.0; 15], 3, 2, &[1.0; 2], 1, &mut out),
            Err(SHORT)
        );
        assert_eq!(
            panel_matmul_acc(&[0.0; 16], 3, 2, &[1.0; 1], 1, &mut out),
            Err(SHORT)
        );
        assert_eq!(
            panel_matmul_acc(&[0.0; 16], 3, 2, &[1.0; 2], 1, &mut out[..2]),
            Err(SHORT)
        );
        assert!(panel_matmul_acc(&[0.0; 16], 3, 2, &[1.0; 2], 1, &mut out).is_ok());
    }
}
