//! [`Subgraph`]: a graph of the model, its tensors, inputs, outputs and operators in
//! execution order.

use super::List;
use super::list::{Ctx, sealed::FromTable};
use super::operator::Operator;
use super::reader::Table;
use super::tensor::Tensor;
use super::vectors::{I32s, TensorIndices};

/// `SubGraph` table slots.
pub(crate) mod slot {
    pub const TENSORS: usize = 0;
    pub const INPUTS: usize = 1;
    pub const OUTPUTS: usize = 2;
    pub const OPERATORS: usize = 3;
    pub const NAME: usize = 4;
}

/// A subgraph (verified: every index in range, every operator's inputs defined before it).
#[derive(Clone, Copy, Debug)]
pub struct Subgraph<'a> {
    ctx: Ctx<'a>,
    t: Table,
    index: usize,
}

impl<'a> FromTable<'a> for Subgraph<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, index: usize) -> Self {
        Self { ctx, t, index }
    }
}

impl<'a> Subgraph<'a> {
    /// Index in `Model.subgraphs` (0 is the main graph).
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its tensors.
    #[must_use]
    pub fn tensors(&self) -> List<'a, Tensor<'a>> {
        List::new(self.ctx, self.t.vector(self.ctx.buf, slot::TENSORS))
    }

    /// Tensor `i`, or `None` past the end.
    #[must_use]
    pub fn tensor(&self, i: usize) -> Option<Tensor<'a>> {
        self.tensors().get(i)
    }

    /// The first tensor named `name`.
    #[must_use]
    pub fn tensor_by_name(&self, name: &str) -> Option<Tensor<'a>> {
        self.tensors().iter().find(|t| t.name() == name)
    }

    /// Its operators in execution order.
    #[must_use]
    pub fn operators(&self) -> List<'a, Operator<'a>> {
        List::new(self.ctx, self.t.vector(self.ctx.buf, slot::OPERATORS))
    }

    /// Indices of its input tensors.
    #[must_use]
    pub fn inputs(&self) -> TensorIndices<'a> {
        self.indices(slot::INPUTS)
    }

    /// Indices of its output tensors.
    #[must_use]
    pub fn outputs(&self) -> TensorIndices<'a> {
        self.indices(slot::OUTPUTS)
    }

    fn indices(&self, s: usize) -> TensorIndices<'a> {
        let buf = self.ctx.buf;
        TensorIndices::new(I32s::new(self.t.vector(buf, s).bytes(buf, 4)))
    }

    /// Its name, if the model gives one.
    #[must_use]
    pub fn name(&self) -> Option<&'a str> {
        self.t.str(self.ctx.buf, slot::NAME)
    }
}
