//! Ref-counted bytes that VIEW strings can share: the safe way to fill a VIEW's owner, so
//! that a string outlives any borrow of the bytes it views.

use alloc::boxed::Box;
use alloc::sync::Arc;
use core::ffi::c_void;
use core::ptr::NonNull;

use tessera_core::tstring::{StringHeap, TString, TStringError, TStringOwner};

#[repr(C)]
struct Inner {
    owner: TStringOwner,
    data: Box<[u8]>,
}

unsafe extern "C" fn retain(obj: *mut c_void) {
    // SAFETY: `obj` is the `Inner` of a live `Arc` (it is only ever set by `SharedBytes::new`
    // and only called while some reference is held).
    unsafe { Arc::increment_strong_count(obj.cast_const().cast::<Inner>()) }
}

unsafe extern "C" fn release(obj: *mut c_void) {
    // SAFETY: as above; the caller gives up one of the references it holds.
    unsafe { Arc::decrement_strong_count(obj.cast_const().cast::<Inner>()) }
}

/// Immutable bytes behind an `Arc`, exposed to strings as a `TF_TString` owner: every VIEW
/// made by [`view`](Self::view) holds a reference, released when the string is dropped.
///
/// ```
/// use tessera_alloc::{HeapTString, SharedBytes};
/// use tessera_core::tstring::TStringType;
///
/// let shared = SharedBytes::new(b"a vocabulary entry far too long for SMALL".to_vec());
/// let s: HeapTString<'static> = shared.view().unwrap();
/// drop(shared); // the string keeps the bytes alive
/// assert_eq!(s.string_type(), TStringType::View);
/// assert_eq!(s, "a vocabulary entry far too long for SMALL");
/// ```
#[derive(Clone)]
pub struct SharedBytes {
    inner: Arc<Inner>,
}

// SAFETY: the bytes are immutable and the count is atomic; the raw pointer inside the owner
// only names the `Arc` allocation itself.
unsafe impl Send for SharedBytes {}
// SAFETY: as above.
unsafe impl Sync for SharedBytes {}

impl SharedBytes {
    /// Moves `data` behind a reference count.
    pub fn new(data: impl Into<Box<[u8]>>) -> Self {
        let data = data.into();
        let inner = Arc::new_cyclic(|weak: &alloc::sync::Weak<Inner>| Inner {
            owner: TStringOwner {
                ref_fn: Some(retain),
                unref_fn: Some(release),
                obj: weak.as_ptr().cast_mut().cast(),
            },
            data,
        });
        SharedBytes { inner }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.inner.data
    }

    /// A VIEW string of all the bytes that shares the reference count.
    pub fn view<H: StringHeap>(&self) -> Result<TString<'static, H>, TStringError> {
        self.view_range(0, self.inner.data.len())
    }

    /// A VIEW string of `len` bytes from `start` (clamped to the bytes) that shares the
    /// reference count: many strings can view one buffer, and it lives while any of them do.
    pub fn view_range<H: StringHeap>(
        &self,
        start: usize,
        len: usize,
    ) -> Result<TString<'static, H>, TStringError> {
        let data = &self.inner.data;
        let start = start.min(data.len());
        let len = len.min(data.len() - start);
        let owner = NonNull::from(&self.inner.owner);
        // SAFETY: the owner is live (we hold a reference), its callbacks are atomic, and the
        // bytes are immutable and live as long as any reference.
        unsafe { TString::view_with_owner(data[start..].as_ptr(), len, owner) }
    }

    /// Strong references held, by this handle and by strings.
    pub fn ref_count(&self) -> usize {
        Arc::strong_count(&self.inner)
    }
}

impl core::fmt::Debug for SharedBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedBytes")
            .field("len", &self.inner.data.len())
            .field("refs", &self.ref_count())
            .finish()
    }
}

#[cfg(test)]
mod tests;
