//! int8 and uint8 CONV_2D over weights packed once, at `init`, into panels of [`PANEL`]
//! output channels as int16 pairs (x86 hosts with `std`, where the AVX2 body that reads them
//! runs): `panel[k / 2][c][k % 2]` holds channel `c`'s weights `k` and `k + 1` of the filter
//! row, so one `vpmaddwd` of a broadcast input pair multiplies-adds two taps of eight
//! channels, and a tile of [`TILE`] output pixels times a panel keeps its sums in registers
//! over the whole row. The unpacked body sums one pixel's eight channels at a time and
//! reduces each channel's lanes at the end, re-reading the filter per pixel.
//!
//! uint8 weights are packed with their offset added (`w + weights_offset`, within
//! [-255, 255]) and its input widened without sign, so both kinds are one body: `sum x (w +
//! w_off)` is the portable `sum x w + w_off sum x` in wrapping int32. The folded bias
//! (`bias + input_offset sum w`, and its uint8 form) is the unpacked body's, so the sums are
//! the same integers: exact in any order.
//!
//! The packing costs the filter's size twice in persistent bytes (`Options::pack_weights`);
//! the scratch holds a gathered patch and the tile's rows widened to int16.

use super::super::Geometry;
use super::{SHORT, take, take_mut};
use crate::interpreter::KernelError;

/// Output channels per panel.
pub(crate) const PANEL: usize = 16;

/// Output pixels per tile.
pub(crate) const TILE: usize = 4;

/// Whether this build packs int8 / uint8 CONV_2D weights (the AVX2 body exists).
pub(crate) const PACKS: bool =
    cfg!(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")));

/// int16 pairs (one `i32` each) of a filter row of `row` values, the last padded with zero.
pub(crate) fn pairs(row: usize) -> usize {
    row.div_ceil(2)
}

/// int16 values of the packed weights of `out_c` channels of `row` (the last panel padded
/// with zero weights).
pub(crate) fn packed_len(out_c: usize, row: usize) -> Option<usize> {
    out_c
        .div_ceil(PANEL)
        .checked_mul(2 * PANEL)?
        .checked_mul(pairs(row))
}

/// Scratch bytes one band of the packed body uses: the patch (rounded to 16 bytes, so the
/// tile after it stays aligned), then [`TILE`] widened rows.
pub(crate) fn work_bytes(g: &Geometry) -> usize {
    g.row().next_multiple_of(16) + 4 * TILE * pairs(g.row())
}

/// Packs `filter` (`[out_c][row]`, int8 or uint8) plus `w_off` into `packed`
/// ([`packed_len`] values).
///
/// # Errors
/// [`SHORT`] for short slices or a weight plus offset outside int16.
pub(crate) fn pack<T: Copy + Into<i32>>(
    filter: &[T],
    out_c: usize,
    row: usize,
    w_off: i32,
    packed: &mut [i16],
) -> Result<(), KernelError> {
    let filter = take(filter, out_c.checked_mul(row).ok_or(SHORT)?)?;
    let packed = take_mut(packed, packed_len(out_c, row).ok_or(SHORT)?)?;
    let n = pairs(row);
    if n == 0 {
        return Ok(());
    }
    for (p, panel) in packed.chunks_exact_mut(2 * PANEL * n).enumerate() {
        for (kp, step) in panel.chunks_exact_mut(2 * PANEL).enumerate() {
            for (i, v) in step.iter_mut().enumerate() {
                let (c, k) = (p * PANEL + i / 2, 2 * kp + i % 2);
                *v = if c < out_c && k < row {
                    let w: i32 = (*filter.get(c * row + k).ok_or(SHORT)?).into();
                    i16::try_from(w + w_off).map_err(|_| SHORT)?
                } else {
                    0
                };
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
