//! Allocating 1 000 tensors from a plan, against `bumpalo` allocating the same sizes with the
//! same 32-byte alignment, in the same run; and planning itself.

use std::alloc::Layout as AllocLayout;
use std::hint::black_box;
use std::time::Duration;

use bumpalo::Bump;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_alloc::{HeapArena, HeapBlock};
use tessera_core::arena::{Arena, TensorHandle};
use tessera_core::plan::{Lifetime, PlanBuffer, live_peak, plan_greedy};
use tessera_core::tensor::TensorViewMut;

const TENSORS: usize = 1000;

/// Deterministic shapes: 1 000 f32 tensors of 1..=4 dimensions, 1..=512 elements.
fn shapes() -> Vec<Vec<usize>> {
    (0..TENSORS)
        .map(|i| {
            let n = 1 + (i * 7919) % 512;
            match i % 4 {
                0 => vec![n],
                1 => vec![1, n],
                2 => vec![n, 1, 1],
                _ => vec![1, 1, 1, n],
            }
        })
        .collect()
}

fn allocate(c: &mut Criterion) {
    let shapes = shapes();
    let mut g = c.benchmark_group("arena/1000_tensors");
    g.throughput(Throughput::Elements(TENSORS as u64));

    // From a plan: reserved and planned once; each iteration lays the plan over memory and
    // takes every tensor.
    let mut arena = HeapArena::new();
    let handles: Vec<TensorHandle<f32>> = shapes
        .iter()
        .map(|s| arena.reserve::<f32>(s).unwrap())
        .collect();
    let required = arena.required_bytes().unwrap();
    let mut memory = Some(HeapBlock::with_len(required));
    g.bench_function("tessera_from_plan", |b| {
        b.iter(|| {
            let arena: &mut Arena<_, HeapBlock> = &mut arena;
            arena.allocate(memory.take().unwrap()).unwrap();
            for h in &handles {
                let t = arena.tensor_mut(h).unwrap();
                black_box(t.storage().as_ptr());
            }
            memory = arena.release();
        })
    });

    // The same plan, asking only for each buffer's address: the like-for-like peer of
    // `bumpalo_pointers`, which hands out raw memory without building tensors.
    g.bench_function("tessera_from_plan_pointers", |b| {
        b.iter(|| {
            let arena: &mut Arena<_, HeapBlock> = &mut arena;
            arena.allocate(memory.take().unwrap()).unwrap();
            for h in &handles {
                black_box(arena.address(h).unwrap());
            }
            memory = arena.release();
        })
    });

    // The same, taking every address in one pass over the plan (`addresses`).
    g.bench_function("tessera_from_plan_addresses", |b| {
        b.iter(|| {
            let arena: &mut Arena<_, HeapBlock> = &mut arena;
            arena.allocate(memory.take().unwrap()).unwrap();
            for a in arena.addresses().unwrap() {
                black_box(a);
            }
            memory = arena.release();
        })
    });

    // The whole cycle each time: reserve 1 000, plan, allocate, take every tensor.
    let mut heap = HeapArena::new();
    let mut hs: Vec<TensorHandle<f32>> = Vec::with_capacity(TENSORS);
    g.bench_function("tessera_reserve_plan_allocate", |b| {
        b.iter(|| {
            heap.reset();
            hs.clear();
            for s in &shapes {
                hs.push(heap.reserve::<f32>(black_box(s)).unwrap());
            }
            heap.allocate().unwrap();
            for h in &hs {
                let t = heap.tensor_mut(h).unwrap();
                black_box(t.storage().as_ptr());
            }
        })
    });

    let layouts: Vec<AllocLayout> = shapes
        .iter()
        .map(|s| AllocLayout::from_size_align(s.iter().product::<usize>() * 4, 32).unwrap())
        .collect();
    let mut bump = Bump::with_capacity(required + TENSORS * 32);
    g.bench_function("bumpalo_pointers", |b| {
        b.iter(|| {
            bump.reset();
            for l in &layouts {
                black_box(bump.alloc_layout(*l));
            }
        })
    });
    g.bench_function("bumpalo_tensors", |b| {
        b.iter(|| {
            bump.reset();
            for (l, s) in layouts.iter().zip(&shapes) {
                let p = bump.alloc_layout(*l);
                // SAFETY: bumpalo gave `l.size()` fresh bytes aligned to 32, valid until the
                // next reset; f32 has no invalid bit patterns (contents are not read).
                let data = unsafe {
                    std::slice::from_raw_parts_mut(p.as_ptr().cast::<f32>(), l.size() / 4)
                };
                let t = TensorViewMut::new(data, black_box(s)).unwrap();
                black_box(t.storage().as_ptr());
            }
        })
    });
    g.finish();
}

/// A 1 000-layer chain plus a long skip every 10 layers: the greedy planner's cost and result.
fn planning(c: &mut Criterion) {
    let buffers: Vec<PlanBuffer> = (0..TENSORS as u32)
        .map(|i| {
            let size = 1024 * (1 + (i as usize * 31) % 16);
            let life = if i % 10 == 0 {
                Lifetime::new(i, i + 9)
            } else {
                Lifetime::new(i, i + 1)
            };
            PlanBuffer::new(size, 32, life)
        })
        .collect();
    let mut planned = buffers.clone();
    let peak = plan_greedy(&mut planned).unwrap();
    let sum: usize = buffers.iter().map(PlanBuffer::size).sum();
    println!(
        "plan of {TENSORS} buffers: greedy peak {peak} B, live lower bound {} B, sum of sizes {sum} B",
        live_peak(&buffers)
    );
    let mut g = c.benchmark_group("arena/plan_greedy_1000");
    g.throughput(Throughput::Elements(TENSORS as u64));
    g.bench_function("tessera", |b| {
        b.iter(|| {
            let mut bufs = buffers.clone();
            black_box(plan_greedy(&mut bufs).unwrap())
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! { name = benches; config = config(); targets = allocate, planning }
criterion_main!(benches);
