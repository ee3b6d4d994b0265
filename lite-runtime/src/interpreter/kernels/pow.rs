//! POW with NumPy broadcasting, as TensorFlow Lite's `pow.cc` computes it (float32, int32).
//!
//! - Element by element (`std::pow`): float32 `powf` (here the `f64` power rounded to float:
//!   correctly rounded but for rare double roundings, where LiteRT's `powf` is within 0.82
//!   ulp); int32 the power in double converted back, which for these sizes is the exact
//!   integer power, and `i32::MIN` where it leaves int32 (the x86 conversion of an out-of-range
//!   double). A negative int32 exponent anywhere fails the invoke, as LiteRT checks.
//! - When the shapes differ and the exponent tensor holds one element within 1e-5 of an
//!   integer `n >= 1`, LiteRT takes `IntegerExponentPow` instead, and so does tessera: `x^n`
//!   by repeated squaring (`x^n = (x^(n/2))^2`, times `x` when `n` is odd), each product
//!   clamped to the finite range for float32 (an overflow gives `f32::MAX`, not infinity) and
//!   wrapping for int32. An exponent of `2.000001` is then exactly a square.
//!
//! Broadcasting goes to 6 dimensions.

#[cfg(test)]
mod tests;

use tessera_core::tensor::Element;

use super::base::broadcast::{Broadcast, binary_operands, map2};
use super::base::check::{self, SHORT};
use super::base::fused::clamp;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// POW (float32, int32).
pub static POW: Kernel = Kernel {
    op: BuiltinOperator::Pow,
    prepare,
    init: None,
    eval,
};

/// The numbers POW runs on.
pub(crate) trait Power: Element {
    /// `std::pow(self, e)` converted back to the type.
    fn pow(self, e: Self) -> Self;
    /// The integer `n >= 1` LiteRT's broadcast path raises to for exponent `e`, if any.
    fn integer_exponent(e: Self) -> Option<u32>;
    /// `a * b` as `IntegerExponentPow`'s `Mul` gives it (float: clamped to the finite
    /// range; int32: wrapping).
    fn mul(self, b: Self) -> Self;
    /// Whether this exponent fails the invoke (a negative int32).
    fn refused(self) -> bool;
}

impl Power for f32 {
    fn pow(self, e: Self) -> Self {
        libm::pow(f64::from(self), f64::from(e)) as f32
    }
    fn integer_exponent(e: Self) -> Option<u32> {
        let r = libm::roundf(e);
        // `static_cast<int>`: the x86 conversion gives INT_MIN out of range (NaN included).
        let n = if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
            r as i32
        } else {
            i32::MIN
        };
        // `std::abs(e - n) < 1e-5` in float.
        let close = (e - n as f32).abs() < 1e-5;
        (close && n >= 1).then_some(n.unsigned_abs())
    }
    fn mul(self, b: Self) -> Self {
        clamp(self * b, f32::MIN, f32::MAX)
    }
    fn refused(self) -> bool {
        false
    }
}

impl Power for i32 {
    fn pow(self, e: Self) -> Self {
        // Exact in i64 while it fits (by squaring, so never more than 32 steps); past int32
        // the double converts to INT_MIN on x86. Negative exponents were refused.
        i64::from(self)
            .checked_pow(e.unsigned_abs())
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(i32::MIN)
    }
    fn refused(self) -> bool {
        self < 0
    }
    fn integer_exponent(e: Self) -> Option<u32> {
        (e >= 1).then_some(e.unsigned_abs())
    }
    fn mul(self, b: Self) -> Self {
        self.wrapping_mul(b)
    }
}

/// `x^n` as `IntegerExponentPow` computes it, `n >= 1`: the bits of `n` from the top, squaring
/// at each and multiplying by `x` at each set one (its recursion, unrolled).
#[inline]
pub(crate) fn integer_pow<T: Power>(x: T, n: u32) -> T {
    let mut r = x;
    let top = 31 - n.max(1).leading_zeros();
    for bit in (0..top).rev() {
        r = r.mul(r);
        if n >> bit & 1 == 1 {
            r = x.mul(r);
        }
    }
    r
}

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (a, _, out) = binary_operands(ctx)?;
    check::output_type(&a, &out)?;
    if !matches!(a.dtype, TensorType::Float32 | TensorType::Int32) {
        return Err(KernelError::Unsupported {
            what: "element type (float32, int32 run)",
        });
    }
    Ok(())
}

fn run<T: Power>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    let a = if sa.elements() == 0 { &[][..] } else { ctx.input::<T>(0)? };
    let b = if sb.elements() == 0 { &[][..] } else { ctx.input::<T>(1)? };
    let b = b.get(..sb.elements()).ok_or(SHORT)?;
    let a = a.get(..sa.elements()).ok_or(SHORT)?;
    if b.iter().any(|&e| e.refused()) {
        return Err(KernelError::Mismatch {
            what: "POW of int32 with a negative exponent",
        });
    }
    if so.elements() == 0 {
        return Ok(());
    }
    let out = ctx.output::<T>(0)?;
    let broadcast = sa.dims() != sb.dims();
    if let (true, [e]) = (broadcast, b) {
        if let Some(n) = T::integer_exponent(*e) {
            // LiteRT's `BroadcastPow4D` shortcut, over input 1's elements.
            let out = out.get_mut(..a.len()).ok_or(SHORT)?;
            if a.len() != so.elements() {
                return Err(check::OUTPUT_SHAPE);
            }
            for (o, &x) in out.iter_mut().zip(a) {
                *o = integer_pow(x, n);
            }
            return Ok(());
        }
    }
    let plan = Broadcast::new(&so, [&sa, &sb])?;
    map2(&plan, a, b, out, T::pow)
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => run::<f32>(ctx),
        TensorType::Int32 => run::<i32>(ctx),
        _ => Err(check::TYPE),
    }
}
