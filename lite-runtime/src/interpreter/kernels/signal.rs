//! TensorFlow Lite Micro's signal library (`signal/micro/kernels`) as custom operators, under
//! the names TFLM registers them (`MicroMutableOpResolver::AddWindow` and siblings): the audio
//! front end of its `micro_speech` example and the ops around it. Bit-exact with TFLM: the
//! fixed-point math ([`fixed`]: square roots, the log, PCAN's gain) and the FFTs ([`kiss`]:
//! KISS FFT as TFLM builds it, in int16, int32 and float) run TFLM's integer arithmetic step
//! for step.
//!
//! - [`spectral`]: `SignalWindow`, `SignalFftAutoScale`, `SignalRfft`, `SignalIrfft`,
//!   `SignalEnergy`.
//! - [`bank`]: `SignalFilterBank`, `SignalFilterBankSquareRoot`,
//!   `SignalFilterBankSpectralSubtraction` (its noise estimate is state), `SignalFilterBankLog`,
//!   `SignalPCAN`.
//! - [`stream`]: `SignalFramer`, `SignalStacker`, `SignalOverlapAdd`, `SignalDelay`, which
//!   keep samples between invokes.
//!
//! The state lives in each operator's persistent bytes (`Eval::persistent_mut`), set up by
//! `init` and set back by `Interpreter::reset_state` (TFLM's `Reset`). Options are the
//! operator's FlexBuffer map, read by name (TFLM reads the map's values by position in
//! sorted-key order: the same values for the maps TensorFlow's converter writes); a missing
//! or mistyped option refuses the operator.
//!
//! Where TFLM leaves an output unwritten (`SignalEnergy` outside its index range, `SignalFramer`
//! and `SignalStacker` while `output_valid` is false) tessera writes zeros, as the ops'
//! documentation says. Configurations on which TFLM's kernels read or write out of bounds,
//! divide by zero or shift past a word (unchecked in TFLM) are refused at set-up, or at
//! invoke where the data decides (a filter bank's index, a shift from a tensor).

mod bank;
mod fixed;
mod kiss;
mod spectral;
mod stream;

#[cfg(test)]
mod tests;

use crate::interpreter::{CustomKernel, Kernel, KernelError, Prepare};
use crate::model::{BuiltinOperator, FlexMap, FlexValue};

/// A custom kernel named `name`.
const fn custom(
    name: &'static str,
    prepare: fn(&mut Prepare<'_>) -> Result<(), KernelError>,
    init: Option<crate::interpreter::InitFn>,
    eval: fn(&mut crate::interpreter::Eval<'_>) -> Result<(), KernelError>,
) -> CustomKernel {
    CustomKernel {
        name,
        kernel: Kernel {
            op: BuiltinOperator::Custom,
            prepare,
            init,
            eval,
        },
    }
}

/// `SignalWindow`: `(input × weights) >> shift` over the innermost dimension, saturated to
/// int16.
pub static SIGNAL_WINDOW: CustomKernel = custom(
    "SignalWindow",
    spectral::prepare_window,
    None,
    spectral::eval_window,
);

/// `SignalFftAutoScale`: the int16 input shifted left as far as it goes without clipping, and
/// the shift.
pub static SIGNAL_FFT_AUTO_SCALE: CustomKernel = custom(
    "SignalFftAutoScale",
    spectral::prepare_auto_scale,
    None,
    spectral::eval_auto_scale,
);

/// `SignalRfft`: the real FFT of the innermost dimension (zero-padded to `fft_length`), as
/// `fft_length / 2 + 1` interleaved complex values; int16 and int32 scaled by 1 / fft_length,
/// float32 not.
pub static SIGNAL_RFFT: CustomKernel = custom(
    "SignalRfft",
    spectral::prepare_rfft,
    Some(spectral::init_fft),
    spectral::eval_rfft,
);

/// `SignalIrfft`: the inverse of [`SIGNAL_RFFT`] (`fft_length` real values from
/// `fft_length / 2 + 1` complex ones).
pub static SIGNAL_IRFFT: CustomKernel = custom(
    "SignalIrfft",
    spectral::prepare_irfft,
    Some(spectral::init_fft),
    spectral::eval_irfft,
);

/// `SignalEnergy`: `re² + im²` of the complex int16 input over `start_index..end_index`, as
/// uint32.
pub static SIGNAL_ENERGY: CustomKernel = custom(
    "SignalEnergy",
    spectral::prepare_energy,
    None,
    spectral::eval_energy,
);

/// `SignalFilterBank`: a triangular (mel) filter bank over an energy spectrum, in uint64.
pub static SIGNAL_FILTER_BANK: CustomKernel = custom(
    "SignalFilterBank",
    bank::prepare_filter_bank,
    None,
    bank::eval_filter_bank,
);

/// `SignalFilterBankSquareRoot`: the rounded square root of each channel, shifted right by a
/// scalar input.
pub static SIGNAL_FILTER_BANK_SQUARE_ROOT: CustomKernel = custom(
    "SignalFilterBankSquareRoot",
    bank::prepare_square_root,
    None,
    bank::eval_square_root,
);

/// `SignalFilterBankSpectralSubtraction`: a per-channel noise estimate (kept between invokes)
/// subtracted from the channels; outputs the result and the estimate.
pub static SIGNAL_FILTER_BANK_SPECTRAL_SUBTRACTION: CustomKernel = custom(
    "SignalFilterBankSpectralSubtraction",
    bank::prepare_spectral_subtraction,
    Some(bank::init_spectral_subtraction),
    bank::eval_spectral_subtraction,
);

/// `SignalFilterBankLog`: `min(ln(input << input_correction_bits) × output_scale, 32767)` in
/// TFLM's fixed point.
pub static SIGNAL_FILTER_BANK_LOG: CustomKernel = custom(
    "SignalFilterBankLog",
    bank::prepare_log,
    None,
    bank::eval_log,
);

/// `SignalPCAN`: per-channel amplitude normalization by a power of the noise estimate.
pub static SIGNAL_PCAN: CustomKernel =
    custom("SignalPCAN", bank::prepare_pcan, None, bank::eval_pcan);

/// `SignalFramer`: overlapping frames of `frame_size` every `frame_step` samples of a stream
/// fed in blocks, and whether they are all complete.
pub static SIGNAL_FRAMER: CustomKernel = custom(
    "SignalFramer",
    stream::prepare_framer,
    Some(stream::init_framer),
    stream::eval_framer,
);

/// `SignalStacker`: consecutive frames stacked into one, every `stacker_step` frames.
pub static SIGNAL_STACKER: CustomKernel = custom(
    "SignalStacker",
    stream::prepare_stacker,
    Some(stream::init_stacker),
    stream::eval_stacker,
);

/// `SignalOverlapAdd`: overlapping frames summed back into a stream, `frame_step` samples per
/// frame out.
pub static SIGNAL_OVERLAP_ADD: CustomKernel = custom(
    "SignalOverlapAdd",
    stream::prepare_overlap_add,
    Some(stream::init_overlap_add),
    stream::eval_overlap_add,
);

/// `SignalDelay`: the innermost dimension delayed by `delay_length` samples across invokes.
pub static SIGNAL_DELAY: CustomKernel = custom(
    "SignalDelay",
    stream::prepare_delay,
    Some(stream::init_delay),
    stream::eval_delay,
);

/// The operator's state: its persistent bytes to update, none when it keeps none (an op over
/// no channels asks for no bytes, and no bytes are cut for it).
fn state<'e>(
    ctx: &mut crate::interpreter::Eval<'e>,
    bytes: usize,
) -> Result<&'e mut [u8], KernelError> {
    if bytes == 0 {
        Ok(&mut [])
    } else {
        ctx.persistent_mut()
    }
}

const NO_OPTIONS: KernelError = KernelError::Mismatch {
    what: "custom options are not a FlexBuffer map",
};

/// The operator's custom options, a FlexBuffer map.
fn options<'m>(ctx: &Prepare<'m>) -> Result<FlexMap<'m>, KernelError> {
    FlexValue::root(ctx.custom_options())
        .ok()
        .and_then(|v| v.as_map())
        .ok_or(NO_OPTIONS)
}

/// An int32 option (TFLM's `ElementAsInt32`; out of int32's range is refused rather than
/// truncated).
fn int_option(map: &FlexMap<'_>, key: &str, missing: KernelError) -> Result<i32, KernelError> {
    map.get(key)
        .and_then(|v| v.as_i64())
        .and_then(|v| i32::try_from(v).ok())
        .ok_or(missing)
}

/// A bool option (`ElementAsBool`).
fn bool_option(map: &FlexMap<'_>, key: &str, missing: KernelError) -> Result<bool, KernelError> {
    map.get(key).and_then(|v| v.as_bool()).ok_or(missing)
}

/// `KernelError::Mismatch` for option `$key` missing or not an integer / bool.
macro_rules! missing {
    ($key:literal) => {
        $crate::interpreter::KernelError::Mismatch {
            what: concat!("custom option `", $key, "` missing or of the wrong type"),
        }
    };
}
use missing;

/// An `i32` option that must lie in `range`.
macro_rules! option_in {
    ($map:expr, $key:literal, $range:expr) => {{
        let v = super::int_option(&$map, $key, super::missing!($key))?;
        if !$range.contains(&v) {
            return Err($crate::interpreter::KernelError::Unsupported {
                what: concat!("custom option `", $key, "` out of the range the op handles"),
            });
        }
        v
    }};
}
use option_in;

/// The element type an op's `T` option names (TensorFlow Lite's `TensorType` codes).
fn type_option(map: &FlexMap<'_>) -> Result<crate::model::TensorType, KernelError> {
    use crate::model::TensorType;
    match int_option(map, "T", missing!("T"))? {
        0 => Ok(TensorType::Float32),
        2 => Ok(TensorType::Int32),
        7 => Ok(TensorType::Int16),
        _ => Err(KernelError::Unsupported {
            what: "custom option `T`: a type the op does not run",
        }),
    }
}
