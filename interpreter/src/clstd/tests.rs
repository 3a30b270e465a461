//! Table-driven tests of `eval` for float math, common, geometric and shuffle functions.

use spirv::CLOp;

use super::fmt::{Fmt, F16, F32, F64};
use super::{eval, Elem, LaneArgs, Produced};

/// Runs `op` on one-lane float operands of width `w` given as f64 values (rounded to the
/// format); returns the result's exact value and the pointee lane.
fn run(op: CLOp, w: u8, xs: &[f64]) -> (f64, u64) {
    let f = Fmt::of(w).expect("float width");
    let lanes: Vec<[u64; 1]> = xs.iter().map(|&x| [f.from_f64(x)]).collect();
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
        let bits = i128::from(f.from_f64(x));
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

#[test]
fn clstd_math_exact_table_f32_f64() {
    use CLOp::*;
    // (op, operands, expected): exact in f32 and in f64 (sign of zero checked).
    let cases: &[(CLOp, &[f64], f64)] = &[
        (fmax, &[NAN, 1.0], 1.0),
        (fmax, &[1.0, NAN], 1.0),
        (fmax, &[NAN, NAN], NAN),
        (fmax, &[-INF, -3.0], -3.0),
        (fmin, &[NAN, -1.0], -1.0),
        (fmin, &[2.0, NAN], 2.0),
        (fmin, &[DEN32, 0.0], 0.0),
        (fmax_common, &[1.0, 2.0], 2.0),
        (fmin_common, &[1.0, 2.0], 1.0),
        (round, &[2.5], 3.0),
        (round, &[-2.5], -3.0),
        (round, &[-0.4], -0.0),
        (round, &[8388607.5], 8388608.0),
        (round, &[DEN32], 0.0),
        (rint, &[2.5], 2.0),
        (rint, &[3.5], 4.0),
        (rint, &[-0.5], -0.0),
        (rint, &[-1.5], -2.0),
        (rint, &[INF], INF),
        (rint, &[NAN], NAN),
        (trunc, &[-2.7], -2.0),
        (ceil, &[-0.5], -0.0),
        (floor, &[-0.5], -1.0),
        (fabs, &[-0.0], 0.0),
        (copysign, &[3.0, -0.0], -3.0),
        (fdim, &[5.0, 3.0], 2.0),
        (fdim, &[3.0, 5.0], 0.0),
        (fdim, &[NAN, 1.0], NAN),
        (fmod, &[7.5, 2.0], 1.5),
        (fmod, &[-7.5, 2.0], -1.5),
        (fmod, &[1.0, 0.0], NAN),
        (remainder, &[7.0, 2.0], -1.0),
        (remainder, &[5.0, 2.0], 1.0),
        (maxmag, &[-3.0, 2.0], -3.0),
        (maxmag, &[-2.0, 2.0], 2.0),
        (minmag, &[-3.0, 2.0], 2.0),
        (minmag, &[-2.0, 2.0], -2.0),
        (logb, &[0.0], -INF),
        (logb, &[8.0], 3.0),
        (logb, &[-INF], INF),
        (logb, &[0.75], -1.0),
        (sqrt, &[4.0], 2.0),
        (sqrt, &[-1.0], NAN),
        (rsqrt, &[0.25], 2.0),
        (rsqrt, &[0.0], INF),
        (native_rsqrt, &[4.0], 0.5),
        (half_recip, &[4.0], 0.25),
        (native_divide, &[1.0, 8.0], 0.125),
        (cbrt, &[-27.0], -3.0),
        (exp2, &[10.0], 1024.0),
        (exp10, &[2.0], 100.0),
        (exp, &[0.0], 1.0),
        (exp, &[-INF], 0.0),
        (expm1, &[-0.0], -0.0),
        (log2, &[8.0], 3.0),
        (log10, &[1000.0], 3.0),
        (log, &[0.0], -INF),
        (log, &[-1.0], NAN),
        (log1p, &[-1.0], -INF),
        (pow, &[2.0, 10.0], 1024.0),
        (pow, &[-2.0, 3.0], -8.0),
        (pow, &[NAN, 0.0], 1.0),
        (pow, &[-0.0, -3.0], -INF),
        (powr, &[-1.0, 2.0], NAN),
        (powr, &[0.0, 0.0], NAN),
        (powr, &[INF, 0.0], NAN),
        (powr, &[1.0, INF], NAN),
        (powr, &[-0.0, -1.0], INF),
        (powr, &[2.0, 10.0], 1024.0),
        (half_powr, &[4.0, 0.5], 2.0),
        (hypot, &[3.0, 4.0], 5.0),
        (hypot, &[INF, NAN], INF),
        (atan2pi, &[1.0, -1.0], 0.75),
        (atan2pi, &[0.0, -1.0], 1.0),
        (atan2pi, &[-0.0, 1.0], -0.0),
        (acospi, &[-1.0], 1.0),
        (acospi, &[1.0], 0.0),
        (asinpi, &[1.0], 0.5),
        (asinpi, &[-0.0], -0.0),
        (atanpi, &[INF], 0.5),
        (atanpi, &[-1.0], -0.25),
        (sinpi, &[1.0], 0.0),
        (sinpi, &[-1.0], -0.0),
        (sinpi, &[0.5], 1.0),
        (sinpi, &[-2.5], -1.0),
        (sinpi, &[1e20], 0.0),
        (sinpi, &[INF], NAN),
        (sinpi, &[-0.0], -0.0),
        (cospi, &[0.5], 0.0),
        (cospi, &[1.0], -1.0),
        (cospi, &[-3.0], -1.0),
        (cospi, &[2.5], 0.0),
        (cospi, &[0.0], 1.0),
        (tanpi, &[0.25], 1.0),
        (tanpi, &[-0.25], -1.0),
        (tanpi, &[0.5], INF),
        (tanpi, &[1.5], -INF),
        (tanpi, &[2.5], INF),
        (tanpi, &[1.0], -0.0),
        (tanpi, &[-1.0], 0.0),
        (tanpi, &[2.0], 0.0),
        (tanpi, &[-2.0], -0.0),
        (sin, &[-0.0], -0.0),
        (cos, &[0.0], 1.0),
        (tan, &[0.0], 0.0),
        (sinh, &[0.0], 0.0),
        (cosh, &[0.0], 1.0),
        (tanh, &[INF], 1.0),
        (asinh, &[-0.0], -0.0),
        (acosh, &[1.0], 0.0),
        (acosh, &[0.5], NAN),
        (acosh, &[-3.0e4], NAN),
        (acosh, &[-INF], NAN),
        (atanh, &[1.0], INF),
        (acos, &[2.0], NAN),
        (erf, &[0.0], 0.0),
        (erf, &[INF], 1.0),
        (erfc, &[INF], 0.0),
        (tgamma, &[5.0], 24.0),
        (tgamma, &[-1.0], NAN),
        (lgamma, &[1.0], 0.0),
        (lgamma, &[2.0], 0.0),
        (lgamma, &[0.0], INF),
        (mad, &[2.0, 3.0, 4.0], 10.0),
        (fclamp, &[5.0, 0.0, 1.0], 1.0),
        (fclamp, &[-5.0, 0.0, 1.0], 0.0),
        (fclamp, &[0.5, 0.0, 1.0], 0.5),
        (mix, &[1.0, 3.0, 0.25], 1.5),
        (step, &[1.0, 0.5], 0.0),
        (step, &[1.0, 1.0], 1.0),
        (smoothstep, &[0.0, 1.0, 0.5], 0.5),
        (smoothstep, &[0.0, 1.0, -2.0], 0.0),
        (smoothstep, &[0.0, 1.0, 2.0], 1.0),
        (smoothstep, &[0.0, 2.0, 0.5], 0.15625),
        (sign, &[NAN], 0.0),
        (sign, &[-0.0], -0.0),
        (sign, &[0.0], 0.0),
        (sign, &[-5.0], -1.0),
        (sign, &[DEN32], 1.0),
        (degrees, &[0.0], 0.0),
        (radians, &[0.0], 0.0),
    ];
    for &(op, xs, want) in cases {
        for w in [32u8, 64] {
            let f = Fmt::of(w).expect("width");
            let want = f.to_f64(f.from_f64(want));
            let got = run(op, w, xs).0;
            assert!(
                same(got, want),
                "{op:?}{xs:?} f{w}: got {got:e}, want {want:e}"
            );
        }
    }
}

#[test]
fn clstd_math_accuracy_f32_f64() {
    use CLOp::*;
    // (op, operands, exact value): allowed 1 ulp in f32 (correctly rounded through f64)
    // and 4 ulp in f64 (OpenCL 1.2 limits are 2..16 for these).
    let e = std::f64::consts::E;
    let pi = std::f64::consts::PI;
    let cases: &[(CLOp, &[f64], f64)] = &[
        (exp, &[1.0], e),
        (log, &[e], 1.0),
        (sin, &[1.0], 0.8414709848078965),
        (cos, &[1.0], 0.5403023058681398),
        (tan, &[1.0], 1.5574077246549023),
        (asin, &[0.5], pi / 6.0),
        (acos, &[0.5], pi / 3.0),
        (atan, &[1.0], pi / 4.0),
        (atan2, &[1.0, 1.0], pi / 4.0),
        (sinh, &[1.0], 1.1752011936438014),
        (cosh, &[1.0], 1.5430806348152437),
        (tanh, &[0.5], 0.46211715726000974),
        (asinh, &[1.0], 0.881373587019543),
        (acosh, &[2.0], 1.3169578969248166),
        (atanh, &[0.5], 0.5493061443340549),
        (erf, &[0.5], 0.5204998778130465),
        (erfc, &[2.0], 0.004677734981047266),
        (lgamma, &[0.5], 0.5723649429247001),
        (lgamma, &[-0.5], 1.2655121234846454),
        (tgamma, &[4.5], 11.631728396567448),
        (tgamma, &[0.5], 1.772453850905516),
        (tgamma, &[-1.5], 2.363271801207355),
        (expm1, &[1e-10], 1.00000000005e-10),
        (log1p, &[1e-10], 9.9999999995e-11),
        (exp2, &[0.5], std::f64::consts::SQRT_2),
        (exp10, &[0.5], 3.1622776601683795),
        (log2, &[10.0], std::f64::consts::LOG2_10),
        (log10, &[2.0], std::f64::consts::LOG10_2),
        (cbrt, &[2.0], 1.2599210498948732),
        (pow, &[2.0, 0.5], std::f64::consts::SQRT_2),
        (powr, &[10.0, -2.5], 0.0031622776601683794),
        (rsqrt, &[2.0], std::f64::consts::FRAC_1_SQRT_2),
        (sinpi, &[1.0 / 6.0], 0.5),
        (sinpi, &[0.25], std::f64::consts::FRAC_1_SQRT_2),
        (cospi, &[1.0 / 3.0], 0.5),
        (cospi, &[-0.75], -std::f64::consts::FRAC_1_SQRT_2),
        (tanpi, &[0.125], 0.41421356237309503),
        (acospi, &[0.5], 1.0 / 3.0),
        (asinpi, &[0.5], 1.0 / 6.0),
        (atanpi, &[1.0 / 3.0], 0.10241638234956672),
        (atan2pi, &[-1.0, -1.0], -0.75),
        (degrees, &[1.0], 57.29577951308232),
        (radians, &[90.0], pi / 2.0),
        (hypot, &[1e300, 1e300], 1.4142135623730951e300),
    ];
    for &(op, xs, want) in cases {
        for (w, tol) in [(32u8, 1u64), (64, 4)] {
            let f = Fmt::of(w).expect("width");
            // Operands are rounded to the format; the exact value is for the f64 operands,
            // so compare f32 only where the operands are exact in f32.
            let exact_args = xs.iter().all(|&x| f.to_f64(f.from_f64(x)) == x);
            if !exact_args || !want.is_finite() || f.to_f64(f.from_f64(want)).is_infinite() {
                continue;
            }
            let got = run(op, w, xs).0;
            let d = ulps(f, got, want);
            assert!(
                d <= tol,
                "{op:?}{xs:?} f{w}: got {got:e}, want {want:e} ({d} ulp)"
            );
        }
    }
}

#[test]
fn clstd_math_format_specific() {
    use CLOp::*;
    // ldexp with an int operand.
    let ld = |w: u8, x: f64, k: i32| -> u64 {
        let f = Fmt::of(w).expect("width");
        let a = [f.from_f64(x)];
        let b = [u64::from(k as u32)];
        let args = [
            LaneArgs {
                elem: Elem::Float(w),
                lanes: &a,
            },
            LaneArgs {
                elem: Elem::Int(32),
                lanes: &b,
            },
        ];
        let mut out = [0u64];
        let r = eval(ldexp as u32, Elem::Float(w), &args, &mut out, &mut []);
        assert_eq!(r, Ok(Produced::Result));
        out[0]
    };
    assert_eq!(ld(32, 1.0, -149), 1);
    assert_eq!(ld(32, 1.0, -150), 0); // tie to even
    assert_eq!(ld(32, 1.5, -149), 2); // tie to even
    assert_eq!(ld(32, DEN32, 149), u64::from(1f32.to_bits()));
    assert_eq!(ld(32, 1.0, 128), u64::from(f32::INFINITY.to_bits()));
    assert_eq!(
        ld(32, -1.0, i32::MAX),
        u64::from(f32::NEG_INFINITY.to_bits())
    );
    assert_eq!(ld(32, 1.0, i32::MIN), 0);
    assert_eq!(ld(64, 1.0, -1074), 1);
    assert_eq!(ld(64, 3.0, 4), 48f64.to_bits());
    assert_eq!(ld(16, 1.0, -24), 1);
    assert!(f32::from_bits(ld(32, NAN, 3) as u32).is_nan());

    // pown / rootn (int second operand).
    let int2 = |op: CLOp, w: u8, x: f64, k: i32| -> f64 {
        let f = Fmt::of(w).expect("width");
        let a = [f.from_f64(x)];
        let b = [u64::from(k as u32)];
        let args = [
            LaneArgs {
                elem: Elem::Float(w),
                lanes: &a,
            },
            LaneArgs {
                elem: Elem::Int(32),
                lanes: &b,
            },
        ];
        let mut out = [0u64];
        let r = eval(op as u32, Elem::Float(w), &args, &mut out, &mut []);
        assert_eq!(r, Ok(Produced::Result));
        f.to_f64(out[0])
    };
    for w in [32, 64] {
        assert!(same(int2(pown, w, 2.0, -2), 0.25));
        assert!(same(int2(pown, w, -2.0, 3), -8.0));
        assert!(same(int2(pown, w, NAN, 0), 1.0));
        assert!(same(int2(pown, w, -0.0, -1), -INF));
        assert!(same(int2(rootn, w, -8.0, 3), -2.0));
        assert!(same(int2(rootn, w, 16.0, 4), 2.0));
        assert!(same(int2(rootn, w, 32.0, -5), 0.5));
        assert!(same(int2(rootn, w, -16.0, 4), NAN));
        assert!(same(int2(rootn, w, 1.0, 0), NAN));
        assert!(same(int2(rootn, w, 0.0, -3), INF));
        assert!(same(int2(rootn, w, -0.0, -3), -INF));
        assert!(same(int2(rootn, w, -0.0, 3), -0.0));
        assert!(same(int2(rootn, w, -0.0, 2), 0.0));
        assert!(same(int2(rootn, w, -INF, 3), -INF));
        assert!(same(int2(rootn, w, INF, -2), 0.0));
    }
    // rootn(1e300, 7) in f64 within 2 ulp of 10^(300/7) (reference from 50-digit decimal).
    let r = int2(rootn, 64, 1e300, 7);
    assert!(ulps(F64, r, 7.19685673001152e42) <= 2, "{r:e}");
    let r = int2(rootn, 64, 2.0, 11);
    assert!(ulps(F64, r, 1.0650410894399627) <= 2, "{r:e}");

    // ilogb: int result.
    let il = |w: u8, x: f64| -> i32 {
        let f = Fmt::of(w).expect("width");
        let a = [f.from_f64(x)];
        let mut out = [0u64];
        let args = [LaneArgs {
            elem: Elem::Float(w),
            lanes: &a,
        }];
        let r = eval(ilogb as u32, Elem::Int(32), &args, &mut out, &mut []);
        assert_eq!(r, Ok(Produced::Result));
        out[0] as u32 as i32
    };
    for w in [16, 32, 64] {
        assert_eq!(il(w, 0.0), i32::MIN);
        assert_eq!(il(w, NAN), i32::MAX);
        assert_eq!(il(w, -INF), i32::MAX);
        assert_eq!(il(w, 8.0), 3);
        assert_eq!(il(w, -0.3), -2);
    }
    assert_eq!(il(32, DEN32), -149);
    assert_eq!(il(64, 4.9e-324), -1074);
    assert_eq!(il(16, 5.960464477539063e-8), -24);

    // nan(code) and nextafter on each format's bits.
    let a = [5u64];
    let mut out = [0u64];
    let args = [LaneArgs {
        elem: Elem::Int(32),
        lanes: &a,
    }];
    assert_eq!(
        eval(nan as u32, Elem::Float(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out[0], 0x7fc0_0005);
    assert_eq!(
        eval(nan as u32, Elem::Float(64), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out[0], 0x7ff8_0000_0000_0005);
    let nx = |w: u8, x: f64, y: f64| -> u64 {
        let f = Fmt::of(w).expect("width");
        let (a, b) = ([f.from_f64(x)], [f.from_f64(y)]);
        let args = [
            LaneArgs {
                elem: Elem::Float(w),
                lanes: &a,
            },
            LaneArgs {
                elem: Elem::Float(w),
                lanes: &b,
            },
        ];
        let mut out = [0u64];
        let r = eval(nextafter as u32, Elem::Float(w), &args, &mut out, &mut []);
        assert_eq!(r, Ok(Produced::Result));
        out[0]
    };
    assert_eq!(nx(32, 0.0, 1.0), 1);
    assert_eq!(nx(32, -0.0, -1.0), 0x8000_0001);
    assert_eq!(nx(32, 1.0, 2.0), 0x3f80_0001);
    assert_eq!(nx(32, 1.0, 0.0), 0x3f7f_ffff);
    assert_eq!(nx(32, -1.0, 0.0), 0xbf7f_ffff);
    assert_eq!(nx(32, DEN32, -1.0), 0);
    assert_eq!(nx(32, f64::from(f32::MAX), INF), 0x7f80_0000);
    assert_eq!(nx(32, 2.0, 2.0), 0x4000_0000);
    assert!(f32::from_bits(nx(32, NAN, 1.0) as u32).is_nan());
    assert_eq!(nx(64, 1.0, 2.0), (1.0 + f64::EPSILON).to_bits());
    assert_eq!(nx(16, 1.0, 2.0), 0x3c01);

    // fma is fused: (1+2^-23)(1-2^-23) - 1 = -2^-46 exactly; mad may round.
    let a = 1.0 + 2f64.powi(-23);
    let b = 1.0 - 2f64.powi(-23);
    assert!(same(f32v(fma, &[a, b, -1.0]), -(2f64.powi(-46))));
    let a = 1.0 + 2f64.powi(-52);
    let b = 1.0 - 2f64.powi(-52);
    assert!(same(f64v(fma, &[a, b, -1.0]), -(2f64.powi(-104))));
    assert!(same(f64v(fma, &[INF, 0.0, 1.0]), NAN));
}

#[test]
fn clstd_math_pointee_results() {
    use CLOp::*;
    // (op, x (, y), result, pointee as f64 or int)
    let float_ptr: &[(CLOp, f64, f64, f64)] = &[
        (fract, -1e-10, f64::from(f32::from_bits(0x3f7f_ffff)), -1.0),
        (fract, -2.25, 0.75, -3.0),
        (fract, 1.5, 0.5, 1.0),
        (fract, INF, 0.0, INF),
        (fract, -INF, -0.0, -INF),
        (fract, NAN, NAN, NAN),
        (modf, -3.5, -0.5, -3.0),
        (modf, INF, 0.0, INF),
        (modf, -INF, -0.0, -INF),
        (modf, 2.0, 0.0, 2.0),
        (sincos, 0.0, 0.0, 1.0),
        (sincos, -0.0, -0.0, 1.0),
    ];
    for &(op, x, want, want2) in float_ptr {
        let a = [F32.from_f64(x)];
        let args = [LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        }];
        let (mut out, mut out2) = ([0u64], [0u64]);
        let r = eval(op as u32, Elem::Float(32), &args, &mut out, &mut out2);
        assert_eq!(r, Ok(Produced::ResultAndPointee), "{op:?}");
        let (g, g2) = (F32.to_f64(out[0]), F32.to_f64(out2[0]));
        assert!(same(g, want) && same(g2, want2), "{op:?}({x}) = {g}, {g2}");
    }
    // f64 fract stays below 1.
    let a = [(-1e-20f64).to_bits()];
    let args = [LaneArgs {
        elem: Elem::Float(64),
        lanes: &a,
    }];
    let (mut out, mut out2) = ([0u64], [0u64]);
    assert_eq!(
        eval(fract as u32, Elem::Float(64), &args, &mut out, &mut out2),
        Ok(Produced::ResultAndPointee)
    );
    assert_eq!(out[0], 1f64.to_bits() - 1);
    assert_eq!(f64::from_bits(out2[0]), -1.0);

    // Int pointees: frexp, remquo, lgamma_r.
    let int_ptr: &[(CLOp, &[f64], f64, i32)] = &[
        (frexp, &[-8.0], -0.5, 4),
        (frexp, &[0.0], 0.0, 0),
        (frexp, &[DEN32], 0.5, -148),
        (frexp, &[INF], INF, 0),
        (frexp, &[0.75], 0.75, 0),
        (remquo, &[10.0, 3.0], 1.0, 3),
        (remquo, &[-7.0, 2.0], 1.0, -4),
        (remquo, &[7.0, -2.0], -1.0, -4),
        (lgamma_r, &[-0.5], 1.2655121234846454, -1),
        (lgamma_r, &[3.0], std::f64::consts::LN_2, 1),
        (lgamma_r, &[-2.5], -0.05624371649767405, -1),
    ];
    for &(op, xs, want, want2) in int_ptr {
        let lanes: Vec<[u64; 1]> = xs.iter().map(|&x| [F32.from_f64(x)]).collect();
        let args: Vec<LaneArgs<'_>> = lanes
            .iter()
            .map(|l| LaneArgs {
                elem: Elem::Float(32),
                lanes: l,
            })
            .collect();
        let (mut out, mut out2) = ([0u64], [0u64]);
        let r = eval(op as u32, Elem::Float(32), &args, &mut out, &mut out2);
        assert_eq!(r, Ok(Produced::ResultAndPointee), "{op:?}");
        let g = F32.to_f64(out[0]);
        let want = F32.to_f64(F32.from_f64(want));
        assert!(ulps(F32, g, want) <= 1, "{op:?}{xs:?} = {g}, want {want}");
        assert_eq!(out2[0] as u32 as i32, want2, "{op:?}{xs:?} pointee");
    }
    // Missing pointee lanes is an error naming the instruction.
    let a = [0u64; 2];
    let args = [LaneArgs {
        elem: Elem::Float(32),
        lanes: &a,
    }];
    let mut out = [0u64; 2];
    let e = eval(sincos as u32, Elem::Float(32), &args, &mut out, &mut []);
    assert!(e.is_err_and(|t| t.contains("sincos")));
}

#[test]
fn clstd_math_vectors_and_half() {
    use CLOp::*;
    // fmax(float4, float) broadcasts the scalar; f16 lanes go through the same table.
    let x: Vec<u64> = [1.0, -2.0, NAN, 7.0]
        .iter()
        .map(|&v| F32.from_f64(v))
        .collect();
    let y = [F32.from_f64(0.5)];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &x,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &y,
        },
    ];
    let mut out = [0u64; 4];
    assert_eq!(
        eval(fmax as u32, Elem::Float(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    let got: Vec<f64> = out.iter().map(|&b| F32.to_f64(b)).collect();
    assert_eq!(got, [1.0, 0.5, 0.5, 7.0]);
    // Mismatched lane counts are refused.
    let short = [0u64; 2];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &x,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &short,
        },
    ];
    assert!(eval(fmax as u32, Elem::Float(32), &args, &mut out, &mut []).is_err());
    // Non-float operands are refused with the instruction's name.
    let args = [LaneArgs {
        elem: Elem::Int(32),
        lanes: &x,
    }];
    let e = eval(sqrt as u32, Elem::Float(32), &args, &mut out, &mut []);
    assert!(e.is_err_and(|t| t.contains("sqrt")));

    let h = |op: CLOp, xs: &[f64]| run(op, 16, xs).0;
    assert_eq!(F16.from_f64(h(sqrt, &[2.0])), 0x3da8);
    assert_eq!(F16.from_f64(h(exp, &[1.0])), 0x4170);
    assert!(same(h(fmin, &[NAN, 3.0]), 3.0));
    assert!(same(h(mad, &[300.0, 300.0, 0.0]), INF));
    assert!(same(h(fma, &[2.0, 3.0, 1.0]), 7.0));
}

/// Runs a vector instruction with float operands of width `w`.
fn runv(op: CLOp, w: u8, xs: &[&[f64]], n: usize) -> Vec<f64> {
    let f = Fmt::of(w).expect("width");
    let lanes: Vec<Vec<u64>> = xs
        .iter()
        .map(|v| v.iter().map(|&x| f.from_f64(x)).collect())
        .collect();
    let args: Vec<LaneArgs<'_>> = lanes
        .iter()
        .map(|l| LaneArgs {
            elem: Elem::Float(w),
            lanes: l,
        })
        .collect();
    let mut out = vec![0u64; n];
    let r = eval(op as u32, Elem::Float(w), &args, &mut out, &mut []);
    assert_eq!(r, Ok(Produced::Result), "{op:?}");
    out.iter().map(|&b| f.to_f64(b)).collect()
}

#[test]
fn clstd_geometric() {
    use CLOp::*;
    for w in [32u8, 64] {
        assert_eq!(
            runv(cross, w, &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]], 3),
            [0.0, 0.0, 1.0]
        );
        assert_eq!(
            runv(cross, w, &[&[1.0, 2.0, 3.0, 9.0], &[4.0, 5.0, 6.0, 9.0]], 4),
            [-3.0, 6.0, -3.0, 0.0]
        );
        assert_eq!(runv(length, w, &[&[3.0, 4.0]], 1), [5.0]);
        assert_eq!(runv(length, w, &[&[1.0, 2.0, 2.0, 4.0]], 1), [5.0]);
        assert_eq!(runv(fast_length, w, &[&[0.0, -3.0, 4.0]], 1), [5.0]);
        assert_eq!(runv(length, w, &[&[0.0, -INF, 4.0]], 1), [INF]);
        assert!(runv(length, w, &[&[0.0, NAN, 4.0]], 1)[0].is_nan());
        assert_eq!(
            runv(distance, w, &[&[1.0, 1.0, 1.0], &[4.0, 5.0, 1.0]], 1),
            [5.0]
        );
        assert_eq!(
            runv(fast_distance, w, &[&[1.0, 1.0], &[4.0, 5.0]], 1),
            [5.0]
        );
        let r = runv(normalize, w, &[&[3.0, 0.0, -4.0, 0.0]], 4);
        let f = Fmt::of(w).expect("width");
        assert_eq!(r, [f.round_f64(0.6), 0.0, f.round_f64(-0.8), 0.0]);
        assert_eq!(
            runv(fast_normalize, w, &[&[0.0, 0.0, 0.0]], 3),
            [0.0, 0.0, 0.0]
        );
        let r = runv(normalize, w, &[&[INF, 1.0, -INF]], 3);
        let h = f.round_f64(1.0 / 2f64.sqrt());
        assert_eq!(r, [h, 0.0, -h]);
        assert!(runv(normalize, w, &[&[NAN, 1.0]], 2)
            .iter()
            .all(|x| x.is_nan()));
        // Scalar geometric forms.
        assert_eq!(runv(length, w, &[&[-2.0]], 1), [2.0]);
        assert_eq!(runv(normalize, w, &[&[-2.0]], 1), [-1.0]);
    }
    // No overflow or underflow in the intermediate sum of squares.
    let p = |k: i32| 2f64.powi(k);
    assert_eq!(
        runv(length, 32, &[&[3.0 * p(100), 4.0 * p(100)]], 1),
        [5.0 * p(100)]
    );
    assert_eq!(
        runv(length, 32, &[&[3.0 * p(-140), 4.0 * p(-140)]], 1),
        [5.0 * p(-140)]
    );
    assert_eq!(
        runv(length, 64, &[&[3.0 * p(1000), 4.0 * p(1000)]], 1),
        [5.0 * p(1000)]
    );
    assert_eq!(runv(length, 64, &[&[3e-320, 4e-320]], 1), [5e-320]);
    let r = runv(normalize, 64, &[&[1e-320, 0.0]], 2);
    assert_eq!(r, [1.0, 0.0]);
    // cross needs 3 or 4 lanes; distance needs equal lane counts.
    let a = [0u64; 2];
    let b = [0u64; 3];
    let mut out = [0u64; 2];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
    ];
    assert!(
        eval(cross as u32, Elem::Float(32), &args, &mut out, &mut [])
            .is_err_and(|t| t.contains("cross"))
    );
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &b,
        },
    ];
    assert!(eval(
        distance as u32,
        Elem::Float(32),
        &args,
        &mut out[..1],
        &mut []
    )
    .is_err());
}

#[test]
fn clstd_shuffle_select() {
    use CLOp::*;
    let x = [10u64, 20, 30, 40];
    let y = [50u64, 60, 70, 80];
    let m = [3u64, 2, 1, 0, 7, 0xffff_fff9];
    let mut out = [0u64; 6];
    let args = [
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &x,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &m,
        },
    ];
    assert_eq!(
        eval(shuffle as u32, Elem::Int(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out, [40, 30, 20, 10, 40, 20]);
    let m2 = [0u64, 4, 7, 9, 15, 0xffff_fff9];
    let args = [
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &x,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &y,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &m2,
        },
    ];
    assert_eq!(
        eval(shuffle2 as u32, Elem::Int(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out, [10, 50, 80, 20, 80, 20]); // 0xffff_fff9 % 8 = 1
                                               // shuffle2 of two 2-lane float vectors into 8 lanes.
    let xf = [F32.from_f64(1.5), F32.from_f64(2.5)];
    let yf = [F32.from_f64(-1.0), F32.from_f64(-2.0)];
    let m8 = [3u64, 2, 1, 0, 4, 5, 6, 7];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &xf,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &yf,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &m8,
        },
    ];
    let mut out8 = [0u64; 8];
    assert_eq!(
        eval(shuffle2 as u32, Elem::Float(32), &args, &mut out8, &mut []),
        Ok(Produced::Result)
    );
    let got: Vec<f64> = out8.iter().map(|&b| F32.to_f64(b)).collect();
    assert_eq!(got, [-2.0, -1.0, 2.5, 1.5, 1.5, 2.5, -1.0, -2.0]);

    // select: vectors test the MSB of c, scalars test c != 0.
    let a = [1u64, 2, 3, 4];
    let b = [5u64, 6, 7, 8];
    let c = [1u64, 0x8000_0000, 0xffff_ffff, 0];
    let args = [
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &b,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &c,
        },
    ];
    let mut out4 = [0u64; 4];
    assert_eq!(
        eval(select as u32, Elem::Int(32), &args, &mut out4, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out4, [1, 6, 7, 4]);
    let mut out1 = [0u64; 1];
    assert_eq!(
        eval(select as u32, Elem::Int(32), &args, &mut out1, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out1, [5]); // scalar: c = 1 is true
                           // select on 8-bit masks with float operands: the MSB of each 8-bit lane.
    let af = [F32.from_f64(1.0); 2];
    let bf = [F32.from_f64(2.0); 2];
    let c8 = [0x80u64, 0x7f];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &af,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &bf,
        },
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &c8,
        },
    ];
    let mut out2 = [0u64; 2];
    assert_eq!(
        eval(select as u32, Elem::Float(32), &args, &mut out2, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out2, [bf[0], af[1]]);

    // bitselect: bits of b where c is set, of a elsewhere; floats by bit pattern.
    let a = [F32.from_f64(1.0)];
    let b = [F32.from_f64(-3.0)];
    let c = [0x8000_0000u64];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &b,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &c,
        },
    ];
    let mut out = [0u64];
    assert_eq!(
        eval(bitselect as u32, Elem::Float(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(F32.to_f64(out[0]), -1.0);
    let a = [0xf0u64];
    let b = [0x0fu64];
    let c = [0x3cu64];
    let args = [
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &b,
        },
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &c,
        },
    ];
    assert_eq!(
        eval(bitselect as u32, Elem::Int(8), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out[0], 0xcc);
}

/// Reference values computed by PoCL 3 (pyopencl, `y = f(x[, z])` on its CPU device) for
/// float and double; ours must agree within the OpenCL 1.2 ulp limit of each function.
/// (PoCL itself is not correctly rounded: e.g. its f32 tan(-2.5) is 2 ulp off, ours 0.)
#[test]
fn clstd_math_matches_pocl() {
    use CLOp::*;
    // (op, width, x bits, second operand bits (float, or int for pown/rootn/ldexp), PoCL's
    // result bits, allowed ulps)
    let cases: &[(CLOp, u8, u64, u64, u64, u64)] = &[
        (acos, 32, 0x3e99999a, 0, 0x3fa20faf, 4),
        (acos, 64, 0x3feccccccccccccd, 0, 0x3fdcdd9f8f922e98, 4),
        (acosh, 32, 0x40e80000, 0, 0x402ad6c3, 4),
        (acosh, 64, 0x4024000000000000, 0, 0x4007f21ed1ce05d4, 4),
        (acospi, 32, 0x3f000000, 0, 0x3eaaaaab, 5),
        (acospi, 64, 0x3feccccccccccccd, 0, 0x3fc260615ae5dae7, 5),
        (asin, 32, 0x3e99999a, 0, 0x3e9c00ad, 4),
        (asin, 64, 0x3feccccccccccccd, 0, 0x3ff1ea93705fa172, 4),
        (asinh, 32, 0x3e99999a, 0, 0x3e976276, 4),
        (asinh, 64, 0x3feccccccccccccd, 0, 0x3fe9e23ce96e38d4, 4),
        (asinpi, 32, 0x3f000000, 0, 0x3e2aaaab, 5),
        (asinpi, 64, 0x3feccccccccccccd, 0, 0x3fd6cfcf528d128c, 5),
        (atan, 32, 0x40000000, 0, 0x3f8db70d, 5),
        (atan, 64, 0x4024000000000000, 0, 0x3ff789bd2c160053, 5),
        (atanh, 32, 0x3f666666, 0, 0x3fbc71af, 5),
        (atanh, 64, 0x3feccccccccccccd, 0, 0x3ff78e360604b32d, 5),
        (atanpi, 32, 0x3f000000, 0, 0x3e172029, 5),
        (atanpi, 64, 0x3ff8000000000000, 0, 0x3fd40574872217af, 5),
        (atan2, 32, 0xc06ccccd, 0x40400000, 0xbf63b626, 6),
        (
            atan2,
            64,
            0x3fd3333333333333,
            0xc000000000000000,
            0x4007f10e1dc6b048,
            6,
        ),
        (atan2pi, 32, 0x3fc00000, 0x40200000, 0x3e30263d, 6),
        (
            atan2pi,
            64,
            0x401d000000000000,
            0xbfe0000000000000,
            0x3fe0b38cc0456513,
            6,
        ),
        (cbrt, 32, 0x3e99999a, 0, 0x3f2b5ff5, 2),
        (cbrt, 64, 0x3feccccccccccccd, 0, 0x3feee549fe7085e7, 2),
        (cos, 32, 0x3f666666, 0, 0x3f1f21d5, 4),
        (cos, 64, 0x4000000000000000, 0, 0xbfdaa22657537205, 4),
        (cosh, 32, 0x40000000, 0, 0x4070c7d0, 4),
        (cosh, 64, 0x4024000000000000, 0, 0x40c5829dd053712d, 4),
        (cospi, 32, 0x40000000, 0, 0x3f800000, 4),
        (cospi, 64, 0x4024000000000000, 0, 0x3ff0000000000000, 4),
        (erf, 32, 0x3f000000, 0, 0x3f053f7b, 16),
        (erf, 64, 0x3ff8000000000000, 0, 0x3feeea5557137ae0, 16),
        (erfc, 32, 0x3fc00000, 0, 0x3d0ad554, 16),
        (erfc, 64, 0x401d000000000000, 0, 0x3af62e225ebca190, 16),
        (exp, 32, 0x40e80000, 0, 0x44b0035b, 3),
        (exp, 64, 0xc004000000000000, 0, 0x3fb50385c094f425, 3),
        (exp2, 32, 0x3e99999a, 0, 0x3f9d9624, 3),
        (exp2, 64, 0x3feccccccccccccd, 0, 0x3ffddb680117ab12, 3),
        (exp10, 32, 0x3f666666, 0, 0x40fe2f5e, 3),
        (exp10, 64, 0x4000000000000000, 0, 0x4059000000000000, 3),
        (expm1, 32, 0x40000000, 0, 0x40cc7326, 3),
        (expm1, 64, 0x4024000000000000, 0, 0x40d5825dcf950560, 3),
        (hypot, 32, 0xc06ccccd, 0x40400000, 0x40986dca, 4),
        (
            hypot,
            64,
            0x3fd3333333333333,
            0xc000000000000000,
            0x40002dd2dc67f097,
            4,
        ),
        (log, 32, 0x3f666666, 0, 0xbdd7c745, 3),
        (log, 64, 0x4000000000000000, 0, 0x3fe62e42fefa39ef, 3),
        (log2, 32, 0x40000000, 0, 0x3f800000, 3),
        (log2, 64, 0x4024000000000000, 0, 0x400a934f0979a371, 3),
        (log10, 32, 0x3e99999a, 0, 0xbf05db61, 3),
        (log10, 64, 0x3feccccccccccccd, 0, 0xbfa76d869b02a02e, 3),
        (log1p, 32, 0x3f666666, 0, 0x3f245089, 2),
        (log1p, 64, 0x4000000000000000, 0, 0x3ff193ea7aad030b, 2),
        (pow, 32, 0x41200000, 0x40400000, 0x447a0000, 16),
        (
            pow,
            64,
            0x40fe240c9fbe76c9,
            0xc01c000000000000,
            0x388853a7d998b06d,
            16,
        ),
        (pown, 32, 0x3f800000, 0x2, 0x3f800000, 16),
        (pown, 64, 0x3feccccccccccccd, 0x64, 0x3efbda056ed49410, 16),
        (powr, 32, 0x3fc00000, 0x40200000, 0x40305cff, 16),
        (
            powr,
            64,
            0x401d000000000000,
            0xbfe0000000000000,
            0x3fd7c4dd663ebb88,
            16,
        ),
        (rootn, 32, 0x40000000, 0x3, 0x3fa14518, 16),
        (rootn, 64, 0x4000000000000000, 0x5, 0x3ff2611186bae675, 16),
        (rsqrt, 32, 0x3e99999a, 0, 0x3fe9b1e8, 2),
        (rsqrt, 64, 0x3feccccccccccccd, 0, 0x3ff0dd90273c3ce2, 2),
        (sin, 32, 0x40e80000, 0, 0x3f52b56e, 4),
        (sin, 64, 0xc004000000000000, 0, 0xbfe326af0dcfcab0, 4),
        (sinh, 32, 0x3e99999a, 0, 0x3e9bea16, 4),
        (sinh, 64, 0x3feccccccccccccd, 0, 0x3ff06c9ccd5b6af8, 4),
        (sinpi, 32, 0xc06ccccd, 0, 0x3f4f1bbb, 4),
        (sinpi, 64, 0x3feccccccccccccd, 0, 0x3fd3c6ef372fe94e, 4),
        (tan, 32, 0x40000000, 0, 0xc00bd7b2, 5),
        (tan, 64, 0x4024000000000000, 0, 0x3fe4bf5f34be3782, 5),
        (tanh, 32, 0xc06ccccd, 0, 0xbf7fafee, 5),
        (tanh, 64, 0x3fd3333333333333, 0, 0x3fd2a4dda7d914fa, 5),
        (tanpi, 32, 0xc06ccccd, 0, 0x3fb02d43, 6),
        (tanpi, 64, 0x3feccccccccccccd, 0, 0xbfd4cb7bfb4961ad, 6),
        (tgamma, 32, 0x3fc00000, 0, 0x3f62dfc5, 16),
        (tgamma, 64, 0x401d000000000000, 0, 0x40920d86288356b5, 16),
        (fmod, 32, 0x41200000, 0x40400000, 0x3f800000, 0),
        (
            fmod,
            64,
            0x40fe240c9fbe76c9,
            0xc01c000000000000,
            0x401327ef9db24000,
            0,
        ),
        (remainder, 32, 0xc06ccccd, 0x40400000, 0xbf333334, 0),
        (
            remainder,
            64,
            0x3fd3333333333333,
            0xc000000000000000,
            0x3fd3333333333333,
            0,
        ),
        (ldexp, 32, 0x40e80000, 0x3, 0x42680000, 0),
        (ldexp, 64, 0x401d000000000000, 0x5, 0x406d000000000000, 0),
        (fdim, 32, 0x41200000, 0x40400000, 0x40e00000, 0),
        (
            fdim,
            64,
            0x40fe240c9fbe76c9,
            0xc01c000000000000,
            0x40fe247c9fbe76c9,
            0,
        ),
        (nextafter, 32, 0xc06ccccd, 0x40400000, 0xc06ccccc, 0),
        (
            nextafter,
            64,
            0x3fd3333333333333,
            0xc000000000000000,
            0x3fd3333333333332,
            0,
        ),
        (logb, 32, 0x3f000000, 0, 0xbf800000, 0),
        (logb, 64, 0x4000000000000000, 0, 0x3ff0000000000000, 0),
        (sqrt, 32, 0x40000000, 0, 0x3fb504f3, 0),
        (sqrt, 64, 0x4024000000000000, 0, 0x40094c583ada5b53, 0),
    ];
    for &(op, w, x, z, want, tol) in cases {
        let f = Fmt::of(w).expect("width");
        let (a, b) = ([x], [z]);
        let second = match op {
            pown | rootn | ldexp => Some(Elem::Int(32)),
            atan2 | atan2pi | pow | powr | hypot | fmod | remainder | fdim | nextafter => {
                Some(Elem::Float(w))
            }
            _ => None,
        };
        let mut args = vec![LaneArgs {
            elem: Elem::Float(w),
            lanes: &a,
        }];
        if let Some(e) = second {
            args.push(LaneArgs { elem: e, lanes: &b });
        }
        let mut out = [0u64];
        let r = eval(op as u32, Elem::Float(w), &args, &mut out, &mut []);
        assert_eq!(r, Ok(Produced::Result), "{op:?}");
        let (got, want) = (f.to_f64(out[0]), f.to_f64(want));
        let d = ulps(f, got, want);
        assert!(
            d <= tol,
            "{op:?} f{w} {:e}: got {got:e}, PoCL {want:e} ({d} ulp)",
            f.to_f64(x)
        );
    }
}

/// Every OpenCL.std instruction except the memory ones is evaluated: for each, one of a
/// few operand shapes is accepted, and the memory ones are refused by name.
#[test]
fn clstd_every_instruction_is_covered() {
    use CLOp::*;
    let memory = [
        vloadn,
        vstoren,
        vload_half,
        vload_halfn,
        vstore_half,
        vstore_half_r,
        vstore_halfn,
        vstore_halfn_r,
        vloada_halfn,
        vstorea_halfn,
        vstorea_halfn_r,
        printf,
        prefetch,
    ];
    let fl = [F32.from_f64(0.5), F32.from_f64(1.5), F32.from_f64(2.0)];
    let it = [1u64, 2, 3];
    let (f, i) = (Elem::Float(32), Elem::Int(32));
    // (operand types, result type)
    let shapes: [([Elem; 3], Elem); 6] = [
        ([f, f, f], f),
        ([i, i, i], i),
        ([f, i, i], f), // ldexp, pown, rootn
        ([f, f, i], f), // select, shuffle2 of floats
        ([f, f, f], i), // ilogb
        ([i, i, i], f), // nan
    ];
    let mut covered = 0;
    for n in 0..=255u32 {
        let Some(op) = CLOp::from_u32(n) else {
            continue;
        };
        let mut ok = false;
        let mut last = String::new();
        // Geometric reductions produce one lane from three.
        for (elems, res, lanes) in shapes.iter().flat_map(|&(e, r)| [(e, r, 3), (e, r, 1)]) {
            let args: Vec<LaneArgs<'_>> = elems
                .iter()
                .map(|&e| LaneArgs {
                    elem: e,
                    lanes: if e == f { &fl } else { &it },
                })
                .collect();
            let mut out = [0u64; 3];
            let mut out2 = [0u64; 3];
            match eval(n, res, &args, &mut out[..lanes], &mut out2[..lanes]) {
                Ok(_) => ok = true,
                Err(e) => last = e,
            }
            if ok {
                break;
            }
        }
        if memory.contains(&op) {
            assert!(!ok && last.contains(&format!("{op:?}")), "{op:?}: {last}");
        } else {
            assert!(ok, "{op:?} is not evaluated: {last}");
            covered += 1;
        }
    }
    assert_eq!(covered, 162 - memory.len());
}
