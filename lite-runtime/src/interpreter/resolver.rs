//! Which kernels an interpreter may run. [`OpResolver`] is a list of [`Kernel`]s;
//! [`MutableOpResolver`] holds the ones an application registers (TensorFlow Lite Micro's
//! `MicroMutableOpResolver`: kernels never registered are never linked into firmware), and
//! [`AllOps`] every kernel tessera has. Custom operators are found by their `custom_code`:
//! a [`CustomKernel`] is a kernel with the name it runs under.

use super::kernel::Kernel;
use crate::model::BuiltinOperator;

/// A list of kernels, found by op (builtins) or by name (custom ops).
pub trait OpResolver {
    /// The registered kernels; the interpreter records a kernel by its index here.
    fn kernels(&self) -> &[&'static Kernel];

    /// The kernel registered for builtin `op`, with its index.
    fn find(&self, op: BuiltinOperator) -> Option<(usize, &'static Kernel)> {
        self.kernels()
            .iter()
            .enumerate()
            .find(|(_, k)| k.op == op && op != BuiltinOperator::Custom)
            .map(|(i, k)| (i, *k))
    }

    /// The kernel registered for the custom op named `name` (its `custom_code`'s bytes), with
    /// its index. None by default. (With the `custom-ops` feature.)
    #[cfg(feature = "custom-ops")]
    fn find_custom(&self, name: &[u8]) -> Option<(usize, &'static Kernel)> {
        let _ = name;
        None
    }
}

/// A kernel for a custom operator, and the `custom_code` it runs under (its `kernel.op` is
/// [`BuiltinOperator::Custom`]). Its options are the operator's `custom_options`
/// ([`Prepare::custom_options`](super::Prepare::custom_options), a FlexBuffer for most).
#[derive(Debug)]
pub struct CustomKernel {
    /// The operator's `custom_code`.
    pub name: &'static str,
    /// Its steps.
    pub kernel: Kernel,
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
    /// Custom kernels' names ("" for a builtin).
    #[cfg(feature = "custom-ops")]
    names: [&'static str; N],
    len: usize,
}

impl<const N: usize> MutableOpResolver<N> {
    /// An empty resolver.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            kernels: [&super::kernels::RESHAPE; N],
            #[cfg(feature = "custom-ops")]
            names: [""; N],
            len: 0,
        }
    }

    /// Registers builtin `kernel` (a later registration of the same op replaces the earlier
    /// one). Custom kernels go through [`add_custom`](Self::add_custom).
    ///
    /// # Errors
    /// The kernel back if `N` are registered already.
    pub fn add(&mut self, kernel: &'static Kernel) -> Result<&mut Self, &'static Kernel> {
        self.put(kernel, "").map_err(|()| kernel)
    }

    /// Registers `custom` for the custom operators named `custom.name` (a later registration
    /// of the name replaces the earlier one).
    ///
    /// ```
    /// use tessera_lite::interpreter::{CustomKernel, Kernel, MutableOpResolver};
    /// use tessera_lite::model::BuiltinOperator;
    ///
    /// static MY_OP: CustomKernel = CustomKernel {
    ///     name: "MyOp",
    ///     kernel: Kernel {
    ///         op: BuiltinOperator::Custom,
    ///         prepare: |_| Ok(()),
    ///         init: None,
    ///         eval: |_| Ok(()),
    ///     },
    /// };
    /// let mut ops = MutableOpResolver::<4>::new();
    /// ops.add_custom(&MY_OP).unwrap();
    /// ```
    ///
    /// # Errors
    /// The kernel back if `N` are registered already.
    #[cfg(feature = "custom-ops")]
    pub fn add_custom(
        &mut self,
        custom: &'static CustomKernel,
    ) -> Result<&mut Self, &'static CustomKernel> {
        self.put(&custom.kernel, custom.name).map_err(|()| custom)
    }

    fn put(&mut self, kernel: &'static Kernel, name: &'static str) -> Result<&mut Self, ()> {
        let n = self.len;
        let found = (0..n).find(|&i| self.kernels[i].op == kernel.op && self.name(i) == name);
        let i = match found {
            Some(i) => i,
            None if n < N => {
                self.len += 1;
                n
            }
            None => return Err(()),
        };
        self.kernels[i] = kernel;
        #[cfg(feature = "custom-ops")]
        {
            self.names[i] = name;
        }
        Ok(self)
    }

    /// Kernel `i`'s custom name ("" for a builtin, and for every kernel without the
    /// `custom-ops` feature).
    fn name(&self, i: usize) -> &'static str {
        #[cfg(feature = "custom-ops")]
        {
            self.names[i]
        }
        #[cfg(not(feature = "custom-ops"))]
        {
            let _ = i;
            ""
        }
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

    #[cfg(feature = "custom-ops")]
    fn find_custom(&self, name: &[u8]) -> Option<(usize, &'static Kernel)> {
        let i = self.names[..self.len]
            .iter()
            .position(|s| !s.is_empty() && s.as_bytes() == name)?;
        Some((i, self.kernels[i]))
    }
}

/// Every kernel tessera has.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllOps;

impl OpResolver for AllOps {
    fn kernels(&self) -> &[&'static Kernel] {
        super::kernels::ALL
    }

    #[cfg(feature = "custom-ops")]
    fn find_custom(&self, name: &[u8]) -> Option<(usize, &'static Kernel)> {
        let custom = super::kernels::CUSTOM
            .iter()
            .find(|c| c.name.as_bytes() == name)?;
        let kernel = &custom.kernel;
        let i = self
            .kernels()
            .iter()
            .position(|k| core::ptr::eq(*k, kernel))?;
        Some((i, kernel))
    }
}
