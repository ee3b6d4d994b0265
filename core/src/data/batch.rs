//! A batch of samples in caller memory, in HugeCTR's layout: labels and dense features as one
//! `f32` row per sample, and the categorical keys as a CSR whose row `sample * slot_num + slot`
//! holds that slot's keys.

use super::csr::{Checkpoint, Csr, CsrCapacity, CsrError, CsrView};
use super::key::Key;

/// The shape of a sample: how many labels, dense features and categorical slots it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Dims {
    /// Labels per sample (`label_dim`).
    pub label_dim: usize,
    /// Dense features per sample (`dense_dim`).
    pub dense_dim: usize,
    /// Categorical slots per sample (`slot_num`).
    pub slot_num: usize,
}

impl Dims {
    /// Dims of `label_dim` labels, `dense_dim` dense features and `slot_num` slots.
    pub const fn new(label_dim: usize, dense_dim: usize, slot_num: usize) -> Self {
        Self {
            label_dim,
            dense_dim,
            slot_num,
        }
    }

    /// `label_dim + dense_dim`: the `f32`s per sample in the label/dense rows.
    pub const fn label_dense(&self) -> usize {
        self.label_dim + self.dense_dim
    }

    /// The buffer lengths (in elements) a batch of `samples` samples with at most `values` keys
    /// in all needs: `(label_dense, row_offsets, values)`. `None` on overflow.
    pub const fn buffer_lens(
        &self,
        samples: usize,
        values: usize,
    ) -> Option<(usize, usize, usize)> {
        let Some(ld) = samples.checked_mul(self.label_dense()) else {
            return None;
        };
        let Some(rows) = samples.checked_mul(self.slot_num) else {
            return None;
        };
        let Some(offsets) = rows.checked_add(1) else {
            return None;
        };
        Some((ld, offsets, values))
    }
}

/// Why a sample could not be added to a [`SampleBatch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BatchError {
    /// The batch holds `capacity` samples already.
    Full {
        /// Samples the batch has room for.
        capacity: usize,
    },
    /// The CSR ran out of value room (rows are sized with the batch, so only values can).
    Csr(CsrCapacity),
    /// A label or dense slice of the wrong length.
    Width {
        /// `"label"` or `"dense"`.
        what: &'static str,
        /// The configured dimension.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A sample finished with a number of slots other than `slot_num`.
    SlotCount {
        /// `slot_num`.
        expected: usize,
        /// Slots written.
        found: usize,
    },
    /// [`resume`](SampleBatch::resume) found the CSR offsets invalid.
    Resume(CsrError),
    /// The buffers hold no sample at all (`label_dense` too short for one row, or no room
    /// for `slot_num` CSR rows), or the dims are all zero.
    NoRoom,
}

impl core::fmt::Display for BatchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Full { capacity } => write!(f, "batch is full ({capacity} samples)"),
            Self::Csr(e) => write!(f, "{e}"),
            Self::Width {
                what,
                expected,
                found,
            } => {
                write!(f, "{what} has {found} values, {expected} expected")
            }
            Self::SlotCount { expected, found } => {
                write!(f, "sample has {found} slots, {expected} expected")
            }
            Self::Resume(e) => write!(f, "resumed batch: {e}"),
            Self::NoRoom => f.write_str("batch buffers hold no sample"),
        }
    }
}

impl core::error::Error for BatchError {}

impl From<CsrCapacity> for BatchError {
    fn from(e: CsrCapacity) -> Self {
        Self::Csr(e)
    }
}

/// Samples decoded into caller memory: `label_dense` (`samples x (label_dim + dense_dim)`
/// `f32`s) and a [`Csr`] of `samples x slot_num` rows.
///
/// Samples are added whole, through [`push_sample`](Self::push_sample) or a
/// [`SampleWriter`] that rolls its sample back unless [`finish`](SampleWriter::finish)ed,
/// so a batch never holds half a sample.
///
/// ```
/// use tessera_core::data::{Dims, SampleBatch};
///
/// let dims = Dims::new(1, 2, 3);
/// let (mut ld, mut offsets, mut keys) = ([0f32; 6], [0u32; 7], [0u32; 16]);
/// let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut keys).unwrap();
/// batch.push_sample(&[1.0], &[0.5, 0.25], &[&[7], &[], &[8, 9]]).unwrap();
/// assert_eq!(batch.samples(), 1);
/// assert_eq!(batch.dense(0), Some(&[0.5, 0.25][..]));
/// assert_eq!(batch.keys(0, 2), Some(&[8, 9][..]));
/// assert_eq!(batch.csr().row_offsets(), &[0, 1, 1, 3]);
/// ```
#[derive(Debug)]
pub struct SampleBatch<'a, K> {
    dims: Dims,
    label_dense: &'a mut [f32],
    csr: Csr<'a, K>,
    samples: usize,
    capacity: usize,
}

impl<'a, K: Key> SampleBatch<'a, K> {
    /// An empty batch over the caller's buffers; it holds as many samples as the shortest
    /// of `label_dense` (in rows of `label_dense()`) and `row_offsets` (in `slot_num` rows, plus
    /// one offset) allows. Keys share `values`; a full `values` is an error when it happens.
    pub fn new(
        dims: Dims,
        label_dense: &'a mut [f32],
        row_offsets: &'a mut [K],
        values: &'a mut [K],
    ) -> Result<Self, BatchError> {
        let by_ld = label_dense.len().checked_div(dims.label_dense());
        let by_rows = row_offsets
            .len()
            .saturating_sub(1)
            .checked_div(dims.slot_num);
        let capacity = match (by_ld, by_rows) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 0,
        };
        if capacity == 0 {
            return Err(BatchError::NoRoom);
        }
        let csr = Csr::new(row_offsets, values)?;
        Ok(Self {
            dims,
            label_dense,
            csr,
            samples: 0,
            capacity,
        })
    }

    /// A batch over buffers that already hold `samples` samples, written by an earlier
    /// batch over the same buffers (perhaps on another thread, which then sent the buffers
    /// and [`samples`](Self::samples)): the CSR offsets are checked, O(rows).
    pub fn resume(
        dims: Dims,
        label_dense: &'a mut [f32],
        row_offsets: &'a mut [K],
        values: &'a mut [K],
        samples: usize,
    ) -> Result<Self, BatchError> {
        let mut batch = Self::new(dims, label_dense, row_offsets, values)?;
        if samples > batch.capacity {
            return Err(BatchError::Full {
                capacity: batch.capacity,
            });
        }
        let (offsets, values) = batch.csr.take_buffers();
        batch.csr =
            Csr::resume(offsets, values, samples * dims.slot_num).map_err(BatchError::Resume)?;
        batch.samples = samples;
        Ok(batch)
    }

    /// The sample shape.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Samples held.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Samples the buffers have room for.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether another sample fits (in rows; keys may still run out).
    pub fn is_full(&self) -> bool {
        self.samples >= self.capacity
    }

    /// Empties the batch; the memory stays.
    pub fn clear(&mut self) {
        self.samples = 0;
        self.csr.clear();
    }

    /// Every sample's labels and dense features, `samples x (label_dim + dense_dim)`.
    pub fn label_dense(&self) -> &[f32] {
        &self.label_dense[..self.samples * self.dims.label_dense()]
    }

    /// The labels of `sample`.
    pub fn labels(&self, sample: usize) -> Option<&[f32]> {
        let row = self.row(sample)?;
        row.get(..self.dims.label_dim)
    }

    /// The dense features of `sample`.
    pub fn dense(&self, sample: usize) -> Option<&[f32]> {
        let row = self.row(sample)?;
        row.get(self.dims.label_dim..)
    }

    /// The keys of `slot` in `sample`.
    pub fn keys(&self, sample: usize, slot: usize) -> Option<&[K]> {
        if sample >= self.samples || slot >= self.dims.slot_num {
            return None;
        }
        self.csr.view().row(sample * self.dims.slot_num + slot)
    }

    /// The keys as HugeCTR's CSR: row `sample * slot_num + slot`.
    pub fn csr(&self) -> CsrView<'_, K> {
        self.csr.view()
    }

    /// Adds one whole sample; on error nothing is added.
    pub fn push_sample(
        &mut self,
        label: &[f32],
        dense: &[f32],
        slots: &[&[K]],
    ) -> Result<(), BatchError> {
        check_width("label", self.dims.label_dim, label.len())?;
        check_width("dense", self.dims.dense_dim, dense.len())?;
        let mut w = self.begin()?;
        let (l, d) = w.label_dense().split_at_mut(label.len());
        l.copy_from_slice(label);
        d.copy_from_slice(dense);
        for keys in slots {
            w.push_slot(keys)?;
        }
        w.finish()
    }

    /// Appends every sample of `other` (same dims), copying its rows and keys in bulk; on
    /// error (dims differ, or no room) nothing is added.
    pub fn append(&mut self, other: &SampleBatch<'_, K>) -> Result<(), BatchError> {
        if other.dims != self.dims {
            let (a, b) = (self.dims, other.dims);
            let (what, expected, found) = if a.label_dim != b.label_dim {
                ("label", a.label_dim, b.label_dim)
            } else if a.dense_dim != b.dense_dim {
                ("dense", a.dense_dim, b.dense_dim)
            } else {
                ("slots", a.slot_num, b.slot_num)
            };
            return Err(BatchError::Width {
                what,
                expected,
                found,
            });
        }
        let n = other.samples;
        if self.samples + n > self.capacity {
            return Err(BatchError::Full {
                capacity: self.capacity,
            });
        }
        let w = self.dims.label_dense();
        let src = other.csr.view();
        self.csr.append(&src)?;
        self.label_dense[self.samples * w..(self.samples + n) * w]
            .copy_from_slice(other.label_dense());
        self.samples += n;
        Ok(())
    }

    /// Starts the next sample. Its label/dense row and slots are written through the writer;
    /// dropping the writer without [`finish`](SampleWriter::finish) discards the sample.
    pub fn begin(&mut self) -> Result<SampleWriter<'_, 'a, K>, BatchError> {
        if self.is_full() {
            return Err(BatchError::Full {
                capacity: self.capacity,
            });
        }
        let cp = self.csr.checkpoint();
        Ok(SampleWriter {
            batch: self,
            cp,
            slots: 0,
            done: false,
        })
    }

    fn row(&self, sample: usize) -> Option<&[f32]> {
        if sample >= self.samples {
            return None;
        }
        let w = self.dims.label_dense();
        self.label_dense.get(sample * w..(sample + 1) * w)
    }
}

fn check_width(what: &'static str, expected: usize, found: usize) -> Result<(), BatchError> {
    if expected == found {
        Ok(())
    } else {
        Err(BatchError::Width {
            what,
            expected,
            found,
        })
    }
}

/// One sample being written into a [`SampleBatch`]; rolled back on drop unless finished.
#[derive(Debug)]
pub struct SampleWriter<'b, 'a, K: Key> {
    batch: &'b mut SampleBatch<'a, K>,
    cp: Checkpoint,
    slots: usize,
    done: bool,
}

impl<K: Key> SampleWriter<'_, '_, K> {
    /// The sample's `label_dim + dense_dim` floats: labels first, then dense features.
    pub fn label_dense(&mut self) -> &mut [f32] {
        let w = self.batch.dims.label_dense();
        let s = self.batch.samples;
        // In range: `begin` checked `samples < capacity <= label_dense.len() / w`.
        &mut self.batch.label_dense[s * w..(s + 1) * w]
    }

    /// Slots written so far.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Room for the next slot's `n` keys, to fill before [`commit_slot`](Self::commit_slot).
    pub fn reserve_slot(&mut self, n: usize) -> Result<&mut [K], BatchError> {
        self.check_slot()?;
        Ok(self.batch.csr.reserve_row(n)?)
    }

    /// Commits the first `n` keys from [`reserve_slot`](Self::reserve_slot) as the next slot.
    pub fn commit_slot(&mut self, n: usize) -> Result<(), BatchError> {
        self.check_slot()?;
        self.batch.csr.commit_row(n)?;
        self.slots += 1;
        Ok(())
    }

    /// Writes the next slot's keys.
    pub fn push_slot(&mut self, keys: &[K]) -> Result<(), BatchError> {
        self.reserve_slot(keys.len())?.copy_from_slice(keys);
        self.commit_slot(keys.len())
    }

    /// Room to write all `slot_num` slots at once (a decoder's fast path): the value count
    /// before them, their end-offset slots and the free values, if no slot is written yet and
    /// at least `min_values` values fit. Committed by
    /// [`commit_spare_slots`](Self::commit_spare_slots).
    #[inline]
    pub(crate) fn spare_slots(&mut self, min_values: usize) -> Option<(usize, &mut [K], &mut [K])> {
        if self.slots != 0 {
            return None;
        }
        self.batch.csr.spare(self.batch.dims.slot_num, min_values)
    }

    /// Commits the slots written through [`spare_slots`](Self::spare_slots), `values` keys in
    /// all, end offsets in place.
    #[inline]
    pub(crate) fn commit_spare_slots(&mut self, values: usize) {
        self.batch
            .csr
            .commit_spare(self.batch.dims.slot_num, values);
        self.slots = self.batch.dims.slot_num;
    }

    /// Adds the sample to the batch; errors (and discards it) unless all `slot_num` slots were
    /// written.
    pub fn finish(mut self) -> Result<(), BatchError> {
        if self.slots != self.batch.dims.slot_num {
            return Err(BatchError::SlotCount {
                expected: self.batch.dims.slot_num,
                found: self.slots,
            });
        }
        self.done = true;
        self.batch.samples += 1;
        Ok(())
    }

    fn check_slot(&self) -> Result<(), BatchError> {
        if self.slots >= self.batch.dims.slot_num {
            return Err(BatchError::SlotCount {
                expected: self.batch.dims.slot_num,
                found: self.slots + 1,
            });
        }
        Ok(())
    }
}

impl<K: Key> Drop for SampleWriter<'_, '_, K> {
    fn drop(&mut self) {
        if !self.done {
            self.batch.csr.rollback(self.cp);
        }
    }
}
