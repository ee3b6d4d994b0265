//! The reductions' math against naive per-index references written as TensorFlow Lite's
//! reference kernels walk the input (so float sums compare exactly).

use super::super::base::check::reduced_shape;
use super::super::row_major::strides;
use super::*;
use crate::interpreter::Shape;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

/// Row-major strides of `dims`.
/// The reference kernel's `Reduce`: every input in row-major order, folded into the output
/// element its kept coordinates name.
fn naive_fold<T: Copy>(
    x: &[T],
    dims: &[usize],
    mask: u32,
    init: T,
    f: impl Fn(T, T) -> T,
) -> Vec<T> {
    let out_dims: Vec<usize> = dims
        .iter()
        .enumerate()
        .map(|(i, &d)| if mask >> i & 1 == 1 { 1 } else { d })
        .collect();
    let out_strides = strides(&out_dims);
    let in_strides = strides(dims);
    let mut y = vec![init; out_dims.iter().product()];
    for (flat, &v) in x.iter().enumerate() {
        let mut o = 0;
        for i in 0..dims.len() {
            let c = flat / in_strides[i] % dims[i];
            if mask >> i & 1 == 0 {
                o += c * out_strides[i];
            }
        }
        y[o] = f(y[o], v);
    }
    y
}

fn shape_and_mask() -> impl Strategy<Value = (Vec<usize>, u32)> {
    proptest::collection::vec(0usize..5, 0..=MAX_DIMS)
        .prop_flat_map(|dims| {
            let n = dims.len();
            (Just(dims), 0u32..(1 << n))
        })
        .prop_filter("small", |(d, _)| d.iter().product::<usize>() <= 512)
}

fn segs(dims: &[usize], mask: u32) -> Segments {
    Segments::new(dims, mask).unwrap()
}

#[test]
fn segments_merge_neighbours_and_drop_ones() {
    let s = segs(&[2, 1, 3, 4, 5], 0b1_1000);
    assert_eq!(&s.segs[..s.count as usize], &[6, 20]);
    assert_eq!(s.first_reduced, 0);
    let s = segs(&[2, 1, 3, 4, 5], 0b0_1110);
    assert_eq!(&s.segs[..s.count as usize], &[2, 12, 5]);
    assert_eq!(s.first_reduced, 0);
    let s = segs(&[2, 3, 4], 0b101);
    assert_eq!(&s.segs[..s.count as usize], &[2, 3, 4]);
    assert_eq!(s.first_reduced, 1);
    let s = segs(&[], 0);
    assert_eq!(&s.segs[..s.count as usize], &[1]);
    let s = segs(&[1, 1], 0b11);
    assert_eq!(&s.segs[..s.count as usize], &[1]);
}

#[test]
fn empty_reductions_give_the_reference_values() {
    // Reducing a zero-size axis leaves the initial values: 0 for SUM and MEAN, lowest for MAX.
    let s = segs(&[3, 0], 0b10);
    let mut y = [f32::MIN; 3];
    fold_into(&[], &mut y, &s, f32::max).unwrap();
    assert_eq!(y, [f32::MIN; 3]);
    let mut y = [0.0f32; 3];
    fold_into(&[], &mut y, &s, |a: f32, v: f32| a + v).unwrap();
    mean_f32(&mut y, 0);
    assert_eq!(y, [0.0; 3]);
    assert_eq!(mean_i64(-7, 0), 0);
    assert_eq!(mean_i64(-7, 2), -3);
    assert_eq!(mean_i64(7, 2), 3);
}

#[test]
fn short_tensors_are_errors_not_panics() {
    let s = segs(&[2, 3], 0b01);
    let mut y = [0i32; 2];
    assert!(fold_into(&[1i32; 6], &mut y, &s, i32::wrapping_add).is_err());
    let mut y = [0i32; 3];
    assert!(fold_into(&[1i32; 5], &mut y, &s, i32::wrapping_add).is_err());
    let mut y = [0i64; 1];
    assert!(arg_into(&[1.0f32; 5], &mut y, (2, 3, 1), true).is_err());
    assert!(arg_into(&[1.0f32; 6], &mut y, (2, 3, 1), true).is_err());
}

#[test]
fn max_ignores_nan_and_sums_wrap() {
    let s = segs(&[4], 0b1);
    let mut y = [f32::MIN];
    fold_into(&[f32::NAN, -3.0, f32::NAN, -5.0], &mut y, &s, Reduce::max).unwrap();
    assert_eq!(y, [-3.0]);
    let mut y = [f32::MIN];
    fold_into(&[f32::NAN; 4], &mut y, &s, Reduce::max).unwrap();
    assert_eq!(y, [f32::MIN]);
    let mut y = [0i32];
    fold_into(&[i32::MAX, 1, 0, 0], &mut y, &s, Reduce::add).unwrap();
    assert_eq!(y, [i32::MIN]);
}

/// The reference kernel's `ArgMinMax`.
fn naive_arg<T: ArgValue>(
    x: &[T],
    (outer, axis, inner): (usize, usize, usize),
    max: bool,
) -> Vec<i64> {
    let mut y = vec![0; outer * inner];
    for o in 0..outer {
        for j in 0..inner {
            let mut best = 0;
            let mut value = x[o * axis * inner + j];
            for i in 1..axis {
                let v = x[(o * axis + i) * inner + j];
                if better(v, value, max) {
                    best = i;
                    value = v;
                }
            }
            y[o * inner + j] = best as i64;
        }
    }
    y
}

#[test]
fn arg_handles_nan_and_ties_as_tflite() {
    let x = [f32::NAN, 1.0, 3.0, 3.0, f32::NAN];
    let mut y = [9i32];
    arg_into(&x, &mut y, (1, 5, 1), true).unwrap();
    assert_eq!(y, [2]);
    arg_into(&x, &mut y, (1, 5, 1), false).unwrap();
    assert_eq!(y, [1]);
    arg_into(&[f32::NAN; 3], &mut y, (1, 3, 1), true).unwrap();
    assert_eq!(y, [0]);
    let mut y = [9i64; 2];
    arg_into(&[false, true, true, false], &mut y, (1, 2, 2), true).unwrap();
    assert_eq!(y, [1, 0]);
}

fn arg_case() -> impl Strategy<Value = ((usize, usize, usize), Vec<i8>, bool)> {
    (0usize..4, 1usize..6, 0usize..4, any::<bool>()).prop_flat_map(|(o, a, i, max)| {
        (
            Just((o, a, i)),
            proptest::collection::vec(-3i8..3, o * a * i),
            Just(max),
        )
    })
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_sums_match_the_reference_order_exactly(
        (dims, mask) in shape_and_mask(),
        seed in proptest::collection::vec(-100.0f32..100.0, 512),
    ) {
        let n: usize = dims.iter().product();
        let x = &seed[..n];
        let want = naive_fold(x, &dims, mask, 0.0f32, |a, v| a + v);
        let mut y = vec![0.0f32; want.len()];
        fold_into(x, &mut y, &segs(&dims, mask), |a: f32, v: f32| a + v).unwrap();
        // Same order, same roundings: bit-identical.
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn int_max_and_sums_match(
        (dims, mask) in shape_and_mask(),
        seed in proptest::collection::vec(any::<i32>(), 512),
    ) {
        let n: usize = dims.iter().product();
        let x = &seed[..n];
        let s = segs(&dims, mask);
        let want = naive_fold(x, &dims, mask, i32::MIN, |a, v| if v > a { v } else { a });
        let mut y = vec![i32::MIN; want.len()];
        fold_into(x, &mut y, &s, Reduce::max).unwrap();
        prop_assert_eq!(&y, &want);
        let want = naive_fold(x, &dims, mask, 0i32, i32::wrapping_add);
        let mut y = vec![0i32; want.len()];
        fold_into(x, &mut y, &s, Reduce::add).unwrap();
        prop_assert_eq!(&y, &want);
        // int32 MEAN: i64 sums, truncating division.
        let (_, count) = reduced_shape(&Shape::new(&dims).unwrap(), mask, true);
        let mut sums = vec![0i64; want.len()];
        fold_into(x, &mut sums, &s, |a: i64, v: i32| a.wrapping_add(i64::from(v))).unwrap();
        let wide: Vec<i64> = x.iter().map(|&v| i64::from(v)).collect();
        let want = naive_fold(&wide, &dims, mask, 0i64, |a, v| a + v);
        prop_assert_eq!(&sums, &want);
        for (&s, &w) in sums.iter().zip(&want) {
            if count > 0 {
                prop_assert_eq!(mean_i64(s, count), w / count as i64);
            }
        }
    }

    #[test]
    fn arg_matches_reference(((o, a, i), x, max) in arg_case()) {
        let want = naive_arg(&x, (o, a, i), max);
        let mut y = vec![-1i64; o * i];
        arg_into(&x, &mut y, (o, a, i), max).unwrap();
        prop_assert_eq!(&y, &want);
        let xf: Vec<f32> = x.iter().map(|&v| if v == -3 { f32::NAN } else { f32::from(v) }).collect();
        let want = naive_arg(&xf, (o, a, i), max);
        let mut y = vec![-1i32; o * i];
        arg_into(&xf, &mut y, (o, a, i), max).unwrap();
        prop_assert_eq!(y.iter().map(|&v| i64::from(v)).collect::<Vec<_>>(), want);
    }
}

// ---- End to end: one-operator models through setup and invoke ----

use super::super::one_op;

use one_op::{
    F, F32, I32, I64, U8, const_i32, const_i64, f32s, kernel_error, model, run, to_f32s, to_i32s,
    to_i64s, var,
};

fn keep(k: bool) -> one_op::Opts {
    Some((27, vec![(0, F::U8(u8::from(k)))]))
}

/// 0..24 as a [2, 3, 4] float input.
fn iota() -> Vec<f32> {
    (0..24).map(|v| v as f32).collect()
}

#[test]
fn sum_mean_max_run_end_to_end() {
    // Negative and duplicate axes count once: axes {1, 2}, kept as 1s.
    let t = [
        var(F32, &[2, 3, 4]),
        const_i32(&[3], &[-1, 1, 2]),
        var(F32, &[2, 1, 1]),
    ];
    let out = run(&model(74, keep(true), &t, 2), &[&f32s(&iota())]).unwrap();
    assert_eq!(to_f32s(&out[0]), [66.0, 210.0]);
    let t = [
        var(F32, &[2, 3, 4]),
        const_i32(&[1], &[0]),
        var(F32, &[3, 4]),
    ];
    let out = run(&model(40, keep(false), &t, 2), &[&f32s(&iota())]).unwrap();
    let want: Vec<f32> = (0..12).map(|v| v as f32 + 6.0).collect();
    assert_eq!(to_f32s(&out[0]), want);
    let t = [
        var(F32, &[2, 3, 4]),
        const_i32(&[2], &[0, 2]),
        var(F32, &[3]),
    ];
    let out = run(&model(82, keep(false), &t, 2), &[&f32s(&iota())]).unwrap();
    assert_eq!(to_f32s(&out[0]), [15.0, 19.0, 23.0]);
}

#[test]
fn int_reductions_run_end_to_end() {
    // int32 MEAN sums in i64 (no overflow at i32::MAX) and truncates toward zero.
    let x: Vec<u8> = [i32::MAX, i32::MAX, -3, -4]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let t = [var(I32, &[2, 2]), const_i32(&[], &[1]), var(I32, &[2])];
    let out = run(&model(40, keep(false), &t, 2), &[&x]).unwrap();
    assert_eq!(to_i32s(&out[0]), [i32::MAX, -3]);
    // int32 SUM wraps.
    let t = [var(I32, &[2, 2]), const_i32(&[], &[1]), var(I32, &[2])];
    let out = run(&model(74, keep(false), &t, 2), &[&x]).unwrap();
    assert_eq!(to_i32s(&out[0]), [-2, -7]);
    let x: Vec<u8> = [5i64, -9, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
    let t = [var(I64, &[3]), const_i32(&[1], &[0]), var(I64, &[])];
    let out = run(&model(82, keep(false), &t, 2), &[&x]).unwrap();
    assert_eq!(to_i64s(&out[0]), [7]);
}

#[test]
fn empty_reductions_run_end_to_end() {
    // Reducing a zero-size axis: SUM and MEAN give 0, REDUCE_MAX the lowest float.
    for (code, want) in [(74, 0.0), (40, 0.0), (82, f32::MIN)] {
        let t = [var(F32, &[2, 0]), const_i32(&[1], &[1]), var(F32, &[2])];
        let out = run(&model(code, keep(false), &t, 2), &[&[]]).unwrap();
        assert_eq!(to_f32s(&out[0]), [want, want], "op {code}");
    }
    // And an empty output.
    let t = [var(F32, &[0, 3]), const_i32(&[1], &[1]), var(F32, &[0])];
    assert!(run(&model(74, keep(false), &t, 2), &[&[]]).unwrap()[0].is_empty());
    let t = [var(F32, &[0, 3]), const_i32(&[], &[1]), var(I32, &[0])];
    let opts = Some((40, vec![(0, F::U8(I32))]));
    assert!(run(&model(56, opts, &t, 2), &[&[]]).unwrap()[0].is_empty());
}

#[test]
fn arg_runs_end_to_end() {
    let x = f32s(&[1.0, 5.0, 5.0, 0.0, 2.0, -1.0]);
    let opts = Some((40, vec![(0, F::U8(I32))]));
    let t = [var(F32, &[2, 3]), const_i32(&[], &[-1]), var(I32, &[2])];
    assert_eq!(
        to_i32s(&run(&model(56, opts, &t, 2), &[&x]).unwrap()[0]),
        [1, 1]
    );
    let opts = Some((57, vec![(0, F::U8(I64))]));
    let t = [var(F32, &[2, 3]), const_i64(&[1], &[0]), var(I64, &[3])];
    assert_eq!(
        to_i64s(&run(&model(79, opts, &t, 2), &[&x]).unwrap()[0]),
        [1, 1, 1]
    );
    let opts = Some((40, vec![(0, F::U8(I64))]));
    let t = [var(U8, &[4]), const_i32(&[1], &[0]), var(I64, &[])];
    assert_eq!(
        to_i64s(&run(&model(56, opts, &t, 2), &[&[3, 200, 7, 200]]).unwrap()[0]),
        [1]
    );
}

#[test]
fn reduction_setup_refuses_bad_operators() {
    let err = |file: Vec<u8>| kernel_error(run(&file, &[]).unwrap_err());
    let mismatch = |e: KernelError| matches!(e, KernelError::Mismatch { .. });
    // Axis out of range, output of the wrong shape, INT64 axes, axes not constant.
    let t = [var(F32, &[2, 3]), const_i32(&[1], &[2]), var(F32, &[2])];
    assert!(mismatch(err(model(74, keep(false), &t, 2))));
    let t = [var(F32, &[2, 3]), const_i32(&[1], &[-3]), var(F32, &[2])];
    assert!(mismatch(err(model(74, keep(false), &t, 2))));
    let t = [var(F32, &[2, 3]), const_i32(&[1], &[1]), var(F32, &[2, 1])];
    assert!(mismatch(err(model(74, keep(false), &t, 2))));
    let t = [var(F32, &[2, 3]), const_i64(&[1], &[1]), var(F32, &[2])];
    assert!(mismatch(err(model(74, keep(false), &t, 2))));
    let t = [var(F32, &[2, 3]), var(I32, &[1]), var(F32, &[2])];
    let e = kernel_error(run(&model(74, keep(false), &t, 2), &[]).unwrap_err());
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e}");
    // A uint8 MEAN is quantized: without a scale and zero point it is refused.
    let t = [var(U8, &[2, 3]), const_i32(&[1], &[1]), var(U8, &[2])];
    let e = err(model(40, keep(false), &t, 2));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e}");
    // ARG_MAX: output type other than the options', axis out of range, empty axis.
    let opts = || Some((40, vec![(0, F::U8(I64))]));
    let t = [var(F32, &[2, 3]), const_i32(&[], &[1]), var(I32, &[2])];
    assert!(mismatch(err(model(56, opts(), &t, 2))));
    let t = [var(F32, &[2, 3]), const_i32(&[], &[2]), var(I64, &[2])];
    assert!(mismatch(err(model(56, opts(), &t, 2))));
    let t = [var(F32, &[2, 0]), const_i32(&[], &[1]), var(I64, &[2])];
    assert!(mismatch(err(model(56, opts(), &t, 2))));
}

#[test]
fn min_prod_any_all_run_end_to_end() {
    // REDUCE_MIN over axis 1, REDUCE_PROD over everything (LiteRT's ReduceAllDims start).
    let t = [
        var(F32, &[2, 3, 4]),
        const_i32(&[1], &[1]),
        var(F32, &[2, 4]),
    ];
    let out = run(&model(89, keep(false), &t, 2), &[&f32s(&iota())]).unwrap();
    assert_eq!(
        to_f32s(&out[0]),
        [0.0, 1.0, 2.0, 3.0, 12.0, 13.0, 14.0, 15.0]
    );
    let t = [var(F32, &[4]), const_i32(&[1], &[0]), var(F32, &[])];
    let out = run(
        &model(81, keep(false), &t, 2),
        &[&f32s(&[1.5, -2.0, 3.0, 0.5])],
    )
    .unwrap();
    assert_eq!(to_f32s(&out[0]), [-4.5]);
    // int32 products wrap.
    let x: Vec<u8> = [65536, 65536, 3, -2]
        .iter()
        .flat_map(|v: &i32| v.to_ne_bytes())
        .collect();
    let t = [var(I32, &[2, 2]), const_i32(&[1], &[1]), var(I32, &[2])];
    let out = run(&model(81, keep(false), &t, 2), &[&x]).unwrap();
    assert_eq!(to_i32s(&out[0]), [0, -6]);
    // REDUCE_ANY / REDUCE_ALL over bools, and an empty axis giving their initial values.
    let x = [1u8, 0, 0, 0, 1, 1];
    for (code, want) in [(91, [1u8, 0, 1]), (140, [0, 0, 1])] {
        let t = [
            var(one_op::BOOL, &[3, 2]),
            const_i32(&[1], &[1]),
            var(one_op::BOOL, &[3]),
        ];
        assert_eq!(
            run(&model(code, keep(false), &t, 2), &[&x]).unwrap()[0],
            want,
            "op {code}"
        );
        let t = [
            var(one_op::BOOL, &[2, 0]),
            const_i32(&[1], &[1]),
            var(one_op::BOOL, &[2]),
        ];
        let init = u8::from(code == 140);
        assert_eq!(
            run(&model(code, keep(false), &t, 2), &[&[]]).unwrap()[0],
            [init, init]
        );
    }
}

#[test]
fn new_reductions_refuse_other_types() {
    // REDUCE_ANY of floats, REDUCE_PROD of bools, REDUCE_MIN of int8 without quantization
    // matching (a missing quantization reads as 0 and 0 on both sides, so it runs).
    let t = [var(F32, &[2, 3]), const_i32(&[1], &[1]), var(F32, &[2])];
    assert!(matches!(
        kernel_error(run(&model(91, keep(false), &t, 2), &[]).unwrap_err()),
        KernelError::Unsupported { .. }
    ));
    let t = [
        var(one_op::BOOL, &[2, 3]),
        const_i32(&[1], &[1]),
        var(one_op::BOOL, &[2]),
    ];
    assert!(matches!(
        kernel_error(run(&model(81, keep(false), &t, 2), &[]).unwrap_err()),
        KernelError::Unsupported { .. }
    ));
    let t = [
        var(one_op::I8, &[2, 3]),
        const_i32(&[1], &[1]),
        var(one_op::I8, &[2]),
    ];
    let x = [1u8, 0xff, 3, 0x80, 2, 2];
    assert_eq!(
        run(&model(89, keep(false), &t, 2), &[&x]).unwrap()[0],
        [0xff, 0x80]
    );
}

proptest! {
    #![proptest_config(cases())]
    #[test]
    fn min_and_prod_fold_as_the_reference((dims, mask) in shape_and_mask(), seed in any::<u32>()) {
        let n: usize = dims.iter().product();
        let x: Vec<i32> = (0..n as u32).map(|v| (v.wrapping_mul(seed) % 7) as i32 - 3).collect();
        let s = segs(&dims, mask);
        let no: usize = naive_fold(&x, &dims, mask, 0, |a, _| a).len();
        for (init, f) in [(i32::MAX, <i32 as Reduce>::min as fn(i32, i32) -> i32), (1, <i32 as Reduce>::mul)] {
            let mut y = vec![init; no];
            fold_into(&x, &mut y, &s, f).unwrap();
            prop_assert_eq!(y, naive_fold(&x, &dims, mask, init, f));
        }
    }
}
