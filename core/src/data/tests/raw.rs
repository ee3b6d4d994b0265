use super::*;

fn raw_file(samples: &[(f32, [f32; 2], [i32; 3])]) -> Vec<u8> {
    let mut file = Vec::new();
    for (label, dense, keys) in samples {
        file.extend_from_slice(&label.to_le_bytes());
        for d in dense {
            file.extend_from_slice(&d.to_le_bytes());
        }
        for k in keys {
            file.extend_from_slice(&k.to_le_bytes());
        }
    }
    file
}

const DIMS: Dims = Dims::new(1, 2, 3);

fn decode<K: Key>(
    config: RawConfig,
    file: &[u8],
    chunk: usize,
) -> Result<(Vec<Sample<K>>, DecodeStats), DataError> {
    let mut bufs = Buffers::<K>::new(config.dims, 2, 6);
    let mut batch = bufs.batch(config.dims);
    let mut dec = RawDecoder::<K>::new(config, file.len() as u64)?;
    let mut out = Vec::new();
    let (mut start, mut avail) = (0, 0);
    loop {
        let p = dec.decode(&file[start..avail], &mut batch)?;
        start += p.consumed;
        match p.status {
            Status::BatchFull => {
                drain(&batch, &mut out);
                batch.clear();
            }
            Status::NeedMore { .. } if avail < file.len() => avail = file.len().min(avail + chunk),
            _ => {
                drain(&batch, &mut out);
                return Ok((out, dec.finish(&file[start..])?));
            }
        }
    }
}

#[test]
fn float_samples_decode_in_any_chunking() {
    let rows: Vec<_> = (0..5)
        .map(|i| (i as f32, [0.5, -2.0], [i, 10 + i, 20 + i]))
        .collect();
    let file = raw_file(&rows);
    for chunk in [1, 7, 20, 100] {
        let (got, stats) = decode::<u32>(RawConfig::new(DIMS), &file, chunk).unwrap();
        assert_eq!(stats.decoded, 5);
        for (s, (label, dense, keys)) in got.iter().zip(&rows) {
            assert_eq!(s.label, [*label]);
            assert_eq!(s.dense, dense);
            let keys: Vec<Vec<u32>> = keys.iter().map(|&k| vec![k as u32]).collect();
            assert_eq!(s.slots, keys);
        }
    }
}

#[test]
fn integer_label_and_dense_become_label_and_log1p() {
    let mut file = Vec::new();
    for v in [1i32, 0, 9, 3, 4, 5] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    let config = RawConfig {
        float_label_dense: false,
        ..RawConfig::new(DIMS)
    };
    let (got, _) = decode::<i64>(config, &file, 64).unwrap();
    assert_eq!(got[0].label, [1.0]);
    assert_eq!(got[0].dense, [0.0, libm::logf(10.0)]);
    assert_eq!(got[0].slots, [vec![3i64], vec![4], vec![5]]);
}

#[test]
fn file_size_must_be_whole_samples() {
    let e = RawDecoder::<u32>::new(RawConfig::new(DIMS), 50).unwrap_err();
    assert_eq!(
        e.kind,
        DataErrorKind::RawSize {
            sample_bytes: 24,
            remainder: 2
        }
    );
    assert_eq!(e.offset, 48);
    let e = RawDecoder::<u32>::new(RawConfig::new(Dims::new(0, 0, 0)), 8).unwrap_err();
    assert!(matches!(
        e.kind,
        DataErrorKind::RawSize {
            sample_bytes: 0,
            ..
        }
    ));
}

#[test]
fn negative_keys_are_errors_or_counted_skips() {
    let rows = [
        (0.0, [0.0; 2], [1, 2, 3]),
        (1.0, [0.0; 2], [1, -2, 3]),
        (2.0, [0.0; 2], [4, 5, 6]),
    ];
    let file = raw_file(&rows);
    let e = decode::<u32>(RawConfig::new(DIMS), &file, 64).unwrap_err();
    assert_eq!(e.kind, DataErrorKind::KeyRange { slot: 1, value: -2 });
    assert_eq!((e.sample, e.offset), (Some(1), 24 + 16));
    let skip = RawConfig {
        policy: ErrorPolicy::Skip,
        ..RawConfig::new(DIMS)
    };
    let (got, stats) = decode::<i64>(skip, &file, 64).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(
        (stats.skipped, stats.first_skipped.map(|e| e.sample)),
        (1, Some(Some(1)))
    );
}

#[test]
fn a_short_file_is_truncated() {
    let file = raw_file(&[(0.0, [0.0; 2], [1, 2, 3]); 2]);
    let mut dec = RawDecoder::<u32>::new(RawConfig::new(DIMS), 48).unwrap();
    let mut bufs = Buffers::<u32>::new(DIMS, 4, 12);
    let mut batch = bufs.batch(DIMS);
    let p = dec.decode(&file[..30], &mut batch).unwrap();
    assert_eq!(
        p,
        Progress {
            consumed: 24,
            status: Status::NeedMore { needed: 24 }
        }
    );
    let e = dec.finish(&file[24..30]).unwrap_err();
    assert_eq!(
        e.kind,
        DataErrorKind::Truncated {
            needed: 24,
            available: 6
        }
    );
    assert_eq!((e.sample, e.offset), (Some(1), 24));
}

#[test]
fn raw_partitions_jump_by_an_index_too() {
    let samples: Vec<_> = (0..11)
        .map(|i| (i as f32, [0.5, 1.5], [i, i + 1, i + 2]))
        .collect();
    let file = raw_file(&samples);
    let config = RawConfig::new(DIMS);
    let decoder = RawDecoder::<u32>::new(config, file.len() as u64).unwrap();
    let mut starts = [0u64; 4];
    let index = BatchIndex::build(decoder, &file, 3, &mut starts).unwrap();
    assert_eq!(index.batches(), 4);
    assert_eq!(index.start(3), Some(9 * config.sample_bytes() as u64));
    // Worker 1 of 2: batches 1 and 3.
    let mut source = RawSlice::<u32>::raw(config, &file)
        .unwrap()
        .partition(1, 2)
        .with_index(index);
    let mut bufs = Buffers::<u32>::new(DIMS, 3, 9);
    let mut firsts = Vec::new();
    loop {
        let mut batch = bufs.batch(DIMS);
        let Some(info) = source.next_batch(&mut batch).unwrap() else {
            break;
        };
        firsts.push((info.id, info.first_row, batch.labels(0).unwrap()[0]));
    }
    assert_eq!(firsts, [(1, 3, 3.0), (3, 9, 9.0)]);
}
