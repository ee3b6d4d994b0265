//! [`RowCursor`]: ML.NET's `DataViewRowCursor` without allocation: a forward-only walk over
//! rows whose getters fill values the caller owns.

use super::error::CursorError;
use super::rowid::RowId;
use super::schema::{ColumnKind, Scalar, ScalarType, Schema, ValueType};
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// A forward-only cursor over rows.
///
/// # Contract
/// - **Fused.** Once [`move_next`](Self::move_next) has returned `Ok(false)` or an error, it
///   returns `Ok(false)` on every later call: never `true`, never an error.
/// - **Batches.** [`batch`](Self::batch) never decreases from one call to the next. A lone
///   cursor may report 0 throughout; cursors of one set (partitions of the same rows) report
///   disjoint batch values, so that a stable sort of their rows by batch gives the rows of the
///   serial cursor in order.
/// - **Ids.** [`id`](Self::id) is unique among this cursor's rows (improbable to collide,
///   strictly), follows [`RowId`]'s acceptable-set rules, and is the same for the same row in
///   every cursor over the same data, whatever the order.
/// - **Getters** read the current row. Off a row they fail with
///   [`CursorError::BeforeFirst`] or [`CursorError::Finished`]; a column index past the
///   schema is [`CursorError::ColumnOutOfRange`] and a getter of the wrong shape
///   [`CursorError::WrongType`], never a panic. Getters fill a destination the caller owns
///   (ML.NET's `ValueGetter` pattern), reusing its arrays, so a loop over rows allocates
///   nothing after the first row.
///
/// # Why generic getters
/// [`get_vector`](Self::get_vector) and [`get_string`](Self::get_string) are generic over the
/// destination's storage and heap, so one cursor fills inline fixed-capacity vectors on
/// firmware and growable ones in `tessera-alloc` alike, each monomorphised into a direct
/// fill. The price is that `RowCursor` is not object-safe: adapters hold their input as a
/// type parameter rather than `dyn RowCursor`, which also lets a whole pipeline inline.
///
/// # Errors
/// [`Error`](Self::Error) is the cursor's own type, so a source can report its own decode
/// failures; it converts from [`CursorError`], so adapters report the shared ones through it.
pub trait RowCursor {
    /// What can go wrong; [`CursorError`] itself for cursors with no errors of their own.
    type Error: From<CursorError>;

    /// The columns every row has.
    fn schema(&self) -> Schema<'_>;

    /// Moves to the next row: `Ok(true)` if there is one, `Ok(false)` at the end. Fused (see
    /// the trait's contract).
    fn move_next(&mut self) -> Result<bool, Self::Error>;

    /// The current row's batch; before the first row 0, after the end the last row's. Never
    /// decreases.
    fn batch(&self) -> u64;

    /// Index of the current row among the rows this cursor has yielded (0 for the first),
    /// `None` off a row.
    fn position(&self) -> Option<u64>;

    /// The current row's id; off a row [`CursorError::BeforeFirst`] or
    /// [`CursorError::Finished`].
    fn id(&self) -> Result<RowId, CursorError>;

    /// The scalar in column `col` of the current row, of the column's type.
    fn get_scalar(&self, col: usize) -> Result<Scalar, Self::Error>;

    /// Fills `dst` with the `f32` vector in column `col` of the current row (a dense or a
    /// sparse vector column). A destination too small reports
    /// [`CursorError::Vector`] with [`SparseError::Capacity`](crate::sparse::SparseError);
    /// on any error `dst` is left a valid vector of unspecified contents.
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error>;

    /// Fills `dst` with a copy of the bytes in string column `col` of the current row. Strings
    /// over 22 bytes need a heap `H` ([`CursorError::String`] otherwise); on any error `dst`
    /// is left a valid string of unspecified contents.
    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error>;

    /// Fills `dst` with the `f32` in column `col` of the current row.
    #[inline]
    fn get_f32(&self, col: usize, dst: &mut f32) -> Result<(), Self::Error> {
        match typed_scalar(self, col, ScalarType::F32)? {
            Scalar::F32(v) => *dst = v,
            other => return Err(mismatch(col, ScalarType::F32, other).into()),
        }
        Ok(())
    }

    /// Fills `dst` with the `f64` in column `col` of the current row.
    #[inline]
    fn get_f64(&self, col: usize, dst: &mut f64) -> Result<(), Self::Error> {
        match typed_scalar(self, col, ScalarType::F64)? {
            Scalar::F64(v) => *dst = v,
            other => return Err(mismatch(col, ScalarType::F64, other).into()),
        }
        Ok(())
    }

    /// Fills `dst` with the `i64` in column `col` of the current row.
    #[inline]
    fn get_i64(&self, col: usize, dst: &mut i64) -> Result<(), Self::Error> {
        match typed_scalar(self, col, ScalarType::I64)? {
            Scalar::I64(v) => *dst = v,
            other => return Err(mismatch(col, ScalarType::I64, other).into()),
        }
        Ok(())
    }

    /// Fills `dst` with the `u64` in column `col` of the current row.
    #[inline]
    fn get_u64(&self, col: usize, dst: &mut u64) -> Result<(), Self::Error> {
        match typed_scalar(self, col, ScalarType::U64)? {
            Scalar::U64(v) => *dst = v,
            other => return Err(mismatch(col, ScalarType::U64, other).into()),
        }
        Ok(())
    }

    /// Fills `dst` with the `bool` in column `col` of the current row.
    #[inline]
    fn get_bool(&self, col: usize, dst: &mut bool) -> Result<(), Self::Error> {
        match typed_scalar(self, col, ScalarType::Bool)? {
            Scalar::Bool(v) => *dst = v,
            other => return Err(mismatch(col, ScalarType::Bool, other).into()),
        }
        Ok(())
    }
}

/// The scalar of column `col`, after checking the schema says it has type `ty`: a wrong
/// getter is reported against the declared column, not whatever the source returned.
fn typed_scalar<C: RowCursor + ?Sized>(
    cursor: &C,
    col: usize,
    ty: ScalarType,
) -> Result<Scalar, C::Error> {
    cursor.schema().check_column(col, ValueType::Scalar(ty))?;
    cursor.get_scalar(col)
}

/// A source that returned a scalar of another type than its schema declares.
fn mismatch(col: usize, asked: ScalarType, got: Scalar) -> CursorError {
    CursorError::WrongType {
        col,
        asked: ValueType::Scalar(asked),
        found: ColumnKind::Scalar(got.scalar_type()),
    }
}

impl<C: RowCursor> RowCursor for &mut C {
    type Error = C::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        (**self).schema()
    }
    #[inline]
    fn move_next(&mut self) -> Result<bool, Self::Error> {
        (**self).move_next()
    }
    #[inline]
    fn batch(&self) -> u64 {
        (**self).batch()
    }
    #[inline]
    fn position(&self) -> Option<u64> {
        (**self).position()
    }
    #[inline]
    fn id(&self) -> Result<RowId, CursorError> {
        (**self).id()
    }
    #[inline]
    fn get_scalar(&self, col: usize) -> Result<Scalar, Self::Error> {
        (**self).get_scalar(col)
    }
    #[inline]
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error> {
        (**self).get_vector(col, dst)
    }
    #[inline]
    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error> {
        (**self).get_string(col, dst)
    }
}
