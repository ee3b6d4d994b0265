//! tessera on a Cortex-M4F (QEMU's `mps2-an386`), with no heap: decodes the bundled Norm
//! dataset from flash into CSR batches, sum-pools every slot over an embedding table in
//! flash, predicts every sample with the bundled CTR model (a TensorFlow Lite file in flash,
//! run by tessera's interpreter over a static arena sized on the host), prints what it found
//! through semihosting, and exits non-zero unless that is what the host found running the
//! same code at build time (`build.rs`), bit for bit.
//!
//! `run.sh` builds it and runs it under `qemu-system-arm`.
#![no_std]
#![no_main]

mod job;

use core::panic::PanicInfo;

use cortex_m::peripheral::{DWT, Peripherals};
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use job::{Buffers, JobError, Outcome};
use tessera_lite::ctr::Predictor;
use tessera_lite::interpreter::{Interpreter, Options};

include!(concat!(env!("OUT_DIR"), "/expected.rs"));

#[entry]
fn main() -> ! {
    let mut core = Peripherals::take().expect("first and only take");
    core.DCB.enable_trace();
    core.DWT.enable_cycle_counter();

    let buffers = cortex_m::singleton!(: Buffers = Buffers::new()).expect("first and only call");
    hprintln!(
        "tessera firmware: no heap, batch buffers {} bytes in .bss",
        Buffers::bytes()
    );

    let arena = cortex_m::singleton!(: [u8; ARENA_BYTES] = [0; ARENA_BYTES]).expect("once");
    let ops = job::ctr_ops();
    let setup = job::model().map_err(JobError::Model).and_then(|m| {
        Interpreter::new(m, &ops, arena, &Options::default()).map_err(JobError::Interpreter)
    });
    let mut predictor = match setup.and_then(|it| Predictor::new(it).map_err(JobError::Predict)) {
        Ok(p) => p,
        Err(e) => {
            hprintln!("error: setting the model up: {}", e);
            exit(false)
        }
    };
    hprintln!(
        "model: {} operators, arena {} of {} bytes in .bss, interpreter value {} bytes",
        predictor.interpreter().subgraph().operators().len(),
        predictor.interpreter().arena_used_bytes(),
        ARENA_BYTES,
        core::mem::size_of::<Interpreter<'_, '_>>()
    );

    let start = DWT::cycle_count();
    let result = job::run(job::DEMO_NORM, buffers, &mut predictor);
    let cycles = DWT::cycle_count().wrapping_sub(start);

    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            hprintln!("error: {}", e);
            exit(false)
        }
    };
    hprintln!(
        "samples {} batches {} keys {} positives {} pooled-bits {:#x}",
        outcome.samples,
        outcome.batches,
        outcome.keys,
        outcome.positives,
        outcome.pooled_bits
    );
    hprintln!(
        "predicted {} clicks of {} samples, prediction-bits {:#x}",
        outcome.clicks,
        outcome.samples,
        outcome.prediction_bits
    );
    if cycles == 0 {
        hprintln!("cycles: not measured (this machine has no DWT cycle counter; QEMU has none)");
    } else {
        hprintln!("cycles: {}", cycles);
    }
    let ok = outcome == EXPECTED;
    hprintln!(
        "{}",
        if ok {
            "matches the host"
        } else {
            "DIFFERS from the host"
        }
    );
    exit(ok)
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

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    hprintln!("panic: {}", info);
    exit(false)
}
