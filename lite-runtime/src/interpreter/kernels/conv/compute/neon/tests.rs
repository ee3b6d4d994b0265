//! Each NEON body against the portable one, bit for bit, over random shapes wide enough to
//! take every path: blocks of 8 (CONV_2D), 16 and 8 (int8 depthwise) and 16 and 4 (float
//! depthwise) channels and the channels after them, 16-, 8- and shorter tails of the filter
//! row, depth multipliers 1, 2 and more; and the four-lane requantization against the scalar.

use super::super::super::super::base::quant::multiply_by_quantized_multiplier;
use super::super::super::cases::{Case, Limits, geometry_of};
use super::super::super::kind;
use super::super::{conv_i8_impl, depthwise_f32_impl, depthwise_i8_impl, requant_row};
use super::*;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::super::super::proptest_config::cases(256, 4)
}

/// Wider channel runs than the reference tests, so every block and tail of the NEON bodies
/// is taken; strides and dilations up to 2.
fn case(max_in_c: u32, max_chan: u32) -> impl Strategy<Value = Case> {
    super::super::super::cases::case(Limits {
        side: 8,
        in_c: max_in_c,
        chan: max_chan,
        stride_dil: 2,
    })
}

/// The geometry of `c`, clamped to [-3, 3] (float).
fn geometry(c: &Case, depthwise: bool, kind: u32) -> Geometry {
    let mut g = geometry_of(c, depthwise, kind);
    (g.lo, g.hi) = (-3.0, 3.0);
    g
}

/// Deterministic contents: xorshift from the case's seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn i8s(&mut self, n: usize) -> Vec<i8> {
        (0..n).map(|_| self.next() as i8).collect()
    }
    fn i32s(&mut self, n: usize, lo: i64, hi: i64) -> Vec<i32> {
        (0..n)
            .map(|_| (lo + (self.next() % (hi - lo + 1) as u64) as i64) as i32)
            .collect()
    }
    fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| (self.next() % 2001) as f32 / 250.0 - 4.0)
            .collect()
    }
}

fn lens(g: &Geometry) -> (usize, usize, usize) {
    let input = (g.batches * g.in_h * g.in_w * g.in_c) as usize;
    let filter = if g.depthwise != 0 {
        (g.f_h * g.f_w * g.out_c) as usize
    } else {
        g.out_c as usize * g.row()
    };
    let out = (g.batches * g.out_h * g.out_w * g.out_c) as usize;
    (input, filter, out)
}

/// Offsets, multipliers, shifts and biases; `-128` among the inputs' values (the one whose
/// products with `-128` weights need more than 15 bits).
fn quantized(g: &mut Geometry, r: &mut Rng) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    let oc = g.out_c as usize;
    g.input_offset = r.i32s(1, -127, 128)[0];
    g.output_offset = r.i32s(1, -128, 127)[0];
    (g.act_min, g.act_max) = (-128, 127);
    let mult = r.i32s(oc, 1 << 30, i32::MAX.into());
    let shift = r.i32s(oc, -12, 1);
    let bias = r.i32s(oc, -100_000, 100_000);
    (mult, shift, bias)
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn conv_i8_is_the_portable_body(c in case(40, 20), extremes in any::<bool>()) {
        let mut g = geometry(&c, false, kind::INT8);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let (mut input, mut filter) = (r.i8s(n_in), r.i8s(n_f));
        if extremes {
            // Every product -128 * -128: two of them overflow a 16-bit sum.
            input.fill(-128);
            filter.fill(-128);
        }
        let (mult, shift, bias) = quantized(&mut g, &mut r);
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let oc = g.out_c as usize;
        let (mut want, mut got) = (vec![0i8; n_out], vec![0i8; n_out]);
        let (mut patch, mut acc) = (vec![0i8; g.row()], vec![0i32; oc]);
        conv_i8_impl(&g, &input, &filter, &q, &mut want, &mut patch, &mut acc).unwrap();
        conv_i8(&g, &input, &filter, &q, &mut got, &mut patch, &mut acc).unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn depthwise_i8_is_the_portable_body(
        c in case(40, 4),
        wide in prop::option::of((1u32..=12, 1u32..=12, prop::sample::select(vec![1u32, 2, 3, 5, 8, 16, 24]))),
    ) {
        // Filters past the tap list's 128 entries (portable body) and up to them, depth
        // multipliers whose blocks of eight read one input channel.
        let mut c = c;
        if let Some((f_h, f_w, dm)) = wide {
            (c.f_h, c.f_w, c.chan, c.in_c) = (f_h, f_w, dm, c.in_c.min(3));
        }
        let mut g = geometry(&c, true, kind::INT8);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let (input, filter) = (r.i8s(n_in), r.i8s(n_f));
        let (mult, shift, bias) = quantized(&mut g, &mut r);
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let (mut want, mut got) = (vec![0i8; n_out], vec![0i8; n_out]);
        let mut acc = vec![0i32; g.out_c as usize];
        depthwise_i8_impl(&g, &input, &filter, &q, &mut want, &mut acc).unwrap();
        depthwise_i8(&g, &input, &filter, &q, &mut got, &mut acc).unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn depthwise_f32_is_the_portable_body(
        c in case(40, 5),
        bias in any::<bool>(),
    ) {
        let g = geometry(&c, true, kind::FLOAT);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let (input, filter) = (r.f32s(n_in), r.f32s(n_f));
        let b = r.f32s(g.out_c as usize);
        let b = bias.then_some(b.as_slice());
        let (mut want, mut got) = (vec![0f32; n_out], vec![0f32; n_out]);
        let mut acc = vec![0f32; g.out_c as usize];
        depthwise_f32_impl(&g, &input, &filter, b, &mut want, &mut acc).unwrap();
        depthwise_f32(&g, &input, &filter, b, &mut got, &mut acc).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&got), bits(&want));
    }
}

/// `mbqm4`'s four lanes, through memory, for the tests.
fn mbqm4_lanes(x: [i32; 4], m: [i32; 4], s: [i32; 4]) -> [i32; 4] {
    let v = mbqm4(load_i32(&x), load_i32(&m), load_i32(&s));
    let mut out = [0i32; 4];
    // SAFETY: `out` is 16 writable bytes of `i32`s, as aligned as `vst1q_s32` needs.
    unsafe { vst1q_s32(out.as_mut_ptr(), v) };
    out
}

/// Any i32, with the extremes and the values beside them drawn often.
fn any_i32() -> impl Strategy<Value = i32> {
    prop_oneof![
        any::<i32>(),
        prop::sample::select(vec![
            i32::MIN,
            i32::MIN + 1,
            -1,
            0,
            1,
            i32::MAX - 1,
            i32::MAX
        ]),
        (-70_000i32..70_000),
    ]
}

proptest! {
    #![proptest_config(cases())]

    /// The vector `MultiplyByQuantizedMultiplier` is the scalar one for every input, shifts
    /// past both clamps included (all but `i32::MIN`, where the scalar's `-shift` overflows).
    #[test]
    fn mbqm4_is_the_scalar(
        x in prop::array::uniform4(any_i32()),
        m in prop::array::uniform4(any_i32()),
        s in prop::array::uniform4(prop_oneof![-40i32..=40, (i32::MIN + 1)..=i32::MAX]),
    ) {
        let want: Vec<i32> = (0..4).map(|i| multiply_by_quantized_multiplier(x[i], m[i], s[i])).collect();
        prop_assert_eq!(mbqm4_lanes(x, m, s).to_vec(), want);
    }

    /// `requant_row8_from` is `requant_row` at every channel count, with any offsets and
    /// clamps (values outside int8 truncate as `as i8` does).
    #[test]
    fn requant_row8_is_the_portable_row(
        n in 0usize..40,
        seed in any::<u64>(),
        off in any_i32(),
        a in any_i32(),
        b in any_i32(),
    ) {
        let mut r = Rng(seed | 1);
        let acc: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
        let mult: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
        let shift = r.i32s(n, -33, 32);
        let q = Requant { mult: &mult, shift: &shift, bias: &[] };
        let g = Geometry { output_offset: off, act_min: a.min(b), act_max: a.max(b), ..Geometry::default() };
        let (mut want, mut got) = (vec![0i8; n], vec![0i8; n]);
        requant_row(&acc, &q, &g, &mut want);
        requant_row8_from(&acc, &q, &g, &Out8::of(&g), &mut got, 0).unwrap();
        prop_assert_eq!(got, want);
    }
}

/// The corners of the vector `MultiplyByQuantizedMultiplier` (the saturating product, the
/// largest shifts, the rounding of negative halves) against the scalar, every combination.
/// (`i32::MIN` is no shift: the scalar's `-shift` overflows there.)
#[test]
fn mbqm4_corners() {
    let v = [
        i32::MIN,
        i32::MIN + 1,
        -(1 << 30),
        -3,
        -1,
        0,
        1,
        3,
        1 << 30,
        i32::MAX,
    ];
    let shifts = [i32::MIN + 1, -32, -31, -30, -2, -1, 0, 1, 30, 31, i32::MAX];
    for &x in &v {
        for &m in &v {
            for s in shifts.chunks(4) {
                let s: [i32; 4] = core::array::from_fn(|i| s[i % s.len()]);
                let want: [i32; 4] =
                    core::array::from_fn(|i| multiply_by_quantized_multiplier(x, m, s[i]));
                assert_eq!(mbqm4_lanes([x; 4], [m; 4], s), want, "x {x} m {m} s {s:?}");
            }
        }
    }
}

/// Short tensors are errors, not reads past the end.
#[test]
fn short_tensors_are_errors() {
    let c = Case {
        batches: 1,
        in_h: 4,
        in_w: 4,
        in_c: 16,
        f_h: 3,
        f_w: 3,
        chan: 1,
        stride: (1, 1),
        dil: (1, 1),
        same: true,
        seed: 7,
    };
    let g = geometry(&c, true, kind::INT8);
    let (n_in, n_f, n_out) = lens(&g);
    let (input, filter) = (vec![0i8; n_in], vec![0i8; n_f]);
    let v = vec![0i32; 16];
    let q = Requant {
        mult: &v,
        shift: &v,
        bias: &v,
    };
    let mut out = vec![0i8; n_out];
    let mut acc = vec![0i32; 16];
    assert!(depthwise_i8(&g, &input[..n_in - 1], &filter, &q, &mut out, &mut acc).is_err());
    assert!(depthwise_i8(&g, &input, &filter[..n_f - 1], &q, &mut out, &mut acc).is_err());
    let gf = geometry(&c, true, kind::FLOAT);
    let (xf, kf) = (vec![0f32; n_in], vec![0f32; n_f]);
    let (mut of, mut af) = (vec![0f32; n_out], vec![0f32; 16]);
    assert!(depthwise_f32(&gf, &xf[..n_in - 1], &kf, None, &mut of, &mut af).is_err());
    assert!(depthwise_f32(&gf, &xf, &kf[..n_f - 1], None, &mut of, &mut af).is_err());
    let gc = geometry(&Case { chan: 8, ..c }, false, kind::INT8);
    let (_, n_fc, n_oc) = lens(&gc);
    let filter = vec![0i8; n_fc];
    let (mut out, mut patch) = (vec![0i8; n_oc], vec![0i8; gc.row()]);
    let r = conv_i8(&gc, &input, &filter[..n_fc - 1], &q, &mut out, &mut patch, &mut acc);
    assert!(r.is_err());
}
