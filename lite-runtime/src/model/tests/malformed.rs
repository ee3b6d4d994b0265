//! One malformed model per class of bug TensorFlow Lite has had an advisory or fuzzing report
//! for, each rejected with the exact error kind and location.

use super::builder::{F, Obj, T, f32s, i64s, ints};
use super::sample::{Spec, buffer, f32_bytes, sample, tensor};
use super::views::csr_weights;
use crate::model::operator::slot as op_slot;
use crate::model::quantization::slot as q_slot;
use crate::model::tensor::slot as tensor_slot;
use crate::model::{ErrorKind, Location, Model, ModelError};
use tessera_core::strings::StringTensorError;

fn load_err(bytes: &[u8]) -> ModelError {
    match Model::load(bytes) {
        Ok(_) => panic!("malformed model loaded"),
        Err(e) => {
            // Every error prints without panicking and names its field.
            assert!(e.to_string().contains(e.field));
            e
        }
    }
}

fn spec_err(spec: &Spec) -> ModelError {
    load_err(&spec.build())
}

fn at_tensor(t: u32) -> Location {
    Location {
        subgraph: Some(0),
        tensor: Some(t),
        ..Location::default()
    }
}

fn at_operator(o: u32) -> Location {
    Location {
        subgraph: Some(0),
        operator: Some(o),
        ..Location::default()
    }
}

#[test]
fn root_offset_past_the_end() {
    let mut bytes = sample();
    let len = bytes.len();
    bytes[0..4].copy_from_slice(&(len as u32 + 100).to_le_bytes());
    let e = load_err(&bytes);
    assert_eq!(e.kind, ErrorKind::OutOfBounds { size: 1, len });
    assert_eq!(
        (e.field, e.offset, e.location),
        ("root offset", 0, Location::default())
    );
    bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        load_err(&bytes).kind,
        ErrorKind::OutOfBounds { size: 1, len }
    );
}

#[test]
fn every_truncation_is_rejected() {
    let bytes = sample();
    for n in 0..bytes.len() {
        let e = load_err(&bytes[..n]);
        if n < 8 {
            assert_eq!(e.kind, ErrorKind::TooShort { len: n });
        }
    }
}

#[test]
fn an_eight_byte_file() {
    let e = load_err(b"\x08\0\0\0TFL3");
    assert_eq!(e.kind, ErrorKind::OutOfBounds { size: 1, len: 8 });
    // Root at 0: the table would be its own root offset, with a vtable of size 8.
    let e = load_err(b"\0\0\0\0TFL3");
    assert_eq!((e.kind, e.field, e.offset), (ErrorKind::Vtable, "Model", 0));
    let e = load_err(b"\x08\0\0\0TFL2");
    assert_eq!(e.kind, ErrorKind::Identifier { found: *b"TFL2" });
}

#[test]
fn wrong_version() {
    let mut spec = Spec::new();
    spec.version = 2;
    assert_eq!(spec_err(&spec).kind, ErrorKind::Version { found: 2 });
}

#[test]
fn offset_plus_size_wrapping() {
    let mut spec = Spec::new();
    let offset = u64::MAX - 3;
    spec.buffers[2] = T::new().u64(1, offset).u64(2, 8);
    let e = spec_err(&spec);
    let len = spec.build().len();
    assert_eq!(
        e.kind,
        ErrorKind::ExternalBuffer {
            offset,
            size: 8,
            len
        }
    );
    assert_eq!(
        (e.field, e.location),
        (
            "Buffer.offset",
            Location {
                buffer: Some(2),
                ..Location::default()
            }
        )
    );
    // Inside u64 but past the file.
    spec.buffers[2] = T::new().u64(1, 16).u64(2, len as u64);
    assert!(matches!(
        spec_err(&spec).kind,
        ErrorKind::ExternalBuffer { .. }
    ));
}

#[test]
fn misaligned_vector_header() {
    // "Misaligned" is relative to the start of the file, as flatbuffers lays it out: a vector's
    // length word at a position that is not a multiple of 4. The bytes are still read with
    // explicit little-endian loads, so this is a format error, not a fault.
    let mut spec = Spec::new();
    spec.tensors[0].put(
        tensor_slot::SHAPE,
        F::Off(Obj::Unaligned(Box::new(ints(&[1, 3])))),
    );
    let e = spec_err(&spec);
    assert_eq!(e.kind, ErrorKind::Misaligned { align: 4 });
    assert_eq!((e.field, e.location), ("Tensor.shape", at_tensor(0)));
    assert_eq!(e.offset % 4, 1);
}

#[test]
fn minus_one_on_an_output() {
    let mut spec = Spec::new();
    spec.operators[0].put(op_slot::OUTPUTS, F::Off(ints(&[-1])));
    let e = spec_err(&spec);
    assert_eq!(
        e.kind,
        ErrorKind::Index {
            index: -1,
            count: 5
        }
    );
    assert_eq!((e.field, e.location), ("Operator.outputs", at_operator(0)));
    // And on a subgraph output, and past the end on an input.
    let mut spec = Spec::new();
    spec.outputs = vec![-1];
    assert_eq!(spec_err(&spec).field, "SubGraph.outputs");
    let mut spec = Spec::new();
    spec.operators[1].put(op_slot::INPUTS, F::Off(ints(&[3, 5])));
    let e = spec_err(&spec);
    assert_eq!(e.kind, ErrorKind::Index { index: 5, count: 5 });
    assert_eq!((e.field, e.location), ("Operator.inputs", at_operator(1)));
}

#[test]
fn buffer_index_out_of_range() {
    let mut spec = Spec::new();
    spec.tensors[1].put(tensor_slot::BUFFER, F::U32(99));
    let e = spec_err(&spec);
    assert_eq!(
        e.kind,
        ErrorKind::Index {
            index: 99,
            count: 5
        }
    );
    assert_eq!((e.field, e.location), ("Tensor.buffer", at_tensor(1)));
}

#[test]
fn negative_and_huge_dimensions() {
    let mut spec = Spec::new();
    spec.tensors[3].put(tensor_slot::SHAPE, F::Off(ints(&[2, -3])));
    let e = spec_err(&spec);
    assert_eq!(e.kind, ErrorKind::NegativeDimension { dim: 1, value: -3 });
    assert_eq!((e.field, e.location), ("Tensor.shape", at_tensor(3)));

    let mut spec = Spec::new();
    spec.tensors[3].put(tensor_slot::SHAPE, F::Off(ints(&[i32::MAX; 3])));
    let e = spec_err(&spec);
    assert_eq!(e.kind, ErrorKind::ElementCountOverflow);
    assert_eq!(e.location, at_tensor(3));

    // Huge but representable: the constant's length no longer matches.
    let mut spec = Spec::new();
    spec.tensors[1].put(tensor_slot::SHAPE, F::Off(ints(&[65_536, 65_536])));
    let e = spec_err(&spec);
    let expected = 1u64 << 34;
    assert_eq!(
        e.kind,
        ErrorKind::BufferLength {
            expected,
            found: 24
        }
    );
    assert_eq!((e.field, e.location), ("Buffer.data", at_tensor(1)));
}

/// The sample with a STRING constant tensor 5 over buffer 5 holding `data`.
fn with_strings(data: &[u8], count: i32) -> Spec {
    let mut spec = Spec::new();
    spec.buffers.push(buffer(data));
    spec.tensors.push(tensor("words", 5, &[count], 5));
    spec
}

fn le(words: &[i32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn string_count_larger_than_its_buffer() {
    let data = le(&[1000, 12, 12]);
    let e = spec_err(&with_strings(&data, 1));
    assert_eq!(
        e.kind,
        ErrorKind::Strings(StringTensorError::CountTooLarge {
            count: 1000,
            len: 12
        })
    );
    assert_eq!((e.field, e.location), ("Buffer.data", at_tensor(5)));
}

#[test]
fn string_offsets_backwards_or_past_the_end() {
    // Two strings: offsets 16, 18, 17 (backwards), buffer of 18 bytes.
    let mut data = le(&[2, 16, 18, 17]);
    data.extend_from_slice(b"ab");
    let e = spec_err(&with_strings(&data, 2));
    assert_eq!(
        e.kind,
        ErrorKind::Strings(StringTensorError::Decreasing {
            index: 2,
            previous: 18,
            value: 17
        })
    );
    let mut data = le(&[1, 12, 40]);
    data.extend_from_slice(b"ab");
    let e = spec_err(&with_strings(&data, 1));
    assert_eq!(
        e.kind,
        ErrorKind::Strings(StringTensorError::OffsetOutOfBounds {
            index: 1,
            value: 40,
            len: 14
        })
    );
    // Valid strings, but not as many as the shape says.
    let mut data = le(&[1, 12, 14]);
    data.extend_from_slice(b"ab");
    let e = spec_err(&with_strings(&data, 2));
    assert_eq!(
        e.kind,
        ErrorKind::StringCount {
            expected: 2,
            found: 1
        }
    );
}

/// The sample with sparse weights whose segments and indices are given.
fn sparse(segments: &[i32], indices: &[i32], values: usize) -> Spec {
    let mut spec = Spec::new();
    let mut w = csr_weights(ints(indices), 1);
    // Replace the sparse dimension's segments.
    let dims = crate::model::sparsity::dim_slot::SEGMENTS_TYPE + 1;
    if let Some((_, F::Off(Obj::Table(sp)))) =
        w.0.iter_mut().find(|(s, _)| *s == tensor_slot::SPARSITY)
    {
        if let Some((_, F::Off(Obj::Offsets(list)))) = sp.0.iter_mut().find(|(s, _)| *s == 2) {
            if let Obj::Table(d) = &mut list[1] {
                d.put(dims, F::Off(Obj::Table(T::new().obj(0, ints(segments)))));
            }
        }
    }
    spec.tensors[1] = w;
    spec.tensors[0] = tensor("x", 0, &[1, 4], 0);
    spec.buffers[1] = buffer(&f32_bytes(&vec![1.0; values]));
    spec
}

#[test]
fn sparse_segments_and_indices_out_of_range() {
    assert!(Model::load(&sparse(&[0, 2, 3], &[1, 3, 0], 3).build()).is_ok());
    let e = spec_err(&sparse(&[0, 2, 4], &[1, 3, 0], 3));
    assert_eq!(e.kind, ErrorKind::Segments { position: 2 });
    assert_eq!(
        (e.field, e.location),
        ("DimensionMetadata.array_segments", at_tensor(1))
    );
    let e = spec_err(&sparse(&[0, 3, 2], &[1, 3, 0], 3));
    assert_eq!(e.kind, ErrorKind::Segments { position: 2 });
    let e = spec_err(&sparse(&[0, 2], &[1, 3, 0], 3));
    assert_eq!(e.kind, ErrorKind::Segments { position: 2 });
    let e = spec_err(&sparse(&[0, 2, 3], &[1, 4, 0], 3));
    assert_eq!(
        e.kind,
        ErrorKind::SparseIndex {
            position: 1,
            index: 4,
            size: 4
        }
    );
    assert_eq!(
        (e.field, e.location),
        ("DimensionMetadata.array_indices", at_tensor(1))
    );
    let e = spec_err(&sparse(&[0, 2, 3], &[1, -1, 0], 3));
    assert_eq!(
        e.kind,
        ErrorKind::SparseIndex {
            position: 1,
            index: -1,
            size: 4
        }
    );
    // The constant must hold exactly the stored values.
    let e = spec_err(&sparse(&[0, 2, 3], &[1, 3, 0], 8));
    assert_eq!(
        e.kind,
        ErrorKind::BufferLength {
            expected: 12,
            found: 32
        }
    );
}

#[test]
fn sparse_traversal_order_must_be_a_permutation() {
    let mut spec = sparse(&[0, 2, 3], &[1, 3, 0], 3);
    if let Some((_, F::Off(Obj::Table(sp)))) = spec.tensors[1]
        .0
        .iter_mut()
        .find(|(s, _)| *s == tensor_slot::SPARSITY)
    {
        sp.put(0, F::Off(ints(&[1, 1])));
    }
    let e = spec_err(&spec);
    assert_eq!(
        (e.kind, e.location),
        (ErrorKind::TraversalOrder, at_tensor(1))
    );
}

#[test]
fn tensors_without_names_load() {
    // As TensorFlow Lite Micro's keyword_scrambled: no tensor has a name (optional in the
    // schema). They read as "".
    let mut spec = Spec::new();
    for t in &mut spec.tensors {
        t.remove(tensor_slot::NAME);
    }
    let bytes = spec.build();
    let model = Model::load(&bytes).expect("names are optional");
    let graph = model.subgraph(0).unwrap();
    assert!(graph.tensors().iter().all(|t| t.name().is_empty()));
}

fn quantized(scale: &[f32], zero: &[i64], dim: i32) -> Spec {
    let mut spec = Spec::new();
    spec.tensors[1].put(
        tensor_slot::QUANTIZATION,
        F::Off(Obj::Table(
            T::new()
                .obj(q_slot::SCALE, f32s(scale))
                .obj(q_slot::ZERO_POINT, i64s(zero))
                .i32(q_slot::QUANTIZED_DIMENSION, dim),
        )),
    );
    spec
}

#[test]
fn quantization_arrays_of_the_wrong_length() {
    // Weights are [2, 3]: per-channel along 0 needs 2 scales, along 1 needs 3.
    assert!(Model::load(&quantized(&[1.0; 2], &[0; 2], 0).build()).is_ok());
    assert!(Model::load(&quantized(&[1.0; 3], &[0; 3], 1).build()).is_ok());
    let e = spec_err(&quantized(&[1.0; 3], &[0; 3], 0));
    assert_eq!(
        e.kind,
        ErrorKind::QuantizationLength {
            found: 3,
            expected: 2
        }
    );
    assert_eq!(
        (e.field, e.location),
        ("QuantizationParameters.scale", at_tensor(1))
    );
    let e = spec_err(&quantized(&[1.0; 2], &[0; 1], 0));
    assert_eq!(
        e.kind,
        ErrorKind::QuantizationLength {
            found: 1,
            expected: 2
        }
    );
    assert_eq!(e.field, "QuantizationParameters.zero_point");
    let e = spec_err(&quantized(&[1.0; 2], &[0; 2], 2));
    assert_eq!(e.kind, ErrorKind::QuantizedDimension { dim: 2, rank: 2 });
}

#[test]
fn a_dimension_outside_the_rank_is_an_error_only_where_it_matters() {
    // One scale: per-tensor, the dimension means nothing.
    assert!(Model::load(&quantized(&[0.5], &[0], 5).build()).is_ok());
    assert!(Model::load(&quantized(&[0.5], &[0], -1).build()).is_ok());
    // A rank-1 tensor with a scale per element, along its only axis whatever the dimension
    // says: TensorFlow Lite Micro's person_detect stores depthwise biases [C] with C scales
    // and the filter's dimension 3.
    let mut spec = Spec::new();
    spec.tensors[2].put(
        tensor_slot::QUANTIZATION,
        F::Off(Obj::Table(
            T::new()
                .obj(q_slot::SCALE, f32s(&[0.5, 0.25]))
                .obj(q_slot::ZERO_POINT, i64s(&[0, 0]))
                .i32(q_slot::QUANTIZED_DIMENSION, 3),
        )),
    );
    assert!(Model::load(&spec.build()).is_ok());
    // ... but not with another number of scales than its length.
    spec.tensors[2].put(
        tensor_slot::QUANTIZATION,
        F::Off(Obj::Table(
            T::new()
                .obj(q_slot::SCALE, f32s(&[0.5, 0.25, 1.0]))
                .obj(q_slot::ZERO_POINT, i64s(&[0, 0, 0]))
                .i32(q_slot::QUANTIZED_DIMENSION, 3),
        )),
    );
    let e = spec_err(&spec);
    assert_eq!(
        e.kind,
        ErrorKind::QuantizationLength {
            found: 3,
            expected: 2
        }
    );
    // Several scales on a rank-2 tensor along a dimension it lacks stays an error.
    let e = spec_err(&quantized(&[1.0; 2], &[0; 2], 3));
    assert_eq!(e.kind, ErrorKind::QuantizedDimension { dim: 3, rank: 2 });
}

#[test]
fn constant_of_the_wrong_length() {
    let mut spec = Spec::new();
    spec.buffers[2] = buffer(&[0; 12]);
    let e = spec_err(&spec);
    assert_eq!(
        e.kind,
        ErrorKind::BufferLength {
            expected: 8,
            found: 12
        }
    );
    assert_eq!(e.location, at_tensor(2));
}

#[test]
fn options_of_another_op() {
    let mut spec = Spec::new();
    spec.operators[0].put(op_slot::OPTIONS_TYPE, F::U8(23)); // GatherOptions on FULLY_CONNECTED
    let e = spec_err(&spec);
    assert_eq!(
        e.kind,
        ErrorKind::OptionsType {
            found: 23,
            expected: 8
        }
    );
    assert_eq!(
        (e.field, e.location),
        ("Operator.builtin_options", at_operator(0))
    );
    assert!(e.to_string().contains("GatherOptions"));
}

/// The schema lets an operator read a tensor nothing wrote before it (Vela writes Ethos-U
/// scratch tensors so; LiteRT and TFLM run such files), and a graph output nothing writes:
/// both load (the interpreter's tests run the first).
#[test]
fn tensors_read_before_anything_writes_them_load() {
    let mut spec = Spec::new();
    spec.operators.swap(0, 1);
    assert!(Model::load(&spec.build()).is_ok());
    let mut spec = Spec::new();
    spec.outputs = vec![4, 0];
    spec.operators.pop();
    assert!(Model::load(&spec.build()).is_ok());
}

#[test]
fn custom_op_without_a_name() {
    let mut spec = Spec::new();
    spec.opcodes[1] = T::new().u8(0, 32).i32(3, 32);
    let e = spec_err(&spec);
    assert_eq!(e.kind, ErrorKind::MissingCustomCode);
    assert_eq!(
        e.location,
        Location {
            opcode: Some(1),
            ..Location::default()
        }
    );
}

#[test]
fn unknown_tensor_type_and_opcode_index() {
    let mut spec = Spec::new();
    spec.tensors[0].put(tensor_slot::TYPE, F::U8(99));
    assert_eq!(spec_err(&spec).kind, ErrorKind::UnknownEnum { value: 99 });
    let mut spec = Spec::new();
    spec.operators[1].put(op_slot::OPCODE_INDEX, F::U32(2));
    let e = spec_err(&spec);
    assert_eq!(e.kind, ErrorKind::Index { index: 2, count: 2 });
    assert_eq!(
        (e.field, e.location),
        ("Operator.opcode_index", at_operator(1))
    );
}

#[test]
#[cfg_attr(miri, ignore)] // a 1 MB file checked to its budget: minutes under Miri, safe code
fn shared_objects_cannot_make_loading_slow() {
    // A tensor vector of 200 000 entries all pointing at one tensor with a 60 000-entry shape
    // of ones: checking every reference naively reads 48 GB from a 1 MB file. The budget
    // (16 x the file + 64 KiB) stops it. A tenth of each under Miri.
    let (n, dims) = if cfg!(miri) {
        (20_000, 6_000)
    } else {
        (200_000, 60_000)
    };
    use crate::model::reader::{Table, u32_at};
    let mut spec = Spec::new();
    spec.operators.clear();
    spec.signatures.clear();
    spec.inputs.clear();
    spec.outputs.clear();
    spec.tensors.clear();
    let mut bytes = spec.build();
    let root = Table::at(&bytes, u32_at(&bytes, 0) as usize);
    let subgraph = root
        .vector(&bytes, crate::model::verify::slot::SUBGRAPHS)
        .table(&bytes, 0);
    let field = subgraph
        .field(&bytes, crate::model::subgraph::slot::TENSORS)
        .unwrap();
    // Offsets only point forward: the new vector goes at the end, the shared table after it.
    let vec_pos = bytes.len().next_multiple_of(4);
    bytes.resize(vec_pos, 0);
    bytes[field..field + 4].copy_from_slice(&((vec_pos - field) as u32).to_le_bytes());
    bytes.extend_from_slice(&(n as u32).to_le_bytes());
    let shared = super::builder::finish(&tensor("x", 0, &vec![1; dims], 0), b"TFL3");
    let base = (vec_pos + 4 + 4 * n).next_multiple_of(8);
    let table_pos = base + u32_at(&shared, 0) as usize;
    for i in 0..n {
        let at = vec_pos + 4 + 4 * i;
        bytes.extend_from_slice(&((table_pos - at) as u32).to_le_bytes());
    }
    bytes.resize(base, 0);
    bytes.extend_from_slice(&shared);
    let e = load_err(&bytes);
    assert_eq!(e.kind, ErrorKind::TooComplex);
    assert_eq!(e.location, at_tensor(e.location.tensor.unwrap()));
}
