//! The integer softmax against the real softmax it approximates, and its fixed points.

use super::*;
use proptest::prelude::*;

fn params_i8(beta: f32, scale: f32, depth: usize) -> Params {
    let (m, s, d) = int8_scaling(f64::from(beta), f64::from(scale)).unwrap();
    Params {
        kind: I8_TO_I8,
        outer: 1,
        depth: depth as u32,
        input_multiplier: m,
        input_left_shift: s,
        diff_min: d,
    }
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(256, 4))]
    #[test]
    fn int8_close_to_real_softmax(
        x in proptest::collection::vec(any::<i8>(), 1..40),
        scale in 0.01f32..0.5,
        beta in 0.5f32..2.0,
    ) {
        let p = params_i8(beta, scale, x.len());
        let mut y = vec![0i8; x.len()];
        softmax_row(&p, &x, &mut y, 8, -128, |v| v as i8);
        let max = f64::from(*x.iter().max().unwrap());
        let e: Vec<f64> = x.iter().map(|&v| ((f64::from(v) - max) * f64::from(scale) * f64::from(beta)).exp()).collect();
        let sum: f64 = e.iter().sum();
        for (got, e) in y.iter().zip(&e) {
            let want = e / sum * 256.0 - 128.0;
            prop_assert!((f64::from(*got) - want).abs() <= 2.0, "{} {}", got, want);
        }
    }

    /// The reference computes uint8 as int8 shifted by 128: the same differences from the row's
    /// maximum, the output offset by its type's least value.
    #[test]
    fn uint8_is_int8_shifted(
        x in proptest::collection::vec(any::<i8>(), 1..40),
        scale in 0.01f32..0.5,
        beta in 0.5f32..2.0,
    ) {
        let p = params_i8(beta, scale, x.len());
        let mut y8 = vec![0i8; x.len()];
        softmax_row(&p, &x, &mut y8, 8, -128, |v| v as i8);
        let xu: Vec<u8> = x.iter().map(|&v| (i16::from(v) + 128) as u8).collect();
        let mut yu = vec![0u8; x.len()];
        softmax_row(&p, &xu, &mut yu, 8, 0, |v| v as u8);
        let shifted: Vec<u8> = y8.iter().map(|&v| (i16::from(v) + 128) as u8).collect();
        prop_assert_eq!(yu, shifted);
        let (mut a, mut b) = (vec![0i16; x.len()], vec![0i16; x.len()]);
        softmax_row(&p, &x, &mut a, 16, -32768, |v| v as i16);
        softmax_row(&p, &xu, &mut b, 16, -32768, |v| v as i16);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn int16_close_to_real_softmax(
        x in proptest::collection::vec(any::<i16>(), 1..40),
        scale in 1e-4f32..1e-3,
    ) {
        let mut exp_lut = [0i16; LUT16];
        let mut recip_lut = [0i16; LUT16];
        let range = 65535.0;
        populate_i16(10.0 / range, 32767, 2.0 / range, 0, libm::exp, &mut exp_lut);
        populate_i16(1.0 / range, -32768, 2.0 / range, 0, |v| 1.0 / (1.0 + v), &mut recip_lut);
        let (m, s) = quant::checked_multiplier(f64::from(scale) / (10.0 / 65535.0), false).unwrap();
        let p = Params { kind: I16_TO_I16, outer: 1, depth: x.len() as u32, input_multiplier: m, input_left_shift: s, diff_min: 0 };
        let mut y = vec![0i16; x.len()];
        softmax_i16_row(&p, &exp_lut, &recip_lut, &x, &mut y);
        let max = f64::from(*x.iter().max().unwrap());
        let e: Vec<f64> = x.iter().map(|&v| ((f64::from(v) - max) * f64::from(scale)).exp()).collect();
        let sum: f64 = e.iter().sum();
        for (got, e) in y.iter().zip(&e) {
            // The two interpolated tables are good to about 1 %.
            let want = e / sum * 32768.0;
            prop_assert!((f64::from(*got) - want).abs() <= 330.0, "{} {}", got, want);
        }
    }
}

#[test]
fn one_element_row_is_one() {
    let p = params_i8(1.0, 0.1, 1);
    let mut y = [0i8];
    softmax_row(&p, &[5], &mut y, 8, -128, |v| v as i8);
    assert_eq!(y, [127]);
}
