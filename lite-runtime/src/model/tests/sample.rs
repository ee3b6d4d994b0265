//! A small valid model in pieces a test can change before writing it out: FULLY_CONNECTED
//! (constant weights and bias, RELU) then ADD of its output with itself, and a signature.

use super::builder::{F, Obj, T, bytes, finish, ints, string, tables};
use crate::model::buffer::slot as buffer_slot;
use crate::model::operator::{code_slot, slot as op_slot};
use crate::model::signature::{map_slot, slot as sig_slot};
use crate::model::subgraph::slot as sg_slot;
use crate::model::tensor::slot as tensor_slot;
use crate::model::verify::slot as model_slot;

/// The model's parts.
pub struct Spec {
    pub version: u32,
    pub identifier: [u8; 4],
    pub opcodes: Vec<T>,
    pub buffers: Vec<T>,
    pub tensors: Vec<T>,
    pub operators: Vec<T>,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    pub signatures: Vec<T>,
    /// Extra root fields (slot, value).
    pub root: Vec<(usize, F)>,
}

pub fn opcode(code: i32) -> T {
    T::new()
        .u8(code_slot::DEPRECATED_BUILTIN_CODE, code.min(127) as u8)
        .i32(code_slot::BUILTIN_CODE, code)
        .i32(code_slot::VERSION, 1)
}

/// A CUSTOM operator code named `name`.
pub fn custom_opcode(name: &str) -> T {
    opcode(32).obj(code_slot::CUSTOM_CODE, string(name))
}

pub fn buffer(data: &[u8]) -> T {
    T::new().obj(buffer_slot::DATA, bytes(data))
}

pub fn tensor(name: &str, ty: u8, shape: &[i32], buffer: u32) -> T {
    T::new()
        .obj(tensor_slot::SHAPE, ints(shape))
        .u8(tensor_slot::TYPE, ty)
        .u32(tensor_slot::BUFFER, buffer)
        .obj(tensor_slot::NAME, string(name))
}

pub fn operator(opcode: u32, inputs: &[i32], outputs: &[i32]) -> T {
    T::new()
        .u32(op_slot::OPCODE_INDEX, opcode)
        .obj(op_slot::INPUTS, ints(inputs))
        .obj(op_slot::OUTPUTS, ints(outputs))
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Spec {
    /// FULLY_CONNECTED(x[1,3], w[2,3], b[2]) -> y[1,2] with RELU; ADD(y, y) -> z[1,2].
    pub fn new() -> Self {
        let weights = f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let bias = f32_bytes(&[0.5, -0.5]);
        Self {
            version: 3,
            identifier: *b"TFL3",
            opcodes: vec![opcode(9), opcode(0)],
            buffers: vec![
                T::new(),
                buffer(&weights),
                buffer(&bias),
                T::new(),
                T::new(),
            ],
            tensors: vec![
                tensor("x", 0, &[1, 3], 0),
                tensor("w", 0, &[2, 3], 1),
                tensor("b", 0, &[2], 2),
                tensor("y", 0, &[1, 2], 3),
                tensor("z", 0, &[1, 2], 4),
            ],
            operators: vec![
                operator(0, &[0, 1, 2], &[3])
                    .u8(op_slot::OPTIONS_TYPE, 8)
                    .table(op_slot::OPTIONS, T::new().u8(0, 1)),
                operator(1, &[3, 3], &[4])
                    .u8(op_slot::OPTIONS_TYPE, 11)
                    .table(op_slot::OPTIONS, T::new().u8(0, 0)),
            ],
            inputs: vec![0],
            outputs: vec![4],
            signatures: vec![
                T::new()
                    .obj(
                        sig_slot::INPUTS,
                        tables(vec![
                            T::new()
                                .obj(map_slot::NAME, string("x"))
                                .u32(map_slot::TENSOR_INDEX, 0),
                        ]),
                    )
                    .obj(
                        sig_slot::OUTPUTS,
                        tables(vec![
                            T::new()
                                .obj(map_slot::NAME, string("z"))
                                .u32(map_slot::TENSOR_INDEX, 4),
                        ]),
                    )
                    .obj(sig_slot::KEY, string("serving_default"))
                    .u32(sig_slot::SUBGRAPH_INDEX, 0),
            ],
            root: vec![(model_slot::DESCRIPTION, F::Off(string("sample")))],
        }
    }

    /// The root table.
    pub fn root(&self) -> T {
        let subgraph = T::new()
            .obj(sg_slot::TENSORS, tables(self.tensors.clone()))
            .obj(sg_slot::INPUTS, ints(&self.inputs))
            .obj(sg_slot::OUTPUTS, ints(&self.outputs))
            .obj(sg_slot::OPERATORS, tables(self.operators.clone()))
            .obj(sg_slot::NAME, string("main"));
        let mut root = T::new()
            .u32(model_slot::VERSION, self.version)
            .obj(model_slot::OPERATOR_CODES, tables(self.opcodes.clone()))
            .obj(
                model_slot::SUBGRAPHS,
                Obj::Offsets(vec![Obj::Table(subgraph)]),
            )
            .obj(model_slot::BUFFERS, tables(self.buffers.clone()))
            .obj(model_slot::SIGNATURE_DEFS, tables(self.signatures.clone()));
        for (slot, f) in &self.root {
            root.put(*slot, f.clone());
        }
        root
    }

    /// The file.
    pub fn build(&self) -> Vec<u8> {
        finish(&self.root(), &self.identifier)
    }
}

/// The sample model's bytes.
pub fn sample() -> Vec<u8> {
    Spec::new().build()
}
