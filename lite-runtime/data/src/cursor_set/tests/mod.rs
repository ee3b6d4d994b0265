//! Tests of cursor sets: the consolidated cursor is the serial cursor (rows, ids, batches,
//! errors), raw cursors partition it, failures and early stops end cleanly.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use tessera_core::cursor::{CursorError, RowCursor, RowId};
use tessera_core::data::{
    BatchInfo, BatchSource, DataError, Dims, KEYS, Key, NormConfig, NormEncoder, SampleBatch,
    SampleCursor, SampleCursorError,
};
use tessera_core::sparse::{InlineVBuffer, VBuffer};

use super::*;
use crate::buffers::BatchBuffers;

mod failures;
mod order;
mod pool;
mod shutdown;

/// Proptest cases: `PROPTEST_CASES` if set (keep it small under a sanitizer), few under Miri.
fn cases() -> ProptestConfig {
    let default = if cfg!(miri) { 4 } else { 64 };
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default);
    let mut config = ProptestConfig::with_cases(cases);
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// One generated sample: labels, dense features, keys per slot.
#[derive(Debug, Clone)]
struct Sample {
    label: Vec<f32>,
    dense: Vec<f32>,
    slots: Vec<Vec<u32>>,
}

/// A Norm file of `samples`, keys of type `K`.
fn encode<K: Key + From<u32>>(config: NormConfig, samples: &[Sample]) -> Vec<u8> {
    let enc = NormEncoder::<K>::new(config);
    let mut out = vec![0u8; config.header_bytes()];
    let mut n = enc.header(samples.len() as u64, &mut out).unwrap();
    for s in samples {
        let keys: Vec<Vec<K>> = s
            .slots
            .iter()
            .map(|k| k.iter().map(|&k| K::from(k)).collect())
            .collect();
        let slots: Vec<&[K]> = keys.iter().map(|k| &k[..]).collect();
        out.resize(n + enc.sample_len(&slots), 0);
        n += enc
            .sample(&s.label, &s.dense, &slots, &mut out[n..])
            .unwrap();
    }
    out
}

fn arb_samples(dims: Dims, max_nnz: usize) -> impl Strategy<Value = Vec<Sample>> {
    let sample = (
        proptest::collection::vec(-1e3f32..1e3, dims.label_dim),
        proptest::collection::vec(-1e3f32..1e3, dims.dense_dim),
        proptest::collection::vec(
            proptest::collection::vec(any::<u32>(), 0..=max_nnz),
            dims.slot_num,
        ),
    )
        .prop_map(|(label, dense, slots)| Sample {
            label,
            dense,
            slots,
        });
    proptest::collection::vec(sample, 0..60)
}

/// One row as a cursor shows it: batch, id, labels and dense (as bits), keys per slot, and
/// the keys column's indices (or its error).
type Row<K> = (
    u64,
    RowId,
    Vec<u32>,
    Vec<u32>,
    Vec<Vec<K>>,
    Result<Vec<u32>, SampleCursorError>,
);

/// What the tests read from a row: both cursors over samples have it.
trait SampleRows<K>: RowCursor<Error = SampleCursorError> {
    fn slots(&self) -> usize;
    fn labels(&self) -> &[f32];
    fn dense(&self) -> &[f32];
    fn keys(&self, slot: usize) -> Option<&[K]>;
}

impl<K: Key, S: BatchSource<K>> SampleRows<K> for SampleCursor<'_, K, S> {
    fn slots(&self) -> usize {
        self.current_batch().dims().slot_num
    }
    fn labels(&self) -> &[f32] {
        SampleCursor::labels(self)
    }
    fn dense(&self) -> &[f32] {
        SampleCursor::dense(self)
    }
    fn keys(&self, slot: usize) -> Option<&[K]> {
        SampleCursor::keys(self, slot)
    }
}

impl<K: Key + Send> SampleRows<K> for SetCursor<'_, K> {
    fn slots(&self) -> usize {
        self.set().dims().slot_num
    }
    fn labels(&self) -> &[f32] {
        SetCursor::labels(self)
    }
    fn dense(&self) -> &[f32] {
        SetCursor::dense(self)
    }
    fn keys(&self, slot: usize) -> Option<&[K]> {
        SetCursor::keys(self, slot)
    }
}

/// Every row of `cursor` and the error that ended it; checks the cursor then stays ended,
/// and that the keys column holds the row's keys.
fn read<K: Key, C: SampleRows<K>>(cursor: &mut C) -> (Vec<Row<K>>, Option<SampleCursorError>) {
    let slots = cursor.slots();
    let mut rows = Vec::new();
    let mut vector: InlineVBuffer<f32, 16> = VBuffer::default();
    let end = loop {
        match cursor.move_next() {
            Ok(true) => {
                let keys: Vec<Vec<K>> = (0..slots)
                    .map(|s| cursor.keys(s).unwrap().to_vec())
                    .collect();
                // The keys column: its counts add up to the keys, or a key is out of range.
                let column = cursor.get_vector(KEYS, &mut vector).map(|()| {
                    let counted: f32 = vector.values().iter().sum();
                    assert_eq!(counted as usize, keys.iter().map(Vec::len).sum::<usize>());
                    vector.indices().to_vec()
                });
                rows.push((
                    cursor.batch(),
                    cursor.id().unwrap(),
                    cursor.labels().iter().map(|v| v.to_bits()).collect(),
                    cursor.dense().iter().map(|v| v.to_bits()).collect(),
                    keys,
                    column,
                ));
            }
            Ok(false) => break None,
            Err(e) => break Some(e),
        }
    };
    for _ in 0..2 {
        assert_eq!(cursor.move_next(), Ok(false), "move_next after the end");
    }
    assert_eq!(cursor.id(), Err(CursorError::Finished));
    (rows, end)
}

/// Consumer buffers for `config`'s batches.
fn consumer<K: Key>(config: &CursorSetConfig) -> BatchBuffers<K> {
    BatchBuffers::new(config.dims, config.batch_samples, config.max_values).unwrap()
}

/// A source that makes its own samples, numbered as a partition: worker `w` of `n` gives
/// batches `w, w + n, …` of `capacity` samples, sample `r` having label `r` and key `r`.
/// It panics when asked for batch `panic_at`, counts the batches it makes in `made` and its
/// drops in `dropped`.
struct Synthetic {
    next: u64,
    workers: u64,
    batches: u64,
    panic_at: Option<u64>,
    made: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

impl Synthetic {
    fn new(worker: u64, workers: u64, batches: u64) -> Self {
        Self {
            next: worker,
            workers,
            batches,
            panic_at: None,
            made: Arc::default(),
            dropped: Arc::default(),
        }
    }

    fn panicking_at(mut self, batch: u64) -> Self {
        self.panic_at = Some(batch);
        self
    }

    fn counted(mut self, made: &Arc<AtomicUsize>, dropped: &Arc<AtomicUsize>) -> Self {
        self.made = Arc::clone(made);
        self.dropped = Arc::clone(dropped);
        self
    }
}

/// The shape of [`Synthetic`]'s samples.
const SYNTHETIC: Dims = Dims::new(1, 0, 1);

impl BatchSource<u32> for Synthetic {
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, u32>,
    ) -> Result<Option<BatchInfo>, DataError> {
        let k = self.next;
        if k >= self.batches {
            return Ok(None);
        }
        assert_ne!(Some(k), self.panic_at, "a source bug at batch {k}");
        let first_row = k * batch.capacity() as u64;
        for r in first_row..first_row + batch.capacity() as u64 {
            let r = r as u32;
            batch.push_sample(&[r as f32], &[], &[&[r]]).unwrap();
        }
        self.next += self.workers;
        self.made.fetch_add(1, Ordering::SeqCst);
        Ok(Some(BatchInfo { id: k, first_row }))
    }
}

impl Drop for Synthetic {
    fn drop(&mut self) {
        self.dropped.fetch_add(1, Ordering::SeqCst);
    }
}
