//! Loading a `.tflite` file: tessera's `Model::load` (full verification) against the
//! `flatbuffers` crate's verified `root::<Model>` over `flatc`-generated code for TensorFlow
//! Lite's schema (vendored in `support/tflite_generated.rs`), each followed by the same walk
//! over every subgraph, tensor (shape, type, buffer, constant data, quantization, name) and
//! operator (opcode, inputs, outputs, builtin options) — what an interpreter's set-up reads.
//!
//! Both walks fold what they read into a checksum, asserted equal before timing, so both sides
//! really read the same things. Model bytes sit at a 16-byte boundary for both. The ratios go
//! in BENCHMARKS.md.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tessera_lite::model::{
    Activation, AddOptions, BuiltinOptions, DivOptions, Model, MulOptions, Padding, SubOptions,
};

#[allow(
    clippy::all,
    clippy::pedantic,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    unused_imports,
    dead_code,
    deprecated,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    mismatched_lifetime_syntaxes,
    unsafe_code
)]
#[path = "support/tflite_generated.rs"]
mod tflite_generated;

use tflite_generated::tflite as fb;

/// The fixtures compared. `kws_float_offsets` is left out: its buffers use the `offset` /
/// `size` form, which the vendored (older) generated schema code does not know.
const FIXTURES: [&str; 8] = [
    "ctr",
    "strings",
    "sparse",
    "kws_int8",
    "image_int8",
    "int8_dense",
    "conv_variants_int8",
    "ops_elementwise",
];

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

/// An order-sensitive checksum of what a walk reads (FNV-1a over 64-bit words: cheap, so the
/// walk's reads dominate).
struct Sum {
    h: u64,
    base: usize,
}

impl Sum {
    fn new(bytes: &[u8]) -> Self {
        Self {
            h: 0xcbf2_9ce4_8422_2325,
            base: bytes.as_ptr() as usize,
        }
    }

    fn add(&mut self, v: u64) {
        self.h = (self.h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn int(&mut self, v: i64) {
        self.add(v as u64);
    }

    /// A slice of the model by where it is and how long: both readers hand out slices of the
    /// same bytes, so equal positions mean they found the same data.
    fn slice(&mut self, s: &[u8]) {
        self.add((s.as_ptr() as usize).wrapping_sub(self.base) as u64);
        self.add(s.len() as u64);
    }
}

fn activation(a: Activation) -> i64 {
    match a {
        Activation::None => 0,
        Activation::Relu => 1,
        Activation::ReluN1To1 => 2,
        Activation::Relu6 => 3,
        Activation::Tanh => 4,
        Activation::SignBit => 5,
        Activation::Other(v) => v.into(),
    }
}

fn padding(p: Padding) -> i64 {
    match p {
        Padding::Same => 0,
        Padding::Valid => 1,
        Padding::Other(v) => v.into(),
    }
}

/// Loads and walks with tessera.
fn tessera_walk(bytes: &[u8]) -> u64 {
    let model = Model::load(bytes).expect("tessera loads the fixture");
    let mut s = Sum::new(bytes);
    for sg in model.subgraphs().iter() {
        for i in sg.inputs().raw().iter().chain(sg.outputs().raw().iter()) {
            s.int(i.into());
        }
        for t in sg.tensors().iter() {
            for d in t.shape().iter() {
                s.int(d.into());
            }
            s.int(t.tensor_type() as i64);
            s.int(t.buffer_index() as i64);
            if let Some(data) = t.data() {
                s.slice(data);
            }
            if let Some(q) = t.quantization() {
                for x in q.scale().iter() {
                    s.add(x.to_bits().into());
                }
                for z in q.zero_point().iter() {
                    s.int(z);
                }
                s.int(q.quantized_dimension() as i64);
            }
            s.slice(t.name().as_bytes());
        }
        for op in sg.operators().iter() {
            s.int(op.code().builtin_code().into());
            for i in op.inputs().raw().iter().chain(op.outputs().raw().iter()) {
                s.int(i.into());
            }
            s.int(op.options_type().into());
            if op.options_type() == 0 {
                continue;
            }
            match op.options() {
                BuiltinOptions::Conv2D(o) => {
                    for v in [
                        padding(o.padding),
                        o.stride_w.into(),
                        o.stride_h.into(),
                        activation(o.activation),
                        o.dilation_w.into(),
                        o.dilation_h.into(),
                    ] {
                        s.int(v);
                    }
                }
                BuiltinOptions::DepthwiseConv2D(o) => {
                    for v in [
                        padding(o.padding),
                        o.stride_w.into(),
                        o.stride_h.into(),
                        o.depth_multiplier.into(),
                        activation(o.activation),
                        o.dilation_w.into(),
                        o.dilation_h.into(),
                    ] {
                        s.int(v);
                    }
                }
                BuiltinOptions::Pool2D(o) => {
                    for v in [
                        padding(o.padding),
                        o.stride_w.into(),
                        o.stride_h.into(),
                        o.filter_width.into(),
                        o.filter_height.into(),
                        activation(o.activation),
                    ] {
                        s.int(v);
                    }
                }
                BuiltinOptions::FullyConnected(o) => {
                    for v in [
                        activation(o.activation),
                        o.weights_format.into(),
                        o.keep_num_dims.into(),
                        o.asymmetric_quantize_inputs.into(),
                    ] {
                        s.int(v);
                    }
                }
                BuiltinOptions::Softmax(o) => s.add(o.beta.to_bits().into()),
                BuiltinOptions::Concatenation(o) => {
                    s.int(o.axis.into());
                    s.int(activation(o.activation));
                }
                BuiltinOptions::Add(AddOptions { activation: a, .. })
                | BuiltinOptions::Sub(SubOptions { activation: a, .. })
                | BuiltinOptions::Mul(MulOptions { activation: a })
                | BuiltinOptions::Div(DivOptions { activation: a }) => s.int(activation(a)),
                BuiltinOptions::Reshape(o) => {
                    for d in o.new_shape.iter() {
                        s.int(d.into());
                    }
                }
                BuiltinOptions::Gather(o) => {
                    s.int(o.axis.into());
                    s.int(o.batch_dims.into());
                }
                BuiltinOptions::Reducer(o) => s.int(o.keep_dims.into()),
                _ => {}
            }
        }
    }
    s.h
}

/// Loads (verified) and walks with the `flatbuffers` crate and the generated code.
fn flatbuffers_walk(bytes: &[u8], opts: &flatbuffers::VerifierOptions) -> u64 {
    let model =
        flatbuffers::root_with_opts::<fb::Model>(opts, bytes).expect("flatbuffers verifies it");
    let mut s = Sum::new(bytes);
    let buffers = model.buffers();
    let codes = model.operator_codes();
    let Some(subgraphs) = model.subgraphs() else {
        return s.h;
    };
    for sg in subgraphs.iter() {
        for i in sg.inputs().into_iter().flatten() {
            s.int(i.into());
        }
        for i in sg.outputs().into_iter().flatten() {
            s.int(i.into());
        }
        for t in sg.tensors().into_iter().flatten() {
            for d in t.shape().into_iter().flatten() {
                s.int(d.into());
            }
            s.int(t.type_().0.into());
            s.int(t.buffer().into());
            let data = buffers
                .and_then(|b| b.get(t.buffer() as usize).data())
                .map(|d| d.bytes())
                .filter(|d| !d.is_empty());
            if let Some(data) = data {
                s.slice(data);
            }
            if let Some(q) = t.quantization() {
                for x in q.scale().into_iter().flatten() {
                    s.add(x.to_bits().into());
                }
                for z in q.zero_point().into_iter().flatten() {
                    s.int(z);
                }
                s.int(q.quantized_dimension().into());
            }
            s.slice(t.name().unwrap_or("").as_bytes());
        }
        for op in sg.operators().into_iter().flatten() {
            let code = codes.map_or(0, |c| {
                let c = c.get(op.opcode_index() as usize);
                i32::from(c.deprecated_builtin_code()).max(c.builtin_code().0)
            });
            s.int(code.into());
            for i in op.inputs().into_iter().flatten() {
                s.int(i.into());
            }
            for i in op.outputs().into_iter().flatten() {
                s.int(i.into());
            }
            let ty = op.builtin_options_type();
            s.int(ty.0.into());
            match ty {
                fb::BuiltinOptions::Conv2DOptions => {
                    if let Some(o) = op.builtin_options_as_conv_2_doptions() {
                        for v in [
                            o.padding().0.into(),
                            o.stride_w().into(),
                            o.stride_h().into(),
                            o.fused_activation_function().0.into(),
                            o.dilation_w_factor().into(),
                            o.dilation_h_factor().into(),
                        ] {
                            s.int(v);
                        }
                    }
                }
                fb::BuiltinOptions::DepthwiseConv2DOptions => {
                    if let Some(o) = op.builtin_options_as_depthwise_conv_2_doptions() {
                        for v in [
                            o.padding().0.into(),
                            o.stride_w().into(),
                            o.stride_h().into(),
                            o.depth_multiplier().into(),
                            o.fused_activation_function().0.into(),
                            o.dilation_w_factor().into(),
                            o.dilation_h_factor().into(),
                        ] {
                            s.int(v);
                        }
                    }
                }
                fb::BuiltinOptions::Pool2DOptions => {
                    if let Some(o) = op.builtin_options_as_pool_2_doptions() {
                        for v in [
                            o.padding().0.into(),
                            o.stride_w().into(),
                            o.stride_h().into(),
                            o.filter_width().into(),
                            o.filter_height().into(),
                            o.fused_activation_function().0.into(),
                        ] {
                            s.int(v);
                        }
                    }
                }
                fb::BuiltinOptions::FullyConnectedOptions => {
                    if let Some(o) = op.builtin_options_as_fully_connected_options() {
                        for v in [
                            o.fused_activation_function().0.into(),
                            o.weights_format().0.into(),
                            o.keep_num_dims().into(),
                            o.asymmetric_quantize_inputs().into(),
                        ] {
                            s.int(v);
                        }
                    }
                }
                fb::BuiltinOptions::SoftmaxOptions => {
                    if let Some(o) = op.builtin_options_as_softmax_options() {
                        s.add(o.beta().to_bits().into());
                    }
                }
                fb::BuiltinOptions::ConcatenationOptions => {
                    if let Some(o) = op.builtin_options_as_concatenation_options() {
                        s.int(o.axis().into());
                        s.int(o.fused_activation_function().0.into());
                    }
                }
                fb::BuiltinOptions::AddOptions => {
                    if let Some(o) = op.builtin_options_as_add_options() {
                        s.int(o.fused_activation_function().0.into());
                    }
                }
                fb::BuiltinOptions::SubOptions => {
                    if let Some(o) = op.builtin_options_as_sub_options() {
                        s.int(o.fused_activation_function().0.into());
                    }
                }
                fb::BuiltinOptions::MulOptions => {
                    if let Some(o) = op.builtin_options_as_mul_options() {
                        s.int(o.fused_activation_function().0.into());
                    }
                }
                fb::BuiltinOptions::DivOptions => {
                    if let Some(o) = op.builtin_options_as_div_options() {
                        s.int(o.fused_activation_function().0.into());
                    }
                }
                fb::BuiltinOptions::ReshapeOptions => {
                    if let Some(o) = op.builtin_options_as_reshape_options() {
                        for d in o.new_shape().into_iter().flatten() {
                            s.int(d.into());
                        }
                    }
                }
                fb::BuiltinOptions::GatherOptions => {
                    if let Some(o) = op.builtin_options_as_gather_options() {
                        s.int(o.axis().into());
                        s.int(o.batch_dims().into());
                    }
                }
                fb::BuiltinOptions::ReducerOptions => {
                    if let Some(o) = op.builtin_options_as_reducer_options() {
                        s.int(o.keep_dims().into());
                    }
                }
                _ => {}
            }
        }
    }
    s.h
}

fn load(c: &mut Criterion) {
    let opts = flatbuffers::VerifierOptions::default();
    for name in FIXTURES {
        let (buf, at, len) = aligned(name);
        let bytes = &buf[at..at + len];
        assert_eq!(
            tessera_walk(bytes),
            flatbuffers_walk(bytes, &opts),
            "{name}: the two walks read different things"
        );
        let mut g = c.benchmark_group(format!("model_load/{name}"));
        g.measurement_time(Duration::from_secs(2));
        g.warm_up_time(Duration::from_millis(500));
        g.bench_function("tessera", |b| b.iter(|| tessera_walk(black_box(bytes))));
        g.bench_function("flatbuffers", |b| {
            b.iter(|| flatbuffers_walk(black_box(bytes), &opts))
        });
        g.finish();
    }
}

criterion_group!(benches, load);
criterion_main!(benches);
