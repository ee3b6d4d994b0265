//! SVDF tests: the float body over several invokes against a naive reference (the memory
//! carried in the state), the int8-state body against TensorFlow Lite Micro, refusals.

// The references index as the definitions read.
#![allow(clippy::needless_range_loop)]

use proptest::prelude::*;

use super::super::base::recurrent::testing::{
    F32, I8, I32, Tensor, f32_bytes, model, run, setup_error, to_f32,
};
use super::super::proptest_config::cases;
use crate::interpreter::KernelError;
use crate::model::tests::builder::F;

const SVDF: i32 = 27;
const OPTIONS: u8 = 6;

fn options(rank: i32, activation: u8) -> (u8, Vec<(usize, F)>) {
    (OPTIONS, vec![(0, F::I32(rank)), (1, F::U8(activation))])
}

/// A float SVDF: `wf` [filters, input], `wt` [filters, memory], bias [units].
#[allow(clippy::too_many_arguments)]
fn float_model(
    batch: usize,
    input: usize,
    filters: usize,
    memory: usize,
    rank: usize,
    wf: &[f32],
    wt: &[f32],
    bias: Option<&[f32]>,
    activation: u8,
) -> Vec<u8> {
    let units = filters / rank;
    let (b, i, f, m, u) = (batch as i32, input as i32, filters as i32, memory as i32, units as i32);
    let mut t = vec![
        Tensor::new(F32, &[b, i]),
        Tensor::f32s(&[f, i], wf),
        Tensor::f32s(&[f, m], wt),
        Tensor::new(F32, &[b, f * m]).var(),
        Tensor::new(F32, &[b, u]),
    ];
    let bias_at = match bias {
        Some(v) => {
            t.push(Tensor::f32s(&[u], v));
            5
        }
        None => -1,
    };
    model(SVDF, options(rank as i32, activation), &t, &[0, 1, 2, bias_at, 3], &[4], &[])
}

/// The reference: memory[b][f] the last `memory` projections, oldest first.
#[allow(clippy::too_many_arguments)]
fn naive(
    xs: &[Vec<f32>],
    batch: usize,
    input: usize,
    filters: usize,
    memory: usize,
    rank: usize,
    wf: &[f32],
    wt: &[f32],
    bias: Option<&[f32]>,
) -> Vec<Vec<f64>> {
    let units = filters / rank;
    let mut mem = vec![vec![0.0f64; memory]; batch * filters];
    let mut outs = Vec::new();
    for x in xs {
        let mut out = vec![0.0f64; batch * units];
        for b in 0..batch {
            for f in 0..filters {
                let p: f64 = (0..input)
                    .map(|k| f64::from(wf[f * input + k]) * f64::from(x[b * input + k]))
                    .sum();
                let m = &mut mem[b * filters + f];
                if memory > 0 {
                    m.remove(0);
                    m.push(p);
                }
                let dot: f64 = (0..memory).map(|j| f64::from(wt[f * memory + j]) * m[j]).sum();
                out[b * units + f / rank] += dot;
            }
            for u in 0..units {
                out[b * units + u] += bias.map_or(0.0, |v| f64::from(v[u]));
            }
        }
        outs.push(out);
    }
    outs
}

fn values(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32 / 16_777_216.0) - 0.5
        })
        .collect()
}

proptest! {
    #![proptest_config(cases(24, 2))]

    #[test]
    fn float_svdf_carries_its_memory_across_invokes(
        batch in 1usize..3, input in 1usize..5, units in 1usize..4, rank in 1usize..3,
        memory in 1usize..5, bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let filters = units * rank;
        let wf = values(seed, filters * input);
        let wt = values(seed ^ 1, filters * memory);
        let b = values(seed ^ 2, units);
        let bias = bias.then_some(&b[..]);
        let file = float_model(batch, input, filters, memory, rank, &wf, &wt, bias, 0);
        let xs: Vec<Vec<f32>> = (0..5).map(|k| values(seed ^ (10 + k), batch * input)).collect();
        let feeds: Vec<Vec<Vec<u8>>> = xs.iter().map(|x| vec![f32_bytes(x)]).collect();
        let got = run(&file, &feeds, true).unwrap();
        let want = naive(&xs, batch, input, filters, memory, rank, &wf, &wt, bias);
        for (k, w) in want.iter().enumerate() {
            for (g, w) in to_f32(&got[k][0]).iter().zip(w) {
                prop_assert!((f64::from(*g) - w).abs() < 1e-5, "invoke {}: {} vs {}", k, g, w);
            }
        }
        // After reset_state the first invoke repeats.
        prop_assert_eq!(&got[5][0], &got[0][0]);
    }
}

#[test]
fn float_activation_applies_to_the_sum() {
    // One filter, memory 1: out = relu(wt * wf . x + bias).
    let file = float_model(1, 2, 1, 1, 1, &[1.0, 2.0], &[3.0], Some(&[-10.0]), 1);
    let got = run(&file, &[vec![f32_bytes(&[1.0, 1.0])], vec![f32_bytes(&[1.0, 2.0])]], false)
        .unwrap();
    assert_eq!(to_f32(&got[0][0]), [0.0]); // relu(9 - 10)
    assert_eq!(to_f32(&got[1][0]), [5.0]); // relu(15 - 10)
}

/// int8 input, time weights and state (zero point -7): TensorFlow Lite Micro's outputs over
/// four invokes of this model, printed by its Python interpreter (LiteRT has no such body).
#[test]
fn int8_state_equals_tensorflow_lite_micro() {
    let t = [
        Tensor::new(I8, &[1, 3]).q(0.05, -4),
        Tensor::i8s(&[2, 3], &[50, -60, 70, -80, 90, 30]).q(0.01, 0),
        Tensor::i8s(&[2, 3], &[40, -50, 60, 70, 20, -90]).q(0.02, 0),
        Tensor::i32s(&[2], &[300, -200]).q(0.03 * 0.02, 0),
        Tensor::new(I8, &[1, 6]).q(0.03, -7).var(),
        Tensor::new(I8, &[1, 2]).q(0.04, 5),
    ];
    let file = model(SVDF, options(1, 1), &t, &[0, 1, 2, 3, 4], &[5], &[]);
    let feeds: Vec<Vec<Vec<u8>>> = [[10i8, -20, 30], [-100, 50, 127], [0, 0, 0], [-128, 90, -30]]
        .iter()
        .map(|f| vec![f.iter().map(|&v| v as u8).collect()])
        .collect();
    let got = run(&file, &feeds, true).unwrap();
    let want: [[i8; 2]; 4] = [[70, 37], [-24, -128], [39, 9], [127, -35]];
    for (k, w) in want.iter().enumerate() {
        let g: Vec<i8> = got[k][0].iter().map(|&b| b as i8).collect();
        assert_eq!(g, w, "invoke {k}");
    }
    assert_eq!(got[4][0], got[0][0]);
}

#[test]
fn malformed_svdfs_are_refused() {
    let wf = [0.5f32; 6];
    let wt = [0.5f32; 6];
    // Rank 4 does not divide 2 filters.
    let bad_rank = {
        let t = [
            Tensor::new(F32, &[1, 3]),
            Tensor::f32s(&[2, 3], &wf),
            Tensor::f32s(&[2, 3], &wt),
            Tensor::new(F32, &[1, 6]).var(),
            Tensor::new(F32, &[1, 1]),
        ];
        model(SVDF, options(4, 0), &t, &[0, 1, 2, -1, 3], &[4], &[])
    };
    assert!(matches!(setup_error(&bad_rank), KernelError::Mismatch { .. }));
    // A state that is not a variable.
    let constant_state = {
        let t = [
            Tensor::new(F32, &[1, 3]),
            Tensor::f32s(&[2, 3], &wf),
            Tensor::f32s(&[2, 3], &wt),
            Tensor::f32s(&[1, 6], &[0.0; 6]),
            Tensor::new(F32, &[1, 2]),
        ];
        model(SVDF, options(1, 0), &t, &[0, 1, 2, -1, 3], &[4], &[])
    };
    assert_eq!(
        setup_error(&constant_state),
        KernelError::Mismatch {
            what: "a state input is not a variable tensor"
        }
    );
    // State of the wrong size, output of the wrong shape, an int32 input.
    for (state, out, input_ty) in [(5, 2, F32), (6, 3, F32), (6, 2, I32)] {
        let t = [
            Tensor::new(input_ty, &[1, 3]),
            Tensor::f32s(&[2, 3], &wf),
            Tensor::f32s(&[2, 3], &wt),
            Tensor::new(F32, &[1, state]).var(),
            Tensor::new(F32, &[1, out]),
        ];
        let file = model(SVDF, options(1, 0), &t, &[0, 1, 2, -1, 3], &[4], &[]);
        let _ = setup_error(&file);
    }
}
