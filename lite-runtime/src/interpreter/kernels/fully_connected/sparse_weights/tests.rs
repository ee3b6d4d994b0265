//! The sparse FULLY_CONNECTED against a dense one on random matrices in every encoding the
//! format allows, and the metadata it refuses.

use super::super::super::base::sparsity::SparseFormat;
use super::super::super::base::sparsity::encoded::*;
use super::{Dims, Plan, RowIndex, build, matvec, unit_dots};
use crate::interpreter::KernelError;
use proptest::prelude::*;

/// Dense FULLY_CONNECTED in `k` order, bias after the sum, clamped.
fn dense_fc(m: &[f32], x: &[f32], bias: Option<&[f32]>, d: Dims) -> Vec<f32> {
    let mut out = vec![0.0; d.batches * d.units];
    for b in 0..d.batches {
        for n in 0..d.units {
            let mut acc = 0.0f32;
            for k in 0..d.depth {
                acc += m[n * d.depth + k] * x[b * d.depth + k];
            }
            acc += bias.map_or(0.0, |v| v[n]);
            out[b * d.units + n] = acc.max(d.lo).min(d.hi);
        }
    }
    out
}

/// The sparse FULLY_CONNECTED of `e` (its plan, and its outputs).
fn sparse_fc(
    f: &SparseFormat<'_>,
    values: &[f32],
    x: &[f32],
    bias: Option<&[f32]>,
    d: Dims,
) -> Result<(Plan, Vec<f32>), KernelError> {
    let plan = Plan::new(f, d.units, d.depth, values.len())?;
    let bytes = plan.bytes(d.units).unwrap();
    let mut words = vec![0u32; bytes.div_ceil(4)];
    let persistent = &mut zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..bytes];
    build(f, plan, d.units, d.depth, persistent)?;
    let index = RowIndex::view(plan, d.units, persistent)?;
    let mut out = vec![f32::NAN; d.batches * d.units];
    matvec(&index, values, x, bias, &mut out, d)?;
    Ok((plan, out))
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(256, 4))]

    #[test]
    fn every_encoding_multiplies_like_dense(
        (rows, cols, m, br, bc, widths) in case(),
        batches in 1usize..=3,
        with_bias in any::<bool>(),
        relu in any::<bool>(),
        seed in -3.0f32..3.0,
    ) {
        let x: Vec<f32> = (0..batches * cols).map(|i| seed + (i as f32 * 0.37).sin()).collect();
        let bias: Vec<f32> = (0..rows).map(|i| (i as f32 * 0.11).cos()).collect();
        let bias = with_bias.then_some(&bias[..]);
        let (lo, hi) = if relu { (0.0, f32::INFINITY) } else { (f32::NEG_INFINITY, f32::INFINITY) };
        let d = Dims { batches, depth: cols, units: rows, lo, hi };
        let want = dense_fc(&m, &x, bias, d);
        for e in [
            csr(&m, rows, cols),
            csc(&m, rows, cols),
            doubly(&m, rows, cols),
            blocked(&m, rows, cols, br, bc),
            blocked(&m, rows, cols, 1, bc),
        ] {
            let stored = Stored::new(&e, &widths);
            let f = stored.format(&e).unwrap();
            prop_assert_eq!(&densified(&f, &e.values).unwrap(), &m, "{:?}", e);
            let (plan, got) = sparse_fc(&f, &e.values, &x, bias, d).unwrap();
            // Same non-zeros in the same k order: equal exactly (only zeros are skipped).
            prop_assert_eq!(&got, &want, "{:?} {:?}", e, plan);
        }
    }
}

proptest! {
    #![proptest_config(super::super::super::proptest_config::cases(256, 4))]

    /// int8 weights (LiteRT's sparse int8 kernel): each unit's `sum w x` over the stored
    /// values, in wrapping 32 bits, equals the dense integer dot product in every encoding.
    #[test]
    fn int8_units_sum_like_dense((rows, cols, m, br, bc, widths) in case(), seed in any::<u32>()) {
        let m: Vec<f32> = m.iter().map(|&v| (v * 40.0).round().clamp(-127.0, 127.0)).collect();
        let x: Vec<i8> = (0..cols).map(|i| (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) as i8).collect();
        let want: Vec<i32> = (0..rows)
            .map(|n| (0..cols).map(|k| m[n * cols + k] as i32 * i32::from(x[k])).sum())
            .collect();
        for e in [csr(&m, rows, cols), csc(&m, rows, cols), blocked(&m, rows, cols, br, bc), blocked(&m, rows, cols, 1, bc)] {
            let stored = Stored::new(&e, &widths);
            let f = stored.format(&e).unwrap();
            let values: Vec<i8> = e.values.iter().map(|&v| v as i8).collect();
            let plan = Plan::new(&f, rows, cols, values.len()).unwrap();
            let bytes = plan.bytes(rows).unwrap();
            let mut words = vec![0u32; bytes.div_ceil(4)];
            let persistent = &mut zerocopy::IntoBytes::as_mut_bytes(&mut words[..])[..bytes];
            build(&f, plan, rows, cols, persistent).unwrap();
            let index = RowIndex::view(plan, rows, persistent).unwrap();
            let mut got = vec![0i32; rows];
            unit_dots(&index, &values, &x, rows, 0i32, |n, acc| {
                got[n] = acc;
                Ok(())
            }).unwrap();
            prop_assert_eq!(&got, &want, "{:?}", e);
        }
    }
}

fn run(e: &Encoded) -> Result<(Plan, Vec<f32>), KernelError> {
    let stored = Stored::new(e, &[Width::U16, Width::U8]);
    let f = stored.format(e)?;
    let (rows, cols) = (e.shape[0], e.shape[1]);
    let x: Vec<f32> = (0..cols).map(|i| i as f32).collect();
    let d = Dims {
        batches: 1,
        depth: cols,
        units: rows,
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
    };
    sparse_fc(&f, &e.values, &x, None, d)
}

#[test]
fn layouts_follow_the_storage_order() {
    let m: Vec<f32> = (0..8 * 8)
        .map(|i| if i % 3 == 0 { i as f32 } else { 0.0 })
        .collect();
    let csr_plan = run(&csr(&m, 8, 8)).unwrap().0;
    assert_eq!((csr_plan.run, csr_plan.indexed, csr_plan.wide), (1, 0, 0));
    let block_plan = run(&blocked(&m, 8, 8, 1, 4)).unwrap().0;
    assert_eq!((block_plan.run, block_plan.indexed), (4, 0));
    let csc_plan = run(&csc(&m, 8, 8)).unwrap().0;
    assert_eq!((csc_plan.run, csc_plan.indexed), (1, 1));
    let square = run(&blocked(&m, 8, 8, 2, 2)).unwrap().0;
    assert_eq!((square.run, square.indexed), (1, 1));
}

#[test]
fn bad_metadata_is_refused() {
    let m = [1.0f32, 0.0, 2.0, 0.0, 3.0, 0.0];
    let good = csr(&m, 2, 3);
    assert!(run(&good).is_ok());

    // Columns going backwards within a row: DENSIFY would still place them, but the sparse
    // sum would not be in k order.
    let mut back = good.clone();
    back.dims[1] = Dim::Csr(vec![0, 2, 3], vec![2, 0, 1]);
    back.values = vec![2.0, 1.0, 3.0];
    assert!(matches!(run(&back), Err(KernelError::Unsupported { .. })));

    // A repeated column: DENSIFY keeps the last value; FULLY_CONNECTED refuses it.
    let mut twice = good.clone();
    twice.dims[1] = Dim::Csr(vec![0, 2, 3], vec![0, 0, 1]);
    assert!(run(&twice).is_err());

    // An index outside its dimension.
    let mut outside = good.clone();
    outside.dims[1] = Dim::Csr(vec![0, 2, 3], vec![0, 3, 1]);
    assert!(run(&outside).is_err());

    // More values addressed than stored.
    let mut few = good.clone();
    few.values.pop();
    assert!(run(&few).is_err());

    // Not a permutation; a block that does not divide; a DENSE size that is wrong.
    let mut order = good.clone();
    order.order = vec![0, 0];
    assert!(run(&order).is_err());
    let mut block = blocked(&m, 2, 3, 1, 3);
    block.dims[2] = Dim::Dense(2);
    assert!(run(&block).is_err());
    let mut dense = good.clone();
    dense.dims[0] = Dim::Dense(3);
    assert!(run(&dense).is_err());
}
