//! Resource variables: found by their VAR_HANDLE's container and shared name across the
//! run's subgraphs, sized by the ASSIGN_VARIABLE and READ_VARIABLE operators that use them,
//! kept in the arena's persistent part.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::super::error::{ErrorKind, InterpreterError};
use super::super::graphs::Graphs;
use crate::model::{BuiltinOperator, BuiltinOptions, TensorType};

/// The most resource variables one interpreter holds.
pub(crate) const MAX_RESOURCES: usize = 16;

/// One resource variable, in the arena's header. 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable)]
#[repr(C)]
pub(crate) struct ResourceRecord {
    /// Offset of its bytes in the arena's data region.
    pub offset: u32,
    /// Bytes.
    pub bytes: u32,
    /// `TensorType` schema code of its values.
    pub dtype: u8,
    /// Whether an ASSIGN_VARIABLE has written it since set-up or `reset_state`.
    pub initialized: u8,
    pub pad: [u8; 2],
}

/// A resource variable's key: its VAR_HANDLE's container and shared name.
type Key<'m> = (Option<&'m str>, Option<&'m str>);

/// The resource variables of a run, and (once set-up has seen their uses) their sizes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resources<'m> {
    keys: [Key<'m>; MAX_RESOURCES],
    /// Bytes and element type, once an operator has used the variable.
    values: [Option<(usize, TensorType)>; MAX_RESOURCES],
    len: usize,
}

impl<'m> Resources<'m> {
    /// Every distinct VAR_HANDLE of the run's graphs.
    ///
    /// # Errors
    /// [`ErrorKind::Resource`] at the VAR_HANDLE past [`MAX_RESOURCES`].
    pub(crate) fn find(graphs: &Graphs<'m>) -> Result<Self, InterpreterError> {
        let mut this = Self::empty();
        for g in graphs.iter() {
            for (j, op) in g.graph.operators().iter().enumerate() {
                if op.builtin() != Some(BuiltinOperator::VarHandle) {
                    continue;
                }
                let key = key(&op.options());
                if this.position(key).is_some() {
                    continue;
                }
                let slot = this
                    .keys
                    .get_mut(this.len)
                    .ok_or(g.locate(InterpreterError::at_op(
                        ErrorKind::Resource,
                        j,
                        BuiltinOperator::VarHandle,
                    )))?;
                *slot = key;
                this.len += 1;
            }
        }
        Ok(this)
    }

    /// None.
    pub(crate) const fn empty() -> Self {
        Self {
            keys: [(None, None); MAX_RESOURCES],
            values: [None; MAX_RESOURCES],
            len: 0,
        }
    }

    /// How many.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The variable of this key.
    pub(crate) fn position(&self, key: Key<'m>) -> Option<usize> {
        self.keys[..self.len].iter().position(|k| *k == key)
    }

    /// Records that an operator uses variable `slot` with values of `bytes` bytes of `dtype`:
    /// `false` if another operator used it otherwise.
    pub(crate) fn use_as(&mut self, slot: usize, bytes: usize, dtype: TensorType) -> bool {
        match self.values.get_mut(slot) {
            Some(v @ None) => {
                *v = Some((bytes, dtype));
                true
            }
            Some(Some(seen)) => *seen == (bytes, dtype),
            None => false,
        }
    }

    /// Variable `slot`'s bytes and element type (none if no operator uses it: no bytes).
    pub(crate) fn value(&self, slot: usize) -> Option<(usize, TensorType)> {
        self.values.get(slot).copied().flatten()
    }
}

/// The key of a VAR_HANDLE's options (an empty name and none are one).
pub(crate) fn key<'m>(options: &BuiltinOptions<'m>) -> Key<'m> {
    let named = |s: Option<&'m str>| s.filter(|s| !s.is_empty());
    match options {
        BuiltinOptions::VarHandle(o) => (named(o.container), named(o.shared_name)),
        _ => (None, None),
    }
}
