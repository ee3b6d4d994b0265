//! Control flow and resource variables (the `control-flow` feature): WHILE, IF and
//! CALL_ONCE run other subgraphs of the model, and VAR_HANDLE, READ_VARIABLE and
//! ASSIGN_VARIABLE keep resource variables in the arena across invokes.
//!
//! These six are not kernels: they run graphs and reach memory no kernel sees, so the
//! interpreter runs them itself ([`run`]), and no resolver registers them. Set-up checks them
//! across subgraphs ([`link`]) and plans every subgraph's tensors in the one arena
//! ([`schedule`]):
//!
//! - Each subgraph a control operator calls is laid out on the one timeline of steps the
//!   planner sees, inside its caller's interval: its inputs are written at its entry step,
//!   its operators follow, its outputs are read at its exit step. The control operator's
//!   own operands are alive over the whole interval, so a callee's tensors never share
//!   bytes with them.
//! - A loop's body and condition run again and again in that interval. Each run is whole:
//!   the interpreter copies the loop's values into the graph's inputs before it runs and out
//!   of its outputs after, into the WHILE's outputs, which hold the values between runs. So
//!   a body's tensors live within one iteration, and reuse bytes within it as any graph's do.
//! - A subgraph called from two places is planned over both intervals (its tensors keep
//!   their bytes in between: correct, if not the smallest arena).
//! - Resource variables are found by their VAR_HANDLE's container and shared name, in every
//!   subgraph of the run; each gets persistent bytes of the size its ASSIGN_VARIABLE and
//!   READ_VARIABLE operators use (one size each). CALL_ONCE remembers that it ran in its
//!   persistent bytes; [`reset_state`](super::Interpreter::reset_state) clears that and the
//!   variables, so the next invoke initialises them again.
//!
//! Shapes are static: a loop whose values change shape between iterations, which TensorFlow
//! Lite reallocates for, is refused at set-up ([`ErrorKind::ControlMismatch`]).

pub(crate) mod link;
mod resources;
mod run;
pub(crate) mod schedule;

pub(crate) use resources::{ResourceRecord, Resources};

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::error::{ErrorKind, KernelError};
use super::kernel::{Eval, Init, Kernel, Prepare};
use crate::model::{BuiltinOperator, BuiltinOptions, Operator};

/// The subgraphs a control operator calls (model subgraph indices, as stored): WHILE's
/// condition and body, IF's two branches, CALL_ONCE's initialiser.
pub(crate) fn callees(op: &Operator<'_>) -> [Option<i32>; 2] {
    match op.options() {
        BuiltinOptions::While(o) => [Some(o.cond_subgraph_index), Some(o.body_subgraph_index)],
        BuiltinOptions::If(o) => [Some(o.then_subgraph_index), Some(o.else_subgraph_index)],
        BuiltinOptions::CallOnce(o) => [Some(o.init_subgraph_index), None],
        _ => [None, None],
    }
}

/// Which control operator: the index of its kernel in [`CONTROL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Flow {
    While = 0,
    If = 1,
    CallOnce = 2,
    VarHandle = 3,
    ReadVariable = 4,
    AssignVariable = 5,
}

impl Flow {
    pub(crate) fn of(op: BuiltinOperator) -> Option<Self> {
        Some(match op {
            BuiltinOperator::While => Self::While,
            BuiltinOperator::If => Self::If,
            BuiltinOperator::CallOnce => Self::CallOnce,
            BuiltinOperator::VarHandle => Self::VarHandle,
            BuiltinOperator::ReadVariable => Self::ReadVariable,
            BuiltinOperator::AssignVariable => Self::AssignVariable,
            _ => return None,
        })
    }

    fn from_index(k: usize) -> Option<Self> {
        [
            Self::While,
            Self::If,
            Self::CallOnce,
            Self::VarHandle,
            Self::ReadVariable,
            Self::AssignVariable,
        ]
        .get(k)
        .copied()
    }
}

/// Operator records of control operators name their kernel from here up (a resolver's
/// kernels are below: no resolver has 65 280).
pub(crate) const CONTROL_BASE: u16 = 0xFF00;

/// What a control operator's record holds: the graphs it calls (positions in the run), or
/// its resource variable.
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub(crate) struct ControlParams {
    /// WHILE: the condition; IF: the branch taken when the condition holds; CALL_ONCE: the
    /// initialiser; the variable operators: the resource variable.
    pub first: u16,
    /// WHILE: the body; IF: the other branch.
    pub second: u16,
}

const IN_INTERPRETER: KernelError = KernelError::Unsupported {
    what: "control flow runs in the interpreter, not as a kernel",
};

fn checked_by_link(_: &mut Prepare<'_>) -> Result<(), KernelError> {
    Ok(())
}

fn in_interpreter(_: &mut Eval<'_>) -> Result<(), KernelError> {
    Err(IN_INTERPRETER)
}

/// CALL_ONCE's persistent byte (whether the initialiser ran) starts clear, at set-up and at
/// every `reset_state`.
fn clear(ctx: &mut Init<'_, '_>) -> Result<(), KernelError> {
    ctx.persistent().fill(0);
    Ok(())
}

const fn control(op: BuiltinOperator) -> Kernel {
    Kernel {
        op,
        prepare: checked_by_link,
        init: if matches!(op, BuiltinOperator::CallOnce) {
            Some(clear)
        } else {
            None
        },
        eval: in_interpreter,
    }
}

/// The control operators' records, in [`Flow`] order: what set-up and `reset_state` see (the
/// op, CALL_ONCE's `init`); [`run`] does the work.
static CONTROL: [Kernel; 6] = [
    control(BuiltinOperator::While),
    control(BuiltinOperator::If),
    control(BuiltinOperator::CallOnce),
    control(BuiltinOperator::VarHandle),
    control(BuiltinOperator::ReadVariable),
    control(BuiltinOperator::AssignVariable),
];

/// The kernel record index and kernel for a control op, if `op` is one.
pub(crate) fn kernel_for(op: BuiltinOperator) -> Option<(usize, &'static Kernel)> {
    let flow = Flow::of(op)?;
    Some((
        usize::from(CONTROL_BASE) + flow as usize,
        &CONTROL[flow as usize],
    ))
}

/// The control operator whose record names kernel `index`, if it is one.
pub(crate) fn flow_at(index: u16) -> Option<(Flow, &'static Kernel)> {
    let k = usize::from(index.checked_sub(CONTROL_BASE)?);
    Some((Flow::from_index(k)?, CONTROL.get(k)?))
}

/// A control operator whose values do not line up.
pub(crate) const MISMATCH: ErrorKind = ErrorKind::ControlMismatch;

#[cfg(all(test, feature = "std"))]
mod tests;
