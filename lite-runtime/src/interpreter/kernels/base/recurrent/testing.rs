//! Test models for the recurrent kernels: one operator whose operands may be quantized,
//! variable (state kept between invokes) or left out, with intermediates, run over several
//! invokes by the interpreter with every kernel registered.

use crate::interpreter::{AllOps, ErrorKind, Interpreter, InterpreterError, KernelError, Options};
use crate::model::Model;
use crate::model::tests::builder::{F, Obj, T, bytes, f32s, finish, i64s, ints, string, tables};

/// Tensor type codes.
pub(crate) const F32: u8 = 0;
pub(crate) const I32: u8 = 2;
pub(crate) const I16: u8 = 7;
pub(crate) const I8: u8 = 9;

/// The kernel error inside an interpreter error.
pub(crate) fn kernel_error(e: InterpreterError) -> KernelError {
    match e.kind {
        ErrorKind::Kernel(k) => k,
        other => panic!("not a kernel error: {other:?}"),
    }
}

/// An operand of a test model.
#[derive(Clone, Debug)]
pub(crate) struct Tensor {
    pub ty: u8,
    pub shape: Vec<i32>,
    pub data: Option<Vec<u8>>,
    /// One scale and zero point.
    pub quant: Option<(f32, i64)>,
    pub variable: bool,
}

impl Tensor {
    /// A graph input (or output) of `ty`.
    pub(crate) fn new(ty: u8, shape: &[i32]) -> Self {
        Self {
            ty,
            shape: shape.to_vec(),
            data: None,
            quant: None,
            variable: false,
        }
    }

    /// A float32 constant.
    pub(crate) fn f32s(shape: &[i32], v: &[f32]) -> Self {
        Self {
            data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ..Self::new(F32, shape)
        }
    }

    /// An int8 constant.
    pub(crate) fn i8s(shape: &[i32], v: &[i8]) -> Self {
        Self {
            data: Some(v.iter().map(|&x| x as u8).collect()),
            ..Self::new(I8, shape)
        }
    }

    /// An int32 constant.
    pub(crate) fn i32s(shape: &[i32], v: &[i32]) -> Self {
        Self {
            data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ..Self::new(I32, shape)
        }
    }

    /// The same, quantized.
    pub(crate) fn q(mut self, scale: f32, zero_point: i64) -> Self {
        self.quant = Some((scale, zero_point));
        self
    }

    /// The same, a variable (state) tensor.
    pub(crate) fn var(mut self) -> Self {
        self.variable = true;
        self
    }
}

/// An options field: `(slot, value)`.
pub(crate) fn float(slot: usize, v: f32) -> (usize, F) {
    (slot, F::U32(v.to_bits()))
}

/// A one-operator model: `code` with options `(union type, fields)` over `tensors`; the
/// operator reads `inputs` (-1: left out) and writes `outputs`; its non-constant,
/// non-variable inputs are the graph's inputs, in order.
pub(crate) fn model(
    code: i32,
    options: (u8, Vec<(usize, F)>),
    tensors: &[Tensor],
    inputs: &[i32],
    outputs: &[i32],
    intermediates: &[i32],
) -> Vec<u8> {
    let mut buffers = vec![T::new()];
    let mut ts = Vec::new();
    for (i, t) in tensors.iter().enumerate() {
        let b = buffers.len() as u32;
        buffers.push(match &t.data {
            Some(d) => T::new().obj(0, bytes(d)),
            None => T::new(),
        });
        let mut table = T::new()
            .obj(0, ints(&t.shape))
            .u8(1, t.ty)
            .u32(2, b)
            .obj(3, string(&format!("t{i}")));
        if let Some((s, z)) = t.quant {
            table = table.table(4, T::new().obj(2, f32s(&[s])).obj(3, i64s(&[z])));
        }
        if t.variable {
            table = table.u8(5, 1);
        }
        ts.push(table);
    }
    let graph_in: Vec<i32> = inputs
        .iter()
        .copied()
        .filter(|&i| {
            i >= 0 && {
                let t = &tensors[i as usize];
                t.data.is_none() && !t.variable
            }
        })
        .collect();
    let mut fields = T::new();
    for (slot, f) in options.1 {
        fields = fields.set(slot, f);
    }
    let mut op = T::new()
        .u32(0, 0)
        .obj(1, ints(inputs))
        .obj(2, ints(outputs))
        .u8(3, options.0)
        .table(4, fields);
    if !intermediates.is_empty() {
        op = op.obj(8, ints(intermediates));
    }
    let subgraph = T::new()
        .obj(0, tables(ts))
        .obj(1, ints(&graph_in))
        .obj(2, ints(outputs))
        .obj(3, tables(vec![op]))
        .obj(4, string("main"));
    let opcode = T::new().u8(0, code.min(127) as u8).i32(3, code).i32(2, 1);
    let root = T::new()
        .u32(0, 3)
        .obj(1, tables(vec![opcode]))
        .obj(2, Obj::Offsets(vec![Obj::Table(subgraph)]))
        .obj(4, tables(buffers));
    finish(&root, b"TFL3")
}

/// Sets `file` up and invokes it once per feed (each feed: the bytes of every graph input,
/// native order), returning every output's bytes after each invoke; then, when `reset`,
/// resets the state and runs the first feed again, appending its outputs.
pub(crate) fn run(
    file: &[u8],
    feeds: &[Vec<Vec<u8>>],
    reset: bool,
) -> Result<Vec<Vec<Vec<u8>>>, InterpreterError> {
    let model = Model::load(file).expect("the test model loads");
    let options = Options::default();
    let needed = Interpreter::required(&model, &AllOps, &options)?;
    let mut arena = vec![0u8; needed];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options)?;
    let mut outs = Vec::new();
    let once = |it: &mut Interpreter<'_, '_>, feed: &[Vec<u8>]| {
        for (k, x) in feed.iter().enumerate() {
            it.input_bytes_mut(k)?.copy_from_slice(x);
        }
        it.invoke()?;
        (0..it.output_count())
            .map(|j| it.output_bytes(j).map(<[u8]>::to_vec))
            .collect::<Result<Vec<_>, _>>()
    };
    for feed in feeds {
        outs.push(once(&mut it, feed)?);
    }
    if reset {
        it.reset_state()?;
        if let Some(first) = feeds.first() {
            outs.push(once(&mut it, first)?);
        }
    }
    Ok(outs)
}

/// The kernel error setting up `file` gives.
pub(crate) fn setup_error(file: &[u8]) -> KernelError {
    let model = Model::load(file).expect("the test model loads");
    let options = Options::default();
    match Interpreter::required(&model, &AllOps, &options) {
        Err(e) => kernel_error(e),
        Ok(n) => {
            let mut arena = vec![0u8; n];
            match Interpreter::new(model, &AllOps, &mut arena, &options) {
                Ok(_) => panic!("the model is refused"),
                Err(e) => kernel_error(e),
            }
        }
    }
}

/// Native bytes of floats.
pub(crate) fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Floats from native bytes.
pub(crate) fn to_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
