//! Typed views of arena and model bytes. An empty byte slice views as an empty typed slice
//! whatever its address: an empty arena, or the empty rest of one shorter than its alignment
//! padding, has a dangling address that suits no type wider than a byte, and zerocopy's
//! casts refuse it as misaligned.

use zerocopy::{Immutable, IntoBytes, KnownLayout, TryFromBytes};

/// `bytes` as `[T]`; `None` if they are misaligned for `T`, not a whole number of `T`, or not
/// valid `T`s (a `bool` other than 0 or 1).
pub(crate) fn slice_of<T>(bytes: &[u8]) -> Option<&[T]>
where
    T: TryFromBytes + KnownLayout + Immutable,
{
    if bytes.is_empty() {
        return Some(&[]);
    }
    <[T]>::try_ref_from_bytes(bytes).ok()
}

/// `bytes` as `[T]`, to write; `None` as for [`slice_of`].
pub(crate) fn slice_of_mut<T>(bytes: &mut [u8]) -> Option<&mut [T]>
where
    T: TryFromBytes + IntoBytes + KnownLayout,
{
    if bytes.is_empty() {
        return Some(&mut []);
    }
    <[T]>::try_mut_from_bytes(bytes).ok()
}

#[cfg(test)]
mod tests;
