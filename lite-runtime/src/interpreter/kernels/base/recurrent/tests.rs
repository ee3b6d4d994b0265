//! Tests of the recurrent helpers against naive references.

use proptest::prelude::*;

use super::super::super::proptest_config::cases;
use super::*;

#[test]
fn carve_hands_out_aligned_typed_pieces_and_refuses_past_the_end() {
    let mut words = [0u128; 8];
    let bytes = zerocopy::IntoBytes::as_mut_bytes(&mut words[..]);
    let mut c = Carve::new(bytes);
    let a = c.take::<f32>(3).unwrap();
    let b = c.take::<i8>(5).unwrap();
    let d = c.take::<i32>(2).unwrap();
    assert_eq!((a.len(), b.len(), d.len()), (3, 5, 2));
    // 16 + 16 + 16 bytes used of 128: 80 left.
    assert_eq!(
        total_bytes(&[
            carved_bytes::<f32>(3),
            carved_bytes::<i8>(5),
            carved_bytes::<i32>(2)
        ]),
        Some(48)
    );
    assert!(c.take::<f32>(20).is_ok());
    assert!(c.take::<u8>(1).is_err());
    assert_eq!(carved_bytes::<f32>(usize::MAX), None);
}

#[test]
fn activations_follow_tensorflow_lites() {
    use FloatActivation as A;
    assert_eq!(A::Relu.apply(-2.0), 0.0);
    assert_eq!(A::Relu6.apply(7.5), 6.0);
    assert_eq!(A::ReluN1To1.apply(-3.0), -1.0);
    assert_eq!(A::SignBit.apply(-0.0), 1.0);
    assert_eq!(A::SignBit.apply(0.5), 0.0);
    assert!((A::Tanh.apply(0.5) - 0.462_117_16).abs() < 1e-6);
    assert!((A::Sigmoid.apply(1.0) - 0.731_058_6).abs() < 1e-6);
    for a in [
        A::None,
        A::Relu,
        A::ReluN1To1,
        A::Relu6,
        A::Tanh,
        A::SignBit,
        A::Sigmoid,
    ] {
        assert_eq!(A::from_code(a as u8), a);
    }
    assert!(A::from_option(crate::model::Activation::Other(9)).is_err());
}

#[test]
fn zero_vectors_quantize_to_zero_with_unit_factors() {
    let mut q = [1i8; 4];
    let (mut f, mut z) = ([0.0f32; 2], [7i32; 2]);
    quantize_batches(&[0.0; 4], 2, 2, &mut q, &mut f, &mut z, false).unwrap();
    assert_eq!((q, f, z), ([0; 4], [1.0; 2], [0; 2]));
    quantize_batches(&[0.0; 4], 2, 2, &mut q, &mut f, &mut z, true).unwrap();
    assert_eq!((q, f, z), ([0; 4], [1.0; 2], [0; 2]));
    assert!(quantize_batches(&[0.0; 3], 2, 2, &mut q, &mut f, &mut z, true).is_err());
}

#[test]
fn walks_visit_the_sequence_in_the_layouts_order() {
    let w = Walk {
        time: 3,
        batches: 2,
        time_major: false,
        forward: false,
    };
    let steps: Vec<_> = w.steps().collect();
    assert_eq!(steps, [(0, 2), (0, 1), (0, 0), (1, 2), (1, 1), (1, 0)]);
    assert_eq!(w.at(1, 2, 4), Some(20));
    let tm = Walk {
        time_major: true,
        forward: true,
        ..w
    };
    assert_eq!(tm.steps().collect::<Vec<_>>(), [(0, 0), (0, 1), (0, 2)]);
    assert_eq!(tm.at(0, 2, 4), Some(16));
}

/// The product in f64 (column order), and each element's bound for f32 sums in any order:
/// a few ulps of the sum of the terms' magnitudes.
fn naive(
    m: &[f32],
    rows: usize,
    cols: usize,
    v: &[f32],
    batches: usize,
    r: &[f32],
) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for b in 0..batches {
        for i in 0..rows {
            let (mut dot, mut size) =
                (f64::from(r[b * rows + i]), f64::from(r[b * rows + i].abs()));
            for k in 0..cols {
                let t = f64::from(m[i * cols + k]) * f64::from(v[b * cols + k]);
                dot += t;
                size += t.abs();
            }
            out.push((
                dot,
                4.0 * f64::from(f32::EPSILON) * (cols as f64 + 2.0) * size,
            ));
        }
    }
    out
}

proptest! {
    #![proptest_config(cases(64, 4))]

    #[test]
    fn matmul_acc_is_the_product_within_float_rounding(
        rows in 0usize..6, cols in 0usize..7, batches in 0usize..4, seed in any::<u64>(),
    ) {
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1); ((s >> 40) as f32 / 16777216.0) - 0.5 };
        let m: Vec<f32> = (0..rows * cols).map(|_| next()).collect();
        let v: Vec<f32> = (0..batches * cols).map(|_| next()).collect();
        let init: Vec<f32> = (0..batches * rows).map(|_| next()).collect();
        let mut got = init.clone();
        matmul_acc(&m, rows, cols, &v, batches, &mut got).unwrap();
        for (g, (want, bound)) in got.iter().zip(naive(&m, rows, cols, &v, batches, &init)) {
            prop_assert!((f64::from(*g) - want).abs() <= bound, "{} against {} (bound {})", g, want, bound);
        }
        if rows * cols > 0 {
            prop_assert!(matmul_acc(&m[1..], rows, cols, &v, batches, &mut [0.0; 64]).is_err());
        }
    }

    #[test]
    fn quantized_vectors_dequantize_within_half_a_step(
        v in proptest::collection::vec(-100.0f32..100.0, 1..12), asymmetric in any::<bool>(),
    ) {
        let n = v.len();
        let mut q = vec![0i8; n];
        let (mut f, mut z) = ([0.0f32], [0i32]);
        quantize_batches(&v, 1, n, &mut q, &mut f, &mut z, asymmetric).unwrap();
        for (&x, &qx) in v.iter().zip(&q) {
            let back = (i32::from(qx) - z[0]) as f32 * f[0];
            prop_assert!((back - x).abs() <= f[0] * 0.5 + 1e-4 * x.abs(), "{} -> {} ({:?})", x, back, (f, z));
        }
        if !asymmetric {
            prop_assert_eq!(z[0], 0);
            prop_assert!(q.iter().all(|&x| x != -128));
        }
    }

    #[test]
    fn hybrid_products_equal_the_offset_corrected_dot_products(
        rows in 1usize..5, cols in 1usize..6, batches in 1usize..3, seed in any::<u64>(),
    ) {
        let mut s = seed;
        let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1); (s >> 56) as i8 };
        let m: Vec<i8> = (0..rows * cols).map(|_| next()).collect();
        let v: Vec<i8> = (0..batches * cols).map(|_| next()).collect();
        let zp: Vec<i32> = (0..batches).map(|_| i32::from(next())).collect();
        let factors: Vec<f32> = (0..batches).map(|b| 0.25 * (b + 1) as f32).collect();
        let mut sums = vec![0i32; rows];
        row_sums(&m, rows, cols, &mut sums).unwrap();
        let mut got = vec![1.0f32; batches * rows];
        hybrid_matmul_acc(&m, rows, cols, &v, &factors, Some((&zp, &sums)), batches, &mut got).unwrap();
        for b in 0..batches {
            for r in 0..rows {
                let dot: i32 = (0..cols).map(|k| i32::from(m[r * cols + k]) * (i32::from(v[b * cols + k]) - zp[b])).sum();
                prop_assert_eq!(got[b * rows + r], 1.0 + dot as f32 * factors[b]);
            }
        }
    }
}
