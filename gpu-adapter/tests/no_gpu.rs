//! What CI checks on machines with no GPU: context creation is a typed error, never a panic,
//! and the kernel source the crate compiles at run time is there, with the operations that
//! make it bit-equal to the CPU reference.

use tessera_gpu::kernel::{
    KERNELS, SHIPPED_PTX, SOURCE, TABLE_BATCHED_KERNELS, TABLE_BATCHED_SOURCE, compile_ptx,
    compile_table_batched_ptx, shipped_ptx_is_current,
};
use tessera_gpu::{Gpu, GpuError};

#[test]
fn context_creation_is_a_typed_error_without_a_driver() {
    match Gpu::first() {
        Ok(gpu) => println!("a CUDA device is present: {:?}", gpu.name()),
        Err(e @ GpuError::NoDriver { .. }) => {
            assert!(e.to_string().starts_with("no CUDA driver"), "{e}");
        }
        Err(e @ GpuError::NoDevice { .. }) => assert!(e.to_string().contains("no CUDA device")),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

#[test]
fn a_missing_device_ordinal_is_a_typed_error() {
    match Gpu::new(10_000) {
        Err(GpuError::NoDriver { .. }) => {}
        Err(GpuError::NoDevice { ordinal, count }) => {
            assert_eq!(ordinal, 10_000);
            assert!(count < 10_000);
        }
        other => panic!("unexpected: {other:?}"),
    }
}

#[test]
fn kernel_source_defines_every_kernel_in_the_reference_order() {
    for name in KERNELS {
        assert!(
            SOURCE.contains(&format!("ENTRY({name}, ")),
            "kernel {name} missing"
        );
    }
    // The operations that fix the rounding: one round-to-nearest add per key, the
    // reciprocal of n then one multiply, no fast math.
    for op in [
        "__fadd_rn(acc",
        "__fdiv_rn(1.0f, __ull2float_rn(n))",
        "__fmul_rn(acc",
    ] {
        assert!(SOURCE.contains(op), "{op} missing");
    }
    assert!(
        !SOURCE.contains("#include"),
        "NVRTC compiles it with no headers"
    );
}

/// NVRTC needs no GPU: where the library is installed (CI has none unless told where one is,
/// e.g. `pip install nvidia-cuda-nvrtc-cu12` and `LD_LIBRARY_PATH`), the kernels compile,
/// and the PTX holds every entry point and round-to-nearest adds with no FMA.
#[test]
fn kernel_source_compiles_with_nvrtc_where_installed() {
    match compile_ptx() {
        Ok(ptx) => {
            for name in KERNELS {
                assert!(
                    ptx.contains(&format!(".entry {name}(")),
                    "{name} missing from PTX"
                );
            }
            assert!(ptx.contains("add.rn.f32"), "round-to-nearest adds expected");
            assert!(
                !ptx.contains("fma.rn.f32"),
                "no fused multiply-add may appear"
            );
            println!("NVRTC compiled {} bytes of PTX", ptx.len());
        }
        Err(e @ GpuError::NoNvrtc { .. }) => println!("skipped: {e}"),
        Err(e) => panic!("{e}"),
    }
}

/// The PTX shipped for machines without NVRTC was made from this source, and holds every
/// entry point with round-to-nearest adds and no fused multiply-add.
#[test]
fn shipped_ptx_was_made_from_this_source() {
    assert!(
        shipped_ptx_is_current(),
        "kernels/embedding_bag.ptx is stale: remake it with kernels/make_ptx.py (its docstring \
         has the command)"
    );
    for name in KERNELS {
        assert!(
            SHIPPED_PTX.contains(&format!(".entry {name}(")),
            "{name} missing from the shipped PTX"
        );
    }
    assert!(SHIPPED_PTX.contains("add.rn.f32"));
    assert!(!SHIPPED_PTX.contains("fma.rn.f32"));
}

#[test]
fn table_batched_source_defines_its_kernels_with_the_reference_operations() {
    for name in TABLE_BATCHED_KERNELS {
        assert!(
            TABLE_BATCHED_SOURCE.contains(&format!("TBE_ENTRY({name}, ")),
            "kernel {name} missing"
        );
    }
    for op in [
        "acc = __fadd_rn(acc, t)",
        "__fmul_rn(__ldg(weights + i), t)",
        // The grouped kernel: the same operations, four columns a lane.
        "acc[e] = __fadd_rn(acc[e], t)",
        "t = __fmul_rn(w, t)",
        "__fadd_rn(__fmul_rn(__uint2float_rn((b >> (8 * c)) & 0xFFu), scale), bias)",
        "acc[e] = __fmul_rn(acc[e], r)",
        "__fadd_rn(__fmul_rn(__uint2float_rn(__ldg(row + j)), scale), bias)",
        "__fdiv_rn(1.0f, __ull2float_rn(n))",
        "#define TABLE_WORDS 5",
        "#define SLOT_WORDS 2",
    ] {
        assert!(TABLE_BATCHED_SOURCE.contains(op), "{op} missing");
    }
    assert_eq!(tessera_gpu::kernel::TABLE_WORDS, 5);
    assert_eq!(tessera_gpu::kernel::SLOT_WORDS, 2);
    assert!(!TABLE_BATCHED_SOURCE.contains("#include"));
}

/// As the single-table kernels: where NVRTC is installed, the table-batched program (that
/// source appended to embedding_bag.cu) compiles, with every entry point, round-to-nearest
/// adds and no fused multiply-add.
#[test]
fn table_batched_source_compiles_with_nvrtc_where_installed() {
    match compile_table_batched_ptx() {
        Ok(ptx) => {
            for name in TABLE_BATCHED_KERNELS.iter().chain(&KERNELS) {
                assert!(
                    ptx.contains(&format!(".entry {name}(")),
                    "{name} missing from PTX"
                );
            }
            assert!(ptx.contains("add.rn.f32"));
            assert!(ptx.contains("mul.rn.f32"));
            assert!(
                !ptx.contains("fma.rn.f32"),
                "no fused multiply-add may appear"
            );
            println!("NVRTC compiled {} bytes of table-batched PTX", ptx.len());
        }
        Err(e @ GpuError::NoNvrtc { .. }) => println!("skipped: {e}"),
        Err(e) => panic!("{e}"),
    }
}
