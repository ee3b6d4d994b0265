//! FLOOR_DIV and FLOOR_MOD against their definitions (exact integers, the double quotient),
//! over random broadcast shapes, and end to end.

use super::super::base::broadcast::broadcast_shape;
use super::super::base::broadcast::naive::{naive2, with_values};
use super::super::row_major::shape;
use super::*;
use proptest::prelude::*;

fn check<T: Floored + std::fmt::Debug, const MOD: bool>(
    a: &[T],
    sa: &[usize],
    b: &[T],
    sb: &[usize],
    f: impl Fn(T, T) -> T,
) -> Result<(), TestCaseError> {
    let so = broadcast_shape(&shape(sa), &shape(sb)).unwrap();
    let mut got = vec![T::default(); so.elements()];
    floored::<T, MOD>(a, &shape(sa), b, &shape(sb), &mut got, &so).unwrap();
    let (_, want) = naive2(a, sa, b, sb, f);
    prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
    Ok(())
}

/// Floor division by its definition: the largest q with q * b <= a (b > 0), in i128.
fn floor_div_exact(a: i64, b: i64) -> i128 {
    let (a, b) = (i128::from(a), i128::from(b));
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(128, 4))]

    #[test]
    fn int_floor_ops_match_definitions(
        (sa, a, sb, b) in with_values(prop_oneof![4 => -9i32..9, 1 => any::<i32>(), 1 => Just(i32::MIN)]),
    ) {
        let b: Vec<i32> = b.into_iter().map(|v| if v == 0 { 1 } else { v }).collect();
        check::<i32, false>(&a, &sa, &b, &sb, |x, y| floor_div_exact(x.into(), y.into()) as i32)?;
        check::<i32, true>(&a, &sa, &b, &sb, |x, y| {
            if y == -1 { 0 } else { (i64::from(x) - floor_div_exact(x.into(), y.into()) as i64 * i64::from(y)) as i32 }
        })?;
        // The double quotient floors to the same integers.
        check::<i32, false>(&a, &sa, &b, &sb, |x, y| libm::floor(f64::from(x) / f64::from(y)) as i64 as i32)?;
        let a8: Vec<i8> = a.iter().map(|&v| v as i8).collect();
        let b8: Vec<i8> = b.iter().map(|&v| if v as i8 == 0 { 1 } else { v as i8 }).collect();
        check::<i8, false>(&a8, &sa, &b8, &sb, |x, y| floor_div_exact(x.into(), y.into()) as i8)?;
        check::<i8, true>(&a8, &sa, &b8, &sb, |x, y| {
            (i64::from(x) - floor_div_exact(x.into(), y.into()) as i64 * i64::from(y)) as i8
        })?;
    }

    #[test]
    fn float_floor_ops_match_definitions(
        (sa, a, sb, b) in with_values(prop_oneof![4 => (-8i8..8).prop_map(f32::from), 4 => -100f32..100.0, 1 => Just(f32::NAN), 1 => Just(-0.0f32)]),
    ) {
        check::<f32, false>(&a, &sa, &b, &sb, |x, y| libm::floor(f64::from(x) / f64::from(y)) as f32)?;
        check::<f32, true>(&a, &sa, &b, &sb, |x, y| {
            let r = libm::fmodf(x, y);
            if r != 0.0 && ((y < 0.0) != (r < 0.0)) { r + y } else { r }
        })?;
    }
}

#[test]
fn examples() {
    assert_eq!(7i32.floor_div(-2), -4);
    assert_eq!((-7i32).floor_div(2), -4);
    assert_eq!(i32::MIN.floor_div(-1), i32::MIN);
    assert_eq!(i8::MIN.floor_div(-1), i8::MIN);
    assert_eq!(7i32.floor_mod(-2), -1);
    assert_eq!((-7i32).floor_mod(2), 1);
    assert_eq!(i32::MIN.floor_mod(-1), 0);
    assert_eq!(i64::MIN.floor_mod(3), 1);
    assert_eq!(7.5f32.floor_mod(-2.0), -0.5);
    assert_eq!((-7.0f32).floor_div(2.0), -4.0);
    assert!(1.0f32.floor_mod(0.0).is_nan());
}

mod end_to_end {
    use super::super::super::one_op::{F32, I32, I64, BOOL, f32s, i32s, kernel_error, model, run, to_f32s, to_i32s, var};
    use crate::interpreter::KernelError;

    const FLOOR_DIV: i32 = 90;
    const FLOOR_MOD: i32 = 95;

    #[test]
    fn floor_ops_run() {
        let file = model(FLOOR_DIV, None, &[var(I32, &[2, 2]), var(I32, &[2]), var(I32, &[2, 2])], 2);
        let out = run(&file, &[&i32s(&[7, -7, 8, -8]), &i32s(&[2, -3])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [3, 2, 4, 2]);
        let file = model(FLOOR_MOD, None, &[var(F32, &[3]), var(F32, &[]), var(F32, &[3])], 2);
        let out = run(&file, &[&f32s(&[5.5, -5.5, 0.0]), &f32s(&[2.0])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [1.5, 0.5, 0.0]);
        // A zero divisor: an error for FLOOR_DIV (float32 too) and integer FLOOR_MOD.
        let file = model(FLOOR_DIV, None, &[var(F32, &[1]), var(F32, &[1]), var(F32, &[1])], 2);
        let e = run(&file, &[&f32s(&[1.0]), &f32s(&[-0.0])]).unwrap_err();
        assert!(matches!(kernel_error(e), KernelError::Mismatch { .. }));
        let file = model(FLOOR_MOD, None, &[var(I32, &[1]), var(I32, &[2]), var(I32, &[2])], 2);
        let e = run(&file, &[&i32s(&[1]), &i32s(&[3, 0])]).unwrap_err();
        assert!(matches!(kernel_error(e), KernelError::Mismatch { .. }));
    }

    #[test]
    fn refuses_other_types() {
        let e = kernel_error(run(&model(FLOOR_DIV, None, &[var(I64, &[1]), var(I64, &[1]), var(I64, &[1])], 2), &[]).unwrap_err());
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        let e = kernel_error(run(&model(FLOOR_MOD, None, &[var(BOOL, &[1]), var(BOOL, &[1]), var(BOOL, &[1])], 2), &[]).unwrap_err());
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
    }
}
