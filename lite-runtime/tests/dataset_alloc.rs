//! Reading a dataset through `DatasetPlan` allocates per file, never per row: a pass over
//! files four times as long allocates no more (serial), or only what the threads' first
//! waits cost (a 2-worker cursor set). Parquet is only measured (printed), not asserted:
//! the `parquet` crate allocates per file and per page, and the fixture has 50 rows.
//!
//! The counter is global (the workers run on their own threads), so this binary holds a
//! single test.

use std::path::{Path, PathBuf};
use std::thread;

use tessera_core::cursor::RowCursor;
use tessera_core::data::{BatchSource, Check, Dims, NormConfig, NormEncoder, SampleCursor};
use tessera_lite::cursor_set::{BatchBuffers, BufferPool, CursorSet, CursorSetConfig};
use tessera_lite::dataset::{DatasetPlan, IoMode, ParquetConfig};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

const DIMS: Dims = Dims::new(1, 2, 3);
const BATCH: usize = 64;
const VALUES: usize = BATCH * 3 * 3;

/// Two Norm files of `rows` rows each, 1..=3 keys per slot.
fn norm_files(rows: u32) -> Vec<PathBuf> {
    let config = NormConfig::new(DIMS, 3).with_check(Check::Sum);
    let enc = NormEncoder::<u32>::new(config);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dataset_alloc_{rows}"));
    std::fs::create_dir_all(&dir).unwrap();
    (0..2)
        .map(|f| {
            let mut out = vec![0u8; 64 + rows as usize * config.max_record_bytes(4)];
            let mut n = enc.header(u64::from(rows), &mut out).unwrap();
            for r in 0..rows {
                let keys = [r, r + 1, r + 2];
                let slots: Vec<&[u32]> =
                    (0..3).map(|s| &keys[..1 + (r as usize + s) % 3]).collect();
                n += enc
                    .sample(&[r as f32], &[0.5, 1.5], &slots, &mut out[n..])
                    .unwrap();
            }
            let path = dir.join(format!("part_{f}.data"));
            std::fs::write(&path, &out[..n]).unwrap();
            path
        })
        .collect()
}

/// Allocations while `pass` runs.
fn counted(pass: impl FnOnce() -> u64) -> (u64, usize) {
    let before = allocations();
    let rows = pass();
    (rows, allocations() - before)
}

fn serial<S: BatchSource<u32>>(source: S, buffers: &mut BatchBuffers<u32>) -> u64 {
    let mut cursor = SampleCursor::new(source, buffers.batch().unwrap());
    let mut rows = 0;
    while cursor.move_next().unwrap() {
        rows += 1;
    }
    rows
}

fn set(plan: &DatasetPlan, pool: &BufferPool<u32>, values: usize) -> u64 {
    let config = CursorSetConfig::new(plan.dims(), BATCH, values)
        .with_workers(2)
        .with_consumer_decoding(true);
    thread::scope(|s| {
        let set = CursorSet::scoped_pooled(s, config, pool, |w, n| plan.partition(w, n)).unwrap();
        let mut cursor = set.into_cursor();
        let mut rows = 0;
        while cursor.move_next().unwrap() {
            rows += 1;
        }
        rows
    })
}

#[test]
fn datasets_allocate_per_file_not_per_row() {
    let config = NormConfig::new(DIMS, 3).with_check(Check::Sum);
    let (small, large) = (norm_files(2_000), norm_files(8_000));
    let mut buffers = BatchBuffers::<u32>::new(DIMS, BATCH, VALUES).unwrap();
    for io in [IoMode::Map, IoMode::Buffered { chunk: 4096 }] {
        let plan = |paths: &Vec<PathBuf>| {
            DatasetPlan::norm(paths.clone(), config)
                .unwrap()
                .with_io(io)
        };
        let (small, large) = (plan(&small), plan(&large));
        // Warm: the first pass of each.
        serial(small.source(), &mut buffers);
        serial(large.source(), &mut buffers);
        let (rows_s, allocs_s) = counted(|| serial(small.source(), &mut buffers));
        let (rows_l, allocs_l) = counted(|| serial(large.source(), &mut buffers));
        assert_eq!((rows_s, rows_l), (4_000, 16_000));
        assert_eq!(
            allocs_l, allocs_s,
            "serial, {io:?}: {allocs_s} vs {allocs_l}"
        );

        let pool = BufferPool::new();
        set(&small, &pool, VALUES);
        set(&large, &pool, VALUES);
        let (rows_s, allocs_s) = counted(|| set(&small, &pool, VALUES));
        let (rows_l, allocs_l) = counted(|| set(&large, &pool, VALUES));
        assert_eq!((rows_s, rows_l), (4_000, 16_000));
        // 12 000 more rows; a few allocations more at most (a thread's first wait on a
        // channel allocates its wait context, whenever that happens).
        assert!(
            allocs_l <= allocs_s + 8,
            "set, {io:?}: {allocs_s} vs {allocs_l}"
        );
    }

    // Parquet: the `parquet` crate allocates per file and page; printed for the record.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/data/parquet");
    let config = ParquetConfig {
        slot_size_array: Some(vec![100, 50, 1000, 20]),
        ..ParquetConfig::default()
    };
    let plan = DatasetPlan::parquet(&dir, config).unwrap();
    let values = BATCH * plan.dims().slot_num * 8;
    let mut buffers = BatchBuffers::<u32>::new(plan.dims(), BATCH, values).unwrap();
    serial(plan.source(), &mut buffers);
    let (rows, allocs) = counted(|| serial(plan.source(), &mut buffers));
    assert_eq!(rows, 50);
    eprintln!("parquet serial pass: {allocs} allocations for {rows} rows in 2 files");
}
