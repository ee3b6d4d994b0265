//! [`PartitionCursor`]: one worker's share of a deterministic cursor, batch by batch, so
//! that `n` workers running the same cursor (the same seed, the same source) together read
//! every row once and their outputs, merged by batch, are the serial order.

use core::num::NonZeroU64;

use super::error::CursorError;
use super::row_cursor::RowCursor;
use super::rowid::RowId;
use super::schema::{Scalar, Schema};
use super::state::RowProgress;
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Numbers the input's rows in batches of `batch_size` (row `r` in batch `r / batch_size`)
/// and yields only the batches `b` with `b % workers == worker`.
///
/// This is how a cursor set splits a cursor whose order is decided as it goes, such as a
/// [`ShuffleCursor`](super::ShuffleCursor): every worker runs the same input (same seed),
/// moves past the other workers' rows without reading them (getters are lazy, so that costs
/// only the input's `move_next`), and reads its own. Sorting the workers' rows by batch,
/// stably, gives exactly the serial cursor's rows — `PartitionCursor::new(input, size, 0, 1)`
/// — with the same ids. Ids are the input's; batches are the partition's numbering.
///
/// ```
/// use core::num::NonZeroU64;
/// use tessera_core::cursor::{PartitionCursor, RowCursor, RowId, ShuffleCursor};
/// # use tessera_core::cursor::{Column, ColumnKind, CursorError, Row, RowSlice, Scalar, ScalarType, Schema};
/// # use tessera_core::sparse::{StorageMut, VBuffer};
/// # use tessera_core::tstring::{StringHeap, TString};
/// # struct R(f32);
/// # impl Row for R {
/// #     type Error = CursorError;
/// #     fn get_scalar(&self, _: usize) -> Result<Scalar, CursorError> { Ok(Scalar::F32(self.0)) }
/// #     fn get_vector<S: StorageMut<Elem = f32>>(&self, col: usize, _: &mut VBuffer<S>) -> Result<(), CursorError> {
/// #         Err(CursorError::ColumnOutOfRange { col, columns: 1 })
/// #     }
/// #     fn get_string<H: StringHeap>(&self, col: usize, _: &mut TString<'_, H>) -> Result<(), CursorError> {
/// #         Err(CursorError::ColumnOutOfRange { col, columns: 1 })
/// #     }
/// # }
/// # const COLUMNS: [Column<'static>; 1] = [Column::new("x", ColumnKind::Scalar(ScalarType::F32))];
/// let rows: Vec<R> = (0..10).map(|i| R(i as f32)).collect();
/// let table = RowSlice::new(Schema::new(&COLUMNS), &rows);
/// let size = NonZeroU64::new(3).unwrap();
/// let read = |worker, workers| {
///     let mut pool = [0u64; 4];
///     let shuffled = ShuffleCursor::new(&table, &mut pool, 42).unwrap();
///     let mut c = PartitionCursor::new(shuffled, size, worker, workers);
///     let mut out = Vec::new();
///     while c.move_next().unwrap() {
///         out.push((c.batch(), c.id().unwrap()));
///     }
///     out
/// };
/// let serial = read(0, 1);
/// let mut merged: Vec<(u64, RowId)> = (0..2).flat_map(|w| read(w, 2)).collect();
/// merged.sort_by_key(|r| r.0); // stable
/// assert_eq!(merged, serial);
/// ```
#[derive(Debug, Clone)]
pub struct PartitionCursor<C> {
    input: C,
    batch_size: NonZeroU64,
    worker: u64,
    workers: u64,
    /// Input rows moved past so far.
    seen: u64,
    /// The current row's batch.
    batch: u64,
    progress: RowProgress,
}

impl<C: RowCursor> PartitionCursor<C> {
    /// Worker `worker` of `workers` over `input` in batches of `batch_size` rows.
    /// `workers == 0` is taken as 1, and `worker` modulo `workers`.
    pub fn new(input: C, batch_size: NonZeroU64, worker: u64, workers: u64) -> Self {
        let workers = workers.max(1);
        PartitionCursor {
            input,
            batch_size,
            worker: worker % workers,
            workers,
            seen: 0,
            batch: 0,
            progress: RowProgress::new(),
        }
    }

    /// The input cursor.
    #[inline]
    pub fn input(&self) -> &C {
        &self.input
    }
}

impl<C: RowCursor> RowCursor for PartitionCursor<C> {
    type Error = C::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        self.input.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let (input, seen, batch) = (&mut self.input, &mut self.seen, &mut self.batch);
        let (size, worker, workers) = (self.batch_size.get(), self.worker, self.workers);
        self.progress.advance(|| -> Result<bool, C::Error> {
            while input.move_next()? {
                let b = *seen / size;
                *seen += 1;
                if b % workers == worker {
                    *batch = b;
                    return Ok(true);
                }
            }
            Ok(false)
        })
    }

    #[inline]
    fn batch(&self) -> u64 {
        self.batch
    }

    #[inline]
    fn position(&self) -> Option<u64> {
        self.progress.position()
    }

    #[inline]
    fn id(&self) -> Result<RowId, CursorError> {
        self.progress.check_row()?;
        self.input.id()
    }

    #[inline]
    fn get_scalar(&self, col: usize) -> Result<Scalar, Self::Error> {
        self.progress.check_row()?;
        self.input.get_scalar(col)
    }

    #[inline]
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error> {
        self.progress.check_row()?;
        self.input.get_vector(col, dst)
    }

    #[inline]
    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error> {
        self.progress.check_row()?;
        self.input.get_string(col, dst)
    }
}
