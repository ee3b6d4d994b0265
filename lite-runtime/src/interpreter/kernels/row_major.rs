//! Row-major shapes and strides, for the kernels' naive references in tests.

use crate::interpreter::Shape;

/// The shape of `d` (at most six dimensions).
pub fn shape(d: &[usize]) -> Shape {
    Shape::new(d).unwrap()
}

/// Row-major element strides of `dims`.
pub fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}
