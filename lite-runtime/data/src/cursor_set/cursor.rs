//! [`SetCursor`]: the consolidated rows read in place, in the workers' buffers, with no
//! copy into a batch of the consumer's.

use tessera_core::cursor::{CursorError, RowCursor, RowId, Scalar, Schema};
use tessera_core::data::{Key, SampleCursorError, SamplePlace};
use tessera_core::sparse::{StorageMut, VBuffer};
use tessera_core::tstring::{StringHeap, TString};

use super::set::{CursorSet, Taken};

/// The rows of a [`CursorSet`] in the serial order, read where the workers decoded them:
/// the same rows, ids, batch numbers, columns and errors as `SampleCursor::new(set, batch)`,
/// without copying each batch into the consumer's (`CursorSet::into_cursor`).
///
/// It holds one worker batch at a time and gives its buffers back when it moves past it, so
/// the set's memory bound is unchanged and the consumer needs no batch of its own.
pub struct SetCursor<'scope, K> {
    set: CursorSet<'scope, K>,
    /// The batch holding the current row.
    current: Option<Taken<K>>,
    place: SamplePlace,
}

impl<'scope, K: Key + Send> CursorSet<'scope, K> {
    /// The set's rows as a row cursor that reads each batch in place (see [`SetCursor`]).
    pub fn into_cursor(self) -> SetCursor<'scope, K> {
        let place = SamplePlace::new(self.dims());
        SetCursor {
            set: self,
            current: None,
            place,
        }
    }
}

impl<'scope, K: Key + Send> SetCursor<'scope, K> {
    /// The set (for [`workers`](CursorSet::workers)).
    pub fn set(&self) -> &CursorSet<'scope, K> {
        &self.set
    }

    /// The current sample's labels (empty off a row).
    pub fn labels(&self) -> &[f32] {
        let label = self.set.dims().label_dim;
        self.label_dense()
            .and_then(|r| r.get(..label))
            .unwrap_or(&[])
    }

    /// The current sample's dense features (empty off a row).
    pub fn dense(&self) -> &[f32] {
        let label = self.set.dims().label_dim;
        self.label_dense()
            .and_then(|r| r.get(label..))
            .unwrap_or(&[])
    }

    /// The current sample's keys in `slot`; `None` off a row or past `slot_num`.
    pub fn keys(&self, slot: usize) -> Option<&[K]> {
        let slots = self.set.dims().slot_num;
        if slot >= slots {
            return None;
        }
        let (taken, i) = self.on_row()?;
        let row = i.checked_mul(slots)?.checked_add(slot)?;
        taken.buffers.key_rows(row, row.checked_add(1)?)
    }

    /// Every key of the current sample, slot after slot (empty off a row).
    fn sample_keys(&self) -> &[K] {
        let slots = self.set.dims().slot_num;
        let keys = self.on_row().and_then(|(taken, i)| {
            let first = i.checked_mul(slots)?;
            taken.buffers.key_rows(first, first.checked_add(slots)?)
        });
        keys.unwrap_or(&[])
    }

    fn label_dense(&self) -> Option<&[f32]> {
        let (taken, i) = self.on_row()?;
        taken.buffers.label_dense(i)
    }

    /// The batch and sample of the current row.
    fn on_row(&self) -> Option<(&Taken<K>, usize)> {
        Some((self.current.as_ref()?, self.place.row()?))
    }
}

impl<K: Key + Send> RowCursor for SetCursor<'_, K> {
    type Error = SampleCursorError;

    fn schema(&self) -> Schema<'_> {
        self.place.schema()
    }

    fn move_next(&mut self) -> Result<bool, Self::Error> {
        let (set, current) = (&mut self.set, &mut self.current);
        let r = self.place.advance(|place| {
            if place.next_in_batch(current.as_ref().map_or(0, |t| t.samples)) {
                return Ok(true);
            }
            // A batch can come back empty (every record in it skipped): take the next.
            loop {
                if let Some(done) = current.take() {
                    set.give_back(done.lane, done.buffers);
                }
                match set.take()? {
                    Some(taken) => {
                        place.start_batch(taken.info);
                        let samples = taken.samples;
                        *current = Some(taken);
                        if samples > 0 {
                            return Ok::<_, SampleCursorError>(true);
                        }
                    }
                    None => return Ok(false),
                }
            }
        });
        if r != Ok(true) {
            if let Some(done) = self.current.take() {
                // Ended or failed: the batch goes back now, not at the drop.
                self.set.give_back(done.lane, done.buffers);
            }
        }
        r
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

impl<K> core::fmt::Debug for SetCursor<'_, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SetCursor")
            .field("place", &self.place)
            .finish_non_exhaustive()
    }
}

impl<K> Drop for SetCursor<'_, K> {
    fn drop(&mut self) {
        // Before the set's own drop, so the batch being read reaches the pool with the rest.
        if let Some(done) = self.current.take() {
            self.set.give_back(done.lane, done.buffers);
        }
    }
}
