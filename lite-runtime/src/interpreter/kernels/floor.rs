//! FLOOR (float32), as TensorFlow Lite's reference kernel: `std::floor` of each element.

#[cfg(test)]
mod tests;

use super::base::elementwise::{self, FloatFn};
use crate::interpreter::Kernel;
use crate::model::BuiltinOperator;

/// FLOOR.
pub static FLOOR: Kernel = Kernel {
    op: BuiltinOperator::Floor,
    prepare: elementwise::prepare,
    init: None,
    eval: elementwise::eval::<Floor>,
};

struct Floor;
impl FloatFn for Floor {
    fn apply(x: f32, _: f32) -> f32 {
        libm::floorf(x)
    }
}
