//! `memcpy`, `memmove`, `memset` and their ARM EABI forms as byte loops, for size: what
//! newlib-nano (built to prefer size over speed) gives a C firmware such as TensorFlow Lite
//! Micro's, in place of Rust's word-at-a-time versions (`compiler_builtins`, about 1.3 KB on
//! a Cortex-M4). Feature `nano-mem`; the size variants measure with and without it.
//!
//! Each loop reads and writes through volatile accesses, so that the compiler cannot see a
//! copy and call `memcpy` from inside `memcpy`. Rust's versions are weak symbols; these
//! strong ones replace them at link time.

use core::ffi::c_int;

/// Copies `n` bytes from `src` to `dst`, first to last.
///
/// # Safety
/// `src..src + n` is readable and `dst..dst + n` writable; if they overlap, `dst` is not
/// above `src`.
unsafe fn forwards(dst: *mut u8, src: *const u8, n: usize) {
    let mut i = 0;
    while i < n {
        // SAFETY: `i < n`: inside `src..src + n` (the caller's precondition).
        let byte = unsafe { src.add(i).read_volatile() };
        // SAFETY: `i < n`: inside `dst..dst + n` (the caller's precondition).
        unsafe { dst.add(i).write_volatile(byte) };
        i += 1;
    }
}

/// Copies `n` bytes from `src` to `dst`, forwards or backwards so that an overlap is safe.
///
/// # Safety
/// `src..src + n` is readable and `dst..dst + n` writable.
unsafe fn moving(dst: *mut u8, src: *const u8, n: usize) {
    if (dst as usize) <= (src as usize) {
        // SAFETY: the caller's precondition; `dst` is not above `src`.
        return unsafe { forwards(dst, src, n) };
    }
    let mut i = n;
    while i > 0 {
        i -= 1;
        // Backwards, for `dst` above `src`.
        // SAFETY: `i < n`: inside `src..src + n` (the caller's precondition).
        let byte = unsafe { src.add(i).read_volatile() };
        // SAFETY: `i < n`: inside `dst..dst + n` (the caller's precondition).
        unsafe { dst.add(i).write_volatile(byte) };
    }
}

/// Sets `n` bytes at `dst` to `c`.
///
/// # Safety
/// `dst..dst + n` is writable.
unsafe fn fill(dst: *mut u8, c: u8, n: usize) {
    let mut i = 0;
    while i < n {
        // SAFETY: `i < n`: inside the range (the caller's precondition).
        unsafe { dst.add(i).write_volatile(c) };
        i += 1;
    }
}

// The exported functions call the loops above, never each other: the compiler knows
// `memcpy` and `memset` by name and would turn such a call back into a call of the EABI
// form, which would call itself.

/// Copies `n` bytes from `src` to `dst` (the ranges do not overlap); returns `dst`.
///
/// # Safety
/// `src..src + n` is readable and `dst..dst + n` writable, and they do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's precondition.
    unsafe { forwards(dst, src, n) };
    dst
}

/// Copies `n` bytes from `src` to `dst`, which may overlap; returns `dst`.
///
/// # Safety
/// `src..src + n` is readable and `dst..dst + n` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's precondition.
    unsafe { moving(dst, src, n) };
    dst
}

/// Sets `n` bytes at `dst` to `c as u8`; returns `dst`.
///
/// # Safety
/// `dst..dst + n` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memset(dst: *mut u8, c: c_int, n: usize) -> *mut u8 {
    // SAFETY: the caller's precondition.
    unsafe { fill(dst, c as u8, n) };
    dst
}

/// Generates the ARM EABI forms, which LLVM calls for copies and fills of known alignment.
macro_rules! aeabi {
    ($($name:ident($($arg:ident: $ty:ty),*) => $body:expr;)*) => {$(
        /// An ARM EABI form of the byte loops above.
        ///
        /// # Safety
        /// As `memcpy`, `memmove` or `memset`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) {
            // SAFETY: the caller's precondition, passed on.
            unsafe { $body };
        }
    )*};
}

aeabi! {
    __aeabi_memcpy(dst: *mut u8, src: *const u8, n: usize) => forwards(dst, src, n);
    __aeabi_memcpy4(dst: *mut u8, src: *const u8, n: usize) => forwards(dst, src, n);
    __aeabi_memcpy8(dst: *mut u8, src: *const u8, n: usize) => forwards(dst, src, n);
    __aeabi_memmove(dst: *mut u8, src: *const u8, n: usize) => moving(dst, src, n);
    __aeabi_memmove4(dst: *mut u8, src: *const u8, n: usize) => moving(dst, src, n);
    __aeabi_memmove8(dst: *mut u8, src: *const u8, n: usize) => moving(dst, src, n);
    // The EABI's fills take the length before the value.
    __aeabi_memset(dst: *mut u8, n: usize, c: c_int) => fill(dst, c as u8, n);
    __aeabi_memset4(dst: *mut u8, n: usize, c: c_int) => fill(dst, c as u8, n);
    __aeabi_memset8(dst: *mut u8, n: usize, c: c_int) => fill(dst, c as u8, n);
    __aeabi_memclr(dst: *mut u8, n: usize) => fill(dst, 0, n);
    __aeabi_memclr4(dst: *mut u8, n: usize) => fill(dst, 0, n);
    __aeabi_memclr8(dst: *mut u8, n: usize) => fill(dst, 0, n);
}
