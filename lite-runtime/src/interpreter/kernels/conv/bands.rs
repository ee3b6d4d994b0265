//! A convolution split into bands of output rows, one per thread (with `std`): each band is
//! the convolution of the input rows its windows reach, with the padding above it that is
//! left, so every body runs a band unchanged and computes each output value exactly as it
//! would over the whole image.

use super::Geometry;
#[cfg(feature = "std")]
use crate::interpreter::workers::{MIN_WORK, split};
pub(super) use super::super::base::threads::{Threads, threads};
use crate::interpreter::KernelError;

/// Runs `body` once over the whole output (without `std`, one thread).
#[cfg(not(feature = "std"))]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn in_bands<X, Y, S>(
    _: Threads<'_>,
    g: &Geometry,
    input: &[X],
    out: &mut [Y],
    scratch: &mut [S],
    _per_part: usize,
    _work: usize,
    body: &Body<'_, X, Y, S>,
) -> Result<(), KernelError> {
    body(g, input, out, scratch)
}

/// Scratch bytes per band: a band's bodies' `work` bytes, at a 16-byte boundary so that each
/// band's accumulators are aligned; one band's alone when there is one thread.
pub(super) fn per_band(work: usize, threads: usize) -> usize {
    if threads > 1 { work.next_multiple_of(16) } else { work }
}

#[cfg_attr(not(feature = "std"), allow(dead_code))]
/// Output rows `rows` (`start..end`, of one batch image) as a convolution of their own: its
/// geometry and the first input row it reads.
pub(super) fn band(g: &Geometry, start: u32, end: u32) -> (Geometry, u32) {
    let s = i64::from(g.stride_h);
    let top = i64::from(start) * s - i64::from(g.pad_h);
    let first = top.clamp(0, i64::from(g.in_h));
    // One past the last row the band's last window reaches, within the image.
    let reach = i64::from(end.saturating_sub(1)) * s - i64::from(g.pad_h)
        + i64::from(g.f_h.saturating_sub(1)) * i64::from(g.dil_h)
        + 1;
    let last = reach.min(i64::from(g.in_h)).max(first);
    let band = Geometry {
        batches: 1,
        in_h: (last - first) as u32,
        out_h: end - start,
        // The padding above the band that is still above it.
        pad_h: (first - top) as u32,
        ..*g
    };
    (band, first as u32)
}

/// A convolution body as `in_bands` runs it: `(geometry, input, output, scratch)` (one
/// thread: no `Sync` needed).
#[cfg(not(feature = "std"))]
pub(super) type Body<'b, X, Y, S> =
    dyn Fn(&Geometry, &[X], &mut [Y], &mut [S]) -> Result<(), KernelError> + 'b;

/// A convolution body as [`in_bands`] runs it: `(geometry, input, output, scratch)`.
#[cfg(feature = "std")]
pub(super) type Body<'b, X, Y, S> =
    dyn Fn(&Geometry, &[X], &mut [Y], &mut [S]) -> Result<(), KernelError> + Sync + 'b;

/// Runs `body(geometry, input, out, scratch)` over the output split into bands of whole rows
/// for `workers`' threads, each band with its own `per_part` values of `scratch`; on one
/// thread, or for `work` (multiply-adds) under [`MIN_WORK`], once over the whole output.
#[cfg(feature = "std")]
#[allow(clippy::too_many_arguments)]
pub(super) fn in_bands<X: Sync, Y: Send, S: Send>(
    workers: Threads<'_>,
    g: &Geometry,
    input: &[X],
    out: &mut [Y],
    scratch: &mut [S],
    per_part: usize,
    work: usize,
    body: &Body<'_, X, Y, S>,
) -> Result<(), KernelError> {
    if workers.threads() <= 1 || work < MIN_WORK {
        return body(g, input, out, scratch);
    }
    let short = KernelError::Mismatch {
        what: "convolution operand shorter than its shape",
    };
    let out_row = g.out_w as usize * g.out_c as usize;
    let in_row = g.in_w as usize * g.in_c as usize;
    let (in_h, out_h) = (g.in_h as usize, g.out_h as usize);
    if out_row == 0 || out_h == 0 {
        return body(g, input, out, scratch);
    }
    split(workers, out, out_row, scratch, per_part, work, &|first, part, scratch| {
        // Rows `first / out_row ..` of every batch's rows in turn, cut at the batches' ends.
        let mut row = first / out_row;
        let mut rest = part;
        while !rest.is_empty() {
            let (b, y) = (row / out_h, row % out_h);
            let n = (out_h - y).min(rest.len() / out_row).max(1);
            let (mine, after) = rest.split_at_mut_checked(n * out_row).ok_or(short)?;
            let (bg, top) = band(g, y as u32, (y + n) as u32);
            let at = (b * in_h + top as usize) * in_row;
            let x = input
                .get(at..at + bg.in_h as usize * in_row)
                .ok_or(short)?;
            body(&bg, x, mine, scratch)?;
            rest = after;
            row += n;
        }
        Ok(())
    })
}
