//! GATHER and EMBEDDING_LOOKUP, every index checked.
//!
//! Not implemented yet: every kernel here refuses at setup.

use super::unimplemented::{eval, prepare};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// GATHER.
pub static GATHER: Kernel = Kernel {
    op: BuiltinOperator::Gather,
    prepare,
    init: None,
    eval,
};

/// EMBEDDING_LOOKUP.
pub static EMBEDDING_LOOKUP: Kernel = Kernel {
    op: BuiltinOperator::EmbeddingLookup,
    prepare,
    init: None,
    eval,
};
