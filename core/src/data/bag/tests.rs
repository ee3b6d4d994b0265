//! Typed pooling against naive references: bit for bit against the documented operations
//! (written out again here, decoding by the formats' definitions), within the stated bound
//! against exact `f64` arithmetic, and bit for bit against the `f32` pooling for `f32` rows.
//! Every row type, weighted and not, sum and mean, random widths (tails included) and tables.

extern crate std;

use std::string::ToString;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::*;
use crate::data::{RowType, embedding_bag};

/// Output rows a failing call must leave as they were.
const JUNK: f32 = 12345.5;
const MAX_DIM: usize = if cfg!(miri) { 5 } else { 19 };
const MAX_ROWS: usize = if cfg!(miri) { 3 } else { 10 };
const MAX_VOCAB: usize = 12;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 256 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

/// `2^e` built from its bits: exact (Miri perturbs `powi`, as it may any inexact operation).
pub(crate) fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}
/// A finite `f32` in about `-1000..1000` from 32 random bits, signed zeros now and then.
pub(crate) fn finite(r: u32) -> f32 {
    match r % 16 {
        0 => 0.0,
        1 => -0.0,
        _ => ((r >> 8) as f32 / (1 << 24) as f32) * 2000.0 - 1000.0,
    }
}

/// A table of `vocab` rows of `width` values of `row_type`, encoded from random words:
/// finite values only (binary16 subnormals and signed zeros included), int8 scales in
/// `(0, 1]` and biases in `-10..10`.
pub(crate) fn encode(row_type: RowType, width: usize, vocab: usize, words: &[u32]) -> Vec<u8> {
    let mut word = words.iter().copied().cycle();
    let mut next = move || word.next().unwrap_or(0x9E37_79B9);
    let mut bytes = Vec::new();
    for _ in 0..vocab {
        for _ in 0..width {
            let r = next();
            match row_type {
                RowType::F32 => bytes.extend_from_slice(&finite(r).to_le_bytes()),
                RowType::F16 => {
                    let mut h = r as u16;
                    if (h >> 10) & 0x1F == 0x1F {
                        h &= !0x4000; // no infinities or NaNs
                    }
                    bytes.extend_from_slice(&h.to_le_bytes());
                }
                RowType::Bf16 => {
                    let h = (finite(r).to_bits() >> 16) as u16;
                    bytes.extend_from_slice(&h.to_le_bytes());
                }
                RowType::Int8Rowwise => bytes.push(r as u8),
            }
        }
        if row_type == RowType::Int8Rowwise {
            let scale = ((next() >> 8) + 1) as f32 / (1 << 24) as f32;
            let bias = finite(next()) / 100.0;
            bytes.extend_from_slice(&scale.to_le_bytes());
            bytes.extend_from_slice(&bias.to_le_bytes());
        }
    }
    bytes
}

/// Value `j` of row `k` by the formats' definitions, in `f64`: exactly the stored value
/// (for int8, `q * scale + bias` unrounded), and its magnitude bound for the error bound
/// (`|q * scale| + |bias|` for int8).
pub(crate) fn exact(
    bytes: &[u8],
    row_type: RowType,
    width: usize,
    k: usize,
    j: usize,
) -> (f64, f64) {
    let stride = row_type.row_bytes(width).unwrap();
    let row = &bytes[k * stride..(k + 1) * stride];
    let half = |at: usize| u16::from_le_bytes([row[at], row[at + 1]]);
    let float = |at: usize| f32::from_le_bytes([row[at], row[at + 1], row[at + 2], row[at + 3]]);
    match row_type {
        RowType::F32 => {
            let v = f64::from(float(4 * j));
            (v, v.abs())
        }
        RowType::F16 => {
            let h = half(2 * j);
            let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
            let (e, m) = (i32::from((h >> 10) & 0x1F), f64::from(h & 0x3FF));
            let v = if e == 0 {
                sign * m * pow2(-24)
            } else {
                sign * (1.0 + m / 1024.0) * pow2(e - 15)
            };
            (v, v.abs())
        }
        RowType::Bf16 => {
            let v = f64::from(f32::from_bits(u32::from(half(2 * j)) << 16));
            (v, v.abs())
        }
        RowType::Int8Rowwise => {
            let (scale, bias) = (f64::from(float(width)), f64::from(float(width + 4)));
            let qs = f64::from(row[j]) * scale;
            (qs + bias, qs.abs() + bias.abs())
        }
    }
}

/// The documented operations, written out naively: `v` decoded in `f32` by the definition
/// (exact for the float types, so `exact as f32`; int8 rounded twice), `w * v`, the adds in
/// order from `+0.0`, the mean's reciprocal.
pub(crate) fn reference_row(
    bytes: &[u8],
    row_type: RowType,
    width: usize,
    keys: &[usize],
    weights: Option<&[f32]>,
    pooling: Pooling,
) -> Vec<f32> {
    let stride = row_type.row_bytes(width).unwrap();
    (0..width)
        .map(|j| {
            let mut acc = 0.0f32;
            for (i, &k) in keys.iter().enumerate() {
                let v = if row_type == RowType::Int8Rowwise {
                    let row = &bytes[k * stride..(k + 1) * stride];
                    let f = |at: usize| f32::from_le_bytes(row[at..at + 4].try_into().unwrap());
                    let scaled = f32::from(row[j]) * f(width);
                    scaled + f(width + 4)
                } else {
                    exact(bytes, row_type, width, k, j).0 as f32
                };
                let t = match weights {
                    Some(w) => w[i] * v,
                    None => v,
                };
                acc += t;
            }
            if pooling == Pooling::Mean && keys.len() > 1 {
                acc *= 1.0 / keys.len() as f32;
            }
            acc
        })
        .collect()
}

pub(crate) fn bits(x: &[f32]) -> Vec<u32> {
    x.iter().map(|v| v.to_bits()).collect()
}

pub(crate) fn csr_parts(rows: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32];
    let mut values = Vec::new();
    for row in rows {
        values.extend_from_slice(row);
        offsets.push(values.len() as u32);
    }
    (offsets, values)
}

pub(crate) fn row_type() -> impl Strategy<Value = RowType> {
    prop::sample::select(RowType::ALL.to_vec())
}

pub(crate) fn pooling() -> impl Strategy<Value = Pooling> {
    prop_oneof![Just(Pooling::Sum), Just(Pooling::Mean)]
}

/// A typed table and rows of in-range keys, with or without weights.
#[derive(Debug, Clone)]
struct Case {
    row_type: RowType,
    width: usize,
    vocab: usize,
    bytes: Vec<u8>,
    rows: Vec<Vec<u32>>,
    weights: Option<Vec<f32>>,
    pooling: Pooling,
}

fn case() -> impl Strategy<Value = Case> {
    (
        row_type(),
        1..=MAX_DIM,
        1..=MAX_VOCAB,
        pooling(),
        any::<bool>(),
    )
        .prop_flat_map(|(row_type, width, vocab, pooling, weighted)| {
            let key = 0..vocab as u32;
            (
                prop::collection::vec(any::<u32>(), vocab * (width + 2)),
                prop::collection::vec(prop::collection::vec(key, 0..=6), 0..=MAX_ROWS),
                prop::collection::vec(-4.0f32..4.0, 6 * MAX_ROWS),
            )
                .prop_map(move |(words, rows, w)| {
                    let nnz = rows.iter().map(Vec::len).sum();
                    Case {
                        row_type,
                        width,
                        vocab,
                        bytes: encode(row_type, width, vocab, &words),
                        rows,
                        weights: weighted.then(|| w[..nnz].to_vec()),
                        pooling,
                    }
                })
        })
}

fn pool(c: &Case) -> (Vec<f32>, Result<(), PoolError>) {
    let (offsets, values) = csr_parts(&c.rows);
    let csr = CsrView::new(&offsets, &values).unwrap();
    let table = TableView::new(&c.bytes, c.width, c.row_type).unwrap();
    let mut out = vec![JUNK; c.rows.len() * c.width];
    let got = embedding_bag_rows(
        csr,
        table,
        c.weights.as_deref(),
        &mut out,
        PoolConfig::new(c.pooling),
    );
    (out, got)
}

/// Per row: the flat index of its first key, and its keys as indices.
fn keyed(c: &Case) -> Vec<(usize, Vec<usize>)> {
    let mut start = 0;
    c.rows
        .iter()
        .map(|r| {
            let s = start;
            start += r.len();
            (s, r.iter().map(|&k| k as usize).collect())
        })
        .collect()
}

fn equals_reference(c: Case) -> Result<(), TestCaseError> {
    let (out, got) = pool(&c);
    prop_assert_eq!(got, Ok(()));
    let mut want = Vec::new();
    for (start, keys) in keyed(&c) {
        let w = c.weights.as_ref().map(|w| &w[start..start + keys.len()]);
        want.extend(reference_row(
            &c.bytes, c.row_type, c.width, &keys, w, c.pooling,
        ));
    }
    prop_assert_eq!(bits(&out), bits(&want));
    Ok(())
}

/// `|out - exact| <= (n + 4) * 2^-24 * S` (over `n` for mean), as documented.
pub(crate) fn within_bound(
    got: f32,
    exact_sum: f64,
    magnitude: f64,
    n: usize,
    pooling: Pooling,
) -> bool {
    let mean = pooling == Pooling::Mean && n > 1;
    let divisor = if mean { n as f64 } else { 1.0 };
    let bound = (n as f64 + 4.0) * pow2(-24) * magnitude / divisor;
    (f64::from(got) - exact_sum / divisor).abs() <= bound
}

fn within_the_stated_bound(c: Case) -> Result<(), TestCaseError> {
    let (out, got) = pool(&c);
    prop_assert_eq!(got, Ok(()));
    for (r, (start, keys)) in keyed(&c).into_iter().enumerate() {
        for j in 0..c.width {
            let (mut sum, mut magnitude) = (0.0f64, 0.0f64);
            for (i, &k) in keys.iter().enumerate() {
                let w = c.weights.as_ref().map_or(1.0, |w| f64::from(w[start + i]));
                let (v, m) = exact(&c.bytes, c.row_type, c.width, k, j);
                sum += w * v;
                magnitude += w.abs() * m;
            }
            let value = out[r * c.width + j];
            prop_assert!(
                within_bound(value, sum, magnitude, keys.len(), c.pooling),
                "row {} lane {}: {} against {} (S = {})",
                r,
                j,
                value,
                sum,
                magnitude
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn typed_pooling_equals_the_documented_operations(c in case()) {
        equals_reference(c)?;
    }

    #[test]
    fn typed_pooling_is_within_the_stated_bound(c in case()) {
        within_the_stated_bound(c)?;
    }

    /// `f32` rows without weights are the `f32` reference bit for bit.
    #[test]
    fn f32_rows_are_the_f32_reference(c in case(), modulo in any::<bool>()) {
        let mut c = c;
        c.row_type = RowType::F32;
        c.weights = None;
        let words: Vec<u32> = c.bytes.iter().map(|&b| u32::from(b) * 0x0101_0101).collect();
        c.bytes = encode(RowType::F32, c.width, c.vocab, &words);
        let floats: Vec<f32> = c
            .bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let (offsets, values) = csr_parts(&c.rows);
        let csr = CsrView::new(&offsets, &values).unwrap();
        let mut config = PoolConfig::new(c.pooling);
        if modulo {
            config = config.with_out_of_range(OutOfRange::Modulo);
        }
        let mut want = vec![0f32; c.rows.len() * c.width];
        embedding_bag(csr, &floats, c.width, &mut want, config).unwrap();
        let table = TableView::new(&c.bytes, c.width, RowType::F32).unwrap();
        let mut got = vec![JUNK; want.len()];
        embedding_bag_rows(csr, table, None, &mut got, config).unwrap();
        prop_assert_eq!(bits(&got), bits(&want));
    }

    /// A bad key is reported where the `f32` reference reports it, with the same output.
    #[test]
    fn bad_keys_are_named_and_stop_the_call(
        c in case(),
        bad in 0usize..64,
        key in prop_oneof![Just(u32::MAX), 12u32..40],
    ) {
        let mut c = c;
        let nnz: usize = c.rows.iter().map(Vec::len).sum();
        prop_assume!(nnz > 0);
        let flat = bad % nnz;
        let (mut row, mut position, mut seen) = (0, 0, 0);
        for (r, keys) in c.rows.iter_mut().enumerate() {
            if flat < seen + keys.len() {
                (row, position) = (r, flat - seen);
                keys[position] = key.max(c.vocab as u32);
                break;
            }
            seen += keys.len();
        }
        let bad_key = c.rows[row][position];
        // The first bad key in CSR order (earlier keys are in range).
        let (out, got) = pool(&c);
        prop_assert_eq!(
            got,
            Err(PoolError::KeyOutOfRange { row, position, key: i64::from(bad_key), vocab: c.vocab })
        );
        let w = c.width;
        let mut start = 0;
        for (r, keys) in c.rows[..row].iter().enumerate() {
            let idx: Vec<usize> = keys.iter().map(|&k| k as usize).collect();
            let wt = c.weights.as_ref().map(|x| &x[start..start + idx.len()]);
            let want = reference_row(&c.bytes, c.row_type, w, &idx, wt, c.pooling);
            prop_assert_eq!(bits(&out[r * w..(r + 1) * w]), bits(&want));
            start += idx.len();
        }
        prop_assert!(out[row * w..(row + 1) * w].iter().all(|&x| x.to_bits() == 0));
        prop_assert!(out[(row + 1) * w..].iter().all(|&x| x == JUNK));
    }
}

#[test]
fn int8_rows_follow_fbgemm_s_layout() {
    // Codes 0, 10, 255, then scale 0.25 and bias -3 (unaligned after 3 codes).
    let mut bytes = vec![0u8, 10, 255];
    bytes.extend_from_slice(&0.25f32.to_le_bytes());
    bytes.extend_from_slice(&(-3.0f32).to_le_bytes());
    let table = TableView::new(&bytes, 3, RowType::Int8Rowwise).unwrap();
    assert_eq!(table.row_bytes(), 11);
    let values: Vec<f32> = (0..3).map(|j| table.value(0, j).unwrap()).collect();
    assert_eq!(values, [-3.0, -0.5, 60.75]);
    assert_eq!(table.value(1, 0), None);
    assert_eq!(table.value(0, 3), None);
    let csr = CsrView::new(&[0u32, 2][..], &[0u32, 0][..]).unwrap();
    let mut out = [0f32; 3];
    let mean = PoolConfig::new(Pooling::Mean);
    embedding_bag_rows(csr, table, Some(&[1.0, 3.0]), &mut out, mean).unwrap();
    assert_eq!(out, [-6.0, -1.0, 121.5]);
}

#[test]
fn value_keeps_signed_zeros() {
    let bytes = [0x00, 0x80]; // f16 -0.0
    let table = TableView::new(&bytes, 1, RowType::F16).unwrap();
    assert_eq!(table.value(0, 0).unwrap().to_bits(), (-0.0f32).to_bits());
}

#[test]
fn shapes_and_weights_are_checked_before_writing() {
    let bytes = [0u8; 24];
    let csr = CsrView::new(&[0u32, 1, 3][..], &[0u32, 1, 2][..]).unwrap();
    let sum = PoolConfig::default();
    assert_eq!(
        TableView::new(&bytes[..23], 3, RowType::F16),
        Err(PoolError::TableRows {
            len: 23,
            width: 3,
            row_bytes: 6
        })
    );
    assert_eq!(
        TableView::new(&bytes, 0, RowType::Int8Rowwise),
        Err(PoolError::TableRows {
            len: 24,
            width: 0,
            row_bytes: 8
        })
    );
    assert_eq!(
        TableView::new(&bytes, usize::MAX, RowType::F32),
        Err(PoolError::TableRows {
            len: 24,
            width: usize::MAX,
            row_bytes: usize::MAX
        })
    );
    let table = TableView::new(&bytes, 2, RowType::F32).unwrap();
    assert_eq!(table.rows(), 3);
    let mut out = [JUNK; 4];
    assert_eq!(
        embedding_bag_rows(csr, table, None, &mut out[..3], sum),
        Err(PoolError::OutputLen {
            expected: 4,
            found: 3
        })
    );
    assert_eq!(
        embedding_bag_rows(csr, table, Some(&[1.0; 2]), &mut out, sum),
        Err(PoolError::WeightsLen {
            expected: 3,
            found: 2
        })
    );
    assert!(out.iter().all(|&x| x == JUNK));
    assert_eq!(
        PoolError::WeightsLen {
            expected: 3,
            found: 2
        }
        .to_string(),
        "2 weights for 3 keys"
    );
    assert_eq!(
        PoolError::TableRows {
            len: 23,
            width: 3,
            row_bytes: 6
        }
        .to_string(),
        "table of 23 bytes is not whole rows of 6 bytes (width 3)"
    );
}

#[test]
fn an_empty_table_rejects_every_key_even_under_modulo() {
    let table = TableView::new(&[], 4, RowType::Bf16).unwrap();
    let csr = CsrView::new(&[0i64, 0, 1][..], &[-1i64][..]).unwrap();
    let mut out = [JUNK; 8];
    let modulo = PoolConfig::default().with_out_of_range(OutOfRange::Modulo);
    assert_eq!(
        embedding_bag_rows(csr, table, None, &mut out, modulo),
        Err(PoolError::KeyOutOfRange {
            row: 1,
            position: 0,
            key: -1,
            vocab: 0
        })
    );
    assert_eq!(out, [0.0; 8]);
}

#[test]
fn one_huge_row_stays_within_the_bound() {
    // 100 000 keys into one row: the bound grows with n, and holds.
    let n = if cfg!(miri) { 50 } else { 100_000 };
    let words: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    for row_type in RowType::ALL {
        let bytes = encode(row_type, 5, 7, &words);
        let table = TableView::new(&bytes, 5, row_type).unwrap();
        let keys: Vec<u32> = (0..n).map(|i| (i * 5 + 3) % 7).collect();
        let offsets = [0u32, n];
        let csr = CsrView::new(&offsets[..], &keys[..]).unwrap();
        for pooling in [Pooling::Sum, Pooling::Mean] {
            let mut out = [0f32; 5];
            embedding_bag_rows(csr, table, None, &mut out, PoolConfig::new(pooling)).unwrap();
            for (j, &got) in out.iter().enumerate() {
                let (mut sum, mut magnitude) = (0.0, 0.0);
                for &k in &keys {
                    let (v, m) = exact(&bytes, row_type, 5, k as usize, j);
                    sum += v;
                    magnitude += m;
                }
                assert!(
                    within_bound(got, sum, magnitude, keys.len(), pooling),
                    "{row_type} {pooling:?} lane {j}: {got} against {sum}"
                );
            }
        }
    }
}
