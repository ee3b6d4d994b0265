//! TOPK_V2's ranking against a stable sort (NaNs last, ties toward the lower index), end to
//! end, and its refusals.

use super::*;
use super::super::one_op::{F32, I16, I32, I8, Tensor, const_i32, f32s, i32s, model, run, setup_error, to_f32s, to_i32s, var};
use proptest::prelude::*;

/// The expected order: a stable sort by descending value, NaNs after every number.
fn naive(row: &[f32], k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..row.len()).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (row[a], row[b]);
        match (x.is_nan(), y.is_nan()) {
            (true, true) => core::cmp::Ordering::Equal,
            (true, false) => core::cmp::Ordering::Greater,
            (false, true) => core::cmp::Ordering::Less,
            _ => y.partial_cmp(&x).unwrap(),
        }
    });
    idx.truncate(k);
    idx
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(512, 8))]
    #[test]
    fn top_is_the_stable_sort(row in proptest::collection::vec(prop_oneof![Just(f32::NAN), (-3i32..3).prop_map(|v| v as f32)], 0..20), k in 0usize..20) {
        let k = k.min(row.len());
        let mut got = vec![0usize; k];
        top(&row, &mut got);
        prop_assert_eq!(got, naive(&row, k));
    }

    #[test]
    fn chunks_of_64_continue_the_ranking(row in proptest::collection::vec(-50i32..50, 0..200), k in 0usize..200) {
        let k = k.min(row.len());
        let rowf: Vec<f32> = row.iter().map(|&v| v as f32).collect();
        let file = model(48, None, &[var(F32, &[row.len() as i32]), const_i32(&[], &[k as i32]), var(F32, &[k as i32]), var(I32, &[k as i32])], 2);
        let out = run(&file, &[&f32s(&rowf)]).unwrap();
        let want = naive(&rowf, k);
        prop_assert_eq!(to_i32s(&out[1]), want.iter().map(|&i| i as i32).collect::<Vec<_>>());
    }
}

#[test]
fn end_to_end() {
    let file = model(48, None, &[var(F32, &[2, 3]), const_i32(&[], &[2]), var(F32, &[2, 2]), var(I32, &[2, 2])], 2);
    let out = run(&file, &[&f32s(&[1.0, 3.0, 2.0, 5.0, 5.0, 4.0])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [3.0, 2.0, 5.0, 5.0]);
    assert_eq!(to_i32s(&out[1]), [1, 2, 0, 1]);
    // int8 values, int16 k and indices.
    let k = Tensor { ty: I16, shape: vec![], data: Some(1i16.to_le_bytes().to_vec()) };
    let file = model(48, None, &[var(I8, &[4]), k, var(I8, &[1]), var(I16, &[1])], 2);
    let out = run(&file, &[&[1, 0x80, 7, 3]]).unwrap();
    assert_eq!(out[0], [7]);
    assert_eq!(out[1], 2i16.to_ne_bytes());
    // A computed k must give the planned shapes.
    let file = model(48, None, &[var(F32, &[3]), var(I32, &[]), var(F32, &[2]), var(I32, &[2])], 2);
    assert!(run(&file, &[&f32s(&[1.0, 2.0, 3.0]), &i32s(&[2])]).is_ok());
    assert!(run(&file, &[&f32s(&[1.0, 2.0, 3.0]), &i32s(&[3])]).is_err());
}

#[test]
fn refusals() {
    let e = setup_error(&model(48, None, &[var(F32, &[3]), const_i32(&[], &[4]), var(F32, &[4]), var(I32, &[4])], 2));
    assert_eq!(e, K);
    let e = setup_error(&model(48, None, &[var(F32, &[3]), const_i32(&[], &[2]), var(F32, &[2]), var(F32, &[2])], 2));
    assert!(matches!(e, KernelError::Unsupported { .. }));
    let e = setup_error(&model(48, None, &[var(F32, &[3]), const_i32(&[], &[2]), var(F32, &[3]), var(I32, &[3])], 2));
    assert_eq!(e, OUTPUT_SHAPE);
}
