//! The AVX2 body of the uint8 DEPTHWISE_CONV_2D (depth multiplier 1; others take the
//! portable body): sixteen channels at a time, the channels past the last sixteen padded
//! with zeros, never scalar. `(x + input_offset)` and `(w + weights_offset)` are each within
//! [-255, 255], so their product needs 32 bits: two taps' values are interleaved as int16
//! pairs and one `vpmaddwd` sums both products per channel, exact.

use super::super::simd::{MAX_TAPS, chunk_mut, interior_taps, window_taps};
use super::{Dims, Geometry, KernelError, Requant, SHORT, Windows, check_requant, chunk};
use super::{Out8, load_i32, out8, take, take_mut};
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use zerocopy::FromBytes;

/// `s[o..o + n]` (`n < 16`) in the first `n` of sixteen bytes, zeros after.
#[inline(always)]
fn padded(s: &[u8], o: usize, n: usize) -> Result<[u8; 16], KernelError> {
    let mut t = [0u8; 16];
    t.get_mut(..n)
        .ok_or(SHORT)?
        .copy_from_slice(s.get(o..o + n).ok_or(SHORT)?);
    Ok(t)
}

/// `s[o..o + n]` (`n <= 8`) in the first `n` of eight words, zeros after.
#[inline(always)]
fn padded_i32(s: &[i32], o: usize, n: usize) -> Result<[i32; 8], KernelError> {
    let mut t = [0i32; 8];
    t.get_mut(..n)
        .ok_or(SHORT)?
        .copy_from_slice(s.get(o..o + n).ok_or(SHORT)?);
    Ok(t)
}

/// Sixteen bytes of `s` from `o`, widened without sign to int16, plus `off`: read in
/// place for a whole block (`n` 16; a copy through the stack cost half the speed), else
/// padded with zeros.
macro_rules! load16 {
    ($s:expr, $o:expr, $n:expr, $off:expr) => {{
        let (s, o, n): (&[u8], usize, usize) = ($s, $o, $n);
        if n == 16 {
            // SAFETY: the enclosing function has AVX2.
            unsafe { widen_plus(chunk(s, o)?, $off) }
        } else {
            // SAFETY: the enclosing function has AVX2.
            unsafe { widen_plus(&padded(s, o, n)?, $off) }
        }
    }};
}

/// Eight words of `s` from `o` (`n` of them, zeros after) as a vector.
macro_rules! load8 {
    ($s:expr, $o:expr, $n:expr) => {{
        let (s, o, n): (&[i32], usize, usize) = ($s, $o, $n);
        if n == 8 {
            // SAFETY: the enclosing function has AVX2.
            unsafe { load_i32(chunk(s, o)?) }
        } else {
            // SAFETY: the enclosing function has AVX2.
            unsafe { load_i32(&padded_i32(s, o, n)?) }
        }
    }};
}

/// Sixteen bytes widened without sign to int16, plus `off`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen_plus(s: &[u8; 16], off: __m256i) -> __m256i {
    // SAFETY: `s` is 16 readable bytes, and `loadu` has no alignment requirement.
    let v = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let v = unsafe { _mm256_cvtepu8_epi16(v) };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    unsafe { _mm256_add_epi16(v, off) }
}

/// DEPTHWISE_CONV_2D, uint8, as `depthwise_u8_impl`.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn depthwise_u8(
    g: &Geometry,
    input: &[u8],
    filter: &[u8],
    q: &Requant<'_>,
    out: &mut [u8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    if g.depth_mult != 1 || (g.f_h as usize) * (g.f_w as usize) > MAX_TAPS {
        return super::super::depthwise_u8_impl(g, input, filter, q, out, acc);
    }
    let d = Dims::of(g)?;
    let oc = d.out_c;
    let xo = i16::try_from(g.input_offset).map_err(|_| SHORT)?;
    let wo = i16::try_from(g.weights_offset).map_err(|_| SHORT)?;
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let xo = unsafe { _mm256_set1_epi16(xo) };
    // SAFETY: AVX2 is enabled for this function (value intrinsic).
    let wo = unsafe { _mm256_set1_epi16(wo) };
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * oc)?;
    check_requant(q, oc)?;
    let bias = take(q.bias, oc)?;
    let mut inner = [(0, 0); MAX_TAPS];
    let inner = interior_taps(g, &d, &mut inner);
    let mut taps = [(0, 0); MAX_TAPS];
    // SAFETY: AVX2 is enabled for this function.
    let stage = unsafe { out8(g) };
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(oc);
    for (b, w) in Windows::new(g)? {
        let (base, taps) = window_taps(g, &d, b, &w, inner, &mut taps);
        let y = pixels.next().ok_or(SHORT)?;
        for c0 in (0..oc).step_by(16) {
            let n = (oc - c0).min(16);
            // SAFETY: AVX2 is enabled for this function (value intrinsic).
            let zero = unsafe { _mm256_setzero_si256() };
            // Sums of channels [0..4, 8..12] and [4..8, 12..16] (the in-lane interleave's order).
            let (mut sa, mut sb) = (zero, zero);
            for two in taps.chunks(2) {
                let (r0, t0) = *two.first().ok_or(SHORT)?;
                let x0 = load16!(input, base + r0 + c0, n, xo);
                let w0 = load16!(filter, t0 * oc + c0, n, wo);
                // A lone last tap pairs with zeros.
                let (x1, w1) = match two.get(1) {
                    Some(&(r1, t1)) => (
                        load16!(input, base + r1 + c0, n, xo),
                        load16!(filter, t1 * oc + c0, n, wo),
                    ),
                    None => (zero, zero),
                };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let xl = unsafe { _mm256_unpacklo_epi16(x0, x1) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let xh = unsafe { _mm256_unpackhi_epi16(x0, x1) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let wl = unsafe { _mm256_unpacklo_epi16(w0, w1) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let wh = unsafe { _mm256_unpackhi_epi16(w0, w1) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let pa = unsafe { _mm256_madd_epi16(xl, wl) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let pb = unsafe { _mm256_madd_epi16(xh, wh) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                sa = unsafe { _mm256_add_epi32(sa, pa) };
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                sb = unsafe { _mm256_add_epi32(sb, pb) };
            }
            // Channels 0..8 and 8..16 in order.
            // SAFETY: AVX2 is enabled for this function (value intrinsic).
            let lo = unsafe { _mm256_permute2x128_si256::<0x20>(sa, sb) };
            // SAFETY: AVX2 is enabled for this function (value intrinsic).
            let hi = unsafe { _mm256_permute2x128_si256::<0x31>(sa, sb) };
            for (h, v) in [(0, lo), (8, hi)] {
                let (c, m) = (c0 + h, n.saturating_sub(h).min(8));
                if m == 0 {
                    break;
                }
                let bv = load8!(bias, c, m);
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let v = unsafe { _mm256_add_epi32(v, bv) };
                let (mv, sv) = (load8!(q.mult, c, m), load8!(q.shift, c, m));
                if m == 8 {
                    let y8 = <[i8; 8]>::mut_from_bytes(chunk_mut::<u8, 8>(y, c)?).map_err(|_| SHORT)?;
                    requant_store8!(v, mv, sv, &stage, y8);
                } else {
                    let mut y8 = [0i8; 8];
                    requant_store8!(v, mv, sv, &stage, &mut y8);
                    let dst = y.get_mut(c..c + m).ok_or(SHORT)?;
                    for (d, &s) in dst.iter_mut().zip(&y8) {
                        *d = s as u8;
                    }
                }
            }
        }
    }
    Ok(())
}
