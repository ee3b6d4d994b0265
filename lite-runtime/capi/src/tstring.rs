//! TensorFlow's C string API (`ctstring.h`) on the same 24-byte struct, function for function:
//! `TF_TString_X` is `tessera_tstring_x` with the same arguments, result and semantics. Where
//! TensorFlow would write through a failed `malloc`, these leave the string unchanged and return
//! NULL (for functions returning a pointer). Null string pointers are ignored.

use core::ffi::{c_char, c_void};
use core::mem::{align_of, offset_of, size_of};

use tessera_alloc::CHeap;
use tessera_core::tstring::{TString, TStringOwner, TStringType, ctstring};

/// The string as Rust sees it.
///
/// cbindgen:ignore
type Rs = TString<'static, CHeap>;

/// `TF_TString_Type`, with TensorFlow's names under the `TESSERA_` prefix.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum TesseraTStringType {
    /// Up to 22 bytes inline.
    TESSERA_TSTR_SMALL = 0,
    /// `malloc`ed bytes owned by the string.
    TESSERA_TSTR_LARGE = 1,
    /// Bytes at a little-endian offset from the string itself.
    TESSERA_TSTR_OFFSET = 2,
    /// Borrowed bytes (optionally with a ref-counted owner).
    TESSERA_TSTR_VIEW = 3,
}

/// `TF_TString_Large`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TesseraTStringLarge {
    /// `(len << 2) | 1` on little-endian hosts.
    pub size: usize,
    /// Capacity, excluding the NUL.
    pub cap: usize,
    /// `malloc`ed, `cap + 1` bytes.
    pub ptr: *mut c_char,
}

/// `TF_TString_Offset`; all fields little-endian on every host.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TesseraTStringOffset {
    /// `(len << 2) | 2`, little-endian.
    pub size: u32,
    /// Byte offset of the data from this struct, little-endian.
    pub offset: u32,
    /// Unused by readers.
    pub count: u32,
}

/// The ref-counted owner of a VIEW's bytes.
#[repr(C)]
pub struct TesseraTStringOwner {
    /// Adds a reference to `obj`.
    pub ref_fn: Option<unsafe extern "C" fn(obj: *mut c_void)>,
    /// Drops a reference to `obj`.
    pub unref_fn: Option<unsafe extern "C" fn(obj: *mut c_void)>,
    /// The counted object.
    pub obj: *mut c_void,
}

/// `TF_TString_View`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TesseraTStringView {
    /// `(len << 2) | 3` on little-endian hosts.
    pub size: usize,
    /// The viewed bytes (not NUL-terminated).
    pub ptr: *const c_char,
    /// Null for a plain view.
    pub owner: *const TesseraTStringOwner,
}

/// `TF_TString_Small`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TesseraTStringSmall {
    /// `len << 2`.
    pub size: u8,
    /// The bytes and a NUL.
    pub str: [c_char; 23],
}

/// `TF_TString_Raw`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TesseraTStringRaw {
    /// All 24 bytes.
    pub raw: [u8; 24],
}

/// The union inside `TF_TString`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union TesseraTStringUnion {
    /// SMALL.
    pub smll: TesseraTStringSmall,
    /// LARGE.
    pub large: TesseraTStringLarge,
    /// OFFSET.
    pub offset: TesseraTStringOffset,
    /// VIEW.
    pub view: TesseraTStringView,
    /// The raw bytes.
    pub raw: TesseraTStringRaw,
}

/// `TF_TString`: 24 bytes, the same layout as TensorFlow's on every target.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TesseraTString {
    /// The representations.
    pub u: TesseraTStringUnion,
}

// The C view and the Rust view are the same bytes.
const _: () = {
    assert!(size_of::<TesseraTString>() == size_of::<Rs>());
    assert!(align_of::<TesseraTString>() == align_of::<Rs>());
    assert!(size_of::<TesseraTString>() == 24);
    assert!(size_of::<TesseraTStringOwner>() == size_of::<TStringOwner>());
    assert!(offset_of!(TesseraTStringOwner, unref_fn) == offset_of!(TStringOwner, unref_fn));
    assert!(offset_of!(TesseraTStringOwner, obj) == offset_of!(TStringOwner, obj));
    assert!(offset_of!(TesseraTStringLarge, cap) == size_of::<usize>());
    assert!(offset_of!(TesseraTStringLarge, ptr) == 2 * size_of::<usize>());
    assert!(offset_of!(TesseraTStringView, ptr) == size_of::<usize>());
    assert!(offset_of!(TesseraTStringView, owner) == 2 * size_of::<usize>());
    assert!(offset_of!(TesseraTStringOffset, offset) == 4);
    assert!(offset_of!(TesseraTStringOffset, count) == 8);
    assert!(offset_of!(TesseraTStringSmall, str) == 1);
};

#[inline]
fn rs(p: *const TesseraTString) -> *const Rs {
    p.cast()
}

#[inline]
fn rs_mut(p: *mut TesseraTString) -> *mut Rs {
    p.cast()
}

/// `TF_TString_Init`: makes `str` the empty SMALL string (24 zero bytes).
///
/// # Safety
/// `str` is null or valid for writes of 24 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_init(str: *mut TesseraTString) {
    if !str.is_null() {
        // SAFETY: `str` is non-null (checked) and writable for 24 aligned bytes (caller).
        unsafe { ctstring::init(rs_mut(str)) }
    }
}

/// `TF_TString_Dealloc`: frees a LARGE string (and releases an owned VIEW), leaving it empty.
///
/// # Safety
/// `str` is null or a valid string whose LARGE block came from `malloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_dealloc(str: *mut TesseraTString) {
    if !str.is_null() {
        // SAFETY: `str` is non-null (checked) and a valid string whose LARGE block came from
        // `malloc`, which is `CHeap` (caller).
        unsafe { ctstring::dealloc(rs_mut(str)) }
    }
}

/// `TF_TString_GetSize`. 0 for null.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_get_size(str: *const TesseraTString) -> usize {
    if str.is_null() {
        return 0;
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    unsafe { ctstring::len(rs(str)) }
}

/// `TF_TString_GetCapacity`. 0 for null.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_get_capacity(str: *const TesseraTString) -> usize {
    if str.is_null() {
        return 0;
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    unsafe { ctstring::capacity(rs(str)) }
}

/// `TF_TString_GetType`. SMALL for null.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_get_type(
    str: *const TesseraTString,
) -> TesseraTStringType {
    if str.is_null() {
        return TesseraTStringType::TESSERA_TSTR_SMALL;
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    match unsafe { ctstring::string_type(rs(str)) } {
        TStringType::Small => TesseraTStringType::TESSERA_TSTR_SMALL,
        TStringType::Large => TesseraTStringType::TESSERA_TSTR_LARGE,
        TStringType::Offset => TesseraTStringType::TESSERA_TSTR_OFFSET,
        TStringType::View => TesseraTStringType::TESSERA_TSTR_VIEW,
    }
}

/// `TF_TString_GetDataPointer`. NULL for null.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_get_data_pointer(
    str: *const TesseraTString,
) -> *const c_char {
    if str.is_null() {
        return core::ptr::null();
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    unsafe { ctstring::data_ptr(rs(str)).cast() }
}

/// `TF_TString_GetMutableDataPointer`: converts a VIEW or OFFSET to an owned copy first. NULL
/// if that copy could not be allocated.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_get_mutable_data_pointer(
    str: *mut TesseraTString,
) -> *mut c_char {
    if str.is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    unsafe { ctstring::mutable_data_ptr(rs_mut(str)) }.map_or(core::ptr::null_mut(), |p| p.cast())
}

/// `TF_TString_Resize`: sets the size, filling new bytes with `c`. Returns the data pointer,
/// or NULL (string unchanged) if memory ran out.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_resize(
    str: *mut TesseraTString,
    new_size: usize,
    c: c_char,
) -> *mut c_char {
    if str.is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    unsafe { ctstring::resize(rs_mut(str), new_size, c as u8) }
        .map_or(core::ptr::null_mut(), |p| p.cast())
}

/// `TF_TString_ResizeUninitialized`: sets the size without initialising new bytes. Returns the
/// data pointer, or NULL (string unchanged) if memory ran out.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_resize_uninitialized(
    str: *mut TesseraTString,
    new_size: usize,
) -> *mut c_char {
    if str.is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: `str` is non-null (checked) and a valid string (caller).
    unsafe { ctstring::resize_uninit(rs_mut(str), new_size) }
        .map_or(core::ptr::null_mut(), |p| p.cast())
}

/// `TF_TString_Reserve`.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_reserve(str: *mut TesseraTString, new_cap: usize) {
    if !str.is_null() {
        // SAFETY: `str` is non-null (checked) and a valid string (caller). On failure the
        // string is unchanged, as documented.
        let _ = unsafe { ctstring::reserve(rs_mut(str), new_cap) };
    }
}

/// `TF_TString_ReserveAmortized`.
///
/// # Safety
/// `str` is null or a valid string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_reserve_amortized(
    str: *mut TesseraTString,
    new_cap: usize,
) {
    if !str.is_null() {
        // SAFETY: `str` is non-null (checked) and a valid string (caller). On failure the
        // string is unchanged, as documented.
        let _ = unsafe { ctstring::reserve_amortized(rs_mut(str), new_cap) };
    }
}

/// `TF_TString_Copy`: replaces the contents with `size` bytes copied from `src`.
///
/// # Safety
/// `dst` is null or a valid string; `src` is readable for `size` bytes (or `size` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_copy(
    dst: *mut TesseraTString,
    src: *const c_char,
    size: usize,
) {
    if dst.is_null() || (src.is_null() && size > 0) {
        return;
    }
    // SAFETY: `dst` is non-null (checked) and a valid string; `src` is readable for `size`
    // bytes, or null only for 0 (checked) (caller).
    let _ = unsafe { ctstring::copy(rs_mut(dst), src.cast(), size) };
}

/// `TF_TString_AssignView`: makes `dst` a VIEW of `size` bytes at `src` (not copied).
///
/// # Safety
/// `dst` is null or a valid string; `src` stays readable for `size` bytes while `dst` views it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_assign_view(
    dst: *mut TesseraTString,
    src: *const c_char,
    size: usize,
) {
    if dst.is_null() || (src.is_null() && size > 0) {
        return;
    }
    // SAFETY: `dst` is non-null (checked) and a valid string; `src` stays readable for
    // `size` bytes while `dst` views it, null only for 0 (checked) (caller).
    let _ = unsafe { ctstring::assign_view(rs_mut(dst), src.cast(), size) };
}

/// `TF_TString_Assign`: SMALL and VIEW copy as they are, LARGE is deep-copied, OFFSET becomes
/// a VIEW.
///
/// # Safety
/// `dst` and `src` are null or valid strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_assign(
    dst: *mut TesseraTString,
    src: *const TesseraTString,
) {
    if dst.is_null() || src.is_null() {
        return;
    }
    // SAFETY: `dst` and `src` are non-null (checked) and valid strings (caller).
    let _ = unsafe { ctstring::assign(rs_mut(dst), rs(src)) };
}

/// `TF_TString_Move`: transfers `src` to `dst`; a LARGE `src` is left empty.
///
/// # Safety
/// `dst` and `src` are null or valid strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_move(dst: *mut TesseraTString, src: *mut TesseraTString) {
    if dst.is_null() || src.is_null() {
        return;
    }
    // SAFETY: `dst` and `src` are non-null (checked) and valid strings (caller).
    unsafe { ctstring::move_from(rs_mut(dst), rs_mut(src)) }
}

/// `TF_TString_Append`: appends `src`'s bytes (appending a string to itself is allowed).
///
/// # Safety
/// `dst` and `src` are null or valid strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_append(
    dst: *mut TesseraTString,
    src: *const TesseraTString,
) {
    if dst.is_null() || src.is_null() {
        return;
    }
    // SAFETY: `dst` and `src` are non-null (checked) and valid strings (caller).
    let _ = unsafe { ctstring::append(rs_mut(dst), rs(src)) };
}

/// `TF_TString_AppendN`: appends `size` bytes from `src`.
///
/// # Safety
/// `dst` is null or a valid string; `src` is readable for `size` bytes and not inside `dst`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tstring_append_n(
    dst: *mut TesseraTString,
    src: *const c_char,
    size: usize,
) {
    if dst.is_null() || (src.is_null() && size > 0) {
        return;
    }
    // SAFETY: `dst` is non-null (checked) and a valid string; `src` is readable for `size`
    // bytes outside `dst`, null only for 0 (checked) (caller).
    let _ = unsafe { ctstring::append_n(rs_mut(dst), src.cast(), size) };
}
