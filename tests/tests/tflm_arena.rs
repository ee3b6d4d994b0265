//! Memory against TensorFlow Lite Micro: for every fixture model TFLM can run, tessera's total
//! caller memory (the arena it uses plus the interpreter value) is no larger than TFLM's
//! smallest working arena for the same model, found by `tests/fixtures/models/tflm_arena.py`
//! (binary search to the byte with `tflite-micro`'s Python interpreter, output checked).
//! Both reuse the inputs' bytes after their last reader (`Options::preserve_inputs` off, as
//! TFLM always does).

use std::path::PathBuf;

use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::Model;

/// `tflm_arena.py`'s smallest working arena per model (tflite-micro from pip, this project's
/// fixtures): bytes.
const TFLM: &[(&str, usize)] = &[
    ("int8_dense", 2_120),
    ("int8_float_io", 2_448),
    ("conv_variants_int8", 3_856),
    ("ops_int8", 3_944),
    ("ops_shape", 4_560),
    ("ops_elementwise", 7_376),
    ("kws_int8_per_tensor", 7_680),
    ("kws_int8", 7_776),
    ("conv_variants_float", 9_152),
    ("kws_int16", 13_856),
    ("kws_float", 19_616),
    ("image_int8", 29_208),
    ("image_float", 107_432),
];

/// Models where tessera may need more than TFLM: none since issue 16's memory work. The test
/// fails if one listed here gets within TFLM's arena (so this list cannot go stale) or any
/// other model goes over.
const KNOWN_OVER: &[&str] = &[];

/// tessera's arena plus interpreter value for `name`, or why it cannot set the model up.
fn tessera_bytes(name: &str) -> Result<usize, String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/models/{name}.tflite"));
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let model = Model::load(&bytes).map_err(|e| e.to_string())?;
    // TFLM's way: inputs' bytes reusable after their last reader, weights read where they lie
    // (no packed copies, no kept DEQUANTIZE outputs: what `pack_weights` and `fold_constants`
    // add is speed, paid in arena).
    let options = Options {
        preserve_inputs: false,
        pack_weights: false,
        fold_constants: false,
        ..Options::default()
    };
    let needed = Interpreter::required(&model, &AllOps, &options).map_err(|e| e.to_string())?;
    let mut arena = vec![0u8; needed];
    let it = Interpreter::new(model, &AllOps, &mut arena, &options).map_err(|e| e.to_string())?;
    Ok(it.arena_used_bytes() + size_of::<Interpreter<'_, '_>>())
}

#[test]
fn total_caller_memory_is_at_most_tflms_smallest_arena() {
    let mut report = String::new();
    let mut over = Vec::new();
    let mut stale = Vec::new();
    for &(name, tflm) in TFLM {
        match tessera_bytes(name) {
            Ok(ours) => {
                report.push_str(&format!("{name}: tessera {ours} bytes, TFLM {tflm}\n"));
                let known = KNOWN_OVER.contains(&name);
                if ours > tflm && !known {
                    over.push(name);
                }
                if ours <= tflm && known {
                    stale.push(name);
                }
            }
            // A model whose kernels are not all in yet is reported, not compared.
            Err(e) => report.push_str(&format!("{name}: not set up ({e})\n")),
        }
    }
    println!("{report}");
    assert!(over.is_empty(), "over TFLM's arena: {over:?}\n{report}");
    assert!(
        stale.is_empty(),
        "now within TFLM's arena, update KNOWN_OVER: {stale:?}"
    );
}
