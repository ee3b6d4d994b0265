//! [`ShuffleCursor`]: a table's rows in a seeded random order, through a pool of row numbers
//! the caller provides (ML.NET's pool shuffle, without copying rows).

use super::error::CursorError;
use super::rng::SplitMix64;
use super::row_cursor::RowCursor;
use super::rowid::RowId;
use super::schema::{Scalar, Schema};
use super::state::RowProgress;
use super::table::Table;
use crate::error::CapacityError;
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Every row of a [`Table`] exactly once, in an order fixed by the seed.
///
/// The pool holds row *numbers*, not rows (the table reads any row by number, so nothing is
/// copied): it starts with the first `pool.len()` rows; each step takes a uniformly random
/// slot's row and refills the slot with the next unread row. With a pool at least as long as
/// the table this is a uniform random permutation; with a shorter one, ML.NET's streaming
/// pool shuffle: a row comes out at most `pool.len() - 1` places before its table position,
/// which is what lets a pass over a huge table shuffle in fixed memory.
///
/// Ids are the table's, unchanged, so per-row state follows its row across passes with
/// different seeds. A shuffled cursor is a lone serial cursor: every row is in batch 0.
#[derive(Debug)]
pub struct ShuffleCursor<'p, T> {
    table: T,
    pool: &'p mut [u64],
    /// Slots `..filled` of the pool hold rows not yet yielded.
    filled: usize,
    /// The first row never put in the pool.
    unread: u64,
    rows: u64,
    rng: SplitMix64,
    progress: RowProgress,
    current: u64,
}

impl<'p, T: Table> ShuffleCursor<'p, T> {
    /// The rows of `table` in the order `seed` gives, shuffled through `pool` (its contents
    /// are overwritten).
    ///
    /// Errors: [`CursorError::Capacity`] for an empty pool.
    pub fn new(table: T, pool: &'p mut [u64], seed: u64) -> Result<Self, CursorError> {
        if pool.is_empty() {
            return Err(CapacityError {
                needed: 1,
                available: 0,
            }
            .into());
        }
        let rows = table.row_count();
        Ok(ShuffleCursor {
            table,
            pool,
            filled: 0,
            unread: 0,
            rows,
            rng: SplitMix64::new(seed),
            progress: RowProgress::new(),
            current: 0,
        })
    }

    /// The table.
    #[inline]
    pub fn table(&self) -> &T {
        &self.table
    }

    /// The table row the cursor is on, `None` off a row.
    #[inline]
    pub fn row(&self) -> Option<u64> {
        self.progress.is_on_row().then_some(self.current)
    }

    #[inline]
    fn current(&self) -> Result<u64, CursorError> {
        self.progress.check_row().map(|()| self.current)
    }

    /// Takes a random row out of the pool and refills its slot; `None` once the table and
    /// the pool are both exhausted.
    fn draw(&mut self) -> Option<u64> {
        // Only the first draw finds room: after it, every draw that empties a slot refills it
        // until the table runs out.
        while self.filled < self.pool.len() && self.unread < self.rows {
            *self.pool.get_mut(self.filled)? = self.unread;
            self.filled += 1;
            self.unread += 1;
        }
        let live = self.pool.get_mut(..self.filled)?;
        let last = live.len().checked_sub(1)?;
        // `below` is under `filled`, itself a `usize`, so the cast back is exact.
        let slot = self.rng.below(live.len() as u64) as usize;
        let row = *live.get(slot)?;
        if self.unread < self.rows {
            *live.get_mut(slot)? = self.unread;
            self.unread += 1;
        } else {
            // The pool is a bag: the last live row fills the hole, and the live part shrinks.
            live.swap(slot, last);
            self.filled = last;
        }
        Some(row)
    }
}

impl<T: Table> RowCursor for ShuffleCursor<'_, T> {
    type Error = T::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        self.table.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let mut progress = self.progress;
        let found = progress.advance(|| -> Result<bool, T::Error> {
            Ok(match self.draw() {
                Some(row) => {
                    self.current = row;
                    true
                }
                None => false,
            })
        });
        self.progress = progress;
        found
    }

    #[inline]
    fn batch(&self) -> u64 {
        0
    }

    #[inline]
    fn position(&self) -> Option<u64> {
        self.progress.position()
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
