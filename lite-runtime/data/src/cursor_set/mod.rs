//! Cursor sets: one source read by several threads at once, as ML.NET's
//! `GetRowCursorSet`, and put back in serial order, as its `ConsolidateGeneric`.
//!
//! - [`CursorSet`]: `workers` threads, worker `w` of `n` reading a partition of the source
//!   (`SliceSource::partition(w, n)`: batches `w`, `w + n`, …) into its own buffers; the set
//!   is a [`BatchSource`](tessera_core::data::BatchSource) handing the batches out in batch
//!   order, so a `SampleCursor` over it is the serial cursor, rows, ids and batch numbers
//!   alike, with the decoding spread over the workers. [`CursorSet::into_cursor`] gives the
//!   same rows as a [`SetCursor`] that reads each batch where its worker decoded it, with no
//!   copy into a batch of the consumer's (the faster way when the consumer needs no batch).
//!   Worker 0 may decode on the consumer's thread instead of its own
//!   ([`CursorSetConfig::with_consumer_decoding`]), so `n` workers need `n - 1` threads.
//! - Any dataset on disk (Norm or Raw files, file lists, Parquet; whole or one rank's
//!   shard) is such a source: `make_source` is
//!   [`DatasetPlan::partition`](crate::dataset::DatasetPlan::partition).
//! - [`partition_cursors`]: the partitions' cursors themselves, unmerged, for consumers that do
//!   not need the serial order (each cursor's batch numbers rise; the cursors share none).
//! - [`BufferPool`]: batch buffers ([`BatchBuffers`](crate::buffers::BatchBuffers), the
//!   owned memory of one batch, which can cross threads) kept from one set to the next (one
//!   set per epoch allocates its buffers once, not every epoch).
//!
//! Once running, neither the workers nor the consumer allocate: batches travel as owned
//! buffers through bounded channels and come back to be refilled. A decoding error or a
//! worker's panic reaches the consumer as a `DataError` in its serial place; a consumer that
//! stops early just drops the set, which stops and joins every worker.
//!
//! ```
//! use std::thread;
//! use tessera_core::cursor::RowCursor;
//! use tessera_core::data::{Check, Dims, NormConfig, NormEncoder, NormSlice, SampleCursor};
//! use tessera_data::buffers::BatchBuffers;
//! use tessera_data::cursor_set::{CursorSet, CursorSetConfig};
//!
//! let config = NormConfig::new(Dims::new(1, 0, 2), 2).with_check(Check::Sum);
//! let enc = NormEncoder::<u32>::new(config);
//! let mut file = vec![0u8; 4096];
//! let mut n = enc.header(50, &mut file).unwrap();
//! for i in 0..50u32 {
//!     n += enc.sample(&[i as f32], &[], &[&[i], &[7, 8]], &mut file[n..]).unwrap();
//! }
//! file.truncate(n);
//!
//! // Batches of 4 samples, at most 2 x 4 keys each; two workers, two batches ahead.
//! let set_config = CursorSetConfig::new(config.dims, 4, 2 * 2 * 4).with_workers(2);
//! let mut consumer = BatchBuffers::<u32>::new(config.dims, 4, 2 * 2 * 4).unwrap();
//! thread::scope(|scope| {
//!     // Scoped threads: the sources borrow `file`.
//!     let set = CursorSet::scoped(scope, set_config, |w, n| {
//!         NormSlice::norm(config, &file).partition(w, n)
//!     })
//!     .unwrap();
//!     let mut cursor = SampleCursor::new(set, consumer.batch().unwrap());
//!     let mut i = 0u32;
//!     while cursor.move_next().unwrap() {
//!         assert_eq!(cursor.keys(0), Some(&[i][..])); // the serial order
//!         assert_eq!(cursor.batch(), u64::from(i / 4));
//!         i += 1;
//!     }
//!     assert_eq!(i, 50);
//!     drop(cursor); // stops and joins the workers (the end of the pass already had)
//!
//!     // The same rows read in place: no consumer batch, no copy.
//!     let set = CursorSet::scoped(scope, set_config, |w, n| {
//!         NormSlice::<u32>::norm(config, &file).partition(w, n)
//!     })
//!     .unwrap();
//!     let mut cursor = set.into_cursor();
//!     let mut sum = 0.0;
//!     while cursor.move_next().unwrap() {
//!         sum += cursor.labels()[0];
//!     }
//!     assert_eq!(sum, (0..50).sum::<u32>() as f32);
//! });
//! ```

mod config;
mod cursor;
mod error;
mod lane;
mod partition_cursors;
mod pool;
mod set;
mod spawn;
#[cfg(test)]
mod tests;
mod worker;

pub use config::CursorSetConfig;
pub use cursor::SetCursor;
pub use error::CursorSetError;
pub use partition_cursors::partition_cursors;
pub use pool::BufferPool;
pub use set::CursorSet;
