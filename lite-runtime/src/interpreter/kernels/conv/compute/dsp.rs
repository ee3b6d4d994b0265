//! int8 CONV_2D and DEPTHWISE_CONV_2D for the Cortex-M4 / M7 DSP extension (`thumbv7em`,
//! chosen at compile time by `build.rs`'s `tessera_arm_dsp`): sign extension of two bytes at
//! once (SXTB16) and 16-bit multiply-accumulates (SMLAD, SMLABB, SMLATT), as CMSIS-NN does.
//! Integer sums wrap as the portable bodies' do, so the results are theirs bit for bit.
//!
//! On other targets [`insn`] is a portable emulation of the same instructions, so that the
//! host's property tests run these very block structures against the portable bodies; the
//! firmware's keyword-spotting check runs them on the target.

use super::super::super::base::check::SHORT;
use super::ConvI8;
use super::{
    Dims, Geometry, KernelError, Requant, Windows, at, check_requant, depthwise_i8_impl, gather,
    requant_row, take, take_mut,
};

mod insn;
use insn::{sadd16, smlabb, smlad, smlatt, sxtb16, sxtb16_ror8};

/// The four bytes from `p + o` as a little-endian word, at any alignment.
///
/// # Safety
/// Bytes `o..o + 4` from `p` are inside one slice that `p` points into.
#[inline(always)]
unsafe fn word_at(p: *const i8, o: usize) -> u32 {
    // SAFETY: the caller's precondition; `read_unaligned` takes any alignment.
    u32::from_le(unsafe { p.wrapping_add(o).cast::<u32>().read_unaligned() })
}

/// `acc + sum x k` over the `n` values from `x` and from each of `k0`, `k1`: four values a
/// step, bytes 0 and 2 with one SMLAD and bytes 1 and 3 with another, the rest one at a time.
/// Pointers with the length checked once by the caller: with slices' own checks (a chunk
/// iterator, or an index per word and a slice for the tail) the loop took 28 instructions a
/// step rather than 16, and each call 53 more (measured in QEMU on the keyword-spotting
/// network's convolutions).
///
/// # Safety
/// `n` bytes from each of `x`, `k0` and `k1` are inside the slice it points into.
#[inline(always)]
unsafe fn dot2(x: *const i8, k0: *const i8, k1: *const i8, n: usize, acc: (i32, i32)) -> (i32, i32) {
    let (mut a0, mut a1) = acc;
    for i in 0..n / 4 {
        // SAFETY: 4i + 4 <= n, the caller's bound for all three.
        let xw = unsafe { word_at(x, 4 * i) };
        // SAFETY: as above.
        let w0 = unsafe { word_at(k0, 4 * i) };
        // SAFETY: as above.
        let w1 = unsafe { word_at(k1, 4 * i) };
        let (xe, xo) = (sxtb16(xw), sxtb16_ror8(xw));
        a0 = smlad(xe, sxtb16(w0), a0);
        a0 = smlad(xo, sxtb16_ror8(w0), a0);
        a1 = smlad(xe, sxtb16(w1), a1);
        a1 = smlad(xo, sxtb16_ror8(w1), a1);
    }
    for i in n / 4 * 4..n {
        // SAFETY: i < n, the caller's bound for all three.
        let x = i32::from(unsafe { x.wrapping_add(i).read() });
        // SAFETY: as above.
        let k0 = i32::from(unsafe { k0.wrapping_add(i).read() });
        // SAFETY: as above.
        let k1 = i32::from(unsafe { k1.wrapping_add(i).read() });
        a0 = a0.wrapping_add(x * k0);
        a1 = a1.wrapping_add(x * k1);
    }
    (a0, a1)
}

/// CONV_2D, int8: [`super::conv_i8_impl`]'s patch and requantization, the channel sums two
/// filter rows at a time with [`dot2`] (the patch's words widened once for both).
#[inline(always)]
pub(super) fn conv_i8(
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
        if x.len() < row {
            return Err(SHORT);
        }
        let (px, pk) = (x.as_ptr(), filter.as_ptr());
        let mut c = 0;
        while c + 2 <= d.out_c {
            let (k0, k1) = (pk.wrapping_add(c * row), pk.wrapping_add((c + 1) * row));
            // SAFETY: `x` holds `row` values (checked above), `filter` `out_c * row` (`take`),
            // and rows `c` and `c + 1` end at or before `out_c * row`.
            let (s0, s1) = unsafe { dot2(px, k0, k1, row, (bias[c], bias[c + 1])) };
            (acc[c], acc[c + 1]) = (s0, s1);
            c += 2;
        }
        if c < d.out_c {
            // An odd channel count: the last row alone (against itself as the unused second).
            let k = pk.wrapping_add(c * row);
            // SAFETY: as above, for row `c`, the last.
            acc[c] = unsafe { dot2(px, k, k, row, (bias[c], 0)) }.0;
        }
        requant_row(acc, q, g, pixels.next().ok_or(SHORT)?);
    }
    Ok(())
}

/// The two bytes from `p + o` as the bottom bytes of the two halves of a word (`b0`, `b1`
/// at bytes 0 and 2), what SXTB16 widens.
///
/// # Safety
/// Bytes `o..o + 2` from `p` are inside one slice that `p` points into.
#[inline(always)]
unsafe fn pair_at(p: *const i8, o: usize) -> u32 {
    // SAFETY: the caller's precondition; `read_unaligned` takes any alignment.
    let h = u32::from(u16::from_le(unsafe { p.wrapping_add(o).cast::<u16>().read_unaligned() }));
    // Byte 1 goes to byte 2; byte 1 of the result is ignored by SXTB16.
    h | h << 8
}

/// DEPTHWISE_CONV_2D, int8, depth multiplier 1 or 2 and channels a multiple of four: per
/// window, four channels a step summed in registers. A tap's four weights are one word and
/// its inputs one word (multiplier 1: four channels) or two bytes (2: two channels, each for
/// two outputs), widened to 16 bits in pairs (SXTB16), the input offset added to both halves
/// at once (SADD16: `x + offset` fits 16 bits) and each product accumulated with SMLABB /
/// SMLATT. Other shapes take the portable body.
#[inline(always)]
pub(super) fn depthwise_i8(
    g: &Geometry,
    input: &[i8],
    filter: &[i8],
    q: &Requant<'_>,
    out: &mut [i8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    match (g.depth_mult, g.out_c % 4) {
        (1, 0) => depthwise_blocks::<1>(g, input, filter, q, out, acc),
        (2, 0) => depthwise_blocks::<2>(g, input, filter, q, out, acc),
        _ => depthwise_i8_impl(g, input, filter, q, out, acc),
    }
}

/// [`depthwise_i8`] for depth multiplier `DM` (1 or 2).
#[inline(always)]
fn depthwise_blocks<const DM: usize>(
    g: &Geometry,
    input: &[i8],
    filter: &[i8],
    q: &Requant<'_>,
    out: &mut [i8],
    acc: &mut [i32],
) -> Result<(), KernelError> {
    let d = Dims::of(g)?;
    let input = take(input, d.input_len())?;
    let filter = take(filter, d.f_h * d.f_w * d.out_c)?;
    check_requant(q, d.out_c)?;
    let acc = take_mut(acc, d.out_c)?;
    let bias = take(q.bias, d.out_c)?;
    let off = g.input_offset as u32 & 0xffff;
    let off2 = off | off << 16;
    let step = g.dil_w as usize * d.in_c;
    // Input offsets from a window row to the next, filter offsets likewise.
    let ystep = g.dil_h as usize * d.in_w * d.in_c;
    let kystep = d.f_w * d.out_c;
    let mut pixels = take_mut(out, d.output_len())?.chunks_exact_mut(d.out_c);
    for (b, w) in Windows::new(g)? {
        let (n, rows) = (w.fx.1 - w.fx.0, w.fy.1 - w.fy.0);
        if n == 0 || rows == 0 {
            acc.copy_from_slice(bias);
            requant_row(acc, q, g, pixels.next().ok_or(SHORT)?);
            continue;
        }
        // The window's in-image taps, checked once for every block: from its first tap's
        // channel 0 to its last tap's last channel (input and filter). Then read through
        // pointers: with a check per filter row and block the set-up took 48 instructions a
        // row, with one per tap the taps 32 rather than 18.
        let o0 = at(g, &d, b, &w, w.fy.0, w.fx.0);
        let t0 = (w.fy.0 * d.f_w + w.fx.0) * d.out_c;
        let xs = input.get(o0..o0 + (rows - 1) * ystep + (n - 1) * step + d.in_c).ok_or(SHORT)?;
        let ks = filter.get(t0..t0 + (rows - 1) * kystep + n * d.out_c).ok_or(SHORT)?;
        let (px, pk) = (xs.as_ptr(), ks.as_ptr());
        for (c0, (a, bias)) in acc.chunks_exact_mut(4).zip(bias.chunks_exact(4)).enumerate() {
            let c0 = 4 * c0;
            let mut s = [0i32; 4];
            s.copy_from_slice(bias);
            let (mut xr, mut kr) = (c0 / DM, c0);
            for _ in 0..rows {
                for j in 0..n {
                    // Offsets inside `xs` and `ks`: row r < rows, tap j < n, and the block's
                    // inputs `c0 / DM + width <= in_c`, its weights `c0 + 4 <= out_c`.
                    let (xj, kj) = (xr + j * step, kr + j * d.out_c);
                    let (xe, xo) = if DM == 1 {
                        // SAFETY: xj + 4 <= (rows - 1) ystep + (n - 1) step + in_c, the
                        // length of `xs` (above).
                        let x = unsafe { word_at(px, xj) };
                        (sadd16(sxtb16(x), off2), sadd16(sxtb16_ror8(x), off2))
                    } else {
                        // SAFETY: xj + 2 <= the length of `xs`, as above.
                        let x = sadd16(sxtb16(unsafe { pair_at(px, xj) }), off2);
                        (x, x)
                    };
                    // SAFETY: kj + 4 <= (rows - 1) kystep + n out_c, the length of `ks`.
                    let k = unsafe { word_at(pk, kj) };
                    let (ke, ko) = (sxtb16(k), sxtb16_ror8(k));
                    s[0] = smlabb(xe, ke, s[0]);
                    s[2] = smlatt(xe, ke, s[2]);
                    s[1] = smlabb(xo, ko, s[1]);
                    s[3] = smlatt(xo, ko, s[3]);
                }
                xr += ystep;
                kr += kystep;
            }
            a.copy_from_slice(&s);
        }
        requant_row(acc, q, g, pixels.next().ok_or(SHORT)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
