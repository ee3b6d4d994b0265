//! Conformance: every fixture model in `tests/fixtures/models` (made by TensorFlow's converter,
//! see its README) runs in tessera's interpreter on the reference inputs and gives LiteRT's
//! reference outputs: floats within 1e-5 absolute plus 1e-5 relative, integers, booleans and
//! strings exactly. Quantized models are compared with the `ref_out` files (TensorFlow Lite's
//! reference kernels, `BUILTIN_REF`) and must match exactly.

use std::path::PathBuf;

use tessera_core::npy::{NpyType, NpyView};
use tessera_lite::interpreter::{AllOps, Interpreter, Options, dtype_of};
use tessera_lite::model::{Model, TensorType};

fn fixture(name: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/models")
        .join(name);
    std::fs::read(path).ok()
}

/// A copy of `bytes` starting `shift` bytes past a 16-byte boundary, so constants are read in
/// place at shift 0 (the interpreter copies them otherwise; `unaligned_models_run_the_same`
/// checks that path). Returns the buffer and where the copy starts.
fn placed(bytes: &[u8], shift: usize) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; bytes.len() + 32];
    let at = buf.as_ptr().align_offset(16) + shift;
    buf[at..at + bytes.len()].copy_from_slice(bytes);
    (buf, at)
}

/// Runs fixture `name` (shifted `shift` bytes from a 16-byte boundary) and compares every
/// output with `NAME.{reference}{J}.npy`.
fn check(name: &str, reference: &str, shift: usize) {
    let bytes = fixture(&format!("{name}.tflite")).expect("fixture model");
    let (buf, at) = placed(&bytes, shift);
    let model_bytes = &buf[at..at + bytes.len()];
    let model = Model::load(model_bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let options = Options::default();
    let needed =
        Interpreter::required(&model, &AllOps, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut arena = vec![0u8; needed];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(it.arena_used_bytes() <= needed);

    for k in 0..it.input_count() {
        let file = fixture(&format!("{name}.in{k}.npy")).expect("reference input");
        let npy = NpyView::parse(&file).unwrap();
        let t = it.input_tensor(k).unwrap();
        let ty = it.tensor_type(t).unwrap();
        if ty == TensorType::String {
            let strings: Vec<&[u8]> = npy.strings().collect();
            it.set_input_strings(k, strings).unwrap();
        } else {
            let npy_type = dtype_of(ty).map(NpyType::from);
            assert_eq!(Some(npy.dtype()), npy_type, "{name}: input {k} type");
            let dst = it.input_bytes_mut(k).unwrap();
            assert_eq!(dst.len(), npy.data().len(), "{name}: input {k} bytes");
            dst.copy_from_slice(npy.data());
            npy.dtype().swap_to_host(dst);
        }
    }
    it.invoke().unwrap_or_else(|e| panic!("{name}: {e}"));

    for j in 0..it.output_count() {
        let file = fixture(&format!("{name}.{reference}{j}.npy")).expect("reference output");
        let want = NpyView::parse(&file).unwrap();
        let t = it.output_tensor(j).unwrap();
        let ty = it.tensor_type(t).unwrap();
        let shape = it.tensor_shape(t).unwrap();
        assert_eq!(shape.dims(), want.shape(), "{name}: output {j} shape");
        if ty == TensorType::String {
            let got: Vec<&[u8]> = it.output_strings(j).unwrap().iter().collect();
            let want: Vec<&[u8]> = want.strings().collect();
            assert_eq!(got, want, "{name}: output {j}");
            continue;
        }
        let mut got = it.output_bytes(j).unwrap().to_vec();
        want.dtype().swap_to_host(&mut got);
        if want.dtype() == NpyType::F32 {
            for (i, (g, w)) in got.chunks(4).zip(want.data().chunks(4)).enumerate() {
                let g = f32::from_le_bytes(g.try_into().unwrap());
                let w = f32::from_le_bytes(w.try_into().unwrap());
                let ok = (g - w).abs() <= 1e-5 + 1e-5 * w.abs() || (g.is_nan() && w.is_nan());
                assert!(ok, "{name}: output {j}[{i}] = {g}, LiteRT {w}");
            }
        } else {
            assert_eq!(got, want.data(), "{name}: output {j} ({:?})", want.dtype());
        }
    }
}

macro_rules! conformance {
    ($($(#[$m:meta])* $test:ident: $name:literal, $reference:literal;)*) => {$(
        $(#[$m])*
        #[test]
        fn $test() {
            check($name, $reference, 0);
        }
    )*};
}

conformance! {
    ctr: "ctr", "out";
    ctr_b4: "ctr_b4", "out";
    strings: "strings", "out";
    strings_ops: "strings_ops", "out";
    sparse: "sparse", "out";
    sparse_block: "sparse_block", "out";
    ops_elementwise: "ops_elementwise", "out";
    ops_reduce: "ops_reduce", "out";
    ops_shape: "ops_shape", "out";
    ops_dynamic: "ops_dynamic", "out";
    conv_variants_float: "conv_variants_float", "out";
    kws_float: "kws_float", "out";
    kws_float_offsets: "kws_float_offsets", "out";
    image_float: "image_float", "out";
    conv_variants_int8: "conv_variants_int8", "ref_out";
    kws_int8: "kws_int8", "ref_out";
    kws_int8_per_tensor: "kws_int8_per_tensor", "ref_out";
    kws_int16: "kws_int16", "ref_out";
    int8_dense: "int8_dense", "ref_out";
    int8_float_io: "int8_float_io", "ref_out";
    ops_int8: "ops_int8", "ref_out";
    ops_int16: "ops_int16", "ref_out";
    image_int8: "image_int8", "ref_out";
}

#[test]
fn unaligned_models_run_the_same() {
    // A model at an odd address: constants are copied once at setup instead of read in place.
    check("sparse", "out", 1);
}
