//! SPLIT and SPLIT_V: the size resolution, end to end with constant and computed operands,
//! and their refusals.

use super::*;
use super::super::one_op::{F, F32, I32, I8, const_i32, f32s, i32s, model, run, setup_error, to_f32s, var};

#[test]
fn sizes_resolve_as_litert() {
    let mut out = [0usize; MAX_OUTPUTS];
    resolve(6, 3, None, &mut out).unwrap();
    assert_eq!(&out[..3], [2, 2, 2]);
    assert!(resolve(7, 3, None, &mut out).is_err());
    resolve(7, 3, Some(&[1, -1, 2]), &mut out).unwrap();
    assert_eq!(&out[..3], [1, 4, 2]);
    assert_eq!(resolve(7, 2, Some(&[-1, -1]), &mut out), Err(SIZES));
    assert_eq!(resolve(7, 2, Some(&[3, 3]), &mut out), Err(SIZES));
    assert_eq!(resolve(2, 2, Some(&[3, -1]), &mut out), Err(SIZES));
    assert_eq!(resolve(2, 2, Some(&[-2, 4]), &mut out), Err(SIZES));
}

fn split_opts(n: i32) -> Option<(u8, Vec<(usize, F)>)> {
    Some((35, vec![(0, F::I32(n))]))
}

fn split_v_opts(n: i32) -> Option<(u8, Vec<(usize, F)>)> {
    Some((79, vec![(0, F::I32(n))]))
}

#[test]
fn split_end_to_end() {
    let x: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let t = [const_i32(&[], &[1]), var(F32, &[2, 4]), var(F32, &[2, 2]), var(F32, &[2, 2])];
    let out = run(&model(49, split_opts(2), &t, 2), &[&f32s(&x)]).unwrap();
    assert_eq!(to_f32s(&out[0]), [0.0, 1.0, 4.0, 5.0]);
    assert_eq!(to_f32s(&out[1]), [2.0, 3.0, 6.0, 7.0]);
    // Computed axis: checked at invoke against the planned shapes.
    let t = [var(I32, &[]), var(F32, &[2, 4]), var(F32, &[2, 2]), var(F32, &[2, 2])];
    let file = model(49, split_opts(2), &t, 2);
    let out = run(&file, &[&i32s(&[-1]), &f32s(&x)]).unwrap();
    assert_eq!(to_f32s(&out[1]), [2.0, 3.0, 6.0, 7.0]);
    assert!(run(&file, &[&i32s(&[0]), &f32s(&x)]).is_err());
}

#[test]
fn split_v_end_to_end() {
    let x = [1u8, 2, 3, 4, 5, 6];
    let t = [var(I8, &[6]), const_i32(&[3], &[1, -1, 2]), const_i32(&[], &[0]), var(I8, &[1]), var(I8, &[3]), var(I8, &[2])];
    let out = run(&model(102, split_v_opts(3), &t, 3), &[&x]).unwrap();
    assert_eq!(out, [vec![1], vec![2, 3, 4], vec![5, 6]]);
    let t = [var(I8, &[6]), var(I32, &[2]), const_i32(&[], &[0]), var(I8, &[2]), var(I8, &[4])];
    let file = model(102, split_v_opts(2), &t, 3);
    assert_eq!(run(&file, &[&x, &i32s(&[2, 4])]).unwrap(), [vec![1, 2], vec![3, 4, 5, 6]]);
    assert!(run(&file, &[&x, &i32s(&[3, 3])]).is_err());
}

#[test]
fn refusals() {
    // num_splits other than the outputs, uneven split, wrong output shape, bool.
    let t = [const_i32(&[], &[0]), var(F32, &[4]), var(F32, &[2]), var(F32, &[2])];
    assert!(matches!(setup_error(&model(49, split_opts(3), &t, 2)), KernelError::Mismatch { .. }));
    let t = [const_i32(&[], &[0]), var(F32, &[5]), var(F32, &[2]), var(F32, &[2])];
    assert!(matches!(setup_error(&model(49, split_opts(2), &t, 2)), KernelError::Mismatch { .. }));
    let t = [const_i32(&[], &[0]), var(F32, &[4]), var(F32, &[2]), var(F32, &[1])];
    assert_eq!(setup_error(&model(49, split_opts(2), &t, 2)), OUTPUT_SHAPE);
    let t = [const_i32(&[], &[2]), var(F32, &[4]), var(F32, &[2]), var(F32, &[2])];
    assert_eq!(setup_error(&model(49, split_opts(2), &t, 2)), check::AXIS);
    let t = [var(F32, &[4]), const_i32(&[2], &[1, 1]), const_i32(&[], &[0]), var(F32, &[1]), var(F32, &[1])];
    assert_eq!(setup_error(&model(102, split_v_opts(2), &t, 3)), SIZES);
}
