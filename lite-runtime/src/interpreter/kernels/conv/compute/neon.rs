//! NEON bodies of the int8 convolutions and the float depthwise convolution (aarch64, where
//! NEON is baseline: chosen at compile time). Results are the portable bodies' bits: integer
//! sums wrap in any order, float sums keep the portable order per lane with separate
//! multiplies and adds (no `vfmaq_f32`), and the requantization is gemmlowp's in four lanes.

// Value intrinsics became safe where their target feature is enabled in Rust 1.87; the
// crate's minimum (1.85) still needs them in `unsafe` blocks, which newer compilers call
// unused.
#![allow(unused_unsafe)]

use core::arch::aarch64::*;

use super::simd::{MAX_TAPS, chunk_mut, interior_taps, requant_rest, window_taps};
use super::ConvI8;
use super::{
    Dims, Geometry, KernelError, Requant, SHORT, Windows, check_requant, chunk, clamp, dot_i8,
    gather, take, take_mut,
};

/// Sixteen int8 values.
#[inline(always)]
fn load16(s: &[i8; 16]) -> int8x16_t {
    // SAFETY: `s` is 16 readable bytes; `vld1q_s8` needs no more than byte alignment.
    unsafe { vld1q_s8(s.as_ptr()) }
}

/// Eight int8 values.
#[inline(always)]
fn load8(s: &[i8; 8]) -> int8x8_t {
    // SAFETY: `s` is 8 readable bytes; `vld1_s8` needs no more than byte alignment.
    unsafe { vld1_s8(s.as_ptr()) }
}

/// Eight int8 values widened to eight int16 lanes.
#[inline(always)]
fn widen8(s: &[i8; 8]) -> int16x8_t {
    widen(load8(s))
}

/// Eight int8 lanes widened to int16.
#[inline(always)]
fn widen(v: int8x8_t) -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    unsafe { vmovl_s8(v) }
}

/// The low four of eight int16 lanes.
#[inline(always)]
fn low(v: int16x8_t) -> int16x4_t {
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    unsafe { vget_low_s16(v) }
}

/// `v` in four int32 lanes.
#[inline(always)]
fn splat(v: i32) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    unsafe { vdupq_n_s32(v) }
}

/// Four int32 lanes from `s`.
#[inline(always)]
fn load_i32(s: &[i32; 4]) -> int32x4_t {
    // SAFETY: `s` is 16 readable bytes of `i32`s, as aligned as `vld1q_s32` needs.
    unsafe { vld1q_s32(s.as_ptr()) }
}

/// Four float lanes from `s`.
#[inline(always)]
fn load_f32(s: &[f32; 4]) -> float32x4_t {
    // SAFETY: `s` is 16 readable bytes of `f32`s, as aligned as `vld1q_f32` needs.
    unsafe { vld1q_f32(s.as_ptr()) }
}

/// Writes four float lanes to `s`.
#[inline(always)]
fn store_f32(s: &mut [f32; 4], v: float32x4_t) {
    // SAFETY: `s` is 16 writable bytes of `f32`s, as aligned as `vst1q_f32` needs.
    unsafe { vst1q_f32(s.as_mut_ptr(), v) }
}

/// `[sum a0, sum a1, sum a2, sum a3]`: three pairwise adds.
#[inline(always)]
fn reduce4(a: &[int32x4_t; 4]) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let p01 = unsafe { vpaddq_s32(a[0], a[1]) };
    // SAFETY: as above.
    let p23 = unsafe { vpaddq_s32(a[2], a[3]) };
    // SAFETY: as above.
    unsafe { vpaddq_s32(p01, p23) }
}

/// `multiply_by_quantized_multiplier(x, m, s)` in four lanes, bit for bit, for every `x` and
/// `m` and any `s` (the scalar clamps its shifts to `0..=30` left and `0..=31` right).
///
/// `vqrdmulhq_s32` is `SaturatingRoundingDoublingHighMul` exactly (`floor((x m + 2^30) /
/// 2^31)`, `MIN * MIN` saturated to `MAX`); `vrshlq_s32` by `-e` rounds halves up, so negative
/// values first take one off (saturating, and only where `e > 0`: `x & -e` has its sign bit
/// set only then), which makes it `RoundingDivideByPOT`'s halves away from zero.
#[inline(always)]
fn mbqm4(x: int32x4_t, m: int32x4_t, s: int32x4_t) -> int32x4_t {
    let zero = splat(0);
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let left = unsafe { vmaxq_s32(s, zero) };
    // SAFETY: as above.
    let left = unsafe { vminq_s32(left, splat(30)) };
    // The right shift as the negative count `vrshlq_s32` takes: `-clamp(-s, 0, 31)`.
    // SAFETY: as above.
    let neg = unsafe { vminq_s32(s, zero) };
    // SAFETY: as above.
    let neg = unsafe { vmaxq_s32(neg, splat(-31)) };
    // SAFETY: as above.
    let a = unsafe { vshlq_s32(x, left) };
    // SAFETY: as above.
    let high = unsafe { vqrdmulhq_s32(a, m) };
    // SAFETY: as above.
    let sign = unsafe { vandq_s32(high, neg) };
    // SAFETY: as above.
    let fixup = unsafe { vshrq_n_s32::<31>(sign) };
    // SAFETY: as above.
    let fixed = unsafe { vqaddq_s32(high, fixup) };
    // SAFETY: as above.
    unsafe { vrshlq_s32(fixed, neg) }
}

/// The int8 output stage's constants, made once per kernel call.
#[derive(Clone, Copy)]
struct Out8 {
    off: int32x4_t,
    lo: int32x4_t,
    hi: int32x4_t,
}

impl Out8 {
    #[inline(always)]
    fn of(g: &Geometry) -> Self {
        Self {
            off: splat(g.output_offset),
            lo: splat(g.act_min),
            hi: splat(g.act_max),
        }
    }
}

/// `clamp(mbqm(v) + output_offset)` of four sums.
#[inline(always)]
fn out4(v: int32x4_t, m: &[i32; 4], s: &[i32; 4], o: &Out8) -> int32x4_t {
    let v = mbqm4(v, load_i32(m), load_i32(s));
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let v = unsafe { vaddq_s32(v, o.off) };
    // SAFETY: as above.
    let v = unsafe { vmaxq_s32(v, o.lo) };
    // SAFETY: as above.
    unsafe { vminq_s32(v, o.hi) }
}

/// Requantizes eight int32 sums (`lo`: channels `c..c + 4`, `hi`: `c + 4..c + 8`, with the
/// multipliers `m` and shifts `s` from channel `c`) and writes them to `y8`, each truncated
/// to int8 as the scalar `as i8` (narrowing moves, not saturating ones).
#[inline(always)]
fn requant_store8(
    lo: int32x4_t,
    hi: int32x4_t,
    m: &[i32],
    s: &[i32],
    o: &Out8,
    y8: &mut [i8; 8],
) -> Result<(), KernelError> {
    let lo = out4(lo, chunk(m, 0)?, chunk(s, 0)?, o);
    let hi = out4(hi, chunk(m, 4)?, chunk(s, 4)?, o);
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let lo = unsafe { vmovn_s32(lo) };
    // SAFETY: as above.
    let v = unsafe { vmovn_high_s32(lo, hi) };
    // SAFETY: as above.
    let v = unsafe { vmovn_s16(v) };
    // SAFETY: `y8` is 8 writable bytes; `vst1_s8` needs no more than byte alignment.
    unsafe { vst1_s8(y8.as_mut_ptr(), v) };
    Ok(())
}

/// The portable `requant_row` from channel `from` on, eight channels at a time, the channels
/// after the last eight as the scalar.
#[inline(always)]
fn requant_row8_from(
    acc: &[i32],
    q: &Requant<'_>,
    g: &Geometry,
    o: &Out8,
    y: &mut [i8],
    from: usize,
) -> Result<(), KernelError> {
    let done = from + y.len().saturating_sub(from) / 8 * 8;
    for c0 in (from..done).step_by(8) {
        let lo = load_i32(chunk(acc, c0)?);
        let hi = load_i32(chunk(acc, c0 + 4)?);
        let (m, s) = (q.mult.get(c0..).ok_or(SHORT)?, q.shift.get(c0..).ok_or(SHORT)?);
        requant_store8(lo, hi, m, s, o, chunk_mut(y, c0)?)?;
    }
    requant_rest(acc, q, g, y, done)
}

/// CONV_2D, int8, as `conv_i8_impl`: per pixel the im2col row (or the input itself for a
/// 1x1 filter), then eight output channels at a time, each channel's sums in one register:
/// sixteen taps are two `smull` (int8 products are exact in 16 bits) and two `sadalp`
/// (pairwise-added into 32 bits), where a sum of two products could overflow 16 bits.
pub(crate) fn conv_i8(
    g: &Geometry,
    input: &[i8],
    filter: &[i8],
    q: &Requant<'_>,
    out: &mut [i8],
    patch: &mut [i8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    let ConvI8 {
        d,
        row,
        input,
        filter,
        patch,
        acc,
        bias,
        zp,
        mut pixels,
    } = ConvI8::check(g, input, filter, q, out, patch, acc)?;
    let blocks = d.out_c / 8;
    let (n16, tail8) = (row / 16, row % 16 >= 8);
    let rest = n16 * 16 + if tail8 { 8 } else { 0 };
    // Without a scalar tail of the row, each block's sums are requantized from registers.
    let direct = rest == row;
    let o = Out8::of(g);
    for (b, w) in Windows::new(g)? {
        let x = gather(g, &d, input, b, &w, zp, patch)?;
        let x = take(x, row)?;
        let y = pixels.next().ok_or(SHORT)?;
        for blk in 0..blocks {
            // Eight filter rows as one slice indexed `c * row + i`, with a constant trip
            // count over them, so the eight sums stay in registers (as in the AVX2 body).
            let fb = filter
                .get(8 * blk * row..8 * (blk + 1) * row)
                .ok_or(SHORT)?;
            let mut sums = [splat(0); 8];
            for j in 0..n16 {
                let xv = load16(chunk(x, 16 * j)?);
                // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                let xl = unsafe { vget_low_s8(xv) };
                for (c, s) in sums.iter_mut().enumerate() {
                    let kv = load16(chunk(fb, c * row + 16 * j)?);
                    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                    let kl = unsafe { vget_low_s8(kv) };
                    // SAFETY: as above.
                    let p_lo = unsafe { vmull_s8(xl, kl) };
                    // SAFETY: as above.
                    let p_hi = unsafe { vmull_high_s8(xv, kv) };
                    // SAFETY: as above.
                    *s = unsafe { vpadalq_s16(*s, p_lo) };
                    // SAFETY: as above.
                    *s = unsafe { vpadalq_s16(*s, p_hi) };
                }
            }
            if tail8 {
                let xv = load8(chunk(x, 16 * n16)?);
                for (c, s) in sums.iter_mut().enumerate() {
                    let kv = load8(chunk(fb, c * row + 16 * n16)?);
                    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                    let p = unsafe { vmull_s8(xv, kv) };
                    // SAFETY: as above.
                    *s = unsafe { vpadalq_s16(*s, p) };
                }
            }
            let [s0, s1, s2, s3, s4, s5, s6, s7] = sums;
            let (lo, hi) = (reduce4(&[s0, s1, s2, s3]), reduce4(&[s4, s5, s6, s7]));
            // SAFETY: NEON is baseline on aarch64 (value intrinsic).
            let lo = unsafe { vaddq_s32(lo, load_i32(chunk(bias, 8 * blk)?)) };
            // SAFETY: as above.
            let hi = unsafe { vaddq_s32(hi, load_i32(chunk(bias, 8 * blk + 4)?)) };
            if direct {
                let (m, s) = (
                    q.mult.get(8 * blk..).ok_or(SHORT)?,
                    q.shift.get(8 * blk..).ok_or(SHORT)?,
                );
                requant_store8(lo, hi, m, s, &o, chunk_mut(y, 8 * blk)?)?;
                continue;
            }
            let a8: &mut [i32; 8] = chunk_mut(acc, 8 * blk)?;
            let (a_lo, a_hi) = a8.split_at_mut(4);
            // SAFETY: `a_lo` is 16 writable bytes of `i32`s, as aligned as `vst1q_s32` needs.
            unsafe { vst1q_s32(a_lo.as_mut_ptr(), lo) };
            // SAFETY: `a_hi` is 16 writable bytes of `i32`s, as aligned as `vst1q_s32` needs.
            unsafe { vst1q_s32(a_hi.as_mut_ptr(), hi) };
            let xr = x.get(rest..).ok_or(SHORT)?;
            for (c, a) in a8.iter_mut().enumerate() {
                let k = fb.get(c * row + rest..(c + 1) * row).ok_or(SHORT)?;
                *a = a.wrapping_add(dot_i8(xr, k));
            }
        }
        for c in blocks * 8..d.out_c {
            let k = filter.get(c * row..(c + 1) * row).ok_or(SHORT)?;
            let a = acc.get_mut(c).ok_or(SHORT)?;
            *a = dot_i8(x, k).wrapping_add(*bias.get(c).ok_or(SHORT)?);
        }
        let from = if direct { blocks * 8 } else { 0 };
        requant_row8_from(acc, q, g, &o, y, from)?;
    }
    Ok(())
}

/// The input values under output channels `c0..c0 + N` of a depthwise tap at input offset
/// `o` (channel `c` reads input channel `c / dm`), for the depth multipliers with no
/// contiguous or duplicated run.
#[inline(always)]
fn gathered<const N: usize>(
    input: &[i8],
    in_c: usize,
    dm: usize,
    o: usize,
    c0: usize,
) -> Result<[i8; N], KernelError> {
    let x = input.get(o..o + in_c).ok_or(SHORT)?;
    let mut s = [0i8; N];
    for (j, v) in s.iter_mut().enumerate() {
        *v = *x.get((c0 + j) / dm).ok_or(SHORT)?;
    }
    Ok(s)
}

/// DEPTHWISE_CONV_2D, int8, as `depthwise_i8_impl`: sixteen output channels at a time over
/// every in-image tap (`x + input_offset` and the weights widened to 16 bits, `smlal` into
/// four registers of int32 sums), then a block of eight (`micro_speech`'s eight channels of
/// one input channel: one broadcast input value times eight weights per tap), then the
/// channels past the last eight one at a time.
pub(crate) fn depthwise_i8(
    g: &Geometry,
    input: &[i8],
    filter: &[i8],
    q: &Requant<'_>,
    out: &mut [i8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    let off = g.input_offset;
    // `x + input_offset` must fit 16 bits (an int8 zero point always does).
    let Ok(off16) = i16::try_from(off) else {
        return super::depthwise_i8_impl(g, input, filter, q, out, acc);
    };
    if (g.f_h as usize) * (g.f_w as usize) > MAX_TAPS || !(-128..=128).contains(&off16) {
        return super::depthwise_i8_impl(g, input, filter, q, out, acc);
    }
    let d = Dims::of(g)?;
    let dm = g.depth_mult as usize;
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let offv = unsafe { vdupq_n_s16(off16) };
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    check_requant(q, d.out_c)?;
    let acc = take_mut(acc, d.out_c)?;
    let bias = take(q.bias, d.out_c)?;
    let done16 = d.out_c / 16 * 16;
    let done8 = d.out_c / 8 * 8;
    let mut inner = [(0, 0); MAX_TAPS];
    let inner = interior_taps(g, &d, &mut inner);
    let mut taps = [(0, 0); MAX_TAPS];
    let stage = Out8::of(g);
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let (base, taps) = window_taps(g, &d, b, &w, inner, &mut taps);
        let y = pixels.next().ok_or(SHORT)?;
        for c0 in (0..done16).step_by(16) {
            let mut s: [int32x4_t; 4] = [
                load_i32(chunk(bias, c0)?),
                load_i32(chunk(bias, c0 + 4)?),
                load_i32(chunk(bias, c0 + 8)?),
                load_i32(chunk(bias, c0 + 12)?),
            ];
            for &(r, t) in taps {
                let o = base + r;
                // The input values under channels c0..c0 + 16, as two int8 halves.
                let (xl, xh) = match dm {
                    1 => {
                        let v = load16(chunk(input, o + c0)?);
                        // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                        (unsafe { vget_low_s8(v) }, unsafe { vget_high_s8(v) })
                    }
                    2 => {
                        // Each value twice: [x0, x0, x1, x1, ..].
                        let h = load8(chunk(input, o + c0 / 2)?);
                        // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                        (unsafe { vzip1_s8(h, h) }, unsafe { vzip2_s8(h, h) })
                    }
                    _ => {
                        let v = load16(&gathered::<16>(input, d.in_c, dm, o, c0)?);
                        // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                        (unsafe { vget_low_s8(v) }, unsafe { vget_high_s8(v) })
                    }
                };
                let kv = load16(chunk(filter, t * d.out_c + c0)?);
                // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                let kl = widen(unsafe { vget_low_s8(kv) });
                // SAFETY: as above.
                let kh = unsafe { vmovl_high_s8(kv) };
                // SAFETY: as above.
                let xl = unsafe { vaddq_s16(widen(xl), offv) };
                // SAFETY: as above.
                let xh = unsafe { vaddq_s16(widen(xh), offv) };
                // SAFETY: as above.
                s[0] = unsafe { vmlal_s16(s[0], low(xl), low(kl)) };
                // SAFETY: as above.
                s[1] = unsafe { vmlal_high_s16(s[1], xl, kl) };
                // SAFETY: as above.
                s[2] = unsafe { vmlal_s16(s[2], low(xh), low(kh)) };
                // SAFETY: as above.
                s[3] = unsafe { vmlal_high_s16(s[3], xh, kh) };
            }
            // Requantized from registers, sixteen channels straight to the output.
            let (m, sh) = (q.mult.get(c0..).ok_or(SHORT)?, q.shift.get(c0..).ok_or(SHORT)?);
            requant_store8(s[0], s[1], m, sh, &stage, chunk_mut(y, c0)?)?;
            let (m, sh) = (m.get(8..).ok_or(SHORT)?, sh.get(8..).ok_or(SHORT)?);
            requant_store8(s[2], s[3], m, sh, &stage, chunk_mut(y, c0 + 8)?)?;
        }
        if done8 > done16 {
            let c0 = done16;
            let mut lo = load_i32(chunk(bias, c0)?);
            let mut hi = load_i32(chunk(bias, c0 + 4)?);
            if dm % 8 == 0 {
                // Every lane reads one input value: a multiply by a scalar per tap. (Its own
                // loop, with the input channel worked out once: `micro_speech`'s 80 taps per
                // pixel are nearly all of its invoke.)
                let from = base + c0 / dm;
                for &(r, t) in taps {
                    let x = i16::from(*input.get(from + r).ok_or(SHORT)?) + off16;
                    let kv = widen8(chunk(filter, t * d.out_c + c0)?);
                    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                    lo = unsafe { vmlal_n_s16(lo, low(kv), x) };
                    // SAFETY: as above.
                    hi = unsafe { vmlal_high_n_s16(hi, kv, x) };
                }
            } else {
                for &(r, t) in taps {
                    let o = base + r;
                    let xv = if dm == 1 {
                        widen8(chunk(input, o + c0)?)
                    } else {
                        widen8(&gathered::<8>(input, d.in_c, dm, o, c0)?)
                    };
                    let kv = widen8(chunk(filter, t * d.out_c + c0)?);
                    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                    let xv = unsafe { vaddq_s16(xv, offv) };
                    // SAFETY: as above.
                    lo = unsafe { vmlal_s16(lo, low(xv), low(kv)) };
                    // SAFETY: as above.
                    hi = unsafe { vmlal_high_s16(hi, xv, kv) };
                }
            }
            let (m, sh) = (q.mult.get(c0..).ok_or(SHORT)?, q.shift.get(c0..).ok_or(SHORT)?);
            requant_store8(lo, hi, m, sh, &stage, chunk_mut(y, c0)?)?;
        }
        // The channels past the last block of eight, as the portable body.
        for c in done8..d.out_c {
            let a = acc.get_mut(c).ok_or(SHORT)?;
            *a = *bias.get(c).ok_or(SHORT)?;
            for &(r, t) in taps {
                let o = base + r;
                let x = *input.get(o + c / dm).ok_or(SHORT)?;
                let k = *filter.get(t * d.out_c + c).ok_or(SHORT)?;
                *a = a.wrapping_add(i32::from(k) * (i32::from(x) + off));
            }
        }
        requant_rest(acc, q, g, y, done8)?;
    }
    Ok(())
}

/// `clamp(s + bias, lo, hi)` of four channels, as the portable `clamp`: `x < lo ? lo : x`,
/// then `hi < v ? hi : v` (compare and select: `fmax` would turn -0 into +0 against a zero
/// bound).
#[inline(always)]
fn finish_f32(s: float32x4_t, bias: Option<&[f32; 4]>, lo: float32x4_t, hi: float32x4_t) -> float32x4_t {
    let v = match bias {
        // SAFETY: NEON is baseline on aarch64 (value intrinsic).
        Some(b) => unsafe { vaddq_f32(s, load_f32(b)) },
        // The portable body adds a zero bias too (`a + 0.0` turns -0 into +0).
        None => {
            // SAFETY: as above.
            let zero = unsafe { vdupq_n_f32(0.0) };
            // SAFETY: as above.
            unsafe { vaddq_f32(s, zero) }
        }
    };
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let below = unsafe { vcltq_f32(v, lo) };
    // SAFETY: as above.
    let v = unsafe { vbslq_f32(below, lo, v) };
    // SAFETY: as above.
    let above = unsafe { vcltq_f32(hi, v) };
    // SAFETY: as above.
    unsafe { vbslq_f32(above, hi, v) }
}

/// DEPTHWISE_CONV_2D, float32, as `depthwise_f32_impl`: four output channels per register,
/// four registers (sixteen channels) per pass over the taps where there are that many (four
/// independent chains of adds), each lane summing its channel's taps in the portable order
/// with a separate multiply and add; the channels past the last four as the portable body.
pub(crate) fn depthwise_f32(
    g: &Geometry,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    acc: &mut [f32],
) -> Result<(), KernelError> {
    if (g.f_h as usize) * (g.f_w as usize) > MAX_TAPS {
        return super::depthwise_f32_impl(g, input, filter, bias, out, acc);
    }
    let d = Dims::of(g)?;
    let dm = g.depth_mult as usize;
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    let bias = bias.map(|b| take(b, d.out_c)).transpose()?;
    let done16 = d.out_c / 16 * 16;
    let done4 = d.out_c / 4 * 4;
    let mut inner = [(0, 0); MAX_TAPS];
    let inner = interior_taps(g, &d, &mut inner);
    let mut taps = [(0, 0); MAX_TAPS];
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let lo = unsafe { vdupq_n_f32(g.lo) };
    // SAFETY: as above.
    let hi = unsafe { vdupq_n_f32(g.hi) };
    // The input values under channels `c..c + 4`.
    let x4 = |o: usize, c: usize| -> Result<float32x4_t, KernelError> {
        if dm == 1 {
            return Ok(load_f32(chunk(input, o + c)?));
        }
        let x = input.get(o..o + d.in_c).ok_or(SHORT)?;
        let mut v = [0.0f32; 4];
        for (j, v) in v.iter_mut().enumerate() {
            *v = *x.get((c + j) / dm).ok_or(SHORT)?;
        }
        Ok(load_f32(&v))
    };
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let (base, taps) = window_taps(g, &d, b, &w, inner, &mut taps);
        let y = pixels.next().ok_or(SHORT)?;
        for c0 in (0..done16).step_by(16) {
            // SAFETY: NEON is baseline on aarch64 (value intrinsic).
            let mut s = [unsafe { vdupq_n_f32(0.0) }; 4];
            for &(r, t) in taps {
                let o = base + r;
                let k: &[f32; 16] = chunk(filter, t * d.out_c + c0)?;
                for (i, s) in s.iter_mut().enumerate() {
                    let x = x4(o, c0 + 4 * i)?;
                    let kv = load_f32(chunk(k, 4 * i)?);
                    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                    let p = unsafe { vmulq_f32(x, kv) };
                    // SAFETY: as above.
                    *s = unsafe { vaddq_f32(*s, p) };
                }
            }
            for (i, s) in s.into_iter().enumerate() {
                let c = c0 + 4 * i;
                let bv = bias.map(|b| chunk(b, c)).transpose()?;
                store_f32(chunk_mut(y, c)?, finish_f32(s, bv, lo, hi));
            }
        }
        for c in (done16..done4).step_by(4) {
            // SAFETY: NEON is baseline on aarch64 (value intrinsic).
            let mut s = unsafe { vdupq_n_f32(0.0) };
            for &(r, t) in taps {
                let x = x4(base + r, c)?;
                let kv = load_f32(chunk(filter, t * d.out_c + c)?);
                // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                let p = unsafe { vmulq_f32(x, kv) };
                // SAFETY: as above.
                s = unsafe { vaddq_f32(s, p) };
            }
            let bv = bias.map(|b| chunk(b, c)).transpose()?;
            store_f32(chunk_mut(y, c)?, finish_f32(s, bv, lo, hi));
        }
        for c in done4..d.out_c {
            let mut a = 0.0;
            for &(r, t) in taps {
                let x = *input.get(base + r + c / dm).ok_or(SHORT)?;
                a += x * *filter.get(t * d.out_c + c).ok_or(SHORT)?;
            }
            let bv = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
            *y.get_mut(c).ok_or(SHORT)? = clamp(a + bv, g.lo, g.hi);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
