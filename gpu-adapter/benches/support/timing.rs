//! Timing GPU work as `torch_embedding_bag.py` times PyTorch, so the two columns compare:
//! CUDA events around each call's enqueued work (device time), and a wall clock around the
//! whole call and its wait (what a caller waits), each the median of [`RUNS`] calls after
//! [`WARM_UP`].

#![allow(dead_code)] // each bench uses what it needs

use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use tessera_gpu::Gpu;

/// Calls before timing.
pub const WARM_UP: usize = 10;
/// Timed calls (the median is reported).
pub const RUNS: usize = 50;

/// Medians of one case, in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Between events recorded before `enqueue` and after it (before `finish`).
    pub device_ms: f64,
    /// From before `enqueue` to after `finish`.
    pub wall_ms: f64,
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `enqueue` (which enqueues work on `gpu`'s stream) followed by `finish` (which
/// waits for it).
pub fn time(gpu: &Gpu, mut enqueue: impl FnMut(), mut finish: impl FnMut()) -> Timing {
    let ctx = gpu.context();
    let start = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .unwrap();
    let end = ctx
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .unwrap();
    for _ in 0..WARM_UP {
        enqueue();
        finish();
    }
    let (mut device, mut wall) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
    for _ in 0..RUNS {
        let t = Instant::now();
        start.record(gpu.stream()).unwrap();
        enqueue();
        end.record(gpu.stream()).unwrap();
        finish();
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        device.push(f64::from(start.elapsed_ms(&end).unwrap()));
    }
    Timing {
        device_ms: median(device),
        wall_ms: median(wall),
    }
}

/// Whether the criterion benchmarks should be skipped (`TESSERA_GPU_TABLE_ONLY=1`): the
/// device-time table is what the PyTorch comparison needs, and a lent GPU's minutes are few.
pub fn table_only() -> bool {
    std::env::var_os("TESSERA_GPU_TABLE_ONLY").is_some_and(|v| v == "1")
}
