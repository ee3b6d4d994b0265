//! Where the firmware's text goes: semihosting's stdout, or its stderr in the `defmt` variant,
//! whose stdout carries defmt's binary frames (text there would corrupt them).

/// `hprintln!`, or `heprintln!` when defmt owns stdout.
#[cfg(not(feature = "defmt"))]
macro_rules! say {
    ($($t:tt)*) => { cortex_m_semihosting::hprintln!($($t)*) };
}

/// `hprintln!`, or `heprintln!` when defmt owns stdout.
#[cfg(feature = "defmt")]
macro_rules! say {
    ($($t:tt)*) => { cortex_m_semihosting::heprintln!($($t)*) };
}
