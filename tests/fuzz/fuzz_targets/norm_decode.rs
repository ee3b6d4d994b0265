//! Fuzzes the Norm decoder: arbitrary bytes in either mode, key width and policy, fed whole
//! and in chunks, must never panic; both feedings must decode the same samples with the same
//! outcome; a file decoded without error must re-encode to exactly its own bytes; and the
//! partitions of a cursor set must read the same with a `BatchIndex` as by walking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_core::data::{
    BatchIndex, BatchInfo, BatchSource, Check, DataError, DecodeStats, Dims, ErrorPolicy, Key,
    NormConfig, NormDecoder, NormEncoder, NormSlice, SampleBatch, Status,
};

type Samples<K> = Vec<(Vec<f32>, Vec<Vec<K>>)>;

fn decode<K: Key>(
    config: NormConfig,
    file: &[u8],
    chunk: usize,
) -> (Samples<K>, Result<DecodeStats, DataError>) {
    let dims = config.dims;
    let (mut ld, mut offsets, mut values) = (
        vec![0f32; 3 * dims.label_dense()],
        vec![K::default(); 3 * dims.slot_num + 1],
        vec![K::default(); 16],
    );
    let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap();
    let mut dec = NormDecoder::<K>::new(config);
    let mut out = Vec::new();
    let (mut start, mut avail) = (0, chunk.min(file.len()));
    let result = loop {
        let result = dec.decode(&file[start..avail], &mut batch);
        // Samples decoded before an error stay in the batch: collect them either way.
        for s in 0..batch.samples() {
            let ld = batch.label_dense()[s * dims.label_dense()..][..dims.label_dense()].to_vec();
            let slots = (0..dims.slot_num)
                .map(|k| batch.keys(s, k).unwrap().to_vec())
                .collect();
            out.push((ld, slots));
        }
        batch.clear();
        let p = match result {
            Ok(p) => p,
            Err(e) => break Err(e),
        };
        assert!(p.consumed <= avail - start);
        start += p.consumed;
        let full = p.status == Status::BatchFull;
        let more = matches!(p.status, Status::NeedMore { .. }) && avail < file.len();
        if more {
            avail = file.len().min(avail + chunk);
        } else if !full {
            break dec.finish(&file[start..]);
        }
    };
    (out, result)
}

fn run<K: Key>(config: NormConfig, file: &[u8], chunk: usize) {
    let (whole, r1) = decode::<K>(config, file, file.len());
    let (chunked, r2) = decode::<K>(config, file, chunk);
    assert_eq!(r1, r2);
    let bits = |s: &Samples<K>| -> Vec<(Vec<u32>, Vec<Vec<K>>)> {
        s.iter()
            .map(|(ld, k)| (ld.iter().map(|f| f.to_bits()).collect(), k.clone()))
            .collect()
    };
    assert_eq!(bits(&whole), bits(&chunked));
    if let Ok(stats) = r1 {
        if config.policy == ErrorPolicy::Stop || stats.skipped == 0 {
            let enc = NormEncoder::<K>::new(config);
            let mut again = vec![0u8; file.len() + 128];
            let mut n = enc.header(whole.len() as u64, &mut again).unwrap();
            for (ld, slots) in &whole {
                let refs: Vec<&[K]> = slots.iter().map(|s| &s[..]).collect();
                let (l, d) = ld.split_at(config.dims.label_dim);
                n += enc.sample(l, d, &refs, &mut again[n..]).unwrap();
            }
            // The reserved header words are not kept (the encoder writes zeros), so the
            // header compares up to them, and the records after it byte for byte.
            let hb = config.header_bytes();
            let start = if config.check == Check::Sum { 4 } else { 0 };
            assert_eq!(again[start..start + 40], file[start..start + 40]);
            assert_eq!(&again[hb..n], &file[hb..]);
        }
    }
}

/// Batches (info, label/dense bits, keys) and the final error of worker `w` of 2, batches of
/// 3 samples, jumping by `index` or walking.
fn partition<K: Key>(
    config: NormConfig,
    file: &[u8],
    w: u64,
    index: Option<BatchIndex<'_>>,
) -> (Vec<(BatchInfo, Vec<u32>, Vec<K>)>, Option<DataError>) {
    let dims = config.dims;
    let (mut ld, mut offsets, mut values) = (
        vec![0f32; 3 * dims.label_dense()],
        vec![K::default(); 3 * dims.slot_num + 1],
        vec![K::default(); 3 * dims.slot_num * config.max_nnz as usize],
    );
    let mut source = NormSlice::<K>::norm(config, file).partition(w, 2);
    if let Some(index) = index {
        source = source.with_index(index);
    }
    let mut out = Vec::new();
    loop {
        let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap();
        match source.next_batch(&mut batch) {
            Ok(Some(info)) => out.push((
                info,
                batch.label_dense().iter().map(|f| f.to_bits()).collect(),
                batch.csr().values().to_vec(),
            )),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

fn partitions<K: Key>(config: NormConfig, file: &[u8]) {
    let mut starts = vec![0u64; file.len() / 4 + 2];
    let index = BatchIndex::build(NormDecoder::<K>::new(config), file, 3, &mut starts).unwrap();
    for w in 0..2 {
        assert_eq!(
            partition::<K>(config, file, w, None),
            partition::<K>(config, file, w, Some(index))
        );
    }
}

fuzz_target!(|input: &[u8]| {
    let [mode, shape, chunk, file @ ..] = input else {
        return;
    };
    let dims = Dims::new(
        (shape & 3) as usize,
        ((shape >> 2) & 3) as usize,
        1 + ((shape >> 4) & 3) as usize,
    );
    let check = if mode & 1 == 0 {
        Check::None
    } else {
        Check::Sum
    };
    let policy = if mode & 2 == 0 {
        ErrorPolicy::Stop
    } else {
        ErrorPolicy::Skip
    };
    let config = NormConfig::new(dims, u32::from(mode >> 4))
        .with_check(check)
        .with_policy(policy);
    let chunk = 1 + *chunk as usize;
    if mode & 4 == 0 {
        run::<u32>(config, file, chunk);
        partitions::<u32>(config, file);
    } else {
        run::<i64>(config, file, chunk);
        partitions::<i64>(config, file);
    }
});
