//! Conformance with numpy basic slicing: every case in `tests/fixtures/views/views.json`
//! (written by `make_views.py` with numpy; CI never runs Python) must give numpy's shape,
//! strides, offset and values, or an error where numpy raises `IndexError` — through
//! `view`, through `view_mut` (writes land exactly on numpy's elements) and through the DL4J
//! encoding.

use serde_json::Value;
use tessera_core::tensor::{TensorView, TensorViewMut};
use tessera_core::view::{ViewError, ViewIndex, dl4j};

const FIXTURE: &str = include_str!("../fixtures/views/views.json");

fn index(v: &Value) -> ViewIndex {
    if let Some(p) = v.get("point") {
        return ViewIndex::Point(p.as_i64().expect("point"));
    }
    if let Some(s) = v.get("slice") {
        let s = s.as_array().expect("slice");
        return ViewIndex::Interval {
            start: s[0].as_i64().unwrap_or(0),
            end: s[1].as_i64().unwrap_or(i64::MAX),
            stride: s[2].as_i64().expect("step"),
            inclusive: false,
        };
    }
    assert_eq!(v.get("newaxis"), Some(&Value::Bool(true)));
    ViewIndex::NewAxis
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("usize") as usize)
        .collect()
}

#[test]
fn views_match_numpy() {
    let fixture: Value = serde_json::from_str(FIXTURE).expect("valid JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 300, "a few hundred cases");
    let (mut views, mut errors) = (0, 0);
    for (n, case) in cases.iter().enumerate() {
        let shape = usizes(&case["shape"]);
        let indices: Vec<ViewIndex> = case["indices"]
            .as_array()
            .expect("indices")
            .iter()
            .map(index)
            .collect();
        let len: usize = shape.iter().product();
        let mut data: Vec<i64> = (0..len as i64).collect();
        let tensor = TensorView::new(&data[..], &shape).unwrap();
        let mut words = vec![0i64; dl4j::encoded_indices_len(&indices)];
        dl4j::encode_indices(&indices, &mut words).unwrap();
        let ctx = format!("case {n}: shape {shape:?}, indices {indices:?}");
        // numpy's strides of a size-0 array depend on how it was made (`np.empty` gives 0,
        // `np.arange(0).reshape` row-major ones): they are compared for non-empty arrays only.
        if len > 0 {
            assert_eq!(
                tensor.strides(),
                &usizes(&case["base_strides"])[..],
                "{ctx}: base strides"
            );
        }

        if case.get("error").is_some() {
            let e = tensor.view(&indices).expect_err(&ctx);
            assert!(
                matches!(
                    e,
                    ViewError::PointOutOfRange { .. } | ViewError::TooManyIndices { .. }
                ),
                "{ctx}: {e:?}"
            );
            assert_eq!(tensor.view_encoded(&words).unwrap_err(), e, "{ctx}");
            errors += 1;
            continue;
        }
        let v = tensor
            .view(&indices)
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(
            v.shape(),
            &usizes(&case["result_shape"])[..],
            "{ctx}: shape"
        );
        if !v.is_empty() {
            assert_eq!(v.strides(), &usizes(&case["strides"])[..], "{ctx}: strides");
            let offset = case["offset"].as_u64().unwrap() as usize;
            assert_eq!(v.layout().offset(), offset, "{ctx}: offset");
        }
        let expected: Vec<i64> = case["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let got: Vec<i64> = v.iter().copied().collect();
        assert_eq!(got, expected, "{ctx}: values");
        let layout = *v.layout();
        assert_eq!(
            tensor.view_encoded(&words).unwrap().layout(),
            &layout,
            "{ctx}: DL4J"
        );

        // The writable view shares the buffer: exactly numpy's elements change.
        let mut t = TensorViewMut::new(&mut data[..], &shape).unwrap();
        t.view_mut(&indices).unwrap().add_assign_scalar(1_000_000);
        for (p, x) in data.iter().enumerate() {
            let hit = expected.contains(&(p as i64));
            assert_eq!(*x >= 1_000_000, hit, "{ctx}: element {p}");
        }
        views += 1;
    }
    println!(
        "numpy conformance: {views} views and {errors} errors match numpy {}",
        fixture["numpy"]
    );
    assert_eq!(views + errors, cases.len());
}
