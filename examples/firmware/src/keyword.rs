//! The `keyword` variant: the framework plus the keyword-spotting network's five kernels and
//! nothing else, running the network once on its reference input and checking the output
//! against TensorFlow Lite's reference kernels; the size to set beside TensorFlow Lite
//! Micro's keyword benchmark. Nothing is formatted with `Display`.

use tessera_lite::interpreter::{Interpreter, Options};

use crate::expected::{KWS_ARENA_BYTES, KWS_EXPECTED, KWS_INPUT_BYTES};
use crate::kws;

static INPUT: [u8; KWS_INPUT_BYTES] = *include_bytes!(concat!(env!("OUT_DIR"), "/kws_in.bin"));

/// Every call into tessera, out of line (as in the `framework` variant): loads, sets up and
/// invokes the network; `Some(output)`, or `None` at the first error.
#[inline(never)]
fn keyword(arena: &'static mut [u8]) -> Option<[i8; KWS_EXPECTED.len()]> {
    let ops = kws::ops();
    let model = kws::model().ok()?;
    let mut it = Interpreter::new(model, &ops, arena, &Options::default()).ok()?;
    let input = it.input_bytes_mut(0).ok()?;
    input.get_mut(..INPUT.len())?.copy_from_slice(&INPUT);
    #[cfg(not(feature = "count"))]
    it.invoke().ok()?;
    #[cfg(feature = "count")]
    {
        let (done, ticks) = crate::count::ticks(|| it.invoke());
        done.ok()?;
        crate::count::report(ticks);
    }
    let y = it.output::<i8>(0).ok()?;
    let mut out = [0i8; KWS_EXPECTED.len()];
    let values = y.as_slice().filter(|s| s.len() == KWS_EXPECTED.len())?;
    out.copy_from_slice(values);
    Some(out)
}

/// Runs [`keyword`]; `true` if its output equals the reference.
pub fn run() -> bool {
    let arena = cortex_m::singleton!(: [u8; KWS_ARENA_BYTES] = [0; KWS_ARENA_BYTES]).expect("once");
    let ok = keyword(arena) == Some(KWS_EXPECTED);
    say!(
        "keyword: the KWS int8 network {} TensorFlow Lite's reference kernels (class {})",
        if ok { "equals" } else { "DIFFERS from" },
        KWS_EXPECTED
            .iter()
            .enumerate()
            .max_by_key(|(_, v)| **v)
            .map_or(0, |(i, _)| i)
    );
    ok
}
