//! Activations: LOGISTIC and TANH (float32; int8 and int16 in [`quantized`]; uint8 by
//! table), RELU, RELU6, RELU_N1_TO_1 and LEAKY_RELU (float32; uint8, int8 and int16 in
//! [`relus`]), ELU (float32; int8 by table), as TensorFlow Lite's reference kernels compute
//! them. The float bodies are [`elementwise`] maps of the functions below and of [`math`]'s
//! `logistic` and `tanh`.

mod quantized;
mod relus;
#[cfg(test)]
mod tests;

use super::base::elementwise::{self, FloatFn};
use super::base::math;
use super::base::table::{self, Accept};
use crate::interpreter::{Eval, Init, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, LeakyReluOptions, TensorType};
use relus::Kind as R;

/// LOGISTIC.
pub static LOGISTIC: Kernel = Kernel {
    op: BuiltinOperator::Logistic,
    prepare: prepare_logistic,
    init: Some(init_logistic),
    eval: eval_logistic,
};

/// TANH.
pub static TANH: Kernel = Kernel {
    op: BuiltinOperator::Tanh,
    prepare: prepare_tanh,
    init: Some(init_tanh),
    eval: eval_tanh,
};

/// RELU.
pub static RELU: Kernel = Kernel {
    op: BuiltinOperator::Relu,
    prepare: |ctx| prepare_relu(ctx, R::Relu),
    init: None,
    eval: eval_relu::<Relu>,
};

/// RELU6.
pub static RELU6: Kernel = Kernel {
    op: BuiltinOperator::Relu6,
    prepare: |ctx| prepare_relu(ctx, R::Relu6),
    init: None,
    eval: eval_relu::<Relu6>,
};

/// RELU_N1_TO_1 (float32, uint8, int8).
pub static RELU_N1_TO_1: Kernel = Kernel {
    op: BuiltinOperator::ReluN1To1,
    prepare: |ctx| prepare_relu(ctx, R::ReluN1To1),
    init: None,
    eval: eval_relu::<Relu1>,
};

/// LEAKY_RELU.
pub static LEAKY_RELU: Kernel = Kernel {
    op: BuiltinOperator::LeakyRelu,
    prepare: prepare_leaky_relu,
    init: None,
    eval: eval_leaky_relu,
};

/// ELU (float32; int8 by table).
pub static ELU: Kernel = Kernel {
    op: BuiltinOperator::Elu,
    prepare: prepare_elu,
    init: Some(init_elu),
    eval: eval_elu,
};

struct Relu1;
impl FloatFn for Relu1 {
    fn apply(x: f32, _: f32) -> f32 {
        relu_n1_to_1(x)
    }
}

struct Elu;
impl FloatFn for Elu {
    fn apply(x: f32, _: f32) -> f32 {
        elu(x)
    }
}

fn prepare_relu(ctx: &mut Prepare<'_>, relu: R) -> Result<(), KernelError> {
    if relus::handles(ctx.input(0)?.dtype) {
        return relus::prepare(ctx, relu);
    }
    elementwise::prepare(ctx)
}

fn eval_relu<F: FloatFn>(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if relus::handles(ctx.input_type(0)?) {
        return relus::eval_any(ctx);
    }
    elementwise::eval::<F>(ctx)
}

fn eval_leaky_relu(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if relus::handles(ctx.input_type(0)?) {
        return relus::eval_leaky_any(ctx);
    }
    elementwise::eval::<LeakyRelu>(ctx)
}

/// ELU's table type: int8.
const ELU_TABLE: Accept = Accept {
    uint8: false,
    int8: true,
    int16: false,
    int16_zero_points: false,
};

fn prepare_elu(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if table::handles(ctx.input(0)?.dtype) {
        return table::prepare(ctx, ELU_TABLE);
    }
    elementwise::prepare(ctx)
}

fn init_elu(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    // `value < 0 ? std::expm1(value) : value`, expm1f taken as the rounded double result.
    table::init(ctx, |x, _| {
        if x < 0.0 {
            libm::expm1(f64::from(x)) as f32
        } else {
            x
        }
    })
}

fn eval_elu(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    if table::handles(ctx.input_type(0)?) {
        return table::eval(ctx);
    }
    elementwise::eval::<Elu>(ctx)
}

/// LOGISTIC and TANH's uint8 table.
const UINT8_TABLE: Accept = Accept {
    uint8: true,
    int8: false,
    int16: false,
    int16_zero_points: false,
};

/// uint8 builds its table at set-up (int8 builds it per invoke, see `quantized`).
fn init_logistic(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    if ctx.prepared().input(0)?.dtype == TensorType::Uint8 {
        return table::init(ctx, |v, _| 1.0 / (1.0 + libm::exp(f64::from(-v)) as f32));
    }
    Ok(())
}

/// As [`init_logistic`].
fn init_tanh(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    if ctx.prepared().input(0)?.dtype == TensorType::Uint8 {
        return table::init(ctx, |v, _| libm::tanh(f64::from(v)) as f32);
    }
    Ok(())
}

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
    if relus::handles(ctx.input(0)?.dtype) {
        return relus::prepare_leaky(ctx, alpha);
    }
    elementwise::prepare_with(ctx, alpha)
}

fn prepare_logistic(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    let input = ctx.input(0)?;
    if input.dtype == TensorType::Uint8 {
        let output = ctx.output(0)?;
        let scale = output.quantization().and_then(|q| q.scale().get(0));
        if scale.map(f64::from) != Some(1.0 / 256.0) {
            return Err(KernelError::Unsupported {
                what: "uint8 LOGISTIC output scale other than 1/256",
            });
        }
        return table::prepare(ctx, UINT8_TABLE);
    }
    if quantized::handles(input.dtype) {
        return quantized::prepare_logistic(ctx);
    }
    elementwise::prepare(ctx)
}

fn prepare_tanh(ctx: &mut Prepare<'_>) -> Result<(), KernelError> {
    if ctx.input(0)?.dtype == TensorType::Uint8 {
        return table::prepare(ctx, UINT8_TABLE);
    }
    if quantized::handles(ctx.input(0)?.dtype) {
        return quantized::prepare_tanh(ctx);
    }
    elementwise::prepare(ctx)
}

fn eval_logistic(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let t = ctx.input_type(0)?;
    if t == TensorType::Uint8 {
        return table::eval(ctx);
    }
    if quantized::handles(t) {
        return quantized::eval(ctx);
    }
    elementwise::eval::<Logistic>(ctx)
}

fn eval_tanh(ctx: &mut Eval<'_>) -> Result<(), KernelError> {
    let t = ctx.input_type(0)?;
    if t == TensorType::Uint8 {
        return table::eval(ctx);
    }
    if quantized::handles(t) {
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

/// RELU_N1_TO_1: `x` clamped to `[-1, 1]` (f32::clamp keeps NaN and -0, as the reference's
/// `x > 1 ? 1 : x < -1 ? -1 : x`).
#[inline]
#[must_use]
pub(crate) fn relu_n1_to_1(x: f32) -> f32 {
    x.clamp(-1.0, 1.0)
}

/// ELU: `x < 0 ? expm1(x) : x`.
#[inline]
#[must_use]
pub(crate) fn elu(x: f32) -> f32 {
    if x < 0.0 { libm::expm1f(x) } else { x }
}
