//! Element-wise arithmetic with NumPy broadcasting: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM and
//! SQUARED_DIFFERENCE, as TensorFlow Lite computes them. The quantized int8 / uint8 / int16
//! forms are in `quantized`; this file runs the plain numbers.
//!
//! The math is a pure function over slices and shapes (`arith`); the kernels check types and
//! shapes at setup and hand the tensors to it. Every op runs through one `Broadcast` plan,
//! which turns shapes into rows so the loops stay tight.
//!
//! What TensorFlow Lite does that is kept: integer ADD, SUB, MUL, DIV and SQUARED_DIFFERENCE
//! wrap on overflow and clamp to the fused activation's range like floats; int32 DIV truncates
//! towards zero and fails when the divisor tensor holds a 0 anywhere (LiteRT checks every
//! element; tessera reports an error instead of trapping); float DIV by 0 gives IEEE
//! infinities or NaN, then clamps. MAXIMUM is `a > b ? a : b` and MINIMUM `a < b ? a : b`
//! (the reference kernels), so a NaN in `a` yields `b`; on int8, uint8 and int16 they compare
//! the stored values, whatever the quantization (LiteRT's kernel does not look at it). ADD and
//! MUL take int16 tensors without quantization as plain wrapping integers, MUL uint32 too.
//!
//! Types: float32, int32 (every op), int64 (ADD, SUB, MUL, MAXIMUM, MINIMUM); quantized int8,
//! uint8 and int16 ADD, SUB, MUL, DIV, int8 SQUARED_DIFFERENCE, int16 x int16 MUL into int8
//! or uint8; int8, uint8 and int16 MAXIMUM and MINIMUM. Broadcasting goes to 6 dimensions.

mod quantized;
#[cfg(test)]
mod tests;

use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::broadcast::{Broadcast, binary_operands, map2};
use super::base::check::{self, SHORT};
use super::base::fused::{clamp, float_range, int_range};
use super::base::rescale::is_quantized;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{
    Activation, AddOptions, BuiltinOperator, DivOptions, MulOptions, SubOptions, TensorType,
};

/// The ops, as const generic arguments so each kernel links only its own loops.
pub(crate) mod op {
    pub const ADD: u8 = 0;
    pub const SUB: u8 = 1;
    pub const MUL: u8 = 2;
    pub const DIV: u8 = 3;
    pub const MAX: u8 = 4;
    pub const MIN: u8 = 5;
    pub const SQD: u8 = 6;
}

macro_rules! kernel {
    ($(#[$doc:meta])* $name:ident, $op:ident, $code:expr) => {
        $(#[$doc])*
        pub static $name: Kernel = Kernel {
            op: BuiltinOperator::$op,
            prepare: prepare_arith::<{ $code }>,
            init: None,
            eval: eval_arith::<{ $code }>,
        };
    };
}

kernel!(
    /// ADD (float32, int32, int64, int16; quantized int8, uint8, int16; fused activation).
    ADD, Add, op::ADD
);
kernel!(
    /// SUB (float32, int32, int64; quantized int8, uint8, int16; fused activation).
    SUB, Sub, op::SUB
);
kernel!(
    /// MUL (float32, int32, int64, int16, uint32; quantized int8, uint8, int16, and int16 into
    /// int8 or uint8; fused activation).
    MUL, Mul, op::MUL
);
kernel!(
    /// DIV (float32, int32; quantized int8, uint8, int16; fused activation; an integer divisor
    /// of 0, or a quantized one at its zero point, is an error).
    DIV, Div, op::DIV
);
kernel!(
    /// MAXIMUM (float32, int32, int64, int8, uint8, int16).
    MAXIMUM, Maximum, op::MAX
);
kernel!(
    /// MINIMUM (float32, int32, int64, int8, uint8, int16).
    MINIMUM, Minimum, op::MIN
);
kernel!(
    /// SQUARED_DIFFERENCE (float32, int32; quantized int8).
    SQUARED_DIFFERENCE, SquaredDifference, op::SQD
);

/// The numbers the arithmetic ops run on.
pub(crate) trait Number: Element + PartialOrd {
    /// `a + b` (integers wrap, as TensorFlow Lite's C++ does on every target it runs on).
    fn plus(self, b: Self) -> Self;
    /// `a - b`.
    fn minus(self, b: Self) -> Self;
    /// `a * b`.
    fn times(self, b: Self) -> Self;
    /// `a / b` (integers truncate; a 0 divisor was refused before).
    fn over(self, b: Self) -> Self;
    /// `v` if it fits, else `fallback` (activation bounds kept as `i64`).
    fn from_i64_or(v: i64, fallback: Self) -> Self;
}

impl Number for f32 {
    fn plus(self, b: Self) -> Self {
        self + b
    }
    fn minus(self, b: Self) -> Self {
        self - b
    }
    fn times(self, b: Self) -> Self {
        self * b
    }
    fn over(self, b: Self) -> Self {
        self / b
    }
    fn from_i64_or(_: i64, fallback: Self) -> Self {
        fallback
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Number for $t {
            fn plus(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            fn minus(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            fn times(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            fn over(self, b: Self) -> Self {
                // MIN / -1 wraps to MIN (C++ leaves it undefined); 0 never reaches here.
                if b == 0 { 0 } else { self.wrapping_div(b) }
            }
            fn from_i64_or(v: i64, fallback: Self) -> Self {
                Self::try_from(v).unwrap_or(fallback)
            }
        }
    )*};
}
integer!(i8, u8, i16, i32, u32, i64);

/// The arithmetic op `OP` on one pair.
#[inline(always)]
fn apply<T: Number, const OP: u8>(a: T, b: T) -> T {
    match OP {
        op::ADD => a.plus(b),
        op::SUB => a.minus(b),
        op::MUL => a.times(b),
        op::DIV => a.over(b),
        // TensorFlow Lite's MaximumOp / MinimumOp.
        op::MAX => {
            if a > b {
                a
            } else {
                b
            }
        }
        op::MIN => {
            if a < b {
                a
            } else {
                b
            }
        }
        // SQUARED_DIFFERENCE: `d = a - b; d * d`.
        _ => {
            let d = a.minus(b);
            d.times(d)
        }
    }
}

fn check_len<T>(data: &[T], shape: &Shape) -> Result<(), KernelError> {
    if data.len() < shape.elements() {
        return Err(SHORT);
    }
    Ok(())
}

/// `out = act(a OP b)` broadcast to `so`; `act` the fused activation's `(min, max)`, `None`
/// for none.
///
/// # Errors
/// A mismatch if the shapes do not broadcast to `so` or a slice is shorter than its shape.
#[allow(clippy::too_many_arguments)]
pub(crate) fn arith<T: Number, const OP: u8>(
    a: &[T],
    sa: &Shape,
    b: &[T],
    sb: &Shape,
    out: &mut [T],
    so: &Shape,
    act: Option<(T, T)>,
) -> Result<(), KernelError> {
    let plan = Broadcast::new(so, [sa, sb])?;
    check_len(a, sa)?;
    check_len(b, sb)?;
    match act {
        None => map2(&plan, a, b, out, apply::<T, OP>),
        Some((lo, hi)) => map2(&plan, a, b, out, |x, y| clamp(apply::<T, OP>(x, y), lo, hi)),
    }
}

/// `Params::path` of the plain-number kernels; the quantized ones use others.
const PLAIN: u32 = 0;

/// What the plain-number kernels keep from setup: the fused activation's range.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct ArithParams {
    /// [`PLAIN`] (the quantized parameters start with another value).
    path: u32,
    /// Whether to clamp at all (no activation: not).
    clamp: u32,
    /// Float range.
    lo_f: f32,
    hi_f: f32,
    /// Integer range (in the tensors' type's bounds).
    lo_i: i64,
    hi_i: i64,
}

/// The first word of either parameter block: which path setup chose.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct Path {
    path: u32,
}

/// The op's fused activation (none for MAXIMUM, MINIMUM and SQUARED_DIFFERENCE).
fn activation<const OP: u8>(ctx: &Prepare<'_>) -> Result<Activation, KernelError> {
    // Only this op's options decoder, not the whole union's.
    Ok(match OP {
        op::ADD => ctx.options::<AddOptions>()?.activation,
        op::SUB => ctx.options::<SubOptions>()?.activation,
        op::MUL => ctx.options::<MulOptions>()?.activation,
        op::DIV => ctx.options::<DivOptions>()?.activation,
        _ => Activation::None,
    })
}

/// Whether `OP` runs on plain numbers of type `t` (LiteRT's kernels' type lists, quantized
/// forms aside).
fn plain_type<const OP: u8>(t: TensorType) -> bool {
    let minmax = matches!(OP, op::MAX | op::MIN);
    match t {
        TensorType::Float32 | TensorType::Int32 => true,
        TensorType::Int64 => matches!(OP, op::ADD | op::SUB | op::MUL) || minmax,
        TensorType::Int16 => matches!(OP, op::ADD | op::MUL) || minmax,
        TensorType::Int8 | TensorType::Uint8 => minmax,
        TensorType::Uint32 => OP == op::MUL,
        _ => false,
    }
}

/// The largest value of integer type `t`, for the activation ranges.
fn int_max(t: TensorType) -> i64 {
    match t {
        TensorType::Int8 => i8::MAX.into(),
        TensorType::Uint8 => u8::MAX.into(),
        TensorType::Int16 => i16::MAX.into(),
        TensorType::Int32 => i32::MAX.into(),
        TensorType::Uint32 => u32::MAX.into(),
        _ => i64::MAX,
    }
}

fn prepare_arith<const OP: u8>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (a, _, out) = binary_operands(ctx)?;
    if quantized::handles::<OP>(&a, &out) {
        return quantized::prepare::<OP>(ctx);
    }
    check::output_type(&a, &out)?;
    if !plain_type::<OP>(a.dtype) {
        return Err(KernelError::Unsupported {
            what: match OP {
                op::MAX | op::MIN => {
                    "element type (float32, int8, uint8, int16, int32, int64 run)"
                }
                op::DIV => "element type (float32, int32; quantized int8, uint8, int16 run)",
                op::SQD => "element type (float32, int32; quantized int8 run)",
                _ => "element type (float32, int32, int64; quantized int8, uint8, int16 run)",
            },
        });
    }
    let act = activation::<OP>(ctx)?;
    let mut params = ArithParams {
        path: PLAIN,
        clamp: 0,
        lo_f: f32::NEG_INFINITY,
        hi_f: f32::INFINITY,
        lo_i: i64::MIN,
        hi_i: i64::MAX,
    };
    if act != Activation::None {
        params.clamp = 1;
        if a.dtype == TensorType::Float32 {
            (params.lo_f, params.hi_f) = float_range(act)?;
        } else if let Some((lo, hi)) = int_range(act, int_max(a.dtype))? {
            (params.lo_i, params.hi_i) = (lo, hi);
        }
    }
    ctx.set_params(&params);
    Ok(())
}

fn run_arith<T: Number, const OP: u8>(
    ctx: &mut Eval<'_>,
    act: Option<(T, T)>,
) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if OP == op::DIV && T::DTYPE != tessera_core::tensor::DType::F32 && sb.elements() > 0 {
        // LiteRT checks the whole divisor tensor, used elements or not.
        let b = ctx.input::<T>(1)?;
        if b.get(..sb.elements()).ok_or(SHORT)?.contains(&T::default()) {
            return Err(KernelError::Mismatch {
                what: "integer division by zero",
            });
        }
    }
    // An empty output has an empty input (broadcasting keeps 0s), and empty tensors have no
    // typed view: nothing to read or write.
    if so.elements() == 0 {
        return Ok(());
    }
    let a = ctx.input::<T>(0)?;
    let b = ctx.input::<T>(1)?;
    let out = ctx.output::<T>(0)?;
    arith::<T, OP>(a, &sa, b, &sb, out, &so, act)
}

/// [`run_arith`] for an integer type, its activation range narrowed from the stored one.
fn run_int<T: Number + Bounded, const OP: u8>(
    ctx: &mut Eval<'_>,
    p: &ArithParams,
) -> Result<(), KernelError> {
    let act = (p.clamp != 0).then(|| {
        (
            T::from_i64_or(p.lo_i, T::LOWEST),
            T::from_i64_or(p.hi_i, T::HIGHEST),
        )
    });
    run_arith::<T, OP>(ctx, act)
}

/// The integer types' bounds.
trait Bounded {
    const LOWEST: Self;
    const HIGHEST: Self;
}

macro_rules! bounded {
    ($($t:ty),*) => {$(
        impl Bounded for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
        }
    )*};
}
bounded!(i8, u8, i16, i32, u32, i64);

fn eval_arith<const OP: u8>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let Path { path } = ctx.params();
    if path != PLAIN {
        return quantized::eval::<OP>(ctx);
    }
    let p: ArithParams = ctx.params();
    let minmax = matches!(OP, op::MAX | op::MIN);
    match ctx.input_type(0)? {
        TensorType::Float32 => run_arith::<f32, OP>(ctx, (p.clamp != 0).then_some((p.lo_f, p.hi_f))),
        TensorType::Int32 => run_int::<i32, OP>(ctx, &p),
        TensorType::Int64 if OP != op::DIV && OP != op::SQD => run_int::<i64, OP>(ctx, &p),
        TensorType::Int16 if minmax || OP == op::ADD || OP == op::MUL => {
            run_int::<i16, OP>(ctx, &p)
        }
        TensorType::Int8 if minmax => run_int::<i8, OP>(ctx, &p),
        TensorType::Uint8 if minmax => run_int::<u8, OP>(ctx, &p),
        TensorType::Uint32 if OP == op::MUL => run_int::<u32, OP>(ctx, &p),
        _ => Err(check::TYPE),
    }
}

/// Whether quantized tensor `t` is one the quantized kernels take as such (int16 without
/// quantization parameters is a plain integer for ADD and MUL, as in LiteRT).
fn quantized_int16(t: &crate::interpreter::Desc<'_>) -> bool {
    t.dtype == TensorType::Int16 && is_quantized(t)
}
