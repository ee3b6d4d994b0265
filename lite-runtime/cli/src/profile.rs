//! `tessera model profile MODEL [--input I=FILE]... [--seconds S]`: where an invoke's time
//! goes, per operator, as LiteRT's `benchmark_model --enable_op_profiling` prints it: index,
//! operator, shapes, median microseconds over the invokes timed, share of the invoke, and
//! multiply-accumulates per second for the operators made of them.

use std::io::Write;
use std::time::{Duration, Instant};

use clap::ArgMatches;
use tessera_lite::interpreter::OpTimes;
use tessera_lite::model::{BuiltinOperator, Op};

use crate::failure::Failure;
use crate::files::ModelBytes;
use crate::model::{Session, load, path, set_inputs};
use crate::output::Out;

/// Runs `tessera model profile`.
pub fn profile(a: &ArgMatches, out: &mut Out) -> Result<(), Failure> {
    let path = path(a);
    let seconds = a.get_one::<f64>("seconds").copied().unwrap_or(2.0);
    let bytes = ModelBytes::read(path)?;
    let model = load(path, &bytes)?;
    let mut session = Session::new(path, model, crate::model::options(a))?;
    let mut it = session.interpreter(path)?;
    set_inputs(a, &mut it, path)?;
    let ops = it.operator_count();

    // Warm up, then one profiled invoke per sample until the time is spent (at least 5).
    let fail = |e| Failure::file(path, e);
    for _ in 0..3 {
        it.invoke().map_err(fail)?;
    }
    let mut samples: Vec<Vec<u64>> = vec![Vec::new(); ops];
    let mut nanos = vec![0u64; ops];
    let mut invokes = Vec::new();
    let begun = Instant::now();
    while begun.elapsed() < Duration::from_secs_f64(seconds) || invokes.len() < 5 {
        nanos.fill(0);
        let t = Instant::now();
        it.invoke_profiled(&mut OpTimes::new(&mut nanos))
            .map_err(fail)?;
        invokes.push(t.elapsed().as_nanos() as f64 / 1e3);
        for (s, &n) in samples.iter_mut().zip(&nanos) {
            s.push(n);
        }
    }
    invokes.sort_by(f64::total_cmp);
    let medians: Vec<f64> = samples
        .iter_mut()
        .map(|s| {
            s.sort_unstable();
            s.get(s.len() / 2).map_or(0.0, |&n| n as f64 / 1e3)
        })
        .collect();
    let sum: f64 = medians.iter().sum();

    writeln!(
        out,
        "{}: {} operators, {:.2} us per profiled invoke (median of {}), arena {} bytes",
        path.display(),
        ops,
        invokes[invokes.len() / 2],
        invokes.len(),
        it.arena_used_bytes()
    )?;
    writeln!(
        out,
        "{:>4}  {:<24} {:<44} {:>10} {:>7} {:>9}",
        "#", "operator", "inputs -> outputs", "us", "share", "GMAC/s"
    )?;
    let graph = it.subgraph();
    for (op, us) in medians.iter().enumerate() {
        let Some(o) = graph.operators().get(op) else {
            continue;
        };
        let shape = |t: Option<usize>| -> Option<Vec<usize>> {
            Some(it.tensor_shape(t?).ok()?.dims().to_vec())
        };
        let ins: Vec<Option<Vec<usize>>> = o.inputs().iter().map(shape).collect();
        let outs: Vec<Option<Vec<usize>>> = o.outputs().iter().map(shape).collect();
        let macs = multiply_accumulates(o.op(), &ins, &outs);
        let rate = match macs {
            Some(m) if *us > 0.0 => format!("{:.2}", m as f64 / (us * 1e3)),
            _ => String::new(),
        };
        writeln!(
            out,
            "{op:>4}  {:<24} {:<44} {us:>10.2} {:>6.1}% {rate:>9}",
            o.op().to_string(),
            format!("{} -> {}", shapes(&ins), shapes(&outs)),
            if sum > 0.0 { us / sum * 100.0 } else { 0.0 },
        )?;
    }
    writeln!(
        out,
        "sum of the operators' medians {sum:.2} us; the profiled invoke's overhead is the clock \
         read twice per operator"
    )?;
    Ok(())
}

/// `[1x49x40x1, 8x10x8x1] ` style: each operand's dims, `-` for an absent one.
fn shapes(operands: &[Option<Vec<usize>>]) -> String {
    let one = |s: &Option<Vec<usize>>| match s {
        None => "-".to_string(),
        Some(d) if d.is_empty() => "()".to_string(),
        Some(d) => d.iter().map(usize::to_string).collect::<Vec<_>>().join("x"),
    };
    operands.iter().map(one).collect::<Vec<_>>().join(",")
}

/// The multiply-accumulates an operator of matrix products or convolutions makes, from its
/// operands' shapes as set up; `None` for other operators.
fn multiply_accumulates(
    op: Op<'_>,
    ins: &[Option<Vec<usize>>],
    outs: &[Option<Vec<usize>>],
) -> Option<u64> {
    let Op::Builtin(b) = op else { return None };
    let dims = |v: &[Option<Vec<usize>>], k: usize| v.get(k).cloned().flatten();
    let elements = |d: &[usize]| d.iter().map(|&x| x as u64).product::<u64>();
    let out = dims(outs, 0)?;
    let n = elements(&out);
    let macs = match b {
        // Filter [O, H, W, I]: each output sums H x W x I products.
        BuiltinOperator::Conv2D => {
            let f = dims(ins, 1)?;
            n * elements(f.get(1..)?)
        }
        // Filter [1, H, W, O]: each output sums H x W products.
        BuiltinOperator::DepthwiseConv2D => {
            let f = dims(ins, 1)?;
            n * elements(f.get(1..3)?)
        }
        // Weights [units, depth].
        BuiltinOperator::FullyConnected => n * (*dims(ins, 1)?.last()? as u64),
        // The contracted dimension is the left operand's one the output does not keep.
        BuiltinOperator::BatchMatmul => {
            let l = dims(ins, 0)?;
            let (r, m) = (l.len(), out.len());
            let rows = *out.get(m.checked_sub(2)?)?;
            let k = if l.get(r.checked_sub(2)?) == Some(&rows) {
                l[r - 1]
            } else {
                l[r - 2]
            };
            n * k as u64
        }
        // Inputs (output shape, weights [O, H, W, I], input): each input element is scattered
        // over H x W x O outputs.
        BuiltinOperator::TransposeConv => {
            let w = dims(ins, 1)?;
            elements(&dims(ins, 2)?) * elements(w.get(..3)?)
        }
        _ => return None,
    };
    Some(macs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiply_accumulates_follow_the_operands_layouts() {
        let s = |d: &[usize]| Some(d.to_vec());
        let b = Op::Builtin;
        // micro_speech's conv: 1x49x40x1 input, 8x10x8x1 filter, 1x25x20x8 output.
        assert_eq!(
            multiply_accumulates(
                b(BuiltinOperator::Conv2D),
                &[s(&[1, 49, 40, 1]), s(&[8, 10, 8, 1]), s(&[8])],
                &[s(&[1, 25, 20, 8])]
            ),
            Some(4000 * 80)
        );
        assert_eq!(
            multiply_accumulates(
                b(BuiltinOperator::DepthwiseConv2D),
                &[s(&[1, 10, 10, 8]), s(&[1, 3, 3, 8]), s(&[8])],
                &[s(&[1, 10, 10, 8])]
            ),
            Some(800 * 9)
        );
        assert_eq!(
            multiply_accumulates(
                b(BuiltinOperator::FullyConnected),
                &[s(&[2, 64]), s(&[10, 64]), None],
                &[s(&[2, 10])]
            ),
            Some(20 * 64)
        );
        // [3, 4] x [4, 5], and with the left operand transposed ([4, 3]).
        for lhs in [[3, 4], [4, 3]] {
            assert_eq!(
                multiply_accumulates(
                    b(BuiltinOperator::BatchMatmul),
                    &[s(&lhs), s(&[4, 5])],
                    &[s(&[3, 5])]
                ),
                Some(15 * 4)
            );
        }
        assert_eq!(
            multiply_accumulates(
                b(BuiltinOperator::TransposeConv),
                &[s(&[4]), s(&[2, 3, 3, 4]), s(&[1, 5, 5, 4])],
                &[s(&[1, 10, 10, 2])]
            ),
            Some(100 * 18)
        );
        assert_eq!(
            multiply_accumulates(b(BuiltinOperator::Add), &[], &[s(&[1])]),
            None
        );
        // A missing shape gives no figure rather than a wrong one.
        assert_eq!(
            multiply_accumulates(b(BuiltinOperator::Conv2D), &[None], &[s(&[1])]),
            None
        );
    }
}
