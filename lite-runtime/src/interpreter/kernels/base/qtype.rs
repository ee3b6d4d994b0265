//! The quantized element types as one trait, so a quantized body is written once for int8,
//! uint8 and int16: widening to `i32` and clamping back, as the reference kernels'
//! `std::min(std::max(v, numeric_limits<T>::min()), numeric_limits<T>::max())`.

use tessera_core::tensor::Element;

/// A quantized element type.
pub(crate) trait QType: Element + Copy {
    /// The type's lowest value.
    const MIN: i32;
    /// The type's highest value.
    const MAX: i32;
    /// The value, widened.
    fn get(self) -> i32;
    /// `v` clamped to the type's range.
    fn clamped(v: i32) -> Self;
}

macro_rules! qtype {
    ($($t:ty),*) => {$(
        impl QType for $t {
            const MIN: i32 = <$t>::MIN as i32;
            const MAX: i32 = <$t>::MAX as i32;
            #[inline(always)]
            fn get(self) -> i32 {
                i32::from(self)
            }
            #[inline(always)]
            fn clamped(v: i32) -> Self {
                v.clamp(<Self as QType>::MIN, <Self as QType>::MAX) as $t
            }
        }
    )*};
}

qtype!(i8, u8, i16);
