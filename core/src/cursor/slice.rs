//! [`SliceCursor`]: the serial cursor over a [`Table`]'s rows, in order; the shape every
//! data-path cursor (Norm, Raw, CSR batches) follows.

use core::num::NonZeroU64;
use core::ops::Range;

use super::error::CursorError;
use super::row_cursor::RowCursor;
use super::rowid::RowId;
use super::schema::{Scalar, Schema};
use super::state::CursorState;
use super::table::Table;
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Walks rows `start..end` of a table in order. Ids are the table's
/// ([`RowId::from_position`] unless the table says otherwise), so a serial, a partitioned and
/// a shuffled pass over one table agree on every row's id.
///
/// **Batches.** Without a batch size every row is in batch 0. With one, row `r` of the table
/// is in batch `r / batch_size`; cursors over disjoint row ranges split at multiples of the
/// batch size therefore form a cursor set: no two report the same batch, and sorting their
/// rows by batch restores the table's order.
#[derive(Debug, Clone)]
pub struct SliceCursor<T> {
    table: T,
    state: CursorState,
    /// The current row on a row; after the end the last one yielded (`start` if none), so
    /// `batch` keeps its value.
    row: u64,
    start: u64,
    end: u64,
    batch_size: Option<NonZeroU64>,
}

impl<T: Table> SliceCursor<T> {
    /// A cursor over every row of `table`, all in batch 0.
    pub fn new(table: T) -> Self {
        let end = table.row_count();
        SliceCursor {
            table,
            state: CursorState::BeforeFirst,
            row: 0,
            start: 0,
            end,
            batch_size: None,
        }
    }

    /// A cursor over `rows` of `table` (clamped to the table), row `r` in batch
    /// `r / batch_size`: one member of a cursor set.
    pub fn with_batches(table: T, rows: Range<u64>, batch_size: NonZeroU64) -> Self {
        let end = rows.end.min(table.row_count());
        let start = rows.start.min(end);
        SliceCursor {
            table,
            state: CursorState::BeforeFirst,
            row: start,
            start,
            end,
            batch_size: Some(batch_size),
        }
    }

    /// The table.
    #[inline]
    pub fn table(&self) -> &T {
        &self.table
    }

    /// The table row the cursor is on, `None` off a row.
    #[inline]
    pub fn row(&self) -> Option<u64> {
        self.state.is_on_row().then_some(self.row)
    }

    /// The current row, or why there is none.
    #[inline]
    fn current(&self) -> Result<u64, CursorError> {
        self.state.check_row().map(|()| self.row)
    }
}

impl<T: Table> RowCursor for SliceCursor<T> {
    type Error = T::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        self.table.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let (row, start, end) = (&mut self.row, self.start, self.end);
        let first = self.state == CursorState::BeforeFirst;
        self.state.advance(|| {
            let next = if first { start } else { *row + 1 };
            if next >= end {
                return Ok(false);
            }
            *row = next;
            Ok(true)
        })
    }

    #[inline]
    fn batch(&self) -> u64 {
        match (self.state, self.batch_size) {
            (CursorState::BeforeFirst, _) | (_, None) => 0,
            (_, Some(size)) => self.row / size,
        }
    }

    #[inline]
    fn position(&self) -> Option<u64> {
        self.row().map(|row| row - self.start)
    }

    #[inline]
    fn id(&self) -> Result<RowId, CursorError> {
        self.current().map(|row| self.table.id(row))
    }

    #[inline]
    fn get_scalar(&self, col: usize) -> Result<Scalar, Self::Error> {
        self.table.get_scalar(self.current()?, col)
    }

    #[inline]
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error> {
        self.table.get_vector(self.current()?, col, dst)
    }

    #[inline]
    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error> {
        self.table.get_string(self.current()?, col, dst)
    }
}
