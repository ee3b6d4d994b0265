//! "Nothing is allocated after warm-up": uploading batches through the staging ring (or
//! through zero-copy slots) and pooling them (over one table, or a set of tables in one
//! launch) allocates nothing on the host once the ring has gone round. Counted by a
//! global allocator that counts the current thread's allocations only (the test harness's
//! other threads do not disturb it). Needs a GPU; skips with the reason otherwise.

#[path = "support/common.rs"]
mod common;
#[path = "support/counting.rs"]
mod counting;

use common::{Rng, gpu_or_skip, sample_keys};
use counting::allocations;
use tessera_core::data::{Dims, PoolConfig, Pooling, RowType, TableView};
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{
    BatchUploader, DeviceTable, DeviceTableSet, EmbeddingBag, GpuError, PooledOutput, SlotUploader,
    TableBatchedBag,
};

#[test]
fn uploads_and_pooling_allocate_nothing_after_warm_up() {
    let Some(gpu) = gpu_or_skip("uploads_and_pooling_allocate_nothing_after_warm_up") else {
        return;
    };
    let dims = Dims::new(1, 2, 4);
    let shape = BatchShape::new(dims, 32, 32 * 4 * 12);
    let mut uploader = BatchUploader::<u32>::new(&gpu, shape, 3).unwrap();
    let kernels = EmbeddingBag::new(&gpu).unwrap();
    let table = DeviceTable::new(&gpu, &vec![0.5; 50 * 8], 8).unwrap();
    let mut out = PooledOutput::new(&gpu, 32 * 4, 8).unwrap();
    let mut rng = Rng(5);
    let samples: Vec<Vec<Vec<u32>>> = (0..32)
        .map(|_| sample_keys(&mut rng, 4, 50, false))
        .collect();
    let slots: Vec<Vec<&[u32]>> = samples
        .iter()
        .map(|s| s.iter().map(Vec::as_slice).collect())
        .collect();
    let mut run = |n: usize| {
        for _ in 0..n {
            let batch = uploader
                .upload_with(|b| {
                    for keys in &slots {
                        b.push_sample(&[1.0], &[0.0, 0.0], keys)?;
                    }
                    Ok(true)
                })
                .unwrap()
                .unwrap();
            kernels
                .launch(&batch, &table, &mut out, PoolConfig::new(Pooling::Mean))
                .unwrap();
            out.wait().unwrap();
        }
    };
    run(4); // the ring goes round once
    let before = allocations();
    run(20);
    assert_eq!(allocations() - before, 0, "allocations after warm-up");
}

#[test]
fn zero_copy_slots_and_table_batched_pooling_allocate_nothing_after_warm_up() {
    let test = "zero_copy_slots_and_table_batched_pooling_allocate_nothing_after_warm_up";
    let Some(gpu) = gpu_or_skip(test) else {
        return;
    };
    let kernels = match TableBatchedBag::new(&gpu) {
        Ok(k) => k,
        Err(e @ GpuError::NoNvrtc { .. }) => {
            println!("{test}: skipped: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let dims = Dims::new(1, 2, 4);
    let shape = BatchShape::new(dims, 32, 32 * 4 * 12);
    let mut uploader = SlotUploader::<u32>::new(&gpu, shape, 3, 2).unwrap();
    // Four slots over two tables: 50 f16 rows of width 8, 50 int8 rows of width 5.
    let f16 = vec![0x38u8; 50 * 16];
    let mut int8 = vec![7u8; 50 * 13];
    for row in int8.chunks_exact_mut(13) {
        row[5..9].copy_from_slice(&0.5f32.to_le_bytes());
        row[9..].copy_from_slice(&1.0f32.to_le_bytes());
    }
    let tables = [
        TableView::new(&f16, 8, RowType::F16).unwrap(),
        TableView::new(&int8, 5, RowType::Int8Rowwise).unwrap(),
    ];
    let set = DeviceTableSet::new(&gpu, &tables, &[0, 1, 1, 0]).unwrap();
    let mut out = PooledOutput::new(&gpu, 32, set.layout().sample_width()).unwrap();
    let mut rng = Rng(9);
    let samples: Vec<Vec<Vec<u32>>> = (0..32)
        .map(|_| sample_keys(&mut rng, 4, 50, false))
        .collect();
    let slots: Vec<Vec<&[u32]>> = samples
        .iter()
        .map(|s| s.iter().map(Vec::as_slice).collect())
        .collect();
    let mut run = |n: usize| {
        for _ in 0..n {
            let mut slot = uploader.take().unwrap();
            slot.fill_with(|b| {
                for keys in &slots {
                    b.push_sample(&[1.0], &[0.0, 0.0], keys)?;
                }
                Ok(true)
            })
            .unwrap();
            let batch = uploader.upload(slot).unwrap().unwrap();
            kernels
                .launch(&batch, &set, None, &mut out, PoolConfig::new(Pooling::Sum))
                .unwrap();
            out.wait().unwrap();
        }
    };
    run(4); // every slot and device buffer used once
    let before = allocations();
    run(20);
    assert_eq!(allocations() - before, 0, "allocations after warm-up");
}
