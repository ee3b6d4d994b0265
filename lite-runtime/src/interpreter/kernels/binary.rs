//! Element-wise binary ops with broadcasting, comparisons and selects.
//!
//! Not implemented yet: every kernel here refuses at setup.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// ADD.
pub static ADD: Kernel = Kernel {
    op: BuiltinOperator::Add,
    prepare,
    init: None,
    eval,
};

/// SUB.
pub static SUB: Kernel = Kernel {
    op: BuiltinOperator::Sub,
    prepare,
    init: None,
    eval,
};

/// MUL.
pub static MUL: Kernel = Kernel {
    op: BuiltinOperator::Mul,
    prepare,
    init: None,
    eval,
};

/// DIV.
pub static DIV: Kernel = Kernel {
    op: BuiltinOperator::Div,
    prepare,
    init: None,
    eval,
};

/// MAXIMUM.
pub static MAXIMUM: Kernel = Kernel {
    op: BuiltinOperator::Maximum,
    prepare,
    init: None,
    eval,
};

/// MINIMUM.
pub static MINIMUM: Kernel = Kernel {
    op: BuiltinOperator::Minimum,
    prepare,
    init: None,
    eval,
};

/// LESS.
pub static LESS: Kernel = Kernel {
    op: BuiltinOperator::Less,
    prepare,
    init: None,
    eval,
};

/// LESS_EQUAL.
pub static LESS_EQUAL: Kernel = Kernel {
    op: BuiltinOperator::LessEqual,
    prepare,
    init: None,
    eval,
};

/// GREATER.
pub static GREATER: Kernel = Kernel {
    op: BuiltinOperator::Greater,
    prepare,
    init: None,
    eval,
};

/// GREATER_EQUAL.
pub static GREATER_EQUAL: Kernel = Kernel {
    op: BuiltinOperator::GreaterEqual,
    prepare,
    init: None,
    eval,
};

/// EQUAL.
pub static EQUAL: Kernel = Kernel {
    op: BuiltinOperator::Equal,
    prepare,
    init: None,
    eval,
};

/// NOT_EQUAL.
pub static NOT_EQUAL: Kernel = Kernel {
    op: BuiltinOperator::NotEqual,
    prepare,
    init: None,
    eval,
};

/// SELECT.
pub static SELECT: Kernel = Kernel {
    op: BuiltinOperator::Select,
    prepare,
    init: None,
    eval,
};

/// SELECT_V2.
pub static SELECT_V2: Kernel = Kernel {
    op: BuiltinOperator::SelectV2,
    prepare,
    init: None,
    eval,
};
