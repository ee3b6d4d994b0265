//! ADD_N end to end: the sum in input order, the float clamp, int32 wrapping, refusals.

use super::super::one_op::{F32, I32, I64, f32s, i32s, kernel_error, model, run, to_f32s, to_i32s, var};
use crate::interpreter::KernelError;

const ADD_N: i32 = 106;

#[test]
fn sums_in_order() {
    let file = model(ADD_N, None, &[var(F32, &[2]), var(F32, &[2]), var(F32, &[2]), var(F32, &[2])], 3);
    let out = run(&file, &[&f32s(&[1e8, -0.0]), &f32s(&[1.0, -0.0]), &f32s(&[-1e8, -0.0])]).unwrap();
    // (1e8 + 1) - 1e8 in float is 0; -0 + -0 stays -0 (the first input is copied, not added
    // to +0).
    let out = to_f32s(&out[0]);
    assert_eq!(out[0], 0.0);
    assert!(out[1] == 0.0 && out[1].is_sign_negative());
    // An overflow clamps to the finite range; NaN stays NaN.
    let file = model(ADD_N, None, &[var(F32, &[3]), var(F32, &[3]), var(F32, &[3])], 2);
    let out = run(&file, &[&f32s(&[f32::MAX, -f32::MAX, f32::NAN]), &f32s(&[f32::MAX, -f32::MAX, 1.0])]).unwrap();
    let out = to_f32s(&out[0]);
    assert_eq!(out[..2], [f32::MAX, -f32::MAX]);
    assert!(out[2].is_nan());
    let file = model(ADD_N, None, &[var(I32, &[1]), var(I32, &[1]), var(I32, &[1])], 2);
    let out = run(&file, &[&i32s(&[i32::MAX]), &i32s(&[1])]).unwrap();
    assert_eq!(to_i32s(&out[0]), [i32::MIN]);
}

#[test]
fn refusals() {
    let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
    let e = err(model(ADD_N, None, &[var(F32, &[2]), var(F32, &[3]), var(F32, &[2])], 2));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = err(model(ADD_N, None, &[var(I64, &[2]), var(I64, &[2]), var(I64, &[2])], 2));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
    let e = err(model(ADD_N, None, &[var(F32, &[2]), var(F32, &[2])], 1));
    assert!(matches!(e, KernelError::Arity { .. }), "{e}");
}
