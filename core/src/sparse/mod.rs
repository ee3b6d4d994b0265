//! Sparse and dense vectors as one type: ML.NET's `VBuffer`, over caller memory.
//!
//! A [`VBuffer`] has a logical length `len` and `count` explicit values. It is **dense** when
//! `count == len` (values only) and **sparse** otherwise (values with strictly increasing
//! `u32` indices below `len`). Every implicit entry is `T::default()` ("zero"), and every
//! operation gives the same result for both representations of the same vector.
//!
//! ## One type, many storages
//! `VBuffer<S>` is generic over its [`Storage`] (the ndarray / sprs pattern), so each
//! operation is written once and serves:
//! - [`VBufferView`] over [`Slices`]: borrowed and read-only; [`VBuffer::view`] turns any
//!   vector into one for free;
//! - [`VBufferMut`] over [`SlicesMut`]: arrays the caller owns (a stack array, a static
//!   region), fixed capacity;
//! - [`InlineVBuffer`] over [`Inline`]: fixed capacity `N` on `heapless::Vec`, for firmware;
//! - `OwnedVBuffer` in `tessera-alloc`: `Vec`s that grow (doubling from 4) and are reused.
//!
//! Operations that write a vector take the destination generically (`&mut VBuffer<D>` with
//! `D: StorageMut`): growable storage grows, fixed and borrowed storage return
//! [`SparseError::Capacity`] with the number of elements needed.
//!
//! ## Limits
//! Indices are `u32`, so `len <= u32::MAX` ([`MAX_LEN`]), dense vectors included; a longer
//! length is [`SparseError::LengthTooLarge`], never a silently truncated index.
//!
//! ## Validation
//! Untrusted parts go through [`VBuffer::try_new`] (O(count); on failure the storage comes
//! back with the reason) or [`Editor::commit`]. [`VBuffer::new_unchecked`] and
//! [`Editor::commit_unchecked`] skip the check for indices that are valid by construction
//! (copies, merges, shifts); debug builds check anyway. The invariant is not a safety
//! invariant: every kernel indexes with bounds checks, because unchecked indexing measured no
//! faster (the gathers and scatters wait on cache misses). So the storage traits and the
//! unchecked constructors are safe, and a vector whose invariant was broken (by a false
//! promise or a storage that changes behind its back) gives unspecified results, errors or a
//! bounds-check panic, never an out-of-bounds read.
//!
//! ## Reuse, and why two vectors never share arrays
//! A getter fills a caller-owned vector passed by `&mut` (ML.NET's `ValueGetter` pattern);
//! an [`Editor`] reuses the vector's arrays when they are large enough, so after warm-up
//! filling allocates nothing (`tessera-alloc` proves it with a counting allocator):
//!
//! ```
//! use tessera_core::sparse::{InlineVBuffer, SparseError, StorageMut, VBuffer};
//!
//! /// Fills row `row` of some column: every third entry set.
//! fn get<S: StorageMut<Elem = f32>>(row: u32, dst: &mut VBuffer<S>) -> Result<(), SparseError> {
//!     let mut ed = dst.edit(9, 3)?;
//!     let (values, indices) = ed.parts();
//!     for k in 0..3 {
//!         values[k] = row as f32;
//!         indices[k] = 3 * k as u32 + row % 3;
//!     }
//!     ed.commit().map_err(|e| e.error)
//! }
//!
//! let mut value: InlineVBuffer<f32, 16> = VBuffer::default(); // outside the loop
//! for row in 0..4 {
//!     get(row, &mut value).unwrap();
//!     assert_eq!(value.sum(), 3.0 * row as f32);
//! }
//! ```
//!
//! ML.NET's worst `VBuffer` bug is two vectors sharing arrays (`dst = src`, then editing
//! `dst` silently changes `src`). Here it cannot be written in safe code: a `VBuffer` owns
//! its storage or holds the only `&mut` borrow of it ([`SlicesMut`]); the shared form
//! ([`Slices`]) is read-only; `Clone` copies the arrays; an editor borrows the vector
//! mutably, so nothing else reads it meanwhile; and every operation takes its inputs by `&`
//! and its destination by `&mut`, so the borrow checker rejects a destination that is also
//! an input:
//!
//! ```compile_fail,E0502
//! use tessera_core::sparse::{InlineVBuffer, VBuffer};
//!
//! let mut a: InlineVBuffer<f32, 4> = VBuffer::default();
//! a.add_into(&a.view(), &mut a); // error: `a` is borrowed both ways
//! ```
//!
//! ```compile_fail,E0502
//! use tessera_core::sparse::{InlineVBuffer, VBuffer};
//!
//! let mut a: InlineVBuffer<f32, 4> = VBuffer::default();
//! let shared = a.view(); // reads `a`'s arrays in place
//! a.values_mut()[0] = 1.0; // error: cannot write `a` while the view lives
//! assert_eq!(shared.len(), 0);
//! ```
//!
//! ## Numbers
//! [`SparseValue`] covers every value type (flags included), [`Numeric`] the arithmetic (integer
//! arithmetic wraps, so integer results are exact and independent of representation), and
//! [`Float`] square roots and NaN checks through `libm`. Float sums and dot products are not
//! taken left to right: dense folds use 16 accumulators (element `i` of each full 16-element
//! block into lane `i mod 16`; the lanes are then added in order 0 to 15, then the tail in
//! order), sparse·dense dot products 8 accumulators over the sparse entries (combined the
//! same way), and sparse·sparse products and sums over a union one accumulator in index
//! order. Results therefore differ from a sequential loop (and between sparse and dense
//! forms of one vector) by rounding only, at most about `n·ε·Σ|terms|`; the property tests
//! allow `1e-5·(1 + Σ|terms|)` for `f32` and `1e-12·(1 + Σ|terms|)` for `f64`. Implicit
//! entries are structural zeros: a product with an implicit entry is zero even when the
//! other factor is infinite or NaN, where the dense form would give NaN.
//!
//! ## Operations
//! - Read: [`VBuffer::get`] (binary search), [`VBuffer::iter`], [`VBuffer::iter_all`].
//! - Copy: [`VBuffer::copy_to`] (keeps density), [`VBuffer::copy_to_dense`],
//!   [`VBuffer::copy_to_slice`], [`VBuffer::copy_range_to`], [`VBuffer::copy_maybe_sparse`]
//!   (dense above 25 % non-zero).
//! - Reshape in place: [`VBuffer::densify`], [`VBuffer::densify_first`], [`VBuffer::clear`],
//!   [`VBuffer::resize`].
//! - Visit: [`VBuffer::for_each_defined`], [`VBuffer::for_each_both_defined`]
//!   (intersection), [`VBuffer::for_each_either_defined`] (union).
//! - Apply: [`VBuffer::apply_at`], [`VBuffer::apply_with`],
//!   [`VBuffer::apply_with_either_defined`], [`VBuffer::map_into`], [`VBuffer::apply_into`].
//! - Math: [`VBuffer::dot`], [`VBuffer::sum`], [`VBuffer::norm_l1`], [`VBuffer::norm_l2`],
//!   [`VBuffer::norm_l2_squared`], [`VBuffer::max_abs`], [`VBuffer::scale_by`],
//!   [`VBuffer::add`], [`VBuffer::add_into`], [`VBuffer::add_mult`], [`VBuffer::dist_l1`],
//!   [`VBuffer::dist_l2`], [`VBuffer::dist_l2_squared`], [`VBuffer::mul_elementwise`],
//!   [`VBuffer::arg_max`], [`VBuffer::arg_min`], [`VBuffer::has_nan`],
//!   [`VBuffer::has_non_finite`].
//! - Build: [`BufferBuilder`].

mod apply;
mod builder;
mod copy;
mod editor;
mod error;
mod inline;
mod iterate;
mod kernels;
mod math;
mod storage;
mod value;
mod vbuffer;

pub use builder::BufferBuilder;
pub use editor::{CommitError, Editor};
pub use error::{InvalidVBuffer, SparseError};
pub use inline::Inline;
pub use storage::{Reserved, Slices, SlicesMut, Storage, StorageMut};
pub use value::{Float, Numeric, SparseValue};
pub use vbuffer::{AllEntries, Entries, InlineVBuffer, MAX_LEN, VBuffer, VBufferMut, VBufferView};

#[cfg(test)]
mod tests;
