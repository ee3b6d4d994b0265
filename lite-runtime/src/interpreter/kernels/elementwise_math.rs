//! Element-wise math, as LiteRT's kernels compute it (`elementwise.cc`, `exp.cc`, `neg.cc`,
//! `round.cc`, `ceil.cc`, `sign.cc`, `zeros_like.cc`):
//!
//! - float32 only: CEIL, ROUND (half to even, `RoundToNearest`), COS, SIN, SQUARE;
//! - ABS: float32, int32, int16 without quantization (`abs` wrapping at the minimum), int8
//!   and int16 quantized (rescaled when the scales differ);
//! - EXP and LOG: float32; int8 and int16 through a lookup table (`base::table`);
//! - SQRT: float32; int8 and int16 quantized in float (`sqrt` of the dequantized value,
//!   truncated back); a negative input is an error at eval, as in LiteRT;
//! - RSQRT: float32; int8 in fixed point (`GetInvSqrtQuantizedMultiplierExp`); int16 through
//!   a table; a negative input is an error;
//! - NEG: float32, int32, int64, int8, int16 (wrapping);
//! - SIGN: float32 (NaN stays NaN), int32;
//! - ZEROS_LIKE: float32, int32, int64;
//! - LOGICAL_NOT: bool.
//!
//! The float functions are the C library's, correctly rounded or within an ulp of it.

mod quantized;
#[cfg(test)]
mod tests;

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::check;
use super::base::elementwise::{self, FloatFn};
use super::base::math;
use super::base::table::{self, Accept};
use super::base::tensors::{input_n, output_n};
use crate::interpreter::{Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};
use tessera_core::tensor::Element;

macro_rules! float_op {
    ($(#[$doc:meta])* $kernel:ident, $op:ident, $ty:ident, |$x:ident| $body:expr) => {
        $(#[$doc])*
        pub static $kernel: Kernel = Kernel {
            op: BuiltinOperator::$op,
            prepare: elementwise::prepare,
            init: None,
            eval: elementwise::eval::<$ty>,
        };
        struct $ty;
        impl FloatFn for $ty {
            #[inline]
            fn apply($x: f32, _: f32) -> f32 {
                $body
            }
        }
    };
}

float_op!(
    /// CEIL (float32).
    CEIL, Ceil, Ceil, |x| libm::ceilf(x)
);
float_op!(
    /// ROUND (float32): half to even.
    ROUND, Round, Round, |x| round_half_even(x)
);
float_op!(
    /// COS (float32).
    COS, Cos, Cos, |x| libm::cosf(x)
);
float_op!(
    /// SIN (float32).
    SIN, Sin, Sin, |x| libm::sinf(x)
);
float_op!(
    /// SQUARE (float32).
    SQUARE, Square, Square, |x| x * x
);

/// ABS (float32, int32, int16; int8 and int16 quantized).
pub static ABS: Kernel = Kernel {
    op: BuiltinOperator::Abs,
    prepare: prepare_abs,
    init: None,
    eval: eval_abs,
};

/// EXP (float32; int8 and int16 by table).
pub static EXP: Kernel = Kernel {
    op: BuiltinOperator::Exp,
    prepare: prepare_exp,
    init: Some(init_exp),
    eval: eval_table_or::<Exp>,
};

/// LOG (float32; int8 and int16 by table).
pub static LOG: Kernel = Kernel {
    op: BuiltinOperator::Log,
    prepare: prepare_log,
    init: Some(init_log),
    eval: eval_table_or::<Log>,
};

/// SQRT (float32; int8 and int16 quantized).
pub static SQRT: Kernel = Kernel {
    op: BuiltinOperator::Sqrt,
    prepare: prepare_sqrt,
    init: None,
    eval: eval_sqrt,
};

/// RSQRT (float32; int8 in fixed point, int16 by table).
pub static RSQRT: Kernel = Kernel {
    op: BuiltinOperator::Rsqrt,
    prepare: prepare_rsqrt,
    init: Some(init_rsqrt),
    eval: eval_rsqrt,
};

/// NEG (float32, int32, int64, int8, int16).
pub static NEG: Kernel = Kernel {
    op: BuiltinOperator::Neg,
    prepare: prepare_neg,
    init: None,
    eval: eval_neg,
};

/// SIGN (float32, int32).
pub static SIGN: Kernel = Kernel {
    op: BuiltinOperator::Sign,
    prepare: prepare_sign,
    init: None,
    eval: eval_sign,
};

/// ZEROS_LIKE (float32, int32, int64).
pub static ZEROS_LIKE: Kernel = Kernel {
    op: BuiltinOperator::ZerosLike,
    prepare: prepare_zeros_like,
    init: None,
    eval: eval_zeros_like,
};

/// LOGICAL_NOT (bool).
pub static LOGICAL_NOT: Kernel = Kernel {
    op: BuiltinOperator::LogicalNot,
    prepare: prepare_logical_not,
    init: None,
    eval: eval_logical_not,
};

/// What the non-float, non-table bodies keep: the element count and, for the quantized
/// ones, the two quantizations and a multiplier.
#[derive(Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    pub elements: u32,
    pub in_zp: i32,
    pub out_zp: i32,
    pub multiplier: i32,
    pub shift: i32,
    /// ABS: the scales differ (the value is rescaled).
    pub rescale: u32,
    pub in_scale: f32,
    pub out_scale: f32,
}

/// Checks a unary op over `types` (output of the input's type and shape); returns the type
/// and records the element count.
fn prepare_plain(ctx: &mut Prepare<'_>, types: &[TensorType]) -> Result<TensorType, KernelError> {
    let (input, _) = check::unary(ctx)?;
    if !types.contains(&input.dtype) {
        return Err(check::TYPE);
    }
    ctx.set_params(&Params {
        elements: check::dim(input.shape.elements())?,
        ..Params::default()
    });
    Ok(input.dtype)
}

/// `y[i] = f(x[i])` over the recorded element count.
fn map<T: Element + Copy>(ctx: &mut Eval<'_>, f: impl Fn(T) -> T) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = input_n::<T>(ctx, 0, n)?;
    let y = output_n::<T>(ctx, 0, n)?;
    for (y, &x) in y.iter_mut().zip(x) {
        *y = f(x);
    }
    Ok(())
}

/// Whether `t` carries per-tensor quantization parameters (int16 ABS runs either way).
fn has_quantization(d: &crate::interpreter::Desc<'_>) -> bool {
    d.quantization().is_some_and(|q| !q.scale().is_empty())
}

// ---- ABS

fn prepare_abs(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    match input.dtype {
        TensorType::Float32 => elementwise::prepare(ctx),
        TensorType::Int8 => quantized::prepare_abs(ctx),
        TensorType::Int16 if has_quantization(&input) => quantized::prepare_abs(ctx),
        _ => {
            let t = prepare_plain(ctx, &[TensorType::Int32, TensorType::Int16])?;
            let elements = check::dim(input.shape.elements())?;
            if t == TensorType::Int16 {
                // Marks the int16 body without quantization.
                ctx.set_params(&Params {
                    elements,
                    rescale: u32::MAX,
                    ..Params::default()
                });
            }
            Ok(())
        }
    }
}

fn eval_abs(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => elementwise::eval::<Abs>(ctx),
        TensorType::Int32 => map::<i32>(ctx, i32::wrapping_abs),
        TensorType::Int8 => quantized::eval_abs::<i8>(ctx),
        _ => {
            let p: Params = ctx.params();
            if p.rescale == u32::MAX {
                // int16 without quantization: `abs` in int32, truncated back.
                map::<i16>(ctx, i16::wrapping_abs)
            } else {
                quantized::eval_abs::<i16>(ctx)
            }
        }
    }
}

struct Abs;
impl FloatFn for Abs {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        math::abs(x)
    }
}

// ---- EXP, LOG: float or table

struct Exp;
impl FloatFn for Exp {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        libm::expf(x)
    }
}

struct Log;
impl FloatFn for Log {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        libm::logf(x)
    }
}

/// The table types of EXP, LOG (int8; int16 with zero points 0).
const INT8_INT16: Accept = Accept {
    uint8: false,
    int8: true,
    int16: true,
    int16_zero_points: true,
};

fn prepare_exp(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if table::handles(ctx.input(0)?.dtype) {
        return table::prepare(ctx, INT8_INT16);
    }
    elementwise::prepare(ctx)
}

fn init_exp(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    table::init(ctx, |x, _| correctly_rounded(libm::exp, x))
}

fn prepare_log(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_exp(ctx)
}

fn init_log(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    table::init(ctx, |x, out| {
        if x <= 0.0 {
            // The output's lowest value, in float as the reference computes it.
            let min = if out.dtype == TensorType::Int8 {
                i32::from(i8::MIN)
            } else {
                i32::from(i16::MIN)
            };
            (min - out.zero_point) as f32 * out.scale
        } else {
            correctly_rounded(libm::log, x)
        }
    })
}

fn eval_table_or<F: FloatFn>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if table::handles(ctx.input_type(0)?) {
        return table::eval(ctx);
    }
    elementwise::eval::<F>(ctx)
}

/// The `f32` nearest `f(x)` computed in double: what the C library's `expf`, `logf` return
/// (within their last-bit error, which only matters on a table entry's rounding tie).
#[inline]
fn correctly_rounded(f: fn(f64) -> f64, x: f32) -> f32 {
    f(f64::from(x)) as f32
}

// ---- SQRT, RSQRT

struct Sqrt;
impl FloatFn for Sqrt {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        libm::sqrtf(x)
    }
}

struct Rsqrt;
impl FloatFn for Rsqrt {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        1.0 / libm::sqrtf(x)
    }
}

fn prepare_sqrt(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    match ctx.input(0)?.dtype {
        TensorType::Int8 | TensorType::Int16 => quantized::prepare_sqrt(ctx),
        _ => elementwise::prepare(ctx),
    }
}

fn eval_sqrt(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Int8 => quantized::eval_sqrt::<i8>(ctx),
        TensorType::Int16 => quantized::eval_sqrt::<i16>(ctx),
        _ => elementwise::eval::<Sqrt>(ctx),
    }
}

fn prepare_rsqrt(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    match ctx.input(0)?.dtype {
        TensorType::Int8 => quantized::prepare_rsqrt_i8(ctx),
        TensorType::Int16 => table::prepare(ctx, INT8_INT16),
        _ => elementwise::prepare(ctx),
    }
}

fn init_rsqrt(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    if ctx.prepared().input(0)?.dtype != TensorType::Int16 {
        return Ok(());
    }
    table::init(ctx, |x, out| {
        if x <= 0.0 {
            f32::from(i16::MAX) * out.scale
        } else {
            1.0 / libm::sqrtf(x)
        }
    })
}

fn eval_rsqrt(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Int8 => quantized::eval_rsqrt_i8(ctx),
        TensorType::Int16 => {
            // Zero point 0: every value must be at least 0, checked before any is written.
            if ctx.input::<i16>(0)?.iter().any(|&v| v < 0) {
                return Err(quantized::RSQRT_NEGATIVE);
            }
            table::eval(ctx)
        }
        _ => elementwise::eval::<Rsqrt>(ctx),
    }
}

// ---- NEG, SIGN, ZEROS_LIKE, LOGICAL_NOT

struct Neg;
impl FloatFn for Neg {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        -x
    }
}

fn prepare_neg(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input(0)?.dtype == TensorType::Float32 {
        return elementwise::prepare(ctx);
    }
    // The integer types negate their stored values (quantization is not looked at).
    let types = [TensorType::Int32, TensorType::Int64, TensorType::Int8, TensorType::Int16];
    prepare_plain(ctx, &types).map(drop)
}

fn eval_neg(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => elementwise::eval::<Neg>(ctx),
        TensorType::Int32 => map::<i32>(ctx, i32::wrapping_neg),
        TensorType::Int64 => map::<i64>(ctx, i64::wrapping_neg),
        TensorType::Int8 => map::<i8>(ctx, i8::wrapping_neg),
        _ => map::<i16>(ctx, i16::wrapping_neg),
    }
}

struct Sign;
impl FloatFn for Sign {
    #[inline]
    fn apply(x: f32, _: f32) -> f32 {
        sign(x)
    }
}

/// SIGN of a float: NaN stays NaN, zeros (either sign) give +0.
#[inline]
#[must_use]
pub(crate) fn sign(x: f32) -> f32 {
    if x.is_nan() {
        x
    } else if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

fn prepare_sign(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input(0)?.dtype == TensorType::Float32 {
        return elementwise::prepare(ctx);
    }
    prepare_plain(ctx, &[TensorType::Int32]).map(drop)
}

fn eval_sign(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if ctx.input_type(0)? == TensorType::Float32 {
        return elementwise::eval::<Sign>(ctx);
    }
    map::<i32>(ctx, i32::signum)
}

fn prepare_zeros_like(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let types = [TensorType::Float32, TensorType::Int32, TensorType::Int64];
    prepare_plain(ctx, &types).map(drop)
}

fn eval_zeros_like(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let bytes = match ctx.output_type(0)? {
        TensorType::Int64 => 8,
        _ => 4,
    };
    let n = (p.elements as usize).checked_mul(bytes).ok_or(check::SHORT)?;
    ctx.output_bytes(0)?
        .get_mut(..n)
        .ok_or(check::SHORT)?
        .fill(0);
    Ok(())
}

fn prepare_logical_not(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    prepare_plain(ctx, &[TensorType::Bool]).map(drop)
}

fn eval_logical_not(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let p: Params = ctx.params();
    let n = p.elements as usize;
    let x = ctx.input_bytes(0)?.get(..n).ok_or(check::SHORT)?;
    let y = ctx.output_bytes(0)?.get_mut(..n).ok_or(check::SHORT)?;
    for (y, &x) in y.iter_mut().zip(x) {
        *y = u8::from(x == 0);
    }
    Ok(())
}

/// ROUND: `RoundToNearest`, half to even: `floor(x)`, plus one when the rest is over a half
/// or exactly a half above an odd floor. A NaN stays NaN, infinities stay; `-0.25` gives
/// `+0` (the floor, -1, plus one), as the reference computes it.
#[inline]
#[must_use]
pub(crate) fn round_half_even(x: f32) -> f32 {
    let floor = libm::floorf(x);
    let diff = x - floor;
    // `diff == 0.5` only below 2^23, where the floor fits an i32.
    if diff < 0.5 || (diff == 0.5 && (floor as i32) % 2 == 0) {
        floor
    } else {
        floor + 1.0
    }
}
