//! Compiling `kernels/embedding_bag.cu` with NVRTC, opened at run time. NVRTC needs no GPU
//! and no driver, so this also runs (and is tested) on machines that only have the library.
//! Where there is no NVRTC (a deployment with only the driver), the PTX shipped with the
//! crate is loaded instead: `kernels/make_ptx.py` made it from the same source with the same
//! options, and records the source's hash in its first line, which a test checks.

use cudarc::nvrtc::{CompileError, CompileOptions, compile_ptx_with_opts};

use crate::error::GpuError;
use crate::ffi;

/// The CUDA C source of the kernels.
pub const SOURCE: &str = include_str!("../../kernels/embedding_bag.cu");
/// [`SOURCE`] compiled by `kernels/make_ptx.py` (NVRTC 12.0: PTX ISA 8.0 for compute_52,
/// which every driver since CUDA 12.0 compiles for its GPU), for machines without NVRTC.
pub const SHIPPED_PTX: &str = include_str!("../../kernels/embedding_bag.ptx");

/// Whether [`SHIPPED_PTX`] was made from this [`SOURCE`]: its first line holds the
/// source's FNV-1a hash (CI fails otherwise; `kernels/make_ptx.py` remakes it).
pub fn shipped_ptx_is_current() -> bool {
    let expected = format!("fnv1a64 {:016x},", fnv1a64(SOURCE.as_bytes()));
    SHIPPED_PTX
        .lines()
        .next()
        .is_some_and(|line| line.contains(&expected))
}

/// FNV-1a, 64 bits (`make_ptx.py` computes the same).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// The source's file name, for errors.
pub(crate) const SOURCE_NAME: &str = "embedding_bag.cu";
/// The kernels' names in [`SOURCE`]: a float per thread for `u32`, then `i64` keys; then
/// four floats per thread (16-byte accesses, for widths that are multiples of 4), `u32`, then
/// `i64`.
pub const KERNELS: [&str; 4] = [
    "embedding_bag_u32",
    "embedding_bag_i64",
    "embedding_bag_u32_x4",
    "embedding_bag_i64_x4",
];

/// NVRTC options: no FMA contraction, IEEE division and no flush-to-zero, so the kernel's
/// f32 operations are those of the CPU reference. No target architecture is named: NVRTC's
/// default virtual one, which the driver JIT-compiles for the device at load time.
fn options() -> CompileOptions {
    CompileOptions {
        ftz: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        fmad: Some(false),
        name: Some(SOURCE_NAME.to_owned()),
        ..CompileOptions::default()
    }
}

/// The table-batched kernels' source, compiled appended to [`SOURCE`] (it uses its key
/// resolution and error record).
pub const TABLE_BATCHED_SOURCE: &str = include_str!("../../kernels/table_batched.cu");

/// The table-batched kernels' names in [`TABLE_BATCHED_SOURCE`]: `u32`, then `i64` keys,
/// of [`TbeKernel::Grouped`](super::TbeKernel::Grouped), then of
/// [`TbeKernel::WarpPerRow`](super::TbeKernel::WarpPerRow).
pub const TABLE_BATCHED_KERNELS: [&str; 4] = [
    "table_batched_u32",
    "table_batched_i64",
    "table_batched_scalar_u32",
    "table_batched_scalar_i64",
];

/// The table-batched program's name, for errors.
pub(crate) const TABLE_BATCHED_NAME: &str = "table_batched.cu";

/// [`SOURCE`] compiled to PTX text.
///
/// Errors: [`NoNvrtc`](GpuError::NoNvrtc) (no library, or one lacking a symbol),
/// [`Compile`](GpuError::Compile) with NVRTC's log.
pub fn compile_ptx() -> Result<String, GpuError> {
    compile(SOURCE.to_owned(), SOURCE_NAME)
}

/// [`SOURCE`] followed by [`TABLE_BATCHED_SOURCE`], compiled to PTX text with the same
/// options (no FMA contraction, IEEE rounding): the [`TABLE_BATCHED_KERNELS`] and the
/// single-table ones. No PTX of it is shipped yet, so the table-batched kernels need NVRTC.
///
/// Errors: as [`compile_ptx`].
pub fn compile_table_batched_ptx() -> Result<String, GpuError> {
    compile(
        format!("{SOURCE}\n{TABLE_BATCHED_SOURCE}"),
        TABLE_BATCHED_NAME,
    )
}

fn compile(source: String, name: &'static str) -> Result<String, GpuError> {
    if !ffi::nvrtc_library_present() {
        return Err(GpuError::NoNvrtc {
            reason: "the NVRTC library (libnvrtc.so, libnvrtc.so.12) could not be opened; \
                     CUDA 13 names it libnvrtc.so.13, with libnvrtc.so in the toolkit's lib64: \
                     put that folder on LD_LIBRARY_PATH"
                .to_owned(),
        });
    }
    let mut opts = options();
    opts.name = Some(name.to_owned());
    ffi::guarded(|| {
        compile_ptx_with_opts(source, opts)
            .map(|ptx| ptx.to_src())
            .map_err(|e| GpuError::Compile {
                source: name,
                log: match e {
                    CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
                    other => format!("{other:?}"),
                },
            })
    })
    .map_err(|e| match e {
        GpuError::NoDriver { reason } => GpuError::NoNvrtc { reason },
        other => other,
    })
}
