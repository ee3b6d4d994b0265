//! TensorFlow Lite Micro's signal ops and CIRCULAR_BUFFER against TFLM's Python interpreter
//! (`tests/fixtures/signal`, made by `make_ops.py` and `make_audio.py`), bit for bit:
//!
//! - the per-op sweeps (`ops/<Op>.json`): one-operator models over shapes, options and types,
//!   each run over several invokes with the state carried between them;
//! - a recorded-style stream (`tone_sweep.wav`) fed block by block to a micro_speech-style
//!   front end and to analysis-resynthesis models made there, and, when the local corpus
//!   holds them (`tests/corpus/models`: public files, not committed), to TFLM's micro_speech
//!   audio preprocessors, whose `tflm_out0.npy` on their corpus input is checked too.
//!
//! Every output TFLM defines is compared on every invoke (TFLM leaves `SignalFramer` and
//! `SignalStacker` frames unwritten while `output_valid` is false, and `SignalEnergy`'s bins
//! outside its range). An invoke TFLM ends with kTfLiteAbort (CIRCULAR_BUFFER's stride) must
//! end with tessera's matching error.
//!
//! Every kernel is registered ([`AllOps`]), as a user running these models registers them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_core::npy::NpyView;
use tessera_lite::interpreter::{AllOps, ErrorKind, Interpreter, KernelError, Options};
use tessera_lite::model::Model;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/signal")
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/models")
        .join(name)
}

// ------------------------------------------------------------------------------ helpers

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Bytes per element of a numpy dtype name.
fn width(dtype: &str) -> usize {
    match dtype {
        "float64" | "int64" | "uint64" => 8,
        "float32" | "int32" | "uint32" => 4,
        "int16" | "uint16" => 2,
        _ => 1,
    }
}

/// A tensor of the fixtures (little-endian hex) in the host's order.
fn tensor(t: &Value) -> (Vec<u8>, usize) {
    let w = width(t["dtype"].as_str().unwrap_or(""));
    let mut bytes = hex(t["hex"].as_str().unwrap_or(""));
    if cfg!(target_endian = "big") && w > 1 {
        for c in bytes.chunks_exact_mut(w) {
            c.reverse();
        }
    }
    (bytes, w)
}

/// `got` against TFLM's output `want`, over what TFLM defines of it.
fn compare(got: &[u8], want: &Value) -> Result<(), String> {
    if want.get("undefined").is_some() {
        return Ok(());
    }
    let (expected, w) = tensor(want);
    if got.len() != expected.len() {
        return Err(format!("{} bytes, TFLM {}", got.len(), expected.len()));
    }
    let (start, end) = match want.get("range").and_then(Value::as_array) {
        Some(r) => (
            r[0].as_u64().unwrap_or(0) as usize,
            r[1].as_u64().unwrap_or(0) as usize,
        ),
        None => (0, expected.len() / w),
    };
    let (g, e) = (&got[start * w..end * w], &expected[start * w..end * w]);
    match g
        .chunks_exact(w)
        .zip(e.chunks_exact(w))
        .position(|(a, b)| a != b)
    {
        Some(k) => Err(format!(
            "element {} differs: {:?}, TFLM {:?}",
            start + k,
            &g[k * w..(k + 1) * w],
            &e[k * w..(k + 1) * w]
        )),
        None => Ok(()),
    }
}

/// The model file, 16-byte aligned as a device holds it.
fn aligned(file: &[u8]) -> Vec<u128> {
    let mut words = vec![0u128; file.len().div_ceil(16)];
    zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..file.len()].copy_from_slice(file);
    words
}

fn interpreter<'m, 'a>(
    words: &'m [u128],
    len: usize,
    ops: &'m AllOps,
    arena: &'a mut Vec<u8>,
) -> Result<Interpreter<'m, 'a>, String>
where
    'm: 'a,
{
    let bytes = &zerocopy::IntoBytes::as_bytes(words)[..len];
    let model = Model::load(bytes).map_err(|e| format!("load: {e}"))?;
    let options = Options::default();
    let needed = Interpreter::required(&model, ops, &options).map_err(|e| format!("{e}"))?;
    arena.resize(needed, 0);
    Interpreter::new(model, ops, arena, &options).map_err(|e| format!("set-up: {e}"))
}

/// Whether `e` is CIRCULAR_BUFFER's skipped invoke (TFLM's kTfLiteAbort).
fn skipped(e: &tessera_lite::interpreter::InterpreterError) -> bool {
    matches!(e.kind, ErrorKind::Kernel(KernelError::Mismatch { what }) if what.starts_with("CIRCULAR_BUFFER: this invoke is not"))
}

/// Feeds `inputs`, invokes, and compares every output with the invoke's record.
fn step(it: &mut Interpreter<'_, '_>, inputs: &[Vec<u8>], record: &Value) -> Result<(), String> {
    for (k, data) in inputs.iter().enumerate() {
        let dst = it
            .input_bytes_mut(k)
            .map_err(|e| format!("input {k}: {e}"))?;
        if dst.len() != data.len() {
            return Err(format!(
                "input {k}: {} bytes, the file {}",
                dst.len(),
                data.len()
            ));
        }
        dst.copy_from_slice(data);
    }
    let aborted = record.get("aborted").is_some();
    match it.invoke() {
        Ok(()) if aborted => return Err("ran where TFLM aborted".into()),
        Ok(()) => {}
        Err(e) if aborted && skipped(&e) => {}
        Err(e) => return Err(format!("invoke: {e}")),
    }
    let outputs = record["outputs"].as_array().ok_or("no outputs")?;
    if outputs.len() != it.output_count() {
        return Err(format!(
            "{} outputs, TFLM {}",
            it.output_count(),
            outputs.len()
        ));
    }
    for (j, want) in outputs.iter().enumerate() {
        let got = it.output_bytes(j).map_err(|e| format!("output {j}: {e}"))?;
        compare(got, want).map_err(|e| format!("output {j}: {e}"))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------- the sweeps

fn run_case(case: &Value, ops: &AllOps) -> Result<usize, String> {
    let path = dir()
        .join("ops")
        .join(case["model"].as_str().ok_or("no model")?);
    let file = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let words = aligned(&file);
    let mut arena = Vec::new();
    let mut it = interpreter(&words, file.len(), ops, &mut arena)?;
    let invokes = case["invokes"].as_array().ok_or("no invokes")?;
    for (n, record) in invokes.iter().enumerate() {
        let inputs: Vec<Vec<u8>> = record["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| tensor(x).0)
            .collect();
        step(&mut it, &inputs, record).map_err(|e| format!("invoke {n}: {e}"))?;
    }
    Ok(invokes.len())
}

#[test]
#[cfg_attr(
    miri,
    ignore = "hundreds of models; the kernels' own tests run under Miri"
)]
fn every_signal_op_sweep_equals_tflm() {
    let ops = AllOps;
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(dir().join("ops"))
        .expect("tests/fixtures/signal/ops")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    manifests.sort();
    assert_eq!(manifests.len(), 15, "one sweep per op");
    let (mut cases, mut invokes, mut report) = (0, 0, String::new());
    for path in &manifests {
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("manifest")).expect("JSON");
        let op = manifest["op"].as_str().unwrap_or("?");
        let list = manifest["cases"].as_array().expect("cases");
        assert!(list.len() >= 20, "{op}: {} cases", list.len());
        for (k, case) in list.iter().enumerate() {
            cases += 1;
            match run_case(case, &ops) {
                Ok(n) => invokes += n,
                Err(e) => {
                    let name = case["name"].as_str().unwrap_or("");
                    let _ = writeln!(report, "{op} case {k} ({name}): {e}");
                }
            }
        }
    }
    assert!(report.is_empty(), "of {cases} cases:\n{report}");
    println!("{cases} cases, {invokes} invokes, all equal to TFLM");
}

// ------------------------------------------------------------------------ the tone sweep

/// The samples of a 16-bit PCM .wav (its `data` chunk).
fn wav(path: &Path) -> Vec<i16> {
    let b = std::fs::read(path).expect("wav");
    assert!(
        b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WAVE",
        "not a wav"
    );
    let mut at = 12;
    while at + 8 <= b.len() {
        let size = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        if &b[at..at + 4] == b"data" {
            return b[at + 8..at + 8 + size]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
        }
        at += 8 + size + (size & 1);
    }
    panic!("no data chunk");
}

/// Streams `samples` through the model of `entry` block by block; then resets its state and
/// streams the first blocks again (TFLM's `reset`: the same outputs as from set-up).
fn stream(entry: &Value, file: &[u8], samples: &[i16], ops: &AllOps) -> Result<usize, String> {
    let words = aligned(file);
    let mut arena = Vec::new();
    let mut it = interpreter(&words, file.len(), ops, &mut arena)?;
    let block = entry["block"].as_u64().ok_or("no block")? as usize;
    let hop = entry["hop"].as_u64().ok_or("no hop")? as usize;
    let invokes = entry["invokes"].as_array().ok_or("no invokes")?;
    let feed = |k: usize| {
        let frame = &samples[k * hop..k * hop + block];
        vec![
            frame
                .iter()
                .flat_map(|s| s.to_ne_bytes())
                .collect::<Vec<u8>>(),
        ]
    };
    for (k, record) in invokes.iter().enumerate() {
        step(&mut it, &feed(k), record).map_err(|e| format!("block {k}: {e}"))?;
    }
    it.reset_state().map_err(|e| format!("reset: {e}"))?;
    for (k, record) in invokes.iter().take(8).enumerate() {
        step(&mut it, &feed(k), record).map_err(|e| format!("after reset, block {k}: {e}"))?;
    }
    Ok(invokes.len())
}

#[test]
#[cfg_attr(miri, ignore = "a second of audio through FFTs")]
fn the_tone_sweep_streams_through_every_model_as_in_tflm() {
    let ops = AllOps;
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join("audio.json")).expect("audio.json"),
    )
    .expect("JSON");
    let samples = wav(&dir().join(manifest["wav"].as_str().expect("wav")));
    let mut report = String::new();
    for entry in manifest["models"].as_array().expect("models") {
        let (name, path) = match (entry["model"].as_str(), entry["corpus"].as_str()) {
            (Some(m), _) => (m.to_string(), dir().join(m)),
            (None, Some(c)) => (c.to_string(), corpus(c).join("model.tflite")),
            _ => panic!("an entry without a model"),
        };
        let Ok(file) = std::fs::read(&path) else {
            println!("{name}: not in the local corpus, skipped");
            continue;
        };
        match stream(entry, &file, &samples, &ops) {
            Ok(n) => println!("{name}: {n} blocks equal to TFLM"),
            Err(e) => {
                let _ = writeln!(report, "{name}: {e}");
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
#[cfg_attr(miri, ignore = "reads the local corpus")]
fn the_corpus_preprocessors_equal_their_tflm_outputs() {
    let ops = AllOps;
    for name in [
        "tflm_audio_preprocessor_int8",
        "tflm_audio_preprocessor_float",
    ] {
        let folder = corpus(name);
        let Ok(file) = std::fs::read(folder.join("model.tflite")) else {
            println!("{name}: not in the local corpus, skipped");
            continue;
        };
        let npy = |f: &str| {
            let bytes = std::fs::read(folder.join(f)).expect("npy");
            let view = NpyView::parse(&bytes).expect("npy");
            let mut data = view.data().to_vec();
            view.dtype().swap_to_host(&mut data);
            data
        };
        let words = aligned(&file);
        let mut arena = Vec::new();
        let mut it = interpreter(&words, file.len(), &ops, &mut arena).expect(name);
        it.input_bytes_mut(0)
            .expect("input")
            .copy_from_slice(&npy("in0.npy"));
        it.invoke().expect("invoke");
        assert_eq!(
            it.output_bytes(0).expect("output"),
            &npy("tflm_out0.npy")[..],
            "{name}"
        );
    }
}
