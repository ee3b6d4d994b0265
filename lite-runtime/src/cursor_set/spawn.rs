//! Starting a [`CursorSet`]: its buffers, channels and worker threads, owned or scoped.

use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::thread::{self, JoinHandle, Scope, ScopedJoinHandle};

use tessera_core::data::{BatchSource, Key};

use super::buffers::BatchBuffers;
use super::config::CursorSetConfig;
use super::error::CursorSetError;
use super::lane::Lane;
use super::set::CursorSet;
use super::worker;

/// A worker thread to join.
pub(super) enum Handle<'scope> {
    /// Started by [`CursorSet::spawn`].
    Owned(JoinHandle<()>),
    /// Started by [`CursorSet::scoped`].
    Scoped(ScopedJoinHandle<'scope, ()>),
}

/// A worker's body, boxed so that owned and scoped threads share the start-up code.
type Work<'scope> = Box<dyn FnOnce() + Send + 'scope>;

impl Handle<'_> {
    /// Waits for the thread to return.
    pub(super) fn join(self) {
        // A worker's panics are caught and reported as errors, so a join error can only be a
        // panic while dropping its source; there is nobody left to tell.
        let _ = match self {
            Handle::Owned(h) => h.join(),
            Handle::Scoped(h) => h.join(),
        };
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
            dims: config.dims,
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
}
