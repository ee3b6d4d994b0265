//! Models written by the builder read back through the views as written.

use super::builder::{T, bytes, f32s, i64s, ints, tables, u16s};
use super::sample::{Spec, buffer, f32_bytes, sample, tensor};
use crate::model::quantization::slot as q_slot;
use crate::model::sparsity::{dim_slot, slot as sp_slot};
use crate::model::tensor::slot as tensor_slot;
use crate::model::{
    Activation, BuiltinOperator, BuiltinOptions, DimensionFormat, Model, Op, TensorType,
};

#[test]
fn sample_reads_back() {
    let bytes = sample();
    let model = Model::load(&bytes).unwrap();
    assert_eq!(model.version(), 3);
    assert_eq!(model.description(), Some("sample"));
    assert_eq!(model.subgraphs().len(), 1);
    let sg = model.subgraph(0).unwrap();
    assert_eq!(sg.name(), Some("main"));
    assert_eq!(sg.tensors().len(), 5);
    assert_eq!(sg.inputs().iter().collect::<Vec<_>>(), [Some(0)]);
    assert_eq!(sg.outputs().iter().collect::<Vec<_>>(), [Some(4)]);
    let w = sg.tensor(1).unwrap();
    assert_eq!(w.name(), "w");
    assert_eq!(w.shape(), [2, 3]);
    assert_eq!(w.tensor_type(), TensorType::Float32);
    assert_eq!(w.element_count(), 6);
    assert_eq!(
        w.data(),
        Some(&f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])[..])
    );
    assert!(sg.tensor(0).unwrap().data().is_none());
    assert_eq!(sg.tensor_by_name("z").unwrap().index(), 4);
    let ops: Vec<_> = sg.operators().iter().map(|o| o.op()).collect();
    assert_eq!(
        ops,
        [
            Op::Builtin(BuiltinOperator::FullyConnected),
            Op::Builtin(BuiltinOperator::Add)
        ]
    );
    let fc = sg.operators().get(0).unwrap();
    assert_eq!(
        fc.inputs().iter().collect::<Vec<_>>(),
        [Some(0), Some(1), Some(2)]
    );
    match fc.options() {
        BuiltinOptions::FullyConnected(o) => {
            assert_eq!(o.activation, Activation::Relu);
            assert!(!o.keep_num_dims);
        }
        other => panic!("{other:?}"),
    }
    let sig = model.signature("serving_default").unwrap();
    assert_eq!(sig.subgraph_index(), 0);
    let input = sig.inputs().get(0).unwrap();
    assert_eq!((input.name(), input.tensor_index()), ("x", 0));
    let output = sig.outputs().get(0).unwrap();
    assert_eq!((output.name(), output.tensor_index()), ("z", 4));
}

#[test]
fn deprecated_code_and_custom_ops_resolve() {
    let mut spec = Spec::new();
    // An old file: the op only in the deprecated byte, builtin_code left at 0 (ADD).
    spec.opcodes[0] = T::new().u8(0, 9);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let op = model.subgraph(0).unwrap().operators().get(0).unwrap().op();
    assert_eq!(op, Op::Builtin(BuiltinOperator::FullyConnected));

    let mut spec = Spec::new();
    spec.opcodes[1] = T::new()
        .u8(0, 32)
        .obj(1, super::builder::string("MyOp"))
        .i32(3, 32);
    spec.operators[1].remove(3);
    spec.operators[1].remove(4);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let op = model.subgraph(0).unwrap().operators().get(1).unwrap().op();
    assert_eq!(op, Op::Custom("MyOp"));
}

#[test]
fn absent_options_read_as_schema_defaults() {
    let mut spec = Spec::new();
    spec.operators[0].remove(3);
    spec.operators[0].remove(4);
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let fc = model.subgraph(0).unwrap().operators().get(0).unwrap();
    assert_eq!(fc.options_type(), 0);
    assert!(matches!(
        fc.options(),
        BuiltinOptions::FullyConnected(o) if o.activation == Activation::None
    ));
}

#[test]
fn quantization_per_tensor_and_per_channel() {
    let mut spec = Spec::new();
    spec.tensors[0].put(
        tensor_slot::QUANTIZATION,
        super::builder::F::Off(super::builder::Obj::Table(
            T::new()
                .obj(q_slot::SCALE, f32s(&[0.5]))
                .obj(q_slot::ZERO_POINT, i64s(&[-3])),
        )),
    );
    spec.tensors[1].put(
        tensor_slot::QUANTIZATION,
        super::builder::F::Off(super::builder::Obj::Table(
            T::new()
                .obj(q_slot::SCALE, f32s(&[0.25, 0.125]))
                .obj(q_slot::ZERO_POINT, i64s(&[0, 1]))
                .i32(q_slot::QUANTIZED_DIMENSION, 0),
        )),
    );
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let sg = model.subgraph(0).unwrap();
    let q = sg.tensor(0).unwrap().quantization().unwrap();
    assert!(!q.is_per_channel());
    assert_eq!(q.scale(), [0.5]);
    assert_eq!(q.zero_point(), [-3]);
    let q = sg.tensor(1).unwrap().quantization().unwrap();
    assert!(q.is_per_channel());
    assert_eq!(q.scale(), [0.25, 0.125]);
    assert_eq!(q.zero_point().get(1), Some(1));
    assert_eq!(q.quantized_dimension(), 0);
    assert!(sg.tensor(2).unwrap().quantization().is_none());
}

/// A 2x4 weight matrix stored CSR: row 0 has columns 1 and 3, row 1 has column 0.
pub fn csr_weights(indices: super::builder::Obj, index_type: u8) -> T {
    let dense = T::new()
        .u8(dim_slot::FORMAT, 0)
        .i32(dim_slot::DENSE_SIZE, 2);
    let sparse = T::new()
        .u8(dim_slot::FORMAT, 1)
        .u8(dim_slot::SEGMENTS_TYPE, 1)
        .table(
            dim_slot::SEGMENTS_TYPE + 1,
            T::new().obj(0, ints(&[0, 2, 3])),
        )
        .u8(dim_slot::INDICES_TYPE, index_type)
        .table(dim_slot::INDICES_TYPE + 1, T::new().obj(0, indices));
    tensor("w", 0, &[2, 4], 1).table(
        tensor_slot::SPARSITY,
        T::new()
            .obj(sp_slot::TRAVERSAL_ORDER, ints(&[0, 1]))
            .obj(sp_slot::DIM_METADATA, tables(vec![dense, sparse])),
    )
}

#[test]
fn sparse_weights_in_every_index_width() {
    for (indices, ty) in [
        (ints(&[1, 3, 0]), 1),
        (u16s(&[1, 3, 0]), 2),
        (bytes(&[1, 3, 0]), 3),
    ] {
        let mut spec = Spec::new();
        spec.tensors[1] = csr_weights(indices, ty).obj(tensor_slot::SHAPE, ints(&[2, 4]));
        spec.tensors[0] = tensor("x", 0, &[1, 4], 0);
        spec.buffers[1] = buffer(&f32_bytes(&[1.0, 2.0, 3.0]));
        let bytes = spec.build();
        let model = Model::load(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let w = model.subgraph(0).unwrap().tensor(1).unwrap();
        let s = w.sparsity().unwrap();
        assert_eq!(s.traversal_order(), [0, 1]);
        assert!(s.block_map().is_empty());
        let dims = s.dim_metadata();
        assert!(matches!(
            dims.get(0).unwrap().format(),
            DimensionFormat::Dense { size: 2 }
        ));
        match dims.get(1).unwrap().format() {
            DimensionFormat::SparseCsr { segments, indices } => {
                assert_eq!(segments.iter().collect::<Vec<_>>(), [0, 2, 3]);
                assert_eq!(indices.iter().collect::<Vec<_>>(), [1, 3, 0]);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn string_constants_and_external_buffers() {
    let mut spec = Spec::new();
    let mut table = vec![0u8; 64];
    let n = tessera_core::strings::encode_tflite(["ab", "", "cde"], &mut table).unwrap();
    table.truncate(n);
    spec.buffers.push(buffer(&table));
    spec.tensors.push(tensor("words", 5, &[3], 5));
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let words = model.subgraph(0).unwrap().tensor(5).unwrap();
    let strings = words.strings().unwrap();
    assert!(strings.iter().eq([&b"ab"[..], b"", b"cde"]));

    // Bias data moved out of the flatbuffer, after its end (offset from the file start).
    let mut spec = Spec::new();
    let placeholder = spec.build().len() as u64 + 64;
    spec.buffers[2] = T::new().u64(1, placeholder).u64(2, 8);
    let mut bytes = spec.build();
    let offset = bytes.len().next_multiple_of(16) as u64;
    spec.buffers[2] = T::new().u64(1, offset).u64(2, 8);
    bytes = spec.build();
    bytes.resize(offset as usize, 0);
    bytes.extend_from_slice(&f32_bytes(&[0.5, -0.5]));
    let model = Model::load(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let b = model.subgraph(0).unwrap().tensor(2).unwrap();
    assert_eq!(b.data(), Some(&f32_bytes(&[0.5, -0.5])[..]));
    assert!(model.buffers().get(2).unwrap().is_external());
}

#[test]
fn optional_inputs_read_as_none() {
    let mut spec = Spec::new();
    spec.operators[0].put(
        crate::model::operator::slot::INPUTS,
        super::builder::F::Off(ints(&[0, 1, -1])),
    );
    let bytes = spec.build();
    let model = Model::load(&bytes).unwrap();
    let fc = model.subgraph(0).unwrap().operators().get(0).unwrap();
    assert_eq!(
        fc.inputs().iter().collect::<Vec<_>>(),
        [Some(0), Some(1), None]
    );
    assert_eq!(fc.inputs().raw(), [0, 1, -1]);
}

#[test]
fn summary_names_everything_a_reader_wants() {
    let bytes = sample();
    let model = Model::load(&bytes).unwrap();
    let text = model.summary().to_string();
    for needle in [
        "schema version 3",
        "\"sample\"",
        "1 subgraphs, 2 operators, 5 tensors (2 constant), 8 parameters, 32 constant bytes",
        "\"serving_default\" (subgraph 0, 1 inputs, 1 outputs)",
        "subgraph 0 \"main\": 5 tensors, 2 operators",
        "[0] \"x\" FLOAT32 [1, 3]",
        "[4] \"z\" FLOAT32 [1, 2]",
        // Options print the fields that differ from the schema's defaults.
        "#0 FULLY_CONNECTED in [0, 1, 2] out [3] activation=RELU\n",
        // (This ADD's table leaves its flag out: the schema's true, where no table reads false.)
        "#1 ADD in [3, 3] out [4] pot_scale_int16=true\n",
    ] {
        assert!(text.contains(needle), "{needle:?} not in\n{text}");
    }
}

#[test]
fn unaligned_model_in_memory_reads_the_same() {
    // The loader reads bytes, never typed pointers: a copy at an odd address reads the same.
    let bytes = sample();
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let model = Model::load(&shifted[1..]).unwrap();
    assert_eq!(
        model.summary().to_string(),
        Model::load(&bytes).unwrap().summary().to_string()
    );
}

/// `options_for(op)`, as kernels read options, equals `options()` for every operator of
/// every fixture model whose options type is decoded, and is `None` for another op's type
/// when the operator stores its own.
#[test]
#[cfg_attr(
    miri,
    ignore = "Miri's isolation has no file system to list the fixtures from"
)]
fn options_for_the_operators_op_are_its_options() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/models");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tflite") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        // Fixtures of parts a build leaves out are the `without_parts` test's.
        let Ok(model) = Model::load(&bytes) else {
            continue;
        };
        for sg in model.subgraphs().iter() {
            for op in sg.operators().iter() {
                let Some(b) = op.builtin() else { continue };
                if crate::model::options::options_type_of(b).is_none() {
                    continue;
                }
                assert_eq!(op.options_for(b), op.options(), "{path:?} {b:?}");
                let other = if b == BuiltinOperator::Softmax {
                    BuiltinOperator::Conv2D
                } else {
                    BuiltinOperator::Softmax
                };
                if op.options_type() != 0 {
                    assert_eq!(
                        op.options_for(other),
                        BuiltinOptions::None,
                        "{path:?} {b:?}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "{checked} operators checked");
}
