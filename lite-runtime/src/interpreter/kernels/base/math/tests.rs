//! The float math against f64 and the reference kernels' cutoffs.

use super::*;
use proptest::prelude::*;

fn close(got: f32, want: f64) -> bool {
    let g = f64::from(got);
    (g - want).abs() <= 1e-5 + 1e-5 * want.abs() || (got.is_nan() && want.is_nan())
}

fn cases() -> ProptestConfig {
    super::super::super::proptest_config::cases(256, 4)
}

#[test]
fn logistic_follows_the_reference_cutoffs() {
    assert_eq!(logistic(17.0), 1.0);
    assert_eq!(logistic(f32::INFINITY), 1.0);
    assert_eq!(logistic(-10.0), exp(-10.0));
    assert_eq!(logistic(f32::NEG_INFINITY), 0.0);
    assert_eq!(logistic(0.0), 0.5);
    assert!(logistic(f32::NAN).is_nan());
    // Either side of a cutoff the two formulas agree to float precision.
    for x in [16.6f32, 16.7, -8.99, -9.01] {
        assert!(
            close(logistic(x), 1.0 / (1.0 + (-f64::from(x)).exp())),
            "{x}"
        );
    }
}

#[test]
fn exp_is_within_two_ulp() {
    for x in [
        -87.0f32, -50.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 10.0, 80.0, 88.0, 88.7,
    ] {
        let want = f64::from(x).exp();
        let got = f64::from(exp(x));
        assert!(
            (got - want).abs() <= want * 2.4e-7,
            "exp({x}) = {got}, {want}"
        );
    }
    assert_eq!(exp(0.0), 1.0);
    assert_eq!(exp(89.0), f32::INFINITY);
    assert_eq!(exp(f32::INFINITY), f32::INFINITY);
    assert!(exp(f32::NEG_INFINITY) < 1e-37);
    assert!(exp(-1000.0) < 1e-37);
    assert!(exp(f32::NAN).is_nan());
    assert!(tanh(f32::NAN).is_nan());
    assert_eq!(tanh(f32::INFINITY), 1.0);
    assert_eq!(tanh(f32::NEG_INFINITY), -1.0);
    assert_eq!(tanh(-0.0).to_bits(), (-0.0f32).to_bits());
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn exp_and_tanh_are_close_to_f64(x in -87.0f32..88.0) {
        let want = f64::from(x).exp();
        prop_assert!((f64::from(exp(x)) - want).abs() <= want * 2.4e-7, "exp({})", x);
        let want = f64::from(x).tanh();
        prop_assert!((f64::from(tanh(x)) - want).abs() <= want.abs() * 2e-6 + 1e-30, "tanh({})", x);
        let small = x / 1000.0;
        let want = f64::from(small).tanh();
        prop_assert!((f64::from(tanh(small)) - want).abs() <= want.abs() * 2e-6 + 1e-30, "tanh({})", small);
    }
}

proptest! {
    #![proptest_config(cases())]

    /// Four rows at once give each row's `dot`, bit for bit.
    #[test]
    fn dot4_is_four_dots(
        n in 0usize..70,
        seed in any::<u64>(),
    ) {
        let mut s = seed | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 4001) as f32 / 1000.0 - 2.0
        };
        let a: std::vec::Vec<f32> = (0..n).map(|_| next()).collect();
        let rows: std::vec::Vec<std::vec::Vec<f32>> =
            (0..4).map(|_| (0..n).map(|_| next()).collect()).collect();
        let got = dot4(&a, [&rows[0], &rows[1], &rows[2], &rows[3]]);
        for (g, r) in got.iter().zip(&rows) {
            prop_assert_eq!(g.to_bits(), dot(&a, r).to_bits());
        }
    }
}
