//! One worker thread: makes its source, then fills buffers the consumer hands back and
//! sends them on, until its source ends or fails or the consumer goes away.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SendError, SyncSender};

use tessera_core::data::{BatchInfo, BatchSource, DataError, DataErrorKind, Key};

use super::pool::BufferPool;
use crate::buffers::BatchBuffers;

/// What a worker tells the consumer. Everything after a batch is the worker's last word.
pub(super) enum Msg<K> {
    /// `samples` samples of batch `info`, in `buffers`.
    Batch {
        /// Where the batch came from.
        info: BatchInfo,
        /// Samples in it.
        samples: usize,
        /// The memory holding it, to resume and then send back.
        buffers: BatchBuffers<K>,
    },
    /// The source has no more batches.
    End,
    /// The source failed.
    Failed(DataError),
    /// Making the source or reading it panicked.
    Panicked,
}

/// The worker's loop: `make` builds the source here, on the worker's thread, so the source
/// itself need not be `Send`. Buffers arrive through `buffers` (the spawner puts the whole
/// pool there first), so a worker runs at most a pool ahead of the consumer and allocates
/// nothing. Returns when the consumer hangs up (a send or a receive fails) or raises
/// `stop`, after its last word, or when making the source panics.
///
/// Every buffer the worker holds when it returns goes to `pool`; it returns the receiver,
/// so that the set, once it has joined the worker, parks the buffers still on their way
/// back to it too (dropping the receiver would drop them).
pub(super) fn run<K: Key, S: BatchSource<K>>(
    make: impl FnOnce() -> S,
    to_consumer: SyncSender<Msg<K>>,
    buffers: Receiver<BatchBuffers<K>>,
    pool: &BufferPool<K>,
    stop: &AtomicBool,
) -> Receiver<BatchBuffers<K>> {
    // A panic becomes a message rather than a silent hang-up, so the consumer can place it
    // in the batch order; the source is not used again after one.
    let Ok(mut source) = catch_unwind(AssertUnwindSafe(make)) else {
        let _ = to_consumer.send(Msg::Panicked);
        return buffers;
    };
    while let Ok(bufs) = buffers.recv() {
        // Buffers still queued when the consumer stopped: not worth decoding into.
        if stop.load(Ordering::Acquire) {
            pool.put(bufs);
            break;
        }
        let msg = next_message(&mut source, bufs, pool);
        let last = !matches!(msg, Msg::Batch { .. });
        match to_consumer.send(msg) {
            Ok(()) if !last => {}
            Ok(()) => break,
            Err(SendError(msg)) => {
                if let Msg::Batch { buffers, .. } = msg {
                    pool.put(buffers);
                }
                break;
            }
        }
    }
    buffers
}

/// The source's next batch in `bufs`, or its last word; a panic is caught and reported.
/// Buffers the message does not carry go to `pool` (plain vectors, refilled from scratch:
/// reusable whatever happened).
pub(super) fn next_message<K: Key, S: BatchSource<K> + ?Sized>(
    source: &mut S,
    mut bufs: BatchBuffers<K>,
    pool: &BufferPool<K>,
) -> Msg<K> {
    let filled = catch_unwind(AssertUnwindSafe(|| fill(source, &mut bufs)));
    let msg = match filled {
        Ok(Ok(Some((info, samples)))) => {
            return Msg::Batch {
                info,
                samples,
                buffers: bufs,
            };
        }
        Ok(Ok(None)) => Msg::End,
        Ok(Err(e)) => Msg::Failed(e),
        Err(_) => Msg::Panicked,
    };
    pool.put(bufs);
    msg
}

/// The source's next batch, decoded into `buffers`: its info and sample count.
fn fill<K: Key, S: BatchSource<K> + ?Sized>(
    source: &mut S,
    buffers: &mut BatchBuffers<K>,
) -> Result<Option<(BatchInfo, usize)>, DataError> {
    let mut batch = buffers.batch().map_err(|e| DataError {
        kind: DataErrorKind::Batch(e),
        sample: None,
        offset: 0,
    })?;
    Ok(source
        .next_batch(&mut batch)?
        .map(|info| (info, batch.samples())))
}
