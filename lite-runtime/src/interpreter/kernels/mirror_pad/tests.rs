//! MIRROR_PAD's index mapping against numpy's `pad` modes written out, end to end, and its
//! refusals.

use super::*;
use super::super::one_op::{F, F32, I32, const_i32, f32s, i32s, model, run, setup_error, to_f32s, var};
use proptest::prelude::*;

/// numpy's `reflect` (offset 1) and `symmetric` (offset 0) for one dimension.
fn naive(i: usize, before: usize, size: usize, offset: usize) -> usize {
    let mut j = i as i64 - before as i64;
    let n = size as i64;
    while j < 0 || j >= n {
        if j < 0 {
            j = -j - 1 + offset as i64;
        } else {
            j = 2 * n - j - 1 - offset as i64;
        }
    }
    j as usize
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(512, 8))]
    #[test]
    fn source_index_is_the_mirror(size in 1usize..6, offset in 0usize..2, b in 0usize..6, a in 0usize..6) {
        let max = size - offset;
        let (b, a) = (b.min(max), a.min(max));
        for i in 0..size + b + a {
            prop_assert_eq!(source_index(i, b, size, offset), naive(i, b, size, offset));
        }
    }
}

fn opts(mode: u8) -> Option<(u8, Vec<(usize, F)>)> {
    Some((77, vec![(0, F::U8(mode))]))
}

#[test]
fn end_to_end_reflect_and_symmetric() {
    let x = f32s(&[1.0, 2.0, 3.0]);
    let t = [var(F32, &[3]), const_i32(&[1, 2], &[2, 1]), var(F32, &[6])];
    assert_eq!(to_f32s(&run(&model(100, opts(0), &t, 2), &[&x]).unwrap()[0]), [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]);
    assert_eq!(to_f32s(&run(&model(100, opts(1), &t, 2), &[&x]).unwrap()[0]), [2.0, 1.0, 1.0, 2.0, 3.0, 3.0]);
    // Computed paddings, checked at invoke.
    let t = [var(F32, &[3]), var(I32, &[1, 2]), var(F32, &[5])];
    let file = model(100, opts(1), &t, 2);
    assert_eq!(to_f32s(&run(&file, &[&x, &i32s(&[0, 2])]).unwrap()[0]), [1.0, 2.0, 3.0, 3.0, 2.0]);
    assert!(run(&file, &[&x, &i32s(&[0, 1])]).is_err());
}

#[test]
fn refusals() {
    // REFLECT wider than size - 1; negative; mode 2; output of another size.
    let t = [var(F32, &[3]), const_i32(&[1, 2], &[3, 0]), var(F32, &[6])];
    assert_eq!(setup_error(&model(100, opts(0), &t, 2)), PADDINGS);
    let t = [var(F32, &[3]), const_i32(&[1, 2], &[-1, 0]), var(F32, &[2])];
    assert_eq!(setup_error(&model(100, opts(1), &t, 2)), PADDINGS);
    let t = [var(F32, &[3]), const_i32(&[1, 2], &[1, 0]), var(F32, &[4])];
    assert!(matches!(setup_error(&model(100, opts(2), &t, 2)), KernelError::Unsupported { .. }));
    let t = [var(F32, &[3]), const_i32(&[1, 2], &[1, 0]), var(F32, &[5])];
    assert_eq!(setup_error(&model(100, opts(0), &t, 2)), OUTPUT_SHAPE);
}
