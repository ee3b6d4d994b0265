//! [`Seal`]: a model checked once, ahead of time (on the host, in a build script), and
//! recognised later by its size and CRC-32, so that firmware that carries its model in
//! flash need not carry the verifier too.
//!
//! [`Model::load`] checks every offset, index and length of a file: 9.3 KB of code and 1.6 KB
//! of field names on a Cortex-M4F (`BENCHMARKS.md`), and a walk over the whole model at every
//! start. A model compiled into the
//! image is the same bytes at every start, so firmware can check it once when it is built
//! ([`Seal::of`], which runs the full check) and, at start-up, only recognise it
//! ([`Model::load_sealed`]: the same size, the same CRC-32). The full check's
//! guarantees then hold for those bytes; any other bytes are refused.
//!
//! A seal detects a different model and corruption (CRC-32 catches every error burst of up
//! to 32 bits, so every changed byte), not a forgery: anyone can compute a CRC. It is for
//! bytes the program itself carries, never for a file or a download (use [`Model::load`]).

use core::fmt;

use super::Model;
use super::error::ModelError;

/// The fingerprint of a model that passed [`Model::load`]: its size and CRC-32
/// (IEEE 802.3, as zlib's `crc32`). Made by [`Seal::of`] (or [`Model::seal`] of a model
/// already loaded), written into the program as a
/// constant with [`Seal::from_parts`] (its `Display` writes that expression), and checked by
/// [`Model::load_sealed`].
///
/// ```
/// use tessera_lite::model::{Model, Seal};
///
/// let bytes = include_bytes!("../../../tests/fixtures/models/kws_int8.tflite");
/// // Ahead of time (a build script): the full check, then the fingerprint.
/// let seal = Seal::of(bytes)?;
/// assert_eq!(seal.to_string(), format!("Seal::from_parts({}, 0x{:08x})", seal.size(), seal.crc32()));
/// // At start-up: the bytes are recognised, not walked.
/// let model = Model::load_sealed(bytes, &seal)?;
/// assert_eq!(model.subgraphs().len(), 1);
/// // Any other bytes are refused.
/// let mut changed = bytes.to_vec();
/// changed[100] ^= 1;
/// assert!(Model::load_sealed(&changed, &seal).is_err());
/// # Ok::<(), tessera_lite::model::ModelError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seal {
    size: u64,
    crc32: u32,
}

impl Seal {
    /// Checks `bytes` in full ([`Model::load`]) and returns their seal.
    ///
    /// # Errors
    /// The [`ModelError`] of [`Model::load`].
    pub fn of(bytes: &[u8]) -> Result<Self, ModelError> {
        Model::load(bytes).map(|model| model.seal())
    }

    /// The seal with this size and CRC-32, as [`Seal::of`] gave them (for a constant).
    #[must_use]
    pub const fn from_parts(size: u64, crc32: u32) -> Self {
        Self { size, crc32 }
    }

    /// The sealed model's size in bytes.
    #[must_use]
    pub const fn size(&self) -> u64 {
        self.size
    }

    /// The sealed model's CRC-32.
    #[must_use]
    pub const fn crc32(&self) -> u32 {
        self.crc32
    }

    /// The size and CRC-32 of `bytes`, whether or not they are a model.
    pub(crate) fn fingerprint(bytes: &[u8]) -> Self {
        Self {
            size: bytes.len() as u64,
            crc32: crc32(bytes),
        }
    }
}

impl fmt::Display for Seal {
    /// The Rust expression that makes this seal: `Seal::from_parts(SIZE, 0xCRC32)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seal::from_parts({}, 0x{:08x})", self.size, self.crc32)
    }
}

/// CRC-32 (reflected polynomial 0xEDB88320, initial and final XOR all ones), half a byte at
/// a time through a 16-entry table: 64 bytes of flash rather than the usual 1 KB table, two
/// table steps per byte rather than eight bit steps.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = u32::MAX;
    for &b in bytes {
        crc = (crc >> 4) ^ NIBBLE[((crc ^ u32::from(b)) & 0xF) as usize];
        crc = (crc >> 4) ^ NIBBLE[((crc ^ u32::from(b >> 4)) & 0xF) as usize];
    }
    !crc
}

/// The CRC of each 4-bit value, shifted out a bit at a time (computed at compile time).
const NIBBLE: [u32; 16] = {
    let mut table = [0u32; 16];
    let mut n = 0;
    while n < 16 {
        let mut crc = n as u32;
        let mut bit = 0;
        while bit < 4 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[n] = crc;
        n += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::ErrorKind;
    use crate::model::tests::sample::sample;

    const KWS: &[u8] = include_bytes!("../../../tests/fixtures/models/kws_int8.tflite");
    const CTR: &[u8] = include_bytes!("../../../tests/fixtures/models/ctr.tflite");

    #[test]
    fn crc32_matches_the_standard_check_value() {
        // The CRC catalogue's check value for CRC-32/ISO-HDLC (zlib's crc32).
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn a_sealed_model_is_the_loaded_model() {
        // The 210 KB CTR model only natively: Miri would spend minutes walking it.
        let models: &[&[u8]] = if cfg!(miri) { &[KWS] } else { &[KWS, CTR] };
        for bytes in models.iter().copied().chain([&sample()[..]]) {
            let loaded = Model::load(bytes).unwrap();
            let seal = Seal::of(bytes).unwrap();
            assert_eq!(loaded.seal(), seal);
            let sealed = Model::load_sealed(bytes, &seal).unwrap();
            // The same tables and vectors, so every view reads the same.
            assert_eq!(sealed.root, loaded.root);
            assert_eq!(sealed.ctx.buffers, loaded.ctx.buffers);
            assert_eq!(sealed.ctx.opcodes, loaded.ctx.opcodes);
            assert_eq!(sealed.ctx.buf.as_ptr(), bytes.as_ptr());
            assert_eq!(
                crate::model::tests::props::walk(&sealed),
                crate::model::tests::props::walk(&loaded)
            );
        }
    }

    #[test]
    fn sealing_a_bad_model_is_its_load_error() {
        let bytes = &KWS[..KWS.len() / 2];
        assert_eq!(Seal::of(bytes), Err(Model::load(bytes).unwrap_err()));
    }

    #[test]
    fn other_bytes_are_refused_with_both_fingerprints() {
        let seal = Seal::of(KWS).unwrap();
        let short = &KWS[..KWS.len() - 1];
        let err = Model::load_sealed(short, &seal).unwrap_err();
        assert_eq!(
            err.kind,
            ErrorKind::NotSealed {
                expected: seal,
                found: Seal::from_parts(short.len() as u64, crc32(short)),
            }
        );
        assert_eq!((err.field, err.offset), ("file", 0));
        assert_eq!(
            err.to_string(),
            format!(
                "bad model: file: {} bytes with CRC-32 0x{:08x} are not the sealed model \
                 ({} bytes, CRC-32 0x{:08x}) (at byte 0)",
                short.len(),
                crc32(short),
                KWS.len(),
                seal.crc32()
            )
        );
        // A seal made for another model.
        assert!(Model::load_sealed(&sample(), &seal).is_err());
    }

    #[test]
    fn a_seal_writes_itself_as_rust() {
        let seal = Seal::from_parts(10_560, 0x0012_abcd);
        assert_eq!(seal.to_string(), "Seal::from_parts(10560, 0x0012abcd)");
        assert_eq!((seal.size(), seal.crc32()), (10_560, 0x0012_abcd));
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 2 } else { 256 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Every change of one byte, and every other length, is refused: a CRC-32 detects
        /// every error burst of up to 32 bits.
        #[test]
        fn any_changed_byte_or_length_is_refused(
            at in any::<prop::sample::Index>(),
            x in 1..=255u8,
            cut in 0..64usize,
        ) {
            // KWS passes `load` (the tests above): its fingerprint is its seal.
            let seal = Seal::fingerprint(KWS);
            let mut changed = KWS.to_vec();
            changed[at.index(KWS.len())] ^= x;
            let is_not_sealed = |r: Result<Model<'_>, ModelError>| {
                matches!(r, Err(ModelError { kind: ErrorKind::NotSealed { .. }, .. }))
            };
            prop_assert!(is_not_sealed(Model::load_sealed(&changed, &seal)));
            let mut longer = KWS.to_vec();
            longer.push(x);
            prop_assert!(is_not_sealed(Model::load_sealed(&longer, &seal)));
            prop_assert!(is_not_sealed(Model::load_sealed(&KWS[..KWS.len() - 1 - cut], &seal)));
        }
    }
}
