//! HugeCTR datasets end to end: the fixtures of `tests/fixtures/data` (written by
//! `make_data.py` with numpy and pyarrow; CI never runs Python) in every format must decode
//! to `expected.json` and to identical CSR batches, and corrupted copies must fail with
//! errors that name the file and the place, or be skipped and counted under Skip.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tessera_core::data::{
    BatchSource, Check, DataError, DataErrorKind, Dims, ErrorPolicy, Key, NormConfig, RawConfig,
};
use tessera_data::buffers::BatchBuffers;
use tessera_data::dataset::{
    ConvertOptions, DatasetError, DatasetPlan, DatasetSource, FileList, FileListErrorKind, IoMode,
    ParquetConfig, RowErrorKind, SchemaErrorKind, convert_to_norm,
};

const DIMS: Dims = Dims::new(1, 3, 4);
const SLOT_SIZES: [u64; 4] = [100, 50, 1000, 20];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/data")
}

fn fixture(name: &str) -> PathBuf {
    fixtures().join(name)
}

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("valid JSON")
}

/// One sample, keys widened so that u32 and i64 readers compare.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    label: Vec<f32>,
    dense: Vec<f32>,
    keys: Vec<Vec<i128>>,
}

/// One batch as plain vectors.
#[derive(Debug, Clone, PartialEq)]
struct Flat {
    label_dense: Vec<f32>,
    offsets: Vec<i128>,
    values: Vec<i128>,
}

fn floats(v: &Value) -> Vec<f32> {
    let a = v.as_array().expect("array");
    a.iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect()
}

fn ints(v: &Value) -> Vec<i128> {
    let a = v.as_array().expect("array");
    a.iter()
        .map(|x| i128::from(x.as_i64().expect("int")))
        .collect()
}

fn expected_samples() -> Vec<Sample> {
    let e = expected();
    let samples = e["samples"].as_array().expect("samples");
    samples
        .iter()
        .map(|s| Sample {
            label: floats(&s["label"]),
            dense: floats(&s["dense"]),
            keys: s["keys"]
                .as_array()
                .expect("keys")
                .iter()
                .map(ints)
                .collect(),
        })
        .collect()
}

fn record_offsets(name: &str) -> Vec<u64> {
    let e = expected();
    let a = e["record_offsets"][name].as_array().expect("offsets");
    a.iter().map(|x| x.as_u64().expect("offset")).collect()
}

/// Reads `reader` to its end through batches of `samples` samples and `keys` keys.
fn batches<K: Key>(
    reader: &mut DatasetSource<K>,
    samples: usize,
    keys: usize,
) -> Result<Vec<Flat>, DatasetError> {
    let mut buffers = BatchBuffers::<K>::new(reader.plan().dims(), samples, keys).unwrap();
    let mut batch = buffers.batch().expect("batch");
    let mut out = Vec::new();
    loop {
        batch.clear();
        match reader.next_batch(&mut batch) {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return Err(reader.error(e)),
        }
        assert!(batch.samples() <= samples && batch.csr().values().len() <= keys);
        let csr = batch.csr();
        out.push(Flat {
            label_dense: batch.label_dense().to_vec(),
            offsets: csr.row_offsets().iter().map(|k| k.to_i128()).collect(),
            values: csr.values().iter().map(|k| k.to_i128()).collect(),
        });
    }
    Ok(out)
}

fn samples_of(batches: &[Flat]) -> Vec<Sample> {
    let mut out = Vec::new();
    for b in batches {
        let n = b.label_dense.len() / DIMS.label_dense();
        for i in 0..n {
            let ld = &b.label_dense[i * DIMS.label_dense()..(i + 1) * DIMS.label_dense()];
            let keys = (0..DIMS.slot_num)
                .map(|s| {
                    let row = i * DIMS.slot_num + s;
                    let (a, e) = (b.offsets[row] as usize, b.offsets[row + 1] as usize);
                    b.values[a..e].to_vec()
                })
                .collect();
            out.push(Sample {
                label: ld[..DIMS.label_dim].to_vec(),
                dense: ld[DIMS.label_dim..].to_vec(),
                keys,
            });
        }
    }
    out
}

fn read_samples<K: Key>(reader: &mut DatasetSource<K>) -> Result<Vec<Sample>, DatasetError> {
    Ok(samples_of(&batches(reader, 16, 256)?))
}

fn norm_config(check: Check) -> NormConfig {
    NormConfig::new(DIMS, 3).with_check(check)
}

fn parquet_config() -> ParquetConfig {
    ParquetConfig {
        slot_size_array: Some(SLOT_SIZES.to_vec()),
        ..ParquetConfig::default()
    }
}

/// The serial pass over the Parquet dataset at `path`.
fn parquet_source<K: Key>(path: &Path, config: ParquetConfig) -> DatasetSource<K> {
    DatasetPlan::parquet(path, config).expect("plan").source()
}

/// The serial pass over the Norm file or file list at `path`; an unreadable header fails
/// here, as the plan reads every header first.
fn norm_source<K: Key>(
    path: &Path,
    config: NormConfig,
    io: IoMode,
) -> Result<DatasetSource<K>, DatasetError> {
    let plan = DatasetPlan::norm(FileList::resolve(path)?, config)?;
    Ok(plan.with_io(io).source())
}

fn norm<K: Key>(path: &Path, config: NormConfig, io: IoMode) -> DatasetSource<K> {
    norm_source(path, config, io).expect("plan")
}

/// The serial pass over the Raw file or file list at `path`.
fn raw<K: Key>(path: &Path, config: RawConfig, io: IoMode) -> DatasetSource<K> {
    let paths = FileList::resolve(path).expect("list");
    let plan = DatasetPlan::raw(paths, config).expect("plan");
    plan.with_io(io).source()
}

const IO_MODES: [IoMode; 3] = [
    IoMode::Map,
    IoMode::buffered(),
    IoMode::Buffered { chunk: 13 },
];

/// Every reader of the 50 fixture samples, keys as `u32`.
fn readers_u32(io: IoMode) -> Vec<(&'static str, DatasetSource<u32>)> {
    let parquet = |path: &str, chunk_rows| {
        let config = ParquetConfig {
            chunk_rows,
            ..parquet_config()
        };
        parquet_source(&fixture(path), config)
    };
    vec![
        (
            "norm_plain (list)",
            norm(
                &fixture("norm_plain_list.txt"),
                norm_config(Check::None),
                io,
            ),
        ),
        (
            "norm_sum",
            norm(&fixture("norm_sum.data"), norm_config(Check::Sum), io),
        ),
        ("parquet (dir)", parquet("parquet", 4096)),
        (
            "parquet (list, 3-row chunks)",
            parquet("parquet/_file_list.txt", 3),
        ),
        ("parquet (metadata)", parquet("parquet/_metadata.json", 7)),
        (
            "parquet (byte-stream-split, v1 and v2 pages, CRCs)",
            parquet("parquet_split", 5),
        ),
    ]
}

#[test]
fn every_format_decodes_to_the_expected_samples() {
    let want = expected_samples();
    assert_eq!(want.len(), 50);
    for io in IO_MODES {
        for (name, mut reader) in readers_u32(io) {
            let got = read_samples(&mut reader).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got, want, "{name}, {io:?}");
            assert_eq!(reader.stats().decoded(), 50, "{name}");
            assert_eq!(reader.stats().skipped(), 0, "{name}");
        }
        let mut wide = norm::<i64>(&fixture("norm_i64.data"), norm_config(Check::None), io);
        assert_eq!(read_samples(&mut wide).unwrap(), want, "norm_i64, {io:?}");
    }
    let mut wide = parquet_source::<i64>(&fixture("parquet"), parquet_config());
    assert_eq!(read_samples(&mut wide).unwrap(), want, "parquet as i64");
}

#[test]
fn every_format_gives_the_same_samples_in_any_batch_size() {
    // (samples, keys) per batch: batches cut by samples, by keys (the serial pass ends a
    // batch short when its keys run out), and at file ends (batches never span files).
    let want = expected_samples();
    for (samples, keys) in [(1, 12), (7, 64), (16, 20), (64, 1024)] {
        for io in IO_MODES {
            for (name, mut reader) in readers_u32(io) {
                let got = samples_of(&batches(&mut reader, samples, keys).unwrap());
                assert_eq!(got, want, "{name}, {io:?}, batch ({samples}, {keys})");
            }
            let mut wide = norm::<i64>(&fixture("norm_i64.data"), norm_config(Check::None), io);
            let got = samples_of(&batches(&mut wide, samples, keys).unwrap());
            assert_eq!(got, want, "norm_i64, {io:?}");
        }
        let mut wide = parquet_source::<i64>(&fixture("parquet"), parquet_config());
        assert_eq!(
            samples_of(&batches(&mut wide, samples, keys).unwrap()),
            want
        );
    }
}

#[test]
fn raw_files_decode_float_and_int_variants() {
    let e = expected();
    let raws = e["raw"].as_array().expect("raw");
    for io in IO_MODES {
        let config = RawConfig::new(DIMS);
        let got = read_samples(&mut raw::<u32>(&fixture("raw_f32.data"), config, io)).unwrap();
        let mut int_config = config;
        int_config.float_label_dense = false;
        let mut i32s = raw::<u32>(&fixture("raw_i32.data"), int_config, io);
        let got_int = read_samples(&mut i32s).unwrap();
        assert_eq!((got.len(), got_int.len()), (50, 50));
        for ((r, s), t) in raws.iter().zip(&got).zip(&got_int) {
            let dense: Vec<f32> = floats(&r["dense_int"]);
            let keys: Vec<Vec<i128>> = ints(&r["keys"]).into_iter().map(|k| vec![k]).collect();
            assert_eq!(s.label, floats(&r["label"]));
            assert_eq!(s.dense, dense);
            assert_eq!(s.keys, keys);
            // int32 dense values are read as ln(x + 1), HugeCTR's transform.
            assert_eq!(t.label, s.label);
            assert_eq!(t.keys, keys);
            for (&got, &x) in t.dense.iter().zip(&dense) {
                let want = (x + 1.0).ln();
                assert!(
                    (got - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "{got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn parquet_converts_to_the_python_written_norm_bytes() {
    let dir = TempDir::new("convert");
    for (check, name) in [
        (Check::Sum, "norm_sum.data"),
        (Check::None, "norm_i64.data"),
    ] {
        let out = dir.path().join(name);
        let options = ConvertOptions {
            check,
            batch_samples: 7,
            batch_keys: 64,
        };
        let mut calls = 0;
        let summary = if check == Check::Sum {
            let mut r = parquet_source::<u32>(&fixture("parquet"), parquet_config());
            convert_to_norm(&mut r, &out, options, |done, total| {
                calls += 1;
                assert_eq!(total, Some(50));
                assert!(done <= 50);
            })
        } else {
            let mut r = parquet_source::<i64>(&fixture("parquet"), parquet_config());
            convert_to_norm(&mut r, &out, options, |_, _| calls += 1)
        }
        .unwrap();
        assert_eq!((summary.records, summary.skipped), (50, 0));
        assert_eq!(calls, 8, "one progress call per batch");
        let written = std::fs::read(&out).unwrap();
        assert_eq!(written, std::fs::read(fixture(name)).unwrap(), "{name}");
        assert!(!dir.path().join(format!("{name}.partial")).exists());
    }
}

#[test]
fn skipped_rows_are_counted_and_the_header_rewritten() {
    let dir = TempDir::new("convert-skip");
    let out = dir.path().join("bad.norm");
    let config = ParquetConfig {
        policy: ErrorPolicy::Skip,
        ..ParquetConfig::default()
    };
    let mut r = parquet_source::<u32>(&fixture("parquet_bad"), config);
    let summary = convert_to_norm(&mut r, &out, ConvertOptions::default(), |_, _| {}).unwrap();
    assert_eq!((summary.records, summary.skipped), (4, 2));
    // The header announced 6 records at the start; it must say 4 now.
    let config = NormConfig::new(DIMS, 3).with_check(Check::Sum);
    let mut back = norm::<u32>(&out, config, IoMode::Map);
    assert_eq!(read_samples(&mut back).unwrap().len(), 4);

    let mut failing = parquet_source::<u32>(&fixture("parquet_bad"), parquet_config());
    let err = convert_to_norm(&mut failing, &out, ConvertOptions::default(), |_, _| {});
    let err = err.unwrap_err();
    assert!(matches!(err, DatasetError::Row { .. }), "{err}");
    assert!(
        !dir.path().join("bad.norm.partial").exists(),
        "partial file removed"
    );
}

// ---- corruption -----------------------------------------------------------------------

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let p =
            std::env::temp_dir().join(format!("tessera-datasets-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        Self(p)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Copies fixture `name` into the directory; returns the copy's path.
    fn copy(&self, name: &str) -> PathBuf {
        let to = self.0.join(name);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::copy(fixture(name), &to).expect("copy");
        to
    }

    /// Copies fixture `name`, changed by `edit`.
    fn edited(&self, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
        let to = self.copy(name);
        let mut bytes = std::fs::read(&to).unwrap();
        edit(&mut bytes);
        std::fs::write(&to, bytes).unwrap();
        to
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `DataError` of a `Data` error about `path`, after checking that the message names the
/// file, the sample and the byte offset.
fn data_error(e: &DatasetError, path: &Path) -> DataError {
    let DatasetError::Data { path: p, error } = e else {
        panic!("not a data error: {e}");
    };
    assert_eq!(p, path);
    let text = e.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains(&format!("byte {}", error.offset)), "{text}");
    if let Some(s) = error.sample {
        assert!(text.contains(&format!("sample {s}")), "{text}");
    }
    *error
}

/// Opens a Parquet dataset with `u32` keys and reads it to the end.
fn read_parquet(path: &Path, config: ParquetConfig) -> Result<(), DatasetError> {
    let mut r = DatasetPlan::parquet(path, config)?.source::<u32>();
    batches(&mut r, 16, 256).map(|_| ())
}

fn read_err<K: Key>(reader: &mut DatasetSource<K>) -> DatasetError {
    let e = batches(reader, 16, 256).expect_err("an error");
    let again = batches(reader, 16, 256).expect("an error ends the source");
    assert!(again.is_empty(), "nothing after the error");
    e
}

fn skip(config: NormConfig) -> NormConfig {
    config.with_policy(ErrorPolicy::Skip)
}

#[test]
fn flipped_checksum_byte_names_sample_and_offset() {
    let dir = TempDir::new("checksum");
    let offsets = record_offsets("norm_sum");
    let path = dir.edited("norm_sum.data", |b| b[offsets[18] as usize - 1] ^= 0x40);
    for io in IO_MODES {
        let e = read_err(&mut norm::<u32>(&path, norm_config(Check::Sum), io));
        let e = data_error(&e, &path);
        assert!(matches!(e.kind, DataErrorKind::Checksum { .. }), "{e}");
        assert_eq!((e.sample, e.offset), (Some(17), offsets[17]));

        let mut r = norm::<u32>(&path, skip(norm_config(Check::Sum)), io);
        let got = read_samples(&mut r).unwrap();
        let mut want = expected_samples();
        want.remove(17);
        assert_eq!(got, want);
        let f = &r.stats().files[0];
        assert_eq!((f.decoded, f.skipped), (49, 1));
        let first = f.first_skipped.as_ref().expect("first skipped");
        assert_eq!(data_error(first, &path).sample, Some(17));
    }
}

#[test]
fn truncated_file_names_sample_and_offset() {
    let dir = TempDir::new("truncated");
    let offsets = record_offsets("norm_plain");
    dir.copy("norm_plain_0.data");
    let cut = offsets[35] as usize + 10; // inside sample 5 of the second file
    let second = dir.edited("norm_plain_1.data", |b| b.truncate(cut));
    let list = dir.edited("norm_plain_list.txt", |_| {});
    for io in IO_MODES {
        let e = read_err(&mut norm::<u32>(&list, norm_config(Check::None), io));
        let e = data_error(&e, &second);
        assert!(
            matches!(e.kind, DataErrorKind::Truncated { available: 10, .. }),
            "{e}"
        );
        assert_eq!((e.sample, e.offset), (Some(5), offsets[35]));

        let mut r = norm::<u32>(&list, skip(norm_config(Check::None)), io);
        assert_eq!(read_samples(&mut r).unwrap(), expected_samples()[..35]);
        let s = r.stats();
        assert_eq!((s.decoded(), s.skipped()), (35, 15));
        assert_eq!((s.files[0].skipped, s.files[1].skipped), (0, 15));
    }
}

#[test]
fn header_dims_mismatch_stops_or_skips_the_whole_file() {
    let dir = TempDir::new("header");
    // dense_dim, the header's fourth int64, becomes 4.
    let first = dir.edited("norm_plain_0.data", |b| b[24] = 4);
    dir.copy("norm_plain_1.data");
    let list = dir.copy("norm_plain_list.txt");
    let e = read_err(&mut norm::<u32>(
        &list,
        norm_config(Check::None),
        IoMode::Map,
    ));
    let e = data_error(&e, &first);
    let kind = DataErrorKind::HeaderMismatch {
        field: "dense_dim",
        expected: 3,
        found: 4,
    };
    assert_eq!((e.kind, e.sample, e.offset), (kind, None, 24));

    for io in IO_MODES {
        let mut r = norm::<u32>(&list, skip(norm_config(Check::None)), io);
        assert_eq!(read_samples(&mut r).unwrap(), expected_samples()[30..]);
        let s = r.stats();
        assert_eq!((s.decoded(), s.skipped(), s.files_skipped()), (20, 30, 1));
        assert!(s.files[0].skipped_whole && !s.files[1].skipped_whole);
    }
}

#[test]
fn nnz_above_max_names_the_nnz_field() {
    let want = expected_samples();
    let offsets = record_offsets("norm_plain");
    let dir = TempDir::new("nnz");
    let list = dir.copy("norm_plain_list.txt");
    dir.copy("norm_plain_0.data");
    dir.copy("norm_plain_1.data");
    // With max_nnz 2, the first slot of 3 keys is an error.
    let (i, slot) = want
        .iter()
        .enumerate()
        .find_map(|(i, s)| {
            s.keys
                .iter()
                .position(|k| k.len() == 3)
                .map(|slot| (i, slot))
        })
        .expect("a slot of 3 keys");
    let before: usize = want[i].keys[..slot].iter().map(|k| 4 + 4 * k.len()).sum();
    let nnz_at = offsets[i] + 16 + before as u64;
    let config = NormConfig::new(DIMS, 2);
    for io in IO_MODES {
        let e = read_err(&mut norm::<u32>(&list, config, io));
        let file = dir
            .path()
            .join(["norm_plain_0.data", "norm_plain_1.data"][i / 30]);
        let e = data_error(&e, &file);
        let kind = DataErrorKind::NnzTooLarge {
            slot: slot as u32,
            nnz: 3,
            max: 2,
        };
        assert_eq!(
            (e.kind, e.sample, e.offset),
            (kind, Some(i as u64 % 30), nnz_at)
        );

        // Unframed, Skip finds the next sample from the nnz fields: exactly the samples with
        // a slot of 3 keys are left out.
        let mut r = norm::<u32>(&list, skip(config), io);
        let kept: Vec<Sample> = want
            .iter()
            .filter(|s| s.keys.iter().all(|k| k.len() <= 2))
            .cloned()
            .collect();
        assert_eq!(read_samples(&mut r).unwrap(), kept);
        assert_eq!(r.stats().skipped(), (want.len() - kept.len()) as u64);
    }

    // Framed: an nnz of 100 behind a valid checksum.
    let offsets = record_offsets("norm_sum");
    let rec = offsets[10] as usize;
    let path = dir.edited("norm_sum.data", |b| {
        let nnz_at = rec + 4 + 16 + 2 * (4 + 4); // slots 0 and 1 are one-hot
        b[nnz_at..nnz_at + 4].copy_from_slice(&100i32.to_le_bytes());
        let len = i32::from_le_bytes(b[rec..rec + 4].try_into().unwrap()) as usize;
        let sum = b[rec + 4..rec + 4 + len]
            .iter()
            .fold(0u8, |a, &x| a.wrapping_add(x));
        b[rec + 4 + len] = sum;
    });
    let e = read_err(&mut norm::<u32>(
        &path,
        norm_config(Check::Sum),
        IoMode::Map,
    ));
    let e = data_error(&e, &path);
    let kind = DataErrorKind::NnzTooLarge {
        slot: 2,
        nnz: 100,
        max: 3,
    };
    assert_eq!(
        (e.kind, e.sample, e.offset),
        (kind, Some(10), rec as u64 + 36)
    );
    let mut r = norm::<u32>(&path, skip(norm_config(Check::Sum)), IoMode::Map);
    assert_eq!(read_samples(&mut r).unwrap().len(), 49);
    assert_eq!(r.stats().skipped(), 1);
}

#[test]
fn trailing_bytes_are_counted_whole() {
    let dir = TempDir::new("trailing");
    let len = std::fs::metadata(fixture("norm_sum.data")).unwrap().len();
    let path = dir.edited("norm_sum.data", |b| b.extend_from_slice(&[7u8; 40]));
    for io in IO_MODES {
        let e = read_err(&mut norm::<u32>(&path, norm_config(Check::Sum), io));
        let e = data_error(&e, &path);
        let kind = DataErrorKind::TrailingBytes { count: 40 };
        assert_eq!((e.kind, e.sample, e.offset), (kind, None, len), "{io:?}");
    }
}

#[test]
fn raw_file_of_partial_samples_is_refused() {
    let dir = TempDir::new("raw");
    let path = dir.edited("raw_f32.data", |b| b.truncate(b.len() - 5));
    let e = read_err(&mut raw::<u32>(&path, RawConfig::new(DIMS), IoMode::Map));
    let e = data_error(&e, &path);
    let kind = DataErrorKind::RawSize {
        sample_bytes: 32,
        remainder: 27,
    };
    assert_eq!((e.kind, e.sample, e.offset), (kind, None, 1600 - 32));
}

#[test]
fn malformed_file_lists_name_the_line() {
    let dir = TempDir::new("lists");
    let cases = [
        ("empty.txt", "", 1, FileListErrorKind::MissingCount),
        (
            "word.txt",
            "two\na\nb\n",
            1,
            FileListErrorKind::BadCount { text: "two".into() },
        ),
        (
            "short.txt",
            "3\na\nb\n",
            1,
            FileListErrorKind::CountMismatch {
                announced: 3,
                found: 2,
            },
        ),
        ("blank.txt", "2\na\n\nb\n", 3, FileListErrorKind::EmptyPath),
    ];
    for (name, text, line, kind) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        // Only text that starts with a count line is taken for a list; the rest are read as
        // Norm data and fail there (named by path too).
        let err = match norm_source::<u32>(&path, norm_config(Check::None), IoMode::Map) {
            Ok(mut r) => read_err(&mut r),
            Err(e) => e,
        };
        match (&err, name) {
            (DatasetError::FileList { path: p, error }, _) => {
                assert_eq!((p, error.line, &error.kind), (&path, line, &kind));
                let text = err.to_string();
                assert!(text.contains(name) && text.contains(&format!("line {line}")));
            }
            (DatasetError::Data { path: p, .. }, "empty.txt" | "word.txt") => {
                assert_eq!(p, &path);
                let e = tessera_data::dataset::FileList::read(&path).unwrap_err();
                let DatasetError::FileList { error, .. } = e else {
                    panic!("{e}")
                };
                assert_eq!((error.line, error.kind), (line, kind));
            }
            _ => panic!("{name}: {err}"),
        }
    }
}

fn row_error(e: &DatasetError) -> (&Path, u64, &str, RowErrorKind) {
    let DatasetError::Row {
        path,
        row,
        column,
        kind,
    } = e
    else {
        panic!("not a row error: {e}");
    };
    let text = e.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains(&format!("row {row}")) && text.contains(column.as_str()));
    (path, *row, column, *kind)
}

#[test]
fn parquet_row_count_mismatch_names_the_file() {
    let dir = TempDir::new("rowcount");
    dir.copy("parquet/part_0.parquet");
    dir.copy("parquet/part_1.parquet");
    dir.edited("parquet/_metadata.json", |b| {
        let mut meta: Value = serde_json::from_slice(b).unwrap();
        meta["file_stats"][1]["num_rows"] = Value::from(26);
        *b = serde_json::to_vec(&meta).unwrap();
    });
    let mut r = parquet_source::<u32>(&dir.path().join("parquet"), parquet_config());
    let e = read_err(&mut r);
    let DatasetError::RowCount {
        path,
        expected_from,
        expected,
        found,
    } = &e
    else {
        panic!("{e}");
    };
    assert!(path.ends_with("part_1.parquet"), "{e}");
    assert_eq!(
        (*expected_from, *expected, *found),
        ("_metadata.json", 26, 25)
    );
    assert!(e.to_string().contains("part_1.parquet"));
}

#[test]
fn parquet_nulls_and_wide_keys_name_row_and_column() {
    // parquet_split_bad holds the same rows in byte-stream-split pages (version 1): the null
    // in I1 leaves five values for six levels, which the page check counts from the levels.
    for set in ["parquet_bad", "parquet_split_bad"] {
        let bad = fixture(set);
        let stop = ParquetConfig::default();
        let e = read_err(&mut parquet_source::<u32>(&bad, stop.clone()));
        let kind = RowErrorKind::KeyRange {
            value: 1 << 33,
            offset: 0,
        };
        let (path, row, column, k) = row_error(&e);
        assert!(path.ends_with("bad.parquet"));
        assert_eq!((row, column, k), (2, "C1", kind), "{set}");
        assert!(e.to_string().contains("8589934592"), "{e}");

        // i64 keys hold 2^33; the null in row 4 is next.
        let e = read_err(&mut parquet_source::<i64>(&bad, stop));
        let (_, row, column, kind) = row_error(&e);
        assert_eq!((row, column, kind), (4, "I1", RowErrorKind::Null), "{set}");

        let config = ParquetConfig {
            policy: ErrorPolicy::Skip,
            ..ParquetConfig::default()
        };
        let mut r = parquet_source::<u32>(&bad, config);
        let got = read_samples(&mut r).unwrap();
        // Column I2 (dense feature 1) holds the row number.
        let rows: Vec<f32> = got.iter().map(|s| s.dense[1]).collect();
        assert_eq!(rows, [0.0, 1.0, 3.0, 5.0], "{set}: rows 2 and 4 left out");
        let f = &r.stats().files[0];
        assert_eq!((f.decoded, f.skipped), (4, 2), "{set}");
        assert_eq!(row_error(f.first_skipped.as_ref().unwrap()).1, 2, "{set}");
    }
}

#[test]
fn parquet_page_checksum_catches_a_flipped_data_byte() {
    // Byte 340 lies in the last page of column I2 (bytes 191..349) of part_0.parquet, which
    // was written with a CRC-32 on every page.
    let dir = TempDir::new("parquet-crc");
    dir.copy("parquet_split/_metadata.json");
    dir.copy("parquet_split/part_1.parquet");
    let path = dir.edited("parquet_split/part_0.parquet", |b| b[340] ^= 0x01);
    let e = read_parquet(&path, parquet_config()).expect_err("a checksum mismatch");
    assert!(matches!(e, DatasetError::Parquet { .. }), "{e}");
    assert!(e.to_string().contains("CRC checksum mismatch"), "{e}");
    assert_eq!(e.path(), path);
}

#[test]
fn parquet_ids_beyond_their_slot_size_are_refused() {
    let want = expected_samples();
    // Slot 3 shrunk to 10 ids: the first sample with an id of 10 or more in it fails.
    let i = want
        .iter()
        .position(|s| s.keys[3].iter().any(|&k| k - 1150 >= 10))
        .expect("such a sample");
    let id = want[i].keys[3]
        .iter()
        .map(|&k| k - 1150)
        .find(|&id| id >= 10)
        .unwrap();
    let config = ParquetConfig {
        slot_size_array: Some(vec![100, 50, 1000, 10]),
        ..ParquetConfig::default()
    };
    let e = read_err(&mut parquet_source::<u32>(&fixture("parquet"), config));
    let (path, row, column, kind) = row_error(&e);
    assert!(path.ends_with(["part_0.parquet", "part_1.parquet"][i / 25]));
    let want_kind = RowErrorKind::KeyOutOfSlot {
        value: id,
        slot_size: 10,
    };
    assert_eq!((row, column, kind), ((i % 25) as u64, "C4", want_kind));

    let short = ParquetConfig {
        slot_size_array: Some(vec![100, 50, 1000]),
        ..ParquetConfig::default()
    };
    let e = DatasetPlan::parquet(&fixture("parquet"), short).expect_err("error");
    assert!(matches!(e, DatasetError::Config { .. }), "{e}");
}

#[test]
fn parquet_missing_column_is_a_schema_error() {
    let dir = TempDir::new("schema");
    dir.copy("parquet/part_0.parquet");
    dir.copy("parquet/part_1.parquet");
    let meta = dir.edited("parquet/_metadata.json", |b| {
        let text = String::from_utf8(b.clone())
            .unwrap()
            .replace("\"I3\"", "\"I9\"");
        *b = text.into_bytes();
    });
    let e = read_err(&mut parquet_source::<u32>(&meta, parquet_config()));
    let DatasetError::Schema { path, column, kind } = &e else {
        panic!("{e}");
    };
    assert!(path.ends_with("part_0.parquet"));
    assert_eq!((column.as_str(), kind), ("I9", &SchemaErrorKind::Missing));
}

#[test]
fn parquet_chunk_outside_the_file_is_a_typed_error() {
    // Bytes of part_0.parquet's footer (Thrift zigzag varints): the low bit of a varint flips
    // its sign, a high bit makes it huge. The parquet crate asserts on negative ones.
    let dir = TempDir::new("parquet-chunk");
    dir.copy("parquet/_metadata.json");
    for (at, xor, column, start, len) in [
        (3073, 0x01, "C3.list.element", 4, -169),
        (3185, 0x01, "I2", -173, 115),
        (3186, 0x80, "I2", 229_548, 115),
    ] {
        let path = dir.edited("parquet/part_0.parquet", |b| b[at] ^= xor);
        let e = read_parquet(&path, ParquetConfig::default()).expect_err("a corrupt footer");
        let DatasetError::ColumnChunk {
            row_group,
            column: c,
            start: s,
            len: l,
            file_len,
            ..
        } = &e
        else {
            panic!("byte {at}: {e}");
        };
        assert_eq!(
            (*row_group, c.as_str(), *s, *l, *file_len),
            (0, column, start, len, 6195),
            "byte {at}: {e}"
        );
        assert!(e.to_string().contains("outside the 6195-byte file"), "{e}");
    }
}

/// Every byte of two fixture files, flipped with three masks, read to the end: any outcome
/// but a panic of the `parquet` crate (which the reader turns into an error naming it). Before
/// the column-chunk and page checks, 106 of part_0's flips with 0x01, 0x02, 0x80 and 0xff
/// panicked (a negative chunk offset, a dictionary page missing, a short byte-stream-split
/// page); after them, none of the 92 100 such flips of all six fixture files do.
#[test]
#[cfg_attr(miri, ignore)]
fn no_single_byte_corruption_reaches_a_parquet_panic() {
    let dir = TempDir::new("parquet-scan");
    for (set, file) in [
        ("parquet", "part_0.parquet"),
        ("parquet_split", "part_0.parquet"),
    ] {
        dir.copy(&format!("{set}/_metadata.json"));
        let name = format!("{set}/{file}");
        let path = dir.copy(&name);
        // Read once; each corrupt copy is one write over the file.
        let mut bytes = std::fs::read(&path).unwrap();
        for at in 0..bytes.len() {
            for xor in [0x01u8, 0x02, 0x80] {
                bytes[at] ^= xor;
                std::fs::write(&path, &bytes).unwrap();
                bytes[at] ^= xor;
                let result = read_parquet(&path, ParquetConfig::default());
                if let Err(e) = result {
                    assert!(
                        !e.to_string().contains("panicked"),
                        "{name} byte {at} ^ {xor:#x}: {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn corrupt_parquet_bytes_are_errors_not_panics() {
    // Single-byte corruptions of part_0.parquet on which the parquet crate panics or has
    // panicked (57: RLE, dictionary and Thrift decoders, a capacity overflow; 59: the last
    // two flips), found by flipping every byte of the file: each must be an error.
    let dir = TempDir::new("parquet-bytes");
    dir.copy("parquet/_metadata.json");
    let flips = [
        (16, 0x01),
        (162, 0x01),
        (163, 0x01),
        (2892, 0x01),
        (3073, 0x01),
        (3078, 0x80),
        (3368, 0x80),
    ];
    for (at, xor) in flips {
        let path = dir.edited("parquet/part_0.parquet", |b| b[at] ^= xor);
        let mut r = parquet_source::<u32>(&path, ParquetConfig::default());
        let e = read_err(&mut r);
        assert_eq!(e.path(), path, "byte {at}: {e}");
    }
}
