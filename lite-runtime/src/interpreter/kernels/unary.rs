//! Element-wise unary ops: activations, softmaxes and casts, as TensorFlow Lite's reference
//! kernels compute them.
//!
//! The activations and softmaxes are float32 only (LiteRT runs their int8/int16 forms
//! quantized: issue 16); CAST converts between float32, int32, int64, bool, int8, uint8 and
//! int16. The math is in plain functions over slices ([`logistic`], [`softmax_rows`],
//! [`cast_slice`]...) that the kernels call and the tests check directly. `exp` and `tanh` are
//! branch-free polynomials ([`exp`], [`tanh`]) so the loops vectorize, as LiteRT's Eigen
//! kernels (themselves approximations) do; they stay within 2e-6 relative of the true values.

use super::quantized;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, BuiltinOptions, TensorType};
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// LOGISTIC.
pub static LOGISTIC: Kernel = Kernel {
    op: BuiltinOperator::Logistic,
    prepare: prepare_logistic,
    init: Some(quantized::activation::init_logistic),
    eval: eval_logistic,
};

/// TANH.
pub static TANH: Kernel = Kernel {
    op: BuiltinOperator::Tanh,
    prepare: prepare_tanh,
    init: Some(quantized::activation::init_tanh),
    eval: eval_tanh,
};

/// RELU.
pub static RELU: Kernel = Kernel {
    op: BuiltinOperator::Relu,
    prepare: prepare_float,
    init: None,
    eval: eval_relu,
};

/// RELU6.
pub static RELU6: Kernel = Kernel {
    op: BuiltinOperator::Relu6,
    prepare: prepare_float,
    init: None,
    eval: eval_relu6,
};

/// LEAKY_RELU.
pub static LEAKY_RELU: Kernel = Kernel {
    op: BuiltinOperator::LeakyRelu,
    prepare: prepare_leaky_relu,
    init: None,
    eval: eval_leaky_relu,
};

/// SOFTMAX.
pub static SOFTMAX: Kernel = Kernel {
    op: BuiltinOperator::Softmax,
    prepare: prepare_softmax,
    init: Some(quantized::softmax::init),
    eval: eval_softmax,
};

/// SOFTMAX for int8 inputs only (as TensorFlow Lite Micro's `Register_SOFTMAX_INT8`): no
/// float32 or int16 body, and no `init` (it builds the int16 tables). Other types stop set-up
/// with [`KernelError::Unsupported`].
pub static SOFTMAX_INT8: Kernel = Kernel {
    op: BuiltinOperator::Softmax,
    prepare: prepare_softmax_int8,
    init: None,
    eval: quantized::softmax::eval::<false>,
};

/// LOG_SOFTMAX.
pub static LOG_SOFTMAX: Kernel = Kernel {
    op: BuiltinOperator::LogSoftmax,
    prepare: prepare_log_softmax,
    init: None,
    eval: eval_log_softmax,
};

/// CAST.
pub static CAST: Kernel = Kernel {
    op: BuiltinOperator::Cast,
    prepare: prepare_cast,
    init: None,
    eval: eval_cast,
};

/// What every kernel here keeps: the element count, the softmax depth (last dimension), a
/// float option (LEAKY_RELU's alpha, SOFTMAX's beta).
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Params {
    elements: u32,
    depth: u32,
    value: f32,
}

const SHORT: KernelError = KernelError::Mismatch {
    what: "tensor shorter than its shape",
};

/// Input `i`'s first `n` elements. An empty tensor is not viewed at all: the interpreter
/// hands out an absent tensor's bytes as a bare `&[]`, whose address no typed view accepts.
pub(super) fn input_n<'a, T: Element>(
    ctx: &Eval<'a>,
    i: usize,
    n: usize,
) -> Result<&'a [T], KernelError> {
    if n == 0 {
        return Ok(&[]);
    }
    ctx.input::<T>(i)?.get(..n).ok_or(SHORT)
}

/// Output `i`'s first `n` elements (see [`input_n`]).
pub(super) fn output_n<'a, T: Element>(
    ctx: &mut Eval<'a>,
    i: usize,
    n: usize,
) -> Result<&'a mut [T], KernelError> {
    if n == 0 {
        return Ok(&mut []);
    }
    ctx.output::<T>(i)?.get_mut(..n).ok_or(SHORT)
}

fn dim(v: usize) -> Result<u32, KernelError> {
    u32::try_from(v).map_err(|_| KernelError::Unsupported {
        what: "dimension over u32",
    })
}

/// Checks a float32 input and an output of its type and shape; returns the element count.
fn check_float(ctx: &Prepare<'_>) -> Result<usize, KernelError> {
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if input.dtype != TensorType::Float32 {
        return Err(KernelError::Unsupported {
            what: "input type other than FLOAT32 (quantized forms are not implemented)",
        });
    }
    if output.dtype != TensorType::Float32 {
        return Err(KernelError::Mismatch {
            what: "output type differs from the input's",
        });
    }
    if input.shape != output.shape {
        return Err(KernelError::Mismatch {
            what: "output shape differs from the input's",
        });
    }
    Ok(input.shape.elements())
}

fn prepare_float(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let elements = dim(check_float(ctx)?)?;
    ctx.set_params(&Params {
        elements,
        depth: 0,
        value: 0.0,
    })
}

fn prepare_leaky_relu(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let BuiltinOptions::LeakyRelu { alpha } =
        ctx.operator().options_for(BuiltinOperator::LeakyRelu)
    else {
        return Err(KernelError::Mismatch {
            what: "options are not LeakyReluOptions",
        });
    };
    let elements = dim(check_float(ctx)?)?;
    ctx.set_params(&Params {
        elements,
        depth: 0,
        value: alpha,
    })
}

fn prepare_softmax(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::softmax::handles(ctx.input(0)?.dtype) {
        return quantized::softmax::prepare(ctx);
    }
    let BuiltinOptions::Softmax { beta } = ctx.operator().options_for(BuiltinOperator::Softmax)
    else {
        return Err(KernelError::Mismatch {
            what: "options are not SoftmaxOptions",
        });
    };
    prepare_rows(ctx, beta)
}

fn prepare_softmax_int8(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input(0)?.dtype != TensorType::Int8 {
        return Err(super::NOT_INT8);
    }
    quantized::softmax::prepare(ctx)
}

fn prepare_log_softmax(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    // LOG_SOFTMAX has no beta (its options table is empty).
    prepare_rows(ctx, 1.0)
}

/// Checks a softmax over the last dimension and records the row length.
fn prepare_rows(ctx: &mut Prepare<'_>, beta: f32) -> Result<(), KernelError> {
    let elements = check_float(ctx)?;
    let shape = ctx.input(0)?.shape;
    // TensorFlow Lite's softmaxes need at least one dimension: they run over the last one.
    let depth = match shape.dims().last() {
        Some(&d) => d,
        None => {
            return Err(KernelError::Mismatch {
                what: "softmax of a scalar (rank 0)",
            });
        }
    };
    ctx.set_params(&Params {
        elements: dim(elements)?,
        depth: dim(depth)?,
        value: beta,
    })
}

/// Applies `f` to every element of float input 0 into output 0.
#[inline(always)]
fn map(ctx: &mut Eval<'_>, f: impl Fn(f32) -> f32) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<f32>(ctx, 0, n)?;
    let y = output_n::<f32>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        *y = f(x);
    }
    Ok(())
}

fn prepare_logistic(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::activation::handles(ctx.input(0)?.dtype) {
        return quantized::activation::prepare_logistic(ctx);
    }
    prepare_float(ctx)
}

fn prepare_tanh(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::activation::handles(ctx.input(0)?.dtype) {
        return quantized::activation::prepare_tanh(ctx);
    }
    prepare_float(ctx)
}

fn eval_logistic(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::activation::handles(ctx.input_type(0)?) {
        return quantized::activation::eval(ctx);
    }
    map(ctx, logistic)
}

fn eval_tanh(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::activation::handles(ctx.input_type(0)?) {
        return quantized::activation::eval(ctx);
    }
    map(ctx, tanh)
}

fn eval_relu(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    map(ctx, relu)
}

fn eval_relu6(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    map(ctx, relu6)
}

fn eval_leaky_relu(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let alpha = ctx.params::<Params>().value;
    map(ctx, |x| leaky_relu(x, alpha))
}

fn rows<'a>(ctx: &mut Eval<'a>) -> Result<(&'a [f32], &'a mut [f32], Params), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<f32>(ctx, 0, n)?;
    let y = output_n::<f32>(ctx, 0, n)?;
    Ok((x, y, p))
}

fn eval_softmax(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::softmax::handles(ctx.input_type(0)?) {
        return quantized::softmax::eval::<true>(ctx);
    }
    let (x, y, p) = rows(ctx)?;
    softmax_rows(x, y, p.depth as usize, p.value);
    Ok(())
}

fn eval_log_softmax(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let (x, y, _) = rows(ctx)?;
    let depth = ctx.params::<Params>().depth as usize;
    log_softmax_rows(x, y, depth);
    Ok(())
}

/// `exp(x)` in f32, branch-free so that loops over slices vectorize (as LiteRT's Eigen
/// kernels do): Cephes' `expf` (range reduction by `ln 2` in two parts, a degree-5
/// polynomial), within 2 ulp of the true value over the normal range; `+inf` past
/// `ln(f32::MAX)`, subnormal results (rounded twice) down to 0 below -104, NaN for NaN.
#[inline(always)]
#[must_use]
pub(crate) fn exp(x: f32) -> f32 {
    const MAX_LOG: f32 = 88.722_84;
    // 1.5 * 2^23: adding and subtracting it rounds a float below 2^22 to an integer.
    const ROUND: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // clamp keeps NaN, which flows through as NaN. Below -104 the result rounds to 0.
    let c = x.clamp(-104.0, MAX_LOG);
    let t = c * core::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    // n as an integer straight from t's mantissa (no float-to-int conversion, which would
    // keep the loop from vectorizing): t = 1.5 * 2^23 + n.
    let k = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    let r = c - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_2e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    // 2^n in two normal factors: n is in [-150, 128] after the clamp, past the exponent's
    // range at both ends (subnormal results, and x near MAX_LOG). For NaN, k is garbage
    // and y NaN.
    let half = k >> 1;
    let scale = |e: i32| f32::from_bits((e.wrapping_add(127) as u32) << 23);
    let v = y * scale(half) * scale(k.wrapping_sub(half));
    if x > MAX_LOG { f32::INFINITY } else { v }
}

const SIGN: u32 = 0x8000_0000;

/// `|x|` by clearing the sign bit: `f32::abs` and `copysign` reached `core` late, and this
/// crate builds without `std` on Rust 1.85.
#[inline(always)]
fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !SIGN)
}

/// The logistic function as TensorFlow Lite's reference kernel computes it: `1` above
/// 16.619047 (where `1 / (1 + exp(-x))` rounds to 1 anyway), `exp(x)` below -9 (where the
/// two agree within 1e-8), `1 / (1 + exp(-x))` between, with one [`exp`] of `-|x|` and
/// selects (no branches: the loop vectorizes).
#[inline(always)]
#[must_use]
pub(crate) fn logistic(x: f32) -> f32 {
    const UPPER: f32 = 16.619_047;
    const LOWER: f32 = -9.0;
    let e = exp(-abs(x));
    // x >= 0: 1 / (1 + exp(-x)); x < 0: exp(x) / (1 + exp(x)), the same value.
    let mid = if x >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    };
    // NaN fails both tests and stays NaN through `mid`.
    if x > UPPER {
        1.0
    } else if x < LOWER {
        e
    } else {
        mid
    }
}

/// `tanh(x)` within 2e-6 relative (LiteRT's float TANH is Eigen's rational approximation,
/// itself a few ulp from the true value): an odd Taylor polynomial below 1/16, else
/// `sign(x) (1 - e) / (1 + e)` with `e = exp(-2|x|)`; branch-free.
#[inline(always)]
#[must_use]
pub(crate) fn tanh(x: f32) -> f32 {
    let a = abs(x);
    let e = exp(-2.0 * a);
    // sign(x) * (1 - e) / (1 + e): the quotient is >= 0 (or NaN), so or-ing in x's sign bit
    // is copysign.
    let big = f32::from_bits(((1.0 - e) / (1.0 + e)).to_bits() | (x.to_bits() & SIGN));
    let x2 = x * x;
    // As x * (1 + ...), so -0 stays -0.
    let small = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
    // NaN: `a < 1/16` is false and `big` is NaN.
    if a < 0.0625 { small } else { big }
}

/// RELU: `x < 0 ? 0 : x` (NaN stays NaN, as in the reference kernel).
#[inline]
#[must_use]
pub(crate) fn relu(x: f32) -> f32 {
    if x < 0.0 { 0.0 } else { x }
}

/// RELU6: `x` clamped to `[0, 6]` (NaN stays NaN).
#[inline]
#[must_use]
pub(crate) fn relu6(x: f32) -> f32 {
    // f32::clamp keeps NaN and -0, as the reference's `x > 6 ? 6 : x < 0 ? 0 : x`.
    x.clamp(0.0, 6.0)
}

/// LEAKY_RELU: `x > 0 ? x : alpha * x`.
#[inline]
#[must_use]
pub(crate) fn leaky_relu(x: f32, alpha: f32) -> f32 {
    if x > 0.0 { x } else { x * alpha }
}

/// The row's maximum as the reference kernels take it: from the lowest finite float, with
/// `std::max` (a NaN never replaces the maximum).
#[inline]
fn row_max(row: &[f32]) -> f32 {
    row.iter().fold(f32::MIN, |m, &v| if m < v { v } else { m })
}

/// SOFTMAX over rows of `depth` values: `exp((x - max) * beta) / sum`, the sum taken in
/// row order in f32, as TensorFlow Lite's reference kernel does. `x` and `y` have the same
/// length, a multiple of `depth` (a trailing partial row is left alone; depth 0 does nothing).
pub(crate) fn softmax_rows(x: &[f32], y: &mut [f32], depth: usize, beta: f32) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let max = row_max(x);
        // The exponentials first (a loop that vectorizes), then their sum in row order.
        for (y, &x) in y.iter_mut().zip(x) {
            *y = exp((x - max) * beta);
        }
        let sum = y.iter().fold(0.0f32, |s, &e| s + e);
        for y in y.iter_mut() {
            *y /= sum;
        }
    }
}

/// LOG_SOFTMAX over rows of `depth` values: `x - max - log(sum(exp(x - max)))`, as
/// TensorFlow Lite's reference kernel computes it (same layout rules as [`softmax_rows`]).
pub(crate) fn log_softmax_rows(x: &[f32], y: &mut [f32], depth: usize) {
    if depth == 0 {
        return;
    }
    for (x, y) in x.chunks_exact(depth).zip(y.chunks_exact_mut(depth)) {
        let max = row_max(x);
        // The exponentials in the output first (vectorized), then their sum in row order.
        for (y, &x) in y.iter_mut().zip(x) {
            *y = exp(x - max);
        }
        let sum = y.iter().fold(0.0f32, |s, &e| s + e);
        let log_sum = libm::logf(sum);
        for (y, &x) in y.iter_mut().zip(x) {
            *y = x - max - log_sum;
        }
    }
}

// ---- CAST ----

/// A type CAST writes, from any source value class.
pub(crate) trait CastTo: Element {
    /// From a float: truncated toward zero, as C++'s `static_cast`.
    fn from_f32(v: f32) -> Self;
    /// From an integer (every source integer type fits i64): wrapped to the width, as
    /// C++'s `static_cast` between integer types.
    fn from_i64(v: i64) -> Self;
    /// From a bool: 0 or 1.
    fn from_bool(v: bool) -> Self;
}

/// A type CAST reads.
pub(crate) trait CastFrom: Element {
    /// `self` as `D`, as C++'s `static_cast<D>` would give it.
    fn cast<D: CastTo>(self) -> D;
}

impl CastTo for f32 {
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        // Round to nearest, as C++'s integer-to-float conversion (one rounding: i64 holds
        // every source integer exactly).
        v as f32
    }
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        if v { 1.0 } else { 0.0 }
    }
}

impl CastTo for bool {
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        // C++: any non-zero value, NaN included, is true.
        v != 0.0
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        v
    }
}

// Float to integer out of the target's range (or NaN) is undefined behaviour in C++; we
// give what LiteRT gives on Arm64, whose compilers convert with one saturating `fcvtzs` to
// 32 (or 64) bits, NaN to 0, then keep the low bits for the narrow types. In range, every
// platform truncates toward zero, and so do we.
macro_rules! cast_to_int {
    ($($t:ty => $via:ty),*) => {$(
        impl CastTo for $t {
            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                (v as $via) as $t
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                <$t>::from(v)
            }
        }
        impl CastFrom for $t {
            #[inline(always)]
            fn cast<D: CastTo>(self) -> D {
                D::from_i64(i64::from(self))
            }
        }
    )*};
}

cast_to_int!(i8 => i32, u8 => i32, i16 => i32, i32 => i32, i64 => i64);

impl CastFrom for f32 {
    #[inline(always)]
    fn cast<D: CastTo>(self) -> D {
        D::from_f32(self)
    }
}

impl CastFrom for bool {
    #[inline(always)]
    fn cast<D: CastTo>(self) -> D {
        D::from_bool(self)
    }
}

/// Converts `src` into `dst` element by element (up to the shorter length).
pub(crate) fn cast_slice<S: CastFrom, D: CastTo>(src: &[S], dst: &mut [D]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s.cast();
    }
}

fn castable(t: TensorType) -> bool {
    matches!(
        t,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Bool
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Int16
    )
}

fn prepare_cast(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    // TensorFlow Lite casts between the tensors' types; the options only restate them.
    let input = ctx.input(0)?;
    let output = ctx.output(0)?;
    if !castable(input.dtype) || !castable(output.dtype) {
        return Err(KernelError::Unsupported {
            what: "CAST from or to a type other than FLOAT32, INT32, INT64, BOOL, INT8, UINT8, \
                   INT16",
        });
    }
    if input.shape.elements() != output.shape.elements() {
        return Err(KernelError::Mismatch {
            what: "output has another number of elements than the input",
        });
    }
    ctx.set_params(&Params {
        elements: dim(input.shape.elements())?,
        depth: 0,
        value: 0.0,
    })
}

fn cast_into<S: CastFrom>(ctx: &mut Eval<'_>, n: usize) -> Result<(), KernelError> {
    let src = input_n::<S>(ctx, 0, n)?;
    fn go<S: CastFrom, D: CastTo>(
        ctx: &mut Eval<'_>,
        src: &[S],
        n: usize,
    ) -> Result<(), KernelError> {
        let dst = output_n::<D>(ctx, 0, n)?;
        cast_slice(src, dst);
        Ok(())
    }
    match ctx.output_type(0)? {
        TensorType::Float32 => go::<S, f32>(ctx, src, n),
        TensorType::Int32 => go::<S, i32>(ctx, src, n),
        TensorType::Int64 => go::<S, i64>(ctx, src, n),
        TensorType::Bool => go::<S, bool>(ctx, src, n),
        TensorType::Int8 => go::<S, i8>(ctx, src, n),
        TensorType::Uint8 => go::<S, u8>(ctx, src, n),
        TensorType::Int16 => go::<S, i16>(ctx, src, n),
        _ => Err(KernelError::Unsupported {
            what: "CAST output type",
        }),
    }
}

fn eval_cast(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let n = ctx.params::<Params>().elements as usize;
    match ctx.input_type(0)? {
        TensorType::Float32 => cast_into::<f32>(ctx, n),
        TensorType::Int32 => cast_into::<i32>(ctx, n),
        TensorType::Int64 => cast_into::<i64>(ctx, n),
        TensorType::Bool => cast_into::<bool>(ctx, n),
        TensorType::Int8 => cast_into::<i8>(ctx, n),
        TensorType::Uint8 => cast_into::<u8>(ctx, n),
        TensorType::Int16 => cast_into::<i16>(ctx, n),
        _ => Err(KernelError::Unsupported {
            what: "CAST input type",
        }),
    }
}

#[cfg(test)]
mod tests;
