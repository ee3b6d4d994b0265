//! The work of every variant but the size-only ones: the CTR job and the keyword-spotting network,
//! each checked against what it must equal.

use cortex_m::peripheral::DWT;
use tessera_data::ctr::Predictor;
use tessera_lite::interpreter::{Interpreter, Options};

use crate::expected::*;
use crate::job::{self, Buffers, JobError, Outcome};
use crate::kws;

/// "matches the host" or "DIFFERS from the host".
pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "matches the host"
    } else {
        "DIFFERS from the host"
    }
}

/// Cycles between two reads of the DWT counter, or `None` where there is none (QEMU).
fn cycles_since(start: u32) -> Option<u32> {
    Some(DWT::cycle_count().wrapping_sub(start)).filter(|&c| c != 0)
}

/// Prints a cycle count, or says why there is none.
fn say_cycles(what: &str, cycles: Option<u32>) {
    match cycles {
        Some(c) => say!("{}: {} cycles", what, c),
        None => say!(
            "{}: cycles not measured (this machine has no DWT cycle counter; QEMU has none)",
            what
        ),
    }
}

/// The CTR job over the bundled dataset; `None` (after saying why) if it fails.
pub fn ctr() -> Option<Outcome> {
    let buffers = cortex_m::singleton!(: Buffers = Buffers::new()).expect("first and only call");
    say!(
        "tessera firmware: batch buffers {} bytes in .bss",
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
            say!("error: setting the CTR model up: {}", e);
            return None;
        }
    };
    say!(
        "CTR model: {} operators, arena {} of {} bytes in .bss, interpreter value {} bytes",
        predictor.interpreter().subgraph().operators().len(),
        predictor.interpreter().arena_used_bytes(),
        ARENA_BYTES,
        core::mem::size_of::<Interpreter<'_, '_>>()
    );

    let start = DWT::cycle_count();
    let result = job::run(job::DEMO_NORM, buffers, &mut predictor);
    let cycles = cycles_since(start);
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            say!("error: {}", e);
            return None;
        }
    };
    say!(
        "samples {} batches {} keys {} positives {} pooled-bits {:#x}",
        outcome.samples,
        outcome.batches,
        outcome.keys,
        outcome.positives,
        outcome.pooled_bits
    );
    say!(
        "predicted {} clicks of {} samples, prediction-bits {:#x}",
        outcome.clicks,
        outcome.samples,
        outcome.prediction_bits
    );
    say_cycles("CTR job", cycles);
    Some(outcome)
}

/// The keyword-spotting int8 network on its reference input: its output if it equals
/// TensorFlow Lite's reference kernels' exactly, else `None` (after saying why).
pub fn kws() -> Option<[i8; KWS_EXPECTED.len()]> {
    static INPUT: [u8; KWS_INPUT_BYTES] = *include_bytes!(concat!(env!("OUT_DIR"), "/kws_in.bin"));
    let arena = cortex_m::singleton!(: [u8; KWS_ARENA_BYTES] = [0; KWS_ARENA_BYTES]).expect("once");
    let ops = kws::ops();
    let setup = kws::model().map_err(JobError::Model).and_then(|m| {
        Interpreter::new(m, &ops, arena, &Options::default()).map_err(JobError::Interpreter)
    });
    let run = setup.and_then(|mut it| {
        let input = it.input_bytes_mut(0).map_err(JobError::Interpreter)?;
        if input.len() != INPUT.len() {
            return Err(JobError::Batch);
        }
        input.copy_from_slice(&INPUT);
        let start = DWT::cycle_count();
        it.invoke().map_err(JobError::Interpreter)?;
        let cycles = cycles_since(start);
        let mut out = [0i8; KWS_EXPECTED.len()];
        let y = it.output::<i8>(0).map_err(JobError::Interpreter)?;
        match y.as_slice() {
            Some(s) if s.len() == out.len() => out.copy_from_slice(s),
            _ => return Err(JobError::Batch),
        }
        Ok((out, it.arena_used_bytes(), cycles))
    });
    match run {
        Ok((out, used, cycles)) => {
            let ok = out == KWS_EXPECTED;
            say!(
                "KWS int8: arena {} of {} bytes in .bss, scores {:?}",
                used,
                KWS_ARENA_BYTES,
                out
            );
            say_cycles("KWS invoke", cycles);
            say!(
                "KWS: {}",
                if ok {
                    "equals TensorFlow Lite's reference kernels"
                } else {
                    "DIFFERS from TensorFlow Lite's reference kernels"
                }
            );
            ok.then_some(out)
        }
        Err(e) => {
            say!("error: the KWS network: {}", e);
            None
        }
    }
}
