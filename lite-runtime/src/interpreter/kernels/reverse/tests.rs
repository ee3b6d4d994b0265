//! REVERSE_V2 against a naive reversal, end to end with constant and computed axes, and its
//! refusals.

use super::*;
use super::super::row_major::strides;
use super::super::one_op::{F32, I32, I8, const_i32, f32s, i32s, model, run, setup_error, to_f32s, var};
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn reverse_is_the_naive_reversal(dims in proptest::collection::vec(0usize..4, 0..=4), m in 0u32..16) {
        let m = m & ((1 << dims.len()) - 1);
        let n: usize = dims.iter().product();
        let p = plan(&dims, m).unwrap();
        let src: Vec<u32> = (0..n as u32).collect();
        let mut got = vec![0u32; n];
        p.copy(&src, &mut got).unwrap();
        let st = strides(&dims);
        let want: Vec<u32> = (0..n).map(|flat| {
            (0..dims.len()).map(|k| {
                let i = flat / st[k] % dims[k];
                let i = if m >> k & 1 == 1 { dims[k] - 1 - i } else { i };
                i * st[k]
            }).sum::<usize>() as u32
        }).collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn axes_are_checked() {
    assert_eq!(mask(&[0, -1], 3), Ok(0b101));
    assert_eq!(mask(&[1, 1], 3), Err(AXES));
    assert_eq!(mask(&[3], 3), Err(AXES));
}

#[test]
fn end_to_end_constant_and_computed_axes() {
    let x = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let file = model(105, None, &[var(F32, &[2, 3]), const_i32(&[1], &[1]), var(F32, &[2, 3])], 2);
    assert_eq!(to_f32s(&run(&file, &[&x]).unwrap()[0]), [3.0, 2.0, 1.0, 6.0, 5.0, 4.0]);
    let file = model(105, None, &[var(F32, &[2, 3]), var(I32, &[1]), var(F32, &[2, 3])], 2);
    assert_eq!(to_f32s(&run(&file, &[&x, &i32s(&[-2])]).unwrap()[0]), [4.0, 5.0, 6.0, 1.0, 2.0, 3.0]);
    // A computed axis outside the rank is an error at invoke.
    assert!(run(&file, &[&x, &i32s(&[2])]).is_err());
    // int8 moves bytes.
    let file = model(105, None, &[var(I8, &[3]), const_i32(&[1], &[0]), var(I8, &[3])], 2);
    assert_eq!(run(&file, &[&[1u8, 2, 3]]).unwrap()[0], [3, 2, 1]);
}

#[test]
fn refusals() {
    let e = setup_error(&model(105, None, &[var(F32, &[2, 3]), const_i32(&[2], &[0, 0]), var(F32, &[2, 3])], 2));
    assert_eq!(e, AXES);
    let e = setup_error(&model(105, None, &[var(F32, &[2, 3]), const_i32(&[1], &[0]), var(F32, &[3, 2])], 2));
    assert_eq!(e, check::OUTPUT_SHAPE);
    let e = setup_error(&model(105, None, &[var(F32, &[2, 3]), const_i32(&[], &[0]), var(F32, &[2, 3])], 2));
    assert!(matches!(e, KernelError::Mismatch { .. }));
}
