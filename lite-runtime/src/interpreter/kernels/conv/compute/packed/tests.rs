//! The packed bodies against the unpacked portable CONV_2D: 1x1 shapes read in place and
//! every other shape through patches, channel counts around the panel's 16, output pixels
//! around the tile's 4, strides and dilations 1 and 2, padding, batches; and the chosen SIMD
//! tiles (AVX2, NEON) against the portable tiles, bit for bit.

use super::super::conv_f32_impl;
use super::*;
use super::super::super::cases::{Case, Limits, case as arb_case, geometry_of};
use super::super::super::kind;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    super::super::super::super::proptest_config::cases(256, 4)
}

/// Deterministic contents from the case's seed (xorshift), in [-4, 4].
fn floats(seed: u64, n: usize) -> std::vec::Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 2001) as f32 / 250.0 - 4.0
        })
        .collect()
}

/// A pool of three threads, stopped when dropped (Miri requires every thread joined).
fn three_threads() -> crate::interpreter::workers::Pool {
    crate::interpreter::workers::Pool::new(3)
}

fn check(c: &Case, bias: bool, clamp: bool) -> Result<(), TestCaseError> {
    let mut g = geometry_of(c, false, kind::FLOAT);
    (g.lo, g.hi) = if clamp { (-3.0, 3.0) } else { (f32::NEG_INFINITY, f32::INFINITY) };
    let (oc, row) = (g.out_c as usize, g.row());
    let x = floats(c.seed, (g.batches * g.in_h * g.in_w * g.in_c) as usize);
    let w = floats(c.seed ^ 0x9e37, oc * row);
    let b = floats(c.seed ^ 0x51ed, oc);
    let b = bias.then_some(b.as_slice());
    let n_out = (g.batches * g.out_h * g.out_w) as usize * oc;
    let mut want = std::vec![0f32; n_out];
    let mut patch = std::vec![0f32; row];
    conv_f32_impl(&g, &x, &w, b, &mut want, &mut patch).unwrap();
    let mut packed = std::vec![f32::NAN; packed_len(oc, row).unwrap()];
    pack(&w, oc, row, &mut packed).unwrap();
    let mut patches = std::vec![f32::NAN; patch_len(&g)];
    let mut chosen = std::vec![f32::NAN; n_out];
    conv_packed_f32(&g, &x, &packed, b, &mut chosen, &mut patches).unwrap();
    // Split over three threads, in parts of whole tiles as the kernel splits it: the same bits.
    let pool = three_threads();
    let mut split = std::vec![f32::NAN; n_out];
    let mut patches3 = std::vec![f32::NAN; 3 * patch_len(&g)];
    let unit = TILE * oc.max(1);
    crate::interpreter::workers::split(&pool, &mut split, unit, &mut patches3, patch_len(&g), usize::MAX, &|first, out, patches| {
        conv_packed_part(&g, &x, &packed, b, first / oc.max(1), out, patches)
    })
    .unwrap();
    prop_assert!(split.iter().zip(&chosen).all(|(a, b)| a.to_bits() == b.to_bits()));
    // The portable tile alone, on every tile of a 1x1 case read in place.
    let mut portable = std::vec![f32::NAN; n_out];
    if in_place(&g) && row > 0 {
        for (p, y) in portable.chunks_exact_mut(oc.max(1) * TILE).enumerate() {
            let rows: [&[f32]; TILE] = core::array::from_fn(|i| {
                let q = (p * TILE + i).min(n_out / oc.max(1) - 1);
                let (ow, oh) = (g.out_w as usize, g.out_h as usize);
                let (xx, yy, bb) = (q % ow, q / ow % oh, q / ow / oh);
                let at = ((bb * g.in_h as usize + yy * g.stride_h as usize) * g.in_w as usize
                    + xx * g.stride_w as usize)
                    * g.in_c as usize;
                &x[at..at + row]
            });
            tile_portable(&g, rows, &packed, b, y).unwrap();
        }
        let rem = n_out % (oc.max(1) * TILE);
        if rem > 0 {
            portable[n_out - rem..].copy_from_slice(&chosen[n_out - rem..]);
        }
    } else {
        portable.copy_from_slice(&chosen);
    }
    // The chosen tiles (AVX2, NEON) are the portable tiles, bit for bit, on every shape.
    let mut tiles = std::vec![f32::NAN; n_out];
    let mut patches2 = std::vec![f32::NAN; patch_len(&g)];
    drive(&g, &x, &packed, b, Part { first: 0, out: &mut tiles }, &mut patches2, tile_portable).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<std::vec::Vec<_>>();
    prop_assert_eq!(bits(&chosen), bits(&tiles));
    // The unpacked body sums in eight lanes: within float rounding of `row` products of
    // at most 16 each.
    let tol = 1e-5 * (16.0 * row as f32 + 4.0);
    for ((&g, &p), &w) in chosen.iter().zip(&portable).zip(&want) {
        prop_assert!((g - w).abs() <= tol, "packed {} vs {}", g, w);
        prop_assert!((p - w).abs() <= tol, "portable tile {} vs {}", p, w);
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn packed_pointwise_is_the_convolution(
        c in arb_case(Limits { side: 7, in_c: 40, chan: 40, stride_dil: 2 }),
        bias in any::<bool>(),
        clamp in any::<bool>(),
    ) {
        let mut c = c;
        (c.f_h, c.f_w, c.dil) = (1, 1, (1, 1));
        check(&c, bias, clamp)?;
    }

    #[test]
    fn packed_convolution_is_the_convolution(
        c in arb_case(Limits { side: 8, in_c: 12, chan: 36, stride_dil: 2 }),
        bias in any::<bool>(),
        clamp in any::<bool>(),
    ) {
        check(&c, bias, clamp)?;
    }
}

#[test]
fn short_buffers_are_errors() {
    let c = Case {
        batches: 1,
        in_h: 2,
        in_w: 2,
        in_c: 3,
        f_h: 1,
        f_w: 1,
        chan: 5,
        stride: (1, 1),
        dil: (1, 1),
        same: false,
        seed: 1,
    };
    let g = geometry_of(&c, false, kind::FLOAT);
    let packed = std::vec![0f32; packed_len(5, 3).unwrap()];
    let mut out = std::vec![0f32; 4 * 5];
    let run = |x: &[f32], p: &[f32], b: Option<&[f32]>, o: &mut [f32]| {
        conv_packed_f32(&g, x, p, b, o, &mut []).is_ok()
    };
    assert!(!run(&[0.0; 11], &packed, None, &mut out));
    assert!(!run(&[0.0; 12], &packed[1..], None, &mut out));
    assert!(!run(&[0.0; 12], &packed, Some(&[0.0; 4]), &mut out));
    assert!(!run(&[0.0; 12], &packed, None, &mut out[1..]));
    assert!(pack(&[0.0; 14], 5, 3, &mut std::vec![0f32; 48]).is_err());
    assert!(run(&[0.0; 12], &packed, None, &mut out));
    // A 3x3 filter needs its patches.
    let c3 = Case { f_h: 3, f_w: 3, same: true, ..c };
    let g3 = geometry_of(&c3, false, kind::FLOAT);
    let packed3 = std::vec![0f32; packed_len(5, 27).unwrap()];
    let short = conv_packed_f32(&g3, &[0.0; 12], &packed3, None, &mut out, &mut [0.0; 10]);
    assert!(short.is_err());
}
