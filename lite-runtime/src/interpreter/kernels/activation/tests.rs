//! The activations against naive f64 references and LiteRT's outputs in the `ops_elementwise`
//! fixture, and end to end through one-operator models.

use super::*;
use super::super::base::check;
use proptest::prelude::*;

fn close(got: f32, want: f64) -> bool {
    let g = f64::from(got);
    (g - want).abs() <= 1e-5 + 1e-5 * want.abs() || (got.is_nan() && want.is_nan())
}

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

#[test]
fn relus_clamp_and_keep_nan() {
    assert_eq!(relu(-1.5), 0.0);
    assert_eq!(relu(2.5), 2.5);
    assert!(relu(f32::NAN).is_nan());
    assert_eq!(relu6(7.0), 6.0);
    assert_eq!(relu6(-7.0), 0.0);
    assert_eq!(relu6(3.0), 3.0);
    assert!(relu6(f32::NAN).is_nan());
    assert_eq!(leaky_relu(-2.0, 0.2), -0.4);
    assert_eq!(leaky_relu(2.0, 0.2), 2.0);
    assert_eq!(leaky_relu(0.0, 0.2), 0.0);
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn activations_match_f64(x in -40.0f32..40.0) {
        let xd = f64::from(x);
        prop_assert!(close(math::logistic(x), 1.0 / (1.0 + (-xd).exp())));
        prop_assert!(close(math::tanh(x), xd.tanh()));
        prop_assert_eq!(relu(x), x.max(0.0));
        prop_assert_eq!(relu6(x), x.clamp(0.0, 6.0));
        let leaky = if xd > 0.0 { xd } else { 0.3 * xd };
        prop_assert!(close(leaky_relu(x, 0.3), leaky));
    }
}

/// The fixture's activation outputs that read a graph input directly, against LiteRT.
#[cfg(all(feature = "std", not(miri)))]
#[test]
fn ops_elementwise_fixture_activation_outputs() {
    let load = |name: &str| super::super::fixtures::f32s(&format!("ops_elementwise.{name}.npy"));
    let (a, b) = (load("in2"), load("in1")); // [2, 3, 4] and [3, 4]
    let check = |got: &[f32], out: &str| {
        let want = load(out);
        assert_eq!(got.len(), want.len(), "{out}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(*g, f64::from(*w)), "{out}[{i}] = {g}, LiteRT {w}");
        }
    };
    let map = |x: &[f32], f: &dyn Fn(f32) -> f32| x.iter().map(|&v| f(v)).collect::<Vec<_>>();
    check(&map(&b, &math::logistic), "out0");
    check(&map(&a, &|v| leaky_relu(v, 0.2)), "out4");
    check(&map(&a, &math::tanh), "out7");
    check(&map(&a, &relu6), "out12");
    check(&map(&b, &relu), "out14");
}


// ---- End to end: one-operator models through setup and invoke ----

use super::super::one_op::{F, F32, I8, I16, I32, U8, model, setup_error, unary_f32, var};

const X: [f32; 6] = [-3.5, -0.25, 0.0, 0.75, 5.5, 9.0];

#[test]
fn activations_run_end_to_end() {
    let each = |f: fn(f32) -> f32| X.iter().map(|&v| f(v)).collect::<Vec<_>>();
    assert_eq!(unary_f32(14, None, &X), each(math::logistic));
    assert_eq!(unary_f32(28, None, &X), each(math::tanh));
    assert_eq!(unary_f32(19, None, &X), each(relu));
    assert_eq!(unary_f32(21, None, &X), each(relu6));
    let alpha = Some((75, vec![(0, F::U32(0.25f32.to_bits()))]));
    assert_eq!(unary_f32(98, alpha, &X), each(|v| leaky_relu(v, 0.25)));
    assert_eq!(unary_f32(20, None, &X), each(relu_n1_to_1));
    assert_eq!(unary_f32(111, None, &X), each(elu));
}

#[test]
fn relu_n1_to_1_and_elu_at_their_edges() {
    assert_eq!(relu_n1_to_1(-1.5), -1.0);
    assert_eq!(relu_n1_to_1(0.25), 0.25);
    assert_eq!(relu_n1_to_1(3.0), 1.0);
    assert!(relu_n1_to_1(f32::NAN).is_nan());
    assert_eq!(elu(2.0), 2.0);
    assert_eq!(elu(-0.0), -0.0);
    assert!((elu(-1.0) - (-0.632_120_56)).abs() < 1e-7);
    assert!((elu(-30.0) + 1.0).abs() < 1e-7);
}

#[test]
fn quantized_relus_refuse_what_eval_cannot_do() {
    // int16 RELU_N1_TO_1, as LiteRT; uint8 / int8 ReLUs without quantization.
    let e = setup_error(&model(20, None, &[var(I16, &[3]), var(I16, &[3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = setup_error(&model(19, None, &[var(U8, &[3]), var(U8, &[3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = setup_error(&model(111, None, &[var(I16, &[3]), var(I16, &[3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. } | KernelError::Unsupported { .. }), "{e}");
}

#[test]
fn empty_tensors_run() {
    for code in [14, 28, 19, 21, 98, 20, 111] {
        assert_eq!(unary_f32(code, None, &[]), Vec::<f32>::new(), "op {code}");
    }
}

#[test]
fn setup_refuses_what_eval_cannot_do() {
    // int8 without quantization parameters: the quantized kernel has no scale to use.
    let e = setup_error(&model(14, None, &[var(I8, &[3]), var(I8, &[3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // Output of another shape or type.
    let e = setup_error(&model(28, None, &[var(F32, &[3]), var(F32, &[4])], 1));
    assert_eq!(e, check::OUTPUT_SHAPE);
    let e = setup_error(&model(19, None, &[var(F32, &[3]), var(I32, &[3])], 1));
    assert_eq!(e, check::OUTPUT_TYPE);
}
