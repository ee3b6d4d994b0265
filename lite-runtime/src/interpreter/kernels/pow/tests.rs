//! POW: the element-wise power against its definition, the integer-exponent shortcut against
//! LiteRT's repeated squaring, and end to end.

use super::*;
use proptest::prelude::*;

/// `IntegerExponentPow`'s recursion, as written in LiteRT.
fn recursive<T: Power>(x: T, n: u32) -> T {
    if n == 1 {
        x
    } else {
        let h = recursive(x, n / 2);
        let r = h.mul(h);
        if n % 2 == 1 { x.mul(r) } else { r }
    }
}

proptest! {
    #![proptest_config(super::super::proptest_config::cases(512, 8))]

    #[test]
    fn integer_pow_is_the_recursion(x in -3.0f32..3.0, n in 1u32..40, i in any::<i32>()) {
        prop_assert_eq!(integer_pow(x, n).to_bits(), recursive(x, n).to_bits());
        prop_assert_eq!(integer_pow(i, n), recursive(i, n));
    }

    #[test]
    fn int_pow_is_exact_or_min(x in -50i32..50, e in 0i32..40) {
        let want = i128::from(x)
            .checked_pow(e as u32)
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(i32::MIN);
        prop_assert_eq!(Power::pow(x, e), want);
    }
}

#[test]
fn shortcut_exponents() {
    assert_eq!(f32::integer_exponent(2.0), Some(2));
    assert_eq!(f32::integer_exponent(2.000_001), Some(2));
    assert_eq!(f32::integer_exponent(2.5), None);
    assert_eq!(f32::integer_exponent(0.0), None);
    assert_eq!(f32::integer_exponent(-2.0), None);
    assert_eq!(f32::integer_exponent(f32::NAN), None);
    assert_eq!(f32::integer_exponent(3e9), None);
    // Overflow clamps to the finite range on the shortcut, not through powf.
    assert_eq!(integer_pow(1e20f32, 2), f32::MAX);
    assert_eq!(Power::pow(1e20f32, 2.0), f32::INFINITY);
    assert_eq!(Power::pow(i32::MAX, 2), i32::MIN);
    assert_eq!(integer_pow(65_536i32, 2), 0);
    assert_eq!(Power::pow(-2i32, 31), i32::MIN);
    assert_eq!(Power::pow(-1i32, i32::MAX), -1);
}

mod end_to_end {
    use super::super::super::one_op::{F32, I32, I64, f32s, i32s, kernel_error, model, run, to_f32s, to_i32s, var};
    use crate::interpreter::KernelError;

    const POW: i32 = 78;

    #[test]
    fn pow_runs() {
        let file = model(POW, None, &[var(F32, &[3]), var(F32, &[3]), var(F32, &[3])], 2);
        let out = run(&file, &[&f32s(&[2.0, 9.0, -8.0]), &f32s(&[3.0, 0.5, 1.0 / 3.0])]).unwrap();
        let out = to_f32s(&out[0]);
        assert_eq!(out[..2], [8.0, 3.0]);
        assert!(out[2].is_nan());
        // A scalar exponent near an integer: the shortcut.
        let file = model(POW, None, &[var(F32, &[2]), var(F32, &[]), var(F32, &[2])], 2);
        let out = run(&file, &[&f32s(&[3.0, 1e30]), &f32s(&[2.000_001])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [9.0, f32::MAX]);
        let file = model(POW, None, &[var(I32, &[2]), var(I32, &[2]), var(I32, &[2])], 2);
        let out = run(&file, &[&i32s(&[-3, 7]), &i32s(&[3, 0])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [-27, 1]);
        // A negative int32 exponent fails the invoke.
        let e = run(&file, &[&i32s(&[2, 2]), &i32s(&[1, -1])]).unwrap_err();
        assert!(matches!(kernel_error(e), KernelError::Mismatch { .. }));
        let e = kernel_error(run(&model(POW, None, &[var(I64, &[1]), var(I64, &[1]), var(I64, &[1])], 2), &[]).unwrap_err());
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
    }
}
