//! Random-access sources: a [`Table`] reads any row by number, which is what the serial
//! [`SliceCursor`](super::SliceCursor) and the [`ShuffleCursor`](super::ShuffleCursor) walk.
//! [`RowSlice`] makes one from a caller's slice of records that know how to fill columns.

use super::error::CursorError;
use super::rowid::RowId;
use super::schema::{Scalar, Schema, ValueType};
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Rows that can be read in any order by number (`0..row_count()`).
///
/// Every method checks its row and column and returns [`CursorError::RowOutOfRange`],
/// [`CursorError::ColumnOutOfRange`] or [`CursorError::WrongType`] rather than panicking.
pub trait Table {
    /// What can go wrong; converts from [`CursorError`].
    type Error: From<CursorError>;

    /// The columns every row has.
    fn schema(&self) -> Schema<'_>;

    /// Number of rows.
    fn row_count(&self) -> u64;

    /// Row `row`'s id. Rows are numbered as a loader numbers them unless a table overrides
    /// this (for instance to number from an offset).
    #[inline]
    fn id(&self, row: u64) -> RowId {
        RowId::from_position(row)
    }

    /// The scalar in column `col` of row `row`.
    fn get_scalar(&self, row: u64, col: usize) -> Result<Scalar, Self::Error>;

    /// Fills `dst` with the vector in column `col` of row `row`.
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        row: u64,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error>;

    /// Fills `dst` with a copy of the string in column `col` of row `row`.
    fn get_string<H: StringHeap>(
        &self,
        row: u64,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error>;
}

impl<T: Table> Table for &T {
    type Error = T::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        (**self).schema()
    }
    #[inline]
    fn row_count(&self) -> u64 {
        (**self).row_count()
    }
    #[inline]
    fn id(&self, row: u64) -> RowId {
        (**self).id(row)
    }
    #[inline]
    fn get_scalar(&self, row: u64, col: usize) -> Result<Scalar, Self::Error> {
        (**self).get_scalar(row, col)
    }
    #[inline]
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        row: u64,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error> {
        (**self).get_vector(row, col, dst)
    }
    #[inline]
    fn get_string<H: StringHeap>(
        &self,
        row: u64,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error> {
        (**self).get_string(row, col, dst)
    }
}

/// A record that fills the columns of a [`RowSlice`]'s schema from its own fields.
///
/// [`RowSlice`] checks the column index and kind against the schema before calling, so an
/// implementation only matches on `col`; for an index it does not expect, it should return
/// [`CursorError::ColumnOutOfRange`] (through `Error`) rather than panic.
pub trait Row {
    /// What can go wrong; converts from [`CursorError`].
    type Error: From<CursorError>;

    /// The scalar in scalar column `col`.
    fn get_scalar(&self, col: usize) -> Result<Scalar, Self::Error>;

    /// Fills `dst` with the vector in vector column `col`.
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error>;

    /// Fills `dst` with the string in string column `col`.
    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error>;
}

/// A [`Table`] over a caller's slice of records: row `i` is `rows[i]`.
#[derive(Debug)]
pub struct RowSlice<'a, R> {
    schema: Schema<'a>,
    rows: &'a [R],
}

impl<R> Clone for RowSlice<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for RowSlice<'_, R> {}

impl<'a, R: Row> RowSlice<'a, R> {
    /// The table of `rows`, whose columns are `schema`.
    #[inline]
    pub const fn new(schema: Schema<'a>, rows: &'a [R]) -> Self {
        RowSlice { schema, rows }
    }

    /// The records.
    #[inline]
    pub const fn rows(&self) -> &'a [R] {
        self.rows
    }

    /// Record `row`, checked against the schema's column `col` asked for as `asked`.
    fn record(&self, row: u64, col: usize, asked: ValueType) -> Result<&'a R, CursorError> {
        self.schema.check_column(col, asked)?;
        usize::try_from(row)
            .ok()
            .and_then(|i| self.rows.get(i))
            .ok_or(CursorError::RowOutOfRange {
                row,
                rows: self.row_count(),
            })
    }
}

impl<R: Row> Table for RowSlice<'_, R> {
    type Error = R::Error;

    #[inline]
    fn schema(&self) -> Schema<'_> {
        self.schema
    }

    #[inline]
    fn row_count(&self) -> u64 {
        // `usize` is at most 64 bits on every target Rust supports.
        self.rows.len() as u64
    }

    #[inline]
    fn get_scalar(&self, row: u64, col: usize) -> Result<Scalar, Self::Error> {
        self.record(row, col, ValueType::AnyScalar)?.get_scalar(col)
    }

    #[inline]
    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        row: u64,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), Self::Error> {
        self.record(row, col, ValueType::Vector)?
            .get_vector(col, dst)
    }

    #[inline]
    fn get_string<H: StringHeap>(
        &self,
        row: u64,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error> {
        self.record(row, col, ValueType::String)?
            .get_string(col, dst)
    }
}
