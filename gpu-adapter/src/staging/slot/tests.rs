//! Owned staging slots over ordinary heap memory (the stand-in for pinned memory where there
//! is no CUDA): worker threads decode a Norm file's partitions straight into slots handed to
//! them, send them back, and the bytes a device copy would move are the slot's own (no copy
//! was made), holding exactly what a serial decode gives, batch by batch.

use std::sync::mpsc;

use tessera_alloc::HeapBlock;
use tessera_core::data::{Dims, NormConfig, NormEncoder, NormSlice};
use tessera_core::memory::Memory;

use super::*;

const SLOTS: usize = 2;
const CAP: usize = 8;
const MAX_NNZ: u32 = 3;

fn config() -> NormConfig {
    NormConfig::new(Dims::new(1, 2, SLOTS), MAX_NNZ)
}

fn shape() -> BatchShape {
    BatchShape::new(config().dims, CAP, CAP * SLOTS * MAX_NNZ as usize)
}

/// A Norm file of `n` samples: label `i`, dense `(i, -i)`, slot keys derived from `i`.
fn file(n: u32) -> Vec<u8> {
    let encoder = NormEncoder::<u32>::new(config());
    let mut out = vec![0u8; 64 + n as usize * config().max_record_bytes(4)];
    let mut at = encoder.header(u64::from(n), &mut out).unwrap();
    for i in 0..n {
        let a: Vec<u32> = (0..i % 4).map(|k| i * 7 + k).collect();
        let b = [i % 5];
        let keys: [&[u32]; SLOTS] = [&a[..a.len().min(3)], &b];
        at += encoder
            .sample(&[i as f32], &[i as f32, -(i as f32)], &keys, &mut out[at..])
            .unwrap();
    }
    out.truncate(at);
    out
}

fn slot(id: usize) -> StagingSlot<u32, HeapBlock> {
    let bytes = StagingSlot::<u32, HeapBlock>::bytes_needed(shape()).unwrap();
    StagingSlot::new(HeapBlock::with_len(bytes), shape(), id).unwrap()
}

/// What a batch holds: label/dense rows, offsets, keys.
type Content = (Vec<f32>, Vec<u32>, Vec<u32>);

fn content(batch: &SampleBatch<'_, u32>) -> Content {
    let ld = batch.label_dense().to_vec();
    let csr = batch.csr();
    (ld, csr.row_offsets().to_vec(), csr.values().to_vec())
}

/// The staged bytes, read back through the layout as a device would see them.
fn staged_content(slot: &StagingSlot<u32, HeapBlock>, arena_dims: Dims) -> Content {
    let bytes = slot.staged().unwrap();
    let (mut plan, layout) = BatchLayout::<u32>::plan::<HeapBlock>(shape()).unwrap();
    plan.required_bytes().unwrap();
    let ld_at = plan.offset(&layout.label_dense()).unwrap();
    let offsets_at = plan.offset(&layout.row_offsets()).unwrap();
    let values_at = plan.offset(&layout.values()).unwrap();
    let f32s = |start: usize, n: usize| -> Vec<f32> {
        bytes[start..start + 4 * n]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let u32s = |start: usize, n: usize| -> Vec<u32> {
        bytes[start..start + 4 * n]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let rows = slot.samples() * arena_dims.slot_num;
    (
        f32s(ld_at, slot.samples() * arena_dims.label_dense()),
        u32s(offsets_at, rows + 1),
        u32s(values_at, slot.nnz()),
    )
}

#[test]
fn workers_decode_straight_into_the_slots_they_are_handed() {
    let data = file(101);
    // The serial decode, batch by batch.
    let mut serial = Vec::new();
    let mut source = NormSlice::<u32>::norm(config(), &data);
    let mut reference = slot(99);
    while reference.fill_from(&mut source).unwrap() {
        serial.push(content(&reference.batch().unwrap()));
    }
    assert_eq!(serial.len(), 101usize.div_ceil(CAP));

    // Three workers, two slots each: slots go out through each worker's channel and come
    // back filled, in the order the serial source would give them (worker k % 3 has batch k).
    let workers = 3;
    let mut got = Vec::new();
    std::thread::scope(|scope| {
        // Each worker also says when a slot is filled (the uploader would poll this).
        let (filled_tx, _filled_rx) = mpsc::channel();
        let mut to_worker = Vec::new();
        let mut from_worker = Vec::new();
        for w in 0..workers {
            let (free_tx, free_rx) = mpsc::channel::<StagingSlot<u32, HeapBlock>>();
            let (out_tx, out_rx) = mpsc::channel();
            for s in 0..2 {
                free_tx.send(slot(w * 2 + s)).unwrap();
            }
            to_worker.push(free_tx);
            from_worker.push(out_rx);
            let data = &data;
            let filled_tx = filled_tx.clone();
            scope.spawn(move || {
                let mut source =
                    NormSlice::<u32>::norm(config(), data).partition(w as u64, workers as u64);
                while let Ok(mut slot) = free_rx.recv() {
                    let more = slot.fill_from(&mut source).unwrap();
                    let _ = filled_tx.send(w);
                    if out_tx.send((more, slot)).is_err() || !more {
                        break;
                    }
                }
            });
        }
        drop(filled_tx);
        for k in 0.. {
            let w = k % workers;
            let (more, mut slot) = from_worker[w].recv().unwrap();
            if !more {
                break;
            }
            let staged = slot.staged().unwrap();
            // The staged bytes are the slot's memory itself: no copy was made.
            let memory = slot.memory().unwrap();
            let (base, len) = (memory.base_address(), memory.len());
            let start = staged.as_ptr() as usize;
            assert!(start >= base && start + staged.len() <= base + len);
            assert_eq!(
                staged_content(&slot, config().dims),
                content(&slot.batch().unwrap())
            );
            got.push(content(&slot.batch().unwrap()));
            // Back to its worker, as the uploader does once the copy's event fired.
            let _ = to_worker[w].send(slot);
        }
        drop(to_worker);
    });
    assert_eq!(got, serial);
}

#[test]
fn a_failed_fill_leaves_the_slot_empty() {
    let mut s = slot(0);
    let data = file(5);
    assert!(
        s.fill_from(&mut NormSlice::<u32>::norm(config(), &data))
            .unwrap()
    );
    assert_eq!(s.samples(), 5);
    let err = s.fill_with(|_| {
        Err(GpuError::Capacity {
            what: "test",
            needed: 1,
            available: 0,
        })
    });
    assert!(matches!(err, Err(GpuError::Capacity { what: "test", .. })));
    assert_eq!((s.samples(), s.nnz()), (0, 0));
    // A truncated file is the source's typed error, never a panic.
    // The whole samples before the cut come first; the cut one is the error.
    let cut = &data[..data.len() - 3];
    let mut source = NormSlice::<u32>::norm(config(), cut);
    assert!(s.fill_from(&mut source).unwrap());
    assert_eq!(s.samples(), 4);
    let err = s.fill_from(&mut source);
    assert!(matches!(err, Err(GpuError::Data(_))), "{err:?}");
    assert_eq!(s.samples(), 0);
    assert!(s.staged().is_ok());
}

#[test]
fn memory_too_small_for_the_plan_is_a_typed_error() {
    let bytes = StagingSlot::<u32, HeapBlock>::bytes_needed(shape()).unwrap();
    let small = HeapBlock::with_len(bytes / 2);
    assert!(matches!(
        StagingSlot::<u32, HeapBlock>::new(small, shape(), 0),
        Err(GpuError::Arena(_))
    ));
}

#[test]
fn the_host_checks_the_batch_in_place() {
    let mut s = slot(3);
    let data = file(9);
    let mut source = NormSlice::<u32>::norm(config(), &data);
    assert!(s.fill_from(&mut source).unwrap());
    let (rows, nnz) = s.with_csr(|csr| (csr.rows(), csr.nnz())).unwrap();
    assert_eq!((rows, nnz, s.id()), (CAP * SLOTS, s.nnz(), 3));
}
