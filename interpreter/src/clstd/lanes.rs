//! Operand access shared by the evaluators, and the dispatch of [`super::eval`].

use spirv::CLOp;

use super::fmt::Fmt;
use super::{Elem, LaneArgs, Produced};

/// Lane `i` of `a`, broadcasting a one-lane operand. Callers check the lane counts first
/// with [`check`]; a short operand reads as 0 rather than panicking.
pub fn lane(a: &LaneArgs<'_>, i: usize) -> u64 {
    if a.lanes.len() == 1 {
        a.lanes[0]
    } else {
        a.lanes.get(i).copied().unwrap_or(0)
    }
}

/// Checks there are at least `arity` operands, each with one lane or at least `n`.
pub fn check(args: &[LaneArgs<'_>], arity: usize, n: usize) -> Result<(), String> {
    if args.len() < arity {
        return Err(format!("expects {arity} operands, got {}", args.len()));
    }
    for (k, a) in args.iter().take(arity).enumerate() {
        if a.lanes.len() != 1 && a.lanes.len() < n {
            return Err(format!(
                "operand {k} has {} lanes, the result {n}",
                a.lanes.len()
            ));
        }
    }
    Ok(())
}

/// The float format of an element type.
pub fn float_fmt(e: Elem) -> Result<Fmt, String> {
    match e {
        Elem::Float(w) => Fmt::of(w).ok_or_else(|| format!("unsupported float width {w}")),
        other => Err(format!("expects a float type, got {other:?}")),
    }
}

/// The width of an integer element type.
pub fn int_width(e: Elem) -> Result<u32, String> {
    match e {
        Elem::Int(w @ (8 | 16 | 32 | 64)) => Ok(u32::from(w)),
        other => Err(format!(
            "expects an integer type of 8/16/32/64 bits, got {other:?}"
        )),
    }
}

/// See [`super::eval`].
pub fn dispatch(
    op: u32,
    result: Elem,
    args: &[LaneArgs<'_>],
    out: &mut [u64],
    out2: &mut [u64],
) -> Result<Produced, String> {
    let Some(clop) = CLOp::from_u32(op) else {
        return Err(format!("unknown OpenCL.std instruction #{op}"));
    };
    let done = super::math::eval(clop, result, args, out, out2)
        .and_then(|p| match p {
            Some(p) => Ok(Some(p)),
            None => super::int::eval(clop, result, args, out),
        })
        .and_then(|p| match p {
            Some(p) => Ok(Some(p)),
            None => super::vector::eval(clop, result, args, out),
        })
        .map_err(|e| format!("OpenCL.std {clop:?}: {e}"))?;
    done.ok_or_else(|| {
        format!(
            "OpenCL.std {clop:?} is not evaluated by clstd (the executor owns memory instructions)"
        )
    })
}
