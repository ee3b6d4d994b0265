//! TensorFlow Lite's lookup tables (`LUTPopulate`, `LUTLookup` in `internal/common.h`): a
//! 256-entry table for an 8-bit input, filled by running the float function on each
//! dequantized value; a 513-entry table over the int16 range, sampled every 128 values with
//! a midpoint bias and interpolated on lookup; and the fixed sigmoid table the int16
//! LOGISTIC and TANH interpolate in (`reference_integer_ops::Logistic` / `Tanh`).

use super::fixed_point::checked_log2;
use crate::interpreter::KernelError;

/// `LUTPopulate<int8_t>`: `table[v as u8] = clamp(round(f(in_scale * (v - in_zp)) /
/// out_scale) + out_zp)` in `f32`, as the reference fills it.
pub(crate) fn populate_i8(
    in_scale: f32,
    in_zp: i32,
    out_scale: f32,
    out_zp: i32,
    f: impl Fn(f32) -> f32,
    table: &mut [i8; 256],
) {
    for v in i8::MIN..=i8::MAX {
        table[usize::from(v as u8)] = entry_i8(in_scale, in_zp, out_scale, out_zp, &f, v);
    }
}

/// One entry of [`populate_i8`]'s table: the value a kernel that looks `v` up reads, for one
/// computed without the table.
#[inline]
pub(crate) fn entry_i8(
    in_scale: f32,
    in_zp: i32,
    out_scale: f32,
    out_zp: i32,
    f: impl Fn(f32) -> f32,
    v: i8,
) -> i8 {
    let inverse_scale = 1.0 / out_scale;
    let dequantized = in_scale * (i32::from(v) - in_zp) as f32;
    let rescaled = libm::roundf(f(dequantized) * inverse_scale);
    // C's float-to-int conversion; saturating here where C is undefined.
    let q = (rescaled + out_zp as f32) as i32;
    q.clamp(-128, 127) as i8
}

/// Entries of an int16 table.
pub(crate) const LUT16: usize = 513;

/// `LUTPopulateInt16<double>` (the double overload softmax uses).
pub(crate) fn populate_i16(
    in_scale: f64,
    in_zp: i32,
    out_scale: f64,
    out_zp: i32,
    f: impl Fn(f64) -> f64,
    lut: &mut [i16; LUT16],
) {
    let input_min = in_scale * f64::from(i32::from(i16::MIN) - in_zp);
    let input_max = in_scale * f64::from(i32::from(i16::MAX) - in_zp);
    let output_min = out_scale * f64::from(i32::from(i16::MIN) - out_zp);
    let output_max = out_scale * f64::from(i32::from(i16::MAX) - out_zp);
    let steps = 512;
    let step = (input_max - input_min) / f64::from(steps);
    let half_step = step / 2.0;
    let scaling_inv = 65536.0 / (output_max - output_min);
    let (table_min, table_max) = (f64::from(i16::MIN), f64::from(i16::MAX));
    for (i, slot) in lut.iter_mut().take(512).enumerate() {
        let i = i as f64;
        let val = f(input_min + i * step);
        let val_midpoint = f(input_min + i * step + half_step);
        let val_next = f(input_min + (i + 1.0) * step);
        let sample_val = libm::round(val * scaling_inv);
        let midpoint_interp_val =
            libm::round((val_next * scaling_inv + libm::round(val * scaling_inv)) / 2.0);
        let midpoint_val = libm::round(val_midpoint * scaling_inv);
        let midpoint_err = midpoint_interp_val - midpoint_val;
        let bias = libm::round(midpoint_err / 2.0);
        *slot = (sample_val - bias).clamp(table_min, table_max) as i16;
    }
    lut[512] = libm::round(f(input_max) * scaling_inv).clamp(table_min, table_max) as i16;
}

/// `LUTLookup`: the table's value at `value`, interpolated between the two entries around it.
#[inline]
pub(crate) fn lookup_i16(value: i16, lut: &[i16; LUT16]) -> i16 {
    let index = (256 + (i32::from(value) >> 7)) as usize;
    let offset = i32::from(value & 0x7f);
    let base = lut[index & 511];
    let slope = lut[(index & 511) + 1].wrapping_sub(base);
    let delta = (i32::from(slope) * offset + 64) >> 7;
    (i32::from(base) + delta) as i16
}

/// `sigmoid_table_uint16`: sigmoid(i / 24) in unsigned 0.16 for i in 0..256, as TensorFlow
/// Lite ships it. Data, not a formula: 44 entries are one above `round(65536 * sigmoid)`
/// (the table is tuned for interpolation), so it cannot be recomputed bit for bit.
#[rustfmt::skip]
pub(crate) const SIGMOID_TABLE: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535,
];

/// The int16 LOGISTIC / TANH input step: `(x * multiplier + round) >> shift` in C's int32
/// (wrapping where C overflows, which only scales far outside TensorFlow Lite's reach do).
#[inline]
fn rescale(x: i16, multiplier: i32, shift: u32) -> i32 {
    let round = if shift > 0 { 1i32 << (shift - 1) } else { 0 };
    i32::from(x)
        .wrapping_mul(multiplier)
        .wrapping_add(round)
        .wrapping_shr(shift)
}

/// Linear interpolation in [`SIGMOID_TABLE`] at `abs >> frac_bits` plus the low `frac_bits`
/// bits, in `u32` (`ua << frac_bits + frac * (ub - ua)`; the table only grows), or
/// `saturated` past its last entry.
#[inline]
fn interpolate(abs: u32, frac_bits: u32, saturated: u32) -> u32 {
    let uh = (abs >> frac_bits) as usize;
    match (SIGMOID_TABLE.get(uh), SIGMOID_TABLE.get(uh + 1)) {
        (Some(&ua), Some(&ub)) if uh < 255 => {
            let (ua, ub) = (u32::from(ua), u32::from(ub));
            let frac = abs & ((1 << frac_bits) - 1);
            (ua << frac_bits).wrapping_add(frac.wrapping_mul(ub.wrapping_sub(ua)))
        }
        _ => saturated,
    }
}

/// One int16 LOGISTIC element (`reference_integer_ops::Logistic(int16)`): the input scaled to
/// 1/(3 * 4096) per step (`multiplier`, `shift` from prepare), the table interpolated on its
/// magnitude in steps of 2^-9 and mirrored for negative inputs, output in Q0.15.
#[inline]
pub(crate) fn logistic_i16(x: i16, multiplier: i32, shift: u32) -> i16 {
    let input = rescale(x, multiplier, shift);
    let result = interpolate(input.unsigned_abs(), 9, 0x7fff << 10);
    let result = if input >= 0 {
        result.wrapping_add(1 << 9)
    } else {
        (1u32 << (16 + 9))
            .wrapping_sub(result)
            .wrapping_add((1 << 9) - 1)
    };
    (result >> 10) as i16
}

/// One int16 TANH element (`reference_integer_ops::Tanh(int16)`): `2 * sigmoid(2x) - 1` from
/// the same table, interpolated in steps of 2^-8 of the rescaled input, output in Q0.15.
#[inline]
pub(crate) fn tanh_i16(x: i16, multiplier: i32, shift: u32) -> i16 {
    let input = rescale(x, multiplier, shift);
    // `uint8_t ut = abs & 0xFF`: the same eight fraction bits.
    let result = interpolate(input.unsigned_abs(), 8, 0xffff << 8) as i32;
    let result = if input >= 0 {
        result
            .wrapping_sub(1 << (14 + 9))
            .wrapping_add(1 << (9 - 2))
    } else {
        result
            .wrapping_neg()
            .wrapping_add(1 << (14 + 9))
            .wrapping_add((1 << (9 - 2)) - 1)
    };
    (result >> (9 - 1)) as i16
}

/// Which function a table holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    /// LOGISTIC.
    Logistic,
    /// TANH.
    Tanh,
}

/// The int16 input rescaling of `activations.cc`'s Prepare: `(multiplier, right shift)`
/// taking an input of scale `in_scale` to steps of 1/(3 * 4096).
pub(crate) fn int16_input_scaling(f: Function, in_scale: f32) -> Result<(i32, u32), KernelError> {
    const INPUT_INTEGER_BITS: i32 = 3;
    let (log2, pot) = checked_log2(in_scale);
    let left_shift = (15 - INPUT_INTEGER_BITS).saturating_add(log2);
    let table_scale = match f {
        Function::Logistic => left_shift == 0,
        Function::Tanh => left_shift == 0 || left_shift == 1,
    };
    if pot && table_scale {
        // The kernel's "power of two case": 3 << shift, no right shift.
        return Ok((3 << left_shift, 0));
    }
    // Doubling until past 32767 / 2 (at most 31 times): 15 significant bits.
    let mut multiplier = f64::from(in_scale) * 4096.0 * 3.0;
    let mut shift = 0u32;
    while multiplier <= 32767.0 / 2.0 && shift <= 30 {
        shift += 1;
        multiplier *= 2.0;
    }
    // `static_cast<int32_t>` truncates; 0 would be read as the power-of-two case, and
    // 2^31 or more does not convert: scales the reference cannot run either.
    if !(1.0..2_147_483_648.0).contains(&multiplier) {
        return Err(KernelError::Unsupported {
            what: "int16 LOGISTIC / TANH input scale out of the reference's range",
        });
    }
    Ok((multiplier as i32, shift))
}

/// `LUTPopulate<uint8_t>`: `table[v] = clamp(round(f(in_scale * (v - in_zp)) / out_scale) +
/// out_zp)` in `f32`, the int8 table's arithmetic over `0..=255`.
pub(crate) fn populate_u8(
    in_scale: f32,
    in_zp: i32,
    out_scale: f32,
    out_zp: i32,
    f: impl Fn(f32) -> f32,
    table: &mut [u8; 256],
) {
    let inverse_scale = 1.0 / out_scale;
    for (v, slot) in (0i32..).zip(table.iter_mut()) {
        let dequantized = in_scale * (v - in_zp) as f32;
        let rescaled = libm::roundf(f(dequantized) * inverse_scale);
        // C's float-to-int conversion; saturating here where C is undefined.
        let q = (rescaled + out_zp as f32) as i32;
        *slot = q.clamp(0, 255) as u8;
    }
}

/// `LUTPopulateInt16<float>` (the `LUTPopulate<int16_t>` every int16 table op but softmax
/// uses): [`populate_i16`]'s sampling with every step in `f32`.
pub(crate) fn populate_i16_f32(
    in_scale: f32,
    in_zp: i32,
    out_scale: f32,
    out_zp: i32,
    f: impl Fn(f32) -> f32,
    lut: &mut [i16; LUT16],
) {
    let input_min = in_scale * (i32::from(i16::MIN) - in_zp) as f32;
    let input_max = in_scale * (i32::from(i16::MAX) - in_zp) as f32;
    let output_min = out_scale * (i32::from(i16::MIN) - out_zp) as f32;
    let output_max = out_scale * (i32::from(i16::MAX) - out_zp) as f32;
    let step = (input_max - input_min) / 512.0;
    let half_step = step / 2.0;
    let scaling_inv = 65536.0 / (output_max - output_min);
    let (table_min, table_max) = (f32::from(i16::MIN), f32::from(i16::MAX));
    for (i, slot) in (0i32..).zip(lut.iter_mut().take(512)) {
        let i = i as f32;
        let val = f(input_min + i * step);
        let val_midpoint = f(input_min + i * step + half_step);
        let val_next = f(input_min + (i + 1.0) * step);
        let sample_val = libm::roundf(val * scaling_inv);
        let midpoint_interp_val =
            libm::roundf((val_next * scaling_inv + libm::roundf(val * scaling_inv)) / 2.0);
        let midpoint_val = libm::roundf(val_midpoint * scaling_inv);
        let midpoint_err = midpoint_interp_val - midpoint_val;
        let bias = libm::roundf(midpoint_err / 2.0);
        // std::min / std::max as the reference orders them; a NaN sample stays NaN and
        // converts to 0 (x86 converts it to INT_MIN, whose low 16 bits are 0).
        *slot = clamp_f32(sample_val - bias, table_min, table_max) as i16;
    }
    lut[512] = clamp_f32(
        libm::roundf(f(input_max) * scaling_inv),
        table_min,
        table_max,
    ) as i16;
}

/// `std::min(std::max(v, lo), hi)` (a NaN `v` stays NaN).
#[inline]
fn clamp_f32(v: f32, lo: f32, hi: f32) -> f32 {
    let a = if v < lo { lo } else { v };
    if hi < a { hi } else { a }
}

/// `LUTLookup` over a slice: `y[i] = lookup_i16(x[i])`.
pub(crate) fn lookup_i16_slice(x: &[i16], y: &mut [i16], lut: &[i16; LUT16]) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y = lookup_i16(x, lut);
    }
}

#[cfg(test)]
mod tests;
