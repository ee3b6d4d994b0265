//! Fuzzes `Model::load` on arbitrary bytes: it must never panic, and whatever it accepts must
//! read through every view (the reads an interpreter's setup and `tessera model inspect` do)
//! and print its summary without panicking, with every index the views hand out in range;
//! sealed, it must load again by its seal alone to the same model.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use tessera_lite::model::{DimensionFormat, Model, Seal};

/// Discards what is written: the summary is formatted, not stored.
struct Sink;

impl Write for Sink {
    fn write_str(&mut self, _: &str) -> core::fmt::Result {
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let model = match Model::load(data) {
        Ok(model) => model,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    assert_eq!(model.version(), 3);
    let _ = model.description();
    for code in model.operator_codes().iter() {
        let _ = (code.op(), code.version());
    }
    for b in model.buffers().iter() {
        let _ = b.data();
    }
    for m in model.metadata().iter() {
        let _ = (m.name(), m.data());
    }
    for sg in model.subgraphs().iter() {
        let n = sg.tensors().len();
        for i in sg.inputs().iter().chain(sg.outputs().iter()) {
            assert!(i.is_some_and(|i| i < n));
        }
        for t in sg.tensors().iter() {
            let _ = (t.shape(), t.shape_signature(), t.name(), t.tensor_type());
            let _ = (t.element_count(), t.is_variable(), t.has_rank());
            if let Some(data) = t.data() {
                assert!(!data.is_empty());
            }
            if let Some(strings) = t.strings() {
                assert_eq!(strings.len() as u64, t.element_count());
            }
            if let Some(q) = t.quantization() {
                assert_eq!(q.scale().len(), q.zero_point().len());
                let _ = (
                    q.scale().iter().sum::<f32>(),
                    q.quantized_dimension(),
                    q.min(),
                    q.max(),
                );
            }
            if let Some(s) = t.sparsity() {
                let _ = (s.traversal_order(), s.block_map());
                for d in s.dim_metadata().iter() {
                    if let DimensionFormat::SparseCsr { segments, indices } = d.format() {
                        let _ = segments.iter().chain(indices.iter()).max();
                    }
                }
            }
        }
        for op in sg.operators().iter() {
            for i in op.inputs().iter().flatten() {
                assert!(i < n);
            }
            for i in op.outputs().iter().chain(op.intermediates().iter()) {
                assert!(i.is_some_and(|i| i < n));
            }
            let _ = (
                op.op(),
                op.options(),
                op.custom_options(),
                op.mutating_variable_inputs(),
            );
        }
    }
    for s in model.signature_defs().iter() {
        let sg = model
            .subgraph(s.subgraph_index())
            .expect("signature subgraph in range");
        for m in s.inputs().iter().chain(s.outputs().iter()) {
            assert!(sg.tensor(m.tensor_index()).is_some());
            let _ = m.name();
        }
    }
    write!(Sink, "{}", model.summary()).unwrap();

    // What loads can be sealed; it loads again by its seal to the same model, and only by it.
    let seal = Seal::of(data).expect("it loaded");
    let sealed = Model::load_sealed(data, &seal).expect("its own seal");
    assert_eq!(sealed.summary().to_string(), model.summary().to_string());
    let other = Seal::from_parts(seal.size(), seal.crc32() ^ 1);
    assert!(Model::load_sealed(data, &other).is_err());
});
