//! The hostile-input battery: the built `tessera` program on every case of issue 13, random
//! bytes, truncations and byte flips of every fixture, huge and zero sizes, a closed stdout,
//! non-UTF-8 paths, directories and endless files. A run fails the battery if it panics
//! (status 101 or a panic message), dies by a signal (an abort included), or runs past
//! [`LIMIT`].
//!
//! `TESSERA_BIN` runs it against another build of the program, e.g. one with
//! `panic = "abort"` (see `README.md`, "Hostile input"). A new command adds one row to
//! [`FILE_COMMANDS`] (it then runs on every hostile file) and its fixed cases to
//! [`ARG_CASES`].

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest one run may take (a debug build on a busy 2-core machine reads the 256 MiB
/// a pipe may fill in well under this).
const LIMIT: Duration = Duration::from_secs(20);

/// Every command that reads a file, run on each hostile file: `{file}` is the file, `{dir}`
/// its directory (Parquet datasets are directories), `{out}` a fresh output path. One row
/// per command line (hence no rustfmt here).
#[rustfmt::skip]
const FILE_COMMANDS: &[&[&str]] = &[
    &["dataset", "inspect", "{file}"],
    &["dataset", "inspect", "{file}", "--format", "raw", "--dims", "1,3,4"],
    &["dataset", "inspect", "{file}", "--key", "i64", "--skip", "--buffered"],
    &["dataset", "inspect", "{dir}", "--slot-sizes", "100,50,1000,20", "--skip"],
    &["dataset", "inspect", "{file}", "--format", "parquet"],
    &["dataset", "convert", "{dir}", "{out}", "--slot-sizes", "100,50,1000,20"],
    &["dataset", "convert", "{file}", "{out}", "--key", "i64", "--check", "none"],
    &["dataset", "read", "{file}", "--workers", "2"],
    &["dataset", "read", "{file}", "--format", "raw", "--dims", "1,3,4", "--rank", "1", "--world", "2"],
    &["dataset", "read", "{dir}", "--slot-sizes", "100,50,1000,20", "--skip", "--workers", "3"],
    &["model", "inspect", "{file}"],
    &["model", "run", "{file}", "--output-dir", "{dir}"],
    &["model", "bench", "{file}", "--seconds", "0"],
    &["model", "profile", "{file}", "--seconds", "0"],
    &["--seconds", "0", "--dataset", "{file}"],
    &["--seconds", "0", "--model", "{file}"],
    &["--seconds", "0", "--predictions", "{file}"],
];

/// Fixed command lines: every case of issue 13 and the sizes around them (`{fixtures}`:
/// `tests/fixtures/data`, `{tmp}`: an empty directory).
#[rustfmt::skip]
const ARG_CASES: &[&[&str]] = &[
    &["--seconds", "0", "--batch", "100000000000"],
    &["--seconds", "0", "--batch", "18446744073709551615"],
    &["--seconds", "0", "--batch", "18446744073709551616"],
    &["--seconds", "0", "--batch", "0"],
    &["--seconds", "0", "--batch", "-1"],
    &["--seconds", "0", "--dim", "100000000000"],
    &["--seconds", "0", "--dim", "18446744073709551615"],
    &["--seconds", "0", "--dim", "0"],
    &["--seconds", "1e300"],
    &["--seconds", "NaN"],
    &["--seconds", "-0.5"],
    &["--version"],
    &["--help"],
    &["frobnicate"],
    &["--frobnicate"],
    &["dataset"],
    &["dataset", "inspect"],
    &["dataset", "convert", "only-one"],
    &["dataset", "inspect", "{fixtures}/raw_f32.data", "--format", "raw", "--dims", "0,0,0"],
    &["dataset", "inspect", "{fixtures}/raw_f32.data", "--format", "raw", "--dims", "99999999999,1,1"],
    &["dataset", "inspect", "{fixtures}/raw_f32.data", "--format", "raw", "--dims", "2147483647,2147483647,2147483647"],
    &["dataset", "inspect", "{fixtures}/raw_f32.data", "--format", "raw", "--dims", "18446744073709551615,1,1"],
    &["dataset", "inspect", "{fixtures}/raw_f32.data", "--format", "raw"],
    &["dataset", "inspect", "{fixtures}/norm_i64.data"],
    &["dataset", "inspect", "{fixtures}/norm_plain_list.txt", "--max-nnz", "0"],
    &["dataset", "inspect", "{fixtures}/norm_plain_list.txt", "--max-nnz", "4294967295"],
    &["dataset", "inspect", "{fixtures}/parquet", "--slot-sizes", "0,0,0,0"],
    &["dataset", "inspect", "{fixtures}/parquet", "--slot-sizes", "18446744073709551615,1,1,1"],
    &["dataset", "inspect", "{fixtures}/parquet", "--slot-sizes", "1"],
    &["dataset", "convert", "{fixtures}/norm_sum.data", "{out}"],
    &["dataset", "convert", "{fixtures}/parquet/part_0.parquet", "{out}"],
    &["dataset", "inspect", "/dev/zero"],
    &["dataset", "inspect", "/dev/zero", "--format", "raw", "--dims", "1,3,4"],
    &["dataset", "inspect", "/dev/zero", "--buffered", "--dims", "1,3,4"],
    &["dataset", "inspect", "/dev/zero", "--format", "parquet"],
    &["dataset", "convert", "/dev/zero", "{out}"],
    &["dataset", "inspect", "/dev/null"],
    &["dataset", "inspect", "/"],
    &["dataset", "inspect", "{tmp}", "--format", "norm"],
    &["dataset", "inspect", "{tmp}", "--format", "raw", "--dims", "1,1,1"],
    &["dataset", "inspect", "{tmp}"],
    &["dataset", "convert", "{tmp}", "{tmp}"],
    &["dataset", "read"],
    &["dataset", "read", "{fixtures}/norm_plain_list.txt", "--workers", "0"],
    &["dataset", "read", "{fixtures}/norm_plain_list.txt", "--workers", "18446744073709551615"],
    &["dataset", "read", "{fixtures}/norm_plain_list.txt", "--rank", "2", "--world", "2"],
    &["dataset", "read", "{fixtures}/norm_plain_list.txt", "--rank", "0", "--world", "0"],
    &["dataset", "read", "{fixtures}/norm_plain_list.txt", "--rank", "0", "--world", "18446744073709551615"],
    &["dataset", "read", "{fixtures}/norm_plain_list.txt", "--rank", "1"],
    &["dataset", "read", "/dev/zero", "--workers", "2"],
    &["dataset", "read", "{tmp}", "--world", "3", "--rank", "2"],
    &["strings", "", "a", "a string longer than twenty-two bytes"],
    &["model"],
    &["model", "inspect"],
    &["model", "bench", "{fixtures}/norm_sum.data", "--seconds", "1e300"],
];

/// The program under test: `TESSERA_BIN` if set (a relative path is taken from the
/// workspace root, where CI runs), else the build cargo made for this test.
fn bin() -> PathBuf {
    match std::env::var_os("TESSERA_BIN") {
        Some(p) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_tessera")),
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/data")
}

/// What one run did.
struct Run {
    args: Vec<OsString>,
    status: Option<ExitStatus>,
    stderr: String,
    took: Duration,
}

impl Run {
    /// Why the run fails the battery, if it does.
    fn fault(&self) -> Option<String> {
        let what = match self.status {
            None => format!("ran past {LIMIT:?} and was killed"),
            Some(s) if s.code() == Some(101) => "exited 101 (a panic)".to_owned(),
            Some(s) if s.code().is_none() => format!("died by a signal ({s})"),
            Some(_) if self.stderr.contains("panicked") => "printed a panic".to_owned(),
            Some(_) if self.stderr.contains("memory allocation of") => {
                "printed an allocation failure".to_owned()
            }
            Some(_) => return None,
        };
        Some(format!(
            "tessera {:?}: {what} after {:?}\nstderr: {}",
            self.args, self.took, self.stderr
        ))
    }
}

/// Runs the program on `args`; with `close_stdout`, its stdout is a pipe whose reading end
/// is closed at once (`tessera … | head -0`).
fn run(args: Vec<OsString>, close_stdout: bool) -> Run {
    let start = Instant::now();
    let mut child: Child = Command::new(bin())
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    let stdout = child.stdout.take().expect("piped");
    let drain_out = match close_stdout {
        true => {
            drop(stdout);
            None
        }
        false => Some(std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = { stdout }.read_to_end(&mut sink);
        })),
    };
    let mut stderr = child.stderr.take().expect("piped");
    let drain_err = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let status = loop {
        match child.try_wait().expect("wait") {
            Some(s) => break Some(s),
            None if start.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let took = start.elapsed();
    if let Some(t) = drain_out {
        let _ = t.join();
    }
    let stderr = drain_err.join().unwrap_or_default();
    Run {
        args,
        status,
        stderr,
        took,
    }
}

/// Runs every command line on a few threads and fails with every fault found.
fn run_all(cases: Vec<(Vec<OsString>, bool)>) -> Vec<Run> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let queue = Mutex::new(cases.into_iter());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let next = queue.lock().unwrap().next();
                    let Some((args, close)) = next else { break };
                    let r = run(args, close);
                    done.lock().unwrap().push(r);
                }
            });
        }
    });
    let runs = done.into_inner().unwrap();
    let faults: Vec<String> = runs.iter().filter_map(Run::fault).collect();
    assert!(
        faults.is_empty(),
        "{} of {} runs failed:\n{}",
        faults.len(),
        runs.len(),
        faults.join("\n\n")
    );
    runs
}

/// `template` with its placeholders filled.
fn fill(template: &[&str], file: &Path, dir: &Path, out: &Path, tmp: &Path) -> Vec<OsString> {
    let fixtures = fixtures();
    template
        .iter()
        .map(|a| match *a {
            "{file}" => file.as_os_str().to_owned(),
            "{dir}" => dir.as_os_str().to_owned(),
            "{out}" => out.as_os_str().to_owned(),
            "{tmp}" => tmp.as_os_str().to_owned(),
            a if a.starts_with("{fixtures}") => {
                let mut p = fixtures.as_os_str().to_owned();
                p.push(&a["{fixtures}".len()..]);
                p
            }
            a => OsString::from(a),
        })
        .collect()
}

/// A fresh, empty scratch directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// SplitMix64: reproducible positions and bytes without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every fixture file (the files of `tests/fixtures/data`, its Parquet directories included)
/// and the bundled `demo.norm`.
fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![fixtures()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("fixtures").flatten() {
            let p = e.path();
            match p.is_dir() {
                true => dirs.push(p),
                false => files.push(p),
            }
        }
    }
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/demo.norm"));
    // The smallest models (the model loader's fuzz target covers the rest).
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models");
    for e in std::fs::read_dir(models).into_iter().flatten().flatten() {
        let p = e.path();
        let small = p.metadata().is_ok_and(|m| m.len() <= 2048);
        if is_model(&p) && small {
            files.push(p);
        }
    }
    files.sort();
    files
}

/// Whether a row of [`FILE_COMMANDS`] reads `{file}` as a model.
fn reads_a_model(row: &[&str]) -> bool {
    row[0] == "model" || row.contains(&"--model")
}

fn is_model(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "tflite")
}

/// Copies `file` into `into` with what it needs beside it (its directory's other files:
/// a Parquet dataset's metadata, a file list's data files); returns the copy's path.
fn copy_with_siblings(file: &Path, into: &Path) -> PathBuf {
    std::fs::create_dir_all(into).expect("case directory");
    let dir = file.parent().expect("a parent");
    // A model stands alone (and the models' directory is large).
    let siblings = std::fs::read_dir(dir).expect("fixture directory").flatten();
    for e in siblings.filter(|e| !is_model(file) || e.path() == file) {
        let p = e.path();
        if p.is_file() && p.metadata().map_or(0, |m| m.len()) < 1 << 20 {
            std::fs::copy(&p, into.join(e.file_name())).expect("copy");
        }
    }
    into.join(file.file_name().expect("a name"))
}

#[test]
fn corrupted_fixtures_never_panic_abort_or_hang() {
    let root = scratch("fixtures");
    let mut rng = Rng(13);
    let mut cases = Vec::new();
    let mut n = 0usize;
    for file in fixture_files() {
        let bytes = std::fs::read(&file).expect("fixture");
        let len = bytes.len();
        // Random bytes of the same length, four truncations, four single-byte flips.
        let mut variants: Vec<Vec<u8>> = Vec::new();
        variants.push((0..len).map(|_| rng.next() as u8).collect());
        for cut in [0, 1, len / 2, len.saturating_sub(1)] {
            variants.push(bytes[..cut.min(len)].to_vec());
        }
        for _ in 0..4 {
            let mut v = bytes.clone();
            if len > 0 {
                let at = rng.below(len);
                v[at] ^= 1 << rng.below(8);
            }
            variants.push(v);
        }
        for v in variants {
            n += 1;
            let case = root.join(format!("case{n}"));
            let copy = copy_with_siblings(&file, &case);
            std::fs::write(&copy, v).expect("write the variant");
            let out = case.join("out.norm");
            // Three of the file commands per variant, rotating, so every row meets every
            // kind of corruption across the fixtures without running them all on each;
            // models go to the model commands, data files to the others.
            let rows: Vec<&[&str]> = FILE_COMMANDS
                .iter()
                .copied()
                .filter(|r| reads_a_model(r) == is_model(&file))
                .collect();
            for k in 0..3 {
                let row = rows[(n + k * 3) % rows.len()];
                cases.push((fill(row, &copy, &case, &out, &case), false));
            }
        }
    }
    let runs = run_all(cases);
    assert!(runs.len() > 400, "{} runs", runs.len());
}

#[test]
fn fixed_cases_never_panic_abort_or_hang() {
    let tmp = scratch("fixed");
    let out = tmp.join("out.norm");
    let mut cases: Vec<(Vec<OsString>, bool)> = ARG_CASES
        .iter()
        .map(|c| (fill(c, &tmp, &tmp, &out, &tmp), false))
        .collect();
    // Every file command on an endless file, a directory, a missing file and an empty one.
    std::fs::write(tmp.join("empty.data"), b"").expect("empty file");
    for row in FILE_COMMANDS {
        for target in ["/dev/zero", "/", "missing.data", "empty.data"] {
            let file = tmp.join(target);
            cases.push((fill(row, &file, &tmp, &out, &tmp), false));
        }
    }
    // A Norm header announcing 2^40 slots (issue 13, case 3), alone and in a file list.
    let mut header = Vec::new();
    for x in [0i64, 10, 1, 1, 1 << 40, 0, 0, 0] {
        header.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(tmp.join("slots.norm"), &header).expect("write");
    header[32..40].copy_from_slice(&(1i64 << 30).to_le_bytes());
    std::fs::write(tmp.join("slots30.norm"), &header).expect("write");
    std::fs::write(
        tmp.join("list.txt"),
        "3\nslots.norm\n/dev/zero\nmissing.data\n",
    )
    .expect("w");
    for f in ["slots.norm", "slots30.norm", "list.txt"] {
        let p = tmp.join(f);
        cases.push((
            fill(&["dataset", "inspect", "{file}"], &p, &tmp, &out, &tmp),
            false,
        ));
        let row = ["dataset", "inspect", "{file}", "--dims", "1,1,1073741824"];
        cases.push((fill(&row, &p, &tmp, &out, &tmp), false));
    }
    // A closed stdout: every command that prints.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/demo.norm");
    for row in [
        &["dataset", "inspect", "{file}"][..],
        &["--seconds", "0"],
        &["strings"],
        &["--help"],
        &["--version"],
        &["dataset", "inspect", "--help"],
    ] {
        cases.push((fill(row, &demo, &tmp, &out, &tmp), true));
    }
    // Paths that are not UTF-8.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(b"bad\xffname.data".to_vec());
        let real = tmp.join(&bad);
        std::fs::copy(fixtures().join("norm_sum.data"), &real).expect("copy");
        for row in FILE_COMMANDS {
            cases.push((fill(row, &real, &tmp, &out, &tmp), false));
            cases.push((fill(row, Path::new(&bad), &tmp, &out, &tmp), false));
        }
        cases.push((vec!["strings".into(), bad.clone()], false));
        cases.push((vec!["--batch".into(), bad], false));
    }
    let runs = run_all(cases);
    for r in runs.iter().filter(|r| {
        let a = &r.args;
        a.first().is_some_and(|x| x == "--help" || x == "--version")
            || a.get(2).is_some_and(|x| x == "--help")
    }) {
        let code = r.status.and_then(|s| s.code());
        assert!(matches!(code, Some(0 | 141)), "{:?}: {code:?}", r.args);
    }
}

/// The exit status and stderr of one run, for the cases whose messages issue 13 named.
fn outcome(args: &[&OsStr]) -> (Option<i32>, String) {
    let r = run(args.iter().map(|a| a.to_os_string()).collect(), false);
    assert!(r.fault().is_none(), "{:?}", r.fault());
    (r.status.and_then(|s| s.code()), r.stderr)
}

use std::ffi::OsStr;

#[test]
fn the_issue_cases_say_what_and_where() {
    let f = fixtures();
    let os = |s: &str| OsString::from(s);
    let path = |p: PathBuf| p.into_os_string();

    // 1. A closed pipe: quiet, with cat's status.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/demo.norm");
    let r = run(vec![os("dataset"), os("inspect"), path(demo)], true);
    assert!(r.fault().is_none(), "{:?}", r.fault());
    assert!(matches!(r.status.and_then(|s| s.code()), Some(0 | 141)));
    assert_eq!(r.stderr, "");

    // 2. --dims 0,0,0: a usage error naming the option, no empty file name.
    let raw = path(f.join("raw_f32.data"));
    let args = [
        os("dataset"),
        os("inspect"),
        raw.clone(),
        os("--format"),
        os("raw"),
    ];
    let mut zero: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
    let dims = [os("--dims"), os("0,0,0")];
    zero.extend(dims.iter().map(OsString::as_os_str));
    let (code, err) = outcome(&zero);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--dims") && !err.contains("tessera: : "),
        "{err}"
    );

    // 4 and 6. --batch 0 is an error, not a silent 1; the largest batch names its bytes.
    let (code, err) = outcome(&[OsStr::new("--batch"), OsStr::new("0")]);
    assert_eq!(code, Some(2), "{err}");
    let (code, err) = outcome(&[
        OsStr::new("--seconds"),
        OsStr::new("0"),
        OsStr::new("--batch"),
        OsStr::new("18446744073709551615"),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("bytes, over the") && err.contains("--batch"),
        "{err}"
    );

    // 6. A list naming a missing file names that file.
    let tmp = scratch("messages");
    std::fs::write(tmp.join("list.txt"), "1\nmissing.data\n").expect("write");
    let list = path(tmp.join("list.txt"));
    let (code, err) = outcome(&[OsStr::new("dataset"), OsStr::new("inspect"), &list]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("missing.data: No such file"), "{err}");

    // 6. i64 keys read as u32: the hint names --key i64.
    let wide = path(f.join("norm_i64.data"));
    let (_, err) = outcome(&[OsStr::new("dataset"), OsStr::new("inspect"), &wide]);
    assert!(err.contains("--key i64"), "{err}");

    // 6. convert given a Norm file says what convert reads.
    let norm = path(f.join("norm_sum.data"));
    let out = path(tmp.join("out.norm"));
    let (code, err) = outcome(&[OsStr::new("dataset"), OsStr::new("convert"), &norm, &out]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not a Parquet dataset"), "{err}");

    // 6. A bad JSON says its position once.
    std::fs::create_dir_all(tmp.join("pq")).expect("dir");
    std::fs::write(tmp.join("pq/_metadata.json"), "{\"file_stats\": [}").expect("write");
    let pq = path(tmp.join("pq"));
    let (_, err) = outcome(&[OsStr::new("dataset"), OsStr::new("inspect"), &pq]);
    assert_eq!(err.matches("column").count(), 1, "{err}");

    // --version.
    let r = run(vec![os("--version")], false);
    assert_eq!(r.status.and_then(|s| s.code()), Some(0));
}
