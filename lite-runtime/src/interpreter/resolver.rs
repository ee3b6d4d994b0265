//! Which kernels an interpreter may run. [`OpResolver`] is a list of [`Kernel`]s;
//! [`MutableOpResolver`] holds the ones an application registers (TensorFlow Lite Micro's
//! `MicroMutableOpResolver`: kernels never registered are never linked into firmware), and
//! [`AllOps`] every kernel tessera has.

use super::kernel::Kernel;
use crate::model::BuiltinOperator;

/// A list of kernels, found by op.
pub trait OpResolver {
    /// The registered kernels; the interpreter records a kernel by its index here.
    fn kernels(&self) -> &[&'static Kernel];

    /// The kernel registered for `op`, with its index.
    fn find(&self, op: BuiltinOperator) -> Option<(usize, &'static Kernel)> {
        self.kernels()
            .iter()
            .enumerate()
            .find(|(_, k)| k.op == op)
            .map(|(i, k)| (i, *k))
    }
}

/// Up to `N` kernels that the application registers.
///
/// ```
/// use tessera_lite::interpreter::{MutableOpResolver, kernels};
///
/// let mut ops = MutableOpResolver::<2>::new();
/// ops.add(&kernels::FULLY_CONNECTED).unwrap();
/// ops.add(&kernels::RESHAPE).unwrap();
/// assert!(ops.add(&kernels::ADD).is_err()); // full: the error hands the kernel back
/// ```
#[derive(Debug)]
pub struct MutableOpResolver<const N: usize> {
    kernels: [&'static Kernel; N],
    len: usize,
}

impl<const N: usize> MutableOpResolver<N> {
    /// An empty resolver.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            kernels: [&super::kernels::RESHAPE; N],
            len: 0,
        }
    }

    /// Registers `kernel` (a later registration of the same op replaces the earlier one).
    ///
    /// # Errors
    /// The kernel back if `N` are registered already.
    pub fn add(&mut self, kernel: &'static Kernel) -> Result<&mut Self, &'static Kernel> {
        if let Some(k) = self.kernels[..self.len]
            .iter_mut()
            .find(|k| k.op == kernel.op)
        {
            *k = kernel;
            return Ok(self);
        }
        let slot = self.kernels.get_mut(self.len).ok_or(kernel)?;
        *slot = kernel;
        self.len += 1;
        Ok(self)
    }
}

impl<const N: usize> Default for MutableOpResolver<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> OpResolver for MutableOpResolver<N> {
    fn kernels(&self) -> &[&'static Kernel] {
        &self.kernels[..self.len]
    }
}

/// Every kernel tessera has.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllOps;

impl OpResolver for AllOps {
    fn kernels(&self) -> &[&'static Kernel] {
        super::kernels::ALL
    }
}
