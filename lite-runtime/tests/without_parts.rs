//! The optional parts of the model format (`sparse`, `strings`, `signatures`): with each,
//! the fixture models that use it load and read as TensorFlow wrote them; without it (as
//! firmware builds tessera-lite), they are refused at load with a typed error naming the
//! feature, the tensor and the field, or (signatures) read as absent, and the models that do
//! not use it still load, set up and run.
//!
//! `cargo test --workspace` runs this with every part on; CI also runs it with none
//! (`cargo test -p tessera-lite --no-default-features --test without_parts`).

use std::path::PathBuf;

use tessera_core::plan::{Lifetime, PlanBuffer};
use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::{ErrorKind, Model};

fn fixture(name: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/models");
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The arena `model` needs. Without `std`, `Interpreter::required` plans on a 256-entry
/// stack table, too small for the CTR model; the caller's table holds every entry.
fn required(model: &Model<'_>) -> usize {
    let entries = Interpreter::plan_entries(model, &Options::default()).expect("main graph");
    let mut plan = vec![PlanBuffer::new(0, 1, Lifetime::ALWAYS); entries];
    Interpreter::required_with(model, &AllOps, &Options::default(), &mut plan).expect("sets up")
}

/// Loads each model of `names`, which use part `feature` of the format. Built with it (`on`),
/// each loads and `uses` finds the part in its main graph; built without, each is refused
/// with [`ErrorKind::Unsupported`] naming the feature, at a tensor's `field`.
fn check_part(
    names: &[&str],
    on: bool,
    feature: &'static str,
    field: &str,
    uses: fn(&Model<'_>) -> usize,
) {
    for name in names {
        let bytes = fixture(name);
        let loaded = Model::load(&bytes);
        if on {
            let model = loaded.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(uses(&model) > 0, "{name}: does not use {feature}");
            continue;
        }
        let e = loaded.expect_err(name);
        assert_eq!(e.kind, ErrorKind::Unsupported { feature }, "{name}: {e}");
        assert_eq!(e.field, field, "{e}");
        assert_eq!(e.location.subgraph, Some(0), "{e}");
        assert!(e.location.tensor.is_some(), "{e}");
        assert!(e.offset > 0, "{e}");
        let text = e.to_string();
        assert!(text.contains(&format!("`{feature}` feature")), "{text}");
    }
}

#[test]
fn sparse_models_need_the_sparse_feature() {
    let names = ["sparse.tflite", "sparse_block.tflite"];
    check_part(
        &names,
        cfg!(feature = "sparse"),
        "sparse",
        "Tensor.sparsity",
        |m| {
            let graph = m.subgraph(0).expect("main graph");
            graph
                .tensors()
                .iter()
                .filter(|t| t.sparsity().is_some())
                .count()
        },
    );
}

#[test]
fn string_models_need_the_strings_feature() {
    let names = ["strings.tflite", "strings_ops.tflite"];
    check_part(
        &names,
        cfg!(feature = "strings"),
        "strings",
        "Tensor.type",
        |m| {
            let graph = m.subgraph(0).expect("main graph");
            let tensors = graph.tensors();
            tensors
                .iter()
                .filter(|t| t.tensor_type().is_string())
                .count()
        },
    );
}

#[test]
fn signatures_read_as_absent_without_their_feature() {
    let bytes = fixture("ctr.tflite");
    let model = Model::load(&bytes).expect("ctr loads either way");
    let mut arena = vec![0u8; required(&model)];
    let it = Interpreter::new(model, &AllOps, &mut arena, &Options::default()).unwrap();
    if cfg!(feature = "signatures") {
        assert_eq!(model.signature_defs().len(), 1);
        assert!(model.signature("serving_default").is_some());
        assert!(it.signature_input("serving_default", "keys").is_some());
    } else {
        assert_eq!(model.signature_defs().len(), 0);
        assert!(model.signature("serving_default").is_none());
        assert_eq!(it.signature_input("serving_default", "keys"), None);
    }
    // Graph inputs by position need no signature.
    assert_eq!(it.input_count(), 2);
}

/// The data of an int8 `.npy` (format 1.0, as numpy writes it): the bytes after its header.
fn npy_i8(bytes: &[u8]) -> &[u8] {
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    assert_eq!(bytes[6], 1, "format 1.0");
    let header = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    assert!(
        std::str::from_utf8(&bytes[10..10 + header])
            .unwrap()
            .contains("'|i1'")
    );
    &bytes[10 + header..]
}

#[test]
fn a_model_without_the_parts_runs_the_same_either_way() {
    // The keyword-spotting int8 network: dense, numeric, no signature needed. Its output
    // equals TensorFlow Lite's reference kernels' with or without the optional parts.
    let bytes = fixture("kws_int8.tflite");
    let model = Model::load(&bytes).expect("kws_int8 loads");
    let options = Options::default();
    let mut arena = vec![0u8; required(&model)];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
    let input = fixture("kws_int8.in0.npy");
    it.input_bytes_mut(0)
        .unwrap()
        .copy_from_slice(npy_i8(&input));
    it.invoke().unwrap();
    let expected = fixture("kws_int8.ref_out0.npy");
    assert_eq!(it.output_bytes(0).unwrap(), npy_i8(&expected));
}

/// An arena too small even for the records and the plan's table is `ArenaTooSmall`. With
/// `std`, `needed` is `required`'s figure (less its worst-case start padding); without, it is
/// what set-up needs to start, above what was given and below `required`: set-up does not
/// plan on a 7 KB stack table in an error path on a device.
#[test]
fn a_tiny_arena_says_how_much_more_it_needs() {
    use tessera_lite::interpreter::ErrorKind as SetUp;
    let bytes = fixture("kws_int8.tflite");
    let model = Model::load(&bytes).expect("kws_int8 loads");
    let required = required(&model);
    let mut small = vec![0u8; 64];
    let e = Interpreter::new(model, &AllOps, &mut small, &Options::default()).unwrap_err();
    let SetUp::ArenaTooSmall { needed, available } = e.kind else {
        panic!("{e}");
    };
    assert_eq!(available, 64);
    assert!(needed > 64 && needed <= required, "{needed} of {required}");
    if cfg!(feature = "std") {
        assert!(required - needed < 16, "{needed} of {required}");
    } else {
        assert!(required - needed >= 16, "{needed} of {required}");
    }
}

/// Every arena length from 0 to what a model needs, at an aligned and a misaligned start, and
/// an empty `Vec`'s (dangling) address: set-up succeeds within the arena, or says
/// `ArenaTooSmall` with more bytes than it got and no more than `required`. With `std` those
/// bytes suffice; without, they are a lower bound, and asking again climbs to a figure that
/// does. On a fixture and on a fuzzed graph that needs no bytes at all.
#[test]
fn every_arena_length_says_truly_how_much_it_needs() {
    use tessera_lite::interpreter::ErrorKind as SetUp;
    let kws = fixture("int8_dense.tflite");
    let found = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fuzz/corpus/interpret/seed-finding-empty-arena"),
    )
    .unwrap();
    for bytes in [&kws[..], &found[8..]] {
        let model = Model::load(bytes).expect("loads");
        let required = required(&model);
        let options = Options::default();
        let set_up = |arena: &mut [u8]| -> Result<(), (usize, usize)> {
            let len = arena.len();
            match Interpreter::new(model, &AllOps, arena, &options) {
                Ok(it) => {
                    assert!(it.arena_used_bytes() <= len, "{len}");
                    Ok(())
                }
                Err(e) => match e.kind {
                    SetUp::ArenaTooSmall { needed, available } => Err((needed, available)),
                    _ => panic!("{len} bytes: {e}"),
                },
            }
        };
        let _ = set_up(&mut Vec::new());
        let mut buf = vec![0u8; required + 32];
        for shift in [0, 5] {
            let start = buf.as_ptr().align_offset(16) + shift;
            for len in 0..=required {
                let mut got = len;
                while let Err((needed, available)) = set_up(&mut buf[start..start + got]) {
                    assert_eq!(available, got);
                    assert!(
                        needed > got && needed <= required,
                        "{needed}, {got} at +{shift}"
                    );
                    assert!(
                        !cfg!(feature = "std") || got == len,
                        "std's figure suffices"
                    );
                    got = needed;
                }
            }
        }
    }
}
