//! Fuzzes the interpreter: the first bytes choose how inputs are filled, the rest is a model.
//! Whatever loads is set up (any error is fine) and, if it sets up, invoked twice with inputs
//! filled from the fuzz bytes; nothing may panic, read out of bounds or loop without end. A
//! model that sets up is also set up in a shorter arena (a fraction chosen by the fuzz bytes),
//! which must succeed or say `ArenaTooSmall` with more bytes than it got.
//! Seeds: the fixture models (`corpus/interpret/seed-*`, each with 8 leading bytes): the
//! control-flow and custom-op fixtures, the first case of every operator sweep
//! (`seed-op-*`) and one model of each signal op (`seed-signal-*`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_lite::interpreter::{AllOps, ErrorKind, Interpreter, Options};
use tessera_lite::model::{Model, TensorType};

/// Bigger arenas are skipped: the fuzzer would spend its time in memset.
const MAX_ARENA: usize = 16 << 20;

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (head, model_bytes) = data.split_at(8);
    let Ok(model) = Model::load(model_bytes) else {
        return;
    };
    let options = Options {
        string_bytes: 64 + usize::from(head[0]) * 4,
        // Loops whose trip count comes from the data stop early (the bound's error path is
        // fuzzed too), so that each run stays short.
        max_loop_iterations: 1 + u32::from(head[6]) * 4,
        // Both ways for each: weights packed or read in place, DEQUANTIZEs of constants kept
        // or recomputed (the low four bits of head[1] size the string chunks below).
        pack_weights: head[1] & 0x10 != 0,
        fold_constants: head[1] & 0x20 != 0,
        // One thread or three: the scratch each thread gets, and the split of kernels whose
        // work is large enough.
        threads: if head[1] & 0x40 != 0 { 3 } else { 1 },
        ..Options::default()
    };
    let Ok(needed) = Interpreter::required(&model, &AllOps, &options) else {
        return;
    };
    if needed > MAX_ARENA {
        return;
    }
    let mut arena = vec![0u8; needed];
    let Ok(mut it) = Interpreter::new(model, &AllOps, &mut arena, &options) else {
        return;
    };
    assert!(it.arena_used_bytes() <= needed);
    // The same model in fewer bytes: within them, or ArenaTooSmall saying how many more.
    let short = needed * usize::from(head[7]) / 256;
    let mut small = vec![0u8; short];
    match Interpreter::new(model, &AllOps, &mut small, &options) {
        Ok(s) => assert!(s.arena_used_bytes() <= short),
        Err(e) => match e.kind {
            ErrorKind::ArenaTooSmall {
                needed: n,
                available,
            } => assert!(
                available == short && n > short && n <= needed,
                "{n} {short}"
            ),
            _ => panic!("sets up in {needed} bytes but in {short}: {e}"),
        },
    }
    // Inputs: numbers from the head bytes (small values and indices, so gathers hit and
    // miss), strings from the model's own bytes.
    for i in 0..it.input_count() {
        let Ok(t) = it.input_tensor(i) else { continue };
        if it.tensor_type(t) == Ok(TensorType::String) {
            let words = model_bytes.chunks(1 + usize::from(head[1] % 16)).take(8);
            let _ = it.set_input_strings(i, words);
        } else if let Ok(bytes) = it.input_bytes_mut(i) {
            for (k, b) in bytes.iter_mut().enumerate() {
                *b = head[2 + k % 6];
            }
        }
    }
    for _ in 0..2 {
        if it.invoke().is_err() {
            break;
        }
    }
    for j in 0..it.output_count() {
        let _ = it.output_bytes(j);
        let _ = it.output_strings(j);
    }
});
