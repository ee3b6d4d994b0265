//! The consolidated cursor is the serial cursor, and the partition cursors partition it.

use std::collections::HashSet;
use std::thread;

use proptest::sample::Index;
use tessera_core::data::{Check, ErrorPolicy, NormSlice};

use super::*;

/// Any shape with 1..=3 slots, and up to 60 samples of it with 0..=3 keys per slot.
fn arb_data() -> impl Strategy<Value = (Dims, Vec<Sample>)> {
    (0usize..3, 0usize..3, 1usize..4).prop_flat_map(|(l, d, s)| {
        let dims = Dims::new(l, d, s);
        (Just(dims), arb_samples(dims, 3))
    })
}

/// How a file is read: checksums, policy, batch size, workers, read-ahead.
#[derive(Debug, Clone, Copy)]
struct Reading {
    sum: bool,
    skip: bool,
    batch: usize,
    workers: usize,
    depth: usize,
    /// Worker 0 decodes on the consumer's thread.
    local: bool,
}

fn arb_reading() -> impl Strategy<Value = Reading> {
    (
        any::<bool>(),
        any::<bool>(),
        1usize..6,
        1usize..=4,
        0usize..3,
        any::<bool>(),
    )
        .prop_map(|(sum, skip, batch, workers, depth, local)| Reading {
            sum,
            skip,
            batch,
            workers,
            depth,
            local,
        })
}

impl Reading {
    fn norm(&self, dims: Dims) -> NormConfig {
        let check = if self.sum { Check::Sum } else { Check::None };
        let policy = if self.skip {
            ErrorPolicy::Skip
        } else {
            ErrorPolicy::Stop
        };
        NormConfig::new(dims, 3)
            .with_check(check)
            .with_policy(policy)
    }

    fn set(&self, dims: Dims) -> CursorSetConfig {
        CursorSetConfig::new(dims, self.batch, self.batch * dims.slot_num * 3)
            .with_workers(self.workers)
            .with_queue_depth(self.depth)
            .with_consumer_decoding(self.local)
    }
}

/// Damage to a file: a byte overwritten, or the file cut there.
type Damage = Option<(Index, u8, bool)>;

/// Reads `samples` (keys as `K`, the file damaged as `damage` says) through the serial
/// cursor and through a cursor set, and compares everything the cursors show.
fn consolidated_vs_serial<K: Key + Send + From<u32>>(
    dims: Dims,
    samples: &[Sample],
    r: Reading,
    damage: Damage,
) -> Result<(), TestCaseError> {
    let config = r.norm(dims);
    let mut file = encode::<K>(config, samples);
    if let Some((at, byte, cut)) = damage {
        let i = at.index(file.len());
        if cut {
            file.truncate(i);
        } else {
            file[i] = byte;
        }
    }
    let set_config = r.set(dims);
    let mut bufs = consumer::<K>(&set_config);
    let serial = read(&mut SampleCursor::new(
        NormSlice::norm(config, &file),
        bufs.batch().unwrap(),
    ));
    let (copied, in_place) = thread::scope(|s| {
        let make = |w, n| NormSlice::norm(config, &file).partition(w, n);
        let set = CursorSet::scoped(s, set_config, make).unwrap();
        let copied = read(&mut SampleCursor::new(set, bufs.batch().unwrap()));
        let set = CursorSet::scoped(s, set_config, make).unwrap();
        (copied, read(&mut set.into_cursor()))
    });
    if damage.is_none() && !r.skip {
        prop_assert!(serial.1.is_none());
        prop_assert_eq!(serial.0.len(), samples.len());
    }
    prop_assert_eq!(&copied, &serial);
    prop_assert_eq!(&in_place, &serial);
    Ok(())
}

proptest! {
    #![proptest_config(cases())]

    /// Rows, ids, batch numbers and the error that ends the pass (if the file is damaged)
    /// are the serial cursor's, whatever the workers, read-ahead, batch size, checksum mode
    /// and policy, read through a `SampleCursor` over the set or in place; the cursor stays
    /// ended after it.
    #[test]
    fn the_consolidated_cursor_is_the_serial_cursor(
        (dims, samples) in arb_data(),
        reading in arb_reading(),
        damage in proptest::option::of((any::<Index>(), any::<u8>(), any::<bool>())),
        wide in any::<bool>(),
    ) {
        if wide {
            consolidated_vs_serial::<i64>(dims, &samples, reading, damage)?;
        } else {
            consolidated_vs_serial::<u32>(dims, &samples, reading, damage)?;
        }
    }

    /// Each raw cursor's batch numbers never decrease, no two cursors share one, and the
    /// rows of all of them, stably sorted by batch, are the serial rows.
    #[test]
    fn partition_cursors_cover_the_serial_rows(
        (dims, samples) in arb_data(),
        reading in arb_reading(),
    ) {
        let config = reading.norm(dims);
        let file = encode::<u32>(config, &samples);
        let set_config = reading.set(dims);
        let mut bufs = consumer::<u32>(&set_config);
        let (serial, err) = read(&mut SampleCursor::new(
            NormSlice::norm(config, &file),
            bufs.batch().unwrap(),
        ));
        prop_assert!(err.is_none());
        let mut buffers: Vec<_> = (0..reading.workers).map(|_| consumer::<u32>(&set_config)).collect();
        let cursors = partition_cursors(&mut buffers, |w, n| {
            NormSlice::norm(config, &file).partition(w, n)
        })
        .unwrap();
        prop_assert_eq!(cursors.len(), reading.workers);
        let parts: Vec<_> = thread::scope(|s| {
            let threads: Vec<_> = cursors
                .into_iter()
                .map(|mut c| s.spawn(move || read(&mut c)))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut seen = HashSet::new();
        let mut merged = Vec::new();
        for (part, err) in parts {
            prop_assert!(err.is_none(), "{:?}", err);
            let mut batches: Vec<u64> = part.iter().map(|r| r.0).collect();
            prop_assert!(batches.windows(2).all(|w| w[0] <= w[1]), "{:?}", batches);
            batches.dedup();
            for b in batches {
                prop_assert!(seen.insert(b), "batch {} in two cursors", b);
            }
            merged.extend(part);
        }
        merged.sort_by_key(|r| r.0);
        prop_assert_eq!(merged, serial);
    }
}

#[test]
fn owned_threads_read_an_owned_source() {
    // `spawn`: 'static sources, here ones that own their samples.
    let config = CursorSetConfig::new(SYNTHETIC, 3, 3).with_workers(3);
    let set = CursorSet::spawn(config, |w, n| Synthetic::new(w, n, 10)).unwrap();
    let mut bufs = consumer::<u32>(&config);
    let (rows, err) = read(&mut SampleCursor::new(set, bufs.batch().unwrap()));
    assert_eq!(err, None);
    assert_eq!(rows.len(), 30);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.0, i as u64 / 3);
        assert_eq!(row.1, RowId::from_position(i as u64));
        assert_eq!(row.4, [[i as u32]]);
    }
}
