//! Data movement: concatenation, slices, transposes, packing, SHAPE and FILL.
//!
//! Not implemented yet: every kernel here refuses at setup.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// CONCATENATION.
pub static CONCATENATION: Kernel = Kernel {
    op: BuiltinOperator::Concatenation,
    prepare,
    init: None,
    eval,
};

/// SLICE.
pub static SLICE: Kernel = Kernel {
    op: BuiltinOperator::Slice,
    prepare,
    init: None,
    eval,
};

/// STRIDED_SLICE.
pub static STRIDED_SLICE: Kernel = Kernel {
    op: BuiltinOperator::StridedSlice,
    prepare,
    init: None,
    eval,
};

/// TRANSPOSE.
pub static TRANSPOSE: Kernel = Kernel {
    op: BuiltinOperator::Transpose,
    prepare,
    init: None,
    eval,
};

/// PACK.
pub static PACK: Kernel = Kernel {
    op: BuiltinOperator::Pack,
    prepare,
    init: None,
    eval,
};

/// UNPACK.
pub static UNPACK: Kernel = Kernel {
    op: BuiltinOperator::Unpack,
    prepare,
    init: None,
    eval,
};

/// SHAPE.
pub static SHAPE: Kernel = Kernel {
    op: BuiltinOperator::Shape,
    prepare,
    init: None,
    eval,
};

/// FILL.
pub static FILL: Kernel = Kernel {
    op: BuiltinOperator::Fill,
    prepare,
    init: None,
    eval,
};
