//! Float CONV_2D over weights packed once into panels of [`PANEL`] output channels:
//! `panel[k][0..16]` holds the 16 channels' weight `k` of the filter row, so a tile of
//! [`TILE`] output pixels times one panel keeps its sums in registers over the whole row (each
//! step: two weight loads, one broadcast per pixel, two multiply-adds per pixel), where the
//! unpacked layout (`[out_c][row]`) sums one channel of one pixel at a time. A pixel's row is
//! read in place for a 1x1 filter without padding (the pointwise convolutions that hold most
//! of a MobileNet's or a MediaPipe network's multiply-adds), else gathered into one of
//! [`TILE`] patches in the scratch. The packing costs the weights' size again in persistent
//! bytes, the patches three more rows of scratch (`Options::pack_weights`).
//!
//! Each output sums its row in order and adds the bias last, with separate multiplies and
//! adds: TensorFlow Lite's reference kernel's rounding (its `total += x * w`, then `+ bias`).
//! Fused multiply-adds ran 12 % faster but moved MobileNets' softmax outputs past the float
//! tolerance (5.6e-6 off LiteRT's reference on `keras_mobilenet_v2_a035_96_f32`, where 4.9e-6
//! is allowed).

// Value intrinsics became safe inside `#[target_feature]` functions in Rust 1.87; the crate's
// minimum (1.85) still needs them in `unsafe` blocks, which newer compilers call unused.
#![allow(unused_unsafe)]

use super::super::Geometry;
use super::{Dims, SHORT, Windows, gather, take, take_mut};

use crate::interpreter::KernelError;

/// Output channels per panel.
pub(crate) const PANEL: usize = 16;

/// Output pixels per tile.
pub(crate) const TILE: usize = 4;

/// Values of the packed weights for `out_c` channels of `depth` (the last panel padded with
/// zeros).
pub(crate) fn packed_len(out_c: usize, depth: usize) -> Option<usize> {
    out_c.div_ceil(PANEL).checked_mul(PANEL)?.checked_mul(depth)
}

/// Whether each output pixel of `g` reads its row in place (a 1x1 filter, no padding): no
/// patches needed.
pub(crate) fn in_place(g: &Geometry) -> bool {
    g.depthwise == 0 && g.f_h == 1 && g.f_w == 1 && g.pad_h == 0 && g.pad_w == 0
}

/// Scratch values the packed body needs: [`TILE`] patches, unless rows are read in place.
pub(crate) fn patch_len(g: &Geometry) -> usize {
    if in_place(g) { 0 } else { TILE * g.row() }
}

/// Packs `filter` (`[out_c][depth]`) into `packed` (`packed_len` values).
pub(crate) fn pack(
    filter: &[f32],
    out_c: usize,
    depth: usize,
    packed: &mut [f32],
) -> Result<(), KernelError> {
    let filter = take(filter, out_c.checked_mul(depth).ok_or(SHORT)?)?;
    let packed = take_mut(packed, packed_len(out_c, depth).ok_or(SHORT)?)?;
    if depth == 0 {
        return Ok(());
    }
    for (p, panel) in packed.chunks_exact_mut(PANEL * depth).enumerate() {
        for (k, step) in panel.chunks_exact_mut(PANEL).enumerate() {
            for (j, w) in step.iter_mut().enumerate() {
                *w = filter.get((p * PANEL + j) * depth + k).copied().unwrap_or(0.0);
            }
        }
    }
    Ok(())
}

/// The convolution over `packed` weights: `out[p][o] = clamp(bias[o] + sum_k x_p[k] w[o][k])`,
/// `x_p` output pixel `p`'s row (in place, or gathered into `patches`, [`patch_len`] values):
/// the AVX2 tiles where the CPU has AVX2, the NEON tiles on aarch64, else the portable ones.
#[cfg(any(test, not(feature = "std")))]
pub(crate) fn conv_packed_f32(
    g: &Geometry,
    input: &[f32],
    packed: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    patches: &mut [f32],
) -> Result<(), KernelError> {
    conv_packed_part(g, input, packed, bias, 0, out, patches)
}

/// `conv_packed_f32` for the output pixels from `first` on, as many as `out` holds (whole
/// pixels): one thread's part.
pub(crate) fn conv_packed_part(
    g: &Geometry,
    input: &[f32],
    packed: &[f32],
    bias: Option<&[f32]>,
    first: usize,
    out: &mut [f32],
    patches: &mut [f32],
) -> Result<(), KernelError> {
    let part = Part { first, out };
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the feature the body is compiled for.
        return unsafe { conv_packed_avx2(g, input, packed, bias, part, patches) };
    }
    // NEON is baseline on aarch64: its tile at compile time.
    #[cfg(target_arch = "aarch64")]
    return drive(g, input, packed, bias, part, patches, neon::tile);
    #[cfg(not(target_arch = "aarch64"))]
    drive(g, input, packed, bias, part, patches, tile_portable)
}

/// The output pixels a call computes: from pixel `first`, as many as `out` holds.
struct Part<'o> {
    first: usize,
    out: &'o mut [f32],
}

/// `conv_packed_f32` with the AVX2 tiles, compiled with AVX2 so that the tiles inline.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
unsafe fn conv_packed_avx2(
    g: &Geometry,
    input: &[f32],
    packed: &[f32],
    bias: Option<&[f32]>,
    part: Part<'_>,
    patches: &mut [f32],
) -> Result<(), KernelError> {
    drive(g, input, packed, bias, part, patches, |g, rows, packed, bias, y| {
        // SAFETY: this function's caller checked that the CPU has AVX2.
        unsafe { tile_avx2(g, rows, packed, bias, y) }
    })
}

/// The tiles of the part's pixels in order: up to [`TILE`] pixels' rows (in place or
/// gathered), then `tile` over them and every panel.
#[inline(always)]
fn drive(
    g: &Geometry,
    input: &[f32],
    packed: &[f32],
    bias: Option<&[f32]>,
    part: Part<'_>,
    patches: &mut [f32],
    tile: impl Fn(&Geometry, [&[f32]; TILE], &[f32], Option<&[f32]>, &mut [f32]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let row = g.row();
    let input = take(input, d.input_len())?;
    let packed = take(packed, packed_len(d.out_c, row).ok_or(SHORT)?)?;
    let Part { first, out } = part;
    // The part lies in the output, in whole pixels.
    let whole = first
        .checked_mul(d.out_c)
        .and_then(|s| s.checked_add(out.len()))
        .is_some_and(|end| end <= d.output_len());
    if !whole || out.len() % d.out_c.max(1) != 0 {
        return Err(SHORT);
    }
    if let Some(b) = bias {
        take(b, d.out_c)?;
    }
    let direct = in_place(g);
    let patches = take_mut(patches, patch_len(g))?;
    if row == 0 || d.out_c == 0 {
        // No products: the bias, clamped.
        for y in out.chunks_exact_mut(d.out_c.max(1)) {
            for (c, y) in y.iter_mut().enumerate() {
                let b = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
                *y = b.max(g.lo).min(g.hi);
            }
        }
        return Ok(());
    }
    // A 1x1 filter with stride 1 and no padding: output pixel p reads input pixel p, so the
    // rows are consecutive slices of the input, with no window to walk.
    if direct && g.stride_h == 1 && g.stride_w == 1 {
        if input.len() / row * d.out_c != d.output_len() {
            return Err(SHORT);
        }
        let pixels = out.len() / d.out_c;
        let input = input
            .get(first * row..(first + pixels) * row)
            .ok_or(SHORT)?;
        for (xs, y) in input
            .chunks(TILE * row)
            .zip(out.chunks_mut(TILE * d.out_c))
        {
            let m = xs.len() / row;
            let at = |i: usize| xs.get(i.min(m - 1) * row..(i.min(m - 1) + 1) * row).unwrap_or(&[]);
            tile(g, [at(0), at(1), at(2), at(3)], packed, bias, y)?;
        }
        return Ok(());
    }
    let mut windows = Windows::from(g, first)?.take(out.len() / d.out_c);
    let mut p = 0;
    loop {
        let mut rows: [&[f32]; TILE] = [&[]; TILE];
        let mut m = 0;
        let mut free = patches.chunks_exact_mut(row);
        while m < TILE {
            let Some((b, w)) = windows.next() else { break };
            rows[m] = if direct {
                gather(g, &d, input, b, &w, 0.0, &mut [])?
            } else {
                gather(g, &d, input, b, &w, 0.0, free.next().ok_or(SHORT)?)?
            };
            m += 1;
        }
        if m == 0 {
            return Ok(());
        }
        // A short tile repeats its last row; only `m` pixels are stored.
        for i in m..TILE {
            rows[i] = rows[m - 1];
        }
        let y = out.get_mut(p * d.out_c..(p + m) * d.out_c).ok_or(SHORT)?;
        tile(g, rows, packed, bias, y)?;
        p += m;
    }
}

/// Panel `n`'s bias (zeros past the channels, or without a bias).
#[inline(always)]
fn panel_bias(bias: Option<&[f32]>, n: usize) -> [f32; PANEL] {
    let mut b = [0.0f32; PANEL];
    for (j, v) in b.iter_mut().enumerate() {
        *v = bias.and_then(|b| b.get(n * PANEL + j)).copied().unwrap_or(0.0);
    }
    b
}

/// The portable tile: sixteen sums per pixel and panel, over the row in order.
#[inline(always)]
// On aarch64 the NEON tile always runs; this is the reference its tests compare with.
#[cfg_attr(all(target_arch = "aarch64", not(test)), allow(dead_code))]
pub(crate) fn tile_portable(
    g: &Geometry,
    rows: [&[f32]; TILE],
    packed: &[f32],
    bias: Option<&[f32]>,
    y: &mut [f32],
) -> Result<(), KernelError> {
    let (oc, row) = (g.out_c as usize, g.row());
    for (n, panel) in packed.chunks_exact(PANEL * row).enumerate() {
        let width = oc.saturating_sub(n * PANEL).min(PANEL);
        for (i, px) in y.chunks_exact_mut(oc).enumerate() {
            let x = rows.get(i).copied().ok_or(SHORT)?;
            let mut acc = [0.0f32; PANEL];
            for (w, &x) in panel.chunks_exact(PANEL).zip(x) {
                for (a, &w) in acc.iter_mut().zip(w) {
                    *a += x * w;
                }
            }
            let dst = px.get_mut(n * PANEL..n * PANEL + width).ok_or(SHORT)?;
            for ((y, a), b) in dst.iter_mut().zip(acc).zip(panel_bias(bias, n)) {
                *y = (a + b).max(g.lo).min(g.hi);
            }
        }
    }
    Ok(())
}

/// The AVX2 tile: four pixels times one panel, eight sums of eight lanes in registers over
/// the row.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tile_avx2(
    g: &Geometry,
    rows: [&[f32]; TILE],
    packed: &[f32],
    bias: Option<&[f32]>,
    y: &mut [f32],
) -> Result<(), KernelError> {
    #[cfg(target_arch = "x86")]
    use core::arch::x86::*;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::*;

    let (oc, row) = (g.out_c as usize, g.row());
    // SAFETY: AVX2 is enabled for this function.
    let lo = unsafe { _mm256_set1_ps(g.lo) };
    // SAFETY: AVX2 is enabled for this function.
    let hi = unsafe { _mm256_set1_ps(g.hi) };
    let [r0, r1, r2, r3] = rows;
    for (n, panel) in packed.chunks_exact(PANEL * row).enumerate() {
        // SAFETY: AVX2 is enabled for this function.
        let zero = unsafe { _mm256_setzero_ps() };
        let mut acc = [[zero, zero]; TILE];
        for ((((w, &x0), &x1), &x2), &x3) in panel
            .chunks_exact(PANEL)
            .zip(r0)
            .zip(r1)
            .zip(r2)
            .zip(r3)
        {
            let (w0, w1) = w.split_at(8);
            // SAFETY: `w0` is 8 readable floats (half a chunk of 16).
            let w0 = unsafe { _mm256_loadu_ps(w0.as_ptr()) };
            // SAFETY: as for `w0`.
            let w1 = unsafe { _mm256_loadu_ps(w1.as_ptr()) };
            for (a, x) in acc.iter_mut().zip([x0, x1, x2, x3]) {
                // SAFETY: AVX2 is enabled for this function.
                let xv = unsafe { _mm256_set1_ps(x) };
                // SAFETY: as above.
                let p0 = unsafe { _mm256_mul_ps(xv, w0) };
                // SAFETY: as above.
                let p1 = unsafe { _mm256_mul_ps(xv, w1) };
                // SAFETY: as above.
                a[0] = unsafe { _mm256_add_ps(a[0], p0) };
                // SAFETY: as above.
                a[1] = unsafe { _mm256_add_ps(a[1], p1) };
            }
        }
        let width = oc.saturating_sub(n * PANEL).min(PANEL);
        let b = panel_bias(bias, n);
        let (b0, b1) = b.split_at(8);
        // SAFETY: `b0` is 8 readable floats; `loadu` has no alignment need.
        let b0 = unsafe { _mm256_loadu_ps(b0.as_ptr()) };
        // SAFETY: as for `b0`.
        let b1 = unsafe { _mm256_loadu_ps(b1.as_ptr()) };
        for (a, px) in acc.iter().zip(y.chunks_exact_mut(oc)) {
            let mut v = [0.0f32; PANEL];
            let (v0, v1) = v.split_at_mut(8);
            // The bias after the sum, as the reference adds it.
            // SAFETY: AVX2 is enabled for this function.
            let s0 = unsafe { _mm256_add_ps(a[0], b0) };
            // SAFETY: as above.
            let s1 = unsafe { _mm256_add_ps(a[1], b1) };
            // SAFETY: AVX2 is enabled for this function.
            let c0 = unsafe { _mm256_max_ps(s0, lo) };
            // SAFETY: as above.
            let c0 = unsafe { _mm256_min_ps(c0, hi) };
            // SAFETY: as above.
            let c1 = unsafe { _mm256_max_ps(s1, lo) };
            // SAFETY: as above.
            let c1 = unsafe { _mm256_min_ps(c1, hi) };
            // SAFETY: `v0` is 8 writable floats; `storeu` has no alignment need.
            unsafe { _mm256_storeu_ps(v0.as_mut_ptr(), c0) };
            // SAFETY: as for `v0`.
            unsafe { _mm256_storeu_ps(v1.as_mut_ptr(), c1) };
            px.get_mut(n * PANEL..n * PANEL + width)
                .ok_or(SHORT)?
                .copy_from_slice(&v[..width]);
        }
    }
    Ok(())
}

#[cfg(target_arch = "aarch64")]
mod neon;

#[cfg(test)]
mod tests;
