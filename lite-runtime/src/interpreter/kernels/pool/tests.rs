//! The pools against naive loops written as TensorFlow Lite's reference kernels
//! (`reference_ops::AveragePool` / `MaxPool`, `reference_integer_ops::AveragePool` /
//! `MaxPool`): per output and channel, the clipped window walked row by row.

use super::*;
use super::super::base::window::{out_size, pad_before};
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(512, 4)
}

#[allow(clippy::too_many_arguments)]
fn geometry(
    b: u32,
    h: u32,
    w: u32,
    c: u32,
    f: (u16, u16),
    s: (u16, u16),
    same: bool,
    dtype: u32,
) -> PoolGeometry {
    let padding = if same { Padding::Same } else { Padding::Valid };
    let oh = out_size(padding, h.into(), f.0.into(), s.0.into(), 1);
    let ow = out_size(padding, w.into(), f.1.into(), s.1.into(), 1);
    PoolGeometry {
        dtype,
        batches: b,
        in_h: h,
        in_w: w,
        channels: c,
        out_h: oh as u32,
        out_w: ow as u32,
        f_h: f.0,
        f_w: f.1,
        stride_h: s.0,
        stride_w: s.1,
        pad_h: pad_before(s.0.into(), 1, h.into(), f.0.into(), oh) as u16,
        pad_w: pad_before(s.1.into(), 1, w.into(), f.1.into(), ow) as u16,
        act_min: -128,
        act_max: 127,
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
    }
}

/// The reference's walk: for each output and channel, `f(window values in order)`.
fn naive<T: Copy, U>(g: &PoolGeometry, x: &[T], mut f: impl FnMut(&[T]) -> U) -> Vec<U> {
    let mut out = Vec::new();
    for b in 0..g.batches as i64 {
        for oy in 0..g.out_h as i64 {
            for ox in 0..g.out_w as i64 {
                for ch in 0..g.channels as i64 {
                    let y0 = oy * i64::from(g.stride_h) - i64::from(g.pad_h);
                    let x0 = ox * i64::from(g.stride_w) - i64::from(g.pad_w);
                    let fys = (-y0).max(0);
                    let fye = i64::from(g.f_h).min(i64::from(g.in_h) - y0);
                    let fxs = (-x0).max(0);
                    let fxe = i64::from(g.f_w).min(i64::from(g.in_w) - x0);
                    let mut vals = Vec::new();
                    for fy in fys..fye {
                        for fx in fxs..fxe {
                            let (iy, ix) = (y0 + fy, x0 + fx);
                            let i = ((b * i64::from(g.in_h) + iy) * i64::from(g.in_w) + ix)
                                * i64::from(g.channels)
                                + ch;
                            vals.push(x[i as usize]);
                        }
                    }
                    out.push(f(&vals));
                }
            }
        }
    }
    out
}

#[allow(clippy::type_complexity)]
fn shape() -> impl Strategy<Value = (u32, u32, u32, u32, (u16, u16), (u16, u16), bool, u64)> {
    (
        1u32..=2,
        1u32..=9,
        1u32..=9,
        1u32..=5,
        (1u16..=4, 1u16..=4),
        (1u16..=3, 1u16..=3),
        any::<bool>(),
        any::<u64>(),
    )
}

fn data(seed: u64, n: usize, lo: i32, hi: i32) -> Vec<i32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (s % (hi - lo + 1) as u64) as i32
        })
        .collect()
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn float_pools_are_the_reference((b, h, w, c, f, s, same, seed) in shape(), relu6 in any::<bool>()) {
        let mut g = geometry(b, h, w, c, f, s, same, FLOAT);
        if relu6 { (g.lo, g.hi) = (0.0, 6.0); }
        let x: Vec<f32> = data(seed, (b * h * w * c) as usize, -4000, 4000).into_iter().map(|v| v as f32 / 500.0).collect();
        let n = (b * g.out_h * g.out_w * c) as usize;
        let mut got = vec![f32::NAN; n];
        let mut acc = vec![0.0; c as usize];
        average_f32(&g, &x, &mut got, &mut acc).unwrap();
        let want = naive(&g, &x, |v| {
            let mut t = 0.0f32;
            for &a in v { t += a; }
            (t / v.len() as f32).max(g.lo).min(g.hi)
        });
        prop_assert_eq!(&got, &want);
        max_f32(&g, &x, &mut got).unwrap();
        let want = naive(&g, &x, |v| {
            let mut m = f32::MIN;
            for &a in v { m = m.max(a); }
            m.max(g.lo).min(g.hi)
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn int8_pools_are_the_reference((b, h, w, c, f, s, same, seed) in shape(), act in (-128i32..=0, 0i32..=127)) {
        let mut g = geometry(b, h, w, c, f, s, same, INT8);
        (g.act_min, g.act_max) = act;
        let x: Vec<i8> = data(seed, (b * h * w * c) as usize, -128, 127).into_iter().map(|v| v as i8).collect();
        let n = (b * g.out_h * g.out_w * c) as usize;
        let mut got = vec![0i8; n];
        let mut acc = vec![0; c as usize];
        average_q(&g, &x, &mut got, &mut acc).unwrap();
        let want = naive(&g, &x, |v| {
            let acc: i32 = v.iter().map(|&a| i32::from(a)).sum();
            let n = v.len() as i32;
            let a = if acc > 0 { (acc + n / 2) / n } else { (acc - n / 2) / n };
            a.max(g.act_min).min(g.act_max) as i8
        });
        prop_assert_eq!(&got, &want);
        max_q(&g, &x, &mut got).unwrap();
        let want = naive(&g, &x, |v| {
            let m = v.iter().copied().fold(i8::MIN, i8::max);
            i32::from(m).max(g.act_min).min(g.act_max) as i8
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn uint8_pools_are_the_reference((b, h, w, c, f, s, same, seed) in shape(), act in (0i32..=128, 128i32..=255)) {
        // reference_ops::AveragePool / MaxPool on uint8: (sum + n / 2) / n, max from 0.
        let mut g = geometry(b, h, w, c, f, s, same, UINT8);
        (g.act_min, g.act_max) = act;
        let x: Vec<u8> = data(seed, (b * h * w * c) as usize, 0, 255).into_iter().map(|v| v as u8).collect();
        let n = (b * g.out_h * g.out_w * c) as usize;
        let mut got = vec![0u8; n];
        let mut acc = vec![0; c as usize];
        average_q(&g, &x, &mut got, &mut acc).unwrap();
        let want = naive(&g, &x, |v| {
            let acc: i32 = v.iter().map(|&a| i32::from(a)).sum();
            let n = v.len() as i32;
            ((acc + n / 2) / n).max(g.act_min).min(g.act_max) as u8
        });
        prop_assert_eq!(&got, &want);
        max_q(&g, &x, &mut got).unwrap();
        let want = naive(&g, &x, |v| {
            let m = v.iter().copied().fold(0u8, u8::max);
            i32::from(m).max(g.act_min).min(g.act_max) as u8
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn int16_pools_are_the_reference((b, h, w, c, f, s, same, seed) in shape()) {
        let mut g = geometry(b, h, w, c, f, s, same, INT16);
        (g.act_min, g.act_max) = (-32768, 32767);
        let x: Vec<i16> = data(seed, (b * h * w * c) as usize, -32768, 32767).into_iter().map(|v| v as i16).collect();
        let n = (b * g.out_h * g.out_w * c) as usize;
        let mut got = vec![0i16; n];
        let mut acc = vec![0; c as usize];
        average_q(&g, &x, &mut got, &mut acc).unwrap();
        let want = naive(&g, &x, |v| {
            let acc: i32 = v.iter().map(|&a| i32::from(a)).sum();
            let n = v.len() as i32;
            (if acc > 0 { (acc + n / 2) / n } else { (acc - n / 2) / n }) as i16
        });
        prop_assert_eq!(&got, &want);
        max_q(&g, &x, &mut got).unwrap();
        let want = naive(&g, &x, |v| v.iter().copied().fold(i16::MIN, i16::max));
        prop_assert_eq!(got, want);
    }
}

#[test]
fn average_rounds_half_away_from_zero() {
    // A 1x2 window: (-3 + -2) / 2 = -2.5 -> -3; (3 + 2) / 2 = 2.5 -> 3.
    let g = geometry(1, 1, 2, 2, (1, 2), (1, 2), false, INT8);
    let mut y = [0i8; 2];
    average_q(&g, &[-3i8, 3, -2, 2], &mut y, &mut [0; 2]).unwrap();
    assert_eq!(y, [-3, 3]);
}
