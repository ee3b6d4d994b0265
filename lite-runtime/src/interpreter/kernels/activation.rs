//! Activations: LOGISTIC and TANH (float32; int8 and int16 in [`quantized`]), RELU, RELU6 and
//! LEAKY_RELU (float32), as TensorFlow Lite's reference kernels compute them. The float
//! bodies are [`elementwise`] maps of the functions below and of [`math`]'s `logistic` and
//! `tanh`.

mod quantized;
#[cfg(test)]
mod tests;

use super::base::elementwise::{self, FloatFn};
use super::base::math;
use crate::interpreter::{Eval, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, LeakyReluOptions};

/// LOGISTIC.
pub static LOGISTIC: Kernel = Kernel {
    op: BuiltinOperator::Logistic,
    prepare: prepare_logistic,
    init: Some(quantized::init_logistic),
    eval: eval_logistic,
};

/// TANH.
pub static TANH: Kernel = Kernel {
    op: BuiltinOperator::Tanh,
    prepare: prepare_tanh,
    init: Some(quantized::init_tanh),
    eval: eval_tanh,
};

/// RELU.
pub static RELU: Kernel = Kernel {
    op: BuiltinOperator::Relu,
    prepare: elementwise::prepare,
    init: None,
    eval: elementwise::eval::<Relu>,
};

/// RELU6.
pub static RELU6: Kernel = Kernel {
    op: BuiltinOperator::Relu6,
    prepare: elementwise::prepare,
    init: None,
    eval: elementwise::eval::<Relu6>,
};

/// LEAKY_RELU.
pub static LEAKY_RELU: Kernel = Kernel {
    op: BuiltinOperator::LeakyRelu,
    prepare: prepare_leaky_relu,
    init: None,
    eval: elementwise::eval::<LeakyRelu>,
};

struct Relu;
impl FloatFn for Relu {
    fn apply(x: f32, _: f32) -> f32 {
        relu(x)
    }
}

struct Relu6;
impl FloatFn for Relu6 {
    fn apply(x: f32, _: f32) -> f32 {
        relu6(x)
    }
}

/// Its option is alpha.
struct LeakyRelu;
impl FloatFn for LeakyRelu {
    fn apply(x: f32, alpha: f32) -> f32 {
        leaky_relu(x, alpha)
    }
}

struct Logistic;
impl FloatFn for Logistic {
    fn apply(x: f32, _: f32) -> f32 {
        math::logistic(x)
    }
}

struct Tanh;
impl FloatFn for Tanh {
    fn apply(x: f32, _: f32) -> f32 {
        math::tanh(x)
    }
}

fn prepare_leaky_relu(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let LeakyReluOptions { alpha } = ctx.options()?;
    elementwise::prepare_with(ctx, alpha)
}

fn prepare_logistic(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare_logistic(ctx);
    }
    elementwise::prepare(ctx)
}

fn prepare_tanh(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare_tanh(ctx);
    }
    elementwise::prepare(ctx)
}

fn eval_logistic(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input_type(0)?) {
        return quantized::eval(ctx);
    }
    elementwise::eval::<Logistic>(ctx)
}

fn eval_tanh(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if quantized::handles(ctx.input_type(0)?) {
        return quantized::eval(ctx);
    }
    elementwise::eval::<Tanh>(ctx)
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
