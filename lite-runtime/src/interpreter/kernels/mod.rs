//! The kernels, one module per op family. Each is a `pub static` [`Kernel`]; [`ALL`] lists
//! them for [`AllOps`](super::AllOps). A resolver that names only some keeps the others out of
//! a firmware image; for int8 networks, the `_INT8` kernels ([`CONV_2D_INT8`] and its
//! siblings; not in [`ALL`]) keep the float32 and 16x8 bodies out too.
//!
//! Conventions every kernel follows: `prepare` checks types, shapes (the model's output shape
//! must be what the op computes) and options, and stores what `eval` needs with
//! `set_params`; `eval` reads typed slices and writes row-major outputs, checking every
//! index that comes from data.

mod activation;
mod binary;
mod conv;
mod fully_connected;
mod gather;
#[cfg(test)]
mod int8_only;
#[cfg(test)]
#[allow(dead_code)] // each family's tests use part of it
pub(crate) mod one_op;
mod pad;
mod pool;
mod quant;
mod quantize;
mod quantized;
mod reduce;
mod reshape;
mod shape;
mod sparse;
mod unary;

pub use binary::{
    ADD, DIV, EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, MAXIMUM, MINIMUM, MUL, NOT_EQUAL,
    SELECT, SELECT_V2, SUB,
};
pub use conv::{CONV_2D, CONV_2D_INT8, DEPTHWISE_CONV_2D, DEPTHWISE_CONV_2D_INT8};
pub use fully_connected::{FULLY_CONNECTED, FULLY_CONNECTED_INT8};
pub use gather::{EMBEDDING_LOOKUP, GATHER};
pub use pad::PAD;
pub use pool::{AVERAGE_POOL_2D, AVERAGE_POOL_2D_INT8, MAX_POOL_2D, MAX_POOL_2D_INT8};
pub use quantize::{DEQUANTIZE, QUANTIZE};
pub use reduce::{ARG_MAX, ARG_MIN, MEAN, REDUCE_MAX, SUM};
pub use reshape::{EXPAND_DIMS, RESHAPE, SQUEEZE};
pub use shape::{CONCATENATION, FILL, PACK, SHAPE, SLICE, STRIDED_SLICE, TRANSPOSE, UNPACK};
pub use sparse::DENSIFY;
pub use unary::{
    CAST, LEAKY_RELU, LOG_SOFTMAX, LOGISTIC, RELU, RELU6, SOFTMAX, SOFTMAX_INT8, TANH,
};

use super::kernel::Kernel;
use crate::interpreter::KernelError;

/// What the `_INT8` registrations (TensorFlow Lite Micro's `Register_X_INT8`: one type's
/// bodies linked, for firmware flash) say at set-up of an operator of another type.
const NOT_INT8: KernelError = KernelError::Unsupported {
    what: "a type this registration leaves out (the _INT8 kernels run int8 only)",
};

/// Every kernel, for [`AllOps`](super::AllOps).
pub static ALL: &[&Kernel] = &[
    &FULLY_CONNECTED,
    &RESHAPE,
    &SQUEEZE,
    &EXPAND_DIMS,
    &ADD,
    &SUB,
    &MUL,
    &DIV,
    &MAXIMUM,
    &MINIMUM,
    &LESS,
    &LESS_EQUAL,
    &GREATER,
    &GREATER_EQUAL,
    &EQUAL,
    &NOT_EQUAL,
    &SELECT,
    &SELECT_V2,
    &LOGISTIC,
    &TANH,
    &RELU,
    &RELU6,
    &LEAKY_RELU,
    &SOFTMAX,
    &LOG_SOFTMAX,
    &CAST,
    &MEAN,
    &SUM,
    &REDUCE_MAX,
    &ARG_MAX,
    &ARG_MIN,
    &CONCATENATION,
    &SLICE,
    &STRIDED_SLICE,
    &TRANSPOSE,
    &PACK,
    &UNPACK,
    &SHAPE,
    &FILL,
    &GATHER,
    &EMBEDDING_LOOKUP,
    &DENSIFY,
    &CONV_2D,
    &DEPTHWISE_CONV_2D,
    &AVERAGE_POOL_2D,
    &MAX_POOL_2D,
    &QUANTIZE,
    &DEQUANTIZE,
    &PAD,
];
