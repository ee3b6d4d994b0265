//! The NEON tile of the packed float CONV_2D (aarch64): four pixels times one panel of sixteen
//! channels, sixteen registers of four sums over the row, each step four weight loads and per
//! pixel four multiplies by the pixel's value and four adds. Separate multiplies and adds in
//! the portable tile's order (no `vfmaq_f32`), so its bits are the portable tile's.

// Value intrinsics became safe where their target feature is enabled in Rust 1.87; the
// crate's minimum (1.85) still needs them in `unsafe` blocks, which newer compilers call
// unused.
#![allow(unused_unsafe)]

use core::arch::aarch64::*;

use super::super::super::Geometry;
use super::{PANEL, SHORT, TILE, panel_bias};
use crate::interpreter::KernelError;

/// Four float lanes from `s`.
#[inline(always)]
fn load4(s: &[f32]) -> Result<float32x4_t, KernelError> {
    let s: &[f32; 4] = s.first_chunk().ok_or(SHORT)?;
    // SAFETY: `s` is 16 readable bytes of `f32`s, as aligned as `vld1q_f32` needs.
    Ok(unsafe { vld1q_f32(s.as_ptr()) })
}

/// The NEON tile, as `tile_portable`: `y[i][n * 16 + j] = clamp(sum_k rows[i][k] w + b)`.
#[inline(always)]
pub(super) fn tile(
    g: &Geometry,
    rows: [&[f32]; TILE],
    packed: &[f32],
    bias: Option<&[f32]>,
    y: &mut [f32],
) -> Result<(), KernelError> {
    let (oc, row) = (g.out_c as usize, g.row());
    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
    let lo = unsafe { vdupq_n_f32(g.lo) };
    // SAFETY: as above.
    let hi = unsafe { vdupq_n_f32(g.hi) };
    let [r0, r1, r2, r3] = rows;
    for (n, panel) in packed.chunks_exact(PANEL * row).enumerate() {
        // SAFETY: NEON is baseline on aarch64 (value intrinsic).
        let zero = unsafe { vdupq_n_f32(0.0) };
        let mut acc = [[zero; 4]; TILE];
        for ((((w, &x0), &x1), &x2), &x3) in panel
            .chunks_exact(PANEL)
            .zip(r0)
            .zip(r1)
            .zip(r2)
            .zip(r3)
        {
            let wv = [
                load4(w)?,
                load4(w.get(4..).ok_or(SHORT)?)?,
                load4(w.get(8..).ok_or(SHORT)?)?,
                load4(w.get(12..).ok_or(SHORT)?)?,
            ];
            for (a, x) in acc.iter_mut().zip([x0, x1, x2, x3]) {
                for (a, w) in a.iter_mut().zip(wv) {
                    // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                    let p = unsafe { vmulq_n_f32(w, x) };
                    // SAFETY: as above.
                    *a = unsafe { vaddq_f32(*a, p) };
                }
            }
        }
        let width = oc.saturating_sub(n * PANEL).min(PANEL);
        let b = panel_bias(bias, n);
        let bv = [load4(&b)?, load4(&b[4..])?, load4(&b[8..])?, load4(&b[12..])?];
        for (a, px) in acc.iter().zip(y.chunks_exact_mut(oc)) {
            let mut v = [0.0f32; PANEL];
            for ((a, b), v) in a.iter().zip(bv).zip(v.chunks_exact_mut(4)) {
                // The bias after the sum, as the reference adds it.
                // SAFETY: NEON is baseline on aarch64 (value intrinsic).
                let s = unsafe { vaddq_f32(*a, b) };
                // `f32::max` and `min` are `fmaxnm` and `fminnm` (a NaN bound is ignored).
                // SAFETY: as above.
                let s = unsafe { vmaxnmq_f32(s, lo) };
                // SAFETY: as above.
                let s = unsafe { vminnmq_f32(s, hi) };
                let v: &mut [f32; 4] = v.first_chunk_mut().ok_or(SHORT)?;
                // SAFETY: `v` is 16 writable bytes of `f32`s, as aligned as `vst1q_f32` needs.
                unsafe { vst1q_f32(v.as_mut_ptr(), s) };
            }
            px.get_mut(n * PANEL..n * PANEL + width)
                .ok_or(SHORT)?
                .copy_from_slice(&v[..width]);
        }
    }
    Ok(())
}
