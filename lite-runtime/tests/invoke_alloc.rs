//! The interpreter never allocates: setting a model up over a caller's arena
//! (`Interpreter::new`), filling inputs, `invoke` and `invoke_profiled` make no heap allocation at all, counted by
//! a global counting allocator over every fixture model the interpreter runs. (Only
//! `Interpreter::required` may, with `std`: its temporary plan table.)
//!
//! With `Options::threads` above one, set-up starts the pool's threads (which allocates);
//! after that, invokes allocate nothing, on any thread, counted the same way over the models
//! whose kernels split their work.
//!
//! One test in this binary, so nothing else allocates while it counts.

use std::path::PathBuf;

use tessera_lite::interpreter::{AllOps, Interpreter, OpTimes, Options};
use tessera_lite::model::{Model, TensorType};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

/// Every model the interpreter must run without allocating (the float fixtures of issue 15).
const MODELS: &[&str] = &[
    "ctr",
    "ctr_b4",
    "strings",
    "strings_ops",
    "sparse",
    "sparse_block",
];

#[test]
#[cfg_attr(miri, ignore)] // whole models: minutes under Miri; the kernels' own tests run there
fn setup_inputs_and_invoke_allocate_nothing() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/models");
    let words: [&[u8]; 3] = [b"alpha", b"", b"a string longer than twenty-two bytes"];
    for name in MODELS {
        let bytes = std::fs::read(dir.join(format!("{name}.tflite"))).expect("fixture");
        let model = Model::load(&bytes).expect("fixture loads");
        let options = Options::default();
        let needed = Interpreter::required(&model, &AllOps, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut arena = vec![0u8; needed];
        let mut nanos = vec![0u64; model.subgraph(0).map_or(0, |g| g.operators().len())];

        let before = allocations();
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for i in 0..it.input_count() {
            let t = it.input_tensor(i).unwrap();
            if it.tensor_type(t).unwrap() == TensorType::String {
                let n = it.tensor_shape(t).unwrap().elements();
                it.set_input_strings(i, words.iter().cycle().take(n))
                    .unwrap();
            } else {
                // Zeros: valid indices for every gather in the fixtures.
                it.input_bytes_mut(i).unwrap().fill(0);
            }
        }
        for _ in 0..5 {
            it.invoke().unwrap_or_else(|e| panic!("{name}: {e}"));
            it.invoke_profiled(&mut OpTimes::new(&mut nanos))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let _ = it.output_bytes(0).unwrap();
        let made = allocations() - before;
        assert_eq!(
            made, 0,
            "{name}: {made} allocations in set-up, inputs and 5 invokes (and 5 profiled)"
        );
    }
    for name in THREADED {
        let bytes = std::fs::read(dir.join(format!("{name}.tflite"))).expect("fixture");
        let model = Model::load(&bytes).expect("fixture loads");
        let options = Options {
            threads: 3,
            ..Options::default()
        };
        let needed = Interpreter::required(&model, &AllOps, &options).unwrap();
        let mut arena = vec![0u8; needed];
        let mut nanos = vec![0u64; model.subgraph(0).map_or(0, |g| g.operators().len())];
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).unwrap();
        assert_eq!(it.threads(), 3);
        it.invoke().unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = allocations();
        for _ in 0..5 {
            for i in 0..it.input_count() {
                it.input_bytes_mut(i).unwrap().fill(1);
            }
            it.invoke().unwrap_or_else(|e| panic!("{name}: {e}"));
            it.invoke_profiled(&mut OpTimes::new(&mut nanos))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let made = allocations() - before;
        assert_eq!(
            made, 0,
            "{name}: {made} allocations in 10 invokes on 3 threads"
        );
    }
}

/// Models whose convolutions and FULLY_CONNECTED layers are large enough to be split over
/// threads.
const THREADED: &[&str] = &[
    "image_float",
    "image_int8",
    "kws_int8",
    "kws_int16",
    "int8_dense",
];
