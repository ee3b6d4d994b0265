//! `tessera dataset`: inspect HugeCTR datasets (Norm, Raw, Parquet) and convert Parquet to
//! Norm.

use std::error::Error;
use std::path::Path;

use tessera_core::data::{Check, Dims, ErrorPolicy, Key, NormConfig, RawConfig};
use tessera_lite::dataset::{
    BatchReader, ConvertOptions, FileList, IoMode, NormFileHeader, NormReader, ParquetConfig,
    ParquetReader, RawReader, ReadStats, Summary, convert_to_norm, parquet_footer, summarize,
};

use super::args::Args;
use super::progress::Progress;

pub const USAGE: &str = "\
usage: tessera dataset inspect <file-or-list> [options]
       tessera dataset convert <parquet-dir-or-metadata> <out.norm> [options]

inspect: prints the header (Norm), sizes (Raw) or metadata (Parquet), reads every sample,
and prints the sample count, keys per slot (nnz) and what was skipped.
  <file-or-list>         a data file, a file list (count, then one path per line, relative
                         to the list), a Parquet directory or its _metadata.json
  --format norm|raw|parquet   default: parquet for a directory, .json or .parquet (or a
                         list of .parquet files), else norm
  --dims L,D,S           label_dim, dense_dim, slot_num (Norm: default from the header;
                         Raw: required)
  --key u32|i64          key type (default u32; i64 for Norm files with long long keys)
  --check sum|none       Norm checksum framing (default: from the header)
  --max-nnz N            Norm: most keys a slot may hold (default: no limit)
  --raw-values f32|i32   Raw: label and dense stored as float32 (default) or int32
  --slot-sizes N,N,...   Parquet: slot_size_array (ids checked, offsets added)
  --skip                 skip and count bad samples instead of stopping at the first
  --buffered             read files through a buffer instead of memory-mapping them

convert: writes every sample of a Parquet dataset, in order, to one Norm file.
  --check sum|none       checksum framing of the output (default sum)
  --key u32|i64          key type of the output (default u32)
  --slot-sizes N,N,...   slot_size_array: keys are ids plus the slot offsets
  --skip                 skip and count bad rows instead of stopping at the first";

const OPTIONS: &[&str] = &[
    "format",
    "dims",
    "key",
    "check",
    "max-nnz",
    "raw-values",
    "slot-sizes",
];
const SWITCHES: &[&str] = &["skip", "buffered"];
/// Samples per batch while reading; only memory and speed depend on it.
const BATCH_SAMPLES: usize = 1024;

pub fn main(args: &[String]) -> Result<(), Box<dyn Error>> {
    match args.first().map(String::as_str) {
        Some("inspect") => inspect(&args[1..]),
        Some("convert") => convert(&args[1..]),
        None | Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown dataset command {other:?}\n\n{USAGE}").into()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Norm,
    Raw,
    Parquet,
}

fn inspect(rest: &[String]) -> Result<(), Box<dyn Error>> {
    let args = Args::parse(rest, OPTIONS, SWITCHES)?;
    let [path] = args.positional.as_slice() else {
        return Err(format!("inspect takes one dataset path\n\n{USAGE}").into());
    };
    let path = Path::new(path);
    let format = match args.value("format") {
        Some("norm") => Format::Norm,
        Some("raw") => Format::Raw,
        Some("parquet") => Format::Parquet,
        Some(f) => return Err(format!("--format: {f:?} is not norm, raw or parquet").into()),
        None => detect(path)?,
    };
    match key(&args)? {
        Key32 => inspect_as::<u32>(path, format, &args),
        Key64 => inspect_as::<i64>(path, format, &args),
    }
}

fn inspect_as<K: Key>(path: &Path, format: Format, args: &Args) -> Result<(), Box<dyn Error>> {
    let policy = policy(args);
    let io = match args.switch("buffered") {
        true => IoMode::buffered(),
        false => IoMode::Map,
    };
    let mut reader: Box<dyn BatchReader<K>> = match format {
        Format::Norm => {
            let paths = FileList::resolve(path)?;
            println!("Norm dataset, {} file(s)", paths.len());
            let mut first = None;
            for p in &paths {
                match NormFileHeader::read(p) {
                    Ok(h) => {
                        let check = match h.check {
                            Check::None => "0 (none)",
                            Check::Sum => "1 (sum)",
                        };
                        println!(
                            "  {}: error_check {check}, {} records, dims {}",
                            p.display(),
                            h.records,
                            dims_text(h.dims)
                        );
                        first.get_or_insert(h);
                    }
                    Err(e) => println!("  {e}"),
                }
            }
            let dims = match (dims(args)?, first) {
                (Some(d), _) => d,
                (None, Some(h)) => h.dims,
                (None, None) => return Err("no readable header; give --dims".into()),
            };
            let check = match (args.value("check"), first) {
                (Some(_), _) | (None, None) => check(args, Check::None)?,
                (None, Some(h)) => h.check,
            };
            let max_nnz = match args.value("max-nnz") {
                Some(v) => v.parse().map_err(|_| format!("--max-nnz: {v:?}"))?,
                None => i32::MAX as u32,
            };
            let config = NormConfig::new(dims, max_nnz)
                .with_check(check)
                .with_policy(policy);
            Box::new(NormReader::new(paths, config).with_io(io))
        }
        Format::Raw => {
            let dims = dims(args)?.ok_or("Raw files have no header: give --dims L,D,S")?;
            let mut config = RawConfig::new(dims);
            config.policy = policy;
            config.float_label_dense = match args.value("raw-values") {
                None | Some("f32") => true,
                Some("i32") => false,
                Some(v) => return Err(format!("--raw-values: {v:?} is not f32 or i32").into()),
            };
            let reader = RawReader::<K>::open(path, config)?.with_io(io);
            println!(
                "Raw dataset, {} file(s), {} bytes per sample",
                reader.paths().len(),
                config.sample_bytes()
            );
            for p in reader.paths() {
                let len = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
                let size = config.sample_bytes() as u64;
                println!(
                    "  {}: {len} bytes, {} samples{}",
                    p.display(),
                    len / size,
                    if len % size == 0 { "" } else { " (not whole)" }
                );
            }
            Box::new(reader)
        }
        Format::Parquet => {
            let config = ParquetConfig {
                slot_size_array: args.numbers("slot-sizes")?,
                policy,
                ..ParquetConfig::default()
            };
            let reader = ParquetReader::<K>::open(path, config)?;
            let meta = reader.metadata();
            println!(
                "Parquet dataset, {} file(s), metadata {}",
                reader.paths().len(),
                reader.metadata_path().display()
            );
            for p in reader.paths() {
                let listed = meta
                    .file_stats
                    .iter()
                    .find(|f| p.ends_with(&f.file_name))
                    .map_or("not listed".to_owned(), |f| f.num_rows.to_string());
                match parquet_footer(p) {
                    Ok((rows, groups)) => println!(
                        "  {}: {rows} rows in {groups} row group(s) (_metadata.json: {listed})",
                        p.display()
                    ),
                    Err(e) => println!("  {e}"),
                }
            }
            let names = |cols: Vec<&tessera_lite::dataset::ColumnRef>| {
                let v: Vec<&str> = cols.iter().map(|c| c.col_name.as_str()).collect();
                v.join(", ")
            };
            println!("  labels (by index): {}", names(meta.label_columns()));
            println!("  dense (by index):  {}", names(meta.dense_columns()));
            println!(
                "  slots (as listed): {}",
                names(meta.slot_columns().iter().collect())
            );
            Box::new(reader)
        }
    };
    let mut progress = Progress::new("reading");
    let keys = (BATCH_SAMPLES * reader.dims().slot_num * 8).max(1 << 20);
    let summary = summarize(&mut *reader, BATCH_SAMPLES, keys, |d, t| {
        progress.update(d, t)
    });
    progress.finish();
    let stats = reader.stats();
    let summary = summary.inspect_err(|_| report_skips(stats))?;
    print_summary(&summary);
    report_skips(stats);
    Ok(())
}

fn convert(rest: &[String]) -> Result<(), Box<dyn Error>> {
    let args = Args::parse(rest, &["check", "key", "slot-sizes"], &["skip"])?;
    let [src, out] = args.positional.as_slice() else {
        return Err(format!("convert takes a source and an output path\n\n{USAGE}").into());
    };
    match key(&args)? {
        Key32 => convert_as::<u32>(Path::new(src), Path::new(out), &args, "u32"),
        Key64 => convert_as::<i64>(Path::new(src), Path::new(out), &args, "i64"),
    }
}

fn convert_as<K: Key>(
    src: &Path,
    out: &Path,
    args: &Args,
    key_name: &str,
) -> Result<(), Box<dyn Error>> {
    let config = ParquetConfig {
        slot_size_array: args.numbers("slot-sizes")?,
        policy: policy(args),
        ..ParquetConfig::default()
    };
    let mut reader = ParquetReader::<K>::open(src, config)?;
    let options = ConvertOptions {
        check: check(args, Check::Sum)?,
        ..ConvertOptions::default()
    };
    let mut progress = Progress::new("converting");
    let result = convert_to_norm(&mut reader, out, options, |d, t| progress.update(d, t));
    progress.finish();
    let summary = result.inspect_err(|_| report_skips(reader.stats()))?;
    let check = match options.check {
        Check::None => "no checksum",
        Check::Sum => "checksum",
    };
    println!(
        "{}: {} samples, dims {}, {key_name} keys, {check}",
        out.display(),
        summary.records,
        dims_text(reader.dims())
    );
    report_skips(reader.stats());
    Ok(())
}

fn print_summary(s: &Summary) {
    println!(
        "samples: {} decoded, {} skipped; dims {}; {:.2} keys per sample",
        s.samples,
        s.skipped,
        dims_text(s.dims),
        s.mean_nnz()
    );
    println!("  slot   min   max     mean  empty");
    for (i, n) in s.slots.iter().enumerate() {
        let mean = match s.samples {
            0 => 0.0,
            m => n.total as f64 / m as f64,
        };
        println!(
            "  {i:>4} {:>5} {:>5} {mean:>8.3} {:>6}",
            n.min, n.max, n.empty
        );
    }
}

/// Skipped samples are never silent: per file, with the first reason.
fn report_skips(stats: &ReadStats) {
    for f in stats.files.iter().filter(|f| f.skipped > 0) {
        let whole = if f.skipped_whole { " (whole file)" } else { "" };
        println!(
            "skipped {} sample(s){whole} in {}",
            f.skipped,
            f.path.display()
        );
        if let Some(e) = &f.first_skipped {
            println!("  first: {e}");
        }
    }
    if stats.skipped() > 0 {
        println!(
            "skipped {} sample(s) in all, {} file(s) whole",
            stats.skipped(),
            stats.files_skipped()
        );
    }
}

fn detect(path: &Path) -> Result<Format, Box<dyn Error>> {
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

enum KeyType {
    Key32,
    Key64,
}
use KeyType::{Key32, Key64};

fn key(args: &Args) -> Result<KeyType, String> {
    match args.value("key") {
        None | Some("u32") => Ok(Key32),
        Some("i64") => Ok(Key64),
        Some(k) => Err(format!("--key: {k:?} is not u32 or i64")),
    }
}

fn check(args: &Args, default: Check) -> Result<Check, String> {
    match args.value("check") {
        None => Ok(default),
        Some("sum") => Ok(Check::Sum),
        Some("none") => Ok(Check::None),
        Some(c) => Err(format!("--check: {c:?} is not sum or none")),
    }
}

fn policy(args: &Args) -> ErrorPolicy {
    match args.switch("skip") {
        true => ErrorPolicy::Skip,
        false => ErrorPolicy::Stop,
    }
}

fn dims(args: &Args) -> Result<Option<Dims>, String> {
    let Some(v) = args.numbers("dims")? else {
        return Ok(None);
    };
    let n = |x: u64| usize::try_from(x).map_err(|_| "--dims: too large".to_owned());
    match v.as_slice() {
        &[l, d, s] => Ok(Some(Dims::new(n(l)?, n(d)?, n(s)?))),
        _ => Err("--dims takes three numbers: label_dim,dense_dim,slot_num".into()),
    }
}

fn dims_text(d: Dims) -> String {
    format!("{},{},{}", d.label_dim, d.dense_dim, d.slot_num)
}
