//! What a vector may hold: [`SparseValue`] for every value type (flags included), [`Numeric`] for
//! the arithmetic the math operations need, and [`Float`] for what only floats have.

use core::fmt;

/// A value a [`VBuffer`](super::VBuffer) can hold.
///
/// Assignment is a full, independent copy (`Copy`), and `Default::default()` is the value of
/// every implicit entry of a sparse vector ("zero"). Implemented for `f32`, `f64`, `i8`, `i16`,
/// `i32`, `i64`, `u8`, `u16`, `u32`, `u64` and `bool` (flags).
pub trait SparseValue: Copy + Default + PartialEq + PartialOrd + fmt::Debug {
    /// Whether this equals the implicit value. For floats `-0.0` counts as zero and NaN does
    /// not; for flags it is `false`.
    fn is_default(&self) -> bool;

    /// Combines two values given for the same index (by
    /// [`BufferBuilder`](super::BufferBuilder)): the sum for numbers (wrapping for integers),
    /// `None` where duplicates make no sense (flags), which the builder reports as an error.
    fn combine(self, other: Self) -> Option<Self>;

    /// Whether this is a float NaN (never true for other types).
    #[inline]
    fn is_nan(&self) -> bool {
        false
    }
}

/// Arithmetic for the numeric operations (dot products, norms, sums, axpy, distances).
///
/// Integer arithmetic **wraps** (two's complement) everywhere: it never panics, and because
/// wrapping addition is associative and commutative, integer results do not depend on the
/// sparse or dense representation or on the summation order (the property tests compare them
/// exactly). Float arithmetic is IEEE with round-to-nearest, so sums taken in a different
/// order may differ in the last bits; see the module documentation for the order used.
pub trait Numeric: SparseValue {
    /// The additive identity, equal to `Self::default()`.
    const ZERO: Self;
    /// `self + other` (wrapping for integers).
    fn add(self, other: Self) -> Self;
    /// `self - other` (wrapping for integers).
    fn sub(self, other: Self) -> Self;
    /// `self * other` (wrapping for integers).
    fn mul(self, other: Self) -> Self;
    /// `|self|`: the identity for unsigned integers, `wrapping_abs` for signed ones (so the
    /// minimum value maps to itself), the sign bit cleared for floats.
    fn abs(self) -> Self;
}

/// Float-only operations, through `libm` so that `no_std` targets have them too.
pub trait Float: Numeric {
    /// The square root (`libm::sqrt` / `sqrtf`).
    fn sqrt(self) -> Self;
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// The larger of the two, ignoring a NaN operand (`libm::fmax` semantics).
    fn max_ignoring_nan(self, other: Self) -> Self;
}

macro_rules! int_element {
    ($($t:ty => $abs:expr),* $(,)?) => {$(
        impl SparseValue for $t {
            #[inline]
            fn is_default(&self) -> bool {
                *self == 0
            }
            #[inline]
            fn combine(self, other: Self) -> Option<Self> {
                Some(self.wrapping_add(other))
            }
        }

        impl Numeric for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
            #[inline(always)]
            fn mul(self, other: Self) -> Self {
                self.wrapping_mul(other)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                let f: fn(Self) -> Self = $abs;
                f(self)
            }
        }
    )*};
}

int_element! {
    i8 => i8::wrapping_abs,
    i16 => i16::wrapping_abs,
    i32 => i32::wrapping_abs,
    i64 => i64::wrapping_abs,
    u8 => |x| x,
    u16 => |x| x,
    u32 => |x| x,
    u64 => |x| x,
}

macro_rules! float_element {
    ($($t:ty, $bits:ty, $sqrt:path, $fmax:path);* $(;)?) => {$(
        impl SparseValue for $t {
            #[inline]
            fn is_default(&self) -> bool {
                *self == 0.0
            }
            #[inline]
            fn combine(self, other: Self) -> Option<Self> {
                Some(self + other)
            }
            #[inline]
            fn is_nan(&self) -> bool {
                <$t>::is_nan(*self)
            }
        }

        impl Numeric for $t {
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self - other
            }
            #[inline(always)]
            fn mul(self, other: Self) -> Self {
                self * other
            }
            #[inline(always)]
            fn abs(self) -> Self {
                // Clearing the sign bit is `fabs`; it vectorises and needs no libm call.
                <$t>::from_bits(self.to_bits() & (<$bits>::MAX >> 1))
            }
        }

        impl Float for $t {
            #[inline]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline]
            fn max_ignoring_nan(self, other: Self) -> Self {
                $fmax(self, other)
            }
        }
    )*};
}

float_element! {
    f32, u32, libm::sqrtf, libm::fmaxf;
    f64, u64, libm::sqrt, libm::fmax;
}

impl SparseValue for bool {
    #[inline]
    fn is_default(&self) -> bool {
        !*self
    }
    #[inline]
    fn combine(self, _other: Self) -> Option<Self> {
        None
    }
}
