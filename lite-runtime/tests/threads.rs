//! `Options::threads`: every fixture model gives the same output bytes with 1 to 4 threads
//! (kernels split their outputs, never a sum), on pseudo-random inputs and repeated invokes.

use std::path::PathBuf;

use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::{Model, TensorType};

/// Runs `bytes` with `threads` threads on inputs from `seed`, three invokes; each invoke's
/// outputs' bytes (or its error).
fn outputs(bytes: &[u8], threads: usize, seed: u64) -> Vec<Result<Vec<Vec<u8>>, String>> {
    let model = Model::load(bytes).expect("fixture loads");
    let options = Options {
        threads,
        ..Options::default()
    };
    let needed = Interpreter::required(&model, &AllOps, &options).expect("sets up");
    let mut arena = vec![0u8; needed];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).expect("sets up");
    assert_eq!(it.threads(), threads);
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut runs = Vec::new();
    for _ in 0..3 {
        for i in 0..it.input_count() {
            let t = it.input_tensor(i).unwrap();
            match it.tensor_type(t).unwrap() {
                TensorType::String => {
                    let n = it.tensor_shape(t).unwrap().elements();
                    it.set_input_strings(i, std::iter::repeat_n(&b"word"[..], n))
                        .unwrap();
                }
                TensorType::Float32 => {
                    for c in it.input_bytes_mut(i).unwrap().chunks_exact_mut(4) {
                        let v = (next() % 2001) as f32 / 1000.0 - 1.0;
                        c.copy_from_slice(&v.to_ne_bytes());
                    }
                }
                // Small values: valid indices and sizes for the fixtures' gathers.
                TensorType::Int32 | TensorType::Int64 => it.input_bytes_mut(i).unwrap().fill(0),
                _ => it
                    .input_bytes_mut(i)
                    .unwrap()
                    .iter_mut()
                    .for_each(|b| *b = next() as u8),
            }
        }
        runs.push(match it.invoke() {
            Ok(()) => Ok((0..it.output_count())
                .map(|j| it.output_bytes(j).unwrap().to_vec())
                .collect()),
            Err(e) => Err(e.to_string()),
        });
    }
    runs
}

#[test]
#[cfg_attr(miri, ignore)] // whole models; the split itself is tested in the kernels' tests
fn every_fixture_gives_the_same_bytes_with_any_threads() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/models");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tflite") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        for seed in [1, 2] {
            let one = outputs(&bytes, 1, seed);
            assert!(one.iter().any(Result::is_ok), "{}: {one:?}", path.display());
            for threads in 2..=4 {
                assert!(
                    outputs(&bytes, threads, seed) == one,
                    "{} differs with {threads} threads",
                    path.display()
                );
            }
        }
        ran += 1;
    }
    assert!(ran >= 20, "only {ran} fixture models");
}
