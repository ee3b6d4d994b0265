//! TensorFlow's string algorithms (`ctstring_internal.h`) over raw pointers, rule for rule.
//!
//! These are what the C ABI exports and what [`TString`]'s safe methods call. They take raw
//! pointers rather than references because an OFFSET string's bytes lie *outside* its own 24
//! bytes: a pointer derived from `&TString` may only touch those 24 bytes, while a pointer
//! that came from C (or from the whole buffer) may reach the data that follows.
//!
//! Where TensorFlow would write through a failed `malloc`, these return
//! [`TStringError::Alloc`] and leave the string as it was.
//!
//! # Safety (every function)
//! `this` (and `src` where present) must point to a valid, properly aligned `TString` whose
//! bytes obey its type: SMALL length ≤ 22; LARGE `ptr` allocated by `H` with `cap + 1` bytes;
//! VIEW `ptr` readable for its length (and `owner` null or a live owner); OFFSET data readable
//! at `this + offset` for its length, through the provenance of `this`. No other reference to
//! the string may be in use during the call.

use core::cmp::{max, min};
use core::ptr::{self, NonNull};

use super::heap::StringHeap;
use super::owner::TStringOwner;
use super::repr::{
    Large, MAX_LEN, Repr, SMALL_CAPACITY, Small, TStringType, align16, pack_size, unpack_size,
};
use super::{TString, TStringError};

#[inline]
fn repr<H: StringHeap>(this: *const TString<'_, H>) -> *const Repr {
    // `TString` is `repr(C)` with the union first, so the pointers coincide.
    this.cast()
}

#[inline]
fn repr_mut<H: StringHeap>(this: *mut TString<'_, H>) -> *mut Repr {
    this.cast()
}

/// `TF_TString_Init`: the empty SMALL string (all 24 bytes zero). Owns nothing afterwards;
/// does not free what was there.
///
/// # Safety
/// See the [module](self) docs; `this` need not hold a valid string.
#[inline]
pub unsafe fn init<H: StringHeap>(this: *mut TString<'_, H>) {
    // SAFETY: `this` is valid for writes of 24 bytes (module contract).
    unsafe { ptr::write(repr_mut(this), Repr::EMPTY) }
}

/// `TF_TString_GetType`.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn string_type<H: StringHeap>(this: *const TString<'_, H>) -> TStringType {
    // SAFETY: byte 0 is always initialised: every constructor starts from zeroed bytes.
    TStringType::from_tag(unsafe { this.cast::<u8>().read() })
}

/// `TF_TString_GetSize`. A SMALL size byte above 22 (possible only in corrupt foreign bytes)
/// is clamped to 22 so that no read ever leaves the struct.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn len<H: StringHeap>(this: *const TString<'_, H>) -> usize {
    let r = repr(this);
    // SAFETY: each arm reads the union view its tag names; all are plain integers.
    unsafe {
        match string_type(this) {
            TStringType::Small => min(((*r).small.size >> 2) as usize, SMALL_CAPACITY),
            TStringType::Large => unpack_size((*r).large.size),
            TStringType::Offset => ((*r).offset.size.get() >> 2) as usize,
            TStringType::View => unpack_size((*r).view.size),
        }
    }
}

/// `TF_TString_GetCapacity`: 22 for SMALL, `cap` for LARGE, 0 for the read-only types.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn capacity<H: StringHeap>(this: *const TString<'_, H>) -> usize {
    // SAFETY: reads the LARGE view only when the tag says LARGE.
    unsafe {
        match string_type(this) {
            TStringType::Small => SMALL_CAPACITY,
            TStringType::Large => (*repr(this)).large.cap,
            TStringType::Offset | TStringType::View => 0,
        }
    }
}

/// `TF_TString_GetDataPointer`. OFFSET data is `this + offset`, with provenance from `this`.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn data_ptr<H: StringHeap>(this: *const TString<'_, H>) -> *const u8 {
    let r = repr(this);
    // SAFETY: each arm reads the union view its tag names.
    unsafe {
        match string_type(this) {
            TStringType::Small => (&raw const (*r).small.str).cast(),
            TStringType::Large => (*r).large.ptr,
            TStringType::Offset => this
                .cast::<u8>()
                .wrapping_add((*r).offset.offset.get() as usize),
            TStringType::View => (*r).view.ptr,
        }
    }
}

/// The string's bytes as a slice of unbounded lifetime.
///
/// # Safety
/// See the [module](self) docs; the caller picks a lifetime during which the string is
/// neither mutated nor dropped.
#[inline]
pub unsafe fn bytes<'s, H: StringHeap>(this: *const TString<'_, H>) -> &'s [u8] {
    // SAFETY: module contract: the data pointer is readable for `len` bytes.
    unsafe {
        let n = len(this);
        let p = data_ptr(this);
        if n == 0 || p.is_null() {
            &[]
        } else {
            core::slice::from_raw_parts(p, n)
        }
    }
}

/// Gives up whatever the string owns — frees a LARGE block, releases a VIEW's owner — without
/// touching the bytes that remain. The caller must overwrite or re-initialise the string.
///
/// # Safety
/// `old` must be a copy of a valid string's bytes that nothing else will release.
unsafe fn release_repr<H: StringHeap>(old: &Repr) {
    // SAFETY: every byte is initialised; the caller's contract is `release_words`'s.
    unsafe { release_words::<H>(old.raw[0] & 0b11, old.large.cap, old.large.ptr) }
}

/// [`release_repr`] given the words that say what a string owns: its tag (the low two bits of
/// byte 0) and its second and third words, which are a LARGE string's `cap` and `ptr` and a
/// VIEW's data pointer and owner. Frees a LARGE block of `cap + 1` bytes at `ptr`, or
/// releases the owner `ptr` of a VIEW that has one; SMALL and OFFSET strings own nothing.
///
/// # Safety
/// The words must come from a valid string whose block or owner reference nothing else will
/// release.
#[inline]
pub(crate) unsafe fn release_words<H: StringHeap>(tag: u8, cap: usize, ptr: *mut u8) {
    if tag == TStringType::Large as u8 {
        if let Some(p) = NonNull::new(ptr) {
            // SAFETY: a valid LARGE string owns its block of `cap + 1` bytes (caller).
            unsafe { H::release(p, cap + 1) }
        }
    } else if tag == TStringType::View as u8 && !ptr.is_null() {
        // SAFETY: a valid VIEW with an owner holds one reference to it (caller).
        unsafe { TStringOwner::release(ptr.cast_const().cast()) }
    }
}

/// `TF_TString_Dealloc`: frees a LARGE string and re-initialises it. A VIEW with an owner
/// releases its reference and becomes empty; other types are left as they are.
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn dealloc<H: StringHeap>(this: *mut TString<'_, H>) {
    // SAFETY: module contract; the copy is released once and `this` re-initialised after.
    unsafe {
        let old = ptr::read(repr(this));
        let owns = match string_type(this) {
            TStringType::Large => !old.large.ptr.is_null(),
            TStringType::View => !old.view.owner.is_null(),
            TStringType::Small | TStringType::Offset => false,
        };
        if owns {
            release_repr::<H>(&old);
            init(this);
        }
    }
}

/// Frees or releases whatever the string owns and leaves it empty (SMALL).
///
/// # Safety
/// See the [module](self) docs.
pub(crate) unsafe fn reset<H: StringHeap>(this: *mut TString<'_, H>) {
    // SAFETY: module contract.
    unsafe {
        let old = ptr::read(repr(this));
        release_repr::<H>(&old);
        init(this);
    }
}

fn alloc_error(bytes: usize) -> TStringError {
    TStringError::Alloc { bytes }
}

fn check_len(n: usize) -> Result<(), TStringError> {
    if n > MAX_LEN {
        Err(TStringError::TooLong {
            len: n,
            max: MAX_LEN,
        })
    } else {
        Ok(())
    }
}

/// `TF_TString_ResizeUninitialized`: sets the length to `new_size`, keeping the first
/// `min(old, new)` bytes, and returns the (NUL-terminated) data pointer. Bytes past the old
/// length are not initialised. Sizes up to 22 become SMALL (freeing a LARGE block); larger
/// sizes become LARGE with TensorFlow's capacity rule: grow to `align16(n + 1) - 1`, shrink to
/// `align16(cap / 2 + 1) - 1` when below half the capacity, otherwise keep the capacity.
///
/// # Safety
/// See the [module](self) docs. The returned pointer is valid for `new_size + 1` bytes until
/// the string is next mutated; bytes past the old length must be written before being read.
pub unsafe fn resize_uninit<H: StringHeap>(
    this: *mut TString<'_, H>,
    new_size: usize,
) -> Result<*mut u8, TStringError> {
    check_len(new_size)?;
    let r = repr_mut(this);
    // SAFETY: module contract; every union access matches the tag read just before it.
    unsafe {
        let curr_size = len(this);
        let copy_size = min(new_size, curr_size);
        let curr_type = string_type(this);
        let curr_ptr = data_ptr(this);

        if new_size <= SMALL_CAPACITY {
            if curr_type == TStringType::Small {
                (*r).small.size = (new_size << 2) as u8;
                (*r).small.str[new_size] = 0;
            } else {
                let mut small = Small {
                    size: (new_size << 2) as u8,
                    str: [0; SMALL_CAPACITY + 1],
                };
                if copy_size > 0 {
                    ptr::copy_nonoverlapping(curr_ptr, small.str.as_mut_ptr(), copy_size);
                }
                let old = ptr::read(r);
                release_repr::<H>(&old);
                ptr::write(r, Repr::EMPTY);
                (*r).small = small;
            }
            return Ok((&raw mut (*r).small.str).cast());
        }

        let curr_cap = capacity(this);
        let new_cap = if new_size < curr_size && new_size < curr_cap / 2 {
            align16(curr_cap / 2 + 1) - 1
        } else if new_size > curr_cap {
            align16(new_size + 1) - 1
        } else {
            curr_cap
        };

        let new_ptr = if curr_type == TStringType::Large {
            let old_ptr = (*r).large.ptr;
            match NonNull::new(old_ptr) {
                Some(p) if new_cap == curr_cap => p.as_ptr(),
                Some(p) => H::reallocate(p, curr_cap + 1, new_cap + 1)
                    .ok_or_else(|| alloc_error(new_cap + 1))?
                    .as_ptr(),
                None => H::allocate(new_cap + 1)
                    .ok_or_else(|| alloc_error(new_cap + 1))?
                    .as_ptr(),
            }
        } else {
            let p = H::allocate(new_cap + 1)
                .ok_or_else(|| alloc_error(new_cap + 1))?
                .as_ptr();
            if copy_size > 0 {
                ptr::copy_nonoverlapping(curr_ptr, p, copy_size);
            }
            let old = ptr::read(r);
            release_repr::<H>(&old);
            p
        };

        ptr::write(r, Repr::EMPTY);
        (*r).large = Large {
            size: pack_size(new_size, TStringType::Large),
            cap: new_cap,
            ptr: new_ptr,
        };
        new_ptr.add(new_size).write(0);
        Ok(new_ptr)
    }
}

/// `TF_TString_Resize`: like [`resize_uninit`], filling grown bytes with `fill`.
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn resize<H: StringHeap>(
    this: *mut TString<'_, H>,
    new_size: usize,
    fill: u8,
) -> Result<*mut u8, TStringError> {
    // SAFETY: module contract; the grown range lies inside the new length.
    unsafe {
        let curr_size = len(this);
        let p = resize_uninit(this, new_size)?;
        if new_size > curr_size {
            ptr::write_bytes(p.add(curr_size), fill, new_size - curr_size);
        }
        Ok(p)
    }
}

/// `TF_TString_GetMutableDataPointer`: SMALL and LARGE return their bytes; VIEW and OFFSET are
/// first converted to an owned copy (SMALL or LARGE).
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn mutable_data_ptr<H: StringHeap>(
    this: *mut TString<'_, H>,
) -> Result<*mut u8, TStringError> {
    // SAFETY: module contract.
    unsafe {
        match string_type(this) {
            TStringType::Small => Ok((&raw mut (*repr_mut(this)).small.str).cast()),
            TStringType::Large => Ok((*repr_mut(this)).large.ptr),
            TStringType::Offset | TStringType::View => resize_uninit(this, len(this)),
        }
    }
}

/// `TF_TString_Reserve`: makes room for `new_cap` bytes. No-op at or below 22, or for a LARGE
/// string that already has the room; otherwise the capacity becomes
/// `align16(max(new_cap, len) + 1) - 1` and a VIEW / OFFSET / SMALL string becomes LARGE.
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn reserve<H: StringHeap>(
    this: *mut TString<'_, H>,
    new_cap: usize,
) -> Result<(), TStringError> {
    let r = repr_mut(this);
    // SAFETY: module contract; union accesses follow the tag.
    unsafe {
        let curr_type = string_type(this);
        if new_cap <= SMALL_CAPACITY {
            return Ok(());
        }
        if curr_type == TStringType::Large && new_cap <= (*r).large.cap {
            return Ok(());
        }
        check_len(new_cap)?;
        let curr_size = len(this);
        let curr_ptr = data_ptr(this);
        let new_cap = align16(max(new_cap, curr_size) + 1) - 1;

        if curr_type == TStringType::Large {
            if let Some(p) = NonNull::new((*r).large.ptr) {
                let p = H::reallocate(p, (*r).large.cap + 1, new_cap + 1)
                    .ok_or_else(|| alloc_error(new_cap + 1))?;
                (*r).large.ptr = p.as_ptr();
                (*r).large.cap = new_cap;
                return Ok(());
            }
        }
        let p = H::allocate(new_cap + 1)
            .ok_or_else(|| alloc_error(new_cap + 1))?
            .as_ptr();
        if curr_size > 0 {
            ptr::copy_nonoverlapping(curr_ptr, p, curr_size);
        }
        p.add(curr_size).write(0);
        let old = ptr::read(r);
        release_repr::<H>(&old);
        ptr::write(r, Repr::EMPTY);
        (*r).large = Large {
            size: pack_size(curr_size, TStringType::Large),
            cap: new_cap,
            ptr: p,
        };
        Ok(())
    }
}

/// `TF_TString_ReserveAmortized`: reserves at least `new_cap`, and at least twice the current
/// capacity when growing, so that repeated appends cost amortised O(1).
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn reserve_amortized<H: StringHeap>(
    this: *mut TString<'_, H>,
    new_cap: usize,
) -> Result<(), TStringError> {
    // SAFETY: module contract.
    unsafe {
        let curr_cap = capacity(this);
        if new_cap > curr_cap {
            reserve(this, max(new_cap, curr_cap.saturating_mul(2)))?;
        }
        Ok(())
    }
}

/// `TF_TString_Copy`: replaces the contents with `size` bytes from `src` (SMALL or LARGE).
///
/// # Safety
/// See the [module](self) docs; `src` must be readable for `size` bytes and stay valid while
/// the string is resized (it must not point into the string's own storage).
pub unsafe fn copy<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const u8,
    size: usize,
) -> Result<(), TStringError> {
    // SAFETY: module contract; `ptr::copy` tolerates a `src` that overlaps a SMALL string.
    unsafe {
        let p = resize_uninit(this, size)?;
        if size > 0 {
            ptr::copy(src, p, size);
        }
        Ok(())
    }
}

/// Copies `size` bytes from `src`, keeping a LARGE block whenever it already has the room,
/// even for a string short enough to be SMALL. Unlike [`copy`] it never shrinks or frees,
/// so a string reused across batches stops allocating once it has seen its longest value.
/// Otherwise it behaves as [`copy`].
///
/// # Safety
/// As [`copy`].
pub unsafe fn copy_reusing<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const u8,
    size: usize,
) -> Result<(), TStringError> {
    let r = repr_mut(this);
    // SAFETY: module contract; the LARGE block holds `cap + 1 > size` bytes.
    unsafe {
        if string_type(this) == TStringType::Large
            && !(*r).large.ptr.is_null()
            && size <= (*r).large.cap
        {
            let p = (*r).large.ptr;
            if size > 0 {
                ptr::copy(src, p, size);
            }
            p.add(size).write(0);
            (*r).large.size = pack_size(size, TStringType::Large);
            return Ok(());
        }
        copy(this, src, size)
    }
}

/// `TF_TString_AssignView`: releases what the string owned and makes it a plain VIEW of
/// `size` bytes at `src` (not copied; not NUL-terminated).
///
/// # Safety
/// See the [module](self) docs; `src` must be readable for `size` bytes for as long as the
/// string is used.
pub unsafe fn assign_view<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const u8,
    size: usize,
) -> Result<(), TStringError> {
    // SAFETY: module contract; a null owner makes a plain view.
    unsafe { set_view(this, src, size, ptr::null()) }
}

/// Releases what the string owned and makes it a VIEW with `owner` (which the caller has
/// already retained, or null).
///
/// # Safety
/// As [`assign_view`]; a non-null `owner` carries one reference for the string.
unsafe fn set_view<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const u8,
    size: usize,
    owner: *const TStringOwner,
) -> Result<(), TStringError> {
    check_len(size)?;
    // SAFETY: module contract.
    unsafe {
        reset(this);
        let r = repr_mut(this);
        (*r).view.size = pack_size(size, TStringType::View);
        (*r).view.ptr = src;
        (*r).view.owner = owner;
    }
    Ok(())
}

/// A VIEW that shares `owner`'s reference: retains it, so the caller keeps its own reference.
///
/// # Safety
/// See the [module](self) docs; `owner` must be live and keep `src` readable for `size` bytes
/// while any reference to it is held.
pub unsafe fn assign_owned_view<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const u8,
    size: usize,
    owner: NonNull<TStringOwner>,
) -> Result<(), TStringError> {
    check_len(size)?;
    // SAFETY: module contract; retain before releasing the old value in case it shares the
    // owner, so the count never touches zero in between.
    unsafe {
        owner.as_ref().retain();
        set_view(this, src, size, owner.as_ptr())
    }
}

/// `TF_TString_AppendN`: appends `size` bytes from `src`, growing with
/// [`reserve_amortized`].
///
/// # Safety
/// See the [module](self) docs; `src` must be readable for `size` bytes and must not point
/// into the string's own storage (see [`append`] for that case).
pub unsafe fn append_n<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const u8,
    size: usize,
) -> Result<(), TStringError> {
    if size == 0 {
        return Ok(());
    }
    // SAFETY: module contract.
    unsafe {
        let dst_size = len(this);
        let new_size = dst_size.checked_add(size).ok_or(TStringError::TooLong {
            len: usize::MAX,
            max: MAX_LEN,
        })?;
        check_len(new_size)?;
        reserve_amortized(this, new_size)?;
        let p = resize_uninit(this, new_size)?;
        ptr::copy_nonoverlapping(src, p.add(dst_size), size);
    }
    Ok(())
}

/// `TF_TString_Append`: appends `src`'s bytes. Unlike TensorFlow, appending a string to
/// itself is well defined (the bytes are doubled).
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn append<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const TString<'_, H>,
) -> Result<(), TStringError> {
    // SAFETY: module contract; for self-append the copy runs within the resized buffer.
    unsafe {
        if ptr::eq(this.cast::<u8>(), src.cast::<u8>()) {
            let n = len(this);
            if n == 0 {
                return Ok(());
            }
            let doubled = n.checked_mul(2).ok_or(TStringError::TooLong {
                len: usize::MAX,
                max: MAX_LEN,
            })?;
            check_len(doubled)?;
            reserve_amortized(this, doubled)?;
            let p = resize_uninit(this, doubled)?;
            ptr::copy_nonoverlapping(p, p.add(n), n);
            return Ok(());
        }
        append_n(this, data_ptr(src), len(src))
    }
}

/// `TF_TString_Assign`: SMALL and VIEW are copied as they are (a VIEW's owner is retained),
/// LARGE is deep-copied, OFFSET becomes a VIEW of its bytes. On allocation failure the
/// destination is left empty.
///
/// # Safety
/// See the [module](self) docs; for an OFFSET or plain VIEW source the destination must not
/// outlive the source's bytes.
pub unsafe fn assign<H: StringHeap>(
    this: *mut TString<'_, H>,
    src: *const TString<'_, H>,
) -> Result<(), TStringError> {
    if ptr::eq(this.cast::<u8>(), src.cast::<u8>()) {
        return Ok(());
    }
    // SAFETY: module contract.
    unsafe {
        match string_type(src) {
            TStringType::Small => {
                reset(this);
                ptr::write(repr_mut(this), ptr::read(repr(src)));
                Ok(())
            }
            TStringType::View => {
                let v = (*repr(src)).view;
                match NonNull::new(v.owner.cast_mut()) {
                    Some(owner) => assign_owned_view(this, v.ptr, unpack_size(v.size), owner),
                    None => assign_view(this, v.ptr, unpack_size(v.size)),
                }
            }
            TStringType::Large => {
                reset(this);
                copy(this, data_ptr(src), len(src))
            }
            TStringType::Offset => assign_view(this, data_ptr(src), len(src)),
        }
    }
}

/// `TF_TString_Move`: SMALL, VIEW and LARGE move to `this` (a LARGE or owned VIEW source is
/// reset to empty, so the ownership is transferred, not shared); OFFSET becomes a VIEW.
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn move_from<H: StringHeap>(this: *mut TString<'_, H>, src: *mut TString<'_, H>) {
    if ptr::eq(this.cast::<u8>(), src.cast::<u8>()) {
        return;
    }
    // SAFETY: module contract; ownership moves with the bytes and the source is re-initialised.
    unsafe {
        match string_type(src) {
            TStringType::Offset => {
                let (p, n) = (data_ptr(src), len(src));
                // Cannot fail: `n` came from a valid string, so it is within MAX_LEN.
                let _ = assign_view(this, p, n);
            }
            ty => {
                reset(this);
                ptr::write(repr_mut(this), ptr::read(repr(src)));
                let owned = match ty {
                    TStringType::Large => true,
                    TStringType::View => !(*repr(src)).view.owner.is_null(),
                    _ => false,
                };
                if owned {
                    init(src);
                }
            }
        }
    }
}
