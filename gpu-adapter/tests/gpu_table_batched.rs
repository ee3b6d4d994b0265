//! Table-batched pooling on an NVIDIA GPU against `tessera_core::data::TableSet::pool`. Each
//! test starts with `gpu_or_skip` (and skips where NVRTC is missing: no PTX of these kernels
//! is shipped yet), so CI without a GPU passes them without checking anything; run them on a
//! GPU machine (and under `compute-sanitizer`) to check:
//!
//! - both kernels ([`TbeKernel`]), every row type (f32, f16, bf16, int8 rowwise) in one set,
//!   widths 1 to 200 (a group of 32 lanes per row) and 2 to 16 (a group of 4), tables of 1
//!   to 3 000 rows, slots sharing tables; sum and mean, with and without per-key weights,
//!   `u32` and `i64` keys, error and modulo: bit-equal to the CPU, on batches with empty
//!   rows, one huge row and keys at the tables' edges;
//! - a key past its slot's table: the CPU's error (row, position, key, that table's rows),
//!   also found by the host-side check before the upload.

#[path = "support/common.rs"]
mod common;

use common::{Rng, gpu_or_skip};
use tessera_core::data::{
    CsrView, Dims, Key, OutOfRange, PoolConfig, PoolError, Pooling, RowType, SampleBatch, TableSet,
    TableView,
};
use tessera_core::tensor::Element;
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{
    BatchUploader, DeviceMemory, DeviceTableSet, Gpu, GpuError, PooledOutput, TableBatchedBag,
    TbeKernel,
};
use zerocopy::IntoBytes;

/// Tables as (row type, width, rows).
type Tables = [(RowType, usize, usize)];

/// Tables as (row type, width, rows): widths up to 200, a group of 32 lanes per row.
const TABLES: [(RowType, usize, usize); 6] = [
    (RowType::F32, 64, 3000),
    (RowType::F16, 33, 700),
    (RowType::Bf16, 128, 1),
    (RowType::Int8Rowwise, 3, 257),
    (RowType::Int8Rowwise, 200, 90),
    (RowType::F32, 1, 5),
];
/// Slot `s` reads `TABLES[SLOTS[s]]`.
const SLOTS: [usize; 8] = [0, 1, 2, 3, 4, 5, 0, 3];
/// Narrow tables: a group of 4 lanes per row, widths of one, two or four values a lane.
const NARROW: [(RowType, usize, usize); 6] = [
    (RowType::F32, 16, 3000),
    (RowType::F16, 8, 700),
    (RowType::Int8Rowwise, 16, 257),
    (RowType::Bf16, 4, 100),
    (RowType::Int8Rowwise, 12, 90),
    (RowType::F32, 2, 5),
];
/// The kernels the tests run.
const KERNELS: [TbeKernel; 2] = [TbeKernel::Grouped, TbeKernel::WarpPerRow];

fn table_bytes(rng: &mut Rng, ty: RowType, width: usize, rows: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..rows {
        for _ in 0..width {
            let x = rng.float();
            match ty {
                RowType::F32 => bytes.extend_from_slice(&x.to_le_bytes()),
                // Finite halves of any bits but an all-ones exponent.
                RowType::F16 => {
                    bytes.extend_from_slice(&((rng.next() as u16) & !0x4000).to_le_bytes())
                }
                RowType::Bf16 => {
                    bytes.extend_from_slice(&((x.to_bits() >> 16) as u16).to_le_bytes())
                }
                RowType::Int8Rowwise => bytes.push(rng.next() as u8),
            }
        }
        if ty == RowType::Int8Rowwise {
            bytes.extend_from_slice(&rng.float().abs().to_le_bytes());
            bytes.extend_from_slice(&rng.float().to_le_bytes());
        }
    }
    bytes
}

/// Keys of one sample, slot by slot: empty rows common, a huge row in slot 0 if `huge`,
/// the tables' edge keys often; `past` adds that many to every key's range (for modulo).
fn sample<K: Key>(rng: &mut Rng, tables: &Tables, huge: bool, past: u64) -> Vec<Vec<K>> {
    SLOTS
        .iter()
        .enumerate()
        .map(|(s, &t)| {
            let vocab = tables[t].2 as u64;
            let n = if huge && s == 0 {
                5000
            } else {
                rng.below(10) as usize
            };
            (0..n)
                .map(|_| {
                    let k = match rng.below(6) {
                        0 => vocab - 1,
                        1 => 0,
                        _ => rng.below(vocab + past),
                    };
                    K::from_i128(i128::from(k)).unwrap()
                })
                .collect()
        })
        .collect()
}

fn push<K: Key>(b: &mut SampleBatch<'_, K>, samples: &[Vec<Vec<K>>]) -> Result<bool, GpuError> {
    for keys in samples {
        let rows: Vec<&[K]> = keys.iter().map(Vec::as_slice).collect();
        b.push_sample(&[0.0], &[], &rows)?;
    }
    Ok(true)
}

fn csr_of<K: Key>(samples: &[Vec<Vec<K>>]) -> (Vec<K>, Vec<K>) {
    let (mut offsets, mut values) = (vec![K::default()], Vec::new());
    for keys in samples.iter().flatten() {
        values.extend_from_slice(keys);
        offsets.push(K::from_usize(values.len()).unwrap());
    }
    (offsets, values)
}

fn kernels_or_skip(gpu: &Gpu, test: &str) -> Option<TableBatchedBag> {
    match TableBatchedBag::new(gpu) {
        Ok(k) => Some(k),
        Err(e @ GpuError::NoNvrtc { .. }) => {
            println!("{test}: skipped: {e}");
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

fn matches_cpu<K: Key + Element>(
    gpu: &Gpu,
    kernels: &TableBatchedBag,
    kernel: TbeKernel,
    tables: &Tables,
    seed: u64,
) {
    let mut rng = Rng(seed);
    let data: Vec<Vec<u8>> = tables
        .iter()
        .map(|&(t, w, r)| table_bytes(&mut rng, t, w, r))
        .collect();
    let views: Vec<TableView<'_>> = tables
        .iter()
        .zip(&data)
        .map(|(&(t, w, _), b)| TableView::new(b, w, t).unwrap())
        .collect();
    let set = TableSet::new(&views, &SLOTS).unwrap();
    let device_set = DeviceTableSet::new(gpu, &views, &SLOTS).unwrap();
    let dims = Dims::new(1, 0, SLOTS.len());
    let cap = 32;
    let shape = BatchShape::new(dims, cap, cap * SLOTS.len() * 10 + 5000);
    let mut uploader = BatchUploader::<K>::new(gpu, shape, 2).unwrap();
    let mut out = PooledOutput::new(gpu, cap, set.sample_width()).unwrap();
    for round in 0..8 {
        let pooling = if round % 2 == 0 {
            Pooling::Sum
        } else {
            Pooling::Mean
        };
        let modulo = round % 4 >= 2;
        let oor = if modulo {
            OutOfRange::Modulo
        } else {
            OutOfRange::Error
        };
        let config = PoolConfig::new(pooling).with_out_of_range(oor);
        let n = 1 + rng.below(cap as u64) as usize;
        let samples: Vec<Vec<Vec<K>>> = (0..n)
            .map(|i| {
                let past = if modulo { 50 } else { 0 };
                sample(&mut rng, tables, i == 0 && round == 1, past)
            })
            .collect();
        let (offsets, values) = csr_of(&samples);
        let csr = CsrView::new(&offsets, &values).unwrap();
        let weights: Vec<f32> = (0..values.len()).map(|_| rng.float()).collect();
        let weighted = round >= 4;
        let w = weighted.then_some(&weights[..]);
        let mut expected = vec![0f32; n * set.sample_width()];
        set.pool(csr, w, &mut expected, config).unwrap();
        device_set.layout().check_batch(csr, oor).unwrap();

        let device_weights = DeviceMemory::from_host(gpu, weights.as_bytes()).unwrap();
        let batch = uploader
            .upload_with(|b| push(b, &samples))
            .unwrap()
            .unwrap();
        kernels
            .launch_with(
                kernel,
                &batch,
                &device_set,
                weighted.then_some(&device_weights),
                &mut out,
                config,
            )
            .unwrap();
        assert_eq!(out.wait().unwrap(), n);
        let mut got = vec![0f32; expected.len()];
        out.read(&mut got).unwrap();
        let same = got
            .iter()
            .zip(&expected)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            same,
            "{kernel:?}, K={}, round {round}: the GPU differs from the CPU reference",
            K::WIDTH
        );
    }
}

#[test]
fn table_batched_kernels_are_bit_equal_to_the_cpu_reference() {
    let test = "table_batched_kernels_are_bit_equal_to_the_cpu_reference";
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    let Some(kernels) = kernels_or_skip(&gpu, test) else {
        return;
    };
    for kernel in KERNELS {
        for tables in [&TABLES[..], &NARROW[..]] {
            for seed in 1..4 {
                matches_cpu::<u32>(&gpu, &kernels, kernel, tables, seed);
                matches_cpu::<i64>(&gpu, &kernels, kernel, tables, seed + 100);
            }
        }
    }
}

#[test]
fn a_key_past_its_slot_s_table_is_the_cpu_error() {
    let test = "a_key_past_its_slot_s_table_is_the_cpu_error";
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    let Some(kernels) = kernels_or_skip(&gpu, test) else {
        return;
    };
    for kernel in KERNELS {
        let mut rng = Rng(7);
        let data: Vec<Vec<u8>> = TABLES
            .iter()
            .map(|&(t, w, r)| table_bytes(&mut rng, t, w, r))
            .collect();
        let views: Vec<TableView<'_>> = TABLES
            .iter()
            .zip(&data)
            .map(|(&(t, w, _), b)| TableView::new(b, w, t).unwrap())
            .collect();
        let set = TableSet::new(&views, &SLOTS).unwrap();
        let device_set = DeviceTableSet::new(&gpu, &views, &SLOTS).unwrap();
        let dims = Dims::new(1, 0, SLOTS.len());
        let mut uploader =
            BatchUploader::<u32>::new(&gpu, BatchShape::new(dims, 4, 4096), 1).unwrap();
        let mut out = PooledOutput::new(&gpu, 4, set.sample_width()).unwrap();
        let mut samples: Vec<Vec<Vec<u32>>> = (0..3)
            .map(|_| sample(&mut rng, &TABLES, false, 0))
            .collect();
        // Sample 1, slot 5 (table 5, 5 rows): key 5 at position 1.
        samples[1][5] = vec![4, 5, 0];
        let (offsets, values) = csr_of(&samples);
        let csr = CsrView::new(&offsets, &values).unwrap();
        let config = PoolConfig::new(Pooling::Sum);
        let mut expected = vec![0f32; 3 * set.sample_width()];
        let cpu = set.pool(csr, None, &mut expected, config).unwrap_err();
        let want = PoolError::KeyOutOfRange {
            row: SLOTS.len() + 5,
            position: 1,
            key: 5,
            vocab: 5,
        };
        assert_eq!(cpu, want);
        assert!(matches!(
            device_set.layout().check_batch(csr, OutOfRange::Error),
            Err(GpuError::Pool(e)) if e == want
        ));
        let batch = uploader
            .upload_with(|b| push(b, &samples))
            .unwrap()
            .unwrap();
        kernels
            .launch_with(kernel, &batch, &device_set, None, &mut out, config)
            .unwrap();
        assert!(matches!(out.wait(), Err(GpuError::Pool(e)) if e == want));
        // The next launch is clean.
        samples[1][5] = vec![4];
        let batch = uploader
            .upload_with(|b| push(b, &samples))
            .unwrap()
            .unwrap();
        kernels
            .launch_with(kernel, &batch, &device_set, None, &mut out, config)
            .unwrap();
        assert_eq!(out.wait().unwrap(), 3);
    }
}
