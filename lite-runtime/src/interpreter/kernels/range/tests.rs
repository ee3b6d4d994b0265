//! RANGE's length against LiteRT's formula, end to end with constant and computed operands,
//! and its refusals.

use super::*;
use super::super::one_op::{F32, I32, Tensor, f32s, model, run, setup_error, to_f32s, to_i32s, var};

fn scalar_i32(v: i32) -> Tensor {
    Tensor {
        ty: I32,
        shape: vec![],
        data: Some(v.to_le_bytes().to_vec()),
    }
}

#[test]
fn lengths() {
    assert_eq!(i32::length(0, 5, 1), Some(5));
    assert_eq!(i32::length(3, 17, 4), Some(4));
    assert_eq!(i32::length(10, 2, -3), Some(3));
    assert_eq!(i32::length(4, 4, 1), Some(0));
    assert_eq!(i32::length(0, 5, 0), None);
    assert_eq!(i32::length(0, 5, -1), None);
    assert_eq!(i32::length(i32::MIN, i32::MAX, 1), Some(u32::MAX as usize));
    assert_eq!(f32::length(0.0, 1.0, 0.1), Some(10));
    assert_eq!(f32::length(3.0, -1.0, -0.7), Some(6));
    assert_eq!(f32::length(0.0, 1.0, f32::NAN), None);
}

#[test]
fn end_to_end() {
    let t = [scalar_i32(2), scalar_i32(11), scalar_i32(3), var(I32, &[3])];
    assert_eq!(to_i32s(&run(&model(96, None, &t, 3), &[]).unwrap()[0]), [2, 5, 8]);
    let t = [var(F32, &[]), var(F32, &[]), var(F32, &[]), var(F32, &[4])];
    let file = model(96, None, &t, 3);
    let out = run(&file, &[&f32s(&[1.0]), &f32s(&[3.0]), &f32s(&[0.5])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [1.0, 1.5, 2.0, 2.5]);
    // A computed length other than the planned one is an error, never a short write.
    assert!(run(&file, &[&f32s(&[1.0]), &f32s(&[3.0]), &f32s(&[0.25])]).is_err());
}

#[test]
fn refusals() {
    let t = [scalar_i32(0), scalar_i32(5), scalar_i32(1), var(I32, &[4])];
    assert_eq!(setup_error(&model(96, None, &t, 3)), check::OUTPUT_SHAPE);
    let t = [scalar_i32(0), scalar_i32(5), scalar_i32(-1), var(I32, &[4])];
    assert_eq!(setup_error(&model(96, None, &t, 3)), BAD_RANGE);
    let t = [scalar_i32(0), scalar_i32(5), scalar_i32(1), var(F32, &[5])];
    assert_eq!(setup_error(&model(96, None, &t, 3)), check::OUTPUT_TYPE);
}
