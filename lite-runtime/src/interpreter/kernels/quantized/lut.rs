//! TensorFlow Lite's lookup tables (`LUTPopulate`, `LUTLookup` in `internal/common.h`): a
//! 256-entry table for an 8-bit input, filled by running the float function on each
//! dequantized value; a 513-entry table over the int16 range, sampled every 128 values with
//! a midpoint bias and interpolated on lookup.

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
    let inverse_scale = 1.0 / out_scale;
    for v in -128i32..=127 {
        let dequantized = in_scale * (v - in_zp) as f32;
        let rescaled = libm::roundf(f(dequantized) * inverse_scale);
        // C's float-to-int conversion; saturating here where C is undefined.
        let q = (rescaled + out_zp as f32) as i32;
        table[usize::from(v as i8 as u8)] = q.clamp(-128, 127) as i8;
    }
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
