//! What the SIMD bodies (AVX2, NEON) share: fixed-size output chunks, the scalar requantization
//! of a row's last channels, and the in-image filter taps of a window as `(input offset, tap)`.

use super::{Dims, Geometry, KernelError, Requant, SHORT, Window, at, requant_row};

/// The in-image taps of one output pixel: for each, the input pixel's offset and the tap's
/// index in the filter (`fy * f_w + fx`), in the reference's order. At most `f_h * f_w`.
#[inline(always)]
pub(super) fn tap_offsets<'t>(
    g: &Geometry,
    d: &Dims,
    b: usize,
    w: &Window,
    buf: &'t mut [(usize, usize); MAX_TAPS],
) -> &'t [(usize, usize)] {
    let mut n = 0;
    for fy in w.fy.0..w.fy.1 {
        for fx in w.fx.0..w.fx.1 {
            if let Some(slot) = buf.get_mut(n) {
                *slot = (at(g, d, b, w, fy, fx), fy * d.f_w + fx);
                n += 1;
            }
        }
    }
    buf.get(..n).unwrap_or(&[])
}

/// The taps of a window wholly inside the image, as offsets from its first pixel: the same
/// for every such window, so listed once per call (most of the keyword-spotting network's
/// depthwise windows are interior).
pub(super) fn interior_taps<'t>(
    g: &Geometry,
    d: &Dims,
    buf: &'t mut [(usize, usize); MAX_TAPS],
) -> &'t [(usize, usize)] {
    let (dil_h, dil_w) = (g.dil_h as usize, g.dil_w as usize);
    let mut n = 0;
    for fy in 0..d.f_h {
        for fx in 0..d.f_w {
            if let Some(slot) = buf.get_mut(n) {
                *slot = ((fy * dil_h * d.in_w + fx * dil_w) * d.in_c, fy * d.f_w + fx);
                n += 1;
            }
        }
    }
    buf.get(..n).unwrap_or(&[])
}

/// One pixel's taps as a base offset and `(offset from base, tap)` pairs: the interior list
/// with the window's first pixel for an interior window, else the listed in-image taps.
#[inline(always)]
pub(super) fn window_taps<'t>(
    g: &Geometry,
    d: &Dims,
    b: usize,
    w: &Window,
    interior: &'t [(usize, usize)],
    buf: &'t mut [(usize, usize); MAX_TAPS],
) -> (usize, &'t [(usize, usize)]) {
    if w.fy == (0, d.f_h) && w.fx == (0, d.f_w) {
        (at(g, d, b, w, 0, 0), interior)
    } else {
        (0, tap_offsets(g, d, b, w, buf))
    }
}

/// The most filter taps the SIMD depthwise bodies list up front (up to 11x11, and
/// `micro_speech`'s 10x8, fit in the 2 KB list; larger ones take the portable body).
pub(super) const MAX_TAPS: usize = 128;

/// `y[c]`, `y[c + 1]`, .. `y[c + 7]` as an array, or the short-tensor error.
#[inline(always)]
pub(super) fn chunk_mut<T, const N: usize>(s: &mut [T], o: usize) -> Result<&mut [T; N], KernelError> {
    s.get_mut(o..)
        .and_then(<[T]>::first_chunk_mut::<N>)
        .ok_or(SHORT)
}

/// `requant_row` from channel `from` on (the channels the kernels left in `acc`).
#[inline(always)]
pub(super) fn requant_rest(
    acc: &[i32],
    q: &Requant<'_>,
    g: &Geometry,
    y: &mut [i8],
    from: usize,
) -> Result<(), KernelError> {
    let rest = Requant {
        mult: q.mult.get(from..).ok_or(SHORT)?,
        shift: q.shift.get(from..).ok_or(SHORT)?,
        bias: &[],
    };
    requant_row(
        acc.get(from..).ok_or(SHORT)?,
        &rest,
        g,
        y.get_mut(from..).ok_or(SHORT)?,
    );
    Ok(())
}
