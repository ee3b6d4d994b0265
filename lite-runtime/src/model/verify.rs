//! The load-time check of a whole `.tflite` file, in one pass over its objects: after it,
//! every view's reads are in bounds and every index is in range.
//!
//! No recursion: the walk follows the schema (model, subgraph, tensor, quantization /
//! sparsity, dimension metadata), so nesting is bounded by construction at six tables deep.
//! Objects shared between several references are re-checked each time, within the verifier's
//! byte budget.

use tessera_core::strings::TfliteStrings;

use super::buffer::{self, NO_OFFSET};
use super::error::{ErrorKind, ModelError};
use super::list::Ctx;
use super::operator::{self, CUSTOM, code_slot};
use super::ops::BuiltinOperator;
use super::options;
use super::quantization;
use super::reader::{Fault, Table, Vector, Verifier, i32_at, u8_at, u16_at};
use super::signature::{map_slot, metadata_slot};
use super::sparsity::{self, dim_slot};
use super::subgraph;
use super::tensor;
use super::types::TensorType;

/// `Model` table slots.
pub(crate) mod slot {
    pub const VERSION: usize = 0;
    pub const OPERATOR_CODES: usize = 1;
    pub const SUBGRAPHS: usize = 2;
    pub const DESCRIPTION: usize = 3;
    pub const BUFFERS: usize = 4;
    pub const METADATA_BUFFER: usize = 5;
    pub const METADATA: usize = 6;
    pub const SIGNATURE_DEFS: usize = 7;
    pub const EXTERNAL_BUFFER_GROUPS: usize = 8;
    pub const EXTERNAL_BUFFERS: usize = 9;
}

/// The file identifier of TensorFlow Lite models.
const IDENTIFIER: [u8; 4] = *b"TFL3";

/// The only schema version read.
const VERSION: u32 = 3;

/// Most dimensions (dense plus block) of a sparse tensor; bounds the permutation checks.
const MAX_SPARSE_DIMS: usize = 64;

/// Checks `buf` as a TensorFlow Lite model; returns the root table and the view context.
pub(crate) fn verify(buf: &[u8]) -> Result<(Table, Ctx<'_>), ModelError> {
    let mut v = Verifier::new(buf);
    model(&mut v).map_err(|Fault| {
        // `err` records the error before any `Fault` is returned.
        v.failure.get().unwrap_or(ModelError {
            kind: ErrorKind::Missing,
            location: v.at,
            field: "file",
            offset: 0,
        })
    })
}

/// Checks the whole model.
fn model<'a>(v: &mut Verifier<'a>) -> Result<(Table, Ctx<'a>), Fault> {
    let buf = v.buf;
    if buf.len() < 8 {
        return Err(v.err(ErrorKind::TooShort { len: buf.len() }, "file", 0));
    }
    let mut found = [0u8; 4];
    found.copy_from_slice(&buf[4..8]);
    if found != IDENTIFIER {
        return Err(v.err(ErrorKind::Identifier { found }, "file identifier", 4));
    }
    let root_pos = v.follow(0, "root offset")?;
    let root = v.table(root_pos, "Model")?;
    let version = v.u32(root, slot::VERSION, 0, "Model.version")?;
    if version != VERSION {
        let at = root.field(buf, slot::VERSION).unwrap_or(root_pos);
        return Err(v.err(ErrorKind::Version { found: version }, "Model.version", at));
    }

    let opcodes = v.vector(root, slot::OPERATOR_CODES, 4, "Model.operator_codes")?;
    for i in 0..opcodes.len {
        v.at.opcode = Some(i as u32);
        operator_code(v, opcodes, i)?;
    }
    v.at.opcode = None;

    let buffers = v.vector(root, slot::BUFFERS, 4, "Model.buffers")?;
    for i in 0..buffers.len {
        v.at.buffer = Some(i as u32);
        buffer_table(v, buffers, i)?;
    }
    v.at.buffer = None;
    let ctx = Ctx {
        buf,
        buffers,
        opcodes,
    };

    v.string(root, slot::DESCRIPTION, "Model.description")?;
    let meta_buffers = v.vector(root, slot::METADATA_BUFFER, 4, "Model.metadata_buffer")?;
    for i in 0..meta_buffers.len {
        let pos = meta_buffers.start + 4 * i;
        index(
            v,
            i32_at(buf, pos),
            buffers.len,
            false,
            "Model.metadata_buffer",
            pos,
        )?;
    }
    let metadata = v.vector(root, slot::METADATA, 4, "Model.metadata")?;
    for i in 0..metadata.len {
        v.at.metadata = Some(i as u32);
        let t = v.table_in(metadata, i, "Model.metadata")?;
        v.string(t, metadata_slot::NAME, "Metadata.name")?;
        let b = v.u32(t, metadata_slot::BUFFER, 0, "Metadata.buffer")?;
        index(
            v,
            i64::from(b),
            buffers.len,
            false,
            "Metadata.buffer",
            t.pos,
        )?;
    }
    v.at.metadata = None;

    let subgraphs = v.vector(root, slot::SUBGRAPHS, 4, "Model.subgraphs")?;
    for i in 0..subgraphs.len {
        v.at.subgraph = Some(i as u32);
        let t = v.table_in(subgraphs, i, "Model.subgraphs")?;
        subgraph_table(v, ctx, t)?;
    }
    v.at.subgraph = None;

    // Without the `signatures` feature nothing reads them (`Model::signature_defs` is empty),
    // so they need no check.
    if cfg!(feature = "signatures") {
        let signatures = v.vector(root, slot::SIGNATURE_DEFS, 4, "Model.signature_defs")?;
        for i in 0..signatures.len {
            v.at.signature = Some(i as u32);
            signature(v, signatures, i, subgraphs)?;
        }
        v.at.signature = None;
    }

    let groups = v.vector(
        root,
        slot::EXTERNAL_BUFFER_GROUPS,
        4,
        "Model.external_buffer_groups",
    )?;
    for i in 0..groups.len {
        let t = v.table_in(groups, i, "Model.external_buffer_groups")?;
        v.string(t, 0, "ExternalBufferGroup.name")?;
    }
    let externals = v.vector(root, slot::EXTERNAL_BUFFERS, 4, "Model.external_buffers")?;
    for i in 0..externals.len {
        let t = v.table_in(externals, i, "Model.external_buffers")?;
        v.u32(t, 0, 0, "ExternalBuffer.id")?;
        v.u32(t, 1, 0, "ExternalBuffer.group")?;
        v.u64(t, 2, 0, "ExternalBuffer.offset")?;
        v.u64(t, 3, 0, "ExternalBuffer.length")?;
        v.string(t, 4, "ExternalBuffer.packing")?;
    }
    Ok((root, ctx))
}

/// Checks `value` as an index below `count`; -1 passes only when `optional`.
fn index(
    v: &Verifier<'_>,
    value: impl Into<i64>,
    count: usize,
    optional: bool,
    field: &'static str,
    pos: usize,
) -> Result<(), Fault> {
    let value = value.into();
    let ok = (optional && value == -1) || usize::try_from(value).is_ok_and(|i| i < count);
    if ok {
        Ok(())
    } else {
        Err(v.err(
            ErrorKind::Index {
                index: value,
                count,
            },
            field,
            pos,
        ))
    }
}

/// Checks operator code `i`.
fn operator_code(v: &mut Verifier<'_>, codes: Vector, i: usize) -> Result<(), Fault> {
    const F: &str = "OperatorCode";
    let t = v.table_in(codes, i, "Model.operator_codes")?;
    v.u8(t, code_slot::DEPRECATED_BUILTIN_CODE, 0, F)?;
    let custom = v.string(t, code_slot::CUSTOM_CODE, "OperatorCode.custom_code")?;
    v.i32(t, code_slot::VERSION, 1, "OperatorCode.version")?;
    v.i32(t, code_slot::BUILTIN_CODE, 0, "OperatorCode.builtin_code")?;
    if operator::builtin_code(v.buf, t) == CUSTOM && !custom {
        return Err(v.err(
            ErrorKind::MissingCustomCode,
            "OperatorCode.custom_code",
            t.pos,
        ));
    }
    Ok(())
}

/// Checks that the region `offset .. offset + size` lies in the file.
fn region(
    v: &Verifier<'_>,
    offset: u64,
    size: u64,
    f: &'static str,
    pos: usize,
) -> Result<(), Fault> {
    let len = v.buf.len();
    let inside = offset
        .checked_add(size)
        .is_some_and(|end| end <= len as u64);
    if inside {
        Ok(())
    } else {
        Err(v.err(ErrorKind::ExternalBuffer { offset, size, len }, f, pos))
    }
}

/// Checks buffer `i`: inline data, or a region of the file.
fn buffer_table(v: &mut Verifier<'_>, buffers: Vector, i: usize) -> Result<(), Fault> {
    let t = v.table_in(buffers, i, "Model.buffers")?;
    let data = v.vector(t, buffer::slot::DATA, 1, "Buffer.data")?;
    let offset = v.u64(t, buffer::slot::OFFSET, 0, "Buffer.offset")?;
    let size = v.u64(t, buffer::slot::SIZE, 0, "Buffer.size")?;
    if offset > NO_OFFSET {
        if data.len > 0 {
            return Err(v.err(ErrorKind::BufferBothForms, "Buffer", t.pos));
        }
        region(v, offset, size, "Buffer.offset", t.pos)?;
    }
    Ok(())
}

/// Checks a subgraph: its tensors, index lists and operators.
fn subgraph_table(v: &mut Verifier<'_>, ctx: Ctx<'_>, sg: Table) -> Result<(), Fault> {
    let tensors = v.vector(sg, subgraph::slot::TENSORS, 4, "SubGraph.tensors")?;
    for i in 0..tensors.len {
        v.at.tensor = Some(i as u32);
        let t = v.table_in(tensors, i, "SubGraph.tensors")?;
        tensor_table(v, ctx, t)?;
    }
    v.at.tensor = None;
    let n = tensors.len;
    for (s, f) in [
        (subgraph::slot::INPUTS, "SubGraph.inputs"),
        (subgraph::slot::OUTPUTS, "SubGraph.outputs"),
    ] {
        index_list(v, sg, s, n, false, f)?;
    }
    let operators = v.vector(sg, subgraph::slot::OPERATORS, 4, "SubGraph.operators")?;
    for i in 0..operators.len {
        v.at.operator = Some(i as u32);
        let t = v.table_in(operators, i, "SubGraph.operators")?;
        operator_table(v, ctx, t, n)?;
    }
    v.at.operator = None;
    v.string(sg, subgraph::slot::NAME, "SubGraph.name")?;
    v.i32(sg, 5, -1, "SubGraph.debug_metadata_index")?;
    // No data-flow rule: the schema lets an operator read a tensor nothing has written (Vela's
    // Ethos-U scratch tensors), which set-up gives zeros, as TensorFlow Lite gives it its arena
    // bytes.
    Ok(())
}

/// Checks the index vector at `slot` of `t`: every entry below `count` (or -1 if `optional`).
fn index_list(
    v: &mut Verifier<'_>,
    t: Table,
    slot: usize,
    count: usize,
    optional: bool,
    f: &'static str,
) -> Result<Vector, Fault> {
    let list = v.vector(t, slot, 4, f)?;
    for i in 0..list.len {
        let pos = list.start + 4 * i;
        index(v, i32_at(v.buf, pos), count, optional, f, pos)?;
    }
    Ok(list)
}

/// Checks a tensor: shape, type, buffer, name, quantization, sparsity, constant data.
fn tensor_table(v: &mut Verifier<'_>, ctx: Ctx<'_>, t: Table) -> Result<(), Fault> {
    let buf = v.buf;
    let shape = v.vector(t, tensor::slot::SHAPE, 4, "Tensor.shape")?;
    let mut elements: u64 = 1;
    for d in 0..shape.len {
        let pos = shape.start + 4 * d;
        let value = i32_at(buf, pos);
        let Ok(size) = u64::try_from(value) else {
            return Err(v.err(
                ErrorKind::NegativeDimension { dim: d, value },
                "Tensor.shape",
                pos,
            ));
        };
        elements = elements
            .checked_mul(size)
            .ok_or_else(|| v.err(ErrorKind::ElementCountOverflow, "Tensor.shape", pos))?;
    }
    let raw_type = v.u8(t, tensor::slot::TYPE, 0, "Tensor.type")?;
    let Some(ty) = TensorType::from_code(raw_type as i8) else {
        let pos = t.field(buf, tensor::slot::TYPE).unwrap_or(t.pos);
        return Err(v.err(
            ErrorKind::UnknownEnum {
                value: i64::from(raw_type as i8),
            },
            "Tensor.type",
            pos,
        ));
    };
    if ty == TensorType::String && !cfg!(feature = "strings") {
        let pos = t.field(buf, tensor::slot::TYPE).unwrap_or(t.pos);
        let kind = ErrorKind::Unsupported { feature: "strings" };
        return Err(v.err(kind, "Tensor.type", pos));
    }
    let buffer_index = v.u32(t, tensor::slot::BUFFER, 0, "Tensor.buffer")?;
    index(
        v,
        i64::from(buffer_index),
        ctx.buffers.len,
        false,
        "Tensor.buffer",
        t.pos,
    )?;
    // Optional in the schema (TensorFlow Lite Micro's keyword_scrambled names none): a
    // tensor without one reads as "".
    v.string(t, tensor::slot::NAME, "Tensor.name")?;
    if let Some(q) = v.sub_table(t, tensor::slot::QUANTIZATION, "Tensor.quantization")? {
        quantization_table(v, q, shape)?;
    }
    v.u8(t, tensor::slot::IS_VARIABLE, 0, "Tensor.is_variable")?;
    let stored = match v.sub_table(t, tensor::slot::SPARSITY, "Tensor.sparsity")? {
        Some(s) if cfg!(feature = "sparse") => sparsity_table(v, s, shape)?,
        Some(s) => {
            let kind = ErrorKind::Unsupported { feature: "sparse" };
            return Err(v.err(kind, "Tensor.sparsity", s.pos));
        }
        None => elements,
    };
    if let Some(sig) = v.vector_opt(
        t,
        tensor::slot::SHAPE_SIGNATURE,
        4,
        "Tensor.shape_signature",
    )? {
        if sig.len != shape.len {
            let dim = sig.len.min(shape.len);
            return Err(v.err(
                ErrorKind::ShapeSignature { dim },
                "Tensor.shape_signature",
                sig.start,
            ));
        }
        for d in 0..sig.len {
            let s = i32_at(buf, sig.start + 4 * d);
            if s != -1 && s != i32_at(buf, shape.start + 4 * d) {
                return Err(v.err(
                    ErrorKind::ShapeSignature { dim: d },
                    "Tensor.shape_signature",
                    sig.start + 4 * d,
                ));
            }
        }
    }
    v.u8(t, tensor::slot::HAS_RANK, 0, "Tensor.has_rank")?;
    let variants = v.vector(
        t,
        tensor::slot::VARIANT_TENSORS,
        4,
        "Tensor.variant_tensors",
    )?;
    for i in 0..variants.len {
        let vt = v.table_in(variants, i, "Tensor.variant_tensors")?;
        v.vector(vt, 0, 4, "VariantSubType.shape")?;
        v.u8(vt, 1, 0, "VariantSubType.type")?;
        v.u8(vt, 2, 0, "VariantSubType.has_rank")?;
    }
    v.u32(t, 10, 0, "Tensor.external_buffer")?;

    // The constant's length, against the buffer verified earlier.
    let bt = ctx.buffers.table(buf, buffer_index as usize);
    let data = buffer::data_of(buf, bt);
    if data.is_empty() {
        return Ok(());
    }
    if ty == TensorType::String {
        let strings = TfliteStrings::new(data)
            .map_err(|e| v.err(ErrorKind::Strings(e), "Buffer.data", bt.pos))?;
        if strings.len() as u64 != stored {
            return Err(v.err(
                ErrorKind::StringCount {
                    expected: stored,
                    found: strings.len(),
                },
                "Buffer.data",
                bt.pos,
            ));
        }
    } else if ty.bits().is_some() {
        let expected = ty
            .bytes_for(stored)
            .ok_or_else(|| v.err(ErrorKind::ElementCountOverflow, "Tensor.shape", t.pos))?;
        if expected != data.len() as u64 {
            return Err(v.err(
                ErrorKind::BufferLength {
                    expected,
                    found: data.len() as u64,
                },
                "Buffer.data",
                bt.pos,
            ));
        }
    }
    Ok(())
}

/// Checks quantization parameters against the tensor's shape.
fn quantization_table(v: &mut Verifier<'_>, q: Table, shape: Vector) -> Result<(), Fault> {
    use quantization::slot;
    const F: &str = "QuantizationParameters";
    v.vector(q, slot::MIN, 4, "QuantizationParameters.min")?;
    v.vector(q, slot::MAX, 4, "QuantizationParameters.max")?;
    let scale = v.vector(q, slot::SCALE, 4, "QuantizationParameters.scale")?;
    let zero = v.vector(q, slot::ZERO_POINT, 8, "QuantizationParameters.zero_point")?;
    let details = v.u8(
        q,
        slot::DETAILS_TYPE,
        0,
        "QuantizationParameters.details_type",
    )?;
    if details > 3 {
        return Err(v.err(
            ErrorKind::UnknownEnum {
                value: details.into(),
            },
            F,
            q.pos,
        ));
    }
    if details != 0 {
        v.sub_table(q, slot::DETAILS, "QuantizationParameters.details")?;
    }
    let dim = v.i32(
        q,
        slot::QUANTIZED_DIMENSION,
        0,
        "QuantizationParameters.quantized_dimension",
    )?;
    let rank = shape.len;
    let n = scale.len;
    // The dimension names the axis of several scales. With one scale (per-tensor) it is
    // meaningless, whatever it says. A rank-1 tensor has one axis to be per-channel along:
    // TensorFlow Lite Micro's person_detect stores depthwise biases [C] with C scales and
    // the filter's dimension 3, which TFLM runs (LiteRT refuses the file). Any other
    // dimension outside the rank is an error.
    let dim_ok = usize::try_from(dim).is_ok_and(|d| d < rank || (rank == 0 && d == 0));
    let axis = match (dim_ok, n, rank) {
        (true, _, _) => dim as usize,
        (false, 0 | 1, _) | (false, _, 1) => 0,
        (false, _, _) => {
            return Err(v.err(
                ErrorKind::QuantizedDimension { dim, rank },
                "QuantizationParameters.quantized_dimension",
                q.pos,
            ));
        }
    };
    if n > 1 {
        let size = if rank == 0 {
            1
        } else {
            u64::try_from(i32_at(v.buf, shape.start + 4 * axis)).unwrap_or(0)
        };
        if n as u64 != size {
            return Err(v.err(
                ErrorKind::QuantizationLength {
                    found: n,
                    expected: size,
                },
                "QuantizationParameters.scale",
                scale.start - 4,
            ));
        }
    }
    if zero.len != n {
        return Err(v.err(
            ErrorKind::QuantizationLength {
                found: zero.len,
                expected: n as u64,
            },
            "QuantizationParameters.zero_point",
            zero.start.saturating_sub(4),
        ));
    }
    Ok(())
}

/// Checks a sparse encoding against the dense shape; returns the number of stored values.
fn sparsity_table(v: &mut Verifier<'_>, s: Table, shape: Vector) -> Result<u64, Fault> {
    const F: &str = "SparsityParameters";
    let buf = v.buf;
    let order = v.vector(
        s,
        sparsity::slot::TRAVERSAL_ORDER,
        4,
        "SparsityParameters.traversal_order",
    )?;
    let block_map = v.vector(
        s,
        sparsity::slot::BLOCK_MAP,
        4,
        "SparsityParameters.block_map",
    )?;
    let dims = v.vector(
        s,
        sparsity::slot::DIM_METADATA,
        4,
        "SparsityParameters.dim_metadata",
    )?;
    let n = shape.len;
    let k = block_map.len;
    let total = n.checked_add(k).filter(|&t| t <= MAX_SPARSE_DIMS);
    if total.is_none() || k > n {
        return Err(v.err(ErrorKind::BlockMap, "SparsityParameters.block_map", s.pos));
    }
    let total = n + k;
    if order.len != total || dims.len != total {
        return Err(v.err(
            ErrorKind::TraversalOrder,
            "SparsityParameters.traversal_order",
            s.pos,
        ));
    }
    // A permutation of 0..n then of n..n+k: each in its range, none twice.
    let mut seen: u64 = 0;
    for i in 0..total {
        let d = i32_at(buf, order.start + 4 * i);
        let range = if i < n { 0..n } else { n..total };
        let ok = usize::try_from(d).is_ok_and(|d| range.contains(&d) && seen & (1 << d) == 0);
        if !ok {
            return Err(v.err(
                ErrorKind::TraversalOrder,
                "SparsityParameters.traversal_order",
                order.start + 4 * i,
            ));
        }
        seen |= 1 << d;
    }
    let mut block_of = [0usize; MAX_SPARSE_DIMS];
    for (b, slot) in block_of.iter_mut().enumerate().take(k) {
        let d = i32_at(buf, block_map.start + 4 * b);
        match usize::try_from(d) {
            Ok(d) if d < n => *slot = d,
            _ => {
                return Err(v.err(
                    ErrorKind::BlockMap,
                    "SparsityParameters.block_map",
                    block_map.start + 4 * b,
                ));
            }
        }
    }
    // Dimension metadata in traversal order; block sizes are the dense sizes of block dims.
    // Block and dimension sizes come from non-negative i32s: u32 arithmetic, so that no
    // 64-bit division is linked (`u64_div_rem` is 864 bytes on Cortex-M).
    let mut block_size = [1u32; MAX_SPARSE_DIMS];
    for i in 0..total {
        let t = v.table_in(dims, i, "SparsityParameters.dim_metadata")?;
        let d = i32_at(buf, order.start + 4 * i) as usize;
        if d >= n {
            let size = v.i32(t, dim_slot::DENSE_SIZE, 0, "DimensionMetadata.dense_size")?;
            let format = v.u8(t, dim_slot::FORMAT, 0, "DimensionMetadata.format")?;
            match u32::try_from(size) {
                Ok(size) if size > 0 && format == 0 => block_size[d - n] = size,
                _ => {
                    return Err(v.err(
                        ErrorKind::DenseSize {
                            expected: 1,
                            found: size,
                        },
                        "DimensionMetadata.dense_size",
                        t.pos,
                    ));
                }
            }
        }
    }
    let mut count: u64 = 1;
    for i in 0..total {
        // Checked by the loop above: read again rather than kept in a 64-table array.
        let t = dims.table(buf, i);
        let d = i32_at(buf, order.start + 4 * i) as usize;
        let size = if d < n {
            let full = u32::try_from(i32_at(buf, shape.start + 4 * d)).unwrap_or(0);
            let mut blocks = full;
            for (&of, &bs) in block_of.iter().zip(&block_size).take(k) {
                if of == d {
                    if blocks % bs != 0 {
                        return Err(v.err(
                            ErrorKind::DenseSize {
                                expected: full.into(),
                                found: i32::try_from(bs).unwrap_or(i32::MAX),
                            },
                            "DimensionMetadata.dense_size",
                            t.pos,
                        ));
                    }
                    blocks /= bs;
                }
            }
            u64::from(blocks)
        } else {
            u64::from(block_size[d - n])
        };
        let format = v.u8(t, dim_slot::FORMAT, 0, "DimensionMetadata.format")?;
        let dense_size = v.i32(t, dim_slot::DENSE_SIZE, 0, "DimensionMetadata.dense_size")?;
        match format {
            0 => {
                if u64::try_from(dense_size).ok() != Some(size) {
                    return Err(v.err(
                        ErrorKind::DenseSize {
                            expected: size,
                            found: dense_size,
                        },
                        "DimensionMetadata.dense_size",
                        t.pos,
                    ));
                }
                count = count
                    .checked_mul(size)
                    .ok_or_else(|| v.err(ErrorKind::ElementCountOverflow, F, t.pos))?;
            }
            1 => count = csr_dimension(v, t, count, size)?,
            other => {
                return Err(v.err(
                    ErrorKind::UnknownEnum {
                        value: other.into(),
                    },
                    "DimensionMetadata.format",
                    t.pos,
                ));
            }
        }
    }
    Ok(count)
}

/// A checked `SparseIndexVector`: where its values are and their width in bytes.
struct IndexVector {
    values: Vector,
    width: usize,
}

impl IndexVector {
    fn get(&self, buf: &[u8], i: usize) -> i64 {
        let pos = self.values.start + self.width * i;
        match self.width {
            4 => i64::from(i32_at(buf, pos)),
            2 => i64::from(u16_at(buf, pos)),
            _ => i64::from(u8_at(buf, pos)),
        }
    }
}

/// Checks the `SparseIndexVector` union whose type is at `type_slot`.
fn index_vector(
    v: &mut Verifier<'_>,
    t: Table,
    type_slot: usize,
    f: &'static str,
) -> Result<IndexVector, Fault> {
    let ty = v.u8(t, type_slot, 0, f)?;
    let width = match ty {
        1 => 4,
        2 => 2,
        3 => 1,
        0 => return Err(v.err(ErrorKind::SparseVectors, f, t.pos)),
        other => {
            return Err(v.err(
                ErrorKind::UnknownEnum {
                    value: other.into(),
                },
                f,
                t.pos,
            ));
        }
    };
    let Some(table) = v.sub_table(t, type_slot + 1, f)? else {
        return Err(v.err(ErrorKind::SparseVectors, f, t.pos));
    };
    // Uint16Vector and Uint8Vector values are `force_align: 4`, but the element alignment is
    // what reads need; the vector check aligns to the element size.
    let values = v.vector(table, 0, width, f)?;
    Ok(IndexVector { values, width })
}

/// Checks a SPARSE_CSR dimension under `count` elements of the previous dimensions, of size
/// `size`; returns the number of stored indices.
fn csr_dimension(v: &mut Verifier<'_>, t: Table, count: u64, size: u64) -> Result<u64, Fault> {
    const SEG: &str = "DimensionMetadata.array_segments";
    const IDX: &str = "DimensionMetadata.array_indices";
    let segments = index_vector(v, t, dim_slot::SEGMENTS_TYPE, SEG)?;
    let indices = index_vector(v, t, dim_slot::INDICES_TYPE, IDX)?;
    let buf = v.buf;
    let nseg = segments.values.len;
    if count.checked_add(1) != Some(nseg as u64) {
        return Err(v.err(
            ErrorKind::Segments { position: nseg },
            SEG,
            segments.values.start,
        ));
    }
    let mut previous = 0i64;
    for i in 0..nseg {
        let s = segments.get(buf, i);
        let bad =
            (i == 0 && s != 0) || s < previous || (i + 1 == nseg && s != indices.values.len as i64);
        if bad {
            return Err(v.err(
                ErrorKind::Segments { position: i },
                SEG,
                segments.values.start + segments.width * i,
            ));
        }
        previous = s;
    }
    for i in 0..indices.values.len {
        let x = indices.get(buf, i);
        if u64::try_from(x).map_or(true, |x| x >= size) {
            return Err(v.err(
                ErrorKind::SparseIndex {
                    position: i,
                    index: x,
                    size,
                },
                IDX,
                indices.values.start + indices.width * i,
            ));
        }
    }
    Ok(indices.values.len as u64)
}

/// Checks an operator: opcode, tensor indices, options, custom options.
fn operator_table(
    v: &mut Verifier<'_>,
    ctx: Ctx<'_>,
    t: Table,
    tensors: usize,
) -> Result<(), Fault> {
    use operator::slot;
    let opcode = v.u32(t, slot::OPCODE_INDEX, 0, "Operator.opcode_index")?;
    index(
        v,
        i64::from(opcode),
        ctx.opcodes.len,
        false,
        "Operator.opcode_index",
        t.pos,
    )?;
    let inputs = index_list(v, t, slot::INPUTS, tensors, true, "Operator.inputs")?;
    index_list(v, t, slot::OUTPUTS, tensors, false, "Operator.outputs")?;
    index_list(
        v,
        t,
        slot::INTERMEDIATES,
        tensors,
        false,
        "Operator.intermediates",
    )?;
    let options_type = v.u8(t, slot::OPTIONS_TYPE, 0, "Operator.builtin_options_type")?;
    let options_table = v.sub_table(t, slot::OPTIONS, "Operator.builtin_options")?;
    let code = operator::builtin_code(v.buf, ctx.opcodes.table(v.buf, opcode as usize));
    options::verify(
        v,
        BuiltinOperator::from_code(code),
        options_type,
        options_table,
    )?;
    v.vector(t, slot::CUSTOM_OPTIONS, 1, "Operator.custom_options")?;
    v.u8(t, 6, 0, "Operator.custom_options_format")?;
    let mutating = v.vector(
        t,
        slot::MUTATING_VARIABLE_INPUTS,
        1,
        "Operator.mutating_variable_inputs",
    )?;
    if mutating.len != 0 && mutating.len != inputs.len {
        return Err(v.err(
            ErrorKind::MutatingInputs,
            "Operator.mutating_variable_inputs",
            mutating.start - 4,
        ));
    }
    let offset = v.u64(
        t,
        slot::LARGE_CUSTOM_OPTIONS_OFFSET,
        0,
        "Operator.large_custom_options_offset",
    )?;
    let size = v.u64(
        t,
        slot::LARGE_CUSTOM_OPTIONS_SIZE,
        0,
        "Operator.large_custom_options_size",
    )?;
    if offset > NO_OFFSET {
        region(
            v,
            offset,
            size,
            "Operator.large_custom_options_offset",
            t.pos,
        )?;
    }
    v.u8(
        t,
        slot::OPTIONS_2_TYPE,
        0,
        "Operator.builtin_options_2_type",
    )?;
    v.sub_table(t, slot::OPTIONS_2, "Operator.builtin_options_2")?;
    v.i32(t, 13, -1, "Operator.debug_metadata_index")?;
    Ok(())
}

/// Checks signature `i`: names present, subgraph and tensor indices in range.
fn signature(
    v: &mut Verifier<'_>,
    signatures: Vector,
    i: usize,
    subgraphs: Vector,
) -> Result<(), Fault> {
    use super::signature::slot;
    let t = v.table_in(signatures, i, "Model.signature_defs")?;
    v.string(t, slot::KEY, "SignatureDef.signature_key")?;
    v.string(t, 3, "SignatureDef.deprecated_tag")?;
    let sg = v.u32(t, slot::SUBGRAPH_INDEX, 0, "SignatureDef.subgraph_index")?;
    index(
        v,
        i64::from(sg),
        subgraphs.len,
        false,
        "SignatureDef.subgraph_index",
        t.pos,
    )?;
    let count = subgraphs
        .table(v.buf, sg as usize)
        .vector(v.buf, subgraph::slot::TENSORS)
        .len;
    for (s, f) in [
        (slot::INPUTS, "SignatureDef.inputs"),
        (slot::OUTPUTS, "SignatureDef.outputs"),
    ] {
        let maps = v.vector(t, s, 4, f)?;
        for j in 0..maps.len {
            let m = v.table_in(maps, j, f)?;
            // Optional in the schema: an entry without one reads as "" (found by index).
            v.string(m, map_slot::NAME, "TensorMap.name")?;
            let ti = v.u32(m, map_slot::TENSOR_INDEX, 0, "TensorMap.tensor_index")?;
            index(
                v,
                i64::from(ti),
                count,
                false,
                "TensorMap.tensor_index",
                m.pos,
            )?;
        }
    }
    Ok(())
}
