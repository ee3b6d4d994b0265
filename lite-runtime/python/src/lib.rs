//! tessera's Python package, compiled: `tessera._tessera`. The package (`python/tessera`)
//! re-exports it with the Python-side helpers:
//!
//! - `interpreter`: `Interpreter`, LiteRT's Python `Interpreter` API over tessera's
//!   interpreter (the same kernels as on the device);
//! - `data`: `Reader`, HugeCTR datasets decoded by tessera-data's cursor sets into numpy
//!   batches, with the GIL released while workers decode.

mod data;
mod errors;
mod interpreter;
mod owned;
mod resolver;

use pyo3::prelude::*;

/// The compiled part of the `tessera` package.
#[pymodule]
fn _tessera(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<interpreter::PyInterpreter>()?;
    m.add_class::<data::Reader>()?;
    m.add_function(wrap_pyfunction!(data::_cursor_set_pass, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
