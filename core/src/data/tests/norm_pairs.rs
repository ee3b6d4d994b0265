//! Checksummed records decoded two at a time must be indistinguishable from one at a time:
//! the same batches, progress, errors (kind, sample, offset), statistics and end, on good
//! and corrupted files, whatever the chunking, batch size, key room and record limit.

use proptest::test_runner::TestCaseError;

use super::norm::encode;
use super::*;
use crate::data::norm::checksum;

/// Everything a caller can observe of one decode call, or of `finish`.
#[derive(Debug, PartialEq)]
enum Event<K> {
    Call(Result<Progress, DataError>),
    /// The batch after a call: samples as bits (decoded floats may be NaN), offsets, keys.
    Batch(Vec<u32>, Vec<K>, Vec<K>),
    Finish(Result<DecodeStats, DataError>),
}

/// How a run is driven: chunk sizes (cycled), batch samples and keys, records per call.
#[derive(Debug, Clone)]
struct Drive {
    chunks: Vec<usize>,
    samples: usize,
    values: usize,
    max: u64,
}

/// Decodes `file` as `drive` says and records every observable event.
fn trace<K: Key>(dec: NormDecoder<K>, file: &[u8], drive: &Drive) -> Vec<Event<K>> {
    let mut dec = dec;
    let dims = dec.config().dims;
    let mut bufs = Buffers::<K>::new(dims, drive.samples, drive.values);
    let mut batch = bufs.batch(dims);
    let mut events = Vec::new();
    let (mut start, mut avail, mut next_chunk) = (0, 0, 0);
    // Every call consumes, fills, ends or asks for bytes that then come: this bounds a loop.
    for _ in 0..4 * file.len() + 64 {
        let r = dec.decode_records(&file[start..avail], &mut batch, drive.max);
        events.push(Event::Call(r));
        let csr = batch.csr();
        events.push(Event::Batch(
            batch.label_dense().iter().map(|x| x.to_bits()).collect(),
            csr.row_offsets().to_vec(),
            csr.values().to_vec(),
        ));
        let Ok(p) = r else {
            break;
        };
        start += p.consumed;
        match p.status {
            Status::BatchFull => batch.clear(),
            Status::NeedMore { .. } if avail < file.len() => {
                let chunk = drive.chunks[next_chunk % drive.chunks.len()];
                avail = file.len().min(avail.saturating_add(chunk));
                next_chunk += 1;
            }
            Status::NeedMore { .. } | Status::Done => break,
        }
    }
    events.push(Event::Finish(dec.finish(&file[start..avail])));
    events
}

/// One change to a record: at byte `at` of record `record` (both taken modulo what exists;
/// the frame's length and checkbits included), add `delta`; with `resum`, rewrite the
/// checkbits so that the change reaches the parser instead of the checksum.
#[derive(Debug, Clone)]
struct Corruption {
    record: usize,
    at: usize,
    delta: u8,
    resum: bool,
}

/// The start of every record of a checksummed `file` written by the encoder (and its end).
fn record_starts(config: NormConfig, file: &[u8], records: usize) -> Vec<usize> {
    let mut starts = vec![config.header_bytes()];
    for _ in 0..records {
        let at = *starts.last().unwrap();
        let len = i32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
        starts.push(at + len + 5);
    }
    starts
}

fn corrupt(file: &mut [u8], starts: &[usize], c: &Corruption) {
    let records = starts.len() - 1;
    if records == 0 {
        return;
    }
    let r = c.record % records;
    let (start, end) = (starts[r], starts[r + 1]);
    let at = start + c.at % (end - start);
    file[at] = file[at].wrapping_add(c.delta);
    if c.resum && at < end - 1 {
        file[end - 1] = checksum(&file[start + 4..end - 1]);
    }
}

fn same_either_way<K: Key + Arbitrary>(
    dims: Dims,
    mut samples: Vec<Sample<K>>,
    oversized: Option<usize>,
    corruptions: &[Corruption],
    skip: bool,
    drive: &Drive,
) -> Result<(), TestCaseError> {
    // Written with a larger maximum than read: one sample's `nnz` may be too large, under a
    // good sum.
    if let (Some(i), false) = (oversized, samples.is_empty()) {
        let n = samples.len();
        samples[i % n].slots[0] = vec![K::default(); 4];
    }
    let written = NormConfig::new(dims, 4).with_check(Check::Sum);
    let mut file = encode(written, &samples);
    let starts = record_starts(written, &file, samples.len());
    for c in corruptions {
        corrupt(&mut file, &starts, c);
    }
    let policy = if skip {
        ErrorPolicy::Skip
    } else {
        ErrorPolicy::Stop
    };
    let config = NormConfig::new(dims, 3)
        .with_check(Check::Sum)
        .with_policy(policy);
    let pairs = trace(NormDecoder::<K>::new(config), &file, drive);
    let single = trace(NormDecoder::<K>::new(config).one_at_a_time(), &file, drive);
    prop_assert_eq!(pairs, single);
    Ok(())
}

fn arb_drive() -> impl Strategy<Value = Drive> {
    (
        prop_oneof![
            // Everything at once, as from a memory map.
            1 => Just(vec![usize::MAX]),
            2 => proptest::collection::vec(1usize..120, 1..5),
        ],
        1usize..6,
        // Key room from less than one record's keys up to plenty.
        0usize..40,
        prop_oneof![3 => Just(u64::MAX), 1 => 1u64..4],
    )
        .prop_map(|(chunks, samples, values, max)| Drive {
            chunks,
            samples,
            values,
            max,
        })
}

fn arb_corruptions() -> impl Strategy<Value = Vec<Corruption>> {
    let one = (any::<usize>(), any::<usize>(), 1u8..=255, any::<bool>()).prop_map(
        |(record, at, delta, resum)| Corruption {
            record,
            at,
            delta,
            resum,
        },
    );
    prop_oneof![
        2 => Just(Vec::new()),
        3 => proptest::collection::vec(one, 1..3),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn two_at_a_time_is_one_at_a_time_u32(
        (dims, samples) in arb_dims().prop_flat_map(|d| (Just(d), arb_samples::<u32>(d, 3))),
        oversized in proptest::option::weighted(0.2, any::<usize>()),
        corruptions in arb_corruptions(),
        skip in any::<bool>(),
        drive in arb_drive(),
    ) {
        same_either_way(dims, samples, oversized, &corruptions, skip, &drive)?;
    }

    #[test]
    fn two_at_a_time_is_one_at_a_time_i64(
        (dims, samples) in arb_dims().prop_flat_map(|d| (Just(d), arb_samples::<i64>(d, 3))),
        oversized in proptest::option::weighted(0.2, any::<usize>()),
        corruptions in arb_corruptions(),
        skip in any::<bool>(),
        drive in arb_drive(),
    ) {
        same_either_way(dims, samples, oversized, &corruptions, skip, &drive)?;
    }
}
