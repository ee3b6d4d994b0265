//! `tessera dataset read` and `--rank/--world`: the checksum is the same for any worker
//! count and format of the same rows, ranks add up to the whole, and bad arguments are
//! usage errors (exit 2) that say what is wrong.

use std::path::Path;
use std::process::Output;

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::{fixture, tessera};

/// `(R, C)` from the last line, `rows: R checksum: C`.
fn last_line(o: &Output) -> (u64, u64) {
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let last = out.lines().last().expect("a line");
    let rest = last.strip_prefix("rows: ").expect(last);
    let (rows, sum) = rest.split_once(" checksum: 0x").expect(last);
    (
        rows.parse().expect(last),
        u64::from_str_radix(sum, 16).expect(last),
    )
}

fn read(source: &Path, extra: &[&str]) -> (u64, u64) {
    let mut args = vec!["dataset", "read", source.to_str().unwrap()];
    args.extend_from_slice(extra);
    last_line(&tessera(&args))
}

#[test]
fn any_worker_count_gives_the_same_checksum() {
    let list = fixture("norm_plain_list.txt");
    let one = read(&list, &["--workers", "1"]);
    assert_eq!(one.0, 50);
    for w in ["2", "3", "8"] {
        assert_eq!(read(&list, &["--workers", w]), one, "{w} workers");
    }
    assert_eq!(read(&list, &["--buffered"]), one);
    // The same rows written as Parquet and as one checksummed Norm file.
    let sizes = ["--slot-sizes", "100,50,1000,20"];
    assert_eq!(read(&fixture("parquet"), &sizes), one);
    assert_eq!(read(&fixture("norm_sum.data"), &[]), one);
    assert!(
        String::from_utf8_lossy(&tessera(&["dataset", "read", list.to_str().unwrap()]).stdout)
            .contains("rows/s")
    );
}

#[test]
fn ranks_add_up_to_the_whole_dataset() {
    let sizes = ["--slot-sizes", "100,50,1000,20"];
    for (source, extra) in [
        (fixture("norm_plain_list.txt"), &[][..]),
        (fixture("parquet"), &sizes[..]),
    ] {
        let whole = read(&source, extra);
        for world in 1..=4u64 {
            let (mut rows, mut sum) = (0u64, 0u64);
            for rank in 0..world {
                let (r, w) = (rank.to_string(), world.to_string());
                let mut args = vec!["--rank", &r, "--world", &w];
                args.extend_from_slice(extra);
                let (n, c) = read(&source, &args);
                rows += n;
                sum = sum.wrapping_add(c);
            }
            assert_eq!((rows, sum), whole, "{} world {world}", source.display());
        }
    }
}

#[test]
fn inspect_and_convert_take_a_rank() {
    let list = fixture("norm_plain_list.txt");
    let o = tessera(&[
        "dataset",
        "inspect",
        list.to_str().unwrap(),
        "--rank",
        "1",
        "--world",
        "2",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("1 file(s) (rank 1 of 2)"), "{out}");
    assert!(out.contains("norm_plain_1.data"), "{out}");
    assert!(!out.contains("norm_plain_0.data"), "{out}");

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_read");
    std::fs::create_dir_all(&dir).unwrap();
    let dest = dir.join("rank0.data");
    let o = tessera(&[
        "dataset",
        "convert",
        fixture("parquet").to_str().unwrap(),
        dest.to_str().unwrap(),
        "--slot-sizes",
        "100,50,1000,20",
        "--rank",
        "0",
        "--world",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Rank 0 of 2 holds part_0.parquet: 25 rows, the first 25 of the dataset.
    assert_eq!(read(&dest, &[]).0, 25);
}

#[test]
fn bad_arguments_are_usage_errors() {
    let list = fixture("norm_plain_list.txt");
    let list = list.to_str().unwrap();
    for (args, says) in [
        (
            vec!["--rank", "2", "--world", "2"],
            "rank 2 is not below the world size 2",
        ),
        (
            vec!["--rank", "0", "--world", "0"],
            "world size must be at least 1",
        ),
        (vec!["--world", "2"], "--rank"),
        (vec!["--rank", "1"], "--world"),
        (vec!["--workers", "0"], "outside 1 to 256"),
        (vec!["--workers", "100000"], "outside 1 to 256"),
        (vec!["--workers", "two"], "not a whole number"),
        (vec!["--rank", "-1", "--world", "2"], "-1"),
    ] {
        let mut all = vec!["dataset", "read", list];
        all.extend_from_slice(&args);
        let o = tessera(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let o = tessera(&["dataset", "inspect", list, "--rank", "3", "--world", "2"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_broken_file_is_named() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_read_broken");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.data");
    let mut bytes = std::fs::read(fixture("norm_sum.data")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&bad, &bytes).unwrap();
    for w in ["1", "2"] {
        let o = tessera(&["dataset", "read", bad.to_str().unwrap(), "--workers", w]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("bad.data") && err.contains("checksum"),
            "{err}"
        );
    }
}
