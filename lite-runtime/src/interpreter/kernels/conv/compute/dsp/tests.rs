//! The DSP bodies against the portable ones, bit for bit, on the host through the emulation
//! of their instructions (`insn`): odd and even channel counts (the last CONV_2D row alone),
//! filter rows with and without a tail of fewer than four values, depthwise channels in
//! blocks of four with multipliers 1 and 2, and the shapes that fall back (other multipliers,
//! other channel counts).

use super::super::super::cases::{Case, Limits, case, geometry_of};
use super::super::super::kind;
use super::super::{conv_i8_impl, depthwise_i8_impl};
use super::insn::{sadd16, smlabb, smlad, smlatt, sxtb16, sxtb16_ror8};
use super::*;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::super::super::proptest_config::cases(256, 4)
}

fn shapes(in_c: u32, chan: u32) -> impl Strategy<Value = Case> {
    case(Limits {
        side: 8,
        in_c,
        chan,
        stride_dil: 2,
    })
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
}

fn lens(g: &Geometry) -> (usize, usize, usize) {
    let input = (g.batches * g.in_h * g.in_w * g.in_c) as usize;
    let filter = if g.depthwise != 0 {
        (g.f_h * g.f_w * g.out_c) as usize
    } else {
        g.out_c as usize * g.row()
    };
    (input, filter, (g.batches * g.out_h * g.out_w * g.out_c) as usize)
}

/// Offsets over the whole int8 range (input offsets -127..=128: `x + offset` must fit the 16
/// bits SADD16 gives it) and multipliers, shifts and biases as the reference takes them.
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
    fn conv_i8_is_the_portable_body(c in shapes(12, 9)) {
        let mut g = geometry_of(&c, false, kind::INT8);
        let mut r = Rng(c.seed | 1);
        let (n_in, n_f, n_out) = lens(&g);
        let (input, filter) = (r.i8s(n_in), r.i8s(n_f));
        let (mult, shift, bias) = quantized(&mut g, &mut r);
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let (mut want, mut got) = (vec![0i8; n_out], vec![0i8; n_out]);
        let (mut patch, mut acc) = (vec![0i8; g.row()], vec![0i32; g.out_c as usize]);
        conv_i8_impl(&g, &input, &filter, &q, &mut want, &mut patch, &mut acc).unwrap();
        conv_i8(&g, &input, &filter, &q, &mut got, &mut patch, &mut acc).unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn depthwise_i8_is_the_portable_body(c in shapes(20, 3), four in any::<bool>()) {
        // Half the cases with channels in blocks of four and a multiplier of 1 or 2 (the DSP
        // paths).
        let mut c = c;
        if four {
            c.chan = 1 + (c.seed % 2) as u32;
            c.in_c = c.in_c.div_ceil(4) * 4;
        }
        let mut g = geometry_of(&c, true, kind::INT8);
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

    /// The emulated instructions against their definitions in the Armv7-M manual.
    #[test]
    fn instructions_are_the_manual(a in any::<u32>(), b in any::<u32>(), acc in any::<i32>()) {
        let h = |v: u32, top: bool| i32::from((if top { v >> 16 } else { v }) as u16 as i16);
        let byte = |v: u32, i: u32| i32::from((v >> (8 * i)) as u8 as i8);
        prop_assert_eq!((h(sxtb16(a), false), h(sxtb16(a), true)), (byte(a, 0), byte(a, 2)));
        prop_assert_eq!((h(sxtb16_ror8(a), false), h(sxtb16_ror8(a), true)), (byte(a, 1), byte(a, 3)));
        let s = sadd16(a, b);
        prop_assert_eq!(h(s, false) as i16, (h(a, false) as i16).wrapping_add(h(b, false) as i16));
        prop_assert_eq!(h(s, true) as i16, (h(a, true) as i16).wrapping_add(h(b, true) as i16));
        let p = |x: bool, y: bool| h(a, x).wrapping_mul(h(b, y));
        prop_assert_eq!(smlad(a, b, acc), acc.wrapping_add(p(false, false)).wrapping_add(p(true, true)));
        prop_assert_eq!(smlabb(a, b, acc), acc.wrapping_add(p(false, false)));
        prop_assert_eq!(smlatt(a, b, acc), acc.wrapping_add(p(true, true)));
    }
}
