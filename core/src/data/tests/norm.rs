use super::*;

/// Encodes `samples` as a Norm file.
pub(super) fn encode<K: Key>(config: NormConfig, samples: &[Sample<K>]) -> Vec<u8> {
    let enc = NormEncoder::<K>::new(config);
    let mut file = vec![0u8; 128];
    let mut n = enc.header(samples.len() as u64, &mut file).unwrap();
    for s in samples {
        let slots = s.slot_refs();
        file.resize(n + enc.sample_len(&slots), 0);
        n += enc
            .sample(&s.label, &s.dense, &slots, &mut file[n..])
            .unwrap();
    }
    file.truncate(n);
    file
}

/// Decodes `file` as a stream arriving in chunks of the given sizes (cycled), into
/// batches of `batch_samples` samples and `values` keys.
pub(super) fn decode_stream<K: Key>(
    config: NormConfig,
    file: &[u8],
    chunks: &[usize],
    batch_samples: usize,
    values: usize,
) -> Result<(Vec<Sample<K>>, DecodeStats), DataError> {
    let mut bufs = Buffers::<K>::new(config.dims, batch_samples, values);
    let mut batch = bufs.batch(config.dims);
    let mut dec = NormDecoder::<K>::new(config);
    let mut out = Vec::new();
    let (mut start, mut avail, mut next_chunk) = (0, 0, 0);
    loop {
        let p = dec.decode(&file[start..avail], &mut batch)?;
        start += p.consumed;
        match p.status {
            Status::BatchFull => {
                drain(&batch, &mut out);
                batch.clear();
            }
            Status::NeedMore { needed } if avail < file.len() => {
                assert!(
                    needed > avail - start,
                    "NeedMore with {needed} bytes at hand"
                );
                let chunk = chunks
                    .get(next_chunk % chunks.len().max(1))
                    .copied()
                    .unwrap_or(64);
                avail = file.len().min(avail + chunk.max(1));
                next_chunk += 1;
            }
            Status::NeedMore { .. } | Status::Done => {
                drain(&batch, &mut out);
                let stats = dec.finish(&file[start..])?;
                return Ok((out, stats));
            }
        }
    }
}

/// Decodes a whole file in one buffer, with room for every sample.
fn decode_all<K: Key>(
    config: NormConfig,
    file: &[u8],
) -> Result<(Vec<Sample<K>>, DecodeStats), DataError> {
    decode_stream(config, file, &[file.len()], 64, 4096)
}

fn samples_3() -> Vec<Sample<u32>> {
    (0..3u32)
        .map(|i| Sample {
            label: vec![i as f32],
            dense: vec![0.5, -1.5],
            slots: vec![vec![i, i + 10], vec![], vec![7; i as usize + 1]],
        })
        .collect()
}

const DIMS: Dims = Dims::new(1, 2, 3);

fn cfg(check: Check) -> NormConfig {
    NormConfig::new(DIMS, 4).with_check(check)
}

/// Byte offset of sample `i` of `samples_3()` (header included).
fn sample_offset(check: Check, i: usize) -> usize {
    let enc = NormEncoder::<u32>::new(cfg(check));
    let s = samples_3();
    cfg(check).header_bytes()
        + s[..i]
            .iter()
            .map(|s| enc.sample_len(&s.slot_refs()))
            .sum::<usize>()
}

fn roundtrip<K: Key + Arbitrary>(
    check: Check,
    dims: Dims,
    samples: &[Sample<K>],
    chunks: &[usize],
    batch: usize,
) -> Result<(), TestCaseError> {
    let config = NormConfig::new(dims, 3).with_check(check);
    let file = encode(config, samples);
    // Room for one full sample's keys at least, so key-bound batches still progress.
    let values = dims.slot_num * 3 * batch.max(1);
    let (decoded, stats) = decode_stream::<K>(config, &file, chunks, batch, values).unwrap();
    prop_assert_eq!(&decoded, &samples.to_vec());
    prop_assert_eq!(stats.decoded, samples.len() as u64);
    prop_assert_eq!(stats.skipped, 0);
    Ok(())
}

use proptest::test_runner::TestCaseError;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_chunking_decodes_what_was_encoded_u32(
        (dims, samples) in arb_dims().prop_flat_map(|d| (Just(d), arb_samples::<u32>(d, 3))),
        sum in any::<bool>(),
        chunks in proptest::collection::vec(1usize..80, 1..6),
        batch in 1usize..5,
    ) {
        let check = if sum { Check::Sum } else { Check::None };
        roundtrip(check, dims, &samples, &chunks, batch)?;
    }

    #[test]
    fn any_chunking_decodes_what_was_encoded_i64(
        (dims, samples) in arb_dims().prop_flat_map(|d| (Just(d), arb_samples::<i64>(d, 3))),
        sum in any::<bool>(),
        chunks in proptest::collection::vec(1usize..80, 1..6),
        batch in 1usize..5,
    ) {
        let check = if sum { Check::Sum } else { Check::None };
        roundtrip(check, dims, &samples, &chunks, batch)?;
    }

    /// Corrupting any one byte after the header of a checksummed file is either detected
    /// (an error, or a skipped sample under Skip) or leaves the data unchanged; it never
    /// panics and never decodes different samples silently... except a change the 8-bit sum
    /// cannot see, which needs two bytes: one byte always changes the sum.
    #[test]
    fn one_corrupt_byte_is_always_caught(pos in 0usize..400, delta in 1u8..=255) {
        let config = cfg(Check::Sum);
        let mut file = encode(config, &samples_3());
        let pos = pos % file.len();
        file[pos] = file[pos].wrapping_add(delta);
        match decode_all::<u32>(config, &file) {
            Ok((samples, _)) => prop_assert!(false, "corruption at {} decoded as {:?}", pos, samples),
            Err(e) => prop_assert!(e.offset as usize <= pos + 1, "{e} for a byte at {pos}"),
        }
        let skip = config.with_policy(ErrorPolicy::Skip);
        if let Ok((samples, stats)) = decode_all::<u32>(skip, &file) {
            prop_assert!(stats.skipped >= 1);
            prop_assert_eq!(samples.len() as u64 + stats.skipped, 3);
            for s in &samples {
                prop_assert!(samples_3().contains(s));
            }
        }
    }

    /// Garbage never panics, in any mode, with any chunking.
    #[test]
    fn garbage_never_panics(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        sum in any::<bool>(),
        skip in any::<bool>(),
        chunks in proptest::collection::vec(1usize..40, 1..4),
    ) {
        let check = if sum { Check::Sum } else { Check::None };
        let policy = if skip { ErrorPolicy::Skip } else { ErrorPolicy::Stop };
        let config = NormConfig::new(Dims::new(1, 1, 2), 4).with_check(check).with_policy(policy);
        let _ = decode_stream::<u32>(config, &bytes, &chunks, 2, 8);
        let _ = decode_stream::<i64>(config, &bytes, &chunks, 1, 8);
    }
}

#[test]
fn header_mismatch_names_the_field_and_its_offset() {
    for (check, base) in [(Check::None, 0), (Check::Sum, 4)] {
        let file = encode(cfg(check), &samples_3());
        for (field, index, dims) in [
            ("label_dim", 2, Dims::new(2, 2, 3)),
            ("dense_dim", 3, Dims::new(1, 3, 3)),
            ("slot_num", 4, Dims::new(1, 2, 4)),
        ] {
            let config = NormConfig::new(dims, 4).with_check(check);
            let e = decode_all::<u32>(config, &file).unwrap_err();
            assert_eq!(e.sample, None);
            assert_eq!(e.offset, base + 8 * index);
            assert!(matches!(e.kind, DataErrorKind::HeaderMismatch { field: f, .. } if f == field));
        }
    }
    // A checksummed file read as plain: the first word is the frame length 64, not 0.
    let file = encode(cfg(Check::Sum), &samples_3());
    let e = decode_all::<u32>(cfg(Check::None), &file).unwrap_err();
    assert_eq!(
        e.kind,
        DataErrorKind::BadHeader {
            field: "error_check",
            found: 64 + (1 << 32)
        }
    );
    // A plain file read as checksummed: the frame length is 0.
    let file = encode(cfg(Check::None), &samples_3());
    let e = decode_all::<u32>(cfg(Check::Sum), &file).unwrap_err();
    assert_eq!(
        e.kind,
        DataErrorKind::FrameLength {
            found: 0,
            expected: 64
        }
    );
}

#[test]
fn checksum_mismatch_names_sample_and_record_start_and_skip_counts_it() {
    let config = cfg(Check::Sum);
    let mut file = encode(config, &samples_3());
    let start = sample_offset(Check::Sum, 1);
    let end = sample_offset(Check::Sum, 2);
    file[end - 1] ^= 0x5a; // sample 1's checkbits
    let e = decode_all::<u32>(config, &file).unwrap_err();
    assert_eq!(e.sample, Some(1));
    assert_eq!(e.offset, start as u64);
    assert!(matches!(e.kind, DataErrorKind::Checksum { .. }));
    assert!(std::format!("{e}").contains("sample 1"));

    let (samples, stats) = decode_all::<u32>(config.with_policy(ErrorPolicy::Skip), &file).unwrap();
    assert_eq!(samples, [samples_3()[0].clone(), samples_3()[2].clone()]);
    assert_eq!((stats.decoded, stats.skipped), (2, 1));
    assert_eq!(stats.first_skipped, Some(e));
}

#[test]
fn header_checksum_is_checked() {
    let config = cfg(Check::Sum);
    let mut file = encode(config, &samples_3());
    file[68] ^= 1;
    let e = decode_all::<u32>(config, &file).unwrap_err();
    assert_eq!((e.sample, e.offset), (None, 0));
    assert!(matches!(e.kind, DataErrorKind::Checksum { .. }));
}

#[test]
fn nnz_above_the_maximum_names_slot_and_offset_and_can_be_skipped() {
    let mut samples = samples_3();
    samples[1].slots[2] = vec![1, 2, 3, 4, 5, 6];
    for check in [Check::None, Check::Sum] {
        let file = encode(NormConfig::new(DIMS, 8).with_check(check), &samples);
        let e = decode_all::<u32>(cfg(check), &file).unwrap_err();
        let frame = if check == Check::Sum { 4 } else { 0 };
        // label + 2 dense, slot 0 (nnz + 2 keys), slot 1 (nnz): slot 2's nnz.
        let at = sample_offset(check, 1) + frame + 12 + 12 + 4;
        assert_eq!(
            e.kind,
            DataErrorKind::NnzTooLarge {
                slot: 2,
                nnz: 6,
                max: 4
            }
        );
        assert_eq!((e.sample, e.offset), (Some(1), at as u64));

        let skip = cfg(check).with_policy(ErrorPolicy::Skip);
        let (got, stats) = decode_all::<u32>(skip, &file).unwrap();
        assert_eq!(got, [samples[0].clone(), samples[2].clone()]);
        assert_eq!(stats.skipped, 1);
    }
}

#[test]
fn negative_nnz_without_frame_stops_even_when_skipping() {
    let config = cfg(Check::None);
    let mut file = encode(config, &samples_3());
    let at = sample_offset(Check::None, 1) + 12;
    file[at..at + 4].copy_from_slice(&(-3i32).to_le_bytes());
    for policy in [ErrorPolicy::Stop, ErrorPolicy::Skip] {
        let e = decode_all::<u32>(config.with_policy(policy), &file).unwrap_err();
        assert_eq!(e.kind, DataErrorKind::NegativeNnz { slot: 0, nnz: -3 });
        assert_eq!((e.sample, e.offset), (Some(1), at as u64));
    }
}

#[test]
fn truncation_and_missing_records_are_errors_or_counted_skips() {
    for check in [Check::None, Check::Sum] {
        let config = cfg(check);
        let file = encode(config, &samples_3());
        let cut = sample_offset(check, 2) + 3;
        let e = decode_all::<u32>(config, &file[..cut]).unwrap_err();
        assert!(
            matches!(e.kind, DataErrorKind::Truncated { available: 3, .. }),
            "{e}"
        );
        assert_eq!(
            (e.sample, e.offset),
            (Some(2), sample_offset(check, 2) as u64)
        );

        let cut = sample_offset(check, 2);
        let e = decode_all::<u32>(config, &file[..cut]).unwrap_err();
        assert_eq!(
            e.kind,
            DataErrorKind::MissingRecords {
                expected: 3,
                found: 2
            }
        );

        let skip = config.with_policy(ErrorPolicy::Skip);
        let (got, stats) = decode_all::<u32>(skip, &file[..cut + 3]).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(stats.skipped, 1);

        let e = decode_all::<u32>(config, &file[..10]).unwrap_err();
        assert_eq!(e.sample, None);
        assert!(matches!(
            e.kind,
            DataErrorKind::Truncated { available: 10, .. }
        ));
    }
}

#[test]
fn trailing_bytes_are_an_error() {
    let config = cfg(Check::None);
    let mut file = encode(config, &samples_3());
    file.extend_from_slice(&[0; 5]);
    let e = decode_all::<u32>(config, &file).unwrap_err();
    assert_eq!(e.kind, DataErrorKind::TrailingBytes { count: 5 });
    assert_eq!(e.offset, (file.len() - 5) as u64);
}

#[test]
fn frame_length_disagreeing_with_contents_is_caught() {
    let config = cfg(Check::Sum);
    let mut file = encode(config, &samples_3());
    // Sample 0's frame claims 4 bytes more and the sum is fixed up: the contents end early.
    let s0 = sample_offset(Check::Sum, 0);
    let len = i32::from_le_bytes(file[s0..s0 + 4].try_into().unwrap());
    let mut more = file[..s0].to_vec();
    more.extend_from_slice(&(len + 4).to_le_bytes());
    let payload = &file[s0 + 4..s0 + 4 + len as usize];
    more.extend_from_slice(payload);
    more.extend_from_slice(&[0; 4]);
    more.push(crate::data::norm::checksum(payload));
    more.extend_from_slice(&file[sample_offset(Check::Sum, 1)..]);
    let e = decode_all::<u32>(config, &more).unwrap_err();
    assert_eq!(
        e.kind,
        DataErrorKind::FrameLength {
            found: (len + 4).into(),
            expected: len as u64
        }
    );
    assert_eq!((e.sample, e.offset), (Some(0), s0 as u64));
    let (got, stats) = decode_all::<u32>(config.with_policy(ErrorPolicy::Skip), &more).unwrap();
    assert_eq!((got.len(), stats.skipped), (2, 1));
    file.clear();
}

#[test]
fn a_sample_too_big_for_an_empty_batch_is_an_error_not_a_loop() {
    let config = cfg(Check::None);
    let file = encode(config, &samples_3());
    // Sample 0 has 3 keys; room for 2.
    let e = decode_stream::<u32>(config, &file, &[file.len()], 4, 2).unwrap_err();
    assert!(
        matches!(e.kind, DataErrorKind::Batch(BatchError::Csr(_))),
        "{e}"
    );
    assert_eq!(e.sample, Some(0));
    // Room for the largest sample's keys (5) only: every sample still arrives.
    let (got, _) = decode_stream::<u32>(config, &file, &[file.len()], 4, 5).unwrap();
    assert_eq!(got, samples_3());
}

#[test]
fn a_stopped_decoder_stays_stopped() {
    let config = cfg(Check::Sum);
    let mut file = encode(config, &samples_3());
    file[70] ^= 1;
    let mut bufs = Buffers::<u32>::new(DIMS, 4, 64);
    let mut batch = bufs.batch(DIMS);
    let mut dec = NormDecoder::<u32>::new(config);
    let e = dec.decode(&file, &mut batch).unwrap_err();
    assert_eq!(dec.decode(&file, &mut batch), Err(e));
    assert_eq!(dec.finish(&[]), Err(e));
}

#[test]
fn max_record_bytes_bounds_every_record() {
    let config = NormConfig::new(DIMS, 4).with_check(Check::Sum);
    let enc = NormEncoder::<i64>::new(config);
    let full: Vec<Vec<i64>> = vec![vec![1; 4]; 3];
    let refs: Vec<&[i64]> = full.iter().map(|v| &v[..]).collect();
    assert_eq!(enc.sample_len(&refs), config.max_record_bytes(8));
    let mut out = vec![0u8; config.max_record_bytes(8) - 1];
    let e = enc
        .sample(&[0.0], &[0.0, 0.0], &refs, &mut out)
        .unwrap_err();
    assert_eq!(
        e,
        EncodeError::Capacity(crate::CapacityError {
            needed: out.len() + 1,
            available: out.len()
        })
    );
}

#[test]
fn encoder_refuses_what_the_decoder_would() {
    let enc = NormEncoder::<u32>::new(cfg(Check::None));
    let mut out = [0u8; 256];
    assert!(matches!(
        enc.sample(&[0.0], &[0.0], &[&[], &[], &[]], &mut out),
        Err(EncodeError::Width { what: "dense", .. })
    ));
    assert!(matches!(
        enc.sample(&[0.0], &[0.0, 0.0], &[&[], &[]], &mut out),
        Err(EncodeError::Width { what: "slots", .. })
    ));
    assert!(matches!(
        enc.sample(&[0.0], &[0.0, 0.0], &[&[1; 5], &[], &[]], &mut out),
        Err(EncodeError::NnzTooLarge {
            slot: 0,
            nnz: 5,
            max: 4
        })
    ));
}
