//! Runs the firmware's job (`src/job.rs`) on the host at build time and writes what it found
//! to `$OUT_DIR/expected.rs`: the firmware exits non-zero unless it finds the same, bit for
//! bit.

#[path = "src/job.rs"]
#[allow(dead_code)]
mod job;

use std::{env, fs, path::PathBuf};

use tessera_core::plan::{Lifetime, PlanBuffer};
use tessera_lite::ctr::Predictor;
use tessera_lite::interpreter::{Interpreter, Options};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // memory.x for cortex-m-rt's link.x, found through the link search path.
    fs::copy("memory.x", out.join("memory.x")).expect("memory.x beside build.rs");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=src/job.rs");
    println!("cargo:rerun-if-changed=../../lite-runtime/data/demo.norm");
    println!("cargo:rerun-if-changed=../../lite-runtime/data/ctr_b4.tflite");

    let ops = job::ctr_ops();
    let model = job::model().expect("the bundled model loads");
    let options = Options::default();
    // tessera-lite without std plans `required` on a stack table of 256 entries; the CTR
    // model has 383 (tensors + operators), so the host gives it a table.
    let graph = model.subgraph(0).expect("a main graph");
    let entries = graph.tensors().len() + graph.operators().len();
    let mut plan = vec![PlanBuffer::new(0, 1, Lifetime::ALWAYS); entries];
    let arena_bytes =
        Interpreter::required_with(&model, &ops, &options, &mut plan).expect("the model sets up");
    let mut arena = vec![0u8; arena_bytes];
    let it = Interpreter::new(model, &ops, &mut arena, &options).expect("the model sets up");
    let mut predictor = Predictor::new(it).expect("the bundled CTR model");
    let mut buf = Box::new(job::Buffers::new());
    let o = job::run(job::DEMO_NORM, &mut buf, &mut predictor)
        .expect("the bundled dataset decodes on the host");
    let text = format!(
        "/// What the host found running the same job at build time.\n\
         pub const EXPECTED: Outcome = Outcome {{ samples: {}, keys: {}, batches: {}, \
         pooled_bits: {:#x}, positives: {}, prediction_bits: {:#x}, clicks: {} }};\n\
         /// The arena the model needs (`Interpreter::required`, on the host).\n\
         pub const ARENA_BYTES: usize = {arena_bytes};\n",
        o.samples, o.keys, o.batches, o.pooled_bits, o.positives, o.prediction_bits, o.clicks
    );
    fs::write(out.join("expected.rs"), text).expect("OUT_DIR is writable");
}
