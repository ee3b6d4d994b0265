//! The element-wise math against naive references, end to end through one-operator models,
//! and the refusals.

use super::quantized::rsqrt_i8;
use super::*;
use proptest::prelude::*;

use super::super::one_op::{
    BOOL, F32, I8, I16, I32, I64, Tensor, f32s, i32s, i64s, model, run, setup_error, to_f32s,
    to_i32s, to_i64s, unary_f32, var,
};

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

#[test]
fn round_breaks_ties_to_even_as_the_reference() {
    let x = [-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6, 1e30, f32::INFINITY];
    let y: Vec<f32> = x.iter().map(|&v| round_half_even(v)).collect();
    assert_eq!(y, [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 2.0, -3.0, 1e30, f32::INFINITY]);
    // The floor of -0.25 is -1; plus one gives +0 (not rint's -0).
    assert!(round_half_even(-0.25).is_sign_positive());
    assert!(round_half_even(f32::NAN).is_nan());
}

#[test]
fn sign_keeps_nan_and_gives_positive_zero() {
    assert_eq!(sign(-3.0), -1.0);
    assert_eq!(sign(0.1), 1.0);
    assert!(sign(-0.0).is_sign_positive());
    assert!(sign(f32::NAN).is_nan());
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn round_is_rint_up_to_the_sign_of_zero(x in -1e8f32..1e8) {
        prop_assert_eq!(round_half_even(x), libm::rintf(x) + 0.0);
    }

    #[test]
    fn int8_rsqrt_is_within_one_step_of_the_real_value(
        q in -128i32..=127,
        zp in -128i32..=0,
        in_scale in 0.001f32..0.5,
        out_scale in 0.005f32..0.5,
    ) {
        prop_assume!(q > zp);
        let scale = 1.0 / f64::from(libm::sqrtf(in_scale) * out_scale);
        let (multiplier, shift) = quant::quantize_multiplier(scale).unwrap();
        prop_assume!((-11..=30).contains(&shift));
        let p = Params { in_zp: zp, out_zp: -128, multiplier, shift, ..Params::default() };
        let real = 1.0 / (f64::from(in_scale) * f64::from(q - zp)).sqrt() / f64::from(out_scale);
        let want = (real.round() - 128.0).clamp(-128.0, 127.0);
        let got = f64::from(rsqrt_i8(q, &p));
        prop_assert!((got - want).abs() <= 1.0, "got {got}, real {want}");
    }
}

use super::super::base::quant;

const X: [f32; 6] = [-2.5, -0.75, 0.0, 0.5, 1.5, 4.0];

#[test]
fn float_ops_run_end_to_end() {
    let each = |f: fn(f32) -> f32| X.iter().map(|&v| f(v)).collect::<Vec<_>>();
    assert_eq!(unary_f32(101, None, &X), each(math::abs));
    assert_eq!(unary_f32(104, None, &X), each(libm::ceilf));
    assert_eq!(unary_f32(116, None, &X), each(round_half_even));
    assert_eq!(unary_f32(108, None, &X), each(libm::cosf));
    assert_eq!(unary_f32(66, None, &X), each(libm::sinf));
    assert_eq!(unary_f32(47, None, &X), each(libm::expf));
    assert_eq!(unary_f32(92, None, &X), each(|v| v * v));
    assert_eq!(unary_f32(59, None, &X), each(|v| -v));
    assert_eq!(unary_f32(158, None, &X), each(sign));
    let log = unary_f32(73, None, &X);
    assert!(log[0].is_nan() && log[2] == f32::NEG_INFINITY && log[5] == libm::logf(4.0));
    let sqrt = unary_f32(75, None, &X);
    assert!(sqrt[0].is_nan() && sqrt[5] == 2.0);
    let rsqrt = unary_f32(76, None, &X);
    assert!(rsqrt[2] == f32::INFINITY && rsqrt[5] == 0.5);
}

#[test]
fn empty_tensors_run() {
    for code in [101, 104, 116, 108, 66, 47, 73, 75, 76, 92, 59, 158] {
        assert_eq!(unary_f32(code, None, &[]), Vec::<f32>::new(), "op {code}");
    }
}

fn unary_model(code: i32, ty: u8, n: i32) -> Vec<u8> {
    model(code, None, &[var(ty, &[n]), var(ty, &[n])], 1)
}

#[test]
fn integer_ops_run_end_to_end() {
    let x = [i32::MIN, -7, 0, 3, i32::MAX];
    let run_i32 = |code| to_i32s(&run(&unary_model(code, I32, 5), &[&i32s(&x)]).unwrap()[0]);
    assert_eq!(run_i32(101), [i32::MIN, 7, 0, 3, i32::MAX]);
    assert_eq!(run_i32(59), [i32::MIN, 7, 0, -3, -i32::MAX]);
    assert_eq!(run_i32(158), [-1, -1, 0, 1, 1]);
    let x64 = [i64::MIN, -7, 0, 5];
    let neg = run(&unary_model(59, I64, 4), &[&i64s(&x64)]).unwrap();
    assert_eq!(to_i64s(&neg[0]), [i64::MIN, 7, 0, -5]);
    let zeros = run(&unary_model(93, I64, 4), &[&i64s(&x64)]).unwrap();
    assert_eq!(to_i64s(&zeros[0]), [0; 4]);
    let zeros = run(&unary_model(93, F32, 3), &[&f32s(&[1.0, f32::NAN, -2.0])]).unwrap();
    assert_eq!(to_f32s(&zeros[0]), [0.0; 3]);
    let not = run(&unary_model(87, BOOL, 3), &[&[1u8, 0, 1]]).unwrap();
    assert_eq!(not[0], [0, 1, 0]);
    // int8 and int16 NEG wrap at the minimum; int16 ABS without quantization too.
    let neg8 = run(&unary_model(59, I8, 3), &[&[0x80u8, 0xff, 5]]).unwrap();
    assert_eq!(neg8[0], [0x80, 1, 0xfb]);
    let abs16 = run(&unary_model(101, I16, 2), &[&[0x00, 0x80, 0xfe, 0xff]]).unwrap();
    assert_eq!(abs16[0], [0x00, 0x80, 0x02, 0x00]);
}

#[test]
fn setup_refuses_what_eval_cannot_do() {
    // Types the op does not take.
    for (code, ty) in [(101, BOOL), (104, I32), (93, I8), (87, F32), (158, I64), (47, I32)] {
        let e = setup_error(&unary_model(code, ty, 3));
        assert!(matches!(e, KernelError::Unsupported { .. }), "op {code}: {e}");
    }
    // int8 math without quantization parameters.
    for code in [101, 47, 73, 75, 76] {
        let e = setup_error(&unary_model(code, I8, 3));
        assert!(matches!(e, KernelError::Mismatch { .. }), "op {code}: {e}");
    }
    // Output of another type or shape.
    let tensors: [Tensor; 2] = [var(F32, &[3]), var(I32, &[3])];
    assert_eq!(setup_error(&model(59, None, &tensors, 1)), check::OUTPUT_TYPE);
    let tensors: [Tensor; 2] = [var(I32, &[3]), var(I32, &[4])];
    assert_eq!(setup_error(&model(93, None, &tensors, 1)), check::OUTPUT_SHAPE);
}
