//! The steps of a kernel not written yet: it refuses at setup, naming its op.

use crate::interpreter::{Eval, KernelError, Prepare};

pub(crate) fn prepare(_: &mut Prepare<'_, '_>) -> Result<(), KernelError> {
    Err(KernelError::Unsupported {
        what: "this kernel is not implemented yet",
    })
}

pub(crate) fn eval(_: &mut Eval<'_>) -> Result<(), KernelError> {
    Err(KernelError::Unsupported {
        what: "this kernel is not implemented yet",
    })
}
