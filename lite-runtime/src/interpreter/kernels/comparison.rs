//! Comparisons with NumPy broadcasting and BOOL outputs: LESS, LESS_EQUAL, GREATER,
//! GREATER_EQUAL, EQUAL, NOT_EQUAL, as TensorFlow Lite's `comparisons.cc` computes them.
//!
//! Types, as LiteRT dispatches them: float32, int32 and int64 for every op; float16 for every
//! op (compared as floats); bfloat16 for LESS and GREATER; bool and string for EQUAL and
//! NOT_EQUAL. int8 and uint8 are compared after rescaling both inputs to a common scale
//! (each offset by its zero point, shifted left 8 bits and multiplied by its own scale in
//! fixed point, `ComparisonWithScaling`), so tensors of different scales compare by the real
//! values they hold. int16 is compared as stored by the ordering ops (LiteRT's `LessEval`
//! does not rescale it) and rescaled by EQUAL and NOT_EQUAL when it carries quantization
//! parameters. Comparisons of NaN are false except NOT_EQUAL.
//!
//! Where LiteRT is not followed: NOT_EQUAL on int16 without quantization parameters writes
//! nothing in LiteRT (its switch has no branch for it); tessera compares the stored values.
//! Broadcasting goes to 6 dimensions (LiteRT's loop to 8; within 6 the results are the same).

#[cfg(test)]
mod tests;

use tessera_core::strings::TfliteStrings;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::base::broadcast::{Broadcast, binary_operands, map2, map2_indexed};
use super::base::check::{self, SHORT};
use super::base::quant::{self, f16_to_f32};
use super::base::rescale::{
    is_quantized, multiplier_above_one, multiplier_below_one, shift_and_scale,
};
use super::base::tensors::words;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare, Shape};
use crate::model::{BuiltinOperator, TensorType};

/// The ops, as const generic arguments so each kernel links only its own loops.
pub(crate) mod op {
    pub const LT: u8 = 0;
    pub const LE: u8 = 1;
    pub const GT: u8 = 2;
    pub const GE: u8 = 3;
    pub const EQ: u8 = 4;
    pub const NE: u8 = 5;
}

macro_rules! kernel {
    ($(#[$doc:meta])* $name:ident, $op:ident, $code:expr) => {
        $(#[$doc])*
        pub static $name: Kernel = Kernel {
            op: BuiltinOperator::$op,
            prepare: prepare::<{ $code }>,
            init: None,
            eval: eval::<{ $code }>,
        };
    };
}

kernel!(
    /// LESS (float32, float16, bfloat16, int32, int64, int16; int8, uint8 rescaled).
    LESS, Less, op::LT
);
kernel!(
    /// LESS_EQUAL (float32, float16, int32, int64, int16; int8, uint8 rescaled).
    LESS_EQUAL, LessEqual, op::LE
);
kernel!(
    /// GREATER (float32, float16, bfloat16, int32, int64, int16; int8, uint8 rescaled).
    GREATER, Greater, op::GT
);
kernel!(
    /// GREATER_EQUAL (float32, float16, int32, int64, int16; int8, uint8 rescaled).
    GREATER_EQUAL, GreaterEqual, op::GE
);
kernel!(
    /// EQUAL (float32, float16, int32, int64, bool, string, int16; int8, uint8 and quantized
    /// int16 rescaled).
    EQUAL, Equal, op::EQ
);
kernel!(
    /// NOT_EQUAL (float32, float16, int32, int64, bool, string, int16; int8, uint8 and
    /// quantized int16 rescaled).
    NOT_EQUAL, NotEqual, op::NE
);

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

/// `out = a OP b` broadcast to `so`.
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

/// `Params::path`: the stored values compared as they are.
const RAW: u32 = 0;
/// `Params::path`: both inputs rescaled first.
const SCALED: u32 = 1;

/// What setup keeps: the path and, rescaled, each input's offset, multiplier and shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct Params {
    path: u32,
    input1_offset: i32,
    input1_multiplier: i32,
    input1_shift: i32,
    input2_offset: i32,
    input2_multiplier: i32,
    input2_shift: i32,
}

/// The bits the rescaled inputs are shifted left by (`ComparisonQuantized`'s `left_shift`).
const LEFT_SHIFT: u32 = 8;

/// `QuantizeMultiplier` as `comparisons.cc` defines it locally: below one, the
/// smaller-than-one form; from one on, the greater-than-one form (which refuses exactly one,
/// as the reference aborts there).
fn scale_multiplier(scale: f32) -> Result<(i32, i32), KernelError> {
    let m = f64::from(scale);
    if m < 1.0 {
        multiplier_below_one(m)
    } else {
        multiplier_above_one(m)
    }
}

/// One input rescaled (`ComparisonWithScaling`'s per-operand step).
#[inline(always)]
fn rescale(x: i32, offset: i32, multiplier: i32, shift: i32) -> i32 {
    shift_and_scale(x, offset, LEFT_SHIFT, multiplier, shift)
}

impl Params {
    /// Input 1's rescaled value.
    #[inline(always)]
    pub(crate) fn scaled1(&self, x: i32) -> i32 {
        rescale(x, self.input1_offset, self.input1_multiplier, self.input1_shift)
    }

    /// Input 2's rescaled value.
    #[inline(always)]
    pub(crate) fn scaled2(&self, y: i32) -> i32 {
        rescale(y, self.input2_offset, self.input2_multiplier, self.input2_shift)
    }
}

/// Whether input type `t` (quantized or not, `q`) is compared after rescaling.
fn rescaled<const OP: u8>(t: TensorType, q: bool) -> bool {
    match t {
        TensorType::Int8 | TensorType::Uint8 => true,
        TensorType::Int16 => matches!(OP, op::EQ | op::NE) && q,
        _ => false,
    }
}

/// Whether `OP` compares type `t` as stored.
fn raw_type<const OP: u8>(t: TensorType) -> bool {
    let equality = matches!(OP, op::EQ | op::NE);
    match t {
        TensorType::Float32
        | TensorType::Int32
        | TensorType::Int64
        | TensorType::Float16
        | TensorType::Int16 => true,
        TensorType::Bfloat16 => matches!(OP, op::LT | op::GT),
        TensorType::Bool => equality,
        t if t.is_string() => equality,
        _ => false,
    }
}

fn prepare<const OP: u8>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (a, b, out) = binary_operands(ctx)?;
    if out.dtype != TensorType::Bool {
        return Err(KernelError::Mismatch {
            what: "comparison output is not BOOL",
        });
    }
    let mut p = Params {
        path: RAW,
        input1_offset: 0,
        input1_multiplier: 0,
        input1_shift: 0,
        input2_offset: 0,
        input2_multiplier: 0,
        input2_shift: 0,
    };
    if rescaled::<OP>(a.dtype, is_quantized(&a)) {
        let (s1, z1) = quant::per_tensor(a.quantization(), a.dtype)?;
        let (s2, z2) = quant::per_tensor(b.quantization(), b.dtype)?;
        p.path = SCALED;
        (p.input1_offset, p.input2_offset) = (-z1, -z2);
        (p.input1_multiplier, p.input1_shift) = scale_multiplier(s1)?;
        (p.input2_multiplier, p.input2_shift) = scale_multiplier(s2)?;
    } else if !raw_type::<OP>(a.dtype) {
        return Err(KernelError::Unsupported {
            what: match OP {
                op::EQ | op::NE => {
                    "element type (float32, float16, int8, uint8, int16, int32, int64, bool, \
                     string run)"
                }
                op::LT | op::GT => {
                    "element type (float32, float16, bfloat16, int8, uint8, int16, int32, \
                     int64 run)"
                }
                _ => "element type (float32, float16, int8, uint8, int16, int32, int64 run)",
            },
        });
    }
    ctx.set_params(&p);
    Ok(())
}

fn run<T: tessera_core::tensor::Element + PartialOrd, const OP: u8>(
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

/// 16-bit floats, widened to `f32` by `widen` and compared.
fn run_half<const OP: u8>(ctx: &mut Eval<'_>, widen: fn(u16) -> f32) -> Result<(), KernelError> {
    let a = words::<u16>(ctx.input_bytes(0)?)?;
    let b = words::<u16>(ctx.input_bytes(1)?)?;
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    check_len(a, &sa)?;
    check_len(b, &sb)?;
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    let out = ctx.output::<bool>(0)?;
    map2(&plan, a, b, out, |x, y| test::<f32, OP>(widen(x), widen(y)))
}

/// Elements from which the per-invoke tables pay for themselves.
const TABLE_FROM: usize = 512;

/// Rescaled 8-bit or 16-bit integers.
fn run_scaled<T, const OP: u8>(
    ctx: &mut Eval<'_>,
    p: &Params,
    byte: Option<fn(u8) -> T>,
) -> Result<(), KernelError>
where
    T: tessera_core::tensor::Element + Into<i32>,
{
    let a = ctx.input::<T>(0)?;
    let b = ctx.input::<T>(1)?;
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    check_len(a, &sa)?;
    check_len(b, &sb)?;
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    let out = ctx.output::<bool>(0)?;
    match byte {
        Some(from_byte) if so.elements() >= TABLE_FROM => {
            // Each input's rescaled value depends on it alone: 256-entry tables by stored byte.
            let mut t1 = [0i32; 256];
            let mut t2 = [0i32; 256];
            for (b, (x, y)) in (0..=255u8).zip(t1.iter_mut().zip(t2.iter_mut())) {
                let v: i32 = from_byte(b).into();
                (*x, *y) = (p.scaled1(v), p.scaled2(v));
            }
            let index = |v: T| -> usize { usize::from(v.as_bytes().first().copied().unwrap_or(0)) };
            map2(&plan, a, b, out, |x, y| {
                let s1 = t1.get(index(x)).copied().unwrap_or(0);
                let s2 = t2.get(index(y)).copied().unwrap_or(0);
                test::<i32, OP>(s1, s2)
            })
        }
        _ => map2(&plan, a, b, out, |x, y| {
            test::<i32, OP>(p.scaled1(x.into()), p.scaled2(y.into()))
        }),
    }
}

fn eval<const OP: u8>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    // An empty output comes from an empty input: nothing to read or write.
    if ctx.output_shape(0)?.elements() == 0 {
        return Ok(());
    }
    let p: Params = ctx.params();
    let equality = matches!(OP, op::EQ | op::NE);
    match (ctx.input_type(0)?, p.path) {
        (TensorType::Int8, SCALED) => run_scaled::<i8, OP>(ctx, &p, Some(|b| b as i8)),
        (TensorType::Uint8, SCALED) => run_scaled::<u8, OP>(ctx, &p, Some(|b| b)),
        (TensorType::Int16, SCALED) => run_scaled::<i16, OP>(ctx, &p, None),
        (TensorType::Float32, _) => run::<f32, OP>(ctx),
        (TensorType::Int32, _) => run::<i32, OP>(ctx),
        (TensorType::Int64, _) => run::<i64, OP>(ctx),
        (TensorType::Int16, _) => run::<i16, OP>(ctx),
        (TensorType::Float16, _) => run_half::<OP>(ctx, f16_to_f32),
        (TensorType::Bfloat16, _) if matches!(OP, op::LT | op::GT) => {
            run_half::<OP>(ctx, |h| f32::from_bits(u32::from(h) << 16))
        }
        (TensorType::Bool, _) if equality => run::<bool, OP>(ctx),
        (t, _) if equality && t.is_string() => {
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
        _ => Err(check::TYPE),
    }
}
