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
