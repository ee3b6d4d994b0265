//! The consumer's view of one worker: its channels, the batch (or last word) received from
//! it and not yet handed out, and where in the batch order that stands.

use std::sync::mpsc::{Receiver, SyncSender};

use tessera_core::data::{BatchInfo, DataError, DataErrorKind};

use super::buffers::BatchBuffers;
use super::worker::Msg;

/// Where something stands in the consolidated order: before everything of a higher
/// `batch`, and at equal `batch` by `rank`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Place {
    /// A batch number.
    pub batch: u64,
    /// 0: the batch itself (or a worker's next batch). 1: an error inside that batch,
    /// reported by the worker that owns it, after its good samples. 2: the same error seen
    /// by another worker passing over the batch (the owner's report wins: it is the one the
    /// serial cursor gives).
    pub rank: u8,
}

/// What the consumer holds from a worker.
pub(super) enum Head<K> {
    /// Nothing yet: whatever the worker sends next stands at [`Lane::bound`] or later.
    Waiting,
    /// A batch ready to hand out.
    Batch {
        /// Its number and first row.
        info: BatchInfo,
        /// Samples in it.
        samples: usize,
        /// Its memory, to send back once copied.
        buffers: BatchBuffers<K>,
    },
    /// The worker's source failed (or the worker panicked); the error goes out at `Place`.
    Failed(DataError, Place),
    /// The worker has no more batches.
    Ended,
}

/// One worker, seen from the consumer.
pub(super) struct Lane<K> {
    /// Batches and last words from the worker.
    pub rx: Receiver<Msg<K>>,
    /// Buffers going back to the worker; `None` once the set is shutting down.
    pub back: Option<SyncSender<BatchBuffers<K>>>,
    /// What was received and not handed out.
    pub head: Head<K>,
    /// The lowest place of anything the worker may still send, so that a batch placed
    /// before it goes out without waiting for this worker.
    bound: Place,
    /// The worker's next batch number: worker `w` of `n` reads batches `w, w + n, …`.
    own: u64,
}

impl<K> Lane<K> {
    /// A lane for worker `worker`, nothing received yet.
    pub fn new(rx: Receiver<Msg<K>>, back: SyncSender<BatchBuffers<K>>, worker: u64) -> Self {
        // Before its first batch a worker can only fail passing over batch 0 (unless it
        // owns it), which goes out after batch 0's good rows.
        let rank = if worker == 0 { 0 } else { 2 };
        Self {
            rx,
            back: Some(back),
            head: Head::Waiting,
            bound: Place { batch: 0, rank },
            own: worker,
        }
    }

    /// Where the lane's head stands; `None` once the worker has ended.
    pub fn place(&self) -> Option<Place> {
        match &self.head {
            Head::Waiting => Some(self.bound),
            Head::Batch { info, .. } => Some(Place {
                batch: info.id,
                rank: 0,
            }),
            Head::Failed(_, place) => Some(*place),
            Head::Ended => None,
        }
    }

    /// Waits for the worker's next message and makes it the head. `worker` of `workers`,
    /// `capacity` samples per batch, place errors.
    pub fn receive(&mut self, worker: u64, workers: u64, capacity: u64) {
        self.head = match self.rx.recv() {
            Ok(Msg::Batch {
                info,
                samples,
                buffers,
            }) => {
                self.own = info.id.saturating_add(workers);
                self.bound = if samples as u64 >= capacity {
                    // A full batch holds no error, so the worker's next word is about a
                    // later batch: its own next one, or one it fails to pass over.
                    Place {
                        batch: info.id.saturating_add(1),
                        rank: if workers > 1 { 2 } else { 0 },
                    }
                } else {
                    // A short batch may be followed by the error that cut it short.
                    Place {
                        batch: info.id,
                        rank: 1,
                    }
                };
                Head::Batch {
                    info,
                    samples,
                    buffers,
                }
            }
            Ok(Msg::End) => Head::Ended,
            Ok(Msg::Failed(e)) => Head::Failed(e, error_place(&e, worker, workers, capacity)),
            // A worker that hung up without a last word can only have panicked.
            Ok(Msg::Panicked) | Err(_) => Head::Failed(
                DataError {
                    kind: DataErrorKind::WorkerPanicked { worker },
                    sample: None,
                    offset: 0,
                },
                // In place of the batch it was making: everything before it still goes out.
                Place {
                    batch: self.own,
                    rank: 0,
                },
            ),
        };
    }
}

/// Where a source's error goes. A record's error goes inside the batch holding the record
/// (`sample / capacity`: partitions number batches by record, as the serial source does),
/// after its good samples, so the consumer sees exactly what the serial cursor sees. An
/// error not tied to a record (a bad header, bytes after the last record) ends the pass
/// after every batch the workers can still deliver.
fn error_place(e: &DataError, worker: u64, workers: u64, capacity: u64) -> Place {
    match e.sample {
        Some(s) => {
            let batch = s / capacity.max(1);
            let owner = batch % workers.max(1) == worker;
            Place {
                batch,
                rank: if owner { 1 } else { 2 },
            }
        }
        None => Place {
            batch: u64::MAX,
            rank: 2,
        },
    }
}
