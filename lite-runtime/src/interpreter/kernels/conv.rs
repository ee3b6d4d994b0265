//! Placeholder while being written.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// CONV_2D.
pub static CONV_2D: Kernel = Kernel {
    op: BuiltinOperator::Conv2D,
    prepare,
    init: None,
    eval,
};

/// DEPTHWISE_CONV_2D.
pub static DEPTHWISE_CONV_2D: Kernel = Kernel {
    op: BuiltinOperator::DepthwiseConv2D,
    prepare,
    init: None,
    eval,
};
