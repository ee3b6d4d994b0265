//! AVX2 bodies of the int8 and float32 convolutions (x86 hosts with `std`, chosen at run
//! time): eight output channels per filter pass with their sums kept in registers, and
//! `vpmaddwd` on inputs widened to 16 bits, so the keyword-spotting network's short channel
//! runs (16-40 values) cost a few instructions per 16 multiply-accumulates. Results are the
//! portable bodies' bits: integer sums wrap in any order, float sums keep the portable lanes
//! and the portable pairwise tree, with no fused multiply-add.

// Value intrinsics became safe inside `#[target_feature]` functions in Rust 1.87; the crate's
// minimum (1.85) still needs them in `unsafe` blocks, which newer compilers call unused.
#![allow(unused_unsafe)]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::simd::{MAX_TAPS, chunk_mut, interior_taps, requant_rest, window_taps};
use super::ConvI8;
use super::{
    Dims, Geometry, KernelError, Requant, SHORT, Window, Windows, at, check_requant, chunk, clamp,
    dot_f32, dot_i8, gather, take, take_mut,
};

/// Sixteen int8 values widened to sixteen int16 lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen16(s: &[i8; 16]) -> __m256i {
    // SAFETY: `s` is 16 readable bytes, and `loadu` has no alignment requirement.
    let v = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
    // SAFETY: AVX2 is enabled for this function.
    unsafe { _mm256_cvtepi8_epi16(v) }
}

/// Eight int8 values widened to eight int16 lanes (the low 128 bits).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen8(s: &[i8; 8]) -> __m128i {
    // SAFETY: `s` is 8 readable bytes, and `loadl_epi64` reads exactly 8 bytes unaligned.
    let v = unsafe { _mm_loadl_epi64(s.as_ptr().cast()) };
    // SAFETY: AVX2 (so SSE4.1) is enabled for this function.
    unsafe { _mm_cvtepi8_epi16(v) }
}

/// Eight int8 values widened to eight int32 lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen32(s: &[i8; 8]) -> __m256i {
    // SAFETY: `s` is 8 readable bytes, and `loadl_epi64` reads exactly 8 bytes unaligned.
    let v = unsafe { _mm_loadl_epi64(s.as_ptr().cast()) };
    // SAFETY: AVX2 is enabled for this function.
    unsafe { _mm256_cvtepi8_epi32(v) }
}

/// Eight int32 lanes from `s`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_i32(s: &[i32; 8]) -> __m256i {
    // SAFETY: `s` is 32 readable bytes, and `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

/// Writes eight int32 lanes to `s`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_i32(s: &mut [i32; 8], v: __m256i) {
    // SAFETY: `s` is 32 writable bytes, and `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
}

/// Eight float lanes from `s`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_f32(s: &[f32; 8]) -> __m256 {
    // SAFETY: `s` is 32 readable bytes, and `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_ps(s.as_ptr()) }
}

/// The sums of eight int32 accumulators, one lane each (`[sum a0, .., sum a7]`). A macro,
/// so it expands inside the AVX2 function (a helper taking the array was not inlined, and
/// moved the accumulators through memory).
macro_rules! reduce8_i32 {
    ($a:expr) => {{
        let a = $a;
        // SAFETY: the enclosing function has AVX2.
        let h01 = unsafe { _mm256_hadd_epi32(a[0], a[1]) };
        // SAFETY: the enclosing function has AVX2.
        let h23 = unsafe { _mm256_hadd_epi32(a[2], a[3]) };
        // SAFETY: the enclosing function has AVX2.
        let h45 = unsafe { _mm256_hadd_epi32(a[4], a[5]) };
        // SAFETY: the enclosing function has AVX2.
        let h67 = unsafe { _mm256_hadd_epi32(a[6], a[7]) };
        // [s0, s1, s2, s3 | s0', s1', s2', s3'] with s' the upper halves' sums.
        // SAFETY: the enclosing function has AVX2.
        let h0123 = unsafe { _mm256_hadd_epi32(h01, h23) };
        // SAFETY: the enclosing function has AVX2.
        let h4567 = unsafe { _mm256_hadd_epi32(h45, h67) };
        // SAFETY: the enclosing function has AVX2.
        let lo = unsafe { _mm256_permute2x128_si256::<0x20>(h0123, h4567) };
        // SAFETY: the enclosing function has AVX2.
        let hi = unsafe { _mm256_permute2x128_si256::<0x31>(h0123, h4567) };
        // SAFETY: the enclosing function has AVX2.
        unsafe { _mm256_add_epi32(lo, hi) }
    }};
}

/// The body of `mbqm8`, as a macro so it expands inside the AVX2 kernels (a call per
/// eight channels, with its constants, cost more than the arithmetic).
macro_rules! mbqm8 {
    ($x:expr, $m:expr, $s:expr) => {{
        let (x, m, s): (__m256i, __m256i, __m256i) = ($x, $m, $s);
        // SAFETY: the enclosing function has AVX2.
        let zero = unsafe { _mm256_setzero_si256() };
        // SAFETY: the enclosing function has AVX2.
        let c30 = unsafe { _mm256_set1_epi32(30) };
        // SAFETY: the enclosing function has AVX2.
        let c31 = unsafe { _mm256_set1_epi32(31) };
        // SAFETY: the enclosing function has AVX2.
        let left = unsafe { _mm256_max_epi32(s, zero) };
        // SAFETY: the enclosing function has AVX2.
        let left = unsafe { _mm256_min_epi32(left, c30) };
        // SAFETY: the enclosing function has AVX2.
        let neg = unsafe { _mm256_sub_epi32(zero, s) };
        // SAFETY: the enclosing function has AVX2.
        let right = unsafe { _mm256_max_epi32(neg, zero) };
        // SAFETY: the enclosing function has AVX2.
        let right = unsafe { _mm256_min_epi32(right, c31) };
        // SAFETY: the enclosing function has AVX2.
        let a = unsafe { _mm256_sllv_epi32(x, left) };
        // SAFETY: the enclosing function has AVX2.
        let nudge = unsafe { _mm256_set1_epi64x(1 << 30) };
        // Even lanes: `_mm256_mul_epi32` multiplies the low (signed) halves of each 64 bits.
        // SAFETY: the enclosing function has AVX2.
        let even = unsafe { _mm256_mul_epi32(a, m) };
        // SAFETY: the enclosing function has AVX2.
        let even = unsafe { _mm256_add_epi64(even, nudge) };
        // SAFETY: the enclosing function has AVX2.
        let even = unsafe { _mm256_srli_epi64::<31>(even) };
        // SAFETY: the enclosing function has AVX2.
        let a_odd = unsafe { _mm256_srli_epi64::<32>(a) };
        // SAFETY: the enclosing function has AVX2.
        let m_odd = unsafe { _mm256_srli_epi64::<32>(m) };
        // SAFETY: the enclosing function has AVX2.
        let odd = unsafe { _mm256_mul_epi32(a_odd, m_odd) };
        // SAFETY: the enclosing function has AVX2.
        let odd = unsafe { _mm256_add_epi64(odd, nudge) };
        // The odd results' low 32 bits are bits 31..63 of the sum: shift left by one instead.
        // SAFETY: the enclosing function has AVX2.
        let odd = unsafe { _mm256_slli_epi64::<1>(odd) };
        // SAFETY: the enclosing function has AVX2.
        let high = unsafe { _mm256_blend_epi32::<0b1010_1010>(even, odd) };
        // SAFETY: the enclosing function has AVX2.
        let min = unsafe { _mm256_set1_epi32(i32::MIN) };
        // SAFETY: the enclosing function has AVX2.
        let sat = unsafe { _mm256_cmpeq_epi32(high, min) };
        // `MIN - 1` wraps to `MAX` in the saturated lanes (`sat` is -1 there, 0 elsewhere).
        // SAFETY: the enclosing function has AVX2.
        let high = unsafe { _mm256_add_epi32(high, sat) };
        // RoundingDivideByPOT: `(x >> e) + (x & mask > (mask >> 1) + (x < 0))`.
        // SAFETY: the enclosing function has AVX2.
        let one = unsafe { _mm256_set1_epi32(1) };
        // SAFETY: the enclosing function has AVX2.
        let pot = unsafe { _mm256_sllv_epi32(one, right) };
        // SAFETY: the enclosing function has AVX2.
        let mask = unsafe { _mm256_sub_epi32(pot, one) };
        // SAFETY: the enclosing function has AVX2.
        let rem = unsafe { _mm256_and_si256(high, mask) };
        // SAFETY: the enclosing function has AVX2.
        let is_neg = unsafe { _mm256_cmpgt_epi32(zero, high) };
        // SAFETY: the enclosing function has AVX2.
        let half = unsafe { _mm256_srli_epi32::<1>(mask) };
        // SAFETY: the enclosing function has AVX2.
        let threshold = unsafe { _mm256_sub_epi32(half, is_neg) };
        // SAFETY: the enclosing function has AVX2.
        let up = unsafe { _mm256_cmpgt_epi32(rem, threshold) };
        // SAFETY: the enclosing function has AVX2.
        let shifted = unsafe { _mm256_srav_epi32(high, right) };
        // SAFETY: the enclosing function has AVX2.
        unsafe { _mm256_sub_epi32(shifted, up) }
    }};
}

/// `multiply_by_quantized_multiplier(x, m, s)` in eight lanes, bit for bit, for every `x` and
/// `m` and any `s` (the scalar clamps its shifts to `0..=30` left and `0..=31` right).
///
/// `SaturatingRoundingDoublingHighMul`'s nudge-then-truncate equals `floor((a m + 2^30) /
/// 2^31)` for both signs of `a m`, and the low 32 bits of a 64-bit shift are the same logical
/// or arithmetic (AVX2 has no arithmetic 64-bit shift); the one product it saturates, `MIN *
/// MIN`, is the only one that lands on `MIN` here, so that lane becomes `MAX`.
#[cfg(test)]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn mbqm8(x: __m256i, m: __m256i, s: __m256i) -> __m256i {
    mbqm8!(x, m, s)
}

/// The int8 output stage's constants, made once per kernel call.
#[derive(Clone, Copy)]
struct Out8 {
    off: __m256i,
    lo: __m256i,
    hi: __m256i,
    /// Picks the low byte of each 32-bit lane into the low four bytes of each 128-bit half.
    bytes: __m256i,
    /// Brings the upper half's four bytes next to the lower half's.
    halves: __m256i,
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn out8(g: &Geometry) -> Out8 {
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let off = unsafe { _mm256_set1_epi32(g.output_offset) };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let lo = unsafe { _mm256_set1_epi32(g.act_min) };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let hi = unsafe { _mm256_set1_epi32(g.act_max) };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let bytes = unsafe {
        _mm256_setr_epi8(
            0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1,
        )
    };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let halves = unsafe { _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0) };
    Out8 {
        off,
        lo,
        hi,
        bytes,
        halves,
    }
}

/// Requantizes eight int32 sums (`acc`, with multipliers `m` and shifts `s`) and writes them
/// to `y8`: `clamp(mbqm(acc) + output_offset)`, each truncated to int8 as the scalar `as i8`.
/// A macro, so the kernels requantize from registers without a call.
macro_rules! requant_store8 {
    ($acc:expr, $m:expr, $s:expr, $o:expr, $y8:expr) => {{
        let o: &Out8 = $o;
        let y8: &mut [i8; 8] = $y8;
        let v = mbqm8!($acc, $m, $s);
        // SAFETY: the enclosing function has AVX2.
        let v = unsafe { _mm256_add_epi32(v, o.off) };
        // SAFETY: the enclosing function has AVX2.
        let v = unsafe { _mm256_max_epi32(v, o.lo) };
        // SAFETY: the enclosing function has AVX2.
        let v = unsafe { _mm256_min_epi32(v, o.hi) };
        // SAFETY: the enclosing function has AVX2.
        let v = unsafe { _mm256_shuffle_epi8(v, o.bytes) };
        // SAFETY: the enclosing function has AVX2.
        let v = unsafe { _mm256_permutevar8x32_epi32(v, o.halves) };
        // SAFETY: the enclosing function has AVX2.
        let v = unsafe { _mm256_castsi256_si128(v) };
        // SAFETY: `y8` is 8 writable bytes, and `storel_epi64` writes exactly 8 unaligned.
        unsafe { _mm_storel_epi64(y8.as_mut_ptr().cast(), v) };
    }};
}

/// `requant_row` eight channels at a time, the channels after the last eight as the scalar.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn requant_row8(
    acc: &[i32],
    q: &Requant<'_>,
    g: &Geometry,
    o: &Out8,
    y: &mut [i8],
) -> Result<(), KernelError> {
    // SAFETY: AVX2 is enabled for this function.
    unsafe { requant_row8_from(acc, q, g, o, y, 0) }
}

/// `requant_row8` from channel `from` on.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn requant_row8_from(
    acc: &[i32],
    q: &Requant<'_>,
    g: &Geometry,
    o: &Out8,
    y: &mut [i8],
    from: usize,
) -> Result<(), KernelError> {
    let done = from + y.len().saturating_sub(from) / 8 * 8;
    for c0 in (from..done).step_by(8) {
        // SAFETY: AVX2 is enabled for this function.
        let a = unsafe { load_i32(chunk(acc, c0)?) };
        // SAFETY: AVX2 is enabled for this function.
        let m = unsafe { load_i32(chunk(q.mult, c0)?) };
        // SAFETY: AVX2 is enabled for this function.
        let s = unsafe { load_i32(chunk(q.shift, c0)?) };
        requant_store8!(a, m, s, o, chunk_mut(y, c0)?);
    }
    requant_rest(acc, q, g, y, done)
}

/// CONV_2D, int8, as `conv_i8_impl`: per pixel the im2col row (or the input itself for a
/// 1x1 filter), then eight output channels at a time, each 16 taps one `vpmaddwd`.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn conv_i8(
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
    // SAFETY: AVX2 is enabled for this function.
    let o = unsafe { out8(g) };
    for (b, w) in Windows::new(g)? {
        let x = gather(g, &d, input, b, &w, zp, patch)?;
        let x = take(x, row)?;
        let y = pixels.next().ok_or(SHORT)?;
        // Index loops, not zipped chunk iterators: `Zip::new` over two `ChunksExact` (a
        // division each) stayed an out-of-line call per block, 4% of the invoke.
        for blk in 0..blocks {
            // Eight filter rows, one slice indexed `c * row + i`: eight slices (sixteen
            // registers of pointers and lengths) were reloaded from the stack in the inner loop.
            // A constant trip count over them, so the sums stay in registers.
            let fb = filter
                .get(8 * blk * row..8 * (blk + 1) * row)
                .ok_or(SHORT)?;
            // SAFETY: AVX2 is enabled for this function.
            let mut sums = [unsafe { _mm256_setzero_si256() }; 8];
            for j in 0..n16 {
                // SAFETY: AVX2 is enabled for this function.
                let xv = unsafe { widen16(chunk(x, 16 * j)?) };
                for (c, s) in sums.iter_mut().enumerate() {
                    // SAFETY: AVX2 is enabled for this function.
                    let kv = unsafe { widen16(chunk(fb, c * row + 16 * j)?) };
                    // SAFETY: AVX2 is enabled for this function.
                    let p = unsafe { _mm256_madd_epi16(xv, kv) };
                    // SAFETY: AVX2 is enabled for this function.
                    *s = unsafe { _mm256_add_epi32(*s, p) };
                }
            }
            if tail8 {
                // SAFETY: AVX2 is enabled for this function.
                let xv = unsafe { widen8(chunk(x, 16 * n16)?) };
                for (c, s) in sums.iter_mut().enumerate() {
                    // SAFETY: AVX2 is enabled for this function.
                    let kv = unsafe { widen8(chunk(fb, c * row + 16 * n16)?) };
                    // SAFETY: AVX2 is enabled for this function.
                    let p = unsafe { _mm_madd_epi16(xv, kv) };
                    // SAFETY: AVX2 is enabled for this function.
                    let p = unsafe { _mm256_zextsi128_si256(p) };
                    // SAFETY: AVX2 is enabled for this function.
                    *s = unsafe { _mm256_add_epi32(*s, p) };
                }
            }
            let total = reduce8_i32!(sums);
            // SAFETY: AVX2 is enabled for this function.
            let bv = unsafe { load_i32(chunk(bias, 8 * blk)?) };
            // SAFETY: AVX2 is enabled for this function (value intrinsic).
            let v = unsafe { _mm256_add_epi32(total, bv) };
            if direct {
                // SAFETY: AVX2 is enabled for this function.
                let m = unsafe { load_i32(chunk(q.mult, 8 * blk)?) };
                // SAFETY: AVX2 is enabled for this function.
                let s = unsafe { load_i32(chunk(q.shift, 8 * blk)?) };
                requant_store8!(v, m, s, &o, chunk_mut(y, 8 * blk)?);
                continue;
            }
            let a8: &mut [i32; 8] = chunk_mut(acc, 8 * blk)?;
            // SAFETY: AVX2 is enabled for this function.
            unsafe { store_i32(a8, v) };
            if rest < row {
                let xr = x.get(rest..).ok_or(SHORT)?;
                for (c, a) in a8.iter_mut().enumerate() {
                    let k = fb.get(c * row + rest..(c + 1) * row).ok_or(SHORT)?;
                    *a = a.wrapping_add(dot_i8(xr, k));
                }
            }
        }
        for c in blocks * 8..d.out_c {
            let k = filter.get(c * row..(c + 1) * row).ok_or(SHORT)?;
            let a = acc.get_mut(c).ok_or(SHORT)?;
            *a = dot_i8(x, k).wrapping_add(*bias.get(c).ok_or(SHORT)?);
        }
        if direct {
            requant_rest(acc, q, g, y, blocks * 8)?;
        } else {
            // SAFETY: AVX2 is enabled for this function.
            unsafe { requant_row8(acc, q, g, &o, y)? };
        }
    }
    Ok(())
}

/// DEPTHWISE_CONV_2D, int8, as `depthwise_i8_impl`: sixteen output channels at a time over
/// every in-image tap, each product `(x + input_offset) w` exact in 16 bits (at most
/// 255 * 128), summed in 32.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn depthwise_i8(
    g: &Geometry,
    input: &[i8],
    filter: &[i8],
    q: &Requant<'_>,
    out: &mut [i8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    if (g.f_h as usize) * (g.f_w as usize) > MAX_TAPS {
        return super::depthwise_i8_impl(g, input, filter, q, out, acc);
    }
    let d = Dims::of(g)?;
    let dm = g.depth_mult as usize;
    let off = g.input_offset;
    let off16 = i16::try_from(off).map_err(|_| SHORT)?;
    // SAFETY: AVX2 is enabled for this function.
    let offv = unsafe { _mm256_set1_epi16(off16) };
    // SAFETY: AVX2 is enabled for this function.
    let off32 = unsafe { _mm256_set1_epi32(off) };
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    check_requant(q, d.out_c)?;
    let acc = take_mut(acc, d.out_c)?;
    let bias = take(q.bias, d.out_c)?;
    let done = d.out_c / 16 * 16;
    // Interior windows share one tap list (offsets from the window's first input value).
    let mut inner = [(0, 0); MAX_TAPS];
    let inner = interior_taps(g, &d, &mut inner);
    let mut taps = [(0, 0); MAX_TAPS];
    // SAFETY: AVX2 is enabled for this function.
    let stage = unsafe { out8(g) };
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let (base, taps) = window_taps(g, &d, b, &w, inner, &mut taps);
        let y = pixels.next().ok_or(SHORT)?;
        for c0 in (0..done).step_by(16) {
            // SAFETY: AVX2 is enabled for this function.
            let mut lo = unsafe { load_i32(chunk(bias, c0)?) };
            // SAFETY: AVX2 is enabled for this function.
            let mut hi = unsafe { load_i32(chunk(bias, c0 + 8)?) };
            for &(r, t) in taps {
                let o = base + r;
                // The input values under channels c0..c0 + 16 (channel c reads c / dm).
                let xv = match dm {
                    // SAFETY: AVX2 is enabled for this function.
                    1 => unsafe { widen16(chunk(input, o + c0)?) },
                    2 => {
                        // SAFETY: AVX2 is enabled for this function.
                        let h = unsafe { widen8(chunk(input, o + c0 / 2)?) };
                        // Each value twice: [x0, x0, x1, x1, ..].
                        // SAFETY: AVX2 is enabled for this function.
                        let l = unsafe { _mm_unpacklo_epi16(h, h) };
                        // SAFETY: AVX2 is enabled for this function.
                        let u = unsafe { _mm_unpackhi_epi16(h, h) };
                        // SAFETY: AVX2 is enabled for this function.
                        unsafe { _mm256_set_m128i(u, l) }
                    }
                    _ => {
                        let x = input.get(o..o + d.in_c).ok_or(SHORT)?;
                        let mut s = [0i8; 16];
                        for (j, v) in s.iter_mut().enumerate() {
                            *v = *x.get((c0 + j) / dm).ok_or(SHORT)?;
                        }
                        // SAFETY: AVX2 is enabled for this function.
                        unsafe { widen16(&s) }
                    }
                };
                // SAFETY: AVX2 is enabled for this function.
                let kv = unsafe { widen16(chunk(filter, t * d.out_c + c0)?) };
                // SAFETY: AVX2 is enabled for this function.
                let xo = unsafe { _mm256_add_epi16(xv, offv) };
                // SAFETY: AVX2 is enabled for this function.
                let p = unsafe { _mm256_mullo_epi16(xo, kv) };
                // SAFETY: AVX2 is enabled for this function.
                let p_lo = unsafe { _mm256_castsi256_si128(p) };
                // SAFETY: AVX2 is enabled for this function.
                let p_hi = unsafe { _mm256_extracti128_si256::<1>(p) };
                // SAFETY: AVX2 is enabled for this function.
                let p_lo = unsafe { _mm256_cvtepi16_epi32(p_lo) };
                // SAFETY: AVX2 is enabled for this function.
                let p_hi = unsafe { _mm256_cvtepi16_epi32(p_hi) };
                // SAFETY: AVX2 is enabled for this function.
                lo = unsafe { _mm256_add_epi32(lo, p_lo) };
                // SAFETY: AVX2 is enabled for this function.
                hi = unsafe { _mm256_add_epi32(hi, p_hi) };
            }
            // Requantized from registers, sixteen channels straight to the output.
            for (h, v) in [(c0, lo), (c0 + 8, hi)] {
                // SAFETY: AVX2 is enabled for this function.
                let m = unsafe { load_i32(chunk(q.mult, h)?) };
                // SAFETY: AVX2 is enabled for this function.
                let s = unsafe { load_i32(chunk(q.shift, h)?) };
                requant_store8!(v, m, s, &stage, chunk_mut(y, h)?);
            }
        }
        // A block of eight after those of sixteen (micro_speech's eight channels): one
        // register of int32 sums over every tap.
        if d.out_c - done >= 8 {
            let c0 = done;
            // SAFETY: AVX2 is enabled for this function.
            let mut sum = unsafe { load_i32(chunk(bias, c0)?) };
            let mut taps = taps;
            if dm % 8 == 0 {
                // Every lane reads one input value: taps two at a time, one `vpmaddwd` of the
                // broadcast pair `(x0 + off, x1 + off)` (each within 16 bits) with the two
                // taps' eight weights interleaved.
                let from = c0 / dm;
                let mut pairs = taps.chunks_exact(2);
                for two in &mut pairs {
                    let [(r0, t0), (r1, t1)] = [two[0], two[1]];
                    let (o0, o1) = (base + r0, base + r1);
                    let x0 = i32::from(*input.get(o0 + from).ok_or(SHORT)?) + off;
                    let x1 = i32::from(*input.get(o1 + from).ok_or(SHORT)?) + off;
                    let pair = (x0 as u16 as u32 | (x1 as u16 as u32) << 16) as i32;
                    // SAFETY: AVX2 is enabled for this function.
                    let xv = unsafe { _mm256_set1_epi32(pair) };
                    // SAFETY: AVX2 is enabled for this function.
                    let k0 = unsafe { widen8(chunk(filter, t0 * d.out_c + c0)?) };
                    // SAFETY: AVX2 is enabled for this function.
                    let k1 = unsafe { widen8(chunk(filter, t1 * d.out_c + c0)?) };
                    // SAFETY: AVX2 is enabled for this function.
                    let lo = unsafe { _mm_unpacklo_epi16(k0, k1) };
                    // SAFETY: AVX2 is enabled for this function.
                    let hi = unsafe { _mm_unpackhi_epi16(k0, k1) };
                    // SAFETY: AVX2 is enabled for this function.
                    let kv = unsafe { _mm256_set_m128i(hi, lo) };
                    // SAFETY: AVX2 is enabled for this function.
                    let p = unsafe { _mm256_madd_epi16(xv, kv) };
                    // SAFETY: AVX2 is enabled for this function.
                    sum = unsafe { _mm256_add_epi32(sum, p) };
                }
                taps = pairs.remainder();
            }
            for &(r, t) in taps {
                let o = base + r;
                let xv = if dm == 1 {
                    // SAFETY: AVX2 is enabled for this function.
                    unsafe { widen32(chunk(input, o + c0)?) }
                } else if dm % 8 == 0 {
                    let x = i32::from(*input.get(o + c0 / dm).ok_or(SHORT)?);
                    // SAFETY: AVX2 is enabled for this function.
                    unsafe { _mm256_set1_epi32(x) }
                } else {
                    let x = input.get(o..o + d.in_c).ok_or(SHORT)?;
                    let mut s = [0i8; 8];
                    for (j, v) in s.iter_mut().enumerate() {
                        *v = *x.get((c0 + j) / dm).ok_or(SHORT)?;
                    }
                    // SAFETY: AVX2 is enabled for this function.
                    unsafe { widen32(&s) }
                };
                // SAFETY: AVX2 is enabled for this function.
                let kv = unsafe { widen32(chunk(filter, t * d.out_c + c0)?) };
                // SAFETY: AVX2 is enabled for this function.
                let xo = unsafe { _mm256_add_epi32(xv, off32) };
                // SAFETY: AVX2 is enabled for this function.
                let p = unsafe { _mm256_mullo_epi32(xo, kv) };
                // SAFETY: AVX2 is enabled for this function.
                sum = unsafe { _mm256_add_epi32(sum, p) };
            }
            // SAFETY: AVX2 is enabled for this function.
            let m = unsafe { load_i32(chunk(q.mult, c0)?) };
            // SAFETY: AVX2 is enabled for this function.
            let s = unsafe { load_i32(chunk(q.shift, c0)?) };
            requant_store8!(sum, m, s, &stage, chunk_mut(y, c0)?);
        }
        let done = done + (d.out_c - done) / 8 * 8;
        // The channels past the last block of eight, as the portable body.
        for c in done..d.out_c {
            let a = acc.get_mut(c).ok_or(SHORT)?;
            *a = *bias.get(c).ok_or(SHORT)?;
            for &(r, t) in taps {
                let o = base + r;
                let x = *input.get(o + c / dm).ok_or(SHORT)?;
                let k = *filter.get(t * d.out_c + c).ok_or(SHORT)?;
                *a = a.wrapping_add(i32::from(k) * (i32::from(x) + off));
            }
        }
        // SAFETY: AVX2 is enabled for this function.
        unsafe { requant_row8_from(acc, q, g, &stage, y, done)? };
    }
    Ok(())
}

/// The first eight of sixteen values (no run-time check).
#[inline(always)]
fn first8(v: &[f32; 16]) -> &[f32; 8] {
    let (a, _) = v.split_first_chunk::<8>().unwrap_or((&[0.0; 8], &[]));
    a
}

/// The last eight of sixteen values (no run-time check).
#[inline(always)]
fn last8(v: &[f32; 16]) -> &[f32; 8] {
    let (_, b) = v.split_last_chunk::<8>().unwrap_or((&[], &[0.0; 8]));
    b
}

/// The input values under output channels `c0..c0 + 8` of a depthwise tap at input offset
/// `o` (channel `c` reads input channel `c / dm`), as eight float lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dw_x8(
    input: &[f32],
    in_c: usize,
    dm: usize,
    o: usize,
    c0: usize,
) -> Result<__m256, KernelError> {
    match dm {
        // SAFETY: AVX2 is enabled for this function.
        1 => Ok(unsafe { load_f32(chunk(input, o + c0)?) }),
        2 => {
            let h: &[f32; 4] = chunk(input, o + c0 / 2)?;
            // SAFETY: `h` is 16 readable bytes, and `loadu` has no alignment requirement.
            let v = unsafe { _mm_loadu_ps(h.as_ptr()) };
            // Each value twice: [x0, x0, x1, x1, ..].
            // SAFETY: AVX2 is enabled for this function.
            let l = unsafe { _mm_unpacklo_ps(v, v) };
            // SAFETY: AVX2 is enabled for this function.
            let u = unsafe { _mm_unpackhi_ps(v, v) };
            // SAFETY: AVX2 is enabled for this function.
            Ok(unsafe { _mm256_set_m128(u, l) })
        }
        _ => {
            let x = input.get(o..o + in_c).ok_or(SHORT)?;
            let mut v = [0.0f32; 8];
            for (j, v) in v.iter_mut().enumerate() {
                *v = *x.get((c0 + j) / dm).ok_or(SHORT)?;
            }
            // SAFETY: AVX2 is enabled for this function.
            Ok(unsafe { load_f32(&v) })
        }
    }
}

/// DEPTHWISE_CONV_2D, float32, as `depthwise_f32_impl`: eight output channels at a time in
/// a register, each lane summing its channel's taps in the portable order (the scratch
/// accumulators go unused). Two blocks of eight share a pass over the taps: their sums are
/// two independent chains of adds, where one chain waited on each add's latency.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn depthwise_f32(
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
    let done = d.out_c / 8 * 8;
    let pairs = d.out_c / 16 * 16;
    let mut inner = [(0, 0); MAX_TAPS];
    let inner = interior_taps(g, &d, &mut inner);
    let mut taps = [(0, 0); MAX_TAPS];
    let out = take_mut(out, d.output_len())?;
    let mut windows = Windows::new(g)?.peekable();
    let mut p = 0;
    while let Some((b, w)) = windows.next() {
        let interior = |w: &Window| w.fy == (0, d.f_h) && w.fx == (0, d.f_w);
        if dm == 1 && done > 0 && interior(&w) {
            // Up to four interior pixels of one row: each filter load serves four pixels, and
            // their sums are four independent chains.
            let mut bases = [at(g, &d, b, &w, 0, 0); DW_TILE];
            let mut m = 1;
            while m < DW_TILE {
                match windows.peek() {
                    Some((b2, w2)) if *b2 == b && w2.y0 == w.y0 && interior(w2) => {
                        bases[m] = at(g, &d, *b2, w2, 0, 0);
                        m += 1;
                        windows.next();
                    }
                    _ => break,
                }
            }
            let y = out.get_mut(p * d.out_c..(p + m) * d.out_c).ok_or(SHORT)?;
            // SAFETY: AVX2 is enabled for this function.
            unsafe { depthwise_f32_tile(g, &d, input, filter, bias, inner, &bases[..m], y)? };
            p += m;
            continue;
        }
        let (base, taps) = window_taps(g, &d, b, &w, inner, &mut taps);
        let y = out.get_mut(p * d.out_c..(p + 1) * d.out_c).ok_or(SHORT)?;
        p += 1;
        for c0 in (0..pairs).step_by(16) {
            // SAFETY: AVX2 is enabled for this function.
            let mut s0 = unsafe { _mm256_setzero_ps() };
            let mut s1 = s0;
            for &(r, t) in taps {
                let o = base + r;
                let (x0, x1) = if dm == 1 {
                    // One bounds check for both blocks' inputs.
                    let x: &[f32; 16] = chunk(input, o + c0)?;
                    // SAFETY: AVX2 is enabled for this function.
                    let x0 = unsafe { load_f32(first8(x)) };
                    // SAFETY: AVX2 is enabled for this function.
                    let x1 = unsafe { load_f32(last8(x)) };
                    (x0, x1)
                } else {
                    // SAFETY: AVX2 is enabled for this function.
                    let x0 = unsafe { dw_x8(input, d.in_c, dm, o, c0)? };
                    // SAFETY: AVX2 is enabled for this function.
                    let x1 = unsafe { dw_x8(input, d.in_c, dm, o, c0 + 8)? };
                    (x0, x1)
                };
                let k: &[f32; 16] = chunk(filter, t * d.out_c + c0)?;
                // SAFETY: AVX2 is enabled for this function.
                let k0 = unsafe { load_f32(first8(k)) };
                // SAFETY: AVX2 is enabled for this function.
                let k1 = unsafe { load_f32(last8(k)) };
                // SAFETY: AVX2 is enabled for this function.
                let p0 = unsafe { _mm256_mul_ps(x0, k0) };
                // SAFETY: AVX2 is enabled for this function.
                let p1 = unsafe { _mm256_mul_ps(x1, k1) };
                // SAFETY: AVX2 is enabled for this function.
                s0 = unsafe { _mm256_add_ps(s0, p0) };
                // SAFETY: AVX2 is enabled for this function.
                s1 = unsafe { _mm256_add_ps(s1, p1) };
            }
            let y16: &mut [f32; 16] = chunk_mut(y, c0)?;
            let (y0, y1) = y16.split_at_mut(8);
            for (s, c, y8) in [(s0, c0, y0), (s1, c0 + 8, y1)] {
                let bv = bias.map(|b| chunk(b, c)).transpose()?;
                // SAFETY: AVX2 is enabled for this function.
                unsafe { finish_f32(s, bv, g, y8.try_into().map_err(|_| SHORT)?) };
            }
        }
        for c0 in (pairs..done).step_by(8) {
            // SAFETY: AVX2 is enabled for this function.
            let mut s = unsafe { _mm256_setzero_ps() };
            for &(r, t) in taps {
                let o = base + r;
                // SAFETY: AVX2 is enabled for this function.
                let xv = unsafe { dw_x8(input, d.in_c, dm, o, c0)? };
                // SAFETY: AVX2 is enabled for this function.
                let kv = unsafe { load_f32(chunk(filter, t * d.out_c + c0)?) };
                // SAFETY: AVX2 is enabled for this function.
                let p = unsafe { _mm256_mul_ps(xv, kv) };
                // SAFETY: AVX2 is enabled for this function.
                s = unsafe { _mm256_add_ps(s, p) };
            }
            let bv = bias.map(|b| chunk(b, c0)).transpose()?;
            let y8 = y.get_mut(c0..c0 + 8).ok_or(SHORT)?;
            // SAFETY: AVX2 is enabled for this function.
            unsafe { finish_f32(s, bv, g, y8.try_into().map_err(|_| SHORT)?) };
        }
        dw_f32_tail(g, d.out_c, dm, done, input, filter, bias, taps, base, y)?;
    }
    Ok(())
}

/// A float depthwise pixel's channels from `from` on (past the last block of eight), as the
/// portable body sums them: taps at `base + r`, channel `c` reading input channel `c / dm`.
#[allow(clippy::too_many_arguments)]
fn dw_f32_tail(
    g: &Geometry,
    out_c: usize,
    dm: usize,
    from: usize,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    taps: &[(usize, usize)],
    base: usize,
    y: &mut [f32],
) -> Result<(), KernelError> {
    for c in from..out_c {
        let mut a = 0.0;
        for &(r, t) in taps {
            let x = *input.get(base + r + c / dm).ok_or(SHORT)?;
            a += x * *filter.get(t * out_c + c).ok_or(SHORT)?;
        }
        let bv = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
        *y.get_mut(c).ok_or(SHORT)? = clamp(a + bv, g.lo, g.hi);
    }
    Ok(())
}

/// Interior pixels per tile of [`depthwise_f32`].
const DW_TILE: usize = 4;

/// [`depthwise_f32`] on up to [`DW_TILE`] interior pixels of one row with one input channel
/// per output channel (`bases`: each window's first input value; `y`: their outputs), each
/// lane summing its taps in the portable order: the portable body's bits.
///
/// # Safety
/// The CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn depthwise_f32_tile(
    g: &Geometry,
    d: &Dims,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    taps: &[(usize, usize)],
    bases: &[usize],
    y: &mut [f32],
) -> Result<(), KernelError> {
    let m = bases.len();
    let done = d.out_c / 8 * 8;
    // A short tile repeats its last pixel (computed, not stored).
    let last = *bases.last().ok_or(SHORT)?;
    let base = |i: usize| bases.get(i).copied().unwrap_or(last);
    let (b0, b1, b2, b3) = (base(0), base(1), base(2), base(3));
    for c0 in (0..done).step_by(8) {
        // SAFETY: AVX2 is enabled for this function.
        let zero = unsafe { _mm256_setzero_ps() };
        let mut s = [zero; DW_TILE];
        for &(r, t) in taps {
            // SAFETY: AVX2 is enabled for this function.
            let k = unsafe { load_f32(chunk(filter, t * d.out_c + c0)?) };
            for (s, o) in s.iter_mut().zip([b0, b1, b2, b3]) {
                // SAFETY: AVX2 is enabled for this function.
                let x = unsafe { load_f32(chunk(input, o + r + c0)?) };
                // SAFETY: AVX2 is enabled for this function.
                let p = unsafe { _mm256_mul_ps(x, k) };
                // SAFETY: AVX2 is enabled for this function.
                *s = unsafe { _mm256_add_ps(*s, p) };
            }
        }
        let bv = bias.map(|b| chunk(b, c0)).transpose()?;
        for (i, s) in s.iter().enumerate().take(m) {
            let y8 = y.get_mut(i * d.out_c + c0..i * d.out_c + c0 + 8).ok_or(SHORT)?;
            // SAFETY: AVX2 is enabled for this function.
            unsafe { finish_f32(*s, bv, g, y8.try_into().map_err(|_| SHORT)?) };
        }
    }
    for (&o, y) in bases.iter().zip(y.chunks_exact_mut(d.out_c.max(1))) {
        dw_f32_tail(g, d.out_c, 1, done, input, filter, bias, taps, o, y)?;
    }
    Ok(())
}

/// Writes `clamp(s + bias, lo, hi)` to `y`, as the portable bodies' `clamp(s + bv, lo, hi)`:
/// `maxps(lo, x)` is `x < lo ? lo : x` and `minps(hi, v)` is `hi < v ? hi : v`, NaN kept.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn finish_f32(s: __m256, bias: Option<&[f32; 8]>, g: &Geometry, y: &mut [f32; 8]) {
    let b = match bias {
        // SAFETY: AVX2 is enabled for this function.
        Some(b) => unsafe { load_f32(b) },
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        None => unsafe { _mm256_setzero_ps() },
    };
    // SAFETY: AVX2 is enabled for this function.
    let v = unsafe { _mm256_add_ps(s, b) };
    // SAFETY: AVX2 is enabled for this function.
    let lo = unsafe { _mm256_set1_ps(g.lo) };
    // SAFETY: AVX2 is enabled for this function.
    let hi = unsafe { _mm256_set1_ps(g.hi) };
    // SAFETY: AVX2 is enabled for this function.
    let v = unsafe { _mm256_max_ps(lo, v) };
    // SAFETY: AVX2 is enabled for this function.
    let v = unsafe { _mm256_min_ps(hi, v) };
    // SAFETY: `y` is 32 writable bytes, and `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(y.as_mut_ptr(), v) };
}

/// The portable `dot_f32` of eight channels' lanes at once: lane `l` of `a[c]` holds channel
/// `c`'s lane `l`; the result's lane `c` is `((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7))`.
/// A macro, for the reason `reduce8_i32!` is one.
macro_rules! reduce8_f32 {
    ($a:expr) => {{
        let a = $a;
        // [l0 + l4, l1 + l5, l2 + l6, l3 + l7] of channels c and c + 1 in one register.
        let pair = |x: __m256, y: __m256| {
            // SAFETY: the enclosing function has AVX2.
            let l = unsafe { _mm256_permute2f128_ps::<0x20>(x, y) };
            // SAFETY: the enclosing function has AVX2.
            let h = unsafe { _mm256_permute2f128_ps::<0x31>(x, y) };
            // SAFETY: the enclosing function has AVX2.
            unsafe { _mm256_add_ps(l, h) }
        };
        let (p01, p23) = (pair(a[0], a[1]), pair(a[2], a[3]));
        let (p45, p67) = (pair(a[4], a[5]), pair(a[6], a[7]));
        // [(l0 + l4) + (l2 + l6), (l1 + l5) + (l3 + l7)] of c, c + 2 | of c + 1, c + 3.
        let quad = |x: __m256, y: __m256| {
            // SAFETY: the enclosing function has AVX2.
            let e = unsafe { _mm256_shuffle_ps::<0b01_00_01_00>(x, y) };
            // SAFETY: the enclosing function has AVX2.
            let o = unsafe { _mm256_shuffle_ps::<0b11_10_11_10>(x, y) };
            // SAFETY: the enclosing function has AVX2.
            unsafe { _mm256_add_ps(e, o) }
        };
        let (q0, q4) = (quad(p01, p23), quad(p45, p67));
        // [c0, c2, c4, c6 | c1, c3, c5, c7].
        // SAFETY: the enclosing function has AVX2.
        let s = unsafe { _mm256_hadd_ps(q0, q4) };
        // SAFETY: the enclosing function has AVX2.
        let order = unsafe { _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7) };
        // SAFETY: the enclosing function has AVX2.
        unsafe { _mm256_permutevar8x32_ps(s, order) }
    }};
}

/// Builds an interior window's im2col row when each filter row's taps are four contiguous
/// values (`f_w * in_c == 4`, undilated in x; the keyword-spotting network's first layer):
/// two filter rows per eight values, loaded as halves and stored as one 256-bit value. The
/// portable `gather`'s 4-value copies left each 256-bit read of the row spanning two
/// stores, which the CPU cannot forward, so every read waited for the stores to retire.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn rows4_f32(
    input: &[f32],
    base: usize,
    stride: usize,
    f_h: usize,
    patch: &mut [f32],
) -> Result<(), KernelError> {
    for j in 0..f_h / 2 {
        let lo: &[f32; 4] = chunk(input, base + 2 * j * stride)?;
        let hi: &[f32; 4] = chunk(input, base + (2 * j + 1) * stride)?;
        // SAFETY: `lo` is 16 readable bytes, and `loadu` has no alignment requirement.
        let l = unsafe { _mm_loadu_ps(lo.as_ptr()) };
        // SAFETY: `hi` is 16 readable bytes, and `loadu` has no alignment requirement.
        let h = unsafe { _mm_loadu_ps(hi.as_ptr()) };
        // SAFETY: AVX2 is enabled for this function.
        let v = unsafe { _mm256_set_m128(h, l) };
        let dst: &mut [f32; 8] = chunk_mut(patch, 8 * j)?;
        // SAFETY: `dst` is 32 writable bytes, and `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), v) };
    }
    if f_h % 2 == 1 {
        let src: &[f32; 4] = chunk(input, base + (f_h - 1) * stride)?;
        let dst: &mut [f32; 4] = chunk_mut(patch, 4 * (f_h - 1))?;
        *dst = *src;
    }
    Ok(())
}

/// The most filter values (in blocks of eight rows) `conv_f32` transposes, on the stack: the
/// keyword-spotting network's convolutions have 640 and 256.
const TRANSPOSED: usize = 1024;

/// Copies the first `blocks` blocks of eight filter rows into `kt` transposed: block `b`'s
/// value `p` of its eight rows is `kt[(b row + p) 8..][..8]`. `None` when they do not fit.
fn transpose_blocks<'k>(
    filter: &[f32],
    row: usize,
    blocks: usize,
    kt: &'k mut [f32; TRANSPOSED],
) -> Option<&'k [f32]> {
    if row == 0 {
        return None;
    }
    let n = blocks.checked_mul(8)?.checked_mul(row)?;
    let kt = kt.get_mut(..n)?;
    let rows = filter.get(..n)?;
    for (dst, src) in kt.chunks_exact_mut(8 * row).zip(rows.chunks_exact(8 * row)) {
        for (c, k) in src.chunks_exact(row).enumerate() {
            for (p, &v) in k.iter().enumerate() {
                if let Some(t) = dst.get_mut(8 * p + c) {
                    *t = v;
                }
            }
        }
    }
    Some(kt)
}

/// `conv_f32`'s blocks of eight channels over a transposed filter (see [`transpose_blocks`]):
/// lane register `j` holds the portable `dot_f32`'s lane `j` of all eight channels, each
/// product a broadcast input value times eight channels' weights, so the portable pairwise
/// tree is seven vertical adds instead of a transpose of the sums per pixel.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn blocks_transposed(
    x: &[f32],
    kt: &[f32],
    row: usize,
    bias: Option<&[f32]>,
    g: &Geometry,
    y: &mut [f32],
) -> Result<(), KernelError> {
    let (n8, rem) = (row / 8, row % 8);
    // The blocks by index: `chunks_exact` divided the length per pixel.
    for blk in 0..y.len() / 8 {
        let Some(kb) = kt.get(8 * row * blk..8 * row * (blk + 1)) else {
            break;
        };
        // SAFETY: AVX2 is enabled for this function.
        let mut l = [unsafe { _mm256_setzero_ps() }; 8];
        for i in 0..n8 {
            let x8: &[f32; 8] = chunk(x, 8 * i)?;
            let k64: &[f32; 64] = chunk(kb, 64 * i)?;
            for (j, l) in l.iter_mut().enumerate() {
                // SAFETY: AVX2 is enabled for this function.
                let xv = unsafe { _mm256_set1_ps(x8[j]) };
                // SAFETY: AVX2 is enabled for this function.
                let kv = unsafe { load_f32(chunk(k64, 8 * j)?) };
                // SAFETY: AVX2 is enabled for this function.
                let p = unsafe { _mm256_mul_ps(xv, kv) };
                // SAFETY: AVX2 is enabled for this function.
                *l = unsafe { _mm256_add_ps(*l, p) };
            }
        }
        // The portable remainder: lanes `0..rem` take one more product each.
        for (j, l) in l.iter_mut().enumerate().take(rem) {
            let p = 8 * n8 + j;
            // SAFETY: AVX2 is enabled for this function.
            let xv = unsafe { _mm256_set1_ps(*x.get(p).ok_or(SHORT)?) };
            // SAFETY: AVX2 is enabled for this function.
            let kv = unsafe { load_f32(chunk(kb, 8 * p)?) };
            // SAFETY: AVX2 is enabled for this function.
            let p = unsafe { _mm256_mul_ps(xv, kv) };
            // SAFETY: AVX2 is enabled for this function.
            *l = unsafe { _mm256_add_ps(*l, p) };
        }
        let [a0, a1, a2, a3, a4, a5, a6, a7] = l;
        // ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)), as `dot_f32`.
        // SAFETY: AVX2 is enabled for this function.
        let s04 = unsafe { _mm256_add_ps(a0, a4) };
        // SAFETY: AVX2 is enabled for this function.
        let s26 = unsafe { _mm256_add_ps(a2, a6) };
        // SAFETY: AVX2 is enabled for this function.
        let s15 = unsafe { _mm256_add_ps(a1, a5) };
        // SAFETY: AVX2 is enabled for this function.
        let s37 = unsafe { _mm256_add_ps(a3, a7) };
        // SAFETY: AVX2 is enabled for this function.
        let e = unsafe { _mm256_add_ps(s04, s26) };
        // SAFETY: AVX2 is enabled for this function.
        let o = unsafe { _mm256_add_ps(s15, s37) };
        // SAFETY: AVX2 is enabled for this function.
        let total = unsafe { _mm256_add_ps(e, o) };
        let bv = bias.map(|b| chunk(b, 8 * blk)).transpose()?;
        let y8: &mut [f32; 8] = chunk_mut(y, 8 * blk)?;
        // SAFETY: AVX2 is enabled for this function.
        unsafe { finish_f32(total, bv, g, y8) };
    }
    Ok(())
}

/// CONV_2D, float32, as `conv_f32_impl`: eight output channels at a time, each channel's
/// eight lanes in a register, reduced in the portable order.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn conv_f32(
    g: &Geometry,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    patch: &mut [f32],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let row = g.row();
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.out_c * row)?;
    let bias = bias.map(|b| take(b, d.out_c)).transpose()?;
    let patch = take_mut(patch, row)?;
    let n8 = row / 8;
    // Each block of eight filter rows transposed, when the filter's blocks fit.
    let mut kt = [0.0f32; TRANSPOSED];
    let transposed = transpose_blocks(filter, row, d.out_c / 8, &mut kt);
    // Interior windows of four-value filter rows are built by `rows4_f32` (1x1 filters
    // read the input in place through `gather`).
    let rows4 = g.dil_w == 1 && d.f_w * d.in_c == 4 && d.f_h * d.f_w > 1;
    let stride = (g.dil_h as usize) * d.in_w * d.in_c;
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let x = if rows4 && w.fy == (0, d.f_h) && w.fx == (0, d.f_w) {
            let base = at(g, &d, b, &w, 0, 0);
            // SAFETY: AVX2 is enabled for this function.
            unsafe { rows4_f32(input, base, stride, d.f_h, patch)? };
            &*patch
        } else {
            take(gather(g, &d, input, b, &w, 0.0, patch)?, row)?
        };
        let y = pixels.next().ok_or(SHORT)?;
        if let Some(kt) = transposed {
            // SAFETY: AVX2 is enabled for this function.
            unsafe { blocks_transposed(x, kt, row, bias, g, y)? };
        } else {
            // The row's last `row % 8` values, zero-padded (zero times zero adds nothing to a lane).
            let mut x_tail = [0.0f32; 8];
            let tail = x.get(8 * n8..).ok_or(SHORT)?;
            x_tail
                .get_mut(..tail.len())
                .ok_or(SHORT)?
                .copy_from_slice(tail);
            for blk in 0..d.out_c / 8 {
                let y8 = y.get_mut(8 * blk..8 * blk + 8).ok_or(SHORT)?;
                // Eight filter rows as one slice, as in `conv_i8`.
                let fb = filter
                    .get(8 * blk * row..8 * (blk + 1) * row)
                    .ok_or(SHORT)?;
                // SAFETY: AVX2 is enabled for this function.
                let mut lanes = [unsafe { _mm256_setzero_ps() }; 8];
                for j in 0..n8 {
                    // SAFETY: AVX2 is enabled for this function.
                    let xv = unsafe { load_f32(chunk(x, 8 * j)?) };
                    for (c, l) in lanes.iter_mut().enumerate() {
                        // SAFETY: AVX2 is enabled for this function.
                        let kv = unsafe { load_f32(chunk(fb, c * row + 8 * j)?) };
                        // SAFETY: AVX2 is enabled for this function.
                        let p = unsafe { _mm256_mul_ps(xv, kv) };
                        // SAFETY: AVX2 is enabled for this function.
                        *l = unsafe { _mm256_add_ps(*l, p) };
                    }
                }
                if !tail.is_empty() {
                    // SAFETY: AVX2 is enabled for this function.
                    let xv = unsafe { load_f32(&x_tail) };
                    for (c, l) in lanes.iter_mut().enumerate() {
                        let mut k_tail = [0.0f32; 8];
                        let kt = fb.get(c * row + 8 * n8..(c + 1) * row).ok_or(SHORT)?;
                        k_tail.get_mut(..kt.len()).ok_or(SHORT)?.copy_from_slice(kt);
                        // SAFETY: AVX2 is enabled for this function.
                        let kv = unsafe { load_f32(&k_tail) };
                        // SAFETY: AVX2 is enabled for this function.
                        let p = unsafe { _mm256_mul_ps(xv, kv) };
                        // SAFETY: AVX2 is enabled for this function.
                        *l = unsafe { _mm256_add_ps(*l, p) };
                    }
                }
                let total = reduce8_f32!(lanes);
                let bv = bias.map(|b| chunk(b, 8 * blk)).transpose()?;
                // SAFETY: AVX2 is enabled for this function.
                unsafe { finish_f32(total, bv, g, y8.try_into().map_err(|_| SHORT)?) };
            }
        }
        for c in d.out_c / 8 * 8..d.out_c {
            let k = filter.get(c * row..(c + 1) * row).ok_or(SHORT)?;
            let bv = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
            *y.get_mut(c).ok_or(SHORT)? = clamp(dot_f32(x, k) + bv, g.lo, g.hi);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;

pub(super) mod depthwise_u8;
pub(super) mod gemm;
