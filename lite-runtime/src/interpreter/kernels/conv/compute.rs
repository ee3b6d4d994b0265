//! The convolutions' arithmetic over slices and a [`Geometry`]: pure functions, every length
//! checked once up front, inner loops over contiguous channel runs that LLVM vectorizes.

use super::Geometry;
use super::super::base::check::SHORT;
use super::super::base::fused::clamp;
pub(crate) use super::super::base::math::dot as dot_f32;
use super::super::base::quant::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_i64,
};
use crate::interpreter::KernelError;

/// Per-channel requantization: multipliers, shifts and the int32 bias (int8 CONV_2D: with
/// the input offset folded in).
pub(crate) struct Requant<'a> {
    pub mult: &'a [i32],
    pub shift: &'a [i32],
    pub bias: &'a [i32],
}

/// The bias of a 16x8 convolution.
#[derive(Clone, Copy)]
pub(crate) enum Bias<'a> {
    None,
    Wide(&'a [i64]),
    Narrow(&'a [i32]),
}

/// `s[..n]`, or the error a short tensor gives.
fn take<T>(s: &[T], n: usize) -> Result<&[T], KernelError> {
    s.get(..n).ok_or(SHORT)
}

fn take_mut<T>(s: &mut [T], n: usize) -> Result<&mut [T], KernelError> {
    s.get_mut(..n).ok_or(SHORT)
}

/// `s[o..o + N]` as an array, or the short-tensor error.
#[inline(always)]
fn chunk<T, const N: usize>(s: &[T], o: usize) -> Result<&[T; N], KernelError> {
    s.get(o..).and_then(<[T]>::first_chunk::<N>).ok_or(SHORT)
}

/// The filter taps `f` in `0..filter` that land inside `0..size` for an output whose window
/// starts at `origin` (`origin + dil * f`): the reference skips the others.
#[inline(always)]
fn taps(origin: i64, dil: i64, size: i64, filter: i64) -> (usize, usize) {
    if dil == 1 {
        // The common case without the divisions below (a 64-bit division per pixel and axis
        // was a visible part of the small keyword-spotting layers).
        let lo = (-origin).max(0);
        let hi = (size - origin).min(filter).max(0);
        return (lo as usize, hi.max(lo) as usize);
    }
    taps_dilated(origin, dil, size, filter)
}

/// [`taps`] for any dilation `dil >= 1`.
#[inline(always)]
fn taps_dilated(origin: i64, dil: i64, size: i64, filter: i64) -> (usize, usize) {
    let lo = if origin < 0 {
        (-origin + dil - 1) / dil
    } else {
        0
    };
    let hi = if size > origin {
        ((size - origin + dil - 1) / dil).min(filter)
    } else {
        0
    };
    (lo as usize, hi.max(lo) as usize)
}

/// Sizes as `usize`, for indexing.
struct Dims {
    batches: usize,
    in_h: usize,
    in_w: usize,
    in_c: usize,
    out_h: usize,
    out_w: usize,
    out_c: usize,
    f_h: usize,
    f_w: usize,
}

impl Dims {
    fn of(g: &Geometry) -> Result<Self, KernelError> {
        if g.in_c == 0 || g.out_c == 0 || g.depth_mult == 0 || g.f_h == 0 || g.f_w == 0 {
            return Err(KernelError::Mismatch {
                what: "convolution with an empty filter or no channels",
            });
        }
        Ok(Self {
            batches: g.batches as usize,
            in_h: g.in_h as usize,
            in_w: g.in_w as usize,
            in_c: g.in_c as usize,
            out_h: g.out_h as usize,
            out_w: g.out_w as usize,
            out_c: g.out_c as usize,
            f_h: g.f_h as usize,
            f_w: g.f_w as usize,
        })
    }

    fn input_len(&self) -> usize {
        self.batches * self.in_h * self.in_w * self.in_c
    }

    fn output_len(&self) -> usize {
        self.batches * self.out_h * self.out_w * self.out_c
    }
}

/// Each output pixel `(batch, out_y, out_x)` with its window: the input image of its batch,
/// the valid tap ranges in y and x, and the window's origin.
#[derive(Clone, Copy)]
struct Window {
    y0: i64,
    x0: i64,
    fy: (usize, usize),
    fx: (usize, usize),
}

/// The output pixels in order, each with its batch and window.
struct Windows {
    d: Dims,
    strides: (i64, i64),
    dils: (i64, i64),
    pads: (i64, i64),
    /// The next pixel: batch, row, column.
    at: (usize, usize, usize),
    /// The current row's origin and tap range.
    row: (i64, (usize, usize)),
}

impl Windows {
    fn new(g: &Geometry) -> Result<Self, KernelError> {
        Self::from(g, 0)
    }

    /// The output pixels from pixel `first` (batch-major, then row, then column) on: the
    /// part of an output one thread computes.
    fn from(g: &Geometry, first: usize) -> Result<Self, KernelError> {
        let d = Dims::of(g)?;
        let plane = d.out_h * d.out_w;
        let at = match first.checked_div(plane) {
            None => (d.batches, 0, 0),
            Some(b) => (b, first % plane / d.out_w, first % d.out_w),
        };
        let mut w = Self {
            d,
            strides: (i64::from(g.stride_h), i64::from(g.stride_w)),
            dils: (i64::from(g.dil_h), i64::from(g.dil_w)),
            pads: (i64::from(g.pad_h), i64::from(g.pad_w)),
            at,
            row: (0, (0, 0)),
        };
        w.start_row();
        Ok(w)
    }

    #[inline(always)]
    fn start_row(&mut self) {
        let y0 = self.at.1 as i64 * self.strides.0 - self.pads.0;
        self.row = (
            y0,
            taps(y0, self.dils.0, self.d.in_h as i64, self.d.f_h as i64),
        );
    }
}

impl Iterator for Windows {
    type Item = (usize, Window);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, Window)> {
        let d = &self.d;
        if d.out_w == 0 || d.out_h == 0 || self.at.0 >= d.batches {
            return None;
        }
        let (b, _, ox) = self.at;
        let x0 = ox as i64 * self.strides.1 - self.pads.1;
        let fx = taps(x0, self.dils.1, d.in_w as i64, d.f_w as i64);
        let w = Window {
            y0: self.row.0,
            x0,
            fy: self.row.1,
            fx,
        };
        self.at.2 += 1;
        if self.at.2 == d.out_w {
            self.at.2 = 0;
            self.at.1 += 1;
            if self.at.1 == d.out_h {
                self.at.1 = 0;
                self.at.0 += 1;
            }
            self.start_row();
        }
        Some((b, w))
    }
}

/// Offset of input pixel `(b, y0 + dil_h fy, x0 + dil_w fx)` (a valid tap).
#[inline(always)]
fn at(g: &Geometry, d: &Dims, b: usize, w: &Window, fy: usize, fx: usize) -> usize {
    let y = (w.y0 + i64::from(g.dil_h) * fy as i64) as usize;
    let x = (w.x0 + i64::from(g.dil_w) * fx as i64) as usize;
    ((b * d.in_h + y) * d.in_w + x) * d.in_c
}

/// The int8 CONV_2D bias with the input offset folded in: `bias + input_offset * sum(row)`.
pub(crate) fn folded_bias(bias: i32, input_offset: i32, row: &[i8]) -> i32 {
    let sum = row.iter().fold(0i32, |a, &w| a.wrapping_add(i32::from(w)));
    bias.wrapping_add(input_offset.wrapping_mul(sum))
}

/// The uint8 CONV_2D bias with both offsets folded in: `bias + input_offset * sum(row) +
/// len(row) * weights_offset * input_offset` (wrapping, as the reference's int32 sums).
pub(crate) fn folded_bias_u8(bias: i32, input_offset: i32, weights_offset: i32, row: &[u8]) -> i32 {
    let sum = row.iter().fold(0i32, |a, &w| a.wrapping_add(i32::from(w)));
    let n = row.len() as i32;
    bias.wrapping_add(input_offset.wrapping_mul(sum))
        .wrapping_add(n.wrapping_mul(weights_offset).wrapping_mul(input_offset))
}

#[inline(always)]
fn dot_u8(a: &[u8], b: &[u8]) -> i32 {
    a.iter().zip(b).fold(0i32, |s, (&x, &w)| {
        s.wrapping_add(i32::from(x) * i32::from(w))
    })
}

#[inline(always)]
#[cfg_attr(tessera_arm_dsp, allow(dead_code))] // `dsp::conv_i8` replaces its one caller there
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).fold(0i32, |s, (&x, &w)| {
        s.wrapping_add(i32::from(x) * i32::from(w))
    })
}

#[inline(always)]
fn dot_i16(a: &[i16], b: &[i8]) -> i64 {
    let dot32 = |a: &[i16], b: &[i8]| {
        a.iter().zip(b).fold(0i32, |s, (&x, &w)| {
            s.wrapping_add(i32::from(x) * i32::from(w))
        })
    };
    // Products fit in 23 bits: 256 of them sum exactly in i32.
    if a.len() <= 256 {
        return i64::from(dot32(a, b));
    }
    a.chunks(256)
        .zip(b.chunks(256))
        .map(|(a, b)| i64::from(dot32(a, b)))
        .fold(0i64, i64::wrapping_add)
}

#[inline(always)]
fn requant_i32(acc: i32, m: i32, s: i32, g: &Geometry) -> i32 {
    multiply_by_quantized_multiplier(acc, m, s)
        .wrapping_add(g.output_offset)
        .max(g.act_min)
        .min(g.act_max)
}

#[inline(always)]
fn requant_wide(acc: i64, m: i32, s: i32, g: &Geometry) -> i32 {
    multiply_by_quantized_multiplier_i64(acc, m, s)
        .max(g.act_min)
        .min(g.act_max)
}

fn check_requant(q: &Requant<'_>, oc: usize) -> Result<(), KernelError> {
    check_scales(q, oc)?;
    if q.bias.len() < oc {
        return Err(SHORT);
    }
    Ok(())
}

/// The 16x8 kernels read their bias from the model (see `Bias`), so only the multipliers and
/// shifts are kept per channel.
fn check_scales(q: &Requant<'_>, oc: usize) -> Result<(), KernelError> {
    if q.mult.len() < oc || q.shift.len() < oc {
        return Err(SHORT);
    }
    Ok(())
}

/// `dst.copy_from_slice(src)` (equal lengths). Runs of up to 16 values are two overlapping
/// fixed-size copies that compile to plain moves: the keyword-spotting network's first
/// convolution copies 4-value runs, and a `memmove` call per run cost about 5% of its invoke.
#[inline(always)]
fn copy_run<T: Copy>(dst: &mut [T], src: &[T]) {
    #[inline(always)]
    fn ends<T: Copy, const N: usize>(dst: &mut [T], src: &[T]) {
        let n = dst.len();
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<N>(), src.first_chunk::<N>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (
            dst.get_mut(n.saturating_sub(N)..)
                .and_then(<[T]>::first_chunk_mut::<N>),
            src.get(n.saturating_sub(N)..)
                .and_then(<[T]>::first_chunk::<N>),
        ) {
            *d = *s;
        }
    }
    if dst.len() != src.len() {
        return;
    }
    match dst.len() {
        0 => {}
        1 => ends::<T, 1>(dst, src),
        2..=3 => ends::<T, 2>(dst, src),
        4..=7 => ends::<T, 4>(dst, src),
        8..=16 => ends::<T, 8>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// `dst.fill(v)`, with short runs as fixed-size stores (see [`copy_run`]).
#[inline(always)]
fn fill_run<T: Copy>(dst: &mut [T], v: T) {
    #[inline(always)]
    fn ends<T: Copy, const N: usize>(dst: &mut [T], v: T) {
        let n = dst.len();
        if let Some(d) = dst.first_chunk_mut::<N>() {
            *d = [v; N];
        }
        if let Some(d) = dst
            .get_mut(n.saturating_sub(N)..)
            .and_then(<[T]>::first_chunk_mut::<N>)
        {
            *d = [v; N];
        }
    }
    match dst.len() {
        0 => {}
        1 => ends::<T, 1>(dst, v),
        2..=3 => ends::<T, 2>(dst, v),
        4..=7 => ends::<T, 4>(dst, v),
        8..=16 => ends::<T, 8>(dst, v),
        _ => dst.fill(v),
    }
}

/// Copies the window of one output pixel into `patch` (`[f_h][f_w][in_c]`), `pad` where a
/// tap falls outside the image. Returns the patch, or the input itself when the window is
/// one whole in-image pixel run (1x1 filters).
#[inline(always)]
fn gather<'a, T: Copy>(
    g: &Geometry,
    d: &Dims,
    input: &'a [T],
    b: usize,
    w: &Window,
    pad: T,
    patch: &'a mut [T],
) -> Result<&'a [T], KernelError> {
    let full = w.fy == (0, d.f_h) && w.fx == (0, d.f_w);
    if full && d.f_h == 1 && d.f_w == 1 {
        let o = at(g, d, b, w, 0, 0);
        return input.get(o..o + d.in_c).ok_or(SHORT);
    }
    let run = d.f_w * d.in_c;
    for (fy, dst) in patch.chunks_exact_mut(run).take(d.f_h).enumerate() {
        if !(w.fy.0..w.fy.1).contains(&fy) || w.fx.0 >= w.fx.1 {
            fill_run(dst, pad);
            continue;
        }
        let (lo, hi) = (w.fx.0 * d.in_c, w.fx.1 * d.in_c);
        fill_run(dst.get_mut(..lo).ok_or(SHORT)?, pad);
        fill_run(dst.get_mut(hi..).ok_or(SHORT)?, pad);
        let mid = dst.get_mut(lo..hi).ok_or(SHORT)?;
        if g.dil_w == 1 {
            // The in-image taps of this filter row are one contiguous input run.
            let o = at(g, d, b, w, fy, w.fx.0);
            copy_run(mid, input.get(o..o + (hi - lo)).ok_or(SHORT)?);
        } else {
            for (fx, px) in (w.fx.0..w.fx.1).zip(mid.chunks_exact_mut(d.in_c)) {
                let o = at(g, d, b, w, fy, fx);
                px.copy_from_slice(input.get(o..o + d.in_c).ok_or(SHORT)?);
            }
        }
    }
    Ok(patch)
}

/// CONV_2D, float32: `act(sum_{fy, fx, ic} x w + bias)` over a zero-padded patch, summed in
/// eight lanes (as LiteRT's optimized kernels reorder it; within float tolerance of the
/// reference's order).
#[inline(always)]
pub(crate) fn conv_f32_impl(
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
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let x = gather(g, &d, input, b, &w, 0.0, patch)?;
        let y = pixels.next().ok_or(SHORT)?;
        for (c, (k, y)) in filter.chunks_exact(row).zip(y.iter_mut()).enumerate() {
            let bv = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
            *y = clamp(dot_f32(x, k) + bv, g.lo, g.hi);
        }
    }
    Ok(())
}

/// DEPTHWISE_CONV_2D, float32: per output channel `c = ic * dm + m`,
/// `act(sum_{fy, fx} x[ic] w[c] + bias[c])`.
#[inline(always)]
pub(crate) fn depthwise_f32_impl(
    g: &Geometry,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    acc: &mut [f32],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let dm = g.depth_mult as usize;
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    let bias = bias.map(|b| take(b, d.out_c)).transpose()?;
    let acc = take_mut(acc, d.out_c)?;
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        acc.fill(0.0);
        for fy in w.fy.0..w.fy.1 {
            for fx in w.fx.0..w.fx.1 {
                let o = at(g, &d, b, &w, fy, fx);
                let x = input.get(o..o + d.in_c).ok_or(SHORT)?;
                let t = (fy * d.f_w + fx) * d.out_c;
                let k = filter.get(t..t + d.out_c).ok_or(SHORT)?;
                if dm == 1 {
                    for ((a, &k), &x) in acc.iter_mut().zip(k).zip(x) {
                        *a += x * k;
                    }
                } else {
                    for ((a, k), &x) in acc.chunks_exact_mut(dm).zip(k.chunks_exact(dm)).zip(x) {
                        for (a, &k) in a.iter_mut().zip(k) {
                            *a += x * k;
                        }
                    }
                }
            }
        }
        let y = pixels.next().ok_or(SHORT)?;
        for (c, (y, &a)) in y.iter_mut().zip(acc.iter()).enumerate() {
            let bv = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
            *y = clamp(a + bv, g.lo, g.hi);
        }
    }
    Ok(())
}

/// CONV_2D, int8: `sum (x + input_offset) w + bias`, computed as `sum x w + (bias +
/// input_offset sum w)` over a patch padded with the input zero point, then requantized.
#[inline(always)]
// The reference the SIMD bodies' tests compare with: on aarch64 the NEON body always runs,
// and the DSP body replaces it on a Cortex-M with the DSP extension.
#[cfg_attr(any(tessera_arm_dsp, all(target_arch = "aarch64", not(test))), allow(dead_code))]
pub(crate) fn conv_i8_impl(
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
    for (b, w) in Windows::new(g)? {
        let x = gather(g, &d, input, b, &w, zp, patch)?;
        for ((k, a), &bias) in filter.chunks_exact(row).zip(acc.iter_mut()).zip(bias) {
            *a = dot_i8(x, k).wrapping_add(bias);
        }
        requant_row(acc, q, g, pixels.next().ok_or(SHORT)?);
    }
    Ok(())
}

/// An int8 CONV_2D's operands checked against its geometry, as every body (portable, AVX2,
/// NEON, DSP) starts: each slice cut to its length, the input zero point as an int8 (the
/// patch's padding), the output as one chunk of channels per pixel.
struct ConvI8<'a> {
    d: Dims,
    row: usize,
    input: &'a [i8],
    filter: &'a [i8],
    patch: &'a mut [i8],
    acc: &'a mut [i32],
    bias: &'a [i32],
    zp: i8,
    pixels: core::slice::ChunksExactMut<'a, i8>,
}

impl<'a> ConvI8<'a> {
    /// The operands of `g`, or [`SHORT`] (a slice shorter than the geometry, a zero point
    /// outside int8).
    #[inline(always)]
    fn check(
        g: &Geometry,
        input: &'a [i8],
        filter: &'a [i8],
        q: &Requant<'a>,
        out: &'a mut [i8],
        patch: &'a mut [i8],
        acc: &'a mut [i32],
    ) -> Result<Self, KernelError> {
        let d = Dims::of(g)?;
        let row = g.row();
        check_requant(q, d.out_c)?;
        Ok(Self {
            row,
            input: take(input, d.input_len())?,
            filter: take(filter, d.out_c * row)?,
            patch: take_mut(patch, row)?,
            acc: take_mut(acc, d.out_c)?,
            bias: take(q.bias, d.out_c)?,
            zp: i8::try_from(-g.input_offset).map_err(|_| SHORT)?,
            pixels: take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c.max(1)),
            d,
        })
    }
}

/// Requantizes one pixel's channel sums (a loop over channels, which vectorizes).
#[inline(always)]
fn requant_row(acc: &[i32], q: &Requant<'_>, g: &Geometry, y: &mut [i8]) {
    for (((y, &a), &m), &s) in y.iter_mut().zip(acc).zip(q.mult).zip(q.shift) {
        *y = requant_i32(a, m, s, g) as i8;
    }
}

/// DEPTHWISE_CONV_2D, int8: `sum (x + input_offset) w + bias` over in-image taps.
#[inline(always)]
pub(crate) fn depthwise_i8_impl(
    g: &Geometry,
    input: &[i8],
    filter: &[i8],
    q: &Requant<'_>,
    out: &mut [i8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    // Symmetric weights: an offset of 0, folded away where this is inlined.
    depthwise_q(g, input, filter, 0, q, out, acc, |v| v as i8)
}

/// CONV_2D, uint8: `sum (x + input_offset)(w + weights_offset) + bias`, computed as
/// `sum x w + weights_offset sum x + (bias folded with both offsets)` over a patch padded with
/// the input zero point, then requantized with the per-tensor multiplier (kept per channel).
#[inline(always)]
pub(crate) fn conv_u8_impl(
    g: &Geometry,
    input: &[u8],
    filter: &[u8],
    q: &Requant<'_>,
    out: &mut [u8],
    patch: &mut [u8],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let row = g.row();
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.out_c * row)?;
    check_requant(q, d.out_c)?;
    let patch = take_mut(patch, row)?;
    let zp = u8::try_from(-g.input_offset).map_err(|_| SHORT)?;
    let w_off = g.weights_offset;
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let x = gather(g, &d, input, b, &w, zp, patch)?;
        let xsum = x.iter().fold(0i32, |a, &v| a.wrapping_add(i32::from(v)));
        let xterm = w_off.wrapping_mul(xsum);
        let y = pixels.next().ok_or(SHORT)?;
        for ((((k, y), &bias), &m), &s) in filter
            .chunks_exact(row)
            .zip(y.iter_mut())
            .zip(q.bias)
            .zip(q.mult)
            .zip(q.shift)
        {
            let acc = dot_u8(x, k).wrapping_add(xterm).wrapping_add(bias);
            *y = requant_i32(acc, m, s, g) as u8;
        }
    }
    Ok(())
}

/// DEPTHWISE_CONV_2D, uint8: `sum (x + input_offset)(w + weights_offset) + bias` over the
/// in-image taps (the reference skips the others).
#[inline(always)]
pub(crate) fn depthwise_u8_impl(
    g: &Geometry,
    input: &[u8],
    filter: &[u8],
    q: &Requant<'_>,
    out: &mut [u8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    depthwise_q(g, input, filter, g.weights_offset, q, out, acc, |v| v as u8)
}

/// The quantized DEPTHWISE_CONV_2D both element types share: `sum (x + input_offset)(w +
/// w_off) + bias` over the in-image taps, per output channel, requantized.
///
/// Channels go in blocks of eight whose sums stay in registers over every tap (a fixed-size
/// array the compiler keeps in vector registers), so a filter of many taps over few channels
/// (`micro_speech`'s 10x8 filter, one input channel times eight) costs one multiply-add of
/// eight lanes per tap; the channels past the last block sum one at a time. Integer sums are
/// exact, so the order is the reference's in value.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn depthwise_q<T: Copy + Into<i32>, Y>(
    g: &Geometry,
    input: &[T],
    filter: &[T],
    w_off: i32,
    q: &Requant<'_>,
    out: &mut [Y],
    acc: &mut [i32],
    narrow: impl Fn(i32) -> Y,
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let dm = g.depth_mult as usize;
    let x_off = g.input_offset;
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    check_requant(q, d.out_c)?;
    let acc = take_mut(acc, d.out_c)?;
    let bias = take(q.bias, d.out_c)?;
    // Blocks of eight where their lanes read eight input channels in a row or one; other
    // multipliers (rare: 2, 3, ..) sum each channel alone.
    let blocks = if dm == 1 || dm % 8 == 0 {
        d.out_c / 8 * 8
    } else {
        0
    };
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        for c0 in (0..blocks).step_by(8) {
            let sums = if dm == 1 {
                block_sum::<T, false>(g, &d, &w, b, input, filter, c0, x_off, w_off)?
            } else {
                block_sum::<T, true>(g, &d, &w, b, input, filter, c0, x_off, w_off)?
            };
            let bias = chunk::<_, 8>(bias, c0)?;
            for ((a, &s), &bias) in acc.get_mut(c0..c0 + 8).ok_or(SHORT)?.iter_mut().zip(&sums).zip(bias) {
                *a = bias.wrapping_add(s);
            }
        }
        for c in blocks..d.out_c {
            let mut a = *bias.get(c).ok_or(SHORT)?;
            for fy in w.fy.0..w.fy.1 {
                for fx in w.fx.0..w.fx.1 {
                    let o = at(g, &d, b, &w, fy, fx);
                    let x: i32 = (*input.get(o + c / dm).ok_or(SHORT)?).into();
                    let k: i32 = (*filter.get((fy * d.f_w + fx) * d.out_c + c).ok_or(SHORT)?).into();
                    a = a.wrapping_add((k + w_off) * (x + x_off));
                }
            }
            *acc.get_mut(c).ok_or(SHORT)? = a;
        }
        let y = pixels.next().ok_or(SHORT)?;
        for (((y, &a), &m), &s) in y.iter_mut().zip(acc.iter()).zip(q.mult).zip(q.shift) {
            *y = narrow(requant_i32(a, m, s, g));
        }
    }
    Ok(())
}

/// One depthwise block's sums over a window: for the eight channels from `c0`,
/// `sum (k + w_off)(x + x_off)`, channel `c` reading input channel `c / dm`: eight channels in
/// a row (`dm` 1), or with `SHARED` (`dm` a multiple of eight) one for all. The taps go a
/// filter row at a time; the sums are a plain array indexed in loops of eight, which the
/// compiler keeps in a vector register (a gather or a closure in the loop would keep it in
/// memory).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block_sum<T: Copy + Into<i32>, const SHARED: bool>(
    g: &Geometry,
    d: &Dims,
    w: &Window,
    b: usize,
    input: &[T],
    filter: &[T],
    c0: usize,
    x_off: i32,
    w_off: i32,
) -> Result<[i32; 8], KernelError> {
    let dm = g.depth_mult as usize;
    let mut sums = [0i32; 8];
    let n = w.fx.1 - w.fx.0;
    let step = g.dil_w as usize * d.in_c;
    if n == 0 || (c0 + 7) / dm >= d.in_c {
        return if n == 0 { Ok(sums) } else { Err(SHORT) };
    }
    // The input channel every lane reads when they share one (a division out of the loop).
    let shared = c0 / dm;
    for fy in w.fy.0..w.fy.1 {
        let o = at(g, d, b, w, fy, w.fx.0);
        let t = (fy * d.f_w + w.fx.0) * d.out_c + c0;
        let xrow = input.get(o..o + (n - 1) * step + d.in_c).ok_or(SHORT)?;
        let krow = filter.get(t..t + (n - 1) * d.out_c + 8).ok_or(SHORT)?;
        for j in 0..n {
            let x = xrow.get(j * step..j * step + d.in_c).ok_or(SHORT)?;
            let k = chunk::<_, 8>(krow, j * d.out_c)?;
            if SHARED {
                let xl: i32 = (*x.get(shared).ok_or(SHORT)?).into();
                let xl = xl + x_off;
                for l in 0..8 {
                    let kl: i32 = k[l].into();
                    sums[l] = sums[l].wrapping_add((kl + w_off) * xl);
                }
            } else {
                let x = chunk::<_, 8>(x, c0)?;
                for l in 0..8 {
                    let (kl, xl): (i32, i32) = (k[l].into(), x[l].into());
                    sums[l] = sums[l].wrapping_add((kl + w_off) * (xl + x_off));
                }
            }
        }
    }
    Ok(sums)
}


/// CONV_2D, 16x8: `sum x w + bias` in 64 bits (32 with an int32 bias), requantized; zero
/// points are 0. Where every window is inside the image ([`Geometry::windows_inside`]) the
/// sums read the input in place, one filter row at a time (exact integer sums: any order
/// gives the reference's bits), and `patch` may be empty.
#[inline(always)]
pub(crate) fn conv_i16_impl(
    g: &Geometry,
    input: &[i16],
    filter: &[i8],
    q: &Requant<'_>,
    bias: Bias<'_>,
    out: &mut [i16],
    patch: &mut [i16],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let row = g.row();
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.out_c * row)?;
    check_scales(q, d.out_c)?;
    let bias = checked_bias(bias, d.out_c)?;
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    if g.windows_inside() {
        let run = d.f_w * d.in_c;
        for (b, w) in Windows::new(g)? {
            let y = pixels.next().ok_or(SHORT)?;
            for (c, (((k, y), &m), &s)) in filter
                .chunks_exact(row)
                .zip(y.iter_mut())
                .zip(q.mult)
                .zip(q.shift)
                .enumerate()
            {
                let mut sum = 0i64;
                for (fy, k) in k.chunks_exact(run).enumerate() {
                    let o = at(g, &d, b, &w, fy, 0);
                    let x = input.get(o..o + run).ok_or(SHORT)?;
                    sum = sum.wrapping_add(dot_i16(x, k));
                }
                *y = finish_wide(sum, c, bias, m, s, g) as i16;
            }
        }
        return Ok(());
    }
    let patch = take_mut(patch, row)?;
    for (b, w) in Windows::new(g)? {
        let x = gather(g, &d, input, b, &w, 0, patch)?;
        let y = pixels.next().ok_or(SHORT)?;
        for (c, (((k, y), &m), &s)) in filter
            .chunks_exact(row)
            .zip(y.iter_mut())
            .zip(q.mult)
            .zip(q.shift)
            .enumerate()
        {
            *y = finish_wide(dot_i16(x, k), c, bias, m, s, g) as i16;
        }
    }
    Ok(())
}

fn checked_bias(bias: Bias<'_>, n: usize) -> Result<Bias<'_>, KernelError> {
    Ok(match bias {
        Bias::None => Bias::None,
        Bias::Wide(b) => Bias::Wide(take(b, n)?),
        Bias::Narrow(b) => Bias::Narrow(take(b, n)?),
    })
}

/// Adds channel `c`'s bias to a 16x8 sum and requantizes it: in 64 bits with an int64 bias
/// (or none), in wrapping 32 bits with an int32 one, as the reference's accumulator types.
#[inline(always)]
fn finish_wide(sum: i64, c: usize, bias: Bias<'_>, m: i32, s: i32, g: &Geometry) -> i32 {
    match bias {
        Bias::None => requant_wide(sum, m, s, g),
        Bias::Wide(b) => requant_wide(sum.wrapping_add(b.get(c).copied().unwrap_or(0)), m, s, g),
        Bias::Narrow(b) => {
            let acc = (sum as i32).wrapping_add(b.get(c).copied().unwrap_or(0));
            multiply_by_quantized_multiplier(acc, m, s)
                .max(g.act_min)
                .min(g.act_max)
        }
    }
}

/// DEPTHWISE_CONV_2D, 16x8: `sum x w + bias` in 64 bits.
#[inline(always)]
pub(crate) fn depthwise_i16_impl(
    g: &Geometry,
    input: &[i16],
    filter: &[i8],
    q: &Requant<'_>,
    bias: Bias<'_>,
    out: &mut [i16],
    acc: &mut [i64],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let dm = g.depth_mult as usize;
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    check_scales(q, d.out_c)?;
    let acc = take_mut(acc, d.out_c)?;
    let bias = checked_bias(bias, d.out_c)?;
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        // The bias first: wrapping sums are the same in any order.
        match bias {
            Bias::Wide(bv) if bv.len() == acc.len() => acc.copy_from_slice(bv),
            _ => acc.fill(0),
        }
        for fy in w.fy.0..w.fy.1 {
            for fx in w.fx.0..w.fx.1 {
                let o = at(g, &d, b, &w, fy, fx);
                let x = input.get(o..o + d.in_c).ok_or(SHORT)?;
                let t = (fy * d.f_w + fx) * d.out_c;
                let k = filter.get(t..t + d.out_c).ok_or(SHORT)?;
                if dm == 1 {
                    for ((a, &k), &x) in acc.iter_mut().zip(k).zip(x) {
                        *a = a.wrapping_add(i64::from(i32::from(k) * i32::from(x)));
                    }
                } else {
                    for ((a, k), &x) in acc.chunks_exact_mut(dm).zip(k.chunks_exact(dm)).zip(x) {
                        for (a, &k) in a.iter_mut().zip(k) {
                            *a = a.wrapping_add(i64::from(i32::from(k) * i32::from(x)));
                        }
                    }
                }
            }
        }
        let y = pixels.next().ok_or(SHORT)?;
        if let Bias::Narrow(_) = bias {
            for (c, (((y, &a), &m), &s)) in y
                .iter_mut()
                .zip(acc.iter())
                .zip(q.mult)
                .zip(q.shift)
                .enumerate()
            {
                *y = finish_wide(a, c, bias, m, s, g) as i16;
            }
        } else {
            for (((y, &a), &m), &s) in y.iter_mut().zip(acc.iter()).zip(q.mult).zip(q.shift) {
                *y = requant_wide(a, m, s, g) as i16;
            }
        }
    }
    Ok(())
}

#[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
// On other hosts the DSP bodies run on an emulation of their instructions, for the tests.
#[cfg(any(tessera_arm_dsp, test))]
mod dsp;
// The int8 convolutions' portable body: the DSP extension's where the target has it.
#[cfg(tessera_arm_dsp)]
use dsp::{conv_i8 as conv_i8_body, depthwise_i8 as depthwise_i8_body};
// (On aarch64 the NEON bodies run in their place.)
#[cfg(not(tessera_arm_dsp))]
#[cfg_attr(target_arch = "aarch64", allow(unused_imports))]
use {conv_i8_impl as conv_i8_body, depthwise_i8_impl as depthwise_i8_body};
pub(crate) mod packed;
pub(crate) mod packed_q;
#[cfg(any(
    target_arch = "aarch64",
    all(feature = "std", any(target_arch = "x86_64", target_arch = "x86"))
))]
mod simd;

/// Each kernel with its SIMD bodies: an AVX2 body on x86 hosts with `std`, chosen at run time,
/// and on aarch64 a NEON body, chosen at compile time (NEON is baseline there); else the
/// portable body. The integer results are identical; float sums use no fused multiply-add and
/// keep the portable order, so those are too. `name => avx2::body, neon::body, portable`
/// names a hand-written body in `avx2` (or `name_avx2`, the portable body compiled again
/// for AVX2) and one in `neon` (or the portable body again, where NEON has none).
macro_rules! dispatch {
    ($($(#[$doc:meta])* $name:ident => $($avx:ident)::+, $($neon:ident)::+, $imp:ident ($($arg:ident: $ty:ty),*);)*) => {$(
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name($($arg: $ty),*) -> Result<(), KernelError> {
            #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, the one feature the AVX2 body is compiled for.
                return unsafe { $($avx)::+($($arg),*) };
            }
            #[cfg(target_arch = "aarch64")]
            return $($neon)::+($($arg),*);
            #[cfg(not(target_arch = "aarch64"))]
            $imp($($arg),*)
        }
    )*};
}

/// The portable body compiled again with AVX2 enabled (the kernels without a hand-written one).
macro_rules! compiled_for_avx2 {
    ($($avx:ident, $imp:ident ($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $avx($($arg: $ty),*) -> Result<(), KernelError> {
            $imp($($arg),*)
        }
    )*};
}

compiled_for_avx2! {
    conv_u8_avx2, conv_u8_impl(g: &Geometry, input: &[u8], filter: &[u8], q: &Requant<'_>, out: &mut [u8], patch: &mut [u8]);
    conv_i16_avx2, conv_i16_impl(g: &Geometry, input: &[i16], filter: &[i8], q: &Requant<'_>, bias: Bias<'_>, out: &mut [i16], patch: &mut [i16]);
    depthwise_i16_avx2, depthwise_i16_impl(g: &Geometry, input: &[i16], filter: &[i8], q: &Requant<'_>, bias: Bias<'_>, out: &mut [i16], acc: &mut [i64]);
}

dispatch! {
    /// CONV_2D, float32.
    conv_f32 => avx2::conv_f32, conv_f32_impl, conv_f32_impl(g: &Geometry, input: &[f32], filter: &[f32], bias: Option<&[f32]>, out: &mut [f32], patch: &mut [f32]);
    /// DEPTHWISE_CONV_2D, float32.
    depthwise_f32 => avx2::depthwise_f32, neon::depthwise_f32, depthwise_f32_impl(g: &Geometry, input: &[f32], filter: &[f32], bias: Option<&[f32]>, out: &mut [f32], acc: &mut [f32]);
    /// CONV_2D, int8.
    conv_i8 => avx2::conv_i8, neon::conv_i8, conv_i8_body(g: &Geometry, input: &[i8], filter: &[i8], q: &Requant<'_>, out: &mut [i8], patch: &mut [i8], acc: &mut [i32]);
    /// DEPTHWISE_CONV_2D, int8.
    depthwise_i8 => avx2::depthwise_i8, neon::depthwise_i8, depthwise_i8_body(g: &Geometry, input: &[i8], filter: &[i8], q: &Requant<'_>, out: &mut [i8], acc: &mut [i32]);
    /// CONV_2D, uint8.
    conv_u8 => conv_u8_avx2, conv_u8_impl, conv_u8_impl(g: &Geometry, input: &[u8], filter: &[u8], q: &Requant<'_>, out: &mut [u8], patch: &mut [u8]);
    /// DEPTHWISE_CONV_2D, uint8.
    depthwise_u8 => avx2::depthwise_u8::depthwise_u8, depthwise_u8_impl, depthwise_u8_impl(g: &Geometry, input: &[u8], filter: &[u8], q: &Requant<'_>, out: &mut [u8], acc: &mut [i32]);
    /// CONV_2D, 16x8.
    conv_i16 => conv_i16_avx2, conv_i16_impl, conv_i16_impl(g: &Geometry, input: &[i16], filter: &[i8], q: &Requant<'_>, bias: Bias<'_>, out: &mut [i16], patch: &mut [i16]);
    /// DEPTHWISE_CONV_2D, 16x8.
    depthwise_i16 => depthwise_i16_avx2, depthwise_i16_impl, depthwise_i16_impl(g: &Geometry, input: &[i16], filter: &[i8], q: &Requant<'_>, bias: Bias<'_>, out: &mut [i16], acc: &mut [i64]);
}

/// Whether [`conv_q_packed`] runs on this CPU (x86 with AVX2 and `std`).
pub(crate) fn packed_q_runs() -> bool {
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    return std::is_x86_feature_detected!("avx2");
    #[cfg(not(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86"))))]
    false
}

/// CONV_2D, int8 (`UNSIGNED` false) or uint8, over weights packed by [`packed_q::pack`]:
/// the AVX2 body ([`packed_q_runs`]; elsewhere an error). `input` and `out` are the elements'
/// bytes, `q.bias` the unpacked bodies' folded bias, `scratch` [`packed_q::work_bytes`].
#[cfg_attr(
    not(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86"))),
    allow(unused_variables)
)]
pub(crate) fn conv_q_packed<const UNSIGNED: bool>(
    g: &Geometry,
    input: &[u8],
    packed: &[i16],
    q: &Requant<'_>,
    out: &mut [u8],
    scratch: &mut [u8],
) -> Result<(), KernelError> {
    #[cfg(all(feature = "std", any(target_arch = "x86_64", target_arch = "x86")))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the one feature the AVX2 body is compiled for.
        return unsafe { avx2::gemm::conv_packed::<UNSIGNED>(g, input, packed, q, out, scratch) };
    }
    Err(KernelError::Unsupported {
        what: "packed quantized convolution without AVX2",
    })
}

#[cfg(test)]
mod tests;
