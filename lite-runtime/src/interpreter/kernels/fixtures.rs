//! The fixture models (`tests/fixtures/models`) for the kernels' tests: their files, their
//! `.npy` data, and the quantized ones giving LiteRT's `BUILTIN_REF` outputs bit for bit
//! (the crate-level twin of the conformance test, so `cargo test -p tessera-lite --lib
//! interpreter` checks them too).

use crate::interpreter::{AllOps, Interpreter, Options};
use crate::model::Model;

/// Fixture file `name`.
pub fn read(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/models")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The data of a `.npy` file (read with tessera-core's reader).
pub fn npy_data(bytes: &[u8]) -> &[u8] {
    tessera_core::npy::NpyView::parse(bytes)
        .expect("a .npy fixture")
        .data()
}

/// The float32 values of fixture `.npy` file `name`.
pub fn f32s(name: &str) -> Vec<f32> {
    npy_data(&read(name))
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn check(name: &str) {
    let model_bytes = read(&format!("{name}.tflite"));
    let mut aligned = vec![0u128; model_bytes.len() / 16 + 1];
    let buf: &mut [u8] = bytemuck_bytes(&mut aligned);
    buf[..model_bytes.len()].copy_from_slice(&model_bytes);
    let model = Model::load(&buf[..model_bytes.len()]).unwrap();
    let r = AllOps;
    let options = Options::default();
    let needed =
        Interpreter::required(&model, &r, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut arena = vec![0u8; needed];
    let mut it =
        Interpreter::new(model, &r, &mut arena, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    for k in 0..it.input_count() {
        let file = read(&format!("{name}.in{k}.npy"));
        it.input_bytes_mut(k)
            .unwrap()
            .copy_from_slice(npy_data(&file));
    }
    it.invoke().unwrap_or_else(|e| panic!("{name}: {e}"));
    for j in 0..it.output_count() {
        let file = read(&format!("{name}.ref_out{j}.npy"));
        let want = npy_data(&file);
        let got = it.output_bytes(j).unwrap();
        if got != want {
            let diffs: Vec<_> = got
                .iter()
                .zip(want)
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .take(8)
                .collect();
            panic!("{name}: output {j} differs at {diffs:?}");
        }
    }
}

fn bytemuck_bytes(v: &mut [u128]) -> &mut [u8] {
    <[u8]>::mut_from_bytes(zerocopy::IntoBytes::as_mut_bytes(v)).unwrap()
}

use zerocopy::FromBytes;

macro_rules! fixtures {
    ($($test:ident: $name:literal;)*) => {$(
        #[test]
        #[cfg_attr(miri, ignore)]
        fn $test() {
            if cfg!(target_endian = "big") {
                return;
            }
            check($name);
        }
    )*};
}

fixtures! {
    int8_dense: "int8_dense";
    int8_float_io: "int8_float_io";
    kws_int8: "kws_int8";
    kws_int8_per_tensor: "kws_int8_per_tensor";
    kws_int16: "kws_int16";
    image_int8: "image_int8";
    ops_int8: "ops_int8";
}
