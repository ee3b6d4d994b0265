//! Placeholder while being written.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// QUANTIZE.
pub static QUANTIZE: Kernel = Kernel {
    op: BuiltinOperator::Quantize,
    prepare,
    init: None,
    eval,
};

/// DEQUANTIZE.
pub static DEQUANTIZE: Kernel = Kernel {
    op: BuiltinOperator::Dequantize,
    prepare,
    init: None,
    eval,
};
