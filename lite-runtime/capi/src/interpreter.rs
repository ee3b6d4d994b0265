//! The model interpreter across the C ABI: a C caller owns every byte. It asks for the arena's
//! size ([`tessera_model_arena_size`]) and the interpreter struct's size and alignment
//! ([`tessera_interpreter_size`], [`tessera_interpreter_align`]), allocates both however it
//! likes, sets the interpreter up over them ([`tessera_interpreter_init`]), fills inputs,
//! invokes and reads outputs. Only [`tessera_model_arena_size`] allocates (a temporary plan
//! table, one entry per tensor and operator); set-up, invoke and every accessor do not.
//!
//! The model bytes and the arena must stay alive and unmoved while the interpreter is used;
//! [`tessera_interpreter_deinit`] ends its use (it frees nothing: the caller owns the memory).

use core::ffi::{c_char, c_void};

use tessera_core::plan::{Lifetime, PlanBuffer};
use tessera_lite::interpreter::{
    ErrorKind, Interpreter, InterpreterError, OpTimes, Options, Profiler, Shape,
};
use tessera_lite::model::{Model, ModelError, TensorType};

use crate::custom::CapiOps;
use crate::status::TesseraStatus;

/// An interpreter, in memory the caller allocates: [`tessera_interpreter_size`] bytes aligned
/// to [`tessera_interpreter_align`]. Opaque.
pub struct TesseraInterpreter {
    _opaque: [u8; 0],
}

/// Where and why a call failed. `message` is NUL-terminated (cut to fit).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TesseraError {
    /// The operator concerned (its index in `subgraph_index`'s subgraph), or -1.
    pub operator_index: i64,
    /// The tensor concerned, or -1.
    pub tensor_index: i64,
    /// For a malformed model: the byte offset in the file; else -1.
    pub byte_offset: i64,
    /// For `TESSERA_BUFFER_TOO_SMALL`: the bytes needed; else 0.
    pub needed: u64,
    /// For malformed data: the sample concerned (from 0, in the stream); else -1.
    pub sample: i64,
    /// The subgraph of the operator or tensor when it is not the one run (a loop's body, a
    /// branch); else -1.
    pub subgraph_index: i64,
    /// What went wrong, for people.
    pub message: [c_char; 256],
}

/// A tensor's element type (TensorFlow Lite's `TensorType` code), shape and bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TesseraTensorInfo {
    /// `TensorType` code: 0 FLOAT32, 2 INT32, 3 UINT8, 4 INT64, 5 STRING, 6 BOOL, 7 INT16,
    /// 9 INT8, ...
    pub tensor_type: i32,
    /// Dimensions used in `dims`.
    pub rank: u32,
    /// The dimensions (the first `rank`).
    pub dims: [u64; 6],
    /// Bytes of the tensor's data (strings: the byte budget).
    pub bytes: u64,
}

/// cbindgen:ignore
type Interp = Interpreter<'static, 'static>;

pub(crate) fn write_message(err: &mut TesseraError, text: &dyn core::fmt::Display) {
    struct Cursor<'b> {
        buf: &'b mut [c_char; 256],
        at: usize,
    }
    impl core::fmt::Write for Cursor<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            for &b in s.as_bytes() {
                if self.at + 1 >= self.buf.len() {
                    break;
                }
                self.buf[self.at] = b as c_char;
                self.at += 1;
            }
            Ok(())
        }
    }
    let mut c = Cursor {
        buf: &mut err.message,
        at: 0,
    };
    let _ = core::fmt::write(&mut c, format_args!("{text}"));
    let at = c.at;
    err.message[at] = 0;
}

pub(crate) fn blank() -> TesseraError {
    TesseraError {
        operator_index: -1,
        tensor_index: -1,
        byte_offset: -1,
        needed: 0,
        sample: -1,
        subgraph_index: -1,
        message: [0; 256],
    }
}

/// # Safety
/// `err` is null or writable.
pub(crate) unsafe fn report(err: *mut TesseraError, e: TesseraError) {
    if !err.is_null() {
        // SAFETY: non-null, and writable by the caller's contract.
        unsafe { err.write(e) };
    }
}

fn model_error(e: &ModelError) -> (TesseraStatus, TesseraError) {
    let mut r = blank();
    r.byte_offset = i64::try_from(e.offset).unwrap_or(-1);
    r.operator_index = e.location.operator.map_or(-1, |i| i as i64);
    r.tensor_index = e.location.tensor.map_or(-1, |i| i as i64);
    write_message(&mut r, e);
    (TesseraStatus::TESSERA_MALFORMED, r)
}

fn interpreter_error(e: &InterpreterError) -> (TesseraStatus, TesseraError) {
    let mut r = blank();
    r.operator_index = e.operator.map_or(-1, |i| i as i64);
    r.tensor_index = e.tensor.map_or(-1, |i| i as i64);
    r.subgraph_index = e.subgraph.map_or(-1, |i| i as i64);
    let status = match e.kind {
        ErrorKind::ArenaTooSmall { needed, .. } => {
            r.needed = needed as u64;
            TesseraStatus::TESSERA_BUFFER_TOO_SMALL
        }
        ErrorKind::InputStrings { needed, .. } => {
            r.needed = needed as u64;
            TesseraStatus::TESSERA_BUFFER_TOO_SMALL
        }
        ErrorKind::UnregisteredOp { .. }
        | ErrorKind::UnknownOp { .. }
        | ErrorKind::CustomOp
        | ErrorKind::TensorType { .. } => TesseraStatus::TESSERA_UNSUPPORTED,
        ErrorKind::NoSuchTensor | ErrorKind::WrongType { .. } => {
            TesseraStatus::TESSERA_NO_SUCH_TENSOR
        }
        ErrorKind::TooLarge => TesseraStatus::TESSERA_TOO_LARGE,
        _ => TesseraStatus::TESSERA_FAILED,
    };
    write_message(&mut r, e);
    (status, r)
}

/// # Safety
/// `p` is null or readable for `len` bytes for `'a`.
unsafe fn bytes<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: caller contract: readable for `len` bytes while `'a` lasts.
    Some(unsafe { core::slice::from_raw_parts(p, len) })
}

/// Bytes of an interpreter struct.
#[unsafe(no_mangle)]
pub extern "C" fn tessera_interpreter_size() -> usize {
    size_of::<Interp>()
}

/// Alignment an interpreter struct needs.
#[unsafe(no_mangle)]
pub extern "C" fn tessera_interpreter_align() -> usize {
    align_of::<Interp>()
}

/// The most threads an interpreter of the C library runs.
const MAX_THREADS: usize = 64;

fn options(string_bytes: usize, threads: usize) -> Options {
    let mut o = Options::default();
    if string_bytes > 0 {
        o.string_bytes = string_bytes;
    }
    o.threads = threads.clamp(1, MAX_THREADS);
    o
}

/// Checks the model (`model_len` bytes) and writes to `*arena_size` the bytes an arena needs
/// for it, each string tensor that is not a constant getting `string_bytes` (0: the default,
/// 1 024).
///
/// # Safety
/// `model` is readable for `model_len` bytes; `arena_size` writable; `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_model_arena_size(
    model: *const u8,
    model_len: usize,
    string_bytes: usize,
    arena_size: *mut usize,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: the caller's contract is this function's.
    unsafe { tessera_model_arena_size_threads(model, model_len, string_bytes, 1, arena_size, err) }
}

/// [`tessera_model_arena_size`] for an interpreter of `threads` threads
/// ([`tessera_interpreter_init_threads`]): each thread's scratch counted.
///
/// # Safety
/// As [`tessera_model_arena_size`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_model_arena_size_threads(
    model: *const u8,
    model_len: usize,
    string_bytes: usize,
    threads: usize,
    arena_size: *mut usize,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: `model` is null or readable for `model_len` bytes, unchanged until deinit (caller).
    let Some(bytes) = (unsafe { bytes(model, model_len) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if arena_size.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    let model = match Model::load(bytes) {
        Ok(m) => m,
        Err(e) => {
            let (s, r) = model_error(&e);
            // SAFETY: `err` is null or writable (caller).
            unsafe { report(err, r) };
            return s;
        }
    };
    let options = options(string_bytes, threads);
    let required = Interpreter::plan_entries(&model, &options).and_then(|entries| {
        let mut plan = vec![PlanBuffer::new(0, 1, Lifetime::ALWAYS); entries];
        Interpreter::required_with(&model, &CapiOps, &options, &mut plan)
    });
    match required {
        Ok(n) => {
            // SAFETY: `arena_size` is non-null (checked) and writable (caller).
            unsafe { arena_size.write(n) };
            TesseraStatus::TESSERA_OK
        }
        Err(e) => {
            let (s, r) = interpreter_error(&e);
            // SAFETY: `err` is null or writable (caller).
            unsafe { report(err, r) };
            s
        }
    }
}

/// Sets up an interpreter in `interp` (memory of [`tessera_interpreter_size`] bytes, aligned
/// to [`tessera_interpreter_align`]) for the model, over the arena. The model and the arena
/// must outlive the interpreter and not move. On failure `interp` holds nothing. An arena of
/// any length may be tried, 0 included (then `arena` may be null): one too small is
/// `TESSERA_BUFFER_TOO_SMALL` with the bytes needed in `err`.
///
/// # Safety
/// `interp` is writable for [`tessera_interpreter_size`] bytes; `model` readable for
/// `model_len` bytes and `arena` (null only if `arena_len` is 0) writable for `arena_len`
/// bytes, both until
/// [`tessera_interpreter_deinit`], and not otherwise used meanwhile; `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_init(
    interp: *mut TesseraInterpreter,
    model: *const u8,
    model_len: usize,
    arena: *mut u8,
    arena_len: usize,
    string_bytes: usize,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: the caller's contract is this function's.
    unsafe {
        tessera_interpreter_init_threads(
            interp,
            model,
            model_len,
            arena,
            arena_len,
            string_bytes,
            1,
            err,
        )
    }
}

/// [`tessera_interpreter_init`] with `threads` threads running the large kernels
/// (convolutions, FULLY_CONNECTED), the caller's included: a pool of `threads - 1` started
/// here and stopped by [`tessera_interpreter_deinit`]. 0 or 1: none; at most 64. Results are
/// identical for any number; size the arena with [`tessera_model_arena_size_threads`] for the
/// same count.
///
/// # Safety
/// As [`tessera_interpreter_init`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tessera_interpreter_init_threads(
    interp: *mut TesseraInterpreter,
    model: *const u8,
    model_len: usize,
    arena: *mut u8,
    arena_len: usize,
    string_bytes: usize,
    threads: usize,
    err: *mut TesseraError,
) -> TesseraStatus {
    if interp.is_null() || (arena.is_null() && arena_len > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    if (interp as usize) % align_of::<Interp>() != 0 {
        let mut r = blank();
        write_message(
            &mut r,
            &"interpreter memory is not aligned to tessera_interpreter_align()",
        );
        // SAFETY: `err` is null or writable (caller).
        unsafe { report(err, r) };
        return TesseraStatus::TESSERA_BAD_ARGUMENT;
    }
    // SAFETY: caller contract: readable until deinit.
    let Some(bytes) = (unsafe { bytes(model, model_len) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    let arena: &'static mut [u8] = if arena.is_null() {
        &mut [] // an empty arena may be null; only a graph that needs no bytes sets up in it
    } else {
        // SAFETY: caller contract: writable for `arena_len` bytes until deinit, used by no one
        // else.
        unsafe { core::slice::from_raw_parts_mut(arena, arena_len) }
    };
    let model = match Model::load(bytes) {
        Ok(m) => m,
        Err(e) => {
            let (s, r) = model_error(&e);
            // SAFETY: `err` is null or writable (caller).
            unsafe { report(err, r) };
            return s;
        }
    };
    match Interpreter::new(model, &CapiOps, arena, &options(string_bytes, threads)) {
        Ok(it) => {
            // SAFETY: checked non-null and aligned; writable for its size (caller contract).
            unsafe { interp.cast::<Interp>().write(it) };
            TesseraStatus::TESSERA_OK
        }
        Err(e) => {
            let (s, r) = interpreter_error(&e);
            // SAFETY: `err` is null or writable (caller).
            unsafe { report(err, r) };
            s
        }
    }
}

/// # Safety
/// `p` is null or points to an interpreter set up by [`tessera_interpreter_init`].
unsafe fn get<'a>(p: *const TesseraInterpreter) -> Option<&'a Interp> {
    // SAFETY: caller contract: null or a live interpreter.
    unsafe { p.cast::<Interp>().as_ref() }
}

/// # Safety
/// As [`get`], and not otherwise borrowed meanwhile.
unsafe fn get_mut<'a>(p: *mut TesseraInterpreter) -> Option<&'a mut Interp> {
    // SAFETY: caller contract: null or a live interpreter, used by this call only.
    unsafe { p.cast::<Interp>().as_mut() }
}

/// Ends the interpreter's use of the model and arena (nothing to free: the caller owns all
/// the memory). `interp` may then be reused or freed.
///
/// # Safety
/// `interp` is null or set up by [`tessera_interpreter_init`] and not deinitialised yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_deinit(interp: *mut TesseraInterpreter) {
    if !interp.is_null() {
        // SAFETY: a live interpreter (caller contract), dropped once.
        unsafe { interp.cast::<Interp>().drop_in_place() };
    }
}

/// Bytes of the arena in use (0 for a null interpreter).
///
/// # Safety
/// `interp` is null or a live interpreter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_arena_used(
    interp: *const TesseraInterpreter,
) -> usize {
    // SAFETY: `interp` is null or a live interpreter (caller).
    unsafe { get(interp) }.map_or(0, Interp::arena_used_bytes)
}

/// Number of graph inputs (0 for a null interpreter).
///
/// # Safety
/// `interp` is null or a live interpreter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_input_count(
    interp: *const TesseraInterpreter,
) -> usize {
    // SAFETY: `interp` is null or a live interpreter (caller).
    unsafe { get(interp) }.map_or(0, Interp::input_count)
}

/// Number of graph outputs (0 for a null interpreter).
///
/// # Safety
/// `interp` is null or a live interpreter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_output_count(
    interp: *const TesseraInterpreter,
) -> usize {
    // SAFETY: `interp` is null or a live interpreter (caller).
    unsafe { get(interp) }.map_or(0, Interp::output_count)
}

fn info(it: &Interp, t: usize) -> Option<TesseraTensorInfo> {
    Some(tensor_info(
        it.tensor_type(t).ok()?,
        it.tensor_shape(t).ok()?,
    ))
}

/// A tensor's type code, dims and bytes (0 for a type without a fixed size: strings).
pub(crate) fn tensor_info(ty: TensorType, shape: Shape) -> TesseraTensorInfo {
    let mut dims = [0u64; 6];
    for (d, &s) in dims.iter_mut().zip(shape.dims()) {
        *d = s as u64;
    }
    let bytes = ty.bits().map_or(0, |b| {
        (shape.elements() as u64).saturating_mul(u64::from(b) / 8)
    });
    TesseraTensorInfo {
        tensor_type: ty as i32,
        rank: shape.rank() as u32,
        dims,
        bytes,
    }
}

/// Writes graph input `i`'s type and shape to `*out`.
///
/// # Safety
/// `interp` is null or a live interpreter; `out` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_input_info(
    interp: *const TesseraInterpreter,
    i: usize,
    out: *mut TesseraTensorInfo,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let Some(it) = (unsafe { get(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if out.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match it.input_tensor(i).ok().and_then(|t| info(it, t)) {
        Some(x) => {
            // SAFETY: `out` is non-null (checked) and writable (caller).
            unsafe { out.write(x) };
            TesseraStatus::TESSERA_OK
        }
        None => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Writes graph output `j`'s type and shape to `*out`.
///
/// # Safety
/// `interp` is null or a live interpreter; `out` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_output_info(
    interp: *const TesseraInterpreter,
    j: usize,
    out: *mut TesseraTensorInfo,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let Some(it) = (unsafe { get(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if out.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match it.output_tensor(j).ok().and_then(|t| info(it, t)) {
        Some(x) => {
            // SAFETY: `out` is non-null (checked) and writable (caller).
            unsafe { out.write(x) };
            TesseraStatus::TESSERA_OK
        }
        None => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// The position of the graph input named `name` (a NUL-terminated tensor name), or -1.
///
/// # Safety
/// `interp` is null or a live interpreter; `name` null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_input_index(
    interp: *const TesseraInterpreter,
    name: *const c_char,
) -> i64 {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let it = unsafe { get(interp) };
    // SAFETY: `name` is null or NUL-terminated (caller).
    let name = unsafe { c_str(name) };
    let (Some(it), Some(name)) = (it, name) else {
        return -1;
    };
    it.input_by_name(name).map_or(-1, |i| i as i64)
}

/// The position of the graph output named `name` (a NUL-terminated tensor name), or -1.
///
/// # Safety
/// `interp` is null or a live interpreter; `name` null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_output_index(
    interp: *const TesseraInterpreter,
    name: *const c_char,
) -> i64 {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let it = unsafe { get(interp) };
    // SAFETY: `name` is null or NUL-terminated (caller).
    let name = unsafe { c_str(name) };
    let (Some(it), Some(name)) = (it, name) else {
        return -1;
    };
    it.output_by_name(name).map_or(-1, |i| i as i64)
}

/// # Safety
/// `p` is null or NUL-terminated.
unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null and NUL-terminated (caller contract).
    unsafe { core::ffi::CStr::from_ptr(p) }.to_str().ok()
}

/// Writes to `*data` and `*len` where graph input `i`'s bytes are, to fill in the host's
/// byte order (not for string inputs: use [`tessera_interpreter_set_input_strings`]).
///
/// # Safety
/// `interp` is null or a live interpreter; `data`, `len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_input_data(
    interp: *mut TesseraInterpreter,
    i: usize,
    data: *mut *mut u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter, not otherwise borrowed during this
    // call (caller).
    let Some(it) = (unsafe { get_mut(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if data.is_null() || len.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match it.input_bytes_mut(i) {
        Ok(b) => {
            // SAFETY: `data` is non-null (checked) and writable (caller).
            unsafe { data.write(b.as_mut_ptr()) };
            // SAFETY: `len` is non-null (checked) and writable (caller).
            unsafe { len.write(b.len()) };
            TesseraStatus::TESSERA_OK
        }
        Err(_) => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Sets string input `i` to `n` strings (`strings[k]`, `lens[k]` bytes each), encoded into
/// its byte budget in the arena; nothing is allocated. Over the budget:
/// `TESSERA_BUFFER_TOO_SMALL` with the bytes needed in `err->needed`.
///
/// # Safety
/// `interp` is null or a live interpreter; `strings` and `lens` hold `n` entries, each string
/// readable for its length (null only if its length is 0); `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_set_input_strings(
    interp: *mut TesseraInterpreter,
    i: usize,
    strings: *const *const u8,
    lens: *const usize,
    n: usize,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter, not otherwise borrowed during this
    // call (caller).
    let Some(it) = (unsafe { get_mut(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if n > 0 && (strings.is_null() || lens.is_null()) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    let ptrs = if n == 0 {
        &[][..]
    } else {
        // SAFETY: `strings` holds `n` pointers (caller contract; non-null, checked above).
        unsafe { core::slice::from_raw_parts(strings, n) }
    };
    let lens = if n == 0 {
        &[][..]
    } else {
        // SAFETY: `lens` holds `n` lengths (caller contract; non-null, checked above).
        unsafe { core::slice::from_raw_parts(lens, n) }
    };
    if ptrs.iter().zip(lens).any(|(p, &l)| p.is_null() && l > 0) {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    let each = ptrs.iter().zip(lens).map(|(&p, &l)| {
        // SAFETY: each pointer is readable for its length (caller contract), null only for 0.
        unsafe { bytes(p, l) }.unwrap_or(&[])
    });
    finish(it.set_input_strings(i, each), err)
}

/// Runs the model. Allocates nothing. A bad index in the data, or strings over a budget,
/// fail with the operator named in `err`.
///
/// # Safety
/// `interp` is null or a live interpreter; `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_invoke(
    interp: *mut TesseraInterpreter,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter, not otherwise borrowed during this
    // call (caller).
    let Some(it) = (unsafe { get_mut(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    finish(it.invoke(), err)
}

/// Number of operators in the subgraph run: the entries [`tessera_interpreter_invoke_profiled`]
/// times (0 for a null interpreter).
///
/// # Safety
/// `interp` is null or a live interpreter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_operator_count(
    interp: *const TesseraInterpreter,
) -> usize {
    // SAFETY: `interp` is null or a live interpreter (caller).
    unsafe { get(interp) }.map_or(0, Interp::operator_count)
}

/// [`tessera_interpreter_invoke`], adding each operator's wall-clock nanoseconds into
/// `nanos[op]` (so that invokes add up: zero it to time one). Operators past `count` are not
/// timed; `nanos` may be null with `count` 0. Allocates nothing.
///
/// # Safety
/// `interp` is null or a live interpreter; `nanos` null or writable for `count` values; `err`
/// null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_invoke_profiled(
    interp: *mut TesseraInterpreter,
    nanos: *mut u64,
    count: usize,
    err: *mut TesseraError,
) -> TesseraStatus {
    let nanos: &mut [u64] = if nanos.is_null() {
        if count > 0 {
            return TesseraStatus::TESSERA_NULL_ARGUMENT;
        }
        &mut []
    } else {
        // SAFETY: `nanos` is writable for `count` values, not otherwise used meanwhile
        // (caller).
        unsafe { core::slice::from_raw_parts_mut(nanos, count) }
    };
    // SAFETY: `interp` is null or a live interpreter, not otherwise borrowed during this
    // call (caller).
    let Some(it) = (unsafe { get_mut(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    finish(it.invoke_profiled(&mut OpTimes::new(nanos)), err)
}

/// Called with the operator's index (in the subgraph run) and the caller's `user` pointer.
pub type TesseraOperatorHook = Option<unsafe extern "C" fn(user: *mut c_void, op: usize)>;

/// The hooks [`tessera_interpreter_invoke_hooked`] calls around each operator.
struct Hooks {
    begin: TesseraOperatorHook,
    end: TesseraOperatorHook,
    user: *mut c_void,
}

impl Profiler for Hooks {
    fn begin(&mut self, op: usize) {
        if let Some(f) = self.begin {
            // SAFETY: a function the caller gave for this, called with its own `user`.
            unsafe { f(self.user, op) }
        }
    }

    fn end(&mut self, op: usize) {
        if let Some(f) = self.end {
            // SAFETY: as in `begin`.
            unsafe { f(self.user, op) }
        }
    }
}

/// [`tessera_interpreter_invoke`], calling `begin(user, op)` before and `end(user, op)` after
/// each operator (either may be null; `end` is called for a failing operator too): firmware
/// reads its cycle counter there (DWT `CYCCNT` on a Cortex-M). Allocates nothing.
///
/// # Safety
/// `interp` is null or a live interpreter; `begin` and `end` null or safe to call with `user`;
/// they must not use the interpreter; `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_invoke_hooked(
    interp: *mut TesseraInterpreter,
    begin: TesseraOperatorHook,
    end: TesseraOperatorHook,
    user: *mut c_void,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter, not otherwise borrowed during this
    // call (caller).
    let Some(it) = (unsafe { get_mut(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    finish(it.invoke_profiled(&mut Hooks { begin, end, user }), err)
}

/// A call's status, its error reported into `err`.
fn finish(r: Result<(), InterpreterError>, err: *mut TesseraError) -> TesseraStatus {
    match r {
        Ok(()) => TesseraStatus::TESSERA_OK,
        Err(e) => {
            let (s, r) = interpreter_error(&e);
            // SAFETY: `err` is null or writable (caller).
            unsafe { report(err, r) };
            s
        }
    }
}

/// Sets the state kept between invokes back to what set-up left: variable tensors to their
/// initial values, kernels' state (an LSTM's cell, delay lines) as their set-up fills it,
/// resource variables cleared so that the model's CALL_ONCE initialises them again at the
/// next invoke. Inputs and outputs are left. Allocates nothing.
///
/// # Safety
/// `interp` is null or a live interpreter; `err` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_reset_state(
    interp: *mut TesseraInterpreter,
    err: *mut TesseraError,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter, not otherwise borrowed during this
    // call (caller).
    let Some(it) = (unsafe { get_mut(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    finish(it.reset_state(), err)
}

/// Writes to `*data` and `*len` where graph output `j`'s bytes are (host byte order; for a
/// string output, its TFLite encoding).
///
/// # Safety
/// `interp` is null or a live interpreter; `data`, `len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_output_data(
    interp: *const TesseraInterpreter,
    j: usize,
    data: *mut *const u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let Some(it) = (unsafe { get(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if data.is_null() || len.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match it.output_bytes(j) {
        Ok(b) => {
            // SAFETY: `data` is non-null (checked) and writable (caller).
            unsafe { data.write(b.as_ptr()) };
            // SAFETY: `len` is non-null (checked) and writable (caller).
            unsafe { len.write(b.len()) };
            TesseraStatus::TESSERA_OK
        }
        Err(_) => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Writes to `*count` the number of strings in string output `j`.
///
/// # Safety
/// `interp` is null or a live interpreter; `count` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_output_string_count(
    interp: *const TesseraInterpreter,
    j: usize,
    count: *mut usize,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let Some(it) = (unsafe { get(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if count.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match it.output_strings(j) {
        Ok(s) => {
            // SAFETY: `count` is non-null (checked) and writable (caller).
            unsafe { count.write(s.len()) };
            TesseraStatus::TESSERA_OK
        }
        Err(_) => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

/// Writes to `*data` and `*len` string `k` of string output `j` (not NUL-terminated; valid
/// until the next invoke).
///
/// # Safety
/// `interp` is null or a live interpreter; `data`, `len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tessera_interpreter_output_string(
    interp: *const TesseraInterpreter,
    j: usize,
    k: usize,
    data: *mut *const u8,
    len: *mut usize,
) -> TesseraStatus {
    // SAFETY: `interp` is null or a live interpreter (caller).
    let Some(it) = (unsafe { get(interp) }) else {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    };
    if data.is_null() || len.is_null() {
        return TesseraStatus::TESSERA_NULL_ARGUMENT;
    }
    match it.output_strings(j).ok().and_then(|s| s.get(k)) {
        Some(s) => {
            // SAFETY: `data` is non-null (checked) and writable (caller).
            unsafe { data.write(s.as_ptr()) };
            // SAFETY: `len` is non-null (checked) and writable (caller).
            unsafe { len.write(s.len()) };
            TesseraStatus::TESSERA_OK
        }
        None => TesseraStatus::TESSERA_NO_SUCH_TENSOR,
    }
}

#[cfg(test)]
mod tests;
