//! "Nothing is allocated after warm-up": uploading batches through the staging ring and
//! pooling them allocates nothing on the host once the ring has gone round. Counted by a
//! global allocator that counts the current thread's allocations only (the test harness's
//! other threads do not disturb it). Needs a GPU; skips with the reason otherwise.

#[path = "support/common.rs"]
mod common;
#[path = "support/counting.rs"]
mod counting;

use common::{Rng, gpu_or_skip, sample_keys};
use counting::allocations;
use tessera_core::data::{Dims, PoolConfig, Pooling};
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{BatchUploader, DeviceTable, EmbeddingBag, PooledOutput};

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
