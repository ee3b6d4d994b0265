//! The packed int8 / uint8 CONV_2D against the unpacked portable bodies, bit for bit: 1x1
//! shapes read in place and every other shape through the patch, channel counts around the
//! panel's 16 and the half panel's 8, odd filter rows (a half-empty last pair), output pixels
//! around the tile's 4, strides, dilations, padding, batches, per-channel requantization,
//! and any zero points.

use super::super::{Requant, conv_i8_impl, conv_q_packed, conv_u8_impl, folded_bias, folded_bias_u8, packed_q_runs};
use super::*;
use super::super::super::cases::{Case, Limits, case as arb_case, geometry_of};
use super::super::super::kind;
use proptest::prelude::*;
use zerocopy::IntoBytes;

fn cases() -> ProptestConfig {
    super::super::super::super::proptest_config::cases(256, 4)
}

/// Deterministic bytes from the case's seed (xorshift).
fn bytes(seed: u64, n: usize) -> std::vec::Vec<u8> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// Per-channel multipliers, shifts and a model bias from `seed`.
fn channels(seed: u64, oc: usize) -> (std::vec::Vec<i32>, std::vec::Vec<i32>, std::vec::Vec<i32>) {
    let r = bytes(seed, 12 * oc);
    let word = |i: usize| i32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]]);
    let mult = (0..oc).map(|c| (1 << 30) | (word(c) & 0x3fff_ffff)).collect();
    let shift = (0..oc).map(|c| word(oc + c).rem_euclid(14) - 12).collect();
    let bias = (0..oc).map(|c| word(2 * oc + c) % 100_000).collect();
    (mult, shift, bias)
}

fn check(c: &Case, unsigned: bool, zps: (u8, u8, u8), relu: bool) -> Result<(), TestCaseError> {
    let kind = if unsigned { kind::UINT8 } else { kind::INT8 };
    let mut g = geometry_of(c, false, kind);
    let (oc, row) = (g.out_c as usize, g.row());
    let x = bytes(c.seed, (g.batches * g.in_h * g.in_w * g.in_c) as usize);
    let w = bytes(c.seed ^ 0x9e37, oc * row);
    let (mult, shift, model_bias) = channels(c.seed ^ 0x51ed, oc);
    let n_out = (g.batches * g.out_h * g.out_w) as usize * oc;
    let (mut want, mut got) = (std::vec![0u8; n_out], std::vec![0xa5u8; n_out]);
    let mut packed = std::vec![i16::MIN; packed_len(oc, row).unwrap()];
    // Words, so the bytes are aligned for the body's int32 tile as the arena's scratch is.
    let mut words = std::vec![0x5a5a_5a5a_u32; work_bytes(&g).div_ceil(4)];
    let scratch = words.as_mut_bytes();
    if unsigned {
        g.input_offset = -i32::from(zps.0);
        g.output_offset = i32::from(zps.1);
        g.weights_offset = -i32::from(zps.2);
        (g.act_min, g.act_max) = if relu { (i32::from(zps.1), 255) } else { (0, 255) };
        let bias: std::vec::Vec<i32> = (0..oc)
            .map(|o| folded_bias_u8(model_bias[o], g.input_offset, g.weights_offset, &w[o * row..(o + 1) * row]))
            .collect();
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let mut patch = std::vec![0u8; row];
        conv_u8_impl(&g, &x, &w, &q, &mut want, &mut patch).unwrap();
        pack(&w, oc, row, g.weights_offset, &mut packed).unwrap();
        conv_q_packed::<true>(&g, &x, &packed, &q, &mut got, scratch).unwrap();
    } else {
        let (x, w): (std::vec::Vec<i8>, std::vec::Vec<i8>) =
            (x.iter().map(|&v| v as i8).collect(), w.iter().map(|&v| v as i8).collect());
        g.input_offset = -i32::from(zps.0 as i8);
        g.output_offset = i32::from(zps.1 as i8);
        (g.act_min, g.act_max) = if relu { (i32::from(zps.1 as i8), 127) } else { (-128, 127) };
        let bias: std::vec::Vec<i32> = (0..oc)
            .map(|o| folded_bias(model_bias[o], g.input_offset, &w[o * row..(o + 1) * row]))
            .collect();
        let q = Requant { mult: &mult, shift: &shift, bias: &bias };
        let (mut want8, mut patch, mut acc) = (std::vec![0i8; n_out], std::vec![0i8; row], std::vec![0i32; oc]);
        conv_i8_impl(&g, &x, &w, &q, &mut want8, &mut patch, &mut acc).unwrap();
        want.copy_from_slice(want8.as_bytes());
        pack(&w, oc, row, 0, &mut packed).unwrap();
        conv_q_packed::<false>(&g, x.as_bytes(), &packed, &q, &mut got, scratch).unwrap();
    }
    prop_assert_eq!(got, want);
    Ok(())
}

/// Shapes around the panel and the tile: up to 40 output channels, 1x1 filters often.
fn shape() -> impl Strategy<Value = Case> {
    (
        arb_case(Limits { side: 7, in_c: 37, chan: 40, stride_dil: 2 }),
        any::<bool>(),
    )
        .prop_map(|(c, one)| if one { Case { f_h: 1, f_w: 1, ..c } } else { c })
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn packed_int8_is_the_portable_body(c in shape(), zps in any::<(u8, u8, u8)>(), relu in any::<bool>()) {
        // Only where the packed body runs (x86 with AVX2): elsewhere nothing to compare.
        if packed_q_runs() {
            check(&c, false, zps, relu)?;
        }
    }

    #[test]
    fn packed_uint8_is_the_portable_body(c in shape(), zps in any::<(u8, u8, u8)>(), relu in any::<bool>()) {
        if packed_q_runs() {
            check(&c, true, zps, relu)?;
        }
    }
}

/// The packed layout: channel `c`'s weights `k`, `k + 1` side by side in pair `k / 2` of its
/// panel, zeros past the row and the channels.
#[test]
fn pack_places_pairs_by_channel() {
    let (oc, row) = (17usize, 3usize);
    let w: std::vec::Vec<i8> = (0..oc * row).map(|i| i as i8).collect();
    let mut p = std::vec![i16::MIN; packed_len(oc, row).unwrap()];
    pack(&w, oc, row, 0, &mut p).unwrap();
    let at = |c: usize, k: usize| p[(c / PANEL) * 2 * PANEL * pairs(row) + (k / 2) * 2 * PANEL + 2 * (c % PANEL) + k % 2];
    for c in 0..32 {
        for k in 0..4 {
            let want = if c < oc && k < row { (c * row + k) as i16 } else { 0 };
            assert_eq!(at(c, k), want, "channel {c} value {k}");
        }
    }
}
