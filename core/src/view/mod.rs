//! Views that share a tensor's buffer: Deeplearning4j's `CreateView` (ADR 0021). Index
//! descriptors ([`ViewIndex`]: point, interval, all, new axis) choose part of a tensor, and
//! [`view`](crate::tensor::TensorBase::view) / [`view_mut`](crate::tensor::TensorBase::view_mut)
//! return a tensor over the **same** elements with a new layout — no copy, O(rank), no
//! allocation — so `+=` through a view changes the original.
//!
//! Semantics are numpy basic slicing wherever numpy has the same case (checked against numpy
//! fixtures in `tests/fixtures/views/`): a point drops its axis, a new axis inserts one of
//! length 1 (stride 0), missing trailing indices mean all; negative positions count from the
//! end; interval bounds out of range are clamped and an empty interval gives length 0; a point
//! out of range is an error; strides must be at least 1 (no reversed views). DL4J's extra
//! `inclusive` flag includes an interval's end. The INT64 encoding that `CreateView` takes is
//! decoded and encoded by [`dl4j`].
//!
//! ```
//! use tessera_core::tensor::TensorViewMut;
//! use tessera_core::view::ViewIndex;
//!
//! let mut data: [f32; 6] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
//! let mut a = TensorViewMut::new(&mut data[..], &[2, 3]).unwrap();
//! // numpy: a[:, 1:] += a[:, :2]   (copying the right-hand side first, as numpy does)
//! let mut rhs = [0.0f32; 4];
//! a.view(&[ViewIndex::All, ViewIndex::from(..2)]).unwrap().copy_to_slice(&mut rhs).unwrap();
//! let rhs = tessera_core::tensor::TensorView::new(&rhs[..], &[2, 2]).unwrap();
//! a.view_mut(&[ViewIndex::All, ViewIndex::from(1..)]).unwrap().add_assign(&rhs).unwrap();
//! assert_eq!(data, [0.0, 1.0, 3.0, 3.0, 7.0, 9.0]);
//!
//! // The same view from DL4J's encoding: all, interval [1, 3) step 1.
//! let words = [2, 0, 1, 1, /**/ 1, 2, 1, 1, 3, 1, 0];
//! let t = tessera_core::tensor::TensorView::new(&data[..], &[2, 3]).unwrap();
//! let v = t.view_encoded(&words).unwrap();
//! assert_eq!(v.iter().copied().sum::<f32>(), 1.0 + 3.0 + 7.0 + 9.0);
//! ```

mod apply;
pub mod dl4j;
mod error;
mod index;

pub use error::{IndexDecodeError, ViewError};
pub use index::ViewIndex;

#[cfg(test)]
mod tests;
