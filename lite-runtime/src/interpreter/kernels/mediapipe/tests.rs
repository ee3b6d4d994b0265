//! MediaPipe's operators: one-operator models against naive loops written as MediaPipe's
//! kernels (the transposed convolution's scatter, the pool's window walk), hand-computed
//! values, and refusals. (numpy references and XNNPACK on 64 cases, and MediaPipe's own C++
//! compiled against them, are tests/tests/custom_ops.rs's and make_mediapipe.py's.)

use super::*;
use super::super::custom_one_op::{
    Flex, Tensor, const_f32, f32_bytes, flex_map, i32_struct, kernel_error, model, run, to_f32s,
    var,
};
use super::super::one_op::{F32, I8};
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(128, 3)
}

fn refused(file: &[u8]) -> KernelError {
    kernel_error(run(file, &[]).expect_err("refused"))
}

/// MediaPipe's `TransposeConvBias` loops, as written.
#[allow(clippy::too_many_arguments)]
fn naive_transpose_conv(
    x: &[f32],
    [b, ih, iw, ic]: [usize; 4],
    w: &[f32],
    [oc, fh, fw]: [usize; 3],
    bias: &[f32],
    [oh, ow]: [usize; 2],
    [sh, sw]: [usize; 2],
    [ph, pw]: [usize; 2],
) -> Vec<f32> {
    let mut out = vec![0.0f32; b * oh * ow * oc];
    for n in 0..b {
        for y in 0..oh {
            for xx in 0..ow {
                for o in 0..oc {
                    out[((n * oh + y) * ow + xx) * oc + o] = bias[o];
                }
            }
        }
        for y in 0..ih {
            for xx in 0..iw {
                for c in 0..ic {
                    for fy in 0..fh {
                        for fx in 0..fw {
                            for o in 0..oc {
                                let oy = (y * sh + fy) as i64 - ph as i64;
                                let ox = (xx * sw + fx) as i64 - pw as i64;
                                if ox >= 0 && ox < ow as i64 && oy >= 0 && oy < oh as i64 {
                                    let v = x[((n * ih + y) * iw + xx) * ic + c];
                                    let t = w[((o * fh + fy) * fw + fx) * ic + c];
                                    out[((n * oh + oy as usize) * ow + ox as usize) * oc + o] +=
                                        v * t;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(cases())]

    /// The transposed convolution equals MediaPipe's loops bit for bit (the same sum order
    /// per output), constant or fed filters.
    #[test]
    fn transpose_conv_is_mediapipes_scatter(
        (b, ih, iw, ic, oc) in (1usize..3, 1usize..5, 1usize..5, 1usize..4, 1usize..4),
        (fh, fw, sh, sw) in (1usize..4, 1usize..4, 1usize..4, 1usize..4),
        same in any::<bool>(),
        fed in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 2001) as f32 / 500.0 - 2.0
        };
        let x: Vec<f32> = (0..b * ih * iw * ic).map(|_| next()).collect();
        let w: Vec<f32> = (0..oc * fh * fw * ic).map(|_| next()).collect();
        let bias: Vec<f32> = (0..oc).map(|_| next()).collect();
        let trim = |f: usize, n: usize, s: usize| if same { f.saturating_sub((n - 1) % s + 1) } else { 0 };
        let (th, tw) = (trim(fh, ih, sh), trim(fw, iw, sw));
        let (oh, ow) = (sh * (ih - 1) + fh - th, sw * (iw - 1) + fw - tw);
        let want = naive_transpose_conv(&x, [b, ih, iw, ic], &w, [oc, fh, fw], &bias, [oh, ow], [sh, sw], [th / 2, tw / 2]);
        let i = |v: usize| v as i32;
        let shape_w = [i(oc), i(fh), i(fw), i(ic)];
        let (wt, bt) = if fed {
            (var(F32, &shape_w), var(F32, &[i(oc)]))
        } else {
            (const_f32(&shape_w, &w), const_f32(&[i(oc)], &bias))
        };
        let file = model(
            "Convolution2DTransposeBias",
            1,
            &i32_struct(&[if same { 1 } else { 2 }, i(sw), i(sh)]),
            &[var(F32, &[i(b), i(ih), i(iw), i(ic)]), wt, bt, var(F32, &[i(b), i(oh), i(ow), i(oc)])],
            3,
        );
        let (xb, wb, bb) = (f32_bytes(&x), f32_bytes(&w), f32_bytes(&bias));
        let feeds: Vec<&[u8]> = if fed { vec![&xb, &wb, &bb] } else { vec![&xb] };
        let got = to_f32s(&run(&file, &feeds).unwrap()[0]);
        prop_assert_eq!(
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }

    /// The argmax pool against MediaPipe's window walk; the unpooling of its result puts each
    /// maximum back where it was.
    #[test]
    fn argmax_pool_and_unpool_round_trip(
        (h, w, c) in (1usize..7, 1usize..7, 1usize..4),
        (f, s) in (1usize..4, 1usize..4),
        same in any::<bool>(),
        values in prop::collection::vec(-4i8..4, 150),
    ) {
        let x: Vec<f32> = (0..h * w * c).map(|k| f32::from(values[k % values.len()]) / 2.0).collect();
        let size = |n: usize| if same { n.div_ceil(s) } else { (n + s).saturating_sub(f) / s };
        let (oh, ow) = (size(h), size(w));
        let pad = |n: usize, o: usize| (((o as i64 - 1) * s as i64 + f as i64 - n as i64) / 2).max(0) as usize;
        let (ph, pw) = (pad(h, oh), pad(w, ow));
        let mut want = (Vec::new(), Vec::new());
        for oy in 0..oh {
            for ox in 0..ow {
                for ch in 0..c {
                    let (y0, x0) = ((oy * s) as i64 - ph as i64, (ox * s) as i64 - pw as i64);
                    let (mut best, mut at) = (f32::MIN, 0usize);
                    for fy in 0..f as i64 {
                        for fx in 0..f as i64 {
                            let (y, xx) = (y0 + fy, x0 + fx);
                            if y >= 0 && xx >= 0 && y < h as i64 && xx < w as i64 {
                                let v = x[(y as usize * w + xx as usize) * c + ch];
                                if v > best {
                                    best = v;
                                    at = (fy * f as i64 + fx) as usize;
                                }
                            }
                        }
                    }
                    want.0.push(best);
                    want.1.push(at as f32 + 0.1);
                }
            }
        }
        let i = |v: usize| v as i32;
        let file = model(
            "MaxPoolingWithArgmax2D",
            1,
            &i32_struct(&[if same { 1 } else { 2 }, i(s), i(s), i(f), i(f), 0, -1, -1]),
            &[var(F32, &[1, i(h), i(w), i(c)]), var(F32, &[1, i(oh), i(ow), i(c)]), var(F32, &[1, i(oh), i(ow), i(c)])],
            1,
        );
        let out = run(&file, &[&f32_bytes(&x)]).unwrap();
        prop_assert_eq!(to_f32s(&out[0]), want.0.clone());
        prop_assert_eq!(to_f32s(&out[1]), want.1.clone());
        // Unpooling (stride = filter, no padding: every index lands inside): each maximum
        // at its place, zeros elsewhere.
        if s == f && oh > 0 && ow > 0 && ph == 0 && pw == 0 {
            let file = model(
                "MaxUnpooling2D",
                1,
                &i32_struct(&[2, i(s), i(s), i(f), i(f), 0]),
                &[var(F32, &[1, i(oh), i(ow), i(c)]), var(F32, &[1, i(oh), i(ow), i(c)]), var(F32, &[1, i(oh * f), i(ow * f), i(c)])],
                2,
            );
            let up = to_f32s(&run(&file, &[&out[0], &out[1]]).unwrap()[0]);
            for (k, (&v, &at)) in want.0.iter().zip(&want.1).enumerate() {
                let (oy, ox, ch) = (k / c / ow, k / c % ow, k % c);
                let at = at as usize;
                let (y, xx) = (oy * f + at / f, ox * f + at % f);
                prop_assert_eq!(up[(y * ow * f + xx) * c + ch], v);
            }
        }
    }
}

#[test]
fn argmax_pool_clamps_and_keeps_the_first_maximum() {
    // One 2x2 window: values 3, 5, 5, -1 (the first 5 wins: index 1); RELU6 clamps 5 to... 5.
    let x = [3.0f32, 5.0, 5.0, -1.0];
    let pool = |activation: i32, x: &[f32]| {
        let file = model(
            "MaxPoolingWithArgmax2D",
            1,
            &i32_struct(&[2, 2, 2, 2, 2, activation]),
            &[var(F32, &[1, 2, 2, 1]), var(F32, &[1, 1, 1, 1]), var(F32, &[1, 1, 1, 1])],
            1,
        );
        let out = run(&file, &[&f32_bytes(x)]).unwrap();
        (to_f32s(&out[0])[0], to_f32s(&out[1])[0])
    };
    assert_eq!(pool(0, &x), (5.0, 1.1));
    assert_eq!(pool(3, &[9.0, 1.0, 1.0, 1.0]), (6.0, 0.1));
    assert_eq!(pool(2, &[-9.0, -8.0, -7.0, -9.0]), (-1.0, 2.1));
    // No activation still clamps to the finite floats; all NaN leaves f32::MIN at index 0.
    assert_eq!(pool(0, &[f32::INFINITY, 1.0, 1.0, 1.0]), (f32::MAX, 0.1));
    assert_eq!(pool(0, &[f32::NAN; 4]), (f32::MIN, 0.1));
}

#[test]
fn unpooling_refuses_an_index_outside_the_output() {
    let file = model(
        "MaxUnpooling2D",
        1,
        &i32_struct(&[2, 2, 2, 2, 2, 0]),
        &[var(F32, &[1, 1, 1, 1]), var(F32, &[1, 1, 1, 1]), var(F32, &[1, 2, 2, 1])],
        2,
    );
    let ok = |i: f32| run(&file, &[&f32_bytes(&[7.0]), &f32_bytes(&[i])]);
    assert_eq!(to_f32s(&ok(3.1).unwrap()[0]), [0.0, 0.0, 0.0, 7.0]);
    // Truncated toward zero: -0.9 is 0.
    assert_eq!(to_f32s(&ok(-0.9).unwrap()[0]), [7.0, 0.0, 0.0, 0.0]);
    for bad in [4.0, -1.0, f32::NAN, 1e20, -3e9] {
        let e = kernel_error(ok(bad).unwrap_err());
        assert!(matches!(e, KernelError::IndexOutOfRange { input: 1, .. }), "{bad}: {e}");
    }
}

#[test]
fn transform_landmarks_maps_x_and_y_and_keeps_z() {
    let m = [
        2.0, 0.0, 0.0, 1.0, //
        0.0, 3.0, 0.0, -1.0, //
        0.0, 0.0, 1.0, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ];
    let file = model(
        "TransformLandmarks",
        2,
        &[],
        &[var(F32, &[1, 2, 3]), const_f32(&[1, 4, 4], &m), var(F32, &[1, 2, 3])],
        2,
    );
    let out = run(&file, &[&f32_bytes(&[1.0, 2.0, 9.0, -1.0, 0.5, 8.0])]).unwrap();
    assert_eq!(to_f32s(&out[0]), [3.0, 5.0, 9.0, -1.0, 0.5, 8.0]);
}

#[test]
fn transform_tensor_samples_with_the_align_corners_correction() {
    // The identity gives m3' = -0.5 + 0.5 + 0 = 0: the output is the input's top-left.
    let m = [
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ];
    let x: Vec<f32> = (0..9).map(|v| v as f32).collect();
    let file = model(
        "TransformTensorBilinear",
        2,
        &flex_map(&[("output_height", Flex::Int(2)), ("output_width", Flex::Int(2))]),
        &[var(F32, &[1, 3, 3, 1]), const_f32(&[1, 4, 4], &m), var(F32, &[1, 2, 2, 1])],
        2,
    );
    let out = run(&file, &[&f32_bytes(&x)]).unwrap();
    assert_eq!(to_f32s(&out[0]), [0.0, 1.0, 3.0, 4.0]);
    // Half a pixel right and down (m3 = 0.5 + 0.5): the mean of four neighbours; past the
    // last row and column, 0.
    let mut m2 = m;
    m2[3] = 0.5;
    m2[7] = 0.5;
    let file = model(
        "TransformTensorBilinear",
        2,
        &[],
        &[var(F32, &[1, 3, 3, 1]), const_f32(&[1, 4, 4], &m2), var(F32, &[1, 3, 3, 1])],
        2,
    );
    let out = to_f32s(&run(&file, &[&f32_bytes(&x)]).unwrap()[0]);
    assert_eq!(&out[..2], &[2.0, 3.0]);
    assert_eq!(out[2], 0.0);
}

#[test]
fn landmarks_to_matrix_of_an_axis_aligned_box() {
    // Landmarks (0, 0), (4, 0), (4, 2), (0, 2); rotation from 0 to 1 (along x): none. The
    // box is 4 x 2 around (2, 1); scale 1 over an output of 4 x 2: the matrix maps the
    // output's centre (2, 1) to the box's centre, unit steps to unit steps.
    let lm = [0.0f32, 0.0, 0.0, 4.0, 0.0, 0.0, 4.0, 2.0, 0.0, 0.0, 2.0, 0.0];
    let options = flex_map(&[
        ("subset_idxs", Flex::Ints(vec![0, 1, 2, 3])),
        ("left_rotation_idx", Flex::Int(0)),
        ("right_rotation_idx", Flex::Int(1)),
        ("target_rotation_radians", Flex::Float(0.0)),
        ("output_height", Flex::Int(2)),
        ("output_width", Flex::Int(4)),
        ("scale_x", Flex::Float(1.0)),
        ("scale_y", Flex::Float(1.0)),
    ]);
    let file = model(
        "Landmarks2TransformMatrix",
        2,
        &options,
        &[var(F32, &[1, 4, 3]), var(F32, &[1, 4, 4])],
        1,
    );
    let m = to_f32s(&run(&file, &[&f32_bytes(&lm)]).unwrap()[0]);
    assert_eq!(
        m,
        [
            1.0, 0.0, 0.0, 0.0, //
            0.0, 1.0, 0.0, 0.0, //
            0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0
        ]
    );
}

fn matrix_options(changes: &[(&str, Option<Flex>)]) -> Vec<u8> {
    let mut o: Vec<(&str, Flex)> = vec![
        ("subset_idxs", Flex::Ints(vec![0, 1, 2])),
        ("left_rotation_idx", Flex::Int(0)),
        ("right_rotation_idx", Flex::Int(1)),
        ("target_rotation_radians", Flex::Float(0.0)),
        ("output_height", Flex::Int(8)),
        ("output_width", Flex::Int(8)),
        ("scale_x", Flex::Float(1.5)),
        ("scale_y", Flex::Float(1.5)),
    ];
    for (k, v) in changes {
        o.retain(|(key, _)| key != k);
        if let Some(v) = v {
            o.push((k, v.clone()));
        }
    }
    flex_map(&o)
}

#[test]
fn landmarks_to_matrix_refusals() {
    let with = |o: Vec<u8>, version: i32| {
        model(
            "Landmarks2TransformMatrix",
            version,
            &o,
            &[var(F32, &[1, 4, 3]), var(F32, &[1, 4, 4])],
            1,
        )
    };
    let bad = [
        (matrix_options(&[("subset_idxs", Some(Flex::Ints(vec![])))]), "empty subset"),
        (matrix_options(&[("subset_idxs", None)]), "without subset_idxs"),
        (matrix_options(&[("subset_idxs", Some(Flex::Ints(vec![0, 4])))]), "past the landmarks"),
        (matrix_options(&[("subset_idxs", Some(Flex::Ints(vec![-1, 0])))]), "negative"),
        (matrix_options(&[("left_rotation_idx", Some(Flex::Int(9)))]), "past the landmarks"),
        (matrix_options(&[("right_rotation_idx", Some(Flex::Int(-2)))]), "negative"),
        (matrix_options(&[("output_height", Some(Flex::Int(0)))]), "output size"),
        (matrix_options(&[("output_width", None)]), "output size"),
        (matrix_options(&[("scale_x", Some(Flex::Float(0.0)))]), "scale"),
        (matrix_options(&[("scale_y", Some(Flex::Float(-1.0)))]), "scale"),
        (matrix_options(&[("scale_y", Some(Flex::Str("big")))]), "FlexBuffer"),
        (b"junk".to_vec(), "FlexBuffer"),
    ];
    for (o, what) in bad {
        let e = refused(&with(o, 2));
        assert!(e.to_string().contains(what), "{e} (wanted {what})");
    }
    let e = refused(&with(matrix_options(&[]), 1));
    assert!(e.to_string().contains("version other than 2"), "{e}");
    // The output must be [1, 4, 4].
    let file = model(
        "Landmarks2TransformMatrix",
        2,
        &matrix_options(&[]),
        &[var(F32, &[1, 4, 3]), var(F32, &[4, 4])],
        1,
    );
    assert_eq!(refused(&file), check_output_shape());
}

fn check_output_shape() -> KernelError {
    super::super::base::check::OUTPUT_SHAPE
}

#[test]
fn raw_options_and_operands_are_checked() {
    let pool = |options: &[u8], input: Tensor| {
        model(
            "MaxPoolingWithArgmax2D",
            1,
            options,
            &[input, var(F32, &[1, 1, 1, 1]), var(F32, &[1, 1, 1, 1])],
            1,
        )
    };
    let x = || var(F32, &[1, 2, 2, 1]);
    // Shorter than the six fields read.
    let e = refused(&pool(&i32_struct(&[2, 2, 2, 2, 2]), x()));
    assert!(e.to_string().contains("shorter than the C struct"), "{e}");
    // A zero stride or filter.
    let e = refused(&pool(&i32_struct(&[2, 0, 2, 2, 2, 0]), x()));
    assert!(e.to_string().contains("below 1"), "{e}");
    let e = refused(&pool(&i32_struct(&[2, 2, 2, 2, -1, 0]), x()));
    assert!(e.to_string().contains("below 1"), "{e}");
    // Another type, another rank, another output shape.
    let e = refused(&pool(&i32_struct(&[2, 2, 2, 2, 2, 0]), var(I8, &[1, 2, 2, 1]).quantized(0.5, 0)));
    assert!(e.to_string().contains("FLOAT32"), "{e}");
    let e = refused(&pool(&i32_struct(&[2, 2, 2, 2, 2, 0]), var(F32, &[2, 2, 1])));
    assert!(e.to_string().contains("rank"), "{e}");
    let e = refused(&pool(&i32_struct(&[2, 1, 1, 1, 1, 0]), x()));
    assert_eq!(e, check_output_shape());
    // Unpooling: indices of another shape than the input.
    let file = model(
        "MaxUnpooling2D",
        1,
        &i32_struct(&[2, 2, 2, 2, 2, 0]),
        &[var(F32, &[1, 1, 2, 1]), var(F32, &[1, 2, 1, 1]), var(F32, &[1, 2, 4, 1])],
        2,
    );
    assert!(refused(&file).to_string().contains("indices of another shape"));
    // Transposed convolution: options too short, channels that do not match, empty image.
    let conv = |options: &[u8], weights: Tensor, input: Tensor, out: &[i32]| {
        model(
            "Convolution2DTransposeBias",
            1,
            options,
            &[input, weights, const_f32(&[2], &[0.0, 0.0]), var(F32, out)],
            3,
        )
    };
    let w = |c: i32| const_f32(&[2, 2, 2, c], &vec![0.5; 8 * c as usize]);
    let e = refused(&conv(&i32_struct(&[1, 2]), w(1), var(F32, &[1, 2, 2, 1]), &[1, 4, 4, 2]));
    assert!(e.to_string().contains("shorter"), "{e}");
    let e = refused(&conv(&i32_struct(&[1, 2, 2]), w(3), var(F32, &[1, 2, 2, 1]), &[1, 4, 4, 2]));
    assert!(e.to_string().contains("filter channels"), "{e}");
    let e = refused(&conv(&i32_struct(&[1, 2, 2]), w(1), var(F32, &[1, 0, 2, 1]), &[1, 0, 4, 2]));
    assert!(e.to_string().contains("empty image"), "{e}");
    assert_eq!(
        refused(&conv(&i32_struct(&[1, 2, 2]), w(1), var(F32, &[1, 2, 2, 1]), &[1, 4, 5, 2])),
        check_output_shape()
    );
    // Transforms: version 1, a short matrix, more output channels than input ones, a batch
    // of outputs, landmarks of 4 values.
    let tensor = |version: i32, matrix: Tensor, out: &[i32]| {
        model(
            "TransformTensorBilinear",
            version,
            &[],
            &[var(F32, &[1, 3, 3, 2]), matrix, var(F32, out)],
            2,
        )
    };
    let m = || const_f32(&[1, 4, 4], &[0.0; 16]);
    assert!(refused(&tensor(1, m(), &[1, 2, 2, 2])).to_string().contains("version"));
    let short = const_f32(&[7], &[0.0; 7]);
    assert!(refused(&tensor(2, short, &[1, 2, 2, 2])).to_string().contains("fewer than 8"));
    assert!(refused(&tensor(2, m(), &[1, 2, 2, 3])).to_string().contains("one image"));
    assert!(refused(&tensor(2, m(), &[2, 2, 2, 2])).to_string().contains("one image"));
    let landmarks = |shape: &[i32]| {
        model(
            "TransformLandmarks",
            2,
            &[],
            &[var(F32, shape), m(), var(F32, shape)],
            2,
        )
    };
    assert!(refused(&landmarks(&[1, 5, 4])).to_string().contains("2 or 3 values"));
    assert!(refused(&landmarks(&[2, 5, 2])).to_string().contains("more than one row"));
    assert!(refused(&landmarks(&[5, 2])).to_string().contains("rank"));
    // A custom op with the wrong number of operands.
    let file = model(
        "TransformLandmarks",
        2,
        &[],
        &[var(F32, &[1, 5, 2]), var(F32, &[1, 5, 2])],
        1,
    );
    assert!(matches!(refused(&file), KernelError::Arity { .. }));
}
