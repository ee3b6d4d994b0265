//! Runs the firmware's job (`src/job.rs`) on the host at build time and writes what it found
//! to `$OUT_DIR/expected.rs`: the firmware exits non-zero unless it finds the same, bit for
//! bit.

#[path = "src/job.rs"]
#[allow(dead_code)]
mod job;

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // memory.x for cortex-m-rt's link.x, found through the link search path.
    fs::copy("memory.x", out.join("memory.x")).expect("memory.x beside build.rs");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=src/job.rs");
    println!("cargo:rerun-if-changed=../../lite-runtime/data/demo.norm");

    let mut buf = Box::new(job::Buffers::new());
    let o = job::run(job::DEMO_NORM, &mut buf).expect("the bundled dataset decodes on the host");
    let text = format!(
        "/// What the host found running the same job at build time.\n\
         pub const EXPECTED: Outcome = Outcome {{ samples: {}, keys: {}, batches: {}, \
         pooled_bits: {:#x}, positives: {} }};\n",
        o.samples, o.keys, o.batches, o.pooled_bits, o.positives
    );
    fs::write(out.join("expected.rs"), text).expect("OUT_DIR is writable");
}
