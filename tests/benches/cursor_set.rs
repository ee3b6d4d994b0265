//! Cursor sets: rows per second reading a Norm file held in memory (200 000 samples of 1
//! label, 13 dense features and 26 slots of 1..=3 `u32` keys, checksummed, so decoding does
//! real work per byte) in batches of 1024, through
//!
//! - `serial`: one `SampleCursor` over the whole file, on the calling thread;
//! - `set/2 copied`: a 2-worker `CursorSet` consolidated back to the serial order, read
//!   through a `SampleCursor` on the calling thread (3 threads in all: the consumer copies
//!   each batch into its own);
//! - `set/2 in place`: the same set read through `into_cursor`, rows read where the workers
//!   decoded them, at queue depths 1, 2 and 4;
//! - `pooled`: the same sets started with `scoped_pooled` and one `BufferPool` for every
//!   pass, so each pass reuses the buffers of the one before (a set per epoch);
//! - `partitions/2`: 2 unmerged `partition_cursors` on 2 scoped threads, each summing its own rows: no
//!   handing over and no merging, the ceiling for 2 threads;
//! - `indexed`: the workers' partitions jump to their batches by a `BatchIndex` built once,
//!   instead of passing over the other worker's records (`index build`: building it);
//! - `pass over all`: one partition's pass over every batch it does not read (all of them),
//!   what partitioning costs each worker.
//!
//! Per row the consumer adds the label and the first key of slot 0, so decoding dominates.
//! Each iteration is a whole pass, threads started and joined included (and, for the
//! unpooled sets, their batch buffers allocated: the serial and raw cursors, and the pooled
//! sets, reuse theirs).
//!
//! The `dataset_sets` group reads datasets on disk through `DatasetPlan` (the one
//! `BatchSource` of every dataset kind): 200 000 samples of 1 label, 13 dense features and 26
//! one-key slots, as a list of 4 checksummed Norm files and as 4 Parquet files (snappy, row
//! groups of 10 000 rows) with their `_metadata.json`, each read by the serial cursor
//! (`serial`) and by a 2-worker cursor set, rows read in place (`set/2`): with worker 0 on
//! the consumer's thread (`consumer decodes`) or, as `CursorSetConfig` has it by default,
//! each worker on a thread of its own (`worker threads`). Per row the consumer does the
//! same small work as above. The plan is made once, so from the second pass on the
//! partitions jump to the batch starts it has found; `norm list, first pass` makes a fresh
//! plan per pass (starts found as the partitions go).
//!
//! Run with `cargo bench -p tessera-tests --bench cursor_set` (`-- dataset_sets` for the
//! datasets only); results are summarised in `BENCHMARKS.md` at the workspace root.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tessera_core::cursor::RowCursor;
use tessera_core::data::{
    BatchIndex, BatchSource, Check, Dims, NormConfig, NormDecoder, NormEncoder, NormSlice,
    SampleCursor,
};
use tessera_data::buffers::BatchBuffers;
use tessera_data::cursor_set::{BufferPool, CursorSet, CursorSetConfig, partition_cursors};
use tessera_data::dataset::{DatasetPlan, FileList, ParquetConfig};

mod support;
use support::Rng;

const SAMPLES: usize = 200_000;
const BATCH: usize = 1024;
const DIMS: Dims = Dims::new(1, 13, 26);
const MAX_NNZ: u32 = 3;
/// Keys a batch has room for: every slot full.
const VALUES: usize = BATCH * 26 * MAX_NNZ as usize;

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8))
}

/// The Norm file: checksummed records, 1..=3 keys per slot.
fn file(config: NormConfig) -> Vec<u8> {
    let enc = NormEncoder::<u32>::new(config);
    let mut out = vec![0u8; 128 + SAMPLES * config.max_record_bytes(4)];
    let mut n = enc.header(SAMPLES as u64, &mut out).unwrap();
    let mut rng = Rng::new(7);
    let mut keys = [[0u32; 3]; 26];
    for _ in 0..SAMPLES {
        let label = [(rng.next() & 1) as f32];
        let dense: Vec<f32> = (0..13).map(|_| (rng.next() % 1000) as f32 / 7.0).collect();
        let mut lens = [0usize; 26];
        for (slot, (k, len)) in keys.iter_mut().zip(&mut lens).enumerate() {
            *len = 1 + (rng.next() % 3) as usize;
            for key in &mut k[..*len] {
                *key = slot as u32 * 1_000_000 + (rng.next() % 1_000_000) as u32;
            }
        }
        let slots: Vec<&[u32]> = keys.iter().zip(&lens).map(|(k, &l)| &k[..l]).collect();
        n += enc.sample(&label, &dense, &slots, &mut out[n..]).unwrap();
    }
    out.truncate(n);
    out
}

/// The consumer's per-row work: the label plus the first key of slot 0.
fn consume<S: BatchSource<u32>>(mut cursor: SampleCursor<'_, u32, S>) -> f64 {
    let mut sum = 0.0;
    while cursor.move_next().unwrap() {
        sum += f64::from(cursor.labels()[0]);
        sum += f64::from(cursor.keys(0).map_or(0, |k| k[0]));
    }
    sum
}

fn cursor_set(c: &mut Criterion) {
    let norm = NormConfig::new(DIMS, MAX_NNZ).with_check(Check::Sum);
    let file = file(norm);
    let file = &file[..];
    let mut consumer = BatchBuffers::<u32>::new(DIMS, BATCH, VALUES).unwrap();

    let serial = consume(SampleCursor::new(
        NormSlice::norm(norm, file),
        consumer.batch().unwrap(),
    ));

    let mut g = c.benchmark_group("cursor_set");
    g.throughput(Throughput::Elements(SAMPLES as u64));
    g.bench_function("serial", |b| {
        b.iter(|| {
            let source = NormSlice::norm(norm, black_box(file));
            black_box(consume(SampleCursor::new(
                source,
                consumer.batch().unwrap(),
            )))
        })
    });
    let set = |depth| {
        CursorSetConfig::new(DIMS, BATCH, VALUES)
            .with_workers(2)
            .with_queue_depth(depth)
    };
    let local = |depth| set(depth).with_consumer_decoding(true);
    g.bench_function("set/2 copied (queue depth 2)", |b| {
        b.iter(|| {
            let sum = thread::scope(|s| {
                let set = CursorSet::scoped(s, set(2), |w, n| {
                    NormSlice::norm(norm, black_box(file)).partition(w, n)
                })
                .unwrap();
                consume(SampleCursor::new(set, consumer.batch().unwrap()))
            });
            assert_eq!(sum, serial);
            black_box(sum)
        })
    });
    let pool = BufferPool::new();
    g.bench_function("set/2 copied, pooled (queue depth 2)", |b| {
        b.iter(|| {
            let sum = thread::scope(|s| {
                let set = CursorSet::scoped_pooled(s, set(2), &pool, |w, n| {
                    NormSlice::norm(norm, black_box(file)).partition(w, n)
                })
                .unwrap();
                consume(SampleCursor::new(set, consumer.batch().unwrap()))
            });
            assert_eq!(sum, serial);
            black_box(sum)
        })
    });
    // Where each batch starts, found once: indexed partitions jump to their batches.
    let mut starts = vec![0u64; BatchIndex::batches_for(SAMPLES as u64, BATCH)];
    let index = BatchIndex::build(NormDecoder::<u32>::new(norm), file, BATCH, &mut starts).unwrap();
    let partition = |w, n, indexed: bool| {
        let source = NormSlice::<u32>::norm(norm, black_box(file)).partition(w, n);
        if indexed {
            source.with_index(index)
        } else {
            source
        }
    };
    // Unpooled: each pass allocates (and first-touches) its buffers, as a set started
    // without a pool does; pooled: each pass reuses the last one's, from the second on.
    // Indexed: the workers jump to their batches by `index` instead of walking.
    // Consumer decodes: worker 0 runs on the consumer's thread (2 threads in all).
    let variants = [
        (1, false, false, false),
        (2, false, false, false),
        (4, false, false, false),
        (1, true, false, false),
        (2, true, false, false),
        (1, true, true, false),
        (2, true, true, false),
        (2, false, false, true),
        (2, true, true, true),
        (4, true, true, true),
    ];
    for (depth, pooled, indexed, on_consumer) in variants {
        let mut name = String::from("set/2 in place");
        for (on, what) in [
            (on_consumer, ", consumer decodes"),
            (pooled, ", pooled"),
            (indexed, ", indexed"),
        ] {
            if on {
                name.push_str(what);
            }
        }
        let name = format!("{name} (queue depth {depth})");
        pool.clear();
        g.bench_function(name, |b| {
            b.iter(|| {
                let sum = thread::scope(|s| {
                    let own = BufferPool::new();
                    let pool = if pooled { &pool } else { &own };
                    let config = if on_consumer {
                        local(depth)
                    } else {
                        set(depth)
                    };
                    let set =
                        CursorSet::scoped_pooled(s, config, pool, |w, n| partition(w, n, indexed))
                            .unwrap();
                    let mut cursor = set.into_cursor();
                    let mut sum = 0.0;
                    while cursor.move_next().unwrap() {
                        sum += f64::from(cursor.labels()[0]);
                        sum += f64::from(cursor.keys(0).map_or(0, |k| k[0]));
                    }
                    sum
                });
                assert_eq!(sum, serial);
                black_box(sum)
            })
        });
    }
    let mut buffers: Vec<_> = (0..2)
        .map(|_| BatchBuffers::<u32>::new(DIMS, BATCH, VALUES).unwrap())
        .collect();
    for indexed in [false, true] {
        let name = if indexed {
            "partitions/2, indexed"
        } else {
            "partitions/2"
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                let cursors =
                    partition_cursors(&mut buffers, |w, n| partition(w, n, indexed)).unwrap();
                let sum: f64 = thread::scope(|s| {
                    let threads: Vec<_> = cursors
                        .into_iter()
                        .map(|c| s.spawn(move || consume(c)))
                        .collect();
                    threads.into_iter().map(|t| t.join().unwrap()).sum()
                });
                black_box(sum)
            })
        });
    }
    let mut scratch = starts.clone();
    g.bench_function("index build", |b| {
        b.iter(|| {
            let decoder = NormDecoder::<u32>::new(norm);
            let built = BatchIndex::build(decoder, black_box(file), BATCH, &mut scratch);
            black_box(built.unwrap().batches())
        })
    });
    // What a worker pays for the batches it does not read: passing over all of them.
    g.bench_function("pass over all", |b| {
        b.iter(|| {
            let source = NormSlice::norm(norm, black_box(file)).partition(0, 100_000);
            black_box(consume(SampleCursor::new(
                source,
                consumer.batch().unwrap(),
            )))
        })
    });
    g.finish();
}

/// Files of the `dataset_sets` group.
const FILES: usize = 4;

/// Row `i` of the on-disk datasets: label, 13 dense values, 26 one-key slots.
fn row(rng: &mut Rng, slot_keys: &mut [u32; 26]) -> ([f32; 1], [f32; 13]) {
    let label = [(rng.next() & 1) as f32];
    let dense: [f32; 13] = std::array::from_fn(|_| (rng.next() % 1000) as f32 / 7.0);
    for (slot, k) in slot_keys.iter_mut().enumerate() {
        *k = slot as u32 * 1_000_000 + (rng.next() % 1_000_000) as u32;
    }
    (label, dense)
}

/// The same rows as `FILES` checksummed Norm files and a file list; returns the list.
fn norm_list(dir: &Path, config: NormConfig) -> PathBuf {
    let enc = NormEncoder::<u32>::new(config);
    let per_file = SAMPLES / FILES;
    let mut rng = Rng::new(11);
    let mut keys = [0u32; 26];
    let mut list = format!("{FILES}\n");
    for f in 0..FILES {
        let mut out = vec![0u8; 128 + per_file * config.max_record_bytes(4)];
        let mut n = enc.header(per_file as u64, &mut out).unwrap();
        for _ in 0..per_file {
            let (label, dense) = row(&mut rng, &mut keys);
            let slots: Vec<&[u32]> = keys.iter().map(std::slice::from_ref).collect();
            n += enc.sample(&label, &dense, &slots, &mut out[n..]).unwrap();
        }
        let name = format!("part_{f}.data");
        std::fs::write(dir.join(&name), &out[..n]).unwrap();
        list.push_str(&name);
        list.push('\n');
    }
    let path = dir.join("file_list.txt");
    std::fs::write(&path, list).unwrap();
    path
}

/// The same rows as `FILES` Parquet files (HugeCTR's layout: `label`, `I1..I13`, `C1..C26`
/// as int64) and their `_metadata.json`; returns the directory.
fn parquet_dataset(dir: &Path) -> PathBuf {
    use parquet::basic::Compression;
    use parquet::data_type::{FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let mut fields = String::from("required float label;");
    for i in 1..=13 {
        fields.push_str(&format!(" required float I{i};"));
    }
    for i in 1..=26 {
        fields.push_str(&format!(" required int64 C{i};"));
    }
    let schema = Arc::new(parse_message_type(&format!("message m {{ {fields} }}")).unwrap());
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build(),
    );
    let per_file = SAMPLES / FILES;
    let group = 10_000;
    let mut rng = Rng::new(11);
    let mut keys = [0u32; 26];
    let mut stats = Vec::new();
    for f in 0..FILES {
        let name = format!("part_{f}.parquet");
        let file = std::fs::File::create(dir.join(&name)).unwrap();
        let mut writer = SerializedFileWriter::new(file, schema.clone(), props.clone()).unwrap();
        for _ in 0..per_file / group {
            let mut floats: Vec<Vec<f32>> = (0..14).map(|_| Vec::with_capacity(group)).collect();
            let mut ints: Vec<Vec<i64>> = (0..26).map(|_| Vec::with_capacity(group)).collect();
            for _ in 0..group {
                let (label, dense) = row(&mut rng, &mut keys);
                for (col, x) in floats.iter_mut().zip(label.iter().chain(&dense)) {
                    col.push(*x);
                }
                for (col, &k) in ints.iter_mut().zip(&keys) {
                    col.push(i64::from(k));
                }
            }
            let mut rg = writer.next_row_group().unwrap();
            let mut i = 0;
            while let Some(mut col) = rg.next_column().unwrap() {
                if i < 14 {
                    let w = col.typed::<FloatType>();
                    w.write_batch(&floats[i], None, None).unwrap();
                } else {
                    let w = col.typed::<Int64Type>();
                    w.write_batch(&ints[i - 14], None, None).unwrap();
                }
                col.close().unwrap();
                i += 1;
            }
            rg.close().unwrap();
        }
        writer.close().unwrap();
        stats.push(format!(
            r#"{{"file_name": "{name}", "num_rows": {per_file}}}"#
        ));
    }
    let cols = |prefix: &str, n: usize, first: usize| {
        (1..=n)
            .map(|i| {
                format!(
                    r#"{{"col_name": "{prefix}{i}", "index": {}}}"#,
                    first + i - 1
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let meta = format!(
        r#"{{"file_stats": [{}], "labels": [{{"col_name": "label", "index": 0}}], "conts": [{}], "cats": [{}]}}"#,
        stats.join(", "),
        cols("I", 13, 1),
        cols("C", 26, 14)
    );
    std::fs::write(dir.join("_metadata.json"), meta).unwrap();
    dir.to_owned()
}

fn dataset_sets(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench_dataset_sets");
    let (norm_dir, parquet_dir) = (root.join("norm"), root.join("parquet"));
    for d in [&norm_dir, &parquet_dir] {
        let _ = std::fs::remove_dir_all(d);
        std::fs::create_dir_all(d).unwrap();
    }
    let norm = NormConfig::new(DIMS, 1).with_check(Check::Sum);
    let list = norm_list(&norm_dir, norm);
    let norm_plan = DatasetPlan::norm(FileList::resolve(&list).unwrap(), norm).unwrap();
    let parquet_plan =
        DatasetPlan::parquet(&parquet_dataset(&parquet_dir), ParquetConfig::default()).unwrap();
    let values = BATCH * 26;
    let mut consumer = BatchBuffers::<u32>::new(DIMS, BATCH, values).unwrap();
    let config = CursorSetConfig::new(DIMS, BATCH, values)
        .with_workers(2)
        .with_consumer_decoding(true);
    let mut g = c.benchmark_group("dataset_sets");
    g.throughput(Throughput::Elements(SAMPLES as u64));
    // Each dataset's sum over a serial pass, which every set's pass must reproduce.
    let norm_serial = consume(SampleCursor::new(
        norm_plan.source(),
        consumer.batch().unwrap(),
    ));
    let parquet_serial = consume(SampleCursor::new(
        parquet_plan.source(),
        consumer.batch().unwrap(),
    ));
    for (name, plan, serial) in [
        ("norm list", &norm_plan, norm_serial),
        ("parquet", &parquet_plan, parquet_serial),
    ] {
        g.bench_function(format!("{name}/serial"), |b| {
            b.iter(|| {
                black_box(consume(SampleCursor::new(
                    plan.source(),
                    consumer.batch().unwrap(),
                )))
            })
        });
        let pool = BufferPool::new();
        g.bench_function(format!("{name}/set/2 (consumer decodes, pooled)"), |b| {
            b.iter(|| {
                let sum = set_sum(config, &pool, plan);
                assert_eq!(sum, serial);
                black_box(sum)
            })
        });
        // The default: both workers on threads of their own, so both run ahead.
        let threads = config.with_consumer_decoding(false);
        g.bench_function(format!("{name}/set/2 (worker threads, pooled)"), |b| {
            b.iter(|| {
                let sum = set_sum(threads, &pool, plan);
                assert_eq!(sum, serial);
                black_box(sum)
            })
        });
    }
    // The first pass over a Norm list: a fresh plan, so no batch start is known yet and the
    // partitions find them as they go (the one ahead passes over the other's batches, the
    // one behind jumps). The rows above reuse one plan: from its second pass on, every
    // partition jumps to its batches.
    let files = FileList::resolve(&list).unwrap();
    let pool = BufferPool::new();
    g.bench_function(
        "norm list, first pass/set/2 (consumer decodes, pooled)",
        |b| {
            b.iter(|| {
                let plan = DatasetPlan::norm(files.clone(), norm).unwrap();
                let sum = set_sum(config, &pool, &plan);
                assert_eq!(sum, norm_serial);
                black_box(sum)
            })
        },
    );
    g.finish();
}

/// What `consume` sums, through a pooled 2-worker set over `plan`'s partitions.
fn set_sum(config: CursorSetConfig, pool: &BufferPool<u32>, plan: &DatasetPlan) -> f64 {
    thread::scope(|s| {
        let set =
            CursorSet::scoped_pooled(s, config, pool, |w, n| plan.partition::<u32>(w, n)).unwrap();
        let mut cursor = set.into_cursor();
        let mut sum = 0.0;
        while cursor.move_next().unwrap() {
            sum += f64::from(cursor.labels()[0]);
            sum += f64::from(cursor.keys(0).map_or(0, |k| k[0]));
        }
        sum
    })
}

criterion_group! { name = benches; config = config(); targets = cursor_set, dataset_sets }
criterion_main!(benches);
