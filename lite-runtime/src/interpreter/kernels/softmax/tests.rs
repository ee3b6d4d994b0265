//! The float softmaxes against naive f64 references and LiteRT's outputs in the
//! `ops_elementwise` fixture, and end to end through one-operator models.

use super::*;
use proptest::prelude::*;

fn close(got: f32, want: f64) -> bool {
    let g = f64::from(got);
    (g - want).abs() <= 1e-5 + 1e-5 * want.abs() || (got.is_nan() && want.is_nan())
}

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

#[test]
fn softmax_of_an_empty_or_partial_input_writes_nothing_out_of_place() {
    let mut y = [7.0f32; 3];
    softmax_rows(&[], &mut [], 0, 1.0);
    softmax_rows(&[1.0, 2.0, 3.0], &mut y, 0, 1.0);
    assert_eq!(y, [7.0; 3]);
    // A row of one is 1 (log 0).
    softmax_rows(&[5.0], &mut y[..1], 1, 1.0);
    assert_eq!(y[0], 1.0);
    log_softmax_rows(&[5.0], &mut y[..1], 1);
    assert_eq!(y[0], 0.0);
    // Infinities: the max row element dominates.
    softmax_rows(&[f32::INFINITY, 0.0], &mut y[..2], 2, 1.0);
    assert!(y[0].is_nan());
    softmax_rows(&[f32::NEG_INFINITY, 0.0], &mut y[..2], 2, 1.0);
    assert_eq!(&y[..2], &[0.0, 1.0]);
}

/// Naive softmax in f64.
fn softmax_ref(row: &[f32], beta: f32) -> Vec<f64> {
    let max = row.iter().fold(f64::MIN, |m, &v| m.max(f64::from(v)));
    let e: Vec<f64> = row
        .iter()
        .map(|&v| ((f64::from(v) - max) * f64::from(beta)).exp())
        .collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

fn rows_strategy() -> impl Strategy<Value = (Vec<f32>, usize)> {
    (0usize..5, 0usize..12).prop_flat_map(|(outer, depth)| {
        (
            proptest::collection::vec(-30.0f32..30.0, outer * depth),
            Just(depth),
        )
    })
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn softmax_matches_f64((x, depth) in rows_strategy(), beta in 0.05f32..3.0) {
        let mut y = vec![f32::NAN; x.len()];
        softmax_rows(&x, &mut y, depth, beta);
        if depth > 0 {
            for (xr, yr) in x.chunks(depth).zip(y.chunks(depth)) {
                for (g, w) in yr.iter().zip(softmax_ref(xr, beta)) {
                    prop_assert!(close(*g, w), "{g} vs {w}");
                }
            }
        }
    }

    #[test]
    fn log_softmax_matches_f64((x, depth) in rows_strategy()) {
        let mut y = vec![f32::NAN; x.len()];
        log_softmax_rows(&x, &mut y, depth);
        if depth > 0 {
            for (xr, yr) in x.chunks(depth).zip(y.chunks(depth)) {
                for (g, w) in yr.iter().zip(softmax_ref(xr, 1.0)) {
                    prop_assert!(close(*g, w.ln()), "{g} vs {}", w.ln());
                }
            }
        }
    }
}

// ---- End to end: one-operator models through setup and invoke ----

use super::super::one_op::{F, F32, model, setup_error, unary_f32, var};

const X: [f32; 6] = [-3.5, -0.25, 0.0, 0.75, 5.5, 9.0];

#[test]
fn softmaxes_run_end_to_end() {
    let beta = Some((9, vec![(0, F::U32(0.5f32.to_bits()))]));
    let mut want = [0.0; 6];
    softmax_rows(&X, &mut want, 3, 0.5);
    assert_eq!(unary_f32(25, beta, &X), want);
    log_softmax_rows(&X, &mut want, 3);
    assert_eq!(unary_f32(50, None, &X), want);
    // Empty tensors.
    assert_eq!(unary_f32(50, None, &[]), Vec::<f32>::new());
    let beta = Some((9, vec![(0, F::U32(1.0f32.to_bits()))]));
    assert_eq!(unary_f32(25, beta, &[]), Vec::<f32>::new());
}

#[test]
fn a_softmax_of_a_scalar_is_refused() {
    let beta = Some((9, vec![(0, F::U32(1.0f32.to_bits()))]));
    let e = setup_error(&model(25, beta, &[var(F32, &[]), var(F32, &[])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
}

/// The fixture's softmax outputs that read a graph input directly, against LiteRT.
#[cfg(all(feature = "std", not(miri)))]
#[test]
fn ops_elementwise_fixture_softmax_outputs() {
    let load = |name: &str| super::super::fixtures::f32s(&format!("ops_elementwise.{name}.npy"));
    let a = load("in2"); // [2, 3, 4]
    let check = |got: &[f32], out: &str| {
        let want = load(out);
        assert_eq!(got.len(), want.len(), "{out}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(*g, f64::from(*w)), "{out}[{i}] = {g}, LiteRT {w}");
        }
    };
    let mut y = vec![0.0; a.len()];
    softmax_rows(&a, &mut y, 4, 1.0);
    check(&y, "out11");
    log_softmax_rows(&a, &mut y, 4);
    check(&y, "out19");
}

#[test]
fn quantized_log_softmax_refuses_other_output_quantizations() {
    use super::super::one_op::{I8, model, setup_error, var};
    // No quantization at all: the fixed output scale cannot be checked.
    let e = setup_error(&model(50, None, &[var(I8, &[2, 3]), var(I8, &[2, 3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
}
