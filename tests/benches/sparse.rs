//! Sparse vector benchmarks: tessera's `VBuffer` against `sprs::CsVec` (with the same `u32`
//! indices) and plain `Vec<f32>` loops, at length 1 000 000 and densities 0.1 %, 1 % and 10 %:
//! sparse·dense dot, sparse·sparse dot, axpy of a sparse vector into a dense one, and
//! sparse + sparse. Dense·dense dot is measured against the memory-bandwidth bound: a plain
//! sum over the same bytes (as integers, which vectorise fully) in the same run.
//!
//! Every comparison runs side by side in the same process on the same inputs, with
//! [`black_box`] around inputs and results. Each iteration takes the next of several
//! different sparse inputs (see [`variants`]), so no method profits from a branch predictor
//! that has memorised one input. tessera writes results into a vector reused from
//! one iteration to the next (its intended use); sprs's `+` returns a new `CsVec` each time,
//! which is its only API for it.
//!
//! Run with `cargo bench -p tessera-tests --bench sparse`; results are summarised in
//! `BENCHMARKS.md` at the workspace root.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sprs::CsVecI;
use tessera_alloc::{OwnedVBuffer, VecStorage};
use tessera_core::sparse::{Slices, VBufferView};

mod support;
use support::Rng;

/// Logical length of every vector.
const LEN: usize = 1_000_000;

/// Fractions of explicit entries in the sparse vectors.
const DENSITIES: [(f64, &str); 3] = [(0.001, "0.1%"), (0.01, "1%"), (0.1, "10%")];

/// Benchmark names, shared by all groups so the tables line up.
const TESSERA: &str = "tessera";
/// `sprs::CsVecI<f32, u32>`.
const SPRS: &str = "sprs";
/// Hand-written loop over `Vec<u32>` indices and `Vec<f32>` values.
const PLAIN_SPARSE: &str = "plain sparse loop";
/// The loads of a sparse . dense dot alone, no arithmetic that waits: its floor.
const GATHER_BOUND: &str = "gather bound (loads only)";
/// Hand-written loop over dense `Vec<f32>`s of length 1 000 000.
const PLAIN_DENSE: &str = "plain dense loop";

/// A short measurement so the whole file runs in a few minutes on a loaded 2-core machine.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// How many different sparse inputs each benchmark cycles through at `density`: enough that
/// the branch predictor cannot learn one input's merge order across iterations (with a single
/// fixed pair it does, at 0.1 % and 1 %, which flatters branchy merges several times over).
fn variants(density: f64) -> usize {
    if density < 0.005 {
        64
    } else if density < 0.05 {
        16
    } else {
        4
    }
}

/// Cycles through `items`, one per call.
struct Cycle<'a, T> {
    items: &'a [T],
    next: usize,
}

impl<'a, T> Cycle<'a, T> {
    fn new(items: &'a [T]) -> Self {
        Cycle { items, next: 0 }
    }

    fn next(&mut self) -> &'a T {
        let item = &self.items[self.next];
        self.next = (self.next + 1) % self.items.len();
        item
    }
}

/// A sparse vector: each index present with probability `density`.
struct Sparse {
    indices: Vec<u32>,
    values: Vec<f32>,
}

impl Sparse {
    fn random(density: f64, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let threshold = (density * u64::MAX as f64) as u64;
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for i in 0..LEN as u32 {
            if rng.next() < threshold {
                indices.push(i);
                values.push(rng.value());
            }
        }
        Sparse { indices, values }
    }

    fn view(&self) -> VBufferView<'_, f32> {
        VBufferView::try_sparse(LEN, Slices::new(&self.values, &self.indices)).unwrap()
    }

    fn sprs(&self) -> CsVecI<f32, u32> {
        CsVecI::new(LEN, self.indices.clone(), self.values.clone())
    }

    fn dense(&self) -> Vec<f32> {
        let mut d = vec![0.0; LEN];
        for (&i, &v) in self.indices.iter().zip(&self.values) {
            d[i as usize] = v;
        }
        d
    }
}

fn dense_random(seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..LEN).map(|_| rng.value()).collect()
}

/// The obvious dot product of two dense `Vec<f32>`s.
fn plain_dense_dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `variants(density)` random sparse vectors (seeds from `seed`).
fn sparse_set(density: f64, seed: u64) -> Vec<Sparse> {
    (0..variants(density) as u64)
        .map(|k| Sparse::random(density, seed * 1000 + k))
        .collect()
}

fn sparse_dense_dot(c: &mut Criterion) {
    let mut g = c.benchmark_group("sparse_dense_dot");
    let dense = dense_random(7);
    let dense_v = VBufferView::try_dense(Slices::dense(&dense)).unwrap();
    for (density, name) in DENSITIES {
        let a = sparse_set(density, 1);
        let views: Vec<_> = a.iter().map(Sparse::view).collect();
        let sp: Vec<_> = a.iter().map(Sparse::sprs).collect();
        // Dense loops have no data-dependent branches: one input is enough (and 4 MB each).
        let ad: Vec<_> = a.iter().take(1).map(Sparse::dense).collect();
        let mut cy = Cycle::new(&views);
        g.bench_function(BenchmarkId::new(TESSERA, name), |b| {
            b.iter(|| black_box(cy.next()).dot(black_box(&dense_v)).unwrap())
        });
        let mut cy = Cycle::new(&sp);
        g.bench_function(BenchmarkId::new(SPRS, name), |b| {
            b.iter(|| black_box(cy.next()).dot_dense(black_box(&dense[..])))
        });
        let mut cy = Cycle::new(&a);
        g.bench_function(BenchmarkId::new(PLAIN_SPARSE, name), |b| {
            b.iter(|| {
                let s = black_box(cy.next());
                let d = black_box(&dense);
                s.indices
                    .iter()
                    .zip(&s.values)
                    .map(|(&i, &v)| v * d[i as usize])
                    .sum::<f32>()
            })
        });
        // The floor of any sparse . dense dot: the same gathers of `d[i]` and reads of the
        // values, summed as integers in 8 lanes (no float latency, nothing but the loads).
        let mut cy = Cycle::new(&a);
        g.bench_function(BenchmarkId::new(GATHER_BOUND, name), |b| {
            b.iter(|| {
                let s = black_box(cy.next());
                let d = black_box(&dense);
                let mut acc = [0u32; 8];
                let (idx, val) = (s.indices.chunks_exact(8), s.values.chunks_exact(8));
                let (ri, rv) = (idx.remainder(), val.remainder());
                for (i8, v8) in idx.zip(val) {
                    for k in 0..8 {
                        let x = d[i8[k] as usize].to_bits() ^ v8[k].to_bits();
                        acc[k] = acc[k].wrapping_add(x);
                    }
                }
                for (&i, &v) in ri.iter().zip(rv) {
                    acc[0] = acc[0].wrapping_add(d[i as usize].to_bits() ^ v.to_bits());
                }
                acc.iter().fold(0u32, |x, &y| x.wrapping_add(y))
            })
        });
        let mut cy = Cycle::new(&ad);
        g.bench_function(BenchmarkId::new(PLAIN_DENSE, name), |b| {
            b.iter(|| plain_dense_dot(black_box(cy.next()), black_box(&dense)))
        });
    }
    g.finish();
}

fn sparse_sparse_dot(c: &mut Criterion) {
    let mut g = c.benchmark_group("sparse_sparse_dot");
    for (density, name) in DENSITIES {
        let (a, b2) = (sparse_set(density, 1), sparse_set(density, 2));
        let pairs: Vec<_> = a.iter().zip(&b2).collect();
        let views: Vec<_> = pairs.iter().map(|(x, y)| (x.view(), y.view())).collect();
        let sp: Vec<_> = pairs.iter().map(|(x, y)| (x.sprs(), y.sprs())).collect();
        // Dense loops have no data-dependent branches: one input is enough (and 8 MB each).
        let dense: Vec<_> = pairs
            .iter()
            .take(1)
            .map(|(x, y)| (x.dense(), y.dense()))
            .collect();
        let mut cy = Cycle::new(&views);
        g.bench_function(BenchmarkId::new(TESSERA, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                x.dot(y).unwrap()
            })
        });
        let mut cy = Cycle::new(&sp);
        g.bench_function(BenchmarkId::new(SPRS, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                x.dot(y)
            })
        });
        let mut cy = Cycle::new(&pairs);
        g.bench_function(BenchmarkId::new(PLAIN_SPARSE, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                let (ia, xa, ib, xb) = (&x.indices, &x.values, &y.indices, &y.values);
                let (mut i, mut j, mut s) = (0, 0, 0.0f32);
                while i < ia.len() && j < ib.len() {
                    if ia[i] < ib[j] {
                        i += 1;
                    } else if ib[j] < ia[i] {
                        j += 1;
                    } else {
                        s += xa[i] * xb[j];
                        i += 1;
                        j += 1;
                    }
                }
                s
            })
        });
        let mut cy = Cycle::new(&dense);
        g.bench_function(BenchmarkId::new(PLAIN_DENSE, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                plain_dense_dot(x, y)
            })
        });
    }
    g.finish();
}

fn axpy_sparse_into_dense(c: &mut Criterion) {
    let mut g = c.benchmark_group("axpy_sparse_into_dense");
    let alpha = 1.0e-3f32;
    for (density, name) in DENSITIES {
        let a = sparse_set(density, 1);
        let views: Vec<_> = a.iter().map(Sparse::view).collect();
        let sp: Vec<_> = a.iter().map(Sparse::sprs).collect();
        // Dense loops have no data-dependent branches: one input is enough (and 4 MB each).
        let ad: Vec<_> = a.iter().take(1).map(Sparse::dense).collect();
        let mut dst = OwnedVBuffer::try_dense(VecStorage::dense(dense_random(9))).unwrap();
        let mut cy = Cycle::new(&views);
        g.bench_function(BenchmarkId::new(TESSERA, name), |b| {
            b.iter(|| {
                black_box(&mut dst)
                    .add_mult(black_box(cy.next()), alpha)
                    .unwrap()
            })
        });
        let mut d = dense_random(9);
        let mut cy = Cycle::new(&sp);
        g.bench_function(BenchmarkId::new(SPRS, name), |b| {
            b.iter(|| {
                let d = black_box(&mut d);
                for (i, &v) in black_box(cy.next()).iter() {
                    d[i] += alpha * v;
                }
            })
        });
        let mut cy = Cycle::new(&a);
        g.bench_function(BenchmarkId::new(PLAIN_SPARSE, name), |b| {
            b.iter(|| {
                let d = black_box(&mut d);
                let s = black_box(cy.next());
                for (&i, &v) in s.indices.iter().zip(&s.values) {
                    d[i as usize] += alpha * v;
                }
            })
        });
        let mut cy = Cycle::new(&ad);
        g.bench_function(BenchmarkId::new(PLAIN_DENSE, name), |b| {
            b.iter(|| {
                for (x, &y) in black_box(&mut d).iter_mut().zip(black_box(cy.next())) {
                    *x += alpha * y;
                }
            })
        });
        black_box((&dst, &d));
    }
    g.finish();
}

fn sparse_plus_sparse(c: &mut Criterion) {
    let mut g = c.benchmark_group("sparse_plus_sparse");
    for (density, name) in DENSITIES {
        let (a, b2) = (sparse_set(density, 1), sparse_set(density, 2));
        let pairs: Vec<_> = a.iter().zip(&b2).collect();
        let views: Vec<_> = pairs.iter().map(|(x, y)| (x.view(), y.view())).collect();
        let sp: Vec<_> = pairs.iter().map(|(x, y)| (x.sprs(), y.sprs())).collect();
        // Dense loops have no data-dependent branches: one input is enough (and 8 MB each).
        let dense: Vec<_> = pairs
            .iter()
            .take(1)
            .map(|(x, y)| (x.dense(), y.dense()))
            .collect();
        let mut out = OwnedVBuffer::default();
        let mut cy = Cycle::new(&views);
        g.bench_function(BenchmarkId::new(TESSERA, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                x.add_into(y, &mut out).unwrap();
                black_box(out.count())
            })
        });
        let mut cy = Cycle::new(&sp);
        g.bench_function(BenchmarkId::new(SPRS, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                black_box(x + y)
            })
        });
        let mut sum = vec![0.0f32; LEN];
        let mut cy = Cycle::new(&dense);
        g.bench_function(BenchmarkId::new(PLAIN_DENSE, name), |b| {
            b.iter(|| {
                let (x, y) = black_box(cy.next());
                for ((s, p), q) in sum.iter_mut().zip(x).zip(y) {
                    *s = p + q;
                }
                black_box(&sum);
            })
        });
    }
    g.finish();
}

fn dense_dense_dot(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense_dense_dot");
    let (a, b2) = (dense_random(1), dense_random(2));
    let (va, vb) = (
        VBufferView::try_dense(Slices::dense(&a)).unwrap(),
        VBufferView::try_dense(Slices::dense(&b2)).unwrap(),
    );
    g.throughput(Throughput::Bytes((2 * LEN * size_of::<f32>()) as u64));
    g.bench_function(BenchmarkId::new(TESSERA, "1M"), |b| {
        b.iter(|| black_box(&va).dot(black_box(&vb)).unwrap())
    });
    g.bench_function(
        BenchmarkId::new("bandwidth bound (integer sum)", "1M"),
        |b| {
            b.iter(|| {
                // Both arrays read together, as the dot product reads them; integer adds
                // vectorise without reassociation concerns, so only memory limits this loop.
                let (x, y) = (black_box(&a), black_box(&b2));
                x.iter().zip(y).fold(0u32, |acc, (p, q)| {
                    acc.wrapping_add(p.to_bits()).wrapping_add(q.to_bits())
                })
            })
        },
    );
    g.bench_function(BenchmarkId::new(PLAIN_DENSE, "1M"), |b| {
        b.iter(|| plain_dense_dot(black_box(&a), black_box(&b2)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = sparse_dense_dot, sparse_sparse_dot, axpy_sparse_into_dense, sparse_plus_sparse,
        dense_dense_dot
}
criterion_main!(benches);
