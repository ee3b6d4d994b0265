//! Requantization of a concatenated int8 input against the real values.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(512, 8))]
    #[test]
    fn requantized_value_is_the_rounded_real_value(
        q in any::<i8>(),
        s in 0.001f32..1.0, so in 0.001f32..1.0,
        zp in -128i32..=127, zo in -128i32..=127,
    ) {
        let scale = s * (1.0 / so);
        let r = Rescale { scale, bias: -(zp as f32) * scale, same: 0, _pad: 0 };
        let got = f64::from(requantize(i32::from(q), &r, zo, -128, 127));
        let real = f64::from(s) * (f64::from(q) - f64::from(zp)) / f64::from(so) + f64::from(zo);
        let want = real.round().clamp(-128.0, 127.0);
        // float rounding of scale and bias can move a value by one next to a tie.
        prop_assert!((got - want).abs() <= 1.0, "{} {}", got, want);
    }
}
