//! The element-wise kernels' math against a naive NumPy-style reference: every output index
//! mapped to its inputs' indices one at a time, over random broadcast shapes (empty ones
//! included) and every type.

use super::super::base::broadcast::{Broadcast, broadcast_shape};
use super::*;
use super::super::row_major::{shape};
use proptest::prelude::*;
use tessera_core::strings::encode_tflite;

/// NumPy's broadcast of two shapes (None if they do not).
fn naive_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let pad = |s: &[usize]| {
        let mut v = vec![1; r - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (a, b) = (pad(a), pad(b));
    a.iter()
        .zip(&b)
        .map(|(&x, &y)| match (x, y) {
            _ if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// The flat index in `input` of output multi-index `idx`.
fn source(idx: &[usize], input: &[usize]) -> usize {
    let skip = idx.len() - input.len();
    let mut flat = 0;
    for (&i, &d) in idx[skip..].iter().zip(input) {
        flat = flat * d + if d == 1 { 0 } else { i };
    }
    flat
}

/// Every multi-index of `dims`, row-major.
fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|mut f| {
            let mut idx = vec![0; dims.len()];
            for (i, &d) in idx.iter_mut().zip(dims).rev() {
                *i = f % d;
                f /= d;
            }
            idx
        })
        .collect()
}

fn naive2<A: Copy, B: Copy, O>(
    a: &[A],
    sa: &[usize],
    b: &[B],
    sb: &[usize],
    f: impl Fn(A, B) -> O,
) -> (Vec<usize>, Vec<O>) {
    let so = naive_shape(sa, sb).unwrap();
    let out = indices(&so)
        .iter()
        .map(|i| f(a[source(i, sa)], b[source(i, sb)]))
        .collect();
    (so, out)
}

/// Two shapes that broadcast: a random output shape, each input dropping leading dimensions
/// and setting some to 1.
fn shapes2() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec(0usize..4, 0..=6).prop_flat_map(|out| {
        let r = out.len();
        let pick = move |out: Vec<usize>| {
            (0..=r, prop::collection::vec(any::<bool>(), r)).prop_map(move |(rank, ones)| {
                out[r - rank..]
                    .iter()
                    .zip(&ones[r - rank..])
                    .map(|(&d, &one)| if one { 1 } else { d })
                    .collect::<Vec<_>>()
            })
        };
        (pick(out.clone()), pick(out))
    })
}

fn values<T: std::fmt::Debug>(
    n: usize,
    v: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(v, n)
}

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(128, 4)
}

fn run_arith<T: Number + std::fmt::Debug, const OP: u8>(
    a: &[T],
    sa: &[usize],
    b: &[T],
    sb: &[usize],
    act: Option<(T, T)>,
) -> (Vec<usize>, Vec<T>) {
    let so = broadcast_shape(&shape(sa), &shape(sb)).unwrap();
    let mut out = vec![T::default(); so.elements()];
    arith::<T, OP>(a, &shape(sa), b, &shape(sb), &mut out, &so, act).unwrap();
    (so.dims().to_vec(), out)
}

fn naive_op<T: Number, const OP: u8>(x: T, y: T) -> T {
    match OP {
        op::ADD => x.plus(y),
        op::SUB => x.minus(y),
        op::MUL => x.times(y),
        op::DIV => x.over(y),
        op::MAX => {
            if x > y {
                x
            } else {
                y
            }
        }
        _ => {
            if x < y {
                x
            } else {
                y
            }
        }
    }
}

fn check_arith<T: Number + std::fmt::Debug, const OP: u8>(
    a: &[T],
    sa: &[usize],
    b: &[T],
    sb: &[usize],
) -> Result<(), TestCaseError> {
    let (so, got) = run_arith::<T, OP>(a, sa, b, sb, None);
    let (want_shape, want) = naive2(a, sa, b, sb, naive_op::<T, OP>);
    prop_assert_eq!(so, want_shape);
    // Bit-exact: one operation per element, as the reference does (NaN compared as bits).
    prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
    Ok(())
}

fn check_compare<T: PartialOrd + Copy + std::fmt::Debug, const OP: u8>(
    a: &[T],
    sa: &[usize],
    b: &[T],
    sb: &[usize],
) -> Result<(), TestCaseError> {
    let so = broadcast_shape(&shape(sa), &shape(sb)).unwrap();
    let mut got = vec![false; so.elements()];
    compare::<T, OP>(a, &shape(sa), b, &shape(sb), &mut got, &so).unwrap();
    let naive = |x: T, y: T| match OP {
        op::LT => x < y,
        op::LE => x <= y,
        op::GT => x > y,
        op::GE => x >= y,
        op::EQ => x == y,
        _ => x != y,
    };
    let (want_shape, want) = naive2(a, sa, b, sb, naive);
    prop_assert_eq!(so.dims(), &want_shape[..]);
    prop_assert_eq!(got, want);
    Ok(())
}

/// Floats with specials, few distinct values so comparisons hit equality.
fn float() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        8 => (-4i8..4).prop_map(f32::from),
        4 => -1e3f32..1e3,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(-0.0f32),
    ]
}

fn int32() -> impl Strategy<Value = i32> + Clone {
    prop_oneof![4 => -4i32..4, 1 => any::<i32>(), 1 => Just(i32::MIN)]
}

fn int64() -> impl Strategy<Value = i64> + Clone {
    prop_oneof![4 => -4i64..4, 1 => any::<i64>(), 1 => Just(i64::MIN)]
}

macro_rules! every_arith {
    ($t:ty, $a:expr, $sa:expr, $b:expr, $sb:expr) => {{
        check_arith::<$t, { op::ADD }>($a, $sa, $b, $sb)?;
        check_arith::<$t, { op::SUB }>($a, $sa, $b, $sb)?;
        check_arith::<$t, { op::MUL }>($a, $sa, $b, $sb)?;
        check_arith::<$t, { op::DIV }>($a, $sa, $b, $sb)?;
        check_arith::<$t, { op::MAX }>($a, $sa, $b, $sb)?;
        check_arith::<$t, { op::MIN }>($a, $sa, $b, $sb)?;
    }};
}

macro_rules! every_compare {
    ($t:ty, $a:expr, $sa:expr, $b:expr, $sb:expr) => {{
        check_compare::<$t, { op::LT }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::LE }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::GT }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::GE }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::EQ }>($a, $sa, $b, $sb)?;
        check_compare::<$t, { op::NE }>($a, $sa, $b, $sb)?;
    }};
}

fn with_values<T: std::fmt::Debug>(
    v: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = (Vec<usize>, Vec<T>, Vec<usize>, Vec<T>)> {
    shapes2().prop_flat_map(move |(sa, sb)| {
        let n = |s: &[usize]| s.iter().product::<usize>();
        let (va, vb) = (values(n(&sa), v.clone()), values(n(&sb), v.clone()));
        (Just(sa), va, Just(sb), vb)
    })
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_arith_matches_naive((sa, a, sb, b) in with_values(float())) {
        every_arith!(f32, &a, &sa, &b, &sb);
        every_compare!(f32, &a, &sa, &b, &sb);
    }

    #[test]
    fn int32_arith_matches_naive((sa, a, sb, b) in with_values(int32())) {
        // DIV by 0 never reaches the math (the kernel refuses it first).
        let b: Vec<i32> = b.into_iter().map(|v| if v == 0 { 1 } else { v }).collect();
        every_arith!(i32, &a, &sa, &b, &sb);
        every_compare!(i32, &a, &sa, &b, &sb);
    }

    #[test]
    fn int64_arith_matches_naive((sa, a, sb, b) in with_values(int64())) {
        let b: Vec<i64> = b.into_iter().map(|v| if v == 0 { 1 } else { v }).collect();
        every_arith!(i64, &a, &sa, &b, &sb);
        every_compare!(i64, &a, &sa, &b, &sb);
    }

    #[test]
    fn bool_equality_matches_naive((sa, a, sb, b) in with_values(any::<bool>())) {
        check_compare::<bool, { op::EQ }>(&a, &sa, &b, &sb)?;
        check_compare::<bool, { op::NE }>(&a, &sa, &b, &sb)?;
    }

    #[test]
    fn fused_activation_clamps(
        (sa, a, sb, b) in with_values(float()),
        (lo, hi) in prop_oneof![Just((0.0f32, f32::INFINITY)), Just((0.0, 6.0)), Just((-1.0, 1.0))],
    ) {
        let (_, got) = run_arith::<f32, { op::ADD }>(&a, &sa, &b, &sb, Some((lo, hi)));
        // C++'s std::min(std::max(x, lo), hi): a NaN stays NaN, -0 stays -0.
        let cpp = |x: f32| {
            let v = if x < lo { lo } else { x };
            if hi < v { hi } else { v }
        };
        let (_, want) = naive2(&a, &sa, &b, &sb, |x: f32, y| cpp(x + y));
        for (g, w) in got.iter().zip(&want) {
            prop_assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()));
        }
        let ia: Vec<i32> = a.iter().map(|&v| v as i32).collect();
        let ib: Vec<i32> = b.iter().map(|&v| v as i32).collect();
        let (_, got) = run_arith::<i32, { op::MUL }>(&ia, &sa, &ib, &sb, Some((0, 6)));
        let (_, want) = naive2(&ia, &sa, &ib, &sb, |x: i32, y| x.wrapping_mul(y).clamp(0, 6));
        prop_assert_eq!(got, want);
    }

    #[test]
    fn string_equality_matches_naive(
        (sa, a, sb, b) in with_values(prop::sample::select(vec!["", "a", "ab", "b", "ba"])),
    ) {
        let encode = |v: &[&str]| {
            let mut buf = vec![0u8; 64 + 8 * v.len()];
            let n = encode_tflite(v.iter(), &mut buf).unwrap();
            buf.truncate(n);
            buf
        };
        let (ea, eb) = (encode(&a), encode(&b));
        let (ta, tb) = (TfliteStrings::new(&ea).unwrap(), TfliteStrings::new(&eb).unwrap());
        let so = broadcast_shape(&shape(&sa), &shape(&sb)).unwrap();
        for eq in [true, false] {
            let mut got = vec![false; so.elements()];
            if eq {
                compare_strings::<true>(&ta, &shape(&sa), &tb, &shape(&sb), &mut got, &so)
            } else {
                compare_strings::<false>(&ta, &shape(&sa), &tb, &shape(&sb), &mut got, &so)
            }
            .unwrap();
            let (_, want) = naive2(&a, &sa, &b, &sb, |x, y| (x == y) == eq);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn select_v2_matches_naive(
        (sc, sx, sy) in shapes2().prop_flat_map(|(a, b)| {
            let r = a.len().max(b.len());
            (Just(a), Just(b), prop::collection::vec(prop_oneof![Just(1usize), 0usize..4], 0..=r))
        }),
        seed in any::<u64>(),
    ) {
        let Some(so) = naive_shape(&sc, &sx).and_then(|s| naive_shape(&s, &sy)) else {
            return Ok(());
        };
        let n = |s: &[usize]| s.iter().product::<usize>();
        let c: Vec<bool> = (0..n(&sc)).map(|i| (seed >> (i % 64)) & 1 == 1).collect();
        let x: Vec<i64> = (0..n(&sx)).map(|i| i as i64).collect();
        let y: Vec<i64> = (0..n(&sy)).map(|i| -(i as i64) - 1).collect();
        let mut got = vec![0i64; n(&so)];
        let r = select::<i64, true>(
            &c, &shape(&sc), &x, &shape(&sx), &y, &shape(&sy), &mut got, &shape(&so),
        );
        if [&sc, &sx, &sy, &so].iter().all(|s| n(s) == 1) {
            // One element each: whatever the shapes.
            r.unwrap();
            prop_assert_eq!(got, vec![if c[0] { x[0] } else { y[0] }]);
            return Ok(());
        }
        r.unwrap();
        let want: Vec<i64> = indices(&so)
            .iter()
            .map(|i| if c[source(i, &sc)] { x[source(i, &sx)] } else { y[source(i, &sy)] })
            .collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn select_v1_matches_naive(
        dims in prop::collection::vec(0usize..4, 0..=5),
        cond_rank in 0usize..3,
        seed in any::<u64>(),
    ) {
        // Condition: the inputs' shape, a scalar, or a vector along the first dimension.
        let sc: Vec<usize> = match cond_rank {
            0 => vec![],
            1 if !dims.is_empty() => vec![dims[0]],
            _ => dims.clone(),
        };
        let n = |s: &[usize]| s.iter().product::<usize>();
        let c: Vec<bool> = (0..n(&sc)).map(|i| (seed >> (i % 64)) & 1 == 1).collect();
        let x: Vec<f32> = (0..n(&dims)).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..n(&dims)).map(|i| -(i as f32) - 1.0).collect();
        let mut got = vec![0f32; n(&dims)];
        let s = shape(&dims);
        select::<f32, false>(&c, &shape(&sc), &x, &s, &y, &s, &mut got, &s).unwrap();
        let per = if sc.is_empty() { n(&dims) } else { n(&dims) / n(&sc).max(1) };
        let want: Vec<f32> = (0..n(&dims))
            .map(|i| {
                let pick = if sc == dims { c[i] } else { c[i / per.max(1)] };
                if pick { x[i] } else { y[i] }
            })
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn shapes_broadcast_like_numpy() {
    let b =
        |a: &[usize], c: &[usize]| broadcast_shape(&shape(a), &shape(c)).map(|s| s.dims().to_vec());
    assert_eq!(b(&[2, 3, 4], &[3, 4]), Some(vec![2, 3, 4]));
    assert_eq!(b(&[2, 1], &[1, 5]), Some(vec![2, 5]));
    assert_eq!(b(&[], &[0]), Some(vec![0]));
    assert_eq!(b(&[0], &[1]), Some(vec![0]));
    assert_eq!(b(&[2, 3], &[3, 2]), None);
    assert_eq!(b(&[0], &[2]), None);
    assert_eq!(b(&[1, 1, 1, 1, 1, 1], &[7]), Some(vec![1, 1, 1, 1, 1, 7]));
}

#[test]
fn plans_collapse_to_rows() {
    // [2,3,4] + [3,4]: two rows of 12, the second input repeated.
    let p = Broadcast::new(&shape(&[2, 3, 4]), [&shape(&[2, 3, 4]), &shape(&[3, 4])]).unwrap();
    assert_eq!(p.row(), 12);
    assert_eq!(p.row_strides(), [1, 1]);
    let mut rows = Vec::new();
    p.rows(|o, at| {
        rows.push((o, at));
        Ok(())
    })
    .unwrap();
    assert_eq!(rows, vec![([0, 0], 0), ([12, 0], 12)]);
    // Same shapes: one row.
    let p = Broadcast::new(&shape(&[5, 1, 6]), [&shape(&[5, 1, 6]), &shape(&[5, 1, 6])]).unwrap();
    assert_eq!((p.row(), p.row_strides()), (30, [1, 1]));
    // A scalar: one row, stride 0.
    let p = Broadcast::new(&shape(&[4, 5]), [&shape(&[4, 5]), &shape(&[])]).unwrap();
    assert_eq!((p.row(), p.row_strides()), (20, [1, 0]));
    // An outer product: rows of the second input, the first repeated within a row.
    let p = Broadcast::new(&shape(&[3, 4]), [&shape(&[3, 1]), &shape(&[4])]).unwrap();
    assert_eq!((p.row(), p.row_strides()), (4, [0, 1]));
    // Shapes that do not fit the output.
    assert!(Broadcast::new(&shape(&[3, 4]), [&shape(&[2, 4]), &shape(&[4])]).is_err());
    assert!(Broadcast::new(&shape(&[4]), [&shape(&[1, 4]), &shape(&[4])]).is_err());
}

#[test]
fn examples() {
    let s = shape(&[2, 2]);
    let mut out = [0f32; 4];
    arith::<f32, { op::DIV }>(
        &[1.0, -1.0, 0.0, 6.0],
        &s,
        &[0.0, 0.0, 0.0, 4.0],
        &s,
        &mut out,
        &s,
        None,
    )
    .unwrap();
    assert_eq!(out[..2], [f32::INFINITY, f32::NEG_INFINITY]);
    assert!(out[2].is_nan());
    assert_eq!(out[3], 1.5);
    // Integer division truncates; MIN / -1 wraps.
    let mut out = [0i32; 4];
    let s4 = shape(&[4]);
    arith::<i32, { op::DIV }>(
        &[7, -7, i32::MIN, 5],
        &s4,
        &[2, 2, -1, -5],
        &s4,
        &mut out,
        &s4,
        None,
    )
    .unwrap();
    assert_eq!(out, [3, -3, i32::MIN, -1]);
    // RELU6 on int32 ADD.
    arith::<i32, { op::ADD }>(
        &[3, -5, 5, 1],
        &s4,
        &[4],
        &shape(&[1]),
        &mut out,
        &s4,
        Some((0, 6)),
    )
    .unwrap();
    assert_eq!(out, [6, 0, 6, 5]);
    // MAXIMUM with a NaN first gives the second operand (TensorFlow Lite's `a > b ? a : b`).
    let mut out = [0f32; 1];
    let one = shape(&[]);
    arith::<f32, { op::MAX }>(&[f32::NAN], &one, &[2.0], &one, &mut out, &one, None).unwrap();
    assert_eq!(out, [2.0]);
    // Too short a slice is an error, never a panic.
    assert!(arith::<f32, { op::ADD }>(&[1.0], &s, &[1.0], &s, &mut [0.0; 4], &s, None).is_err());
    assert!(
        arith::<f32, { op::ADD }>(&[0.0; 4], &s, &[0.0; 4], &s, &mut [0.0; 2], &s, None).is_err()
    );
}

#[test]
fn select_shapes() {
    let s = |d: &[usize]| shape(d);
    let m = |c: &[usize], x: &[usize], y: &[usize], o: &[usize]| {
        (
            select_mode::<false>(&s(c), &s(x), &s(y), &s(o)),
            select_mode::<true>(&s(c), &s(x), &s(y), &s(o)),
        )
    };
    assert_eq!(
        m(&[3], &[3, 2], &[3, 2], &[3, 2]).0,
        Ok(SelectMode::Rows { outer: 3, inner: 2 })
    );
    assert_eq!(
        m(&[], &[3, 2], &[3, 2], &[3, 2]).0,
        Ok(SelectMode::Rows { outer: 1, inner: 6 })
    );
    // A vector along the last dimension is SELECT_V2's broadcast, not SELECT's.
    let (v1, v2) = m(&[2], &[3, 2], &[3, 2], &[3, 2]);
    assert!(v1.is_err());
    assert_eq!(v2, Ok(SelectMode::Broadcast));
    // Single elements keep the model's output shape.
    assert_eq!(m(&[1], &[], &[1, 1], &[1, 1, 1]).0, Ok(SelectMode::Single));
    // The output shape must be the op's.
    assert!(m(&[3, 2], &[3, 2], &[3, 2], &[6]).0.is_err());
    assert!(m(&[2], &[3, 1], &[1], &[3, 3]).1.is_err());
    assert_eq!(m(&[2], &[3, 1], &[1], &[3, 2]).1, Ok(SelectMode::Broadcast));
}

/// End to end: one-operator models set up and run by the interpreter.
use super::super::one_op;

mod end_to_end {
    use super::one_op::{BOOL, F, F32, I32, I64, I8, Tensor, const_i32, f32s, i32s, kernel_error, model, run, to_f32s, to_i32s, var};
    use crate::interpreter::KernelError;
    use tessera_core::strings::encode_tflite;

    const ADD: i32 = 0;
    const MUL: i32 = 18;
    const DIV: i32 = 42;
    const LESS: i32 = 58;
    const SELECT: i32 = 64;
    const EQUAL: i32 = 71;
    const SELECT_V2: i32 = 123;
    const STRING: u8 = 5;

    fn strings(shape: &[i32], v: &[&str]) -> Tensor {
        let mut buf = vec![0u8; 64 + 8 * v.len()];
        let n = encode_tflite(v.iter(), &mut buf).unwrap();
        buf.truncate(n);
        Tensor {
            ty: STRING,
            shape: shape.to_vec(),
            data: Some(buf),
        }
    }

    #[test]
    fn add_broadcasts_and_clamps() {
        // AddOptions { fused_activation_function: RELU6 }.
        let relu6 = Some((11, vec![(0, F::U8(3))]));
        let file = model(
            ADD,
            relu6,
            &[var(F32, &[2, 3]), var(F32, &[3]), var(F32, &[2, 3])],
            2,
        );
        let out = run(
            &file,
            &[
                &f32s(&[1.0, -2.0, 3.0, 4.0, 5.0, 6.0]),
                &f32s(&[0.5, 0.5, 0.5]),
            ],
        )
        .unwrap();
        assert_eq!(to_f32s(&out[0]), [1.5, 0.0, 3.5, 4.5, 5.5, 6.0]);
    }

    #[test]
    fn int_ops_run() {
        let file = model(
            MUL,
            None,
            &[
                var(I32, &[2, 1]),
                const_i32(&[1, 3], &[1, 2, 3]),
                var(I32, &[2, 3]),
            ],
            2,
        );
        let out = run(&file, &[&i32s(&[10, -1])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [10, 20, 30, -1, -2, -3]);
        let file = model(
            DIV,
            None,
            &[var(I32, &[3]), var(I32, &[3]), var(I32, &[3])],
            2,
        );
        let out = run(&file, &[&i32s(&[7, -7, 9]), &i32s(&[2, 2, -4])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [3, -3, -2]);
        // A zero divisor anywhere fails the invoke, as in LiteRT.
        let e = run(&file, &[&i32s(&[7, -7, 9]), &i32s(&[2, 0, -4])]).unwrap_err();
        assert!(matches!(kernel_error(e), KernelError::Mismatch { .. }));
    }

    #[test]
    fn comparisons_give_bools() {
        let i64s = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        let file = model(
            LESS,
            None,
            &[var(I64, &[4]), var(I64, &[]), var(BOOL, &[4])],
            2,
        );
        let out = run(&file, &[&i64s(&[-5, 0, 5, i64::MAX]), &i64s(&[1])]).unwrap();
        assert_eq!(out[0], [1, 1, 0, 0]);
        let file = model(
            EQUAL,
            None,
            &[
                strings(&[3], &["a", "bc", ""]),
                strings(&[1], &["bc"]),
                var(BOOL, &[3]),
            ],
            2,
        );
        assert_eq!(run(&file, &[]).unwrap()[0], [0, 1, 0]);
    }

    #[test]
    fn selects_pick() {
        let x = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let y = f32s(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
        // SELECT with a vector condition picks rows.
        let file = model(
            SELECT,
            None,
            &[
                var(BOOL, &[2]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
            ],
            3,
        );
        let out = run(&file, &[&[0, 1], &x, &y]).unwrap();
        assert_eq!(to_f32s(&out[0]), [-1.0, -2.0, -3.0, 4.0, 5.0, 6.0]);
        // SELECT_V2 broadcasts the condition along the last dimension.
        let file = model(
            SELECT_V2,
            None,
            &[
                var(BOOL, &[3]),
                var(F32, &[2, 3]),
                var(F32, &[]),
                var(F32, &[2, 3]),
            ],
            3,
        );
        let out = run(&file, &[&[1, 0, 1], &x, &f32s(&[0.0])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [1.0, 0.0, 3.0, 4.0, 0.0, 6.0]);
    }

    #[test]
    fn empty_tensors_run() {
        let file = model(
            ADD,
            None,
            &[var(F32, &[0, 3]), var(F32, &[3]), var(F32, &[0, 3])],
            2,
        );
        let out = run(&file, &[&[], &f32s(&[1.0, 2.0, 3.0])]).unwrap();
        assert!(out[0].is_empty());
        let file = model(
            LESS,
            None,
            &[var(F32, &[0]), var(F32, &[1]), var(BOOL, &[0])],
            2,
        );
        assert!(run(&file, &[&[], &f32s(&[1.0])]).unwrap()[0].is_empty());
        let file = model(
            SELECT_V2,
            None,
            &[
                var(BOOL, &[0]),
                var(F32, &[1]),
                var(F32, &[1]),
                var(F32, &[0]),
            ],
            3,
        );
        assert!(run(&file, &[&[], &f32s(&[1.0]), &f32s(&[2.0])]).unwrap()[0].is_empty());
    }

    #[test]
    fn setup_refuses_what_eval_cannot_do() {
        let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
        // int8 without quantization parameters: the quantized kernel has no scale to use.
        let e = err(model(
            ADD,
            None,
            &[var(I8, &[3]), var(I8, &[3]), var(I8, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // No int64 DIV in LiteRT.
        let e = err(model(
            DIV,
            None,
            &[var(I64, &[3]), var(I64, &[3]), var(I64, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // Ordering of bools.
        let e = err(model(
            LESS,
            None,
            &[var(BOOL, &[3]), var(BOOL, &[3]), var(BOOL, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // An output of another shape than the broadcast's.
        let e = err(model(
            ADD,
            None,
            &[var(F32, &[2, 3]), var(F32, &[3]), var(F32, &[6])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // Shapes that do not broadcast.
        let e = err(model(
            MUL,
            None,
            &[var(F32, &[2]), var(F32, &[3]), var(F32, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // A comparison whose output is not BOOL.
        let e = err(model(
            LESS,
            None,
            &[var(F32, &[3]), var(F32, &[3]), var(F32, &[3])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
        // SELECT's condition along the last dimension is SELECT_V2's.
        let e = err(model(
            SELECT,
            None,
            &[
                var(BOOL, &[3]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
                var(F32, &[2, 3]),
            ],
            3,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    }
}
