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
    /// The input bytes are not a valid string tensor.
    TESSERA_MALFORMED = 2,
    /// The output buffer is too small; the size needed was written to the size out-parameter.
    TESSERA_BUFFER_TOO_SMALL = 3,
    /// A string or tensor exceeds what the format can encode.
    TESSERA_TOO_LARGE = 4,
}
