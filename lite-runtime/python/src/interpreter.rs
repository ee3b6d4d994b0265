//! `tessera._tessera.Interpreter`: LiteRT's Python `Interpreter` over tessera's interpreter
//! (`tessera.Interpreter` adds the signature runner and `tensor()`'s callable in Python).
//!
//! Every tensor access checks the index, dtype and shape before it touches memory and raises
//! a `TensorError` otherwise; a closed or not yet allocated interpreter raises `StateError`.

use std::path::PathBuf;

use numpy::ndarray::{ArrayViewD, ArrayViewMutD, IxDyn};
use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyTuple};
use tessera_lite::interpreter::{Interpreter, OpTimes, Options};
use tessera_lite::model::{Model, TensorType};

use crate::errors::{Class, Detail, interpreter_error, owned_error, raise};
use crate::owned::Owned;
use crate::resolver::{PACKS, Packs};

/// Runs `$body` with `$T` the Rust element type of tensor type `$ty`, or `$other` for a type
/// with none (STRING, FLOAT16, ...).
macro_rules! with_element {
    ($ty:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $ty {
            TensorType::Float32 => {
                type $T = f32;
                $body
            }
            TensorType::Float64 => {
                type $T = f64;
                $body
            }
            TensorType::Int8 => {
                type $T = i8;
                $body
            }
            TensorType::Int16 => {
                type $T = i16;
                $body
            }
            TensorType::Int32 => {
                type $T = i32;
                $body
            }
            TensorType::Int64 => {
                type $T = i64;
                $body
            }
            TensorType::Uint8 => {
                type $T = u8;
                $body
            }
            TensorType::Uint16 => {
                type $T = u16;
                $body
            }
            TensorType::Uint32 => {
                type $T = u32;
                $body
            }
            TensorType::Uint64 => {
                type $T = u64;
                $body
            }
            TensorType::Bool => {
                type $T = bool;
                $body
            }
            _ => $other,
        }
    };
}

/// numpy's name of the dtype of `ty`'s elements (LiteRT's `dtype` key is its scalar type).
fn numpy_name(ty: TensorType) -> &'static str {
    match ty {
        TensorType::Float32 => "float32",
        TensorType::Float16 => "float16",
        TensorType::Float64 => "float64",
        TensorType::Int8 => "int8",
        TensorType::Int16 => "int16",
        TensorType::Int32 => "int32",
        TensorType::Int64 => "int64",
        TensorType::Uint8 => "uint8",
        TensorType::Uint16 => "uint16",
        TensorType::Uint32 => "uint32",
        TensorType::Uint64 => "uint64",
        TensorType::Bool => "bool_",
        TensorType::String => "bytes_",
        TensorType::Complex64 => "complex64",
        TensorType::Complex128 => "complex128",
        _ => "void",
    }
}

fn state(message: &str) -> PyErr {
    raise(Class::State, message, &[])
}

fn tensor_error(message: String, tensor: usize) -> PyErr {
    raise(
        Class::Tensor,
        message,
        &[("tensor", Some(Detail::Int(tensor as i128)))],
    )
}

/// A tensor index no tensor can have (negative): the error names the index it was given.
fn bad_index(index: i64) -> PyErr {
    raise(
        Class::Tensor,
        format!("no tensor {index}"),
        &[("tensor", Some(Detail::Int(index.into())))],
    )
}

/// Tensors by name: `(name, tensor index)` pairs, in a signature's order.
type Named = Vec<(String, usize)>;

/// A model in tessera's interpreter, with the methods of LiteRT's `Interpreter`.
///
/// `model_path` or `model_content` (bytes) gives the model, checked in full when it is
/// loaded. `num_threads` threads run the large kernels (convolutions, FULLY_CONNECTED), the
/// calling one included, as LiteRT's `num_threads`: 1 by default, `None` or -1 also 1, at most
/// 64; results are identical for any number. `custom_ops` names the custom-operator packs the model may
/// use (`"signal"`, `"circular-buffer"`, `"detection"`, `"mediapipe"`; default every one).
/// `string_bytes` is the arena's budget per string tensor that is not a constant;
/// `memory_budget` the most bytes the model's copy and its arena may each take (4 GiB by
/// default: a size from a hostile model is an error, never an allocation that aborts).
#[pyclass(subclass, module = "tessera._tessera", name = "Interpreter")]
pub(crate) struct PyInterpreter {
    owned: Owned,
    options: Options,
    closed: bool,
    num_threads: i64,
}

impl PyInterpreter {
    fn open(&self) -> PyResult<&Owned> {
        match self.closed {
            true => Err(state("the interpreter is closed")),
            false => Ok(&self.owned),
        }
    }

    fn ready(&self) -> PyResult<&Interpreter<'static, 'static>> {
        self.open()?
            .get()
            .ok_or_else(|| state("tensors are not allocated: call allocate_tensors() first"))
    }

    fn ready_mut(&mut self) -> PyResult<&mut Interpreter<'static, 'static>> {
        if self.closed {
            return Err(state("the interpreter is closed"));
        }
        self.owned
            .get_mut()
            .ok_or_else(|| state("tensors are not allocated: call allocate_tensors() first"))
    }

    fn model(&self) -> PyResult<&Model<'_>> {
        Ok(self.open()?.model())
    }

    /// The run's subgraph of the model.
    fn graph(&self) -> PyResult<tessera_lite::model::Subgraph<'_>> {
        let i = self.options.subgraph;
        self.model()?
            .subgraph(i)
            .ok_or_else(|| raise(Class::Model, format!("the model has no subgraph {i}"), &[]))
    }

    /// Tensor `t`'s type, checked to be in the run's subgraph.
    fn tensor_type(&self, t: usize) -> PyResult<TensorType> {
        let graph = self.graph()?;
        graph.tensor(t).map(|x| x.tensor_type()).ok_or_else(|| {
            tensor_error(
                format!(
                    "tensor {t}: the subgraph has {} tensors",
                    graph.tensors().len()
                ),
                t,
            )
        })
    }

    /// Tensor `t`'s shape: as set up once allocated, else as the model declares it.
    fn shape(&self, t: usize) -> PyResult<Vec<usize>> {
        if let Some(it) = self.open()?.get() {
            return it
                .tensor_shape(t)
                .map(|s| s.dims().to_vec())
                .map_err(|e| interpreter_error(&e));
        }
        let graph = self.graph()?;
        let x = graph
            .tensor(t)
            .ok_or_else(|| tensor_error(format!("no tensor {t}"), t))?;
        Ok(x.shape().iter().map(|d| d.max(0) as usize).collect())
    }

    /// LiteRT's details of tensor `t` (`get_tensor_details`' dict).
    fn details<'py>(&self, py: Python<'py>, t: usize) -> PyResult<Bound<'py, PyDict>> {
        let graph = self.graph()?;
        let x = graph
            .tensor(t)
            .ok_or_else(|| tensor_error(format!("no tensor {t}"), t))?;
        let np = py.import("numpy")?;
        let d = PyDict::new(py);
        d.set_item("name", x.name())?;
        d.set_item("index", t)?;
        let shape: Vec<i32> = self.shape(t)?.iter().map(|&d| d as i32).collect();
        let signature: Vec<i32> = match x.shape_signature() {
            Some(s) => s.iter().collect(),
            None => shape.clone(),
        };
        d.set_item("shape", PyArray1::from_vec(py, shape))?;
        d.set_item("shape_signature", PyArray1::from_vec(py, signature))?;
        d.set_item("dtype", np.getattr(numpy_name(x.tensor_type()))?)?;
        let (scales, zero_points, dim) = match x.quantization() {
            Some(q) => (
                q.scale().iter().collect::<Vec<f32>>(),
                q.zero_point()
                    .iter()
                    .map(|z| z as i32)
                    .collect::<Vec<i32>>(),
                q.quantized_dimension(),
            ),
            None => (Vec::new(), Vec::new(), 0),
        };
        // LiteRT's legacy pair: the scale and zero point of a per-tensor quantization,
        // (0.0, 0) otherwise.
        let legacy = match (scales.as_slice(), zero_points.as_slice()) {
            ([s], [z]) => (f64::from(*s), *z),
            ([s], []) => (f64::from(*s), 0),
            _ => (0.0, 0),
        };
        d.set_item("quantization", legacy)?;
        let q = PyDict::new(py);
        q.set_item("scales", PyArray1::from_vec(py, scales))?;
        q.set_item("zero_points", PyArray1::from_vec(py, zero_points))?;
        q.set_item("quantized_dimension", dim)?;
        q.set_item("block_size", 0)?;
        d.set_item("quantization_parameters", q)?;
        d.set_item("sparsity_parameters", PyDict::new(py))?;
        Ok(d)
    }

    fn io_details<'py>(
        &self,
        py: Python<'py>,
        list: tessera_lite::model::TensorIndices<'_>,
    ) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for t in list.iter().flatten() {
            out.append(self.details(py, t)?)?;
        }
        Ok(out)
    }

    /// Copies `value` into tensor `t` (any writable tensor: inputs, variables).
    fn set_numeric<T>(&mut self, t: usize, value: &Bound<'_, PyAny>) -> PyResult<()>
    where
        T: numpy::Element + tessera_core::tensor::Element,
    {
        let shape = self.shape(t)?;
        let array = value.cast::<PyArrayDyn<T>>().map_err(|_| {
            tensor_error(
                format!("tensor {t}: got a value that is not an array of its dtype"),
                t,
            )
        })?;
        if array.shape() != shape.as_slice() {
            return Err(tensor_error(
                format!(
                    "tensor {t}: got shape {:?}, the tensor has shape {shape:?}",
                    array.shape()
                ),
                t,
            ));
        }
        let readonly = array
            .try_readonly()
            .map_err(|e| tensor_error(format!("tensor {t}: {e}"), t))?;
        let src = readonly.as_array();
        // The value may be a `tensor()` view of this very tensor (or overlap it): then it is
        // copied out first, so that no `&mut` to the tensor exists beside a borrow of the
        // value. Where the tensor's bytes are (a shared borrow, dropped at once):
        let at = {
            let it = self.ready()?;
            let view = it.tensor::<T>(t).map_err(|e| interpreter_error(&e))?;
            view.as_slice().map(|d| d.as_ptr_range())
        };
        let disjoint = match (src.as_slice(), &at) {
            (Some(s), Some(d)) => {
                let (s, d) = (s.as_ptr_range(), d);
                s.end <= d.start || d.end <= s.start
            }
            // Strided: its extent is not one range; copy it out.
            _ => false,
        };
        let n = src.len();
        if disjoint {
            return self.with_tensor_mut::<T>(t, n, |dst| match src.as_slice() {
                Some(s) => dst.copy_from_slice(s),
                // Not C-contiguous (a transposed or strided view): in logical order.
                None => dst.iter_mut().zip(src.iter()).for_each(|(d, s)| *d = *s),
            });
        }
        let copied: Vec<T> = src.iter().copied().collect();
        // No borrow of the value outlives this: the tensor's `&mut` is then the only one.
        drop(readonly);
        self.with_tensor_mut::<T>(t, n, |dst| dst.copy_from_slice(&copied))?;
        Ok(())
    }

    /// Calls `write` with tensor `t`'s elements to write, checked to be `n`.
    fn with_tensor_mut<T>(
        &mut self,
        t: usize,
        n: usize,
        write: impl FnOnce(&mut [T]),
    ) -> PyResult<()>
    where
        T: tessera_core::tensor::Element,
    {
        let it = self.ready_mut()?;
        let mut view = it.tensor_mut::<T>(t).map_err(|e| interpreter_error(&e))?;
        let dst = view
            .as_slice_mut()
            .ok_or_else(|| tensor_error(format!("tensor {t} is not contiguous"), t))?;
        if dst.len() != n {
            return Err(tensor_error(
                format!("tensor {t}: {} elements, the value {n}", dst.len()),
                t,
            ));
        }
        write(dst);
        Ok(())
    }

    /// Copies the bytes of `value` (already checked to have the tensor's dtype) into graph
    /// input `t`, for types with no Rust element (FLOAT16): by bytes, shape checked.
    fn set_raw(&mut self, t: usize, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let shape = self.shape(t)?;
        let a = value.cast::<PyUntypedArray>()?;
        if a.shape() != shape.as_slice() {
            return Err(tensor_error(
                format!(
                    "tensor {t}: got shape {:?}, the tensor has shape {shape:?}",
                    a.shape()
                ),
                t,
            ));
        }
        let Some(i) = self.graph()?.inputs().iter().position(|x| x == Some(t)) else {
            return Err(tensor_error(
                format!("tensor {t}: only graph inputs of this type can be set"),
                t,
            ));
        };
        let np = value.py().import("numpy")?;
        let bytes = np
            .call_method1("ascontiguousarray", (value,))?
            .call_method0("tobytes")?;
        let bytes = bytes.cast::<PyBytes>()?.as_bytes();
        let it = self.ready_mut()?;
        let dst = it.input_bytes_mut(i).map_err(|e| interpreter_error(&e))?;
        if dst.len() != bytes.len() {
            return Err(tensor_error(
                format!("tensor {t}: {} bytes, the value {}", dst.len(), bytes.len()),
                t,
            ));
        }
        dst.copy_from_slice(bytes);
        Ok(())
    }

    /// Graph input or output `t`'s bytes as an array of its numpy dtype, for types with no
    /// Rust element (FLOAT16).
    fn get_raw<'py>(
        &mut self,
        py: Python<'py>,
        t: usize,
        ty: TensorType,
        shape: Vec<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let graph = self.graph()?;
        let output = graph.outputs().iter().position(|x| x == Some(t));
        let input = graph.inputs().iter().position(|x| x == Some(t));
        let it = self.ready_mut()?;
        let bytes: &[u8] = match (output, input) {
            (Some(j), _) => it.output_bytes(j).map_err(|e| interpreter_error(&e))?,
            (None, Some(i)) => it.input_bytes_mut(i).map_err(|e| interpreter_error(&e))?,
            (None, None) => {
                return Err(tensor_error(
                    format!(
                        "tensor {t}: tessera reads {} tensors only as graph inputs or outputs",
                        ty.name()
                    ),
                    t,
                ));
            }
        };
        let name = numpy_name(ty);
        if name == "void" {
            return Err(tensor_error(
                format!("tensor {t}: numpy has no {} type", ty.name()),
                t,
            ));
        }
        let np = py.import("numpy")?;
        let flat = np.call_method1("frombuffer", (PyBytes::new(py, bytes), name))?;
        flat.call_method1("reshape", (PyTuple::new(py, shape)?,))
    }

    fn set_strings(&mut self, t: usize, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let graph = self.graph()?;
        let Some(i) = graph.inputs().iter().position(|x| x == Some(t)) else {
            return Err(tensor_error(
                format!("tensor {t}: only string inputs can be set"),
                t,
            ));
        };
        let np = value.py().import("numpy")?;
        let flat = np.call_method1("ravel", (np.call_method1("asarray", (value,))?,))?;
        let mut strings: Vec<Vec<u8>> = Vec::new();
        for item in flat.try_iter()? {
            let item = item?;
            let bytes = if let Ok(b) = item.cast::<PyBytes>() {
                b.as_bytes().to_vec()
            } else if let Ok(s) = item.extract::<String>() {
                s.into_bytes()
            } else {
                return Err(tensor_error(
                    format!("tensor {t}: a string tensor takes bytes or str"),
                    t,
                ));
            };
            strings.push(bytes);
        }
        let it = self.ready_mut()?;
        it.set_input_strings(i, &strings)
            .map_err(|e| interpreter_error(&e))
    }
}

fn read_content(content: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = content.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = content.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    // A memoryview, a numpy array, ...: any object with the buffer protocol (not `bytes()`,
    // which would make `bytes(3)` of an int).
    let builtins = content.py().import("builtins")?;
    let view = builtins.getattr("memoryview")?.call1((content,))?;
    let bytes = view.call_method0("tobytes")?;
    Ok(bytes.cast::<PyBytes>()?.as_bytes().to_vec())
}

#[pymethods]
impl PyInterpreter {
    #[new]
    #[pyo3(signature = (
        model_path=None, model_content=None, num_threads=None, *, custom_ops=None,
        string_bytes=1024, subgraph=0, memory_budget=1 << 32, experimental_op_resolver_type=None,
        experimental_delegates=None, experimental_preserve_all_tensors=false
    ))]
    #[allow(clippy::too_many_arguments)] // LiteRT's signature, plus tessera's options
    fn new(
        model_path: Option<PathBuf>,
        model_content: Option<&Bound<'_, PyAny>>,
        num_threads: Option<i64>,
        custom_ops: Option<Vec<String>>,
        string_bytes: usize,
        subgraph: usize,
        memory_budget: u64,
        experimental_op_resolver_type: Option<&Bound<'_, PyAny>>,
        experimental_delegates: Option<&Bound<'_, PyAny>>,
        experimental_preserve_all_tensors: bool,
    ) -> PyResult<Self> {
        // tessera's kernels equal LiteRT's reference kernels: there is no other resolver.
        let _ = experimental_op_resolver_type;
        if let Some(d) = experimental_delegates {
            if d.len().unwrap_or(1) > 0 {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "tessera has no delegates: experimental_delegates must be empty",
                ));
            }
        }
        if experimental_preserve_all_tensors {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "tessera plans tensors' lifetimes (intermediates share bytes): \
                 experimental_preserve_all_tensors is not supported",
            ));
        }
        let bytes = match (model_path, model_content) {
            (Some(path), None) => std::fs::read(&path).map_err(|e| {
                raise(
                    Class::Model,
                    format!("{}: {e}", path.display()),
                    &[("path", Some(Detail::Text(path.display().to_string())))],
                )
            })?,
            (None, Some(content)) => read_content(content)?,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "give exactly one of model_path and model_content",
                ));
            }
        };
        let packs = match &custom_ops {
            None => Packs::all(),
            Some(names) => Packs::named(names.iter().map(String::as_str)).map_err(|bad| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "custom_ops: no pack {bad:?} (there are {PACKS:?})"
                ))
            })?,
        };
        let budget = tessera_data::buffers::MemoryBudget::new(memory_budget);
        let owned = Owned::load(&bytes, packs, budget).map_err(|e| owned_error(&e))?;
        let threads = match num_threads {
            None | Some(-1) => 1,
            Some(n @ 1..=64) => n as usize,
            Some(n) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "num_threads: {n} (give 1 to 64, or -1 for the default, 1)"
                )));
            }
        };
        let options = Options {
            string_bytes,
            subgraph,
            threads,
            ..Options::default()
        };
        let this = Self {
            owned,
            options,
            closed: false,
            num_threads: num_threads.unwrap_or(1),
        };
        // A subgraph the model lacks is refused now rather than at set-up.
        this.graph()?;
        Ok(this)
    }

    /// The `num_threads` given.
    #[getter]
    fn num_threads(&self) -> i64 {
        self.num_threads
    }

    /// Sets the model up in its arena: plans every tensor, prepares every operator. Again
    /// after set-up, starts over (inputs zeroed, state reset).
    fn allocate_tensors(&mut self) -> PyResult<()> {
        if self.closed {
            return Err(state("the interpreter is closed"));
        }
        let options = self.options;
        self.owned.set_up(&options).map_err(|e| owned_error(&e))
    }

    /// Runs the model on the inputs set.
    fn invoke(&mut self) -> PyResult<()> {
        let it = self.ready_mut()?;
        it.invoke().map_err(|e| interpreter_error(&e))
    }

    /// The inputs' details (LiteRT's keys: `name`, `index`, `shape`, `shape_signature`,
    /// `dtype`, `quantization`, `quantization_parameters`, `sparsity_parameters`).
    fn get_input_details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let graph = self.graph()?;
        self.io_details(py, graph.inputs())
    }

    /// The outputs' details, as `get_input_details`.
    fn get_output_details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let graph = self.graph()?;
        self.io_details(py, graph.outputs())
    }

    /// Every tensor's details, as `get_input_details`.
    fn get_tensor_details<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let n = self.graph()?.tensors().len();
        let out = PyList::empty(py);
        for t in 0..n {
            out.append(self.details(py, t)?)?;
        }
        Ok(out)
    }

    /// Copies `value` (an array of the tensor's dtype and shape; strings: bytes or str) into
    /// tensor `tensor_index`.
    fn set_tensor(&mut self, tensor_index: i64, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = usize::try_from(tensor_index).map_err(|_| bad_index(tensor_index))?;
        let ty = self.tensor_type(t)?;
        self.ready()?;
        if ty == TensorType::String {
            return self.set_strings(t, value);
        }
        let expected = numpy_name(ty);
        if let Ok(a) = value.cast::<PyUntypedArray>() {
            let want = numpy::PyArrayDescr::new(value.py(), expected.trim_end_matches('_'))?;
            if !a.dtype().is_equiv_to(&want) {
                return Err(tensor_error(
                    format!(
                        "tensor {t}: got a value of dtype {}, the tensor holds {expected}",
                        a.dtype()
                    ),
                    t,
                ));
            }
        } else {
            return Err(tensor_error(
                format!("tensor {t}: the value must be a numpy array of {expected}"),
                t,
            ));
        }
        with_element!(ty, T => self.set_numeric::<T>(t, value), _ => self.set_raw(t, value))
    }

    /// A copy of tensor `tensor_index` (an output after `invoke`, an input, a constant).
    #[pyo3(signature = (tensor_index, subgraph_index=0))]
    fn get_tensor<'py>(
        &mut self,
        py: Python<'py>,
        tensor_index: i64,
        subgraph_index: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        if subgraph_index != 0 {
            return Err(raise(
                Class::Tensor,
                "tessera reads the tensors of the subgraph it runs (subgraph_index 0)",
                &[],
            ));
        }
        let t = usize::try_from(tensor_index).map_err(|_| bad_index(tensor_index))?;
        let ty = self.tensor_type(t)?;
        let it = self.ready()?;
        let shape = self.shape(t)?;
        if ty == TensorType::String {
            let strings = it.tensor_strings(t).map_err(|e| interpreter_error(&e))?;
            let items: Vec<Bound<'py, PyBytes>> =
                strings.iter().map(|s| PyBytes::new(py, s)).collect();
            let np = py.import("numpy")?;
            let array = np.call_method1("array", (PyList::new(py, items)?, "object"))?;
            return array.call_method1("reshape", (PyTuple::new(py, shape)?,));
        }
        with_element!(ty, T => {
            let view = it.tensor::<T>(t).map_err(|e| interpreter_error(&e))?;
            let data = view
                .as_slice()
                .ok_or_else(|| tensor_error(format!("tensor {t} is not contiguous"), t))?;
            let flat = PyArray1::<T>::from_slice(py, data);
            Ok(flat.reshape(shape)?.into_any())
        }, _ => self.get_raw(py, t, ty, shape))
    }

    /// A numpy array over tensor `tensor_index`'s bytes in the arena, not a copy (read-only
    /// for a constant). It sees every later write and invoke; it keeps the interpreter's
    /// memory alive, and after `allocate_tensors` again or `close` it reads stale bytes.
    fn tensor_view<'py>(slf: Bound<'py, Self>, tensor_index: i64) -> PyResult<Bound<'py, PyAny>> {
        let t = usize::try_from(tensor_index).map_err(|_| bad_index(tensor_index))?;
        let mut this = slf.borrow_mut();
        let ty = this.tensor_type(t)?;
        let shape = this.shape(t)?;
        let constant = this.graph()?.tensor(t).is_some_and(|x| x.is_constant());
        let it = this.ready_mut()?;
        with_element!(ty, T => {
            let array = if constant {
                let view = it.tensor::<T>(t).map_err(|e| interpreter_error(&e))?;
                let data = view
                    .as_slice()
                    .ok_or_else(|| tensor_error(format!("tensor {t} is not contiguous"), t))?;
                let nd = ArrayViewD::from_shape(IxDyn(&shape), data)
                    .map_err(|e| tensor_error(format!("tensor {t}: {e}"), t))?;
                // SAFETY: the data is the model's bytes, which `Owned` frees only when the
                // interpreter object (the array's base) is gone, and never moves.
                let array = unsafe { PyArrayDyn::<T>::borrow_from_array(&nd, slf.clone().into_any()) };
                array.getattr("flags")?.setattr("writeable", false)?;
                array
            } else {
                let mut view = it.tensor_mut::<T>(t).map_err(|e| interpreter_error(&e))?;
                let data = view
                    .as_slice_mut()
                    .ok_or_else(|| tensor_error(format!("tensor {t} is not contiguous"), t))?;
                let nd = ArrayViewMutD::from_shape(IxDyn(&shape), data)
                    .map_err(|e| tensor_error(format!("tensor {t}: {e}"), t))?;
                // SAFETY: the data is in the arena, which `Owned` frees only when the
                // interpreter object (the array's base) is gone, and never moves; the array
                // is written only from Python, with the GIL held, never during a call into
                // the interpreter (which holds the GIL throughout).
                unsafe { PyArrayDyn::<T>::borrow_from_array(&nd, slf.clone().into_any()) }
            };
            Ok(array.into_any())
        }, _ => Err(tensor_error(
            format!("tensor {t}: tessera has no view of {} tensors", ty.name()),
            t,
        )))
    }

    /// Runs the model `runs` times on the inputs set and returns a row per operator of the
    /// subgraph run: `{"index", "op", "inputs", "outputs", "ns"}` (`ns`: the operator's mean
    /// nanoseconds per invoke; `inputs` / `outputs`: its tensors' shapes), from
    /// `Interpreter::invoke_profiled`. The outputs are left as the last run made them.
    #[pyo3(signature = (runs=1))]
    fn profile<'py>(&mut self, py: Python<'py>, runs: usize) -> PyResult<Bound<'py, PyList>> {
        if runs == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "runs must be at least 1",
            ));
        }
        let it = self.ready_mut()?;
        let mut nanos = vec![0u64; it.operator_count()];
        for _ in 0..runs {
            it.invoke_profiled(&mut OpTimes::new(&mut nanos))
                .map_err(|e| interpreter_error(&e))?;
        }
        let it = self.ready()?;
        let graph = self.graph()?;
        let shapes = |list: tessera_lite::model::TensorIndices<'_>| -> Vec<Vec<usize>> {
            list.iter()
                .map(|t| {
                    t.and_then(|t| it.tensor_shape(t).ok())
                        .map(|s| s.dims().to_vec())
                        .unwrap_or_default()
                })
                .collect()
        };
        let rows = PyList::empty(py);
        for (j, ns) in nanos.iter().enumerate() {
            let row = PyDict::new(py);
            row.set_item("index", j)?;
            match graph.operators().get(j) {
                Some(op) => {
                    row.set_item("op", op.op().to_string())?;
                    row.set_item("inputs", shapes(op.inputs()))?;
                    row.set_item("outputs", shapes(op.outputs()))?;
                }
                None => row.set_item("op", "?")?,
            }
            row.set_item("ns", *ns as f64 / runs as f64)?;
            rows.append(row)?;
        }
        Ok(rows)
    }

    /// Every signature: `{key: {"inputs": [names], "outputs": [names]}}`.
    fn get_signature_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for sig in self.model()?.signature_defs().iter() {
            let d = PyDict::new(py);
            let inputs: Vec<&str> = sig.inputs().iter().map(|m| m.name()).collect();
            let outputs: Vec<&str> = sig.outputs().iter().map(|m| m.name()).collect();
            d.set_item("inputs", inputs)?;
            d.set_item("outputs", outputs)?;
            out.set_item(sig.key(), d)?;
        }
        Ok(out)
    }

    /// Signature `key`'s subgraph and its inputs and outputs as `(name, tensor index)` pairs
    /// (for `tessera.Interpreter.get_signature_runner`).
    fn _signature(&self, key: &str) -> PyResult<(usize, Named, Named)> {
        let sig = self.model()?.signature(key).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("the model has no signature {key:?}"))
        })?;
        let pairs = |l: tessera_lite::model::List<'_, tessera_lite::model::TensorMap<'_>>| {
            l.iter()
                .map(|m| (m.name().to_owned(), m.tensor_index()))
                .collect::<Vec<_>>()
        };
        Ok((
            sig.subgraph_index(),
            pairs(sig.inputs()),
            pairs(sig.outputs()),
        ))
    }

    /// Whether the tensors are allocated (`allocate_tensors` ran, `close` did not).
    #[getter]
    fn _allocated(&self) -> bool {
        !self.closed && self.owned.get().is_some()
    }

    /// The subgraph this interpreter runs.
    #[getter]
    fn _subgraph(&self) -> usize {
        self.options.subgraph
    }

    /// Variable tensors and kernels' state back to their initial values (LiteRT's
    /// `reset_all_variables`; tessera's `Interpreter::reset_state`).
    fn reset_all_variables(&mut self) -> PyResult<()> {
        let it = self.ready_mut()?;
        it.reset_state().map_err(|e| interpreter_error(&e))
    }

    /// Bytes of the arena: as set up, or, before `allocate_tensors`, what it will need.
    #[getter]
    fn arena_bytes(&self) -> PyResult<usize> {
        let owned = self.open()?;
        match owned.get() {
            Some(it) => Ok(it.arena_used_bytes()),
            None => owned
                .required(&self.options)
                .map_err(|e| interpreter_error(&e)),
        }
    }

    /// The model's seal, `(size, crc32)`: what `Model::load_sealed` recognises, and what a
    /// firmware build writes as `Seal::from_parts(size, crc32)`.
    #[getter]
    fn seal(&self) -> PyResult<(u64, u32)> {
        let seal = self.model()?.seal();
        Ok((seal.size(), seal.crc32()))
    }

    /// Ends the interpreter's use: later calls raise `StateError`. Its memory goes when the
    /// object and every `tensor()` view of it are gone.
    fn close(&mut self) {
        self.owned.close();
        self.closed = true;
    }

    /// Whether `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.closed
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, PyTuple>) {
        self.close();
    }

    fn __repr__(&self) -> String {
        match self.open().map(|o| o.get()) {
            Err(_) => "<tessera.Interpreter (closed)>".into(),
            Ok(None) => "<tessera.Interpreter (not allocated)>".into(),
            Ok(Some(it)) => format!("<tessera.{it:?}>"),
        }
    }
}
