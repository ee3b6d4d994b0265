//! The interpreter's C ABI driven from Rust through raw pointers, as C would, on a fixture
//! model (also under Miri, which checks every pointer the ABI reads and writes).
// These tests call the C functions one after another on live locals, as a C program would;
// one precondition covers a whole sequence, so blocks hold several calls.
#![allow(clippy::multiple_unsafe_ops_per_block)]

extern crate std;

use core::mem::MaybeUninit;
use std::vec;

use crate::interpreter::*;
use crate::status::TesseraStatus as S;

const STRINGS: &[u8] = include_bytes!("../../../../tests/fixtures/models/strings.tflite");

fn blank() -> TesseraError {
    // SAFETY: TesseraError is integers and a c_char array: all-zero bytes are a valid value.
    unsafe { MaybeUninit::<TesseraError>::zeroed().assume_init() }
}

/// Records `(op, false)` into the `Vec<(usize, bool)>` at `user`.
unsafe extern "C" fn began(user: *mut core::ffi::c_void, op: usize) {
    // SAFETY: the tests pass a live `Vec<(usize, bool)>` as `user`.
    unsafe { &mut *user.cast::<vec::Vec<(usize, bool)>>() }.push((op, false));
}

/// Records `(op, true)`, as [`began`].
unsafe extern "C" fn ended(user: *mut core::ffi::c_void, op: usize) {
    // SAFETY: as in `began`.
    unsafe { &mut *user.cast::<vec::Vec<(usize, bool)>>() }.push((op, true));
}

#[test]
fn a_string_model_set_up_fed_and_run_through_the_abi() {
    let mut err = blank();
    let mut arena_len = 0usize;
    // SAFETY: the model bytes, the out-parameters and the error are live locals.
    let st = unsafe {
        tessera_model_arena_size(STRINGS.as_ptr(), STRINGS.len(), 0, &mut arena_len, &mut err)
    };
    assert_eq!(st, S::TESSERA_OK);
    let mut arena = vec![0u8; arena_len];
    // Interpreter memory as a C caller allocates it: size and alignment from the ABI.
    let words = tessera_interpreter_size().div_ceil(8);
    assert!(tessera_interpreter_align() <= 8);
    let mut memory = vec![0u64; words];
    let it = memory.as_mut_ptr().cast::<TesseraInterpreter>();
    // SAFETY: `it` is writable for the interpreter's size, aligned; model and arena outlive it.
    let st = unsafe {
        tessera_interpreter_init(
            it,
            STRINGS.as_ptr(),
            STRINGS.len(),
            arena.as_mut_ptr(),
            arena.len(),
            0,
            &mut err,
        )
    };
    assert_eq!(st, S::TESSERA_OK);
    // SAFETY: `it` is a live interpreter; every other pointer is a live local.
    unsafe {
        assert_eq!(tessera_interpreter_input_count(it), 3);
        let mut info = MaybeUninit::<TesseraTensorInfo>::uninit();
        assert_eq!(
            tessera_interpreter_input_info(it, 0, info.as_mut_ptr()),
            S::TESSERA_OK
        );
        let info = info.assume_init();
        assert_eq!((info.tensor_type, info.rank, info.dims[0]), (5, 1, 4)); // STRING [4]
        let words: [&[u8]; 4] = [b"a", b"", b"a word longer than twenty-two bytes", b"z"];
        let ptrs = words.map(<[u8]>::as_ptr);
        let lens = words.map(<[u8]>::len);
        let st =
            tessera_interpreter_set_input_strings(it, 0, ptrs.as_ptr(), lens.as_ptr(), 4, &mut err);
        assert_eq!(st, S::TESSERA_OK);
        let (mut data, mut len) = (core::ptr::null_mut(), 0usize);
        assert_eq!(
            tessera_interpreter_input_data(it, 2, &mut data, &mut len),
            S::TESSERA_OK
        );
        assert_eq!(len, 24); // pick: int32 [2, 3]
        for (k, v) in [3i32, 2, 1, 0, 0, 2].iter().enumerate() {
            data.add(4 * k).cast::<i32>().write_unaligned(*v);
        }
        assert_eq!(tessera_interpreter_invoke(it, &mut err), S::TESSERA_OK);
        let mut count = 0usize;
        assert_eq!(
            tessera_interpreter_output_string_count(it, 1, &mut count),
            S::TESSERA_OK
        );
        assert_eq!(count, 6);
        let (mut s, mut n) = (core::ptr::null(), 0usize);
        assert_eq!(
            tessera_interpreter_output_string(it, 1, 0, &mut s, &mut n),
            S::TESSERA_OK
        );
        assert_eq!(core::slice::from_raw_parts(s, n), b"z");
        assert_eq!(
            tessera_interpreter_output_string(it, 1, 6, &mut s, &mut n),
            S::TESSERA_NO_SUCH_TENSOR
        );

        // Timed per operator: the nanoseconds add up in the caller's array; hooks see each
        // operator begin and end, in order.
        let ops = tessera_interpreter_operator_count(it);
        assert!(ops > 0);
        let mut nanos = vec![0u64; ops];
        assert_eq!(
            tessera_interpreter_invoke_profiled(it, nanos.as_mut_ptr(), ops, &mut err),
            S::TESSERA_OK
        );
        assert!(nanos.iter().sum::<u64>() > 0);
        assert_eq!(
            tessera_interpreter_invoke_profiled(it, core::ptr::null_mut(), 0, &mut err),
            S::TESSERA_OK
        );
        assert_eq!(
            tessera_interpreter_invoke_profiled(it, core::ptr::null_mut(), 1, &mut err),
            S::TESSERA_NULL_ARGUMENT
        );
        let mut seen: vec::Vec<(usize, bool)> = vec::Vec::new();
        let user = (&raw mut seen).cast::<core::ffi::c_void>();
        assert_eq!(
            tessera_interpreter_invoke_hooked(it, Some(began), Some(ended), user, &mut err),
            S::TESSERA_OK
        );
        let want: vec::Vec<_> = (0..ops).flat_map(|op| [(op, false), (op, true)]).collect();
        assert_eq!(seen, want);
        assert_eq!(
            tessera_interpreter_invoke_hooked(it, None, None, core::ptr::null_mut(), &mut err),
            S::TESSERA_OK
        );

        // A bad index in the data: the operator is named, nothing is read out of bounds.
        let (mut ids, mut len) = (core::ptr::null_mut(), 0usize);
        assert_eq!(
            tessera_interpreter_input_data(it, 1, &mut ids, &mut len),
            S::TESSERA_OK
        );
        ids.cast::<i32>().write_unaligned(99);
        assert_eq!(tessera_interpreter_invoke(it, &mut err), S::TESSERA_FAILED);
        assert!(err.operator_index >= 0);
        // Profiled, it fails the same way, the failing operator ended too.
        seen.clear();
        assert_eq!(
            tessera_interpreter_invoke_hooked(it, Some(began), Some(ended), user, &mut err),
            S::TESSERA_FAILED
        );
        let failed = usize::try_from(err.operator_index).unwrap();
        assert_eq!(seen.last(), Some(&(failed, true)));
        tessera_interpreter_deinit(it);
    }
    // Misuse a C caller can make: null pointers and a misaligned interpreter.
    // SAFETY: null and misaligned pointers are refused before any is dereferenced.
    unsafe {
        assert_eq!(
            tessera_interpreter_invoke(core::ptr::null_mut(), &mut err),
            S::TESSERA_NULL_ARGUMENT
        );
        let odd = memory
            .as_mut_ptr()
            .cast::<u8>()
            .add(1)
            .cast::<TesseraInterpreter>();
        let st = tessera_interpreter_init(
            odd,
            STRINGS.as_ptr(),
            STRINGS.len(),
            arena.as_mut_ptr(),
            arena.len(),
            0,
            &mut err,
        );
        assert_eq!(st, S::TESSERA_BAD_ARGUMENT);
    }
}

/// `image_float` through the ABI with `threads` threads: its output's bytes.
fn image_output(threads: usize) -> vec::Vec<u8> {
    const IMAGE: &[u8] = include_bytes!("../../../../tests/fixtures/models/image_float.tflite");
    let mut err = blank();
    let mut arena_len = 0usize;
    // SAFETY: the model bytes, the out-parameters and the error are live locals.
    let st = unsafe {
        tessera_model_arena_size_threads(
            IMAGE.as_ptr(),
            IMAGE.len(),
            0,
            threads,
            &mut arena_len,
            &mut err,
        )
    };
    assert_eq!(st, S::TESSERA_OK);
    let mut arena = vec![0u8; arena_len];
    let mut memory = vec![0u64; tessera_interpreter_size().div_ceil(8)];
    let it = memory.as_mut_ptr().cast::<TesseraInterpreter>();
    // SAFETY: `it` is writable for the interpreter's size, aligned; model and arena outlive
    // it; every other pointer is a live local; `it` is deinitialised once, at the end.
    unsafe {
        let st = tessera_interpreter_init_threads(
            it,
            IMAGE.as_ptr(),
            IMAGE.len(),
            arena.as_mut_ptr(),
            arena.len(),
            0,
            threads,
            &mut err,
        );
        assert_eq!(st, S::TESSERA_OK);
        let (mut data, mut len) = (core::ptr::null_mut(), 0usize);
        assert_eq!(
            tessera_interpreter_input_data(it, 0, &mut data, &mut len),
            S::TESSERA_OK
        );
        for k in 0..len / 4 {
            let v = (k % 97) as f32 / 48.0 - 1.0;
            data.add(4 * k).cast::<f32>().write_unaligned(v);
        }
        assert_eq!(tessera_interpreter_invoke(it, &mut err), S::TESSERA_OK);
        let (mut out, mut n) = (core::ptr::null(), 0usize);
        assert_eq!(
            tessera_interpreter_output_data(it, 0, &mut out, &mut n),
            S::TESSERA_OK
        );
        let bytes = core::slice::from_raw_parts(out, n).to_vec();
        tessera_interpreter_deinit(it);
        bytes
    }
}

#[test]
#[cfg_attr(miri, ignore)] // a whole image network: minutes under Miri
fn threads_through_the_abi_give_the_same_bytes() {
    let one = image_output(1);
    assert!(!one.is_empty());
    for threads in [0, 2, 3, 1000] {
        assert_eq!(image_output(threads), one, "{threads} threads");
    }
}
