//! The HugeCTR data path: Norm decoding into CSR batches against a plain scan of the same
//! bytes, and embedding-bag pooling against `ndarray` 0.17.
//!
//! - **`norm_decode`**: one in-memory Norm file of 100 000 samples (1 label, 13 dense, 26
//!   slots of 1..=3 `u32` keys each, splitmix64-seeded), with and without checksum framing,
//!   decoded batch by batch (1 024 samples, into preallocated `Vec`s, cleared between
//!   batches) by `NormDecoder`, `finish` included. The bound is a plain scan: the wrapping sum
//!   of the file's little-endian `u32` words, which reads every byte once and vectorises
//!   (`paddd` over 16-byte loads). The nnz walk (unframed only) hops from each slot's `nnz` to
//!   the next and does nothing else: the dependent-load chain any sequential parser pays.
//! - **`embedding_bag`**: sum pooling of one batch's CSR (1 024 samples x 26 slots) over a
//!   100 000-row table of width 16 or 64: `tessera_core::data::embedding_bag` against the
//!   obvious `ndarray` code (`out.fill(0)`, then `out.row_mut(r) += &table.row(k)` per key).
//!   Each iteration takes the next of 8 batches, so neither side profits from a branch
//!   predictor that memorised one batch's row lengths. Throughput counts the bytes touched:
//!   the table rows read, the output written and the CSR read.
//!
//! Set `TESSERA_NORM_OUT=path` to also write the unframed file to `path`, for
//! `tests/benches/norm_numpy.py` to read the identical bytes.
//!
//! Run with `cargo bench -p tessera-tests --bench datapath`; results are in `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ndarray::Array2;
use tessera_core::data::{
    Check, CsrView, Dims, NormConfig, NormDecoder, NormEncoder, PoolConfig, Pooling, SampleBatch,
    Status, embedding_bag,
};

mod support;
use support::Rng;

const SAMPLES: usize = 100_000;
const DIMS: Dims = Dims::new(1, 13, 26);
const MAX_NNZ: usize = 3;
const BATCH: usize = 1024;
/// Keys are uniform in `0..VOCAB`, so decoded batches index the pooling table.
const VOCAB: usize = 100_000;
/// Batches the pooling benchmark cycles through.
const POOL_BATCHES: usize = 8;

/// A short measurement so the whole file runs in a few minutes on a loaded 2-core machine.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

fn norm_config(check: Check) -> NormConfig {
    NormConfig::new(DIMS, MAX_NNZ as u32).with_check(check)
}

/// The benchmark file: the same samples (seed 5) in either mode.
fn norm_file(check: Check) -> Vec<u8> {
    let config = norm_config(check);
    let enc = NormEncoder::<u32>::new(config);
    let mut rng = Rng::new(5);
    let mut file = vec![0u8; 128];
    let mut n = enc.header(SAMPLES as u64, &mut file).unwrap();
    file.truncate(n);
    let mut record = vec![0u8; config.max_record_bytes(4)];
    let mut keys = vec![Vec::new(); DIMS.slot_num];
    for _ in 0..SAMPLES {
        let label = [(rng.next() & 1) as f32];
        let dense: Vec<f32> = (0..DIMS.dense_dim).map(|_| rng.value()).collect();
        for slot in &mut keys {
            slot.clear();
            for _ in 0..1 + rng.below(MAX_NNZ) {
                slot.push(rng.below(VOCAB) as u32);
            }
        }
        let slots: Vec<&[u32]> = keys.iter().map(Vec::as_slice).collect();
        n = enc.sample(&label, &dense, &slots, &mut record).unwrap();
        file.extend_from_slice(&record[..n]);
    }
    file
}

/// Batch buffers for `BATCH` samples of up to `MAX_NNZ` keys per slot.
struct Buffers {
    label_dense: Vec<f32>,
    offsets: Vec<u32>,
    values: Vec<u32>,
}

impl Buffers {
    fn new() -> Self {
        let (ld, offsets, values) = DIMS
            .buffer_lens(BATCH, BATCH * DIMS.slot_num * MAX_NNZ)
            .unwrap();
        Buffers {
            label_dense: vec![0.0; ld],
            offsets: vec![0; offsets],
            values: vec![0; values],
        }
    }

    fn batch(&mut self) -> SampleBatch<'_, u32> {
        SampleBatch::new(
            DIMS,
            &mut self.label_dense,
            &mut self.offsets,
            &mut self.values,
        )
        .unwrap()
    }
}

/// Decodes the whole file batch by batch; calls `each` on every full (or last) batch.
fn decode_all(
    file: &[u8],
    check: Check,
    batch: &mut SampleBatch<'_, u32>,
    mut each: impl FnMut(&SampleBatch<'_, u32>),
) -> u64 {
    let mut dec = NormDecoder::<u32>::new(norm_config(check));
    let mut pos = 0;
    loop {
        batch.clear();
        let p = dec.decode(&file[pos..], batch).unwrap();
        pos += p.consumed;
        each(batch);
        match p.status {
            Status::BatchFull => {}
            Status::Done => break,
            Status::NeedMore { .. } => panic!("the whole file is in memory"),
        }
    }
    dec.finish(&file[pos..]).unwrap().decoded
}

/// The bandwidth bound: every byte read once, as little-endian `u32` words.
fn scan(bytes: &[u8]) -> u32 {
    bytes.chunks_exact(4).fold(0u32, |acc, w| {
        acc.wrapping_add(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    })
}

/// The parse bound of an unframed file: only the walk from each slot's `nnz` to the next,
/// a chain of dependent loads (where slot `s + 1` starts is known only once slot `s`'s
/// `nnz` is read). Returns the total `nnz`, so the walk cannot be skipped.
fn nnz_walk(file: &[u8]) -> usize {
    let head = DIMS.label_dense() * 4;
    let mut p = 64;
    let mut total = 0;
    for _ in 0..SAMPLES {
        p += head;
        for _ in 0..DIMS.slot_num {
            let n = u32::from_le_bytes(file[p..p + 4].try_into().unwrap()) as usize;
            total += n;
            p += 4 + 4 * n;
        }
    }
    total
}

fn norm_decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("norm_decode");
    let mut buffers = Buffers::new();
    let mut batch = buffers.batch();
    for (check, name) in [(Check::None, "unframed"), (Check::Sum, "checksum")] {
        let file = norm_file(check);
        if check == Check::None {
            if let Ok(path) = std::env::var("TESSERA_NORM_OUT") {
                std::fs::write(&path, &file).unwrap();
                eprintln!("wrote {} bytes to {path}", file.len());
            }
        }
        assert_eq!(decode_all(&file, check, &mut batch, |_| {}), SAMPLES as u64);
        g.throughput(Throughput::Bytes(file.len() as u64));
        g.bench_function(BenchmarkId::new("tessera NormDecoder", name), |b| {
            b.iter(|| {
                decode_all(black_box(&file), check, &mut batch, |b| {
                    black_box(b.csr().nnz());
                })
            })
        });
        g.bench_function(BenchmarkId::new("plain scan (u32 word sum)", name), |b| {
            b.iter(|| scan(black_box(&file)))
        });
        if check == Check::None {
            g.bench_function(BenchmarkId::new("nnz walk (parse chain only)", name), |b| {
                b.iter(|| nnz_walk(black_box(&file)))
            });
        }
    }
    g.finish();
}

/// The first `POOL_BATCHES` full batches of the file, as owned CSR parts.
fn pool_batches() -> Vec<(Vec<u32>, Vec<u32>)> {
    let file = norm_file(Check::None);
    let mut buffers = Buffers::new();
    let mut batch = buffers.batch();
    let mut out = Vec::new();
    decode_all(&file, Check::None, &mut batch, |b| {
        if out.len() < POOL_BATCHES && b.samples() == BATCH {
            let csr = b.csr();
            out.push((csr.row_offsets().to_vec(), csr.values().to_vec()));
        }
    });
    out
}

/// What an ndarray user writes: zero the output, add each key's table row to its row.
fn ndarray_bag(csr: CsrView<'_, u32>, table: &Array2<f32>, out: &mut Array2<f32>) {
    out.fill(0.0);
    for (r, keys) in csr.iter().enumerate() {
        let mut row = out.row_mut(r);
        for &k in keys {
            row += &table.row(k as usize);
        }
    }
}

fn pooling(c: &mut Criterion) {
    let mut g = c.benchmark_group("embedding_bag");
    let batches = pool_batches();
    let views: Vec<CsrView<'_, u32>> = batches
        .iter()
        .map(|(o, v)| CsrView::new(o, v).unwrap())
        .collect();
    let rows = BATCH * DIMS.slot_num;
    let nnz = views.iter().map(|v| v.nnz()).sum::<usize>() / views.len();
    for dim in [16usize, 64] {
        let mut rng = Rng::new(dim as u64);
        let table: Vec<f32> = (0..VOCAB * dim).map(|_| rng.value()).collect();
        let table_nd = Array2::from_shape_vec((VOCAB, dim), table.clone()).unwrap();
        let mut out = vec![0.0f32; rows * dim];
        let mut out_nd = Array2::<f32>::zeros((rows, dim));

        // Same results, so both do the same work.
        embedding_bag(
            views[0],
            &table,
            dim,
            &mut out,
            PoolConfig::new(Pooling::Sum),
        )
        .unwrap();
        ndarray_bag(views[0], &table_nd, &mut out_nd);
        assert_eq!(out_nd.as_slice().unwrap(), &out[..]);

        let bytes = 4 * (nnz * dim + rows * dim + rows + 1 + nnz);
        g.throughput(Throughput::BytesDecimal(bytes as u64));
        let mut next = 0;
        g.bench_function(BenchmarkId::new("tessera", dim), |b| {
            b.iter(|| {
                next = (next + 1) % views.len();
                embedding_bag(
                    black_box(views[next]),
                    black_box(&table),
                    black_box(dim),
                    black_box(&mut out),
                    PoolConfig::new(Pooling::Sum),
                )
                .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("ndarray", dim), |b| {
            b.iter(|| {
                next = (next + 1) % views.len();
                ndarray_bag(
                    black_box(views[next]),
                    black_box(&table_nd),
                    black_box(&mut out_nd),
                )
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = norm_decode, pooling
}
criterion_main!(benches);
