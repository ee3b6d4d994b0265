//! Custom operators written in C: [`tessera_register_custom_op`] registers a `prepare` and an
//! `eval` under the name a model's `custom_code` gives, and every interpreter set up after it
//! finds them (before the custom operators tessera ships under the same name, so an app may
//! replace one). The contract is TensorFlow Lite's: `prepare` runs once at set-up, checks the
//! operator and asks for scratch or persistent bytes; `eval` computes the outputs from the
//! inputs at each invoke. Both read the operator through a context and the functions below,
//! and neither may keep a pointer from it past the call.
//!
//! Registrations are for the process, up to [`TESSERA_MAX_CUSTOM_OPS`] names, and stay: Rust
//! kernels are plain function pointers, so each slot is a Rust kernel of its own that calls the
//! C functions registered in it. Registering allocates nothing.

use core::ffi::{c_char, c_void};
use std::sync::{Mutex, OnceLock};

use tessera_lite::interpreter::kernels::ALL;
use tessera_lite::interpreter::{AllOps, Eval, Init, Kernel, KernelError, OpResolver, Prepare};
use tessera_lite::model::BuiltinOperator;

use crate::interpreter::{TesseraTensorInfo, tensor_info};
use crate::status::TesseraStatus;

/// How many custom operators C may register.
pub const TESSERA_MAX_CUSTOM_OPS: usize = 16;

/// The longest name a custom operator may have, in bytes (its `custom_code`).
pub const TESSERA_MAX_CUSTOM_NAME: usize = 63;

/// A custom operator being prepared: what `prepare` reads its operator through. Opaque.
pub struct TesseraOpPrepare {
    _opaque: [u8; 0],
}

/// A custom operator being run: what `eval` reads and writes its tensors through. Opaque.
pub struct TesseraOpEval {
    _opaque: [u8; 0],
}

/// A custom operator's set-up step: checks the operator, asks for bytes; `user` is the
/// pointer given at registration. `TESSERA_OK` or any other status, which stops set-up.
pub type TesseraCustomPrepare =
    Option<unsafe extern "C" fn(ctx: *mut TesseraOpPrepare, user: *mut c_void) -> TesseraStatus>;

/// A custom operator's run step: writes the outputs; `user` is the pointer given at
/// registration. `TESSERA_OK` or any other status, which fails the invoke.
pub type TesseraCustomEval =
    Option<unsafe extern "C" fn(ctx: *mut TesseraOpEval, user: *mut c_void) -> TesseraStatus>;

/// One registration.
struct Registered {
    name: [u8; TESSERA_MAX_CUSTOM_NAME],
    len: usize,
    prepare: TesseraCustomPrepare,
    eval: TesseraCustomEval,
    user: *mut c_void,
}

// SAFETY: `user` is never dereferenced here: it is only handed back to the functions registered
// with it, whose caller answers for using it from the threads that run interpreters.
unsafe impl Send for Registered {}
// SAFETY: as for `Send`: nothing here reads through `user`.
unsafe impl Sync for Registered {}

impl Registered {
    fn name(&self) -> &[u8] {
        self.name.get(..self.len).unwrap_or(&[])
    }
}

/// The registrations, each set once.
static SLOTS: [OnceLock<Registered>; TESSERA_MAX_CUSTOM_OPS] =
    [const { OnceLock::new() }; TESSERA_MAX_CUSTOM_OPS];

/// Serialises registrations, so that a name is taken once.
static REGISTERING: Mutex<()> = Mutex::new(());

fn prepare_slot<const I: usize>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let r = SLOTS[I].get().ok_or(UNREGISTERED)?;
    let Some(f) = r.prepare else { return Ok(()) };
    let ctx = core::ptr::from_mut(ctx).cast::<TesseraOpPrepare>();
    // SAFETY: a function registered for this (the caller's contract), given the context of
    // this call and its own `user`.
    status(unsafe { f(ctx, r.user) })
}

fn eval_slot<const I: usize>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let r = SLOTS[I].get().ok_or(UNREGISTERED)?;
    let f = r.eval.ok_or(UNREGISTERED)?;
    let ctx = core::ptr::from_mut(ctx).cast::<TesseraOpEval>();
    // SAFETY: as in `prepare_slot`.
    status(unsafe { f(ctx, r.user) })
}

/// A tensor the context has no such operand for.
const NO_TENSOR: TesseraStatus = TesseraStatus::TESSERA_NO_SUCH_TENSOR;

const UNREGISTERED: KernelError = KernelError::Unsupported {
    what: "a custom operator slot with nothing registered",
};

fn status(s: TesseraStatus) -> Result<(), KernelError> {
    match s {
        TesseraStatus::TESSERA_OK => Ok(()),
        other => Err(KernelError::Failed {
            status: other as i32,
        }),
    }
}

/// Zeroes the persistent bytes, at set-up and at each reset: the state C kernels start from.
fn zero_persistent(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    ctx.persistent().fill(0);
    Ok(())
}

/// The kernel of slot `I`.
const fn slot<const I: usize>() -> Kernel {
    Kernel {
        op: BuiltinOperator::Custom,
        prepare: prepare_slot::<I>,
        init: Some(zero_persistent),
        eval: eval_slot::<I>,
    }
}

static SLOT_KERNELS: [Kernel; TESSERA_MAX_CUSTOM_OPS] = [
    slot::<0>(),
    slot::<1>(),
    slot::<2>(),
    slot::<3>(),
    slot::<4>(),
    slot::<5>(),
    slot::<6>(),
    slot::<7>(),
    slot::<8>(),
    slot::<9>(),
    slot::<10>(),
    slot::<11>(),
    slot::<12>(),
    slot::<13>(),
    slot::<14>(),
    slot::<15>(),
];

const SHIPPED: usize = ALL.len();

/// Every kernel tessera ships, then the slots: what the C library's interpreters resolve with.
static KERNELS: [&Kernel; SHIPPED + TESSERA_MAX_CUSTOM_OPS] = {
    let mut list = [&SLOT_KERNELS[0]; SHIPPED + TESSERA_MAX_CUSTOM_OPS];
    let mut i = 0;
    while i < SHIPPED {
        list[i] = ALL[i];
        i += 1;
    }
    while i < SHIPPED + TESSERA_MAX_CUSTOM_OPS {
        list[i] = &SLOT_KERNELS[i - SHIPPED];
        i += 1;
    }
    list
};

/// The C library's op resolver: every kernel tessera ships and the custom operators C
/// registered (those first, by name).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CapiOps;

impl OpResolver for CapiOps {
    fn kernels(&self) -> &[&'static Kernel] {
        &KERNELS
    }

    fn find_custom(&self, name: &[u8]) -> Option<(usize, &'static Kernel)> {
        for (i, slot) in SLOTS.iter().enumerate() {
            if slot.get().is_some_and(|r| r.name() == name) {
                return Some((SHIPPED + i, KERNELS[SHIPPED + i]));
            }
        }
        AllOps.find_custom(name)
    }
}

/// Registers a custom operator: models whose operators have `custom_code` `name` (a
/// NUL-terminated string of at most [`TESSERA_MAX_CUSTOM_NAME`] bytes) run `prepare` (may be
/// null) at set-up and `eval` at each invoke, each given `user`. Interpreters set up before
/// the call do not see it.
///
/// `TESSERA_BAD_ARGUMENT` for a name already registered, empty or too long;
/// `TESSERA_TOO_LARGE` when [`TESSERA_MAX_CUSTOM_OPS`] are registered; `TESSERA_NULL_ARGUMENT`
/// for a null name or `eval`.
///
/// # Safety
/// `name` is null or a NUL-terminated string; `prepare` and `eval` are safe to call with any
/// context of their kind and `user`, from any thread that sets up or invokes an interpreter,
/// for as long as the process runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_register_custom_op(
    name: *const c_char,
    prepare: TesseraCustomPrepare,
    eval: TesseraCustomEval,
    user: *mut c_void,
) -> TesseraStatus {
    if name.is_null() || eval.is_none() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    // SAFETY: `name` is a NUL-terminated string (caller), non-null (checked).
    let name = unsafe { core::ffi::CStr::from_ptr(name) }.to_bytes();
    if name.is_empty() || name.len() > TESSERA_MAX_CUSTOM_NAME {
        return TesseraStatus::TESSERA_BAD_ARGUMENT;
    }
    // A poisoned lock only means another registration panicked; the slots are still whole.
    let _held = REGISTERING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if SLOTS
        .iter()
        .any(|s| s.get().is_some_and(|r| r.name() == name))
    {
        return TesseraStatus::TESSERA_BAD_ARGUMENT;
    }
    let Some(free) = SLOTS.iter().find(|s| s.get().is_none()) else {
        return TesseraStatus::TESSERA_TOO_LARGE;
    };
    let mut r = Registered {
        name: [0; TESSERA_MAX_CUSTOM_NAME],
        len: name.len(),
        prepare,
        eval,
        user,
    };
    r.name[..name.len()].copy_from_slice(name);
    match free.set(r) {
        Ok(()) => TesseraStatus::TESSERA_OK,
        Err(_) => TesseraStatus::TESSERA_FAILED,
    }
}

/// # Safety
/// `ctx` is null or the context a `prepare` was given, during that call.
unsafe fn prepare_ctx<'a>(ctx: *mut TesseraOpPrepare) -> Option<&'a mut Prepare<'a>> {
    // SAFETY: caller contract: null or the live context of this call.
    unsafe { ctx.cast::<Prepare<'a>>().as_mut() }
}

/// # Safety
/// `ctx` is null or the context an `eval` was given, during that call.
unsafe fn eval_ctx<'a>(ctx: *mut TesseraOpEval) -> Option<&'a mut Eval<'a>> {
    // SAFETY: caller contract: null or the live context of this call.
    unsafe { ctx.cast::<Eval<'a>>().as_mut() }
}

/// Writes `v` to `out` if it is not null.
///
/// # Safety
/// `out` is null or writable.
unsafe fn put<T>(out: *mut T, v: T) -> TesseraStatus {
    if out.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    // SAFETY: non-null (checked) and writable (caller).
    unsafe { out.write(v) };
    TesseraStatus::TESSERA_OK
}

/// Runs `get` on the running `eval`'s context and writes the address and length it gives to
/// `data` and `len`: null pointers are refused before `get` runs (it may take an output).
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `data` and `len` null or writable.
unsafe fn eval_bytes<P>(
    ctx: *mut TesseraOpEval,
    data: *mut P,
    len: *mut usize,
    get: impl FnOnce(&mut Eval<'_>) -> Result<(P, usize), TesseraStatus>,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { eval_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if data.is_null() || len.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match get(c) {
        Ok((p, n)) => {
            // SAFETY: non-null (checked) and writable (caller).
            unsafe { data.write(p) };
            // SAFETY: as above.
            unsafe { put(len, n) }
        }
        Err(s) => s,
    }
}

/// The operator's inputs (optional ones included; 0 for a null context).
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_input_count(ctx: *mut TesseraOpPrepare) -> usize {
    // SAFETY: caller contract.
    unsafe { prepare_ctx(ctx) }.map_or(0, |c| c.input_count())
}

/// The operator's outputs (0 for a null context).
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_output_count(ctx: *mut TesseraOpPrepare) -> usize {
    // SAFETY: caller contract.
    unsafe { prepare_ctx(ctx) }.map_or(0, |c| c.output_count())
}

/// Input `i`'s type and shape. `TESSERA_NO_SUCH_TENSOR` past the inputs or for an absent
/// optional one.
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`; `info` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_input_info(
    ctx: *mut TesseraOpPrepare,
    i: usize,
    info: *mut TesseraTensorInfo,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { prepare_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    match c.input(i) {
        // SAFETY: `info` is null or writable (caller).
        Ok(d) => unsafe { put(info, tensor_info(d.dtype, d.shape)) },
        Err(_) => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Output `i`'s type and shape, as the model states them.
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`; `info` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_output_info(
    ctx: *mut TesseraOpPrepare,
    i: usize,
    info: *mut TesseraTensorInfo,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { prepare_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    match c.output(i) {
        // SAFETY: `info` is null or writable (caller).
        Ok(d) => unsafe { put(info, tensor_info(d.dtype, d.shape)) },
        Err(_) => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// The operator's `custom_options` bytes (a FlexBuffer for most; empty when there are none),
/// valid while the model is.
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`; `data` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_custom_options(
    ctx: *mut TesseraOpPrepare,
    data: *mut *const u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { prepare_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if data.is_null() || len.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    let bytes = c.custom_options();
    // SAFETY: both non-null (checked) and writable (caller).
    unsafe {
        put(data, bytes.as_ptr());
    }
    // SAFETY: as above.
    unsafe { put(len, bytes.len()) }
}

/// Asks for `bytes` of scratch, which `eval` gets at each invoke (its contents are not kept
/// between invokes; other operators reuse them). The largest request of the calls counts.
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_request_scratch(
    ctx: *mut TesseraOpPrepare,
    bytes: usize,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { prepare_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    c.request_scratch(bytes);
    TesseraStatus::TESSERA_OK
}

/// Asks for `bytes` of persistent memory (zeroed at set-up and by
/// `tessera_interpreter_reset_state`, kept between invokes: an operator's state), which `eval`
/// gets with [`tessera_op_eval_persistent`].
///
/// # Safety
/// `ctx` is null or the context of the running `prepare`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_prepare_request_persistent(
    ctx: *mut TesseraOpPrepare,
    bytes: usize,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { prepare_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    c.request_persistent(bytes);
    TesseraStatus::TESSERA_OK
}

/// Input `i`'s type and shape at run time. `TESSERA_NO_SUCH_TENSOR` past the inputs or for an
/// absent optional one.
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `info` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_eval_input_info(
    ctx: *mut TesseraOpEval,
    i: usize,
    info: *mut TesseraTensorInfo,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { eval_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    match (c.input_type(i), c.input_shape(i)) {
        // SAFETY: `info` is null or writable (caller).
        (Ok(t), Ok(s)) => unsafe { put(info, tensor_info(t, s)) },
        _ => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Input `i`'s bytes (host byte order), valid during this `eval`.
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `data` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_eval_input(
    ctx: *mut TesseraOpEval,
    i: usize,
    data: *mut *const u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: caller contract, passed on.
    unsafe {
        eval_bytes(ctx, data, len, |c| {
            let b = c.input_bytes(i).map_err(|_| NO_TENSOR)?;
            Ok((b.as_ptr(), b.len()))
        })
    }
}

/// Output `i`'s type and shape.
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `info` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_eval_output_info(
    ctx: *mut TesseraOpEval,
    i: usize,
    info: *mut TesseraTensorInfo,
) -> TesseraStatus {
    // SAFETY: caller contract.
    let Some(c) = (unsafe { eval_ctx(ctx) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    match (c.output_type(i), c.output_shape(i)) {
        // SAFETY: `info` is null or writable (caller).
        (Ok(t), Ok(s)) => unsafe { put(info, tensor_info(t, s)) },
        _ => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Output `i`'s bytes to write (host byte order), valid during this `eval`; each output may be
/// taken once per `eval`.
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `data` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_eval_output(
    ctx: *mut TesseraOpEval,
    i: usize,
    data: *mut *mut u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: caller contract, passed on.
    unsafe {
        eval_bytes(ctx, data, len, |c| {
            let b = c.output_bytes(i).map_err(|_| NO_TENSOR)?;
            Ok((b.as_mut_ptr(), b.len()))
        })
    }
}

/// The scratch `prepare` asked for (empty when none), valid during this `eval`.
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `data` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_eval_scratch(
    ctx: *mut TesseraOpEval,
    data: *mut *mut u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: caller contract, passed on.
    unsafe {
        eval_bytes(ctx, data, len, |c| {
            let b = c.scratch();
            Ok((b.as_mut_ptr(), b.len()))
        })
    }
}

/// The persistent bytes `prepare` asked for (empty when none), kept between invokes and
/// zeroed by `tessera_interpreter_reset_state`; valid during this `eval`.
///
/// # Safety
/// `ctx` is null or the context of the running `eval`; `data` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_op_eval_persistent(
    ctx: *mut TesseraOpEval,
    data: *mut *mut u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: caller contract, passed on.
    unsafe {
        eval_bytes(ctx, data, len, |c| {
            let b = c
                .persistent_mut()
                .map_err(|_| TesseraStatus::TESSERA_FAILED)?;
            Ok((b.as_mut_ptr(), b.len()))
        })
    }
}

#[cfg(test)]
mod tests;
