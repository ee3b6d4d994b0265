//! `tessera model inspect|run|bench`: TensorFlow Lite models through tessera's loader and
//! interpreter.
//!
//! - `inspect MODEL`: the model as a person reading it wants it, the arena it needs, and its
//!   seal (for firmware that loads it with `Model::load_sealed`).
//! - `run MODEL [--input I=FILE]... [--output-dir DIR]`: runs it on `.npy` inputs (`I` an
//!   input's position or name), writes `DIR/out{j}.npy`, prints a summary.
//! - `bench MODEL [--input I=FILE]... [--seconds S]`: microseconds per invoke (median).
//! - `profile MODEL [--input I=FILE]... [--seconds S]`: a table per operator (shapes, median
//!   microseconds, share of the invoke, multiply-accumulates per second where they apply).

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction, ArgMatches, Command};
use tessera_core::npy::{NpyType, NpyView, npy_header_len, write_npy_header};
use tessera_data::buffers::MemoryBudget;
use tessera_lite::interpreter::{AllOps, Interpreter, Options, dtype_of};
use tessera_lite::model::{Model, TensorType};

use crate::failure::Failure;
use crate::files::{ModelBytes, read_bounded};
use crate::numbers;
use crate::output::Out;

/// `tessera model ...`.
pub fn command() -> Command {
    let model = || {
        Arg::new("model")
            .value_name("MODEL")
            .required(true)
            .value_parser(clap::value_parser!(PathBuf))
            .help("a .tflite file")
    };
    let input = || {
        Arg::new("input")
            .long("input")
            .value_name("I=FILE")
            .action(ArgAction::Append)
            .value_parser(clap::value_parser!(OsString))
            .help(
                "input I (its position in the subgraph's inputs, or its tensor or signature \
                 name) from a .npy file; inputs not given are zeros (empty strings)",
            )
    };
    let seconds = || {
        Arg::new("seconds")
            .long("seconds")
            .value_name("S")
            .default_value("2")
            .value_parser(numbers::seconds)
            .help("how long to time (default 2)")
    };
    let threads = || {
        Arg::new("threads")
            .long("threads")
            .value_name("N")
            .default_value("1")
            .value_parser(clap::value_parser!(u16).range(1..=64))
            .help("threads that run the large kernels, this one included (default 1)")
    };
    Command::new("model")
        .about("TensorFlow Lite models: inspect, run, bench, profile")
        .subcommand_required(true)
        .subcommand(
            Command::new("inspect")
                .about(
                    "Prints the model: subgraphs, tensors, operators, signatures, the arena, \
                     its seal",
                )
                .arg(model()),
        )
        .subcommand(
            Command::new("run")
                .about("Runs the model on .npy inputs and writes out{j}.npy per output")
                .arg(model())
                .arg(input())
                .arg(threads())
                .arg(
                    Arg::new("output-dir")
                        .long("output-dir")
                        .value_name("DIR")
                        .value_parser(clap::value_parser!(PathBuf))
                        .help("where to write out{j}.npy (default: write nothing)"),
                ),
        )
        .subcommand(
            Command::new("bench")
                .about("Microseconds per invoke (median of timed rounds)")
                .arg(model())
                .arg(input())
                .arg(threads())
                .arg(seconds()),
        )
        .subcommand(
            Command::new("profile")
                .about(
                    "Per operator: shapes, median microseconds, share of the invoke, \
                     multiply-accumulates per second",
                )
                .arg(model())
                .arg(input())
                .arg(threads())
                .arg(seconds()),
        )
}

/// The interpreter's options for a command's arguments (`--threads`).
pub(crate) fn options(a: &ArgMatches) -> Options {
    Options {
        threads: a
            .try_get_one::<u16>("threads")
            .ok()
            .flatten()
            .map_or(1, |&n| usize::from(n)),
        ..Options::default()
    }
}

/// Runs `tessera model ...`.
pub fn run(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    match m.subcommand() {
        Some(("inspect", a)) => inspect(path(a), out),
        Some(("run", a)) => run_model(a, out),
        Some(("bench", a)) => bench(a, out),
        Some(("profile", a)) => crate::profile::profile(a, out),
        _ => Err(Failure::Usage(
            "model: give inspect, run, bench or profile".into(),
        )),
    }
}

pub(crate) fn path(a: &ArgMatches) -> &Path {
    a.get_one::<PathBuf>("model")
        .map_or(Path::new(""), PathBuf::as_path)
}

pub(crate) fn load<'m>(path: &Path, bytes: &'m ModelBytes) -> Result<Model<'m>, Failure> {
    Model::load(bytes.bytes()).map_err(|e| Failure::file(path, e))
}

fn inspect(path: &Path, out: &mut Out) -> Result<(), Failure> {
    let bytes = ModelBytes::read(path)?;
    let model = load(path, &bytes)?;
    write!(out, "{}", model.summary())?;
    match Interpreter::required(&model, &AllOps, &Options::default()) {
        Ok(n) => writeln!(out, "arena: {n} bytes")?,
        Err(e) => writeln!(out, "arena: not available ({e})")?,
    }
    writeln!(
        out,
        "seal: {} (`Model::load_sealed` recognises these bytes without checking them again)",
        model.seal()
    )?;
    Ok(())
}

/// An interpreter over an arena this function allocates, for the CLI's commands.
pub(crate) struct Session<'m> {
    arena: Vec<u8>,
    model: Model<'m>,
    options: Options,
}

impl<'m> Session<'m> {
    /// The arena `model` needs with every kernel, checked against the memory budget.
    pub(crate) fn new(path: &Path, model: Model<'m>, options: Options) -> Result<Self, Failure> {
        let needed =
            Interpreter::required(&model, &AllOps, &options).map_err(|e| Failure::file(path, e))?;
        if needed as u64 > MemoryBudget::DEFAULT.bytes() {
            return Err(Failure::file(
                path,
                format!("needs an arena of {needed} bytes"),
            ));
        }
        let mut arena = Vec::new();
        arena
            .try_reserve_exact(needed)
            .map_err(|_| Failure::file(path, format!("no memory for {needed} arena bytes")))?;
        arena.resize(needed, 0);
        Ok(Self {
            arena,
            model,
            options,
        })
    }

    /// The model set up over the arena.
    pub(crate) fn interpreter(&mut self, path: &Path) -> Result<Interpreter<'m, '_>, Failure> {
        Interpreter::new(self.model, &AllOps, &mut self.arena, &self.options)
            .map_err(|e| Failure::file(path, e))
    }
}

/// The inputs given as `I=FILE`, set into the interpreter; missing ones stay zero.
pub(crate) fn set_inputs(
    a: &ArgMatches,
    it: &mut Interpreter<'_, '_>,
    model: &Path,
) -> Result<(), Failure> {
    for spec in a.get_many::<OsString>("input").into_iter().flatten() {
        let text = spec.as_encoded_bytes();
        let eq = text.iter().position(|&b| b == b'=').ok_or_else(|| {
            Failure::Usage(format!(
                "--input {}: give I=FILE",
                String::from_utf8_lossy(text)
            ))
        })?;
        let key = String::from_utf8_lossy(&text[..eq]).into_owned();
        // The bytes after '=' are the path, kept as given (non-UTF-8 included on Unix).
        let file = PathBuf::from(os_str_from(&text[eq + 1..]));
        let i = input_position(it, &key).ok_or_else(|| {
            Failure::file(model, format!("no input '{key}'"))
                .hint("give the input's position (0, 1, ...) or its tensor or signature name")
        })?;
        let bytes = read_bounded(&file)?;
        let npy = NpyView::parse(&bytes).map_err(|e| Failure::file(&file, e))?;
        fill_input(it, i, &npy).map_err(|what| Failure::file(&file, what))?;
    }
    Ok(())
}

#[cfg(unix)]
fn os_str_from(b: &[u8]) -> OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_owned()
}

#[cfg(not(unix))]
fn os_str_from(b: &[u8]) -> OsString {
    OsString::from(String::from_utf8_lossy(b).into_owned())
}

fn input_position(it: &Interpreter<'_, '_>, key: &str) -> Option<usize> {
    if let Ok(i) = key.parse::<usize>() {
        return (i < it.input_count()).then_some(i);
    }
    if let Some(i) = it.input_by_name(key) {
        return Some(i);
    }
    let sigs = it.model().signature_defs();
    sigs.iter().find_map(|s| it.signature_input(s.key(), key))
}

/// The `.npy` type of a tensor type, if numpy has one (not strings: their width depends on
/// the strings).
fn npy_type(t: TensorType) -> Option<NpyType> {
    dtype_of(t).map(NpyType::from)
}

fn fill_input(it: &mut Interpreter<'_, '_>, i: usize, npy: &NpyView<'_>) -> Result<(), String> {
    let t = it.input_tensor(i).map_err(|e| e.to_string())?;
    let ty = it.tensor_type(t).map_err(|e| e.to_string())?;
    let shape = it.tensor_shape(t).map_err(|e| e.to_string())?;
    if shape.dims() != npy.shape() {
        return Err(format!(
            "shape {:?}, input {i} has shape {:?}",
            npy.shape(),
            shape.dims()
        ));
    }
    if ty == TensorType::String {
        if !matches!(npy.dtype(), NpyType::Bytes(_)) {
            return Err(format!(
                "holds {:?}, input {i} holds strings (S<n>)",
                npy.dtype()
            ));
        }
        let strings: Vec<&[u8]> = npy.strings().collect();
        return it.set_input_strings(i, strings).map_err(|e| e.to_string());
    }
    if npy_type(ty) != Some(npy.dtype()) {
        return Err(format!("holds {}, input {i} holds {ty}", npy.dtype()));
    }
    let dst = it.input_bytes_mut(i).map_err(|e| e.to_string())?;
    if dst.len() != npy.data().len() {
        return Err(format!(
            "{} bytes, input {i} takes {}",
            npy.data().len(),
            dst.len()
        ));
    }
    dst.copy_from_slice(npy.data());
    npy.dtype().swap_to_host(dst);
    Ok(())
}

/// Output `j` as a whole `.npy` file (strings as `S<n>`, `n` the longest).
fn output_npy(it: &Interpreter<'_, '_>, j: usize) -> Result<Vec<u8>, String> {
    let t = it.output_tensor(j).map_err(|e| e.to_string())?;
    let ty = it.tensor_type(t).map_err(|e| e.to_string())?;
    let shape = it.tensor_shape(t).map_err(|e| e.to_string())?;
    let shape = shape.dims();
    if ty == TensorType::String {
        let strings = it.output_strings(j).map_err(|e| e.to_string())?;
        let n = strings.iter().map(<[u8]>::len).max().unwrap_or(0).max(1);
        let dtype = NpyType::Bytes(n);
        let mut file = npy_header(dtype, shape)?;
        file.reserve(n * strings.len());
        for s in strings.iter() {
            file.extend_from_slice(s);
            file.resize(file.len() + n - s.len(), 0);
        }
        return Ok(file);
    }
    let dtype = npy_type(ty).ok_or_else(|| format!("output {j}: {ty} cannot be written"))?;
    let mut file = npy_header(dtype, shape)?;
    let start = file.len();
    file.extend_from_slice(it.output_bytes(j).map_err(|e| e.to_string())?);
    dtype.swap_to_host(&mut file[start..]); // host to little-endian: the same swap
    Ok(file)
}

/// A `.npy` header for `dtype` and `shape`, for the data to be appended to.
fn npy_header(dtype: NpyType, shape: &[usize]) -> Result<Vec<u8>, String> {
    let mut header = vec![0u8; npy_header_len(dtype, shape)];
    write_npy_header(dtype, shape, &mut header).map_err(|e| e.to_string())?;
    Ok(header)
}

fn preview(npy: &NpyView<'_>) -> String {
    const SHOWN: usize = 8;
    let size = npy.dtype().size().max(1);
    let items: Vec<String> = match npy.dtype() {
        NpyType::Bytes(_) => npy
            .strings()
            .take(SHOWN)
            .map(|s| format!("{:?}", String::from_utf8_lossy(s)))
            .collect(),
        t => npy
            .data()
            .chunks_exact(size)
            .take(SHOWN)
            .map(|c| scalar(t, c))
            .collect(),
    };
    let more = if npy.elements() > SHOWN { ", ..." } else { "" };
    format!("[{}{more}]", items.join(", "))
}

/// One little-endian element of type `t` (`c` is exactly one element, from `chunks_exact`).
fn scalar(t: NpyType, c: &[u8]) -> String {
    fn arr<const N: usize>(c: &[u8]) -> [u8; N] {
        c.try_into().unwrap_or([0; N])
    }
    match t {
        NpyType::F32 => f32::from_le_bytes(arr(c)).to_string(),
        NpyType::F64 => f64::from_le_bytes(arr(c)).to_string(),
        NpyType::I8 => i8::from_le_bytes(arr(c)).to_string(),
        NpyType::U8 => u8::from_le_bytes(arr(c)).to_string(),
        NpyType::Bool => (c.first() != Some(&0)).to_string(),
        NpyType::I16 => i16::from_le_bytes(arr(c)).to_string(),
        NpyType::U16 => u16::from_le_bytes(arr(c)).to_string(),
        NpyType::I32 => i32::from_le_bytes(arr(c)).to_string(),
        NpyType::U32 => u32::from_le_bytes(arr(c)).to_string(),
        NpyType::I64 => i64::from_le_bytes(arr(c)).to_string(),
        NpyType::U64 => u64::from_le_bytes(arr(c)).to_string(),
        NpyType::Bytes(_) => String::new(),
    }
}

fn run_model(a: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let path = path(a);
    let bytes = ModelBytes::read(path)?;
    let model = load(path, &bytes)?;
    let mut session = Session::new(path, model, options(a))?;
    let mut it = session.interpreter(path)?;
    set_inputs(a, &mut it, path)?;
    let start = Instant::now();
    it.invoke().map_err(|e| Failure::file(path, e))?;
    let took = start.elapsed();
    let dir = a.get_one::<PathBuf>("output-dir");
    if let Some(d) = dir {
        std::fs::create_dir_all(d).map_err(|e| Failure::file(d, e))?;
    }
    writeln!(
        out,
        "{}: {} inputs, {} outputs, arena {} bytes, invoke {:.1} us",
        path.display(),
        it.input_count(),
        it.output_count(),
        it.arena_used_bytes(),
        took.as_secs_f64() * 1e6
    )?;
    for j in 0..it.output_count() {
        let file = output_npy(&it, j).map_err(|e| Failure::file(path, e))?;
        let npy = NpyView::parse(&file).map_err(|e| Failure::file(path, e))?;
        let name = it
            .output_tensor(j)
            .ok()
            .and_then(|t| it.subgraph().tensor(t))
            .map_or("", |t| t.name());
        writeln!(
            out,
            "out{j} {name} {} {:?} {}",
            npy.dtype(),
            npy.shape(),
            preview(&npy)
        )?;
        if let Some(d) = dir {
            let dest = d.join(format!("out{j}.npy"));
            std::fs::write(&dest, &file).map_err(|e| Failure::file(&dest, e))?;
        }
    }
    Ok(())
}

fn bench(a: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let path = path(a);
    let seconds = a.get_one::<f64>("seconds").copied().unwrap_or(2.0);
    let bytes = ModelBytes::read(path)?;
    let model = load(path, &bytes)?;
    // Loading (the whole file checked) and set-up (plan, records, constants, kernels'
    // init), each timed over repeats for at least 100 ms.
    let load_us = repeat_us(|| Model::load(bytes.bytes()).map(|m| m.version()).is_ok());
    let mut session = Session::new(path, model, options(a))?;
    let setup_us = {
        let s = &mut session;
        repeat_us(|| s.interpreter(path).map(|it| it.arena_used_bytes()).is_ok())
    };
    let mut it = session.interpreter(path)?;
    set_inputs(a, &mut it, path)?;
    // Warm up, and size a round to about 10 ms so the clock's cost does not count.
    let start = Instant::now();
    let mut warm = 0u64;
    while start.elapsed() < Duration::from_millis(100) || warm < 3 {
        it.invoke().map_err(|e| Failure::file(path, e))?;
        warm += 1;
    }
    let per = start.elapsed().as_secs_f64() / warm as f64;
    let round = ((0.01 / per.max(1e-9)) as u64).clamp(1, 1_000_000);
    let mut rounds: Vec<f64> = Vec::new();
    let total = Duration::from_secs_f64(seconds);
    let begun = Instant::now();
    let mut shown = Instant::now();
    while begun.elapsed() < total || rounds.is_empty() {
        let t = Instant::now();
        for _ in 0..round {
            it.invoke().map_err(|e| Failure::file(path, e))?;
        }
        rounds.push(t.elapsed().as_secs_f64() * 1e6 / round as f64);
        if shown.elapsed() > Duration::from_millis(250) {
            crate::failure::eprint_lossy(&format!(
                "\rbench: {:.0}% ({} rounds of {round} invokes)",
                (begun.elapsed().as_secs_f64() / seconds * 100.0).min(100.0),
                rounds.len()
            ));
            shown = Instant::now();
        }
    }
    crate::failure::eprint_lossy("\r\x1b[K");
    rounds.sort_by(f64::total_cmp);
    let median = rounds[rounds.len() / 2];
    writeln!(
        out,
        "{}: {median:.2} us per invoke (median of {} rounds of {round}; min {:.2}, max {:.2}), arena {} bytes",
        path.display(),
        rounds.len(),
        rounds[0],
        rounds[rounds.len() - 1],
        it.arena_used_bytes()
    )?;
    writeln!(
        out,
        "  load {load_us:.2} us, set-up {setup_us:.2} us (medians)"
    )?;
    Ok(())
}

/// Median microseconds of `f` over repeats lasting at least 100 ms (`f`'s result is kept from
/// being optimised away).
fn repeat_us(mut f: impl FnMut() -> bool) -> f64 {
    let mut times = Vec::new();
    let begun = Instant::now();
    while begun.elapsed() < Duration::from_millis(100) || times.len() < 5 {
        let t = Instant::now();
        std::hint::black_box(f());
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
