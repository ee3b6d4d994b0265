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

mod common;

use common::litert::{aligned, compare, hex, to_host};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ops")
}

/// Runs one case; `Err` says why it does not equal LiteRT.
fn run_case(case: &Value) -> Result<(), String> {
    let model_path = dir().join(case["model"].as_str().ok_or("no model")?);
    let file = std::fs::read(&model_path).map_err(|e| format!("{}: {e}", model_path.display()))?;
    let words = aligned(&file);
    let model = Model::load(&zerocopy::IntoBytes::as_bytes(&words[..])[..file.len()])
        .map_err(|e| format!("load: {e}"))?;
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
