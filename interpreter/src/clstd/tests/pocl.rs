//! Agreement with PoCL 3's results, and every instruction evaluated.

use super::*;
use CLOp::*;

/// (op, width, x bits, second operand bits (float, or int for pown/rootn/ldexp), PoCL's
/// result bits, allowed ulps)
const POCL: &[(CLOp, u8, u64, u64, u64, u64)] = &[
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

/// Reference values computed by PoCL 3 (pyopencl, `y = f(x[, z])` on its CPU device) for
/// float and double; ours must agree within the OpenCL 1.2 ulp limit of each function.
/// (PoCL itself is not correctly rounded: e.g. its f32 tan(-2.5) is 2 ulp off, ours 0.)
#[test]
fn clstd_math_matches_pocl() {
    use CLOp::*;
    let cases = POCL;
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
    let fl = [F32.encode(0.5), F32.encode(1.5), F32.encode(2.0)];
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
