//! CUMSUM against a naive scan in all four modes, end to end, and its refusals.

use super::*;
use super::super::one_op::{F, F32, I32, I8, const_i32, f32s, i32s, model, run, setup_error, to_f32s, to_i32s, var};
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::proptest_config::cases(256, 4))]
    #[test]
    fn cumsum_is_the_naive_scan(
        outer in 1usize..4, depth in 0usize..6, inner in 1usize..4,
        exclusive in any::<bool>(), reverse in any::<bool>(), seed in any::<i32>(),
    ) {
        let n = outer * depth * inner;
        let x: Vec<i32> = (0..n as i32).map(|v| v.wrapping_mul(seed) % 1000).collect();
        let mut got = vec![0i32; n];
        cumsum(&x, &mut got, (outer, depth, inner), exclusive, reverse);
        for o in 0..outer {
            for i in 0..inner {
                for d in 0..depth {
                    let range: Vec<usize> = if reverse {
                        if exclusive { (d + 1..depth).collect() } else { (d..depth).collect() }
                    } else if exclusive {
                        (0..d).collect()
                    } else {
                        (0..=d).collect()
                    };
                    let want: i32 = range.iter().map(|&e| x[(o * depth + e) * inner + i]).sum();
                    prop_assert_eq!(got[(o * depth + d) * inner + i], want);
                }
            }
        }
    }
}

fn opts(exclusive: bool, reverse: bool) -> Option<(u8, Vec<(usize, F)>)> {
    Some((102, vec![(0, F::U8(u8::from(exclusive))), (1, F::U8(u8::from(reverse)))]))
}

#[test]
fn end_to_end() {
    let t = [var(F32, &[2, 3]), const_i32(&[], &[1]), var(F32, &[2, 3])];
    let x = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = run(&model(128, opts(false, false), &t, 2), &[&x]).unwrap();
    assert_eq!(to_f32s(&out[0]), [1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
    let out = run(&model(128, opts(true, true), &t, 2), &[&x]).unwrap();
    assert_eq!(to_f32s(&out[0]), [5.0, 3.0, 0.0, 11.0, 6.0, 0.0]);
    // A computed axis, negative.
    let t = [var(I32, &[2, 2]), var(I32, &[1]), var(I32, &[2, 2])];
    let out = run(&model(128, opts(false, false), &t, 2), &[&i32s(&[1, 2, 3, 4]), &i32s(&[-2])]).unwrap();
    assert_eq!(to_i32s(&out[0]), [1, 2, 4, 6]);
}

#[test]
fn refusals() {
    let t = [var(I8, &[3]), const_i32(&[], &[0]), var(I8, &[3])];
    assert!(matches!(setup_error(&model(128, opts(false, false), &t, 2)), KernelError::Unsupported { .. }));
    let t = [var(F32, &[3]), const_i32(&[], &[1]), var(F32, &[3])];
    assert_eq!(setup_error(&model(128, opts(false, false), &t, 2)), check::AXIS);
    let t = [var(F32, &[]), const_i32(&[], &[0]), var(F32, &[])];
    assert!(matches!(setup_error(&model(128, opts(false, false), &t, 2)), KernelError::Mismatch { .. }));
}
