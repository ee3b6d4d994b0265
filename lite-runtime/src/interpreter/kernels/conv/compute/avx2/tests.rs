//! Each AVX2 body against the portable one, bit for bit, over random shapes wide enough to
//! take every path: blocks of 8 (CONV_2D) and 16 (depthwise) channels and the channels
//! after them, 16-, 8- and shorter tails of the filter row, depth multipliers 1, 2 and more.

use super::super::{
    conv_f32_impl, conv_i8_impl, depthwise_f32_impl, depthwise_i8_impl, requant_row,
};
use super::*;
use super::super::super::kind;
use super::super::super::super::base::quant::multiply_by_quantized_multiplier;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::super::super::proptest_config::cases(256, 4)
}

fn avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
}

use super::super::super::cases::{Case, Limits, geometry_of};

/// Wider channel runs than the reference tests, so every block and tail of the AVX2 bodies
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

/// The AVX2 float CONV_2D against the portable one on `c`, bit for bit.
fn conv_f32_matches(c: &Case, bias: bool) -> Result<(), TestCaseError> {
    let g = geometry(c, false, kind::FLOAT);
    let mut r = Rng(c.seed | 1);
    let (n_in, n_f, n_out) = lens(&g);
    let (input, filter) = (r.f32s(n_in), r.f32s(n_f));
    let b = r.f32s(g.out_c as usize);
    let b = bias.then_some(b.as_slice());
    let (mut want, mut got) = (vec![0f32; n_out], vec![0f32; n_out]);
    let mut patch = vec![0f32; g.row()];
    conv_f32_impl(&g, &input, &filter, b, &mut want, &mut patch).unwrap();
    // SAFETY: the callers checked that the CPU has AVX2.
    unsafe { conv_f32(&g, &input, &filter, b, &mut got, &mut patch) }.unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    prop_assert_eq!(bits(&got), bits(&want));
    Ok(())
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
    fn i8(&mut self) -> i8 {
        self.next() as i8
    }
    fn i8s(&mut self, n: usize) -> Vec<i8> {
        (0..n).map(|_| self.i8()).collect()
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
    fn conv_i8_is_the_portable_body(c in case(12, 20)) {
        prop_assume!(avx2());
        let mut g = geometry(&c, false, kind::INT8);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let (input, filter) = (r.i8s(n_in), r.i8s(n_f));
        let (mult, shift, bias) = quantized(&mut g, &mut r);
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let oc = g.out_c as usize;
        let (mut want, mut got) = (vec![0i8; n_out], vec![0i8; n_out]);
        let (mut patch, mut acc) = (vec![0i8; g.row()], vec![0i32; oc]);
        conv_i8_impl(&g, &input, &filter, &q, &mut want, &mut patch, &mut acc).unwrap();
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { conv_i8(&g, &input, &filter, &q, &mut got, &mut patch, &mut acc) }.unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn depthwise_i8_is_the_portable_body(
        c in case(20, 4),
        wide in prop::option::of((1u32..=12, 1u32..=12, prop::sample::select(vec![1u32, 2, 5, 8, 16, 24]))),
    ) {
        prop_assume!(avx2());
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
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { depthwise_i8(&g, &input, &filter, &q, &mut got, &mut acc) }.unwrap();
        prop_assert_eq!(got, want);
    }

    /// uint8 with any zero points (products past int16), channel counts off the blocks of
    /// sixteen and eight, odd tap counts; depth multipliers above one take the portable body.
    #[test]
    fn depthwise_u8_is_the_portable_body(
        c in case(40, 3),
        zps in any::<(u8, u8, u8)>(),
        dm1 in any::<bool>(),
    ) {
        prop_assume!(avx2());
        let c = if dm1 { Case { chan: 1, ..c } } else { c };
        let mut g = geometry(&c, true, kind::UINT8);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let input: Vec<u8> = r.i8s(n_in).into_iter().map(|v| v as u8).collect();
        let filter: Vec<u8> = r.i8s(n_f).into_iter().map(|v| v as u8).collect();
        let (mult, shift, bias) = quantized(&mut g, &mut r);
        g.input_offset = -i32::from(zps.0);
        g.output_offset = i32::from(zps.1);
        g.weights_offset = -i32::from(zps.2);
        (g.act_min, g.act_max) = (0, 255);
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let (mut want, mut got) = (vec![0u8; n_out], vec![0u8; n_out]);
        let mut acc = vec![0i32; g.out_c as usize];
        super::super::depthwise_u8_impl(&g, &input, &filter, &q, &mut want, &mut acc).unwrap();
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { depthwise_u8::depthwise_u8(&g, &input, &filter, &q, &mut got, &mut acc) }.unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn conv_f32_is_the_portable_body(c in case(12, 20), bias in any::<bool>()) {
        prop_assume!(avx2());
        conv_f32_matches(&c, bias)?;
    }

    /// Filter rows of four contiguous values (`f_w * in_c == 4`), whose interior windows
    /// `rows4_f32` builds, over images tall enough to have interior rows.
    #[test]
    fn conv_f32_four_value_rows_is_the_portable_body(
        c in case(12, 20),
        in_c in prop::sample::select(vec![1u32, 2, 4]),
        f_h in 1u32..=6,
        in_h in 1u32..=12,
        bias in any::<bool>(),
    ) {
        prop_assume!(avx2());
        let c = Case { in_c, f_w: 4 / in_c, f_h, in_h, dil: (c.dil.0, 1), ..c };
        conv_f32_matches(&c, bias)?;
    }

    #[test]
    fn depthwise_f32_is_the_portable_body(c in case(20, 4), bias in any::<bool>()) {
        prop_assume!(avx2());
        let g = geometry(&c, true, kind::FLOAT);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let (input, filter) = (r.f32s(n_in), r.f32s(n_f));
        let b = r.f32s(g.out_c as usize);
        let b = bias.then_some(b.as_slice());
        let (mut want, mut got) = (vec![0f32; n_out], vec![0f32; n_out]);
        let mut acc = vec![0f32; g.out_c as usize];
        depthwise_f32_impl(&g, &input, &filter, b, &mut want, &mut acc).unwrap();
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { depthwise_f32(&g, &input, &filter, b, &mut got, &mut acc) }.unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&got), bits(&want));
    }
}

/// `mbqm8`'s eight lanes, through memory, for the tests.
fn mbqm8_lanes(x: [i32; 8], m: [i32; 8], s: [i32; 8]) -> [i32; 8] {
    let mut out = [0i32; 8];
    // SAFETY: the callers checked the CPU has AVX2.
    let x = unsafe { load_i32(&x) };
    // SAFETY: the callers checked the CPU has AVX2.
    let m = unsafe { load_i32(&m) };
    // SAFETY: the callers checked the CPU has AVX2.
    let s = unsafe { load_i32(&s) };
    // SAFETY: the callers checked the CPU has AVX2.
    let v = unsafe { mbqm8(x, m, s) };
    // SAFETY: the callers checked the CPU has AVX2.
    unsafe { store_i32(&mut out, v) };
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
    fn mbqm8_is_the_scalar(
        x in prop::array::uniform8(any_i32()),
        m in prop::array::uniform8(any_i32()),
        s in prop::array::uniform8(prop_oneof![-40i32..=40, (i32::MIN + 1)..=i32::MAX]),
    ) {
        prop_assume!(avx2());
        let want: Vec<i32> = (0..8).map(|i| multiply_by_quantized_multiplier(x[i], m[i], s[i])).collect();
        prop_assert_eq!(mbqm8_lanes(x, m, s).to_vec(), want);
    }

    /// `requant_row8` is `requant_row` at every channel count, with any offsets and clamps
    /// (values outside int8 truncate as `as i8` does).
    #[test]
    fn requant_row8_is_the_portable_row(
        n in 0usize..40,
        seed in any::<u64>(),
        off in any_i32(),
        a in any_i32(),
        b in any_i32(),
    ) {
        prop_assume!(avx2());
        let mut r = Rng(seed | 1);
        let acc: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
        let mult: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
        let shift = r.i32s(n, -33, 32);
        let q = Requant { mult: &mult, shift: &shift, bias: &[] };
        let g = Geometry { output_offset: off, act_min: a.min(b), act_max: a.max(b), ..Geometry::default() };
        let (mut want, mut got) = (vec![0i8; n], vec![0i8; n]);
        requant_row(&acc, &q, &g, &mut want);
        // SAFETY: the CPU has AVX2 (checked above).
        let stage = unsafe { out8(&g) };
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { requant_row8(&acc, &q, &g, &stage, &mut got) }.unwrap();
        prop_assert_eq!(got, want);
    }
}

/// The corners of the vector `MultiplyByQuantizedMultiplier` (the saturating product, the
/// largest shifts) against the scalar, every combination. (`i32::MIN` is no shift: the
/// scalar's `-shift` overflows there.)
#[test]
fn mbqm8_corners() {
    if !avx2() {
        return;
    }
    let v = [
        i32::MIN,
        i32::MIN + 1,
        -(1 << 30),
        -1,
        0,
        1,
        1 << 30,
        i32::MAX,
    ];
    let shifts = [i32::MIN + 1, -32, -31, -30, -1, 0, 1, 30, 31, i32::MAX];
    for &x in &v {
        for &m in &v {
            let s: [i32; 8] = core::array::from_fn(|i| shifts[i % shifts.len()]);
            let s2: [i32; 8] = core::array::from_fn(|i| shifts[(i + 8) % shifts.len()]);
            for s in [s, s2] {
                let want: [i32; 8] =
                    core::array::from_fn(|i| multiply_by_quantized_multiplier(x, m, s[i]));
                assert_eq!(mbqm8_lanes([x; 8], [m; 8], s), want, "x {x} m {m} s {s:?}");
            }
        }
    }
}

/// Short tensors are errors, not reads past the end.
#[test]
fn short_tensors_are_errors() {
    if !avx2() {
        return;
    }
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
    // SAFETY: the CPU has AVX2 (checked above).
    let r = unsafe { depthwise_i8(&g, &input[..n_in - 1], &filter, &q, &mut out, &mut acc) };
    assert!(r.is_err());
    // SAFETY: the CPU has AVX2 (checked above).
    let r = unsafe { depthwise_i8(&g, &input, &filter[..n_f - 1], &q, &mut out, &mut acc) };
    assert!(r.is_err());
}

/// The gather's short copies and fills are `copy_from_slice` and `fill` at every length.
#[test]
fn short_runs_copy_and_fill_every_value() {
    use super::super::{copy_run, fill_run};
    for n in 0..40usize {
        let src: Vec<i8> = (0..n).map(|i| i as i8 + 1).collect();
        let mut dst = vec![0i8; n];
        copy_run(&mut dst, &src);
        assert_eq!(dst, src, "copy of {n}");
        fill_run(&mut dst, -5);
        assert_eq!(dst, vec![-5; n], "fill of {n}");
    }
}
