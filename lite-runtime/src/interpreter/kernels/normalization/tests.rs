//! L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION against the reference kernels' loops,
//! gemmlowp's inverse square root against its definition, end to end, and the refusals.

use super::*;
use super::super::one_op::{F32, I8, f32s, model, run, setup_error, to_f32s, var};
use crate::model::tests::builder::F;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::proptest_config::cases(512, 8)
}

const L2_NORMALIZATION_CODE: i32 = 11;
const LRN_CODE: i32 = 13;

/// `GetInvSqrtQuantizedMultiplierExp` through gemmlowp's types, step by step as written there.
fn reference_inv_sqrt(mut input: i32) -> (i32, i32) {
    use super::super::base::quant::fixed_point::saturating_rounding_multiply_by_pot as pot;
    let srdhm = saturating_rounding_doubling_high_mul;
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut shift = 11;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let pairs = ((input as u32).leading_zeros() - 1) / 2;
    shift -= pairs as i32 - 1;
    input <<= 2 * (pairs - 1);
    // F3 = Q3.28.
    let fi = input >> 1;
    let half = pot(fi, -1);
    let three_halves = (1 << 28) + (1 << 27);
    let mut x = 1 << 28;
    for _ in 0..5 {
        let x2 = srdhm(x, x); // F6
        let x3 = pot(srdhm(x2, x), 6); // F9 -> F3
        x = pot(srdhm(three_halves, x) - srdhm(half, x3), 3); // F6 -> F3
    }
    let mut r = srdhm(x, 1_518_500_250);
    if shift < 0 {
        r <<= -shift;
        shift = 0;
    }
    (r, -shift)
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn inv_sqrt_is_gemmlowps_and_close_to_the_real_one(v in 0i32..=i32::MAX) {
        let (m, s) = inv_sqrt_multiplier(v);
        prop_assert_eq!((m, s), reference_inv_sqrt(v));
        if v > 1 {
            // m 2^s / 2^31 approximates 1 / sqrt(v).
            let got = f64::from(m) * 2f64.powi(s) / 2f64.powi(31);
            let want = 1.0 / f64::from(v).sqrt();
            prop_assert!((got / want - 1.0).abs() < 1e-5, "{v}: {got} vs {want}");
        }
    }

    #[test]
    fn float_l2_is_the_reference(rows in 1usize..4, depth in 1usize..40, seed in any::<u32>(), tiny in any::<bool>()) {
        let scale = if tiny { 1e-9 } else { 1.0 };
        let x: Vec<f32> = (0..rows * depth)
            .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / 1e9 - 2.0) * scale)
            .collect();
        let mut got = vec![f32::NAN; x.len()];
        l2_f32(depth, &x, &mut got);
        let mut want = Vec::new();
        for r in x.chunks(depth) {
            let mut s = 0.0f32;
            for v in r {
                s += v * v;
            }
            let n = s.sqrt().max(1e-6);
            want.extend(r.iter().map(|v| v / n));
        }
        prop_assert_eq!(got, want);
    }

    #[test]
    fn quantized_l2_is_the_reference(depth in 1usize..300, zp in -128i32..=127, seed in any::<u64>()) {
        let mut s = seed | 1;
        let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
        let x8: Vec<i8> = (0..depth).map(|_| next() as i8).collect();
        let xu: Vec<u8> = x8.iter().map(|&v| v as u8).collect();
        let sum8: i32 = x8.iter().map(|&v| (i32::from(v) - zp).pow(2)).sum();
        let (m, sh) = reference_inv_sqrt(sum8);
        let mut got = vec![0i8; depth];
        l2_i8(depth, zp, &x8, &mut got);
        let want: Vec<i8> = x8.iter().map(|&v| {
            multiply_by_quantized_multiplier(i32::from(v) - zp, m, sh + 7).clamp(-128, 127) as i8
        }).collect();
        prop_assert_eq!(got, want);
        let zpu = zp + 128;
        let sumu: i32 = xu.iter().map(|&v| (i32::from(v) - zpu).pow(2)).sum();
        let (m, sh) = reference_inv_sqrt(sumu);
        let mut got = vec![0u8; depth];
        l2_u8(depth, zpu, &xu, &mut got);
        let want: Vec<u8> = xu.iter().map(|&v| {
            let d = 128 * (i32::from(v) - zpu);
            let r = rounding_divide_by_pot(saturating_rounding_doubling_high_mul(d, m), (-sh) as u32);
            (128 + r).clamp(0, 255) as u8
        }).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn lrn_is_the_reference(depth in 1u32..20, radius in 0i32..6, bias in 0.1f32..3.0, alpha in 0.0f32..2.0, beta in -1.0f32..2.0, seed in any::<u32>()) {
        let p = Lrn { rows: 3, depth, radius, bias, alpha, beta };
        let n = 3 * depth as usize;
        let x: Vec<f32> = (0..n).map(|i| ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / 1e9 - 2.0).collect();
        let mut got = vec![f32::NAN; n];
        lrn(&p, &x, &mut got);
        let d = depth as i32;
        let mut want = Vec::new();
        for row in x.chunks(depth as usize) {
            for c in 0..d {
                let mut acc = 0.0f32;
                for i in (c - radius).max(0)..(c + radius).min(d) {
                    acc += row[i as usize] * row[i as usize];
                }
                want.push(row[c as usize] * libm::powf(bias + alpha * acc, -beta));
            }
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn one_operator_models_run_and_bad_ones_are_refused() {
    let file = model(
        L2_NORMALIZATION_CODE,
        None,
        &[var(F32, &[2, 2]), var(F32, &[2, 2])],
        1,
    );
    let got = to_f32s(&run(&file, &[&f32s(&[3.0, 4.0, 0.0, 0.0])]).unwrap()[0]);
    assert_eq!(got, [0.6, 0.8, 0.0, 0.0]);
    // A fused activation; int8 without the 1/128 output scale (here: none).
    let e = setup_error(&model(
        L2_NORMALIZATION_CODE,
        Some((12, vec![(0, F::U8(1))])),
        &[var(F32, &[2, 2]), var(F32, &[2, 2])],
        1,
    ));
    assert!(matches!(e, KernelError::Unsupported { .. }), "{e:?}");
    let e = setup_error(&model(
        L2_NORMALIZATION_CODE,
        None,
        &[var(I8, &[2, 2]), var(I8, &[2, 2])],
        1,
    ));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
    // LRN over a 4-D input: radius 1, bias 1, alpha 1, beta 1.
    let opts = Some((
        13,
        vec![
            (0, F::I32(1)),
            (1, F::U32(1.0f32.to_bits())),
            (2, F::U32(1.0f32.to_bits())),
            (3, F::U32(1.0f32.to_bits())),
        ],
    ));
    let file = model(LRN_CODE, opts.clone(), &[var(F32, &[1, 1, 1, 3]), var(F32, &[1, 1, 1, 3])], 1);
    let got = to_f32s(&run(&file, &[&f32s(&[1.0, 2.0, 3.0])]).unwrap()[0]);
    // Windows [c - 1, c + 1): {1}, {1, 2}, {2, 3}.
    let w = |x: f32, s: f32| x * libm::powf(1.0 + s, -1.0);
    assert_eq!(got, [w(1.0, 1.0), w(2.0, 5.0), w(3.0, 13.0)]);
    let e = setup_error(&model(LRN_CODE, opts, &[var(F32, &[1, 3]), var(F32, &[1, 3])], 1));
    assert!(matches!(e, KernelError::Mismatch { .. }), "{e:?}");
}
