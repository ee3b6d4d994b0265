//! SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: each undoes the other, the shapes, end to end with
//! padding by the zero point, and their refusals.

use super::*;
use super::super::row_major::shape;
use super::super::one_op::{F32, I32, Tensor, const_i32, f32s, model, run, setup_error, to_f32s, var};
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn batch_to_space_undoes_space_to_batch(n in 1usize..3, h in 1usize..5, w in 1usize..5, c in 1usize..3, bh in 1usize..4, bw in 1usize..4) {
        let b = Blocks { bh, bw, top: 0, bottom: (bh - h % bh) % bh, left: 0, right: (bw - w % bw) % bw };
        let input = shape(&[n, h, w, c]);
        let mid = output_shape(&input, &b, true).unwrap();
        let back = output_shape(&mid, &b, false).unwrap();
        prop_assert_eq!(back, input);
        let x: Vec<u8> = (0..input.elements()).map(|v| v as u8).collect();
        let mut y = vec![0u8; mid.elements()];
        space_to_batch(&x, as_4d(&input), &mut y, as_4d(&mid), &b, c, 0xAA).unwrap();
        let mut z = vec![0u8; input.elements()];
        batch_to_space(&y, as_4d(&mid), &mut z, as_4d(&input), &b, c).unwrap();
        prop_assert_eq!(z, x);
    }
}

#[test]
fn end_to_end() {
    // [1, 2, 2, 1] into 4 batches of one pixel, and back.
    let x = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let t = [var(F32, &[1, 2, 2, 1]), const_i32(&[2], &[2, 2]), const_i32(&[2, 2], &[0, 0, 0, 0]), var(F32, &[4, 1, 1, 1])];
    assert_eq!(to_f32s(&run(&model(38, None, &t, 3), &[&x]).unwrap()[0]), [1.0, 2.0, 3.0, 4.0]);
    let t = [var(F32, &[4, 1, 1, 1]), const_i32(&[2], &[2, 2]), const_i32(&[2, 2], &[0, 0, 0, 0]), var(F32, &[1, 2, 2, 1])];
    assert_eq!(to_f32s(&run(&model(37, None, &t, 3), &[&x]).unwrap()[0]), [1.0, 2.0, 3.0, 4.0]);
    // 3-D, padded and cropped.
    let t = [var(F32, &[1, 3, 1]), const_i32(&[1], &[2]), const_i32(&[1, 2], &[1, 0]), var(F32, &[2, 2, 1])];
    assert_eq!(to_f32s(&run(&model(38, None, &t, 3), &[&f32s(&[1.0, 2.0, 3.0])]).unwrap()[0]), [0.0, 2.0, 1.0, 3.0]);
    let t = [var(F32, &[2, 2, 1]), const_i32(&[1], &[2]), const_i32(&[1, 2], &[1, 0]), var(F32, &[1, 3, 1])];
    assert_eq!(to_f32s(&run(&model(37, None, &t, 3), &[&f32s(&[0.0, 2.0, 1.0, 3.0])]).unwrap()[0]), [1.0, 2.0, 3.0]);
}

#[test]
fn refusals() {
    let bad = |code, t: &[Tensor]| setup_error(&model(code, None, t, 3));
    // Not a multiple of the block, negative crop, wrong output, 2-D, block operand not INT32.
    let t = [var(F32, &[1, 3, 3, 1]), const_i32(&[2], &[2, 2]), const_i32(&[2, 2], &[0; 4]), var(F32, &[4, 1, 1, 1])];
    assert_eq!(bad(38, &t), BLOCK);
    let t = [var(F32, &[4, 1, 1, 1]), const_i32(&[2], &[2, 2]), const_i32(&[2, 2], &[-1, 0, 0, 0]), var(F32, &[1, 2, 2, 1])];
    assert_eq!(bad(37, &t), BLOCK);
    let t = [var(F32, &[1, 2, 2, 1]), const_i32(&[2], &[2, 2]), const_i32(&[2, 2], &[0; 4]), var(F32, &[2, 1, 1, 2])];
    assert_eq!(bad(38, &t), OUTPUT_SHAPE);
    let t = [var(F32, &[4, 2]), var(I32, &[0]), var(I32, &[0, 2]), var(F32, &[4, 2])];
    assert!(matches!(bad(38, &t), KernelError::Unsupported { .. }));
    let t = [var(F32, &[1, 2, 2, 1]), var(I32, &[2, 1]), const_i32(&[2, 2], &[0; 4]), var(F32, &[4, 1, 1, 1])];
    assert_eq!(bad(38, &t), OPERANDS);
}
