//! Streaming: a sequence model fed one step per invoke equals the same model over the whole
//! sequence. The sweeps' "stream whole" / "stream step" pairs (tests/fixtures/ops, made by
//! `sweeps/sequence.py`) are one converted model (same weights, same quantization) over the
//! whole sequence and over one step; the step model's state (the LSTM's output and cell
//! states, the RNN's hidden state: variable tensors) carries from invoke to invoke. Each
//! step's output must equal the whole model's output at that step, as tessera runs it and as
//! LiteRT computed it (bit for bit for int8; within the case's tolerance for float32), and
//! `reset_state` must start the stream over.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::Model;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ops")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn width(dtype: &str) -> usize {
    match dtype {
        "float32" | "int32" => 4,
        "int16" => 2,
        _ => 1,
    }
}

/// Little-endian file bytes in the host's order.
fn to_host(mut bytes: Vec<u8>, dtype: &str) -> Vec<u8> {
    let w = width(dtype);
    if cfg!(target_endian = "big") && w > 1 {
        for c in bytes.chunks_exact_mut(w) {
            c.reverse();
        }
    }
    bytes
}

/// A tensor of a case: dtype, shape, host-order bytes.
struct Tensor {
    dtype: String,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

fn tensor(v: &Value) -> Tensor {
    let dtype = v["dtype"].as_str().expect("dtype").to_string();
    let shape = v["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let bytes = to_host(hex(v["hex"].as_str().expect("hex")), &dtype);
    Tensor {
        dtype,
        shape,
        bytes,
    }
}

/// The model file of a case, 16-byte aligned as a device would hold it.
fn model_words(case: &Value) -> (Vec<u128>, usize) {
    let path = dir().join(case["model"].as_str().expect("model"));
    let file = std::fs::read(&path).expect("model file");
    let mut words = vec![0u128; file.len().div_ceil(16)];
    zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..file.len()].copy_from_slice(&file);
    (words, file.len())
}

/// Rows `[b, t, ..]` of a batch-major `[batches, time, width]` tensor's bytes.
fn row<'a>(bytes: &'a [u8], shape: &[usize], elem: usize, b: usize, t: usize) -> &'a [u8] {
    let (time, w) = (shape[1], shape[2] * elem);
    let at = (b * time + t) * w;
    &bytes[at..at + w]
}

/// The whole model's outputs from tessera.
fn run_whole(case: &Value) -> Vec<u8> {
    let (words, len) = model_words(case);
    let bytes = &zerocopy::IntoBytes::as_bytes(&words[..])[..len];
    let model = Model::load(bytes).expect("load");
    let options = Options::default();
    let mut arena = vec![0u8; Interpreter::required(&model, &AllOps, &options).expect("required")];
    let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).expect("set up");
    let x = tensor(&case["inputs"][0]);
    it.input_bytes_mut(0)
        .expect("input")
        .copy_from_slice(&x.bytes);
    it.invoke().expect("invoke");
    it.output_bytes(0).expect("output").to_vec()
}

/// Compares `got` with `want` (host-order bytes of `dtype`): equal, or within `tolerance`.
fn close(got: &[u8], want: &[u8], dtype: &str, tolerance: f64) -> bool {
    if dtype != "float32" {
        return got == want;
    }
    let f = |b: &[u8]| f64::from(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
    got.chunks_exact(4)
        .zip(want.chunks_exact(4))
        .all(|(g, w)| (f(g) - f(w)).abs() <= tolerance)
}

fn stream(json: &str) -> usize {
    let text = std::fs::read_to_string(dir().join(json)).expect("sweep manifest");
    let manifest: Value = serde_json::from_str(&text).expect("json");
    let cases = manifest["cases"].as_array().expect("cases");
    let mut pairs = 0;
    for whole in cases {
        let name = whole["name"].as_str().unwrap_or("");
        let Some(kind) = name.strip_prefix("stream whole ") else {
            continue;
        };
        let kind = kind.split(' ').next().unwrap_or("");
        let step = cases
            .iter()
            .find(|c| {
                c["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(&format!("stream step {kind} ")))
            })
            .unwrap_or_else(|| panic!("{json}: no step model for {name}"));
        let x = tensor(&whole["inputs"][0]);
        let want = tensor(&whole["outputs"][0]);
        let tolerance = whole["outputs"][0]["tolerance"].as_f64().unwrap_or(0.0);
        let tessera_whole = run_whole(whole);
        assert!(
            close(&tessera_whole, &want.bytes, &want.dtype, tolerance),
            "{json} {name}: the whole sequence differs from LiteRT"
        );
        let (batches, time) = (x.shape[0], x.shape[1]);
        let (xe, oe) = (width(&x.dtype), width(&want.dtype));

        let (words, len) = model_words(step);
        let bytes = &zerocopy::IntoBytes::as_bytes(&words[..])[..len];
        let model = Model::load(bytes).expect("load step model");
        let options = Options::default();
        let needed = Interpreter::required(&model, &AllOps, &options).expect("required");
        let mut arena = vec![0u8; needed];
        let mut it = Interpreter::new(model, &AllOps, &mut arena, &options).expect("set up");
        for round in 0..2 {
            for t in 0..time {
                let feed: Vec<u8> = (0..batches)
                    .flat_map(|b| row(&x.bytes, &x.shape, xe, b, t).to_vec())
                    .collect();
                it.input_bytes_mut(0).expect("input").copy_from_slice(&feed);
                it.invoke().expect("invoke a step");
                let got = it.output_bytes(0).expect("output").to_vec();
                let w = got.len() / batches;
                for b in 0..batches {
                    let g = &got[b * w..b * w + w];
                    assert_eq!(
                        g,
                        row(&tessera_whole, &want.shape, oe, b, t),
                        "{json} {name} round {round}: step {t} batch {b} differs from the whole \
                         sequence"
                    );
                    assert!(
                        close(
                            g,
                            row(&want.bytes, &want.shape, oe, b, t),
                            &want.dtype,
                            tolerance
                        ),
                        "{json} {name}: step {t} batch {b} differs from LiteRT"
                    );
                }
            }
            // The stream starts over.
            it.reset_state().expect("reset");
        }
        pairs += 1;
    }
    pairs
}

#[test]
#[cfg_attr(miri, ignore = "model files")]
fn lstm_fed_one_step_at_a_time_equals_the_whole_sequence() {
    assert_eq!(stream("unidirectional_sequence_lstm.json"), 2);
}

#[test]
#[cfg_attr(miri, ignore = "model files")]
fn rnn_fed_one_step_at_a_time_equals_the_whole_sequence() {
    assert_eq!(stream("unidirectional_sequence_rnn.json"), 1);
}
