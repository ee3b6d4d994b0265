use super::norm::encode;
use super::*;
use crate::cursor::{CursorError, RowCursor, RowId};
use crate::sparse::{InlineVBuffer, VBuffer};

const DIMS: Dims = Dims::new(1, 1, 2);

fn samples(n: u32) -> Vec<Sample<u32>> {
    (0..n)
        .map(|i| Sample {
            label: vec![i as f32],
            dense: vec![0.5],
            slots: vec![vec![i % 3, 7, i % 3], vec![100 + i]],
        })
        .collect()
}

fn config() -> NormConfig {
    NormConfig::new(DIMS, 4).with_check(Check::Sum)
}

#[test]
fn serial_cursor_yields_every_sample_with_position_ids_and_batch_numbers() {
    let want = samples(7);
    let file = encode(config(), &want);
    let mut bufs = Buffers::<u32>::new(DIMS, 3, 64);
    let mut cursor = SampleCursor::new(NormSlice::norm(config(), &file), bufs.batch(DIMS));
    assert_eq!(cursor.id(), Err(CursorError::BeforeFirst));
    let mut keys: InlineVBuffer<f32, 8> = VBuffer::default();
    let mut label: InlineVBuffer<f32, 1> = VBuffer::default();
    let mut i = 0u32;
    while cursor.move_next().unwrap() {
        let s = &want[i as usize];
        assert_eq!(cursor.id(), Ok(RowId::from_position(u64::from(i))));
        assert_eq!(cursor.position(), Some(u64::from(i)));
        assert_eq!(cursor.batch(), u64::from(i / 3));
        assert_eq!(cursor.labels(), &s.label[..]);
        assert_eq!(cursor.keys(1), Some(&s.slots[1][..]));
        cursor.get_vector(LABEL, &mut label).unwrap();
        assert_eq!(label.values(), &s.label[..]);
        cursor.get_vector(KEYS, &mut keys).unwrap();
        // Slot 0 repeats key i % 3 (count 2) and holds 7; slot 1 holds 100 + i.
        let mut expect = vec![(i % 3, 2.0), (7, 1.0), (100 + i, 1.0)];
        expect.sort_by_key(|p| p.0);
        let got: Vec<(u32, f32)> = keys
            .indices()
            .iter()
            .copied()
            .zip(keys.values().iter().copied())
            .collect();
        assert_eq!(got, expect);
        i += 1;
    }
    assert_eq!(i, 7);
    assert_eq!(cursor.batch(), 2);
    assert!(!cursor.move_next().unwrap());
    assert_eq!(cursor.id(), Err(CursorError::Finished));
}

#[test]
fn an_error_comes_after_every_good_sample_and_then_the_cursor_stays_ended() {
    let file = encode(config(), &samples(5));
    let cut = &file[..file.len() - 2]; // sample 4 truncated
    let mut bufs = Buffers::<u32>::new(DIMS, 2, 64);
    let mut cursor = SampleCursor::new(NormSlice::norm(config(), cut), bufs.batch(DIMS));
    let mut good = 0;
    let err = loop {
        match cursor.move_next() {
            Ok(true) => good += 1,
            Ok(false) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert_eq!(good, 4);
    assert!(
        matches!(
            err,
            SampleCursorError::Data(DataError {
                sample: Some(4),
                ..
            })
        ),
        "{err}"
    );
    assert_eq!(cursor.move_next(), Ok(false));
    assert_eq!(cursor.move_next(), Ok(false));
}

#[test]
fn raw_files_read_through_the_same_cursor() {
    let mut file = Vec::new();
    for i in 0..5i32 {
        for v in [i as f32, 2.0] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(&i.to_le_bytes());
        file.extend_from_slice(&(10 + i).to_le_bytes());
    }
    let raw = RawSlice::<i64>::raw(RawConfig::new(DIMS), &file).unwrap();
    let mut bufs = Buffers::<i64>::new(DIMS, 2, 4);
    let mut cursor = SampleCursor::new(raw, bufs.batch(DIMS));
    let mut n = 0;
    while cursor.move_next().unwrap() {
        assert_eq!(cursor.keys(1), Some(&[10 + n][..]));
        assert_eq!(cursor.dense(), &[2.0]);
        n += 1;
    }
    assert_eq!(n, 5);
}

#[test]
fn wrong_columns_are_typed_errors() {
    let file = encode(config(), &samples(1));
    let mut bufs = Buffers::<u32>::new(DIMS, 2, 8);
    let mut cursor = SampleCursor::new(NormSlice::norm(config(), &file), bufs.batch(DIMS));
    assert!(cursor.move_next().unwrap());
    assert!(matches!(
        cursor.get_scalar(0),
        Err(SampleCursorError::Cursor(CursorError::WrongType { .. }))
    ));
    let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    assert!(matches!(
        cursor.get_vector(3, &mut v),
        Err(SampleCursorError::Cursor(CursorError::ColumnOutOfRange {
            col: 3,
            columns: 3
        }))
    ));
    let mut tiny: InlineVBuffer<f32, 1> = VBuffer::default();
    assert!(matches!(
        cursor.get_vector(KEYS, &mut tiny),
        Err(SampleCursorError::Cursor(CursorError::Vector(_)))
    ));
}

/// One row as read: (batch, id, label bits, keys).
type Read = (u64, RowId, u32, Vec<u32>);

/// Every row of a cursor, and the error that ended it.
fn rows<S: BatchSource<u32>>(source: S, capacity: usize) -> (Vec<Read>, Option<SampleCursorError>) {
    let mut bufs = Buffers::<u32>::new(DIMS, capacity, capacity * 2 * 4);
    let mut cursor = SampleCursor::new(source, bufs.batch(DIMS));
    let mut out = Vec::new();
    loop {
        match cursor.move_next() {
            Ok(true) => {
                let keys = (0..2)
                    .flat_map(|s| cursor.keys(s).unwrap().to_vec())
                    .collect();
                out.push((
                    cursor.batch(),
                    cursor.id().unwrap(),
                    cursor.labels()[0].to_bits(),
                    keys,
                ));
            }
            Ok(false) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

proptest! {
    #![proptest_config(super::config())]

    /// The partitions of a file, merged by batch number, are the serial cursor: same rows,
    /// ids and batches, in the same order, for any batch size and worker count.
    #[test]
    fn partitions_consolidate_to_the_serial_order(
        n in 0u32..40,
        capacity in 1usize..6,
        workers in 1u64..5,
        sum in any::<bool>(),
    ) {
        let check = if sum { Check::Sum } else { Check::None };
        let config = NormConfig::new(DIMS, 4).with_check(check);
        let file = encode(config, &samples(n));
        let (serial, err) = rows(NormSlice::norm(config, &file), capacity);
        prop_assert!(err.is_none());
        prop_assert_eq!(serial.len(), n as usize);
        let mut merged = Vec::new();
        for w in 0..workers {
            let (part, err) = rows(NormSlice::norm(config, &file).partition(w, workers), capacity);
            prop_assert!(err.is_none(), "{:?}", err);
            let mut batches: Vec<u64> = part.iter().map(|r| r.0).collect();
            batches.dedup();
            prop_assert!(batches.iter().all(|b| b % workers == w));
            merged.extend(part);
        }
        merged.sort_by_key(|r| r.0); // stable: rows keep their order within a batch
        prop_assert_eq!(merged, serial);
    }
}

#[test]
fn skipped_records_leave_no_empty_stop() {
    // Every record of batch 0 is corrupt: the cursor goes on to batch 1.
    let config = config().with_policy(ErrorPolicy::Skip);
    let mut file = encode(config, &samples(4));
    let mut at = config.header_bytes();
    let enc = NormEncoder::<u32>::new(config);
    for s in &samples(2) {
        let len = enc.sample_len(&s.slot_refs());
        file[at + len - 1] ^= 1;
        at += len;
    }
    let (got, err) = rows(NormSlice::norm(config, &file), 2);
    assert!(err.is_none());
    assert_eq!(
        got.iter().map(|r| r.1).collect::<Vec<_>>(),
        [RowId::from_position(2), RowId::from_position(3)]
    );
    assert_eq!(got[0].0, 1);
}

#[test]
fn a_csr_batch_built_elsewhere_reads_through_the_cursor() {
    let mut src = Buffers::<u32>::new(DIMS, 2, 8);
    let mut built = src.batch(DIMS);
    built.push_sample(&[1.0], &[0.5], &[&[3], &[4, 5]]).unwrap();
    built.push_sample(&[0.0], &[0.25], &[&[], &[6]]).unwrap();
    let info = BatchInfo {
        id: 7,
        first_row: 100,
    };
    let mut bufs = Buffers::<u32>::new(DIMS, 2, 8);
    let mut cursor = SampleCursor::new(FilledBatch::new(&built, info), bufs.batch(DIMS));
    assert!(cursor.move_next().unwrap());
    assert_eq!(
        (cursor.batch(), cursor.id().unwrap()),
        (7, RowId::from_position(100))
    );
    assert_eq!(cursor.keys(1), Some(&[4, 5][..]));
    assert!(cursor.move_next().unwrap());
    assert_eq!(cursor.id().unwrap(), RowId::from_position(101));
    assert!(!cursor.move_next().unwrap());

    // A cursor batch too small for it is a typed error, not a truncation.
    let mut small = Buffers::<u32>::new(DIMS, 1, 8);
    let mut cursor = SampleCursor::new(FilledBatch::new(&built, info), small.batch(DIMS));
    assert!(matches!(
        cursor.move_next(),
        Err(SampleCursorError::Data(DataError {
            kind: DataErrorKind::Batch(_),
            ..
        }))
    ));
}

/// The rows and error of worker `w` of `workers`, unindexed and indexed (by `index_batch`).
fn indexed_vs_walked(
    config: NormConfig,
    file: &[u8],
    capacity: usize,
    index_batch: usize,
    w: u64,
    workers: u64,
) -> [(Vec<Read>, Option<SampleCursorError>); 2] {
    let mut starts = [0u64; 64];
    let index = BatchIndex::build(
        NormDecoder::<u32>::new(config),
        file,
        index_batch,
        &mut starts,
    )
    .unwrap();
    let walked = rows(
        NormSlice::norm(config, file).partition(w, workers),
        capacity,
    );
    let source = NormSlice::norm(config, file).partition(w, workers);
    let indexed = rows(source.with_index(index), capacity);
    [walked, indexed]
}

proptest! {
    #![proptest_config(super::config())]

    /// A partition that jumps by an index reads what it reads by walking: the same rows and
    /// the same error, on good files, files with one flipped byte, and cut files.
    #[test]
    fn an_indexed_partition_reads_what_a_walking_one_reads(
        n in 0u32..30,
        capacity in 1usize..5,
        workers in 1u64..4,
        sum in any::<bool>(),
        flip in proptest::option::of((any::<proptest::sample::Index>(), 1u8..=255)),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
    ) {
        let check = if sum { Check::Sum } else { Check::None };
        let config = NormConfig::new(DIMS, 4).with_check(check);
        let mut file = encode(config, &samples(n));
        if let Some((at, x)) = flip {
            let at = at.index(file.len());
            file[at] ^= x;
        }
        if let Some(at) = cut {
            file.truncate(at.index(file.len() + 1));
        }
        for w in 0..workers {
            let [walked, indexed] = indexed_vs_walked(config, &file, capacity, capacity, w, workers);
            prop_assert_eq!(walked, indexed);
        }
    }
}

#[test]
fn an_index_of_other_batches_or_another_file_is_not_used() {
    let config = config();
    let file = encode(config, &samples(20));
    // Batches of 3 read with an index of batches of 4: walked, same rows.
    let [walked, indexed] = indexed_vs_walked(config, &file, 3, 4, 1, 2);
    assert_eq!(walked, indexed);
    assert_eq!(walked.0.len(), 9);
    // An index of a longer file: not used.
    let longer = encode(config, &samples(21));
    let mut starts = [0u64; 8];
    let index =
        BatchIndex::build(NormDecoder::<u32>::new(config), &longer, 3, &mut starts).unwrap();
    let source = NormSlice::norm(config, &file).partition(1, 2);
    assert_eq!(rows(source.with_index(index), 3), walked);
}

#[test]
fn an_index_needs_one_start_per_batch() {
    let config = config();
    let file = encode(config, &samples(10));
    let mut starts = [0u64; 3];
    let e = BatchIndex::build(NormDecoder::<u32>::new(config), &file, 3, &mut starts);
    assert_eq!(
        e,
        Err(crate::CapacityError {
            needed: 4,
            available: 3
        })
    );
    assert_eq!(BatchIndex::batches_for(10, 3), 4);
    let mut starts = [0u64; 4];
    let index = BatchIndex::build(NormDecoder::<u32>::new(config), &file, 3, &mut starts).unwrap();
    assert_eq!(index.batches(), 4);
    assert_eq!(index.start(0), Some(config.header_bytes() as u64));
    assert_eq!(index.start(4), None);
}

#[test]
fn an_indexed_partition_does_not_walk_the_batches_it_skips() {
    // Unframed, so a broken `nnz` in batch 0 stops whoever walks over it.
    let config = NormConfig::new(DIMS, 4);
    let good = encode(config, &samples(8));
    let mut starts = [0u64; 4];
    let index = BatchIndex::build(NormDecoder::<u32>::new(config), &good, 2, &mut starts).unwrap();
    let mut bad = good.clone();
    // Sample 0's first nnz (after label and dense): far too large.
    let nnz_at = config.header_bytes() + 2 * 4;
    bad[nnz_at..nnz_at + 4].copy_from_slice(&1000i32.to_le_bytes());
    let walked = rows(NormSlice::norm(config, &bad).partition(1, 2), 2);
    assert!(walked.1.is_some(), "walking meets the broken record");
    let source = NormSlice::norm(config, &bad).partition(1, 2);
    let (indexed, err) = rows(source.with_index(index), 2);
    assert_eq!(err, None, "the index jumps over it");
    let ids: Vec<u64> = indexed.iter().map(|r| r.1.low).collect();
    assert_eq!(ids, [2, 3, 6, 7]);
}
