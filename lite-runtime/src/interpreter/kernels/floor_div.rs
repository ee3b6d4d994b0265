//! FLOOR_DIV and FLOOR_MOD with NumPy broadcasting, as TensorFlow Lite's `floor_div.cc` and
//! `floor_mod.cc` compute them.
//!
//! - FLOOR_DIV (float32, int32, int16, int8): `floor(double(a) / double(b))`, converted back
//!   to the type (float32: rounded to nearest; integers: the exact floor quotient, which is
//!   what the double gives for these widths; `MIN / -1`, the one quotient past the type,
//!   wraps to `MIN` as the x86 conversion does). A divisor of 0 anywhere in the divisor
//!   tensor fails the invoke, float32 included, as LiteRT checks.
//! - FLOOR_MOD (float32, int32, int64, int16, int8): C's truncated remainder (`%`, `fmodf`),
//!   plus the divisor when the two differ in sign and the remainder is not 0 (in float32,
//!   `fmodf(a, b) + b`, one rounding). An integer divisor of 0 anywhere fails the invoke; a
//!   float one gives NaN. `MIN % -1` is 0 (LiteRT's C++ traps there).
//!
//! The integer types are plain integers (LiteRT's kernels read no quantization). Broadcasting
//! goes to 6 dimensions.

#[cfg(test)]
mod tests;

use tessera_core::tensor::Element;

use super::base::broadcast::{Broadcast, binary_operands, map2};
use super::base::check::{self, SHORT};
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, TensorType};

/// FLOOR_DIV (float32, int32, int16, int8).
pub static FLOOR_DIV: Kernel = Kernel {
    op: BuiltinOperator::FloorDiv,
    prepare: prepare::<false>,
    init: None,
    eval: eval::<false>,
};

/// FLOOR_MOD (float32, int32, int64, int16, int8).
pub static FLOOR_MOD: Kernel = Kernel {
    op: BuiltinOperator::FloorMod,
    prepare: prepare::<true>,
    init: None,
    eval: eval::<true>,
};

/// The numbers FLOOR_DIV and FLOOR_MOD run on.
pub(crate) trait Floored: Element {
    /// Whether a 0 divisor fails the invoke for this op (`MOD`) and type.
    fn zero_fails(mod_: bool) -> bool;
    /// Whether `self` is 0 (or -0).
    fn is_zero(self) -> bool;
    /// FLOOR_DIV of one pair.
    fn floor_div(self, b: Self) -> Self;
    /// FLOOR_MOD of one pair.
    fn floor_mod(self, b: Self) -> Self;
}

impl Floored for f32 {
    fn zero_fails(mod_: bool) -> bool {
        !mod_
    }
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn floor_div(self, b: Self) -> Self {
        libm::floor(f64::from(self) / f64::from(b)) as f32
    }
    fn floor_mod(self, b: Self) -> Self {
        let r = libm::fmodf(self, b);
        if r != 0.0 && ((b < 0.0) != (r < 0.0)) {
            r + b
        } else {
            r
        }
    }
}

macro_rules! floored_int {
    ($($t:ty => $wide:ty),*) => {$(
        impl Floored for $t {
            fn zero_fails(_: bool) -> bool {
                true
            }
            fn is_zero(self) -> bool {
                self == 0
            }
            fn floor_div(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                // Twice as wide, nothing overflows; the floor quotient is then truncated to the
                // type.
                let (a, b) = (<$wide>::from(self), <$wide>::from(b));
                let q = a / b;
                let q = if a % b != 0 && ((a < 0) != (b < 0)) { q - 1 } else { q };
                q as $t
            }
            fn floor_mod(self, b: Self) -> Self {
                if b == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(b);
                if r != 0 && ((b < 0) != (r < 0)) {
                    r.wrapping_add(b)
                } else {
                    r
                }
            }
        }
    )*};
}
floored_int!(i8 => i32, i16 => i32, i32 => i64, i64 => i128);

/// FLOOR_DIV (`MOD = false`) or FLOOR_MOD over slices broadcast to `so` (no zero check).
///
/// # Errors
/// A mismatch if the shapes do not broadcast to `so` or a slice is shorter than its shape.
pub(crate) fn floored<T: Floored, const MOD: bool>(
    a: &[T],
    sa: &crate::interpreter::Shape,
    b: &[T],
    sb: &crate::interpreter::Shape,
    out: &mut [T],
    so: &crate::interpreter::Shape,
) -> Result<(), KernelError> {
    let plan = Broadcast::new(so, [sa, sb])?;
    if a.len() < sa.elements() || b.len() < sb.elements() {
        return Err(SHORT);
    }
    if MOD {
        map2(&plan, a, b, out, T::floor_mod)
    } else {
        map2(&plan, a, b, out, T::floor_div)
    }
}

fn supported<const MOD: bool>(t: TensorType) -> bool {
    match t {
        TensorType::Float32 | TensorType::Int32 | TensorType::Int16 | TensorType::Int8 => true,
        TensorType::Int64 => MOD,
        _ => false,
    }
}

fn prepare<const MOD: bool>(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let (a, _, out) = binary_operands(ctx)?;
    check::output_type(&a, &out)?;
    if !supported::<MOD>(a.dtype) {
        return Err(KernelError::Unsupported {
            what: if MOD {
                "element type (float32, int8, int16, int32, int64 run)"
            } else {
                "element type (float32, int8, int16, int32 run)"
            },
        });
    }
    Ok(())
}

fn run<T: Floored, const MOD: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let (sa, sb, so) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.output_shape(0)?,
    );
    if T::zero_fails(MOD) && sb.elements() > 0 {
        // LiteRT checks the whole divisor tensor, used elements or not.
        let b = ctx.input::<T>(1)?;
        if b.get(..sb.elements()).ok_or(SHORT)?.iter().any(|v| v.is_zero()) {
            return Err(KernelError::Mismatch {
                what: "division by zero",
            });
        }
    }
    if so.elements() == 0 {
        return Ok(());
    }
    let a = ctx.input::<T>(0)?;
    let b = ctx.input::<T>(1)?;
    let out = ctx.output::<T>(0)?;
    floored::<T, MOD>(a, &sa, b, &sb, out, &so)
}

fn eval<const MOD: bool>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    match ctx.input_type(0)? {
        TensorType::Float32 => run::<f32, MOD>(ctx),
        TensorType::Int32 => run::<i32, MOD>(ctx),
        TensorType::Int16 => run::<i16, MOD>(ctx),
        TensorType::Int8 => run::<i8, MOD>(ctx),
        TensorType::Int64 if MOD => run::<i64, MOD>(ctx),
        _ => Err(check::TYPE),
    }
}
