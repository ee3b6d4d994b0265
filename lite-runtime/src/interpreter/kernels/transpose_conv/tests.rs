//! The transposed convolutions against TensorFlow Lite's reference loop written literally:
//! the scatter of every input pixel into the outputs it reaches (float sums in the
//! reference's order, so equal to the bit), then the bias and the requantization; one-operator
//! models end to end, and the refusals.

use super::*;
use super::super::base::quant::quantize_multiplier;
use super::super::one_op::{
    F32, I32, I8, Tensor, const_i32, f32s, i32s, kernel_error, model, run, setup_error, to_f32s,
    var,
};
use crate::model::Padding;
use crate::model::tests::builder::F;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(256, 4)
}

const TRANSPOSE_CONV_CODE: i32 = 67;

/// A geometry: input `[b, h, w, ic]`, `oc` outputs, filter `fh x fw`, strides, padding.
#[allow(clippy::type_complexity)]
fn case() -> impl Strategy<Value = (Geometry, u64)> {
    (
        (1usize..=2, 1usize..=5, 1usize..=5, 1usize..=4, 1usize..=4),
        (1usize..=4, 1usize..=4, 1u32..=3, 1u32..=3, any::<bool>()),
        any::<u64>(),
    )
        .prop_map(|((b, h, w, ic, oc), (fh, fw, sh, sw, same), seed)| {
            // The output sizes whose convolution gives back the input sizes.
            let size = |i: usize, f: usize, s: u32| {
                if same {
                    i * s as usize
                } else {
                    (i - 1) * s as usize + f
                }
            };
            let (oh, ow) = (size(h, fh, sh), size(w, fw, sw));
            let padding = if same { Padding::Same } else { Padding::Valid };
            let p = Params {
                stride_h: sh,
                stride_w: sw,
                pad_h: pad_before(sh.into(), 1, oh as u64, fh as u64, h as u64) as u32,
                pad_w: pad_before(sw.into(), 1, ow as u64, fw as u64, w as u64) as u32,
                lo: f32::NEG_INFINITY,
                hi: f32::INFINITY,
                ..Params::default()
            };
            assert_eq!(out_size(padding, oh as u64, fh as u64, sh.into(), 1), h as u64);
            let g = Geometry {
                p,
                batches: b,
                in_h: h,
                in_w: w,
                in_c: ic,
                out_h: oh,
                out_w: ow,
                out_c: oc,
                f_h: fh,
                f_w: fw,
            };
            (g, seed)
        })
}

/// The reference's scatter: `add(output index, input index, weight index)` in its order.
fn scatter(g: &Geometry, mut add: impl FnMut(usize, usize, usize)) {
    for b in 0..g.batches {
        for iy in 0..g.in_h {
            for ix in 0..g.in_w {
                for ic in 0..g.in_c {
                    let oy0 = (iy * g.p.stride_h as usize) as i64 - i64::from(g.p.pad_h);
                    let ox0 = (ix * g.p.stride_w as usize) as i64 - i64::from(g.p.pad_w);
                    for fy in 0..g.f_h {
                        for fx in 0..g.f_w {
                            for oc in 0..g.out_c {
                                let (oy, ox) = (oy0 + fy as i64, ox0 + fx as i64);
                                if oy < 0 || ox < 0 || oy >= g.out_h as i64 || ox >= g.out_w as i64
                                {
                                    continue;
                                }
                                let o = ((b * g.out_h + oy as usize) * g.out_w + ox as usize)
                                    * g.out_c
                                    + oc;
                                let i = ((b * g.in_h + iy) * g.in_w + ix) * g.in_c + ic;
                                let k = ((oc * g.f_h + fy) * g.f_w + fx) * g.in_c + ic;
                                add(o, i, k);
                            }
                        }
                    }
                }
            }
        }
    }
}

fn sizes(g: &Geometry) -> (usize, usize, usize) {
    (
        g.batches * g.in_h * g.in_w * g.in_c,
        g.out_c * g.f_h * g.f_w * g.in_c,
        g.batches * g.out_h * g.out_w * g.out_c,
    )
}

fn data(seed: u64, n: usize) -> Vec<i64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 5) as i64
        })
        .collect()
}

fn multipliers(seed: u64, n: usize, wide: bool) -> (Vec<i32>, Vec<i32>) {
    data(seed ^ 0x5555, n)
        .iter()
        .map(|&v| {
            let m = (v.rem_euclid(20_000) + 1) as f64 * if wide { 1e-6 } else { 1e-5 };
            quantize_multiplier(m).unwrap()
        })
        .unzip()
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_is_the_reference_bit_for_bit((mut g, seed) in case(), bias in any::<bool>(), relu in any::<bool>()) {
        if relu {
            (g.p.lo, g.p.hi) = (0.0, 6.0);
        }
        let (ni, nk, no) = sizes(&g);
        let r = data(seed, ni + nk + g.out_c);
        let f = |v: i64| (v % 4000) as f32 / 997.0;
        let x: Vec<f32> = r[..ni].iter().map(|&v| f(v)).collect();
        let k: Vec<f32> = r[ni..ni + nk].iter().map(|&v| f(v)).collect();
        let bv: Vec<f32> = r[ni + nk..].iter().map(|&v| f(v)).collect();
        let mut got = vec![f32::NAN; no];
        transpose_conv_f32(&g, &x, &k, bias.then_some(&bv[..]), &mut got).unwrap();
        let mut want = vec![0.0f32; no];
        scatter(&g, |o, i, w| want[o] += x[i] * k[w]);
        for (o, v) in want.iter_mut().enumerate() {
            if bias {
                *v += bv[o % g.out_c];
            }
            *v = v.max(g.p.lo).min(g.p.hi);
        }
        prop_assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn uint8_and_int8_are_the_reference((mut g, seed) in case(), bias in any::<bool>(), zps in (0i32..=255, 0i32..=255, 0i32..=255)) {
        let (ni, nk, no) = sizes(&g);
        let r = data(seed, ni + nk + g.out_c);
        let (mult, shift) = multipliers(seed, g.out_c, false);
        let q = Requant { mult: &mult, shift: &shift };
        let bv: Vec<i32> = r[ni + nk..].iter().map(|&v| (v % 100_000) as i32).collect();
        let b = bias.then_some(&bv[..]);
        // uint8: both offsets.
        (g.p.input_offset, g.p.weights_offset, g.p.output_offset) = (-zps.0, -zps.1, zps.2);
        (g.p.act_min, g.p.act_max) = (0, 255);
        let x: Vec<u8> = r[..ni].iter().map(|&v| v as u8).collect();
        let k: Vec<u8> = r[ni..ni + nk].iter().map(|&v| v as u8).collect();
        let mut got = vec![0u8; no];
        transpose_conv_u8(&g, &x, &k, b, &q, &mut got).unwrap();
        let mut acc = vec![0i32; no];
        scatter(&g, |o, i, w| {
            acc[o] = acc[o].wrapping_add((i32::from(x[i]) + g.p.input_offset) * (i32::from(k[w]) + g.p.weights_offset));
        });
        let want: Vec<u8> = acc.iter().enumerate().map(|(o, &a)| {
            let c = o % g.out_c;
            let a = a.wrapping_add(b.map_or(0, |b| b[c]));
            (multiply_by_quantized_multiplier(a, mult[c], shift[c]) + g.p.output_offset).clamp(0, 255) as u8
        }).collect();
        prop_assert_eq!(got, want);
        // int8: the input offset only (symmetric weights).
        (g.p.input_offset, g.p.weights_offset, g.p.output_offset) = (-(zps.0 - 128), 0, zps.2 - 128);
        (g.p.act_min, g.p.act_max) = (-128, 127);
        let x: Vec<i8> = r[..ni].iter().map(|&v| v as i8).collect();
        let k: Vec<i8> = r[ni..ni + nk].iter().map(|&v| (v as i8).max(-127)).collect();
        let mut got = vec![0i8; no];
        transpose_conv_i8(&g, &x, &k, b, &q, &mut got).unwrap();
        let mut acc = vec![0i32; no];
        scatter(&g, |o, i, w| acc[o] += (i32::from(x[i]) + g.p.input_offset) * i32::from(k[w]));
        let want: Vec<i8> = acc.iter().enumerate().map(|(o, &a)| {
            let c = o % g.out_c;
            let a = a + b.map_or(0, |b| b[c]);
            (multiply_by_quantized_multiplier(a, mult[c], shift[c]) + g.p.output_offset).clamp(-128, 127) as i8
        }).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn int16_is_the_reference_with_either_accumulator((mut g, seed) in case(), bias in any::<bool>()) {
        (g.p.act_min, g.p.act_max) = (-32768, 32767);
        let (ni, nk, no) = sizes(&g);
        let r = data(seed, ni + nk + g.out_c);
        let x: Vec<i16> = r[..ni].iter().map(|&v| v as i16).collect();
        let k: Vec<i8> = r[ni..ni + nk].iter().map(|&v| (v as i8).max(-127)).collect();
        let b64: Vec<i64> = r[ni + nk..].iter().map(|&v| v % 50_000_000).collect();
        let b32: Vec<i32> = b64.iter().map(|&v| v as i32).collect();
        let mut acc = vec![0i64; no];
        scatter(&g, |o, i, w| acc[o] += i64::from(x[i]) * i64::from(k[w]));
        // 64-bit accumulators (an int64 bias).
        let (mult, shift) = multipliers(seed, g.out_c, true);
        let q = Requant { mult: &mult, shift: &shift };
        let mut got = vec![0i16; no];
        transpose_conv_i16(&g, &x, &k, bias.then_some(&b64[..]), &q, &mut got).unwrap();
        let want: Vec<i16> = acc.iter().enumerate().map(|(o, &a)| {
            let c = o % g.out_c;
            let a = a + if bias { b64[c] } else { 0 };
            multiply_by_quantized_multiplier_i64(a, mult[c], shift[c]).clamp(-32768, 32767) as i16
        }).collect();
        prop_assert_eq!(got, want);
        // 32-bit accumulators (an int32 bias): the sums wrap there.
        let (mult, shift) = multipliers(seed, g.out_c, false);
        let q = Requant { mult: &mult, shift: &shift };
        let mut got = vec![0i16; no];
        transpose_conv_i16_acc32(&g, &x, &k, bias.then_some(&b32[..]), &q, &mut got).unwrap();
        let want: Vec<i16> = acc.iter().enumerate().map(|(o, &a)| {
            let c = o % g.out_c;
            let a = (a as i32).wrapping_add(if bias { b32[c] } else { 0 });
            multiply_by_quantized_multiplier(a, mult[c], shift[c]).clamp(-32768, 32767) as i16
        }).collect();
        prop_assert_eq!(got, want);
    }
}

fn options(padding: u8, stride: (i32, i32), act: u8) -> super::super::one_op::Opts {
    Some((
        49,
        vec![
            (0, F::U8(padding)),
            (1, F::I32(stride.1)),
            (2, F::I32(stride.0)),
            (3, F::U8(act)),
        ],
    ))
}

fn f32_const(shape: &[i32], v: &[f32]) -> Tensor {
    Tensor {
        ty: F32,
        shape: shape.to_vec(),
        data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    }
}

#[test]
fn one_operator_models_run_end_to_end() {
    // [1, 2, 2, 1] -> [1, 4, 4, 2], 3x3 weights, stride 2, SAME (padding 0 = SAME), a bias.
    let w: Vec<f32> = (0..18).map(|v| v as f32 * 0.5 - 4.0).collect();
    let x = [1.0f32, -2.0, 0.5, 3.0];
    let bias = [0.25f32, -1.0];
    let tensors = [
        const_i32(&[4], &[1, 4, 4, 2]),
        f32_const(&[2, 3, 3, 1], &w),
        var(F32, &[1, 2, 2, 1]),
        f32_const(&[2], &bias),
        var(F32, &[1, 4, 4, 2]),
    ];
    let file = model(TRANSPOSE_CONV_CODE, options(0, (2, 2), 0), &tensors, 4);
    let got = to_f32s(&run(&file, &[&f32s(&x)]).unwrap()[0]);
    let g = Geometry {
        p: Params {
            stride_h: 2,
            stride_w: 2,
            pad_h: 0,
            pad_w: 0,
            ..Params::default()
        },
        batches: 1,
        in_h: 2,
        in_w: 2,
        in_c: 1,
        out_h: 4,
        out_w: 4,
        out_c: 2,
        f_h: 3,
        f_w: 3,
    };
    let mut want = vec![0.0f32; 32];
    scatter(&g, |o, i, k| want[o] += x[i] * w[k]);
    for (o, v) in want.iter_mut().enumerate() {
        *v += bias[o % 2];
    }
    assert_eq!(got, want);
    // The output shape from the graph: checked against the planned one at invoke.
    let tensors = [
        var(I32, &[4]),
        f32_const(&[2, 3, 3, 1], &w),
        var(F32, &[1, 2, 2, 1]),
        var(F32, &[1, 4, 4, 2]),
    ];
    let file = model(TRANSPOSE_CONV_CODE, options(0, (2, 2), 0), &tensors, 3);
    let out = run(&file, &[&i32s(&[1, 4, 4, 2]), &f32s(&x)]).unwrap();
    let mut nobias = vec![0.0f32; 32];
    scatter(&g, |o, i, k| nobias[o] += x[i] * w[k]);
    assert_eq!(to_f32s(&out[0]), nobias);
    let e = run(&file, &[&i32s(&[1, 4, 5, 2]), &f32s(&x)]).unwrap_err();
    assert!(matches!(kernel_error(e), KernelError::Mismatch { .. }));
}

#[test]
fn malformed_operators_are_refused_at_set_up() {
    let w: Vec<f32> = vec![0.5; 18];
    let build = |shape: &[i32], out: &[i32], input: &[i32], stride: (i32, i32), padding: u8| {
        let tensors = [
            const_i32(&[shape.len() as i32], shape),
            f32_const(&[2, 3, 3, 1], &w),
            var(F32, input),
            var(F32, out),
        ];
        setup_error(&model(TRANSPOSE_CONV_CODE, options(padding, stride, 0), &tensors, 3))
    };
    // The constant output shape is not the model's.
    assert_eq!(
        build(&[1, 4, 4, 2], &[1, 4, 5, 2], &[1, 2, 2, 1], (2, 2), 0),
        check::OUTPUT_SHAPE
    );
    // An output whose convolution does not give the input's size (VALID: 4 = (2 - 1) 2 + 3
    // would need 5).
    assert!(matches!(
        build(&[1, 4, 4, 2], &[1, 4, 4, 2], &[1, 2, 2, 1], (2, 2), 1),
        KernelError::Mismatch { .. }
    ));
    // A zero stride; an output shape operand of three values; a 3-D input.
    assert!(matches!(
        build(&[1, 4, 4, 2], &[1, 4, 4, 2], &[1, 2, 2, 1], (0, 2), 0),
        KernelError::Mismatch { .. }
    ));
    assert!(matches!(
        build(&[4, 4, 2], &[1, 4, 4, 2], &[1, 2, 2, 1], (2, 2), 0),
        KernelError::Mismatch { .. }
    ));
    assert_eq!(
        build(&[1, 4, 4, 2], &[1, 4, 4, 2], &[2, 2, 1], (2, 2), 0),
        NOT_4D
    );
    // Input channels not the weights'.
    assert!(matches!(
        build(&[1, 4, 4, 2], &[1, 4, 4, 2], &[1, 2, 2, 3], (2, 2), 0),
        KernelError::Mismatch { .. }
    ));
    // Hybrid: float input, int8 weights.
    let tensors = [
        const_i32(&[4], &[1, 4, 4, 2]),
        Tensor {
            ty: I8,
            shape: vec![2, 3, 3, 1],
            data: Some(vec![1; 18]),
        },
        var(F32, &[1, 2, 2, 1]),
        var(F32, &[1, 4, 4, 2]),
    ];
    let e = setup_error(&model(TRANSPOSE_CONV_CODE, options(0, (2, 2), 0), &tensors, 3));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e:?}");
}
