//! [`Summary`]: the model as a person reading it wants it (subgraphs, inputs and outputs,
//! each operator with its main options, counts and sizes), printed through `Display` so it
//! works without `std`.

use core::fmt;

use super::options::BuiltinOptions;
use super::{Model, Subgraph, Tensor, TensorIndices};

/// A printable description of a model; see [`Model::summary`].
#[derive(Clone, Copy, Debug)]
pub struct Summary<'a> {
    model: Model<'a>,
}

impl<'a> Summary<'a> {
    pub(crate) fn new(model: Model<'a>) -> Self {
        Self { model }
    }
}

/// Totals over every subgraph.
#[derive(Default)]
struct Totals {
    operators: usize,
    tensors: usize,
    constants: usize,
    parameters: u64,
}

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.model;
        let mut totals = Totals::default();
        for sg in m.subgraphs().iter() {
            totals.operators += sg.operators().len();
            totals.tensors += sg.tensors().len();
            for t in sg.tensors().iter().filter(Tensor::is_constant) {
                totals.constants += 1;
                totals.parameters = totals.parameters.saturating_add(t.element_count());
            }
        }
        let constant_bytes: u64 = m.buffers().iter().map(|b| b.data().len() as u64).sum();
        write!(f, "TensorFlow Lite model, schema version {}", m.version())?;
        if let Some(d) = m.description() {
            write!(f, ", \"{}\"", d.escape_debug())?;
        }
        writeln!(f, " ({} bytes)", m.bytes().len())?;
        writeln!(
            f,
            "{} subgraphs, {} operators, {} tensors ({} constant), {} parameters, {} constant bytes in {} buffers",
            m.subgraphs().len(),
            totals.operators,
            totals.tensors,
            totals.constants,
            totals.parameters,
            constant_bytes,
            m.buffers().len(),
        )?;
        let signatures = m.signature_defs();
        if signatures.is_empty() {
            writeln!(f, "signatures: none")?;
        } else {
            write!(f, "signatures:")?;
            for s in signatures.iter() {
                write!(
                    f,
                    " \"{}\" (subgraph {}, {} inputs, {} outputs)",
                    s.key().escape_debug(),
                    s.subgraph_index(),
                    s.inputs().len(),
                    s.outputs().len()
                )?;
            }
            writeln!(f)?;
        }
        for sg in m.subgraphs().iter() {
            subgraph(f, sg)?;
        }
        Ok(())
    }
}

/// Prints one subgraph.
fn subgraph(f: &mut fmt::Formatter<'_>, sg: Subgraph<'_>) -> fmt::Result {
    writeln!(f)?;
    write!(f, "subgraph {}", sg.index())?;
    if let Some(name) = sg.name() {
        write!(f, " \"{}\"", name.escape_debug())?;
    }
    writeln!(
        f,
        ": {} tensors, {} operators",
        sg.tensors().len(),
        sg.operators().len()
    )?;
    for (title, list) in [("inputs", sg.inputs()), ("outputs", sg.outputs())] {
        writeln!(f, "  {title}:")?;
        for t in list.iter().flatten().filter_map(|i| sg.tensor(i)) {
            write!(f, "    ")?;
            tensor(f, t)?;
            writeln!(f)?;
        }
    }
    writeln!(f, "  operators:")?;
    for op in sg.operators().iter() {
        write!(f, "    #{} {}", op.index(), op.op())?;
        write!(f, " in ")?;
        indices(f, op.inputs())?;
        write!(f, " out ")?;
        indices(f, op.outputs())?;
        let options = op.options();
        if !matches!(options, BuiltinOptions::None | BuiltinOptions::Empty(_)) {
            write!(f, " {options}")?;
        }
        writeln!(f)?;
    }
    Ok(())
}

/// Prints `[0, 1, -]` (a dash for a left-out optional input).
fn indices(f: &mut fmt::Formatter<'_>, list: TensorIndices<'_>) -> fmt::Result {
    f.write_str("[")?;
    for (i, t) in list.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        match t {
            Some(t) => write!(f, "{t}")?,
            None => f.write_str("-")?,
        }
    }
    f.write_str("]")
}

/// Prints `[3] "name" FLOAT32 [1, 4] scale 0.5 zero point 3`.
fn tensor(f: &mut fmt::Formatter<'_>, t: Tensor<'_>) -> fmt::Result {
    write!(
        f,
        "[{}] \"{}\" {} [",
        t.index(),
        t.name().escape_debug(),
        t.tensor_type()
    )?;
    let signature = t.shape_signature();
    for (d, size) in t.shape().iter().enumerate() {
        if d > 0 {
            f.write_str(", ")?;
        }
        // A dimension unknown until run time prints as -1 (its signature), not its placeholder.
        match signature.and_then(|s| s.get(d)) {
            Some(-1) => f.write_str("-1")?,
            _ => write!(f, "{size}")?,
        }
    }
    f.write_str("]")?;
    if let Some(q) = t.quantization().filter(|q| q.is_affine()) {
        let (scale, zero) = (q.scale(), q.zero_point());
        if q.is_per_channel() {
            write!(
                f,
                " per-channel quantized: {} scales along dimension {}",
                scale.len(),
                q.quantized_dimension()
            )?;
        } else {
            write!(
                f,
                " quantized: scale {} zero point {}",
                scale.get(0).unwrap_or(0.0),
                zero.get(0).unwrap_or(0)
            )?;
        }
    }
    if t.is_variable() {
        f.write_str(" variable")?;
    }
    if t.sparsity().is_some() {
        f.write_str(" sparse")?;
    }
    Ok(())
}
