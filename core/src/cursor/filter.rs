//! [`FilterCursor`]: the input's rows that pass a predicate, with the input's ids (a subset
//! of an acceptable set is acceptable).

use super::error::CursorError;
use super::row_cursor::RowCursor;
use super::rowid::RowId;
use super::schema::{Scalar, Schema};
use super::state::RowProgress;
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Skips the input's rows for which `predicate` returns `Ok(false)`.
///
/// The predicate reads the candidate row through the input's getters. It returns a `Result`
/// so that a row that cannot be decoded ends the cursor with the decode error instead of
/// being silently dropped. Ids and batches are the input's; positions count the rows that
/// passed.
#[derive(Debug, Clone)]
pub struct FilterCursor<C, P> {
    input: C,
    predicate: P,
    progress: RowProgress,
}

impl<C, P> FilterCursor<C, P>
where
    C: RowCursor,
    P: FnMut(&C) -> Result<bool, C::Error>,
{
    /// The rows of `input` for which `predicate` holds.
    pub fn new(input: C, predicate: P) -> Self {
        FilterCursor {
            input,
            predicate,
            progress: RowProgress::new(),
        }
    }

    /// The input cursor.
    #[inline]
    pub fn input(&self) -> &C {
        &self.input
    }

    /// The input cursor back.
    pub fn into_input(self) -> C {
        self.input
    }
}

impl<C, P> RowCursor for FilterCursor<C, P>
where
    C: RowCursor,
    P: FnMut(&C) -> Result<bool, C::Error>,
{
    type Error = C::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        self.input.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let (input, predicate) = (&mut self.input, &mut self.predicate);
        self.progress.advance(|| -> Result<bool, C::Error> {
            while input.move_next()? {
                if predicate(input)? {
                    return Ok(true);
                }
            }
            Ok(false)
        })
    }

    #[inline]
    fn batch(&self) -> u64 {
        self.input.batch()
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
