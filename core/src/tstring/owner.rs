//! The ref-counted owner a VIEW may point at, so that the viewed bytes outlive any one borrow.
//! Laid out as TensorFlow's C struct: two callbacks and the object they count.

use core::ffi::c_void;

/// A reference-counted owner of the bytes behind a VIEW string (`{ref, unref, obj}` in C).
///
/// A VIEW whose `owner_ref` is non-null calls `ref_fn(obj)` when it is copied and
/// `unref_fn(obj)` when it is dropped or reassigned; the owner frees the bytes when its count
/// reaches zero. A plain VIEW has a null owner and borrows its bytes for a Rust lifetime.
#[derive(Debug)]
#[repr(C)]
pub struct TStringOwner {
    /// Increments the owner's reference count.
    pub ref_fn: Option<unsafe extern "C" fn(obj: *mut c_void)>,
    /// Decrements the owner's reference count, releasing the bytes at zero.
    pub unref_fn: Option<unsafe extern "C" fn(obj: *mut c_void)>,
    /// The owner object passed to both callbacks.
    pub obj: *mut c_void,
}

impl TStringOwner {
    /// Calls `ref_fn`, if any.
    ///
    /// # Safety
    /// `self.obj` must be the live object the callbacks expect.
    #[inline]
    pub(crate) unsafe fn retain(&self) {
        if let Some(f) = self.ref_fn {
            // SAFETY: the caller guarantees `obj` is what `ref_fn` expects.
            unsafe { f(self.obj) }
        }
    }

    /// Calls `unref_fn`, if any. The owner may be freed by the call.
    ///
    /// # Safety
    /// `self.obj` must be the live object the callbacks expect, and the caller must hold one
    /// reference that this call gives up.
    #[inline]
    pub(crate) unsafe fn release(this: *const TStringOwner) {
        // SAFETY: the caller guarantees `this` is a live owner. Its fields are read before
        // the call, which may free the owner itself.
        let owner = unsafe { &*this };
        let (unref, obj) = (owner.unref_fn, owner.obj);
        if let Some(f) = unref {
            // SAFETY: as above.
            unsafe { f(obj) }
        }
    }
}
