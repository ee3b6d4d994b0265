//! The custom operators tessera ships, against their references (`tests/fixtures/custom`):
//! `TFLite_Detection_PostProcess` against LiteRT's kernel (`make_detection.py`), MediaPipe's
//! operators against numpy written from MediaPipe's CPU kernels (`make_mediapipe.py`), bit
//! for bit (a NaN equals any NaN); where XNNPACK also runs an operator (MediaPipe's
//! convolution and pooling ones),
//! within the manifest's `xnnpack_tolerance` of its outputs as well. Each case is a
//! one-operator model set up and run with every kernel registered.
//!
//! `TESSERA_CUSTOM_FIXTURES=<dir>` runs the manifests of another folder instead (made by
//! the same scripts, e.g. too large to commit).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_lite::interpreter::{AllOps, Interpreter, Options};
use tessera_lite::model::Model;

fn dir() -> PathBuf {
    std::env::var_os("TESSERA_CUSTOM_FIXTURES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/custom"),
        PathBuf::from,
    )
}

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
        "float16" | "int16" | "uint16" => 2,
        _ => 1,
    }
}

/// Little-endian file bytes to the host's order.
fn to_host(bytes: &mut [u8], dtype: &str) {
    let w = width(dtype);
    if cfg!(target_endian = "big") && w > 1 {
        for c in bytes.chunks_exact_mut(w) {
            c.reverse();
        }
    }
}

fn floats(b: &[u8]) -> impl Iterator<Item = f32> + '_ {
    b.chunks_exact(4)
        .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
}

/// The largest difference between two float tensors (NaN against NaN: none).
fn max_diff(a: &[u8], b: &[u8]) -> f64 {
    floats(a).zip(floats(b)).fold(0.0, |m, (x, y)| {
        if (x.is_nan() && y.is_nan()) || x == y {
            m
        } else {
            let d = (f64::from(x) - f64::from(y)).abs();
            if d.is_nan() { f64::INFINITY } else { m.max(d) }
        }
    })
}

/// Runs one case; `Err` says how it differs. Returns the largest difference from XNNPACK's
/// outputs, where the case has them.
fn run_case(case: &Value) -> Result<Option<f64>, String> {
    let model_path = dir().join(case["model"].as_str().ok_or("no model")?);
    let file = std::fs::read(&model_path).map_err(|e| format!("{}: {e}", model_path.display()))?;
    let mut words = vec![0u128; file.len().div_ceil(16)];
    let bytes = &mut zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..file.len()];
    bytes.copy_from_slice(&file);
    let model = Model::load(bytes).map_err(|e| format!("load: {e}"))?;
    let options = Options::default();
    let needed = Interpreter::required(&model, &AllOps, &options).map_err(|e| format!("{e}"))?;
    let mut arena = vec![0u8; needed];
    let mut it =
        Interpreter::new(model, &AllOps, &mut arena, &options).map_err(|e| format!("{e}"))?;
    for (k, x) in case["inputs"]
        .as_array()
        .ok_or("no inputs")?
        .iter()
        .enumerate()
    {
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
            "{} outputs, the reference {}",
            it.output_count(),
            outputs.len()
        ));
    }
    let mut xnn_worst: Option<f64> = None;
    for (j, want) in outputs.iter().enumerate() {
        let got = it.output_bytes(j).map_err(|e| format!("output {j}: {e}"))?;
        let dtype = want["dtype"].as_str().unwrap_or("");
        let mut expected = hex(want["hex"].as_str().unwrap_or(""));
        to_host(&mut expected, dtype);
        if got.len() != expected.len() {
            return Err(format!(
                "output {j}: {} bytes, the reference {}",
                got.len(),
                expected.len()
            ));
        }
        // Bit for bit, except that any NaN equals any NaN (payloads and signs are the
        // hardware's and the reference's business).
        let w = width(dtype);
        let nan =
            |b: &[u8]| dtype == "float32" && f32::from_ne_bytes([b[0], b[1], b[2], b[3]]).is_nan();
        let differs = got
            .chunks_exact(w)
            .zip(expected.chunks_exact(w))
            .position(|(a, b)| a != b && !(nan(a) && nan(b)));
        if let Some(k) = differs.map(|e| e * w) {
            let detail = if dtype == "float32" {
                let at = k / w * w;
                let f = |b: &[u8]| f32::from_ne_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                format!(": {:e}, the reference {:e}", f(got), f(&expected))
            } else {
                String::new()
            };
            return Err(format!("output {j}: element {} differs{detail}", k / w));
        }
        let xnnpack = want.get("xnnpack").and_then(Value::as_str);
        if let (Some(x), Some(tolerance)) = (xnnpack, want["xnnpack_tolerance"].as_f64()) {
            let mut xnn = hex(x);
            to_host(&mut xnn, dtype);
            let d = max_diff(got, &xnn);
            if d > tolerance {
                return Err(format!(
                    "output {j}: {d:e} from XNNPACK's, over the tolerance {tolerance:e}"
                ));
            }
            xnn_worst = Some(xnn_worst.unwrap_or(0.0).max(d));
        }
    }
    Ok(xnn_worst)
}

#[test]
#[cfg_attr(
    miri,
    ignore = "dozens of models; the kernels' own tests run under Miri"
)]
fn every_custom_operator_case_equals_its_reference() {
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/fixtures/custom")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    manifests.sort();
    assert!(!manifests.is_empty(), "no cases in {}", dir().display());
    let (mut cases, mut report, mut summary) = (0, String::new(), String::new());
    for path in &manifests {
        let text = std::fs::read_to_string(path).expect("manifest");
        let manifest: Value = serde_json::from_str(&text).expect("manifest JSON");
        let op = manifest["op"].as_str().unwrap_or("?");
        let (mut n, mut xnn) = (0, None::<f64>);
        for (k, case) in manifest["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            cases += 1;
            n += 1;
            match run_case(case) {
                Ok(d) => {
                    if let Some(d) = d {
                        xnn = Some(xnn.unwrap_or(0.0).max(d));
                    }
                }
                Err(e) => {
                    let name = case["name"].as_str().unwrap_or("");
                    let _ = writeln!(report, "{op} case {k} ({name}): {e}");
                }
            }
        }
        let _ = write!(summary, "{op}: {n} cases");
        if let Some(d) = xnn {
            let _ = write!(summary, ", at most {d:e} from XNNPACK");
        }
        summary.push('\n');
    }
    println!("{summary}");
    assert!(report.is_empty(), "of {cases} cases:\n{report}");
}
