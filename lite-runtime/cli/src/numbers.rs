//! Value parsers for numeric options: every number is checked where it is parsed (range,
//! shape), and a bad one is a usage error naming the option; none is clamped silently.

use tessera_core::data::Dims;

/// The largest `label_dim`, `dense_dim` or `slot_num` accepted: HugeCTR's readers hold them
/// in a C `int`, and with this bound no size computed from them overflows.
pub const MAX_DIM: usize = i32::MAX as usize;

/// `--seconds`: a finite number of seconds from 0 to a million (about 11 days).
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=1e6).contains(&x) => Ok(x),
        Ok(x) => Err(format!("{x} is outside 0 to 1000000 seconds")),
        Err(_) => Err("not a number of seconds".into()),
    }
}

/// A count of at least 1 (`--batch`, `--dim`): zero is an error, not a silent 1; how large it
/// may be is the memory budget's to say, with the bytes it would take.
pub fn positive(text: &str) -> Result<usize, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| "not a whole number".to_owned())?;
    if n == 0 {
        return Err("must be at least 1".into());
    }
    usize::try_from(n).map_err(|_| format!("{n} does not fit this machine's address space"))
}

/// `--dims L,D,S`: three counts, each at most [`MAX_DIM`], not all zero.
pub fn dims(text: &str) -> Result<Dims, String> {
    let v = list(text)?;
    let [l, d, s] = v[..] else {
        return Err(format!(
            "{} number(s); three are needed: label_dim,dense_dim,slot_num",
            v.len()
        ));
    };
    let one = |x: u64, name: &str| {
        usize::try_from(x)
            .ok()
            .filter(|&x| x <= MAX_DIM)
            .ok_or(format!("{name} {x} is above {MAX_DIM}"))
    };
    let dims = Dims::new(
        one(l, "label_dim")?,
        one(d, "dense_dim")?,
        one(s, "slot_num")?,
    );
    check_dims(dims)?;
    Ok(dims)
}

/// Dims a sample can have: not all zero (a sample of nothing), each at most [`MAX_DIM`].
pub fn check_dims(d: Dims) -> Result<(), String> {
    if d == Dims::new(0, 0, 0) {
        return Err("dims 0,0,0: a sample with no label, no dense feature and no slot".into());
    }
    for (x, name) in [
        (d.label_dim, "label_dim"),
        (d.dense_dim, "dense_dim"),
        (d.slot_num, "slot_num"),
    ] {
        if x > MAX_DIM {
            return Err(format!("{name} {x} is above {MAX_DIM}"));
        }
    }
    Ok(())
}

/// A comma-separated list of whole numbers (`--slot-sizes`).
pub fn list(text: &str) -> Result<Vec<u64>, String> {
    text.split(',')
        .map(|x| {
            x.trim()
                .parse()
                .map_err(|_| format!("{x:?} is not a whole number"))
        })
        .collect()
}

/// `--max-nnz`: keys a slot may hold, 0 to `i32::MAX` (HugeCTR's `nnz` is an `int`).
pub fn max_nnz(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n <= i32::MAX as u32 => Ok(n),
        _ => Err(format!("not a whole number from 0 to {}", i32::MAX)),
    }
}

#[cfg(test)]
mod tests;
