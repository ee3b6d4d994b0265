//! Table-batched pooling on the GPU with tables far beyond the L2 cache: 26 tables in
//! Criteo's proportions holding `TESSERA_TBE_GIB` GiB (default 1.5) of rows of each type
//! (f32, f16, int8 rowwise), widths 16 / 64 / 128, keys uniform and Zipf (s = 1.05, 1.2),
//! batches of 4 096 to 65 536 samples (1 to 4 keys a slot, the formulas of `support`).
//!
//! For each case it prints the device time (CUDA events, median of 50 after 10 warm-ups, as
//! `torch_embedding_bag.py` times PyTorch), the GB/s of table rows actually read (one row per
//! key) and their share of two peaks: HBM's theoretical bandwidth from the device's memory
//! clock and bus width, and a measured device-to-device copy (read + write bytes per second).
//! Rows are read bit-exactly as `tessera_core::data::TableSet::pool` defines.
//!
//! Both kernels are timed on each case ([`TbeKernel::Grouped`], the default, and
//! [`TbeKernel::WarpPerRow`]). With `TESSERA_TBE_DUMP=DIR` the f32 and f16 cases' batches are
//! written there (`torch_table_batched.py DIR` times PyTorch on the same keys and tables'
//! shapes); `TESSERA_TBE_BATCHES=4096,65536` picks the batch sizes.
//!
//! Needs an NVIDIA GPU and NVRTC: without them it prints why and exits 0.
//!
//! ```text
//! cargo bench -p tessera-gpu --bench table_batched
//! ```

mod support;
#[path = "support/tables.rs"]
mod tables;
#[path = "support/timing.rs"]
mod timing;

use cudarc::driver::sys::CUdevice_attribute;
use tessera_core::data::{CsrView, PoolConfig, Pooling, RowType, TableView};
use tessera_gpu::staging::BatchShape;
use tessera_gpu::{
    BatchUploader, DeviceTableSet, Gpu, GpuError, PooledOutput, TableBatchedBag, TbeKernel,
};

use tables::{Keys, Rng, criteo_rows, table_bytes};

/// HBM's theoretical peak in GB/s: memory clock (kHz) x 2 (double data rate) x bus bytes.
fn theoretical_peak(gpu: &Gpu) -> Option<f64> {
    let ctx = gpu.context();
    let clock = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)
        .ok()?;
    let bus = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)
        .ok()?;
    Some(f64::from(clock) * 1e3 * 2.0 * f64::from(bus) / 8.0 / 1e9)
}

/// A device-to-device copy of 2 GiB, in GB/s of bytes read and written.
fn measured_copy(gpu: &Gpu) -> Result<f64, Box<dyn std::error::Error>> {
    let n = 1usize << 29; // 2 GiB of f32
    let stream = gpu.stream();
    let src = stream.alloc_zeros::<f32>(n)?;
    let mut dst = stream.alloc_zeros::<f32>(n)?;
    let t = timing::time(
        gpu,
        || stream.memcpy_dtod(&src, &mut dst).unwrap(),
        || stream.synchronize().unwrap(),
    );
    Ok(2.0 * (n * 4) as f64 / t.device_ms / 1e6)
}

/// Keys of a batch of `samples` samples: row `r` has `1 + r % 4` keys drawn from `keys`
/// over its slot's table (of `rows[slot]` rows).
fn batch(rng: &mut Rng, samples: usize, rows: &[usize], keys: Keys) -> (Vec<u32>, Vec<u32>) {
    let slots = rows.len();
    let (mut offsets, mut values) = (vec![0u32], Vec::new());
    for r in 0..samples * slots {
        let vocab = rows[r % slots] as u64;
        for _ in 0..support::row_len(r) {
            values.push(rng.key(vocab, keys) as u32);
        }
        offsets.push(values.len() as u32);
    }
    (offsets, values)
}

/// Writes a case's batch for `torch_table_batched.py`: `NAME.json` (the tables' rows, each
/// slot's table, the width, the row type), `NAME.offsets` and `NAME.keys` (little-endian
/// `u32`s).
fn dump(
    dir: &std::path::Path,
    name: &str,
    set: &Set,
    offsets: &[u32],
    values: &[u32],
) -> std::io::Result<()> {
    let le = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let list = |v: &[usize]| {
        v.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    std::fs::write(dir.join(format!("{name}.offsets")), le(offsets))?;
    std::fs::write(dir.join(format!("{name}.keys")), le(values))?;
    std::fs::write(
        dir.join(format!("{name}.json")),
        format!(
            "{{\"rows\": [{}], \"slot_tables\": [{}], \"width\": {}, \"type\": \"{}\"}}\n",
            list(&set.rows),
            list(&set.slot_tables),
            set.width,
            set.ty
        ),
    )
}

/// One table set of the bench: its tables' row counts, each slot's table, the width and
/// row type of every table.
struct Set {
    name: &'static str,
    rows: Vec<usize>,
    slot_tables: Vec<usize>,
    width: usize,
    ty: RowType,
}

/// What every case shares: the kernels, the peaks, the options.
struct Bench<'a> {
    gpu: &'a Gpu,
    kernels: TableBatchedBag,
    peak: Option<f64>,
    copy: f64,
    dump_dir: Option<std::path::PathBuf>,
    batches: Vec<usize>,
}

impl Bench<'_> {
    /// Uploads `set` (tables of the bench's contents) and times both kernels on each key
    /// distribution of `keys` and each batch size.
    fn run_set(&self, set: &Set, keys: &[Keys]) -> Result<(), Box<dyn std::error::Error>> {
        let (gpu, width, ty) = (self.gpu, set.width, set.ty);
        let data: Vec<Vec<u8>> = set
            .rows
            .iter()
            .map(|&r| table_bytes(r, width, ty))
            .collect();
        let views: Vec<TableView<'_>> = data
            .iter()
            .map(|b| TableView::new(b, width, ty))
            .collect::<Result<_, _>>()?;
        let device_set = DeviceTableSet::new(gpu, &views, &set.slot_tables)?;
        drop(views);
        drop(data);
        let slots = set.slot_tables.len();
        let dims = tessera_core::data::Dims::new(1, 0, slots);
        let slot_rows: Vec<usize> = set.slot_tables.iter().map(|&t| set.rows[t]).collect();
        for &keys in keys {
            for &samples in &self.batches {
                let mut rng = Rng(0x7E55E7A ^ samples as u64);
                let (offsets, values) = batch(&mut rng, samples, &slot_rows, keys);
                let csr = CsrView::new(&offsets, &values)?;
                let read = device_set.layout().row_bytes_read(csr).unwrap_or(0);
                let case = format!(
                    "{} {ty} width {width} {} batch {samples}",
                    set.name,
                    keys.name()
                );
                if let (Some(d), RowType::F32 | RowType::F16) = (&self.dump_dir, ty) {
                    dump(d, &case.replace(' ', "_"), set, &offsets, &values)?;
                }
                let shape = BatchShape::new(dims, samples, values.len());
                let mut uploader = BatchUploader::<u32>::new(gpu, shape, 1)?;
                let device_batch = uploader
                    .upload_with(|b| {
                        let mut keys: Vec<&[u32]> = Vec::with_capacity(slots);
                        for s in 0..samples {
                            keys.clear();
                            for slot in 0..slots {
                                let r = s * slots + slot;
                                let (a, e) = (offsets[r] as usize, offsets[r + 1] as usize);
                                keys.push(&values[a..e]);
                            }
                            b.push_sample(&[0.0], &[], &keys)?;
                        }
                        Ok(true)
                    })?
                    .ok_or("empty batch")?;
                let mut out = PooledOutput::new(gpu, samples, device_set.layout().sample_width())?;
                let config = PoolConfig::new(Pooling::Sum);
                for (kernel, label) in [
                    (TbeKernel::Grouped, "tbe"),
                    (TbeKernel::WarpPerRow, "tbe-warp"),
                ] {
                    let t = {
                        let out = std::cell::RefCell::new(&mut out);
                        timing::time(
                            gpu,
                            || {
                                self.kernels
                                    .launch_with(
                                        kernel,
                                        &device_batch,
                                        &device_set,
                                        None,
                                        &mut out.borrow_mut(),
                                        config,
                                    )
                                    .unwrap()
                            },
                            || {
                                out.borrow_mut().wait().unwrap();
                            },
                        )
                    };
                    let gbs = read as f64 / t.device_ms / 1e6;
                    println!(
                        "tessera {label} {case}: device {:.4} ms, {:.0} M samples/s, rows read \
                         {gbs:.0} GB/s = {:.0}% of the copy{}",
                        t.device_ms,
                        samples as f64 / t.device_ms / 1e3,
                        100.0 * gbs / self.copy,
                        self.peak.map_or(String::new(), |p| format!(
                            ", {:.0}% of HBM",
                            100.0 * gbs / p
                        )),
                    );
                }
            }
        }
        Ok(())
    }
}

fn run(gpu: &Gpu) -> Result<(), Box<dyn std::error::Error>> {
    let kernels = match TableBatchedBag::new(gpu) {
        Ok(k) => k,
        Err(e @ GpuError::NoNvrtc { .. }) => {
            println!("table_batched bench skipped: {e}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let gib: f64 = std::env::var("TESSERA_TBE_GIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.5);
    let peak = theoretical_peak(gpu);
    let copy = measured_copy(gpu)?;
    println!(
        "{}: HBM theoretical {} GB/s, measured device-to-device copy {copy:.0} GB/s",
        gpu.name().unwrap_or_default(),
        peak.map_or("unknown".to_owned(), |p| format!("{p:.0}"))
    );
    let dump_dir = std::env::var_os("TESSERA_TBE_DUMP").map(std::path::PathBuf::from);
    if let Some(d) = &dump_dir {
        std::fs::create_dir_all(d)?;
    }
    let batches: Vec<usize> = std::env::var("TESSERA_TBE_BATCHES")
        .ok()
        .map(|v| v.split(',').filter_map(|b| b.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![4096, 16_384, 65_536]);
    let bench = Bench {
        gpu,
        kernels,
        peak,
        copy,
        dump_dir,
        batches,
    };
    // One table of 4 000 000 rows read by all 26 slots (the issue's single-table case).
    for width in [16usize, 64, 128] {
        let set = Set {
            name: "single",
            rows: vec![4_000_000],
            slot_tables: vec![0; 26],
            width,
            ty: RowType::F32,
        };
        bench.run_set(&set, &[Keys::Uniform])?;
    }
    for ty in [RowType::F32, RowType::F16, RowType::Int8Rowwise] {
        for width in [16usize, 64, 128] {
            let set = Set {
                name: "criteo",
                rows: criteo_rows((gib * (1u64 << 30) as f64) as u64, width, ty),
                slot_tables: (0..26).collect(),
                width,
                ty,
            };
            bench.run_set(&set, &Keys::ALL)?;
        }
    }
    Ok(())
}

fn main() {
    let gpu = match Gpu::first() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("table_batched bench skipped: no CUDA driver/device ({e})");
            return;
        }
    };
    if let Err(e) = run(&gpu) {
        eprintln!("table_batched bench failed: {e}");
        std::process::exit(1);
    }
}
