//! Float math and common functions: exact results, accuracy bounds, format specifics.

use super::*;
use CLOp::*;

/// (op, operands, expected): exact in f32 and in f64 (sign of zero checked).
const EXACT: &[(CLOp, &[f64], f64)] = &[
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

#[test]
fn clstd_math_exact_table_f32_f64() {
    let cases = EXACT;
    for &(op, xs, want) in cases {
        for w in [32u8, 64] {
            let f = Fmt::of(w).expect("width");
            let want = f.to_f64(f.encode(want));
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
            let exact_args = xs.iter().all(|&x| f.to_f64(f.encode(x)) == x);
            if !exact_args || !want.is_finite() || f.to_f64(f.encode(want)).is_infinite() {
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

/// exp10 in f64 within an ulp of 10^x (references from 60-digit decimal arithmetic). The
/// first two inputs are where CTS math_brute_force found libm's exp10 3.2 and 3.4 ulp off
/// (OpenCL allows 3).
#[test]
fn clstd_math_exp10_f64_within_an_ulp() {
    let cases: &[(&str, &str)] = &[
        ("-0x1.f7ffffffffa00p+1", "0x1.e459c57e2be8ep-14"),
        ("-0x1.cf00000000000p+0", "0x1.fd29884af1109p-7"),
        ("0x1.3333333333333p-2", "0x1.fec982d5bb8afp+0"),
        ("-0x1.6666666666666p-1", "0x1.98a13577c93c0p-3"),
        ("0x1.8000000000000p+0", "0x1.f9f6e4990f227p+4"),
        ("0x1.199999999999ap+1", "0x1.3cfa880d5eb43p+7"),
        ("-0x1.f147ae147ae14p+2", "0x1.23c18bb3768b0p-26"),
        ("0x1.e800000000000p+3", "0x1.94557c22fe22bp+50"),
        ("0x1.28ccccccccccdp+5", "0x1.2f1344cc90181p+123"),
        ("-0x1.8f9999999999ap+6", "0x1.19f7979d03f38p-332"),
        ("0x1.f49999999999ap+7", "0x1.64b566314a340p+831"),
        ("-0x1.2c73333333333p+8", "0x1.e6a337b2f9adep-999"),
        ("0x1.33e6666666666p+8", "0x1.c476e1b46893fp+1022"),
        ("0x1.0624dd2f1a9fcp-10", "0x1.0097137a27715p+0"),
        ("0x1.12e0be826d695p-30", "0x1.00000009e3b81p+0"),
    ];
    for &(x, want) in cases {
        let (x, want) = (hex_f64(x), hex_f64(want));
        let got = run(exp10, 64, &[x]).0;
        let d = ulps(F64, got, want);
        assert!(d <= 1, "exp10({x:e}) = {got:e}, want {want:e} ({d} ulp)");
    }
    // Integer powers are correctly rounded (exact up to 10^22).
    for n in -22..=22 {
        assert!(same(
            run(exp10, 64, &[n as f64]).0,
            format!("1e{n}").parse().unwrap_or(0.0)
        ));
    }
}

/// A C99 hexadecimal float literal (`[-]0x1.<hex>p<exp>`), for test references.
fn hex_f64(s: &str) -> f64 {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let s = s.strip_prefix("0x").expect("0x");
    let (mant, e2) = s.split_once('p').expect("p");
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let bits = u64::from_str_radix(&format!("{int}{frac}"), 16).expect("hex digits");
    let e2: i32 = e2.parse().expect("exponent");
    let v = libm::scalbn(bits as f64, e2 - 4 * frac.len() as i32);
    if neg {
        -v
    } else {
        v
    }
}

#[test]
fn clstd_math_ldexp() {
    use CLOp::*;
    // ldexp with an int operand.
    let ld = |w: u8, x: f64, k: i32| -> u64 {
        let f = Fmt::of(w).expect("width");
        let a = [f.encode(x)];
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
}

#[test]
fn clstd_math_pown_rootn() {
    use CLOp::*;
    // pown / rootn (int second operand).
    let int2 = |op: CLOp, w: u8, x: f64, k: i32| -> f64 {
        let f = Fmt::of(w).expect("width");
        let a = [f.encode(x)];
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
    // Where y^n leaves the range of f64 (references from 80-digit decimal arithmetic; the
    // first is where CTS math_brute_force found rootn 4.9M ulp off).
    let edges: &[(&str, i32, &str)] = &[
        ("0x1.ffffffffffbd7p+1023", 926630494, "0x1.00000cd9def40p+0"),
        ("0x1.ffffffffffbd7p+1023", 4, "0x1.ffffffffffef6p+255"),
        ("0x1.fffffffffffffp+1023", 5, "0x1.bdb8cdadbe120p+204"),
        ("0x1.fffffffffffffp+1023", -4, "0x1.0000000000000p-256"),
        ("0x1.fffffffffffffp+1023", 1500, "0x1.9ae81671b96dcp+0"),
        ("0x0.0000000000001p-1022", 4, "0x1.6a09e667f3bcdp-269"),
        ("0x0.0000000000001p-1022", -7, "0x1.588cea3f093bep+153"),
        ("0x1.0000000000000p-1022", 1030, "0x1.0161c685c1310p-1"),
        ("0x1.c000000000000p+1", -3, "0x1.5138719431ec2p-1"),
    ];
    for &(x, k, want) in edges {
        let (x, want) = (hex_f64(x), hex_f64(want));
        let r = int2(rootn, 64, x, k);
        assert!(
            ulps(F64, r, want) <= 2,
            "rootn({x:e}, {k}) = {r:e}, want {want:e}"
        );
    }
}

#[test]
fn clstd_math_ilogb_nan_nextafter() {
    use CLOp::*;
    // ilogb: int result.
    let il = |w: u8, x: f64| -> i32 {
        let f = Fmt::of(w).expect("width");
        let a = [f.encode(x)];
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
        let (a, b) = ([f.encode(x)], [f.encode(y)]);
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
}

#[test]
fn clstd_math_fma_is_fused() {
    use CLOp::*;
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
        let a = [F32.encode(x)];
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
        let lanes: Vec<[u64; 1]> = xs.iter().map(|&x| [F32.encode(x)]).collect();
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
        let want = F32.to_f64(F32.encode(want));
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
        .map(|&v| F32.encode(v))
        .collect();
    let y = [F32.encode(0.5)];
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
    assert_eq!(F16.encode(h(sqrt, &[2.0])), 0x3da8);
    assert_eq!(F16.encode(h(exp, &[1.0])), 0x4170);
    assert!(same(h(fmin, &[NAN, 3.0]), 3.0));
    assert!(same(h(mad, &[300.0, 300.0, 0.0]), INF));
    assert!(same(h(fma, &[2.0, 3.0, 1.0]), 7.0));
}
