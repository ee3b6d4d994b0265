//! Test-only: one-operator models whose tensors may carry quantization parameters (`one_op`
//! writes none), set up and run through `one_op::run`.

use super::super::one_op::Opts;
use crate::model::tests::builder::{Obj, T, bytes, f32s, finish, i64s, ints, string, tables};

/// A tensor of the model: type code, shape, constant data, and `(scale, zero point)` if
/// quantized.
pub struct QTensor {
    pub ty: u8,
    pub shape: Vec<i32>,
    pub data: Option<Vec<u8>>,
    pub quant: Option<(f32, i64)>,
}

/// A non-constant tensor, quantized with `scale` and `zero_point`.
pub fn q(ty: u8, shape: &[i32], scale: f32, zero_point: i64) -> QTensor {
    QTensor {
        ty,
        shape: shape.to_vec(),
        data: None,
        quant: Some((scale, zero_point)),
    }
}

/// A non-constant tensor without quantization.
pub fn plain(ty: u8, shape: &[i32]) -> QTensor {
    QTensor {
        ty,
        shape: shape.to_vec(),
        data: None,
        quant: None,
    }
}

/// `t` as a constant holding `data` (little-endian bytes).
pub fn constant(mut t: QTensor, data: Vec<u8>) -> QTensor {
    t.data = Some(data);
    t
}

/// The model file of one operator `code` over `tensors`; tensors `0..inputs` are its inputs
/// (the non-constant ones are the graph's inputs, in order), the rest its outputs.
pub fn model_q(code: i32, options: Opts, tensors: &[QTensor], inputs: usize) -> Vec<u8> {
    let mut buffers = vec![T::new()];
    let mut ts = Vec::new();
    for (i, t) in tensors.iter().enumerate() {
        let b = buffers.len() as u32;
        buffers.push(match &t.data {
            Some(d) => T::new().obj(0, bytes(d)),
            None => T::new(),
        });
        let mut tensor = T::new()
            .obj(0, ints(&t.shape))
            .u8(1, t.ty)
            .u32(2, b)
            .obj(3, string(&format!("t{i}")));
        if let Some((scale, zp)) = t.quant {
            // QuantizationParameters: scale (slot 2), zero_point (slot 3).
            tensor = tensor.table(4, T::new().obj(2, f32s(&[scale])).obj(3, i64s(&[zp])));
        }
        ts.push(tensor);
    }
    let all: Vec<i32> = (0..tensors.len() as i32).collect();
    let (op_in, op_out) = all.split_at(inputs);
    let graph_in: Vec<i32> = op_in
        .iter()
        .copied()
        .filter(|&i| tensors[i as usize].data.is_none())
        .collect();
    let mut op = T::new().u32(0, 0).obj(1, ints(op_in)).obj(2, ints(op_out));
    if let Some((ty, fields)) = options {
        let mut table = T::new();
        for (slot, f) in fields {
            table = table.set(slot, f);
        }
        op = op.u8(3, ty).table(4, table);
    }
    let subgraph = T::new()
        .obj(0, tables(ts))
        .obj(1, ints(&graph_in))
        .obj(2, ints(op_out))
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
