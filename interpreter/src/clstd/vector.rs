//! OpenCL.std functions that are not lane-wise (geometric, shuffle; `dot` is core OpDot) and the bitwise
//! selections (select, bitselect), which work on bit patterns of any element type.

use spirv::CLOp;

use super::conv::mask;
use super::fmt::Fmt;
use super::lanes::{check, float_fmt, int_width, lane};
use super::{Elem, LaneArgs, Produced};

/// Width in bits of any element type.
fn elem_width(e: Elem) -> u32 {
    match e {
        Elem::Bool => 1,
        Elem::Int(w) | Elem::Float(w) => u32::from(w),
    }
}

/// The operand's lanes as exact f64 values.
fn floats(a: &LaneArgs<'_>) -> Result<Vec<f64>, String> {
    let f = float_fmt(a.elem)?;
    Ok(a.lanes.iter().map(|&b| f.to_f64(b)).collect())
}

/// Euclidean length without overflow or underflow: scaled by a power of two.
fn euclid_len(v: &[f64]) -> f64 {
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let m = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if m == 0.0 || m.is_infinite() {
        return m;
    }
    let e = libm::ilogb(m);
    let s: f64 = v.iter().map(|x| libm::scalbn(*x, -e)).map(|x| x * x).sum();
    libm::scalbn(libm::sqrt(s), e)
}

fn normalized(v: &[f64]) -> Vec<f64> {
    if v.iter().any(|x| x.is_nan()) {
        return vec![f64::NAN; v.len()];
    }
    if v.iter().all(|&x| x == 0.0) {
        return v.to_vec();
    }
    let v: Vec<f64> = if v.iter().any(|x| x.is_infinite()) {
        v.iter()
            .map(|&x| {
                if x.is_infinite() {
                    libm::copysign(1.0, x)
                } else {
                    0.0 * x
                }
            })
            .collect()
    } else {
        v.to_vec()
    };
    // Divide in the scaled domain: the length of a vector near the largest double overflows
    // (normalize(0x1.7ap+1023, -0x1.6ep+1023) has a length past DBL_MAX) while the
    // normalized vector is finite; scaling by a power of two is exact, so no rounding is added.
    let m = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let e = libm::ilogb(m);
    let scaled: Vec<f64> = v.iter().map(|x| libm::scalbn(*x, -e)).collect();
    let l = libm::sqrt(scaled.iter().map(|x| x * x).sum());
    scaled.iter().map(|x| x / l).collect()
}

fn write_floats(f: Fmt, vals: &[f64], out: &mut [u64]) -> Result<(), String> {
    if vals.len() < out.len() {
        return Err(format!(
            "produces {} lanes, the result has {}",
            vals.len(),
            out.len()
        ));
    }
    for (o, v) in out.iter_mut().zip(vals) {
        *o = f.encode(*v);
    }
    Ok(())
}

fn geometric(op: CLOp, result: Elem, args: &[LaneArgs<'_>], out: &mut [u64]) -> Result<(), String> {
    use CLOp::*;
    let binary = matches!(op, cross | distance | fast_distance);
    let arity = if binary { 2 } else { 1 };
    if args.len() < arity {
        return Err(format!("expects {arity} operands, got {}", args.len()));
    }
    let p0 = floats(&args[0])?;
    let p1 = if binary {
        floats(&args[1])?
    } else {
        Vec::new()
    };
    if binary && p0.len() != p1.len() {
        return Err(format!("operands have {} and {} lanes", p0.len(), p1.len()));
    }
    let rf = float_fmt(result)?;
    let vals: Vec<f64> = match op {
        cross => {
            if p0.len() != 3 && p0.len() != 4 {
                return Err(format!("expects 3 or 4 lanes, got {}", p0.len()));
            }
            let (a, b) = (&p0, &p1);
            let mut c = vec![
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            if p0.len() == 4 {
                c.push(0.0);
            }
            c
        }
        distance | fast_distance => {
            let d: Vec<f64> = p0.iter().zip(&p1).map(|(a, b)| a - b).collect();
            vec![euclid_len(&d)]
        }
        length | fast_length => vec![euclid_len(&p0)],
        _ => normalized(&p0), // normalize | fast_normalize
    };
    write_floats(rf, &vals, out)
}

/// Evaluates the non-lane-wise and bitwise functions; `Ok(None)` when `op` is not one.
pub fn eval(
    op: CLOp,
    result: Elem,
    args: &[LaneArgs<'_>],
    out: &mut [u64],
) -> Result<Option<Produced>, String> {
    use CLOp::*;
    let n = out.len();
    match op {
        cross | distance | length | normalize | fast_distance | fast_length | fast_normalize => {
            geometric(op, result, args, out)?
        }
        shuffle | shuffle2 => {
            let two = op == shuffle2;
            let arity = if two { 3 } else { 2 };
            if args.len() < arity {
                return Err(format!("expects {arity} operands, got {}", args.len()));
            }
            let x = args[0].lanes;
            let y = if two { args[1].lanes } else { x };
            let m = &args[arity - 1];
            if x.is_empty() || y.len() != x.len() {
                return Err(format!(
                    "input vectors have {} and {} lanes",
                    x.len(),
                    y.len()
                ));
            }
            check(&args[arity - 1..], 1, n)?;
            let mw = int_width(m.elem)?;
            let k = x.len() as u64 * if two { 2 } else { 1 };
            let vw = mask(elem_width(result));
            for (i, o) in out.iter_mut().enumerate() {
                let idx = ((lane(m, i) & mask(mw)) % k) as usize;
                let v = if idx < x.len() {
                    x[idx]
                } else {
                    y[idx - x.len()]
                };
                *o = v & vw;
            }
        }
        select => {
            check(args, 3, n)?;
            let cw = int_width(args[2].elem)?;
            for (i, o) in out.iter_mut().enumerate() {
                let c = lane(&args[2], i) & mask(cw);
                let pick_b = if n == 1 {
                    c != 0
                } else {
                    c >> (cw - 1) & 1 == 1
                };
                *o = lane(&args[usize::from(pick_b)], i);
            }
        }
        bitselect => {
            check(args, 3, n)?;
            let w = mask(elem_width(result));
            for (i, o) in out.iter_mut().enumerate() {
                let (a, b, c) = (lane(&args[0], i), lane(&args[1], i), lane(&args[2], i));
                *o = ((a & !c) | (b & c)) & w;
            }
        }
        _ => return Ok(None),
    }
    Ok(Some(Produced::Result))
}
