//! The int16 sigmoid-table kernels against the functions they approximate, and the table
//! against its definition.

use super::*;
use proptest::prelude::*;

/// The input scaling of LOGISTIC (`logistic`) or TANH.
fn scaling(logistic: bool, in_scale: f32) -> Result<(i32, u32), crate::interpreter::KernelError> {
    let f = if logistic {
        Function::Logistic
    } else {
        Function::Tanh
    };
    int16_input_scaling(f, in_scale)
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// Q0.15 of a real in [-1, 1], as an int16 output can hold it.
fn q15(v: f64) -> f64 {
    (v * 32768.0).clamp(-32768.0, 32767.0)
}

#[test]
fn table_is_sigmoid_of_i_over_24_within_one() {
    for (i, &t) in SIGMOID_TABLE.iter().enumerate() {
        let want = (65536.0 * sigmoid(i as f64 / 24.0)).round().min(65535.0);
        assert!(
            (f64::from(t) - want).abs() <= 1.0,
            "entry {i}: {t} vs {want}"
        );
    }
    assert!(SIGMOID_TABLE.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn every_input_is_monotone_and_close_at_the_table_scales() {
    // The power-of-two cases (2^-12 for both, 2^-11 for TANH) and a general scale, over every
    // int16 input. Measured worst errors: 1.02, 1.48, 1.42 and 1.36 / 2.68 steps of 2^-15.
    let step = if cfg!(miri) { 251 } else { 1 };
    let cases: [(f32, bool); 5] = [
        (1.0 / 4096.0, true),
        (1.0 / 4096.0, false),
        (1.0 / 2048.0, false),
        (3.0 / 32767.0, true),
        (3.0 / 32767.0, false),
    ];
    for (scale, logistic) in cases {
        let (m, s) = scaling(logistic, scale).unwrap();
        let f = if logistic { logistic_i16 } else { tanh_i16 };
        let mut last = i16::MIN;
        for x in (i32::from(i16::MIN)..=i32::from(i16::MAX)).step_by(step) {
            let x = x as i16;
            let got = f(x, m, s);
            assert!(
                got >= last,
                "not monotone at {x} ({scale}, logistic {logistic})"
            );
            last = got;
            let real = f64::from(x) * f64::from(scale);
            let want = q15(if logistic { sigmoid(real) } else { real.tanh() });
            assert!(
                (f64::from(got) - want).abs() <= 3.0,
                "{x} at {scale} (logistic {logistic}): {got} vs {want}"
            );
        }
    }
}

proptest! {
    #![proptest_config(super::super::super::super::proptest_config::cases(1024, 8))]
    #[test]
    fn close_to_the_real_functions_at_any_scale(
        x in any::<i16>(), scale_log2 in -16.0f64..-9.0, logistic in any::<bool>(),
    ) {
        let scale = 2f64.powf(scale_log2) as f32;
        let (m, s) = scaling(logistic, scale).unwrap();
        // The scale the kernel runs at, `multiplier / 2^shift / (3 * 4096)`: within 2^-14 of
        // the model's (the multiplier keeps 15 significant bits), or, in the power-of-two
        // case (no shift), the power of two within 2^±0.001 of it, which TensorFlow Lite's
        // `CheckedLog2` takes for the scale itself (off by up to 7 output steps at the
        // largest inputs, as in the reference).
        let used = f64::from(m) / f64::from(s).exp2() / 12288.0;
        let ratio = used / f64::from(scale);
        if s == 0 {
            prop_assert!(ratio.log2().abs() < 1.001e-3, "{} for {}", used, scale);
        } else {
            prop_assert!((ratio - 1.0).abs() <= 2f64.powi(-14), "{} for {}", used, scale);
        }
        let real = f64::from(x) * used;
        let (got, want) = if logistic {
            (logistic_i16(x, m, s), q15(sigmoid(real)))
        } else {
            (tanh_i16(x, m, s), q15(real.tanh()))
        };
        // Measured worst over every input at 4 000 scales from 2^-16 to 2^-9: 2.45 steps
        // of 2^-15 (TANH), 1.27 (LOGISTIC).
        prop_assert!((f64::from(got) - want).abs() <= 3.0, "{} vs {}", got, want);
    }

    #[test]
    fn logistic_is_point_symmetric(x in -32767i16..=32767, scale_log2 in -16.0f64..-9.0) {
        let (m, s) = scaling(true, 2f64.powf(scale_log2) as f32).unwrap();
        let sum = i32::from(logistic_i16(x, m, s)) + i32::from(logistic_i16(-x, m, s));
        prop_assert!((sum - 32768).abs() <= 1, "{}", sum);
    }
}
