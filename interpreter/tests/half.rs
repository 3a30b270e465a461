//! cl_khr_fp16: half arithmetic, conversions and vectors, checked bit for bit against
//! references computed here (the `half` crate for round-to-nearest, exact integer arithmetic
//! for fma and the directed roundings).
mod common;
use common::*;
use half::f16;

const OPTS: [&str; 2] = ["-O0", "-O2"];

fn h(x: f32) -> u16 {
    f16::from_f32(x).to_bits()
}
fn hf(b: u16) -> f32 {
    f16::from_bits(b).to_f32()
}
fn buf_u16(v: &[u16]) -> std::sync::Arc<shadowcl_interpreter::Buffer> {
    buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}
fn read_u16(b: &shadowcl_interpreter::Buffer) -> Vec<u16> {
    read_bytes(b)
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// Asserts equal bits, or both NaN (NaN payloads are not specified).
fn same(got: u16, want: u16, what: &str) {
    let nan = |b: u16| f16::from_bits(b).is_nan();
    if nan(want) {
        assert!(nan(got), "{what}: got {got:#06x}, want NaN");
    } else {
        assert_eq!(
            got,
            want,
            "{what}: got {got:#06x} ({}), want {want:#06x} ({})",
            hf(got),
            hf(want)
        );
    }
}

/// The next half above `b` (toward +inf).
fn next_up(b: u16) -> u16 {
    if b == 0x8000 {
        0x0001
    } else if b & 0x8000 != 0 {
        b - 1
    } else {
        b + 1
    }
}
fn next_down(b: u16) -> u16 {
    next_up(b ^ 0x8000) ^ 0x8000
}

/// A finite half as an exact multiple of 2^-48 (|x| <= 65504 * 2^48 < 2^64).
fn units48(b: u16) -> i128 {
    let x = f16::from_bits(b).to_f64();
    (x * 2f64.powi(48)) as i128
}

/// Exact `x * y + z` of finite halves, rounded once to nearest even.
fn fma_ref(x: u16, y: u16, z: u16) -> u16 {
    // x = X * 2^-24 etc., so x*y + z = (X*Y + Z*2^24) * 2^-48 exactly in i128.
    let u = |b: u16| (f16::from_bits(b).to_f64() * 2f64.powi(24)) as i128;
    let v = u(x) * u(y) + u(z) * (1 << 24);
    if v == 0 {
        // Exact zero: +0 unless both the product and z are -0 (IEEE sum of signed zeros).
        let pneg = (x ^ y) & 0x8000 != 0 && u(x) * u(y) == 0;
        return if pneg && z == 0x8000 { 0x8000 } else { 0 };
    }
    // 65520 * 2^48 and above rounds to infinity.
    let lim = 65520i128 << 48;
    if v >= lim {
        return 0x7c00;
    }
    if v <= -lim {
        return 0xfc00;
    }
    let approx = f16::from_f64(v as f64 / 2f64.powi(48)).to_bits();
    let mut best = approx;
    for c in [next_down(approx), approx, next_up(approx)] {
        if f16::from_bits(c).is_infinite() {
            continue;
        }
        let (dc, db) = ((units48(c) - v).abs(), (units48(best) - v).abs());
        if dc < db || (dc == db && c & 1 == 0) {
            best = c;
        }
    }
    best
}

/// f32 -> half with a directed rounding ("rtz", "rtp", "rtn"), from the two neighbours.
fn directed(x: f32, mode: &str) -> u16 {
    let c = h(x);
    if hf(c) == x || x.is_nan() {
        return c;
    }
    let (lo, hi) = if hf(c) > x {
        (next_down(c), c)
    } else {
        (c, next_up(c))
    };
    match mode {
        "rtp" => hi,
        "rtn" => lo,
        _ if x > 0.0 => lo,
        _ => hi,
    }
}

const HEAD: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";

#[test]
fn scalar_half_arithmetic_is_correctly_rounded() {
    let src = format!(
        "{HEAD}{}",
        r#"
    __kernel void h(__global const half *a, __global const half *b, __global const half *c,
                    __global half *o, __global int *f) {
        int k = get_global_id(0);
        half x = a[k], y = b[k], z = c[k];
        o[k * 10 + 0] = x + y;
        o[k * 10 + 1] = x - y;
        o[k * 10 + 2] = x * y;
        o[k * 10 + 3] = x / y;
        o[k * 10 + 4] = sqrt(fabs(x));
        o[k * 10 + 5] = fma(x, y, z);
        o[k * 10 + 6] = fmin(x, y);
        o[k * 10 + 7] = -x;
        half t = x * (half)0.1f;
        o[k * 10 + 8] = t;
        o[k * 10 + 9] = select(x, y, (short)(x < y));
        f[k] = (x < y) | (x == y) << 1 | isnan(x) << 2 | (x != y) << 3 | isinf(y) << 4
             | (x >= y) << 5 | signbit(x) << 6;
    }"#
    );
    // Normals, subnormals (0x0001, 0x03ff), the largest finite, ties and infinities.
    let vals: [u16; 16] = [
        0x3c00, 0x3c01, 0xc000, 0x0001, 0x03ff, 0x7bff, 0xfbff, 0x3555, 0x0000, 0x8000, 0x7c00,
        0x7e00, 0x4248, 0xb800, 0x1400, 0x5a00,
    ];
    let mut a = Vec::new();
    let (mut b, mut c) = (Vec::new(), Vec::new());
    for (i, &x) in vals.iter().enumerate() {
        for (j, &y) in vals.iter().enumerate() {
            a.push(x);
            b.push(y);
            c.push(vals[(i * 7 + j * 3) % vals.len()] ^ ((j as u16 & 1) << 15));
        }
    }
    let n = a.len();
    for opt in OPTS {
        let p = program(&src, opt);
        let (ba, bb, bc) = (buf_u16(&a), buf_u16(&b), buf_u16(&c));
        let (o, f) = (buf_u16(&vec![0; n * 10]), buf_i32(&vec![0; n]));
        run(
            &p,
            &launch(
                "h",
                1,
                [n as u64, 1, 1],
                [16, 1, 1],
                vec![arg(&ba), arg(&bb), arg(&bc), arg(&o), arg(&f)],
            ),
        );
        let (o, f) = (read_u16(&o), read_i32(&f));
        for k in 0..n {
            let (x, y, z) = (a[k], b[k], c[k]);
            let (xf, yf) = (hf(x), hf(y));
            let what = |s: &str| format!("{opt} {s} x={x:#06x} y={y:#06x} z={z:#06x}");
            same(o[k * 10], h(xf + yf), &what("add"));
            same(o[k * 10 + 1], h(xf - yf), &what("sub"));
            same(o[k * 10 + 2], h(xf * yf), &what("mul"));
            same(o[k * 10 + 3], h(xf / yf), &what("div"));
            same(o[k * 10 + 4], h(xf.abs().sqrt()), &what("sqrt"));
            let finite = |b: u16| f16::from_bits(b).is_finite();
            if finite(x) && finite(y) && finite(z) {
                same(o[k * 10 + 5], fma_ref(x, y, z), &what("fma"));
            }
            let min = if xf.is_nan() {
                y
            } else if yf.is_nan() || xf <= yf {
                x
            } else {
                y
            };
            if !(xf == 0.0 && yf == 0.0) {
                same(o[k * 10 + 6], min, &what("fmin"));
            }
            same(o[k * 10 + 7], x ^ 0x8000, &what("neg"));
            same(o[k * 10 + 8], h(xf * hf(h(0.1))), &what("mul const"));
            same(o[k * 10 + 9], if xf < yf { y } else { x }, &what("select"));
            let want = (xf < yf) as i32
                | ((xf == yf) as i32) << 1
                | (xf.is_nan() as i32) << 2
                | ((xf != yf) as i32) << 3
                | (yf.is_infinite() as i32) << 4
                | ((xf >= yf) as i32) << 5
                | ((x >> 15) as i32) << 6;
            assert_eq!(f[k], want, "{}", what("flags"));
        }
    }
}

#[test]
fn half_conversions_round_and_saturate() {
    let src = format!(
        "{HEAD}{}",
        r#"
    __kernel void c(__global const float *f, __global const int *i, __global const long *l,
                    __global half *o, __global int *oi, __global float *of) {
        int k = get_global_id(0);
        float x = f[k];
        o[k * 8 + 0] = convert_half(x);
        o[k * 8 + 1] = convert_half_rtz(x);
        o[k * 8 + 2] = convert_half_rtp(x);
        o[k * 8 + 3] = convert_half_rtn(x);
        o[k * 8 + 4] = convert_half(i[k]);
        o[k * 8 + 5] = convert_half_rtz(l[k]);
        o[k * 8 + 6] = (half)(double)x;
        o[k * 8 + 7] = as_half((ushort)(i[k] & 0xffff));
        half hx = convert_half(x);
        oi[k * 4 + 0] = convert_int_sat_rte(hx);
        oi[k * 4 + 1] = convert_char_sat(hx);
        oi[k * 4 + 2] = (int)hx;
        oi[k * 4 + 3] = as_ushort(hx);
        of[k] = hx;
    }"#
    );
    let fs = [
        1.0f32,
        1.000_488_3, // 1 + 2^-11: a tie, rte gives 1.0
        1.000_732_4, // 1 + 3 * 2^-12: rounds up
        -2.5e-8,     // below the smallest subnormal
        1e5,         // overflows
        -1e5,
        65519.0, // just below the overflow threshold
        0.333_333_34,
        -7.9,
        300.5,
        f32::INFINITY,
        f32::NAN,
    ];
    let is = [
        0,
        1,
        2049,
        2051,
        -4097,
        65504,
        65520,
        70000,
        -70000,
        0x3c00,
        0x7e00,
        i32::MIN,
    ];
    let ls: [i64; 12] = [
        0,
        4097,
        -4097,
        65504,
        65535,
        1 << 40,
        -(1 << 40),
        2049,
        -2051,
        1,
        7,
        -1,
    ];
    let n = fs.len();
    for opt in OPTS {
        let p = program(&src, opt);
        let (bf, bi) = (buf_f32(&fs), buf_i32(&is));
        let bl = buf_bytes(&ls.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>());
        let (o, oi, of) = (
            buf_u16(&vec![0; n * 8]),
            buf_i32(&vec![0; n * 4]),
            buf_f32(&vec![0.0; n]),
        );
        run(
            &p,
            &launch(
                "c",
                1,
                [n as u64, 1, 1],
                [1, 1, 1],
                vec![arg(&bf), arg(&bi), arg(&bl), arg(&o), arg(&oi), arg(&of)],
            ),
        );
        let (o, oi, of) = (read_u16(&o), read_i32(&oi), read_f32(&of));
        for k in 0..n {
            let x = fs[k];
            let what = |s: &str| format!("{opt} {s} x={x} i={} l={}", is[k], ls[k]);
            same(o[k * 8], h(x), &what("rte"));
            same(o[k * 8 + 1], directed(x, "rtz"), &what("rtz"));
            same(o[k * 8 + 2], directed(x, "rtp"), &what("rtp"));
            same(o[k * 8 + 3], directed(x, "rtn"), &what("rtn"));
            same(
                o[k * 8 + 4],
                f16::from_f64(is[k] as f64).to_bits(),
                &what("int"),
            );
            // Longs here are exact in f32, so rtz from f32 is the reference.
            same(
                o[k * 8 + 5],
                directed(ls[k] as f32, "rtz"),
                &what("long rtz"),
            );
            same(o[k * 8 + 6], h(x), &what("via double"));
            same(o[k * 8 + 7], is[k] as u16, &what("as_half"));
            let hx = f16::from_f32(x).to_f64();
            let sat = |lo: f64, hi: f64, r: f64| {
                if hx.is_nan() {
                    0
                } else {
                    r.clamp(lo, hi) as i32
                }
            };
            assert_eq!(
                oi[k * 4],
                sat(i32::MIN as f64, i32::MAX as f64, hx.round_ties_even()),
                "{}",
                what("int_sat_rte")
            );
            assert_eq!(
                oi[k * 4 + 1],
                sat(-128.0, 127.0, hx.trunc()),
                "{}",
                what("char_sat")
            );
            if hx.is_finite() {
                assert_eq!(oi[k * 4 + 2], hx.trunc() as i32, "{}", what("int"));
            }
            assert_eq!(oi[k * 4 + 3], i32::from(h(x)), "{}", what("as_ushort"));
            let back = of[k];
            assert!(
                back == hf(h(x)) || (back.is_nan() && x.is_nan()),
                "{}",
                what("to float")
            );
        }
    }
}

#[test]
fn half_vectors() {
    let src = format!(
        "{HEAD}{}",
        r#"
    __kernel void v(__global const half *a, __global const half *b, __global half *o,
                    __global short *m, __global uint *u) {
        int k = get_global_id(0);
        half8 x = vload8(k, a), y = vload8(k, b);
        half8 p = x * y;
        vstore8(p - x, k, o);
        vstore8(isless(x, y), k, m);
        half3 t = vload3(k, a) + (half3)(1.0f, 2.0f, 0.5f);
        vstore3(fmax(t, vload3(k, b)), k, o + 64);
        half16 w = (half16)(x, y);
        half16 s = w.s02468ace13579bdf;
        vstore16(s / (half16)(4.0f), k, o + 128);
        half2 q = (half2)(x.s7, y.s0);
        u[k] = as_uint(q);
        half4 r = convert_half4(convert_int4(x.lo) * 3);
        vstore4(r, k, o + 256);
    }"#
    );
    let n = 4usize;
    let a: Vec<u16> = (0..n * 16).map(|i| h(i as f32 * 0.37 - 9.0)).collect();
    let b: Vec<u16> = (0..n * 16).map(|i| h(5.5 - i as f32 * 0.21)).collect();
    for opt in OPTS {
        let p = program(&src, opt);
        let (ba, bb) = (buf_u16(&a), buf_u16(&b));
        let (o, m) = (buf_u16(&vec![0; 512]), buf_bytes(&vec![0; n * 16]));
        let u = buf_i32(&vec![0; n]);
        run(
            &p,
            &launch(
                "v",
                1,
                [n as u64, 1, 1],
                [n as u64, 1, 1],
                vec![arg(&ba), arg(&bb), arg(&o), arg(&m), arg(&u)],
            ),
        );
        let o = read_u16(&o);
        let m: Vec<i16> = read_u16(&m).iter().map(|&x| x as i16).collect();
        let u = read_i32(&u);
        for k in 0..n {
            let x: Vec<f32> = (0..8).map(|i| hf(a[k * 8 + i])).collect();
            let y: Vec<f32> = (0..8).map(|i| hf(b[k * 8 + i])).collect();
            for i in 0..8 {
                let pr = hf(h(x[i] * y[i]));
                same(o[k * 8 + i], h(pr - x[i]), &format!("{opt} mulsub {k} {i}"));
                assert_eq!(
                    m[k * 8 + i],
                    if x[i] < y[i] { -1 } else { 0 },
                    "{opt} isless"
                );
            }
            let add = [1.0f32, 2.0, 0.5];
            for i in 0..3 {
                let t = hf(h(hf(a[k * 3 + i]) + add[i]));
                same(
                    o[64 + k * 3 + i],
                    h(t.max(hf(b[k * 3 + i]))),
                    &format!("{opt} fmax3 {k} {i}"),
                );
            }
            let w: Vec<f32> = x.iter().chain(&y).copied().collect();
            for i in 0..16 {
                let src_i = if i < 8 { 2 * i } else { 2 * (i - 8) + 1 };
                same(
                    o[128 + k * 16 + i],
                    h(w[src_i] / 4.0),
                    &format!("{opt} shuffle16 {k} {i}"),
                );
            }
            assert_eq!(
                u[k] as u32,
                u32::from(a[k * 8 + 7]) | u32::from(b[k * 8]) << 16,
                "{opt} as_uint"
            );
            for i in 0..4 {
                same(
                    o[256 + k * 4 + i],
                    h((x[i] as i32 * 3) as f32),
                    &format!("{opt} int4 {k} {i}"),
                );
            }
        }
    }
}

/// OpenCL.std math, common and geometric functions on half, and a half passed by value;
/// within the cl_khr_fp16 ULP limits (2 for exp/log/sin/pow, exact for the exact ones).
#[test]
fn half_builtins_and_by_value_arguments() {
    let src = format!(
        "{HEAD}{}",
        r#"
    __kernel void m(__global const half *a, half s, __global half *o) {
        int k = get_global_id(0);
        half x = a[k];
        o[k * 10 + 0] = exp(x);
        o[k * 10 + 1] = log(fabs(x) + s);
        o[k * 10 + 2] = sin(x);
        o[k * 10 + 3] = pow(fabs(x), s);
        o[k * 10 + 4] = floor(x);
        o[k * 10 + 5] = clamp(x, -s, s);
        o[k * 10 + 6] = copysign(s, x);
        half2 v = (half2)(x, s);
        o[k * 10 + 7] = dot(v, v);
        o[k * 10 + 8] = length(v);
        o[k * 10 + 9] = x * s;
    }"#
    );
    let xs: Vec<u16> = (0..32).map(|i| h(i as f32 * 0.3 - 4.0)).collect();
    let s = h(1.5);
    let ulps = |got: u16, want: f64| -> f64 {
        let g = f16::from_bits(got).to_f64();
        let w16 = f16::from_f64(want);
        // One ulp at the reference's magnitude (subnormal spacing below 2^-14).
        let e = w16.to_f64().abs().max(2f64.powi(-14)).log2().floor();
        (g - want).abs() / 2f64.powi(e as i32 - 10)
    };
    for opt in OPTS {
        let p = program(&src, opt);
        let (a, o) = (buf_u16(&xs), buf_u16(&vec![0; 320]));
        run(
            &p,
            &launch(
                "m",
                1,
                [32, 1, 1],
                [8, 1, 1],
                vec![arg(&a), val(s), arg(&o)],
            ),
        );
        let o = read_u16(&o);
        let sf = f64::from(hf(s));
        for (k, &xb) in xs.iter().enumerate() {
            let x = f64::from(hf(xb));
            let what = |s: &str| format!("{opt} {s} x={x}");
            // exp/log/sin/pow: cl_khr_fp16 allows 2-3 ulp; a correct implementation is within 1.
            for (i, want) in [
                (0, x.exp()),
                (1, f64::from(hf(h((x.abs() + sf) as f32))).ln()),
                (2, x.sin()),
                (3, x.abs().powf(sf)),
                (7, x * x + sf * sf),
                (8, (x * x + sf * sf).sqrt()),
            ] {
                let u = ulps(o[k * 10 + i], want);
                assert!(
                    u <= 1.0,
                    "{} got {} want {want} ({u} ulp)",
                    what(&format!("op {i}")),
                    hf(o[k * 10 + i])
                );
            }
            same(o[k * 10 + 4], h(x.floor() as f32), &what("floor"));
            same(o[k * 10 + 5], h(x.clamp(-sf, sf) as f32), &what("clamp"));
            same(
                o[k * 10 + 6],
                if xb & 0x8000 != 0 { s | 0x8000 } else { s },
                &what("copysign"),
            );
            same(o[k * 10 + 9], h((x * sf) as f32), &what("by value"));
        }
    }
}
