//! Sets `tessera_arm_dsp` where the target has the Cortex-M DSP extension: the int8
//! convolutions then take their SMLAD bodies (`conv/compute/dsp.rs`). Stable Rust does not
//! expose ARM target features to `cfg` (`target_feature = "dsp"` is unstable), so the target's
//! name decides: `thumbv7em` (Cortex-M4 / M7) always has the extension; a build that enables
//! `dsp` itself (nightly, or `thumbv8m.main` with `-C target-feature=+dsp`) gets it too.

use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(tessera_arm_dsp)");
    println!("cargo::rerun-if-changed=build.rs");
    let target = env::var("TARGET").unwrap_or_default();
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let arm = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "arm");
    if arm && (target.starts_with("thumbv7em") || features.split(',').any(|f| f == "dsp")) {
        println!("cargo::rustc-cfg=tessera_arm_dsp");
    }
}
