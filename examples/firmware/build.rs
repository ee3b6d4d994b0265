//! Runs the firmware's job (`src/job.rs`) on the host at build time and writes what it found
//! to `$OUT_DIR/expected.rs`: the firmware exits non-zero unless it finds the same, bit for
//! bit.

#[path = "src/job.rs"]
#[allow(dead_code)]
mod job;
#[path = "src/kws.rs"]
#[allow(dead_code)]
mod kws;
#[cfg(feature = "heap")]
#[path = "src/strings_job.rs"]
#[allow(dead_code)]
mod strings_job;

use std::{env, fs, path::PathBuf};

use tessera_core::plan::{Lifetime, PlanBuffer};
use tessera_data::ctr::Predictor;
use tessera_lite::interpreter::{Interpreter, Options};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // memory.x for cortex-m-rt's link.x, found through the link search path.
    fs::copy("memory.x", out.join("memory.x")).expect("memory.x beside build.rs");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=src/job.rs");
    println!("cargo:rerun-if-changed=../../lite-runtime/cli/demo/demo.norm");
    println!("cargo:rerun-if-changed=../../lite-runtime/cli/demo/ctr_b4.tflite");
    println!("cargo:rerun-if-changed=src/kws.rs");
    println!("cargo:rerun-if-changed=src/strings_job.rs");
    for f in [
        "kws_int8.tflite",
        "kws_int8.in0.npy",
        "kws_int8.ref_out0.npy",
        "strings.tflite",
    ] {
        println!("cargo:rerun-if-changed=../../tests/fixtures/models/{f}");
    }
    // The size-only variants (`framework`, `keyword`, `baseline`) link none of the checked work.
    println!("cargo::rustc-check-cfg=cfg(size_only)");
    if ["FRAMEWORK", "KEYWORD", "BASELINE"]
        .iter()
        .any(|f| env::var_os(format!("CARGO_FEATURE_{f}")).is_some())
    {
        println!("cargo:rustc-cfg=size_only");
    }
    // defmt's linker script (its table of interned strings), only where defmt is linked.
    if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg=-Tdefmt.x");
    }

    let ops = job::ctr_ops();
    let model = job::model().expect("the bundled model loads");
    let options = Options::default();
    // tessera-lite without std plans `required` on a stack table of 256 entries; the CTR
    // model has 383 (tensors + operators), so the host gives it a table.
    let entries = Interpreter::plan_entries(&model, &options).expect("a main graph");
    let mut plan = vec![PlanBuffer::new(0, 1, Lifetime::ALWAYS); entries];
    let arena_bytes =
        Interpreter::required_with(&model, &ops, &options, &mut plan).expect("the model sets up");
    let mut arena = vec![0u8; arena_bytes];
    let it = Interpreter::new(model, &ops, &mut arena, &options).expect("the model sets up");
    let mut predictor = Predictor::new(it).expect("the bundled CTR model");
    let mut buf = Box::new(job::Buffers::new());
    let o = job::run(job::DEMO_NORM, &mut buf, &mut predictor)
        .expect("the bundled dataset decodes on the host");
    let mut text = format!(
        "/// What the host found running the same job at build time.\n\
         #[cfg(not(size_only))]\n\
         pub const EXPECTED: Outcome = Outcome {{ samples: {}, keys: {}, batches: {}, \
         pooled_bits: {:#x}, positives: {}, prediction_bits: {:#x}, clicks: {} }};\n\
         /// The arena the model needs (`Interpreter::required`, on the host).\n\
         pub const ARENA_BYTES: usize = {arena_bytes};\n",
        o.samples, o.keys, o.batches, o.pooled_bits, o.positives, o.prediction_bits, o.clicks
    );
    text += &kws_expected(&out);
    #[cfg(feature = "heap")]
    {
        text += &strings_expected();
    }
    fs::write(out.join("expected.rs"), text).expect("OUT_DIR is writable");
}

/// The keyword-spotting network: its arena (`Interpreter::required` on the host), its input
/// (written raw to `$OUT_DIR/kws_in.bin`) and LiteRT's reference-kernel output, which the
/// firmware must equal exactly.
fn kws_expected(out: &std::path::Path) -> String {
    let dir = "../../tests/fixtures/models";
    let input_file = fs::read(format!("{dir}/kws_int8.in0.npy")).expect("kws input");
    let input = npy_data(&input_file);
    fs::write(out.join("kws_in.bin"), input).expect("OUT_DIR is writable");
    let expected_file = fs::read(format!("{dir}/kws_int8.ref_out0.npy")).expect("kws ref");
    let expected = npy_data(&expected_file);
    let model = kws::checked_model().expect("kws_int8 loads");
    let seal = model.seal();
    let arena =
        Interpreter::required(&model, &kws::ops(), &Options::default()).expect("kws_int8 sets up");
    let values: Vec<String> = expected.iter().map(|&b| (b as i8).to_string()).collect();
    format!(
        "/// Bytes of the keyword-spotting network's input ([1, 49, 10, 1] int8).\n\
         pub const KWS_INPUT_BYTES: usize = {};\n\
         /// The keyword-spotting network's arena (`Interpreter::required`, on the host).\n\
         pub const KWS_ARENA_BYTES: usize = {arena};\n\
         /// LiteRT's `BUILTIN_REF` output for the bundled input (`kws_int8.ref_out0.npy`).\n\
         pub const KWS_EXPECTED: [i8; {}] = [{}];\n\
         /// The network's seal: it passed `Model::load` here, on the host.\n\
         #[allow(dead_code)] // read only by the variants that load it sealed\n\
         pub const KWS_SEAL: tessera_lite::model::Seal = tessera_lite::model::{seal};\n",
        input.len(),
        values.len(),
        values.join(", ")
    )
}

/// The data of a version 1.0 `.npy` file (magic, version, a little-endian `u16` header
/// length, the header, then the data).
fn npy_data(file: &[u8]) -> &[u8] {
    assert!(
        file.starts_with(b"\x93NUMPY\x01\x00"),
        "a version 1.0 .npy file"
    );
    let header = usize::from(u16::from_le_bytes([file[8], file[9]]));
    &file[10 + header..]
}

/// What the heap variant's string job finds on the host.
#[cfg(feature = "heap")]
fn strings_expected() -> String {
    let (o, _) = strings_job::run(&|| 0).expect("the string job runs on the host");
    format!(
        "/// What the host found running the heap variant's string job.\n\
         pub const STRINGS_EXPECTED: StringsOutcome = StringsOutcome {{ large: {}, \
         names_bytes: {}, picked_bytes: {}, digest: {:#x} }};\n",
        o.large, o.names_bytes, o.picked_bytes, o.digest
    )
}
