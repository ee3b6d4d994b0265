//! The subgraphs a run reaches: the one run ([`Options::subgraph`](super::Options::subgraph),
//! the main graph) and, with the `control-flow` feature, every subgraph its WHILE, IF and
//! CALL_ONCE operators call, transitively, in the order they are first found.
//!
//! The arena holds them all as one: their tensors' records follow one another (graph `k`'s
//! tensor `i` is record `tensors + i` of its [`Graph`]), and so do their operators'; operand
//! lists stay local to their graph. Without the feature there is one graph, at base 0, and
//! the interpreter is what it was before subgraphs.

use super::error::{ErrorKind, InterpreterError};
use crate::model::{Model, Subgraph};
#[cfg(feature = "control-flow")]
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The most subgraphs one interpreter runs (the main graph included). Keras' nested loops
/// and conditions stay well under it; a model over it is refused at set-up.
pub const MAX_GRAPHS: usize = if cfg!(feature = "control-flow") {
    16
} else {
    1
};

/// One subgraph of the run, and where its records start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Graph<'m> {
    pub graph: Subgraph<'m>,
    /// Its first tensor record.
    #[cfg(feature = "control-flow")]
    tensors: usize,
    /// Its first operator record.
    #[cfg(feature = "control-flow")]
    ops: usize,
    /// The graph and operator that first call it (the main graph: none). What a resource
    /// input is traced through to its VAR_HANDLE.
    #[cfg_attr(not(feature = "control-flow"), allow(dead_code))]
    pub caller: Option<(usize, usize)>,
}

impl Graph<'_> {
    /// Its first tensor record (0 without `control-flow`: a constant, which firmware's set-up
    /// folds away).
    #[inline(always)]
    pub(crate) fn first_tensor(&self) -> usize {
        #[cfg(feature = "control-flow")]
        return self.tensors;
        #[cfg(not(feature = "control-flow"))]
        return 0;
    }

    /// Its first operator record (0 without `control-flow`).
    #[inline(always)]
    pub(crate) fn first_op(&self) -> usize {
        #[cfg(feature = "control-flow")]
        return self.ops;
        #[cfg(not(feature = "control-flow"))]
        return 0;
    }

    /// `e`, placed in this graph if it is a callee (errors in the main graph name no
    /// subgraph).
    #[cfg(feature = "control-flow")]
    pub(crate) fn locate(&self, e: InterpreterError) -> InterpreterError {
        if self.caller.is_some() {
            return e.in_subgraph(self.graph.index());
        }
        e
    }
}

/// One subgraph of the run, in the arena's header (with `control-flow`). 28 bytes.
#[cfg(feature = "control-flow")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct GraphRecord {
    /// Its first tensor record, and how many.
    pub tensors: u32,
    pub tensor_count: u32,
    /// Its first operator record, and how many.
    pub ops: u32,
    pub op_count: u32,
    /// Where its inputs' tensor indices start in the operand table (its outputs' follow).
    pub io: u32,
    pub inputs: u16,
    pub outputs: u16,
    /// Its index in the model.
    pub subgraph: u32,
}

/// The subgraphs of a run, the main graph first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Graphs<'m> {
    #[cfg(feature = "control-flow")]
    resources: super::control::Resources<'m>,
    /// The first `len`: the graphs (the rest repeat the main graph).
    list: [Graph<'m>; MAX_GRAPHS],
    #[cfg(feature = "control-flow")]
    len: usize,
    tensors: usize,
    ops: usize,
}

impl<'m> Graphs<'m> {
    /// Subgraph `main` of `model` and, with `control-flow`, every subgraph it calls.
    ///
    /// # Errors
    /// [`ErrorKind::NoSubgraph`] if `main` is not in the model, or a control operator names
    /// a subgraph that is not (at that operator); [`ErrorKind::TooManyGraphs`] past
    /// [`MAX_GRAPHS`].
    pub(crate) fn find(model: &Model<'m>, main: usize) -> Result<Self, InterpreterError> {
        let graph = model
            .subgraph(main)
            .ok_or(InterpreterError::new(ErrorKind::NoSubgraph))?;
        let main = Graph {
            graph,
            #[cfg(feature = "control-flow")]
            tensors: 0,
            #[cfg(feature = "control-flow")]
            ops: 0,
            caller: None,
        };
        // One graph: nothing to find (and nothing more linked into firmware).
        #[cfg(not(feature = "control-flow"))]
        return Ok(Self {
            list: [main],
            tensors: graph.tensors().len(),
            ops: graph.operators().len(),
        });
        #[cfg(feature = "control-flow")]
        {
            let mut this = Self {
                resources: super::control::Resources::empty(),
                list: [main; MAX_GRAPHS],
                len: 0,
                tensors: 0,
                ops: 0,
            };
            this.push(graph, None)?;
            this.find_callees(model)?;
            this.resources = super::control::Resources::find(&this)?;
            Ok(this)
        }
    }

    #[cfg(feature = "control-flow")]
    fn push(
        &mut self,
        graph: Subgraph<'m>,
        caller: Option<(usize, usize)>,
    ) -> Result<(), InterpreterError> {
        let slot =
            self.list
                .get_mut(self.len)
                .ok_or(InterpreterError::new(ErrorKind::TooManyGraphs {
                    limit: MAX_GRAPHS,
                }))?;
        *slot = Graph {
            graph,
            tensors: self.tensors,
            ops: self.ops,
            caller,
        };
        self.len += 1;
        // Both bounded by the model's bytes.
        self.tensors += graph.tensors().len();
        self.ops += graph.operators().len();
        Ok(())
    }

    /// Breadth first from the main graph: each control operator's subgraphs, once each.
    #[cfg(feature = "control-flow")]
    fn find_callees(&mut self, model: &Model<'m>) -> Result<(), InterpreterError> {
        let mut k = 0;
        while let Some(g) = self.get(k) {
            for (j, op) in g.graph.operators().iter().enumerate() {
                for callee in super::control::callees(&op).into_iter().flatten() {
                    let bad = g.locate(InterpreterError::at_operator(ErrorKind::NoSubgraph, j));
                    let index = usize::try_from(callee).map_err(|_| bad)?;
                    let graph = model.subgraph(index).ok_or(bad)?;
                    if self.position(index).is_none() {
                        self.push(graph, Some((k, j)))?;
                    }
                }
            }
            k += 1;
        }
        Ok(())
    }

    /// The position in the run of model subgraph `index`.
    #[cfg(feature = "control-flow")]
    pub(crate) fn position(&self, index: usize) -> Option<usize> {
        self.iter().position(|g| g.graph.index() == index)
    }

    /// Graph `k` of the run (0: the main graph).
    #[cfg(feature = "control-flow")]
    pub(crate) fn get(&self, k: usize) -> Option<Graph<'m>> {
        self.list[..self.len].get(k).copied()
    }

    /// The graphs, the main graph first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Graph<'m>> + '_ {
        #[cfg(feature = "control-flow")]
        return self.list[..self.len].iter().copied();
        #[cfg(not(feature = "control-flow"))]
        return self.list.iter().copied();
    }

    /// The main graph.
    pub(crate) fn main(&self) -> Subgraph<'m> {
        self.list[0].graph
    }

    /// The resource variables of every graph, by name (their sizes unknown until set-up
    /// sees their uses).
    #[cfg(feature = "control-flow")]
    pub(crate) fn resources(&self) -> super::control::Resources<'m> {
        self.resources
    }

    /// How many graphs.
    #[cfg(feature = "control-flow")]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Tensors of every graph.
    pub(crate) fn tensors(&self) -> usize {
        self.tensors
    }

    /// Operators of every graph.
    pub(crate) fn ops(&self) -> usize {
        self.ops
    }
}
