//! The quantized FULLY_CONNECTED against the reference kernel's loop written literally.

use super::*;
use proptest::prelude::*;

/// `reference_integer_ops::FullyConnected(PerChannel)` with float requantization, literally.
#[allow(clippy::too_many_arguments)]
fn naive(
    x: &[i8],
    w: &[i8],
    bias: &[i32],
    depth: usize,
    io: i32,
    fo: i32,
    scale: f64,
    oo: i32,
) -> Vec<i8> {
    let units = bias.len();
    let mut out = Vec::new();
    for row in x.chunks(depth) {
        for n in 0..units {
            let mut acc: i32 = 0;
            for d in 0..depth {
                acc += (i32::from(w[n * depth + d]) + fo) * (i32::from(row[d]) + io);
            }
            acc += bias[n];
            let s = (f64::from(acc) * scale).round() as i32 + oo;
            out.push(s.clamp(-128, 127) as i8);
        }
    }
    out
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(256, 4))]
    #[test]
    fn split_sum_equals_reference(
        depth in 1usize..40,
        units in 1usize..6,
        batches in 1usize..3,
        io in -128i32..=127,
        fo in -10i32..=10,
        oo in -128i32..=127,
        scale in 1e-4f64..0.1,
        seed in any::<u64>(),
    ) {
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (s >> 33) as i32 };
        let x: Vec<i8> = (0..batches * depth).map(|_| next() as i8).collect();
        let w: Vec<i8> = (0..units * depth).map(|_| next() as i8).collect();
        let bias: Vec<i32> = (0..units).map(|_| next() % 5000).collect();
        let want = naive(&x, &w, &bias, depth, io, fo, scale, oo);
        let mut got = Vec::new();
        for row in x.chunks(depth) {
            let xsum = i64::from(fo) * row.iter().map(|&v| i64::from(v)).sum::<i64>();
            for n in 0..units {
                let wr = &w[n * depth..(n + 1) * depth];
                let c = i64::from(bias[n]) + weights_term(wr, io, fo);
                let acc = i64::from(dot8(row, wr)) + xsum + c;
                got.push(requantize(acc, true, scale, oo, -128, 127) as i8);
            }
        }
        prop_assert_eq!(got, want);
    }

    #[test]
    fn wide_dot_equals_plain_sum(x in proptest::collection::vec(any::<i16>(), 0..700), seed in any::<u8>()) {
        let w: Vec<i8> = x.iter().enumerate().map(|(i, _)| (i as u8).wrapping_mul(seed) as i8).collect();
        let want: i64 = x.iter().zip(&w).map(|(&a, &b)| i64::from(a) * i64::from(b)).sum();
        prop_assert_eq!(dot16(&x, &w), want);
    }

    /// uint8 (`reference_ops::FullyConnected` taking the scales): both offsets, the int32 sum
    /// and the double requantization, against the split sum with `u8 x u8` dot products.
    #[test]
    fn uint8_split_sum_equals_reference(
        depth in 1usize..40,
        units in 1usize..6,
        batches in 1usize..3,
        zps in (0i32..=255, 0i32..=255, 0i32..=255),
        scale in 1e-4f64..0.1,
        seed in any::<u64>(),
    ) {
        let (io, fo, oo) = (-zps.0, -zps.1, zps.2);
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (s >> 33) as i32 };
        let x: Vec<u8> = (0..batches * depth).map(|_| next() as u8).collect();
        let w: Vec<u8> = (0..units * depth).map(|_| next() as u8).collect();
        let bias: Vec<i32> = (0..units).map(|_| next() % 5000).collect();
        let mut want = Vec::new();
        for row in x.chunks(depth) {
            for n in 0..units {
                let mut acc: i32 = 0;
                for d in 0..depth {
                    acc += (i32::from(w[n * depth + d]) + fo) * (i32::from(row[d]) + io);
                }
                acc += bias[n];
                let v = (f64::from(acc) * scale).round() as i32 + oo;
                want.push(v.clamp(0, 255) as u8);
            }
        }
        let mut got = Vec::new();
        for row in x.chunks(depth) {
            let xsum = i64::from(fo) * row.iter().map(|&v| i64::from(v)).sum::<i64>();
            for n in 0..units {
                let wr = &w[n * depth..(n + 1) * depth];
                let c = i64::from(bias[n]) + weights_term(wr, io, fo);
                let acc = i64::from(dot_u8(row, wr)) + xsum + c;
                got.push(requantize(acc, true, scale, oo, 0, 255) as u8);
            }
        }
        prop_assert_eq!(got, want);
    }
}
