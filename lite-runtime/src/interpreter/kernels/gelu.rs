//! GELU, as LiteRT's kernel computes it (`activations.cc`, `reference_ops::Gelu`):
//!
//! - float32: `0.5 x erfc(-x / sqrt 2)`, or with `approximate`, `0.5 x (1 + tanh(sqrt(2 /
//!   pi) (x + 0.044715 x^3)))`;
//! - uint8, int8 and int16: a lookup table (`base::table`) of the same functions in `f32`
//!   (`GeluTransform`, `GeluTransformApproximate`), int16 interpolated.

#[cfg(test)]
mod tests;

use super::base::elementwise::{self, FloatFn};
use super::base::table::{self, Accept};
use crate::interpreter::{Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, GeluOptions};

/// GELU (float32, uint8, int8, int16).
pub static GELU: Kernel = Kernel {
    op: BuiltinOperator::Gelu,
    prepare,
    init: Some(init),
    eval,
};

/// `sqrt(2 / pi)` as the reference's `float` constant (`M_2_SQRTPI * M_SQRT1_2`).
const SQRT_2_OVER_PI: f32 = (core::f64::consts::FRAC_2_SQRT_PI * core::f64::consts::FRAC_1_SQRT_2) as f32;

/// `GeluTransform`: `0.5 x erfc(x * -1/sqrt 2)` in `f32` (erfc taken as the rounded double
/// result).
#[inline]
#[must_use]
pub(crate) fn gelu(x: f32) -> f32 {
    let e = libm::erfc(f64::from(x * -core::f32::consts::FRAC_1_SQRT_2)) as f32;
    0.5 * x * e
}

/// `GeluTransformApproximate`: `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))` in
/// `f32`, in the reference's order.
#[inline]
#[must_use]
pub(crate) fn gelu_approximate(x: f32) -> f32 {
    let inner = SQRT_2_OVER_PI * (x + 0.044_715 * x * x * x);
    let t = libm::tanh(f64::from(inner)) as f32;
    0.5 * x * (1.0 + t)
}

struct Gelu;
impl FloatFn for Gelu {
    #[inline]
    fn apply(x: f32, approximate: f32) -> f32 {
        if approximate != 0.0 {
            gelu_approximate(x)
        } else {
            gelu(x)
        }
    }
}

/// GELU's table types: every quantized one, int16 with any zero point.
const TABLE: Accept = Accept {
    uint8: true,
    int8: true,
    int16: true,
    int16_zero_points: false,
};

fn prepare(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let GeluOptions { approximate } = ctx.options()?;
    if table::handles(ctx.input(0)?.dtype) {
        return table::prepare(ctx, TABLE);
    }
    elementwise::prepare_with(ctx, if approximate { 1.0 } else { 0.0 })
}

fn init(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    let GeluOptions { approximate } = ctx.prepared().options()?;
    if approximate {
        table::init(ctx, |x, _| gelu_approximate(x))
    } else {
        table::init(ctx, |x, _| gelu(x))
    }
}

fn eval(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if table::handles(ctx.input_type(0)?) {
        return table::eval(ctx);
    }
    elementwise::eval::<Gelu>(ctx)
}
