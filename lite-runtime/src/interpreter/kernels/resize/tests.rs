//! The resizes against TensorFlow Lite's reference loops written literally (each output
//! element computed on its own, positions recomputed per channel), end-to-end one-operator
//! models, and the refusals.

use super::*;
use super::super::one_op::{
    F32, I8, I32, U8, const_i32, f32s, i32s, kernel_error, model, run, setup_error, to_f32s, var,
};
use crate::model::tests::builder::F;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(512, 4)
}

const RESIZE_BILINEAR_CODE: i32 = 23;
const RESIZE_NEAREST_CODE: i32 = 97;

fn geometry(
    (b, ih, iw, c): (u32, u32, u32, u32),
    (oh, ow): (u32, u32),
    align: bool,
    half: bool,
) -> Geometry {
    Geometry {
        kind: 0,
        align_corners: u32::from(align),
        half_pixel_centers: u32::from(half),
        dynamic: 0,
        batches: b,
        in_h: ih,
        in_w: iw,
        depth: c,
        out_h: oh,
        out_w: ow,
    }
}

/// `reference_ops::ResizeBilinear`, element by element.
fn naive_bilinear<T: Copy>(g: &Geometry, x: &[T], f: impl Fn(T) -> f32, round: f32) -> Vec<f32> {
    let (ih, iw, c) = (g.in_h as i32, g.in_w as i32, g.depth as usize);
    let mut hs = ih as f32 / g.out_h as f32;
    let mut ws = iw as f32 / g.out_w as f32;
    let align = g.align_corners != 0;
    let half = g.half_pixel_centers != 0;
    if align && g.out_h > 1 {
        hs = (ih - 1) as f32 / (g.out_h - 1) as f32;
    }
    if align && g.out_w > 1 {
        ws = (iw - 1) as f32 / (g.out_w - 1) as f32;
    }
    let interp = |v: u32, s: f32, size: i32| {
        let v = v as f32;
        let at = if half { (v + 0.5) * s - 0.5 } else { v * s };
        let lo = (at.floor() as i32).max(0);
        let hi = (at.ceil() as i32).min(size - 1);
        (at, lo, hi)
    };
    let at = |b: u32, y: i32, xx: i32, ch: usize| {
        f(x[((b as usize * ih as usize + y as usize) * iw as usize + xx as usize) * c + ch])
    };
    let mut out = Vec::new();
    for b in 0..g.batches {
        for y in 0..g.out_h {
            for xx in 0..g.out_w {
                for ch in 0..c {
                    let (iy, y0, y1) = interp(y, hs, ih);
                    let (ix, x0, x1) = interp(xx, ws, iw);
                    out.push(
                        at(b, y0, x0, ch) * (1.0 - (iy - y0 as f32)) * (1.0 - (ix - x0 as f32))
                            + at(b, y1, x0, ch) * (iy - y0 as f32) * (1.0 - (ix - x0 as f32))
                            + at(b, y0, x1, ch) * (1.0 - (iy - y0 as f32)) * (ix - x0 as f32)
                            + at(b, y1, x1, ch) * (iy - y0 as f32) * (ix - x0 as f32)
                            + round,
                    );
                }
            }
        }
    }
    out
}

/// `reference_ops::ResizeBilinearInteger`, element by element.
fn naive_bilinear_integer<T: Copy + Into<i64>>(g: &Geometry, x: &[T]) -> Vec<i64> {
    let (ih, iw, c) = (i64::from(g.in_h), i64::from(g.in_w), g.depth as usize);
    let (oh, ow) = (i64::from(g.out_h), i64::from(g.out_w));
    let align = g.align_corners != 0;
    let half = g.half_pixel_centers != 0;
    let mut hs = (1024 * ih + oh / 2) / oh;
    let mut ws = (1024 * iw + ow / 2) / ow;
    if align && oh > 1 {
        hs = (1024 * (ih - 1) + (oh - 1) / 2) / (oh - 1);
    }
    if align && ow > 1 {
        ws = (1024 * (iw - 1) + (ow - 1) / 2) / (ow - 1);
    }
    let interp = |v: i64, s: i64, size: i64| {
        let at = if half { v * s + s / 2 - 512 } else { v * s };
        (at, (at / 1024).max(0), ((at + 1023) / 1024).min(size - 1))
    };
    let px = |b: i64, y: i64, xx: i64, ch: usize| -> i64 {
        x[((b * ih + y) * iw + xx) as usize * c + ch].into()
    };
    let mut out = Vec::new();
    for b in 0..i64::from(g.batches) {
        for y in 0..oh {
            for xx in 0..ow {
                for ch in 0..c {
                    let (iy, y0, y1) = interp(y, hs, ih);
                    let (ix, x0, x1) = interp(xx, ws, iw);
                    let s = px(b, y0, x0, ch) * (1024 - (iy - 1024 * y0)) * (1024 - (ix - 1024 * x0))
                        + px(b, y1, x0, ch) * (iy - 1024 * y0) * (1024 - (ix - 1024 * x0))
                        + px(b, y0, x1, ch) * (1024 - (iy - 1024 * y0)) * (ix - 1024 * x0)
                        + px(b, y1, x1, ch) * (iy - 1024 * y0) * (ix - 1024 * x0);
                    let round = if s > 0 { 1 << 19 } else { -(1 << 19) };
                    out.push((s + round) / (1 << 20));
                }
            }
        }
    }
    out
}

/// `reference_ops::ResizeNearestNeighbor`: the source index of each output element.
fn naive_nearest(g: &Geometry) -> Vec<usize> {
    let near = |v: u32, input: u32, output: u32| -> usize {
        let (align, half) = (g.align_corners != 0, g.half_pixel_centers != 0);
        let scale = if align && output > 1 {
            (input - 1) as f32 / (output - 1) as f32
        } else {
            input as f32 / output as f32
        };
        let offset = if half { 0.5 } else { 0.0 };
        let at = (v as f32 + offset) * scale;
        let mut r = if align { at.round() as i32 } else { at.floor() as i32 };
        r = r.min(input as i32 - 1);
        if half {
            r = r.max(0);
        }
        r as usize
    };
    let (ih, iw, c) = (g.in_h as usize, g.in_w as usize, g.depth as usize);
    let mut out = Vec::new();
    for b in 0..g.batches as usize {
        for y in 0..g.out_h {
            for xx in 0..g.out_w {
                for ch in 0..c {
                    let (sy, sx) = (near(y, g.in_h, g.out_h), near(xx, g.in_w, g.out_w));
                    out.push(((b * ih + sy) * iw + sx) * c + ch);
                }
            }
        }
    }
    out
}

#[allow(clippy::type_complexity)]
fn shapes() -> impl Strategy<Value = ((u32, u32, u32, u32), (u32, u32), (bool, bool), u64)> {
    (
        (1u32..=2, 1u32..=9, 1u32..=9, 1u32..=4),
        (1u32..=17, 1u32..=17),
        prop_oneof![Just((false, false)), Just((true, false)), Just((false, true))],
        any::<u64>(),
    )
}

fn data(seed: u64, n: usize) -> Vec<i64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 3) as i64
        })
        .collect()
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn bilinear_float_and_uint8_are_the_reference((i, o, (align, half), seed) in shapes()) {
        let g = geometry(i, o, align, half);
        let (n_in, n_out) = lengths(&g);
        let raw = data(seed, n_in);
        let xf: Vec<f32> = raw.iter().map(|&v| (v % 20_000) as f32 / 997.0).collect();
        let mut got = vec![f32::NAN; n_out];
        bilinear_float(&g, &xf, &mut got).unwrap();
        let want = naive_bilinear(&g, &xf, |v| v, 0.0);
        prop_assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        let xu: Vec<u8> = raw.iter().map(|&v| v as u8).collect();
        let mut got = vec![0u8; n_out];
        bilinear_float(&g, &xu, &mut got).unwrap();
        let want: Vec<u8> = naive_bilinear(&g, &xu, f32::from, 0.5).iter().map(|&v| v as u8).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn bilinear_int8_and_int16_are_the_reference((i, o, (align, half), seed) in shapes()) {
        let g = geometry(i, o, align, half);
        let (n_in, n_out) = lengths(&g);
        let raw = data(seed, n_in);
        let x8: Vec<i8> = raw.iter().map(|&v| v as i8).collect();
        let mut got = vec![0i8; n_out];
        bilinear_integer(&g, &x8, &mut got).unwrap();
        let want: Vec<i8> = naive_bilinear_integer(&g, &x8).iter().map(|&v| v as i8).collect();
        prop_assert_eq!(got, want);
        let x16: Vec<i16> = raw.iter().map(|&v| v as i16).collect();
        let mut got = vec![0i16; n_out];
        bilinear_integer(&g, &x16, &mut got).unwrap();
        let want: Vec<i16> = naive_bilinear_integer(&g, &x16).iter().map(|&v| v as i16).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn nearest_copies_the_reference_source((i, o, _, seed) in shapes(), align in any::<bool>(), half in any::<bool>(), width in prop_oneof![Just(1u32), Just(2), Just(4)]) {
        let mut g = geometry(i, o, align, half);
        g.kind = width;
        let (n_in, n_out) = lengths(&g);
        let w = width as usize;
        let x: Vec<u8> = data(seed, n_in * w).iter().map(|&v| v as u8).collect();
        let mut got = vec![0u8; n_out * w];
        nearest(&g, &x, &mut got).unwrap();
        let want: Vec<u8> = naive_nearest(&g).iter().flat_map(|&k| x[k * w..k * w + w].to_vec()).collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn the_integer_interpolation_rounds_half_away_from_zero() {
    // One input row [-3, 3] to two outputs through half-pixel centres: weights 1024 and 0,
    // exact; then [-1, 0] to three: positions 1/3 and 2/3 of a step.
    let g = geometry((1, 1, 2, 1), (1, 3), false, false);
    let mut y = [0i8; 3];
    bilinear_integer(&g, &[-3i8, 3], &mut y).unwrap();
    assert_eq!(y, [-3, 1, 3]);
    let mut y = [0i16; 3];
    bilinear_integer(&g, &[-1i16, 0], &mut y).unwrap();
    // -1 * 1024 * 341 / 2^20 rounds to 0 (the value is -0.33).
    assert_eq!(y, [-1, 0, 0]);
}

fn bilinear_options(align: bool, half: bool) -> super::super::one_op::Opts {
    Some((
        15,
        vec![(2, F::U8(u8::from(align))), (3, F::U8(u8::from(half)))],
    ))
}

fn nearest_options(align: bool, half: bool) -> super::super::one_op::Opts {
    Some((
        74,
        vec![(0, F::U8(u8::from(align))), (1, F::U8(u8::from(half)))],
    ))
}

#[test]
fn one_operator_models_run_end_to_end() {
    let x: Vec<f32> = (0..2 * 3 * 4).map(|v| v as f32 * 0.25 - 2.0).collect();
    for (align, half) in [(false, false), (true, false), (false, true)] {
        let file = model(
            RESIZE_BILINEAR_CODE,
            bilinear_options(align, half),
            &[
                var(F32, &[1, 3, 4, 2]),
                const_i32(&[2], &[5, 7]),
                var(F32, &[1, 5, 7, 2]),
            ],
            2,
        );
        let got = to_f32s(&run(&file, &[&f32s(&x)]).unwrap()[0]);
        let g = geometry((1, 3, 4, 2), (5, 7), align, half);
        assert_eq!(got, naive_bilinear(&g, &x, |v| v, 0.0));
    }
    // Nearest neighbour with the size computed by the graph (here a graph input).
    let file = model(
        RESIZE_NEAREST_CODE,
        nearest_options(true, true),
        &[var(I32, &[1, 3, 4, 2]), var(I32, &[2]), var(I32, &[1, 6, 5, 2])],
        2,
    );
    let xi: Vec<i32> = (0..24).collect();
    let out = run(&file, &[&i32s(&xi), &i32s(&[6, 5])]).unwrap();
    let g = geometry((1, 3, 4, 2), (6, 5), true, true);
    let want: Vec<i32> = naive_nearest(&g).iter().map(|&k| xi[k]).collect();
    assert_eq!(out[0], i32s(&want));
    // A size at invoke that is not the planned output's is an error, not a read past it.
    let e = run(&file, &[&i32s(&xi), &i32s(&[7, 5])]).unwrap_err();
    assert_eq!(kernel_error(e), SIZE_AT_INVOKE);
}

#[test]
fn malformed_operators_are_refused_at_set_up() {
    let b = |opts, tensors: &[super::super::one_op::Tensor]| {
        setup_error(&model(RESIZE_BILINEAR_CODE, opts, tensors, 2))
    };
    // align_corners with half-pixel centres.
    let e = b(
        bilinear_options(true, true),
        &[var(F32, &[1, 2, 2, 1]), const_i32(&[2], &[4, 4]), var(F32, &[1, 4, 4, 1])],
    );
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
    // An output shape other than the size's.
    let e = b(
        bilinear_options(false, false),
        &[var(F32, &[1, 2, 2, 1]), const_i32(&[2], &[4, 4]), var(F32, &[1, 4, 5, 1])],
    );
    assert_eq!(e, check::OUTPUT_SHAPE);
    // A size of three values, an INT32 image, a 3-D image, a zero size.
    let e = b(
        bilinear_options(false, false),
        &[var(F32, &[1, 2, 2, 1]), const_i32(&[3], &[1, 4, 4]), var(F32, &[1, 4, 4, 1])],
    );
    assert_eq!(e, SIZE_OPERAND);
    let e = b(
        bilinear_options(false, false),
        &[var(I32, &[1, 2, 2, 1]), const_i32(&[2], &[4, 4]), var(I32, &[1, 4, 4, 1])],
    );
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e:?}");
    let e = b(
        bilinear_options(false, false),
        &[var(F32, &[2, 2, 1]), const_i32(&[2], &[4, 4]), var(F32, &[4, 4, 1])],
    );
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
    let e = b(
        bilinear_options(false, false),
        &[var(F32, &[1, 2, 2, 1]), const_i32(&[2], &[0, 4]), var(F32, &[1, 0, 4, 1])],
    );
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
    // Output type differs; nearest neighbour of 64-bit elements.
    let e = b(
        bilinear_options(false, false),
        &[var(U8, &[1, 2, 2, 1]), const_i32(&[2], &[4, 4]), var(I8, &[1, 4, 4, 1])],
    );
    assert_eq!(e, check::OUTPUT_TYPE);
    let e = setup_error(&model(
        RESIZE_NEAREST_CODE,
        nearest_options(false, false),
        &[
            var(super::super::one_op::I64, &[1, 2, 2, 1]),
            const_i32(&[2], &[4, 4]),
            var(super::super::one_op::I64, &[1, 4, 4, 1]),
        ],
        2,
    ));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e:?}");
}
