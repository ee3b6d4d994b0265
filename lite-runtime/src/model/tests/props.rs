//! Property tests: corrupted models never panic (and whatever loads reads without panics),
//! and random models written by the builder read back as written.

use proptest::prelude::*;

use super::builder::{F, T, ints, string};
use super::sample::{Spec, buffer, sample, tensor};
use crate::model::tensor::slot as tensor_slot;
use crate::model::{DimensionFormat, Model, TensorType};

/// Reads every view of `model`, as an interpreter's setup and `tessera model inspect` do.
pub fn walk(model: &Model<'_>) -> usize {
    let mut n = model.version() as usize + model.description().map_or(0, str::len);
    for code in model.operator_codes().iter() {
        n += code.op().to_string().len() + code.version() as usize;
    }
    for b in model.buffers().iter() {
        n += b.data().len();
    }
    for m in model.metadata().iter() {
        n += m.name().len() + m.data().len();
    }
    for sg in model.subgraphs().iter() {
        n += sg.inputs().iter().flatten().sum::<usize>() + sg.outputs().len();
        for t in sg.tensors().iter() {
            n += t.shape().iter().map(|d| d as usize).sum::<usize>() + t.name().len();
            n += t.data().map_or(0, <[u8]>::len) + t.tensor_type() as usize;
            n += t.shape_signature().map_or(0, |s| s.len());
            n += t.strings().map_or(0, |s| s.len());
            if let Some(q) = t.quantization() {
                n += q.scale().len() + q.zero_point().iter().count() + q.quantized_dimension();
            }
            if let Some(s) = t.sparsity() {
                n += s.traversal_order().len() + s.block_map().len();
                for d in s.dim_metadata().iter() {
                    match d.format() {
                        DimensionFormat::Dense { size } => n += size,
                        DimensionFormat::SparseCsr { segments, indices } => {
                            n += segments.iter().sum::<usize>() + indices.iter().sum::<usize>();
                        }
                    }
                }
            }
        }
        for op in sg.operators().iter() {
            n += op.inputs().iter().flatten().sum::<usize>();
            n += op.outputs().iter().flatten().sum::<usize>() + op.intermediates().len();
            n += op.options().to_string().len() + op.custom_options().map_or(0, <[u8]>::len);
            n += op.mutating_variable_inputs().len();
        }
    }
    for s in model.signature_defs().iter() {
        n += s.key().len() + s.subgraph_index();
        for m in s.inputs().iter().chain(s.outputs().iter()) {
            n += m.name().len() + m.tensor_index();
        }
    }
    n + model.summary().to_string().len()
}

/// Case counts: small under Miri, which runs each case thousands of times slower.
const CASES: u32 = if cfg!(miri) { 4 } else { 512 };

proptest! {
    // No regression files under Miri: its isolation has no working directory to keep them in.
    #![proptest_config(ProptestConfig {
        cases: CASES,
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        ..ProptestConfig::default()
    })]

    #[test]
    fn flipped_bytes_never_panic(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let mut bytes = sample();
        for (at, x) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Ok(model) = Model::load(&bytes) {
            walk(&model);
        }
    }

    #[test]
    fn truncated_and_extended_never_panic(cut in any::<prop::sample::Index>(), tail in prop::collection::vec(any::<u8>(), 0..16)) {
        let mut bytes = sample();
        bytes.truncate(cut.index(bytes.len()));
        bytes.extend_from_slice(&tail);
        if let Ok(model) = Model::load(&bytes) {
            walk(&model);
        }
    }

    #[test]
    fn random_tensors_round_trip(
        tensors in prop::collection::vec(
            ("[a-z]{1,12}", prop::sample::select(vec![0u8, 2, 3, 4, 6, 9]), prop::collection::vec(0i32..5, 0..4), any::<bool>()),
            1..6,
        ),
    ) {
        let mut spec = Spec::new();
        let first = spec.tensors.len();
        for (i, (name, ty, shape, constant)) in tensors.iter().enumerate() {
            let buffer_index = if *constant {
                let ty = TensorType::from_code(*ty as i8).unwrap();
                let count: u64 = shape.iter().map(|&d| d as u64).product();
                let len = ty.bytes_for(count).unwrap() as usize;
                spec.buffers.push(buffer(&vec![i as u8; len]));
                spec.buffers.len() as u32 - 1
            } else {
                0
            };
            spec.tensors.push(tensor(name, *ty, shape, buffer_index)
                .set(tensor_slot::SHAPE_SIGNATURE, F::Off(ints(&shape.iter().map(|_| -1).collect::<Vec<_>>()))));
        }
        spec.root.push((crate::model::verify::slot::DESCRIPTION, F::Off(string("random"))));
        let bytes = spec.build();
        let model = Model::load(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let sg = model.subgraph(0).unwrap();
        prop_assert_eq!(sg.tensors().len(), first + tensors.len());
        for (i, (name, ty, shape, constant)) in tensors.iter().enumerate() {
            let t = sg.tensor(first + i).unwrap();
            prop_assert_eq!(t.name(), name.as_str());
            prop_assert_eq!(t.tensor_type() as u8, *ty);
            prop_assert_eq!(t.shape().iter().collect::<Vec<_>>(), shape.clone());
            prop_assert_eq!(t.shape_signature().unwrap().len(), shape.len());
            let count: u64 = shape.iter().map(|&d| d as u64).product();
            prop_assert_eq!(t.element_count(), count);
            let expect_data = *constant && count > 0;
            prop_assert_eq!(t.data().is_some(), expect_data);
            if let Some(d) = t.data() {
                prop_assert!(d.iter().all(|&b| b == i as u8));
            }
        }
        walk(&model);
    }
}

#[test]
fn unused_table_keeps_builder_api_honest() {
    // A table with no fields at all is valid flatbuffers: an empty options table.
    let mut spec = Spec::new();
    spec.operators[1].put(
        crate::model::operator::slot::OPTIONS,
        F::Off(super::builder::Obj::Table(T::new())),
    );
    assert!(Model::load(&spec.build()).is_ok());
}
