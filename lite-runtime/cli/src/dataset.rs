//! `tessera dataset`: inspect HugeCTR datasets (Norm, Raw, Parquet), convert Parquet to
//! Norm, and read any of them through a cursor set (`read`), whole or one rank's share.

mod read;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use tessera_core::data::{Check, DataErrorKind, Dims, ErrorPolicy, Key, NormConfig, RawConfig};
use tessera_data::buffers::MemoryBudget;
use tessera_data::dataset::{
    ConvertOptions, DatasetError, DatasetPlan, FileList, IoMode, NormFileHeader, ParquetConfig,
    ParquetReader, ReadStats, Shard, Summary, convert_to_norm, parquet_footer, summarize,
};

use crate::failure::Failure;
use crate::numbers;
use crate::output::Out;
use crate::progress::Progress;

/// Samples per batch while reading (fewer when the files cannot hold that many); only memory
/// and speed depend on it.
const BATCH_SAMPLES: usize = 1024;

/// `tessera dataset inspect|convert`.
pub fn command() -> Command {
    let path = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .required(true)
            .value_parser(value_parser!(PathBuf))
            .help(help)
    };
    let key = Arg::new("key")
        .long("key")
        .value_parser(["u32", "i64"])
        .default_value("u32")
        .help("key type (i64 for Norm files with long long keys)");
    let slot_sizes = Arg::new("slot-sizes")
        .long("slot-sizes")
        .value_name("N,N,...")
        .value_parser(numbers::list)
        .help("Parquet: slot_size_array (ids checked, offsets added)");
    let skip = Arg::new("skip")
        .long("skip")
        .action(ArgAction::SetTrue)
        .help("skip and count bad samples instead of stopping at the first");
    let check = Arg::new("check")
        .long("check")
        .value_parser(["sum", "none"])
        .help("checksum framing (inspect: default from the header; convert: default sum)");
    let rank = Arg::new("rank")
        .long("rank")
        .value_name("K")
        .value_parser(value_parser!(u64))
        .requires("world")
        .help("read only this rank's files: K, K + N, K + 2N, ... of the list (HugeCTR's split)");
    let world = Arg::new("world")
        .long("world")
        .value_name("N")
        .value_parser(value_parser!(u64))
        .requires("rank")
        .help("the number of ranks the files are split between (with --rank)");
    let inspect = Command::new("inspect")
        .about(
            "Prints the header (Norm), sizes (Raw) or metadata (Parquet), reads every sample, \
             and prints the sample count, keys per slot (nnz) and what was skipped",
        )
        .arg(path(
            "path",
            "a data file, a file list (count, then one path per line, relative to the list), \
             a Parquet directory or its _metadata.json",
        ))
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["norm", "raw", "parquet"])
                .help(
                    "default: parquet for a directory, .json or .parquet (or a list of \
                     .parquet files), else norm",
                ),
        )
        .arg(
            Arg::new("dims")
                .long("dims")
                .value_name("L,D,S")
                .value_parser(numbers::dims)
                .help(
                    "label_dim, dense_dim, slot_num (Norm: default from the header; Raw: required)",
                ),
        )
        .arg(key.clone())
        .arg(check.clone())
        .arg(
            Arg::new("max-nnz")
                .long("max-nnz")
                .value_name("N")
                .value_parser(numbers::max_nnz)
                .help("Norm: most keys a slot may hold (default: no limit)"),
        )
        .arg(
            Arg::new("raw-values")
                .long("raw-values")
                .value_parser(["f32", "i32"])
                .default_value("f32")
                .help("Raw: label and dense stored as float32 or int32"),
        )
        .arg(slot_sizes.clone())
        .arg(skip.clone())
        .arg(
            Arg::new("buffered")
                .long("buffered")
                .action(ArgAction::SetTrue)
                .help("read files through a buffer instead of memory-mapping them"),
        )
        .arg(rank.clone())
        .arg(world.clone());
    let read = read::command(&inspect);
    let convert = Command::new("convert")
        .about("Writes every sample of a Parquet dataset, in order, to one Norm file")
        .arg(path(
            "source",
            "a Parquet directory holding _metadata.json, the _metadata.json, or a file list \
             of .parquet files",
        ))
        .arg(path("output", "the Norm file to write"))
        .arg(check)
        .arg(key)
        .arg(slot_sizes)
        .arg(skip)
        .arg(rank)
        .arg(world);
    Command::new("dataset")
        .about(
            "HugeCTR datasets: inspect Norm, Raw and Parquet; convert Parquet to Norm; read \
             through a cursor set",
        )
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(inspect)
        .subcommand(convert)
        .subcommand(read)
}

/// Runs `inspect` or `convert`.
pub fn run(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    match m.subcommand() {
        Some(("inspect", m)) => inspect(m, out),
        Some(("convert", m)) => convert(m, out),
        Some(("read", m)) => read::run(m, out),
        _ => Err(Failure::Usage(
            "dataset needs inspect, convert or read".into(),
        )),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Norm,
    Raw,
    Parquet,
}

fn inspect(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let path = required_path(m, "path")?;
    let format = match m.get_one::<String>("format").map(String::as_str) {
        Some("norm") => Format::Norm,
        Some("raw") => Format::Raw,
        Some("parquet") => Format::Parquet,
        _ => detect(path)?,
    };
    match wide_keys(m) {
        false => inspect_as::<u32>(path, format, m, out),
        true => inspect_as::<i64>(path, format, m, out),
    }
}

fn inspect_as<K: Key>(
    path: &Path,
    format: Format,
    m: &ArgMatches,
    out: &mut Out,
) -> Result<(), Failure> {
    let policy = policy(m);
    let io = match m.get_flag("buffered") {
        true => IoMode::buffered(),
        false => IoMode::Map,
    };
    let given_dims = m.get_one::<Dims>("dims").copied();
    let shard = shard(m)?;
    // Samples per batch and keys per batch: never more than the files can hold.
    let wide = wide_keys(m);
    // Plans are made after the listing: an error in reading them follows what was listed.
    let plan_failure = |e| data_failure(e, format, wide);
    let (plan, samples, keys) = match format {
        Format::Norm => {
            let paths = shard_paths(FileList::resolve(path)?, shard);
            writeln!(
                out,
                "Norm dataset, {} file(s){}",
                paths.len(),
                shard_text(shard)
            )?;
            let mut first = None;
            for p in &paths {
                // An unreadable header stops the reader under either policy: say so now,
                // about that file, rather than guess dims for the others.
                let h = NormFileHeader::read(p).map_err(|e| norm_header_failure(e, given_dims))?;
                let check = match h.check {
                    Check::None => "0 (none)",
                    Check::Sum => "1 (sum)",
                };
                writeln!(
                    out,
                    "  {}: error_check {check}, {} records, dims {}",
                    p.display(),
                    h.records,
                    dims_text(h.dims)
                )?;
                first.get_or_insert(h);
            }
            let dims = match (given_dims, first) {
                (Some(d), _) => d,
                (None, Some(h)) => {
                    numbers::check_dims(h.dims).map_err(|what| {
                        Failure::file(&paths[0], format!("the header's {what}"))
                            .hint("not a Norm file? --format raw --dims L,D,S reads Raw files")
                    })?;
                    h.dims
                }
                (None, None) if shard.world() > 1 => {
                    writeln!(out, "no file is this rank's: nothing to read")?;
                    return Ok(());
                }
                (None, None) => {
                    return Err(Failure::file(path, "the file list names no file"));
                }
            };
            let check = match (m.get_one::<String>("check"), first) {
                (Some(c), _) => parse_check(c),
                (None, Some(h)) => h.check,
                (None, None) => Check::None,
            };
            let max_nnz = m
                .get_one::<u32>("max-nnz")
                .copied()
                .unwrap_or(i32::MAX as u32);
            // The smallest record: labels and dense features, one nnz per slot, no key.
            let least = 4 * (dims.label_dense() as u64 + dims.slot_num as u64);
            let (samples, keys) = fit_to_files(path, &paths, least, dims)?;
            let config = NormConfig::new(dims, max_nnz)
                .with_check(check)
                .with_policy(policy);
            let plan = DatasetPlan::norm(paths, config).map_err(plan_failure)?;
            (plan.with_io(io), samples, keys)
        }
        Format::Raw => {
            let dims = given_dims.ok_or_else(|| {
                Failure::file(path, "Raw files have no header").hint("give --dims L,D,S")
            })?;
            let mut config = RawConfig::new(dims);
            config.policy = policy;
            config.float_label_dense =
                m.get_one::<String>("raw-values").map(String::as_str) != Some("i32");
            let paths = shard_paths(FileList::resolve(path)?, shard);
            // Dims are at most i32::MAX each (checked when parsed): no overflow here.
            let size = config.sample_bytes() as u64;
            writeln!(
                out,
                "Raw dataset, {} file(s){}, {size} bytes per sample",
                paths.len(),
                shard_text(shard),
            )?;
            for p in &paths {
                let len = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
                writeln!(
                    out,
                    "  {}: {len} bytes, {} samples{}",
                    p.display(),
                    len / size,
                    if len % size == 0 { "" } else { " (not whole)" }
                )?;
            }
            let (samples, keys) = fit_to_files(path, &paths, size, dims)?;
            let plan = DatasetPlan::raw(paths, config).map_err(plan_failure)?;
            (plan.with_io(io), samples, keys)
        }
        Format::Parquet => {
            let config = ParquetConfig {
                slot_size_array: m.get_one::<Vec<u64>>("slot-sizes").cloned(),
                policy,
                ..ParquetConfig::default()
            };
            let reader = open_parquet::<K>(path, config.clone(), shard)?;
            let meta = reader.metadata();
            writeln!(
                out,
                "Parquet dataset, {} file(s){}, metadata {}",
                reader.paths().len(),
                shard_text(shard),
                reader.metadata_path().display()
            )?;
            for p in reader.paths() {
                let listed = meta
                    .file_stats
                    .iter()
                    .find(|f| p.ends_with(&f.file_name))
                    .map_or("not listed".to_owned(), |f| f.num_rows.to_string());
                match parquet_footer(p) {
                    Ok((rows, groups)) => writeln!(
                        out,
                        "  {}: {rows} rows in {groups} row group(s) (_metadata.json: {listed})",
                        p.display()
                    )?,
                    Err(e) => writeln!(out, "  {e}")?,
                }
            }
            let names = |cols: Vec<&tessera_data::dataset::ColumnRef>| {
                let v: Vec<&str> = cols.iter().map(|c| c.col_name.as_str()).collect();
                v.join(", ")
            };
            writeln!(out, "  labels (by index): {}", names(meta.label_columns()))?;
            writeln!(out, "  dense (by index):  {}", names(meta.dense_columns()))?;
            writeln!(
                out,
                "  slots (as listed): {}",
                names(meta.slot_columns().iter().collect())
            )?;
            // Parquet compresses: file sizes bound nothing; the metadata's slot count is
            // bounded by the JSON's size, and the budget checks the rest.
            let slots = meta.dims().slot_num;
            let keys = BATCH_SAMPLES.saturating_mul(slots).saturating_mul(8);
            let plan = DatasetPlan::parquet(path, config).map_err(plan_failure)?;
            (plan.shard(shard), BATCH_SAMPLES, keys.max(1 << 20))
        }
    };
    let mut reader = plan.source::<K>();
    let mut progress = Progress::new("reading");
    let summary = summarize(
        &mut reader,
        path,
        samples,
        keys,
        MemoryBudget::DEFAULT,
        |d, t| progress.update(d, t),
    );
    progress.finish();
    let stats = reader.stats();
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            report_skips(stats, out)?;
            return Err(data_failure(e, format, wide));
        }
    };
    print_summary(&summary, out)?;
    report_skips(stats, out)?;
    Ok(())
}

/// The batch for a Norm or Raw dataset: [`BATCH_SAMPLES`] samples, or as many as the files
/// can hold if fewer (`least` bytes per sample at the smallest), and keys to match, bounded
/// by the keys the files' bytes can hold (4 bytes each at the least). Refuses dims whose one
/// sample is larger than all the files together: a header that says so is wrong, and
/// sizing a batch by it could ask for any amount of memory.
fn fit_to_files(
    source: &Path,
    paths: &[PathBuf],
    least: u64,
    dims: Dims,
) -> Result<(usize, usize), Failure> {
    let mut total = 0u64;
    let mut regular = true;
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => total = total.saturating_add(m.len()),
            // Pipes and devices have no length; missing files fail when read.
            _ => regular = false,
        }
    }
    let default_keys = BATCH_SAMPLES
        .saturating_mul(dims.slot_num)
        .saturating_mul(8)
        .max(1 << 20);
    if !regular {
        return Ok((BATCH_SAMPLES, default_keys));
    }
    let holds = total.checked_div(least).unwrap_or(u64::MAX);
    if holds == 0 && total > 0 {
        return Err(Failure::file(
            source,
            format!(
                "one sample of dims {} takes at least {least} bytes; the dataset has {total}",
                dims_text(dims)
            ),
        )
        .hint("check the dims (--dims, or the header if the file may be corrupt)"));
    }
    let samples = usize::try_from(holds).unwrap_or(usize::MAX);
    let keys = usize::try_from(total / 4).unwrap_or(usize::MAX);
    Ok((samples.clamp(1, BATCH_SAMPLES), keys.clamp(1, default_keys)))
}

fn convert(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let src = required_path(m, "source")?;
    let dest = required_path(m, "output")?;
    if detect(src)? != Format::Parquet {
        return Err(Failure::file(src, "not a Parquet dataset").hint(
            "convert reads Parquet: a directory holding _metadata.json, the _metadata.json \
             itself, or a file list of .parquet files; Norm and Raw files need no converting",
        ));
    }
    match wide_keys(m) {
        false => convert_as::<u32>(src, dest, m, out, "u32"),
        true => convert_as::<i64>(src, dest, m, out, "i64"),
    }
}

fn convert_as<K: Key>(
    src: &Path,
    dest: &Path,
    m: &ArgMatches,
    out: &mut Out,
    key_name: &str,
) -> Result<(), Failure> {
    let config = ParquetConfig {
        slot_size_array: m.get_one::<Vec<u64>>("slot-sizes").cloned(),
        policy: policy(m),
        ..ParquetConfig::default()
    };
    let plan = DatasetPlan::parquet(src, config).map_err(parquet_failure)?;
    let mut reader = plan.shard(shard(m)?).source::<K>();
    let options = ConvertOptions {
        check: m
            .get_one::<String>("check")
            .map_or(Check::Sum, |c| parse_check(c)),
        ..ConvertOptions::default()
    };
    let mut progress = Progress::new("converting");
    let result = convert_to_norm(&mut reader, dest, options, |d, t| progress.update(d, t));
    progress.finish();
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            report_skips(reader.stats(), out)?;
            return Err(e.into());
        }
    };
    let check = match options.check {
        Check::None => "no checksum",
        Check::Sum => "checksum",
    };
    writeln!(
        out,
        "{}: {} samples, dims {}, {key_name} keys, {check}",
        dest.display(),
        summary.records,
        dims_text(plan.dims())
    )?;
    report_skips(reader.stats(), out)?;
    Ok(())
}

fn print_summary(s: &Summary, out: &mut Out) -> Result<(), Failure> {
    writeln!(
        out,
        "samples: {} decoded, {} skipped; dims {}; {:.2} keys per sample",
        s.samples,
        s.skipped,
        dims_text(s.dims),
        s.mean_nnz()
    )?;
    writeln!(out, "  slot   min   max     mean  empty")?;
    for (i, n) in s.slots.iter().enumerate() {
        let mean = match s.samples {
            0 => 0.0,
            m => n.total as f64 / m as f64,
        };
        writeln!(
            out,
            "  {i:>4} {:>5} {:>5} {mean:>8.3} {:>6}",
            n.min, n.max, n.empty
        )?;
    }
    Ok(())
}

/// Skipped samples are never silent: per file, with the first reason.
fn report_skips(stats: &ReadStats, out: &mut Out) -> Result<(), Failure> {
    for f in stats.files.iter().filter(|f| f.skipped > 0) {
        let whole = if f.skipped_whole { " (whole file)" } else { "" };
        writeln!(
            out,
            "skipped {} sample(s){whole} in {}",
            f.skipped,
            f.path.display()
        )?;
        if let Some(e) = &f.first_skipped {
            writeln!(out, "  first: {e}")?;
        }
    }
    if stats.skipped() > 0 {
        writeln!(
            out,
            "skipped {} sample(s) in all, {} file(s) whole",
            stats.skipped(),
            stats.files_skipped()
        )?;
    }
    Ok(())
}

/// A Norm header that cannot be read, with what to try.
fn norm_header_failure(e: DatasetError, given_dims: Option<Dims>) -> Failure {
    let empty = matches!(
        &e,
        DatasetError::Data { error, .. }
            if matches!(error.kind, DataErrorKind::Truncated { available: 0, .. })
    );
    let io = matches!(e, DatasetError::Io { .. });
    let failure = Failure::from(e);
    match (io, empty, given_dims) {
        (true, _, _) => failure,
        (_, true, _) => failure.hint("the file is empty"),
        (_, _, None) => failure.hint(
            "not a Norm file? Raw files: --format raw --dims L,D,S; Parquet: the directory \
             or its _metadata.json",
        ),
        // --dims does not replace a Norm header: every Norm file has one.
        (_, _, Some(_)) => failure.hint(
            "Norm files start with a header, which --dims does not replace; for a Raw file \
             give --format raw",
        ),
    }
}

/// A Parquet dataset that cannot be opened: a missing `_metadata.json` says what is needed.
fn parquet_failure(e: DatasetError) -> Failure {
    let missing_metadata = matches!(
        &e,
        DatasetError::Io { path, source }
            if source.kind() == std::io::ErrorKind::NotFound
                && path.file_name().is_some_and(|n| n == "_metadata.json")
    );
    let failure = Failure::from(e);
    match missing_metadata {
        true => failure.hint(
            "a Parquet dataset is read with HugeCTR's _metadata.json (file_stats, labels, \
             conts, cats); none is there",
        ),
        false => failure,
    }
}

/// A reading error, with a hint where the cause is a known confusion: `int64` keys read as
/// `u32` look like truncated or misframed records.
fn data_failure(e: DatasetError, format: Format, wide: bool) -> Failure {
    let key_width = format == Format::Norm
        && !wide
        && matches!(
            &e,
            DatasetError::Data { error, .. } if matches!(
                error.kind,
                DataErrorKind::Truncated { .. }
                    | DataErrorKind::TrailingBytes { .. }
                    | DataErrorKind::FrameLength { .. }
                    | DataErrorKind::Checksum { .. }
            )
        );
    let failure = Failure::from(e);
    match key_width {
        true => failure.hint("if the file holds int64 (long long) keys, give --key i64"),
        false => failure,
    }
}

fn detect(path: &Path) -> Result<Format, Failure> {
    let parquet_like =
        |p: &Path| p.is_dir() || p.extension().is_some_and(|e| e == "json" || e == "parquet");
    if parquet_like(path) {
        return Ok(Format::Parquet);
    }
    if FileList::sniff(path)? {
        let list = FileList::read(path)?;
        if list.paths().first().is_some_and(|p| parquet_like(p)) {
            return Ok(Format::Parquet);
        }
    }
    Ok(Format::Norm)
}

/// A required path argument (clap enforces presence; absent would be clap's bug, reported
/// as a usage error all the same).
fn required_path<'a>(m: &'a ArgMatches, name: &str) -> Result<&'a Path, Failure> {
    m.get_one::<PathBuf>(name)
        .map(PathBuf::as_path)
        .ok_or_else(|| Failure::Usage(format!("<{name}> is required")))
}

fn wide_keys(m: &ArgMatches) -> bool {
    m.get_one::<String>("key").map(String::as_str) == Some("i64")
}

fn parse_check(c: &str) -> Check {
    match c {
        "none" => Check::None,
        _ => Check::Sum,
    }
}

fn policy(m: &ArgMatches) -> ErrorPolicy {
    match m.get_flag("skip") {
        true => ErrorPolicy::Skip,
        false => ErrorPolicy::Stop,
    }
}

/// `--rank K --world N` (clap makes each require the other); the whole dataset without.
fn shard(m: &ArgMatches) -> Result<Shard, Failure> {
    let (Some(&rank), Some(&world)) = (m.get_one::<u64>("rank"), m.get_one::<u64>("world")) else {
        return Ok(Shard::WHOLE);
    };
    Shard::new(rank, world)
        .map_err(|e| Failure::Usage(format!("--rank {rank} --world {world}: {e}")))
}

/// The files of `paths` that are `shard`'s.
fn shard_paths(paths: Vec<PathBuf>, shard: Shard) -> Vec<PathBuf> {
    let keep = |(i, p): (usize, PathBuf)| shard.owns(i).then_some(p);
    paths.into_iter().enumerate().filter_map(keep).collect()
}

/// `" (rank K of N)"`, or nothing for the whole dataset.
fn shard_text(shard: Shard) -> String {
    match shard.world() {
        1 => String::new(),
        n => format!(" (rank {} of {n})", shard.rank()),
    }
}

/// The Parquet dataset at `path`, only `shard`'s files of it.
fn open_parquet<K: Key>(
    path: &Path,
    config: ParquetConfig,
    shard: Shard,
) -> Result<ParquetReader<K>, Failure> {
    let reader = ParquetReader::<K>::open(path, config.clone()).map_err(parquet_failure)?;
    if shard == Shard::WHOLE {
        return Ok(reader);
    }
    let files = shard_paths(reader.paths().to_vec(), shard);
    let meta = reader.metadata().clone();
    let meta_path = reader.metadata_path().to_owned();
    Ok(ParquetReader::new(meta, meta_path, files, config)?)
}

fn dims_text(d: Dims) -> String {
    format!("{},{},{}", d.label_dim, d.dense_dim, d.slot_num)
}
