//! [`CursorSetConfig`]: how many workers, how far ahead they may run, and the batch shape.

use tessera_core::data::Dims;

/// How a [`CursorSet`](super::CursorSet) splits a source: `workers` threads, each decoding
/// batches of up to `batch_samples` samples (and `max_values` keys in all) into its own
/// buffers, with up to `queue_depth` decoded batches waiting for the consumer.
///
/// Memory is fixed at spawn: each worker owns `queue_depth + 1` batch buffers and never
/// allocates more, however slow the consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CursorSetConfig {
    /// Worker threads (0 is taken as 1).
    pub workers: usize,
    /// Decoded batches a worker may hold for the consumer (0 is taken as 1).
    pub queue_depth: usize,
    /// The sample shape.
    pub dims: Dims,
    /// Samples per batch: the partition unit, so it must be the same for every worker.
    pub batch_samples: usize,
    /// Keys a batch has room for in all. A partitioned source needs room for a whole batch
    /// of records (`batch_samples x slot_num x max_nnz` is always enough).
    pub max_values: usize,
    /// Worker 0 decodes on the consumer's thread, when its batch is the next one due,
    /// instead of on a thread of its own: `workers - 1` threads are started. With as many
    /// workers as cores, that leaves no thread waiting for a core, and half the batches (for
    /// 2 workers) need no handing over. Off by default.
    pub consumer_decodes: bool,
}

impl CursorSetConfig {
    /// Two workers, two batches of read-ahead each, batches of `batch_samples` samples with
    /// room for `max_values` keys.
    pub const fn new(dims: Dims, batch_samples: usize, max_values: usize) -> Self {
        Self {
            workers: 2,
            queue_depth: 2,
            dims,
            batch_samples,
            max_values,
            consumer_decodes: false,
        }
    }

    /// The same configuration with `workers` threads.
    pub const fn with_workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// The same configuration with `queue_depth` batches of read-ahead per worker.
    pub const fn with_queue_depth(mut self, queue_depth: usize) -> Self {
        self.queue_depth = queue_depth;
        self
    }

    /// The same configuration with worker 0 decoding on the consumer's thread (or not).
    pub const fn with_consumer_decoding(mut self, on: bool) -> Self {
        self.consumer_decodes = on;
        self
    }

    /// Workers, threads or not.
    pub(super) fn worker_count(&self) -> usize {
        self.workers.max(1)
    }

    /// Buffers each worker owns: its read-ahead, plus the one it is filling.
    pub(super) fn pool(&self) -> usize {
        self.queue_depth.max(1).saturating_add(1)
    }
}
