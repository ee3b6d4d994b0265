//! Little-endian views of the model's number vectors (shapes, scales, zero points, sparse
//! indices): indexable and iterable without copying, whatever the host's byte order or the
//! model's address.

use core::fmt;
use core::iter::FusedIterator;
use core::marker::PhantomData;

/// A number stored little-endian in a model vector.
pub trait LeScalar: Copy + sealed::Sealed {
    /// Bytes per element.
    const SIZE: usize;
    /// Decodes one element from exactly `SIZE` bytes (a shorter slice reads as zero).
    fn decode(bytes: &[u8]) -> Self;
}

mod sealed {
    /// Only the model's own element types are vector elements.
    pub trait Sealed {}
}

/// Implements [`LeScalar`] for primitive number types.
macro_rules! le_scalar {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl LeScalar for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            #[inline]
            fn decode(bytes: &[u8]) -> Self {
                bytes.try_into().map_or(0 as $t, <$t>::from_le_bytes)
            }
        }
    )*};
}
le_scalar!(u8, u16, i32, u32, i64, f32);

/// A vector of `T` in the model, read element by element with explicit byte order.
#[derive(Clone, Copy)]
pub struct LeSlice<'a, T: LeScalar> {
    bytes: &'a [u8],
    _t: PhantomData<T>,
}

/// `i32` vector view (shapes, tensor lists).
pub type I32s<'a> = LeSlice<'a, i32>;
/// `f32` vector view (scales).
pub type F32s<'a> = LeSlice<'a, f32>;
/// `i64` vector view (zero points).
pub type I64s<'a> = LeSlice<'a, i64>;

impl<'a, T: LeScalar> LeSlice<'a, T> {
    /// A view of `bytes`; a trailing partial element is ignored.
    #[must_use]
    pub fn new(bytes: &'a [u8]) -> Self {
        let whole = bytes.len() / T::SIZE * T::SIZE;
        Self {
            bytes: bytes.get(..whole).unwrap_or(&[]),
            _t: PhantomData,
        }
    }

    /// The empty view.
    #[must_use]
    pub fn empty() -> Self {
        Self::new(&[])
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len() / T::SIZE
    }

    /// Whether there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i`, or `None` past the end.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<T> {
        let start = i.checked_mul(T::SIZE)?;
        self.bytes
            .get(start..start.checked_add(T::SIZE)?)
            .map(T::decode)
    }

    /// The elements in order.
    pub fn iter(&self) -> LeIter<'a, T> {
        LeIter {
            chunks: self.bytes.chunks_exact(T::SIZE),
            _t: PhantomData,
        }
    }

    /// The raw little-endian bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl<'a, T: LeScalar> IntoIterator for LeSlice<'a, T> {
    type Item = T;
    type IntoIter = LeIter<'a, T>;
    fn into_iter(self) -> LeIter<'a, T> {
        self.iter()
    }
}

impl<T: LeScalar + fmt::Debug> fmt::Debug for LeSlice<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: LeScalar + PartialEq> PartialEq for LeSlice<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: LeScalar + PartialEq> PartialEq<[T]> for LeSlice<'_, T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == *b)
    }
}

impl<T: LeScalar + PartialEq, const N: usize> PartialEq<[T; N]> for LeSlice<'_, T> {
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

/// Iterator over a [`LeSlice`].
#[derive(Clone)]
pub struct LeIter<'a, T: LeScalar> {
    chunks: core::slice::ChunksExact<'a, u8>,
    _t: PhantomData<T>,
}

impl<T: LeScalar> Iterator for LeIter<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        self.chunks.next().map(T::decode)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: LeScalar> DoubleEndedIterator for LeIter<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        self.chunks.next_back().map(T::decode)
    }
}

impl<T: LeScalar> ExactSizeIterator for LeIter<'_, T> {}
impl<T: LeScalar> FusedIterator for LeIter<'_, T> {}

/// A list of tensor indices (operator inputs, outputs, intermediates; subgraph inputs and
/// outputs): verified in range at load, `None` for an optional input left out (-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorIndices<'a>(I32s<'a>);

impl<'a> TensorIndices<'a> {
    /// Wraps a verified index vector.
    pub(crate) fn new(v: I32s<'a>) -> Self {
        Self(v)
    }

    /// Number of entries (left-out optional inputs included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Entry `i`: `Some(Some(tensor))`, `Some(None)` for a left-out optional input, `None`
    /// past the end.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<Option<usize>> {
        self.0.get(i).map(|t| usize::try_from(t).ok())
    }

    /// The entries in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Option<usize>> + ExactSizeIterator + 'a {
        self.0.iter().map(|t| usize::try_from(t).ok())
    }

    /// The raw values as stored (-1 for a left-out input).
    #[must_use]
    pub fn raw(&self) -> I32s<'a> {
        self.0
    }
}
