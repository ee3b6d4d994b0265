//! `tessera strings [WORD ...]`: tessera's strings end to end on a built-in vocabulary (or
//! the words given): build a TFLite string tensor, map it as OFFSET `TF_TString`s without
//! copying a string byte, read it back as VIEWs, and print the strings and the bytes each
//! representation used.

use std::ffi::OsString;
use std::io::Write;

use clap::{Arg, ArgAction, ArgMatches, Command};
use tessera_core::strings::{TfliteStrings, encode_tflite, tflite_encoded_len};
use tessera_core::tstring::{NoHeap, OffsetStrings, TString, views_of_tflite};

use crate::failure::Failure;
use crate::output::Out;

pub const DEFAULT_WORDS: &[&str] = &[
    "hello",
    "",
    "on-device inference",
    "a token longer than twenty-two bytes",
    "naïve café",
    "[CLS]",
    "the quick brown fox jumps over the lazy dog",
];

/// `tessera strings [WORD ...]`.
pub fn command() -> Command {
    Command::new("strings")
        .about("The strings demo: a TFLite string tensor as OFFSET and VIEW TF_TStrings, no copy")
        .arg(
            Arg::new("words")
                .value_name("WORD")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(OsString))
                .help("the strings (default: a built-in list); any bytes, UTF-8 or not"),
        )
}

/// Runs the demo on the words given, or on [`DEFAULT_WORDS`].
pub fn run(m: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let given: Vec<&[u8]> = m
        .get_many::<OsString>("words")
        .into_iter()
        .flatten()
        .map(|w| w.as_encoded_bytes())
        .collect();
    let words: Vec<&[u8]> = match given.is_empty() {
        true => DEFAULT_WORDS.iter().map(|w| w.as_bytes()).collect(),
        false => given,
    };
    demo(&words, out).map_err(|e| match e {
        Demo::Out(e) => Failure::from(e),
        Demo::Strings(what) => Failure::other(format!("strings: {what}")),
    })
}

enum Demo {
    Out(std::io::Error),
    Strings(String),
}

impl From<std::io::Error> for Demo {
    fn from(e: std::io::Error) -> Self {
        Self::Out(e)
    }
}

/// Errors of the strings API, kept as their messages.
fn s<E: std::fmt::Display>(e: E) -> Demo {
    Demo::Strings(e.to_string())
}

fn demo(words: &[&[u8]], out: &mut Out) -> Result<(), Demo> {
    // 1. The TFLite string tensor, encoded into a buffer sized first. The buffer leaves room in
    //    front for the OFFSET headers of step 2; the tensor is written once and never copied.
    let tflite_len = tflite_encoded_len(words.iter().copied()).map_err(s)?;
    let headers = words.len().saturating_mul(24);
    let total = headers
        .checked_add(tflite_len)
        .ok_or_else(|| Demo::Strings("too many strings".into()))?;
    let mut buf = vec![0u8; total];
    encode_tflite(words.iter().copied(), &mut buf[headers..]).map_err(s)?;

    // 2. OFFSET strings: headers written in front of the tensor, pointing into it.
    let offsets = OffsetStrings::from_tflite(&mut buf, headers).map_err(s)?;
    let tensor = TfliteStrings::new(&offsets.buffer()[headers..]).map_err(s)?;
    writeln!(
        out,
        "TFLite string tensor: {} strings, {} bytes ({} of offsets, {} of text)",
        tensor.len(),
        tflite_len,
        tflite_len - tensor.data_bytes(),
        tensor.data_bytes()
    )?;
    writeln!(
        out,
        "OFFSET TF_TString array: {headers} bytes of headers in front of the tensor, 0 string bytes copied"
    )?;

    // 3. The same bytes as VIEW TF_TStrings (TensorFlow's DT_STRING layout), no copy either.
    let mut views: Vec<TString> = (0..tensor.len()).map(|_| TString::new()).collect();
    views_of_tflite(tensor, &mut views).map_err(s)?;
    let text = tensor.as_bytes().as_ptr_range();
    let in_place = views
        .iter()
        .all(|v| v.is_empty() || text.contains(&v.as_ptr()));
    writeln!(
        out,
        "VIEW TF_TString array: {} bytes, every string read in place: {in_place}\n",
        views.len() * 24
    )?;

    writeln!(
        out,
        "{:>3}  {:<6} {:<8} {:>5}  text",
        "#", "header", "owned as", "bytes"
    )?;
    for (i, (s, v)) in offsets.iter().zip(&views).enumerate() {
        if v.as_bytes() != s {
            return Err(Demo::Strings(format!(
                "string {i}: OFFSET and VIEW disagree"
            )));
        }
        let owned_as = if s.len() <= TString::<NoHeap>::SMALL_CAPACITY {
            "SMALL"
        } else {
            "LARGE"
        };
        writeln!(
            out,
            "{i:>3}  {:<6} {owned_as:<8} {:>5}  {:?}",
            "OFFSET",
            s.len(),
            String::from_utf8_lossy(s)
        )?;
    }
    let text_bytes: usize = words.iter().map(|w| w.len()).sum();
    writeln!(
        out,
        "\nA Vec<String> copy of the same strings: {} allocations, {} bytes.",
        words.iter().filter(|w| !w.is_empty()).count() + 1,
        text_bytes + words.len() * size_of::<String>()
    )?;
    Ok(())
}
