//! The arithmetic kernels' math against a naive NumPy-style reference (every output index
//! mapped to its inputs' indices one at a time) over random broadcast shapes, empty ones
//! included, and every plain type; end-to-end one-operator models, quantized ones included.

use super::super::base::broadcast::naive::{naive2, with_values};
use super::super::base::broadcast::{Broadcast, broadcast_shape};
use super::super::row_major::shape;
use super::*;
use proptest::prelude::*;

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
        op::MIN => {
            if x < y {
                x
            } else {
                y
            }
        }
        _ => x.minus(y).times(x.minus(y)),
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

/// Floats with specials, few distinct values so MAXIMUM and MINIMUM hit ties.
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
        check_arith::<$t, { op::SQD }>($a, $sa, $b, $sb)?;
    }};
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_arith_matches_naive((sa, a, sb, b) in with_values(float())) {
        every_arith!(f32, &a, &sa, &b, &sb);
    }

    #[test]
    fn int32_arith_matches_naive((sa, a, sb, b) in with_values(int32())) {
        // DIV by 0 never reaches the math (the kernel refuses it first).
        let b: Vec<i32> = b.into_iter().map(|v| if v == 0 { 1 } else { v }).collect();
        every_arith!(i32, &a, &sa, &b, &sb);
    }

    #[test]
    fn int64_arith_matches_naive((sa, a, sb, b) in with_values(int64())) {
        let b: Vec<i64> = b.into_iter().map(|v| if v == 0 { 1 } else { v }).collect();
        every_arith!(i64, &a, &sa, &b, &sb);
    }

    #[test]
    fn small_int_min_max_match_naive((sa, a, sb, b) in with_values(any::<i16>())) {
        check_arith::<i16, { op::MAX }>(&a, &sa, &b, &sb)?;
        check_arith::<i16, { op::MIN }>(&a, &sa, &b, &sb)?;
        let a8: Vec<i8> = a.iter().map(|&v| v as i8).collect();
        let b8: Vec<i8> = b.iter().map(|&v| v as i8).collect();
        check_arith::<i8, { op::MAX }>(&a8, &sa, &b8, &sb)?;
        check_arith::<i8, { op::MIN }>(&a8, &sa, &b8, &sb)?;
        let au: Vec<u8> = a.iter().map(|&v| v as u8).collect();
        let bu: Vec<u8> = b.iter().map(|&v| v as u8).collect();
        check_arith::<u8, { op::MAX }>(&au, &sa, &bu, &sb)?;
        check_arith::<u8, { op::MIN }>(&au, &sa, &bu, &sb)?;
        // Plain int16 ADD and MUL wrap.
        check_arith::<i16, { op::ADD }>(&a, &sa, &b, &sb)?;
        check_arith::<i16, { op::MUL }>(&a, &sa, &b, &sb)?;
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
    // SQUARED_DIFFERENCE wraps in int32.
    arith::<i32, { op::SQD }>(&[3, -5, 1 << 16, 0], &s4, &[5, 5, 0, 0], &s4, &mut out, &s4, None)
        .unwrap();
    assert_eq!(out, [4, 100, 0, 0]);
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

/// End to end: one-operator models set up and run by the interpreter.
use super::super::one_op;

mod end_to_end {
    use super::super::super::base::qmodel::{constant, model_q, plain, q};
    use super::one_op::{
        F, F32, I8, I16, I32, I64, U8, f32s, i32s, kernel_error, model, run, to_f32s, to_i32s,
        var,
    };
    use crate::interpreter::KernelError;

    const ADD: i32 = 0;
    const MUL: i32 = 18;
    const SUB: i32 = 41;
    const DIV: i32 = 42;
    const MAXIMUM: i32 = 55;
    const SQUARED_DIFFERENCE: i32 = 99;

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
                super::one_op::const_i32(&[1, 3], &[1, 2, 3]),
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
        // MAXIMUM on int8 compares the stored values.
        let file = model(
            MAXIMUM,
            None,
            &[var(I8, &[3]), var(I8, &[1]), var(I8, &[3])],
            2,
        );
        let out = run(&file, &[&[0x80, 5, 0x7f], &[3]]).unwrap();
        assert_eq!(out[0], [3, 5, 0x7f]);
        // Plain int16 ADD (no quantization) wraps.
        let file = model(ADD, None, &[var(I16, &[2]), var(I16, &[2]), var(I16, &[2])], 2);
        let i16s = |v: &[i16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        let out = run(&file, &[&i16s(&[i16::MAX, 3]), &i16s(&[1, 4])]).unwrap();
        assert_eq!(out[0], i16s(&[i16::MIN, 7]));
    }

    #[test]
    fn quantized_ops_run() {
        // uint8 ADD: 0.5 * (x - 128) + 0.25 * (y - 10), output scale 0.5, zero point 100.
        let file = model_q(
            ADD,
            None,
            &[q(U8, &[3], 0.5, 128), q(U8, &[1], 0.25, 10), q(U8, &[3], 0.5, 100)],
            2,
        );
        let out = run(&file, &[&[128, 130, 0], &[14]]).unwrap();
        // 0 + 1 = 1 -> 102; 1 + 1 = 2 -> 104; -64 + 1 = -63 -> 100 - 126 = -26 -> 0.
        assert_eq!(out[0], [102, 104, 0]);
        // int8 SUB, broadcast: (x - y) at one scale.
        let file = model_q(
            SUB,
            None,
            &[q(I8, &[2, 2], 0.1, 0), q(I8, &[2], 0.1, 0), q(I8, &[2, 2], 0.1, 0)],
            2,
        );
        let out = run(&file, &[&[10, 20, 30, 40], &[5, 0xfb]]).unwrap();
        assert_eq!(out[0], [5, 25, 25, 45]);
        // int8 SQUARED_DIFFERENCE: (0.5 * 4 - 0.5 * 0)^2 = 4 at output scale 0.25 -> 16.
        let file = model_q(
            SQUARED_DIFFERENCE,
            None,
            &[q(I8, &[1], 0.5, 0), q(I8, &[1], 0.5, 0), q(I8, &[1], 0.25, 0)],
            2,
        );
        assert_eq!(run(&file, &[&[4], &[0]]).unwrap()[0], [16]);
        // int8 DIV: 6 / 3 = 2, at unit scales.
        let file = model_q(
            DIV,
            None,
            &[q(I8, &[2], 1.0, 0), q(I8, &[2], 1.0, 0), q(I8, &[2], 1.0, 0)],
            2,
        );
        assert_eq!(run(&file, &[&[6, 0xf7], &[3, 3]]).unwrap()[0], [2, 0xfd]);
        // A divisor at its zero point fails the invoke.
        let e = run(&file, &[&[6, 1], &[3, 0]]).unwrap_err();
        assert!(matches!(kernel_error(e), KernelError::Mismatch { .. }));
        // int16 x int16 MUL into int8: the Q0.15 product over 2^8.
        let file = model_q(
            MUL,
            None,
            &[q(I16, &[1], 1.0, 0), q(I16, &[1], 1.0, 0), q(I8, &[1], 1.0, 3)],
            2,
        );
        let half = (1i16 << 14).to_ne_bytes();
        // 0.5 * 0.5 = 0.25 = 8192 in Q0.15, / 256 = 32, + 3.
        assert_eq!(run(&file, &[&half, &half]).unwrap()[0], [35]);
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
        let file = model_q(
            SUB,
            None,
            &[q(I8, &[0, 2], 0.1, 0), q(I8, &[2], 0.1, 0), q(I8, &[0, 2], 0.1, 0)],
            2,
        );
        assert!(run(&file, &[&[], &[1, 2]]).unwrap()[0].is_empty());
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
        // No uint8 SQUARED_DIFFERENCE.
        let e = err(model_q(
            SQUARED_DIFFERENCE,
            None,
            &[q(U8, &[3], 0.1, 0), q(U8, &[3], 0.1, 0), q(U8, &[3], 0.1, 0)],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // int16 SUB with a zero point.
        let e = err(model_q(
            SUB,
            None,
            &[q(I16, &[3], 0.1, 1), q(I16, &[3], 0.1, 0), q(I16, &[3], 0.1, 0)],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // ADD's output multiplier at or above one (the reference aborts).
        let e = err(model_q(
            ADD,
            None,
            &[q(I8, &[3], 1.0, 0), q(I8, &[3], 1.0, 0), q(I8, &[3], 1e-9, 0)],
            2,
        ));
        assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
        // An int16 plain ADD against a constant of another type.
        let e = err(model_q(
            ADD,
            None,
            &[plain(I16, &[2]), constant(plain(I32, &[2]), vec![0; 8]), plain(I16, &[2])],
            2,
        ));
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
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
    }
}
