//! Views: creating one (O(rank), no allocation) and iterating / writing strided views, against
//! `ndarray` 0.17 slicing of the same shapes, in the same run.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array2, Array3, s};
use tessera_core::tensor::{TensorView, TensorViewMut};
use tessera_core::view::{ViewIndex, dl4j};

const N: usize = 512;

fn creation(c: &mut Criterion) {
    let data: Vec<f32> = (0..4 * 8 * 16 * 32).map(|i| i as f32).collect();
    let t = TensorView::new(&data[..], &[4, 8, 16, 32]).unwrap();
    let a = ndarray::Array4::from_shape_vec((4, 8, 16, 32), data.clone()).unwrap();
    // numpy: a[1, 1::2, :, None, 3:-3]
    let indices = [
        ViewIndex::Point(1),
        ViewIndex::from_by(1, 2),
        ViewIndex::All,
        ViewIndex::NewAxis,
        ViewIndex::interval(3, -3),
    ];
    let mut words = vec![0i64; dl4j::encoded_indices_len(&indices)];
    dl4j::encode_indices(&indices, &mut words).unwrap();
    let mut g = c.benchmark_group("view/create");
    g.bench_function("tessera", |b| {
        b.iter(|| {
            black_box(
                black_box(&t)
                    .view(black_box(&indices))
                    .unwrap()
                    .layout()
                    .offset(),
            )
        })
    });
    g.bench_function("tessera_dl4j", |b| {
        b.iter(|| {
            black_box(
                black_box(&t)
                    .view_encoded(black_box(&words))
                    .unwrap()
                    .layout()
                    .offset(),
            )
        })
    });
    g.bench_function("ndarray", |b| {
        b.iter(|| {
            let v = black_box(&a).slice(s![1, 1..;2, .., ndarray::NewAxis, 3..29]);
            black_box(v.as_ptr())
        })
    });
    g.finish();
}

/// A contiguous `f32` sum of as many elements as a view: the float-add latency floor.
const ADD_CHAIN: &str = "f32 add chain (contiguous, same count)";

fn iterate(c: &mut Criterion) {
    let data: Vec<f32> = (0..N * N).map(|i| (i % 97) as f32).collect();
    let t = TensorView::new(&data[..], &[N, N]).unwrap();
    let a = Array2::from_shape_vec((N, N), data.clone()).unwrap();
    // a[::2, 1::3]: 256 × 171 elements, strided in both axes.
    let idx = [ViewIndex::from_by(0, 2), ViewIndex::from_by(1, 3)];
    let v = t.view(&idx).unwrap();
    let av = a.slice(s![..;2, 1..;3]);
    assert_eq!(v.iter().sum::<f32>(), av.iter().sum::<f32>());
    let mut g = c.benchmark_group("view/iter_strided_2d");
    g.throughput(Throughput::Elements(v.len() as u64));
    g.bench_function("tessera", |b| b.iter(|| black_box(&v).iter().sum::<f32>()));
    g.bench_function("ndarray", |b| b.iter(|| black_box(&av).iter().sum::<f32>()));
    // The floor of any in-order f32 sum of that many elements: the same chain of dependent
    // adds over a contiguous slice (which no compiler may reorder or vectorise).
    let flat = &data[..v.len()];
    g.bench_function(ADD_CHAIN, |b| {
        b.iter(|| black_box(flat).iter().sum::<f32>())
    });
    g.finish();

    // The f32 sums above are bound by the latency of dependent float adds in both libraries;
    // a wrapping integer sum shows what iteration itself costs.
    let ints: Vec<i64> = (0..(N * N) as i64).collect();
    let ti = TensorView::new(&ints[..], &[N, N]).unwrap();
    let ai = Array2::from_shape_vec((N, N), ints.clone()).unwrap();
    let vi = ti.view(&idx).unwrap();
    let avi = ai.slice(s![..;2, 1..;3]);
    let isum = |acc: i64, x: &i64| acc.wrapping_add(*x);
    assert_eq!(vi.iter().fold(0, isum), avi.iter().fold(0, isum));
    let mut g = c.benchmark_group("view/iter_strided_2d_i64");
    g.throughput(Throughput::Elements(vi.len() as u64));
    g.bench_function("tessera", |b| {
        b.iter(|| black_box(&vi).iter().fold(0, isum))
    });
    g.bench_function("ndarray", |b| {
        b.iter(|| black_box(&avi).iter().fold(0, isum))
    });
    g.finish();

    // Rows 3.. of every other matrix and columns 0..64: lanes of 64 contiguous elements.
    let data3: Vec<f32> = (0..16 * 64 * 128).map(|i| (i % 89) as f32).collect();
    let t3 = TensorView::new(&data3[..], &[16, 64, 128]).unwrap();
    let a3 = Array3::from_shape_vec((16, 64, 128), data3.clone()).unwrap();
    let v3 = t3
        .view(&[
            ViewIndex::from_by(0, 2),
            ViewIndex::from(3..),
            ViewIndex::interval(0, 64),
        ])
        .unwrap();
    let av3 = a3.slice(s![..;2, 3.., 0..64]);
    assert_eq!(v3.iter().sum::<f32>(), av3.iter().sum::<f32>());
    let mut g = c.benchmark_group("view/iter_rows_3d");
    g.throughput(Throughput::Elements(v3.len() as u64));
    g.bench_function("tessera", |b| b.iter(|| black_box(&v3).iter().sum::<f32>()));
    g.bench_function("ndarray", |b| {
        b.iter(|| black_box(&av3).iter().sum::<f32>())
    });
    let flat3 = &data3[..v3.len()];
    g.bench_function(ADD_CHAIN, |b| {
        b.iter(|| black_box(flat3).iter().sum::<f32>())
    });
    g.finish();
}

fn write(c: &mut Criterion) {
    let mut data: Vec<f32> = vec![1.0; N * N];
    let mut a = Array2::<f32>::ones((N, N));
    let idx = [ViewIndex::from_by(0, 2), ViewIndex::from_by(1, 3)];
    let elements = TensorView::new(&data[..], &[N, N])
        .unwrap()
        .view(&idx)
        .unwrap()
        .len();
    let mut g = c.benchmark_group("view/add_assign_strided_2d");
    g.throughput(Throughput::Elements(elements as u64));
    g.bench_function("tessera", |b| {
        b.iter(|| {
            let mut t = TensorViewMut::new(&mut data[..], &[N, N]).unwrap();
            t.view_mut(black_box(&idx))
                .unwrap()
                .add_assign_scalar(black_box(0.5));
        })
    });
    g.bench_function("ndarray", |b| {
        b.iter(|| {
            let mut v = a.slice_mut(s![..;2, 1..;3]);
            v += black_box(0.5);
        })
    });
    g.finish();

    // Copy a strided view into a contiguous tensor of the same shape.
    let src: Vec<f32> = (0..N * N).map(|i| i as f32).collect();
    let st = TensorView::new(&src[..], &[N, N]).unwrap();
    let sv = st.view(&idx).unwrap();
    let mut dst = vec![0f32; sv.len()];
    let asrc = Array2::from_shape_vec((N, N), src.clone()).unwrap();
    let mut adst = Array2::<f32>::zeros(
        sv.shape()
            .try_into()
            .map(|s: [usize; 2]| (s[0], s[1]))
            .unwrap(),
    );
    let mut g = c.benchmark_group("view/copy_strided_2d");
    g.throughput(Throughput::Elements(sv.len() as u64));
    g.bench_function("tessera", |b| {
        b.iter(|| {
            let mut d = TensorViewMut::new(&mut dst[..], sv.shape()).unwrap();
            d.copy_from(black_box(&sv)).unwrap();
        })
    });
    g.bench_function("ndarray", |b| {
        b.iter(|| adst.assign(&black_box(&asrc).slice(s![..;2, 1..;3])))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! { name = benches; config = config(); targets = creation, iterate, write }
criterion_main!(benches);
