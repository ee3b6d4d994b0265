//! TFLite string tensors across the C ABI: decode a caller's buffer into `TF_TString` VIEWs
//! (no string byte copied) and encode an array of `TF_TString`s into a caller's buffer.

use crate::status::TesseraStatus;
use crate::tstring::TesseraTString;

use tessera_alloc::CHeap;
use tessera_core::strings::{TfliteEncodeError, TfliteStrings, encode_tflite, tflite_encoded_len};
use tessera_core::tstring::{TString, ctstring};

/// cbindgen:ignore
type Rs = TString<'static, CHeap>;

/// # Safety
/// `p` is null or readable for `len` bytes.
unsafe fn bytes<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: `p` is non-null (checked) and readable for `len` bytes (caller).
    Some(unsafe { core::slice::from_raw_parts(p, len) })
}

/// Validates a TFLite string tensor of `len` bytes and writes its string count to `*count`.
///
/// # Safety
/// `buf` is readable for `len` bytes; `count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tflite_strings_count(
    buf: *const u8,
    len: usize,
    count: *mut usize,
) -> TesseraStatus {
    // SAFETY: `buf` is null or readable for `len` bytes (caller).
    let Some(b) = (unsafe { bytes(buf, len) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if count.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match TfliteStrings::new(b) {
        Ok(t) => {
            // SAFETY: `count` is non-null (checked) and writable (caller).
            unsafe { count.write(t.len()) };
            TesseraStatus::TESSERA_OK
        }
        Err(_) => TesseraStatus::TESSERA_MALFORMED,
    }
}

/// Decodes a TFLite string tensor into `out[0..N]` as VIEWs of `buf` (the DT_STRING layout
/// TensorFlow kernels take; nothing copied). `out` must hold `out_cap` initialised strings;
/// what they held is released first. `*count` receives N; if `out_cap < N` nothing is written
/// to `out` and `TESSERA_BUFFER_TOO_SMALL` is returned. The views are valid while `buf` is.
///
/// # Safety
/// `buf` is readable for `len` bytes; `out` holds `out_cap` valid strings; `count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tflite_strings_to_tstrings(
    buf: *const u8,
    len: usize,
    out: *mut TesseraTString,
    out_cap: usize,
    count: *mut usize,
) -> TesseraStatus {
    // SAFETY: `buf` is null or readable for `len` bytes (caller).
    let Some(b) = (unsafe { bytes(buf, len) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if count.is_null() || (out.is_null() && out_cap > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    let tensor = match TfliteStrings::new(b) {
        Ok(t) => t,
        Err(_) => return TesseraStatus::TESSERA_MALFORMED,
    };
    // SAFETY: `count` is non-null (checked) and writable (caller).
    unsafe { count.write(tensor.len()) };
    if tensor.len() > out_cap {
        return TesseraStatus::TESSERA_BUFFER_TOO_SMALL;
    }
    let out = out.cast::<Rs>();
    for (i, s) in tensor.iter().enumerate() {
        // SAFETY: `i < N <= out_cap`, and `out` holds `out_cap` strings (caller).
        let slot = unsafe { out.add(i) };
        // SAFETY: `slot` is a valid string (caller); `s` lives in `buf`, which the caller
        // keeps readable while the views are used.
        if unsafe { ctstring::assign_view(slot, s.as_ptr(), s.len()) }.is_err() {
            return TesseraStatus::TESSERA_TOO_LARGE;
        }
    }
    TesseraStatus::TESSERA_OK
}

/// The `n` strings at `strings` as byte slices, read through the C pointer so OFFSET strings
/// reach their bytes.
///
/// # Safety
/// `strings` holds `n` valid strings, unchanged while the iterator is used.
unsafe fn strings_of<'a>(
    strings: *const TesseraTString,
    n: usize,
) -> impl Iterator<Item = &'a [u8]> + Clone {
    let p = strings.cast::<Rs>();
    (0..n).map(move |i| {
        // SAFETY: `i < n`, and `strings` holds `n` strings (caller).
        let s = unsafe { p.add(i) };
        // SAFETY: `s` is a valid string, unchanged while the iterator is used (caller).
        unsafe { ctstring::bytes(s) }
    })
}

/// Writes to `*len` the bytes of the TFLite encoding of `n` strings.
///
/// # Safety
/// `strings` holds `n` valid strings; `len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tflite_strings_encoded_len(
    strings: *const TesseraTString,
    n: usize,
    len: *mut usize,
) -> TesseraStatus {
    if len.is_null() || (strings.is_null() && n > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    // SAFETY: `strings` is non-null or `n` is 0 (checked), and holds `n` valid strings
    // (caller).
    match tflite_encoded_len(unsafe { strings_of(strings, n) }) {
        Ok(l) => {
            // SAFETY: checked non-null.
            unsafe { len.write(l) };
            TesseraStatus::TESSERA_OK
        }
        Err(_) => TesseraStatus::TESSERA_TOO_LARGE,
    }
}

/// Encodes `n` strings as a TFLite string tensor into `out` (`out_len` bytes). `*written`
/// receives the bytes written, or with `TESSERA_BUFFER_TOO_SMALL` the bytes needed (`out` may
/// then hold part of a tensor, which is not a valid one).
///
/// # Safety
/// `strings` holds `n` valid strings; `out` is writable for `out_len` bytes and does not
/// overlap the strings' bytes; `written` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_tflite_strings_encode(
    strings: *const TesseraTString,
    n: usize,
    out: *mut u8,
    out_len: usize,
    written: *mut usize,
) -> TesseraStatus {
    if written.is_null() || (strings.is_null() && n > 0) || (out.is_null() && out_len > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    let out: &mut [u8] = if out.is_null() {
        &mut []
    } else {
        // SAFETY: `out` is non-null (checked) and writable for `out_len` bytes that no string
        // overlaps (caller).
        unsafe { core::slice::from_raw_parts_mut(out, out_len) }
    };
    // SAFETY: `strings` is non-null or `n` is 0 (checked), and holds `n` valid strings
    // (caller).
    match encode_tflite(unsafe { strings_of(strings, n) }, out) {
        Ok(w) => {
            // SAFETY: checked non-null.
            unsafe { written.write(w) };
            TesseraStatus::TESSERA_OK
        }
        Err(TfliteEncodeError::Capacity(e)) => {
            // SAFETY: checked non-null.
            unsafe { written.write(e.needed) };
            TesseraStatus::TESSERA_BUFFER_TOO_SMALL
        }
        Err(_) => TesseraStatus::TESSERA_TOO_LARGE,
    }
}
