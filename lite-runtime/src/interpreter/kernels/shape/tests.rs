//! The data-movement math against naive references: SLICE and TRANSPOSE by per-index
//! arithmetic, STRIDED_SLICE by Python's slice semantics (`slice.indices`), which TensorFlow
//! Lite's `StartForAxis` / `EndForAxis` reproduce; CONCATENATION, PACK and UNPACK by
//! per-element index math.

use super::plan::{self, Masks, Plan};
use super::*;
use super::super::row_major::{shape, strides};
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

/// Every source element the per-axis position lists pick, in row-major output order.
fn cartesian(dims: &[usize], picks: &[Vec<usize>]) -> Vec<usize> {
    let st = strides(dims);
    let mut out = vec![0usize];
    for (k, p) in picks.iter().enumerate() {
        out = out
            .iter()
            .flat_map(|&base| {
                let s = st[k];
                p.iter().map(move |&i| base + i * s)
            })
            .collect();
    }
    out
}

/// Runs `plan` over `0..n` (u32 positions), and over the positions iterator.
fn run(plan: &Plan, n: usize) -> Vec<u32> {
    let src: Vec<u32> = (0..n as u32).collect();
    let mut dst = vec![u32::MAX; plan.elements()];
    plan.copy(&src, &mut dst).unwrap();
    let walked: Vec<u32> = plan.positions().map(|i| i as u32).collect();
    assert_eq!(walked, dst, "positions and copy disagree");
    dst
}

fn dims() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0usize..5, 0..=4)
}

/// Python's `slice(start, stop, step).indices(len)`, then the positions it walks.
fn py_slice(start: Option<i64>, stop: Option<i64>, step: i64, len: i64) -> Vec<usize> {
    let (lo, hi) = if step > 0 { (0, len) } else { (-1, len - 1) };
    let fix = |v: i64| {
        let v = if v < 0 { v + len } else { v };
        v.clamp(lo, hi.max(lo))
    };
    let start = start.map_or(if step > 0 { 0 } else { len - 1 }, fix);
    let stop = stop.map_or(if step > 0 { len } else { -1 }, fix);
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i += step;
    }
    out
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn slice_matches_index_math(
        (d, begin, size) in dims().prop_flat_map(|d| {
            let b: Vec<_> = d.iter().map(|&n| 0..=n).collect();
            (Just(d), b)
        }).prop_flat_map(|(d, b)| {
            let s: Vec<_> = d.iter().zip(&b).map(|(&n, &b)| -1i64..=(n - b) as i64).collect();
            (Just(d), Just(b), s)
        })
    ) {
        let begin: Vec<i64> = begin.iter().map(|&b| b as i64).collect();
        let (p, out) = plan::slice(&shape(&d), &begin, &size).unwrap();
        let picks: Vec<Vec<usize>> = d.iter().enumerate().map(|(k, &n)| {
            let b = begin[k] as usize;
            let s = if size[k] == -1 { n - b } else { size[k] as usize };
            (b..b + s).collect()
        }).collect();
        let want_dims: Vec<usize> = picks.iter().map(Vec::len).collect();
        prop_assert_eq!(out.dims(), &want_dims[..]);
        let want: Vec<u32> = cartesian(&d, &picks).iter().map(|&i| i as u32).collect();
        prop_assert_eq!(run(&p, d.iter().product()), want);
    }

    #[test]
    fn slice_refuses_out_of_range(d in dims(), begin in proptest::collection::vec(-3i64..8, 4), size in proptest::collection::vec(-3i64..8, 4)) {
        let r = d.len();
        if let Ok((p, out)) = plan::slice(&shape(&d), &begin[..r], &size[..r]) {
            for k in 0..r {
                prop_assert!(begin[k] >= 0 && begin[k] as usize <= d[k]);
                prop_assert!(size[k] >= -1);
            }
            prop_assert_eq!(p.elements(), out.elements());
            run(&p, d.iter().product());
        }
    }

    #[test]
    fn transpose_matches_index_math(
        (d, perm) in proptest::collection::vec(0usize..5, 0..=MAX_DIMS)
            .prop_filter("small", |d| d.iter().product::<usize>() <= 2048)
            .prop_flat_map(|d| {
                let n = d.len();
                (Just(d), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
            })
    ) {
        let p64: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
        let (p, out) = plan::transpose(&shape(&d), &p64).unwrap();
        let od: Vec<usize> = perm.iter().map(|&a| d[a]).collect();
        prop_assert_eq!(out.dims(), &od[..]);
        let st = strides(&d);
        let ost = strides(&od);
        let n: usize = od.iter().product();
        let want: Vec<u32> = (0..n).map(|flat| {
            let mut src = 0;
            for k in 0..od.len() {
                src += flat / ost[k] % od[k] * st[perm[k]];
            }
            src as u32
        }).collect();
        prop_assert_eq!(run(&p, d.iter().product()), want);
    }

    #[test]
    fn strided_slice_matches_python_slices(
        (d, spec) in proptest::collection::vec(0usize..6, 1..=4).prop_flat_map(|d| {
            let n = d.len();
            (Just(d), proptest::collection::vec((-7i64..7, -7i64..7, prop_oneof![-3i64..=-1, 1i64..=3], any::<[bool; 3]>()), n))
        })
    ) {
        let begin: Vec<i64> = spec.iter().map(|s| s.0).collect();
        let end: Vec<i64> = spec.iter().map(|s| s.1).collect();
        let stride: Vec<i64> = spec.iter().map(|s| s.2).collect();
        let mut m = Masks::default();
        for (k, s) in spec.iter().enumerate() {
            m.begin |= i32::from(s.3[0]) << k;
            m.end |= i32::from(s.3[1]) << k;
            m.shrink |= i32::from(s.3[2]) << k;
        }
        let got = plan::strided(&shape(&d), &begin, &end, &stride, m);
        let mut picks = Vec::new();
        let mut out_dims = Vec::new();
        let mut valid = true;
        for (k, s) in spec.iter().enumerate() {
            let len = d[k] as i64;
            if s.3[2] {
                // TensorFlow Lite clamps a shrunk axis's position like a begin (so -5 on a
                // length-3 axis reads element 0) and applies the begin mask.
                let i = if s.0 < 0 { s.0 + len } else { s.0 };
                let i = if s.2 > 0 { i.clamp(0, len) } else { i.clamp(-1, len - 1) };
                let i = if s.3[0] { if s.2 > 0 { 0 } else { len - 1 } } else { i };
                if i < 0 || i >= len { valid = false; break; }
                picks.push(vec![i as usize]);
            } else {
                let p = py_slice((!s.3[0]).then_some(s.0), (!s.3[1]).then_some(s.1), s.2, len);
                out_dims.push(p.len());
                picks.push(p);
            }
        }
        if !valid {
            prop_assert!(got.is_err());
        } else {
            let (p, out) = got.unwrap();
            prop_assert_eq!(out.dims(), &out_dims[..]);
            let want: Vec<u32> = cartesian(&d, &picks).iter().map(|&i| i as u32).collect();
            prop_assert_eq!(run(&p, d.iter().product()), want);
        }
    }

    #[test]
    fn strided_slice_never_panics(
        d in proptest::collection::vec(0usize..4, 0..=MAX_DIMS),
        spec in proptest::collection::vec((any::<i64>(), any::<i64>(), any::<i64>()), 0..=MAX_SPEC),
        masks in any::<[i32; 5]>(),
        offset in any::<bool>(),
    ) {
        let begin: Vec<i64> = spec.iter().map(|s| s.0).collect();
        let end: Vec<i64> = spec.iter().map(|s| s.1).collect();
        let stride: Vec<i64> = spec.iter().map(|s| s.2).collect();
        let m = Masks { begin: masks[0], end: masks[1], ellipsis: masks[2], new_axis: masks[3], shrink: masks[4], offset };
        if let Ok((p, out)) = plan::strided(&shape(&d), &begin, &end, &stride, m) {
            prop_assert_eq!(p.elements(), out.elements());
            run(&p, d.iter().product());
        }
    }

    #[test]
    fn concatenation_matches_index_math(
        (d, axis, sizes) in proptest::collection::vec(0usize..4, 1..=4).prop_flat_map(|d| {
            let n = d.len();
            (Just(d), 0..n, proptest::collection::vec(0usize..4, 1..5))
        })
    ) {
        // Input k has dimension `sizes[k]` on the axis; its elements are (k, flat index).
        let inputs: Vec<(Vec<usize>, Vec<u32>)> = sizes.iter().enumerate().map(|(k, &s)| {
            let mut dk = d.clone();
            dk[axis] = s;
            let n: usize = dk.iter().product();
            (dk, (0..n as u32).map(|i| (k as u32) << 16 | i).collect())
        }).collect();
        let mut od = d.clone();
        od[axis] = sizes.iter().sum();
        let total: usize = od.iter().product();
        let outer: usize = d[..axis].iter().product();
        let mut dst = vec![0u8; total * 4];
        let row = dst.len().checked_div(outer).unwrap_or(0);
        let mut at = 0;
        for (dk, v) in &inputs {
            let chunk = dk[axis..].iter().product::<usize>() * 4;
            join(v.as_bytes(), chunk, &mut dst, row, at).unwrap();
            at += chunk;
        }
        // Naive: output coordinate on the axis picks the input and its coordinate.
        let ost = strides(&od);
        let got: Vec<u32> = dst.chunks_exact(4).map(|c| u32::from_ne_bytes(c.try_into().unwrap())).collect();
        for (flat, &g) in got.iter().enumerate() {
            let mut c: Vec<usize> = (0..od.len()).map(|k| flat / ost[k] % od[k]).collect();
            let mut k = 0;
            while c[axis] >= sizes[k] { c[axis] -= sizes[k]; k += 1; }
            let dk = &inputs[k].0;
            let ist = strides(dk);
            let src: usize = c.iter().zip(&ist).map(|(a, b)| a * b).sum();
            prop_assert_eq!(g, (k as u32) << 16 | src as u32);
        }
    }

    #[test]
    fn unpack_inverts_pack(d in proptest::collection::vec(0usize..4, 1..=4), axis_seed in 0usize..8) {
        let axis = axis_seed % d.len();
        let n = d[axis];
        let total: usize = d.iter().product();
        let src: Vec<u32> = (0..total as u32).collect();
        let run = d[axis + 1..].iter().product::<usize>() * 4;
        let each = total.checked_div(n).unwrap_or(0);
        let mut outs = vec![vec![0u8; each * 4]; n];
        for (k, o) in outs.iter_mut().enumerate() {
            split(src.as_bytes(), run, n, k, o).unwrap();
        }
        // Packing the outputs back on the same axis gives the input.
        let mut back = vec![0u8; total * 4];
        let outer: usize = d[..axis].iter().product();
        let row = back.len().checked_div(outer).unwrap_or(0);
        for (k, o) in outs.iter().enumerate() {
            join(o, run, &mut back, row, k * run).unwrap();
        }
        prop_assert_eq!(back, src.as_bytes().to_vec());
    }
}

fn strided(d: &[usize], b: &[i64], e: &[i64], s: &[i64], m: Masks) -> (Vec<usize>, Vec<u32>) {
    let (p, out) = plan::strided(&shape(d), b, e, s, m).unwrap();
    (out.dims().to_vec(), run(&p, d.iter().product()))
}

#[test]
fn strided_slice_ellipsis_and_new_axis_follow_numpy() {
    // x = arange(24).reshape(2, 3, 4); x[..., 1] == [[1, 5, 9], [13, 17, 21]]
    let m = Masks {
        ellipsis: 1,
        shrink: 2,
        ..Masks::default()
    };
    let (d, v) = strided(&[2, 3, 4], &[0, 1], &[0, 2], &[1, 1], m);
    assert_eq!(d, [2, 3]);
    assert_eq!(v, [1, 5, 9, 13, 17, 21]);
    // x[np.newaxis, 1, :, ::-2] has shape [1, 3, 2]
    let m = Masks {
        new_axis: 1,
        shrink: 2,
        ..Masks::default()
    };
    let m = Masks {
        end: 0b1100,
        begin: 0b1100,
        ..m
    };
    let (d, v) = strided(&[2, 3, 4], &[0, 1, 0, 0], &[1, 2, 0, 0], &[1, 1, 1, -2], m);
    assert_eq!(d, [1, 3, 2]);
    assert_eq!(v, [15, 13, 19, 17, 23, 21]);
    // x[0, ..., np.newaxis] has shape [3, 4, 1]
    let m = Masks {
        shrink: 1,
        ellipsis: 2,
        new_axis: 4,
        ..Masks::default()
    };
    let (d, v) = strided(&[2, 3, 4], &[0, 0, 0], &[1, 0, 0], &[1, 1, 1], m);
    assert_eq!(d, [3, 4, 1]);
    assert_eq!(v, (0..12).collect::<Vec<u32>>());
}

#[test]
fn strided_slice_offset_counts_end_from_begin() {
    let m = Masks {
        offset: true,
        ..Masks::default()
    };
    let (d, v) = strided(&[6], &[1], &[3], &[1], m);
    assert_eq!(d, [3]);
    assert_eq!(v, [1, 2, 3]);
}

#[test]
fn strided_slice_refuses_a_zero_stride_and_a_shrink_past_the_end() {
    assert!(plan::strided(&shape(&[3]), &[0], &[3], &[0], Masks::default()).is_err());
    let m = Masks {
        shrink: 1,
        ..Masks::default()
    };
    let e = plan::strided(&shape(&[3]), &[3], &[4], &[1], m).unwrap_err();
    assert!(matches!(e, KernelError::IndexOutOfRange { index: 3, .. }));
    assert!(plan::strided(&shape(&[3]), &[-1], &[0], &[1], m).is_ok());
}

#[test]
fn transpose_refuses_repeated_or_out_of_range_axes() {
    assert!(plan::transpose(&shape(&[2, 3]), &[0, 0]).is_err());
    assert!(plan::transpose(&shape(&[2, 3]), &[0, 2]).is_err());
    assert!(plan::transpose(&shape(&[2, 3]), &[-1, 0]).is_err());
    assert!(plan::transpose(&shape(&[2, 3]), &[0]).is_err());
}

#[test]
fn fill_repeats_every_width() {
    let mut d = [0u8; 12];
    fill(&7u32.to_ne_bytes(), &mut d, 4).unwrap();
    assert_eq!(d.as_bytes(), [7u32; 3].as_bytes());
    let mut d = [0u8; 3];
    fill(&[1], &mut d, 1).unwrap();
    assert_eq!(d, [1, 1, 1]);
    let mut d = [0u64; 2];
    fill(&9u64.to_ne_bytes(), d.as_mut_bytes(), 8).unwrap();
    assert_eq!(d, [9, 9]);
    assert!(fill(&[], &mut [0u8; 4], 4).is_err());
}

#[test]
fn fill_dims_must_be_the_output_shape() {
    assert!(dims_match(&[2, 3], &shape(&[2, 3])));
    assert!(!dims_match(&[2, 3], &shape(&[3, 2])));
    assert!(!dims_match(&[-1, 3], &shape(&[2, 3])));
    assert!(!dims_match(&[2], &shape(&[2, 3])));
    assert!(dims_match(&[], &shape(&[])));
}

#[test]
fn element_types_moved() {
    assert_eq!(element_bytes(TensorType::Float32), Ok(4));
    assert_eq!(element_bytes(TensorType::Int64), Ok(8));
    assert_eq!(element_bytes(TensorType::Bool), Ok(1));
    assert_eq!(element_bytes(TensorType::Int8), Ok(1));
    assert_eq!(element_bytes(TensorType::Uint8), Ok(1));
    assert_eq!(element_bytes(TensorType::Int16), Ok(2));
    assert!(matches!(
        element_bytes(TensorType::Float16),
        Err(KernelError::Unsupported { .. })
    ));
    assert!(element_bytes(TensorType::String).is_err());
}

use super::super::one_op;

/// The kernels through setup and invoke, on one-operator models.
mod end_to_end {
    use super::one_op::{BOOL, F, F32, I32, I64, I8, Tensor, const_i32, const_i64, f32s, i32s, i64s, kernel_error, model, run, to_f32s, to_i32s, to_i64s, var};

    use crate::interpreter::KernelError;
    use crate::model::BuiltinOperator as Op;

    #[test]
    fn concatenation_on_the_last_axis_with_relu() {
        let opts = Some((10, vec![(0, F::I32(-1)), (1, F::U8(1))]));
        let m = model(
            Op::Concatenation as i32,
            opts,
            &[var(F32, &[2, 2]), var(F32, &[2, 1]), var(F32, &[2, 3])],
            2,
        );
        let out = run(&m, &[&f32s(&[1., -2., 3., 4.]), &f32s(&[-5., 6.])]).unwrap();
        assert_eq!(to_f32s(&out[0]), [1., 0., 0., 3., 4., 6.]);
    }

    #[test]
    fn concatenation_refuses_quantized_and_a_wrong_output() {
        let opts = || Some((10, vec![(0, F::I32(0))]));
        let m = model(
            Op::Concatenation as i32,
            opts(),
            &[var(I8, &[1]), var(I8, &[1]), var(I8, &[2])],
            2,
        );
        let e = kernel_error(run(&m, &[&[1], &[2]]).unwrap_err());
        // int8 without quantization parameters: the quantized kernel has no scale to use.
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
        let m = model(
            Op::Concatenation as i32,
            opts(),
            &[var(I32, &[1]), var(I32, &[1]), var(I32, &[3])],
            2,
        );
        assert!(run(&m, &[&i32s(&[1]), &i32s(&[2])]).is_err());
    }

    fn strided_model(begin: Tensor) -> Vec<u8> {
        let opts = Some((32, vec![(1, F::I32(0b10))]));
        model(
            Op::StridedSlice as i32,
            opts,
            &[
                var(I32, &[3, 4]),
                begin,
                const_i32(&[2], &[3, 0]),
                const_i32(&[2], &[1, 2]),
                var(I32, &[2, 2]),
            ],
            4,
        )
    }

    #[test]
    fn strided_slice_with_begin_computed_at_invoke_checks_the_shape() {
        let x: Vec<i32> = (0..12).collect();
        let m = strided_model(var(I32, &[2]));
        // x[1:3, 1::2]
        let out = run(&m, &[&i32s(&x), &i32s(&[1, 1])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [5, 7, 9, 11]);
        // x[0:3, 1::2] has 3 rows, the model's output 2.
        let e = kernel_error(run(&m, &[&i32s(&x), &i32s(&[0, 1])]).unwrap_err());
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
        // With a constant begin the same model is checked at setup.
        let m = strided_model(const_i32(&[2], &[0, 1]));
        assert!(run(&m, &[&i32s(&x)]).is_err());
    }

    #[test]
    fn slice_with_int64_operands_and_size_minus_one() {
        let m = model(
            Op::Slice as i32,
            None,
            &[
                var(I64, &[2, 3]),
                const_i64(&[2], &[1, 1]),
                const_i64(&[2], &[-1, 2]),
                var(I64, &[1, 2]),
            ],
            3,
        );
        let out = run(&m, &[&i64s(&[0, 1, 2, 3, 4, 5])]).unwrap();
        assert_eq!(to_i64s(&out[0]), [4, 5]);
    }

    #[test]
    fn transpose_of_bools() {
        let m = model(
            Op::Transpose as i32,
            None,
            &[
                var(BOOL, &[2, 3]),
                const_i32(&[2], &[1, 0]),
                var(BOOL, &[3, 2]),
            ],
            2,
        );
        let out = run(&m, &[&[1, 0, 0, 0, 1, 1]]).unwrap();
        assert_eq!(out[0], [1, 0, 0, 1, 0, 1]);
    }

    #[test]
    fn pack_and_unpack() {
        let m = model(
            Op::Pack as i32,
            Some((59, vec![(0, F::I32(2)), (1, F::I32(1))])),
            &[var(I32, &[2]), var(I32, &[2]), var(I32, &[2, 2])],
            2,
        );
        let out = run(&m, &[&i32s(&[1, 2]), &i32s(&[3, 4])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [1, 3, 2, 4]);
        let m = model(
            Op::Unpack as i32,
            Some((64, vec![(0, F::I32(2)), (1, F::I32(-1))])),
            &[var(I32, &[3, 2]), var(I32, &[3]), var(I32, &[3])],
            1,
        );
        let out = run(&m, &[&i32s(&[1, 2, 3, 4, 5, 6])]).unwrap();
        assert_eq!(to_i32s(&out[0]), [1, 3, 5]);
        assert_eq!(to_i32s(&out[1]), [2, 4, 6]);
    }

    #[test]
    fn shape_of_a_tensor_and_of_a_scalar() {
        let m = model(
            Op::Shape as i32,
            Some((55, vec![(0, F::U8(I64))])),
            &[var(F32, &[2, 0, 5]), var(I64, &[3])],
            1,
        );
        let out = run(&m, &[&[]]).unwrap();
        assert_eq!(to_i64s(&out[0]), [2, 0, 5]);
        let m = model(Op::Shape as i32, None, &[var(F32, &[]), var(I32, &[0])], 1);
        let out = run(&m, &[&f32s(&[1.0])]).unwrap();
        assert!(out[0].is_empty());
    }

    #[test]
    fn fill_checks_its_dims_at_invoke() {
        let m = model(
            Op::Fill as i32,
            None,
            &[var(I32, &[2]), var(I64, &[]), var(I64, &[2, 3])],
            2,
        );
        let out = run(&m, &[&i32s(&[2, 3]), &i64s(&[-7])]).unwrap();
        assert_eq!(to_i64s(&out[0]), [-7; 6]);
        let e = kernel_error(run(&m, &[&i32s(&[3, 2]), &i64s(&[-7])]).unwrap_err());
        assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
    }
}
