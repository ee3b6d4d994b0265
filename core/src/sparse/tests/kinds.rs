//! Every pair kind at fixed lengths through every check, deterministically: Miri runs only a
//! few random cases, and this sweep gives it every sparse / dense combination anyway. (Under
//! Miri, which is slow, each sweep runs one element type; the property tests cover the rest.)

use super::*;

fn sweep<T: TestElem>(check: impl Fn(&Pair<T>) -> Result<(), TestCaseError>) {
    for p in deterministic_pairs::<T>() {
        if let Err(e) = check(&p) {
            panic!("{:?} of length {}: {e}", p.kind, p.len());
        }
    }
}

#[test]
fn every_kind_binary_math() {
    sweep::<f32>(super::math::check_binary);
    if !cfg!(miri) {
        sweep::<i32>(super::math::check_binary);
    }
}

#[test]
fn every_kind_apply() {
    sweep::<f32>(|p| {
        super::visit::check_apply_with(p)?;
        super::visit::check_apply_into(p)
    });
    if !cfg!(miri) {
        sweep::<u32>(|p| {
            super::visit::check_apply_with(p)?;
            super::visit::check_apply_into(p)
        });
    }
}

#[test]
fn every_kind_for_each_and_equality() {
    sweep::<i32>(|p| {
        super::visit::check_for_each(p)?;
        super::construct::check_equality(p)
    });
    if !cfg!(miri) {
        sweep::<bool>(|p| {
            super::visit::check_for_each(p)?;
            super::construct::check_equality(p)
        });
    }
}

#[test]
fn every_kind_copies_and_reshaping() {
    sweep::<f32>(|p| {
        // `a` alone is dense, sparse or empty depending on the kind.
        let sides = if cfg!(miri) {
            &[&p.a][..]
        } else {
            &[&p.a, &p.b][..]
        };
        for (k, &q) in sides.iter().enumerate() {
            let params = (
                q.clone(),
                7 * k as u16 + p.len() as u16,
                3 + p.len() as u16 / 2,
            );
            super::copy::check_copies(&params)?;
            super::copy::check_reshape(&params)?;
            super::math::check_unary(&(q.clone(), f32::from_seed(k as u64 + 2)))?;
            super::math::check_arg(q)?;
        }
        Ok(())
    });
}
