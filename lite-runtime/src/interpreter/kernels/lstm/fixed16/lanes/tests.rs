//! The slice functions against the scalar ones on every `int16_t` input.

use super::super::{logistic, tanh};
use super::{logistic_all, logistic_portable, tanh_all, tanh_portable};

fn every() -> std::vec::Vec<i16> {
    (i16::MIN..=i16::MAX).collect()
}

#[test]
fn logistic_all_is_logistic_on_every_input() {
    for bits in 0..=7 {
        let want: std::vec::Vec<i16> = every().into_iter().map(|a| logistic(a, bits)).collect();
        let mut chosen = every();
        logistic_all(&mut chosen, bits);
        let mut portable = every();
        logistic_portable(&mut portable, bits);
        assert!(chosen == want, "chosen body, integer_bits {bits}");
        assert!(portable == want, "portable body, integer_bits {bits}");
    }
}

#[test]
fn tanh_all_is_tanh_on_every_input() {
    for bits in 0..=6 {
        let want: std::vec::Vec<i16> = every().into_iter().map(|a| tanh(a, bits)).collect();
        let mut chosen = every();
        tanh_all(&mut chosen, bits);
        let mut portable = every();
        tanh_portable(&mut portable, bits);
        assert!(chosen == want, "chosen body, integer_bits {bits}");
        assert!(portable == want, "portable body, integer_bits {bits}");
    }
}
