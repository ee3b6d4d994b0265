//! What can go wrong reading a cursor that is not the source's own business: a column that
//! is not there or holds something else, no current row, a destination too small.

use core::fmt;

use super::schema::{ColumnKind, ValueType};
use crate::error::CapacityError;
use crate::sparse::SparseError;
use crate::tstring::TStringError;

/// Why a cursor call failed, for the failures every cursor shares.
///
/// A cursor's own error type ([`RowCursor::Error`](super::RowCursor::Error)) must convert
/// from this one, so sources can add their decode errors while adapters still report these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CursorError {
    /// A column index at or past the number of columns.
    ColumnOutOfRange {
        /// The index asked for.
        col: usize,
        /// The number of columns.
        columns: usize,
    },
    /// A getter asked a column for a value it does not hold.
    WrongType {
        /// The column.
        col: usize,
        /// What the getter asked for.
        asked: ValueType,
        /// What the column holds.
        found: ColumnKind,
    },
    /// A row index at or past the number of rows of a [`Table`](super::Table).
    RowOutOfRange {
        /// The row asked for.
        row: u64,
        /// The number of rows.
        rows: u64,
    },
    /// A getter (or a transform's callback) ran before the first `move_next`.
    BeforeFirst,
    /// A getter ran after `move_next` returned `false` or failed.
    Finished,
    /// The destination vector could not take the row's vector (its storage is too small, or
    /// the source produced an invalid one).
    Vector(SparseError),
    /// The destination string could not take the row's bytes (a string over 22 bytes needs
    /// a heap).
    String(TStringError),
    /// A caller-provided buffer (a shuffle pool) is too small; `needed` counts elements.
    Capacity(CapacityError),
}

impl From<SparseError> for CursorError {
    fn from(e: SparseError) -> Self {
        CursorError::Vector(e)
    }
}

impl From<TStringError> for CursorError {
    fn from(e: TStringError) -> Self {
        CursorError::String(e)
    }
}

impl From<CapacityError> for CursorError {
    fn from(e: CapacityError) -> Self {
        CursorError::Capacity(e)
    }
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CursorError::ColumnOutOfRange { col, columns } => {
                write!(f, "column {col} out of range for {columns} columns")
            }
            CursorError::WrongType { col, asked, found } => {
                write!(f, "column {col} holds {found:?}, not {asked:?}")
            }
            CursorError::RowOutOfRange { row, rows } => {
                write!(f, "row {row} out of range for {rows} rows")
            }
            CursorError::BeforeFirst => f.write_str("no current row: move_next was not called"),
            CursorError::Finished => f.write_str("no current row: the cursor has ended"),
            CursorError::Vector(e) => write!(f, "vector column: {e}"),
            CursorError::String(e) => write!(f, "string column: {e}"),
            CursorError::Capacity(e) => write!(f, "cursor buffer: {e}"),
        }
    }
}

impl core::error::Error for CursorError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            CursorError::Vector(e) => Some(e),
            CursorError::String(e) => Some(e),
            CursorError::Capacity(e) => Some(e),
            _ => None,
        }
    }
}
