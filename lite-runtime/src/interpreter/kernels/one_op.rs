//! One-operator models for end-to-end kernel tests: written with the loader tests' flatbuffer
//! builder, set up and run by the interpreter with every kernel registered.

use crate::model::tests::builder;

pub use builder::F;
use builder::{Obj, T, bytes, finish, ints, string, tables};

use crate::interpreter::{AllOps, ErrorKind, Interpreter, InterpreterError, KernelError, Options};
use crate::model::Model;

// Schema slots (tflite's schema.fbs field order).
const MODEL_VERSION: usize = 0;
const MODEL_OPCODES: usize = 1;
const MODEL_SUBGRAPHS: usize = 2;
const MODEL_BUFFERS: usize = 4;
const SG_TENSORS: usize = 0;
const SG_INPUTS: usize = 1;
const SG_OUTPUTS: usize = 2;
const SG_OPERATORS: usize = 3;
const SG_NAME: usize = 4;
const TENSOR_SHAPE: usize = 0;
const TENSOR_TYPE: usize = 1;
const TENSOR_BUFFER: usize = 2;
const TENSOR_NAME: usize = 3;
const OP_OPCODE: usize = 0;
const OP_INPUTS: usize = 1;
const OP_OUTPUTS: usize = 2;
const OP_OPTIONS_TYPE: usize = 3;
const OP_OPTIONS: usize = 4;
const CODE_DEPRECATED: usize = 0;
const CODE_VERSION: usize = 2;
const CODE_BUILTIN: usize = 3;
const BUFFER_DATA: usize = 0;

/// Tensor type codes.
pub const F32: u8 = 0;
pub const I32: u8 = 2;
pub const U8: u8 = 3;
pub const I64: u8 = 4;
pub const BOOL: u8 = 6;
pub const I16: u8 = 7;
pub const I8: u8 = 9;

/// A tensor of the model: type, shape, constant data.
pub struct Tensor {
    pub ty: u8,
    pub shape: Vec<i32>,
    pub data: Option<Vec<u8>>,
}

/// A non-constant tensor.
pub fn var(ty: u8, shape: &[i32]) -> Tensor {
    Tensor {
        ty,
        shape: shape.to_vec(),
        data: None,
    }
}

/// An INT32 constant.
pub fn const_i32(shape: &[i32], v: &[i32]) -> Tensor {
    Tensor {
        ty: I32,
        shape: shape.to_vec(),
        data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    }
}

/// An INT64 constant.
pub fn const_i64(shape: &[i32], v: &[i64]) -> Tensor {
    Tensor {
        ty: I64,
        shape: shape.to_vec(),
        data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    }
}

/// An options table: `(union type id, fields as (slot, value))`.
pub type Opts = Option<(u8, Vec<(usize, F)>)>;

/// The model file of one operator `code` over `tensors`; tensors `0..inputs` are its inputs
/// (the non-constant ones are the graph's inputs, in order), the rest its outputs.
pub fn model(code: i32, options: Opts, tensors: &[Tensor], inputs: usize) -> Vec<u8> {
    let mut buffers = vec![T::new()];
    let mut ts = Vec::new();
    for (i, t) in tensors.iter().enumerate() {
        let b = buffers.len() as u32;
        buffers.push(match &t.data {
            Some(d) => T::new().obj(BUFFER_DATA, bytes(d)),
            None => T::new(),
        });
        ts.push(
            T::new()
                .obj(TENSOR_SHAPE, ints(&t.shape))
                .u8(TENSOR_TYPE, t.ty)
                .u32(TENSOR_BUFFER, b)
                .obj(TENSOR_NAME, string(&format!("t{i}"))),
        );
    }
    let all: Vec<i32> = (0..tensors.len() as i32).collect();
    let (op_in, op_out) = all.split_at(inputs);
    let graph_in: Vec<i32> = op_in
        .iter()
        .copied()
        .filter(|&i| tensors[i as usize].data.is_none())
        .collect();
    let mut op = T::new()
        .u32(OP_OPCODE, 0)
        .obj(OP_INPUTS, ints(op_in))
        .obj(OP_OUTPUTS, ints(op_out));
    if let Some((ty, fields)) = options {
        let mut table = T::new();
        for (slot, f) in fields {
            table = table.set(slot, f);
        }
        op = op.u8(OP_OPTIONS_TYPE, ty).table(OP_OPTIONS, table);
    }
    let subgraph = T::new()
        .obj(SG_TENSORS, tables(ts))
        .obj(SG_INPUTS, ints(&graph_in))
        .obj(SG_OUTPUTS, ints(op_out))
        .obj(SG_OPERATORS, tables(vec![op]))
        .obj(SG_NAME, string("main"));
    let opcode = T::new()
        .u8(CODE_DEPRECATED, code.min(127) as u8)
        .i32(CODE_BUILTIN, code)
        .i32(CODE_VERSION, 1);
    let root = T::new()
        .u32(MODEL_VERSION, 3)
        .obj(MODEL_OPCODES, tables(vec![opcode]))
        .obj(MODEL_SUBGRAPHS, Obj::Offsets(vec![Obj::Table(subgraph)]))
        .obj(MODEL_BUFFERS, tables(buffers));
    finish(&root, b"TFL3")
}

/// Sets the model up, feeds `feeds` (native bytes) to its inputs, runs it, and returns its
/// outputs' bytes; the first error of setup or invoke otherwise.
pub fn run(file: &[u8], feeds: &[&[u8]]) -> Result<Vec<Vec<u8>>, InterpreterError> {
    let model = Model::load(file).expect("the test model loads");
    let options = Options::default();
    let needed = Interpreter::required(&model, &AllOps, &options)?;
    let mut arena = vec![0u8; needed];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options)?;
    for (k, feed) in feeds.iter().enumerate() {
        it.input_bytes_mut(k)?.copy_from_slice(feed);
    }
    it.invoke()?;
    (0..it.output_count())
        .map(|j| it.output_bytes(j).map(<[u8]>::to_vec))
        .collect()
}

/// Native bytes of values.
pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Native bytes of values.
pub fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Native bytes of values.
pub fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Values from native bytes.
pub fn to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Values from native bytes.
pub fn to_i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Values from native bytes.
pub fn to_i64s(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8)
        .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// The kernel error inside an interpreter error (a test expecting one fails otherwise).
pub fn kernel_error(e: InterpreterError) -> KernelError {
    match e.kind {
        ErrorKind::Kernel(k) => k,
        other => panic!("not a kernel error: {other:?}"),
    }
}

/// The kernel error setting up and running `file` with no inputs fed gives.
pub fn setup_error(file: &[u8]) -> KernelError {
    kernel_error(run(file, &[]).expect_err("the model is refused"))
}

/// A float32 unary op `code` over `x` (as `[len / 3, 3]`): its output.
pub fn unary_f32(code: i32, opts: Opts, x: &[f32]) -> Vec<f32> {
    let n = x.len() as i32;
    let file = model(
        code,
        opts,
        &[var(F32, &[n / 3, 3]), var(F32, &[n / 3, 3])],
        1,
    );
    to_f32s(&run(&file, &[&f32s(x)]).unwrap()[0])
}
