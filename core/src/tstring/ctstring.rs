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
    Large, MAX_LEN, Repr, SMALL_CAPACITY, SMALL_DATA, Small, TStringType, View, align16, pack_size,
    unpack_size,
};
use super::{TString, TStringError};

/// The string's 24 bytes, copied out.
///
/// # Safety
/// `this` must be readable and aligned for 24 bytes that hold a string (the module contract).
#[inline(always)]
unsafe fn load<H: StringHeap>(this: *const TString<'_, H>) -> Repr {
    // SAFETY: `TString` is `repr(C)` with the union first, so `this` points at the union,
    // readable and aligned (caller).
    unsafe { ptr::read(this.cast::<Repr>()) }
}

/// Overwrites the string's 24 bytes, without releasing what they held.
///
/// # Safety
/// `this` must be writable and aligned for 24 bytes (the module contract).
#[inline(always)]
unsafe fn store<H: StringHeap>(this: *mut TString<'_, H>, r: Repr) {
    // SAFETY: `this` points at the union (as in `load`), writable and aligned (caller).
    unsafe { ptr::write(this.cast::<Repr>(), r) }
}

/// A SMALL string's data pointer, with the provenance of `this`.
#[inline(always)]
fn small_data<H: StringHeap>(this: *mut TString<'_, H>) -> *mut u8 {
    this.cast::<u8>().wrapping_add(SMALL_DATA)
}

/// `TF_TString_Init`: the empty SMALL string (all 24 bytes zero). Owns nothing afterwards;
/// does not free what was there.
///
/// # Safety
/// See the [module](self) docs; `this` need not hold a valid string.
#[inline]
pub unsafe fn init<H: StringHeap>(this: *mut TString<'_, H>) {
    // SAFETY: `this` is writable for 24 aligned bytes (module contract).
    unsafe { store(this, Repr::EMPTY) }
}

/// `TF_TString_GetType`.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn string_type<H: StringHeap>(this: *const TString<'_, H>) -> TStringType {
    // SAFETY: `this` is readable (module contract) and byte 0 is initialised: every
    // constructor starts from zeroed bytes.
    TStringType::from_tag(unsafe { this.cast::<u8>().read() })
}

/// `TF_TString_GetSize`. A SMALL size byte above 22 (possible only in corrupt foreign bytes)
/// is clamped to 22 so that no read ever leaves the struct.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn len<H: StringHeap>(this: *const TString<'_, H>) -> usize {
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    unsafe { load(this) }.len()
}

/// `TF_TString_GetCapacity`: 22 for SMALL, `cap` for LARGE, 0 for the read-only types.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn capacity<H: StringHeap>(this: *const TString<'_, H>) -> usize {
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    unsafe { load(this) }.capacity()
}

/// `TF_TString_GetDataPointer`. OFFSET data is `this + offset`, with provenance from `this`.
///
/// # Safety
/// See the [module](self) docs.
#[inline]
pub unsafe fn data_ptr<H: StringHeap>(this: *const TString<'_, H>) -> *const u8 {
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let r = unsafe { load(this) };
    match r.tag() {
        TStringType::Small => small_data(this.cast_mut()).cast_const(),
        TStringType::Large => r.as_large().ptr.cast_const(),
        TStringType::Offset => this
            .cast::<u8>()
            .wrapping_add(r.as_offset().offset.get() as usize),
        TStringType::View => r.as_view().ptr,
    }
}

/// The string's bytes as a slice of unbounded lifetime.
///
/// # Safety
/// See the [module](self) docs; the caller picks a lifetime during which the string is
/// neither mutated nor dropped.
#[inline]
pub unsafe fn bytes<'s, H: StringHeap>(this: *const TString<'_, H>) -> &'s [u8] {
    // SAFETY: `this` is a valid string (module contract).
    let n = unsafe { len(this) };
    // SAFETY: as above.
    let p = unsafe { data_ptr(this) };
    if n == 0 || p.is_null() {
        &[]
    } else {
        // SAFETY: a valid string's data pointer is readable for its length (module contract),
        // and the caller keeps it so for `'s`.
        unsafe { core::slice::from_raw_parts(p, n) }
    }
}

/// Gives up whatever the string owns — frees a LARGE block, releases a VIEW's owner — without
/// touching the bytes that remain. The caller must overwrite or re-initialise the string.
///
/// # Safety
/// `old` must be a copy of a valid string's bytes that nothing else will release.
unsafe fn release_repr<H: StringHeap>(old: &Repr) {
    let words = old.as_large();
    // SAFETY: the tag and the LARGE words of a valid string that nothing else releases
    // (caller), which is `release_words`'s contract.
    unsafe { release_words::<H>(old.as_bytes()[0] & 0b11, words.cap, words.ptr) }
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
            // SAFETY: a valid LARGE string owns its block of `cap + 1` bytes from `H`, and
            // nothing else releases it (caller).
            unsafe { H::release(p, cap + 1) }
        }
    } else if tag == TStringType::View as u8 && !ptr.is_null() {
        // SAFETY: a valid VIEW with an owner holds one reference to a live owner, and nothing
        // else releases it (caller).
        unsafe { TStringOwner::release(ptr.cast_const().cast()) }
    }
}

/// `TF_TString_Dealloc`: frees a LARGE string and re-initialises it. A VIEW with an owner
/// releases its reference and becomes empty; other types are left as they are.
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn dealloc<H: StringHeap>(this: *mut TString<'_, H>) {
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let old = unsafe { load(this) };
    let owns = match old.tag() {
        TStringType::Large => !old.as_large().ptr.is_null(),
        TStringType::View => !old.as_view().owner.is_null(),
        TStringType::Small | TStringType::Offset => false,
    };
    if owns {
        // SAFETY: `old` is a valid string's bytes (module contract) and `this` is
        // re-initialised next, so nothing releases them again.
        unsafe { release_repr::<H>(&old) };
        // SAFETY: `this` is writable (module contract).
        unsafe { init(this) };
    }
}

/// Frees or releases whatever the string owns and leaves it empty (SMALL).
///
/// # Safety
/// See the [module](self) docs.
pub(crate) unsafe fn reset<H: StringHeap>(this: *mut TString<'_, H>) {
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let old = unsafe { load(this) };
    // SAFETY: `old` is a valid string's bytes (module contract) and `this` is re-initialised
    // next, so nothing releases them again.
    unsafe { release_repr::<H>(&old) };
    // SAFETY: `this` is writable (module contract).
    unsafe { init(this) };
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
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let cur = unsafe { load(this) };
    let curr_size = cur.len();
    let copy_size = min(new_size, curr_size);
    let curr_type = cur.tag();
    // SAFETY: `this` is a valid string (module contract).
    let curr_ptr = unsafe { data_ptr(this) };

    if new_size <= SMALL_CAPACITY {
        let mut r = cur;
        if curr_type == TStringType::Small {
            let mut small = *cur.as_small();
            small.size = (new_size << 2) as u8;
            small.str[new_size] = 0;
            r.set_small(small);
        } else {
            let mut small = Small {
                size: (new_size << 2) as u8,
                str: [0; SMALL_CAPACITY + 1],
            };
            if copy_size > 0 {
                // SAFETY: the old data is readable for `curr_size >= copy_size` bytes (module
                // contract); `small` is a local with room for 22 >= `copy_size`.
                unsafe { ptr::copy_nonoverlapping(curr_ptr, small.str.as_mut_ptr(), copy_size) };
            }
            // SAFETY: `cur` is a valid string's bytes (module contract) and `this` is
            // overwritten next, so nothing releases them again.
            unsafe { release_repr::<H>(&cur) };
            r = Repr::EMPTY;
            r.set_small(small);
        }
        // SAFETY: `this` is writable for 24 aligned bytes (module contract).
        unsafe { store(this, r) };
        return Ok(small_data(this));
    }

    let curr_cap = cur.capacity();
    let new_cap = if new_size < curr_size && new_size < curr_cap / 2 {
        align16(curr_cap / 2 + 1) - 1
    } else if new_size > curr_cap {
        align16(new_size + 1) - 1
    } else {
        curr_cap
    };

    let new_ptr = if curr_type == TStringType::Large {
        match NonNull::new(cur.as_large().ptr) {
            Some(p) if new_cap == curr_cap => p.as_ptr(),
            Some(p) => {
                // SAFETY: `p` is this LARGE string's block of `curr_cap + 1` bytes from `H`
                // (module contract); on failure it is untouched and still the string's.
                unsafe { H::reallocate(p, curr_cap + 1, new_cap + 1) }
                    .ok_or_else(|| alloc_error(new_cap + 1))?
                    .as_ptr()
            }
            None => H::allocate(new_cap + 1)
                .ok_or_else(|| alloc_error(new_cap + 1))?
                .as_ptr(),
        }
    } else {
        let p = H::allocate(new_cap + 1)
            .ok_or_else(|| alloc_error(new_cap + 1))?
            .as_ptr();
        if copy_size > 0 {
            // SAFETY: the old data is readable for `copy_size` bytes (module contract); `p` is
            // a fresh block of `new_cap + 1 > copy_size` bytes, so they cannot overlap.
            unsafe { ptr::copy_nonoverlapping(curr_ptr, p, copy_size) };
        }
        // SAFETY: `cur` is a valid string's bytes (module contract) and `this` is overwritten
        // next, so nothing releases them again.
        unsafe { release_repr::<H>(&cur) };
        p
    };

    let mut r = Repr::EMPTY;
    r.set_large(Large {
        size: pack_size(new_size, TStringType::Large),
        cap: new_cap,
        ptr: new_ptr,
    });
    // SAFETY: `this` is writable for 24 aligned bytes (module contract).
    unsafe { store(this, r) };
    // SAFETY: the block holds `new_cap + 1 > new_size` bytes.
    let end = unsafe { new_ptr.add(new_size) };
    // SAFETY: as above: `end` is inside the block, which the string owns.
    unsafe { end.write(0) };
    Ok(new_ptr)
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
    // SAFETY: `this` is a valid string (module contract).
    let curr_size = unsafe { len(this) };
    // SAFETY: as above.
    let p = unsafe { resize_uninit(this, new_size) }?;
    if new_size > curr_size {
        // SAFETY: `p` is valid for `new_size + 1 > curr_size` bytes (`resize_uninit`).
        let grown = unsafe { p.add(curr_size) };
        // SAFETY: the grown range `[curr_size, new_size)` lies inside those bytes.
        unsafe { ptr::write_bytes(grown, fill, new_size - curr_size) };
    }
    Ok(p)
}

/// `TF_TString_GetMutableDataPointer`: SMALL and LARGE return their bytes; VIEW and OFFSET are
/// first converted to an owned copy (SMALL or LARGE).
///
/// # Safety
/// See the [module](self) docs.
pub unsafe fn mutable_data_ptr<H: StringHeap>(
    this: *mut TString<'_, H>,
) -> Result<*mut u8, TStringError> {
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let cur = unsafe { load(this) };
    match cur.tag() {
        TStringType::Small => Ok(small_data(this)),
        TStringType::Large => Ok(cur.as_large().ptr),
        // SAFETY: `this` is a valid string (module contract).
        TStringType::Offset | TStringType::View => unsafe { resize_uninit(this, cur.len()) },
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
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let cur = unsafe { load(this) };
    let curr_type = cur.tag();
    if new_cap <= SMALL_CAPACITY {
        return Ok(());
    }
    let large = *cur.as_large();
    if curr_type == TStringType::Large && new_cap <= large.cap {
        return Ok(());
    }
    check_len(new_cap)?;
    let curr_size = cur.len();
    // SAFETY: `this` is a valid string (module contract).
    let curr_ptr = unsafe { data_ptr(this) };
    let new_cap = align16(max(new_cap, curr_size) + 1) - 1;

    if curr_type == TStringType::Large {
        if let Some(p) = NonNull::new(large.ptr) {
            // SAFETY: `p` is this LARGE string's block of `cap + 1` bytes from `H` (module
            // contract); on failure it is untouched and still the string's.
            let p = unsafe { H::reallocate(p, large.cap + 1, new_cap + 1) }
                .ok_or_else(|| alloc_error(new_cap + 1))?;
            let mut r = cur;
            r.set_large(Large {
                cap: new_cap,
                ptr: p.as_ptr(),
                ..large
            });
            // SAFETY: `this` is writable for 24 aligned bytes (module contract).
            unsafe { store(this, r) };
            return Ok(());
        }
    }
    let p = H::allocate(new_cap + 1)
        .ok_or_else(|| alloc_error(new_cap + 1))?
        .as_ptr();
    if curr_size > 0 {
        // SAFETY: the old data is readable for `curr_size` bytes (module contract); `p` is a
        // fresh block of `new_cap + 1 > curr_size` bytes, so they cannot overlap.
        unsafe { ptr::copy_nonoverlapping(curr_ptr, p, curr_size) };
    }
    // SAFETY: the block holds `new_cap + 1 > curr_size` bytes.
    let end = unsafe { p.add(curr_size) };
    // SAFETY: as above: `end` is inside the fresh block.
    unsafe { end.write(0) };
    // SAFETY: `cur` is a valid string's bytes (module contract) and `this` is overwritten
    // next, so nothing releases them again.
    unsafe { release_repr::<H>(&cur) };
    let mut r = Repr::EMPTY;
    r.set_large(Large {
        size: pack_size(curr_size, TStringType::Large),
        cap: new_cap,
        ptr: p,
    });
    // SAFETY: `this` is writable for 24 aligned bytes (module contract).
    unsafe { store(this, r) };
    Ok(())
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
    // SAFETY: `this` is a valid string (module contract).
    let curr_cap = unsafe { capacity(this) };
    if new_cap > curr_cap {
        // SAFETY: as above.
        unsafe { reserve(this, max(new_cap, curr_cap.saturating_mul(2))) }?;
    }
    Ok(())
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
    // SAFETY: `this` is a valid string (module contract).
    let p = unsafe { resize_uninit(this, size) }?;
    if size > 0 {
        // SAFETY: `src` is readable for `size` bytes (caller) and `p` writable for `size + 1`;
        // `ptr::copy` tolerates a `src` that overlaps a SMALL string.
        unsafe { ptr::copy(src, p, size) };
    }
    Ok(())
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
    // SAFETY: `this` is readable for 24 aligned bytes (module contract).
    let cur = unsafe { load(this) };
    let large = *cur.as_large();
    if cur.tag() == TStringType::Large && !large.ptr.is_null() && size <= large.cap {
        if size > 0 {
            // SAFETY: `src` is readable for `size` bytes (caller); the block holds
            // `cap + 1 > size` bytes.
            unsafe { ptr::copy(src, large.ptr, size) };
        }
        // SAFETY: the block holds `cap + 1 > size` bytes.
        let end = unsafe { large.ptr.add(size) };
        // SAFETY: as above: `end` is inside the block, which the string owns.
        unsafe { end.write(0) };
        let mut r = cur;
        r.set_large(Large {
            size: pack_size(size, TStringType::Large),
            ..large
        });
        // SAFETY: `this` is writable for 24 aligned bytes (module contract).
        unsafe { store(this, r) };
        return Ok(());
    }
    // SAFETY: this function's contract is `copy`'s.
    unsafe { copy(this, src, size) }
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
    // SAFETY: `this` is a valid string (module contract), `src` readable for `size` bytes
    // while it is used (caller); a null owner makes a plain view.
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
    // SAFETY: `this` is a valid string (module contract).
    unsafe { reset(this) };
    let mut r = Repr::EMPTY;
    r.set_view(View {
        size: pack_size(size, TStringType::View),
        ptr: src,
        owner,
    });
    // SAFETY: `this` is writable for 24 aligned bytes (module contract).
    unsafe { store(this, r) };
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
    // SAFETY: `owner` is live (caller).
    let live = unsafe { owner.as_ref() };
    // SAFETY: retaining a live owner; done before the old value is released in case it
    // shares the owner, so the count never touches zero in between.
    unsafe { live.retain() };
    // SAFETY: `this` is a valid string (module contract); the reference just retained is the
    // string's, and `owner` keeps `src` readable (caller).
    unsafe { set_view(this, src, size, owner.as_ptr()) }
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
    // SAFETY: `this` is a valid string (module contract).
    let dst_size = unsafe { len(this) };
    let new_size = dst_size.checked_add(size).ok_or(TStringError::TooLong {
        len: usize::MAX,
        max: MAX_LEN,
    })?;
    check_len(new_size)?;
    // SAFETY: as above.
    unsafe { reserve_amortized(this, new_size) }?;
    // SAFETY: as above.
    let p = unsafe { resize_uninit(this, new_size) }?;
    // SAFETY: `p` is valid for `new_size + 1 > dst_size` bytes (`resize_uninit`).
    let dst = unsafe { p.add(dst_size) };
    // SAFETY: `src` is readable for `size` bytes outside the string (caller); `dst` has
    // `new_size - dst_size = size` bytes of room.
    unsafe { ptr::copy_nonoverlapping(src, dst, size) };
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
    if ptr::eq(this.cast::<u8>(), src.cast::<u8>()) {
        // SAFETY: `this` is a valid string (module contract).
        let n = unsafe { len(this) };
        if n == 0 {
            return Ok(());
        }
        let doubled = n.checked_mul(2).ok_or(TStringError::TooLong {
            len: usize::MAX,
            max: MAX_LEN,
        })?;
        check_len(doubled)?;
        // SAFETY: as above.
        unsafe { reserve_amortized(this, doubled) }?;
        // SAFETY: as above.
        let p = unsafe { resize_uninit(this, doubled) }?;
        // SAFETY: `p` is valid for `doubled + 1 > n` bytes (`resize_uninit`).
        let dst = unsafe { p.add(n) };
        // SAFETY: the first `n` bytes are the string's own (kept by the resize), the next `n`
        // the new room: disjoint halves of one block.
        unsafe { ptr::copy_nonoverlapping(p, dst, n) };
        return Ok(());
    }
    // SAFETY: `src` is a valid string (module contract).
    let p = unsafe { data_ptr(src) };
    // SAFETY: as above.
    let n = unsafe { len(src) };
    // SAFETY: `this` is a valid string, and `src` another one whose data is readable for `n`
    // bytes (module contract).
    unsafe { append_n(this, p, n) }
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
    // SAFETY: `src` is readable for 24 aligned bytes (module contract).
    let s = unsafe { load(src) };
    match s.tag() {
        TStringType::Small => {
            // SAFETY: `this` is a valid string (module contract).
            unsafe { reset(this) };
            // SAFETY: `this` is writable; a SMALL string owns nothing, so copying its bytes
            // is a copy of the string.
            unsafe { store(this, s) };
            Ok(())
        }
        TStringType::View => {
            let v = *s.as_view();
            match NonNull::new(v.owner.cast_mut()) {
                // SAFETY: `this` is a valid string (module contract); `src`'s owner is live
                // and keeps its bytes readable while referenced.
                Some(owner) => unsafe {
                    assign_owned_view(this, v.ptr, unpack_size(v.size), owner)
                },
                // SAFETY: `this` is a valid string and `src`'s bytes outlive it (caller).
                None => unsafe { assign_view(this, v.ptr, unpack_size(v.size)) },
            }
        }
        TStringType::Large => {
            // SAFETY: `this` is a valid string (module contract).
            unsafe { reset(this) };
            // SAFETY: `src` is a valid string (module contract).
            let p = unsafe { data_ptr(src) };
            // SAFETY: `src`'s block is readable for its length and is not `this`'s storage.
            unsafe { copy(this, p, s.len()) }
        }
        TStringType::Offset => {
            // SAFETY: `src` is a valid string (module contract).
            let p = unsafe { data_ptr(src) };
            // SAFETY: `this` is a valid string and `src`'s bytes outlive it (caller).
            unsafe { assign_view(this, p, s.len()) }
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
    // SAFETY: `src` is readable for 24 aligned bytes (module contract).
    let s = unsafe { load(src) };
    match s.tag() {
        TStringType::Offset => {
            // SAFETY: `src` is a valid string (module contract).
            let p = unsafe { data_ptr(src) };
            // Cannot fail: the length came from a valid string, so it is within MAX_LEN.
            // SAFETY: `this` is a valid string and `src`'s bytes outlive it (caller).
            let _ = unsafe { assign_view(this, p, s.len()) };
        }
        ty => {
            // SAFETY: `this` is a valid string (module contract).
            unsafe { reset(this) };
            // SAFETY: `this` is writable; what `src` owns moves with its bytes, and `src` is
            // re-initialised below when it owned something, so nothing is released twice.
            unsafe { store(this, s) };
            let owned = match ty {
                TStringType::Large => true,
                TStringType::View => !s.as_view().owner.is_null(),
                _ => false,
            };
            if owned {
                // SAFETY: `src` is writable (module contract).
                unsafe { init(src) };
            }
        }
    }
}
