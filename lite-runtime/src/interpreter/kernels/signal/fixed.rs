//! The signal library's integer math (`signal/src/{msb,square_root,log,max_abs,pcan_argc_fixed,
//! window,energy,overlap_add}.cc`), operation for operation: the same widths, the same
//! wrap-arounds and truncations, so every result is TensorFlow Lite Micro's bit for bit.

/// The 1-based index of the most significant set bit; 32 for 0, as TFLM's GCC/Clang build
/// computes it (`32 - __builtin_clz(x)`, and 32 when `x == 0`): the build its Python
/// interpreter and Arm's GCC toolchains use.
pub(super) fn msb32(x: u32) -> u32 {
    if x == 0 { 32 } else { 32 - x.leading_zeros() }
}

/// [`msb32`] of 64 bits: 64 for 0.
pub(super) fn msb64(x: u64) -> u32 {
    if x == 0 { 64 } else { 64 - x.leading_zeros() }
}

/// `Sqrt32`: the square root of `num`, rounded to nearest (bit by bit, then one rounding step
/// unless the root is already 0xFFFF).
pub(super) fn sqrt32(mut num: u32) -> u16 {
    if num == 0 {
        return 0;
    }
    let mut res: u32 = 0;
    // 32 - msb is 0..=31, made odd: the first bit tried is an even power of two.
    let max_bit_number = (32 - msb32(num)) | 1;
    let mut bit: u32 = 1 << (31 - max_bit_number);
    let mut iterations = (31 - max_bit_number) / 2 + 1;
    while iterations > 0 {
        iterations -= 1;
        let trial = res.wrapping_add(bit);
        if num >= trial {
            num -= trial;
            res = (res >> 1).wrapping_add(bit);
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF {
        res += 1;
    }
    // The C function returns uint16_t: the root of a u32 is at most 0xFFFF anyway.
    res as u16
}

/// `Sqrt64`: [`sqrt32`] when the upper word is clear (TFLM's shortcut, kept: it rounds the
/// same way), else the same bit-by-bit root in 64 bits.
pub(super) fn sqrt64(mut num: u64) -> u32 {
    if num >> 32 == 0 {
        return u32::from(sqrt32(num as u32));
    }
    let mut res: u64 = 0;
    let max_bit_number = (64 - msb64(num)) | 1;
    let mut bit: u64 = 1 << (63 - max_bit_number);
    let mut iterations = (63 - max_bit_number) / 2 + 1;
    while iterations > 0 {
        iterations -= 1;
        let trial = res.wrapping_add(bit);
        if num >= trial {
            num -= trial;
            res = (res >> 1).wrapping_add(bit);
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF_FFFF {
        res += 1;
    }
    res as u32
}

/// TFLM's piecewise-linear correction of log2's fraction, 128 segments of the unit interval
/// scaled by 2^16 (`kLogLut`, with its padding entry).
const LOG_LUT: [u16; 130] = [
    0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797,
    2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549,
    4633, 4714, 4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444,
    5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626,
    5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203,
    5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264,
    4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875,
    2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094,
    963, 830, 695, 559, 421, 282, 142, 0, 0,
];
const LOG_SEGMENTS_LOG2: u32 = 7;
const LOG_SCALE: u32 = 65536;
const LOG_SCALE_LOG2: u32 = 16;
/// ln(2) in 16 fractional bits.
const LOG_COEFF: u64 = 45426;

/// The fraction of log2(x) in 16 bits, `log2x` being its integer part (`Log2FractionPart32`).
fn log2_fraction(x: u32, log2x: u32) -> u32 {
    // `x - (1LL << log2x)` in 64 bits, then stored in an int32_t.
    let mut frac = (i64::from(x) - (1i64 << log2x)) as i32;
    if log2x < LOG_SCALE_LOG2 {
        frac = frac.wrapping_shl(LOG_SCALE_LOG2 - log2x);
    } else {
        frac >>= log2x - LOG_SCALE_LOG2;
    }
    // frac is below 2^16 here, so the segment is below 128: in the table.
    let base_seg = (frac as u32) >> (LOG_SCALE_LOG2 - LOG_SEGMENTS_LOG2);
    let seg_unit = (1u32 << LOG_SCALE_LOG2) >> LOG_SEGMENTS_LOG2;
    let at = base_seg as usize;
    let c0 = i32::from(LOG_LUT.get(at).copied().unwrap_or(0));
    let c1 = i32::from(LOG_LUT.get(at + 1).copied().unwrap_or(0));
    let seg_base = seg_unit.wrapping_mul(base_seg) as i32;
    let rel_pos = (c1 - c0).wrapping_mul(frac.wrapping_sub(seg_base)) >> LOG_SCALE_LOG2;
    frac.wrapping_add(c0).wrapping_add(rel_pos) as u32
}

/// `Log32`: ln(x) × `out_scale`, in TFLM's fixed point (x must not be 0).
pub(super) fn log32(x: u32, out_scale: u32) -> u32 {
    let integer = msb32(x).wrapping_sub(1);
    let fraction = log2_fraction(x, integer & 31);
    let log2 = (integer << LOG_SCALE_LOG2).wrapping_add(fraction);
    let round = LOG_SCALE / 2;
    let loge = ((LOG_COEFF * u64::from(log2) + u64::from(round)) >> LOG_SCALE_LOG2) as u32;
    // uint32 arithmetic, wrapping as C's does.
    out_scale.wrapping_mul(loge).wrapping_add(round) >> LOG_SCALE_LOG2
}

/// `MaxAbs16` (the portable body): the largest magnitude, kept in an int16_t. -32768 makes it
/// -32768 (C's `-value` is 32768, stored back as -32768), and every later value beats that.
pub(super) fn max_abs16(input: &[i16]) -> i16 {
    let mut max: i16 = 0;
    for &value in input {
        if value > max {
            max = value;
        } else if -i32::from(value) > i32::from(max) {
            max = (-i32::from(value)) as i16;
        }
    }
    max
}

/// `FftAutoScale`'s shift: how far left the input can go without clipping (0 if none).
pub(super) fn auto_scale_bits(max: i16) -> u32 {
    // MostSignificantBit32 takes the int16_t sign-extended to uint32_t.
    let bits = 16 - msb32(max as i32 as u32) as i32 - 1;
    bits.max(0) as u32
}

/// `WideDynamicFunction`: the PCAN gain of noise estimate `x`, from the piecewise quadratic
/// `lut` (3 coefficients per octave). `None` if `lut` is too short for `x`'s octave.
pub(super) fn wide_dynamic(x: u32, lut: &[i16]) -> Option<i16> {
    if x <= 2 {
        return lut.get(x as usize).copied();
    }
    let interval = msb32(x);
    let at = (4 * interval - 6) as usize;
    let coeffs = lut.get(at..at + 3)?;
    let frac = (if interval < 11 {
        x << (11 - interval)
    } else {
        x >> (interval - 11)
    } & 0x3FF) as i32;
    let mut result = (i32::from(coeffs[2]).wrapping_mul(frac)) >> 5;
    result = result.wrapping_add((i32::from(coeffs[1]) as u32).wrapping_shl(5) as i32);
    result = result.wrapping_mul(frac);
    result = result.wrapping_add(1 << 14) >> 15;
    result = result.wrapping_add(i32::from(coeffs[0]));
    Some(result as i16)
}

/// PCAN's SNR fractional bits.
const PCAN_SNR_BITS: u32 = 12;
/// PCAN's output fractional bits.
const PCAN_OUTPUT_BITS: u32 = 6;

/// `PcanShrink`: x²/4 below 2, x - 1 above (x in 12 fractional bits, the result in 6).
pub(super) fn pcan_shrink(x: u32) -> u32 {
    if x < (2 << PCAN_SNR_BITS) {
        x.wrapping_mul(x) >> (2 + 2 * PCAN_SNR_BITS - PCAN_OUTPUT_BITS)
    } else {
        (x >> (PCAN_SNR_BITS - PCAN_OUTPUT_BITS)).wrapping_sub(1 << PCAN_OUTPUT_BITS)
    }
}

/// `ApplyWindow` of one frame: `(input × window) >> shift`, saturated to int16.
pub(super) fn apply_window(input: &[i16], window: &[i16], shift: u32, output: &mut [i16]) {
    for ((o, &x), &w) in output.iter_mut().zip(input).zip(window) {
        let raw = (i32::from(x) * i32::from(w)) >> shift;
        *o = raw.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    }
}

#[cfg(test)]
pub(super) mod naive {
    //! Plain references for the property tests.

    /// The square root rounded to nearest, ties up (exact integers).
    pub fn sqrt_rounded(n: u64) -> u64 {
        let mut r = (n as f64).sqrt() as u64;
        while r * r > n {
            r -= 1;
        }
        while (r + 1) * (r + 1) <= n {
            r += 1;
        }
        // n - r² > r  ⇔  n > r² + r  ⇔  the root is nearer r + 1 (no ties for integers).
        if n - r * r > r { r + 1 } else { r }
    }
}
