//! The proptest configuration every kernel's property tests use: their case count natively,
//! fewer under Miri, and no failure file there (Miri's isolation has no file system).

use proptest::test_runner::Config;

/// `native` cases natively, `miri` under Miri.
pub fn cases(native: u32, miri: u32) -> Config {
    let mut config = Config::with_cases(if cfg!(miri) { miri } else { native });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}
