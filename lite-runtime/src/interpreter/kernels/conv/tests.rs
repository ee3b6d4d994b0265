//! The convolutions against naive loops written as TensorFlow Lite's reference kernels
//! (`reference_ops::Conv`, `DepthwiseConv`, `reference_integer_ops::ConvPerChannel`,
//! `DepthwiseConvPerChannel`): every output, every tap, skip the taps outside the image.

use super::*;
use super::super::base::quant::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64, quantize_multiplier,
};
use proptest::prelude::*;
use std::cell::Cell;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(384, 4)
}

/// A small deterministic generator for the tensors' contents.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn f32(&mut self) -> f32 {
        self.int(-1000, 1000) as f32 / 250.0
    }
}

use super::cases::{Case, Limits, geometry_of};

/// The convolution split into bands of output rows over three threads (`bands::in_bands`,
/// whatever its size), each band with `per` scratch bytes: `body` as `eval` calls it.
fn banded<X: Sync, Y: Send + Clone + Default>(
    g: &Geometry,
    x: &[X],
    n_out: usize,
    per: usize,
    body: &bands::Body<'_, X, Y, u8>,
) -> Vec<Y> {
    // A pool per call, stopped when dropped (Miri requires every thread joined).
    let pool = &crate::interpreter::workers::Pool::new(3);
    let per = bands::per_band(per, 3);
    let mut out = vec![Y::default(); n_out];
    // 16-byte aligned scratch, as the arena's.
    let mut scratch = vec![0u128; (3 * per).div_ceil(16)];
    let bytes = &mut scratch.as_mut_bytes()[..3 * per];
    bands::in_bands(pool, g, x, &mut out, bytes, per, usize::MAX, body).unwrap();
    out
}

fn case() -> impl Strategy<Value = Case> {
    super::cases::case(Limits {
        side: 9,
        in_c: 6,
        chan: 5,
        stride_dil: 3,
    })
}

/// The reference's loop nest: calls `tap(b, oy, ox, oc, iy, ix)` for every in-image tap in
/// the reference's order, then `done(index of the output)`.
fn naive_walk(
    g: &Geometry,
    mut tap: impl FnMut(usize, usize, usize, usize, usize, usize, usize, usize),
    mut done: impl FnMut(usize, usize),
) {
    let mut o = 0;
    for b in 0..g.batches as usize {
        for oy in 0..g.out_h as usize {
            for ox in 0..g.out_w as usize {
                for oc in 0..g.out_c as usize {
                    for fy in 0..g.f_h as usize {
                        let iy = (oy * g.stride_h as usize + fy * g.dil_h as usize) as i64
                            - i64::from(g.pad_h);
                        for fx in 0..g.f_w as usize {
                            let ix = (ox * g.stride_w as usize + fx * g.dil_w as usize) as i64
                                - i64::from(g.pad_w);
                            if iy < 0
                                || ix < 0
                                || iy >= i64::from(g.in_h)
                                || ix >= i64::from(g.in_w)
                            {
                                continue;
                            }
                            tap(b, oy, ox, oc, fy, fx, iy as usize, ix as usize);
                        }
                    }
                    done(o, oc);
                    o += 1;
                }
            }
        }
    }
}

fn in_at(g: &Geometry, b: usize, y: usize, x: usize, c: usize) -> usize {
    ((b * g.in_h as usize + y) * g.in_w as usize + x) * g.in_c as usize + c
}

fn lens(g: &Geometry) -> (usize, usize, usize) {
    let input = (g.batches * g.in_h * g.in_w * g.in_c) as usize;
    let filter = if g.depthwise != 0 {
        (g.f_h * g.f_w * g.out_c) as usize
    } else {
        g.out_c as usize * g.row()
    };
    let out = (g.batches * g.out_h * g.out_w * g.out_c) as usize;
    (input, filter, out)
}

/// A depthwise case's filter and multiplier, widened (or kept: `None`): filters up to 11x9
/// (micro_speech's is 10x8) and depth multipliers of 8 and more, whose blocks of eight
/// channels all read one input channel.
fn wide_depthwise() -> impl Strategy<Value = Option<(u32, u32, u32)>> {
    prop::option::of((
        1u32..=11,
        1u32..=9,
        prop::sample::select(vec![1u32, 3, 8, 9, 16, 24]),
    ))
}

fn widened(mut c: Case, wide: Option<(u32, u32, u32)>) -> Case {
    if let Some((f_h, f_w, dm)) = wide {
        (c.f_h, c.f_w, c.chan) = (f_h, f_w, dm);
        // Small inputs keep the cases quick; most windows then cross the edges.
        c.in_c = c.in_c.min(3);
    }
    c
}

/// Per-channel multipliers from random effective scales in `[1e-4, 2)`.
fn multipliers(r: &mut Rng, n: usize) -> (Vec<i32>, Vec<i32>) {
    (0..n)
        .map(|_| quantize_multiplier(r.int(1, 20_000) as f64 * 1e-4).unwrap())
        .unzip()
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn conv_f32_is_the_reference(c in case(), bias in any::<bool>(), act in 0u8..3) {
        let mut g = geometry_of(&c, false, kind::FLOAT);
        (g.lo, g.hi) = [(f32::NEG_INFINITY, f32::INFINITY), (0.0, 6.0), (-1.0, 1.0)][act as usize];
        let (ni, nf, no) = lens(&g);
        let mut r = Rng(c.seed);
        let x: Vec<f32> = (0..ni).map(|_| r.f32()).collect();
        let w: Vec<f32> = (0..nf).map(|_| r.f32()).collect();
        let bv: Vec<f32> = (0..g.out_c).map(|_| r.f32()).collect();
        let bias_opt = bias.then_some(&bv[..]);
        let mut got = vec![f32::NAN; no];
        let mut patch = vec![0.0; g.row()];
        conv_f32(&g, &x, &w, bias_opt, &mut got, &mut patch).unwrap();
        let mut portable = vec![f32::NAN; no];
        conv_f32_impl(&g, &x, &w, bias_opt, &mut portable, &mut patch).unwrap();
        prop_assert_eq!(&got, &portable);
        let row = g.row();
        let bands = banded(&g, &x, no, 4 * row, &|g, x, y, s| conv_f32(g, x, &w, bias_opt, y, scratch_of(s, row)?));
        prop_assert!(bands.iter().zip(&got).all(|(a, b)| a.to_bits() == b.to_bits()));
        let mut want = vec![0.0f32; no];
        let total = Cell::new(0.0f32);
        let row = g.row();
        naive_walk(&g, |b, _, _, oc, fy, fx, iy, ix| {
            for ic in 0..g.in_c as usize {
                total.set(total.get() + x[in_at(&g, b, iy, ix, ic)]
                    * w[oc * row + (fy * g.f_w as usize + fx) * g.in_c as usize + ic]);
            }
        }, |o, oc| {
            let v = total.get() + if bias { bv[oc] } else { 0.0 };
            want[o] = v.max(g.lo).min(g.hi);
            total.set(0.0);
        });
        // Summed in lanes: within float rounding of the reference's order.
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((g - w).abs() <= 1e-4 + 1e-5 * w.abs(), "{} vs {}", g, w);
        }
    }

    #[test]
    fn depthwise_f32_is_the_reference(c in case(), bias in any::<bool>()) {
        let g = geometry_of(&c, true, kind::FLOAT);
        let (ni, nf, no) = lens(&g);
        let mut r = Rng(c.seed);
        let x: Vec<f32> = (0..ni).map(|_| r.f32()).collect();
        let w: Vec<f32> = (0..nf).map(|_| r.f32()).collect();
        let bv: Vec<f32> = (0..g.out_c).map(|_| r.f32()).collect();
        let mut got = vec![f32::NAN; no];
        let mut acc = vec![0.0; g.out_c as usize];
        depthwise_f32(&g, &x, &w, bias.then_some(&bv[..]), &mut got, &mut acc).unwrap();
        let mut portable = vec![f32::NAN; no];
        depthwise_f32_impl(&g, &x, &w, bias.then_some(&bv[..]), &mut portable, &mut acc).unwrap();
        prop_assert_eq!(&got, &portable);
        let oc = g.out_c as usize;
        let bands = banded(&g, &x, no, 4 * oc, &|g, x, y, s| {
            depthwise_f32(g, x, &w, bias.then_some(&bv[..]), y, scratch_of(s, oc)?)
        });
        prop_assert!(bands.iter().zip(&got).all(|(a, b)| a.to_bits() == b.to_bits()));
        let mut want = vec![0.0f32; no];
        let total = Cell::new(0.0f32);
        let dm = g.depth_mult as usize;
        naive_walk(&g, |b, _, _, oc, fy, fx, iy, ix| {
            total.set(total.get() + x[in_at(&g, b, iy, ix, oc / dm)]
                * w[(fy * g.f_w as usize + fx) * g.out_c as usize + oc]);
        }, |o, oc| {
            want[o] = total.get() + if bias { bv[oc] } else { 0.0 };
            total.set(0.0);
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn conv_i8_is_the_reference(c in case(), zp_in in -128i32..=127, zp_out in -128i32..=127, act in (-128i32..=0, 0i32..=127)) {
        let mut g = geometry_of(&c, false, kind::INT8);
        g.input_offset = -zp_in;
        g.output_offset = zp_out;
        (g.act_min, g.act_max) = act;
        let (ni, nf, no) = lens(&g);
        let mut r = Rng(c.seed);
        let x: Vec<i8> = (0..ni).map(|_| r.int(-128, 127) as i8).collect();
        let w: Vec<i8> = (0..nf).map(|_| r.int(-127, 127) as i8).collect();
        let bias: Vec<i32> = (0..g.out_c).map(|_| r.int(-50_000, 50_000) as i32).collect();
        let (mult, shift) = multipliers(&mut r, g.out_c as usize);
        let row = g.row();
        let folded: Vec<i32> = (0..g.out_c as usize)
            .map(|oc| folded_bias(bias[oc], g.input_offset, &w[oc * row..(oc + 1) * row]))
            .collect();
        let q = Requant { mult: &mult, shift: &shift, bias: &folded };
        let mut got = vec![0i8; no];
        let mut patch = vec![0i8; row];
        let mut acc = vec![0i32; g.out_c as usize];
        conv_i8(&g, &x, &w, &q, &mut got, &mut patch, &mut acc).unwrap();
        let mut portable = vec![0i8; no];
        conv_i8_impl(&g, &x, &w, &q, &mut portable, &mut patch, &mut acc).unwrap();
        prop_assert_eq!(&got, &portable);
        let oc = g.out_c as usize;
        let bands = banded(&g, &x, no, 4 * oc + row, &|g, x, y, s| {
            let (acc, patch) = s.split_at_mut(4 * oc);
            conv_i8(g, x, &w, &q, y, scratch_of(patch, row)?, scratch_of(acc, oc)?)
        });
        prop_assert_eq!(&bands, &got);
        let mut want = vec![0i8; no];
        let acc = Cell::new(0i32);
        naive_walk(&g, |b, _, _, oc, fy, fx, iy, ix| {
            for ic in 0..g.in_c as usize {
                let xv = i32::from(x[in_at(&g, b, iy, ix, ic)]);
                let wv = i32::from(w[oc * row + (fy * g.f_w as usize + fx) * g.in_c as usize + ic]);
                acc.set(acc.get() + wv * (xv + g.input_offset));
            }
        }, |o, oc| {
            acc.set(acc.get() + bias[oc]);
            let mut v = multiply_by_quantized_multiplier(acc.get(), mult[oc], shift[oc]);
            v += g.output_offset;
            want[o] = v.max(g.act_min).min(g.act_max) as i8;
            acc.set(0);
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn depthwise_i8_is_the_reference(
        c in case(),
        wide in wide_depthwise(),
        zp_in in -128i32..=127,
        zp_out in -128i32..=127,
    ) {
        let c = widened(c, wide);
        let mut g = geometry_of(&c, true, kind::INT8);
        g.input_offset = -zp_in;
        g.output_offset = zp_out;
        (g.act_min, g.act_max) = (-128, 127);
        let (ni, nf, no) = lens(&g);
        let mut r = Rng(c.seed);
        let x: Vec<i8> = (0..ni).map(|_| r.int(-128, 127) as i8).collect();
        let w: Vec<i8> = (0..nf).map(|_| r.int(-127, 127) as i8).collect();
        let bias: Vec<i32> = (0..g.out_c).map(|_| r.int(-50_000, 50_000) as i32).collect();
        let (mult, shift) = multipliers(&mut r, g.out_c as usize);
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let mut got = vec![0i8; no];
        let mut scratch = vec![0i32; g.out_c as usize];
        depthwise_i8(&g, &x, &w, &q, &mut got, &mut scratch).unwrap();
        let mut portable = vec![0i8; no];
        depthwise_i8_impl(&g, &x, &w, &q, &mut portable, &mut scratch).unwrap();
        prop_assert_eq!(&got, &portable);
        let oc = g.out_c as usize;
        let bands = banded(&g, &x, no, 4 * oc, &|g, x, y, s| depthwise_i8(g, x, &w, &q, y, scratch_of(s, oc)?));
        prop_assert_eq!(&bands, &got);
        let mut want = vec![0i8; no];
        let acc = Cell::new(0i32);
        let dm = g.depth_mult as usize;
        naive_walk(&g, |b, _, _, oc, fy, fx, iy, ix| {
            let xv = i32::from(x[in_at(&g, b, iy, ix, oc / dm)]);
            let wv = i32::from(w[(fy * g.f_w as usize + fx) * g.out_c as usize + oc]);
            acc.set(acc.get() + wv * (xv + g.input_offset));
        }, |o, oc| {
            acc.set(acc.get() + bias[oc]);
            let v = multiply_by_quantized_multiplier(acc.get(), mult[oc], shift[oc]) + g.output_offset;
            want[o] = v.max(g.act_min).min(g.act_max) as i8;
            acc.set(0);
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn conv_and_depthwise_i16_are_the_reference(c in case(), depthwise in any::<bool>(), bias_kind in 0u8..3) {
        let bias_kind = if depthwise { bias_kind.min(1) } else { bias_kind };
        let mut g = geometry_of(&c, depthwise, if bias_kind == 2 { kind::INT16_BIAS32 } else { kind::INT16 });
        (g.act_min, g.act_max) = (-32768, 32767);
        let (ni, nf, no) = lens(&g);
        let mut r = Rng(c.seed);
        let x: Vec<i16> = (0..ni).map(|_| r.int(-32768, 32767) as i16).collect();
        let w: Vec<i8> = (0..nf).map(|_| r.int(-127, 127) as i8).collect();
        let b64: Vec<i64> = (0..g.out_c).map(|_| r.int(-5_000_000, 5_000_000)).collect();
        let b32: Vec<i32> = b64.iter().map(|&b| b as i32).collect();
        let oc_n = g.out_c as usize;
        let (mult, shift): (Vec<i32>, Vec<i32>) = (0..oc_n)
            .map(|_| quantize_multiplier(r.int(1, 2000) as f64 * 1e-5).unwrap())
            .unzip();
        let zeros = vec![0; oc_n];
        let q = Requant { mult: &mult, shift: &shift, bias: &zeros };
        let bias = match bias_kind { 0 => Bias::None, 1 => Bias::Wide(&b64), _ => Bias::Narrow(&b32) };
        let mut got = vec![0i16; no];
        if depthwise {
            let mut acc = vec![0i64; oc_n];
            depthwise_i16(&g, &x, &w, &q, bias, &mut got, &mut acc).unwrap();
            let mut portable = vec![0i16; no];
            depthwise_i16_impl(&g, &x, &w, &q, bias, &mut portable, &mut acc).unwrap();
            prop_assert_eq!(&got, &portable);
            let bands = banded(&g, &x, no, 8 * oc_n, &|g, x, y, s| {
                depthwise_i16(g, x, &w, &q, bias, y, scratch_of(s, oc_n)?)
            });
            prop_assert_eq!(&bands, &got);
        } else {
            // As eval: no patch where every window is inside the image.
            let mut patch = vec![0i16; if g.windows_inside() { 0 } else { g.row() }];
            conv_i16(&g, &x, &w, &q, bias, &mut got, &mut patch).unwrap();
            let mut portable = vec![0i16; no];
            conv_i16_impl(&g, &x, &w, &q, bias, &mut portable, &mut patch).unwrap();
            prop_assert_eq!(&got, &portable);
            let per = if g.windows_inside() { 0 } else { 2 * g.row() };
            let bands = banded(&g, &x, no, per, &|g, x, y, s| {
                let n = if g.windows_inside() { 0 } else { g.row() };
                conv_i16(g, x, &w, &q, bias, y, scratch_of(s, n)?)
            });
            prop_assert_eq!(&bands, &got);
        }
        let mut want = vec![0i16; no];
        let acc = Cell::new(0i64);
        let row = g.row();
        let dm = g.depth_mult as usize;
        naive_walk(&g, |b, _, _, oc, fy, fx, iy, ix| {
            if depthwise {
                let xv = i64::from(x[in_at(&g, b, iy, ix, oc / dm)]);
                acc.set(acc.get() + i64::from(w[(fy * g.f_w as usize + fx) * g.out_c as usize + oc]) * xv);
            } else {
                for ic in 0..g.in_c as usize {
                    let xv = i64::from(x[in_at(&g, b, iy, ix, ic)]);
                    acc.set(acc.get() + i64::from(w[oc * row + (fy * g.f_w as usize + fx) * g.in_c as usize + ic]) * xv);
                }
            }
        }, |o, oc| {
            let v = match bias_kind {
                0 => multiply_by_quantized_multiplier_i64(acc.get(), mult[oc], shift[oc]),
                1 => multiply_by_quantized_multiplier_i64(acc.get() + b64[oc], mult[oc], shift[oc]),
                _ => multiply_by_quantized_multiplier((acc.get() as i32).wrapping_add(b32[oc]), mult[oc], shift[oc]),
            };
            want[o] = v.max(g.act_min).min(g.act_max) as i16;
            acc.set(0);
        });
        prop_assert_eq!(got, want);
    }
}

proptest! {
    #![proptest_config(cases())]

    /// uint8 (`reference_ops::Conv` / `DepthwiseConv` with both offsets): the folded CONV_2D
    /// and the tap-by-tap DEPTHWISE_CONV_2D against the reference's loop.
    #[test]
    fn uint8_convolutions_are_the_reference(
        c in case(),
        wide in wide_depthwise(),
        depthwise in any::<bool>(),
        zp_in in 0i32..=255,
        zp_w in 0i32..=255,
        zp_out in 0i32..=255,
        act in (0i32..=128, 128i32..=255),
    ) {
        let c = if depthwise { widened(c, wide) } else { c };
        let mut g = geometry_of(&c, depthwise, kind::UINT8);
        g.input_offset = -zp_in;
        g.weights_offset = -zp_w;
        g.output_offset = zp_out;
        (g.act_min, g.act_max) = act;
        let (ni, nf, no) = lens(&g);
        let mut r = Rng(c.seed);
        let x: Vec<u8> = (0..ni).map(|_| r.int(0, 255) as u8).collect();
        let w: Vec<u8> = (0..nf).map(|_| r.int(0, 255) as u8).collect();
        let bias: Vec<i32> = (0..g.out_c).map(|_| r.int(-50_000, 50_000) as i32).collect();
        // One per-tensor multiplier, kept per channel as init writes it.
        let (m, s) = quantize_multiplier(r.int(1, 20_000) as f64 * 1e-5).unwrap();
        let oc_n = g.out_c as usize;
        let (mult, shift) = (vec![m; oc_n], vec![s; oc_n]);
        let row = g.row();
        let kept: Vec<i32> = if depthwise {
            bias.clone()
        } else {
            (0..oc_n)
                .map(|oc| folded_bias_u8(bias[oc], g.input_offset, g.weights_offset, &w[oc * row..(oc + 1) * row]))
                .collect()
        };
        let q = Requant { mult: &mult, shift: &shift, bias: &kept };
        let mut got = vec![0u8; no];
        let mut portable = vec![0u8; no];
        if depthwise {
            let mut acc = vec![0i32; oc_n];
            depthwise_u8(&g, &x, &w, &q, &mut got, &mut acc).unwrap();
            depthwise_u8_impl(&g, &x, &w, &q, &mut portable, &mut acc).unwrap();
        } else {
            let mut patch = vec![0u8; row];
            conv_u8(&g, &x, &w, &q, &mut got, &mut patch).unwrap();
            conv_u8_impl(&g, &x, &w, &q, &mut portable, &mut patch).unwrap();
        }
        prop_assert_eq!(&got, &portable);
        let mut want = vec![0u8; no];
        let acc = Cell::new(0i32);
        let dm = g.depth_mult as usize;
        naive_walk(&g, |b, _, _, oc, fy, fx, iy, ix| {
            let add = |xv: u8, wv: u8| {
                let t = (i32::from(wv) + g.weights_offset) * (i32::from(xv) + g.input_offset);
                acc.set(acc.get().wrapping_add(t));
            };
            if depthwise {
                add(x[in_at(&g, b, iy, ix, oc / dm)], w[(fy * g.f_w as usize + fx) * oc_n + oc]);
            } else {
                for ic in 0..g.in_c as usize {
                    add(x[in_at(&g, b, iy, ix, ic)], w[oc * row + (fy * g.f_w as usize + fx) * g.in_c as usize + ic]);
                }
            }
        }, |o, oc| {
            let a = acc.get().wrapping_add(bias[oc]);
            let v = multiply_by_quantized_multiplier(a, m, s) + g.output_offset;
            want[o] = v.max(g.act_min).min(g.act_max) as u8;
            acc.set(0);
        });
        prop_assert_eq!(got, want);
    }
}

#[test]
fn uint8_multiplier_is_the_float_product() {
    // GetQuantizedConvolutionMultipler: input x filter in float, then / output in double.
    let (i, f, o) = (0.007_843_138_f32, 0.003_921_569_f32, 0.023_529_412_f32);
    let want = quantize_multiplier(f64::from(i * f) / f64::from(o)).unwrap();
    assert_eq!(quant::legacy_conv_multiplier(i, f, None, o).unwrap(), want);
    // A bias scale off the product by more than 2% of the output scale is refused.
    assert!(quant::legacy_conv_multiplier(i, f, Some(i * f), o).is_ok());
    assert!(quant::legacy_conv_multiplier(i, f, Some(0.0), 1e-6).is_err());
}

#[test]
fn padding_and_output_sizes_follow_tflite() {
    // SAME: ceil(in / stride); the odd pixel of padding goes after.
    assert_eq!(out_size(Padding::Same, 10, 3, 2, 1), 5);
    assert_eq!(pad_before(2, 1, 10, 3, 5), 0);
    assert_eq!(out_size(Padding::Same, 49, 10, 2, 1), 25);
    assert_eq!(pad_before(2, 1, 49, 10, 25), 4);
    // VALID with dilation: effective filter (f - 1) d + 1.
    assert_eq!(out_size(Padding::Valid, 12, 3, 1, 2), 8);
    assert_eq!(out_size(Padding::Valid, 2, 3, 1, 1), 0);
    assert_eq!(pad_before(1, 2, 12, 3, 12), 2);
}
