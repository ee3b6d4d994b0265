//! Starting a [`CursorSet`]: its buffers, channels and worker threads, owned or scoped.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::{self, JoinHandle, Scope, ScopedJoinHandle};

use tessera_core::data::{BatchSource, Key};

use super::config::CursorSetConfig;
use super::error::CursorSetError;
use super::lane::Lane;
use super::pool::BufferPool;
use super::set::CursorSet;
use super::worker;
use crate::buffers::BatchBuffers;

/// What a worker returns: the receiving end of its buffers' way back.
type Returned<K> = Receiver<BatchBuffers<K>>;

/// A worker thread to join.
pub(super) enum Handle<'scope, K> {
    /// Started by [`CursorSet::spawn`].
    Owned(JoinHandle<Returned<K>>),
    /// Started by [`CursorSet::scoped`].
    Scoped(ScopedJoinHandle<'scope, Returned<K>>),
}

/// A worker's body, boxed so that owned and scoped threads share the start-up code.
type Work<'scope, K> = Box<dyn FnOnce() -> Returned<K> + Send + 'scope>;

impl<K> Handle<'_, K> {
    /// Waits for the thread to return; its buffers' way back, unless it panicked.
    pub(super) fn join(self) -> Option<Returned<K>> {
        // A worker's panics are caught and reported as errors, so a join error can only be a
        // panic while dropping its source; there is nobody left to tell.
        match self {
            Handle::Owned(h) => h.join().ok(),
            Handle::Scoped(h) => h.join().ok(),
        }
    }
}

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
        S: BatchSource<K> + 'static,
    {
        Self::spawn_pooled(config, &BufferPool::new(), make_source)
    }

    /// [`spawn`](CursorSet::spawn), with the batch buffers taken from `pool` and put back
    /// there when the set ends (see [`BufferPool`]).
    pub fn spawn_pooled<S, F>(
        config: CursorSetConfig,
        pool: &BufferPool<K>,
        make_source: F,
    ) -> Result<Self, CursorSetError>
    where
        F: Fn(u64, u64) -> S + Send + Sync + 'static,
        S: BatchSource<K> + 'static,
    {
        Self::start(config, pool, make_source, |name, work| {
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
        S: BatchSource<K> + 'scope,
    {
        Self::scoped_pooled(scope, config, &BufferPool::new(), make_source)
    }

    /// [`scoped`](CursorSet::scoped), with the batch buffers taken from `pool` and put back
    /// there when the set ends (see [`BufferPool`]).
    pub fn scoped_pooled<'env, S, F>(
        scope: &'scope Scope<'scope, 'env>,
        config: CursorSetConfig,
        pool: &BufferPool<K>,
        make_source: F,
    ) -> Result<Self, CursorSetError>
    where
        F: Fn(u64, u64) -> S + Send + Sync + 'scope,
        S: BatchSource<K> + 'scope,
    {
        Self::start(config, pool, make_source, |name, work| {
            thread::Builder::new()
                .name(name)
                .spawn_scoped(scope, work)
                .map(Handle::Scoped)
        })
    }

    fn start<S, F>(
        config: CursorSetConfig,
        pool: &BufferPool<K>,
        make_source: F,
        mut spawn: impl FnMut(String, Work<'scope, K>) -> std::io::Result<Handle<'scope, K>>,
    ) -> Result<Self, CursorSetError>
    where
        F: Fn(u64, u64) -> S + Send + Sync + 'scope,
        S: BatchSource<K> + 'scope,
    {
        let workers = config.worker_count();
        let per_worker = config.pool();
        let local = config.consumer_decodes;
        let threads = workers - usize::from(local);
        pool.reserve(threads.saturating_mul(per_worker) + usize::from(local));
        let take = || pool.take(config.dims, config.batch_samples, config.max_values);
        let mut first = take()?;
        let capacity = first.batch()?.capacity() as u64;
        let make = Arc::new(make_source);
        // Filled as threads start: if one fails, dropping `set` stops and joins the rest.
        let mut set = Self {
            dims: config.dims,
            lanes: Vec::with_capacity(workers),
            capacity,
            last: None,
            done: false,
            pool: pool.clone(),
            stop: Arc::default(),
        };
        // Every worker's buffers first: a worker that ends at once parks its buffers while
        // later ones start, and they must not be taken again for those.
        let mut ways = Vec::with_capacity(threads);
        let mut spare = Some(first);
        for _ in 0..threads {
            // Channels as deep as a worker's buffers never block a send: the buffers are the
            // bound.
            let (to_consumer, rx) = sync_channel(per_worker);
            let (back, buffers) = sync_channel(per_worker);
            for _ in 0..per_worker {
                let b = match spare.take() {
                    Some(b) => b,
                    None => take()?,
                };
                // Cannot be full: the channel holds all of a worker's buffers.
                let _ = back.try_send(b);
            }
            ways.push((to_consumer, rx, back, buffers));
        }
        let n = workers as u64;
        if local {
            // A buffer at a time: the consumer gives it back before it asks for the next.
            let b = match spare.take() {
                Some(b) => b,
                None => take()?,
            };
            set.lanes
                .push(Lane::local(|| make(0, n), b, pool.clone(), 0));
        }
        for (t, (to_consumer, rx, back, buffers)) in ways.into_iter().enumerate() {
            let w = t + usize::from(local);
            let make = Arc::clone(&make);
            let worker = w as u64;
            let (pool, stop) = (pool.clone(), Arc::clone(&set.stop));
            let work: Work<'scope, K> = Box::new(move || {
                worker::run(move || make(worker, n), to_consumer, buffers, &pool, &stop)
            });
            let handle =
                spawn(format!("tessera-cursor-set-{w}"), work).map_err(CursorSetError::Thread)?;
            set.lanes.push(Lane::thread(rx, back, handle, worker));
        }
        Ok(set)
    }
}
