//! WHERE end to end, with a constant condition (checked at set-up) and a computed one (its
//! count checked at invoke), and its refusals.

use super::*;
use super::super::one_op::{BOOL, F32, I64, I8, Tensor, f32s, model, run, setup_error, to_i64s, var};

#[test]
fn coordinates_in_row_major_order() {
    let file = model(109, None, &[var(BOOL, &[2, 3]), var(I64, &[3, 2])], 1);
    let out = run(&file, &[&[1, 0, 1, 0, 1, 0]]).unwrap();
    assert_eq!(to_i64s(&out[0]), [0, 0, 0, 2, 1, 1]);
    // Another count than planned: an error naming it, not a write past the output.
    let e = run(&file, &[&[1, 1, 1, 1, 0, 0]]).unwrap_err();
    assert_eq!(e.kind, crate::interpreter::ErrorKind::Kernel(COUNT));
    // Floats: -0 is not set, NaN is.
    let file = model(109, None, &[var(F32, &[4]), var(I64, &[2, 1])], 1);
    let out = run(&file, &[&f32s(&[0.0, -0.0, f32::NAN, 2.0])]).unwrap();
    assert_eq!(to_i64s(&out[0]), [2, 3]);
}

#[test]
fn constant_condition_sets_the_count() {
    let cond = Tensor {
        ty: I8,
        shape: vec![4],
        data: Some(vec![0, 3, 0, 0xff]),
    };
    let out = run(&model(109, None, &[cond, var(I64, &[2, 1])], 1), &[]).unwrap();
    assert_eq!(to_i64s(&out[0]), [1, 3]);
    let cond = Tensor {
        ty: I8,
        shape: vec![4],
        data: Some(vec![0, 3, 0, 0xff]),
    };
    assert_eq!(setup_error(&model(109, None, &[cond, var(I64, &[3, 1])], 1)), OUTPUT_SHAPE);
}

#[test]
fn refusals() {
    assert!(matches!(setup_error(&model(109, None, &[var(BOOL, &[]), var(I64, &[1, 0])], 1)), KernelError::Mismatch { .. }));
    assert!(matches!(setup_error(&model(109, None, &[var(BOOL, &[3]), var(F32, &[1, 1])], 1)), KernelError::Mismatch { .. }));
    assert_eq!(setup_error(&model(109, None, &[var(BOOL, &[3]), var(I64, &[1, 2])], 1)), OUTPUT_SHAPE);
}
