//! The consumer's view of one worker: its channels, the batch (or last word) received from
//! it and not yet handed out, and where in the batch order that stands.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

use tessera_core::data::{BatchInfo, BatchSource, DataError, DataErrorKind, Key};

use super::pool::BufferPool;
use super::spawn::Handle;
use super::worker::{Msg, next_message};
use crate::buffers::BatchBuffers;

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
pub(super) struct Lane<'scope, K> {
    /// Where its batches come from.
    pub way: Way<'scope, K>,
    /// What was received and not handed out.
    pub head: Head<K>,
    /// The lowest place of anything the worker may still send, so that a batch placed
    /// before it goes out without waiting for this worker.
    bound: Place,
    /// The worker's next batch number: worker `w` of `n` reads batches `w, w + n, …`.
    own: u64,
}

/// How a lane's batches arrive.
pub(super) enum Way<'scope, K> {
    /// From a worker thread, through channels.
    Thread {
        /// Batches and last words from the worker.
        rx: Receiver<Msg<K>>,
        /// Buffers going back to the worker; `None` once the set is shutting down.
        back: Option<SyncSender<BatchBuffers<K>>>,
        /// The thread, joined at the end.
        handle: Option<Handle<'scope, K>>,
    },
    /// Decoded on the consumer's thread when its batch is the next one due.
    Local {
        /// The source; `None` once it has said its last word (or making it panicked).
        source: Option<Box<dyn BatchSource<K> + 'scope>>,
        /// The lane's one buffer, when it is not out with a batch.
        buffers: Option<BatchBuffers<K>>,
        /// Where buffers go when the lane is done with them.
        pool: BufferPool<K>,
    },
}

impl<'scope, K: Key> Lane<'scope, K> {
    /// A lane for worker thread `worker`, nothing received yet.
    pub fn thread(
        rx: Receiver<Msg<K>>,
        back: SyncSender<BatchBuffers<K>>,
        handle: Handle<'scope, K>,
        worker: u64,
    ) -> Self {
        Self::with_way(
            Way::Thread {
                rx,
                back: Some(back),
                handle: Some(handle),
            },
            worker,
        )
    }

    /// A lane for worker `worker` decoded on the consumer's thread: `make` builds its
    /// source now (a panic there is reported in the batch order, as a thread's would be).
    pub fn local<S: BatchSource<K> + 'scope>(
        make: impl FnOnce() -> S,
        buffers: BatchBuffers<K>,
        pool: BufferPool<K>,
        worker: u64,
    ) -> Self {
        let source = catch_unwind(AssertUnwindSafe(make))
            .ok()
            .map(|s| Box::new(s) as Box<dyn BatchSource<K> + 'scope>);
        Self::with_way(
            Way::Local {
                source,
                buffers: Some(buffers),
                pool,
            },
            worker,
        )
    }
}

impl<'scope, K> Lane<'scope, K> {
    fn with_way(way: Way<'scope, K>, worker: u64) -> Self {
        // Before its first batch a worker can only fail passing over batch 0 (unless it
        // owns it), which goes out after batch 0's good rows.
        let rank = if worker == 0 { 0 } else { 2 };
        Self {
            way,
            head: Head::Waiting,
            bound: Place { batch: 0, rank },
            own: worker,
        }
    }

    /// Takes back a batch's buffers, to be filled again; returns them if the lane cannot
    /// (its worker has gone, or the set is shutting down).
    pub fn give_back(&mut self, buffers: BatchBuffers<K>) -> Option<BatchBuffers<K>> {
        match &mut self.way {
            Way::Thread {
                back: Some(back), ..
            } => match back.try_send(buffers) {
                Ok(()) => None,
                Err(TrySendError::Full(b) | TrySendError::Disconnected(b)) => Some(b),
            },
            Way::Thread { back: None, .. } => Some(buffers),
            Way::Local {
                source,
                buffers: home,
                ..
            } => {
                if source.is_some() && home.is_none() {
                    *home = Some(buffers);
                    None
                } else {
                    Some(buffers)
                }
            }
        }
    }

    /// The worker's next message: received from its thread, or decoded here.
    fn next_message(&mut self) -> Msg<K>
    where
        K: Key,
    {
        match &mut self.way {
            // A worker that hung up without a last word can only have panicked.
            Way::Thread { rx, .. } => rx.recv().unwrap_or(Msg::Panicked),
            Way::Local {
                source,
                buffers,
                pool,
            } => {
                let (Some(s), Some(b)) = (source.as_mut(), buffers.take()) else {
                    // Making the source panicked (the consumer gives the buffers back
                    // before it asks for the next batch, so they are always home here).
                    *source = None;
                    return Msg::Panicked;
                };
                let msg = next_message(&mut **s, b, pool);
                if !matches!(msg, Msg::Batch { .. }) {
                    *source = None;
                }
                msg
            }
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

    /// Waits for the worker's next message (or decodes it, on a local lane) and makes it
    /// the head. `worker` of `workers`, `capacity` samples per batch, place errors.
    pub fn receive(&mut self, worker: u64, workers: u64, capacity: u64)
    where
        K: Key,
    {
        self.head = match self.next_message() {
            Msg::Batch {
                info,
                samples,
                buffers,
            } => {
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
            Msg::End => Head::Ended,
            Msg::Failed(e) => Head::Failed(e, error_place(&e, worker, workers, capacity)),
            Msg::Panicked => Head::Failed(
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
