//! LiteRT's answers as the fixture scripts write them (JSON: dtype, shape, little-endian hex,
//! and `exact` or a `tolerance`), and the comparison of tessera's outputs with them.

use serde_json::Value;

pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Bytes per element of a numpy dtype name, for byte-order swaps on a big-endian host.
pub fn width(dtype: &str) -> usize {
    match dtype {
        "float64" | "int64" | "uint64" => 8,
        "float32" | "int32" | "uint32" => 4,
        "float16" | "int16" | "uint16" => 2,
        _ => 1,
    }
}

/// Little-endian file bytes to the host's order (or back).
pub fn to_host(bytes: &mut [u8], dtype: &str) {
    let w = width(dtype);
    if cfg!(target_endian = "big") && w > 1 {
        for c in bytes.chunks_exact_mut(w) {
            c.reverse();
        }
    }
}

/// Compares output `got` (host order) with the expected tensor `want`; `Err` says how they
/// differ.
pub fn compare(got: &[u8], want: &Value) -> Result<(), String> {
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

/// A model file's bytes at a 16-byte aligned address, so constants are read in place as a
/// device would (the bytes are the first `file.len()` of the words).
pub fn aligned(file: &[u8]) -> Vec<u128> {
    let mut words = vec![0u128; file.len().div_ceil(16)];
    zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..file.len()].copy_from_slice(file);
    words
}
