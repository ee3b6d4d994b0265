//! The quantized (int8 / int16) variants of the element-wise, softmax, reduction and
//! concatenation kernels, bit-exact with LiteRT's reference kernels (`BUILTIN_REF`). Each
//! family's float kernel dispatches here from the top of its `prepare` and `eval` when its
//! input is quantized. The quantization arithmetic itself is in [`quant`](super::quant).

pub(crate) mod activation;
pub(crate) mod arith;
pub(crate) mod concatenation;
pub(crate) mod fixed_point;
pub(crate) mod lut;
pub(crate) mod mean;
pub(crate) mod softmax;

#[cfg(test)]
mod fixtures;
