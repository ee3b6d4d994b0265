//! Quantized MEAN's rescaling against the real mean.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(512, 8))]
    #[test]
    fn mean_is_close_to_the_real_mean(
        x in proptest::collection::vec(any::<i8>(), 1..300),
        in_scale in 0.01f32..0.1,
        out_scale in 0.01f32..0.1,
        in_zp in -20i32..20,
        out_zp in -20i32..20,
    ) {
        let (m, s) = quant::quantize_multiplier(f64::from(in_scale) / f64::from(out_scale)).unwrap();
        let (multiplier, shift) = fold_count(m, s, x.len() as u64);
        let p = Params {
            segs: Segments::new(&[x.len()], 1).unwrap(),
            inputs: x.len() as u32,
            outputs: 1,
            count: x.len() as u32,
            kind: 0,
            multiplier,
            shift,
            input_zero_point: in_zp,
            output_zero_point: out_zp,
        };
        let sum: i32 = x.iter().map(|&v| i32::from(v)).sum();
        let got = requantize(&p, sum, -128, 127);
        let real = f64::from(in_scale) * (f64::from(sum) / x.len() as f64 - f64::from(in_zp))
            / f64::from(out_scale) + f64::from(out_zp);
        let want = real.round().clamp(-128.0, 127.0);
        prop_assert!((f64::from(got) - want).abs() <= 1.0, "{} {}", got, want);
    }
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(512, 8))]
    /// The quantized product against the real product of the dequantized inputs: the
    /// reference's per-step rescaling loses at most a few output steps.
    #[test]
    fn prod_is_close_to_the_real_product(
        x in proptest::collection::vec(-40i8..40, 1..5),
        in_zp in -5i32..5,
        out_zp in -5i32..5,
    ) {
        let (in_scale, out_scale) = (0.05f64, 0.01f64);
        let n = x.len();
        let scaling = in_scale / out_scale.powf(1.0 / n as f64);
        let (m, s) = quant::checked_multiplier(scaling, true).unwrap();
        let mut acc: Option<i64> = None;
        for &v in &x {
            let q = i64::from(v) - i64::from(in_zp);
            acc = Some(match acc {
                None => q,
                Some(a) => i64::from(quant::multiply_by_quantized_multiplier_i64(a * q, m, s)),
            });
        }
        let got = quant::multiply_by_quantized_multiplier_i64(acc.unwrap(), m, s) + out_zp;
        let q: Vec<f64> = x.iter().map(|&v| f64::from(v) - f64::from(in_zp)).collect();
        let real: f64 = q.iter().map(|&v| v * in_scale).product();
        let want = real / out_scale + f64::from(out_zp);
        // Each rescaled step rounds (by at most 1/2), and that error is carried through the
        // later factors and the final rescaling; the fixed-point multiplier adds a relative
        // 2^-14 per step.
        let mut bound = 0.5;
        for i in 1..n {
            bound += 0.5 * q[i + 1..].iter().map(|v| v.abs() * scaling).product::<f64>() * scaling;
        }
        bound += want.abs() * n as f64 * 2f64.powi(-14) + 1e-9;
        prop_assert!((f64::from(got) - want).abs() <= bound, "{} {} {}", got, want, bound);
    }
}
