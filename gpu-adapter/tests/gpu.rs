//! Tests that need an NVIDIA GPU. Each starts with `gpu_or_skip`: with no driver or device it
//! prints `skipped: no CUDA driver/device (reason)` and returns, so CI (no GPU) passes them
//! without checking anything; run them on a GPU machine to check the claims below.
//!
//! - Allocation and free of each memory kind (device memory returns to the baseline).
//! - Device arena placement: 32-byte aligned addresses inside the allocation, data round trip.
//! - Uploads of random batches read back equal.
//! - Every kernel (sum / mean, `u32` / `i64`, error / modulo, several widths; compiled by
//!   NVRTC and shipped as PTX) bit-equal to
//!   `tessera_core::data::embedding_bag` on random batches with empty rows, one huge row and
//!   keys at the table's edge; out-of-range keys give the CPU's error.
//! - A failure in the middle of a stream (a batch that does not fit, a key past the table)
//!   surfaces as an error, the batches after it are unaffected, and everything is freed.

#[path = "support/common.rs"]
mod common;

use common::{Rng, gpu_or_skip, sample_keys};
use tessera_alloc::VecSlots;
use tessera_core::data::{
    Dims, Key, OutOfRange, PoolConfig, PoolError, Pooling, SampleBatch, embedding_bag,
};
use tessera_core::memory::{HostMemory, Memory, MemoryKind};
use tessera_core::plan::Lifetime;
use tessera_core::tensor::Element;
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{
    BatchUploader, DeviceArena, DeviceMemory, DeviceTable, EmbeddingBag, Gpu, GpuError,
    ManagedMemory, PinnedMemory, PooledOutput, allocate_on_device,
};

const MIB: usize = 1 << 20;

/// Free device memory is back within one allocation granule of `baseline`.
fn assert_freed(gpu: &Gpu, baseline: usize) {
    gpu.synchronize().unwrap();
    let (free, _) = gpu.memory_info().unwrap();
    assert!(
        free + 4 * MIB >= baseline,
        "device memory not freed: {free} free, {baseline} before"
    );
}

#[test]
fn each_memory_kind_allocates_and_frees() {
    let Some(gpu) = gpu_or_skip("each_memory_kind_allocates_and_frees") else {
        return;
    };
    // The driver keeps what it sets up on a path's first use (126 MiB of device memory on
    // an H100, in the first run of this test, measured from a baseline taken before any
    // allocation): a warm-up round, then a round whose every byte must come back.
    let (before, _) = gpu.memory_info().unwrap();
    allocate_each_kind(&gpu);
    gpu.synchronize().unwrap();
    let (baseline, _) = gpu.memory_info().unwrap();
    println!(
        "the first round left {} bytes with the driver",
        before.saturating_sub(baseline)
    );
    allocate_each_kind(&gpu);
    assert_freed(&gpu, baseline);
}

/// Allocates, checks and drops one region of each kind.
fn allocate_each_kind(gpu: &Gpu) {
    let (baseline, _) = gpu.memory_info().unwrap();
    {
        let mut device = DeviceMemory::new(gpu, 64 * MIB).unwrap();
        assert_eq!(device.kind(), MemoryKind::Device);
        assert_eq!(device.len(), 64 * MIB);
        assert_eq!(device.base_address() % 256, 0);
        let (free, _) = gpu.memory_info().unwrap();
        assert!(free + 64 * MIB <= baseline + 4 * MIB);
        let data: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
        device.write(64 * MIB - 4096, &data).unwrap();
        let mut back = vec![0u8; 4096];
        device.read(64 * MIB - 4096, &mut back).unwrap();
        assert_eq!(back, data);
        assert!(matches!(
            device.write(64 * MIB - 1, &data),
            Err(GpuError::Capacity { .. })
        ));

        let mut pinned = PinnedMemory::new(gpu, 3 * MIB + 5).unwrap();
        assert_eq!(pinned.kind(), MemoryKind::Pinned);
        assert!(pinned.bytes().iter().all(|&b| b == 0));
        pinned.bytes_mut()[3 * MIB + 4] = 9;
        assert_eq!(pinned.bytes()[3 * MIB + 4], 9);
        assert_ne!(pinned.device_ptr().unwrap(), 0, "pinned memory is mapped");

        let mut managed = ManagedMemory::new(gpu, MIB).unwrap();
        assert_eq!(managed.kind(), MemoryKind::Managed);
        assert_eq!(managed.bytes().len(), MIB);
        managed.bytes_mut()[17] = 3;
        assert_eq!(managed.bytes()[17], 3);

        let empty = DeviceMemory::new(gpu, 0).unwrap();
        assert!(empty.is_empty());
        assert_eq!(PinnedMemory::new(gpu, 0).unwrap().bytes().len(), 0);
        assert_eq!(ManagedMemory::new(gpu, 0).unwrap().bytes().len(), 0);
    }
}

#[test]
fn device_arena_places_buffers_on_the_device() {
    let Some(gpu) = gpu_or_skip("device_arena_places_buffers_on_the_device") else {
        return;
    };
    let mut arena = DeviceArena::new(VecSlots::default());
    let a = arena
        .reserve_for::<f32>(&[1000], Lifetime::new(0, 1))
        .unwrap();
    let b = arena
        .reserve_for::<i64>(&[333], Lifetime::new(1, 2))
        .unwrap();
    let c = arena
        .reserve_for::<u32>(&[77], Lifetime::new(2, 3))
        .unwrap();
    allocate_on_device(&mut arena, &gpu).unwrap();
    let memory = arena.memory().unwrap();
    let base = memory.base_address();
    for (address, bytes) in [
        (arena.address(&a).unwrap(), 4000),
        (arena.address(&b).unwrap(), 333 * 8),
        (arena.address(&c).unwrap(), 77 * 4),
    ] {
        assert_eq!(address % 32, 0);
        assert!(address >= base && address + bytes <= base + memory.len());
    }
    // a and c are never alive together: the planner may overlap them; b meets both.
    // `arena.tensor(&a)` does not compile: device memory is not `HostMemory`.
    let offset = arena.offset(&b).unwrap();
    let data: Vec<u8> = (0..333 * 8).map(|i| i as u8).collect();
    let memory = arena.release().unwrap();
    let mut memory = memory;
    memory.write(offset, &data).unwrap();
    let mut back = vec![0u8; data.len()];
    memory.read(offset, &mut back).unwrap();
    assert_eq!(back, data);
}

/// Builds a host batch of the same samples, for the CPU reference.
struct HostBatch<K> {
    ld: Vec<f32>,
    offsets: Vec<K>,
    values: Vec<K>,
}

fn random_samples<K: Key>(
    rng: &mut Rng,
    samples: usize,
    dims: Dims,
    vocab: u64,
    huge: bool,
) -> Vec<(Vec<f32>, Vec<Vec<K>>)> {
    (0..samples)
        .map(|i| {
            let ld = (0..dims.label_dense()).map(|_| rng.float()).collect();
            (
                ld,
                sample_keys(rng, dims.slot_num, vocab, huge && i == samples / 2),
            )
        })
        .collect()
}

fn push_all<K: Key>(
    batch: &mut SampleBatch<'_, K>,
    dims: Dims,
    samples: &[(Vec<f32>, Vec<Vec<K>>)],
) -> Result<(), GpuError> {
    for (ld, keys) in samples {
        let slots: Vec<&[K]> = keys.iter().map(Vec::as_slice).collect();
        let (labels, dense) = ld.split_at(dims.label_dim);
        batch.push_sample(labels, dense, &slots)?;
    }
    Ok(())
}

fn host_batch<K: Key>(dims: Dims, samples: &[(Vec<f32>, Vec<Vec<K>>)]) -> HostBatch<K> {
    let nnz: usize = samples.iter().flat_map(|s| s.1.iter()).map(Vec::len).sum();
    let (l, o, v) = dims.buffer_lens(samples.len(), nnz).unwrap();
    let (mut ld, mut offsets, mut values) =
        (vec![0f32; l], vec![K::default(); o], vec![K::default(); v]);
    {
        let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap();
        push_all(&mut batch, dims, samples).unwrap();
    }
    HostBatch {
        ld,
        offsets,
        values,
    }
}

fn uploads_read_back<K: Key + Element>(gpu: &Gpu, seed: u64) {
    let dims = Dims::new(1, 13, 26);
    let shape = BatchShape::new(dims, 64, 64 * 26 * 12 + 8192);
    let mut uploader = BatchUploader::<K>::new(gpu, shape, 3).unwrap();
    let mut rng = Rng(seed);
    for round in 0..10 {
        let n = 1 + rng.below(64) as usize;
        let samples = random_samples::<K>(&mut rng, n, dims, 1 << 20, round % 3 == 0);
        let expected = host_batch(dims, &samples);
        let batch = uploader
            .upload_with(|b| push_all(b, dims, &samples).map(|()| true))
            .unwrap()
            .unwrap();
        assert_eq!(batch.ticket, round);
        assert_eq!((batch.samples, batch.rows), (n, n * 26));
        let back = batch.read_back().unwrap();
        assert_eq!(back.label_dense, expected.ld);
        assert_eq!(back.row_offsets, expected.offsets);
        assert_eq!(back.values, expected.values);
    }
}

#[test]
fn uploads_of_random_batches_read_back_equal() {
    let Some(gpu) = gpu_or_skip("uploads_of_random_batches_read_back_equal") else {
        return;
    };
    uploads_read_back::<u32>(&gpu, 1);
    uploads_read_back::<i64>(&gpu, 2);
}

/// Pools random batches on the GPU and on the CPU and compares the bits.
fn kernel_matches_cpu<K: Key + Element>(gpu: &Gpu, kernels: &EmbeddingBag, seed: u64) {
    let dims = Dims::new(1, 0, 5);
    let samples_cap = 40;
    let shape = BatchShape::new(dims, samples_cap, samples_cap * 5 * 12 + 8192);
    let mut uploader = BatchUploader::<K>::new(gpu, shape, 2).unwrap();
    let mut rng = Rng(seed);
    for dim in [1usize, 3, 16, 33, 64, 128, 200] {
        let vocab = 1 + rng.below(300);
        let table: Vec<f32> = (0..vocab as usize * dim).map(|_| rng.float()).collect();
        let device_table = DeviceTable::new(gpu, &table, dim).unwrap();
        let mut out = PooledOutput::new(gpu, samples_cap * 5, dim).unwrap();
        for (pooling, out_of_range, key_space) in [
            (Pooling::Sum, OutOfRange::Error, vocab),
            (Pooling::Mean, OutOfRange::Error, vocab),
            (Pooling::Sum, OutOfRange::Modulo, vocab * 3),
            (Pooling::Mean, OutOfRange::Modulo, vocab * 3),
        ] {
            let config = PoolConfig::new(pooling).with_out_of_range(out_of_range);
            let n = 1 + rng.below(samples_cap as u64) as usize;
            let mut samples = random_samples::<K>(&mut rng, n, dims, key_space, dim == 16);
            if K::WIDTH == 8 && out_of_range == OutOfRange::Modulo {
                // Negative keys reduce Euclidean-ly.
                samples[0].1[1] = vec![
                    K::from_i128(-1).unwrap(),
                    K::from_i128(-(vocab as i128) - 2).unwrap(),
                ];
            }
            let host = host_batch(dims, &samples);
            let csr = tessera_core::data::CsrView::new(&host.offsets, &host.values).unwrap();
            let mut expected = vec![0f32; csr.rows() * dim];
            embedding_bag(csr, &table, dim, &mut expected, config).unwrap();

            let batch = uploader
                .upload_with(|b| push_all(b, dims, &samples).map(|()| true))
                .unwrap()
                .unwrap();
            kernels
                .launch(&batch, &device_table, &mut out, config)
                .unwrap();
            assert_eq!(out.wait().unwrap(), csr.rows());
            let mut got = vec![0f32; csr.rows() * dim];
            out.read(&mut got).unwrap();
            let same = got
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same,
                "K={} dim={dim} {pooling:?} {out_of_range:?}: GPU differs from the CPU reference",
                K::WIDTH
            );
        }
    }
}

#[test]
fn kernels_are_bit_equal_to_the_cpu_reference() {
    let Some(gpu) = gpu_or_skip("kernels_are_bit_equal_to_the_cpu_reference") else {
        return;
    };
    // Compiled here by NVRTC (where it is installed), and the PTX shipped with the crate.
    for kernels in [EmbeddingBag::new(&gpu), EmbeddingBag::shipped(&gpu)] {
        let kernels = kernels.unwrap();
        for seed in 1..4 {
            kernel_matches_cpu::<u32>(&gpu, &kernels, seed);
            kernel_matches_cpu::<i64>(&gpu, &kernels, seed + 100);
        }
    }
}

fn out_of_range_matches_cpu<K: Key + Element>(gpu: &Gpu, kernels: &EmbeddingBag) {
    let dims = Dims::new(1, 0, 3);
    let shape = BatchShape::new(dims, 8, 256);
    let mut uploader = BatchUploader::<K>::new(gpu, shape, 2).unwrap();
    let (vocab, dim) = (10usize, 4usize);
    let table: Vec<f32> = (0..vocab * dim).map(|i| i as f32).collect();
    let device_table = DeviceTable::new(gpu, &table, dim).unwrap();
    let mut out = PooledOutput::new(gpu, 24, dim).unwrap();
    let k = |v: i128| K::from_i128(v).unwrap();
    // Two bad keys: the CPU stops at the first in CSR order (sample 1, slot 2, position 1).
    let mut samples: Vec<(Vec<f32>, Vec<Vec<K>>)> = (0..4)
        .map(|_| (vec![0.0], vec![vec![k(9)], vec![], vec![k(0), k(9)]]))
        .collect();
    samples[1].1[2] = vec![k(3), k(10)];
    samples[3].1[0] = vec![k(11)];
    let host = host_batch(dims, &samples);
    let csr = tessera_core::data::CsrView::new(&host.offsets, &host.values).unwrap();
    let mut expected = vec![0f32; csr.rows() * dim];
    let config = PoolConfig::new(Pooling::Sum);
    let cpu = embedding_bag(csr, &table, dim, &mut expected, config).unwrap_err();
    assert_eq!(
        cpu,
        PoolError::KeyOutOfRange {
            row: 5,
            position: 1,
            key: 10,
            vocab: 10
        }
    );
    let batch = uploader
        .upload_with(|b| push_all(b, dims, &samples).map(|()| true))
        .unwrap()
        .unwrap();
    kernels
        .launch(&batch, &device_table, &mut out, config)
        .unwrap();
    match out.wait() {
        Err(GpuError::Pool(e)) => assert_eq!(e, cpu),
        other => panic!("expected the CPU's error, got {other:?}"),
    }
    // With modulo the same batch pools (10 -> row 0, 11 -> row 1).
    let modulo = config.with_out_of_range(OutOfRange::Modulo);
    let batch = uploader
        .upload_with(|b| push_all(b, dims, &samples).map(|()| true))
        .unwrap()
        .unwrap();
    kernels
        .launch(&batch, &device_table, &mut out, modulo)
        .unwrap();
    assert_eq!(out.wait().unwrap(), 12);
    let mut got = vec![0f32; 12 * dim];
    out.read(&mut got).unwrap();
    embedding_bag(csr, &table, dim, &mut expected, modulo).unwrap();
    assert_eq!(got, expected);
}

#[test]
fn out_of_range_keys_report_the_cpu_error() {
    let Some(gpu) = gpu_or_skip("out_of_range_keys_report_the_cpu_error") else {
        return;
    };
    let kernels = EmbeddingBag::new(&gpu).unwrap();
    out_of_range_matches_cpu::<u32>(&gpu, &kernels);
    out_of_range_matches_cpu::<i64>(&gpu, &kernels);
}

#[test]
fn a_failure_mid_stream_is_an_error_and_frees_everything() {
    let Some(gpu) = gpu_or_skip("a_failure_mid_stream_is_an_error_and_frees_everything") else {
        return;
    };
    gpu.synchronize().unwrap();
    let (baseline, _) = gpu.memory_info().unwrap();
    {
        let dims = Dims::new(1, 0, 2);
        let shape = BatchShape::new(dims, 16, 16 * 2 * 12);
        let mut uploader = BatchUploader::<u32>::new(&gpu, shape, 2).unwrap();
        let kernels = EmbeddingBag::new(&gpu).unwrap();
        let table = DeviceTable::new(&gpu, &[1.0; 8 * 4], 4).unwrap();
        let mut out = PooledOutput::new(&gpu, 32, 4).unwrap();
        let mut rng = Rng(9);
        for i in 0..6 {
            let samples = random_samples::<u32>(&mut rng, 16, dims, 8, false);
            // Batch 3 overflows the key capacity halfway: the fill fails. Batch 4's last
            // sample has a key past the table: the kernel finds it and the wait reports it.
            let result = uploader.upload_with(|b| {
                push_all(b, dims, &samples[..15])?;
                if i == 3 {
                    for _ in 0..100 {
                        b.push_sample(&[0.0], &[], &[&[1, 2, 3], &[4]])?;
                    }
                }
                let last: &[u32] = if i == 4 { &[2, 100] } else { &[2] };
                b.push_sample(&[0.0], &[], &[&[1], last])?;
                Ok(true)
            });
            match (i, result) {
                (3, Err(GpuError::Batch(_))) => {}
                (3, other) => panic!("batch 3 should fail, got {other:?}"),
                (_, Ok(Some(batch))) => {
                    kernels
                        .launch(&batch, &table, &mut out, PoolConfig::default())
                        .unwrap();
                    match (i, out.wait()) {
                        (4, Err(GpuError::Pool(e))) => assert_eq!(
                            e,
                            PoolError::KeyOutOfRange {
                                row: 31,
                                position: 1,
                                key: 100,
                                vocab: 8
                            }
                        ),
                        (4, other) => panic!("batch 4 should report key 100, got {other:?}"),
                        (_, result) => assert_eq!(result.unwrap(), 32, "batch {i}"),
                    }
                }
                (_, other) => panic!("batch {i}: {other:?}"),
            }
        }
        assert_eq!(uploader.ring().submitted(), 5);
    }
    assert_freed(&gpu, baseline);
}
