//! Why an interpreter could not be set up or could not run: an [`InterpreterError`] says what
//! ([`ErrorKind`], or a kernel's [`KernelError`]) and where (operator, op name, tensor).

use core::fmt;

use tessera_core::plan::PlanError;

use crate::model::{BuiltinOperator, TensorType};

/// What a kernel found wrong, in its `prepare` (shapes, types, options) or its `eval` (the
/// data). The interpreter adds the operator's index and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KernelError {
    /// A type, option or shape combination this kernel does not implement.
    Unsupported {
        /// What is not supported (`"input type INT16"`).
        what: &'static str,
    },
    /// The operator has too few inputs or outputs, or an input it needs is `-1`.
    Arity {
        /// What is missing (`"input 1"`).
        what: &'static str,
    },
    /// Shapes or types that do not fit together (`"input 1 does not broadcast"`).
    Mismatch {
        /// What does not fit.
        what: &'static str,
    },
    /// An index in the data is out of range (GATHER, EMBEDDING_LOOKUP...): never read.
    IndexOutOfRange {
        /// The operator input holding the indices.
        input: usize,
        /// Position of the bad index in that tensor (flat, row-major).
        position: usize,
        /// The index.
        index: i64,
        /// The exclusive upper bound it had to be below.
        limit: usize,
    },
    /// A kernel written outside Rust (a custom operator registered through the C library)
    /// returned a status other than success.
    Failed {
        /// The status it returned.
        status: i32,
    },
    /// A string output needs more than its byte budget in the arena.
    StringBudget {
        /// The operator output.
        output: usize,
        /// Bytes the strings need.
        needed: usize,
        /// The budget ([`Options::string_bytes`](super::Options::string_bytes)).
        budget: usize,
    },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Unsupported { what } => write!(f, "unsupported: {what}"),
            Self::Arity { what } => write!(f, "missing {what}"),
            Self::Mismatch { what } => f.write_str(what),
            Self::IndexOutOfRange {
                input,
                position,
                index,
                limit,
            } => write!(
                f,
                "index {index} at position {position} of input {input} is outside 0..{limit}"
            ),
            Self::Failed { status } => write!(f, "the kernel returned status {status}"),
            Self::StringBudget {
                output,
                needed,
                budget,
            } => write!(
                f,
                "output {output} needs {needed} bytes of strings, over its budget of {budget} \
                 (raise Options::string_bytes)"
            ),
        }
    }
}

impl core::error::Error for KernelError {}

/// What went wrong, without the place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The model has no subgraph 0.
    NoSubgraph,
    /// No kernel is registered for the operator's op.
    UnregisteredOp {
        /// The op.
        op: BuiltinOperator,
    },
    /// A builtin code that this schema does not define (a newer TensorFlow Lite); -1 if an
    /// operator's record names no kernel, which set-up never writes.
    UnknownOp {
        /// The operator code's `builtin_code`.
        code: i32,
    },
    /// A custom op with no kernel registered for its name (or any custom op, without the
    /// `custom-ops` feature).
    CustomOp,
    /// A tensor type the interpreter cannot hold (`RESOURCE`, `VARIANT`, sub-byte types).
    TensorType {
        /// The type.
        dtype: TensorType,
    },
    /// A tensor of more dimensions than [`MAX_DIMS`](super::MAX_DIMS), or a negative one.
    Shape,
    /// A tensor of more bytes than the interpreter can address (4 GiB).
    TooLarge,
    /// More inputs or outputs on one operator than the interpreter handles.
    TooManyOperands {
        /// The count.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The caller's region is too small.
    ArenaTooSmall {
        /// Bytes needed (alignment padding of the region's start included). Exact, except
        /// without `std` for a region too small to hold even the records and the plan's
        /// table: then what set-up needs to start (a lower bound; size an arena with
        /// [`Interpreter::required`](super::Interpreter::required)).
        needed: usize,
        /// Bytes given.
        available: usize,
    },
    /// [`Interpreter::required`](super::Interpreter::required) plans on the stack and the
    /// model has more buffers than that holds: use
    /// [`Interpreter::required_with`](super::Interpreter::required_with).
    PlanScratch {
        /// Plan entries needed.
        needed: usize,
        /// Plan entries available.
        available: usize,
    },
    /// The planner refused (an overflow).
    Plan(PlanError),
    /// A kernel's error.
    Kernel(KernelError),
    /// No input, output or signature of that index or name.
    NoSuchTensor,
    /// The tensor has another element type than the one asked for.
    WrongType {
        /// The tensor's type.
        actual: &'static str,
        /// The type asked for.
        requested: &'static str,
    },
    /// Strings do not fit a string input's byte budget.
    InputStrings {
        /// Bytes needed.
        needed: usize,
        /// The budget.
        budget: usize,
    },
    /// Another number of strings than the string input's shape holds.
    StringCount {
        /// Elements of the input's shape.
        expected: usize,
        /// Strings given.
        found: usize,
    },
    /// More subgraphs reached through WHILE, IF and CALL_ONCE than the interpreter runs.
    TooManyGraphs {
        /// The limit ([`MAX_GRAPHS`](super::MAX_GRAPHS)).
        limit: usize,
    },
    /// A subgraph that calls itself, directly or through others (TensorFlow Lite has no
    /// recursion).
    Recursion,
    /// A WHILE loop ran more iterations than
    /// [`Options::max_loop_iterations`](super::Options::max_loop_iterations) allows.
    LoopBound {
        /// The bound.
        limit: u32,
    },
    /// Tensors that control flow copies between differ in type or size (a loop whose values
    /// change shape, which an arena planned once cannot hold).
    ControlMismatch,
    /// More resource variables than the interpreter holds, or a resource whose VAR_HANDLE
    /// cannot be found from the operator that uses it.
    Resource,
    /// A resource variable is read before anything assigned it.
    Uninitialized,
}

/// Why an interpreter could not be set up or run: what, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct InterpreterError {
    /// What.
    pub kind: ErrorKind,
    /// The subgraph of the operator or tensor, when it is not the one run (a loop's body, a
    /// branch, with the `control-flow` feature).
    pub subgraph: Option<usize>,
    /// The operator (index in its subgraph), if one is concerned.
    pub operator: Option<usize>,
    /// Its op (a typed code, not a name: the names are linked only where an error is
    /// displayed, which keeps 3.2 KB of them out of firmware that never prints one).
    pub op: Option<BuiltinOperator>,
    /// The tensor (index in the subgraph), if one is concerned.
    pub tensor: Option<usize>,
}

impl InterpreterError {
    /// An error of this kind, placed nowhere (for code that reports an interpreter's errors
    /// beside its own, as a model's wrapper does).
    #[must_use]
    pub const fn new(kind: ErrorKind) -> Self {
        Self {
            kind,
            subgraph: None,
            operator: None,
            op: None,
            tensor: None,
        }
    }

    pub(crate) const fn at_op(kind: ErrorKind, operator: usize, op: BuiltinOperator) -> Self {
        Self {
            kind,
            subgraph: None,
            operator: Some(operator),
            op: Some(op),
            tensor: None,
        }
    }

    /// At an operator whose op is not known (or not one of the schema's).
    pub(crate) const fn at_operator(kind: ErrorKind, operator: usize) -> Self {
        Self {
            kind,
            subgraph: None,
            operator: Some(operator),
            op: None,
            tensor: None,
        }
    }

    pub(crate) const fn at_tensor(kind: ErrorKind, tensor: usize) -> Self {
        Self {
            kind,
            subgraph: None,
            operator: None,
            op: None,
            tensor: Some(tensor),
        }
    }

    /// This error, placed in model subgraph `index` unless it is placed already (the
    /// innermost subgraph is the one to name).
    #[cfg(feature = "control-flow")]
    pub(crate) const fn in_subgraph(mut self, index: usize) -> Self {
        if self.subgraph.is_none() {
            self.subgraph = Some(index);
        }
        self
    }
}

impl fmt::Display for InterpreterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = self.subgraph {
            write!(f, "subgraph {g}, ")?;
        }
        if let Some(i) = self.operator {
            write!(f, "operator {i}")?;
            if let Some(op) = self.op {
                write!(f, " ({})", op.name())?;
            }
            f.write_str(": ")?;
        }
        if let Some(t) = self.tensor {
            write!(f, "tensor {t}: ")?;
        }
        match self.kind {
            ErrorKind::NoSubgraph => f.write_str("the model has no subgraph"),
            ErrorKind::UnregisteredOp { op } => {
                write!(f, "no kernel registered for {}", op.name())
            }
            ErrorKind::UnknownOp { code } => {
                write!(f, "builtin code {code}, an op newer than this schema")
            }
            ErrorKind::CustomOp => f.write_str("no kernel registered for this custom op"),
            ErrorKind::TensorType { dtype } => {
                write!(f, "tensors of type {} are not supported", dtype.name())
            }
            ErrorKind::Shape => f.write_str("a negative dimension or too many dimensions"),
            ErrorKind::TooLarge => f.write_str("more than 4 GiB"),
            ErrorKind::TooManyOperands { count, limit } => {
                write!(f, "{count} operands, more than the {limit} supported")
            }
            ErrorKind::ArenaTooSmall { needed, available } => {
                write!(f, "the arena needs {needed} bytes, {available} given")
            }
            ErrorKind::PlanScratch { needed, available } => write!(
                f,
                "planning needs {needed} entries, {available} on the stack: use required_with"
            ),
            ErrorKind::Plan(e) => write!(f, "planning: {e}"),
            ErrorKind::Kernel(e) => write!(f, "{e}"),
            ErrorKind::NoSuchTensor => f.write_str("no such input, output or signature"),
            ErrorKind::WrongType { actual, requested } => {
                write!(f, "holds {actual}, not {requested}")
            }
            ErrorKind::InputStrings { needed, budget } => write!(
                f,
                "the strings need {needed} bytes, over the input's budget of {budget} \
                 (raise Options::string_bytes)"
            ),
            ErrorKind::StringCount { expected, found } => {
                write!(
                    f,
                    "{found} strings given, the input's shape holds {expected}"
                )
            }
            ErrorKind::TooManyGraphs { limit } => {
                write!(f, "control flow reaches more than {limit} subgraphs")
            }
            ErrorKind::Recursion => f.write_str("a subgraph calls itself"),
            ErrorKind::LoopBound { limit } => write!(
                f,
                "the loop ran past {limit} iterations (raise Options::max_loop_iterations)"
            ),
            ErrorKind::ControlMismatch => {
                f.write_str("the tensors control flow copies between differ in type or size")
            }
            ErrorKind::Resource => f.write_str(
                "a resource variable without its VAR_HANDLE, or more than the interpreter holds",
            ),
            ErrorKind::Uninitialized => {
                f.write_str("a resource variable read before it is assigned")
            }
        }
    }
}

impl core::error::Error for InterpreterError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Kernel(e) => Some(e),
            ErrorKind::Plan(e) => Some(e),
            _ => None,
        }
    }
}
