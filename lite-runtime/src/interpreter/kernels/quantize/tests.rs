//! QUANTIZE and DEQUANTIZE against the reference kernels' formulas, element by element.

use super::*;
use super::super::base::quant::{multiply_by_quantized_multiplier, quantize_multiplier};
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(1024, 8)
}

#[test]
fn halves_convert_exactly() {
    assert_eq!(f16_to_f32(0x3c00), 1.0);
    assert_eq!(f16_to_f32(0xc000), -2.0);
    assert_eq!(f16_to_f32(0x7bff), 65504.0);
    assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(f16_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
    assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    assert!(f16_to_f32(0x7e00).is_nan());
    assert_eq!(f16_to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
    // Every finite half against its value computed in f64.
    for h in 0..=u16::MAX {
        let (e, m) = (i32::from(h >> 10 & 0x1f), f64::from(h & 0x3ff));
        if e == 0x1f {
            continue;
        }
        let v = if e == 0 {
            m * 2f64.powi(-24)
        } else {
            (1024.0 + m) * 2f64.powi(e - 25)
        };
        let v = if h >> 15 == 1 { -v } else { v };
        assert_eq!(f16_to_f32(h), v as f32, "{h:#06x}");
    }
}

#[test]
fn quantize_rounds_half_away_and_clamps() {
    let p = Params {
        out_scale: 0.5,
        out_zp: -3,
        ..Params::default()
    };
    let x = [
        0.25f32,
        -0.25,
        0.75,
        1000.0,
        -1000.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let mut y = [0i8; 8];
    from_float(&p, &x, &mut y).unwrap();
    // 0.5 -> 1, -0.5 -> -1, 1.5 -> 2; then + zp.
    assert_eq!(y, [-2, -4, -1, 127, -128, -3, 127, -128]);
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn quantize_is_affine_quantize(x in prop::collection::vec(-300.0f32..300.0, 0..40), scale in 1e-3f32..4.0, zp in -128i32..=127) {
        let p = Params { out_scale: scale, out_zp: zp, ..Params::default() };
        let mut y = vec![0i8; x.len()];
        from_float(&p, &x, &mut y).unwrap();
        let want: Vec<i8> = x.iter().map(|&v| ((v / scale).round() as i32 + zp).clamp(-128, 127) as i8).collect();
        prop_assert_eq!(y, want);
        let mut y16 = vec![0i16; x.len()];
        let p16 = Params { out_zp: 0, ..p };
        from_float(&p16, &x, &mut y16).unwrap();
        let want: Vec<i16> = x.iter().map(|&v| ((v / scale).round() as i32).clamp(-32768, 32767) as i16).collect();
        prop_assert_eq!(y16, want);
    }

    #[test]
    fn requantize_is_the_reference(x in prop::collection::vec(any::<i8>(), 0..40), ratio in 1e-3f64..8.0, zi in -128i32..=127, zo in -128i32..=127) {
        let (mult, shift) = quantize_multiplier(ratio).unwrap();
        let p = Params { in_zp: zi, out_zp: zo, mult, shift, ..Params::default() };
        let mut y = vec![0i8; x.len()];
        requantize(&p, &x, &mut y).unwrap();
        let want: Vec<i8> = x.iter().map(|&v| {
            let o = multiply_by_quantized_multiplier(i32::from(v) - zi, mult, shift) + zo;
            o.clamp(-128, 127) as i8
        }).collect();
        prop_assert_eq!(y, want);
        let mut y16 = vec![0i16; x.len()];
        requantize(&p, &x, &mut y16).unwrap();
        let want: Vec<i16> = x.iter().map(|&v| {
            let o = multiply_by_quantized_multiplier(i32::from(v) - zi, mult, shift) + zo;
            o.clamp(-32768, 32767) as i16
        }).collect();
        prop_assert_eq!(y16, want);
    }

    #[test]
    fn requantize_to_and_from_int32_is_the_reference(x16 in prop::collection::vec(any::<i16>(), 0..40), x32 in prop::collection::vec(any::<i32>(), 0..40), ratio in 1e-3f64..8.0, z in any::<i32>(), z16 in -32768i32..=32767) {
        let (mult, shift) = quantize_multiplier(ratio).unwrap();
        // int16 -> int32 (TFLM's keyword benchmark's last op): the sum kept in 64 bits.
        let p = Params { in_zp: z16, out_zp: z, mult, shift, ..Params::default() };
        let mut y = vec![0i32; x16.len()];
        requantize(&p, &x16, &mut y).unwrap();
        let want: Vec<i32> = x16.iter().map(|&v| {
            let o = i64::from(multiply_by_quantized_multiplier(i32::from(v) - z16, mult, shift)) + i64::from(z);
            o.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        }).collect();
        prop_assert_eq!(y, want);
        // int32 -> int8 / int16: the offset input wraps as the reference's int32 does.
        let p = Params { in_zp: z, out_zp: z16 / 256, mult, shift, ..Params::default() };
        let mut y = vec![0i8; x32.len()];
        requantize(&p, &x32, &mut y).unwrap();
        let want: Vec<i8> = x32.iter().map(|&v| {
            let o = i64::from(multiply_by_quantized_multiplier(v.wrapping_sub(z), mult, shift)) + i64::from(z16 / 256);
            o.clamp(-128, 127) as i8
        }).collect();
        prop_assert_eq!(y, want);
    }

    #[test]
    fn dequantize_is_double_scale_times_offset(x in prop::collection::vec(any::<i16>(), 0..40), scale in 1e-6f32..10.0, zp in -100i32..100) {
        let p = Params { scale: f64::from(scale), in_zp: zp, ..Params::default() };
        let mut y = vec![0.0f32; x.len()];
        dequantize(&p, &x, &mut y);
        let want: Vec<f32> = x.iter().map(|&v| (f64::from(scale) * f64::from(i32::from(v) - zp)) as f32).collect();
        prop_assert_eq!(y, want);
    }

    #[test]
    fn per_channel_dequantize_is_float_scale_times_offset(
        dims in prop::collection::vec(1usize..5, 1..5),
        axis_pick in any::<prop::sample::Index>(),
        seed in any::<u32>(),
    ) {
        // reference_ops::PerChannelDequantize: scale[c] * (float)(x - zp[c]) in float, c the
        // index along the quantized dimension.
        let axis = axis_pick.index(dims.len());
        let channels = dims[axis];
        let inner: usize = dims[axis + 1..].iter().product();
        let n: usize = dims.iter().product();
        let scales: Vec<f32> = (0..channels).map(|c| (c as f32 + 1.0) * 0.013 + seed as f32 * 1e-12).collect();
        let zps: Vec<i32> = (0..channels).map(|c| c as i32 * 7 - 10).collect();
        let x: Vec<i8> = (0..n).map(|i| (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) as i8).collect();
        let p = Params { channels: channels as u32, inner: inner as u32, ..Params::default() };
        let mut y = vec![f32::NAN; n];
        dequantize_per_channel(&p, &scales, &zps, &x, &mut y).unwrap();
        let want: Vec<f32> = x.iter().enumerate().map(|(i, &v)| {
            let c = (i / inner) % channels;
            scales[c] * (i32::from(v) - zps[c]) as f32
        }).collect();
        prop_assert_eq!(y, want);
    }
}
