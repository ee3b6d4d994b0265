//! C custom operators driven from Rust through raw pointers, as C would: registration and its
//! refusals, a model whose operator only the registered kernel runs, its options, scratch and
//! persistent bytes, and a kernel's failure named at its operator. Registrations are for the
//! process, so one test holds every step.
// One precondition covers a sequence of C calls on live locals, as in the interpreter's tests.
#![allow(clippy::multiple_unsafe_ops_per_block)]

extern crate std;

use core::ffi::c_void;
use core::mem::MaybeUninit;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::vec;

use super::*;
use crate::interpreter::*;
use crate::status::TesseraStatus as S;
use tessera_lite::model::FlexValue;

const AXPY: &[u8] = include_bytes!("../../../../tests/fixtures/custom/c_axpy.tflite");

/// What the kernel shares with the test through `user`.
struct State {
    /// `scale`'s bits, from the options at prepare.
    scale: AtomicU32,
    /// The status eval returns.
    eval_status: AtomicI32,
    /// Evals run.
    evals: AtomicU32,
}

unsafe extern "C" fn prepare(ctx: *mut TesseraOpPrepare, user: *mut c_void) -> TesseraStatus {
    // SAFETY: the test registers a live `State` as `user`; `ctx` is this call's context.
    unsafe {
        let state = &*user.cast::<State>();
        if tessera_op_prepare_input_count(ctx) != 2 || tessera_op_prepare_output_count(ctx) != 1 {
            return S::TESSERA_BAD_ARGUMENT;
        }
        let mut info = MaybeUninit::<TesseraTensorInfo>::uninit();
        if tessera_op_prepare_input_info(ctx, 1, info.as_mut_ptr()) != S::TESSERA_OK {
            return S::TESSERA_FAILED;
        }
        let info = info.assume_init();
        if (info.tensor_type, info.rank, info.dims[0], info.bytes) != (0, 1, 4, 16) {
            return S::TESSERA_UNSUPPORTED;
        }
        let (mut data, mut len) = (core::ptr::null(), 0usize);
        if tessera_op_prepare_custom_options(ctx, &mut data, &mut len) != S::TESSERA_OK {
            return S::TESSERA_FAILED;
        }
        let options = core::slice::from_raw_parts(data, len);
        let Some(scale) = FlexValue::root(options)
            .ok()
            .and_then(|v| v.as_map())
            .and_then(|m| m.get("scale"))
            .and_then(|s| s.as_f64())
        else {
            return S::TESSERA_MALFORMED;
        };
        state
            .scale
            .store((scale as f32).to_bits(), Ordering::Relaxed);
        tessera_op_prepare_request_scratch(ctx, 16);
        tessera_op_prepare_request_persistent(ctx, 4)
    }
}

unsafe extern "C" fn eval(ctx: *mut TesseraOpEval, user: *mut c_void) -> TesseraStatus {
    // SAFETY: as in `prepare`.
    unsafe {
        let state = &*user.cast::<State>();
        let status = state.eval_status.load(Ordering::Relaxed);
        if status != 0 {
            return if status == S::TESSERA_FAILED as i32 {
                S::TESSERA_FAILED
            } else {
                S::TESSERA_UNSUPPORTED
            };
        }
        let k = f32::from_bits(state.scale.load(Ordering::Relaxed));
        let (mut a, mut b, mut na, mut nb) = (core::ptr::null(), core::ptr::null(), 0, 0);
        let (mut y, mut ny) = (core::ptr::null_mut(), 0usize);
        let (mut s, mut ns, mut p, mut np) = (core::ptr::null_mut(), 0, core::ptr::null_mut(), 0);
        for st in [
            tessera_op_eval_input(ctx, 0, &mut a, &mut na),
            tessera_op_eval_input(ctx, 1, &mut b, &mut nb),
            tessera_op_eval_output(ctx, 0, &mut y, &mut ny),
            tessera_op_eval_scratch(ctx, &mut s, &mut ns),
            tessera_op_eval_persistent(ctx, &mut p, &mut np),
        ] {
            if st != S::TESSERA_OK {
                return st;
            }
        }
        if (na, nb, ny) != (16, 16, 16) || ns < 16 || np < 4 {
            return S::TESSERA_BAD_ARGUMENT;
        }
        // Past the inputs: no such tensor, never a read out of bounds.
        if tessera_op_eval_input(ctx, 2, &mut a, &mut na) != S::TESSERA_NO_SUCH_TENSOR {
            return S::TESSERA_FAILED;
        }
        for i in 0..4 {
            let (x, z) = (
                a.add(4 * i).cast::<f32>().read_unaligned(),
                b.add(4 * i).cast::<f32>().read_unaligned(),
            );
            y.add(4 * i).cast::<f32>().write_unaligned(x + k * z);
        }
        // The persistent bytes count the evals since set-up or reset.
        let n = p.cast::<u32>().read_unaligned() + 1;
        p.cast::<u32>().write_unaligned(n);
        state.evals.store(n, Ordering::Relaxed);
        S::TESSERA_OK
    }
}

fn blank() -> TesseraError {
    // SAFETY: TesseraError is integers and a c_char array: all-zero bytes are a valid value.
    unsafe { MaybeUninit::<TesseraError>::zeroed().assume_init() }
}

#[test]
fn a_custom_operator_registered_from_c_runs_in_the_model() {
    static STATE: State = State {
        scale: AtomicU32::new(0),
        eval_status: AtomicI32::new(0),
        evals: AtomicU32::new(0),
    };
    let user = core::ptr::from_ref(&STATE).cast_mut().cast::<c_void>();
    let mut err = blank();
    let mut arena_len = 0usize;
    // SAFETY: names are NUL-terminated literals; the model, out-parameters and error are live
    // locals; `user` is a static the kernels only read through atomics.
    unsafe {
        // Before registration the model's operator has no kernel.
        let st = tessera_model_arena_size(AXPY.as_ptr(), AXPY.len(), 0, &mut arena_len, &mut err);
        assert_eq!(st, S::TESSERA_UNSUPPORTED);
        assert_eq!(err.operator_index, 0);

        let name = c"CAxpy".as_ptr();
        assert_eq!(
            tessera_register_custom_op(name, Some(prepare), None, user),
            S::TESSERA_NULL_ARGUMENT
        );
        assert_eq!(
            tessera_register_custom_op(c"".as_ptr(), Some(prepare), Some(eval), user),
            S::TESSERA_BAD_ARGUMENT
        );
        let long = [b'x'; TESSERA_MAX_CUSTOM_NAME + 1];
        let long = std::ffi::CString::new(long.as_slice()).unwrap();
        assert_eq!(
            tessera_register_custom_op(long.as_ptr(), None, Some(eval), user),
            S::TESSERA_BAD_ARGUMENT
        );
        assert_eq!(
            tessera_register_custom_op(name, Some(prepare), Some(eval), user),
            S::TESSERA_OK
        );
        assert_eq!(
            tessera_register_custom_op(name, None, Some(eval), user),
            S::TESSERA_BAD_ARGUMENT,
            "a name registers once"
        );

        let st = tessera_model_arena_size(AXPY.as_ptr(), AXPY.len(), 0, &mut arena_len, &mut err);
        assert_eq!(st, S::TESSERA_OK);
        let mut arena = vec![0u8; arena_len];
        let mut memory = vec![0u64; tessera_interpreter_size().div_ceil(8)];
        let it = memory.as_mut_ptr().cast::<TesseraInterpreter>();
        let st = tessera_interpreter_init(
            it,
            AXPY.as_ptr(),
            AXPY.len(),
            arena.as_mut_ptr(),
            arena.len(),
            0,
            &mut err,
        );
        assert_eq!(st, S::TESSERA_OK);
        assert_eq!(f32::from_bits(STATE.scale.load(Ordering::Relaxed)), 2.0);
        for (i, v) in [[1.0f32, 2.0, 3.0, 4.0], [0.5, -1.0, 10.0, 0.0]]
            .iter()
            .enumerate()
        {
            let (mut data, mut len) = (core::ptr::null_mut(), 0usize);
            assert_eq!(
                tessera_interpreter_input_data(it, i, &mut data, &mut len),
                S::TESSERA_OK
            );
            for (k, x) in v.iter().enumerate() {
                data.add(4 * k).cast::<f32>().write_unaligned(*x);
            }
        }
        for n in 1..=2 {
            assert_eq!(tessera_interpreter_invoke(it, &mut err), S::TESSERA_OK);
            assert_eq!(STATE.evals.load(Ordering::Relaxed), n);
        }
        let (mut out, mut len) = (core::ptr::null(), 0usize);
        assert_eq!(
            tessera_interpreter_output_data(it, 0, &mut out, &mut len),
            S::TESSERA_OK
        );
        let y: vec::Vec<f32> = (0..4)
            .map(|k| out.add(4 * k).cast::<f32>().read_unaligned())
            .collect();
        assert_eq!(y, [2.0, 0.0, 23.0, 4.0]);
        // State goes back to what set-up left.
        assert_eq!(tessera_interpreter_reset_state(it, &mut err), S::TESSERA_OK);
        assert_eq!(tessera_interpreter_invoke(it, &mut err), S::TESSERA_OK);
        assert_eq!(STATE.evals.load(Ordering::Relaxed), 1);

        // The kernel's failure fails the invoke at its operator, with its status.
        STATE
            .eval_status
            .store(S::TESSERA_FAILED as i32, Ordering::Relaxed);
        let mut e = blank();
        assert_eq!(tessera_interpreter_invoke(it, &mut e), S::TESSERA_FAILED);
        assert_eq!(e.operator_index, 0);
        let message = core::ffi::CStr::from_ptr(e.message.as_ptr()).to_string_lossy();
        assert!(message.contains("returned status 7"), "{message}");
        STATE.eval_status.store(0, Ordering::Relaxed);
        tessera_interpreter_deinit(it);

        // Null contexts are refused, not read.
        assert_eq!(tessera_op_prepare_input_count(core::ptr::null_mut()), 0);
        let (mut d, mut n) = (core::ptr::null(), 0usize);
        assert_eq!(
            tessera_op_eval_input(core::ptr::null_mut(), 0, &mut d, &mut n),
            S::TESSERA_NULL_ARGUMENT
        );

        // Every slot taken: the next name is refused.
        let mut taken = 1;
        loop {
            let name = std::ffi::CString::new(std::format!("Filler{taken}")).unwrap();
            match tessera_register_custom_op(name.as_ptr(), None, Some(eval), user) {
                S::TESSERA_OK => taken += 1,
                st => {
                    assert_eq!(st, S::TESSERA_TOO_LARGE);
                    break;
                }
            }
        }
        assert_eq!(taken, TESSERA_MAX_CUSTOM_OPS);
    }
}
