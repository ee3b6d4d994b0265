//! The AVX2 body of the int8 / uint8 CONV_2D over packed weights ([`packed_q`]): tiles of
//! [`TILE`] output pixels, each pixel's row (in place for a 1x1 filter, else gathered with
//! the input zero point) widened to int16 once per tile, then per panel of 16 channels eight
//! registers of sums, each step one broadcast input pair per pixel and two `vpmaddwd` of it.

use super::super::packed_q::{self, PANEL, TILE, pairs};
use super::super::simd::chunk_mut;
use super::{Out8, load_i32, out8};
use super::{Dims, Geometry, KernelError, Requant, SHORT, Windows, check_requant, gather};
use super::{take, take_mut};
#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use zerocopy::FromBytes;

/// CONV_2D, int8 (`UNSIGNED` false) or uint8 (true), over `packed` weights, as the unpacked
/// portable body: `q.bias` is its folded bias, `input` and `out` the elements' bytes.
/// `scratch` holds [`packed_q::work_bytes`].
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn conv_packed<const UNSIGNED: bool>(
    g: &Geometry,
    input: &[u8],
    packed: &[i16],
    q: &Requant<'_>,
    out: &mut [u8],
    scratch: &mut [u8],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let (row, half) = (g.row(), pairs(g.row()));
    let input = take(input, d.input_len())?;
    let packed = take(packed, packed_q::packed_len(d.out_c, row).ok_or(SHORT)?)?;
    check_requant(q, d.out_c)?;
    let (patch, tile) = scratch
        .split_at_mut_checked(row.next_multiple_of(16))
        .ok_or(SHORT)?;
    let tile = <[i32]>::mut_from_bytes(take_mut(tile, 4 * TILE * half)?).map_err(|_| SHORT)?;
    // The padding byte: the input zero point, whose offset sum is zero.
    let zp = if UNSIGNED {
        u8::try_from(-g.input_offset).map_err(|_| SHORT)?
    } else {
        i8::try_from(-g.input_offset).map_err(|_| SHORT)? as u8
    };
    let out = take_mut(out, d.output_len())?;
    // SAFETY: AVX2 is enabled for this function.
    let stage = unsafe { out8(g) };
    let pixels = d.batches * d.out_h * d.out_w;
    let mut windows = Windows::new(g)?;
    for (t, y) in out.chunks_mut(TILE * d.out_c).enumerate() {
        let n = TILE.min(pixels - t * TILE);
        for rows in tile.chunks_exact_mut(half).take(n) {
            let (b, w) = windows.next().ok_or(SHORT)?;
            let x = take(gather(g, &d, input, b, &w, zp, patch)?, row)?;
            // SAFETY: AVX2 is enabled for this function.
            unsafe { widen_row::<UNSIGNED>(x, rows)? };
        }
        // SAFETY: AVX2 is enabled for this function.
        unsafe { tile_panels(&d, half, tile, packed, q, &stage, n, y)? };
    }
    Ok(())
}

/// `x`'s values widened to int16, two to an `i32` of `rows` (the last pair's odd half zero).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen_row<const UNSIGNED: bool>(x: &[u8], rows: &mut [i32]) -> Result<(), KernelError> {
    let n16 = x.len() / 16;
    for j in 0..n16 {
        let s: &[u8; 16] = super::chunk(x, 16 * j)?;
        // SAFETY: `s` is 16 readable bytes, and `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
        let v = if UNSIGNED {
            // SAFETY: AVX2 is enabled for this function.
            unsafe { _mm256_cvtepu8_epi16(v) }
        } else {
            // SAFETY: AVX2 is enabled for this function.
            unsafe { _mm256_cvtepi8_epi16(v) }
        };
        let dst: &mut [i32; 8] = chunk_mut(rows, 8 * j)?;
        // SAFETY: `dst` is 32 writable bytes, and `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), v) };
    }
    let wide = |v: u8| if UNSIGNED { i32::from(v) } else { i32::from(v as i8) };
    let tail = x.get(16 * n16..).ok_or(SHORT)?;
    for (i, two) in tail.chunks(2).enumerate() {
        let lo = two.first().map_or(0, |&v| wide(v));
        let hi = two.get(1).map_or(0, |&v| wide(v));
        *rows.get_mut(8 * n16 + i).ok_or(SHORT)? = (lo as u16 as u32 | (hi as u16 as u32) << 16) as i32;
    }
    Ok(())
}

/// One pair of the row: `w` the panel's 32 weights of it, `x` the pixels' input pairs, each
/// pixel's two sums (channels 0..8, 8..16) in `a`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn step<const P: usize>(w: &[i16], x: [i32; P], a: &mut [[__m256i; 2]]) -> Result<(), KernelError> {
    let w0: &[i16; 16] = w.first_chunk().ok_or(SHORT)?;
    let w1: &[i16; 16] = w.last_chunk().ok_or(SHORT)?;
    // SAFETY: `w0` is 32 readable bytes, and `loadu` has no alignment requirement.
    let w0 = unsafe { _mm256_loadu_si256(w0.as_ptr().cast()) };
    // SAFETY: `w1` is 32 readable bytes, and `loadu` has no alignment requirement.
    let w1 = unsafe { _mm256_loadu_si256(w1.as_ptr().cast()) };
    for (a, x) in a.iter_mut().zip(x) {
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        let xv = unsafe { _mm256_set1_epi32(x) };
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        let p0 = unsafe { _mm256_madd_epi16(xv, w0) };
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        let p1 = unsafe { _mm256_madd_epi16(xv, w1) };
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        a[0] = unsafe { _mm256_add_epi32(a[0], p0) };
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        a[1] = unsafe { _mm256_add_epi32(a[1], p1) };
    }
    Ok(())
}

/// Every panel over one tile of `n` pixels (`tile`: [`TILE`] widened rows of `half` pairs;
/// the rows past `n` are stale and their sums not stored), requantized into `y`.
#[inline]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn tile_panels(
    d: &Dims,
    half: usize,
    tile: &[i32],
    packed: &[i16],
    q: &Requant<'_>,
    stage: &Out8,
    n: usize,
    y: &mut [u8],
) -> Result<(), KernelError> {
    let oc = d.out_c;
    let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|p| tile.get(p * half..(p + 1) * half).unwrap_or(&[]));
    if r3.len() != half {
        return Err(SHORT);
    }
    for (p, wp) in packed.chunks_exact(2 * PANEL * half).enumerate() {
        // SAFETY: AVX2 is enabled for this function (value intrinsic).
        let mut a = [[unsafe { _mm256_setzero_si256() }; 2]; TILE];
        if n == 1 {
            // A lone pixel (a 1x1 image's classifier, a tile at the end): its sums alone,
            // not three stale rows' beside them.
            for (w, &x) in wp.chunks_exact(2 * PANEL).zip(r0) {
                // SAFETY: AVX2 is enabled for this function.
                unsafe { step(w, [x], &mut a[..1])? };
            }
        } else {
            for ((((w, &x0), &x1), &x2), &x3) in wp.chunks_exact(2 * PANEL).zip(r0).zip(r1).zip(r2).zip(r3) {
                // SAFETY: AVX2 is enabled for this function.
                unsafe { step(w, [x0, x1, x2, x3], &mut a)? };
            }
        }
        for h in 0..2 {
            let c0 = p * PANEL + 8 * h;
            if c0 >= oc {
                break;
            }
            let m = c0 + 8 <= oc;
            // The channel data of the eight lanes (zero past the last channel).
            let lanes = |s: &[i32]| -> [i32; 8] {
                core::array::from_fn(|l| s.get(c0 + l).copied().unwrap_or(0))
            };
            let (bias, mult, shift) = if m {
                (*super::chunk(q.bias, c0)?, *super::chunk(q.mult, c0)?, *super::chunk(q.shift, c0)?)
            } else {
                (lanes(q.bias), lanes(q.mult), lanes(q.shift))
            };
            // SAFETY: AVX2 is enabled for this function.
            let bv = unsafe { load_i32(&bias) };
            // SAFETY: AVX2 is enabled for this function.
            let mv = unsafe { load_i32(&mult) };
            // SAFETY: AVX2 is enabled for this function.
            let sv = unsafe { load_i32(&shift) };
            for (i, a) in a.iter().enumerate().take(n) {
                // SAFETY: AVX2 is enabled for this function (value intrinsic).
                let v = unsafe { _mm256_add_epi32(a[h], bv) };
                let at = i * oc + c0;
                if m {
                    let y8 = <[i8; 8]>::mut_from_bytes(chunk_mut::<u8, 8>(y, at)?).map_err(|_| SHORT)?;
                    requant_store8!(v, mv, sv, stage, y8);
                } else {
                    let mut y8 = [0i8; 8];
                    requant_store8!(v, mv, sv, stage, &mut y8);
                    let dst = y.get_mut(at..at + (oc - c0)).ok_or(SHORT)?;
                    for (d, &s) in dst.iter_mut().zip(&y8) {
                        *d = s as u8;
                    }
                }
            }
        }
    }
    Ok(())
}
