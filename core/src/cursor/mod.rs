//! Row cursors: ML.NET's `DataViewRowCursor` and `DataViewRowId` over caller memory.
//!
//! A [`RowCursor`] walks rows forward; its getters fill values the caller owns (scalars,
//! [`VBuffer`](crate::sparse::VBuffer) vectors, [`TString`](crate::tstring::TString)s), so a
//! pass allocates nothing after the first row. Every row has a 128-bit [`RowId`] that stays
//! with it through shuffles, filters and one-to-many transforms, and a batch number that lets
//! the rows of a cursor set be put back in order.
//!
//! ## Contract (every cursor here keeps it; see [`RowCursor`])
//! - `move_next` is fused: after `Ok(false)` or an error it returns `Ok(false)` forever
//!   ([`CursorState`] enforces it in one place, whatever the input does).
//! - `batch` never decreases; ids are unique in a cursor and built only by [`RowId`]'s
//!   acceptable-set rules.
//! - Getters never panic: a bad column, a wrong type or no current row is a [`CursorError`].
//!
//! ## Pieces
//! - [`RowId`]: ids and ML.NET's `fork` / `next` / `combine` (MurmurHash3 rounds).
//! - [`Schema`], [`Column`], [`ColumnKind`], [`Scalar`]: what the columns hold, borrowed.
//! - [`Table`]: rows readable by number; [`RowSlice`] makes one from a slice of [`Row`]s.
//! - [`SliceCursor`]: a table's rows in order (one member of a cursor set, with batches).
//! - [`FilterCursor`]: rows passing a predicate, ids passed through.
//! - [`ExpandCursor`]: `k` outputs per input row, ids `fork` then `next`.
//! - [`ShuffleCursor`]: a table's rows in a seeded order through a caller's pool
//!   ([`SplitMix64`]), ids passed through.
//! - [`PartitionCursor`]: one worker's batches of a deterministic cursor (a seeded shuffle),
//!   so a cursor set merged by batch is the serial order.
//!
//! ## Example
//! ```
//! use tessera_core::cursor::{
//!     Column, ColumnKind, CursorError, FilterCursor, Row, RowCursor, RowId, RowSlice, Scalar,
//!     ScalarType, Schema, SliceCursor,
//! };
//! use tessera_core::sparse::{InlineVBuffer, Slices, StorageMut, VBuffer};
//! use tessera_core::tstring::{StringHeap, TString};
//!
//! struct Sample {
//!     label: f32,
//!     features: [f32; 3],
//! }
//!
//! // The schema has been checked before these are called: `col` is 0 or 1 and of its kind.
//! impl Row for Sample {
//!     type Error = CursorError;
//!     fn get_scalar(&self, _col: usize) -> Result<Scalar, CursorError> {
//!         Ok(Scalar::F32(self.label))
//!     }
//!     fn get_vector<S: StorageMut<Elem = f32>>(
//!         &self,
//!         _col: usize,
//!         dst: &mut VBuffer<S>,
//!     ) -> Result<(), CursorError> {
//!         let features = VBuffer::try_dense(Slices::dense(&self.features[..]))
//!             .map_err(|e| e.error)?;
//!         Ok(features.copy_to(dst)?)
//!     }
//!     fn get_string<H: StringHeap>(
//!         &self,
//!         col: usize,
//!         _dst: &mut TString<'_, H>,
//!     ) -> Result<(), CursorError> {
//!         Err(CursorError::ColumnOutOfRange { col, columns: 2 })
//!     }
//! }
//!
//! const COLUMNS: [Column<'static>; 2] = [
//!     Column::new("label", ColumnKind::Scalar(ScalarType::F32)),
//!     Column::new("features", ColumnKind::DenseVector { len: 3 }),
//! ];
//! let rows = [
//!     Sample { label: 1.0, features: [1.0, 2.0, 3.0] },
//!     Sample { label: 0.0, features: [0.0; 3] },
//!     Sample { label: 1.0, features: [4.0, 5.0, 6.0] },
//! ];
//! let table = RowSlice::new(Schema::new(&COLUMNS), &rows);
//!
//! // Positive rows only; the destinations live outside the loop and are refilled.
//! let mut label = 0.0f32;
//! let mut features: InlineVBuffer<f32, 3> = VBuffer::default();
//! let mut cursor = FilterCursor::new(SliceCursor::new(&table), |c: &SliceCursor<_>| {
//!     let mut label = 0.0f32;
//!     c.get_f32(0, &mut label)?;
//!     Ok(label > 0.0)
//! });
//! let mut ids = [RowId::default(); 2];
//! let mut sum = 0.0;
//! while cursor.move_next()? {
//!     cursor.get_f32(0, &mut label)?;
//!     cursor.get_vector(1, &mut features)?;
//!     sum += label * features.sum();
//!     ids[cursor.position().unwrap_or(0) as usize] = cursor.id()?;
//! }
//! assert_eq!(sum, 21.0);
//! assert_eq!(ids, [RowId::from_position(0), RowId::from_position(2)]); // passed through
//! assert!(!cursor.move_next()?); // fused
//! assert_eq!(cursor.get_f32(0, &mut label), Err(CursorError::Finished));
//! # Ok::<(), CursorError>(())
//! ```

mod error;
mod expand;
mod filter;
mod partition;
mod rng;
mod row_cursor;
mod rowid;
mod schema;
mod shuffle;
mod slice;
mod state;
mod table;

pub use error::CursorError;
pub use expand::ExpandCursor;
pub use filter::FilterCursor;
pub use partition::PartitionCursor;
pub use rng::SplitMix64;
pub use row_cursor::RowCursor;
pub use rowid::RowId;
pub use schema::{Column, ColumnKind, Scalar, ScalarType, Schema, ValueType};
pub use shuffle::ShuffleCursor;
pub use slice::SliceCursor;
pub use state::{CursorState, RowProgress};
pub use table::{Row, RowSlice, Table};

#[cfg(test)]
mod tests;
