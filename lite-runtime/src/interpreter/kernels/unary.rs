//! Element-wise unary ops: activations, softmaxes and casts.
//!
//! Not implemented yet: every kernel here refuses at setup.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// LOGISTIC.
pub static LOGISTIC: Kernel = Kernel {
    op: BuiltinOperator::Logistic,
    prepare,
    init: None,
    eval,
};

/// TANH.
pub static TANH: Kernel = Kernel {
    op: BuiltinOperator::Tanh,
    prepare,
    init: None,
    eval,
};

/// RELU.
pub static RELU: Kernel = Kernel {
    op: BuiltinOperator::Relu,
    prepare,
    init: None,
    eval,
};

/// RELU6.
pub static RELU6: Kernel = Kernel {
    op: BuiltinOperator::Relu6,
    prepare,
    init: None,
    eval,
};

/// LEAKY_RELU.
pub static LEAKY_RELU: Kernel = Kernel {
    op: BuiltinOperator::LeakyRelu,
    prepare,
    init: None,
    eval,
};

/// SOFTMAX.
pub static SOFTMAX: Kernel = Kernel {
    op: BuiltinOperator::Softmax,
    prepare,
    init: None,
    eval,
};

/// LOG_SOFTMAX.
pub static LOG_SOFTMAX: Kernel = Kernel {
    op: BuiltinOperator::LogSoftmax,
    prepare,
    init: None,
    eval,
};

/// CAST.
pub static CAST: Kernel = Kernel {
    op: BuiltinOperator::Cast,
    prepare,
    init: None,
    eval,
};
