//! The columns of a sample row, shared by every row cursor over sample batches
//! ([`SampleCursor`](super::SampleCursor), and cursors that read batches in place, such as
//! `tessera-lite`'s cursor sets): their schema and how each fills a caller's vector.

use super::batch::Dims;
use super::key::Key;
use crate::cursor::{Column, ColumnKind, CursorError};
use crate::sparse::{SparseError, StorageMut, VBuffer};

/// Column 0 of a sample row: the labels, a dense vector of `label_dim`.
pub const LABEL: usize = 0;
/// Column 1: the dense features, a dense vector of `dense_dim`.
pub const DENSE: usize = 1;
/// Column 2: every key of the sample as one sparse indicator vector (see
/// [`fill_key_counts`]).
pub const KEYS: usize = 2;

/// The three columns of a row of samples shaped `dims`: [`LABEL`], [`DENSE`], [`KEYS`].
pub fn sample_columns(dims: Dims) -> [Column<'static>; 3] {
    [
        Column::new(
            "label",
            ColumnKind::DenseVector {
                len: dims.label_dim,
            },
        ),
        Column::new(
            "dense",
            ColumnKind::DenseVector {
                len: dims.dense_dim,
            },
        ),
        Column::new(
            "keys",
            ColumnKind::SparseVector {
                len: u32::MAX as usize,
            },
        ),
    ]
}

/// Fills `dst` with the dense vector `src` (the [`LABEL`] or [`DENSE`] column).
pub fn fill_dense<St: StorageMut<Elem = f32>>(
    src: &[f32],
    dst: &mut VBuffer<St>,
) -> Result<(), CursorError> {
    let mut ed = dst.edit(src.len(), src.len())?;
    ed.values().copy_from_slice(src);
    ed.commit().map_err(|e| CursorError::Vector(e.error))
}

/// Fills `dst` with the [`KEYS`] column of a sample whose keys (every slot's, back to back)
/// are `keys`: a sparse vector of length `u32::MAX` holding at each key the number of times
/// it occurs. HugeCTR requires slots' key ranges to be disjoint, so nothing is lost; a key
/// of `u32::MAX` or above is [`SparseError::IndexOutOfRange`].
pub fn fill_key_counts<K: Key, St: StorageMut<Elem = f32>>(
    keys: &[K],
    dst: &mut VBuffer<St>,
) -> Result<(), CursorError> {
    let len = u32::MAX as usize;
    let mut ed = dst.edit(len, keys.len())?;
    let (values, indices) = ed.parts();
    for (position, (ix, k)) in indices.iter_mut().zip(keys).enumerate() {
        *ix = k
            .to_index()
            .and_then(|k| u32::try_from(k).ok())
            .filter(|&k| k != u32::MAX)
            .ok_or(CursorError::Vector(SparseError::IndexOutOfRange {
                position,
                index: usize::try_from(k.to_i128().max(0)).unwrap_or(usize::MAX),
                len,
            }))?;
    }
    indices.sort_unstable();
    // Collapse repeats into counts, in place.
    let mut m = 0;
    for j in 0..indices.len() {
        if m > 0 && indices[m - 1] == indices[j] {
            values[m - 1] += 1.0;
        } else {
            indices[m] = indices[j];
            values[m] = 1.0;
            m += 1;
        }
    }
    ed.commit_truncated(m)
        .map_err(|e| CursorError::Vector(e.error))
}

/// Fills `dst` with vector column `col` of a sample ([`LABEL`], [`DENSE`] or [`KEYS`]), the
/// schema having been checked: the one dispatch every sample-row cursor's `get_vector` needs.
pub fn fill_sample_vector<K: Key, St: StorageMut<Elem = f32>>(
    col: usize,
    labels: &[f32],
    dense: &[f32],
    keys: &[K],
    dst: &mut VBuffer<St>,
) -> Result<(), CursorError> {
    match col {
        LABEL => fill_dense(labels, dst),
        DENSE => fill_dense(dense, dst),
        _ => fill_key_counts(keys, dst),
    }
}
