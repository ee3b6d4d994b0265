//! ONE_HOT end to end (axes, index widths, out-of-range indices, computed depth) and its
//! refusals.

use super::*;
use super::super::one_op::{BOOL, F, F32, I32, I64, I8, Tensor, const_i32, i32s, i64s, model, run, setup_error, to_f32s, var};

fn opts(axis: i32) -> Option<(u8, Vec<(usize, F)>)> {
    Some((61, vec![(0, F::I32(axis))]))
}

fn scalar(ty: u8, bytes: &[u8]) -> Tensor {
    Tensor {
        ty,
        shape: vec![],
        data: Some(bytes.to_vec()),
    }
}

#[test]
fn end_to_end() {
    let on = scalar(F32, &1.0f32.to_le_bytes());
    let off = scalar(F32, &0.5f32.to_le_bytes());
    let t = [var(I32, &[3]), const_i32(&[], &[3]), on, off, var(F32, &[3, 3])];
    let out = run(&model(85, opts(-1), &t, 4), &[&i32s(&[0, 2, 5])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [1.0, 0.5, 0.5, 0.5, 0.5, 1.0, 0.5, 0.5, 0.5]);
    // Axis 0, int64 indices truncated to 32 bits as LiteRT compares them.
    let on = scalar(I8, &[7]);
    let off = scalar(I8, &[0xff]);
    let t = [var(I64, &[2]), const_i32(&[], &[2]), on, off, var(I8, &[2, 2])];
    let out = run(&model(85, opts(0), &t, 4), &[&i64s(&[1, (1 << 32) | 1])]).unwrap();
    assert_eq!(out[0], [0xff, 0xff, 7, 7]);
    // A computed depth must give the planned shape.
    let on = scalar(BOOL, &[1]);
    let off = scalar(BOOL, &[0]);
    let t = [var(I32, &[2]), var(I32, &[]), on, off, var(BOOL, &[2, 2])];
    let file = model(85, opts(-1), &t, 4);
    assert_eq!(run(&file, &[&i32s(&[1, 0]), &i32s(&[2])]).unwrap()[0], [0, 1, 1, 0]);
    assert!(run(&file, &[&i32s(&[1, 0]), &i32s(&[3])]).is_err());
}

#[test]
fn refusals() {
    let on = || scalar(F32, &1.0f32.to_le_bytes());
    let off = || scalar(F32, &0.0f32.to_le_bytes());
    let t = [var(I32, &[3]), const_i32(&[], &[3]), on(), off(), var(F32, &[3, 4])];
    assert_eq!(setup_error(&model(85, opts(-1), &t, 4)), OUTPUT_SHAPE);
    let t = [var(I32, &[3]), const_i32(&[], &[3]), on(), off(), var(F32, &[3, 3])];
    assert_eq!(setup_error(&model(85, opts(-2), &t, 4)), check::AXIS);
    let t = [var(F32, &[3]), const_i32(&[], &[3]), on(), off(), var(F32, &[3, 3])];
    assert!(matches!(setup_error(&model(85, opts(-1), &t, 4)), KernelError::Unsupported { .. }));
    let t = [var(I32, &[3]), const_i32(&[], &[-1]), on(), off(), var(F32, &[3, 3])];
    assert!(matches!(setup_error(&model(85, opts(-1), &t, 4)), KernelError::Mismatch { .. }));
}
