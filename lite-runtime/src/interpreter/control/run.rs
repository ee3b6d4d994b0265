//! Running the control operators: calling graphs, copying values between the caller's and
//! the callee's tensors, and reading and writing resource variables.

use zerocopy::FromBytes;

use super::super::Interpreter;
use super::super::error::{ErrorKind, InterpreterError, KernelError};
use super::super::graphs::GraphRecord;
use super::super::record::{OpRecord, Place, TensorRecord};
use super::{ControlParams, Flow, ResourceRecord};
use crate::model::BuiltinOperator;

/// Bytes a copy would read or write that the arena does not hold (set-up rules it out).
const BAD_COPY: KernelError = KernelError::Mismatch {
    what: "a control-flow copy outside the arena",
};

/// Where a value control flow copies lies: `(in the model, start, end)`.
type Span = (bool, usize, usize);

impl Interpreter<'_, '_> {
    /// Graph `k` of the run's record.
    pub(crate) fn graph_record(&self, k: usize) -> Option<GraphRecord> {
        let at = self.counts.graphs_at() + k.checked_mul(size_of::<GraphRecord>())?;
        let bytes = self.header.get(at..at + size_of::<GraphRecord>())?;
        GraphRecord::read_from_bytes(bytes).ok()
    }

    fn resource_record(&self, slot: usize) -> Option<ResourceRecord> {
        let at = self.counts.resources_at() + slot.checked_mul(size_of::<ResourceRecord>())?;
        let bytes = self.header.get(at..at + size_of::<ResourceRecord>())?;
        ResourceRecord::read_from_bytes(bytes).ok()
    }

    fn set_initialized(&mut self, slot: usize, value: u8) {
        let at = self.counts.resources_at() + slot * size_of::<ResourceRecord>();
        if let Some(r) = self
            .header
            .get_mut(at..at + size_of::<ResourceRecord>())
            .and_then(|b| ResourceRecord::mut_from_bytes(b).ok())
        {
            r.initialized = value;
        }
    }

    /// Entry `at` of the operand table (a tensor index local to its graph).
    fn operand(&self, at: usize) -> Option<usize> {
        let start = self.counts.operands_at() + at.checked_mul(4)?;
        let b: [u8; 4] = self.header.get(start..start + 4)?.try_into().ok()?;
        usize::try_from(i32::from_ne_bytes(b)).ok()
    }

    /// Runs graph `k` of the run (0: the main graph) once, as its inputs are. Errors in a
    /// callee name its subgraph and the operator's index in it.
    pub(crate) fn run_graph(&mut self, k: usize) -> Result<(), InterpreterError> {
        let g = self
            .graph_record(k)
            .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
        let (first, count) = (g.ops as usize, g.op_count as usize);
        for j in first..first + count {
            self.run_operator(j, g.tensors as usize, g.tensor_count as usize)
                .map_err(|e| {
                    if k == 0 || e.subgraph.is_some() {
                        return e;
                    }
                    InterpreterError {
                        operator: e.operator.map(|o| o - first),
                        ..e
                    }
                    .in_subgraph(g.subgraph as usize)
                })?;
        }
        Ok(())
    }

    /// Runs control operator `j` (an operator record), whose graph's tensors start at record
    /// `base`.
    pub(crate) fn run_control(
        &mut self,
        j: usize,
        flow: Flow,
        op: BuiltinOperator,
        rec: &OpRecord,
        base: usize,
    ) -> Result<(), InterpreterError> {
        let fail = |e: ErrorKind| InterpreterError::at_op(e, j, op);
        let kernel = |e: KernelError| fail(ErrorKind::Kernel(e));
        let params = ControlParams::read_from_prefix(&rec.params)
            .map(|(p, _)| p)
            .unwrap_or_default();
        let (n_in, n_out) = (usize::from(rec.inputs), usize::from(rec.outputs));
        let at = rec.operands as usize;
        // The operator's operands as records of the arena.
        let input = |this: &Self, k: usize| this.operand(at + k).map(|t| base + t);
        let output = |this: &Self, k: usize| this.operand(at + n_in + k).map(|t| base + t);
        let graph = |this: &Self, k: u16| {
            this.graph_record(usize::from(k))
                .ok_or(fail(ErrorKind::NoSubgraph))
        };
        match flow {
            Flow::While => {
                let (cond, body) = (graph(self, params.first)?, graph(self, params.second)?);
                // The outputs hold the loop's values between iterations.
                for k in 0..n_in {
                    self.copy_between(input(self, k), output(self, k))
                        .map_err(kernel)?;
                }
                let mut iterations = 0u32;
                loop {
                    for k in 0..n_in {
                        let to = self.io(&cond, k);
                        self.copy_between(output(self, k), to).map_err(kernel)?;
                    }
                    self.run_graph(usize::from(params.first))?;
                    let verdict = self.io(&cond, usize::from(cond.inputs));
                    if !self.holds(verdict) {
                        return Ok(());
                    }
                    iterations += 1;
                    if iterations > self.max_loop_iterations {
                        let limit = self.max_loop_iterations;
                        return Err(fail(ErrorKind::LoopBound { limit }));
                    }
                    for k in 0..n_in {
                        let to = self.io(&body, k);
                        self.copy_between(output(self, k), to).map_err(kernel)?;
                    }
                    self.run_graph(usize::from(params.second))?;
                    for k in 0..n_out {
                        let from = self.io(&body, usize::from(body.inputs) + k);
                        self.copy_between(from, output(self, k)).map_err(kernel)?;
                    }
                }
            }
            Flow::If => {
                let taken = if self.holds(input(self, 0)) {
                    params.first
                } else {
                    params.second
                };
                let branch = graph(self, taken)?;
                for k in 1..n_in {
                    let to = self.io(&branch, k - 1);
                    self.copy_between(input(self, k), to).map_err(kernel)?;
                }
                self.run_graph(usize::from(taken))?;
                for k in 0..n_out {
                    let from = self.io(&branch, usize::from(branch.inputs) + k);
                    self.copy_between(from, output(self, k)).map_err(kernel)?;
                }
                Ok(())
            }
            Flow::CallOnce => {
                let flag = rec.persistent as usize;
                if self.data.get(flag).is_some_and(|&ran| ran == 0) {
                    self.run_graph(usize::from(params.first))?;
                    self.data[flag] = 1;
                }
                Ok(())
            }
            // The handle's tensor holds nothing: set-up resolved every use of it.
            Flow::VarHandle => Ok(()),
            Flow::AssignVariable => {
                let slot = usize::from(params.first);
                let r = self
                    .resource_record(slot)
                    .ok_or(fail(ErrorKind::Resource))?;
                let from = self.span(input(self, 1)).ok_or(kernel(BAD_COPY))?;
                let to = (false, r.offset as usize, (r.offset + r.bytes) as usize);
                self.copy(from, to).map_err(kernel)?;
                self.set_initialized(slot, 1);
                Ok(())
            }
            Flow::ReadVariable => {
                let slot = usize::from(params.first);
                let r = self
                    .resource_record(slot)
                    .ok_or(fail(ErrorKind::Resource))?;
                if r.initialized == 0 {
                    return Err(fail(ErrorKind::Uninitialized));
                }
                let from = (false, r.offset as usize, (r.offset + r.bytes) as usize);
                let to = self.span(output(self, 0)).ok_or(kernel(BAD_COPY))?;
                self.copy(from, to).map_err(kernel)
            }
        }
    }

    /// Input (`k < inputs`) or output (`k - inputs`) `k` of graph `g`, as a record index.
    fn io(&self, g: &GraphRecord, k: usize) -> Option<usize> {
        self.operand(g.io as usize + k)
            .map(|t| g.tensors as usize + t)
    }

    /// Whether boolean tensor `t` (a condition; set-up checked its type) holds.
    fn holds(&self, t: Option<usize>) -> bool {
        self.span(t)
            .and_then(|(model, start, _)| {
                let bytes = if model {
                    self.model.bytes()
                } else {
                    &*self.data
                };
                bytes.get(start).copied()
            })
            .is_some_and(|b| b != 0)
    }

    /// Where record `t`'s bytes are.
    fn span(&self, t: Option<usize>) -> Option<Span> {
        let r: TensorRecord = *self.records().get(t?)?;
        let (start, end) = (r.offset as usize, r.offset as usize + r.bytes as usize);
        match r.place() {
            Place::Model => Some((true, start, end)),
            Place::Planned | Place::Persistent | Place::Variable => Some((false, start, end)),
            Place::None => Some((false, 0, 0)),
        }
    }

    /// Copies record `from`'s value into record `to` (set-up checked that they hold the same
    /// values); a string's written mark goes with it.
    fn copy_between(&mut self, from: Option<usize>, to: Option<usize>) -> Result<(), KernelError> {
        let (Some(f), Some(t)) = (from, to) else {
            return Err(BAD_COPY);
        };
        if f == t {
            return Ok(());
        }
        let (src, dst) = (self.span(from), self.span(to));
        let (Some(src), Some(dst)) = (src, dst) else {
            return Err(BAD_COPY);
        };
        if dst.0 {
            // Set-up never makes a constant the target of a copy unless it holds nothing.
            return if dst.1 == dst.2 {
                Ok(())
            } else {
                Err(BAD_COPY)
            };
        }
        self.copy(src, dst)?;
        let written = self.records().get(f).map_or(0, |r| r.written);
        if let Some(r) = self.records_mut().get_mut(t) {
            r.written = written;
        }
        Ok(())
    }

    /// Copies the bytes of `from` into the start of `to` (in the arena's data region; a
    /// constant string may be shorter than the budget it goes to).
    fn copy(&mut self, from: Span, to: Span) -> Result<(), KernelError> {
        let (model, start, end) = from;
        let (len, budget) = (end - start, to.2 - to.1);
        if len > budget {
            // A constant string longer than the budget of the tensor it goes to.
            return Err(KernelError::StringBudget {
                output: 0,
                needed: len,
                budget,
            });
        }
        if model {
            let src = self.model.bytes().get(start..start + len).ok_or(BAD_COPY)?;
            let dst = self.data.get_mut(to.1..to.1 + len).ok_or(BAD_COPY)?;
            dst.copy_from_slice(src);
        } else {
            if start + len > self.data.len() || to.1 + len > self.data.len() {
                return Err(BAD_COPY);
            }
            self.data.copy_within(start..start + len, to.1);
        }
        Ok(())
    }

    /// Clears every resource variable (bytes and the mark that it was assigned), for
    /// `reset_state`.
    pub(crate) fn clear_resources(&mut self) {
        for slot in 0..self.counts.resources as usize {
            let Some(r) = self.resource_record(slot) else {
                continue;
            };
            let (start, end) = (r.offset as usize, (r.offset + r.bytes) as usize);
            if let Some(bytes) = self.data.get_mut(start..end) {
                bytes.fill(0);
            }
            self.set_initialized(slot, 0);
        }
    }
}
