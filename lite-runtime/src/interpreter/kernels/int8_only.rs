//! The `_INT8` registrations against the full kernels: on every int8 fixture whose ops they
//! cover, a resolver with them in place of the full kernels gives the same outputs bit for
//! bit (and so TensorFlow Lite's reference kernels', which the conformance tests hold the
//! full kernels to); on float32 and 16x8 models they stop set-up at the first operator they
//! would have run, naming it.

use std::vec::Vec;

use super::base::check::NOT_INT8;
use super::fixtures::{npy_data, read};
use super::*;
use crate::interpreter::{AllOps, ErrorKind, Interpreter, MutableOpResolver, OpResolver, Options};
use crate::model::{BuiltinOperator, Model};

/// Every `_INT8` kernel.
const INT8: [&Kernel; 6] = [
    &CONV_2D_INT8,
    &DEPTHWISE_CONV_2D_INT8,
    &AVERAGE_POOL_2D_INT8,
    &MAX_POOL_2D_INT8,
    &FULLY_CONNECTED_INT8,
    &SOFTMAX_INT8,
];

/// Every kernel, the `_INT8` ones in place of the full ones for their ops.
fn int8_resolver() -> MutableOpResolver<256> {
    let mut ops = MutableOpResolver::new();
    for k in ALL.iter().chain(INT8.iter()) {
        ops.add(k).expect("256 slots");
    }
    ops
}

/// The outputs of `name` on its fixture input through `ops`.
fn outputs(name: &str, ops: &dyn OpResolver) -> Vec<Vec<u8>> {
    let bytes = read(&std::format!("{name}.tflite"));
    let model = Model::load(&bytes).unwrap();
    let options = Options::default();
    let mut arena = std::vec![0u8; Interpreter::required(&model, ops, &options).unwrap()];
    let mut it = Interpreter::new(model, ops, &mut arena, &options).unwrap();
    let input = read(&std::format!("{name}.in0.npy"));
    it.input_bytes_mut(0)
        .unwrap()
        .copy_from_slice(npy_data(&input));
    it.invoke().unwrap();
    (0..it.output_count())
        .map(|j| it.output_bytes(j).unwrap().to_vec())
        .collect()
}

#[test]
#[cfg_attr(miri, ignore)] // whole models; the kernels' own tests run under Miri
fn int8_registrations_equal_the_full_kernels_bit_for_bit() {
    let int8 = int8_resolver();
    for name in [
        "kws_int8",
        "kws_int8_per_tensor",
        "conv_variants_int8",
        "int8_dense",
        "int8_float_io",
        "image_int8",
    ] {
        let full = outputs(name, &AllOps);
        assert!(!full.is_empty());
        assert_eq!(outputs(name, &int8), full, "{name}");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn int8_registrations_refuse_other_types_at_set_up() {
    let int8 = int8_resolver();
    for (name, op) in [
        ("kws_float", BuiltinOperator::Conv2D),
        ("kws_int16", BuiltinOperator::Conv2D),
        ("conv_variants_float", BuiltinOperator::Conv2D),
    ] {
        let bytes = read(&std::format!("{name}.tflite"));
        let model = Model::load(&bytes).unwrap();
        let e = Interpreter::required(&model, &int8, &Options::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Kernel(NOT_INT8), "{name}: {e}");
        assert_eq!(e.op, Some(op), "{name}: {e}");
        assert!(e.operator.is_some(), "{name}: {e}");
        assert!(std::format!("{e}").contains("int8 only"), "{e}");
    }
}
