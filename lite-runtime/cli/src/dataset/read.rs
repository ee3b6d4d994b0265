//! `tessera dataset read`: streams a dataset (or one rank's share of it) through a cursor
//! set and prints rows per second and `rows: R checksum: C`, a sum of per-row hashes that
//! any worker count gives alike and that the ranks' lines add up to.

use std::io::Write;
use std::path::PathBuf;
use std::thread;
use std::time::Instant;

use clap::{Arg, ArgMatches, Command, value_parser};
use tessera_core::cursor::RowCursor;
use tessera_core::data::{BatchError, DataErrorKind, Dims, Key, NormConfig, RawConfig};
use tessera_data::buffers::MemoryBudget;
use tessera_data::cursor_set::{CursorSet, CursorSetConfig};
use tessera_data::dataset::{DatasetPlan, FileList, IoMode, NormFileHeader, ParquetConfig};

use super::{
    BATCH_SAMPLES, Format, data_failure, detect, fit_to_files, norm_header_failure,
    parquet_failure, parse_check, policy, shard, shard_text, wide_keys,
};
use crate::failure::Failure;
use crate::output::Out;

/// The most workers `--workers` takes: far more threads than any machine this runs on has
/// cores is a mistake, not a configuration.
const MAX_WORKERS: usize = 256;

/// Batches each worker may hold decoded ahead of the consumer.
const QUEUE_DEPTH: usize = 2;

/// `tessera dataset read`: the options of `inspect` (but its path) and `--workers`.
pub(super) fn command(inspect: &Command) -> Command {
    let shared: Vec<Arg> = inspect
        .get_arguments()
        .filter(|a| a.get_id() != "path")
        .cloned()
        .collect();
    Command::new("read")
        .about(
            "Reads every row through a cursor set of --workers workers and prints rows per \
             second, then `rows: R checksum: C` (C: the wrapping sum of a hash of each row's \
             id, label, dense values and keys per slot; the same for any --workers, and the \
             ranks' R and C add up to the whole dataset's)",
        )
        .arg(
            Arg::new("files")
                .required(true)
                .num_args(1..)
                .value_parser(value_parser!(PathBuf))
                .help(
                    "data files or file lists (Norm, Raw), or one Parquet directory, \
                     _metadata.json or file list of .parquet files",
                ),
        )
        .args(shared)
        .arg(
            Arg::new("workers")
                .long("workers")
                .value_name("N")
                .value_parser(workers)
                .default_value("2")
                .help("decoding workers, 1 to 256 (worker 0 decodes on the reading thread)"),
        )
}

/// `--workers`: 1 to [`MAX_WORKERS`].
fn workers(text: &str) -> Result<usize, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| "not a whole number".to_owned())?;
    match usize::try_from(n) {
        Ok(n @ 1..=MAX_WORKERS) => Ok(n),
        _ => Err(format!("{n} is outside 1 to {MAX_WORKERS} workers")),
    }
}

/// Runs `read`.
pub(super) fn run(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let files: Vec<PathBuf> = m
        .get_many::<PathBuf>("files")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let Some(first) = files.first() else {
        return Err(Failure::Usage("<files> is required".into()));
    };
    let format = match m.get_one::<String>("format").map(String::as_str) {
        Some("norm") => Format::Norm,
        Some("raw") => Format::Raw,
        Some("parquet") => Format::Parquet,
        _ => detect(first)?,
    };
    match wide_keys(m) {
        false => read_as::<u32>(&files, format, m, out),
        true => read_as::<i64>(&files, format, m, out),
    }
}

fn read_as<K: Key + Send>(
    files: &[PathBuf],
    format: Format,
    m: &ArgMatches,
    out: &mut Out,
) -> Result<(), Failure> {
    let shard = shard(m)?;
    let workers = m.get_one::<usize>("workers").copied().unwrap_or(2);
    let io = match m.get_flag("buffered") {
        true => IoMode::buffered(),
        false => IoMode::Map,
    };
    let given_dims = m.get_one::<Dims>("dims").copied();
    let max_nnz = m.get_one::<u32>("max-nnz").copied();
    let first = &files[0];
    let (plan, samples, keys) = match format {
        Format::Norm | Format::Raw => {
            let mut paths = Vec::new();
            for f in files {
                paths.extend(FileList::resolve(f)?);
            }
            let Some(head) = paths.first() else {
                return Err(Failure::file(first, "the file list names no file"));
            };
            if format == Format::Norm {
                let h =
                    NormFileHeader::read(head).map_err(|e| norm_header_failure(e, given_dims))?;
                let dims = given_dims.unwrap_or(h.dims);
                crate::numbers::check_dims(dims)
                    .map_err(|what| Failure::file(head, format!("the header's {what}")))?;
                let check = m
                    .get_one::<String>("check")
                    .map_or(h.check, |c| parse_check(c));
                let config = NormConfig::new(dims, max_nnz.unwrap_or(i32::MAX as u32))
                    .with_check(check)
                    .with_policy(policy(m));
                let least = 4 * (dims.label_dense() as u64 + dims.slot_num as u64);
                let (samples, keys) = fit_to_files(first, &paths, least, dims)?;
                (DatasetPlan::norm(paths, config)?.with_io(io), samples, keys)
            } else {
                let dims = given_dims.ok_or_else(|| {
                    Failure::file(first, "Raw files have no header").hint("give --dims L,D,S")
                })?;
                let mut config = RawConfig::new(dims);
                config.policy = policy(m);
                config.float_label_dense =
                    m.get_one::<String>("raw-values").map(String::as_str) != Some("i32");
                let size = config.sample_bytes() as u64;
                let (samples, keys) = fit_to_files(first, &paths, size, dims)?;
                (DatasetPlan::raw(paths, config)?.with_io(io), samples, keys)
            }
        }
        Format::Parquet => {
            if files.len() > 1 {
                return Err(Failure::Usage(
                    "a Parquet dataset is one source: its directory, _metadata.json or file \
                     list"
                        .into(),
                ));
            }
            let config = ParquetConfig {
                slot_size_array: m.get_one::<Vec<u64>>("slot-sizes").cloned(),
                policy: policy(m),
                ..ParquetConfig::default()
            };
            let plan = DatasetPlan::parquet(first, config).map_err(parquet_failure)?;
            let keys = BATCH_SAMPLES
                .saturating_mul(plan.dims().slot_num)
                .saturating_mul(8);
            (plan, BATCH_SAMPLES, keys.max(1 << 20))
        }
    };
    let dims = plan.dims();
    // With --max-nnz, batches have room for every record whatever its keys.
    let keys = match max_nnz {
        Some(n) => samples
            .checked_mul(dims.slot_num)
            .and_then(|k| k.checked_mul(n as usize))
            .ok_or_else(|| Failure::Usage(format!("--max-nnz {n}: batch keys overflow")))?
            .max(1),
        None => keys,
    };
    // Every buffer of the set, checked against the budget before any is allocated.
    let per_buffer = samples as u128
        * (dims.label_dense() as u128 * 4 + dims.slot_num as u128 * K::WIDTH as u128)
        + keys as u128 * K::WIDTH as u128;
    let buffers = workers as u128 * (QUEUE_DEPTH as u128 + 1);
    MemoryBudget::DEFAULT
        .check::<u8>("cursor set batch buffers", per_buffer * buffers)
        .map_err(|e| Failure::file(first, e).hint("fewer --workers"))?;
    let plan = plan.shard(shard);
    let config = CursorSetConfig::new(dims, samples, keys)
        .with_workers(workers)
        .with_queue_depth(QUEUE_DEPTH)
        .with_consumer_decoding(true);
    let start = Instant::now();
    let (rows, checksum, error) = thread::scope(|s| -> Result<_, Failure> {
        let set = CursorSet::scoped(s, config, |w, n| plan.partition::<K>(w, n))
            .map_err(|e| Failure::other(format!("cursor set: {e}")))?;
        let mut cursor = set.into_cursor();
        let (mut rows, mut checksum) = (0u64, 0u64);
        loop {
            match cursor.move_next() {
                Ok(true) => {}
                Ok(false) => return Ok((rows, checksum, None)),
                Err(e) => return Ok((rows, checksum, Some(e))),
            }
            let id = cursor.id().map_or(u64::MAX, |id| id.low);
            let keys = |s| cursor.keys(s).unwrap_or(&[]);
            let hash = row_hash(id, cursor.labels(), cursor.dense(), dims.slot_num, keys);
            checksum = checksum.wrapping_add(hash);
            rows += 1;
        }
    })?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(e) = error {
        if let Some(full) = plan.failure() {
            return Err(data_failure(full, format, wide_keys(m)));
        }
        let failure = Failure::file(first, e);
        return Err(match e {
            tessera_core::data::SampleCursorError::Data(d)
                if d.kind == DataErrorKind::Batch(BatchError::NoRoom) =>
            {
                failure.hint(
                    "a batch ran out of keys: give --max-nnz N to size batches for N keys per slot",
                )
            }
            _ => failure,
        });
    }
    let rate = match seconds {
        0.0 => 0.0,
        s => rows as f64 / s,
    };
    writeln!(
        out,
        "read {rows} rows from {} file(s){} in {seconds:.3} s: {rate:.0} rows/s ({workers} worker(s))",
        plan.files().len(),
        shard_text(shard),
    )?;
    let announced = plan.rows();
    if rows < announced {
        writeln!(
            out,
            "skipped {} row(s) the files announce",
            announced - rows
        )?;
    }
    writeln!(out, "rows: {rows} checksum: {checksum:#018x}")?;
    Ok(())
}

/// A row's hash: FNV-1a over its id, label and dense values (their bits) and, per slot, the
/// key count and the keys widened to `i64` (so `u32` and `i64` readers agree), finished by
/// SplitMix64's mixer so that sums of hashes of similar rows do not cancel.
fn row_hash<'k, K: Key>(
    id: u64,
    labels: &[f32],
    dense: &[f32],
    slots: usize,
    keys: impl Fn(usize) -> &'k [K],
) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.eat(id);
    for x in labels.iter().chain(dense) {
        h.eat(u64::from(x.to_bits()));
    }
    for slot in 0..slots {
        let keys = keys(slot);
        h.eat(keys.len() as u64);
        for &k in keys {
            h.eat(k.to_i128() as i64 as u64);
        }
    }
    let mut z = h.0;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, 64 bits, fed whole little-endian words.
struct Fnv(u64);

impl Fnv {
    fn eat(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests;
