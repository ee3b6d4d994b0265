//! Embedding-bag pooling over tables of any [`RowType`](super::RowType), with optional
//! per-key weights: the CPU reference for the typed and table-batched GPU kernels. Values are
//! widened (or dequantized) to `f32` and accumulated in `f32`, in a documented order.

use super::csr::CsrView;
use super::key::Key;
use super::pool::{OutOfRange, PoolConfig, PoolError, Pooling, resolve, wide};
use super::table::TableView;

/// Pools every row of `csr` over `table` into `out` (`csr.rows() x table.width()` floats),
/// weighting each key's row by `weights[i]` (one per CSR value, in CSR order) where given.
///
/// The arithmetic is fixed, so that a GPU kernel doing the same operations is bit-equal: for
/// a CSR row of `n` keys `k_0 .. k_{n-1}` and every lane `j < width`,
///
/// ```text
/// v_i  = row k_i's value j as f32   (f32: as stored; f16 / bf16: widened exactly;
///                                    int8 rowwise: (q as f32) * scale, rounded, + bias, rounded)
/// t_i  = v_i, or w_i * v_i (one rounded multiply) with weights
/// acc  = +0.0; acc = acc + t_i for i = 0 .. n-1 (one rounded add each)
/// Sum:  out = acc          Mean: out = acc * (1.0f32 / n as f32) if n > 1, else acc
/// ```
///
/// For `f32` rows without weights this is [`embedding_bag`](super::embedding_bag) bit for
/// bit. Against exact arithmetic on the stored values (the int8 value `q * scale + bias`
/// taken exactly), the result is within `(n + 4) * 2^-24 * S` (divided by `n` for Mean),
/// where `S` is the sum over keys of `|w_i| * |v_i|` (for int8 rows `|w_i| * (|q_i * scale|
/// + |bias|)`, `w_i = 1` without weights); the property tests check this bound.
///
/// Shapes and the weights' length are checked before anything is written. A bad key stops
/// the call: earlier rows hold their results, the failing row is zeros, later rows are
/// untouched. No allocation.
///
/// Errors: [`OutputLen`](PoolError::OutputLen), [`WeightsLen`](PoolError::WeightsLen),
/// [`KeyOutOfRange`](PoolError::KeyOutOfRange).
///
/// ```
/// use tessera_core::data::{CsrView, PoolConfig, Pooling, RowType, TableView, embedding_bag_rows};
///
/// // Three bfloat16 rows of width 2: (1, 2), (0.5, -1), (4, 8).
/// let halves: [u16; 6] = [0x3F80, 0x4000, 0x3F00, 0xBF80, 0x4080, 0x4100];
/// let mut bytes = [0u8; 12];
/// for (b, h) in bytes.chunks_exact_mut(2).zip(halves) {
///     b.copy_from_slice(&h.to_le_bytes());
/// }
/// let table = TableView::new(&bytes, 2, RowType::Bf16).unwrap();
///
/// // Rows {0, 2} and {1}, weighted 1, 0.5 and 2.
/// let csr = CsrView::new(&[0u32, 2, 3][..], &[0u32, 2, 1][..]).unwrap();
/// let mut out = [0f32; 4];
/// let sum = PoolConfig::new(Pooling::Sum);
/// embedding_bag_rows(csr, table, Some(&[1.0, 0.5, 2.0]), &mut out, sum).unwrap();
/// assert_eq!(out, [3.0, 6.0, 1.0, -2.0]);
/// ```
pub fn embedding_bag_rows<K: Key>(
    csr: CsrView<'_, K>,
    table: TableView<'_>,
    weights: Option<&[f32]>,
    out: &mut [f32],
    config: PoolConfig,
) -> Result<(), PoolError> {
    let width = table.width();
    let expected = csr.rows().saturating_mul(width);
    if out.len() != expected {
        return Err(PoolError::OutputLen {
            expected,
            found: out.len(),
        });
    }
    check_weights(csr, weights)?;
    let mut start = 0;
    for (r, (keys, acc)) in csr.iter().zip(out.chunks_exact_mut(width)).enumerate() {
        pool_row(
            r,
            keys,
            row_weights(weights, start, keys.len()),
            table,
            acc,
            config,
        )?;
        start += keys.len();
    }
    Ok(())
}

/// [`WeightsLen`](PoolError::WeightsLen) unless `weights` is absent or one per CSR value.
pub(super) fn check_weights<K: Key>(
    csr: CsrView<'_, K>,
    weights: Option<&[f32]>,
) -> Result<(), PoolError> {
    match weights {
        Some(w) if w.len() != csr.nnz() => Err(PoolError::WeightsLen {
            expected: csr.nnz(),
            found: w.len(),
        }),
        _ => Ok(()),
    }
}

/// The weights of the `n` keys from flat index `start` (checked by [`check_weights`]).
#[inline]
pub(super) fn row_weights(weights: Option<&[f32]>, start: usize, n: usize) -> Option<&[f32]> {
    weights.map(|w| &w[start..start + n])
}

/// Pools CSR row `r` (`keys`, with their weights) over `table` into `acc` (`width` floats),
/// as [`embedding_bag_rows`] documents; on a bad key `acc` is zeros.
#[inline]
pub(super) fn pool_row<K: Key>(
    r: usize,
    keys: &[K],
    weights: Option<&[f32]>,
    table: TableView<'_>,
    acc: &mut [f32],
    config: PoolConfig,
) -> Result<(), PoolError> {
    // Modulo by an empty table is undefined: every key is out of range then.
    let modulo = config.out_of_range == OutOfRange::Modulo;
    let vocab = table.rows();
    acc.fill(0.0);
    for (position, &key) in keys.iter().enumerate() {
        let Some(index) = resolve(key, vocab, modulo) else {
            acc.fill(0.0);
            return Err(PoolError::KeyOutOfRange {
                row: r,
                position,
                key: wide(key),
                vocab,
            });
        };
        table.accumulate(index, weights.map(|w| w[position]), acc);
    }
    if config.pooling == Pooling::Mean && keys.len() > 1 {
        // One reciprocal, then a multiply per lane, as the f32 reference and HugeCTR.
        let scale = 1.0 / keys.len() as f32;
        for a in acc.iter_mut() {
            *a *= scale;
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests;
