//! GELU against f64 references, end to end with both option values, and the refusals.

use super::*;
use proptest::prelude::*;

use super::super::one_op::{F, I32, model, setup_error, unary_f32, var};

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

fn erf(x: f64) -> f64 {
    libm::erf(x)
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn both_forms_match_f64(x in -8.0f32..8.0) {
        let xd = f64::from(x);
        let exact = 0.5 * xd * (1.0 + erf(xd / core::f64::consts::SQRT_2));
        prop_assert!((f64::from(gelu(x)) - exact).abs() <= 1e-6 * (1.0 + exact.abs()));
        let k = (2.0 / core::f64::consts::PI).sqrt();
        let approx = 0.5 * xd * (1.0 + (k * (xd + 0.044715 * xd * xd * xd)).tanh());
        prop_assert!((f64::from(gelu_approximate(x)) - approx).abs() <= 1e-6 * (1.0 + approx.abs()));
    }
}

#[test]
fn runs_end_to_end_with_either_option() {
    let x = [-3.0, -0.5, 0.0, 0.5, 1.0, 4.0];
    let exact: Vec<f32> = x.iter().map(|&v| gelu(v)).collect();
    let approx: Vec<f32> = x.iter().map(|&v| gelu_approximate(v)).collect();
    assert_eq!(unary_f32(150, None, &x), exact);
    assert_eq!(unary_f32(150, Some((116, vec![(0, F::U8(0))])), &x), exact);
    assert_eq!(unary_f32(150, Some((116, vec![(0, F::U8(1))])), &x), approx);
    assert_ne!(exact, approx);
}

#[test]
fn setup_refuses_other_types() {
    let e = setup_error(&model(150, None, &[var(I32, &[3]), var(I32, &[3])], 1));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
}
