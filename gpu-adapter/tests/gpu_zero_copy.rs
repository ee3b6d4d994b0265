//! Zero-copy staging on an NVIDIA GPU (skipped without a driver or device): worker threads
//! decode a Norm file's partitions straight into pinned slots handed out by a
//! [`SlotUploader`], the main thread uploads them in the file's batch order, and every batch
//! reads back from the device equal to a serial decode; slots cycle (more batches than
//! slots), and a foreign or exhausted hand-out is a typed error.

#[path = "support/common.rs"]
mod common;

use std::sync::mpsc;

use common::gpu_or_skip;
use tessera_core::data::{Dims, NormConfig, NormEncoder, NormSlice, SampleBatch};
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{GpuError, PinnedSlot, SlotUploader};

const SLOTS: usize = 4;
const CAP: usize = 32;

fn config() -> NormConfig {
    NormConfig::new(Dims::new(1, 3, SLOTS), 4)
}

fn file(n: u32) -> Vec<u8> {
    let encoder = NormEncoder::<u32>::new(config());
    let mut out = vec![0u8; 64 + n as usize * config().max_record_bytes(4)];
    let mut at = encoder.header(u64::from(n), &mut out).unwrap();
    for i in 0..n {
        let k: Vec<u32> = (0..i % 5).map(|j| i * 31 + j).collect();
        let keys: [&[u32]; SLOTS] = [&k[..k.len().min(4)], &[i], &[], &[i % 3]];
        at += encoder
            .sample(&[1.0], &[i as f32, 0.5, -2.0], &keys, &mut out[at..])
            .unwrap();
    }
    out.truncate(at);
    out
}

#[test]
fn workers_fill_pinned_slots_and_batches_read_back_equal() {
    let Some(gpu) = gpu_or_skip("workers_fill_pinned_slots_and_batches_read_back_equal") else {
        return;
    };
    let data = file(1000);
    let shape = BatchShape::new(config().dims, CAP, CAP * SLOTS * 4);
    // The serial decode, batch by batch.
    let dims = config().dims;
    let (l, o, v) = dims.buffer_lens(CAP, CAP * SLOTS * 4).unwrap();
    let mut serial = Vec::new();
    let mut source = NormSlice::<u32>::norm(config(), &data);
    loop {
        let (mut ld, mut offsets, mut values) = (vec![0f32; l], vec![0u32; o], vec![0u32; v]);
        let mut batch = SampleBatch::new(dims, &mut ld, &mut offsets, &mut values).unwrap();
        if tessera_core::data::BatchSource::next_batch(&mut source, &mut batch)
            .unwrap()
            .is_none()
        {
            break;
        }
        let csr = batch.csr();
        serial.push((
            batch.label_dense().to_vec(),
            csr.row_offsets().to_vec(),
            csr.values().to_vec(),
        ));
    }

    let workers = 3;
    let mut uploader = SlotUploader::<u32>::new(&gpu, shape, 2 * workers, 2).unwrap();
    std::thread::scope(|scope| {
        let mut to_worker = Vec::new();
        let mut from_worker = Vec::new();
        for w in 0..workers {
            let (free_tx, free_rx) = mpsc::channel::<PinnedSlot<u32>>();
            let (out_tx, out_rx) = mpsc::channel();
            free_tx.send(uploader.take().unwrap()).unwrap();
            to_worker.push(free_tx);
            from_worker.push(out_rx);
            let data = &data;
            scope.spawn(move || {
                let mut source =
                    NormSlice::<u32>::norm(config(), data).partition(w as u64, workers as u64);
                while let Ok(mut slot) = free_rx.recv() {
                    let more = slot.fill_from(&mut source).unwrap();
                    if out_tx.send((more, slot)).is_err() || !more {
                        break;
                    }
                }
            });
        }
        let mut k = 0;
        loop {
            let w = k % workers;
            let (more, slot) = from_worker[w].recv().unwrap();
            if !more {
                uploader.give_back(slot).unwrap();
                break;
            }
            let batch = uploader.upload(slot).unwrap().unwrap();
            let back = batch.read_back().unwrap();
            assert_eq!(
                (back.label_dense, back.row_offsets, back.values),
                serial[k].clone(),
                "batch {k}"
            );
            // The worker gets a slot back: whichever is free, after its copy.
            to_worker[w].send(uploader.take().unwrap()).unwrap();
            k += 1;
        }
        assert_eq!(k, serial.len());
        drop(to_worker);
    });
    uploader.synchronize().unwrap();
}

#[test]
fn slots_are_accounted_for() {
    let Some(gpu) = gpu_or_skip("slots_are_accounted_for") else {
        return;
    };
    let shape = BatchShape::new(config().dims, CAP, 256);
    let mut a = SlotUploader::<u32>::new(&gpu, shape, 1, 1).unwrap();
    let slot = a.take().unwrap();
    assert!(matches!(a.take(), Err(GpuError::Capacity { .. })));
    assert!(a.try_take().unwrap().is_none());
    // An empty slot uploads nothing and comes back.
    assert!(a.upload(slot).unwrap().is_none());
    assert_eq!(a.free_slots(), 1);
    // Another uploader's slot is refused (another Gpu handle: another stream).
    let other_gpu = tessera_gpu::Gpu::first().unwrap();
    let mut b = SlotUploader::<u32>::new(&other_gpu, shape, 1, 1).unwrap();
    let foreign = b.take().unwrap();
    assert!(matches!(
        a.give_back(foreign),
        Err(GpuError::OtherStream { .. })
    ));
    assert!(matches!(
        SlotUploader::<u32>::new(&gpu, shape, 0, 1),
        Err(GpuError::Capacity { .. })
    ));
}
