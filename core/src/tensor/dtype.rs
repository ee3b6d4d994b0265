//! Element types: the [`DType`] tag a type-erased tensor carries, and the [`Element`] types a
//! typed tensor may hold, with the wrapping / IEEE arithmetic of [`Arithmetic`].

use core::fmt;

use zerocopy::{Immutable, IntoBytes, KnownLayout, TryFromBytes};

/// The element type of a tensor, as a one-byte tag (stable: the discriminants never change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum DType {
    /// `f32`, IEEE 754 binary32.
    F32 = 0,
    /// `f64`, IEEE 754 binary64.
    F64 = 1,
    /// `i8`.
    I8 = 2,
    /// `i16`.
    I16 = 3,
    /// `i32`.
    I32 = 4,
    /// `i64`.
    I64 = 5,
    /// `u8`.
    U8 = 6,
    /// `u16`.
    U16 = 7,
    /// `u32`.
    U32 = 8,
    /// `u64`.
    U64 = 9,
    /// `bool`, one byte holding 0 or 1 (any other byte is an invalid element).
    Bool = 10,
}

impl DType {
    /// Every dtype, in tag order.
    pub const ALL: [DType; 11] = [
        Self::F32,
        Self::F64,
        Self::I8,
        Self::I16,
        Self::I32,
        Self::I64,
        Self::U8,
        Self::U16,
        Self::U32,
        Self::U64,
        Self::Bool,
    ];

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 | Self::Bool => 1,
            Self::I16 | Self::U16 => 2,
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F64 | Self::I64 | Self::U64 => 8,
        }
    }

    /// Alignment an element needs in memory on this target.
    pub const fn align(self) -> usize {
        match self {
            Self::F32 => align_of::<f32>(),
            Self::F64 => align_of::<f64>(),
            Self::I8 => align_of::<i8>(),
            Self::I16 => align_of::<i16>(),
            Self::I32 => align_of::<i32>(),
            Self::I64 => align_of::<i64>(),
            Self::U8 => align_of::<u8>(),
            Self::U16 => align_of::<u16>(),
            Self::U32 => align_of::<u32>(),
            Self::U64 => align_of::<u64>(),
            Self::Bool => align_of::<bool>(),
        }
    }

    /// The dtype with tag `tag`, if any.
    pub const fn from_tag(tag: u8) -> Option<Self> {
        if (tag as usize) < Self::ALL.len() {
            Some(Self::ALL[tag as usize])
        } else {
            None
        }
    }

    /// The one-byte tag.
    pub const fn tag(self) -> u8 {
        self as u8
    }

    /// The Rust name of the element type (`"f32"`, `"bool"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::I8 => "i8",
            Self::I16 => "i16",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::Bool => "bool",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type a typed tensor may hold: one of the [`DType`]s. Sealed.
///
/// The zerocopy bounds make the byte casts of [`TensorBag`](super::TensorBag) and the arena
/// checked and `unsafe`-free (`bool` is validated byte by byte).
pub trait Element:
    sealed::Sealed
    + Copy
    + PartialEq
    + Default
    + fmt::Debug
    + TryFromBytes
    + IntoBytes
    + Immutable
    + KnownLayout
    + 'static
{
    /// The tag of this type.
    const DTYPE: DType;
}

/// Elementwise arithmetic for the in-place operations: IEEE 754 for floats, wrapping for
/// integers (as numpy does), so no input can make an operation panic.
pub trait Arithmetic: Element {
    /// `self + rhs`.
    fn add(self, rhs: Self) -> Self;
    /// `self - rhs`.
    fn sub(self, rhs: Self) -> Self;
    /// `self * rhs`.
    fn mul(self, rhs: Self) -> Self;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}

element!(
    f32 => F32, f64 => F64, i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, bool => Bool,
);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arithmetic for $t {
            #[inline(always)]
            fn add(self, rhs: Self) -> Self { self + rhs }
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self { self - rhs }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self { self * rhs }
        }
    )*};
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arithmetic for $t {
            #[inline(always)]
            fn add(self, rhs: Self) -> Self { self.wrapping_add(rhs) }
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self { self.wrapping_sub(rhs) }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self { self.wrapping_mul(rhs) }
        }
    )*};
}

float_arith!(f32, f64);
int_arith!(i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(test)]
mod tests;
