//! The `defmt` variant: defmt's frames over semihosting's stdout (`defmt-semihosting`; the
//! host decodes them with `defmt-print`), the results logged with defmt, and a tessera-core
//! error logged through the `defmt::Format` its `defmt` feature derives.

use defmt_semihosting as _;
use tessera_core::data::{DataErrorKind, NormDecoder, SampleBatch};

use crate::job::{self, CONFIG, Outcome};

/// Logs the results and a decoding error with defmt; `true` if the error is the one a
/// truncated dataset must give.
pub fn run(outcome: &Outcome, kws: Option<&[i8]>) -> bool {
    defmt::println!(
        "defmt: {=u32} samples, {=u32} clicks, prediction-bits {=u64:#x}",
        outcome.samples,
        outcome.clicks,
        outcome.prediction_bits
    );
    if let Some(scores) = kws {
        defmt::println!("defmt: KWS scores {}", scores);
    }

    // The bundled dataset cut inside its second record: the decoder takes the whole first
    // record, and `finish` must then report the truncated one, saying where.
    let cut = &job::DEMO_NORM[..200];
    let (mut ld, mut offsets, mut keys) = ([0f32; 14], [0u32; 27], [0u32; 78]);
    let Ok(mut batch) = SampleBatch::new(CONFIG.dims, &mut ld, &mut offsets, &mut keys) else {
        return false;
    };
    let mut decoder = NormDecoder::<u32>::new(CONFIG);
    let result = decoder
        .decode(cut, &mut batch)
        .and_then(|p| decoder.finish(&cut[p.consumed..]));
    match result {
        Err(e) => {
            defmt::println!("defmt: a tessera-core error, as defmt::Format: {}", e);
            let ok = matches!(e.kind, DataErrorKind::Truncated { .. });
            say!(
                "defmt: logged {} error through defmt::Format (decoded below)",
                if ok {
                    "the truncation"
                } else {
                    "an UNEXPECTED"
                }
            );
            ok
        }
        Ok(_) => {
            say!("defmt: the cut dataset decoded without an error");
            false
        }
    }
}
