//! UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM tests: gemmlowp's int16
//! functions over every input, the integer helpers, and one-operator models against naive
//! references.

// The references index as the definitions read.
#![allow(clippy::needless_range_loop)]

use super::fixed16;

/// FNV-1a over the 16-bit outputs for every int16 input, as a C++ program over gemmlowp's
/// `fixedpoint.h` printed them (`gemmlowp::logistic` / `gemmlowp::tanh` of
/// `FixedPoint<int16_t, I>`, I = 0..=6).
fn fnv(f: impl Fn(i16) -> i16) -> u64 {
    let mut h: u64 = 1_469_598_103_934_665_603;
    for v in i16::MIN..=i16::MAX {
        h = (h ^ u64::from(f(v) as u16)).wrapping_mul(1_099_511_628_211);
    }
    h
}

#[test]
#[cfg_attr(miri, ignore = "65536 inputs x 14 functions")]
fn fixed16_logistic_and_tanh_equal_gemmlowp_everywhere() {
    const LOGISTIC: [u64; 7] = [
        9_328_580_132_139_414_279,
        16_069_128_758_371_967_645,
        18_156_976_030_777_298_173,
        733_176_020_770_865_927,
        7_346_234_720_472_114_432,
        6_595_704_433_860_360_252,
        18_177_694_968_910_391_780,
    ];
    const TANH: [u64; 7] = [
        11_606_442_902_192_528_199,
        4_492_319_765_065_033_967,
        10_069_329_119_996_753_683,
        2_418_701_815_056_745_514,
        14_564_420_799_052_619_932,
        11_713_350_199_225_570_568,
        7_536_370_055_449_078_250,
    ];
    for bits in 0..7 {
        assert_eq!(fnv(|v| fixed16::logistic(v, bits)), LOGISTIC[bits as usize], "logistic {bits}");
        assert_eq!(fnv(|v| fixed16::tanh(v, bits)), TANH[bits as usize], "tanh {bits}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "a million inputs")]
fn inverse_square_root_equals_litert() {
    // FNV-1a over (multiplier, shift) of GetInvSqrtQuantizedMultiplierExp(v, -1) for v in
    // 0..2^20 and then every 104729th value up to i32::MAX, from a C++ program over
    // LiteRT's common.h.
    let mut h: u64 = 1_469_598_103_934_665_603;
    let mut mix = |a: i32| h = (h ^ u64::from(a as u32)).wrapping_mul(1_099_511_628_211);
    let inputs = (0..1 << 20).chain(((1i64 << 20)..i64::from(i32::MAX)).step_by(104_729).map(|v| v as i32));
    for v in inputs {
        let (a, s) = super::integer::test_inv_sqrt(v);
        mix(a);
        mix(s);
    }
    assert_eq!(h, 8_288_699_061_103_697_157);
}

// ---------------------------------------------------------------- one-operator models

use proptest::prelude::*;

use super::super::base::recurrent::testing::{
    F32, I8, I16, Tensor, f32_bytes, float, model, run, setup_error, to_f32,
};
use super::super::proptest_config::cases;
use crate::interpreter::KernelError;
use crate::model::tests::builder::F;

const UNI_LSTM: i32 = 44;
const BI_LSTM: i32 = 52;

/// A float LSTM's settings.
#[derive(Clone, Debug)]
struct Spec {
    batch: usize,
    time: usize,
    input: usize,
    cell: usize,
    /// Projection to this many outputs.
    proj: Option<usize>,
    cifg: bool,
    peephole: bool,
    ln: bool,
    time_major: bool,
    cell_clip: f32,
    proj_clip: f32,
    seed: u64,
}

impl Spec {
    fn output(&self) -> usize {
        self.proj.unwrap_or(self.cell)
    }
}

fn values(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (((s >> 40) as f32 / 16_777_216.0) - 0.5) * scale
        })
        .collect()
}

/// The weights of a spec: per gate input, recurrent, peephole, bias, layer norm; projection
/// and its bias.
struct Weights {
    input: [Vec<f32>; 4],
    recurrent: [Vec<f32>; 4],
    peephole: [Vec<f32>; 4],
    bias: [Vec<f32>; 4],
    ln: [Vec<f32>; 4],
    proj: Vec<f32>,
    proj_bias: Vec<f32>,
}

fn weights(s: &Spec) -> Weights {
    let (i, c, o) = (s.input, s.cell, s.output());
    let g = |k: u64, n, scale| -> [Vec<f32>; 4] {
        core::array::from_fn(|gate| values(s.seed ^ (k * 8 + gate as u64), n, scale))
    };
    Weights {
        input: g(1, c * i, 1.0),
        recurrent: g(2, c * o, 1.0),
        peephole: g(3, c, 0.6),
        bias: g(4, c, 0.8),
        ln: core::array::from_fn(|gate| {
            values(s.seed ^ (40 + gate as u64), c, 0.5)
                .iter()
                .map(|v| v + 1.0)
                .collect()
        }),
        proj: values(s.seed ^ 50, o * c, 1.0),
        proj_bias: values(s.seed ^ 51, o, 0.4),
    }
}

fn lstm_model(s: &Spec, w: &Weights) -> Vec<u8> {
    let (b, t, i, c, o) = (
        s.batch as i32,
        s.time as i32,
        s.input as i32,
        s.cell as i32,
        s.output() as i32,
    );
    let seq = |last| if s.time_major { vec![t, b, last] } else { vec![b, t, last] };
    let mut tensors = vec![Tensor::new(F32, &seq(i)), Tensor::new(F32, &seq(o))];
    let mut add = |t: Tensor| {
        tensors.push(t);
        tensors.len() as i32 - 1
    };
    let mut inputs = vec![0i32];
    for g in 0..4 {
        let used = !(g == 0 && s.cifg);
        inputs.push(if used { add(Tensor::f32s(&[c, i], &w.input[g])) } else { -1 });
    }
    for g in 0..4 {
        let used = !(g == 0 && s.cifg);
        inputs.push(if used { add(Tensor::f32s(&[c, o], &w.recurrent[g])) } else { -1 });
    }
    for g in [0, 1, 3] {
        let used = s.peephole && !(g == 0 && s.cifg);
        inputs.push(if used { add(Tensor::f32s(&[c], &w.peephole[g])) } else { -1 });
    }
    for g in 0..4 {
        let used = !(g == 0 && s.cifg);
        inputs.push(if used { add(Tensor::f32s(&[c], &w.bias[g])) } else { -1 });
    }
    match s.proj {
        Some(_) => {
            inputs.push(add(Tensor::f32s(&[o, c], &w.proj)));
            inputs.push(add(Tensor::f32s(&[o], &w.proj_bias)));
        }
        None => inputs.extend([-1, -1]),
    }
    inputs.push(add(Tensor::new(F32, &[b, o]).var()));
    inputs.push(add(Tensor::new(F32, &[b, c]).var()));
    if s.ln {
        for g in 0..4 {
            let used = !(g == 0 && s.cifg);
            inputs.push(if used { add(Tensor::f32s(&[c], &w.ln[g])) } else { -1 });
        }
    }
    let opts = vec![
        (0, F::U8(4)),
        float(1, s.cell_clip),
        float(2, s.proj_clip),
        (3, F::U8(u8::from(s.time_major))),
    ];
    model(UNI_LSTM, (71, opts), &tensors, &inputs, &[1], &[])
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn clip(v: f64, c: f32) -> f64 {
    if c > 0.0 {
        v.clamp(-f64::from(c), f64::from(c))
    } else {
        v
    }
}

/// The LSTM in f64, straight from its definition; returns the output rows in the input's
/// layout.
fn naive(s: &Spec, w: &Weights, x: &[f32]) -> Vec<f64> {
    let (bt, t, n, c, o) = (s.batch, s.time, s.input, s.cell, s.output());
    let at = |b: usize, k: usize, width: usize| {
        if s.time_major {
            (k * bt + b) * width
        } else {
            (b * t + k) * width
        }
    };
    let mut out = vec![0.0; bt * t * o];
    for b in 0..bt {
        let (mut h, mut cs) = (vec![0.0f64; o], vec![0.0f64; c]);
        for k in 0..t {
            let xv = &x[at(b, k, n)..at(b, k, n) + n];
            let gate = |g: usize, cell: &[f64], act: &dyn Fn(f64) -> f64| -> Vec<f64> {
                let mut pre: Vec<f64> = (0..c)
                    .map(|r| {
                        let mut v = 0.0;
                        for j in 0..n {
                            v += f64::from(w.input[g][r * n + j]) * f64::from(xv[j]);
                        }
                        for j in 0..o {
                            v += f64::from(w.recurrent[g][r * o + j]) * h[j];
                        }
                        if s.peephole && g != 2 {
                            v += f64::from(w.peephole[g][r]) * cell[r];
                        }
                        if !s.ln {
                            v += f64::from(w.bias[g][r]);
                        }
                        v
                    })
                    .collect();
                if s.ln {
                    let mean = pre.iter().sum::<f64>() / c as f64;
                    let var = pre.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / c as f64;
                    let inv = 1.0 / (var + 1e-8).sqrt();
                    for (r, v) in pre.iter_mut().enumerate() {
                        *v = (*v - mean) * inv * f64::from(w.ln[g][r]) + f64::from(w.bias[g][r]);
                    }
                }
                pre.into_iter().map(act).collect()
            };
            let f = gate(1, &cs, &sigmoid);
            let i = if s.cifg {
                f.iter().map(|v| 1.0 - v).collect()
            } else {
                gate(0, &cs, &sigmoid)
            };
            let g = gate(2, &cs, &f64::tanh);
            for r in 0..c {
                cs[r] = clip(f[r] * cs[r] + i[r] * g[r], s.cell_clip);
            }
            let og = gate(3, &cs, &sigmoid);
            let hidden: Vec<f64> = (0..c).map(|r| og[r] * cs[r].tanh()).collect();
            h = match s.proj {
                Some(_) => (0..o)
                    .map(|r| {
                        let v: f64 = (0..c).map(|j| f64::from(w.proj[r * c + j]) * hidden[j]).sum();
                        clip(v + f64::from(w.proj_bias[r]), s.proj_clip)
                    })
                    .collect(),
                None => hidden,
            };
            out[at(b, k, o)..at(b, k, o) + o].copy_from_slice(&h);
        }
    }
    out
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (1usize..3, 1usize..5, 1usize..4, 1usize..5, prop::option::of(1usize..4)),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        (prop_oneof![Just(0.0f32), Just(0.3)], prop_oneof![Just(0.0f32), Just(0.2)], any::<u64>()),
    )
        .prop_map(|((batch, time, input, cell, proj), (cifg, peephole, ln, time_major), (cc, pc, seed))| {
            Spec {
                batch,
                time,
                input,
                cell,
                proj,
                cifg,
                peephole,
                ln: ln && cell > 1,
                time_major,
                cell_clip: cc,
                proj_clip: if proj.is_some() { pc } else { 0.0 },
                seed,
            }
        })
}

proptest! {
    #![proptest_config(cases(48, 2))]

    #[test]
    fn float_lstm_equals_its_definition(s in spec()) {
        let w = weights(&s);
        let file = lstm_model(&s, &w);
        let x = values(s.seed ^ 99, s.batch * s.time * s.input, 2.0);
        let got = run(&file, &[vec![f32_bytes(&x)]], true).unwrap();
        let want = naive(&s, &w, &x);
        let out = to_f32(&got[0][0]);
        prop_assert_eq!(out.len(), want.len());
        for (k, (g, w)) in out.iter().zip(&want).enumerate() {
            prop_assert!((f64::from(*g) - w).abs() < 2e-5, "element {}: {} vs {}", k, g, w);
        }
        // The states start over after reset_state.
        prop_assert_eq!(&got[1][0], &got[0][0]);
    }
}

#[test]
fn state_carries_over_between_invokes() {
    let s = Spec {
        batch: 2,
        time: 3,
        input: 2,
        cell: 3,
        proj: None,
        cifg: false,
        peephole: true,
        ln: false,
        time_major: false,
        cell_clip: 0.0,
        proj_clip: 0.0,
        seed: 7,
    };
    let w = weights(&s);
    let x = values(3, 12, 2.0);
    // The same sequence twice in one model of time 6 ...
    let long = Spec { time: 6, ..s.clone() };
    let doubled: Vec<f32> = (0..2)
        .flat_map(|b| {
            let row = x[b * 6..b * 6 + 6].to_vec();
            row.iter().chain(row.iter()).copied().collect::<Vec<_>>()
        })
        .collect();
    let whole = to_f32(&run(&lstm_model(&long, &w), &[vec![f32_bytes(&doubled)]], false).unwrap()[0][0]);
    // ... equals two invokes of the model of time 3.
    let twice = run(&lstm_model(&s, &w), &[vec![f32_bytes(&x)], vec![f32_bytes(&x)]], false).unwrap();
    let second = to_f32(&twice[1][0]);
    for b in 0..2 {
        assert_eq!(&second[b * 9..b * 9 + 9], &whole[b * 18 + 9..b * 18 + 18]);
    }
}

fn base_spec() -> Spec {
    Spec {
        batch: 1,
        time: 2,
        input: 2,
        cell: 2,
        proj: None,
        cifg: false,
        peephole: false,
        ln: false,
        time_major: false,
        cell_clip: 0.0,
        proj_clip: 0.0,
        seed: 1,
    }
}

#[test]
fn malformed_lstms_are_refused() {
    let s = base_spec();
    let w = weights(&s);
    let good = lstm_model(&s, &w);
    assert!(run(&good, &[vec![f32_bytes(&[0.5; 4])]], false).is_ok());
    // A negative clip.
    let neg = lstm_model(&Spec { cell_clip: -1.0, ..s.clone() }, &w);
    assert!(matches!(setup_error(&neg), KernelError::Mismatch { .. }));
    // Input to input weights without recurrent to input ones (a half CIFG).
    let half = {
        let mut t = vec![Tensor::new(F32, &[1, 2, 2]), Tensor::new(F32, &[1, 2, 2])];
        let mut inputs = vec![0];
        for k in 0..8 {
            if k == 4 {
                inputs.push(-1);
                continue;
            }
            t.push(Tensor::f32s(&[2, 2], &[0.1; 4]));
            inputs.push(t.len() as i32 - 1);
        }
        inputs.extend([-1, -1, -1]);
        for _ in 0..4 {
            t.push(Tensor::f32s(&[2], &[0.1; 2]));
            inputs.push(t.len() as i32 - 1);
        }
        inputs.extend([-1, -1]);
        t.push(Tensor::new(F32, &[1, 2]).var());
        inputs.push(t.len() as i32 - 1);
        t.push(Tensor::new(F32, &[1, 2]).var());
        inputs.push(t.len() as i32 - 1);
        model(UNI_LSTM, (71, vec![(0, F::U8(4))]), &t, &inputs, &[1], &[])
    };
    assert!(matches!(setup_error(&half), KernelError::Mismatch { .. }));
}

/// Builds the base float model with tensor `k` (its index in the model) replaced.
fn with_tensor(k: usize, t: Tensor) -> Vec<u8> {
    let s = base_spec();
    let w = weights(&s);
    // The base model's tensors in the order lstm_model adds them.
    let (c, i, o) = (2, 2, 2);
    let mut tensors = vec![Tensor::new(F32, &[1, 2, i]), Tensor::new(F32, &[1, 2, o])];
    let mut inputs = vec![0i32];
    for g in 0..4 {
        tensors.push(Tensor::f32s(&[c, i], &w.input[g]));
        inputs.push(tensors.len() as i32 - 1);
    }
    for g in 0..4 {
        tensors.push(Tensor::f32s(&[c, o], &w.recurrent[g]));
        inputs.push(tensors.len() as i32 - 1);
    }
    inputs.extend([-1, -1, -1]);
    for g in 0..4 {
        tensors.push(Tensor::f32s(&[c], &w.bias[g]));
        inputs.push(tensors.len() as i32 - 1);
    }
    inputs.extend([-1, -1]);
    tensors.push(Tensor::new(F32, &[1, o]).var());
    inputs.push(tensors.len() as i32 - 1);
    tensors.push(Tensor::new(F32, &[1, c]).var());
    inputs.push(tensors.len() as i32 - 1);
    tensors[k] = t;
    model(UNI_LSTM, (71, vec![(0, F::U8(4))]), &tensors, &inputs, &[1], &[])
}

#[test]
fn operands_of_the_wrong_kind_are_refused() {
    // A state that is not a variable (tensor 14: the output state).
    assert_eq!(
        setup_error(&with_tensor(14, Tensor::f32s(&[1, 2], &[0.0; 2]))),
        KernelError::Mismatch {
            what: "a state input is not a variable tensor"
        }
    );
    // A state of another size.
    assert!(matches!(
        setup_error(&with_tensor(15, Tensor::new(F32, &[1, 3]).var())),
        KernelError::Mismatch { .. }
    ));
    // The output of another shape.
    assert!(matches!(
        setup_error(&with_tensor(1, Tensor::new(F32, &[1, 2, 3]))),
        KernelError::Mismatch { .. }
    ));
    // A 4-D input.
    assert!(matches!(
        setup_error(&with_tensor(0, Tensor::new(F32, &[1, 1, 2, 2]))),
        KernelError::Unsupported { .. }
    ));
    // Weights of the wrong shape.
    assert!(matches!(
        setup_error(&with_tensor(2, Tensor::f32s(&[3, 2], &[0.0; 6]))),
        KernelError::Mismatch { .. }
    ));
    // An int8 input with float weights.
    assert!(matches!(
        setup_error(&with_tensor(0, Tensor::new(I8, &[1, 2, 2]).q(0.1, 0))),
        KernelError::Unsupported { .. }
    ));
}

#[test]
fn an_integer_lstm_needs_its_intermediates_and_a_power_of_two_cell_scale() {
    let (c, i) = (2, 2);
    let build = |cell_scale: f32, intermediates: bool| {
        let mut t = vec![
            Tensor::new(I8, &[1, 2, i]).q(1.0 / 64.0, 0),
            Tensor::new(I8, &[1, 2, c]).q(1.0 / 128.0, 0),
        ];
        let mut inputs = vec![0i32];
        for _ in 0..8 {
            t.push(Tensor::i8s(&[c, 2], &[10, -20, 30, 40]).q(0.01, 0));
            inputs.push(t.len() as i32 - 1);
        }
        inputs.extend([-1, -1, -1]);
        for _ in 0..4 {
            t.push(Tensor::i32s(&[c], &[100, -100]).q(0.0001, 0));
            inputs.push(t.len() as i32 - 1);
        }
        inputs.extend([-1, -1]);
        t.push(Tensor::new(I8, &[1, c]).q(1.0 / 128.0, 0).var());
        inputs.push(t.len() as i32 - 1);
        t.push(Tensor::new(I16, &[1, c]).q(cell_scale, 0).var());
        inputs.push(t.len() as i32 - 1);
        let mut im = Vec::new();
        if intermediates {
            for _ in 0..4 {
                t.push(Tensor::new(F32, &[0]));
                im.push(t.len() as i32 - 1);
            }
            t.push(Tensor::new(I8, &[0]).q(1.0 / 128.0, 0));
            im.push(t.len() as i32 - 1);
        }
        model(UNI_LSTM, (71, vec![(0, F::U8(4))]), &t, &inputs, &[1], &im)
    };
    let ok = build(1.0 / 2048.0, true);
    let out = run(&ok, &[vec![vec![5u8, 250, 7, 9]]], true).unwrap();
    assert_eq!(out[0][0].len(), 4);
    assert_eq!(out[1][0], out[0][0]);
    assert!(matches!(setup_error(&build(1.0 / 2048.0, false)), KernelError::Mismatch { .. }));
    assert!(matches!(setup_error(&build(0.0003, true)), KernelError::Unsupported { .. }));
    assert!(matches!(setup_error(&build(1.0 / 64.0, true)), KernelError::Unsupported { .. }));
}

#[test]
fn bidirectional_directions_must_match_in_size() {
    // fw cell 2, bw cell 3.
    let mut t = vec![Tensor::new(F32, &[2, 1, 2])];
    let mut inputs = vec![0i32];
    let direction = |t: &mut Vec<Tensor>, c: i32| {
        let mut ids = Vec::new();
        for _ in 0..4 {
            t.push(Tensor::f32s(&[c, 2], &vec![0.1; (c * 2) as usize]));
            ids.push(t.len() as i32 - 1);
        }
        for _ in 0..4 {
            t.push(Tensor::f32s(&[c, c], &vec![0.1; (c * c) as usize]));
            ids.push(t.len() as i32 - 1);
        }
        ids.extend([-1, -1, -1]);
        for _ in 0..4 {
            t.push(Tensor::f32s(&[c], &vec![0.1; c as usize]));
            ids.push(t.len() as i32 - 1);
        }
        ids.extend([-1, -1]);
        ids
    };
    let fw = direction(&mut t, 2);
    let bw = direction(&mut t, 3);
    inputs.extend(fw);
    inputs.extend(bw);
    for c in [2, 2, 3, 3] {
        t.push(Tensor::new(F32, &[1, c]).var());
        inputs.push(t.len() as i32 - 1);
    }
    inputs.extend([-1; 9]);
    t.push(Tensor::new(F32, &[2, 1, 2]));
    t.push(Tensor::new(F32, &[2, 1, 3]));
    let n = t.len() as i32;
    let file = model(BI_LSTM, (69, vec![(0, F::U8(4)), (4, F::U8(1))]), &t, &inputs, &[n - 2, n - 1], &[]);
    assert!(matches!(setup_error(&file), KernelError::Unsupported { .. }));
}
