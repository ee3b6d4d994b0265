//! What every kernel family stands on, and the only module families import: the checks every
//! kernel makes ([`check`]), typed access to tensors and operands ([`tensors`]), quantization
//! arithmetic ([`quant`]), fused activations ([`fused`]), broadcasting ([`broadcast`]),
//! convolution windows ([`window`]), float math ([`math`]), the sparse format ([`sparsity`])
//! and the float element-wise scaffold ([`elementwise`]). Nothing here imports a family, and
//! no family imports another (TensorFlow Lite Micro's `kernel_util` and `*_common.cc`).

pub(crate) mod broadcast;
pub(crate) mod check;
pub(crate) mod elementwise;
pub(crate) mod fused;
pub(crate) mod math;
pub(crate) mod quant;
pub(crate) mod recurrent;
pub(crate) mod sparsity;
pub(crate) mod tensors;
pub(crate) mod window;
