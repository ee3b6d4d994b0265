//! tessera on a Cortex-M4F (QEMU's `mps2-an386`). Every variant but the size-only ones
//! decodes the bundled Norm dataset from flash into CSR batches, sum-pools every slot over an
//! embedding table in flash, predicts every sample with the bundled CTR model (a TensorFlow
//! Lite file in flash, run by tessera's interpreter over a static arena sized on the host),
//! runs the keyword-spotting int8 network on its reference input, prints what it found
//! through semihosting, and exits non-zero unless that is what the host found running the
//! same code at build time (`build.rs`) and what TensorFlow Lite's reference kernels give,
//! bit for bit.
//!
//! Variants (cargo features; `run.sh VARIANT` builds and runs one):
//! - none (`noheap`): no `#[global_allocator]`, everything in static memory;
//! - `heap`: adds `embedded-alloc` and a string model fed LARGE `TString`s (`src/strings_job.rs`);
//! - `defmt`: adds defmt over semihosting and logs a tessera-core error with `defmt::Format`;
//! - `framework`: only the loader, planner and interpreter, no kernel, to measure their size;
//! - `keyword`: the framework and the keyword-spotting network's five kernels alone, running
//!   it once (the size to set beside TensorFlow Lite Micro's keyword benchmark);
//! - `baseline`: none of tessera, only the runtime and one printed line, the size that
//!   `framework` and `keyword` are measured from (as TensorFlow Lite Micro measures its own).
//!
//! - `streaming`: TensorFlow Lite Micro's audio front end (signal ops) and an int8 SVDF keyword
//!   network over a synthetic clip, 10 ms at a time (`src/stream_app.rs`), checked against the
//!   host and TensorFlow Lite Micro's Python interpreter, instructions per frame counted.
//!
//! The last three, and `streaming` (which runs its own job and not the CTR one), are "size-only" variants (`cfg(size_only)`, set by `build.rs`). The
//! `sealed` feature (on in `app`; `framework-sealed` and `keyword-sealed` with `run.sh`) loads
//! the keyword-spotting network by the seal `build.rs` made on the host
//! (`Model::load_sealed`), so that nothing links the verifier for it. The `nano-mem` feature
//! (`run.sh VARIANT+nano-mem`) replaces Rust's `memcpy` / `memset` with byte loops, for size
//! (`src/nano_mem.rs`).
#![no_std]
#![no_main]

// The size-only variants measure one thing each: nothing else may be linked beside them.
#[cfg(any(
    all(
        any(
            feature = "framework",
            feature = "keyword",
            feature = "baseline",
            feature = "streaming"
        ),
        any(feature = "heap", feature = "defmt")
    ),
    all(
        feature = "streaming",
        any(feature = "framework", feature = "keyword", feature = "baseline")
    ),
    all(feature = "framework", feature = "keyword"),
    all(feature = "framework", feature = "baseline"),
    all(feature = "keyword", feature = "baseline"),
))]
compile_error!(
    "the size-only variants (`framework`, `keyword`, `baseline`) and `streaming` build alone"
);

#[macro_use]
mod say;

#[cfg(not(size_only))]
mod app;
#[cfg(feature = "count")]
mod count;
#[cfg(feature = "defmt")]
mod defmt_log;
#[cfg(feature = "framework")]
mod framework;
#[cfg(feature = "heap")]
mod heap;
#[cfg(not(size_only))]
mod job;
#[cfg(feature = "keyword")]
mod keyword;
#[cfg(not(any(feature = "baseline", feature = "streaming")))]
mod kws;
#[cfg(feature = "nano-mem")]
mod nano_mem;
#[cfg(feature = "streaming")]
mod stream_app;
#[cfg(feature = "streaming")]
mod streaming;
#[cfg(feature = "heap")]
mod strings_job;

use core::panic::PanicInfo;

use cortex_m::peripheral::Peripherals;
use cortex_m_rt::entry;
use cortex_m_semihosting::debug;

/// What `build.rs` found on the host, and the arenas it sized.
#[cfg_attr(size_only, allow(dead_code))]
mod expected {
    #[cfg(not(size_only))]
    use crate::job::Outcome;
    #[cfg(feature = "heap")]
    use crate::strings_job::StringsOutcome;
    include!(concat!(env!("OUT_DIR"), "/expected.rs"));
}

#[entry]
fn main() -> ! {
    let mut core = Peripherals::take().expect("first and only take");
    core.DCB.enable_trace();
    core.DWT.enable_cycle_counter();

    #[cfg(feature = "framework")]
    exit(framework::run());

    #[cfg(feature = "keyword")]
    exit(keyword::run());

    #[cfg(feature = "streaming")]
    exit(stream_app::run(core.SYST));

    #[cfg(feature = "baseline")]
    {
        // A u32 known only at run time, as the framework variant prints one (a literal
        // would be folded into the text, linking no formatting at all).
        say!(
            "baseline: the runtime alone, exit status {}",
            core::hint::black_box(0u32)
        );
        exit(true)
    }

    #[cfg(not(size_only))]
    {
        let Some(outcome) = app::ctr() else {
            exit(false)
        };
        let mut ok = outcome == expected::EXPECTED;
        say!("CTR: {}", app::verdict(ok));
        let kws = app::kws();
        ok &= kws.is_some();
        #[cfg(feature = "heap")]
        {
            ok &= heap::run();
        }
        #[cfg(feature = "defmt")]
        {
            ok &= defmt_log::run(&outcome, kws.as_ref().map(|k| &k[..]));
        }
        exit(ok)
    }
}

fn exit(ok: bool) -> ! {
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Not under a debugger or QEMU: nothing to exit to.
    loop {
        cortex_m::asm::wfi();
    }
}

/// Prints the panic and exits with a failure. The size-only variants exit without printing,
/// as `panic-halt` would: formatting a `PanicInfo` links `core::fmt`'s string and location
/// printing (1.4 KB) into any image that can panic, which would be counted as the framework's.
#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    #[cfg(not(size_only))]
    say!("panic: {}", info);
    #[cfg(size_only)]
    let _ = info;
    exit(false)
}
