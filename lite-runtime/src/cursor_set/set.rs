//! [`CursorSet`]: worker threads each reading a partition of one source, and the
//! consolidating [`BatchSource`] that puts their batches back in serial order.

use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::thread::{self, JoinHandle, Scope, ScopedJoinHandle};

use tessera_core::data::{BatchInfo, BatchSource, DataError, DataErrorKind, Key, SampleBatch};

use super::buffers::BatchBuffers;
use super::config::CursorSetConfig;
use super::error::CursorSetError;
use super::lane::{Head, Lane};
use super::worker;

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
    lanes: Vec<Lane<K>>,
    handles: Vec<Handle<'scope>>,
    /// Samples per worker batch, to find the batch of an error's record.
    capacity: u64,
    /// The batch number handed out last.
    last: Option<u64>,
    done: bool,
}

/// A worker thread to join.
enum Handle<'scope> {
    Owned(JoinHandle<()>),
    Scoped(ScopedJoinHandle<'scope, ()>),
}

/// A worker's body, boxed so that owned and scoped threads share the start-up code.
type Work<'scope> = Box<dyn FnOnce() + Send + 'scope>;

impl<K: Key + Send> CursorSet<'static, K> {
    /// Starts `config.workers` threads, worker `w` of `n` reading `make_source(w, n)`
    /// (called on the worker's thread, so the source need not be `Send`).
    ///
    /// Errors before any thread runs if the batch shape is unusable or its buffers cannot
    /// be allocated; if the system refuses a thread, the ones started are stopped and
    /// joined before the error returns.
    pub fn spawn<S, F>(config: CursorSetConfig, make_source: F) -> Result<Self, CursorSetError>
    where
        F: Fn(u64, u64) -> S + Send + Sync + 'static,
        S: BatchSource<K>,
    {
        Self::start(config, make_source, |name, work| {
            thread::Builder::new()
                .name(name)
                .spawn(work)
                .map(Handle::Owned)
        })
    }
}

impl<'scope, K: Key + Send> CursorSet<'scope, K> {
    /// [`spawn`](CursorSet::spawn), with the threads started in `scope`, so the sources
    /// may borrow what outlives it. Dropping the set joins them (the scope need not).
    pub fn scoped<'env, S, F>(
        scope: &'scope Scope<'scope, 'env>,
        config: CursorSetConfig,
        make_source: F,
    ) -> Result<Self, CursorSetError>
    where
        F: Fn(u64, u64) -> S + Send + Sync + 'scope,
        S: BatchSource<K>,
    {
        Self::start(config, make_source, |name, work| {
            thread::Builder::new()
                .name(name)
                .spawn_scoped(scope, work)
                .map(Handle::Scoped)
        })
    }

    /// Worker threads running (0 once the set has ended or failed).
    pub fn workers(&self) -> usize {
        self.handles.len()
    }

    fn start<S, F>(
        config: CursorSetConfig,
        make_source: F,
        mut spawn: impl FnMut(String, Work<'scope>) -> std::io::Result<Handle<'scope>>,
    ) -> Result<Self, CursorSetError>
    where
        F: Fn(u64, u64) -> S + Send + Sync + 'scope,
        S: BatchSource<K>,
    {
        let workers = config.worker_count();
        let pool = config.pool();
        let mut first =
            BatchBuffers::<K>::new(config.dims, config.batch_samples, config.max_values)?;
        let capacity = first.batch()?.capacity() as u64;
        let make = Arc::new(make_source);
        // Filled as threads start: if one fails, dropping `set` stops and joins the rest.
        let mut set = Self {
            lanes: Vec::with_capacity(workers),
            handles: Vec::with_capacity(workers),
            capacity,
            last: None,
            done: false,
        };
        let mut spare = Some(first);
        for w in 0..workers {
            // Channels as deep as the pool never block a send: the pool is the bound.
            let (to_consumer, rx) = sync_channel(pool);
            let (back, buffers) = sync_channel(pool);
            for _ in 0..pool {
                let b = match spare.take() {
                    Some(b) => b,
                    None => {
                        BatchBuffers::new(config.dims, config.batch_samples, config.max_values)?
                    }
                };
                // Cannot be full: the channel holds a whole pool.
                let _ = back.try_send(b);
            }
            let make = Arc::clone(&make);
            let (worker, n) = (w as u64, workers as u64);
            let work: Work<'scope> =
                Box::new(move || worker::run(move || make(worker, n), to_consumer, buffers));
            let handle =
                spawn(format!("tessera-cursor-set-{w}"), work).map_err(CursorSetError::Thread)?;
            set.lanes.push(Lane::new(rx, back, worker));
            set.handles.push(handle);
        }
        Ok(set)
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

    /// Copies a batch of lane `i` into `batch` and sends its buffers back.
    fn hand_out(
        &mut self,
        i: usize,
        info: BatchInfo,
        samples: usize,
        mut buffers: BatchBuffers<K>,
        batch: &mut SampleBatch<'_, K>,
    ) -> Result<BatchInfo, DataError> {
        let copied = buffers.resume(samples).and_then(|b| batch.append(&b));
        // The worker may have gone (it returns after its last word): the buffers just drop.
        let _ = self.lanes[i].back.try_send(buffers);
        if let Some(after) = self.last.filter(|&after| info.id <= after) {
            return Err(stop(DataErrorKind::BatchOrder { id: info.id, after }, None));
        }
        copied.map_err(|e| stop(DataErrorKind::Batch(e), Some(info.first_row)))?;
        self.last = Some(info.id);
        Ok(info)
    }
}

impl<K> CursorSet<'_, K> {
    /// Closes every channel, so the workers return at their next send or receive, and
    /// joins them.
    fn shut_down(&mut self) {
        self.done = true;
        self.lanes.clear();
        for handle in self.handles.drain(..) {
            // A worker's panics are caught and reported as errors, so a join error can only
            // be a panic while dropping its source; there is nobody left to tell.
            let _ = match handle {
                Handle::Owned(h) => h.join(),
                Handle::Scoped(h) => h.join(),
            };
        }
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
        if self.done {
            return Ok(None);
        }
        let workers = self.lanes.len() as u64;
        loop {
            let Some(i) = self.next_lane() else {
                self.shut_down();
                return Ok(None);
            };
            match std::mem::replace(&mut self.lanes[i].head, Head::Waiting) {
                Head::Waiting => self.lanes[i].receive(i as u64, workers, self.capacity),
                Head::Batch {
                    info,
                    samples,
                    buffers,
                } => {
                    let handed = self.hand_out(i, info, samples, buffers, batch);
                    if handed.is_err() {
                        self.shut_down();
                    }
                    return handed.map(Some);
                }
                Head::Failed(e, _) => {
                    self.shut_down();
                    return Err(e);
                }
                // Never chosen (`next_lane` skips ended lanes); put back all the same.
                Head::Ended => self.lanes[i].head = Head::Ended,
            }
        }
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
            .field("workers", &self.handles.len())
            .field("capacity", &self.capacity)
            .field("last", &self.last)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}
