//! The loader over real models from TensorFlow's converter (`tests/fixtures/models`, made by
//! `make_models.py`): every fixture loads, and what the views read equals the facts the
//! script read with TensorFlow's own generated schema code (`NAME.json`). Corrupted copies
//! never panic.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_lite::model::{DimensionFormat, Model, Op, SparseIndices, Tensor};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/models")
}

/// Every `.tflite` fixture with its JSON facts.
fn fixtures() -> Vec<(String, Vec<u8>, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("fixtures/models")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".tflite").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "fixtures missing: {names:?}");
    names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir().join(format!("{name}.tflite"))).unwrap();
            let json = std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap();
            (name, bytes, serde_json::from_str(&json).unwrap())
        })
        .collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn sparse_values(v: &SparseIndices<'_>) -> Vec<i64> {
    v.iter().map(|x| x as i64).collect()
}

fn check_tensor(name: &str, t: Tensor<'_>, j: &Value) {
    let at = format!("{name} tensor {}", t.index());
    assert_eq!(t.name(), j["name"].as_str().unwrap(), "{at}");
    assert_eq!(t.tensor_type().name(), j["type"].as_str().unwrap(), "{at}");
    let shape: Vec<i64> = t.shape().iter().map(i64::from).collect();
    assert_eq!(shape, ints(&j["shape"]), "{at}");
    match (&j["shape_signature"], t.shape_signature()) {
        (Value::Null, None) => {}
        (sig, Some(s)) => assert_eq!(
            s.iter().map(i64::from).collect::<Vec<_>>(),
            ints(sig),
            "{at}"
        ),
        (sig, None) => panic!("{at}: signature {sig} not read"),
    }
    assert_eq!(
        t.buffer_index() as u64,
        j["buffer"].as_u64().unwrap(),
        "{at}"
    );
    assert_eq!(t.data().is_some(), j["has_data"].as_bool().unwrap(), "{at}");
    assert_eq!(
        t.data().map_or(0, <[u8]>::len) as u64,
        j["data_bytes"].as_u64().unwrap(),
        "{at}"
    );
    assert_eq!(t.is_variable(), j["is_variable"].as_bool().unwrap(), "{at}");
    assert_eq!(
        t.has_rank(),
        j["has_rank"].as_bool().unwrap_or(false),
        "{at}"
    );
    match (&j["quantization"], t.quantization()) {
        (Value::Null, q) => assert!(q.is_none_or(|q| !q.is_affine()), "{at}"),
        (q, Some(view)) => {
            let scales: Vec<f32> = view.scale().iter().collect();
            // JSON holds the f32 widened to f64; narrowing it back is exact (serde_json's
            // default parser may be one f64 ulp off, never a whole f32 ulp).
            let expected: Vec<f32> = q["scale"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            assert_eq!(scales, expected, "{at}");
            assert_eq!(
                view.zero_point().iter().collect::<Vec<_>>(),
                ints(&q["zero_point"]),
                "{at}"
            );
            assert_eq!(
                view.quantized_dimension() as u64,
                q["quantized_dimension"].as_u64().unwrap(),
                "{at}"
            );
        }
        (q, None) => panic!("{at}: quantization {q} not read"),
    }
    match (&j["sparsity"], t.sparsity()) {
        (Value::Null, None) => {}
        (s, Some(view)) => {
            let order: Vec<i64> = view.traversal_order().iter().map(i64::from).collect();
            assert_eq!(order, ints(&s["traversal_order"]), "{at}");
            let map: Vec<i64> = view.block_map().iter().map(i64::from).collect();
            assert_eq!(map, ints(&s["block_map"]), "{at}");
            let dims = s["dim_metadata"].as_array().unwrap();
            assert_eq!(view.dim_metadata().len(), dims.len(), "{at}");
            for (d, jd) in view.dim_metadata().iter().zip(dims) {
                match d.format() {
                    DimensionFormat::Dense { size } => {
                        assert_eq!(jd["format"], "DENSE", "{at}");
                        assert_eq!(size as u64, jd["dense_size"].as_u64().unwrap(), "{at}");
                    }
                    DimensionFormat::SparseCsr { segments, indices } => {
                        assert_eq!(jd["format"], "SPARSE_CSR", "{at}");
                        let width = |v: &SparseIndices<'_>| match v {
                            SparseIndices::I32(_) => "int32",
                            SparseIndices::U16(_) => "uint16",
                            SparseIndices::U8(_) => "uint8",
                            _ => "other",
                        };
                        for (view, key) in
                            [(segments, "array_segments"), (indices, "array_indices")]
                        {
                            assert_eq!(width(&view), jd[key]["type"], "{at}");
                            assert_eq!(sparse_values(&view), ints(&jd[key]["values"]), "{at}");
                        }
                    }
                    _ => panic!("{at}: unknown format"),
                }
            }
        }
        (s, None) => panic!("{at}: sparsity {s} not read"),
    }
}

#[test]
fn every_fixture_loads_and_reads_as_tensorflow_reads_it() {
    for (name, bytes, j) in fixtures() {
        let model = Model::load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(bytes.len() as u64, j["file_bytes"].as_u64().unwrap());
        assert_eq!(u64::from(model.version()), j["version"].as_u64().unwrap());
        assert_eq!(model.description(), j["description"].as_str(), "{name}");
        assert_eq!(
            model.buffers().len() as u64,
            j["buffers"].as_u64().unwrap(),
            "{name}"
        );
        for jb in j["buffer_data"].as_array().unwrap() {
            let b = model
                .buffers()
                .get(jb["index"].as_u64().unwrap() as usize)
                .unwrap();
            let external = jb["offset"].as_u64().unwrap() > 1;
            assert_eq!(b.is_external(), external, "{name}");
            let len = if external {
                jb["size"].as_u64()
            } else {
                jb["data_bytes"].as_u64()
            };
            assert_eq!(
                b.data().len() as u64,
                len.unwrap(),
                "{name} buffer {}",
                b.index()
            );
        }
        let metadata: Vec<(&str, u64)> = model
            .metadata()
            .iter()
            .map(|m| (m.name(), m.buffer_index() as u64))
            .collect();
        let expected: Vec<(&str, u64)> = j["metadata"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["name"].as_str().unwrap(), m["buffer"].as_u64().unwrap()))
            .collect();
        assert_eq!(metadata, expected, "{name}");
        for (code, jc) in model
            .operator_codes()
            .iter()
            .zip(j["operator_codes"].as_array().unwrap())
        {
            match code.op() {
                Op::Builtin(b) => assert_eq!(b.name(), jc["name"].as_str().unwrap(), "{name}"),
                other => panic!("{name}: {other}"),
            }
            assert_eq!(i64::from(code.version()), jc["version"].as_i64().unwrap());
        }
        let subgraphs = j["subgraphs"].as_array().unwrap();
        assert_eq!(model.subgraphs().len(), subgraphs.len(), "{name}");
        for (sg, js) in model.subgraphs().iter().zip(subgraphs) {
            assert_eq!(sg.name(), js["name"].as_str(), "{name}");
            let raw = |l: tessera_lite::model::TensorIndices<'_>| {
                l.raw().iter().map(i64::from).collect::<Vec<_>>()
            };
            assert_eq!(raw(sg.inputs()), ints(&js["inputs"]), "{name}");
            assert_eq!(raw(sg.outputs()), ints(&js["outputs"]), "{name}");
            let tensors = js["tensors"].as_array().unwrap();
            assert_eq!(sg.tensors().len(), tensors.len(), "{name}");
            for (t, jt) in sg.tensors().iter().zip(tensors) {
                check_tensor(&name, t, jt);
            }
            let ops = js["operators"].as_array().unwrap();
            assert_eq!(sg.operators().len(), ops.len(), "{name}");
            for (op, jo) in sg.operators().iter().zip(ops) {
                let at = format!("{name} operator {}", op.index());
                assert_eq!(op.op().to_string(), jo["op"].as_str().unwrap(), "{at}");
                assert_eq!(
                    op.opcode_index() as u64,
                    jo["opcode_index"].as_u64().unwrap()
                );
                assert_eq!(raw(op.inputs()), ints(&jo["inputs"]), "{at}");
                assert_eq!(raw(op.outputs()), ints(&jo["outputs"]), "{at}");
                assert_eq!(raw(op.intermediates()), ints(&jo["intermediates"]), "{at}");
                assert_eq!(
                    tessera_lite::model::options_name(op.options_type()),
                    jo["builtin_options"].as_str().unwrap(),
                    "{at}"
                );
            }
        }
        let sigs = j["signature_defs"].as_array().unwrap();
        assert_eq!(model.signature_defs().len(), sigs.len(), "{name}");
        for (s, js) in model.signature_defs().iter().zip(sigs) {
            assert_eq!(s.key(), js["signature_key"].as_str().unwrap(), "{name}");
            assert_eq!(
                s.subgraph_index() as u64,
                js["subgraph_index"].as_u64().unwrap()
            );
            for (maps, key) in [(s.inputs(), "inputs"), (s.outputs(), "outputs")] {
                let got: Vec<(&str, u64)> = maps
                    .iter()
                    .map(|m| (m.name(), m.tensor_index() as u64))
                    .collect();
                let want: Vec<(&str, u64)> = js[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| {
                        (
                            m["name"].as_str().unwrap(),
                            m["tensor_index"].as_u64().unwrap(),
                        )
                    })
                    .collect();
                assert_eq!(got, want, "{name} signature {key}");
            }
        }
        assert!(!model.summary().to_string().is_empty());
    }
}

#[test]
fn options_decode_as_stored() {
    use tessera_lite::model::{Activation, BuiltinOptions};
    let (_, bytes, j) = fixtures()
        .into_iter()
        .find(|(n, ..)| n == "sparse")
        .unwrap();
    let model = Model::load(&bytes).unwrap();
    let sg = model.subgraph(0).unwrap();
    for (op, jo) in sg
        .operators()
        .iter()
        .zip(j["subgraphs"][0]["operators"].as_array().unwrap())
    {
        if let BuiltinOptions::FullyConnected(o) = op.options() {
            let act = jo["options"]["fusedActivationFunction"].as_i64().unwrap();
            assert_eq!(o.activation, Activation::from_code(act as i8));
            assert_eq!(
                o.keep_num_dims,
                jo["options"]["keepNumDims"].as_bool().unwrap()
            );
        }
    }
    // The second FULLY_CONNECTED has no bias: an optional input left out.
    let fc = sg.operators().get(2).unwrap();
    assert_eq!(fc.inputs().get(2), Some(None));
}

#[test]
fn string_constants_read_through_tflite_strings() {
    let (_, bytes, _) = fixtures()
        .into_iter()
        .find(|(n, ..)| n == "strings")
        .unwrap();
    let model = Model::load(&bytes).unwrap();
    let sg = model.subgraph(0).unwrap();
    let table = sg
        .tensors()
        .iter()
        .find(|t| t.tensor_type() == tessera_lite::model::TensorType::String && t.is_constant())
        .expect("a STRING constant");
    let strings = table.strings().unwrap();
    assert_eq!(strings.len() as u64, table.element_count());
}

#[test]
fn corrupted_fixtures_never_panic() {
    // 400 bytes spread over each fixture, each XORed with 0xFF and with 0x01 (the loader's
    // own property tests and the fuzz target cover the rest); whatever still loads is walked
    // through the summary. Truncations at 100 lengths each.
    for (name, bytes, _) in fixtures() {
        let stride = (bytes.len() / 400).max(1);
        let mut copy = bytes.clone();
        for i in (0..bytes.len()).step_by(stride) {
            for x in [0xFF, 0x01] {
                copy[i] ^= x;
                if let Ok(model) = Model::load(&copy) {
                    let _ = model.summary().to_string();
                }
                copy[i] = bytes[i];
            }
        }
        // A file may end in padding nothing references (`kws_float_offsets` pads after its
        // last external buffer), so only the first 90 % must be missed.
        for cut in (0..bytes.len()).step_by((bytes.len() / 100).max(1)) {
            match Model::load(&bytes[..cut]) {
                Ok(model) => {
                    assert!(cut >= bytes.len() / 10 * 9, "{name} cut at {cut} loads");
                    let _ = model.summary().to_string();
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }
}
