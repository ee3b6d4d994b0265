//! [`CursorSet`]: worker threads each reading a partition of one source, and the
//! consolidating [`BatchSource`] that puts their batches back in serial order.

use tessera_core::data::{
    BatchInfo, BatchSource, DataError, DataErrorKind, Dims, Key, SampleBatch,
};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::lane::{Head, Lane, Way};
use super::pool::BufferPool;
use super::spawn::Handle;
use super::worker::Msg;
use crate::buffers::BatchBuffers;

/// A source read by `workers` threads at once, handed out in the serial order.
///
/// Worker `w` of `n` reads the source `make_source(w, n)` (a partition: batches `w`,
/// `w + n`, `w + 2n`, … numbered as the serial source numbers them, which is what
/// [`SliceSource::partition`](tessera_core::data::SliceSource::partition) gives) into its
/// own pool of [`BatchBuffers`], and sends each filled batch through a bounded channel.
/// The set is itself a [`BatchSource`]: each call copies the lowest-numbered pending batch
/// into the caller's batch and sends the buffers back to their worker. So
/// `SampleCursor::new(set, batch)` is a row cursor with exactly the serial cursor's rows,
/// ids and batch numbers, in the serial order.
///
/// # Order, memory, errors, shutdown
/// - A batch goes out once no worker can still send anything placed before it. A worker
///   that has just sent a full batch `k` can only send batches or errors after `k`, so with
///   full batches the consumer waits only for the worker owning the next batch number; after
///   a short one (the last, or one cut short by an error) it waits for that worker's next
///   word.
/// - Each worker owns `queue_depth + 1` buffers and no more, so memory is bounded however
///   slow the consumer; a worker that is that far ahead waits for a buffer to come back.
/// - A worker's error comes out in serial order: the samples the serial cursor would give
///   before it, then the error (a decoding error goes inside the batch holding its record,
///   a panic in place of the batch the worker was making, as
///   [`DataErrorKind::WorkerPanicked`]), then `Ok(None)`. A batch numbered at or below one
///   already handed out is [`DataErrorKind::BatchOrder`], never a misordered pass.
/// - After the end, an error, or a drop (a consumer that stops early), the channels close,
///   the workers notice at their next send or receive and return, and the set joins every
///   thread before returning: none is left running.
///
/// # Worker 0 on the consumer's thread
/// With [`consumer_decodes`](super::CursorSetConfig::consumer_decodes) set, worker 0's
/// batches are decoded on the consumer's thread, when each is the next one due, into a
/// single buffer of its own; the other workers run on threads as above. A set of `n`
/// workers then starts `n - 1` threads, so with as many workers as cores no thread waits
/// for a core, and a worker-0 batch needs no handing over. Rows, ids, batch numbers and
/// errors (a panic in worker 0's source included) are the same as with a thread of its own.
///
/// # Lifetimes
/// [`spawn`](Self::spawn) starts owned threads, so the sources must be `'static` (a
/// `&'static` file: a leaked buffer or memory map, or sources that own their bytes).
/// [`scoped`](Self::scoped) starts them in a [`std::thread::scope`], so the sources may
/// borrow anything that outlives the scope, such as a file in a local `Vec` or a memory map
/// (see the [module example](super)).
///
/// The caller's batch must have the set's dims and room for a whole worker batch (the same
/// `batch_samples` and `max_values`), else the copy fails as a
/// [`DataErrorKind::Batch`] error.
pub struct CursorSet<'scope, K> {
    /// The sample shape.
    pub(super) dims: Dims,
    /// One per worker, in worker order.
    pub(super) lanes: Vec<Lane<'scope, K>>,
    /// Samples per worker batch, to find the batch of an error's record.
    pub(super) capacity: u64,
    /// The batch number handed out last.
    pub(super) last: Option<u64>,
    /// Ended, failed or dropped: the lanes are closed.
    pub(super) done: bool,
    /// Where every buffer goes once the workers are joined.
    pub(super) pool: BufferPool<K>,
    /// Raised at the end: workers stop before decoding into buffers still queued for them.
    pub(super) stop: Arc<AtomicBool>,
}

impl<'scope, K: Key + Send> CursorSet<'scope, K> {
    /// The sample shape.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Worker threads running (0 once the set has ended or failed; a worker decoded on the
    /// consumer's thread is not one).
    pub fn workers(&self) -> usize {
        let running = |lane: &&Lane<'_, K>| {
            matches!(
                lane.way,
                Way::Thread {
                    handle: Some(_),
                    ..
                }
            )
        };
        self.lanes.iter().filter(running).count()
    }

    /// The lane whose head goes next: the lowest place, `None` once every worker has ended.
    fn next_lane(&self) -> Option<usize> {
        self.lanes
            .iter()
            .enumerate()
            .filter_map(|(i, lane)| lane.place().map(|p| (p, i)))
            .min()
            .map(|(_, i)| i)
    }

    /// The next batch in serial order, with its buffers (to [`give_back`](Self::give_back)
    /// once read), or the error in its place; blocks until no worker can still send
    /// anything before it. After `Ok(None)` or an error the workers are stopped and joined,
    /// and every later call returns `Ok(None)`.
    pub(super) fn take(&mut self) -> Result<Option<Taken<K>>, DataError> {
        if self.done {
            return Ok(None);
        }
        let workers = self.lanes.len() as u64;
        loop {
            let Some(lane) = self.next_lane() else {
                self.shut_down();
                return Ok(None);
            };
            match std::mem::replace(&mut self.lanes[lane].head, Head::Waiting) {
                Head::Waiting => self.lanes[lane].receive(lane as u64, workers, self.capacity),
                Head::Batch {
                    info,
                    samples,
                    buffers,
                } => {
                    if let Some(after) = self.last.filter(|&after| info.id <= after) {
                        self.shut_down();
                        return Err(stop(DataErrorKind::BatchOrder { id: info.id, after }, None));
                    }
                    self.last = Some(info.id);
                    return Ok(Some(Taken {
                        lane,
                        info,
                        samples,
                        buffers,
                    }));
                }
                Head::Failed(e, _) => {
                    self.shut_down();
                    return Err(e);
                }
                // Never chosen (`next_lane` skips ended lanes); put back all the same.
                Head::Ended => self.lanes[lane].head = Head::Ended,
            }
        }
    }
}

/// A batch taken from a worker, to read and then give back.
pub(super) struct Taken<K> {
    /// The worker it came from.
    pub lane: usize,
    /// Its number and first row.
    pub info: BatchInfo,
    /// Samples in it.
    pub samples: usize,
    /// Its memory, filled by the worker.
    pub buffers: BatchBuffers<K>,
}

impl<K> CursorSet<'_, K> {
    /// Returns a taken batch's buffers to its worker, to be filled again (or, once the set
    /// has ended, to the pool).
    pub(super) fn give_back(&mut self, lane: usize, buffers: BatchBuffers<K>) {
        let unwanted = match self.lanes.get_mut(lane) {
            Some(lane) => lane.give_back(buffers),
            None => Some(buffers),
        };
        if let Some(b) = unwanted {
            self.pool.put(b);
        }
    }

    /// Stops the workers (the flag; closing their buffers' way back wakes any waiting for
    /// one), joins them, and parks every buffer in the pool: those the consumer held, those
    /// on their way to it, and those on their way back. Allocates nothing.
    fn shut_down(&mut self) {
        self.done = true;
        self.stop.store(true, Ordering::Release);
        for lane in &mut self.lanes {
            if let Way::Thread { back, .. } = &mut lane.way {
                *back = None;
            }
            if let Head::Batch { buffers, .. } = std::mem::replace(&mut lane.head, Head::Ended) {
                self.pool.put(buffers);
            }
        }
        // Once a worker has returned, nothing more arrives on either of its ways: drain both.
        for lane in &mut self.lanes {
            match &mut lane.way {
                Way::Thread { rx, handle, .. } => {
                    if let Some(back) = handle.take().and_then(Handle::join) {
                        while let Ok(buffers) = back.try_recv() {
                            self.pool.put(buffers);
                        }
                    }
                    while let Ok(msg) = rx.try_recv() {
                        if let Msg::Batch { buffers, .. } = msg {
                            self.pool.put(buffers);
                        }
                    }
                }
                Way::Local {
                    source, buffers, ..
                } => {
                    *source = None;
                    if let Some(b) = buffers.take() {
                        self.pool.put(b);
                    }
                }
            }
        }
        self.lanes.clear();
    }
}

/// An error that ends the pass.
fn stop(kind: DataErrorKind, sample: Option<u64>) -> DataError {
    DataError {
        kind,
        sample,
        offset: 0,
    }
}

impl<K: Key + Send> BatchSource<K> for CursorSet<'_, K> {
    /// The next batch in serial order, copied into `batch`, or the error in its place;
    /// blocks until no worker can still send anything before it. After `Ok(None)` or an
    /// error the workers are stopped and joined, and every later call returns `Ok(None)`.
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<Option<BatchInfo>, DataError> {
        let Some(mut taken) = self.take()? else {
            return Ok(None);
        };
        let copied = taken
            .buffers
            .resume(taken.samples)
            .and_then(|b| batch.append(&b));
        self.give_back(taken.lane, taken.buffers);
        if let Err(e) = copied {
            self.shut_down();
            return Err(stop(DataErrorKind::Batch(e), Some(taken.info.first_row)));
        }
        Ok(Some(taken.info))
    }
}

impl<K> Drop for CursorSet<'_, K> {
    fn drop(&mut self) {
        self.shut_down();
    }
}

impl<K> core::fmt::Debug for CursorSet<'_, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CursorSet")
            .field("lanes", &self.lanes.len())
            .field("capacity", &self.capacity)
            .field("last", &self.last)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}
