//! The embedding-bag kernels: `kernels/embedding_bag.cu`, compiled at run time by NVRTC
//! (opened dynamically), launched on the [`Gpu`]'s stream over a [`DeviceBatch`].

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use tessera_core::data::{Key, OutOfRange, PoolConfig, PoolError, Pooling};
use tessera_core::tensor::Element;

use super::compile::{KERNELS, SHIPPED_PTX, compile_ptx};
use super::launch::LaunchPlan;
use super::output::PooledOutput;
use super::table::DeviceTable;
use crate::context::Gpu;
use crate::error::{GpuError, driver};
use crate::ffi;
use crate::upload::DeviceBatch;

/// The compiled kernels, loaded into a context.
#[derive(Debug)]
pub struct EmbeddingBag {
    gpu: Gpu,
    _module: Arc<CudaModule>,
    /// [`KERNELS`]' order: by key width, then four floats per thread.
    pool: [CudaFunction; 4],
}

impl EmbeddingBag {
    /// Compiles [`SOURCE`](super::SOURCE) with NVRTC ([`compile_ptx`]) and loads it on `gpu`;
    /// where NVRTC cannot be opened, loads the PTX shipped with the crate
    /// ([`shipped`](Self::shipped)) instead.
    ///
    /// Errors: [`Compile`](GpuError::Compile), [`Driver`](GpuError::Driver).
    pub fn new(gpu: &Gpu) -> Result<Self, GpuError> {
        match compile_ptx() {
            Ok(ptx) => Self::load(gpu, ptx),
            Err(GpuError::NoNvrtc { .. }) => Self::shipped(gpu),
            Err(e) => Err(e),
        }
    }

    /// Loads [`SHIPPED_PTX`] on `gpu`: no NVRTC needed, only the driver.
    ///
    /// Errors: [`Driver`](GpuError::Driver).
    pub fn shipped(gpu: &Gpu) -> Result<Self, GpuError> {
        Self::load(gpu, SHIPPED_PTX.to_owned())
    }

    fn load(gpu: &Gpu, ptx: String) -> Result<Self, GpuError> {
        let ptx = Ptx::from_src(ptx);
        gpu.bind()?;
        let module = driver("cuModuleLoadData", gpu.context().load_module(ptx))?;
        let load = |name| driver("cuModuleGetFunction", module.load_function(name));
        Ok(Self {
            gpu: gpu.clone(),
            pool: [
                load(KERNELS[0])?,
                load(KERNELS[1])?,
                load(KERNELS[2])?,
                load(KERNELS[3])?,
            ],
            _module: module,
        })
    }

    /// Enqueues pooling every row of `batch` over `table` into `out` (sum or mean, out-of-range
    /// keys an error or reduced modulo the table, as `config` says); returns at once.
    /// [`PooledOutput::wait`] then gives the result: bit-equal to `tessera-core`'s
    /// `embedding_bag` on the same batch, or the same [`PoolError::KeyOutOfRange`].
    ///
    /// `batch` must come from an uploader on the same [`Gpu`] (same stream), so the kernel
    /// runs after its copy. One kernel launch and one event: the kernel reports a bad key
    /// into `out`'s pinned record itself. If the previous launch into `out` was not waited
    /// for, this waits for it first and drops its result. Allocates nothing.
    ///
    /// Errors: [`OtherStream`](GpuError::OtherStream) if `batch`, `table` or `out` was made
    /// with another [`Gpu`] handle than the kernels (clones of one handle share its stream),
    /// [`Pool`](GpuError::Pool) with [`PoolError::OutputShape`] if `out`'s width is
    /// not the table's, [`Capacity`](GpuError::Capacity) if `out` holds fewer rows,
    /// [`Launch`](GpuError::Launch), [`Driver`](GpuError::Driver).
    pub fn launch<K: Key + Element>(
        &self,
        batch: &DeviceBatch<'_, K>,
        table: &DeviceTable,
        out: &mut PooledOutput,
        config: PoolConfig,
    ) -> Result<(), GpuError> {
        let ours = self.gpu.stream();
        for (what, other) in [
            ("batch", Some(batch.gpu())),
            ("table", Some(table.gpu())),
            ("output", out.gpu()),
        ] {
            if !other.is_some_and(|g| Arc::ptr_eq(g.stream(), ours)) {
                return Err(GpuError::OtherStream { what });
            }
        }
        if out.dim() != table.dim() {
            return Err(GpuError::Pool(PoolError::OutputShape {
                expected: [batch.rows, table.dim()],
                found: [out.max_rows(), out.dim()],
            }));
        }
        if batch.rows > out.max_rows() {
            return Err(GpuError::Capacity {
                what: "pooled output (rows)",
                needed: batch.rows,
                available: out.max_rows(),
            });
        }
        let wide = K::WIDTH == 8;
        let state_at = out.arena.address(&out.state)? as u64;
        let out_at = out.device_ptr()?;
        // Four floats per thread where every row of the table and the output starts on a
        // 16-byte boundary: a width that is a multiple of 4, and 16-byte aligned bases (device
        // allocations are 256-byte aligned, the output arena's buffers 32).
        let dim = table.dim();
        let x4 = dim % 4 == 0 && table.device_ptr() % 16 == 0 && out_at % 16 == 0;
        let lanes = if x4 { dim / 4 } else { dim };
        let plan = LaunchPlan::embedding_bag(batch.rows, lanes)?;
        out.clear_record()?;
        self.gpu.bind()?;
        if let Some(plan) = plan {
            let (mut offsets, mut keys) = (batch.row_offsets, batch.values);
            let (mut rows, mut nnz) = (batch.rows as u64, batch.nnz as u64);
            let (mut table_at, mut vocab, mut dim) =
                (table.device_ptr(), table.vocab() as u64, table.dim() as u64);
            let mut out_at = out_at;
            let mut mean = i32::from(config.pooling == Pooling::Mean);
            let mut modulo = i32::from(config.out_of_range == OutOfRange::Modulo);
            let (mut state, mut record) = (state_at, out.record_at);
            let mut params: [*mut c_void; 12] = [
                (&raw mut offsets).cast(),
                (&raw mut keys).cast(),
                (&raw mut rows).cast(),
                (&raw mut nnz).cast(),
                (&raw mut table_at).cast(),
                (&raw mut vocab).cast(),
                (&raw mut dim).cast(),
                (&raw mut out_at).cast(),
                (&raw mut mean).cast(),
                (&raw mut modulo).cast(),
                (&raw mut state).cast(),
                (&raw mut record).cast(),
            ];
            // SAFETY: the parameters match the kernel's signature in order and type
            // (pointers as u64 device addresses, sizes as u64, flags as int); the batch holds
            // `rows + 1` offsets and `nnz` keys of `K` (the uploader sized and filled them,
            // and the borrow keeps them from being overwritten), the table `vocab x dim`
            // floats (the kernel reads only rows below `vocab`), the output `max_rows >= rows`
            // rows of `dim`, the state `STATE_WORDS` u64s of the output's arena, the record
            // `RECORD_WORDS` u64s of the output's mapped pinned memory, which the host does
            // not touch until `out.wait` synchronises `done`; all stay alive until then or
            // until a drop synchronises the stream.
            unsafe {
                ffi::launch(
                    self.pool[usize::from(wide) + 2 * usize::from(x4)].cu_function(),
                    plan.grid,
                    plan.block,
                    self.gpu.cu_stream(),
                    &mut params,
                )
            }?;
        }
        driver("cuEventRecord", out.done.record(self.gpu.stream()))?;
        out.set_pending(batch.rows, Some(table.vocab()), wide);
        Ok(())
    }
}
