//! The unary kernels' math against naive f64 references and exact tables, and against
//! LiteRT's outputs in the `ops_elementwise` fixture.

use super::*;
use proptest::prelude::*;

fn close(got: f32, want: f64) -> bool {
    let g = f64::from(got);
    (g - want).abs() <= 1e-5 + 1e-5 * want.abs() || (got.is_nan() && want.is_nan())
}

fn cases() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 });
    if cfg!(miri) {
        // Miri's isolation has no file system for the failure file.
        config.failure_persistence = None;
    }
    config
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

#[test]
fn cast_matches_cpp_static_cast() {
    let f = [
        2.7f32,
        -2.7,
        0.0,
        -0.0,
        127.9,
        300.0,
        -129.5,
        f32::NAN,
        1e10,
        -1e10,
    ];
    let mut i = [0i32; 10];
    cast_slice(&f, &mut i);
    assert_eq!(i, [2, -2, 0, 0, 127, 300, -129, 0, i32::MAX, i32::MIN]);
    let mut b = [false; 10];
    cast_slice(&f, &mut b);
    assert_eq!(
        b,
        [true, true, false, false, true, true, true, true, true, true]
    );
    // Narrow targets: through i32, then the low bits (Arm64's behaviour off range).
    let mut i8s = [0i8; 10];
    cast_slice(&f, &mut i8s);
    assert_eq!(i8s, [2, -2, 0, 0, 127, 44, 127, 0, -1, 0]);
    let mut u8s = [0u8; 10];
    cast_slice(&f, &mut u8s);
    assert_eq!(u8s, [2, 254, 0, 0, 127, 44, 127, 0, 255, 0]);

    let ints = [-1i64, 255, 256, 65_535, i64::from(i32::MAX) + 1, i64::MIN];
    let mut u8s = [0u8; 6];
    cast_slice(&ints, &mut u8s);
    assert_eq!(u8s, [255, 255, 0, 255, 0, 0]);
    let mut i16s = [0i16; 6];
    cast_slice(&ints, &mut i16s);
    assert_eq!(i16s, [-1, 255, 256, -1, 0, 0]);
    let mut i32s = [0i32; 6];
    cast_slice(&ints, &mut i32s);
    assert_eq!(i32s, [-1, 255, 256, 65_535, i32::MIN, 0]);
    let mut fs = [0f32; 6];
    cast_slice(&ints, &mut fs);
    assert_eq!(
        fs,
        [-1.0, 255.0, 256.0, 65_535.0, 2_147_483_648.0, -9.223_372e18]
    );
    let mut bs = [true; 6];
    cast_slice(&[0i8, 1, -1, 0, 2, 0], &mut bs);
    assert_eq!(bs, [false, true, true, false, true, false]);

    let bools = [true, false];
    let mut fs = [9.0f32; 2];
    cast_slice(&bools, &mut fs);
    assert_eq!(fs, [1.0, 0.0]);
    let mut is = [9i64; 2];
    cast_slice(&bools, &mut is);
    assert_eq!(is, [1, 0]);
    let mut us = [9u8; 2];
    cast_slice(&bools, &mut us);
    assert_eq!(us, [1, 0]);
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

    #[test]
    fn activations_match_f64(x in -40.0f32..40.0) {
        let xd = f64::from(x);
        prop_assert!(close(logistic(x), 1.0 / (1.0 + (-xd).exp())));
        prop_assert!(close(tanh(x), xd.tanh()));
        prop_assert_eq!(relu(x), x.max(0.0));
        prop_assert_eq!(relu6(x), x.clamp(0.0, 6.0));
        let leaky = if xd > 0.0 { xd } else { 0.3 * xd };
        prop_assert!(close(leaky_relu(x, 0.3), leaky));
    }

    #[test]
    fn float_to_int_truncates_in_range(x in -2.0e9f32..2.0e9) {
        let t = f64::from(x).trunc();
        let mut i = [0i32];
        cast_slice(&[x], &mut i);
        prop_assert_eq!(f64::from(i[0]), t);
        let mut l = [0i64];
        cast_slice(&[x], &mut l);
        prop_assert_eq!(l[0] as f64, t);
        // The narrow types: truncated, then wrapped as C++ keeps an int's low bits.
        let mut n = [0i16];
        cast_slice(&[x], &mut n);
        prop_assert_eq!(i64::from(n[0]), (t as i64).rem_euclid(65_536) - if (t as i64).rem_euclid(65_536) >= 32_768 { 65_536 } else { 0 });
    }

    #[test]
    fn int_casts_wrap_and_convert(v in proptest::collection::vec(any::<i64>(), 0..16)) {
        let mut u = vec![0u8; v.len()];
        cast_slice(&v, &mut u);
        let mut f = vec![0f32; v.len()];
        cast_slice(&v, &mut f);
        let mut b = vec![false; v.len()];
        cast_slice(&v, &mut b);
        for (k, &x) in v.iter().enumerate() {
            prop_assert_eq!(i64::from(u[k]), x.rem_euclid(256));
            // Round to nearest (i64 to f32 is the one conversion that may round).
            let err = (f64::from(f[k]) - x as f64).abs();
            prop_assert!(err <= (x as f64).abs() * f64::from(f32::EPSILON) / 2.0 + 1.0);
            prop_assert_eq!(b[k], x != 0);
        }
        let narrow: Vec<i32> = v.iter().map(|&x| x as i32).collect();
        let mut back = vec![0i64; v.len()];
        cast_slice(&narrow, &mut back);
        for (k, &x) in v.iter().enumerate() {
            prop_assert_eq!(back[k], i64::from(x as i32));
        }
    }
}

/// The fixture's unary outputs that read a graph input directly, against LiteRT.
#[cfg(all(feature = "std", not(miri)))]
#[test]
fn ops_elementwise_fixture_unary_outputs() {
    use tessera_core::npy::NpyView;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/models");
    let load = |name: &str| -> Vec<f32> {
        let bytes = std::fs::read(dir.join(format!("ops_elementwise.{name}.npy"))).unwrap();
        let npy = NpyView::parse(&bytes).unwrap();
        npy.data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (a, b) = (load("in2"), load("in1")); // [2, 3, 4] and [3, 4]
    let check = |got: &[f32], out: &str| {
        let want = load(out);
        assert_eq!(got.len(), want.len(), "{out}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(*g, f64::from(*w)), "{out}[{i}] = {g}, LiteRT {w}");
        }
    };
    let map = |x: &[f32], f: &dyn Fn(f32) -> f32| x.iter().map(|&v| f(v)).collect::<Vec<_>>();
    check(&map(&b, &logistic), "out0");
    check(&map(&a, &|v| leaky_relu(v, 0.2)), "out4");
    check(&map(&a, &tanh), "out7");
    check(&map(&a, &relu6), "out12");
    check(&map(&b, &relu), "out14");
    let mut y = vec![0.0; a.len()];
    softmax_rows(&a, &mut y, 4, 1.0);
    check(&y, "out11");
    log_softmax_rows(&a, &mut y, 4);
    check(&y, "out19");
}

// ---- End to end: one-operator models through setup and invoke ----

use crate::interpreter::kernels::one_op;

use crate::interpreter::{ErrorKind, InterpreterError};
use one_op::{BOOL, F, F32, I8, I32, U8, f32s, model, run, to_f32s, to_i32s, var};

const X: [f32; 6] = [-3.5, -0.25, 0.0, 0.75, 5.5, 9.0];

fn unary(code: i32, opts: one_op::Opts, x: &[f32]) -> Vec<f32> {
    let n = x.len() as i32;
    let file = model(
        code,
        opts,
        &[var(F32, &[n / 3, 3]), var(F32, &[n / 3, 3])],
        1,
    );
    to_f32s(&run(&file, &[&f32s(x)]).unwrap()[0])
}

fn kernel_error(e: InterpreterError) -> KernelError {
    match e.kind {
        ErrorKind::Kernel(k) => k,
        other => panic!("not a kernel error: {other:?}"),
    }
}

#[test]
fn activations_run_end_to_end() {
    let each = |f: fn(f32) -> f32| X.iter().map(|&v| f(v)).collect::<Vec<_>>();
    assert_eq!(unary(14, None, &X), each(logistic));
    assert_eq!(unary(28, None, &X), each(tanh));
    assert_eq!(unary(19, None, &X), each(relu));
    assert_eq!(unary(21, None, &X), each(relu6));
    let alpha = Some((75, vec![(0, F::U32(0.25f32.to_bits()))]));
    assert_eq!(unary(98, alpha, &X), each(|v| leaky_relu(v, 0.25)));
    let beta = Some((9, vec![(0, F::U32(0.5f32.to_bits()))]));
    let mut want = [0.0; 6];
    softmax_rows(&X, &mut want, 3, 0.5);
    assert_eq!(unary(25, beta, &X), want);
    log_softmax_rows(&X, &mut want, 3);
    assert_eq!(unary(50, None, &X), want);
}

#[test]
fn empty_tensors_run() {
    for code in [14, 28, 19, 21, 98, 50] {
        assert_eq!(unary(code, None, &[]), Vec::<f32>::new(), "op {code}");
    }
    let beta = Some((9, vec![(0, F::U32(1.0f32.to_bits()))]));
    assert_eq!(unary(25, beta, &[]), Vec::<f32>::new());
    let file = model(53, None, &[var(I32, &[0]), var(F32, &[0])], 1);
    assert_eq!(run(&file, &[&[]]).unwrap()[0], Vec::<u8>::new());
}

#[test]
fn cast_runs_end_to_end() {
    let file = model(53, None, &[var(F32, &[4]), var(U8, &[4])], 1);
    let out = run(&file, &[&f32s(&[-1.5, 2.9, 255.0, 256.0])]).unwrap();
    assert_eq!(out[0], [255, 2, 255, 0]);
    let file = model(53, None, &[var(I32, &[3]), var(BOOL, &[3])], 1);
    let x: Vec<u8> = [0i32, -7, 1].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(run(&file, &[&x]).unwrap()[0], [0, 1, 1]);
    let file = model(53, None, &[var(BOOL, &[2]), var(I32, &[2])], 1);
    assert_eq!(to_i32s(&run(&file, &[&[1, 0]]).unwrap()[0]), [1, 0]);
}

#[test]
fn setup_refuses_what_eval_cannot_do() {
    let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
    // int8 without quantization parameters: the quantized kernel has no scale to use.
    let e = err(model(14, None, &[var(I8, &[3]), var(I8, &[3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // Output of another shape or type.
    let e = err(model(28, None, &[var(F32, &[3]), var(F32, &[4])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = err(model(19, None, &[var(F32, &[3]), var(I32, &[3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // Softmax of a scalar.
    let beta = Some((9, vec![(0, F::U32(1.0f32.to_bits()))]));
    let e = err(model(25, beta, &[var(F32, &[]), var(F32, &[])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // Cast of another element count, or to a type it does not convert.
    let e = err(model(53, None, &[var(F32, &[3]), var(I32, &[2])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    let e = err(model(53, None, &[var(F32, &[3]), var(10, &[3])], 1));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
}
