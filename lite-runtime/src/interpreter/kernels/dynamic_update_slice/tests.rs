//! DYNAMIC_UPDATE_SLICE against a naive update with clamped starts, end to end, and its
//! refusals.

use super::*;
use super::super::row_major::strides;
use super::super::one_op::{F32, I32, I64, const_i32, f32s, i32s, i64s, model, run, setup_error, to_f32s, var};
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn update_is_the_naive_update(
        od in proptest::collection::vec(1usize..5, 1..=4),
        frac in proptest::collection::vec(0usize..5, 4),
        start in proptest::collection::vec(0usize..5, 4),
    ) {
        let r = od.len();
        let ud: Vec<usize> = (0..r).map(|k| frac[k] % (od[k] + 1)).collect();
        let st: Vec<usize> = (0..r).map(|k| start[k].min(od[k] - ud[k])).collect();
        let n: usize = od.iter().product();
        let m: usize = ud.iter().product();
        let mut got: Vec<u8> = vec![0; n];
        let upd: Vec<u8> = (1..=m).map(|v| v as u8).collect();
        update_into(&mut got, &od, &upd, &ud, &st, 1).unwrap();
        let (os, us) = (strides(&od), strides(&ud));
        let mut want = vec![0u8; n];
        for (u, &v) in upd.iter().enumerate() {
            let at: usize = (0..r).map(|k| (u / us[k] % ud[k] + st[k]) * os[k]).sum();
            want[at] = v;
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn end_to_end_clamps_starts() {
    let x = f32s(&[0.0; 6]);
    let u = f32s(&[1.0, 2.0]);
    let file = model(151, None, &[var(F32, &[2, 3]), var(F32, &[1, 2]), var(I32, &[2]), var(F32, &[2, 3])], 3);
    let out = run(&file, &[&x, &u, &i32s(&[1, 0])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [0.0, 0.0, 0.0, 1.0, 2.0, 0.0]);
    // Past the end and negative: clamped, as LiteRT.
    let out = run(&file, &[&x, &u, &i32s(&[7, -3])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [0.0, 0.0, 0.0, 1.0, 2.0, 0.0]);
    let file = model(151, None, &[var(F32, &[2, 3]), var(F32, &[1, 2]), var(I64, &[2]), var(F32, &[2, 3])], 3);
    let out = run(&file, &[&x, &u, &i64s(&[0, 5])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [0.0, 1.0, 2.0, 0.0, 0.0, 0.0]);
}

#[test]
fn refusals() {
    let t = [var(F32, &[2, 3]), var(F32, &[3, 2]), const_i32(&[2], &[0, 0]), var(F32, &[2, 3])];
    assert!(matches!(setup_error(&model(151, None, &t, 3)), KernelError::Mismatch { .. }));
    let t = [var(F32, &[2, 3]), var(F32, &[1, 2]), const_i32(&[3], &[0, 0, 0]), var(F32, &[2, 3])];
    assert!(matches!(setup_error(&model(151, None, &t, 3)), KernelError::Mismatch { .. }));
    let t = [var(F32, &[2, 3]), var(I32, &[1, 2]), const_i32(&[2], &[0, 0]), var(F32, &[2, 3])];
    assert_eq!(setup_error(&model(151, None, &t, 3)), check::INPUT_TYPES);
}
