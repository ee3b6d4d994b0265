//! Runs the firmware's job (`src/job.rs`) on the host at build time and writes what it found
//! to `$OUT_DIR/expected.rs`: the firmware exits non-zero unless it finds the same, bit for
//! bit.

#[path = "src/job.rs"]
#[allow(dead_code)]
mod job;
#[path = "src/kws.rs"]
#[allow(dead_code)]
mod kws;
#[cfg(feature = "streaming")]
#[path = "src/streaming.rs"]
#[allow(dead_code)]
mod streaming;
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
    println!("cargo:rerun-if-changed=src/streaming.rs");
    for f in [
        "front_end.tflite",
        "kws_svdf.tflite",
        "kws_svdf.ref_out0.npy",
        "kws_svdf.tflm_out0.npy",
        "front_end.features.npy",
        "tone_sweep.wav",
    ] {
        println!("cargo:rerun-if-changed=../../tests/fixtures/signal/{f}");
    }
    for f in [
        "kws_int8.tflite",
        "kws_int8.in0.npy",
        "kws_int8.ref_out0.npy",
        "strings.tflite",
    ] {
        println!("cargo:rerun-if-changed=../../tests/fixtures/models/{f}");
    }
    // The size-only variants (`framework`, `keyword`, `baseline`) link none of the checked work,
    // and neither does `streaming`, which runs its own.
    println!("cargo::rustc-check-cfg=cfg(size_only)");
    if ["FRAMEWORK", "KEYWORD", "BASELINE", "STREAMING"]
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
    #[cfg(feature = "streaming")]
    {
        text += &streaming_expected();
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

/// The streaming variant's job on the host: its two arenas (`Interpreter::required`), what it
/// found (the features' digest, every network invoke's scores), and the references made by
/// `tests/fixtures/signal/make_streaming.py`: the front end's features in TensorFlow Lite
/// Micro's Python interpreter, the scores of LiteRT's reference kernels and of TFLM's. The
/// firmware must equal the host, the features TFLM's and the scores LiteRT's, bit for bit.
#[cfg(feature = "streaming")]
fn streaming_expected() -> String {
    use streaming::{CLASSES, INVOKES};
    use tessera_lite::model::Model;
    let options = Options::default();
    let (fe_ops, net_ops) = (streaming::front_end_ops(), streaming::network_ops());
    let fe_model = Model::load(streaming::front_end_bytes()).expect("front_end.tflite loads");
    let net_model = Model::load(streaming::network_bytes()).expect("kws_svdf.tflite loads");
    let seals = (fe_model.seal(), net_model.seal());
    let fe_bytes = Interpreter::required(&fe_model, &fe_ops, &options).expect("front end sets up");
    let net_bytes = Interpreter::required(&net_model, &net_ops, &options).expect("network sets up");
    let (mut fe_arena, mut net_arena) = (vec![0u8; fe_bytes], vec![0u8; net_bytes]);
    let mut fe = Interpreter::new(fe_model, &fe_ops, &mut fe_arena, &options).expect("front end");
    let mut net = Interpreter::new(net_model, &net_ops, &mut net_arena, &options).expect("network");
    let samples = streaming::pcm(streaming::CLIP).expect("tone_sweep.wav is PCM");
    let mut scores = [[0i16; CLASSES]; INVOKES];
    let o = streaming::run(samples, &mut fe, &mut net, &mut scores, &mut || 0)
        .expect("the stream runs on the host");
    assert_eq!(o.invokes as usize, INVOKES, "network invokes over the clip");

    let dir = "../../tests/fixtures/signal";
    let features = fs::read(format!("{dir}/front_end.features.npy")).expect("TFLM's features");
    let tflm_features = streaming::fnv(streaming::FNV_START, npy_data(&features));
    let scores_of = |name: &str| -> String {
        let file = fs::read(format!("{dir}/{name}")).expect("a reference");
        let values: Vec<String> = npy_data(&file)
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]).to_string())
            .collect();
        assert_eq!(
            values.len(),
            INVOKES * CLASSES,
            "{name}: one row per invoke"
        );
        rows(&values)
    };
    let host: Vec<String> = scores.iter().flatten().map(|v| v.to_string()).collect();
    format!(
        "/// The front end's seal: it passed `Model::load` here, on the host.\n\
         pub const STREAM_FRONT_END_SEAL: tessera_lite::model::Seal = tessera_lite::model::{};\n\
         /// The keyword network's seal.\n\
         pub const STREAM_NETWORK_SEAL: tessera_lite::model::Seal = tessera_lite::model::{};\n\
         /// The front end's arena (`Interpreter::required`, on the host).\n\
         pub const STREAM_FRONT_END_ARENA: usize = {fe_bytes};\n\
         /// The network's arena.\n\
         pub const STREAM_NETWORK_ARENA: usize = {net_bytes};\n\
         /// Blocks the host streamed.\n\
         pub const STREAM_BLOCKS: u32 = {};\n\
         /// FNV-1a of every frame of features on the host.\n\
         pub const STREAM_FEATURES_DIGEST: u32 = {:#x};\n\
         /// FNV-1a of every frame of features in TensorFlow Lite Micro's Python interpreter.\n\
         pub const STREAM_TFLM_FEATURES_DIGEST: u32 = {tflm_features:#x};\n\
         /// Every network invoke's scores on the host.\n\
         pub const STREAM_HOST_SCORES: [[i16; {CLASSES}]; {INVOKES}] = [{}];\n\
         /// The scores of LiteRT's reference kernels (`kws_svdf.ref_out0.npy`).\n\
         pub const STREAM_REF_SCORES: [[i16; {CLASSES}]; {INVOKES}] = [{}];\n\
         /// The scores of TensorFlow Lite Micro's Python interpreter (`kws_svdf.tflm_out0.npy`).\n\
         pub const STREAM_TFLM_SCORES: [[i16; {CLASSES}]; {INVOKES}] = [{}];\n",
        seals.0,
        seals.1,
        o.blocks,
        o.features_digest,
        rows(&host),
        scores_of("kws_svdf.ref_out0.npy"),
        scores_of("kws_svdf.tflm_out0.npy"),
    )
}

/// `values` as Rust array rows of the streaming network's classes.
#[cfg(feature = "streaming")]
fn rows(values: &[String]) -> String {
    let rows: Vec<String> = values
        .chunks(streaming::CLASSES)
        .map(|r| format!("[{}]", r.join(", ")))
        .collect();
    rows.join(", ")
}
