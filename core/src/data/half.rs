//! Half-precision table values widened to `f32`: IEEE binary16 (`float16`) and bfloat16,
//! both exactly (every value of either format is an `f32`), written by hand so that the
//! crate needs no dependency and the conversion is `const`.

/// The `f32` equal to the IEEE binary16 value with bits `h`: exact for every value, signed
/// zeros, subnormals and infinities included; a NaN stays a NaN with its payload shifted into
/// the top of the `f32` payload (so a quiet NaN stays quiet).
///
/// ```
/// use tessera_core::data::f16_to_f32;
///
/// assert_eq!(f16_to_f32(0x3C00), 1.0);
/// assert_eq!(f16_to_f32(0xC000), -2.0);
/// assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24)); // the smallest subnormal
/// assert_eq!(f16_to_f32(0x7BFF), 65504.0); // the largest finite value
/// assert!(f16_to_f32(0x7E00).is_nan());
/// ```
pub const fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exponent = ((h >> 10) & 0x1F) as u32;
    let mantissa = (h & 0x3FF) as u32;
    let bits = if exponent == 0x1F {
        // Infinity or NaN: the f32 exponent is all ones too.
        sign | 0x7F80_0000 | (mantissa << 13)
    } else if exponent != 0 {
        // Normal: rebias 15 -> 127.
        sign | ((exponent + 112) << 23) | (mantissa << 13)
    } else if mantissa == 0 {
        sign
    } else {
        // Subnormal, `mantissa * 2^-24`: normal in f32. Shift the leading one into bit 10
        // (the implicit bit), lowering the exponent once per place shifted.
        let shift = mantissa.leading_zeros() - 21;
        sign | ((113 - shift) << 23) | (((mantissa << shift) & 0x3FF) << 13)
    };
    f32::from_bits(bits)
}

/// The `f32` equal to the bfloat16 value with bits `h`: bfloat16 is the top half of an `f32`,
/// so this is exact for every value (NaNs keep their payload).
///
/// ```
/// use tessera_core::data::bf16_to_f32;
///
/// assert_eq!(bf16_to_f32(0x3F80), 1.0);
/// assert_eq!(bf16_to_f32(0xC040), -3.0);
/// ```
pub const fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary16 value from its definition, in `f64` (exact there): an independent check
    /// of the bit manipulation, over all 65 536 encodings.
    fn by_definition(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exponent = i32::from((h >> 10) & 0x1F);
        let mantissa = f64::from(h & 0x3FF);
        match exponent {
            0 => sign * mantissa * crate::data::bag::tests::pow2(-24),
            0x1F if mantissa == 0.0 => sign * f64::INFINITY,
            0x1F => f64::NAN,
            e => sign * (1.0 + mantissa / 1024.0) * crate::data::bag::tests::pow2(e - 15),
        }
    }

    /// Every encoding natively; under Miri every 61st (still every exponent and class).
    const STEP: usize = if cfg!(miri) { 61 } else { 1 };

    #[test]
    fn every_f16_widens_exactly() {
        for h in (0..=u16::MAX).step_by(STEP) {
            let got = f16_to_f32(h);
            let want = by_definition(h);
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#06x}");
                // The payload moves up 13 places, the quiet bit with it.
                assert_eq!(got.to_bits() & 0x007F_FFFF, u32::from(h & 0x3FF) << 13);
            } else {
                assert_eq!(f64::from(got), want, "{h:#06x}");
                // Signed zeros keep their sign.
                assert_eq!(got.is_sign_negative(), h & 0x8000 != 0, "{h:#06x}");
            }
        }
    }

    #[test]
    fn every_bf16_is_the_top_half_of_an_f32() {
        for h in (0..=u16::MAX).step_by(STEP) {
            let got = bf16_to_f32(h);
            assert_eq!(got.to_bits() >> 16, u32::from(h));
            assert_eq!(got.to_bits() & 0xFFFF, 0);
        }
        assert_eq!(bf16_to_f32(0x4049), 3.140625);
    }
}
