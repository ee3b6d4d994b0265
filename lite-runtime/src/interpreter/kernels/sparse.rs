//! DENSIFY: sparse constant weights to dense.
//!
//! Not implemented yet: every kernel here refuses at setup.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// DENSIFY.
pub static DENSIFY: Kernel = Kernel {
    op: BuiltinOperator::Densify,
    prepare,
    init: None,
    eval,
};
