//! Reductions over axes: MEAN, SUM, REDUCE_MAX, ARG_MAX, ARG_MIN.
//!
//! Not implemented yet: every kernel here refuses at setup.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// MEAN.
pub static MEAN: Kernel = Kernel {
    op: BuiltinOperator::Mean,
    prepare,
    init: None,
    eval,
};

/// SUM.
pub static SUM: Kernel = Kernel {
    op: BuiltinOperator::Sum,
    prepare,
    init: None,
    eval,
};

/// REDUCE_MAX.
pub static REDUCE_MAX: Kernel = Kernel {
    op: BuiltinOperator::ReduceMax,
    prepare,
    init: None,
    eval,
};

/// ARG_MAX.
pub static ARG_MAX: Kernel = Kernel {
    op: BuiltinOperator::ArgMax,
    prepare,
    init: None,
    eval,
};

/// ARG_MIN.
pub static ARG_MIN: Kernel = Kernel {
    op: BuiltinOperator::ArgMin,
    prepare,
    init: None,
    eval,
};
