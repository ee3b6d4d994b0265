//! Set-up of the control operators: what each calls or uses, checked across subgraphs, into
//! its record's parameters.

use super::super::error::{ErrorKind, InterpreterError};
use super::super::graphs::{Graph, Graphs};
use super::super::kernel::Requests;
use super::super::setup::{element_bytes, shape_of};
use super::resources::{Resources, key};
use super::{ControlParams, Flow, MISMATCH, callees};
use crate::model::{BuiltinOperator, Operator, Subgraph, TensorIndices, TensorType};
use zerocopy::IntoBytes;

/// A tensor's element type and element count, what control flow copies must agree on.
type Value = (TensorType, usize);

fn value(graph: &Subgraph<'_>, t: Option<usize>) -> Option<Value> {
    let t = graph.tensor(t?)?;
    let shape = shape_of(&t).ok()?;
    Some((t.tensor_type(), shape.elements()))
}

/// Whether lists `a` (of graph `ga`, from its `skip`th) and `b` (of `gb`) hold tensors of the
/// same values, one for one.
fn same(
    ga: &Subgraph<'_>,
    a: TensorIndices<'_>,
    skip: usize,
    gb: &Subgraph<'_>,
    b: TensorIndices<'_>,
) -> bool {
    a.len() == b.len() + skip
        && a.iter()
            .skip(skip)
            .zip(b.iter())
            .all(|(x, y)| value(ga, x).is_some_and(|v| Some(v) == value(gb, y)))
}

/// Whether tensor `t` of `graph` is one boolean: a condition.
fn condition(graph: &Subgraph<'_>, t: Option<usize>) -> bool {
    value(graph, t) == Some((TensorType::Bool, 1))
}

/// Checks control operator `j` of graph `g` against the graphs it calls or the variable it
/// uses, and stores those in `requests`' parameters (CALL_ONCE also asks for its one
/// persistent byte).
pub(crate) fn link(
    graphs: &Graphs<'_>,
    resources: &mut Resources<'_>,
    g: &Graph<'_>,
    j: usize,
    flow: Flow,
    requests: &mut Requests,
) -> Result<(), InterpreterError> {
    let graph = &g.graph;
    let op = graph
        .operators()
        .get(j)
        .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
    let kind = op.builtin().unwrap_or(BuiltinOperator::Custom);
    let at = |e: ErrorKind| g.locate(InterpreterError::at_op(e, j, kind));
    let (ins, outs) = (op.inputs(), op.outputs());
    // The callees, as positions in the run and graphs (`Graphs::find` found them all).
    let called = |n: usize| -> Result<(usize, Subgraph<'_>), InterpreterError> {
        let index = callees(&op)[n].and_then(|c| usize::try_from(c).ok());
        let k = index
            .and_then(|c| graphs.position(c))
            .ok_or(at(ErrorKind::NoSubgraph))?;
        let callee = graphs.get(k).ok_or(at(ErrorKind::NoSubgraph))?;
        Ok((k, callee.graph))
    };
    let position = |k: usize| u16::try_from(k).map_err(|_| at(ErrorKind::TooLarge));
    let mut params = ControlParams::default();
    match flow {
        Flow::While => {
            let (c, cond) = called(0)?;
            let (b, body) = called(1)?;
            let lined_up = same(graph, ins, 0, graph, outs)
                && same(graph, ins, 0, &cond, cond.inputs())
                && same(graph, ins, 0, &body, body.inputs())
                && same(graph, ins, 0, &body, body.outputs())
                && cond.outputs().len() == 1
                && condition(&cond, cond.outputs().get(0).flatten());
            if !lined_up {
                return Err(at(MISMATCH));
            }
            params = ControlParams {
                first: position(c)?,
                second: position(b)?,
            };
        }
        Flow::If => {
            let (t, then) = called(0)?;
            let (e, other) = called(1)?;
            let lined_up = !ins.is_empty()
                && condition(graph, ins.get(0).flatten())
                && [&then, &other].iter().all(|branch| {
                    same(graph, ins, 1, branch, branch.inputs())
                        && same(graph, outs, 0, branch, branch.outputs())
                });
            if !lined_up {
                return Err(at(MISMATCH));
            }
            params = ControlParams {
                first: position(t)?,
                second: position(e)?,
            };
        }
        Flow::CallOnce => {
            let (i, init) = called(0)?;
            if !init.inputs().is_empty() || !init.outputs().is_empty() || !ins.is_empty() {
                return Err(at(MISMATCH));
            }
            params.first = position(i)?;
            requests.persistent = 1;
        }
        Flow::VarHandle => {
            let slot = resources
                .position(key(&op.options()))
                .ok_or(at(ErrorKind::Resource))?;
            params.first = position(slot)?;
        }
        Flow::ReadVariable | Flow::AssignVariable => {
            let (resource, value_at) = match flow {
                Flow::ReadVariable if ins.len() == 1 && outs.len() == 1 => {
                    (ins.get(0), outs.get(0))
                }
                Flow::AssignVariable if ins.len() == 2 && outs.is_empty() => {
                    (ins.get(0), ins.get(1))
                }
                _ => return Err(at(MISMATCH)),
            };
            let slot = trace(
                graphs,
                resources,
                g,
                resource.flatten(),
                2 * super::super::graphs::MAX_GRAPHS,
            )
            .ok_or(at(ErrorKind::Resource))?;
            let (dtype, elements) = value(graph, value_at.flatten()).ok_or(at(MISMATCH))?;
            let bytes = element_bytes(dtype)
                .and_then(|b| b.checked_mul(elements))
                .ok_or(at(ErrorKind::TensorType { dtype }))?;
            if !resources.use_as(slot, bytes, dtype) {
                return Err(at(MISMATCH));
            }
            params.first = position(slot)?;
        }
    }
    requests.params[..size_of::<ControlParams>()].copy_from_slice(params.as_bytes());
    Ok(())
}

/// The resource variable that resource tensor `t` of graph `g` holds: from the VAR_HANDLE
/// that makes it, through the loops that pass it on and the callers that pass it in. `fuel`
/// bounds the search (a malformed model may loop).
fn trace(
    graphs: &Graphs<'_>,
    resources: &Resources<'_>,
    g: &Graph<'_>,
    t: Option<usize>,
    fuel: usize,
) -> Option<usize> {
    let t = t?;
    let fuel = fuel.checked_sub(1)?;
    let made = g
        .graph
        .operators()
        .iter()
        .find_map(|op| Some((op.outputs().iter().position(|o| o == Some(t))?, op)));
    if let Some((p, op)) = made {
        return from_operator(graphs, resources, g, &op, p, fuel);
    }
    // A graph input: its caller's operand.
    let p = g.graph.inputs().iter().position(|i| i == Some(t))?;
    let (k, j) = g.caller?;
    let caller = graphs.get(k)?;
    let op = caller.graph.operators().get(j)?;
    let p = match op.builtin()? {
        BuiltinOperator::While => p,
        BuiltinOperator::If => p + 1,
        _ => return None,
    };
    trace(
        graphs,
        resources,
        &caller,
        op.inputs().get(p).flatten(),
        fuel,
    )
}

/// The resource variable output `p` of `op` (in graph `g`) holds.
fn from_operator(
    graphs: &Graphs<'_>,
    resources: &Resources<'_>,
    g: &Graph<'_>,
    op: &Operator<'_>,
    p: usize,
    fuel: usize,
) -> Option<usize> {
    match op.builtin()? {
        BuiltinOperator::VarHandle => resources.position(key(&op.options())),
        // A loop passes a resource through unchanged.
        BuiltinOperator::While => trace(graphs, resources, g, op.inputs().get(p).flatten(), fuel),
        _ => None,
    }
}
