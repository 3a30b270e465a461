//! Lane-wise float functions of OpenCL.std (math and common functions).
//!
//! Every f16/f32/f64 value is exactly an f64, so each function is written once on f64
//! (musl-derived `libm`) and its result rounded once to the result format: f32 and f16
//! results are then within about half an ulp, far inside OpenCL 1.2's limits, and f64
//! results carry libm's accuracy (about 1 ulp). The few functions whose result depends
//! on the format (fma, nextafter, fract's upper bound, nan) get the format explicitly.

use std::f64::consts::PI;

use spirv::CLOp;

use super::conv::{int_value, wrap};
use super::fmt::Fmt;
use super::lanes::{check, float_fmt, lane};
use super::{Elem, LaneArgs, Produced};

/// A lane-wise float function on f64 values.
#[derive(Clone, Copy)]
enum F {
    U(fn(f64) -> f64),
    B(fn(f64, f64) -> f64),
    T(fn(f64, f64, f64) -> f64),
}

/// The table of lane-wise float functions whose operands and result are all floats.
/// `half_*` and `native_*` use the full-precision function (allowed: they only relax it).
fn table(op: CLOp) -> Option<F> {
    use CLOp::*;
    use F::{B, T, U};
    Some(match op {
        acos => U(libm::acos),
        // libm's acosh returns numbers for x < -2 (musl's test ignores the sign).
        acosh => U(|x| if x < 1.0 { f64::NAN } else { libm::acosh(x) }),
        acospi => U(|x| libm::acos(x) / PI),
        asin => U(libm::asin),
        asinh => U(libm::asinh),
        asinpi => U(|x| libm::asin(x) / PI),
        atan => U(libm::atan),
        atan2 => B(libm::atan2),
        atanh => U(libm::atanh),
        atanpi => U(|x| libm::atan(x) / PI),
        atan2pi => B(|y, x| libm::atan2(y, x) / PI),
        cbrt => U(libm::cbrt),
        ceil => U(libm::ceil),
        copysign => B(libm::copysign),
        cos | half_cos | native_cos => U(libm::cos),
        cosh => U(libm::cosh),
        cospi => U(cospi_),
        erfc => U(libm::erfc),
        erf => U(libm::erf),
        exp | half_exp | native_exp => U(libm::exp),
        exp2 | half_exp2 | native_exp2 => U(libm::exp2),
        exp10 | half_exp10 | native_exp10 => U(exp10_),
        expm1 => U(libm::expm1),
        fabs => U(libm::fabs),
        fdim => B(libm::fdim),
        floor => U(libm::floor),
        fmax | fmax_common => B(f64::max),
        fmin | fmin_common => B(f64::min),
        fmod => B(libm::fmod),
        hypot => B(libm::hypot),
        lgamma => U(libm::lgamma),
        log | half_log | native_log => U(libm::log),
        log2 | half_log2 | native_log2 => U(libm::log2),
        log10 | half_log10 | native_log10 => U(libm::log10),
        log1p => U(libm::log1p),
        logb => U(logb_),
        mad => T(|a, b, c| a * b + c),
        maxmag => B(maxmag_),
        minmag => B(minmag_),
        pow => B(libm::pow),
        powr | half_powr | native_powr => B(powr_),
        remainder => B(libm::remainder),
        rint => U(f64::round_ties_even),
        round => U(libm::round),
        rsqrt | half_rsqrt | native_rsqrt => U(|x| 1.0 / libm::sqrt(x)),
        sin | half_sin | native_sin => U(libm::sin),
        sinh => U(libm::sinh),
        sinpi => U(sinpi_),
        sqrt | half_sqrt | native_sqrt => U(libm::sqrt),
        tan | half_tan | native_tan => U(libm::tan),
        tanh => U(libm::tanh),
        tanpi => U(tanpi_),
        tgamma => U(libm::tgamma),
        trunc => U(libm::trunc),
        half_divide | native_divide => B(|x, y| x / y),
        half_recip | native_recip => U(|x| 1.0 / x),
        fclamp => T(|x, lo, hi| x.max(lo).min(hi)),
        degrees => U(|r| r * (180.0 / PI)),
        radians => U(|d| d * (PI / 180.0)),
        mix => T(|x, y, a| x + (y - x) * a),
        step => B(|edge, x| if x < edge { 0.0 } else { 1.0 }),
        smoothstep => T(smoothstep_),
        sign => U(sign_),
        _ => return None,
    })
}

/// 10^x through `pow`: libm's `exp10` scales exp2(x·log2 10) of the fraction, and the
/// rounding of that product costs up to ~3.4 ulp in f64 (past OpenCL's 3 ulp; CTS
/// math_brute_force exp10 fp64). `pow` with the exact base 10 stays within an ulp; integer
/// powers up to 10^22 are exact, so their reciprocals are correctly rounded by one division.
fn exp10_(x: f64) -> f64 {
    if x == x.trunc() && x.abs() <= 22.0 {
        let p = libm::pow(10.0, x.abs());
        return if x < 0.0 { 1.0 / p } else { p };
    }
    libm::pow(10.0, x)
}

/// sin(πx) for |x| ≤ 0.5 after an exact reduction.
fn sinpi_(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = libm::fmod(x, 2.0); // exact, in (-2, 2)
    if r > 1.0 {
        r -= 2.0;
    } else if r < -1.0 {
        r += 2.0;
    }
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    let s = libm::sin(PI * r);
    if s == 0.0 {
        libm::copysign(0.0, x)
    } else {
        s
    }
}

fn cospi_(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = libm::fmod(libm::fabs(x), 2.0); // [0, 2)
    if r > 1.0 {
        r = 2.0 - r;
    }
    // cos(πr) = sin(π(1/2 - r)), and 1/2 - r is exact enough for r in [0, 1].
    let s = libm::sin(PI * (0.5 - r));
    if s == 0.0 {
        0.0
    } else {
        s
    }
}

fn tanpi_(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let s = sinpi_(x);
    let c = cospi_(x);
    if c == 0.0 {
        // tanpi(n + 1/2): +inf for even n, -inf for odd n.
        let n = libm::floor(x);
        return if libm::fmod(n, 2.0) == 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    let t = s / c;
    if t == 0.0 {
        // tanpi(n) is copysign(0, n) for even n, copysign(0, -n) for odd n.
        if libm::fmod(x, 2.0) == 0.0 {
            libm::copysign(0.0, x)
        } else {
            libm::copysign(0.0, -x)
        }
    } else {
        t
    }
}

fn logb_(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x.is_infinite() {
        f64::INFINITY
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        f64::from(libm::ilogb(x))
    }
}

fn maxmag_(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax > ay {
        x
    } else if ay > ax {
        y
    } else {
        x.max(y)
    }
}

fn minmag_(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax < ay {
        x
    } else if ay < ax {
        y
    } else {
        x.min(y)
    }
}

fn powr_(x: f64, y: f64) -> f64 {
    let nan = x.is_nan()
        || y.is_nan()
        || x < 0.0
        || (x == 0.0 && y == 0.0)
        || (x.is_infinite() && y == 0.0)
        || (x == 1.0 && y.is_infinite());
    if nan {
        f64::NAN
    } else {
        libm::pow(x.abs(), y)
    }
}

fn smoothstep_(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn sign_(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// rootn(x, n) = x^(1/n): pow then one Newton step, so f64 stays within a few ulp.
pub fn rootn_(x: f64, n: i32) -> f64 {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let odd = n % 2 != 0;
    let sign = if x < 0.0 || (odd && x.is_sign_negative()) {
        -1.0
    } else {
        1.0
    };
    let a = x.abs();
    if a == 0.0 {
        let v = if n < 0 { f64::INFINITY } else { 0.0 };
        return if odd { sign * v } else { v };
    }
    if a.is_infinite() {
        let v = if n < 0 { 0.0 } else { f64::INFINITY };
        return sign * v;
    }
    let y = match n {
        1 => a,
        2 => libm::sqrt(a),
        3 => libm::cbrt(a),
        -1 => 1.0 / a,
        _ => newton_root(a, n, libm::pow(a, 1.0 / f64::from(n))),
    };
    sign * y
}

/// One Newton step from `y` toward the `n`th root of `a` (positive, finite): pow's rounded
/// exponent 1/n leaves y off by ln(y) ulps (up to ~180 near DBL_MAX). y^n is about `a`, which
/// may sit so close to the edge of the range that y^n over- or underflows (CTS
/// math_brute_force: rootn(0x1.ffffffffffbd7p+1023, 926630494) was 4.9M ulp off when a
/// step took an infinite y^n), so the step runs on a·2^(-jn) and y·2^(-j), j ≈ log2(a)/n.
/// Where y^n still leaves the range, |n| is so large that y is close to 1 and already right.
fn newton_root(a: f64, n: i32, y: f64) -> f64 {
    let j = (f64::from(libm::ilogb(a)) / f64::from(n)).round() as i32;
    let (a_s, y_s) = (
        libm::scalbn(a, (-i64::from(j) * i64::from(n)).clamp(-4096, 4096) as i32),
        libm::scalbn(y, -j),
    );
    let p = libm::pow(y_s, f64::from(n));
    if !(p.is_finite() && p > 0.0 && a_s.is_normal()) {
        return y;
    }
    let refined = libm::scalbn(y_s - y_s * (1.0 - a_s / p) / f64::from(n), j);
    if refined.is_finite() && refined > 0.0 {
        refined
    } else {
        y
    }
}

/// ilogb with OpenCL's FP_ILOGB0 = INT_MIN and FP_ILOGBNAN = INT_MAX (also for ±inf).
pub fn ilogb_(x: f64) -> i32 {
    if x.is_nan() || x.is_infinite() {
        i32::MAX
    } else if x == 0.0 {
        i32::MIN
    } else {
        libm::ilogb(x)
    }
}

/// fma correctly rounded in format `f`.
fn fma_in(f: Fmt, a: f64, b: f64, c: f64) -> f64 {
    match f.bits {
        32 => f64::from(libm::fmaf(a as f32, b as f32, c as f32)),
        _ => libm::fma(a, b, c),
    }
}

/// nextafter on the bit patterns of format `f`.
pub fn nextafter_bits(f: Fmt, x: u64, y: u64) -> u64 {
    let (xv, yv) = (f.to_f64(x), f.to_f64(y));
    if xv.is_nan() || yv.is_nan() {
        return f.qnan();
    }
    if xv == yv {
        return y & f.mask();
    }
    if xv == 0.0 {
        return 1 | if yv < 0.0 { f.sign_bit() } else { 0 };
    }
    let x = x & f.mask();
    if (xv < yv) == (xv > 0.0) {
        x + 1
    } else {
        x - 1
    }
}

/// A float lane written as an int lane (`int` results and pointees are 32 bits).
fn int_lane(v: i32) -> u64 {
    wrap(i128::from(v), 32)
}

/// Evaluates the float math and common functions; `Ok(None)` when `op` is not one.
pub fn eval(
    op: CLOp,
    result: Elem,
    args: &[LaneArgs<'_>],
    out: &mut [u64],
    out2: &mut [u64],
) -> Result<Option<Produced>, String> {
    use CLOp::*;
    let n = out.len();
    if let Some(f) = table(op) {
        let arity = match f {
            F::U(_) => 1,
            F::B(_) => 2,
            F::T(_) => 3,
        };
        check(args, arity, n)?;
        let rf = float_fmt(result)?;
        // No allocation: this runs for every extended instruction the kernel executes.
        let mut fa = [rf; 3];
        for (f, a) in fa.iter_mut().zip(&args[..arity]) {
            *f = float_fmt(a.elem)?;
        }
        let x = |k: usize, i: usize| fa[k].to_f64(lane(&args[k], i));
        for (i, o) in out.iter_mut().enumerate() {
            let v = match f {
                F::U(g) => g(x(0, i)),
                F::B(g) => g(x(0, i), x(1, i)),
                F::T(g) => g(x(0, i), x(1, i), x(2, i)),
            };
            *o = rf.encode(v);
        }
        return Ok(Some(Produced::Result));
    }
    let special = matches!(
        op,
        fma | nextafter
            | ldexp
            | pown
            | rootn
            | ilogb
            | nan
            | frexp
            | modf
            | fract
            | remquo
            | sincos
            | lgamma_r
    );
    if !special {
        return Ok(None);
    }
    if op == nan {
        check(args, 1, n)?;
        let rf = float_fmt(result)?;
        for (i, o) in out.iter_mut().enumerate() {
            *o = rf.nan_with(lane(&args[0], i));
        }
        return Ok(Some(Produced::Result));
    }
    let arity = match op {
        fma => 3,
        nextafter | ldexp | pown | rootn | remquo => 2,
        _ => 1,
    };
    check(args, arity, n)?;
    if out2.len() < n && matches!(op, frexp | modf | fract | remquo | sincos | lgamma_r) {
        return Err(format!("needs {n} pointee lanes, got {}", out2.len()));
    }
    let xf = float_fmt(args[0].elem)?;
    // The format of the float result (ilogb's is int: use the operand's).
    let rf = if op == ilogb { xf } else { float_fmt(result)? };
    let x = |i: usize| xf.to_f64(lane(&args[0], i));
    let y = |i: usize| -> Result<f64, String> {
        Ok(float_fmt(args[1].elem)?.to_f64(lane(&args[1], i)))
    };
    // The int second operand of ldexp/pown/rootn, whatever its width.
    let k = |i: usize| -> i32 {
        let w = match args[1].elem {
            Elem::Int(w) => u32::from(w),
            _ => 32,
        };
        int_value(lane(&args[1], i), w, true).clamp(i128::from(i32::MIN), i128::from(i32::MAX))
            as i32
    };
    for i in 0..n {
        let (r, r2): (u64, Option<u64>) = match op {
            fma => {
                let c = float_fmt(args[2].elem)?.to_f64(lane(&args[2], i));
                (rf.encode(fma_in(rf, x(i), y(i)?, c)), None)
            }
            nextafter => {
                let yb = rf.encode(y(i)?);
                (nextafter_bits(rf, rf.encode(x(i)), yb), None)
            }
            ldexp => (rf.encode(libm::scalbn(x(i), k(i).clamp(-4000, 4000))), None),
            pown => (rf.encode(libm::pow(x(i), f64::from(k(i)))), None),
            rootn => (rf.encode(rootn_(x(i), k(i))), None),
            ilogb => (int_lane(ilogb_(x(i))), None),
            frexp => {
                let (m, e) = libm::frexp(x(i));
                (rf.encode(m), Some(int_lane(e)))
            }
            modf => {
                let (fr, int) = libm::modf(x(i));
                (rf.encode(fr), Some(rf.encode(int)))
            }
            fract => {
                let v = x(i);
                let fl = libm::floor(v);
                let fr = if v.is_infinite() {
                    libm::copysign(0.0, v)
                } else {
                    v - fl
                };
                let mut b = rf.encode(fr);
                if rf.to_f64(b) >= 1.0 {
                    b = rf.encode(1.0) - 1; // largest value below 1
                }
                (b, Some(rf.encode(fl)))
            }
            remquo => {
                let (r, q) = libm::remquo(x(i), y(i)?);
                (rf.encode(r), Some(int_lane(q)))
            }
            sincos => (rf.encode(libm::sin(x(i))), Some(rf.encode(libm::cos(x(i))))),
            _ => {
                // lgamma_r
                let (v, s) = libm::lgamma_r(x(i));
                (rf.encode(v), Some(int_lane(s)))
            }
        };
        out[i] = r;
        if let Some(r2) = r2 {
            out2[i] = r2;
        }
    }
    Ok(Some(
        if matches!(op, frexp | modf | fract | remquo | sincos | lgamma_r) {
            Produced::ResultAndPointee
        } else {
            Produced::Result
        },
    ))
}
