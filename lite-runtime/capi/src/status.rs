//! Status codes returned by the C ABI's fallible functions.

/// Result of a fallible C ABI call.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum TesseraStatus {
    /// Success.
    TESSERA_OK = 0,
    /// A required pointer was null.
    TESSERA_NULL_ARGUMENT = 1,
    /// The input bytes are not a valid string tensor, or not a valid model.
    TESSERA_MALFORMED = 2,
    /// The output buffer is too small; the size needed was written to the size out-parameter.
    TESSERA_BUFFER_TOO_SMALL = 3,
    /// A string or tensor exceeds what the format can encode.
    TESSERA_TOO_LARGE = 4,
    /// The model uses an op, or a tensor type, that no kernel here runs.
    TESSERA_UNSUPPORTED = 5,
    /// No such input, output or tensor, or not of the type asked for.
    TESSERA_NO_SUCH_TENSOR = 6,
    /// A kernel failed (a bad index in the data, shapes that do not fit): see the error.
    TESSERA_FAILED = 7,
    /// An argument is out of range, misaligned, or overlaps another: see the error.
    TESSERA_BAD_ARGUMENT = 8,
}
