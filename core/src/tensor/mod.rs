//! Dense tensors over caller memory: a dtype, a shape, strides and an offset in elements, up to
//! [`MAX_RANK`] dimensions inline, and in-place work through writable views.
//!
//! - [`TensorBase<S, T>`] is one tensor type over any storage `S: AsRef<[T]>` (the ndarray
//!   pattern): [`TensorView`] borrows `&[T]`, [`TensorViewMut`] borrows `&mut [T]`,
//!   `tessera-alloc`'s `OwnedTensor` holds a `Vec<T>`. Its [`Layout`] is checked once against
//!   the storage, at construction.
//! - [`TensorBag`] / [`TensorBagMut`] are HugeCTR's `TensorBag2`: dtype tag + layout + bytes,
//!   with [`shrink`](TensorBase::shrink) into a bag and a checked
//!   [`stretch`](TensorBag::stretch) back (a dtype mismatch, misaligned bytes or an invalid
//!   `bool` is an error, never a reinterpretation).
//! - Views of part of a tensor that share its buffer, and Deeplearning4j's index encoding, are
//!   in [`view`](crate::view).
//!
//! In-place operations ([`fill`](TensorBase::fill), [`copy_from`](TensorBase::copy_from),
//! [`map_inplace`](TensorBase::map_inplace), [`add_assign`](TensorBase::add_assign), …) and
//! [`iter`](TensorBase::iter) visit elements in logical (row-major) order, lane by lane along
//! the last axis after merging axes that are contiguous, so a contiguous tensor is one slice.
//!
//! ```
//! use tessera_core::tensor::TensorViewMut;
//! use tessera_core::view::ViewIndex;
//!
//! let mut data = [0i32; 12];
//! let mut t = TensorViewMut::new(&mut data[..], &[3, 4]).unwrap();
//! // Column 1, every row: a strided view of the same buffer.
//! let mut col = t.view_mut(&[ViewIndex::All, ViewIndex::Point(1)]).unwrap();
//! col.fill(5);
//! col.add_assign_scalar(1);
//! assert_eq!(data, [0, 6, 0, 0, 0, 6, 0, 0, 0, 6, 0, 0]);
//! ```

mod bag;
mod base;
mod dtype;
mod error;
mod iter;
pub(crate) mod lanes;
mod layout;
mod ops;

pub use bag::{TensorBag, TensorBagMut};
pub(crate) use bag::{cast_slice, cast_slice_mut};
pub use base::{TensorBase, TensorView, TensorViewMut};
pub use dtype::{Arithmetic, DType, Element};
pub use error::{InvalidTensor, TensorError};
pub use iter::Iter;
pub use layout::{Layout, MAX_RANK};

#[cfg(test)]
mod tests;
