//! RNN tests: the float cell against its definition in f64 (one step, a sequence in either
//! layout, both directions merged or not), the hybrid cell close to the float one, refusals.

// The references index as the definitions read.
#![allow(clippy::needless_range_loop)]

use proptest::prelude::*;

use super::super::base::recurrent::testing::{
    F32, I8, Tensor, f32_bytes, model, run, setup_error, to_f32,
};
use super::super::proptest_config::cases;
use crate::interpreter::KernelError;
use crate::model::tests::builder::F;

const RNN: i32 = 24;
const UNI_RNN: i32 = 35;
const BI_RNN: i32 = 46;

fn values(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (((s >> 40) as f32 / 16_777_216.0) - 0.5) * scale
        })
        .collect()
}

/// One direction's weights: input [units, input], recurrent [units, units], bias [units].
struct Dir {
    units: usize,
    w: Vec<f32>,
    r: Vec<f32>,
    b: Vec<f32>,
}

fn dir(units: usize, input: usize, seed: u64) -> Dir {
    Dir {
        units,
        w: values(seed, units * input, 1.5),
        r: values(seed ^ 1, units * units, 1.0),
        b: values(seed ^ 2, units, 0.5),
    }
}

/// Adds a direction's weights and hidden state; returns their indices.
fn add_dir(t: &mut Vec<Tensor>, d: &Dir, input: usize, batch: usize, hybrid: bool) -> [i32; 4] {
    let (u, i) = (d.units as i32, input as i32);
    let m = |v: &[f32], shape: &[i32]| {
        if hybrid {
            let s = v.iter().fold(0.0f32, |a, x| a.max(x.abs())) / 127.0;
            let q: Vec<i8> = v.iter().map(|x| (x / s).round() as i8).collect();
            Tensor::i8s(shape, &q).q(s, 0)
        } else {
            Tensor::f32s(shape, v)
        }
    };
    let mut ids = [0; 4];
    for (k, tensor) in [
        m(&d.w, &[u, i]),
        m(&d.r, &[u, u]),
        Tensor::f32s(&[u], &d.b),
        Tensor::new(F32, &[batch as i32, u]).var(),
    ]
    .into_iter()
    .enumerate()
    {
        t.push(tensor);
        ids[k] = t.len() as i32 - 1;
    }
    ids
}

/// The cell in f64 over steps `order` of a `[batch][time][input]` sequence (batch-major
/// indices); writes `[batch][time][units]`.
fn naive(d: &Dir, x: &[f32], batch: usize, time: usize, input: usize, forward: bool) -> Vec<f64> {
    let u = d.units;
    let mut out = vec![0.0; batch * time * u];
    for b in 0..batch {
        let mut h = vec![0.0f64; u];
        for k in 0..time {
            let t = if forward { k } else { time - 1 - k };
            let xv = &x[(b * time + t) * input..(b * time + t + 1) * input];
            let next: Vec<f64> = (0..u)
                .map(|r| {
                    let mut v = f64::from(d.b[r]);
                    v += (0..input).map(|j| f64::from(d.w[r * input + j]) * f64::from(xv[j])).sum::<f64>();
                    v += (0..u).map(|j| f64::from(d.r[r * u + j]) * h[j]).sum::<f64>();
                    v.tanh()
                })
                .collect();
            h = next;
            out[(b * time + t) * u..(b * time + t + 1) * u].copy_from_slice(&h);
        }
    }
    out
}

/// `x` (batch-major) in the time-major layout, or as is.
fn layout(x: &[f32], batch: usize, time: usize, width: usize, time_major: bool) -> Vec<f32> {
    if !time_major {
        return x.to_vec();
    }
    let mut y = vec![0.0; x.len()];
    for b in 0..batch {
        for t in 0..time {
            let from = (b * time + t) * width;
            let to = (t * batch + b) * width;
            y[to..to + width].copy_from_slice(&x[from..from + width]);
        }
    }
    y
}

fn close(got: &[f32], want: &[f64], tolerance: f64) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        prop_assert!((f64::from(*g) - w).abs() <= tolerance, "element {}: {} vs {}", k, g, w);
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases(32, 2))]

    #[test]
    fn sequence_rnn_equals_its_definition(
        batch in 1usize..3, time in 1usize..5, input in 1usize..4, units in 1usize..5,
        time_major in any::<bool>(), hybrid in any::<bool>(), seed in any::<u64>(),
    ) {
        let d = dir(units, input, seed);
        let seq = |w: usize| if time_major { vec![time as i32, batch as i32, w as i32] } else { vec![batch as i32, time as i32, w as i32] };
        let mut t = vec![Tensor::new(F32, &seq(input)), Tensor::new(F32, &seq(units))];
        let ids = add_dir(&mut t, &d, input, batch, hybrid);
        let opts = vec![(0, F::U8(u8::from(time_major))), (1, F::U8(4))];
        let file = model(UNI_RNN, (31, opts), &t, &[0, ids[0], ids[1], ids[2], ids[3]], &[1], &[]);
        let x = values(seed ^ 9, batch * time * input, 2.0);
        let got = run(&file, &[vec![f32_bytes(&layout(&x, batch, time, input, time_major))]], true).unwrap();
        let want = naive(&d, &x, batch, time, input, true);
        let want = layout(&want.iter().map(|&v| v as f32).collect::<Vec<_>>(), batch, time, units, time_major);
        let want: Vec<f64> = want.iter().map(|&v| f64::from(v)).collect();
        // Hybrid: int8 weights and inputs quantized per step, a few percent off.
        close(&to_f32(&got[0][0]), &want, if hybrid { 0.15 } else { 1e-5 })?;
        prop_assert_eq!(&got[1][0], &got[0][0]);
    }

    #[test]
    fn bidirectional_rnn_runs_the_backward_direction_in_reverse(
        batch in 1usize..3, time in 1usize..5, input in 1usize..4, units in 1usize..4,
        merge in any::<bool>(), time_major in any::<bool>(), seed in any::<u64>(),
    ) {
        let (fw, bw) = (dir(units, input, seed), dir(units + 1, input, seed ^ 77));
        let seq = |w: usize| if time_major { vec![time as i32, batch as i32, w as i32] } else { vec![batch as i32, time as i32, w as i32] };
        let mut t = vec![Tensor::new(F32, &seq(input))];
        let f = add_dir(&mut t, &fw, input, batch, false);
        let b = add_dir(&mut t, &bw, input, batch, false);
        let outs: Vec<i32> = if merge {
            t.push(Tensor::new(F32, &seq(2 * units + 1)));
            vec![t.len() as i32 - 1]
        } else {
            t.push(Tensor::new(F32, &seq(units)));
            t.push(Tensor::new(F32, &seq(units + 1)));
            vec![t.len() as i32 - 2, t.len() as i32 - 1]
        };
        let inputs = [0, f[0], f[1], f[2], f[3], b[0], b[1], b[2], b[3], -1, -1, -1];
        let opts = vec![(0, F::U8(u8::from(time_major))), (1, F::U8(4)), (2, F::U8(u8::from(merge)))];
        let file = model(BI_RNN, (70, opts), &t, &inputs, &outs, &[]);
        let x = values(seed ^ 5, batch * time * input, 2.0);
        let got = run(&file, &[vec![f32_bytes(&layout(&x, batch, time, input, time_major))]], false).unwrap();
        let wf = naive(&fw, &x, batch, time, input, true);
        let wb = naive(&bw, &x, batch, time, input, false);
        let to32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        if merge {
            let mut both = Vec::new();
            for row in 0..batch * time {
                both.extend_from_slice(&wf[row * units..(row + 1) * units]);
                both.extend_from_slice(&wb[row * (units + 1)..(row + 1) * (units + 1)]);
            }
            let want = layout(&to32(&both), batch, time, 2 * units + 1, time_major);
            close(&to_f32(&got[0][0]), &want.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), 1e-5)?;
        } else {
            let f = layout(&to32(&wf), batch, time, units, time_major);
            let b = layout(&to32(&wb), batch, time, units + 1, time_major);
            close(&to_f32(&got[0][0]), &f.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), 1e-5)?;
            close(&to_f32(&got[0][1]), &b.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), 1e-5)?;
        }
    }
}

#[test]
fn rnn_steps_once_per_invoke() {
    let d = dir(3, 2, 11);
    let mut t = vec![Tensor::new(F32, &[2, 2]), Tensor::new(F32, &[2, 3])];
    let ids = add_dir(&mut t, &d, 2, 2, false);
    let file = model(RNN, (7, vec![(0, F::U8(4))]), &t, &[0, ids[0], ids[1], ids[2], ids[3]], &[1], &[]);
    let x = values(4, 12, 2.0);
    // Three invokes of RNN over [batch, input] are a sequence of three steps.
    let feeds: Vec<Vec<Vec<u8>>> = (0..3)
        .map(|k| {
            let step: Vec<f32> = (0..2).flat_map(|b| x[(b * 3 + k) * 2..(b * 3 + k) * 2 + 2].to_vec()).collect();
            vec![f32_bytes(&step)]
        })
        .collect();
    let got = run(&file, &feeds, true).unwrap();
    let want = naive(&d, &x, 2, 3, 2, true);
    for k in 0..3 {
        let g = to_f32(&got[k][0]);
        for b in 0..2 {
            for u in 0..3 {
                assert!((f64::from(g[b * 3 + u]) - want[(b * 3 + k) * 3 + u]).abs() < 1e-5);
            }
        }
    }
    assert_eq!(got[3][0], got[0][0]);
}

#[test]
fn malformed_rnns_are_refused() {
    let d = dir(3, 2, 1);
    let build = |hidden: Tensor, input: Tensor, out: Tensor| {
        let mut t = vec![input, out];
        let ids = add_dir(&mut t, &d, 2, 2, false);
        t[ids[3] as usize] = hidden;
        model(RNN, (7, vec![(0, F::U8(4))]), &t, &[0, ids[0], ids[1], ids[2], ids[3]], &[1], &[])
    };
    let ok = build(Tensor::new(F32, &[2, 3]).var(), Tensor::new(F32, &[2, 2]), Tensor::new(F32, &[2, 3]));
    assert!(run(&ok, &[vec![f32_bytes(&[0.0; 4])]], false).is_ok());
    assert_eq!(
        setup_error(&build(Tensor::f32s(&[2, 3], &[0.0; 6]), Tensor::new(F32, &[2, 2]), Tensor::new(F32, &[2, 3]))),
        KernelError::Mismatch { what: "a state input is not a variable tensor" }
    );
    assert!(matches!(
        setup_error(&build(Tensor::new(F32, &[2, 4]).var(), Tensor::new(F32, &[2, 2]), Tensor::new(F32, &[2, 3]))),
        KernelError::Mismatch { .. }
    ));
    assert!(matches!(
        setup_error(&build(Tensor::new(F32, &[2, 3]).var(), Tensor::new(F32, &[2, 3]), Tensor::new(F32, &[2, 3]))),
        KernelError::Mismatch { .. }
    ));
    assert!(matches!(
        setup_error(&build(Tensor::new(F32, &[2, 3]).var(), Tensor::new(I8, &[2, 2]).q(0.1, 0), Tensor::new(F32, &[2, 3]))),
        KernelError::Unsupported { .. }
    ));
    assert_eq!(
        setup_error(&build(Tensor::new(F32, &[2, 3]).var(), Tensor::new(F32, &[2, 2]), Tensor::new(F32, &[2, 4]))),
        super::super::base::check::OUTPUT_SHAPE
    );
}
