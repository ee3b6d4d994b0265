//! Every dataset kind as one `BatchSource` (`DatasetPlan` / `DatasetSource`): the serial
//! source gives every row with ids `0..rows`; cursor sets over it give the same rows;
//! and sharded across any world size, the ranks' rows merged by id are the whole dataset's.

use std::path::{Path, PathBuf};
use std::thread;

use tessera_core::cursor::RowCursor;
use tessera_core::data::{
    BatchError, BatchSource, Check, DataErrorKind, Dims, NormConfig, NormEncoder, RawConfig,
    SampleCursor,
};
use tessera_data::buffers::BatchBuffers;
use tessera_data::cursor_set::{CursorSet, CursorSetConfig};
use tessera_data::dataset::{DatasetError, DatasetPlan, IoMode, ParquetConfig, Shard, ShardError};

const DIMS: Dims = Dims::new(1, 2, 3);
const MAX_NNZ: usize = 3;
/// Unequal files, an empty one among them, more files than some worlds have ranks and fewer
/// than others.
const LENGTHS: [u32; 5] = [7, 0, 13, 1, 20];
const BATCH: usize = 4;
const VALUES: usize = BATCH * 3 * MAX_NNZ;

/// One row: id, label and dense values (as bits), keys per slot.
type Row = (u64, Vec<u32>, Vec<Vec<i64>>);

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("shards")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Sample `i` of the whole dataset, in `slot`: 0 to 3 keys.
fn keys(i: u32, slot: u32) -> Vec<u32> {
    (0..(i + slot) % (MAX_NNZ as u32 + 1))
        .map(|k| i * 10 + slot * 3 + k)
        .collect()
}

fn norm_files(check: Check, tag: &str) -> (Vec<PathBuf>, NormConfig) {
    let config = NormConfig::new(DIMS, MAX_NNZ as u32).with_check(check);
    let enc = NormEncoder::<u32>::new(config);
    let d = dir(&format!("norm_{check:?}_{tag}"));
    let mut i = 0u32;
    let mut paths = Vec::new();
    for (f, &len) in LENGTHS.iter().enumerate() {
        let mut bytes = vec![0u8; 128 + len as usize * 128];
        let mut n = enc.header(u64::from(len), &mut bytes).unwrap();
        for _ in 0..len {
            let k: Vec<Vec<u32>> = (0..3).map(|s| keys(i, s)).collect();
            let k: Vec<&[u32]> = k.iter().map(Vec::as_slice).collect();
            let label = [i as f32];
            let dense = [i as f32 * 0.5, -(i as f32)];
            n += enc.sample(&label, &dense, &k, &mut bytes[n..]).unwrap();
            i += 1;
        }
        let path = d.join(format!("part_{f}.data"));
        std::fs::write(&path, &bytes[..n]).unwrap();
        paths.push(path);
    }
    (paths, config)
}

fn raw_files() -> (Vec<PathBuf>, RawConfig) {
    let config = RawConfig::new(DIMS);
    let d = dir("raw");
    let mut i = 0u32;
    let mut paths = Vec::new();
    for (f, &len) in LENGTHS.iter().enumerate() {
        let mut bytes = Vec::new();
        for _ in 0..len {
            for x in [i as f32, i as f32 * 0.5, -(i as f32)] {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
            for s in 0..3 {
                bytes.extend_from_slice(&((i * 3 + s) as i32).to_le_bytes());
            }
            i += 1;
        }
        let path = d.join(format!("part_{f}.raw"));
        std::fs::write(&path, &bytes).unwrap();
        paths.push(path);
    }
    (paths, config)
}

fn parquet_plan() -> DatasetPlan {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/data/parquet");
    DatasetPlan::parquet(&path, parquet_config()).unwrap()
}

fn parquet_config() -> ParquetConfig {
    ParquetConfig {
        slot_size_array: Some(vec![100, 50, 1000, 20]),
        chunk_rows: 3,
        ..ParquetConfig::default()
    }
}

/// One row from a cursor's id, its label and dense values and its keys per slot.
fn row_of<'a, C: RowCursor>(
    cursor: &C,
    labels: &[f32],
    dense: &[f32],
    keys: impl Fn(usize) -> Option<&'a [u32]>,
) -> Row {
    let id = cursor.id().unwrap();
    assert_eq!(id.high, 0);
    let ld = labels.iter().chain(dense).map(|x| x.to_bits()).collect();
    let slots = (0..)
        .map_while(|s| keys(s).map(|k| k.iter().map(|&k| i64::from(k)).collect()))
        .collect();
    (id.low, ld, slots)
}

/// The rows of a `SampleCursor` over `source`.
fn serial_rows<S: BatchSource<u32>>(source: S, dims: Dims, values: usize) -> Vec<Row> {
    serial_rows_in(source, dims, BATCH, values)
}

/// The rows of a `SampleCursor` over `source` in batches of `batch`.
fn serial_rows_in<S: BatchSource<u32>>(
    source: S,
    dims: Dims,
    batch: usize,
    values: usize,
) -> Vec<Row> {
    let mut buffers = BatchBuffers::<u32>::new(dims, batch, values).unwrap();
    let mut cursor = SampleCursor::new(source, buffers.batch().unwrap());
    let mut rows = Vec::new();
    while cursor.move_next().unwrap() {
        rows.push(row_of(&cursor, cursor.labels(), cursor.dense(), |s| {
            cursor.keys(s)
        }));
    }
    rows
}

/// The rows of a `workers`-worker cursor set over `plan`, read in place.
fn set_rows(plan: &DatasetPlan, workers: usize, values: usize, local: bool) -> Vec<Row> {
    set_rows_in(plan, workers, BATCH, values, local)
}

/// The rows of a `workers`-worker cursor set over `plan` in batches of `batch`, read in place.
fn set_rows_in(
    plan: &DatasetPlan,
    workers: usize,
    batch: usize,
    values: usize,
    local: bool,
) -> Vec<Row> {
    let config = CursorSetConfig::new(plan.dims(), batch, values)
        .with_workers(workers)
        .with_consumer_decoding(local);
    thread::scope(|s| {
        let set = CursorSet::scoped(s, config, |w, n| plan.partition::<u32>(w, n)).unwrap();
        let mut cursor = set.into_cursor();
        let mut rows = Vec::new();
        while cursor.move_next().unwrap() {
            rows.push(row_of(&cursor, cursor.labels(), cursor.dense(), |s| {
                cursor.keys(s)
            }));
        }
        rows
    })
}

/// The rows the serial pass over `plan` skips, by its account.
fn skipped_rows(plan: &DatasetPlan, dims: Dims, values: usize) -> u64 {
    let mut buffers = BatchBuffers::<u32>::new(dims, BATCH, values).unwrap();
    let mut batch = buffers.batch().unwrap();
    let mut source = plan.source::<u32>();
    loop {
        batch.clear();
        if source.next_batch(&mut batch).unwrap().is_none() {
            return source.stats().skipped();
        }
    }
}

/// For every world size 1..=8, every rank's rows (through a cursor set of `workers`) are
/// in ascending id order, and all ranks' rows merged by id are `whole`.
fn check_shards(plan: &DatasetPlan, whole: &[Row], values: usize) {
    for world in 1..=8u64 {
        for workers in [1, 2, 3] {
            let mut merged = Vec::new();
            for rank in 0..world {
                let shard = plan.shard(Shard::new(rank, world).unwrap());
                let rows = set_rows(&shard, workers, values, workers == 2);
                assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "world {world}");
                // Every row the rank's files announce, less any skipped.
                assert!(
                    rows.len() as u64 <= shard.rows(),
                    "world {world} rank {rank}"
                );
                merged.extend(rows);
            }
            merged.sort_by_key(|r| r.0);
            assert_eq!(merged, whole, "world {world}, {workers} workers");
        }
    }
}

#[test]
fn norm_file_lists_shard_into_the_whole_dataset() {
    for check in [Check::None, Check::Sum] {
        for io in [IoMode::Map, IoMode::Buffered { chunk: 7 }] {
            let (paths, config) = norm_files(check, &format!("{io:?}"));
            let plan = DatasetPlan::norm(paths, config).unwrap().with_io(io);
            let whole = serial_rows(plan.source(), DIMS, VALUES);
            let ids: Vec<u64> = whole.iter().map(|r| r.0).collect();
            assert_eq!(ids, (0..41).collect::<Vec<_>>());
            for workers in 1..=4 {
                assert_eq!(set_rows(&plan, workers, VALUES, false), whole);
                assert_eq!(set_rows(&plan, workers, VALUES, true), whole);
            }
            check_shards(&plan, &whole, VALUES);
        }
    }
}

#[test]
fn raw_file_lists_shard_into_the_whole_dataset() {
    let (paths, config) = raw_files();
    let plan = DatasetPlan::raw(paths, config).unwrap();
    let whole = serial_rows(plan.source(), DIMS, BATCH * 3);
    assert_eq!(whole.len(), 41);
    check_shards(&plan, &whole, BATCH * 3);
}

#[test]
fn parquet_datasets_shard_into_the_whole_dataset() {
    let plan = parquet_plan();
    let dims = plan.dims();
    let values = BATCH * dims.slot_num * 8;
    let whole = serial_rows(plan.source(), dims, values);
    assert_eq!(whole.len(), 50);
    for workers in 1..=3 {
        assert_eq!(set_rows(&plan, workers, values, false), whole);
    }
    check_shards(&plan, &whole, values);
}

#[test]
fn the_serial_pass_splits_a_batch_whose_keys_run_out_and_a_partition_refuses() {
    let (paths, config) = norm_files(Check::Sum, "split");
    let plan = DatasetPlan::norm(paths, config).unwrap();
    let whole = serial_rows(plan.source(), DIMS, VALUES);
    // Room for one record's keys at most: batches of 4 rows end short, rows and ids unchanged.
    let one = 3 * MAX_NNZ;
    assert_eq!(serial_rows(plan.source(), DIMS, one), whole);
    // A partition's batches are numbered for a cursor set: one that ends short is an error.
    let mut buffers = BatchBuffers::<u32>::new(DIMS, BATCH, one).unwrap();
    let mut batch = buffers.batch().unwrap();
    let mut source = plan.partition::<u32>(0, 1);
    let error = loop {
        batch.clear();
        match source.next_batch(&mut batch) {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no batch ran out of keys"),
            Err(e) => break e,
        }
    };
    assert_eq!(
        error.kind,
        DataErrorKind::Batch(BatchError::NoRoom),
        "{error}"
    );
}

#[test]
fn a_file_ending_early_under_skip_reads_alike_in_every_reader() {
    let (paths, config) = norm_files(Check::Sum, "ends_early");
    // The last file announces 20 rows; cut inside its last record, it holds 19.
    let last = &paths[4];
    let bytes = std::fs::read(last).unwrap();
    std::fs::write(last, &bytes[..bytes.len() - 5]).unwrap();
    let config = config.with_policy(tessera_core::data::ErrorPolicy::Skip);
    let plan = DatasetPlan::norm(paths, config).unwrap();
    let whole = serial_rows(plan.source(), DIMS, VALUES);
    assert_eq!(whole.len(), 40);
    assert_eq!(skipped_rows(&plan, DIMS, VALUES), 1);
    for workers in 1..=3 {
        assert_eq!(set_rows(&plan, workers, VALUES, false), whole);
        assert_eq!(set_rows(&plan, workers, VALUES, true), whole);
    }
    check_shards(&plan, &whole, VALUES);
}

#[test]
fn shards_refuse_rank_past_world_and_an_empty_world() {
    assert_eq!(Shard::new(0, 0), Err(ShardError::EmptyWorld));
    assert_eq!(
        Shard::new(3, 3),
        Err(ShardError::RankOutOfRange { rank: 3, world: 3 })
    );
    assert!(Shard::new(3, 3).unwrap_err().to_string().contains("rank 3"));
    let (paths, config) = norm_files(Check::Sum, "refuse");
    let plan = DatasetPlan::norm(paths, config).unwrap();
    // Rank 6 of 8 has no file: it reads nothing, and ends at once.
    let empty = plan.shard(Shard::new(6, 8).unwrap());
    assert_eq!(empty.rows(), 0);
    assert!(serial_rows(empty.source(), DIMS, VALUES).is_empty());
}

#[test]
fn a_broken_record_fails_in_its_serial_place_with_the_file_named() {
    let (paths, config) = norm_files(Check::Sum, "broken");
    // Flip the last byte (a checksum) of the third file's 6th record... its last record.
    let bad = &paths[2];
    let mut bytes = std::fs::read(bad).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(bad, &bytes).unwrap();
    let plan = DatasetPlan::norm(paths.clone(), config).unwrap();
    let outcome = |workers: usize| {
        let config = CursorSetConfig::new(DIMS, BATCH, VALUES).with_workers(workers);
        thread::scope(|s| {
            let set = CursorSet::scoped(s, config, |w, n| plan.partition::<u32>(w, n)).unwrap();
            let mut cursor = set.into_cursor();
            let mut rows = 0u64;
            loop {
                match cursor.move_next() {
                    Ok(true) => rows += 1,
                    Ok(false) => return (rows, None),
                    Err(e) => return (rows, Some(e)),
                }
            }
        })
    };
    for workers in 1..=3 {
        let (rows, error) = outcome(workers);
        // Files 0 and 1 (7 rows), then file 2 up to its last record.
        assert_eq!(rows, 7 + 12, "{workers} workers");
        assert!(error.is_some(), "{workers} workers");
        let full = plan.failure().expect("the failure is logged");
        let DatasetError::Data { path, error } = &full else {
            panic!("{full}")
        };
        assert_eq!(path, bad);
        assert!(
            matches!(error.kind, DataErrorKind::Checksum { .. }),
            "{full}"
        );
        assert_eq!(error.sample, Some(12));
    }
}

#[test]
fn a_file_skipped_whole_gives_empty_batches_in_every_reader() {
    let (paths, config) = norm_files(Check::Sum, "skip_whole");
    // The third file's header says dense_dim 3 (a well-formed header at odds with the
    // configuration): under Skip, its 13 rows are skipped and counted, the rest read.
    let bad = &paths[2];
    let mut bytes = std::fs::read(bad).unwrap();
    let at = 4 + 3 * 8; // the frame's length, then error_check, records and label_dim
    bytes[at] = 3;
    bytes[4 + 64] = bytes[4..4 + 64].iter().fold(0u8, |s, &b| s.wrapping_add(b));
    std::fs::write(bad, &bytes).unwrap();
    let config = config.with_policy(tessera_core::data::ErrorPolicy::Skip);
    let plan = DatasetPlan::norm(paths.clone(), config).unwrap();
    let whole = serial_rows(plan.source(), DIMS, VALUES);
    assert_eq!(skipped_rows(&plan, DIMS, VALUES), 13);
    assert_eq!(whole.len(), 41 - 13);
    // The same rows as the dataset without the bad file (whose ids differ from the 13 on).
    let mut others = paths.clone();
    others.remove(2);
    let rest = serial_rows(
        DatasetPlan::norm(others, config).unwrap().source(),
        DIMS,
        VALUES,
    );
    let strip = |rows: &[Row]| {
        rows.iter()
            .map(|r| (r.1.clone(), r.2.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&whole), strip(&rest));
    // Ids skip the 13 rows of file 2 (rows 7..20).
    assert!(whole.iter().all(|r| !(7..20).contains(&r.0)));
    for workers in 1..=3 {
        assert_eq!(set_rows(&plan, workers, VALUES, workers == 2), whole);
    }
    check_shards(&plan, &whole, VALUES);
}

/// Two Parquet files of `rows` rows (label, 2 dense, 3 slots), row groups of `group` rows and
/// pages of at most `page` rows; returns the directory.
fn parquet_pages(name: &str, rows: usize, group: usize, page: usize) -> PathBuf {
    use parquet::basic::Compression;
    use parquet::data_type::{FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;

    let dir = dir(&format!("parquet_{name}"));
    let schema = "message m { required float label; required float I1; required float I2; \
                  required int64 C1; required int64 C2; required int64 C3; }";
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_data_page_row_count_limit(page)
            .set_write_batch_size(page)
            .set_max_row_group_row_count(Some(group))
            .build(),
    );
    let mut stats = Vec::new();
    for f in 0..2 {
        let file_name = format!("part_{f}.parquet");
        let file = std::fs::File::create(dir.join(&file_name)).unwrap();
        let mut w = SerializedFileWriter::new(file, schema.clone(), props.clone()).unwrap();
        for g in (0..rows).step_by(group) {
            let n = group.min(rows - g);
            let row = |i: usize| (f * rows + g + i) as i64;
            let mut rg = w.next_row_group().unwrap();
            let mut c = 0;
            while let Some(mut col) = rg.next_column().unwrap() {
                if c < 3 {
                    let v: Vec<f32> = (0..n).map(|i| (row(i) * 3 + c) as f32).collect();
                    col.typed::<FloatType>()
                        .write_batch(&v, None, None)
                        .unwrap();
                } else {
                    let v: Vec<i64> = (0..n).map(|i| (row(i) * 7 + c) % 1000).collect();
                    col.typed::<Int64Type>()
                        .write_batch(&v, None, None)
                        .unwrap();
                }
                col.close().unwrap();
                c += 1;
            }
            rg.close().unwrap();
        }
        w.close().unwrap();
        stats.push(format!(
            r#"{{"file_name": "{file_name}", "num_rows": {rows}}}"#
        ));
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

/// Partitions over Parquet files of several row groups and many small pages (the workers
/// share decompressed pages) read exactly the serial pass's rows, in batches of 64.
fn check_parquet_pages(dir: &Path, rows: usize) {
    const PAGES_BATCH: usize = 64;
    let plan = DatasetPlan::parquet(dir, ParquetConfig::default()).unwrap();
    assert_eq!(plan.dims(), DIMS);
    let values = PAGES_BATCH * 3;
    let whole = serial_rows_in(plan.source(), DIMS, PAGES_BATCH, values);
    assert_eq!(whole.len(), 2 * rows);
    assert!(whole.iter().enumerate().all(|(i, r)| r.0 == i as u64));
    for workers in 1..=4 {
        for local in [false, true] {
            assert_eq!(
                set_rows_in(&plan, workers, PAGES_BATCH, values, local),
                whole,
                "{workers} workers, local {local}"
            );
        }
    }
}

#[test]
fn parquet_partitions_over_small_pages_read_the_serial_rows() {
    // Row groups of 300 rows (not a multiple of the batch), pages of 20 rows: batches
    // span row groups, and a worker skips whole pages and parts of pages.
    check_parquet_pages(&parquet_pages("small_pages", 1000, 300, 20), 1000);
}

#[test]
fn parquet_partitions_over_one_page_row_groups_read_the_serial_rows() {
    check_parquet_pages(&parquet_pages("one_page", 700, 250, 20_000), 700);
}
