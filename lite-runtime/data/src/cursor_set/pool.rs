//! [`BufferPool`]: batch buffers kept from one cursor set to the next, so that a set started
//! for every pass (every epoch) reuses the memory of the one before instead of allocating
//! and first-touching it again.

use std::sync::{Arc, Mutex, MutexGuard};

use tessera_core::data::{Dims, Key};

use super::error::CursorSetError;
use crate::buffers::BatchBuffers;

/// Batch buffers parked between cursor sets.
///
/// A set started with [`CursorSet::spawn_pooled`](super::CursorSet::spawn_pooled) or
/// [`scoped_pooled`](super::CursorSet::scoped_pooled) takes its buffers from the pool
/// (allocating only what the pool lacks) and puts every one of them back when it ends,
/// fails or is dropped, once its workers are joined. So from the second pass on, starting
/// a set allocates no batch memory, and the pages the buffers span are already mapped.
///
/// Buffers of another shape (dims, samples per batch, keys per batch) than the set asks
/// for are dropped when it takes from the pool, so a pool follows the last shape it served.
/// Clones share the same buffers. The pool is safe to share between threads, but a set
/// only touches it when it starts and ends.
///
/// ```
/// use std::thread;
/// use tessera_core::cursor::RowCursor;
/// use tessera_core::data::{Dims, NormConfig, NormEncoder, NormSlice};
/// use tessera_data::cursor_set::{BufferPool, CursorSet, CursorSetConfig};
///
/// let config = NormConfig::new(Dims::new(1, 0, 1), 1);
/// let enc = NormEncoder::<u32>::new(config);
/// let mut file = vec![0u8; 1024];
/// let mut n = enc.header(20, &mut file).unwrap();
/// for i in 0..20u32 {
///     n += enc.sample(&[i as f32], &[], &[&[i]], &mut file[n..]).unwrap();
/// }
/// file.truncate(n);
///
/// // Two workers, two batches ahead each: 3 buffers per worker.
/// let set_config = CursorSetConfig::new(config.dims, 4, 4).with_workers(2);
/// let pool = BufferPool::<u32>::new();
/// thread::scope(|scope| {
///     for _epoch in 0..3 {
///         let set = CursorSet::scoped_pooled(scope, set_config, &pool, |w, n| {
///             NormSlice::<u32>::norm(config, &file).partition(w, n)
///         })
///         .unwrap();
///         let mut cursor = set.into_cursor();
///         let mut rows = 0;
///         while cursor.move_next().unwrap() {
///             rows += 1;
///         }
///         assert_eq!(rows, 20);
///         drop(cursor);
///         // Every buffer is back, for the next epoch.
///         assert_eq!(pool.len(), 2 * 3);
///     }
/// });
/// ```
pub struct BufferPool<K> {
    parked: Arc<Mutex<Vec<BatchBuffers<K>>>>,
}

impl<K> BufferPool<K> {
    /// An empty pool.
    pub fn new() -> Self {
        Self {
            parked: Arc::default(),
        }
    }

    /// Buffers parked now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no buffer is parked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frees every parked buffer.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Makes room to park `total` buffers, so that parking them at a set's end (once the
    /// set has taken its own) allocates nothing there.
    pub(super) fn reserve(&self, total: usize) {
        let mut parked = self.lock();
        let more = total.saturating_sub(parked.len());
        // Only an optimisation: without the room, parking grows the list instead.
        let _ = parked.try_reserve(more);
    }

    /// Parks `buffers` for the next set.
    pub(super) fn put(&self, buffers: BatchBuffers<K>) {
        self.lock().push(buffers);
    }

    fn lock(&self) -> MutexGuard<'_, Vec<BatchBuffers<K>>> {
        // A panic while the lock was held cannot leave the list half-changed (a push or a
        // pop of whole buffers), so a poisoned lock is still a valid list.
        self.parked.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<K: Key> BufferPool<K> {
    /// Parked buffers of this shape, or new ones if none is left; parked buffers of another
    /// shape are dropped on the way.
    pub(super) fn take(
        &self,
        dims: Dims,
        samples: usize,
        values: usize,
    ) -> Result<BatchBuffers<K>, CursorSetError> {
        let found = {
            let mut parked = self.lock();
            std::iter::from_fn(|| parked.pop()).find(|b| b.fits(dims, samples, values))
        };
        match found {
            Some(b) => Ok(b),
            None => Ok(BatchBuffers::new(dims, samples, values)?),
        }
    }
}

impl<K> Clone for BufferPool<K> {
    fn clone(&self) -> Self {
        Self {
            parked: Arc::clone(&self.parked),
        }
    }
}

impl<K> Default for BufferPool<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> core::fmt::Debug for BufferPool<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BufferPool")
            .field("parked", &self.len())
            .finish()
    }
}
