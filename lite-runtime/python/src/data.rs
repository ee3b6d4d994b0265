//! stub
use pyo3::prelude::*;
/// x
#[pyclass]
pub(crate) struct Reader {}
