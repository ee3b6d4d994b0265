//! TFLite string tensors to `TF_TString` arrays without copying a string byte. (The other way,
//! `TString`s to a TFLite buffer, is [`encode_tflite`](crate::strings::encode_tflite): a
//! `TString` is `AsRef<[u8]>`.)

use crate::error::CapacityError;
use crate::strings::TfliteStrings;

use super::heap::StringHeap;
use super::string::TString;

/// Fills `out[..N]` with VIEWs of the `N` strings of a TFLite tensor (the DT_STRING layout
/// TensorFlow kernels take), releasing what those strings held before. `out` shorter than `N`
/// is an error giving the count needed; nothing is written then.
///
/// ```
/// use tessera_core::strings::TfliteStrings;
/// use tessera_core::tstring::{views_of_tflite, TString};
///
/// let tflite = b"\x02\0\0\0\x10\0\0\0\x12\0\0\0\x15\0\0\0ABCDE";
/// let tensor = TfliteStrings::new(tflite).unwrap();
/// let mut out: [TString; 2] = Default::default();
/// views_of_tflite(tensor, &mut out).unwrap();
/// assert_eq!(out[1], "CDE");
/// ```
pub fn views_of_tflite<'a, H: StringHeap>(
    tensor: TfliteStrings<'a>,
    out: &mut [TString<'a, H>],
) -> Result<(), CapacityError> {
    if out.len() < tensor.len() {
        return Err(CapacityError {
            needed: tensor.len(),
            available: out.len(),
        });
    }
    for (slot, s) in out.iter_mut().zip(tensor.iter()) {
        // A slice's length always fits the size word on targets where it was allocated,
        // except a > 1 GiB slice on a 32-bit target, which a TFLite tensor cannot describe.
        if slot.assign_view(s).is_err() {
            return Err(CapacityError {
                needed: s.len(),
                available: super::MAX_LEN,
            });
        }
    }
    Ok(())
}
