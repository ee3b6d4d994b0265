//! Partitions jumping to batch starts the plan has found: the same rows, ids, counts and
//! errors as passing over the records, and never a jump into another file's bytes.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tessera_core::cursor::RowCursor;
use tessera_core::data::{
    BatchSource, Check, DataError, Dims, ErrorPolicy, NormConfig, NormEncoder, SampleCursor,
};

use super::super::{DatasetError, DatasetPlan, IoMode};
use super::NormReader;
use crate::buffers::BatchBuffers;

const DIMS: Dims = Dims::new(1, 1, 2);
const MAX_NNZ: u32 = 3;

fn config() -> NormConfig {
    NormConfig::new(DIMS, MAX_NNZ).with_check(Check::Sum)
}

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessera_jump_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A Norm file of `rows` rows whose key counts vary with `seed` (so records differ in
/// length); returns its path and each record's start.
fn norm_file(dir: &Path, name: &str, rows: u32, seed: u32) -> (PathBuf, Vec<usize>) {
    let enc = NormEncoder::<u32>::new(config());
    let mut out = vec![0u8; 128 + rows as usize * config().max_record_bytes(4)];
    let mut n = enc.header(u64::from(rows), &mut out).unwrap();
    let mut starts = Vec::new();
    for r in 0..rows {
        starts.push(n);
        let keys = [r, r + seed, r * 3];
        let a = ((r + seed) % 4) as usize;
        let b = ((r * 7 + seed) % 3) as usize;
        let slots: [&[u32]; 2] = [&keys[..a.min(3)], &keys[..b]];
        let label = [(r + 1000 * seed) as f32];
        n += enc.sample(&label, &[0.5], &slots, &mut out[n..]).unwrap();
    }
    let path = dir.join(name);
    std::fs::write(&path, &out[..n]).unwrap();
    (path, starts)
}

/// A row as the cursor gives it: id, label, keys of both slots.
type Row = (u64, f32, Vec<u32>, Vec<u32>);

/// Every row of `source`, with the error that ended it, if any.
fn rows<S: BatchSource<u32>>(source: S, batch: usize) -> (Vec<Row>, Option<String>) {
    let mut buffers = BatchBuffers::<u32>::new(DIMS, batch, batch * 2 * 3).unwrap();
    let mut cursor = SampleCursor::new(source, buffers.batch().unwrap());
    let mut out = Vec::new();
    loop {
        match cursor.move_next() {
            Ok(true) => out.push((
                cursor.id().unwrap().low,
                cursor.labels()[0],
                cursor.keys(0).unwrap().to_vec(),
                cursor.keys(1).unwrap().to_vec(),
            )),
            Ok(false) => return (out, None),
            Err(e) => return (out, Some(format!("{e}"))),
        }
    }
}

/// The rows of all `workers` partitions of `plan`, read one after the other, by id.
fn partitioned(plan: &DatasetPlan, workers: u64, batch: usize) -> Vec<Row> {
    let mut all = Vec::new();
    for w in 0..workers {
        let (r, e) = rows(plan.partition::<u32>(w, workers), batch);
        assert_eq!(e, None);
        all.extend(r);
    }
    all.sort_by_key(|r| r.0);
    all
}

/// Batch starts the plan knows for file `index`.
fn known(plan: &DatasetPlan, index: usize) -> usize {
    let table = plan.starts().files[index].get();
    table.map_or(0, |t| {
        t.starts
            .iter()
            .filter(|s| s.load(std::sync::atomic::Ordering::Relaxed) != 0)
            .count()
    })
}

#[test]
fn a_jump_lands_on_the_record_and_the_file_still_ends_whole() {
    let d = dir("land");
    let (path, starts) = norm_file(&d, "a.data", 40, 1);
    let mut serial = NormReader::<u32>::new(vec![path.clone()], config());
    let mut buffers = BatchBuffers::<u32>::new(DIMS, 64, 64 * 6).unwrap();
    serial
        .read_records(&mut buffers.batch().unwrap(), 64)
        .unwrap();
    let mut reader = NormReader::<u32>::new(vec![path.clone()], config());
    assert!(!reader.jump(13, starts[13] as u64), "no file open yet");
    reader.ready().unwrap();
    let (at, _) = reader.offset().unwrap();
    assert_eq!(at, starts[0] as u64);
    assert!(!reader.jump(13, starts[0] as u64 - 1), "backwards");
    assert!(reader.jump(13, starts[13] as u64));
    assert_eq!(reader.offset().unwrap().0, starts[13] as u64);
    assert!(reader.jump(7, starts[20] as u64));
    let mut batch = buffers.batch().unwrap();
    // The rest of the file, then its end (no records missing, no bytes left over).
    assert_eq!(reader.read_records(&mut batch, 64).unwrap(), 20);
    assert_eq!(batch.labels(0), Some(&[20.0 + 1000.0][..]));
    assert_eq!(reader.pass_records(0).unwrap(), 0);
    let stats = &reader.stats_mut().files[0];
    assert_eq!((stats.decoded, stats.done), (20, true));
    // Buffered files are read through, never jumped.
    let mut buffered =
        NormReader::<u32>::new(vec![path], config()).with_io(IoMode::Buffered { chunk: 64 });
    buffered.ready().unwrap();
    assert!(!buffered.jump(13, starts[13] as u64));
}

#[test]
fn errors_after_a_jump_are_placed_in_the_file() {
    let d = dir("errors");
    let (path, starts) = norm_file(&d, "a.data", 40, 2);
    // Break record 30's checksum.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[starts[31] - 1] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let first = |reader: &mut NormReader<u32>| -> Option<DataError> {
        match reader.stats_mut().files[0].first_skipped.as_ref()? {
            DatasetError::Data { error, .. } => Some(*error),
            _ => None,
        }
    };
    let skip = config().with_policy(ErrorPolicy::Skip);
    let mut buffers = BatchBuffers::<u32>::new(DIMS, 64, 64 * 6).unwrap();
    let mut serial = NormReader::<u32>::new(vec![path.clone()], skip);
    assert_eq!(
        serial
            .read_records(&mut buffers.batch().unwrap(), 64)
            .unwrap(),
        40
    );
    let expected = first(&mut serial).unwrap();
    assert_eq!(expected.sample, Some(30));
    let mut jumped = NormReader::<u32>::new(vec![path.clone()], skip);
    jumped.ready().unwrap();
    assert!(jumped.jump(24, starts[24] as u64));
    assert_eq!(
        jumped
            .read_records(&mut buffers.batch().unwrap(), 64)
            .unwrap(),
        16
    );
    assert_eq!(first(&mut jumped), Some(expected));
    let f = &jumped.stats_mut().files[0];
    assert_eq!((f.decoded, f.skipped), (15, 1));
    // Stop: the error itself, placed alike.
    let mut stop = NormReader::<u32>::new(vec![path], config());
    stop.ready().unwrap();
    assert!(stop.jump(24, starts[24] as u64));
    let e = stop
        .read_records(&mut buffers.batch().unwrap(), 64)
        .unwrap_err();
    match e {
        DatasetError::Data { error, .. } => {
            assert_eq!(
                (error.sample, error.offset),
                (expected.sample, expected.offset)
            )
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_rewritten_file_is_walked_not_jumped() {
    let d = dir("rewritten");
    let (a, _) = norm_file(&d, "a.data", 45, 1);
    let (b, _) = norm_file(&d, "b.data", 30, 2);
    let plan = DatasetPlan::norm(vec![a, b.clone()], config()).unwrap();
    assert_eq!(partitioned(&plan, 2, 8), rows(plan.source(), 8).0);
    assert_eq!(known(&plan, 1), 3);
    // Same rows, other key counts: other record starts, another length.
    norm_file(&d, "b.data", 30, 5);
    let fresh = DatasetPlan::norm(
        plan.files().iter().map(|f| f.path.clone()).collect(),
        config(),
    );
    let serial = rows(fresh.unwrap().source(), 8).0;
    assert_eq!(partitioned(&plan, 2, 8), serial);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Passes after the first jump to every batch; every pass reads the serial rows.
    #[test]
    fn every_pass_reads_the_serial_rows(
        lens in proptest::collection::vec(0u32..60, 1..4),
        batch in 1usize..12,
        workers in 2u64..4,
    ) {
        let d = dir("passes");
        let paths: Vec<PathBuf> = lens
            .iter()
            .enumerate()
            .map(|(i, &n)| norm_file(&d, &format!("{i}.data"), n, i as u32).0)
            .collect();
        let plan = DatasetPlan::norm(paths, config()).unwrap();
        let (serial, e) = rows(plan.source(), batch);
        prop_assert_eq!(e, None);
        for pass in 0..3 {
            prop_assert_eq!(&partitioned(&plan, workers, batch), &serial, "pass {}", pass);
        }
        for (i, &n) in lens.iter().enumerate() {
            // Every batch start but the first is known.
            let batches = (n as usize).div_ceil(batch);
            prop_assert_eq!(known(&plan, i), batches.saturating_sub(1));
        }
    }
}

/// One Parquet file of `rows` rows in `DIMS`' layout (label, one dense feature, two one-key
/// slots), row groups of `group` rows, and its `_metadata.json`; returns the directory.
fn parquet_dataset(name: &str, rows: usize, group: usize) -> PathBuf {
    use parquet::data_type::{FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;

    let d = dir(name);
    let schema = "message m { required float label; required float I1; \
                  required int64 C1; required int64 C2; }";
    let schema = Arc::new(parse_message_type(schema).unwrap());
    let props = Arc::new(WriterProperties::builder().build());
    let file = std::fs::File::create(d.join("part_0.parquet")).unwrap();
    let mut w = SerializedFileWriter::new(file, schema, props).unwrap();
    for first in (0..rows).step_by(group) {
        let n = group.min(rows - first);
        let mut rg = w.next_row_group().unwrap();
        let mut c = 0;
        while let Some(mut col) = rg.next_column().unwrap() {
            let row = |i: usize| (first + i) as i64 * 2 + c;
            if c < 2 {
                let v: Vec<f32> = (0..n).map(|i| row(i) as f32).collect();
                col.typed::<FloatType>()
                    .write_batch(&v, None, None)
                    .unwrap();
            } else {
                let v: Vec<i64> = (0..n).map(row).collect();
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
    let meta = format!(
        r#"{{"file_stats": [{{"file_name": "part_0.parquet", "num_rows": {rows}}}],
           "labels": [{{"col_name": "label", "index": 0}}],
           "conts": [{{"col_name": "I1", "index": 1}}],
           "cats": [{{"col_name": "C1", "index": 2}}, {{"col_name": "C2", "index": 3}}]}}"#
    );
    std::fs::write(d.join("_metadata.json"), meta).unwrap();
    d
}

#[test]
fn a_partition_shares_each_parquet_row_group_once() {
    // Row groups of 100 rows, batches of 64: worker 0 of 2 reads rows in all five row
    // groups, and shares each ahead of its next batch (while reading the batch before)
    // before it reads or skips rows in it. The group it shared ahead is the one it then
    // reads, not one made again: made again, it is decompressed again (when no other
    // worker holds it at that moment, which a worker alone shows every time).
    let plan = DatasetPlan::parquet(
        &parquet_dataset("parquet_share", 500, 100),
        crate::dataset::ParquetConfig::default(),
    )
    .unwrap();
    let (got, e) = rows(plan.partition::<u32>(0, 2), 64);
    assert_eq!(e, None);
    let ids: Vec<u64> = got.iter().map(|r| r.0).collect();
    let mine: Vec<u64> = (0..500).filter(|i| (i / 64) % 2 == 0).collect();
    assert_eq!(ids, mine);
    assert_eq!(plan.pages().made(), 5);
}
