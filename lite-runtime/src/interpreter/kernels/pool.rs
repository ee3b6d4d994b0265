//! Placeholder while being written.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// AVERAGE_POOL_2D.
pub static AVERAGE_POOL_2D: Kernel = Kernel {
    op: BuiltinOperator::AveragePool2D,
    prepare,
    init: None,
    eval,
};

/// MAX_POOL_2D.
pub static MAX_POOL_2D: Kernel = Kernel {
    op: BuiltinOperator::MaxPool2D,
    prepare,
    init: None,
    eval,
};
