//! The one timeline of steps the planner sees, over every subgraph of the run.
//!
//! The main graph's operators take steps 0, 1, ... as without control flow. A control
//! operator takes a step, then the graphs it calls are laid out, each as an entry step
//! (its inputs written), its operators, and an exit step (its outputs read); the control
//! operator's interval runs from its own step to the last of its callees'. Tensors are then
//! alive over the intervals of the operators that use them (set-up's operator pass), so the
//! operands of a control operator are alive while its callees run, and a callee's tensors only
//! while it runs. A graph called from two places is laid out at each: its operators'
//! intervals, and so its tensors' lifetimes, span both.

use tessera_core::plan::{Lifetime, PlanBuffer};

use super::super::error::{ErrorKind, InterpreterError};
use super::super::graphs::Graphs;
use super::super::setup::{ALIGN, widen};
use super::callees;

/// Steps past this are refused: a model whose graphs call one another so often (each call
/// lays its callee out again) is not one the converter writes.
const MAX_STEPS: u32 = 1 << 24;

const TOO_LARGE: InterpreterError = InterpreterError::new(ErrorKind::TooLarge);

/// Lays out every graph: writes each operator's interval as the lifetime of its entry in
/// `plan` (`plan[tensors + operator record]`), widens callees' inputs and outputs to their
/// entry and exit steps, and returns the step past the last.
pub(crate) fn schedule(
    graphs: &Graphs<'_>,
    plan: &mut [PlanBuffer],
    tensors: usize,
) -> Result<u32, InterpreterError> {
    for b in plan.iter_mut().skip(tensors) {
        *b = PlanBuffer::new(0, ALIGN, Lifetime::new(u32::MAX, 0));
    }
    let mut next = 0;
    lay_out(graphs, 0, 1, plan, tensors, &mut next)?;
    Ok(next)
}

fn step(next: &mut u32) -> Result<u32, InterpreterError> {
    let s = *next;
    if s >= MAX_STEPS {
        return Err(TOO_LARGE);
    }
    *next = s + 1;
    Ok(s)
}

/// Lays graph `k` out from step `*next`. `calling`: a bit per graph being laid out (the
/// callers of `k`, and `k`), to find a graph that calls itself.
fn lay_out(
    graphs: &Graphs<'_>,
    k: usize,
    calling: u32,
    plan: &mut [PlanBuffer],
    tensors: usize,
    next: &mut u32,
) -> Result<(), InterpreterError> {
    let Some(g) = graphs.get(k) else {
        return Err(InterpreterError::new(ErrorKind::NoSubgraph));
    };
    let callee = k != 0;
    if callee {
        let entry = step(next)?;
        for i in g.graph.inputs().iter().flatten() {
            widen(plan, g.first_tensor() + i, entry);
        }
    }
    for (j, op) in g.graph.operators().iter().enumerate() {
        let start = step(next)?;
        for c in callees(&op).into_iter().flatten() {
            let at = |kind| g.locate(InterpreterError::at_operator(kind, j));
            let c = usize::try_from(c)
                .ok()
                .and_then(|c| graphs.position(c))
                .ok_or(at(ErrorKind::NoSubgraph))?;
            if calling & (1 << c) != 0 {
                return Err(at(ErrorKind::Recursion));
            }
            lay_out(graphs, c, calling | (1 << c), plan, tensors, next)?;
        }
        let end = *next - 1;
        let entry = tensors + g.first_op() + j;
        widen(plan, entry, start);
        widen(plan, entry, end);
    }
    if callee {
        let exit = step(next)?;
        for o in g.graph.outputs().iter().flatten() {
            widen(plan, g.first_tensor() + o, exit);
        }
    }
    Ok(())
}
