//! Placeholder while being written.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// PAD.
pub static PAD: Kernel = Kernel {
    op: BuiltinOperator::Pad,
    prepare,
    init: None,
    eval,
};
