//! [`Operator`] (one step of a subgraph) and [`OperatorCode`] (what its opcode index
//! resolves to).

use super::buffer::NO_OFFSET;
use super::list::{Ctx, sealed::FromTable};
use super::ops::{BuiltinOperator, Op};
use super::options::{self, BuiltinOptions};
use super::reader::Table;
use super::vectors::TensorIndices;

/// `Operator` table slots.
pub(crate) mod slot {
    pub const OPCODE_INDEX: usize = 0;
    pub const INPUTS: usize = 1;
    pub const OUTPUTS: usize = 2;
    pub const OPTIONS_TYPE: usize = 3;
    pub const OPTIONS: usize = 4;
    pub const CUSTOM_OPTIONS: usize = 5;
    pub const MUTATING_VARIABLE_INPUTS: usize = 7;
    pub const INTERMEDIATES: usize = 8;
    pub const LARGE_CUSTOM_OPTIONS_OFFSET: usize = 9;
    pub const LARGE_CUSTOM_OPTIONS_SIZE: usize = 10;
    pub const OPTIONS_2_TYPE: usize = 11;
    pub const OPTIONS_2: usize = 12;
}

/// `OperatorCode` table slots.
pub(crate) mod code_slot {
    pub const DEPRECATED_BUILTIN_CODE: usize = 0;
    pub const CUSTOM_CODE: usize = 1;
    pub const VERSION: usize = 2;
    pub const BUILTIN_CODE: usize = 3;
}

/// The CUSTOM builtin code.
pub(crate) const CUSTOM: i32 = 32;

/// An operator code of the model.
#[derive(Clone, Copy, Debug)]
pub struct OperatorCode<'a> {
    ctx: Ctx<'a>,
    t: Table,
}

impl<'a> FromTable<'a> for OperatorCode<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, _index: usize) -> Self {
        Self { ctx, t }
    }
}

impl<'a> OperatorCode<'a> {
    /// The builtin code: the larger of `builtin_code` and `deprecated_builtin_code`.
    #[must_use]
    pub fn builtin_code(&self) -> i32 {
        builtin_code(self.ctx.buf, self.t)
    }

    /// What the code resolves to.
    #[must_use]
    pub fn op(&self) -> Op<'a> {
        let code = self.builtin_code();
        if code == CUSTOM {
            return Op::Custom(
                self.t
                    .str(self.ctx.buf, code_slot::CUSTOM_CODE)
                    .unwrap_or(""),
            );
        }
        BuiltinOperator::from_code(code).map_or(Op::Other(code), Op::Builtin)
    }

    /// A custom op's `custom_code` as bytes (empty for a builtin), read without the UTF-8
    /// check [`op`](Self::op) makes: what set-up compares with registered names.
    #[must_use]
    pub fn custom_code_bytes(&self) -> &'a [u8] {
        let buf = self.ctx.buf;
        self.t.field(buf, code_slot::CUSTOM_CODE).map_or(&[], |p| {
            super::reader::string_bytes_at(buf, super::reader::follow(buf, p))
        })
    }

    /// The operator version (1 when absent).
    #[must_use]
    pub fn version(&self) -> i32 {
        self.t.i32(self.ctx.buf, code_slot::VERSION, 1)
    }
}

/// The resolved builtin code of operator-code table `t`.
pub(crate) fn builtin_code(buf: &[u8], t: Table) -> i32 {
    let deprecated = i32::from(t.u8(buf, code_slot::DEPRECATED_BUILTIN_CODE, 0) as i8);
    deprecated.max(t.i32(buf, code_slot::BUILTIN_CODE, 0))
}

/// An operator of a subgraph (verified: opcode index, tensor indices, options type).
#[derive(Clone, Copy, Debug)]
pub struct Operator<'a> {
    ctx: Ctx<'a>,
    t: Table,
    index: usize,
}

impl<'a> FromTable<'a> for Operator<'a> {
    fn from_table(ctx: Ctx<'a>, t: Table, index: usize) -> Self {
        Self { ctx, t, index }
    }
}

impl<'a> Operator<'a> {
    /// Index in its subgraph (execution order).
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// Index into `Model.operator_codes`.
    #[must_use]
    pub fn opcode_index(&self) -> usize {
        self.t.u32(self.ctx.buf, slot::OPCODE_INDEX, 0) as usize
    }

    /// Its operator code.
    #[must_use]
    pub fn code(&self) -> OperatorCode<'a> {
        let ctx = self.ctx;
        OperatorCode {
            ctx,
            t: ctx.opcodes.table(ctx.buf, self.opcode_index()),
        }
    }

    /// What it computes.
    #[must_use]
    pub fn op(&self) -> Op<'a> {
        self.code().op()
    }

    /// The builtin op (`Custom` for a custom op, `None` for an op newer than the schema),
    /// read without decoding a custom op's name as [`Operator::op`] does: set-up and the
    /// options never read the name, and its UTF-8 check costs 268 bytes of firmware flash.
    pub(crate) fn builtin(&self) -> Option<BuiltinOperator> {
        BuiltinOperator::from_code(self.code().builtin_code())
    }

    /// Input tensor indices (`None`: an optional input left out).
    #[must_use]
    pub fn inputs(&self) -> TensorIndices<'a> {
        self.indices(slot::INPUTS)
    }

    /// Output tensor indices (never `None`).
    #[must_use]
    pub fn outputs(&self) -> TensorIndices<'a> {
        self.indices(slot::OUTPUTS)
    }

    /// Intermediate tensor indices (never `None`).
    #[must_use]
    pub fn intermediates(&self) -> TensorIndices<'a> {
        self.indices(slot::INTERMEDIATES)
    }

    fn indices(&self, s: usize) -> TensorIndices<'a> {
        let buf = self.ctx.buf;
        TensorIndices::new(super::vectors::I32s::new(
            self.t.vector(buf, s).bytes(buf, 4),
        ))
    }

    /// The `BuiltinOptions` union type id as stored (0: none).
    #[must_use]
    pub fn options_type(&self) -> u8 {
        self.t.u8(self.ctx.buf, slot::OPTIONS_TYPE, 0)
    }

    /// The builtin options, decoded; the schema defaults of the op's options type when the
    /// model stores none.
    #[must_use]
    pub fn options(&self) -> BuiltinOptions<'a> {
        let buf = self.ctx.buf;
        let table = self.t.table(buf, slot::OPTIONS);
        let stored = self.options_type();
        let type_id = if stored == 0 || table.is_none() {
            self.builtin()
                .and_then(options::options_type_of)
                .unwrap_or(0)
        } else {
            stored
        };
        options::decode(buf, type_id, table)
    }

    /// The builtin options of the type `op` takes: decoded from the operator's table, the
    /// type's defaults when it stores none, [`BuiltinOptions::None`] when it stores another
    /// type (load refuses that). What [`options`](Self::options) gives for an operator of
    /// `op`'s options type, for the kernel registered for `op`: only that type's decoder is
    /// linked, where `options` links every type's (2.3 KB of a Cortex-M4F image).
    #[inline(always)]
    pub(crate) fn options_for(&self, op: BuiltinOperator) -> BuiltinOptions<'a> {
        let Some(expected) = options::options_type_of(op) else {
            return BuiltinOptions::None;
        };
        let buf = self.ctx.buf;
        let table = self.t.table(buf, slot::OPTIONS);
        let stored = self.options_type();
        if stored != 0 && stored != expected && table.is_some() {
            return BuiltinOptions::None;
        }
        options::decode(buf, expected, table)
    }

    /// The `BuiltinOptions2` union type id (StableHLO ops; not decoded).
    #[must_use]
    pub fn options_2_type(&self) -> u8 {
        self.t.u8(self.ctx.buf, slot::OPTIONS_2_TYPE, 0)
    }

    /// A custom op's options bytes (inline, or the file region of models over 2 GB).
    #[must_use]
    pub fn custom_options(&self) -> Option<&'a [u8]> {
        let buf = self.ctx.buf;
        let offset = self.t.u64(buf, slot::LARGE_CUSTOM_OPTIONS_OFFSET, 0);
        if offset > NO_OFFSET {
            let size = self.t.u64(buf, slot::LARGE_CUSTOM_OPTIONS_SIZE, 0);
            let o = usize::try_from(offset).ok()?;
            return buf.get(o..o.checked_add(usize::try_from(size).ok()?)?);
        }
        self.t
            .has(buf, slot::CUSTOM_OPTIONS)
            .then(|| self.t.vector(buf, slot::CUSTOM_OPTIONS).bytes(buf, 1))
    }

    /// For each input, whether the op mutates it (empty when none does).
    #[must_use]
    pub fn mutating_variable_inputs(&self) -> &'a [u8] {
        let buf = self.ctx.buf;
        self.t
            .vector(buf, slot::MUTATING_VARIABLE_INPUTS)
            .bytes(buf, 1)
    }
}
