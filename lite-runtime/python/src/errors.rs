//! tessera's errors as Python exceptions (`tessera._errors`): the message is the Rust error's
//! `Display`, and its where (operator, tensor, byte offset, ...) goes into attributes.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule, PyTuple};
use tessera_lite::interpreter::{ErrorKind, InterpreterError};
use tessera_lite::model::ModelError;

/// The exception classes of `tessera._errors`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Class {
    Model,
    Tensor,
    Interpreter,
    State,
    Data,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Model => "ModelError",
            Class::Tensor => "TensorError",
            Class::Interpreter => "InterpreterError",
            Class::State => "StateError",
            Class::Data => "DataError",
        }
    }
}

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// An exception of `class` with `message` and the attributes in `detail` (pairs whose value
/// is `None` are left out).
pub(crate) fn raise(
    class: Class,
    message: impl Into<String>,
    detail: &[(&str, Option<Detail>)],
) -> PyErr {
    Python::attach(|py| {
        let made = (|| -> PyResult<PyErr> {
            let module = ERRORS.get_or_try_init(py, || {
                PyModule::import(py, "tessera._errors").map(Bound::unbind)
            })?;
            let cls = module.bind(py).getattr(class.name())?;
            let kwargs = PyDict::new(py);
            for (key, value) in detail {
                match value {
                    Some(Detail::Int(v)) => kwargs.set_item(key, v)?,
                    Some(Detail::Text(v)) => kwargs.set_item(key, v)?,
                    None => {}
                }
            }
            let args = PyTuple::new(py, [message.into()])?;
            let exc = cls.call(args, Some(&kwargs))?;
            Ok(PyErr::from_value(exc))
        })();
        // If even the exception cannot be made, that failure is the exception.
        made.unwrap_or_else(|e| e)
    })
}

/// An attribute's value.
#[derive(Debug, Clone)]
pub(crate) enum Detail {
    Int(i128),
    Text(String),
}

fn int(v: Option<impl Into<i128>>) -> Option<Detail> {
    v.map(|v| Detail::Int(v.into()))
}

fn text(v: impl Into<String>) -> Option<Detail> {
    Some(Detail::Text(v.into()))
}

/// The variant's name of a `Debug` rendering (`ArenaTooSmall { .. }` → `ArenaTooSmall`).
fn variant(debug: &str) -> String {
    debug
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
        .to_owned()
}

/// A malformed model.
pub(crate) fn model_error(e: &ModelError) -> PyErr {
    let l = &e.location;
    raise(
        Class::Model,
        e.to_string(),
        &[
            ("kind", text(variant(&format!("{:?}", e.kind)))),
            ("offset", int(Some(e.offset as u64))),
            ("field", text(e.field)),
            ("subgraph", int(l.subgraph)),
            ("operator", int(l.operator)),
            ("tensor", int(l.tensor)),
        ],
    )
}

/// An interpreter's error: a tensor error where a tensor access was refused, else an
/// interpreter error.
pub(crate) fn interpreter_error(e: &InterpreterError) -> PyErr {
    let class = match e.kind {
        ErrorKind::NoSuchTensor
        | ErrorKind::WrongType { .. }
        | ErrorKind::InputStrings { .. }
        | ErrorKind::StringCount { .. } => Class::Tensor,
        _ => Class::Interpreter,
    };
    let needed = match e.kind {
        ErrorKind::ArenaTooSmall { needed, .. } | ErrorKind::InputStrings { needed, .. } => {
            Some(needed as u64)
        }
        _ => None,
    };
    raise(
        class,
        e.to_string(),
        &[
            ("kind", text(variant(&format!("{:?}", e.kind)))),
            ("subgraph", int(e.subgraph.map(|v| v as u64))),
            ("operator", int(e.operator.map(|v| v as u64))),
            ("op", e.op.and_then(|op| text(op.to_string()))),
            ("tensor", int(e.tensor.map(|v| v as u64))),
            ("needed", int(needed)),
        ],
    )
}

/// A load or set-up failure of an owned interpreter.
pub(crate) fn owned_error(e: &crate::owned::OwnedError) -> PyErr {
    use crate::owned::OwnedError;
    match e {
        OwnedError::Model(e) => model_error(e),
        OwnedError::Interpreter(e) => interpreter_error(e),
        OwnedError::Memory(e) => {
            let needed = match e {
                tessera_data::buffers::MemoryError::OverBudget { bytes, .. } => {
                    Some(Detail::Int(i128::try_from(*bytes).unwrap_or(i128::MAX)))
                }
                _ => None,
            };
            raise(
                Class::Interpreter,
                format!("{e} (raise memory_budget= to allow more)"),
                &[("kind", text("Memory")), ("needed", needed)],
            )
        }
    }
}
