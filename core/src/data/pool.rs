//! Embedding-bag pooling: each CSR row of keys becomes one row of `dim` floats, the sum or
//! mean of the embedding-table rows its keys name (HugeCTR's `combiner = sum | mean`). The CPU
//! reference for the GPU kernel: the order of the f32 operations is part of the contract (see
//! [`embedding_bag`]).

use super::csr::CsrView;
use super::key::Key;
use crate::tensor::TensorBase;

/// How the embeddings of one row's keys are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Pooling {
    /// The sum of the rows (an empty row gives zeros).
    #[default]
    Sum,
    /// The sum times `1 / n` for `n` keys (an empty row gives zeros).
    Mean,
}

/// What a key that names no table row does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OutOfRange {
    /// A key `>= vocab` (or a negative `i64` key) is a [`PoolError::KeyOutOfRange`].
    #[default]
    Error,
    /// Keys are reduced to `key mod vocab`, with `rem_euclid` for negative `i64` keys (so
    /// `-1` is the last row): the "hash into a fixed table" of many CTR pipelines. An empty
    /// table still errors.
    Modulo,
}

/// How to pool: the combiner and what an out-of-range key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PoolConfig {
    /// Sum or mean.
    pub pooling: Pooling,
    /// Error (the default) or modulo.
    pub out_of_range: OutOfRange,
}

impl PoolConfig {
    /// `pooling`, with out-of-range keys an error.
    pub const fn new(pooling: Pooling) -> Self {
        Self {
            pooling,
            out_of_range: OutOfRange::Error,
        }
    }

    /// The same configuration with `out_of_range`.
    pub const fn with_out_of_range(mut self, out_of_range: OutOfRange) -> Self {
        self.out_of_range = out_of_range;
        self
    }
}

/// Why pooling failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PoolError {
    /// The table slice is not whole rows of `dim` floats (or `dim` is 0).
    TableLen {
        /// Floats in the table slice.
        len: usize,
        /// The row width asked for.
        dim: usize,
    },
    /// The output slice does not hold `rows x dim` floats.
    OutputLen {
        /// `rows x dim` (saturated).
        expected: usize,
        /// Floats in the output slice.
        found: usize,
    },
    /// A tensor argument is not of rank 2.
    NotMatrix {
        /// `"table"` or `"output"`.
        what: &'static str,
        /// Its rank.
        rank: usize,
    },
    /// A tensor argument's rows are not contiguous (row-major, no gaps).
    NotContiguous {
        /// `"table"` or `"output"`.
        what: &'static str,
    },
    /// The output tensor's shape is not `[rows, dim]`.
    OutputShape {
        /// `[CSR rows, table dim]`.
        expected: [usize; 2],
        /// The output's shape.
        found: [usize; 2],
    },
    /// A key names no table row (under [`OutOfRange::Error`], or with an empty table).
    KeyOutOfRange {
        /// The CSR row (`sample * slot_num + slot` for a [`SampleBatch`](super::SampleBatch)).
        row: usize,
        /// The key's position in that row, from 0.
        position: usize,
        /// The key.
        key: i64,
        /// Rows in the table.
        vocab: usize,
    },
    /// A table's bytes are not whole rows of its type and width (or the width is 0, or a
    /// row's size overflows: `row_bytes` is then `usize::MAX`).
    TableRows {
        /// Bytes given.
        len: usize,
        /// Values per row.
        width: usize,
        /// Bytes per row.
        row_bytes: usize,
    },
    /// The per-key weights are not one per CSR value.
    WeightsLen {
        /// Values in the CSR.
        expected: usize,
        /// Weights given.
        found: usize,
    },
    /// A multi-table batch with no slots.
    NoSlots,
    /// A slot names a table that is not in the set.
    SlotTable {
        /// The slot.
        slot: usize,
        /// The table it names.
        table: usize,
        /// Tables in the set.
        tables: usize,
    },
    /// The CSR's rows are not whole samples of one row per slot.
    RowsNotSamples {
        /// CSR rows.
        rows: usize,
        /// Slots per sample.
        slots: usize,
    },
    /// The widths of slots `0..=slot` add up past `usize::MAX`.
    WidthOverflow {
        /// The slot where the sum overflowed.
        slot: usize,
    },
}

impl core::fmt::Display for PoolError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::TableLen { len, dim } => {
                write!(f, "table of {len} floats is not whole rows of {dim}")
            }
            Self::OutputLen { expected, found } => {
                write!(f, "output holds {found} floats, {expected} needed")
            }
            Self::NotMatrix { what, rank } => write!(f, "{what} has rank {rank}, 2 expected"),
            Self::NotContiguous { what } => write!(f, "{what} rows are not contiguous"),
            Self::OutputShape { expected, found } => write!(
                f,
                "output shape is [{}, {}], [{}, {}] expected",
                found[0], found[1], expected[0], expected[1]
            ),
            Self::KeyOutOfRange {
                row,
                position,
                key,
                vocab,
            } => write!(
                f,
                "CSR row {row}, key {position}: {key} is outside the table of {vocab} rows"
            ),
            Self::TableRows {
                len,
                width,
                row_bytes,
            } => write!(
                f,
                "table of {len} bytes is not whole rows of {row_bytes} bytes (width {width})"
            ),
            Self::WeightsLen { expected, found } => {
                write!(f, "{found} weights for {expected} keys")
            }
            Self::NoSlots => f.write_str("a multi-table batch needs at least one slot"),
            Self::SlotTable {
                slot,
                table,
                tables,
            } => write!(f, "slot {slot} names table {table} of {tables}"),
            Self::RowsNotSamples { rows, slots } => {
                write!(f, "{rows} CSR rows are not whole samples of {slots} slots")
            }
            Self::WidthOverflow { slot } => {
                write!(f, "the widths of slots 0 to {slot} overflow")
            }
        }
    }
}

impl core::error::Error for PoolError {}

/// Pools every row of `csr` over `table` (`vocab x dim` floats, row-major and contiguous:
/// row `k` is `table[k * dim..(k + 1) * dim]`) into `out` (`csr.rows() x dim` floats, one
/// row per CSR row).
///
/// This is the CPU reference for the GPU kernel, so the arithmetic is fixed: for every CSR
/// row of `n` keys and every lane `j < dim`,
///
/// ```text
/// acc = +0.0f32
/// for key in row, left to right:  acc = acc + table[key][j]     (one f32 add each)
/// Sum:   out[row][j] = acc
/// Mean:  out[row][j] = acc * (1.0f32 / n as f32)   if n > 1, else acc
/// ```
///
/// which is what HugeCTR's `forward_sum_kernel` / `forward_mean_kernel` compute per thread
/// (`sum = 0.0f; sum += ...; sum * scaler`, the reciprocal computed once). Lanes are
/// independent, so the result is the same bit for bit whatever vector width runs it: a
/// kernel that adds in this order matches exactly. An empty row gives `+0.0`s.
///
/// Shapes are checked before anything is written. A bad key stops the call: rows before
/// the failing row hold their results, the failing row is zeros, later rows are untouched.
/// No allocation; one pass over the keys.
///
/// Errors: [`TableLen`](PoolError::TableLen), [`OutputLen`](PoolError::OutputLen),
/// [`KeyOutOfRange`](PoolError::KeyOutOfRange).
///
/// ```
/// use tessera_core::data::{
///     Dims, OutOfRange, PoolConfig, PoolError, Pooling, SampleBatch, embedding_bag,
/// };
///
/// // Two samples of two slots: rows are sample * 2 + slot.
/// let dims = Dims::new(1, 0, 2);
/// let (mut ld, mut offsets, mut keys) = ([0f32; 2], [0u32; 5], [0u32; 8]);
/// let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut keys).unwrap();
/// batch.push_sample(&[1.0], &[], &[&[0, 2], &[]]).unwrap();
/// batch.push_sample(&[0.0], &[], &[&[1], &[2, 2, 0]]).unwrap();
///
/// // A table of 3 rows of dim 2.
/// let table = [1.0, 2.0, 10.0, 20.0, 100.0, 200.0];
/// let mut out = [0f32; 4 * 2];
/// embedding_bag(batch.csr(), &table, 2, &mut out, PoolConfig::new(Pooling::Sum)).unwrap();
/// assert_eq!(out, [101.0, 202.0, 0.0, 0.0, 10.0, 20.0, 201.0, 402.0]);
///
/// embedding_bag(batch.csr(), &table, 2, &mut out, PoolConfig::new(Pooling::Mean)).unwrap();
/// assert_eq!(out[6..], [67.0, 134.0]);
///
/// // A table of 2 rows: key 2 is out of range, or row 0 modulo 2.
/// let small = &table[..4];
/// let err = embedding_bag(batch.csr(), small, 2, &mut out, PoolConfig::new(Pooling::Sum));
/// assert_eq!(
///     err,
///     Err(PoolError::KeyOutOfRange { row: 0, position: 1, key: 2, vocab: 2 })
/// );
/// let modulo = PoolConfig::new(Pooling::Sum).with_out_of_range(OutOfRange::Modulo);
/// embedding_bag(batch.csr(), small, 2, &mut out, modulo).unwrap();
/// assert_eq!(out[..2], [2.0, 4.0]);
/// ```
pub fn embedding_bag<K: Key>(
    csr: CsrView<'_, K>,
    table: &[f32],
    dim: usize,
    out: &mut [f32],
    config: PoolConfig,
) -> Result<(), PoolError> {
    let vocab = match table.len().checked_div(dim) {
        Some(v) if v * dim == table.len() => v,
        _ => {
            return Err(PoolError::TableLen {
                len: table.len(),
                dim,
            });
        }
    };
    let expected = csr.rows().saturating_mul(dim);
    if out.len() != expected {
        return Err(PoolError::OutputLen {
            expected,
            found: out.len(),
        });
    }
    pool_rows(csr, table, vocab, dim, out, config)
}

/// [`embedding_bag`] over tensors: `table` of shape `[vocab, dim]` and `out` of shape
/// `[csr.rows(), dim]`, both contiguous (row-major, no gaps, as
/// [`TensorView::new`](crate::tensor::TensorView::new) makes them). `dim` may be 0 here:
/// keys are still checked, nothing is written.
///
/// Errors: [`NotMatrix`](PoolError::NotMatrix), [`NotContiguous`](PoolError::NotContiguous),
/// [`OutputShape`](PoolError::OutputShape), [`KeyOutOfRange`](PoolError::KeyOutOfRange); on
/// a bad key the output holds what [`embedding_bag`] says.
///
/// ```
/// use tessera_core::data::{CsrView, OutOfRange, PoolConfig, Pooling, embedding_bag_tensor};
/// use tessera_core::tensor::{TensorView, TensorViewMut};
///
/// // Rows {1, -1} and {0} of i64 keys.
/// let csr = CsrView::new(&[0i64, 2, 3][..], &[1, -1, 0][..]).unwrap();
/// let data = [1.0, 2.0, 3.0, 4.0];
/// let table = TensorView::new(&data[..], &[2, 2]).unwrap();
/// let mut buf = [0f32; 4];
/// let mut out = TensorViewMut::new(&mut buf[..], &[2, 2]).unwrap();
///
/// let sum = PoolConfig::new(Pooling::Sum);
/// assert!(embedding_bag_tensor(csr, &table, &mut out, sum).is_err()); // -1 names no row
/// let modulo = sum.with_out_of_range(OutOfRange::Modulo); // -1 is the last row
/// embedding_bag_tensor(csr, &table, &mut out, modulo).unwrap();
/// assert_eq!(out.as_slice(), Some(&[6.0, 8.0, 1.0, 2.0][..]));
/// ```
pub fn embedding_bag_tensor<K, S, O>(
    csr: CsrView<'_, K>,
    table: &TensorBase<S, f32>,
    out: &mut TensorBase<O, f32>,
    config: PoolConfig,
) -> Result<(), PoolError>
where
    K: Key,
    S: AsRef<[f32]>,
    O: AsRef<[f32]> + AsMut<[f32]>,
{
    let [vocab, dim] = matrix("table", table.shape())?;
    let found = matrix("output", out.shape())?;
    let expected = [csr.rows(), dim];
    if found != expected {
        return Err(PoolError::OutputShape { expected, found });
    }
    let not_contiguous = |what| PoolError::NotContiguous { what };
    let table = table.as_slice().ok_or(not_contiguous("table"))?;
    let out = out.as_slice_mut().ok_or(not_contiguous("output"))?;
    pool_rows(csr, table, vocab, dim, out, config)
}

fn matrix(what: &'static str, shape: &[usize]) -> Result<[usize; 2], PoolError> {
    match *shape {
        [rows, cols] => Ok([rows, cols]),
        _ => Err(PoolError::NotMatrix {
            what,
            rank: shape.len(),
        }),
    }
}

/// The pooling loop; `table.len() == vocab * dim` and `out.len() == csr.rows() * dim`.
fn pool_rows<K: Key>(
    csr: CsrView<'_, K>,
    table: &[f32],
    vocab: usize,
    dim: usize,
    out: &mut [f32],
    config: PoolConfig,
) -> Result<(), PoolError> {
    // Modulo by an empty table is undefined: every key is out of range then.
    let modulo = config.out_of_range == OutOfRange::Modulo;
    let row_of = |row: usize, position: usize, key: K| {
        let index = resolve(key, vocab, modulo).ok_or_else(|| PoolError::KeyOutOfRange {
            row,
            position,
            key: wide(key),
            vocab,
        })?;
        // `index < vocab`, so the row is inside the table.
        Ok(&table[index * dim..(index + 1) * dim])
    };
    for (r, keys) in csr.iter().enumerate() {
        let acc = &mut out[r * dim..(r + 1) * dim];
        let Some((&first, rest)) = keys.split_first() else {
            acc.fill(0.0);
            continue;
        };
        // `0.0 + t`, not `t`: the same bits as zeroing then adding (`-0.0` becomes `+0.0`),
        // without a pass that zeroes the row first.
        let src = row_of(r, 0, first).inspect_err(|_| acc.fill(0.0))?;
        for (a, &t) in acc.iter_mut().zip(src) {
            *a = 0.0 + t;
        }
        for (position, &key) in rest.iter().enumerate() {
            let src = row_of(r, position + 1, key).inspect_err(|_| acc.fill(0.0))?;
            for (a, &t) in acc.iter_mut().zip(src) {
                *a += t;
            }
        }
        if config.pooling == Pooling::Mean && keys.len() > 1 {
            // HugeCTR's mean: one reciprocal, then a multiply per lane (not a divide).
            let scale = 1.0 / keys.len() as f32;
            for a in acc.iter_mut() {
                *a *= scale;
            }
        }
    }
    Ok(())
}

/// The table row `key` names in a table of `vocab` rows, reduced modulo `vocab` if `modulo`
/// (and `vocab > 0`); `None` if it names none.
#[inline]
pub(super) fn resolve<K: Key>(key: K, vocab: usize, modulo: bool) -> Option<usize> {
    if modulo && vocab > 0 {
        return Some(modulo_index(key, vocab));
    }
    key.to_index().filter(|&i| i < vocab)
}

/// `key mod vocab` in `0..vocab` (`vocab > 0`), Euclidean for negative keys.
#[inline]
fn modulo_index<K: Key>(key: K, vocab: usize) -> usize {
    match key.to_index() {
        Some(i) => i % vocab,
        None => {
            // Negative `i64` keys (or, on narrow targets, keys beyond `usize`). Every key
            // fits `i64`, and so does `vocab`: a slice of `f32`s is shorter than `isize::MAX`.
            let v = wide(key);
            let m = i64::try_from(vocab).unwrap_or(i64::MAX);
            // `rem_euclid` is in `0..m`, so it fits `usize`.
            usize::try_from(v.rem_euclid(m)).unwrap_or(0)
        }
    }
}

/// The key as `i64` (both key types fit).
pub(super) fn wide<K: Key>(key: K) -> i64 {
    i64::try_from(key.to_i128()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests;
