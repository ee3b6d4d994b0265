//! The reader against FlexBuffers the `flatbuffers` package wrote
//! (tests/fixtures/flexbuffers/make.py), and against every truncation and byte flip of them.

use super::*;

const DETECTION: &[u8] = include_bytes!("../../../../tests/fixtures/flexbuffers/detection.flex");
const NESTED: &[u8] = include_bytes!("../../../../tests/fixtures/flexbuffers/nested.flex");
const VECTOR: &[u8] = include_bytes!("../../../../tests/fixtures/flexbuffers/vector.flex");
const SCALAR: &[u8] = include_bytes!("../../../../tests/fixtures/flexbuffers/scalar.flex");
const LONG: &[u8] = include_bytes!("../../../../tests/fixtures/flexbuffers/long_string.flex");

#[test]
fn detection_options_read_as_written() {
    let m = FlexValue::root(DETECTION).unwrap().as_map().unwrap();
    assert_eq!(m.len(), 11);
    let int = |k| m.get(k).and_then(|v| v.as_i64());
    let float = |k| m.get(k).and_then(|v| v.as_f64());
    assert_eq!(int("max_detections"), Some(10));
    assert_eq!(int("max_classes_per_detection"), Some(1));
    assert_eq!(int("detections_per_class"), Some(100));
    assert_eq!(int("num_classes"), Some(90));
    assert_eq!(
        m.get("use_regular_nms").and_then(|v| v.as_bool()),
        Some(false)
    );
    assert_eq!(float("nms_score_threshold"), Some(0.3));
    assert_eq!(float("nms_iou_threshold"), Some(0.6));
    assert_eq!(float("y_scale"), Some(10.0));
    assert_eq!(float("w_scale"), Some(5.0));
    assert!(m.get("missing").is_none());
    let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
}

#[test]
fn nested_values_read_as_written() {
    let m = FlexValue::root(NESTED).unwrap().as_map().unwrap();
    assert_eq!(m.get("name").and_then(|v| v.as_str()), Some("hello"));
    let ints = m.get("ints").unwrap().as_vector().unwrap();
    let ints: Vec<i64> = ints.iter().filter_map(|v| v.as_i64()).collect();
    assert_eq!(ints, [1, -2, 300_000]);
    let floats = m.get("floats").unwrap().as_vector().unwrap();
    let floats: Vec<f64> = floats.iter().filter_map(|v| v.as_f64()).collect();
    assert_eq!(floats, [0.5, 1.5]);
    let mixed = m.get("mixed").unwrap().as_vector().unwrap();
    assert_eq!(mixed.len(), 4);
    assert_eq!(mixed.get(0).unwrap().as_i64(), Some(1));
    assert_eq!(mixed.get(1).unwrap().as_str(), Some("two"));
    assert_eq!(mixed.get(2).unwrap().as_f64(), Some(3.5));
    assert_eq!(mixed.get(3).unwrap().as_bool(), Some(true));
    assert!(mixed.get(4).is_none());
    assert_eq!(
        m.get("blob").and_then(|v| v.as_bytes()),
        Some(&[0u8, 1, 2][..])
    );
    assert_eq!(m.get("big").and_then(|v| v.as_i64()), Some(-5_000_000_000));
    assert_eq!(m.get("u").and_then(|v| v.as_u64()), Some(1 << 40));
    assert_eq!(m.get("flag").and_then(|v| v.as_bool()), Some(true));
    let inner = m.get("inner").unwrap().as_map().unwrap();
    assert_eq!(inner.get("a").and_then(|v| v.as_i64()), Some(1));
    // The wrong accessor answers None, never a reinterpretation.
    assert!(m.get("name").unwrap().as_i64().is_none());
    assert!(m.get("ints").unwrap().as_map().is_none());
}

#[test]
fn roots_of_every_kind() {
    let v = FlexValue::root(VECTOR).unwrap().as_vector().unwrap();
    assert_eq!(
        v.iter().filter_map(|x| x.as_i64()).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(FlexValue::root(SCALAR).unwrap().as_i64(), Some(-7));
    assert_eq!(
        FlexValue::root(LONG).unwrap().as_str().map(str::len),
        Some(300)
    );
    assert_eq!(FlexValue::root(&[]).unwrap_err(), FlexError::TooShort);
    assert_eq!(
        FlexValue::root(&[0, 4, 3]).unwrap_err(),
        FlexError::Width { width: 3 }
    );
    assert_eq!(FlexValue::root(&[4, 8]).unwrap_err(), FlexError::TooShort);
    assert_eq!(
        FlexValue::root(&[0, 4, 8]).unwrap_err(),
        FlexError::OutOfBounds
    );
}

/// Reads everything a value holds, recursively; returns how many values it reached.
fn walk(v: FlexValue<'_>, depth: usize) -> usize {
    let _ = (
        v.as_i64(),
        v.as_u64(),
        v.as_f64(),
        v.as_bool(),
        v.as_str(),
        v.as_bytes(),
    );
    let mut n = 1;
    if depth < 8 {
        if let Some(m) = v.as_map() {
            for (_, x) in m.iter() {
                n += walk(x, depth + 1);
            }
        } else if let Some(vec) = v.as_vector() {
            for x in vec.iter() {
                n += walk(x, depth + 1);
            }
        }
    }
    n
}

#[test]
#[cfg_attr(
    miri,
    ignore = "thousands of buffers; the reader's unit tests run under Miri"
)]
fn truncations_and_flipped_bytes_read_safely() {
    for sample in [DETECTION, NESTED, VECTOR, SCALAR, LONG] {
        assert!(walk(FlexValue::root(sample).unwrap(), 0) >= 1);
        for n in 0..sample.len() {
            if let Ok(v) = FlexValue::root(&sample[..n]) {
                walk(v, 0);
            }
        }
        let mut bytes = sample.to_vec();
        for i in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                bytes[i] ^= flip;
                if let Ok(v) = FlexValue::root(&bytes) {
                    walk(v, 0);
                }
                bytes[i] ^= flip;
            }
        }
    }
}
