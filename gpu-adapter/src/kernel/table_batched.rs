//! The table-batched embedding-bag kernels (`kernels/table_batched.cu`, compiled by NVRTC
//! appended to `embedding_bag.cu`), launched once per batch over a [`DeviceTableSet`].

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use tessera_core::data::{Key, OutOfRange, PoolConfig, PoolError, Pooling};
use tessera_core::memory::Memory;
use tessera_core::tensor::Element;

use super::compile::{TABLE_BATCHED_KERNELS, compile_table_batched_ptx};
use super::launch::{LaunchPlan, WARP};
use super::output::PooledOutput;
use super::table_set::DeviceTableSet;
use crate::context::Gpu;
use crate::error::{GpuError, driver};
use crate::ffi;
use crate::memory::DeviceMemory;
use crate::upload::DeviceBatch;

/// Which table-batched kernel a launch runs: both give the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TbeKernel {
    /// A group of lanes per CSR row, sized to the widest table
    /// ([`TableSetLayout::lanes_per_row`](super::TableSetLayout::lanes_per_row)), four
    /// values a lane where a table's width is a multiple of 4, the rows of several keys
    /// loaded before any is added. The default.
    #[default]
    Grouped,
    /// The first kernel: a warp per CSR row, a value a lane, one key at a time. Kept to
    /// compare with (the `table_batched` bench times both).
    WarpPerRow,
}

/// The compiled table-batched kernels, loaded into a context.
#[derive(Debug)]
pub struct TableBatchedBag {
    gpu: Gpu,
    _module: Arc<CudaModule>,
    /// [`TABLE_BATCHED_KERNELS`]' order: `u32`, then `i64` keys, of [`TbeKernel::Grouped`]
    /// then of [`TbeKernel::WarpPerRow`].
    pool: [CudaFunction; 4],
}

impl TableBatchedBag {
    /// Compiles the kernels with NVRTC ([`compile_table_batched_ptx`]) and loads them on
    /// `gpu`. No PTX of them is shipped yet: without NVRTC this is
    /// [`NoNvrtc`](GpuError::NoNvrtc).
    ///
    /// Errors: [`NoNvrtc`](GpuError::NoNvrtc), [`Compile`](GpuError::Compile),
    /// [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu) -> Result<Self, GpuError> {
        let ptx = Ptx::from_src(compile_table_batched_ptx()?);
        gpu.bind()?;
        let module = driver("cuModuleLoadData", gpu.context().load_module(ptx))?;
        let load = |name| driver("cuModuleGetFunction", module.load_function(name));
        Ok(Self {
            gpu: gpu.clone(),
            pool: [
                load(TABLE_BATCHED_KERNELS[0])?,
                load(TABLE_BATCHED_KERNELS[1])?,
                load(TABLE_BATCHED_KERNELS[2])?,
                load(TABLE_BATCHED_KERNELS[3])?,
            ],
            _module: module,
        })
    }

    /// Enqueues pooling every CSR row of `batch` (row `sample * slots + slot`) over its
    /// slot's table of `set` into `out` (`samples x sample_width` floats, the slots side by
    /// side), each key weighted by `weights` (one `f32` per key of the batch, in CSR order)
    /// where given; returns at once. [`PooledOutput::wait`] then gives the samples pooled:
    /// bit-equal to `tessera-core`'s `TableSet::pool` on the same batch, or the same
    /// [`PoolError::KeyOutOfRange`] (rows holding a bad key are zeros, the others pooled).
    ///
    /// Keys are checked by the kernel;
    /// [`TableSetLayout::check_batch`](super::TableSetLayout::check_batch) checks them on the
    /// host, before the upload, for callers that want a bad batch refused before it reaches
    /// the device. One kernel launch and one event; allocates nothing.
    ///
    /// Errors: [`OtherStream`](GpuError::OtherStream), [`Pool`](GpuError::Pool) with
    /// [`RowsNotSamples`](PoolError::RowsNotSamples) or
    /// [`OutputShape`](PoolError::OutputShape) (`out`'s width is not the set's sample
    /// width), [`Capacity`](GpuError::Capacity) (`out` holds fewer samples, or `weights`
    /// fewer floats than the batch has keys), [`Launch`](GpuError::Launch),
    /// [`Driver`](GpuError::Driver).
    pub fn launch<K: Key + Element>(
        &self,
        batch: &DeviceBatch<'_, K>,
        set: &DeviceTableSet,
        weights: Option<&DeviceMemory>,
        out: &mut PooledOutput,
        config: PoolConfig,
    ) -> Result<(), GpuError> {
        self.launch_with(TbeKernel::default(), batch, set, weights, out, config)
    }

    /// [`launch`](Self::launch) with the kernel `kernel` (same bits, same errors).
    ///
    /// Errors: as [`launch`](Self::launch).
    pub fn launch_with<K: Key + Element>(
        &self,
        kernel: TbeKernel,
        batch: &DeviceBatch<'_, K>,
        set: &DeviceTableSet,
        weights: Option<&DeviceMemory>,
        out: &mut PooledOutput,
        config: PoolConfig,
    ) -> Result<(), GpuError> {
        let ours = self.gpu.stream();
        for (what, other) in [
            ("batch", Some(batch.gpu())),
            ("table set", Some(set.gpu())),
            ("output", out.gpu()),
            (
                "weights",
                weights.map_or(Some(&self.gpu), |w| Some(w.gpu())),
            ),
        ] {
            if !other.is_some_and(|g| Arc::ptr_eq(g.stream(), ours)) {
                return Err(GpuError::OtherStream { what });
            }
        }
        let layout = set.layout();
        let slots = layout.slots();
        if batch.rows % slots != 0 {
            return Err(PoolError::RowsNotSamples {
                rows: batch.rows,
                slots,
            }
            .into());
        }
        let samples = batch.rows / slots;
        if out.dim() != layout.sample_width() {
            return Err(PoolError::OutputShape {
                expected: [samples, layout.sample_width()],
                found: [out.max_rows(), out.dim()],
            }
            .into());
        }
        if samples > out.max_rows() {
            return Err(GpuError::Capacity {
                what: "pooled output (samples)",
                needed: samples,
                available: out.max_rows(),
            });
        }
        if let Some(w) = weights {
            let needed = batch
                .nnz
                .checked_mul(4)
                .ok_or(GpuError::TooLarge { what: "weights" })?;
            if w.len() < needed {
                return Err(GpuError::Capacity {
                    what: "weights (bytes)",
                    needed,
                    available: w.len(),
                });
            }
        }
        let wide = K::WIDTH == 8;
        let state_at = out.arena.address(&out.state)? as u64;
        let out_at = out.device_ptr()?;
        let (lanes, first) = match kernel {
            TbeKernel::Grouped => (layout.lanes_per_row(), 0),
            TbeKernel::WarpPerRow => (WARP, 2),
        };
        let plan = LaunchPlan::table_batched(batch.rows, lanes)?;
        out.clear_record()?;
        self.gpu.bind()?;
        if let Some(plan) = plan {
            let (mut offsets, mut keys) = (batch.row_offsets, batch.values);
            let (mut rows, mut nnz) = (batch.rows as u64, batch.nnz as u64);
            let mut weights_at = weights.map_or(0, DeviceMemory::device_ptr);
            let mut arena = set.device_ptr();
            let mut tables = arena + layout.table_words_at() as u64;
            let mut slot_words = arena + layout.slot_words_at() as u64;
            let (mut slot_count, mut sample_width) = (slots as u64, layout.sample_width() as u64);
            let mut out_at = out_at;
            let mut mean = i32::from(config.pooling == Pooling::Mean);
            let mut modulo = i32::from(config.out_of_range == OutOfRange::Modulo);
            let (mut state, mut record) = (state_at, out.record_at);
            let mut params: [*mut c_void; 15] = [
                (&raw mut offsets).cast(),
                (&raw mut keys).cast(),
                (&raw mut rows).cast(),
                (&raw mut nnz).cast(),
                (&raw mut weights_at).cast(),
                (&raw mut arena).cast(),
                (&raw mut tables).cast(),
                (&raw mut slot_words).cast(),
                (&raw mut slot_count).cast(),
                (&raw mut sample_width).cast(),
                (&raw mut out_at).cast(),
                (&raw mut mean).cast(),
                (&raw mut modulo).cast(),
                (&raw mut state).cast(),
                (&raw mut record).cast(),
            ];
            // SAFETY: the parameters match the kernel's signature in order and type (device
            // addresses and sizes as u64, flags as int); the batch holds `rows + 1` offsets and
            // `nnz` keys of `K` (the uploader sized and filled them; the borrow keeps them from
            // being overwritten); `weights`, where given, at least `nnz` floats (checked
            // above); the set's allocation holds every table at its descriptor's offset and
            // the descriptors themselves (`TableSetLayout::plan` placed them, `new` wrote
            // them, every slot names a table), and the kernel reads only rows below a table's
            // row count; the output holds `max_rows >= samples` rows of `sample_width`
            // floats; state and record as for the single-table kernel (`RECORD_WORDS` words,
            // the host untouched until `out.wait`). All stay alive until then or until a drop
            // synchronises the stream.
            unsafe {
                ffi::launch(
                    self.pool[first + usize::from(wide)].cu_function(),
                    plan.grid,
                    plan.block,
                    self.gpu.cu_stream(),
                    &mut params,
                )
            }?;
        }
        driver("cuEventRecord", out.done.record(self.gpu.stream()))?;
        out.set_pending(samples, None, wide);
        Ok(())
    }
}
