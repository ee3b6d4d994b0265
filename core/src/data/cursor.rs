//! [`SampleCursor`]: a row cursor over sample batches (a Norm or Raw file, or one batch).

use core::fmt;

use super::batch::{Dims, SampleBatch};
use super::columns::{fill_sample_vector, sample_columns};
use super::error::DataError;
use super::key::Key;
use super::source::{BatchInfo, BatchSource};
use crate::cursor::{
    Column, CursorError, RowCursor, RowId, RowProgress, Scalar, Schema, ValueType,
};
use crate::sparse::{StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString};

/// Why a [`SampleCursor`] call failed: the source's decoding, or the cursor's use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SampleCursorError {
    /// The source's bytes are bad.
    Data(DataError),
    /// A getter misused (or a destination too small).
    Cursor(CursorError),
}

impl From<CursorError> for SampleCursorError {
    fn from(e: CursorError) -> Self {
        Self::Cursor(e)
    }
}

impl From<DataError> for SampleCursorError {
    fn from(e: DataError) -> Self {
        Self::Data(e)
    }
}

impl fmt::Display for SampleCursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Data(e) => write!(f, "{e}"),
            Self::Cursor(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for SampleCursorError {}

/// A row cursor over the samples of a [`BatchSource`], decoded into one caller batch that
/// is reused for every batch (so reading allocates nothing).
///
/// Row ids are [`RowId::from_position`] of the sample's position in the source, and
/// [`batch`](RowCursor::batch) is the source's batch number ([`BatchInfo`]), so cursors over
/// different batches of one source (a cursor set) agree with the serial cursor on both.
/// Under [`ErrorPolicy::Skip`](super::ErrorPolicy::Skip) a batch holds fewer samples than
/// records, and the samples after a skipped record in the same batch take ids one below
/// their record's position: still unique, and the same in serial and partitioned reads.
///
/// Columns: [`LABEL`](super::LABEL) and [`DENSE`](super::DENSE) (dense vectors), and
/// [`KEYS`](super::KEYS), every key of every slot as one sparse vector of length `u32::MAX`
/// holding at each key the number of times it occurs
/// ([`fill_key_counts`](super::fill_key_counts); keys must be below `u32::MAX`). Slot by
/// slot, with no copy, the keys are [`keys`](Self::keys).
///
/// ```
/// use tessera_core::cursor::RowCursor;
/// use tessera_core::data::{Dims, NormConfig, NormEncoder, NormSlice, SampleBatch, SampleCursor};
///
/// let config = NormConfig::new(Dims::new(1, 0, 2), 2);
/// let enc = NormEncoder::<u32>::new(config);
/// let mut file = [0u8; 128];
/// let mut n = enc.header(3, &mut file).unwrap();
/// for i in 0..3u32 {
///     n += enc.sample(&[i as f32], &[], &[&[i], &[9]], &mut file[n..]).unwrap();
/// }
/// let (mut ld, mut offsets, mut keys) = ([0f32; 2], [0u32; 5], [0u32; 8]);
/// let batch = SampleBatch::new(config.dims, &mut ld, &mut offsets, &mut keys).unwrap();
/// let mut cursor = SampleCursor::new(NormSlice::norm(config, &file[..n]), batch);
/// let mut seen = 0;
/// while cursor.move_next().unwrap() {
///     assert_eq!(cursor.keys(0), Some(&[seen][..]));
///     assert_eq!(cursor.batch(), u64::from(seen / 2)); // two samples per batch
///     seen += 1;
/// }
/// assert_eq!(seen, 3);
/// ```
#[derive(Debug)]
pub struct SampleCursor<'b, K: Key, S> {
    source: S,
    batch: SampleBatch<'b, K>,
    place: SamplePlace,
}

impl<'b, K: Key, S: BatchSource<K>> SampleCursor<'b, K, S> {
    /// A cursor over `source`, decoding into `batch` (cleared first).
    pub fn new(source: S, mut batch: SampleBatch<'b, K>) -> Self {
        batch.clear();
        let place = SamplePlace::new(batch.dims());
        Self {
            source,
            batch,
            place,
        }
    }

    /// The source (for its statistics).
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The batch holding the current row.
    pub fn current_batch(&self) -> &SampleBatch<'b, K> {
        &self.batch
    }

    /// The current sample's labels (empty off a row).
    pub fn labels(&self) -> &[f32] {
        self.row().and_then(|i| self.batch.labels(i)).unwrap_or(&[])
    }

    /// The current sample's dense features (empty off a row).
    pub fn dense(&self) -> &[f32] {
        self.row().and_then(|i| self.batch.dense(i)).unwrap_or(&[])
    }

    /// The current sample's keys in `slot`; `None` off a row or past `slot_num`.
    pub fn keys(&self, slot: usize) -> Option<&[K]> {
        self.batch.keys(self.row()?, slot)
    }

    fn row(&self) -> Option<usize> {
        self.place.row()
    }

    /// Every key of the current sample, slot after slot (empty off a row).
    fn sample_keys(&self) -> &[K] {
        let Some(i) = self.row() else {
            return &[];
        };
        let slots = self.batch.dims().slot_num;
        let csr = self.batch.csr();
        let offset = |row: usize| csr.row_offsets().get(row).and_then(|k| k.to_index());
        match (offset(i * slots), offset((i + 1) * slots)) {
            (Some(start), Some(end)) => csr.values().get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }
}

impl<K: Key, S: BatchSource<K>> RowCursor for SampleCursor<'_, K, S> {
    type Error = SampleCursorError;

    fn schema(&self) -> Schema<'_> {
        self.place.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let (source, batch) = (&mut self.source, &mut self.batch);
        Ok(self.place.advance(|place| {
            if place.next_in_batch(batch.samples()) {
                return Ok(true);
            }
            // A batch can come back empty (every record in it skipped): ask for the next.
            loop {
                batch.clear();
                match source.next_batch(batch)? {
                    Some(info) => {
                        place.start_batch(info);
                        if batch.samples() > 0 {
                            return Ok::<_, DataError>(true);
                        }
                    }
                    None => return Ok(false),
                }
            }
        })?)
    }

    fn batch(&self) -> u64 {
        self.place.batch()
    }

    fn position(&self) -> Option<u64> {
        self.place.position()
    }

    fn id(&self) -> Result<RowId, CursorError> {
        self.place.id()
    }

    fn get_scalar(&self, col: usize) -> Result<Scalar, Self::Error> {
        self.place.get_scalar(col)
    }

    fn get_vector<St: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<St>,
    ) -> Result<(), Self::Error> {
        let keys = self.sample_keys();
        self.place
            .get_vector(col, self.labels(), self.dense(), keys, dst)
    }

    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        _dst: &mut TString<'_, H>,
    ) -> Result<(), Self::Error> {
        self.place.get_string(col)
    }
}

/// Where a row cursor over decoded sample batches stands, and the columns it shows: the
/// batch it is in, the sample in that batch, the rows yielded. [`SampleCursor`] keeps one,
/// and so can a cursor over batches held elsewhere (`tessera-lite`'s cursor sets read
/// batches where their workers decoded them); both then number rows, report positions and
/// answer the getters alike.
#[derive(Debug, Clone)]
pub struct SamplePlace {
    progress: RowProgress,
    info: BatchInfo,
    /// The current sample in its batch.
    index: usize,
    columns: [Column<'static>; 3],
}

impl SamplePlace {
    /// Before the first row of batches of samples shaped `dims`.
    pub fn new(dims: Dims) -> Self {
        Self {
            progress: RowProgress::new(),
            info: BatchInfo {
                id: 0,
                first_row: 0,
            },
            index: 0,
            columns: sample_columns(dims),
        }
    }

    /// The current sample's index in its batch, `None` off a row.
    #[inline]
    pub fn row(&self) -> Option<usize> {
        self.progress.is_on_row().then_some(self.index)
    }

    /// One `move_next`: `step` moves the place (through [`next_in_batch`](Self::next_in_batch)
    /// and [`start_batch`](Self::start_batch)) and says whether it is on a row; fused, as
    /// [`RowProgress::advance`].
    pub fn advance<E>(
        &mut self,
        step: impl FnOnce(&mut Self) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let mut progress = self.progress;
        let outcome = progress.advance(|| step(self));
        self.progress = progress;
        outcome
    }

    /// Moves to the next sample of the current batch, which holds `samples`; `false` (and
    /// no move) if the cursor is not on a row or was on the batch's last sample.
    #[inline]
    pub fn next_in_batch(&mut self, samples: usize) -> bool {
        let more = self.progress.is_on_row() && self.index + 1 < samples;
        if more {
            self.index += 1;
        }
        more
    }

    /// Moves to the first sample of batch `info`.
    #[inline]
    pub fn start_batch(&mut self, info: BatchInfo) {
        self.info = info;
        self.index = 0;
    }

    /// [`RowCursor::schema`]: label, dense features, keys.
    pub fn schema(&self) -> Schema<'_> {
        Schema::new(&self.columns)
    }

    /// [`RowCursor::batch`]: the current batch's number.
    #[inline]
    pub fn batch(&self) -> u64 {
        self.info.id
    }

    /// [`RowCursor::position`].
    #[inline]
    pub fn position(&self) -> Option<u64> {
        self.progress.position()
    }

    /// [`RowCursor::id`]: the sample's position in the source.
    pub fn id(&self) -> Result<RowId, CursorError> {
        self.progress.check_row()?;
        Ok(RowId::from_position(
            self.info.first_row + self.index as u64,
        ))
    }

    /// [`RowCursor::get_scalar`]: no column is a scalar.
    pub fn get_scalar(&self, col: usize) -> Result<Scalar, SampleCursorError> {
        self.schema().check_column(col, ValueType::AnyScalar)?;
        Err(CursorError::ColumnOutOfRange { col, columns: 3 }.into())
    }

    /// [`RowCursor::get_vector`] for the current sample, whose `labels`, `dense` features
    /// and `keys` (every slot's) the cursor reads from wherever its batch is.
    pub fn get_vector<K: Key, St: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        labels: &[f32],
        dense: &[f32],
        keys: &[K],
        dst: &mut VBuffer<St>,
    ) -> Result<(), SampleCursorError> {
        self.schema().check_column(col, ValueType::Vector)?;
        self.progress.check_row()?;
        Ok(fill_sample_vector(col, labels, dense, keys, dst)?)
    }

    /// [`RowCursor::get_string`]: no column is a string.
    pub fn get_string(&self, col: usize) -> Result<(), SampleCursorError> {
        self.schema().check_column(col, ValueType::String)?;
        Err(CursorError::ColumnOutOfRange { col, columns: 3 }.into())
    }
}
