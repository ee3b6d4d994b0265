//! Failures end the pass in serial order with a typed error, never a hang or a panic.

use std::thread;

use tessera_core::data::{BatchError, Check, DataErrorKind, NormSlice};

use super::*;
use crate::buffers::BuffersError;

/// 100 samples of 1 label, 2 dense and 2 slots, keys `[r]` and `[r, r + 1]`.
fn hundred() -> Vec<Sample> {
    (0..100u32)
        .map(|r| Sample {
            label: vec![r as f32],
            dense: vec![0.5, -0.5],
            slots: vec![vec![r], vec![r, r + 1]],
        })
        .collect()
}

/// Byte offset of record `r` in `encode(config, samples)`.
fn record_at(config: NormConfig, samples: &[Sample], r: usize) -> usize {
    let enc = NormEncoder::<u32>::new(config);
    let lens = samples[..r].iter().map(|s| {
        let slots: Vec<&[u32]> = s.slots.iter().map(|k| &k[..]).collect();
        enc.sample_len(&slots)
    });
    config.header_bytes() + lens.sum::<usize>()
}

/// The serial and the consolidated reading of `file`, 3 workers, batches of 8.
fn both(config: NormConfig, file: &[u8]) -> [(Vec<Row<u32>>, Option<SampleCursorError>); 2] {
    let set_config = CursorSetConfig::new(config.dims, 8, 8 * 2 * 2).with_workers(3);
    let mut bufs = consumer::<u32>(&set_config);
    let serial = read(&mut SampleCursor::new(
        NormSlice::norm(config, file),
        bufs.batch().unwrap(),
    ));
    let (set, in_place) = thread::scope(|s| {
        let make = |w, n| NormSlice::norm(config, file).partition(w, n);
        let set = CursorSet::scoped(s, set_config, make).unwrap();
        let copied = read(&mut SampleCursor::new(set, bufs.batch().unwrap()));
        let set = CursorSet::scoped(s, set_config, make).unwrap();
        (copied, read(&mut set.into_cursor()))
    });
    assert_eq!(in_place, set);
    [serial, set]
}

#[test]
fn a_bad_checksum_mid_stream_ends_the_pass_after_every_row_before_it() {
    // Record 37 is in batch 4 (worker 1 of 3): its own worker finds it, the others pass over
    // it (by length) and run ahead; none of what they read may come out.
    let config = NormConfig::new(Dims::new(1, 2, 2), 2).with_check(Check::Sum);
    let samples = hundred();
    let mut file = encode::<u32>(config, &samples);
    file[record_at(config, &samples, 37) + 6] ^= 0x40;
    let [serial, set] = both(config, &file);
    assert_eq!(set, serial);
    let (rows, err) = set;
    assert_eq!(rows.len(), 37);
    assert!(
        matches!(
            err,
            Some(SampleCursorError::Data(DataError {
                kind: DataErrorKind::Checksum { .. },
                sample: Some(37),
                ..
            }))
        ),
        "{err:?}"
    );
}

#[test]
fn a_bad_nnz_mid_stream_seen_by_every_worker_still_comes_out_in_place() {
    // Unframed: every worker passing over record 37 reads its nnz and fails there too.
    let config = NormConfig::new(Dims::new(1, 2, 2), 2);
    let samples = hundred();
    let mut file = encode::<u32>(config, &samples);
    let nnz = record_at(config, &samples, 37) + 3 * 4;
    file[nnz..nnz + 4].copy_from_slice(&9i32.to_le_bytes());
    let [serial, set] = both(config, &file);
    assert_eq!(set, serial);
    assert_eq!(set.0.len(), 37);
    assert!(matches!(
        set.1,
        Some(SampleCursorError::Data(DataError {
            kind: DataErrorKind::NnzTooLarge { .. },
            sample: Some(37),
            ..
        }))
    ));
}

/// The rows and error of a set of 3 workers over [`Synthetic`] batches of 2 (the same
/// through a `SampleCursor` and in place, with worker 0 on a thread of its own or on the
/// consumer's).
fn synthetic(
    make: impl Fn(u64, u64) -> Synthetic + Send + Sync + Clone + 'static,
) -> (Vec<Row<u32>>, Option<SampleCursorError>) {
    let mut seen = Vec::new();
    for local in [false, true] {
        let config = CursorSetConfig::new(SYNTHETIC, 2, 2)
            .with_workers(3)
            .with_consumer_decoding(local);
        let set = CursorSet::spawn(config, make.clone()).unwrap();
        let mut bufs = consumer::<u32>(&config);
        seen.push(read(&mut SampleCursor::new(set, bufs.batch().unwrap())));
        let set = CursorSet::spawn(config, make.clone()).unwrap();
        seen.push(read(&mut set.into_cursor()));
    }
    for other in &seen[1..] {
        assert_eq!(other, &seen[0]);
    }
    seen.swap_remove(0)
}

/// The error a panicking worker `worker` ends the pass with.
pub(super) fn panicked(worker: u64) -> Option<SampleCursorError> {
    Some(SampleCursorError::Data(DataError {
        kind: DataErrorKind::WorkerPanicked { worker },
        sample: None,
        offset: 0,
    }))
}

#[test]
fn a_panicking_source_is_a_typed_error_in_place_of_its_batch() {
    // Batch 5 belongs to worker 2: batches 0..5 come out, then the panic, then nothing.
    let (rows, err) = synthetic(|w, n| Synthetic::new(w, n, 10).panicking_at(5));
    assert_eq!(rows.len(), 10);
    assert_eq!(rows.last().map(|r| r.0), Some(4));
    assert_eq!(err, panicked(2));
}

#[test]
fn a_panic_in_worker_0_is_the_same_error_on_the_consumers_thread() {
    // Batch 3 belongs to worker 0, which `synthetic` also runs on the consumer's thread.
    let (rows, err) = synthetic(|w, n| Synthetic::new(w, n, 10).panicking_at(3));
    assert_eq!(rows.len(), 6);
    assert_eq!(err, panicked(0));
    let (rows, err) = synthetic(|w, n| {
        assert_ne!(w, 0, "no source for worker 0");
        Synthetic::new(w, n, 10)
    });
    assert_eq!(rows.len(), 0);
    assert_eq!(err, panicked(0));
}

#[test]
fn a_panic_while_making_a_source_is_a_typed_error() {
    let (rows, err) = synthetic(|w, n| {
        assert_ne!(w, 1, "no source for worker 1");
        Synthetic::new(w, n, 10)
    });
    assert_eq!(rows.len(), 2); // batch 0 only
    assert_eq!(err, panicked(1));
}

#[test]
fn sources_numbered_out_of_partition_order_are_an_error() {
    // Every worker numbers its batches 0, 1, 2, … : batch 0 comes twice.
    let (rows, err) = synthetic(|_, _| Synthetic::new(0, 1, 4));
    assert_eq!(rows.len(), 2);
    assert_eq!(
        err,
        Some(SampleCursorError::Data(DataError {
            kind: DataErrorKind::BatchOrder { id: 0, after: 0 },
            sample: None,
            offset: 0,
        }))
    );
}

#[test]
fn a_consumer_batch_that_cannot_hold_a_worker_batch_is_an_error() {
    let config = CursorSetConfig::new(SYNTHETIC, 4, 4).with_workers(2);
    for (dims, samples) in [(SYNTHETIC, 2), (Dims::new(2, 0, 1), 4)] {
        let set = CursorSet::spawn(config, |w, n| Synthetic::new(w, n, 10)).unwrap();
        let mut small = BatchBuffers::<u32>::new(dims, samples, 4).unwrap();
        let (rows, err) = read(&mut SampleCursor::new(set, small.batch().unwrap()));
        assert!(rows.is_empty());
        assert!(
            matches!(
                err,
                Some(SampleCursorError::Data(DataError {
                    kind: DataErrorKind::Batch(BatchError::Full { .. } | BatchError::Width { .. }),
                    sample: Some(0),
                    ..
                }))
            ),
            "{err:?}"
        );
    }
}

#[test]
fn unusable_shapes_fail_before_any_thread_starts() {
    let spawn = |config: CursorSetConfig| {
        CursorSet::spawn(config, |w, n| Synthetic::new(w, n, 1)).map(|set| set.workers())
    };
    let no_room = |r: Result<usize, CursorSetError>| {
        matches!(r, Err(CursorSetError::Batch(BatchError::NoRoom)))
    };
    assert!(no_room(spawn(CursorSetConfig::new(SYNTHETIC, 0, 4))));
    assert!(no_room(spawn(CursorSetConfig::new(
        Dims::new(0, 0, 0),
        4,
        4
    ))));
    assert!(matches!(
        spawn(CursorSetConfig::new(SYNTHETIC, 4, u32::MAX as usize + 1)),
        Err(CursorSetError::Batch(BatchError::Csr(_)))
    ));
    assert!(matches!(
        spawn(CursorSetConfig::new(SYNTHETIC, usize::MAX / 2, 4)),
        Err(CursorSetError::Memory)
    ));
    assert!(matches!(
        BatchBuffers::<i64>::new(SYNTHETIC, 4, usize::MAX / 4),
        Err(BuffersError::Memory)
    ));
    // Zero workers and zero read-ahead are taken as one.
    assert_eq!(
        spawn(
            CursorSetConfig::new(SYNTHETIC, 4, 4)
                .with_workers(0)
                .with_queue_depth(0)
        )
        .unwrap(),
        1
    );
}
