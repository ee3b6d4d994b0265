//! PRELU against naive references: the float function, the quantized body against the real
//! value, broadcasting end to end, and the refusals.

use super::*;
use proptest::prelude::*;

use super::super::one_op::{F32, I8, I32, Tensor, f32s, model, run, setup_error, to_f32s, var};

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

fn const_f32(shape: &[i32], v: &[f32]) -> Tensor {
    Tensor {
        ty: F32,
        shape: shape.to_vec(),
        data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    }
}

#[test]
fn float_prelu_keeps_non_negative_values() {
    assert_eq!(prelu(2.0, 0.5), 2.0);
    assert_eq!(prelu(-2.0, 0.5), -1.0);
    assert_eq!(prelu(-2.0, -0.5), 1.0);
    assert!(prelu(-0.0, 3.0).is_sign_negative());
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn quantized_is_within_one_step_of_the_real_value(
        x in -128i32..=127,
        a in -128i32..=127,
        in_zp in -10i32..=10,
        a_zp in -10i32..=10,
        in_scale in 0.01f32..0.1,
        a_scale in 0.001f32..0.01,
        out_scale in 0.01f32..0.1,
    ) {
        let (multiplier_1, shift_1) =
            quant::checked_multiplier(f64::from(in_scale / out_scale), false).unwrap();
        let (multiplier_2, shift_2) =
            quant::checked_multiplier(f64::from(in_scale * a_scale / out_scale), false).unwrap();
        let p = Params {
            input_offset: -in_zp,
            alpha_offset: -a_zp,
            output_offset: 3,
            multiplier_1,
            shift_1,
            multiplier_2,
            shift_2,
        };
        let xr = f64::from(in_scale) * f64::from(x - in_zp);
        let ar = f64::from(a_scale) * f64::from(a - a_zp);
        let real = if xr >= 0.0 { xr } else { xr * ar } / f64::from(out_scale) + 3.0;
        let got = f64::from(prelu_q(x, a, &p));
        prop_assert!((got - real).abs() <= 1.0, "got {got}, real {real}");
    }
}

#[test]
fn alpha_broadcasts_over_the_input() {
    // Alpha per channel ([3]) over a [2, 3] input.
    let file = model(
        54,
        None,
        &[var(F32, &[2, 3]), const_f32(&[3], &[0.5, -1.0, 2.0]), var(F32, &[2, 3])],
        2,
    );
    let x = [-2.0, -2.0, -2.0, 1.0, -1.0, 0.0];
    let y = to_f32s(&run(&file, &[&f32s(&x)]).unwrap()[0]);
    assert_eq!(y, [-1.0, 2.0, -4.0, 1.0, 1.0, 0.0]);
    // An empty input.
    let file = model(
        54,
        None,
        &[var(F32, &[0, 3]), const_f32(&[3], &[0.5, -1.0, 2.0]), var(F32, &[0, 3])],
        2,
    );
    assert_eq!(run(&file, &[&[]]).unwrap()[0], Vec::<u8>::new());
}

#[test]
fn setup_refuses_what_eval_cannot_do() {
    // Alpha that would broadcast the input larger.
    let file = model(
        54,
        None,
        &[var(F32, &[3]), const_f32(&[2, 3], &[0.0; 6]), var(F32, &[3])],
        2,
    );
    assert!(matches!(setup_error(&file), KernelError::Mismatch { .. }));
    // Alpha of another type, an input type PRELU does not take.
    let file = model(54, None, &[var(F32, &[3]), var(I32, &[3]), var(F32, &[3])], 2);
    assert!(matches!(setup_error(&file), KernelError::Mismatch { .. }));
    let file = model(54, None, &[var(I32, &[3]), var(I32, &[3]), var(I32, &[3])], 2);
    assert_eq!(setup_error(&file), check::TYPE);
    // int8 without quantization.
    let file = model(54, None, &[var(I8, &[3]), var(I8, &[3]), var(I8, &[3])], 2);
    assert!(matches!(setup_error(&file), KernelError::Mismatch { .. }));
}
