//! What every kernel family stands on, and the only module families import: the checks every
//! kernel makes ([`check`]), typed access to tensors and operands ([`tensors`]), quantization
//! arithmetic ([`quant`], element types [`qtype`]), fused activations ([`fused`]),
//! broadcasting ([`broadcast`]), convolution windows ([`window`]), float math ([`math`]), the
//! sparse format ([`sparsity`]), strided reads ([`strided`]), the float element-wise scaffold
//! ([`elementwise`]), the quantized lookup-table one ([`table`]) and the threads kernels split
//! their outputs over ([`threads`]), and weights packed once into persistent bytes
//! ([`packed`]). Nothing here imports a
//! family, and
//! no family imports another (TensorFlow Lite Micro's `kernel_util` and `*_common.cc`).

pub(crate) mod broadcast;
pub(crate) mod check;
pub(crate) mod elementwise;
pub(crate) mod fused;
pub(crate) mod math;
pub(crate) mod packed;
#[cfg(test)]
pub(crate) mod qmodel;
pub(crate) mod qtype;
pub(crate) mod quant;
pub(crate) mod recurrent;
pub(crate) mod rescale;
pub(crate) mod sparsity;
pub(crate) mod strided;
pub(crate) mod table;
pub(crate) mod tensors;
pub(crate) mod threads;
pub(crate) mod window;
