//! The per-operator sweeps (`tests/fixtures/ops`, made by `make_sweeps.py` with TensorFlow's
//! converter and LiteRT): every case's model set up and run by tessera with every kernel
//! registered, each output equal to LiteRT's reference kernels (`BUILTIN_REF`): bit for bit
//! where the output is quantized (or an integer), within the case's tolerance where it is a
//! float (max(4 x the spread between LiteRT's reference and XNNPACK, 1e-5 x the output's
//! largest magnitude)). A failure names the operator, the case and the output.

use std::fmt::Write as _;
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

/// Bytes per element of a numpy dtype name, for byte-order swaps on a big-endian host.
fn width(dtype: &str) -> usize {
    match dtype {
        "float64" | "int64" | "uint64" => 8,
        "float32" | "int32" | "uint32" => 4,
        "float16" | "int16" | "uint16" => 2,
        _ => 1,
    }
}

/// Little-endian file bytes to the host's order (or back).
fn to_host(bytes: &mut [u8], dtype: &str) {
    let w = width(dtype);
    if cfg!(target_endian = "big") && w > 1 {
        for c in bytes.chunks_exact_mut(w) {
            c.reverse();
        }
    }
}

/// Compares output `got` (host order) with the expected tensor `want`; `Err` says how they
/// differ.
fn compare(got: &[u8], want: &Value) -> Result<(), String> {
    let dtype = want["dtype"].as_str().unwrap_or("");
    let mut expected = hex(want["hex"].as_str().unwrap_or(""));
    to_host(&mut expected, dtype);
    if got.len() != expected.len() {
        return Err(format!("{} bytes, LiteRT {}", got.len(), expected.len()));
    }
    if want.get("exact").is_some() || dtype != "float32" {
        if let Some(k) = got.iter().zip(&expected).position(|(a, b)| a != b) {
            let w = width(dtype);
            return Err(format!("element {} differs (exact)", k / w));
        }
        return Ok(());
    }
    let tolerance = want["tolerance"].as_f64().unwrap_or(0.0);
    let f = |b: &[u8]| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    let mut worst = (0.0f64, 0usize);
    for (k, (g, w)) in got
        .chunks_exact(4)
        .zip(expected.chunks_exact(4))
        .enumerate()
    {
        let (g, w) = (f(g), f(w));
        if g.is_nan() && w.is_nan() {
            continue;
        }
        let d = if g == w {
            0.0
        } else {
            (f64::from(g) - f64::from(w)).abs()
        };
        if d.is_nan() || d > worst.0 {
            worst = (if d.is_nan() { f64::INFINITY } else { d }, k);
        }
    }
    if worst.0 > tolerance {
        return Err(format!(
            "element {} off by {:e}, over the tolerance {:e}",
            worst.1, worst.0, tolerance
        ));
    }
    Ok(())
}

/// Runs one case; `Err` says why it does not equal LiteRT.
fn run_case(case: &Value) -> Result<(), String> {
    let model_path = dir().join(case["model"].as_str().ok_or("no model")?);
    let file = std::fs::read(&model_path).map_err(|e| format!("{}: {e}", model_path.display()))?;
    // 16-byte aligned, so constants are read in place as a device would.
    let mut words = vec![0u128; file.len().div_ceil(16)];
    let bytes = &mut zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..file.len()];
    bytes.copy_from_slice(&file);
    let model = Model::load(bytes).map_err(|e| format!("load: {e}"))?;
    let options = Options::default();
    let needed = Interpreter::required(&model, &AllOps, &options).map_err(|e| format!("{e}"))?;
    let mut arena = vec![0u8; needed];
    let mut it =
        Interpreter::new(model, &AllOps, &mut arena, &options).map_err(|e| format!("{e}"))?;
    let inputs = case["inputs"].as_array().ok_or("no inputs")?;
    for (k, x) in inputs.iter().enumerate() {
        let dtype = x["dtype"].as_str().unwrap_or("");
        let mut data = hex(x["hex"].as_str().unwrap_or(""));
        to_host(&mut data, dtype);
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
    let outputs = case["outputs"].as_array().ok_or("no outputs")?;
    if outputs.len() != it.output_count() {
        return Err(format!(
            "{} outputs, LiteRT {}",
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

#[test]
#[cfg_attr(
    miri,
    ignore = "hundreds of models; the kernels' own tests run under Miri"
)]
fn every_operator_sweep_equals_litert() {
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/fixtures/ops")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    manifests.sort();
    assert!(!manifests.is_empty(), "no sweeps in {}", dir().display());
    let (mut cases, mut report) = (0, String::new());
    for path in &manifests {
        let text = std::fs::read_to_string(path).expect("manifest");
        let manifest: Value = serde_json::from_str(&text).expect("manifest JSON");
        let op = manifest["op"].as_str().unwrap_or("?");
        for (k, case) in manifest["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            cases += 1;
            if let Err(e) = run_case(case) {
                let name = case["name"].as_str().unwrap_or("");
                let _ = writeln!(report, "{op} case {k} ({name}): {e}");
            }
        }
    }
    assert!(report.is_empty(), "of {cases} cases:\n{report}");
}
