//! DEPTH_TO_SPACE and SPACE_TO_DEPTH against the naive index formulas, as inverses of each
//! other, end to end, and their refusals.

use super::*;
use super::super::one_op::{F, F32, I16, Tensor, f32s, model, run, setup_error, to_f32s, var};
use proptest::prelude::*;

/// Runs a plan over `0..n` as u32 values.
fn apply(plan: &Plan, n: usize) -> Vec<u32> {
    let src: Vec<u32> = (0..n as u32).collect();
    let mut dst = vec![0u32; plan.elements()];
    plan.copy(&src, &mut dst).unwrap();
    dst
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn depth_to_space_is_the_index_formula(n in 1usize..3, h in 1usize..4, w in 1usize..4, cc in 1usize..3, b in 1usize..4) {
        let c = cc * b * b;
        let got = apply(&plan([n, h, w, c], b, true).unwrap(), n * h * w * c);
        let (oh, ow) = (h * b, w * b);
        let mut want = Vec::new();
        for i in 0..n { for y in 0..oh { for x in 0..ow { for k in 0..cc {
            let (iy, ix) = (y / b, x / b);
            let ch = ((y % b) * b + x % b) * cc + k;
            want.push((((i * h + iy) * w + ix) * c + ch) as u32);
        }}}}
        prop_assert_eq!(got, want);
    }

    #[test]
    fn space_to_depth_undoes_depth_to_space(n in 1usize..3, h in 1usize..4, w in 1usize..4, cc in 1usize..3, b in 1usize..4) {
        let c = cc * b * b;
        let total = n * h * w * c;
        let d2s = apply(&plan([n, h, w, c], b, true).unwrap(), total);
        let s2d = plan([n, h * b, w * b, cc], b, false).unwrap();
        let mut back = vec![0u32; total];
        s2d.copy(&d2s, &mut back).unwrap();
        prop_assert_eq!(back, (0..total as u32).collect::<Vec<_>>());
    }
}

fn opts(block: i32, to_space: bool) -> Option<(u8, Vec<(usize, F)>)> {
    Some((if to_space { 94 } else { 19 }, vec![(0, F::I32(block))]))
}

#[test]
fn end_to_end_both_ways() {
    let file = model(5, opts(2, true), &[var(F32, &[1, 1, 1, 4]), var(F32, &[1, 2, 2, 1])], 1);
    let out = run(&file, &[&f32s(&[1.0, 2.0, 3.0, 4.0])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [1.0, 2.0, 3.0, 4.0]);
    let file = model(26, opts(2, false), &[var(F32, &[1, 2, 4, 1]), var(F32, &[1, 1, 2, 4])], 1);
    let x: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let out = run(&file, &[&f32s(&x)]).unwrap();
    assert_eq!(to_f32s(&out[0]), [0.0, 1.0, 4.0, 5.0, 2.0, 3.0, 6.0, 7.0]);
}

#[test]
fn refusals() {
    let bad = |code, o, t: &[Tensor]| setup_error(&model(code, o, t, 1));
    // Not 4-D.
    assert!(matches!(bad(5, opts(2, true), &[var(F32, &[1, 1, 4]), var(F32, &[1, 2, 1])]), KernelError::Mismatch { .. }));
    // Block 0, channels not a multiple, height not a multiple, wrong output, int16.
    assert!(matches!(bad(5, opts(0, true), &[var(F32, &[1, 1, 1, 4]), var(F32, &[1, 1, 1, 4])]), KernelError::Mismatch { .. }));
    assert!(matches!(bad(5, opts(2, true), &[var(F32, &[1, 1, 1, 6]), var(F32, &[1, 2, 2, 1])]), KernelError::Mismatch { .. }));
    assert!(matches!(bad(26, opts(2, false), &[var(F32, &[1, 3, 2, 1]), var(F32, &[1, 1, 1, 4])]), KernelError::Mismatch { .. }));
    assert_eq!(bad(5, opts(2, true), &[var(F32, &[1, 1, 1, 4]), var(F32, &[1, 2, 1, 2])]), OUTPUT_SHAPE);
    assert!(matches!(bad(5, opts(2, true), &[var(I16, &[1, 1, 1, 4]), var(I16, &[1, 2, 2, 1])]), KernelError::Unsupported { .. }));
}
