//! Element-wise binary ops with NumPy broadcasting (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM),
//! comparisons (bool outputs) and selects, as TensorFlow Lite computes them.
//!
//! The math is pure functions over slices and shapes (`arith`, `compare`,
//! `compare_strings`, `select`); the kernels check types and shapes at setup and hand
//! the tensors to them. Every op runs through one `Broadcast` plan, which turns shapes into
//! rows so the loops stay tight.
//!
//! What TensorFlow Lite does that is kept: integer ADD, SUB, MUL and DIV wrap on overflow and
//! clamp to the fused activation's range like floats; int32 DIV truncates towards zero and
//! fails when the divisor tensor holds a 0 anywhere (LiteRT checks every element; tessera
//! reports an error instead of trapping); float DIV by 0 gives IEEE infinities or NaN, then
//! clamps. MAXIMUM is `a > b ? a : b` and MINIMUM `a < b ? a : b` (the reference kernels),
//! so a NaN in `a` yields `b`. Comparisons of NaN are false except NOT_EQUAL.
//!
//! Broadcasting goes to 6 dimensions for every op (TensorFlow Lite's comparisons stop at 4
//! and SELECT_V2 at 5; within those the results are the same). Quantized int8 / uint8 /
//! int16 arithmetic and comparisons are refused (another kernel's work); SELECT and SELECT_V2
//! copy elements and take those types too, as TensorFlow Lite does.

mod quantized;
#[cfg(test)]
mod tests;

use tessera_core::strings::TfliteStrings;
use tessera_core::tensor::Element;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::broadcast::{Broadcast, broadcast_shape, map2, map2_indexed, select3};
use super::base::check::{self, SHORT};
use super::base::fused::{clamp, float_range, int_range};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{Activation, AddOptions, BuiltinOperator, DivOptions, MulOptions, SubOptions, TensorType};

/// The ops, as const generic arguments so each kernel links only its own loops.
mod op {
    pub const ADD: u8 = 0;
    pub const SUB: u8 = 1;
    pub const MUL: u8 = 2;
    pub const DIV: u8 = 3;
    pub const MAX: u8 = 4;
    pub const MIN: u8 = 5;
    pub const LT: u8 = 10;
    pub const LE: u8 = 11;
    pub const GT: u8 = 12;
    pub const GE: u8 = 13;
    pub const EQ: u8 = 14;
    pub const NE: u8 = 15;
}

macro_rules! kernel {
    ($(#[$doc:meta])* $name:ident, $op:ident, $prepare:expr, $eval:expr) => {
        $(#[$doc])*
        pub static $name: Kernel = Kernel {
            op: BuiltinOperator::$op,
            prepare: $prepare,
            init: None,
            eval: $eval,
        };
    };
}

kernel!(
    /// ADD (float32, int32, int64; fused activation).
    ADD, Add, prepare_arith::<{ op::ADD }>, eval_arith::<{ op::ADD }>
);
kernel!(
    /// SUB (float32, int32, int64; fused activation).
    SUB, Sub, prepare_arith::<{ op::SUB }>, eval_arith::<{ op::SUB }>
);
kernel!(
    /// MUL (float32, int32, int64; fused activation).
    MUL, Mul, prepare_arith::<{ op::MUL }>, eval_arith::<{ op::MUL }>
);
kernel!(
    /// DIV (float32, int32; fused activation; an int32 divisor of 0 is an error).
    DIV, Div, prepare_arith::<{ op::DIV }>, eval_arith::<{ op::DIV }>
);
kernel!(
    /// MAXIMUM (float32, int32, int64).
    MAXIMUM, Maximum, prepare_arith::<{ op::MAX }>, eval_arith::<{ op::MAX }>
);
kernel!(
    /// MINIMUM (float32, int32, int64).
    MINIMUM, Minimum, prepare_arith::<{ op::MIN }>, eval_arith::<{ op::MIN }>
);
kernel!(
    /// LESS (float32, int32, int64).
    LESS, Less, prepare_compare::<{ op::LT }>, eval_compare::<{ op::LT }>
);
kernel!(
    /// LESS_EQUAL (float32, int32, int64).
    LESS_EQUAL, LessEqual, prepare_compare::<{ op::LE }>, eval_compare::<{ op::LE }>
);
kernel!(
    /// GREATER (float32, int32, int64).
    GREATER, Greater, prepare_compare::<{ op::GT }>, eval_compare::<{ op::GT }>
);
kernel!(
    /// GREATER_EQUAL (float32, int32, int64).
    GREATER_EQUAL, GreaterEqual, prepare_compare::<{ op::GE }>, eval_compare::<{ op::GE }>
);
kernel!(
    /// EQUAL (float32, int32, int64, bool, string).
    EQUAL, Equal, prepare_compare::<{ op::EQ }>, eval_compare::<{ op::EQ }>
);
kernel!(
    /// NOT_EQUAL (float32, int32, int64, bool, string).
    NOT_EQUAL, NotEqual, prepare_compare::<{ op::NE }>, eval_compare::<{ op::NE }>
);
kernel!(
    /// SELECT: the condition has the inputs' shape, or is a scalar, or a vector choosing
    /// whole rows along the first dimension.
    SELECT, Select, prepare_select::<false>, eval_select::<false>
);
kernel!(
    /// SELECT_V2: condition and both inputs broadcast together.
    SELECT_V2, SelectV2, prepare_select::<true>, eval_select::<true>
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
}

macro_rules! integer {
    ($t:ty) => {
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
        }
    };
}
integer!(i32);
integer!(i64);

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
        _ => {
            if a < b {
                a
            } else {
                b
            }
        }
    }
}

/// The comparison `OP` on one pair.
#[inline(always)]
fn test<T: PartialOrd, const OP: u8>(a: T, b: T) -> bool {
    match OP {
        op::LT => a < b,
        op::LE => a <= b,
        op::GT => a > b,
        op::GE => a >= b,
        op::EQ => a == b,
        _ => a != b,
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

/// `out = a OP b` (a comparison) broadcast to `so`.
///
/// # Errors
/// A mismatch if the shapes do not broadcast to `so` or a slice is shorter than its shape.
pub(crate) fn compare<T: PartialOrd + Copy, const OP: u8>(
    a: &[T],
    sa: &Shape,
    b: &[T],
    sb: &Shape,
    out: &mut [bool],
    so: &Shape,
) -> Result<(), KernelError> {
    let plan = Broadcast::new(so, [sa, sb])?;
    check_len(a, sa)?;
    check_len(b, sb)?;
    map2(&plan, a, b, out, test::<T, OP>)
}

/// EQUAL (`EQ = true`) or NOT_EQUAL of string tensors, bytes compared, broadcast to `so`.
///
/// # Errors
/// A mismatch if the shapes do not broadcast to `so` or a tensor holds another number of
/// strings than its shape.
pub(crate) fn compare_strings<const EQ: bool>(
    a: &TfliteStrings<'_>,
    sa: &Shape,
    b: &TfliteStrings<'_>,
    sb: &Shape,
    out: &mut [bool],
    so: &Shape,
) -> Result<(), KernelError> {
    let plan = Broadcast::new(so, [sa, sb])?;
    if a.len() != sa.elements() || b.len() != sb.elements() {
        return Err(KernelError::Mismatch {
            what: "string tensor holds another number of strings than its shape",
        });
    }
    map2_indexed(&plan, out, |i, j| {
        let x = a.get(i).ok_or(SHORT)?;
        let y = b.get(j).ok_or(SHORT)?;
        Ok((x == y) == EQ)
    })
}

/// How a select maps its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SelectMode {
    /// Every operand and the output hold one element (the output keeps the model's shape,
    /// as TensorFlow Lite does).
    Single,
    /// SELECT with a scalar or vector condition: `outer` rows of `inner` elements, each
    /// copied whole from `x` or `y`.
    Rows {
        /// Rows (the condition's elements).
        outer: usize,
        /// Elements per row.
        inner: usize,
    },
    /// Element-wise, broadcast (same shapes collapse to one row).
    Broadcast,
}

fn same(a: &Shape, b: &Shape) -> bool {
    a.dims() == b.dims()
}

/// How SELECT (`V2 = false`) or SELECT_V2 maps condition `sc`, inputs `sx`, `sy` onto
/// output `so` (TensorFlow Lite's `select.cc` Prepare).
///
/// # Errors
/// A mismatch if the shapes do not fit or `so` is not the shape the op gives.
pub(crate) fn select_mode<const V2: bool>(
    sc: &Shape,
    sx: &Shape,
    sy: &Shape,
    so: &Shape,
) -> Result<SelectMode, KernelError> {
    if [sc, sx, sy, so].iter().all(|s| s.elements() == 1) {
        return Ok(SelectMode::Single);
    }
    if same(sc, sx) && same(sx, sy) {
        return if same(so, sx) {
            Ok(SelectMode::Broadcast)
        } else {
            Err(check::OUTPUT_SHAPE)
        };
    }
    if V2 {
        let shape = broadcast_shape(sc, sx)
            .and_then(|s| broadcast_shape(&s, sy))
            .ok_or(KernelError::Mismatch {
                what: "condition and inputs do not broadcast",
            })?;
        return if same(&shape, so) {
            Ok(SelectMode::Broadcast)
        } else {
            Err(check::OUTPUT_SHAPE)
        };
    }
    let low_rank = sc.rank() == 0 || (sc.rank() == 1 && sx.rank() >= 1 && sc.dim(0) == sx.dim(0));
    if !low_rank || !same(sx, sy) {
        return Err(KernelError::Mismatch {
            what: "SELECT needs inputs of one shape and a condition of that shape, a scalar, \
                   or a vector along their first dimension",
        });
    }
    if !same(so, sx) {
        return Err(check::OUTPUT_SHAPE);
    }
    let outer = sc.elements();
    let inner = if sc.rank() == 0 {
        sx.elements()
    } else {
        sx.dims().iter().skip(1).product()
    };
    Ok(SelectMode::Rows { outer, inner })
}

/// SELECT (`V2 = false`) or SELECT_V2: `out = cond ? x : y`.
///
/// # Errors
/// A mismatch if the shapes do not fit or a slice is shorter than its shape.
#[allow(clippy::too_many_arguments)]
pub(crate) fn select<T: Copy, const V2: bool>(
    c: &[bool],
    sc: &Shape,
    x: &[T],
    sx: &Shape,
    y: &[T],
    sy: &Shape,
    out: &mut [T],
    so: &Shape,
) -> Result<(), KernelError> {
    check_len(c, sc)?;
    check_len(x, sx)?;
    check_len(y, sy)?;
    match select_mode::<V2>(sc, sx, sy, so)? {
        SelectMode::Single => {
            let o = out.first_mut().ok_or(SHORT)?;
            let pick = *c.first().ok_or(SHORT)?;
            *o = *if pick { x.first() } else { y.first() }.ok_or(SHORT)?;
            Ok(())
        }
        SelectMode::Rows { outer, inner } => {
            if inner == 0 {
                return Ok(());
            }
            let n = outer * inner;
            let rows = out
                .get_mut(..n)
                .ok_or(SHORT)?
                .chunks_exact_mut(inner)
                .zip(x.get(..n).ok_or(SHORT)?.chunks_exact(inner))
                .zip(y.get(..n).ok_or(SHORT)?.chunks_exact(inner));
            for ((o, (xr, yr)), &pick) in rows.map(|((o, x), y)| (o, (x, y))).zip(c) {
                o.copy_from_slice(if pick { xr } else { yr });
            }
            Ok(())
        }
        SelectMode::Broadcast => {
            let plan = Broadcast::new(so, [sc, sx, sy])?;
            select3(&plan, c, x, y, out)
        }
    }
}

// ---- ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM

/// What the arithmetic kernels keep from setup: the fused activation's range.
#[derive(Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
struct ArithParams {
    /// Whether to clamp at all (no activation: not).
    clamp: u32,
    /// Float range.
    lo_f: f32,
    hi_f: f32,
    _pad: u32,
    /// Integer range (in the tensors' type's bounds).
    lo_i: i64,
    hi_i: i64,
}

fn activation<const OP: u8>(ctx: &Prepare<'_>) -> Result<Activation, KernelError> {
    // Only this op's options decoder, not the whole union's.
    Ok(match OP {
        op::ADD => ctx.options::<AddOptions>()?.activation,
        op::SUB => ctx.options::<SubOptions>()?.activation,
        op::MUL => ctx.options::<MulOptions>()?.activation,
        op::DIV => ctx.options::<DivOptions>()?.activation,
        _ => Activation::None, // MAXIMUM / MINIMUM: no activation
    })
}

fn refuse_quantized(t: TensorType) -> Result<(), KernelError> {
    match t {
        TensorType::Int8 | TensorType::Uint8 | TensorType::Int16 => Err(KernelError::Unsupported {
            what: "quantized element-wise ops (int8, uint8, int16)",
        }),
        _ => Ok(()),
    }
}

fn prepare_arith<const OP: u8>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if matches!(OP, op::ADD | op::MUL) && quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare(ctx, OP == op::MUL);
    }
    let a = ctx.input(0)?;
    let b = ctx.input(1)?;
    let out = ctx.output(0)?;
    check::same_type(&a, &b)?;
    check::output_type(&a, &out)?;
    refuse_quantized(a.dtype)?;
    let supported = match a.dtype {
        TensorType::Float32 | TensorType::Int32 => true,
        // LiteRT's DIV has no int64 kernel.
        TensorType::Int64 => OP != op::DIV,
        _ => false,
    };
    if !supported {
        return Err(KernelError::Unsupported {
            what: "element type (float32, int32 and int64 run; DIV: float32, int32)",
        });
    }
    let shape = broadcast_shape(&a.shape, &b.shape).ok_or(KernelError::Mismatch {
        what: "input shapes do not broadcast",
    })?;
    if !same(&shape, &out.shape) {
        return Err(check::OUTPUT_SHAPE);
    }
    let act = activation::<OP>(ctx)?;
    let mut params = ArithParams {
        clamp: 0,
        lo_f: f32::NEG_INFINITY,
        hi_f: f32::INFINITY,
        _pad: 0,
        lo_i: i64::MIN,
        hi_i: i64::MAX,
    };
    if act != Activation::None {
        params.clamp = 1;
        let max = if a.dtype == TensorType::Int32 {
            i64::from(i32::MAX)
        } else {
            i64::MAX
        };
        if a.dtype == TensorType::Float32 {
            (params.lo_f, params.hi_f) = float_range(act)?;
        } else if let Some((lo, hi)) = int_range(act, max)? {
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

fn eval_arith<const OP: u8>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if matches!(OP, op::ADD | op::MUL) && quantized::handles(ctx.input_type(0)?) {
        return quantized::eval(ctx, OP == op::MUL);
    }
    let p: ArithParams = ctx.params();
    let on = p.clamp != 0;
    match ctx.input_type(0)? {
        TensorType::Float32 => run_arith::<f32, OP>(ctx, on.then_some((p.lo_f, p.hi_f))),
        TensorType::Int32 => {
            let lo = i32::try_from(p.lo_i).unwrap_or(i32::MIN);
            let hi = i32::try_from(p.hi_i).unwrap_or(i32::MAX);
            run_arith::<i32, OP>(ctx, on.then_some((lo, hi)))
        }
        TensorType::Int64 if OP != op::DIV => {
            run_arith::<i64, OP>(ctx, on.then_some((p.lo_i, p.hi_i)))
        }
        _ => Err(KernelError::Unsupported {
            what: "element type",
        }),
    }
}

// ---- comparisons

fn prepare_compare<const OP: u8>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let a = ctx.input(0)?;
    let b = ctx.input(1)?;
    let out = ctx.output(0)?;
    if a.dtype != b.dtype {
        return Err(KernelError::Mismatch {
            what: "inputs differ in type",
        });
    }
    if out.dtype != TensorType::Bool {
        return Err(KernelError::Mismatch {
            what: "comparison output is not BOOL",
        });
    }
    refuse_quantized(a.dtype)?;
    let equality = OP == op::EQ || OP == op::NE;
    let supported = match a.dtype {
        TensorType::Float32 | TensorType::Int32 | TensorType::Int64 => true,
        TensorType::Bool | TensorType::String => equality,
        _ => false,
    };
    if !supported {
        return Err(KernelError::Unsupported {
            what: "element type (float32, int32, int64; bool and string for EQUAL, NOT_EQUAL)",
        });
    }
    let shape = broadcast_shape(&a.shape, &b.shape).ok_or(KernelError::Mismatch {
        what: "input shapes do not broadcast",
    })?;
    if !same(&shape, &out.shape) {
        return Err(check::OUTPUT_SHAPE);
    }
    Ok(())
}

fn run_compare<T: Element + PartialOrd, const OP: u8>(
    ctx: &mut Eval<'_>,
) -> Result<(), KernelError> {
    let a = ctx.input::<T>(0)?;
    let b = ctx.input::<T>(1)?;
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    let out = ctx.output::<bool>(0)?;
    compare::<T, OP>(a, &sa, b, &sb, out, &so)
}

fn eval_compare<const OP: u8>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    // As for arithmetic: an empty output, nothing to do.
    if ctx.output_shape(0)?.elements() == 0 {
        return Ok(());
    }
    let equality = OP == op::EQ || OP == op::NE;
    match ctx.input_type(0)? {
        TensorType::Float32 => run_compare::<f32, OP>(ctx),
        TensorType::Int32 => run_compare::<i32, OP>(ctx),
        TensorType::Int64 => run_compare::<i64, OP>(ctx),
        TensorType::Bool if equality => run_compare::<bool, OP>(ctx),
        TensorType::String if equality => {
            let a = ctx.input_strings(0)?;
            let b = ctx.input_strings(1)?;
            let (sa, sb, so) = (
                ctx.input_shape(0)?,
                ctx.input_shape(1)?,
                ctx.output_shape(0)?,
            );
            let out = ctx.output::<bool>(0)?;
            if OP == op::EQ {
                compare_strings::<true>(&a, &sa, &b, &sb, out, &so)
            } else {
                compare_strings::<false>(&a, &sa, &b, &sb, out, &so)
            }
        }
        _ => Err(KernelError::Unsupported {
            what: "element type",
        }),
    }
}

// ---- SELECT, SELECT_V2

fn prepare_select<const V2: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let c = ctx.input(0)?;
    let x = ctx.input(1)?;
    let y = ctx.input(2)?;
    let out = ctx.output(0)?;
    if c.dtype != TensorType::Bool {
        return Err(KernelError::Mismatch {
            what: "condition is not BOOL",
        });
    }
    if x.dtype != y.dtype || out.dtype != x.dtype {
        return Err(KernelError::Mismatch {
            what: "inputs and output differ in type",
        });
    }
    if !matches!(
        x.dtype,
        TensorType::Float32
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Bool
            | TensorType::Int8
            | TensorType::Uint8
            | TensorType::Int16
    ) {
        return Err(KernelError::Unsupported {
            what: "element type (bool, float32, int8, uint8, int16, int32, int64)",
        });
    }
    select_mode::<V2>(&c.shape, &x.shape, &y.shape, &out.shape)?;
    Ok(())
}

fn run_select<T: Element, const V2: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let c = ctx.input::<bool>(0)?;
    let x = ctx.input::<T>(1)?;
    let y = ctx.input::<T>(2)?;
    let (sc, sx, sy) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.input_shape(2)?,
    );
    let so = ctx.output_shape(0)?;
    let out = ctx.output::<T>(0)?;
    select::<T, V2>(c, &sc, x, &sx, y, &sy, out, &so)
}

fn eval_select<const V2: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    // An empty output comes from empty operands: nothing to read or write.
    if ctx.output_shape(0)?.elements() == 0 {
        return Ok(());
    }
    match ctx.input_type(1)? {
        TensorType::Float32 => run_select::<f32, V2>(ctx),
        TensorType::Int32 => run_select::<i32, V2>(ctx),
        TensorType::Int64 => run_select::<i64, V2>(ctx),
        TensorType::Bool => run_select::<bool, V2>(ctx),
        TensorType::Int8 => run_select::<i8, V2>(ctx),
        TensorType::Uint8 => run_select::<u8, V2>(ctx),
        TensorType::Int16 => run_select::<i16, V2>(ctx),
        _ => Err(KernelError::Unsupported {
            what: "element type",
        }),
    }
}
