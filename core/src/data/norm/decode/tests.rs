//! The fast path must be invisible: on any bytes (good samples, bad `nnz`, truncated or
//! over-long input, framed or not) and any batch state (values nearly full, batch full),
//! [`payload`] must return what [`payload_checked`] returns and leave the same batch.

extern crate std;

use std::vec;
use std::vec::Vec;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::*;
use crate::data::batch::Dims;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 512 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// `Fail` in a comparable form: (path, length or position, skip, kind, batch error).
type Outcome = (
    u8,
    usize,
    Option<usize>,
    Option<DataErrorKind>,
    Option<BatchError>,
);

fn outcome(r: &Result<usize, Fail>) -> Outcome {
    match *r {
        Ok(len) => (0, len, None, None, None),
        Err(Fail::Incomplete(n)) => (1, n, None, None, None),
        Err(Fail::Full(e)) => (2, 0, None, None, Some(e)),
        Err(Fail::Bad { kind, at, skip }) => (3, at, skip, Some(kind), None),
    }
}

/// One sample's bytes: per slot an `nnz` drawn around `max` (negative sometimes) and that
/// many keys, then cut or extended.
fn sample_bytes() -> impl Strategy<Value = (Dims, u32, Vec<u8>, bool, usize, usize)> {
    (0..=2usize, 0..=3usize, 1..=4usize, 0..=6u32).prop_flat_map(|(l, d, s, max)| {
        let nnz = prop_oneof![
            8 => 0..=max as i32,
            1 => Just(max as i32 + 1),
            1 => Just(-1i32),
        ];
        (
            Just(Dims::new(l, d, s)),
            Just(max),
            prop::collection::vec((nnz, prop::collection::vec(any::<u8>(), 0..64)), s),
            prop::collection::vec(any::<u8>(), (l + d) * 4),
            // Cut (negative) or extend the sample by this many bytes.
            -12i32..12,
            any::<bool>(),
            // Values free in the batch, and samples already in it.
            0..40usize,
            0..3usize,
        )
            .prop_map(|(dims, max, slots, head, delta, exact, free, before)| {
                let mut bytes = head;
                for (nnz, keys) in slots {
                    bytes.extend_from_slice(&nnz.to_le_bytes());
                    bytes.extend_from_slice(&keys[..keys.len().min(nnz.max(0) as usize * 8)]);
                }
                let len = (bytes.len() as i32 + delta).max(0) as usize;
                bytes.resize(len, 0xa5);
                (dims, max, bytes, exact, free, before)
            })
    })
}

fn same_as_checked<K: Key>(
    (dims, max, bytes, exact, free, before): (Dims, u32, Vec<u8>, bool, usize, usize),
) -> Result<(), TestCaseError> {
    let config = NormConfig::new(dims, max);
    let capacity = 3;
    let values = before * dims.slot_num + free;
    let (ld, offsets, _) = dims.buffer_lens(capacity, values).unwrap();
    let mut bufs = [
        (
            vec![0f32; ld],
            vec![K::default(); offsets],
            vec![K::default(); values],
        ),
        (
            vec![0f32; ld],
            vec![K::default(); offsets],
            vec![K::default(); values],
        ),
    ];
    let mut results = Vec::new();
    let mut states = Vec::new();
    for (i, (ld, off, val)) in bufs.iter_mut().enumerate() {
        let mut batch = SampleBatch::new(dims, ld, off, val).unwrap();
        let one = [K::default()];
        let slots: Vec<&[K]> = vec![&one[..]; dims.slot_num];
        let head = vec![0.5f32; dims.label_dense()];
        for _ in 0..before {
            batch
                .push_sample(&head[..dims.label_dim], &head[dims.label_dim..], &slots)
                .unwrap();
        }
        // `payload`, spelled out to see which path took the sample.
        let fast = if i == 0 {
            payload_fast(&bytes, &config, &mut batch, exact)
        } else {
            None
        };
        let r = match fast {
            Some(len) => Ok(len),
            None => payload_checked(&bytes, &config, &mut batch, exact),
        };
        if i == 0 && r.is_ok() && free >= dims.slot_num * max as usize + CHUNK {
            // Room for any sample: a good one must not need the slow path.
            prop_assert!(fast.is_some());
        }
        results.push(outcome(&r));
        let csr = batch.csr();
        states.push((
            batch.samples(),
            // As bits: decoded floats may be NaN.
            batch
                .label_dense()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            csr.row_offsets().to_vec(),
            csr.values().to_vec(),
        ));
    }
    prop_assert_eq!(&results[0], &results[1]);
    prop_assert_eq!(&states[0], &states[1]);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fast_path_matches_checked_u32(c in sample_bytes()) {
        same_as_checked::<u32>(c)?;
    }

    #[test]
    fn fast_path_matches_checked_i64(c in sample_bytes()) {
        same_as_checked::<i64>(c)?;
    }
}

#[test]
fn fast_path_takes_well_formed_samples() {
    // A sample of 5 keys in one slot (more than a chunk) and an empty slot, as the
    // last bytes of the input: the fast path's exact-copy and long-slot branches.
    let dims = Dims::new(1, 0, 2);
    let config = NormConfig::new(dims, 6);
    let mut bytes = 1.5f32.to_le_bytes().to_vec();
    bytes.extend_from_slice(&5i32.to_le_bytes());
    for k in 10u32..15 {
        bytes.extend_from_slice(&k.to_le_bytes());
    }
    bytes.extend_from_slice(&0i32.to_le_bytes());
    let (mut ld, mut off, mut val) = ([0f32; 1], [0u32; 3], [0u32; 16]);
    let mut batch = SampleBatch::new(dims, &mut ld, &mut off, &mut val).unwrap();
    assert_eq!(
        payload_fast(&bytes, &config, &mut batch, true),
        Some(bytes.len())
    );
    assert_eq!(batch.keys(0, 0), Some(&[10, 11, 12, 13, 14][..]));
    assert_eq!(batch.keys(0, 1), Some(&[][..]));
    assert_eq!(batch.labels(0), Some(&[1.5][..]));
}
