//! The C ABI driven from Rust through raw pointers, as C would (these also run under Miri,
//! where `malloc` / `free` are checked for leaks and misuse).
// These tests call the C functions one after another on live locals, as a C program would;
// one precondition covers a whole sequence, so blocks hold several calls.
#![allow(clippy::multiple_unsafe_ops_per_block)]

extern crate std;

use core::ffi::c_char;
use std::vec;

use super::{TesseraStatus, TesseraTStringType as T};
use crate::tensor::*;
use crate::tstring::*;

fn new() -> TesseraTString {
    let mut s = core::mem::MaybeUninit::<TesseraTString>::uninit();
    // SAFETY: init writes all 24 bytes.
    unsafe {
        tessera_tstring_init(s.as_mut_ptr());
        s.assume_init()
    }
}

const LONG: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIKLMNO";

#[test]
fn every_function_on_every_type() {
    // SAFETY: every pointer is a live local string or byte buffer.
    unsafe {
        let mut s = new();
        tessera_tstring_copy(&mut s, LONG.as_ptr().cast(), 50);
        assert_eq!(tessera_tstring_get_type(&s), T::TESSERA_TSTR_LARGE);
        assert_eq!(tessera_tstring_get_capacity(&s), 63);
        let p = tessera_tstring_resize(&mut s, 60, b'!' as c_char);
        assert_eq!(*p.add(59), b'!' as c_char);
        tessera_tstring_reserve(&mut s, 500);
        tessera_tstring_reserve_amortized(&mut s, 600);
        assert_eq!(tessera_tstring_get_capacity(&s), 1023); // max(600, 2 * 511) -> align16(1023) - 1
        tessera_tstring_append(&mut s, &s);
        assert_eq!(tessera_tstring_get_size(&s), 120);

        let mut v = new();
        tessera_tstring_assign_view(&mut v, LONG.as_ptr().cast(), 30);
        assert_eq!(tessera_tstring_get_data_pointer(&v), LONG.as_ptr().cast());
        tessera_tstring_append_n(&mut v, b"xyz".as_ptr().cast(), 3);
        assert_eq!(tessera_tstring_get_type(&v), T::TESSERA_TSTR_LARGE);
        assert_eq!(tessera_tstring_get_size(&v), 33);

        let mut m = new();
        tessera_tstring_move(&mut m, &mut s);
        assert_eq!(tessera_tstring_get_size(&s), 0);
        let mut a = new();
        tessera_tstring_assign(&mut a, &m);
        assert_ne!(
            tessera_tstring_get_data_pointer(&a),
            tessera_tstring_get_data_pointer(&m)
        );
        let u = tessera_tstring_resize_uninitialized(&mut a, 3);
        assert_eq!(*u.add(3), 0);
        assert_eq!(tessera_tstring_get_type(&a), T::TESSERA_TSTR_SMALL);
        let w = tessera_tstring_get_mutable_data_pointer(&mut a);
        *w = b'Z' as c_char;
        assert_eq!(*tessera_tstring_get_data_pointer(&a), b'Z' as c_char);

        for x in [&mut s, &mut v, &mut m, &mut a] {
            tessera_tstring_dealloc(x);
        }
        // Null pointers are ignored.
        tessera_tstring_dealloc(core::ptr::null_mut());
        assert!(tessera_tstring_get_data_pointer(core::ptr::null()).is_null());
    }
}

#[test]
fn offset_strings_in_a_c_buffer() {
    #[repr(C, align(8))]
    struct Buf([u8; 24 + 8]);
    let mut buf = Buf([0; 32]);
    buf.0[24..31].copy_from_slice(b"offset!");
    buf.0[0..4].copy_from_slice(&((7u32 << 2) | 2).to_le_bytes());
    buf.0[4..8].copy_from_slice(&24u32.to_le_bytes());
    let p = buf.0.as_mut_ptr().cast::<TesseraTString>();
    // SAFETY: `p` is aligned and its provenance covers the whole buffer, data included.
    unsafe {
        assert_eq!(tessera_tstring_get_type(p), T::TESSERA_TSTR_OFFSET);
        assert_eq!(tessera_tstring_get_size(p), 7);
        let mut out = vec![0u8; 64];
        let mut written = 0;
        let st = tessera_tflite_strings_encode(p, 1, out.as_mut_ptr(), out.len(), &mut written);
        assert_eq!(st, TesseraStatus::TESSERA_OK);
        assert_eq!(&out[12..written], b"offset!");
    }
}

#[test]
fn tflite_decode_encode_and_errors() {
    let tflite: &[u8] = b"\x03\0\0\0\x14\0\0\0\x16\0\0\0\x16\0\0\0\x19\0\0\0ABCDE";
    let mut out = [new(), new(), new()];
    let mut count = 0;
    // SAFETY: live buffers of the lengths given.
    unsafe {
        let st = tessera_tflite_strings_to_tstrings(
            tflite.as_ptr(),
            tflite.len(),
            out.as_mut_ptr(),
            3,
            &mut count,
        );
        assert_eq!((st, count), (TesseraStatus::TESSERA_OK, 3));
        assert_eq!(
            tessera_tstring_get_data_pointer(&out[2]),
            tflite[22..].as_ptr().cast()
        );
        let mut len = 0;
        assert_eq!(
            tessera_tflite_strings_encoded_len(out.as_ptr(), 3, &mut len),
            TesseraStatus::TESSERA_OK
        );
        let mut back = vec![0u8; len];
        let mut written = 0;
        let st =
            tessera_tflite_strings_encode(out.as_ptr(), 3, back.as_mut_ptr(), 10, &mut written);
        assert_eq!((st, written), (TesseraStatus::TESSERA_BUFFER_TOO_SMALL, 25));
        tessera_tflite_strings_encode(out.as_ptr(), 3, back.as_mut_ptr(), len, &mut written);
        assert_eq!(back, tflite);
        let st = tessera_tflite_strings_count(tflite.as_ptr(), 24, &mut count);
        assert_eq!(st, TesseraStatus::TESSERA_MALFORMED);
        let st = tessera_tflite_strings_count(tflite.as_ptr(), 25, core::ptr::null_mut());
        assert_eq!(st, TesseraStatus::TESSERA_NULL_ARGUMENT);
    }
}
