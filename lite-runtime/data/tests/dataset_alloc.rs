//! Reading a dataset through `DatasetPlan` allocates per file, never per row: a pass over
//! files four times as long allocates no more (serial), or only what the threads' first
//! waits cost (a 2-worker cursor set). Parquet allocates inside the `parquet` crate per
//! file, row group and page, and grows its buffers to larger pages: never per row or batch.
//!
//! The counter is global (the workers run on their own threads), so this binary holds a
//! single test.

use std::path::{Path, PathBuf};
use std::thread;

use tessera_core::cursor::RowCursor;
use tessera_core::data::{BatchSource, Check, Dims, NormConfig, NormEncoder, SampleCursor};
use tessera_data::buffers::BatchBuffers;
use tessera_data::cursor_set::{BufferPool, CursorSet, CursorSetConfig};
use tessera_data::dataset::{DatasetPlan, IoMode, ParquetConfig};

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

    // Parquet: the `parquet` crate allocates per file, row group and page, not per row.
    // Files of one row group and one data page per column, four times as long (as many
    // pages, each four times larger), allocate a little more where its decoders' buffers
    // grow to the larger pages (24 for the 12 column chunks here), serially and through a
    // set alike: nothing per row or per batch.
    let (small, large) = (parquet_dataset(2_000), parquet_dataset(8_000));
    let plan = |dir: &Path| DatasetPlan::parquet(dir, ParquetConfig::default()).unwrap();
    let (small, large) = (plan(&small), plan(&large));
    serial(small.source(), &mut buffers);
    serial(large.source(), &mut buffers);
    let (rows_s, allocs_s) = counted(|| serial(small.source(), &mut buffers));
    let (rows_l, allocs_l) = counted(|| serial(large.source(), &mut buffers));
    assert_eq!((rows_s, rows_l), (4_000, 16_000));
    assert!(
        allocs_l <= allocs_s + 32,
        "parquet serial: {allocs_s} vs {allocs_l}"
    );
    eprintln!("parquet serial: {allocs_s} allocations over 4 000 rows, {allocs_l} over 16 000");
    let pool = BufferPool::new();
    set(&small, &pool, VALUES);
    set(&large, &pool, VALUES);
    let (rows_s, allocs_s) = counted(|| set(&small, &pool, VALUES));
    let (rows_l, allocs_l) = counted(|| set(&large, &pool, VALUES));
    assert_eq!((rows_s, rows_l), (4_000, 16_000));
    assert!(
        allocs_l <= allocs_s + 32,
        "parquet set: {allocs_s} vs {allocs_l}"
    );
    eprintln!("parquet set/2: {allocs_s} allocations over 4 000 rows, {allocs_l} over 16 000");
}

/// Two Parquet files of `rows` rows each in `DIMS`' layout (one key per slot), each one row
/// group with one data page per column, and their `_metadata.json`; returns the directory.
fn parquet_dataset(rows: usize) -> PathBuf {
    use parquet::data_type::{FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dataset_alloc_pq_{rows}"));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = "message m { required float label; required float I1; required float I2; \
                  required int64 C1; required int64 C2; required int64 C3; }";
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let props = Arc::new(
        WriterProperties::builder()
            .set_data_page_row_count_limit(rows)
            .set_write_batch_size(rows)
            .build(),
    );
    let mut stats = Vec::new();
    for f in 0..2 {
        let name = format!("part_{f}.parquet");
        let file = std::fs::File::create(dir.join(&name)).unwrap();
        let mut w = SerializedFileWriter::new(file, schema.clone(), props.clone()).unwrap();
        let mut rg = w.next_row_group().unwrap();
        let mut c = 0;
        while let Some(mut col) = rg.next_column().unwrap() {
            if c < 3 {
                let v: Vec<f32> = (0..rows).map(|i| (i * 3 + c) as f32).collect();
                col.typed::<FloatType>()
                    .write_batch(&v, None, None)
                    .unwrap();
            } else {
                let v: Vec<i64> = (0..rows).map(|i| (i * 7 + c) as i64).collect();
                col.typed::<Int64Type>()
                    .write_batch(&v, None, None)
                    .unwrap();
            }
            col.close().unwrap();
            c += 1;
        }
        rg.close().unwrap();
        w.close().unwrap();
        stats.push(format!(r#"{{"file_name": "{name}", "num_rows": {rows}}}"#));
    }
    let meta = format!(
        r#"{{"file_stats": [{}], "labels": [{{"col_name": "label", "index": 0}}],
           "conts": [{{"col_name": "I1", "index": 1}}, {{"col_name": "I2", "index": 2}}],
           "cats": [{{"col_name": "C1", "index": 3}}, {{"col_name": "C2", "index": 4}},
                    {{"col_name": "C3", "index": 5}}]}}"#,
        stats.join(", ")
    );
    std::fs::write(dir.join("_metadata.json"), meta).unwrap();
    dir
}
