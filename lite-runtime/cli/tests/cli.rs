//! The `tessera` program: the data-path run without arguments, the strings demo, and
//! `tessera dataset` on the fixtures of `tests/fixtures/data`, `tessera model inspect` and
//! `profile`.

use std::path::Path;
use std::process::Output;

#[path = "support/cli.rs"]
mod cli_support;
use cli_support::{fixture, tessera};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn without_arguments_it_runs_the_data_path_on_the_bundled_dataset() {
    let o = tessera(&["--seconds", "0"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(
            "decoded: 1024 samples in 4 batches of 256, every checksum verified, 0 skipped"
        ),
        "{out}"
    );
    assert!(out.contains("CSR: 26624 rows"), "{out}");
    assert!(out.contains("throughput over 1 passes"), "{out}");
}

#[test]
fn the_demo_files_can_be_replaced_and_a_bad_one_is_named() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models");
    // The same model from the fixtures: the same run.
    let same = models.join("ctr_b4.tflite");
    let o = tessera(&["--seconds", "0", "--model", same.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(&format!("predicted: {} (", same.display())),
        "{out}"
    );
    // A model without the CTR model's inputs, a missing dataset, a reference of another type.
    let kws = models.join("kws_int8.tflite");
    let o = tessera(&["--seconds", "0", "--model", kws.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("kws_int8.tflite: the model: "), "{err}");
    let o = tessera(&["--dataset", "no/such.norm"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tessera: no/such.norm: "), "{err}");
    let ints = models.join("ctr_b4.in0.npy");
    let o = tessera(&["--seconds", "0", "--predictions", ints.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ctr_b4.in0.npy: holds <i4 values, not float32 predictions (<f4)"),
        "{err}"
    );
}

#[test]
fn strings_shows_the_strings() {
    let o = tessera(&["strings"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("TFLite string tensor: 7 strings"));
}

#[test]
fn bad_arguments_are_errors() {
    let o = tessera(&["--seconds", "soon"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seconds"));
    assert!(!tessera(&["frobnicate"]).status.success());
}

#[test]
fn inspect_prints_headers_and_counts() {
    let list = fixture("norm_plain_list.txt");
    let o = tessera(&["dataset", "inspect", list.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("error_check 0 (none), 30 records, dims 1,3,4"),
        "{out}"
    );
    assert!(out.contains("samples: 50 decoded, 0 skipped"), "{out}");

    let dir = fixture("parquet");
    let o = tessera(&[
        "dataset",
        "inspect",
        dir.to_str().unwrap(),
        "--slot-sizes=100,50,1000,20",
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("dense (by index):  I1, I2, I3"), "{out}");
    assert!(out.contains("samples: 50 decoded, 0 skipped"), "{out}");
}

#[test]
fn inspect_reports_skips_and_errors() {
    let bad = fixture("parquet_bad");
    let o = tessera(&["dataset", "inspect", bad.to_str().unwrap(), "--skip"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("samples: 4 decoded, 2 skipped"), "{out}");
    assert!(out.contains("row 2, column \"C1\""), "{out}");

    let o = tessera(&["dataset", "inspect", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.parquet: row 2, column \"C1\""), "{err}");

    // A command line that does not parse: clap's usage status.
    let o = tessera(&["dataset", "inspect", "x", "--dims", "1,2"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn convert_writes_the_norm_file() {
    let out = std::env::temp_dir().join(format!("tessera-cli-{}.norm", std::process::id()));
    let src = fixture("parquet/_metadata.json");
    let o = tessera(&[
        "dataset",
        "convert",
        src.to_str().unwrap(),
        out.to_str().unwrap(),
        "--slot-sizes",
        "100,50,1000,20",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("50 samples, dims 1,3,4, u32 keys, checksum"));
    let written = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(written, std::fs::read(fixture("norm_sum.data")).unwrap());
}

#[test]
fn model_inspect_prints_the_seal() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models/kws_int8.tflite");
    let o = tessera(&["model", "inspect", path.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    // Size and CRC-32 as Python's `len` and `zlib.crc32` give them for the file.
    assert!(
        out.contains("seal: Seal::from_parts(10560, 0x7c2e9c77) ("),
        "{out}"
    );
}

#[test]
fn model_profile_prints_a_row_per_operator_with_its_multiply_accumulates() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models/kws_int8.tflite");
    let o = tessera(&["model", "profile", path.to_str().unwrap(), "--seconds", "0"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert!(!rows.is_empty(), "{out}");
    // Every operator once, in order; the convolutions with a GMAC/s figure.
    for (k, row) in rows.iter().enumerate() {
        assert!(row.trim_start().starts_with(&format!("{k} ")), "{out}");
    }
    let conv = rows.iter().find(|r| r.contains("CONV_2D")).expect("a conv");
    assert!(
        conv.trim_end().ends_with(|c: char| c.is_ascii_digit()),
        "{out}"
    );
    assert!(out.contains("sum of the operators' medians"), "{out}");
}
