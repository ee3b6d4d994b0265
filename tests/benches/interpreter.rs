//! The interpreter on the project's fixture models (TensorFlow's converter, see
//! `tests/fixtures/models/README.md`): latency per invoke, single thread, with LiteRT's
//! reference inputs; set-up (plan + allocate: `Interpreter::new`); and loading (full
//! verification plus a walk over every tensor and operator).
//!
//! The LiteRT side is `tests/benches/litert_latency.py`, run in the same session; the ratios
//! are in BENCHMARKS.md.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tessera_core::npy::NpyView;
use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::{Model, TensorType};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/models")
}

/// The model's bytes at a 16-byte boundary (constants read in place).
fn aligned(name: &str) -> (Vec<u8>, usize, usize) {
    let bytes = std::fs::read(dir().join(format!("{name}.tflite"))).expect("fixture");
    let mut buf = vec![0u8; bytes.len() + 16];
    let at = buf.as_ptr().align_offset(16);
    buf[at..at + bytes.len()].copy_from_slice(&bytes);
    (buf, at, bytes.len())
}

fn set_reference_inputs(name: &str, it: &mut Interpreter<'_, '_>) {
    for k in 0..it.input_count() {
        let file = std::fs::read(dir().join(format!("{name}.in{k}.npy"))).expect("input");
        let npy = NpyView::parse(&file).expect("npy");
        let t = it.input_tensor(k).unwrap();
        if it.tensor_type(t).unwrap() == TensorType::String {
            let s: Vec<&[u8]> = npy.strings().collect();
            it.set_input_strings(k, s).unwrap();
        } else {
            it.input_bytes_mut(k).unwrap().copy_from_slice(npy.data());
        }
    }
}

/// Models of issue 15 (float, strings, sparse); issue 16's quantized ones join when their
/// kernels exist (a model that does not set up is skipped with a note).
const MODELS: &[&str] = &[
    "ctr",
    "ctr_b4",
    "strings",
    "sparse",
    "sparse_block",
    "kws_float",
    "kws_int8",
    "image_float",
    "image_int8",
    "int8_dense",
];

fn invoke(c: &mut Criterion) {
    let mut g = c.benchmark_group("interpreter/invoke");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    for name in MODELS {
        let (buf, at, len) = aligned(name);
        let model = Model::load(&buf[at..at + len]).expect("fixture loads");
        let options = Options::default();
        let Ok(needed) = Interpreter::required(&model, &AllOps, &options) else {
            eprintln!("interpreter/invoke/{name}: skipped (not every kernel exists yet)");
            continue;
        };
        let mut arena = vec![0u8; needed];
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
        set_reference_inputs(name, &mut it);
        eprintln!(
            "interpreter/{name}: arena {} bytes, interpreter value {} bytes",
            it.arena_used_bytes(),
            size_of::<Interpreter<'_, '_>>()
        );
        g.bench_function(*name, |b| b.iter(|| it.invoke().unwrap()));
    }
    g.finish();
}

fn setup(c: &mut Criterion) {
    let mut g = c.benchmark_group("interpreter/setup");
    g.measurement_time(Duration::from_secs(2));
    for name in ["ctr", "sparse", "kws_int8"] {
        let (buf, at, len) = aligned(name);
        let model = Model::load(&buf[at..at + len]).unwrap();
        let options = Options::default();
        let Ok(needed) = Interpreter::required(&model, &AllOps, &options) else {
            continue;
        };
        let mut arena = vec![0u8; needed];
        g.bench_function(name, |b| {
            b.iter(|| {
                let it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
                black_box(it.arena_used_bytes())
            })
        });
    }
    g.finish();
}

/// Loading: full verification, then every tensor (shape, type, buffer, quantization) and
/// every operator (operands, options) read once — what an interpreter's set-up reads.
fn load(c: &mut Criterion) {
    let mut g = c.benchmark_group("model/load");
    g.measurement_time(Duration::from_secs(2));
    for name in ["ctr", "strings", "sparse", "kws_int8", "image_int8"] {
        let (buf, at, len) = aligned(name);
        let bytes = &buf[at..at + len];
        g.bench_function(name, |b| b.iter(|| walk(black_box(bytes))));
    }
    g.finish();
}

fn walk(bytes: &[u8]) -> usize {
    let model = Model::load(bytes).unwrap();
    let mut n = 0usize;
    for sg in model.subgraphs().iter() {
        for t in sg.tensors().iter() {
            n += t.shape().len() + t.buffer_index() + usize::from(t.data().is_some());
            if let Some(q) = t.quantization() {
                n += q.scale().len();
            }
            n += t.name().len();
        }
        for op in sg.operators().iter() {
            n += op.inputs().len() + op.outputs().len() + op.opcode_index();
            n += usize::from(matches!(
                op.options(),
                tessera_lite::model::BuiltinOptions::None
            ));
        }
    }
    n
}

criterion_group!(benches, invoke, setup, load);
criterion_main!(benches);
