//! HARD_SWISH against naive references: the float function, the fixed-point body against the
//! real value it approximates, the 16-bit multiplier rounding, end to end and refusals.

use super::*;
use proptest::prelude::*;

use super::super::one_op::{F32, I32, model, setup_error, unary_f32, var};

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

#[test]
fn float_hard_swish_is_zero_below_minus_three_and_identity_above_three() {
    assert_eq!(hard_swish(-4.0), -0.0);
    assert_eq!(hard_swish(4.0), 4.0);
    assert_eq!(hard_swish(0.0), 0.0);
    assert_eq!(hard_swish(1.5), 1.5 * 4.5 / 6.0);
    assert!(hard_swish(f32::NAN).is_nan());
}

#[test]
fn multipliers_round_to_sixteen_bits() {
    assert_eq!(down_scale_multiplier(1 << 30), 1 << 14);
    assert_eq!(down_scale_multiplier((1 << 30) + (1 << 15)), (1 << 14) + 1);
    assert_eq!(down_scale_multiplier(i32::MAX), i16::MAX);
    // An output scale below input_scale / 128 needs a left shift the kernel does not have.
    assert!(params(1.0, 0, 0.001, 0).is_err());
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_matches_f64(x in -10.0f32..10.0) {
        let xd = f64::from(x);
        let want = xd * (xd + 3.0).clamp(0.0, 6.0) / 6.0;
        prop_assert!((f64::from(hard_swish(x)) - want).abs() <= 1e-6 * (1.0 + want.abs()));
    }

    #[test]
    fn int8_is_within_two_steps_of_the_real_value(
        q in -128i32..=127,
        in_zp in -20i32..=20,
        in_scale in 0.01f32..0.1,
        out_ratio in 0.3f32..1.5,
    ) {
        let out_scale = in_scale * out_ratio;
        let p = params(in_scale, in_zp, out_scale, -10).unwrap();
        let x = f64::from(in_scale) * f64::from(q - in_zp);
        let real = x * (x + 3.0).clamp(0.0, 6.0) / 6.0 / f64::from(out_scale) - 10.0;
        let want = real.round().clamp(-128.0, 127.0);
        let got = f64::from(i8::clamped(i32::from(hard_swish_q(q, &p))));
        prop_assert!((got - want).abs() <= 2.0, "q {q}: got {got}, real {real}");
    }
}

#[test]
fn runs_end_to_end_and_refuses_other_types() {
    let x = [-5.0, -1.5, 0.0, 0.5, 2.0, 7.0];
    let want: Vec<f32> = x.iter().map(|&v| hard_swish(v)).collect();
    assert_eq!(unary_f32(117, None, &x), want);
    assert_eq!(unary_f32(117, None, &[]), Vec::<f32>::new());
    let e = setup_error(&model(117, None, &[var(I32, &[3]), var(I32, &[3])], 1));
    assert_eq!(e, check::TYPE);
    let e = setup_error(&model(117, None, &[var(F32, &[3]), var(F32, &[2])], 1));
    assert_eq!(e, check::OUTPUT_SHAPE);
}
