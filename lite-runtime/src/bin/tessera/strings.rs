//! `tessera strings [WORD ...]`: tessera's strings end to end on a built-in vocabulary (or
//! the words given): build a TFLite string tensor, map it as OFFSET `TF_TString`s without
//! copying a string byte, read it back as VIEWs, and print the strings and the bytes each
//! representation used.

use tessera_core::strings::{TfliteStrings, encode_tflite, tflite_encoded_len};
use tessera_core::tstring::{NoHeap, OffsetStrings, TString, views_of_tflite};

pub const DEFAULT_WORDS: &[&str] = &[
    "hello",
    "",
    "on-device inference",
    "a token longer than twenty-two bytes",
    "naïve café",
    "[CLS]",
    "the quick brown fox jumps over the lazy dog",
];

pub fn run(words: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
    // 1. The TFLite string tensor, encoded into a buffer sized first. The buffer leaves room in
    //    front for the OFFSET headers of step 2; the tensor is written once and never copied.
    let tflite_len = tflite_encoded_len(words)?;
    let headers = words.len() * 24;
    let mut buf = vec![0u8; headers + tflite_len];
    encode_tflite(words, &mut buf[headers..])?;

    // 2. OFFSET strings: headers written in front of the tensor, pointing into it.
    let offsets = OffsetStrings::from_tflite(&mut buf, headers)?;
    let tensor = TfliteStrings::new(&offsets.buffer()[headers..])?;
    println!(
        "TFLite string tensor: {} strings, {} bytes ({} of offsets, {} of text)",
        tensor.len(),
        tflite_len,
        tflite_len - tensor.data_bytes(),
        tensor.data_bytes()
    );
    println!(
        "OFFSET TF_TString array: {headers} bytes of headers in front of the tensor, 0 string bytes copied"
    );

    // 3. The same bytes as VIEW TF_TStrings (TensorFlow's DT_STRING layout), no copy either.
    let mut views: Vec<TString> = (0..tensor.len()).map(|_| TString::new()).collect();
    views_of_tflite(tensor, &mut views)?;
    let text = tensor.as_bytes().as_ptr_range();
    let in_place = views
        .iter()
        .all(|v| v.is_empty() || text.contains(&v.as_ptr()));
    println!(
        "VIEW TF_TString array: {} bytes, every string read in place: {in_place}\n",
        views.len() * 24
    );

    println!(
        "{:>3}  {:<6} {:<8} {:>5}  text",
        "#", "header", "owned as", "bytes"
    );
    for (i, (s, v)) in offsets.iter().zip(&views).enumerate() {
        if v.as_bytes() != s {
            return Err(format!("string {i}: OFFSET and VIEW disagree").into());
        }
        let owned_as = if s.len() <= TString::<NoHeap>::SMALL_CAPACITY {
            "SMALL"
        } else {
            "LARGE"
        };
        println!(
            "{i:>3}  {:<6} {owned_as:<8} {:>5}  {:?}",
            "OFFSET",
            s.len(),
            String::from_utf8_lossy(s)
        );
    }
    let text_bytes: usize = words.iter().map(|w| w.len()).sum();
    println!(
        "\nA Vec<String> copy of the same strings: {} allocations, {} bytes.",
        words.iter().filter(|w| !w.is_empty()).count() + 1,
        text_bytes + words.len() * size_of::<String>()
    );
    Ok(())
}
