//! HugeCTR's CSR buffer over caller memory: `rows + 1` row offsets and the values of every row
//! back to back, built row by row, with a checkpoint to roll a half-written sample back.

use super::key::Key;
use crate::error::CapacityError;

/// A CSR matrix being filled in caller memory (HugeCTR's `CSR<T>`).
///
/// `row_offsets[0..=rows]` and `values[0..nnz]` are valid at every moment: a row is either
/// committed whole ([`push_row`](Self::push_row), [`end_row`](Self::end_row)) or not visible
/// at all, and [`rollback`](Self::rollback) returns to a [`checkpoint`](Self::checkpoint) so
/// a sample that fails half-way leaves nothing behind. Row offsets have the key type, as in
/// HugeCTR, so the values capacity must fit in `K` (checked once in [`new`](Self::new)).
///
/// ```
/// use tessera_core::data::Csr;
///
/// // HugeCTR's example: rows {4,5,1,2}, {3,5,1}, {3,2}.
/// let (mut offsets, mut values) = ([0u32; 4], [0u32; 9]);
/// let mut csr = Csr::new(&mut offsets, &mut values).unwrap();
/// csr.push_row(&[4, 5, 1, 2]).unwrap();
/// csr.push_row(&[3, 5, 1]).unwrap();
/// let cp = csr.checkpoint();
/// csr.push(3).unwrap();
/// csr.rollback(cp); // the half-written row is gone
/// csr.push_row(&[3, 2]).unwrap();
/// let view = csr.view();
/// assert_eq!(view.row_offsets(), &[0, 4, 7, 9]);
/// assert_eq!(view.values(), &[4, 5, 1, 2, 3, 5, 1, 3, 2]);
/// assert_eq!(view.row(1), Some(&[3, 5, 1][..]));
/// ```
#[derive(Debug)]
pub struct Csr<'a, K> {
    row_offsets: &'a mut [K],
    values: &'a mut [K],
    rows: usize,
    /// Values pushed, including those of a row not yet ended.
    len: usize,
}

/// A position in a [`Csr`] to [`rollback`](Csr::rollback) to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    rows: usize,
    len: usize,
}

/// What a CSR write ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CsrCapacity {
    /// More rows than `row_offsets.len() - 1`; counts are rows.
    Rows(CapacityError),
    /// More values than `values.len()`; counts are values.
    Values(CapacityError),
}

impl core::fmt::Display for CsrCapacity {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Rows(e) => write!(
                f,
                "CSR rows: {} needed, {} available",
                e.needed, e.available
            ),
            Self::Values(e) => {
                write!(
                    f,
                    "CSR values: {} needed, {} available",
                    e.needed, e.available
                )
            }
        }
    }
}

impl core::error::Error for CsrCapacity {}

impl<'a, K: Key> Csr<'a, K> {
    /// An empty CSR over `row_offsets` (room for `row_offsets.len() - 1` rows) and `values`.
    ///
    /// Errors if `row_offsets` is empty (a CSR always has `offset[0]`), or, as
    /// [`CsrCapacity::Values`], if `values.len()` does not fit in the key type (it could not be
    /// stored as an offset); `available` is then the largest usable length.
    pub fn new(row_offsets: &'a mut [K], values: &'a mut [K]) -> Result<Self, CsrCapacity> {
        let Some(first) = row_offsets.first_mut() else {
            return Err(CsrCapacity::Rows(CapacityError {
                needed: 1,
                available: 0,
            }));
        };
        if K::from_usize(values.len()).is_none() {
            return Err(CsrCapacity::Values(CapacityError {
                needed: values.len(),
                available: usize::try_from(K::MAX).unwrap_or(usize::MAX),
            }));
        }
        *first = K::default();
        Ok(Self {
            row_offsets,
            values,
            rows: 0,
            len: 0,
        })
    }

    /// A CSR over buffers that already hold `rows` committed rows (written by an earlier
    /// `Csr` over the same buffers, perhaps on another thread): the offsets are checked as
    /// [`CsrView::new`] checks them, O(rows).
    pub fn resume(
        row_offsets: &'a mut [K],
        values: &'a mut [K],
        rows: usize,
    ) -> Result<Self, CsrError> {
        if rows >= row_offsets.len() || K::from_usize(values.len()).is_none() {
            return Err(CsrError::Offset { row: rows });
        }
        let len = {
            let offsets = &row_offsets[..=rows];
            let end = offsets
                .last()
                .and_then(|k| k.to_index())
                .unwrap_or(usize::MAX);
            let used = values.get(..end).ok_or(CsrError::LastOffset)?;
            CsrView::new(offsets, used)?.nnz()
        };
        Ok(Self {
            row_offsets,
            values,
            rows,
            len,
        })
    }

    /// Rows committed.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Room for this many rows in all.
    pub fn row_capacity(&self) -> usize {
        self.row_offsets.len() - 1
    }

    /// Values pushed (including a row not yet ended).
    pub fn nnz(&self) -> usize {
        self.len
    }

    /// Room for this many values in all.
    pub fn value_capacity(&self) -> usize {
        self.values.len()
    }

    /// Empties the CSR; the memory stays.
    pub fn clear(&mut self) {
        self.rows = 0;
        self.len = 0;
    }

    /// The current position, to [`rollback`](Self::rollback) to.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            rows: self.rows,
            len: self.len,
        }
    }

    /// Forgets every row and value written since `cp`.
    ///
    /// A checkpoint from after the current position (after an earlier rollback or `clear`)
    /// leaves the CSR unchanged: rolling back never makes unwritten memory visible.
    pub fn rollback(&mut self, cp: Checkpoint) {
        if cp.rows <= self.rows && cp.len <= self.len {
            self.rows = cp.rows;
            self.len = cp.len;
        }
    }

    /// Appends one value to the row being written.
    pub fn push(&mut self, value: K) -> Result<(), CsrCapacity> {
        let Some(slot) = self.values.get_mut(self.len) else {
            return Err(self.values_error(1));
        };
        *slot = value;
        self.len += 1;
        Ok(())
    }

    /// Commits the values pushed since the last row ended as one row (possibly empty).
    pub fn end_row(&mut self) -> Result<(), CsrCapacity> {
        let Some(slot) = self.row_offsets.get_mut(self.rows + 1) else {
            return Err(CsrCapacity::Rows(CapacityError {
                needed: self.rows + 1,
                available: self.row_offsets.len() - 1,
            }));
        };
        // Cannot fail: `len <= values.len()`, which fits in `K` (checked in `new`).
        *slot = K::from_usize(self.len).unwrap_or_default();
        self.rows += 1;
        Ok(())
    }

    /// Appends a whole row. On error nothing is written.
    pub fn push_row(&mut self, row: &[K]) -> Result<(), CsrCapacity> {
        let dst = self.reserve_row(row.len())?;
        dst.copy_from_slice(row);
        self.commit_row(row.len())
    }

    /// The next `n` free value slots, to fill before [`commit_row`](Self::commit_row)`(n)`.
    ///
    /// Checks both capacities, so a `commit_row(n)` right after a successful call cannot fail.
    pub fn reserve_row(&mut self, n: usize) -> Result<&mut [K], CsrCapacity> {
        if self.rows >= self.row_capacity() {
            return Err(CsrCapacity::Rows(CapacityError {
                needed: self.rows + 1,
                available: self.row_capacity(),
            }));
        }
        let end = self.len.checked_add(n).filter(|&e| e <= self.values.len());
        match end {
            Some(end) => Ok(&mut self.values[self.len..end]),
            None => Err(self.values_error(n)),
        }
    }

    /// Commits the first `n` slots returned by [`reserve_row`](Self::reserve_row) as one row.
    pub fn commit_row(&mut self, n: usize) -> Result<(), CsrCapacity> {
        let end = self.len.checked_add(n).filter(|&e| e <= self.values.len());
        let Some(end) = end else {
            return Err(self.values_error(n));
        };
        if self.rows >= self.row_capacity() {
            return Err(CsrCapacity::Rows(CapacityError {
                needed: self.rows + 1,
                available: self.row_capacity(),
            }));
        }
        self.len = end;
        self.end_row()
    }

    /// Appends every row of `other`; on error (no room for its rows or values) nothing is
    /// written. A row being written (pushed, not ended) is dropped first.
    pub fn append(&mut self, other: &CsrView<'_, K>) -> Result<(), CsrCapacity> {
        let (rows, nnz) = (other.rows(), other.nnz());
        let committed = self.view().nnz();
        if self.rows + rows > self.row_capacity() {
            return Err(CsrCapacity::Rows(CapacityError {
                needed: self.rows + rows,
                available: self.row_capacity(),
            }));
        }
        if committed + nnz > self.values.len() {
            return Err(CsrCapacity::Values(CapacityError {
                needed: committed + nnz,
                available: self.values.len(),
            }));
        }
        self.values[committed..committed + nnz].copy_from_slice(other.values());
        let dst = &mut self.row_offsets[self.rows + 1..=self.rows + rows];
        if committed == 0 {
            // Into an empty CSR (a batch handed from one thread to another) the offsets are
            // the same numbers: one copy, not a conversion per row.
            dst.copy_from_slice(&other.row_offsets()[1..]);
        } else {
            for (dst, src) in dst.iter_mut().zip(&other.row_offsets()[1..]) {
                // Fits: the sum is at most `values.len()`, which fits in `K` (checked in `new`).
                let o = src.to_index().unwrap_or(0) + committed;
                *dst = K::from_usize(o).unwrap_or_default();
            }
        }
        self.rows += rows;
        self.len = committed + nnz;
        Ok(())
    }

    /// For a decoder that writes several rows at once: the current value count, the end-offset
    /// slots of the next `rows` rows, and every free value slot, if the rows fit and at least
    /// `min_values` values do. Nothing is visible until [`commit_spare`](Self::commit_spare).
    #[inline]
    pub(crate) fn spare(
        &mut self,
        rows: usize,
        min_values: usize,
    ) -> Option<(usize, &mut [K], &mut [K])> {
        let first = self.rows.checked_add(1)?;
        let offsets = self.row_offsets.get_mut(first..first.checked_add(rows)?)?;
        let values = self.values.get_mut(self.len..)?;
        if values.len() < min_values {
            return None;
        }
        Some((self.len, offsets, values))
    }

    /// Commits `rows` rows written through [`spare`](Self::spare), holding `values` values in
    /// all. The caller has written their end offsets: non-decreasing, from the value count
    /// `spare` gave, the last one that count plus `values`.
    #[inline]
    pub(crate) fn commit_spare(&mut self, rows: usize, values: usize) {
        self.rows += rows;
        self.len += values;
        debug_assert!(self.rows < self.row_offsets.len() && self.len <= self.values.len());
        debug_assert_eq!(self.row_offsets[self.rows].to_index(), Some(self.len));
    }

    /// The committed rows, read-only. A row being written (pushed but not ended) is not in it.
    pub fn view(&self) -> CsrView<'_, K> {
        let offsets = &self.row_offsets[..=self.rows];
        let committed = offsets.last().and_then(|k| k.to_index()).unwrap_or(0);
        CsrView {
            row_offsets: offsets,
            values: &self.values[..committed],
        }
    }

    /// The buffers, leaving empty ones behind (for [`SampleBatch::resume`](super::SampleBatch::resume)).
    pub(crate) fn take_buffers(&mut self) -> (&'a mut [K], &'a mut [K]) {
        self.rows = 0;
        self.len = 0;
        (
            core::mem::take(&mut self.row_offsets),
            core::mem::take(&mut self.values),
        )
    }

    fn values_error(&self, n: usize) -> CsrCapacity {
        CsrCapacity::Values(CapacityError {
            needed: self.len.saturating_add(n),
            available: self.values.len(),
        })
    }
}

/// A read-only CSR: `row_offsets` (non-decreasing, from 0, `rows + 1` entries) and `values`.
#[derive(Debug, Clone, Copy)]
pub struct CsrView<'a, K> {
    row_offsets: &'a [K],
    values: &'a [K],
}

/// Why slices are not a valid CSR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CsrError {
    /// No `offset[0]`.
    NoOffsets,
    /// `offset[0]` is not 0.
    FirstOffset,
    /// `offset[row + 1]` is below `offset[row]`, negative, or past the values.
    Offset {
        /// The row whose end offset is wrong.
        row: usize,
    },
    /// The last offset is not `values.len()`.
    LastOffset,
}

impl core::fmt::Display for CsrError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoOffsets => f.write_str("CSR has no row offsets"),
            Self::FirstOffset => f.write_str("CSR offset[0] is not 0"),
            Self::Offset { row } => {
                write!(f, "CSR row {row} ends before it starts or past the values")
            }
            Self::LastOffset => f.write_str("CSR last offset is not the number of values"),
        }
    }
}

impl core::error::Error for CsrError {}

impl<'a, K: Key> CsrView<'a, K> {
    /// Checks untrusted slices: offsets start at 0, never decrease, and end at `values.len()`.
    pub fn new(row_offsets: &'a [K], values: &'a [K]) -> Result<Self, CsrError> {
        let (first, _) = row_offsets.split_first().ok_or(CsrError::NoOffsets)?;
        if first.to_index() != Some(0) {
            return Err(CsrError::FirstOffset);
        }
        // From 0, never decreasing, ending at `values.len()`: then every offset is in range.
        // Checked without a branch per row first (it vectorises; a resumed batch checks tens
        // of thousands of rows); the loop below only runs to name what is wrong.
        let rising = row_offsets
            .iter()
            .zip(&row_offsets[1..])
            .fold(true, |ok, (a, b)| ok & (a <= b));
        let ends = row_offsets.last().and_then(|k| k.to_index()) == Some(values.len());
        if rising && ends {
            return Ok(Self {
                row_offsets,
                values,
            });
        }
        let mut prev = 0usize;
        for (row, k) in row_offsets[1..].iter().enumerate() {
            match k.to_index() {
                Some(o) if o >= prev && o <= values.len() => prev = o,
                _ => return Err(CsrError::Offset { row }),
            }
        }
        if prev != values.len() {
            return Err(CsrError::LastOffset);
        }
        Ok(Self {
            row_offsets,
            values,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.row_offsets.len() - 1
    }

    /// Number of values.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The `rows + 1` row offsets.
    pub fn row_offsets(&self) -> &'a [K] {
        self.row_offsets
    }

    /// All values, row after row.
    pub fn values(&self) -> &'a [K] {
        self.values
    }

    /// The values of row `row`, if it exists.
    pub fn row(&self, row: usize) -> Option<&'a [K]> {
        let start = self.row_offsets.get(row)?.to_index()?;
        let end = self.row_offsets.get(row + 1)?.to_index()?;
        self.values.get(start..end)
    }

    /// Rows in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a [K]> + '_ {
        let values = self.values;
        self.row_offsets.windows(2).map(move |w| {
            // Valid by construction (checked in `new`, or maintained by `Csr`).
            let (s, e) = (w[0].to_index().unwrap_or(0), w[1].to_index().unwrap_or(0));
            values.get(s..e).unwrap_or(&[])
        })
    }
}
