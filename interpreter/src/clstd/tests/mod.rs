//! Table-driven tests of `eval` for float math, common, geometric and shuffle functions:
//! `math` (exact values, accuracy, format specifics), `vector` (geometric, shuffles,
//! selects), `pocl` (agreement with PoCL 3, and every instruction covered).

use spirv::CLOp;

mod math;
mod pocl;
mod vector;

use super::fmt::{Fmt, F16, F32, F64};
use super::{eval, Elem, LaneArgs, Produced};

/// Runs `op` on one-lane float operands of width `w` given as f64 values (rounded to the
/// format); returns the result's exact value and the pointee lane.
fn run(op: CLOp, w: u8, xs: &[f64]) -> (f64, u64) {
    let f = Fmt::of(w).expect("float width");
    let lanes: Vec<[u64; 1]> = xs.iter().map(|&x| [f.encode(x)]).collect();
    let args: Vec<LaneArgs<'_>> = lanes
        .iter()
        .map(|l| LaneArgs {
            elem: Elem::Float(w),
            lanes: l,
        })
        .collect();
    let mut out = [0u64; 1];
    let mut out2 = [0u64; 1];
    let r = eval(op as u32, Elem::Float(w), &args, &mut out, &mut out2);
    assert!(r.is_ok(), "{op:?}: {r:?}");
    (f.to_f64(out[0]), out2[0])
}

fn f32v(op: CLOp, xs: &[f64]) -> f64 {
    run(op, 32, xs).0
}

fn f64v(op: CLOp, xs: &[f64]) -> f64 {
    run(op, 64, xs).0
}

/// Same value, same sign of zero, or both NaN.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
}

/// Distance in ulps of format `f` between two values of that format.
fn ulps(f: Fmt, a: f64, b: f64) -> u64 {
    if same(a, b) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f64| -> i128 {
        let bits = i128::from(f.encode(x));
        let sign = i128::from(f.sign_bit());
        if bits & sign != 0 {
            -(bits & (sign - 1))
        } else {
            bits
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;
const DEN32: f64 = 1.401298464324817e-45; // smallest f32 subnormal, 2^-149
