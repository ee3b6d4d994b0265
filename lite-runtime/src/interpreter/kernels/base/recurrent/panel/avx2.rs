//! The pair panels' product in AVX2 (x86 hosts with `std`, chosen at run time): eight rows'
//! products of a pair of columns in one `vpmaddwd` of the weights widened to 16 bits against
//! the pair's two values, up to eight such sums of eight rows kept in registers over the
//! pairs. The same integers as the portable body: 16-bit products summed in pairs cannot
//! overflow 32 bits (|w| <= 128, |x + offset| <= 256), and 32-bit sums wrap in any order.

// Value intrinsics became safe inside `#[target_feature]` functions in Rust 1.87; the crate's
// minimum (1.85) still needs them in `unsafe` blocks, which newer compilers call unused.
#![allow(unused_unsafe)]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// Rows `r0..r0 + 8 B` (padding included; `sums` takes the first of them) of one vector's
/// product over the pair panel `panel` (pairs of `2 * pr` bytes), as `pair_block`.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pair_block<const B: usize>(
    x: &[i8],
    offset: i16,
    panel: &[i8],
    pr: usize,
    r0: usize,
    sums: &mut [i32],
) {
    // SAFETY: AVX2 is enabled for this function.
    let mut acc = [unsafe { _mm256_setzero_si256() }; B];
    let x16 = |k: usize| x.get(k).map_or(0, |&v| i16::from(v).wrapping_add(offset));
    for (p, pair) in panel.chunks_exact(2 * pr).enumerate() {
        let Some(values) = pair.get(2 * r0..2 * r0 + 16 * B) else {
            return;
        };
        // The pair's two values in every 32-bit lane: low half column 2p, high 2p + 1, as
        // each row's two weights lie.
        let two = (u32::from(x16(2 * p) as u16) | (u32::from(x16(2 * p + 1) as u16) << 16)) as i32;
        // SAFETY: AVX2 is enabled for this function.
        let xs = unsafe { _mm256_set1_epi32(two) };
        for (a, w) in acc.iter_mut().zip(values.chunks_exact(16)) {
            let Ok(w) = <&[i8; 16]>::try_from(w) else {
                return;
            };
            // SAFETY: `w` is 16 readable bytes, and `loadu` has no alignment requirement.
            let w = unsafe { _mm_loadu_si128(w.as_ptr().cast()) };
            // SAFETY: AVX2 is enabled for this function.
            let w = unsafe { _mm256_cvtepi8_epi16(w) };
            // SAFETY: AVX2 is enabled for this function.
            let products = unsafe { _mm256_madd_epi16(w, xs) };
            // SAFETY: AVX2 is enabled for this function.
            *a = unsafe { _mm256_add_epi32(*a, products) };
        }
    }
    let mut lanes = [0i32; 8];
    for (chunk, a) in sums.chunks_mut(8).zip(acc) {
        // SAFETY: `lanes` is 32 writable bytes, and `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), a) };
        chunk.copy_from_slice(&lanes[..chunk.len()]);
    }
}
