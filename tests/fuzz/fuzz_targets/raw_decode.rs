//! Fuzzes the Raw decoder: arbitrary bytes and shapes, fed whole and in chunks, must never
//! panic, must agree between the two feedings, and float files decoded without error must
//! re-encode to exactly their own bytes; and the partitions of a cursor set must read the
//! same with a `BatchIndex` as by walking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_core::data::{
    BatchIndex, BatchInfo, BatchSource, DataError, Dims, ErrorPolicy, RawConfig, RawDecoder,
    RawSlice, SampleBatch, Status,
};

type Out = (Vec<u32>, Vec<i64>, Result<u64, DataError>);

fn decode(config: RawConfig, file: &[u8], chunk: usize) -> Out {
    let dims = config.dims;
    let (mut ld, mut offsets, mut values) = (
        vec![0f32; 2 * dims.label_dense()],
        vec![0i64; 2 * dims.slot_num + 1],
        vec![0i64; 2 * dims.slot_num],
    );
    let (mut floats, mut keys) = (Vec::new(), Vec::new());
    let mut dec = match RawDecoder::<i64>::new(config, file.len() as u64) {
        Ok(d) => d,
        Err(e) => return (floats, keys, Err(e)),
    };
    let Ok(mut batch) = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values) else {
        return (floats, keys, Ok(0));
    };
    let (mut start, mut avail) = (0, chunk.min(file.len()));
    let result = loop {
        let result = dec.decode(&file[start..avail], &mut batch);
        // Samples decoded before an error stay in the batch: collect them either way.
        floats.extend(batch.label_dense().iter().map(|f| f.to_bits()));
        keys.extend_from_slice(batch.csr().values());
        assert_eq!(batch.csr().nnz(), batch.samples() * dims.slot_num);
        batch.clear();
        let p = match result {
            Ok(p) => p,
            Err(e) => break Err(e),
        };
        start += p.consumed;
        match p.status {
            Status::BatchFull => {}
            Status::NeedMore { .. } if avail < file.len() => avail = file.len().min(avail + chunk),
            _ => break dec.finish(&file[start..]).map(|s| s.skipped),
        }
    };
    (floats, keys, result)
}

type Batches = Vec<(BatchInfo, Vec<u32>, Vec<i64>)>;

/// Batches and the final error of worker `w` of 2, batches of 2 samples, jumping by `index`
/// or walking.
fn partition(
    config: RawConfig,
    file: &[u8],
    w: u64,
    index: Option<BatchIndex<'_>>,
) -> (Batches, Option<DataError>) {
    let dims = config.dims;
    let (mut ld, mut offsets, mut values) = (
        vec![0f32; 2 * dims.label_dense()],
        vec![0i64; 2 * dims.slot_num + 1],
        vec![0i64; 2 * dims.slot_num],
    );
    let mut source = match RawSlice::<i64>::raw(config, file) {
        Ok(s) => s.partition(w, 2),
        Err(e) => return (Vec::new(), Some(e)),
    };
    if let Some(index) = index {
        source = source.with_index(index);
    }
    let mut out = Vec::new();
    loop {
        let Ok(mut batch) = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values) else {
            return (out, None);
        };
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

fn partitions(config: RawConfig, file: &[u8]) {
    let Ok(decoder) = RawDecoder::<i64>::new(config, file.len() as u64) else {
        return;
    };
    let mut starts = vec![0u64; file.len() + 2];
    let index = BatchIndex::build(decoder, file, 2, &mut starts).unwrap();
    for w in 0..2 {
        assert_eq!(
            partition(config, file, w, None),
            partition(config, file, w, Some(index))
        );
    }
}

fuzz_target!(|input: &[u8]| {
    let [shape, chunk, file @ ..] = input else {
        return;
    };
    let dims = Dims::new(
        (shape & 3) as usize,
        ((shape >> 2) & 3) as usize,
        ((shape >> 4) & 3) as usize,
    );
    let config = RawConfig {
        dims,
        float_label_dense: shape & 0x40 == 0,
        policy: if shape & 0x80 == 0 {
            ErrorPolicy::Stop
        } else {
            ErrorPolicy::Skip
        },
    };
    partitions(config, file);
    let whole = decode(config, file, file.len().max(1));
    let chunked = decode(config, file, 1 + *chunk as usize);
    assert_eq!(whole, chunked);
    if let (floats, keys, Ok(0)) = &whole {
        if config.float_label_dense && dims.label_dense() + dims.slot_num > 0 {
            let mut again = Vec::new();
            let (w, s) = (dims.label_dense(), dims.slot_num);
            for i in 0..floats.len() / w.max(1) {
                for f in &floats[i * w..][..w] {
                    again.extend_from_slice(&f.to_le_bytes());
                }
                for k in &keys[i * s..][..s] {
                    again.extend_from_slice(&(*k as i32).to_le_bytes());
                }
            }
            if w > 0 {
                assert_eq!(again, file);
            }
        }
    }
});
