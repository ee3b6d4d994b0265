//! [`ExpandCursor`]: a one-to-many transform; each input row becomes `k` output rows, with
//! ids derived the way ML.NET derives them (fork, then next).

use super::error::CursorError;
use super::row_cursor::RowCursor;
use super::rowid::RowId;
use super::schema::{Scalar, Schema};
use super::state::RowProgress;
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Yields each input row `count(&input)` times (zero included), as the outputs
/// `0..k` of that row.
///
/// Output `0` of an input with id `id` has id `id.fork()`, output `j + 1` the
/// [`next`](RowId::next) of output `j`'s: acceptable-set rule 4, so the outputs of all rows
/// are as unlikely to collide as the inputs, and none takes an input's id.
///
/// The getters read the input row, so every output of a row reads the same values; a
/// transform that makes the outputs differ wraps this cursor and reads
/// [`index`](Self::index) to know which output it is on (ML.NET's ungrouping transforms work
/// this way). Batches are the input's; positions count output rows.
#[derive(Debug, Clone)]
pub struct ExpandCursor<C, F> {
    input: C,
    count: F,
    progress: RowProgress,
    /// Outputs of the current input row, and which one the cursor is on.
    outputs: u64,
    index: u64,
    id: RowId,
}

impl<C, F> ExpandCursor<C, F>
where
    C: RowCursor,
    F: FnMut(&C) -> Result<u64, C::Error>,
{
    /// `count` outputs for each row of `input`; `count` reads the row through the input's
    /// getters.
    pub fn new(input: C, count: F) -> Self {
        ExpandCursor {
            input,
            count,
            progress: RowProgress::new(),
            outputs: 0,
            index: 0,
            id: RowId::new(0, 0),
        }
    }

    /// Which output of the current input row the cursor is on (`0..k`), `None` off a row.
    #[inline]
    pub fn index(&self) -> Option<u64> {
        self.progress.is_on_row().then_some(self.index)
    }

    /// The input cursor, on the row the current output comes from.
    #[inline]
    pub fn input(&self) -> &C {
        &self.input
    }
}

impl<C, F> RowCursor for ExpandCursor<C, F>
where
    C: RowCursor,
    F: FnMut(&C) -> Result<u64, C::Error>,
{
    type Error = C::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        self.input.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let Self {
            input,
            count,
            progress,
            outputs,
            index,
            id,
            ..
        } = self;
        let on_row = progress.is_on_row();
        progress.advance(|| -> Result<bool, C::Error> {
            if on_row && *index + 1 < *outputs {
                *index += 1;
                *id = id.next();
                return Ok(true);
            }
            while input.move_next()? {
                let k = count(input)?;
                if k > 0 {
                    *outputs = k;
                    *index = 0;
                    *id = input.id()?.fork();
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
        self.progress.check_row().map(|()| self.id)
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
