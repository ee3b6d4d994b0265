//! Once warm, a cursor set allocates nothing, on the consumer's thread or the workers';
//! and a set started with a pool of the last set's buffers allocates none of its own.
//!
//! The counter is global (every thread's allocations, unlike the per-thread counter of
//! `tessera-alloc`'s steady-state tests), since the workers run on their own threads; so this
//! binary holds a single test, and the harness has nothing else running while it counts.
//!
//! Warm-up must include every kind of wait: std's channels allocate a thread's wait context
//! and a channel's list of waiters the first time a thread blocks on it, which in a free-running
//! pass can happen for the first time at any moment. So the workers start late (the consumer
//! blocks on each) and the consumer stalls once (each worker blocks for a buffer), all in the
//! first half.

use std::thread;
use std::time::Duration;

use tessera_core::cursor::RowCursor;
use tessera_core::data::{
    BatchInfo, BatchSource, Check, DataError, Dims, NormConfig, NormEncoder, NormSlice,
    SampleBatch, SampleCursor,
};
use tessera_data::buffers::BatchBuffers;
use tessera_data::cursor_set::{BufferPool, CursorSet, CursorSetConfig};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{allocations, bytes};

const SAMPLES: u32 = 20_000;
const BATCH: usize = 64;
const DIMS: Dims = Dims::new(1, 2, 3);

/// A Norm file of `SAMPLES` samples, 1..=3 keys per slot.
fn file(config: NormConfig) -> Vec<u8> {
    let enc = NormEncoder::<u32>::new(config);
    let mut out = vec![0u8; 64 + SAMPLES as usize * config.max_record_bytes(4)];
    let mut n = enc.header(u64::from(SAMPLES), &mut out).unwrap();
    for r in 0..SAMPLES {
        let keys = [r, r + 1, r + 2];
        let slots: Vec<&[u32]> = (0..3).map(|s| &keys[..1 + (r as usize + s) % 3]).collect();
        n += enc
            .sample(&[r as f32], &[0.5, 1.5], &slots, &mut out[n..])
            .unwrap();
    }
    out.truncate(n);
    out
}

/// A source whose first batch comes after `delay`, so the consumer has to wait for it.
struct LateStart<S> {
    source: S,
    delay: Option<Duration>,
}

impl<S: BatchSource<u32>> BatchSource<u32> for LateStart<S> {
    fn next_batch(
        &mut self,
        batch: &mut SampleBatch<'_, u32>,
    ) -> Result<Option<BatchInfo>, DataError> {
        if let Some(d) = self.delay.take() {
            thread::sleep(d);
        }
        self.source.next_batch(batch)
    }
}

/// Reads every row, adding label and first key; counts allocations (on every thread) from
/// the middle of the pass to its end, workers' last batches and words included.
fn half_pass_allocations<C: RowCursor>(
    cursor: &mut C,
    label_key: impl Fn(&C) -> (f32, u32),
) -> (u32, usize, f64)
where
    C::Error: std::fmt::Debug,
{
    let (mut rows, mut sum, mut from) = (0u32, 0f64, 0);
    while cursor.move_next().unwrap() {
        if rows == SAMPLES / 4 {
            // Every worker runs out of buffers and waits for one.
            thread::sleep(Duration::from_millis(50));
        }
        if rows == SAMPLES / 2 {
            from = allocations();
        }
        let (label, key) = label_key(cursor);
        sum += f64::from(label) + f64::from(key);
        rows += 1;
    }
    (rows, allocations() - from, sum)
}

#[test]
fn a_warm_cursor_set_allocates_nothing_on_any_thread() {
    let config = NormConfig::new(DIMS, 3).with_check(Check::Sum);
    let file = file(config);
    let max_values = BATCH * DIMS.slot_num * 3;
    let set_config = CursorSetConfig::new(DIMS, BATCH, max_values)
        .with_workers(2)
        .with_queue_depth(2);
    let mut consumer = BatchBuffers::<u32>::new(DIMS, BATCH, max_values).unwrap();
    let expect: f64 = (0..SAMPLES).map(|r| 2.0 * f64::from(r)).sum();
    thread::scope(|s| {
        let make = |w, n| LateStart {
            source: NormSlice::norm(config, &file).partition(w, n),
            delay: Some(Duration::from_millis(20 * (w + 1))),
        };
        // Copied into the consumer's batch, through a `SampleCursor`.
        let set = CursorSet::scoped(s, set_config, make).unwrap();
        let mut cursor = SampleCursor::new(set, consumer.batch().unwrap());
        let (rows, counted, sum) =
            half_pass_allocations(&mut cursor, |c| (c.labels()[0], c.keys(0).unwrap()[0]));
        assert_eq!((rows, sum), (SAMPLES, expect));
        assert_eq!(counted, 0, "allocations in the second half, copying");
        // Read in place.
        let mut cursor = CursorSet::scoped(s, set_config, make)
            .unwrap()
            .into_cursor();
        let (rows, counted, sum) =
            half_pass_allocations(&mut cursor, |c| (c.labels()[0], c.keys(0).unwrap()[0]));
        assert_eq!((rows, sum), (SAMPLES, expect));
        assert_eq!(counted, 0, "allocations in the second half, in place");
        // Worker 0 decoding on the consumer's thread.
        let local = set_config.with_consumer_decoding(true);
        let mut cursor = CursorSet::scoped(s, local, make).unwrap().into_cursor();
        let (rows, counted, sum) =
            half_pass_allocations(&mut cursor, |c| (c.labels()[0], c.keys(0).unwrap()[0]));
        assert_eq!((rows, sum), (SAMPLES, expect));
        assert_eq!(
            counted, 0,
            "allocations in the second half, worker 0 on the consumer"
        );

        // A whole pass, start to end: a set of its own buffers against one whose buffers
        // come from the last pass's pool. The difference is at least every buffer.
        let pass_bytes = |pool: &BufferPool<u32>| {
            let from = bytes();
            let set = CursorSet::scoped_pooled(s, set_config, pool, |w, n| {
                NormSlice::<u32>::norm(config, &file).partition(w, n)
            });
            let mut cursor = set.unwrap().into_cursor();
            let mut rows = 0u32;
            while cursor.move_next().unwrap() {
                rows += 1;
            }
            drop(cursor);
            assert_eq!(rows, SAMPLES);
            bytes() - from
        };
        let own = pass_bytes(&BufferPool::new());
        let pool = BufferPool::new();
        pass_bytes(&pool);
        let pooled = pass_bytes(&pool);
        let buffers =
            2 * 3 * (BATCH * DIMS.label_dense() + BATCH * DIMS.slot_num + 1 + max_values) * 4;
        assert!(
            own - pooled >= buffers,
            "a pooled pass allocated {pooled} bytes, an unpooled one {own}: {buffers} expected saved"
        );
    });
}
