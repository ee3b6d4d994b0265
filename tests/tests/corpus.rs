//! The real-model corpus (`tests/corpus`, made by `make_corpus.py`): each model set up and run
//! by tessera with every kernel registered, its outputs against LiteRT's reference kernels
//! (`ref_out{J}.npy`, or TensorFlow Lite Micro's where LiteRT runs no reference, or XNNPACK's
//! where only it runs the model): bit for bit where an output is an integer, within the
//! manifest's `atol` where it is a float (against XNNPACK alone, 1e-5 x the output's largest
//! magnitude).
//!
//! `cargo test` runs the models committed under `tests/corpus/small`. The whole corpus
//! (`tests/corpus/models`, made locally: public files are never committed) runs with
//! `TESSERA_CORPUS=1 cargo test --release -p tessera-tests --test corpus -- --ignored
//! --nocapture`, which prints a table: per model, whether it runs, whether it equals the
//! reference, tessera's arena against TFLM's smallest.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_core::npy::{NpyType, NpyView};
use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::Model;

fn corpus(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(folder)
}

/// What running one model gave.
struct Outcome {
    /// Set up and invoked (else why not).
    ran: Result<(), String>,
    /// Every output equal to the reference (else the first difference).
    equal: Result<(), String>,
    /// tessera's caller memory: arena used plus the interpreter value (inputs' bytes reused
    /// after their last reader, as TFLM does), weights read where they lie (no packing, no
    /// kept DEQUANTIZE outputs: TFLM's way).
    arena: usize,
    /// The same with the default options the run used (weights packed, DEQUANTIZEs of
    /// constants kept): what those cost on top.
    arena_default: usize,
}

fn npy(path: &Path) -> Result<(NpyType, Vec<u8>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let view = NpyView::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut data = view.data().to_vec();
    view.dtype().swap_to_host(&mut data);
    Ok((view.dtype(), data))
}

/// Compares output `got` with reference `want` (both host order) under tolerance `atol`
/// (`None`: exact).
fn compare(dtype: NpyType, got: &[u8], want: &[u8], atol: Option<f64>) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} bytes, the reference {}", got.len(), want.len()));
    }
    match (dtype, atol) {
        (NpyType::F32, Some(atol)) => {
            let f = |b: &[u8]| f64::from(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
            let mut worst = (0.0f64, 0usize);
            for (k, (g, w)) in got.chunks_exact(4).zip(want.chunks_exact(4)).enumerate() {
                let (g, w) = (f(g), f(w));
                if g.is_nan() && w.is_nan() {
                    continue;
                }
                let d = (g - w).abs();
                if d.is_nan() || d > worst.0 {
                    worst = (if d.is_nan() { f64::INFINITY } else { d }, k);
                }
            }
            if worst.0 > atol {
                return Err(format!(
                    "element {} off by {:e} (atol {atol:e})",
                    worst.1, worst.0
                ));
            }
            Ok(())
        }
        _ => match got.iter().zip(want).position(|(a, b)| a != b) {
            Some(k) => Err(format!("byte {k} differs")),
            None => Ok(()),
        },
    }
}

/// The largest magnitude among float32 bytes (host order).
fn largest(bytes: &[u8]) -> f64 {
    bytes
        .chunks_exact(4)
        .map(|b| f64::from(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]).abs()))
        .fold(0.0, f64::max)
}

fn run_model(dir: &Path) -> Outcome {
    let mut outcome = Outcome {
        ran: Ok(()),
        equal: Ok(()),
        arena: 0,
        arena_default: 0,
    };
    let fail = |outcome: &mut Outcome, e: String| {
        outcome.ran = Err(e);
        outcome.equal = Err("did not run".into());
    };
    let manifest: Value = match std::fs::read_to_string(dir.join("manifest.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => {
            fail(&mut outcome, format!("manifest: {e}"));
            return outcome;
        }
    };
    let file = match std::fs::read(dir.join("model.tflite")) {
        Ok(f) => f,
        Err(e) => {
            fail(&mut outcome, format!("model: {e}"));
            return outcome;
        }
    };
    let mut words = vec![0u128; file.len().div_ceil(16)];
    let bytes = &mut zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..file.len()];
    bytes.copy_from_slice(&file);
    // Inputs set before the one invoke: their bytes may be reused after their last reader,
    // as TFLM always does, so the arena compares like for like.
    let options = Options {
        preserve_inputs: false,
        ..Options::default()
    };
    // TFLM's way for the arena it is compared with: weights read where they lie.
    let like_tflm = Options {
        pack_weights: false,
        fold_constants: false,
        ..options
    };
    let set_up = || -> Result<usize, String> {
        let model = Model::load(bytes).map_err(|e| format!("load: {e}"))?;
        let needed =
            Interpreter::required(&model, &AllOps, &like_tflm).map_err(|e| e.to_string())?;
        let mut arena = vec![0u8; needed];
        let it =
            Interpreter::new(model, &AllOps, &mut arena, &like_tflm).map_err(|e| e.to_string())?;
        Ok(it.arena_used_bytes() + size_of::<Interpreter<'_, '_>>())
    };
    let run = || -> Result<(usize, Vec<Vec<u8>>), String> {
        let model = Model::load(bytes).map_err(|e| format!("load: {e}"))?;
        let needed = Interpreter::required(&model, &AllOps, &options).map_err(|e| e.to_string())?;
        let mut arena = vec![0u8; needed];
        let mut it =
            Interpreter::new(model, &AllOps, &mut arena, &options).map_err(|e| e.to_string())?;
        for k in 0..it.input_count() {
            let (_, data) = npy(&dir.join(format!("in{k}.npy")))?;
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
            dst.copy_from_slice(&data);
        }
        it.invoke().map_err(|e| format!("invoke: {e}"))?;
        let outs = (0..it.output_count())
            .map(|j| {
                it.output_bytes(j)
                    .map(<[u8]>::to_vec)
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The caller's memory: the arena used and the interpreter value (TFLM's arena holds
        // both).
        Ok((
            it.arena_used_bytes() + size_of::<Interpreter<'_, '_>>(),
            outs,
        ))
    };
    let (arena_default, outs) = match run() {
        Ok(r) => r,
        Err(e) => {
            fail(&mut outcome, e);
            return outcome;
        }
    };
    outcome.arena_default = arena_default;
    outcome.arena = match set_up() {
        Ok(a) => a,
        Err(e) => {
            fail(&mut outcome, e);
            return outcome;
        }
    };
    let tolerances = manifest["tolerances"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (j, got) in outs.iter().enumerate() {
        // LiteRT's reference kernels, else TFLM's outputs (models only TFLM runs).
        let reference = ["ref_out", "tflm_out", "xnn_out"]
            .iter()
            .map(|p| dir.join(format!("{p}{j}.npy")))
            .find(|p| p.exists());
        let Some(reference) = reference else {
            outcome.equal = Err(format!("output {j}: no reference"));
            break;
        };
        let atol = tolerances
            .iter()
            .find(|t| t["output"].as_u64() == Some(j as u64))
            .and_then(|t| t["atol"].as_f64());
        let xnn_only = reference
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("xnn_out"));
        let checked = npy(&reference)
            .and_then(|(dtype, want)| {
                // Only XNNPACK ran the model (MediaPipe's custom ops: LiteRT's reference
                // kernels have none), so the spread term of the float rule cannot be
                // measured; its floor, 1e-5 x the output's largest magnitude, applies.
                let atol = match (atol, dtype) {
                    (None, NpyType::F32) if xnn_only => Some(1e-5 * largest(&want)),
                    _ => atol,
                };
                compare(dtype, got, &want, atol)
            })
            .map_err(|e| {
                // The reference's file name: the folder is the row's model.
                let file = reference.file_name().unwrap_or_default().to_string_lossy();
                format!("output {j} vs {file}: {e}")
            });
        if let Err(e) = checked {
            outcome.equal = Err(e);
            break;
        }
    }
    outcome
}

fn models(folder: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(corpus(folder)) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("model.tflite").exists())
        .collect();
    dirs.sort();
    dirs
}

#[test]
#[cfg_attr(miri, ignore = "whole networks; the kernels' own tests run under Miri")]
fn the_committed_corpus_equals_its_references() {
    let dirs = models("small");
    assert!(!dirs.is_empty(), "no models in tests/corpus/small");
    let mut report = String::new();
    for dir in &dirs {
        let o = run_model(dir);
        if let Err(e) = o.ran.and(o.equal) {
            report.push_str(&format!("{}: {e}\n", dir.display()));
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// The whole local corpus: a table, and the count of models that run and match.
#[test]
#[ignore = "needs tests/corpus/models (make_corpus.py; git-ignored): TESSERA_CORPUS=1 ... --ignored"]
fn the_whole_corpus() {
    if std::env::var_os("TESSERA_CORPUS").is_none() {
        return;
    }
    let dirs = models("models");
    let (mut ran, mut equal) = (0, 0);
    println!(
        "| model | runs | equals the reference | arena (B) | TFLM arena (B) | ratio | packed and kept (B) |"
    );
    println!("| --- | --- | --- | ---: | ---: | ---: | ---: |");
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let o = run_model(dir);
        let tflm = std::fs::read_to_string(dir.join("manifest.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|m| m["tflm_arena_bytes"].as_u64());
        ran += usize::from(o.ran.is_ok());
        equal += usize::from(o.equal.is_ok());
        let cell = |r: &Result<(), String>| match r {
            Ok(()) => "yes".to_string(),
            Err(e) => format!("no: {}", e.replace('|', "/")),
        };
        let (tflm_cell, ratio) = match (tflm, o.ran.is_ok()) {
            (Some(t), true) => (t.to_string(), format!("{:.2}", o.arena as f64 / t as f64)),
            (Some(t), false) => (t.to_string(), "-".into()),
            _ => ("-".into(), "-".into()),
        };
        let (arena, default) = if o.ran.is_ok() {
            (o.arena.to_string(), o.arena_default.to_string())
        } else {
            ("-".into(), "-".into())
        };
        println!(
            "| {name} | {} | {} | {arena} | {tflm_cell} | {ratio} | {default} |",
            cell(&o.ran),
            cell(&o.equal)
        );
    }
    println!(
        "\n{ran} of {} run, {equal} equal their reference",
        dirs.len()
    );
}
