//! Numeric conversions between lanes (OpConvert*, OpSatConvert*, OpFConvert, ...).

use super::fmt::Fmt;
use super::{Elem, Rounding};

/// Mask of the low `width` bits.
pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The lane's integer value, sign-extended from `width` bits when `signed`.
pub fn int_value(v: u64, width: u32, signed: bool) -> i128 {
    let v = v & mask(width);
    if signed && width < 128 && v >> (width - 1) & 1 == 1 {
        i128::from(v) - (1i128 << width)
    } else {
        i128::from(v)
    }
}

/// Range of an integer type.
pub fn int_range(width: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        (0, (1i128 << width) - 1)
    }
}

/// `v` wrapped to `width` bits, as a lane.
pub fn wrap(v: i128, width: u32) -> u64 {
    (v as u64) & mask(width)
}

/// `v` clamped to the range of the integer type, as a lane.
pub fn saturate(v: i128, width: u32, signed: bool) -> u64 {
    let (lo, hi) = int_range(width, signed);
    wrap(v.clamp(lo, hi), width)
}

/// The rounding an undecorated conversion uses: toward zero for float to integer,
/// to nearest even otherwise (SPIR-V / OpenCL C default).
pub fn implied_rounding(from: Elem, to: Elem) -> Rounding {
    match (from, to) {
        (Elem::Float(_), Elem::Int(_)) => Rounding::Rtz,
        _ => Rounding::Rte,
    }
}

/// Rounds a finite float value to an integral `f64` in `mode`.
fn round_integral(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Rte => x.round_ties_even(),
        Rounding::Rtz => x.trunc(),
        Rounding::Rtp => x.ceil(),
        Rounding::Rtn => x.floor(),
    }
}

fn float_to_int(x: f64, width: u32, signed: bool, saturate_: bool, mode: Rounding) -> u64 {
    let (lo, hi) = int_range(width, signed);
    if x.is_nan() {
        return if saturate_ {
            0
        } else {
            x86_invalid(width, signed)
        };
    }
    let r = round_integral(x, mode);
    // Every integer type's range lies well inside ±2^127.
    let in_range = r >= lo as f64 && r <= hi as f64 && r.abs() < 1.7e38;
    if in_range {
        // Exact: r is integral and within ±2^64.
        let v = r as i128;
        if v >= lo && v <= hi {
            return wrap(v, width);
        }
    }
    if saturate_ {
        return wrap(if r < 0.0 { lo } else { hi }, width);
    }
    // x86-64 converts through cvtt*2si of 32 bits (types narrower than 32 bits and int)
    // or 64 bits (uint, long), then truncates; out of range it yields 0x80..0.
    let via = if width < 32 || (signed && width == 32) {
        32
    } else {
        64
    };
    let (vlo, vhi) = int_range(via, true);
    if r >= vlo as f64 && r <= vhi as f64 {
        return wrap(r as i128, width);
    }
    x86_invalid(width, signed)
}

/// What x86's cvtt*2si produces for an unrepresentable value: the "integer indefinite"
/// 0x80..0 of the conversion width, truncated to the destination.
fn x86_invalid(width: u32, signed: bool) -> u64 {
    if width < 32 || (signed && width == 32) {
        wrap(i128::from(i32::MIN), width)
    } else {
        wrap(i128::from(i64::MIN), width)
    }
}

/// See [`super::convert`].
pub fn convert(
    value: u64,
    from: Elem,
    from_signed: bool,
    to: Elem,
    to_signed: bool,
    sat: bool,
    rounding: Rounding,
) -> u64 {
    // Widths outside 1..=64 cannot come from valid SPIR-V; clamp rather than panic.
    let fix = |e: Elem| match e {
        Elem::Int(w) => Elem::Int(w.clamp(1, 64)),
        other => other,
    };
    let (from, to) = (fix(from), fix(to));
    match (from, to) {
        (Elem::Bool, Elem::Bool) => u64::from(value & 1 != 0),
        (Elem::Bool, Elem::Int(_)) => u64::from(value & 1 != 0),
        (Elem::Bool, Elem::Float(w)) => {
            let f = Fmt::of(w).unwrap_or(super::fmt::F32);
            if value & 1 != 0 {
                f.encode(1.0)
            } else {
                0
            }
        }
        (Elem::Int(w), Elem::Bool) => u64::from(value & mask(u32::from(w)) != 0),
        (Elem::Float(w), Elem::Bool) => {
            let f = Fmt::of(w).unwrap_or(super::fmt::F32);
            u64::from(f.to_f64(value) != 0.0)
        }
        (Elem::Int(fw), Elem::Int(tw)) => {
            let v = int_value(value, u32::from(fw), from_signed);
            if sat {
                saturate(v, u32::from(tw), to_signed)
            } else {
                wrap(v, u32::from(tw))
            }
        }
        (Elem::Int(fw), Elem::Float(tw)) => {
            let f = Fmt::of(tw).unwrap_or(super::fmt::F32);
            let v = int_value(value, u32::from(fw), from_signed);
            f.round(v < 0, v.unsigned_abs(), 0, rounding)
        }
        (Elem::Float(fw), Elem::Int(tw)) => {
            let f = Fmt::of(fw).unwrap_or(super::fmt::F32);
            float_to_int(f.to_f64(value), u32::from(tw), to_signed, sat, rounding)
        }
        (Elem::Float(fw), Elem::Float(tw)) => {
            let from = Fmt::of(fw).unwrap_or(super::fmt::F32);
            let to = Fmt::of(tw).unwrap_or(super::fmt::F32);
            from.convert_to(value, to, rounding)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Elem::{Float, Int};
    use Rounding::{Rte, Rtn, Rtp, Rtz};

    fn f32b(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    fn f16b(x: f32) -> u64 {
        u64::from(half::f16::from_f32(x).to_bits())
    }

    #[test]
    fn clstd_convert_int_int() {
        // (value, from, from_signed, to, to_signed, sat, expected)
        let cases: &[(u64, u8, bool, u8, bool, bool, u64)] = &[
            (0xff, 8, true, 32, true, false, 0xffff_ffff), // sext -1
            (0xff, 8, false, 32, true, false, 0xff),       // zext
            (0x1234, 16, true, 8, true, false, 0x34),      // truncate
            (300, 32, true, 8, false, true, 255),          // uchar_sat
            (0xffff_ff00, 32, true, 8, false, true, 0),    // -256 -> 0
            (0xffff_ff00, 32, true, 8, true, true, 0x80),  // -256 -> -128
            (200, 32, true, 8, true, true, 127),           // 200 -> 127
            (0xffff_ffff, 32, false, 32, true, true, 0x7fff_ffff), // u32 max -> int max
            (0xffff_ffff, 32, true, 32, false, true, 0),   // -1 -> uint 0
            (u64::MAX, 64, false, 64, true, true, i64::MAX as u64),
            (1 << 63, 64, true, 64, false, true, 0),
            (1 << 63, 64, true, 16, true, true, 0x8000),
            (0x7fff, 16, true, 64, false, true, 0x7fff),
        ];
        for &(v, fw, fs, tw, ts, sat, want) in cases {
            let got = convert(v, Int(fw), fs, Int(tw), ts, sat, Rte);
            assert_eq!(got, want, "{v:#x} i{fw}{fs} -> i{tw}{ts} sat={sat}");
        }
    }

    #[test]
    fn clstd_convert_float_to_int() {
        let cases: &[(f32, u8, bool, bool, Rounding, u64)] = &[
            (2.5, 32, true, false, Rtz, 2),
            (2.5, 32, true, false, Rte, 2),
            (3.5, 32, true, false, Rte, 4),
            (2.5, 32, true, false, Rtp, 3),
            (-2.5, 32, true, false, Rtn, (-3i32) as u32 as u64),
            (-2.5, 32, true, false, Rtz, (-2i32) as u32 as u64),
            (-2.5, 32, true, false, Rtp, (-2i32) as u32 as u64),
            (-0.5, 32, true, false, Rte, 0),
            (1e10, 32, true, true, Rtz, 0x7fff_ffff),
            (-1e10, 32, true, true, Rtz, 0x8000_0000),
            (1e10, 32, true, false, Rtz, 0x8000_0000),
            (f32::NAN, 32, true, true, Rtz, 0),
            (f32::NAN, 32, true, false, Rtz, 0x8000_0000),
            (-1.0, 32, false, true, Rtz, 0),
            (300.0, 8, false, true, Rtz, 255),
            (-300.0, 8, true, true, Rtz, 0x80),
            (255.9, 8, false, true, Rtp, 255),
            (255.4, 8, false, true, Rte, 255),
            (4294967295.0, 32, false, true, Rtz, 0xffff_ffff),
            (f32::INFINITY, 64, false, true, Rtz, u64::MAX),
            (f32::NEG_INFINITY, 64, true, true, Rtz, 1 << 63),
            (f32::INFINITY, 64, true, false, Rtz, 1 << 63),
            (1.8446744e19, 64, false, false, Rtz, 1 << 63),
            (9.223372e18, 64, false, false, Rtz, 1 << 63),
            (-7.9, 16, true, false, Rtz, 0xfff9),
        ];
        for &(x, tw, ts, sat, mode, want) in cases {
            let got = convert(f32b(x), Float(32), true, Int(tw), ts, sat, mode);
            assert_eq!(got, want, "{x} -> i{tw} signed={ts} sat={sat} {mode:?}");
        }
        // f64 source, 64-bit destinations.
        let d = |x: f64| x.to_bits();
        assert_eq!(
            convert(d(-9.3e18), Float(64), true, Int(64), true, true, Rtz),
            1 << 63
        );
        assert_eq!(
            convert(d(1.5e19), Float(64), true, Int(64), false, false, Rtz),
            15_000_000_000_000_000_000
        );
        assert_eq!(
            convert(
                d(-4503599627370497.5),
                Float(64),
                true,
                Int(64),
                true,
                false,
                Rtn
            ),
            (-4503599627370498i64) as u64
        );
        // f16 source.
        assert_eq!(
            convert(f16b(-65504.0), Float(16), true, Int(16), true, true, Rtz),
            0x8000
        );
        assert_eq!(
            convert(f16b(1.5), Float(16), true, Int(8), true, false, Rte),
            2
        );
    }

    #[test]
    fn clstd_convert_int_to_float() {
        let u = u64::MAX; // 2^64-1
        let below = |x: f32| f32b(f32::from_bits(x.to_bits() - 1));
        assert_eq!(
            convert(u, Int(64), false, Float(32), true, false, Rte),
            f32b(1.8446744e19)
        );
        assert_eq!(
            convert(u, Int(64), false, Float(32), true, false, Rtz),
            below(1.8446744e19)
        );
        assert_eq!(
            convert(u, Int(64), false, Float(32), true, false, Rtn),
            below(1.8446744e19)
        );
        assert_eq!(
            convert(u, Int(64), false, Float(32), true, false, Rtp),
            f32b(1.8446744e19)
        );
        // Signed -1 as u64 lanes.
        assert_eq!(
            convert(u, Int(64), true, Float(32), true, false, Rte),
            f32b(-1.0)
        );
        // 2^24+1: not representable in f32.
        let v = (1u64 << 24) + 1;
        assert_eq!(
            convert(v, Int(32), true, Float(32), true, false, Rte),
            f32b(16777216.0)
        );
        assert_eq!(
            convert(v, Int(32), true, Float(32), true, false, Rtp),
            f32b(16777218.0)
        );
        assert_eq!(
            convert(
                wrap(-(v as i128), 32),
                Int(32),
                true,
                Float(32),
                true,
                false,
                Rtn
            ),
            f32b(-16777218.0)
        );
        assert_eq!(
            convert(
                wrap(-(v as i128), 32),
                Int(32),
                true,
                Float(32),
                true,
                false,
                Rtz
            ),
            f32b(-16777216.0)
        );
        // i64 to f64, 2^53+1.
        let w = (1u64 << 53) + 1;
        assert_eq!(
            convert(w, Int(64), true, Float(64), true, false, Rtp),
            ((1u64 << 53) as f64 + 2.0).to_bits()
        );
        assert_eq!(
            convert(w, Int(64), true, Float(64), true, false, Rte),
            ((1u64 << 53) as f64).to_bits()
        );
        // To half: 65535 overflows to inf (rte) or max (rtz); 2049 rounds.
        assert_eq!(
            convert(65535, Int(32), false, Float(16), false, false, Rte),
            0x7c00
        );
        assert_eq!(
            convert(65535, Int(32), false, Float(16), false, false, Rtz),
            0x7bff
        );
        assert_eq!(
            convert(2049, Int(16), true, Float(16), false, false, Rtp),
            f16b(2050.0)
        );
        assert_eq!(
            convert(2049, Int(16), true, Float(16), false, false, Rte),
            f16b(2048.0)
        );
        assert_eq!(
            convert(0xff, Int(8), true, Float(32), false, false, Rte),
            f32b(-1.0)
        );
    }

    #[test]
    fn clstd_convert_float_float() {
        let d = |x: f64| x.to_bits();
        let x = 1.0 + f64::EPSILON; // between two f32 values, just above 1
        assert_eq!(
            convert(d(x), Float(64), true, Float(32), true, false, Rte),
            f32b(1.0)
        );
        assert_eq!(
            convert(d(x), Float(64), true, Float(32), true, false, Rtz),
            f32b(1.0)
        );
        assert_eq!(
            convert(d(x), Float(64), true, Float(32), true, false, Rtp),
            f32b(1.0) + 1
        );
        assert_eq!(
            convert(d(-x), Float(64), true, Float(32), true, false, Rtn),
            f32b(-1.0) + 1
        );
        assert_eq!(
            convert(d(1e300), Float(64), true, Float(32), true, false, Rtz),
            f32b(f32::MAX)
        );
        assert_eq!(
            convert(d(1e300), Float(64), true, Float(32), true, false, Rte),
            f32b(f32::INFINITY)
        );
        assert_eq!(
            convert(d(-1e300), Float(64), true, Float(32), true, false, Rtp),
            f32b(f32::MIN)
        );
        assert_eq!(
            convert(d(1e-50), Float(64), true, Float(32), true, false, Rtp),
            1
        );
        assert_eq!(
            convert(d(1e-50), Float(64), true, Float(32), true, false, Rte),
            0
        );
        assert_eq!(
            convert(d(-0.0), Float(64), true, Float(32), true, false, Rte),
            f32b(-0.0)
        );
        let nan = convert(d(f64::NAN), Float(64), true, Float(32), true, false, Rte);
        assert!(f32::from_bits(nan as u32).is_nan());
        // f32 -> f16: 1 + 2^-11 is a tie; 1 + 3*2^-12 rounds up.
        let t = f32b(1.0 + 2f32.powi(-11));
        assert_eq!(
            convert(t, Float(32), true, Float(16), true, false, Rte),
            0x3c00
        );
        assert_eq!(
            convert(t, Float(32), true, Float(16), true, false, Rtp),
            0x3c01
        );
        assert_eq!(
            convert(t, Float(32), true, Float(16), true, false, Rtn),
            0x3c00
        );
        assert_eq!(
            convert(
                f32b(-1.0 - 2f32.powi(-11)),
                Float(32),
                true,
                Float(16),
                true,
                false,
                Rtn
            ),
            0xbc01
        );
        assert_eq!(
            convert(f32b(1e5), Float(32), true, Float(16), true, false, Rtz),
            0x7bff
        );
        assert_eq!(
            convert(f32b(1e-8), Float(32), true, Float(16), true, false, Rtp),
            1
        );
        assert_eq!(
            convert(d(65504.0), Float(64), true, Float(16), true, false, Rte),
            0x7bff
        );
        assert_eq!(
            convert(d(1e-300), Float(64), true, Float(16), true, false, Rtn),
            0
        );
        // Widening is exact.
        assert_eq!(
            convert(1, Float(16), true, Float(32), true, false, Rte),
            f32b(2f32.powi(-24))
        );
        assert_eq!(
            convert(1, Float(32), true, Float(64), true, false, Rte),
            d(2f64.powi(-149))
        );
        assert_eq!(
            convert(0xfc00, Float(16), true, Float(64), true, false, Rte),
            d(f64::NEG_INFINITY)
        );
    }

    #[test]
    fn clstd_convert_bool() {
        assert_eq!(convert(1, Elem::Bool, false, Int(32), true, false, Rte), 1);
        assert_eq!(
            convert(1, Elem::Bool, false, Float(32), true, false, Rte),
            f32b(1.0)
        );
        assert_eq!(
            convert(0x100, Int(8), false, Elem::Bool, false, false, Rte),
            0
        );
        assert_eq!(
            convert(f32b(-0.0), Float(32), true, Elem::Bool, false, false, Rte),
            0
        );
        assert_eq!(
            convert(f32b(0.1), Float(32), true, Elem::Bool, false, false, Rte),
            1
        );
        assert_eq!(implied_rounding(Float(32), Int(8)), Rtz);
        // Nonsense widths are clamped, never a panic.
        assert_eq!(
            convert(1, Int(0), true, Int(32), true, false, Rte),
            0xffff_ffff
        );
        assert_eq!(
            convert(u64::MAX, Int(200), false, Int(0), false, true, Rte),
            1
        );
        assert_eq!(implied_rounding(Int(8), Float(32)), Rte);
    }

    /// Reference results of PoCL 3's `convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn]` (pyopencl on
    /// its CPU device). The full sweep (9912 in-range or saturated cases over every pair of
    /// char..ulong, float and double, each rounding mode) matched bit for bit; this is a
    /// sample of the cases where the rounding mode matters, and of saturations.
    #[test]
    fn clstd_convert_matches_pocl() {
        // (from, from_signed, to, to_signed, saturate, rounding, value, PoCL's result)
        type Case = (Elem, bool, Elem, bool, bool, Rounding, u64, u64);
        #[rustfmt::skip]
        let cases: &[Case] = &[
            (Int(64), false, Float(64), true, false, Rte, 0xffffffffffffff80, 0x43f0000000000000),
            (Int(64), false, Float(64), true, false, Rtz, 0xffffffffffffff80, 0x43efffffffffffff),
            (Int(64), false, Float(64), true, false, Rtp, 0xffffffffffffff80, 0x43f0000000000000),
            (Int(64), false, Float(64), true, false, Rtn, 0xffffffffffffff80, 0x43efffffffffffff),
            (Int(64), false, Float(32), true, false, Rte, 0x1000001, 0x4b800000),
            (Int(64), false, Float(32), true, false, Rtz, 0x1000001, 0x4b800000),
            (Int(64), false, Float(32), true, false, Rtp, 0x1000001, 0x4b800001),
            (Int(64), false, Float(32), true, false, Rtn, 0x1000001, 0x4b800000),
            (Int(32), false, Float(32), true, false, Rte, 0xffffffff, 0x4f800000),
            (Int(32), false, Float(32), true, false, Rtz, 0xffffffff, 0x4f7fffff),
            (Int(32), false, Float(32), true, false, Rtp, 0xffffffff, 0x4f800000),
            (Int(32), false, Float(32), true, false, Rtn, 0xffffffff, 0x4f7fffff),
            (Int(32), false, Float(32), true, false, Rte, 0xffffff80, 0x4f800000),
            (Int(32), false, Float(32), true, false, Rtz, 0xffffff80, 0x4f7fffff),
            (Int(32), false, Float(32), true, false, Rtp, 0xffffff80, 0x4f800000),
            (Int(32), false, Float(32), true, false, Rtn, 0xffffff80, 0x4f7fffff),
            (Int(32), false, Float(32), true, false, Rte, 0x90abcdef, 0x4f10abce),
            (Int(32), false, Float(32), true, false, Rtz, 0x90abcdef, 0x4f10abcd),
            (Int(32), false, Float(32), true, false, Rtp, 0x90abcdef, 0x4f10abce),
            (Int(32), false, Float(32), true, false, Rtn, 0x90abcdef, 0x4f10abcd),
            (Int(64), false, Float(32), true, false, Rte, 0x4000000000003039, 0x5e800000),
            (Int(64), false, Float(32), true, false, Rtz, 0x4000000000003039, 0x5e800000),
            (Int(64), false, Float(32), true, false, Rtp, 0x4000000000003039, 0x5e800001),
            (Int(64), false, Float(32), true, false, Rtn, 0x4000000000003039, 0x5e800000),
            (Int(64), false, Float(64), true, false, Rte, 0x7fffffffffffffff, 0x43e0000000000000),
            (Int(64), false, Float(64), true, false, Rtz, 0x7fffffffffffffff, 0x43dfffffffffffff),
            (Int(64), false, Float(64), true, false, Rtp, 0x7fffffffffffffff, 0x43e0000000000000),
            (Int(64), false, Float(64), true, false, Rtn, 0x7fffffffffffffff, 0x43dfffffffffffff),
            (Int(64), true, Float(32), true, false, Rte, 0xfffffffffeffffff, 0xcb800000),
            (Int(64), true, Float(32), true, false, Rtz, 0xfffffffffeffffff, 0xcb800000),
            (Int(64), true, Float(32), true, false, Rtp, 0xfffffffffeffffff, 0xcb800000),
            (Int(64), true, Float(32), true, false, Rtn, 0xfffffffffeffffff, 0xcb800001),
            (Float(64), true, Float(32), true, false, Rte, 0x40efffeccccccccd, 0x477fff66),
            (Float(64), true, Float(32), true, false, Rtz, 0x40efffeccccccccd, 0x477fff66),
            (Float(64), true, Float(32), true, false, Rtp, 0x40efffeccccccccd, 0x477fff67),
            (Float(64), true, Float(32), true, false, Rtn, 0x40efffeccccccccd, 0x477fff66),
            (Float(64), true, Float(32), true, false, Rte, 0x3ff0000002af31dc, 0x3f800000),
            (Float(64), true, Float(32), true, false, Rtz, 0x3ff0000002af31dc, 0x3f800000),
            (Float(64), true, Float(32), true, false, Rtp, 0x3ff0000002af31dc, 0x3f800001),
            (Float(64), true, Float(32), true, false, Rtn, 0x3ff0000002af31dc, 0x3f800000),
            (Float(64), true, Float(32), true, false, Rte, 0xc00f333333333333, 0xc079999a),
            (Float(64), true, Float(32), true, false, Rtz, 0xc00f333333333333, 0xc0799999),
            (Float(64), true, Float(32), true, false, Rtp, 0xc00f333333333333, 0xc0799999),
            (Float(64), true, Float(32), true, false, Rtn, 0xc00f333333333333, 0xc079999a),
            (Float(64), true, Float(32), true, false, Rte, 0x4170000010000000, 0x4b800000),
            (Float(64), true, Float(32), true, false, Rtz, 0x4170000010000000, 0x4b800000),
            (Float(64), true, Float(32), true, false, Rtp, 0x4170000010000000, 0x4b800001),
            (Float(64), true, Float(32), true, false, Rtn, 0x4170000010000000, 0x4b800000),
            (Float(64), true, Int(8), true, true, Rte, 0xc004000000000000, 0xfe),
            (Float(64), true, Int(8), true, true, Rtz, 0xc004000000000000, 0xfe),
            (Float(64), true, Int(8), true, true, Rtp, 0xc004000000000000, 0xfe),
            (Float(64), true, Int(8), true, true, Rtn, 0xc004000000000000, 0xfd),
            (Float(32), true, Int(64), false, false, Rte, 0xc70000b3, 0xffffffffffff7fff),
            (Float(32), true, Int(64), false, false, Rtz, 0xc70000b3, 0xffffffffffff8000),
            (Float(32), true, Int(64), false, false, Rtp, 0xc70000b3, 0xffffffffffff8000),
            (Float(32), true, Int(64), false, false, Rtn, 0xc70000b3, 0xffffffffffff7fff),
            (Float(64), true, Int(32), false, true, Rte, 0x3ff8000000000000, 0x2),
            (Float(64), true, Int(32), false, true, Rtz, 0x3ff8000000000000, 0x1),
            (Float(64), true, Int(32), false, true, Rtp, 0x3ff8000000000000, 0x2),
            (Float(64), true, Int(32), false, true, Rtn, 0x3ff8000000000000, 0x1),
            (Float(64), true, Int(16), true, true, Rte, 0x405fe00000000000, 0x80),
            (Float(64), true, Int(16), true, true, Rtz, 0x405fe00000000000, 0x7f),
            (Float(64), true, Int(16), true, true, Rtp, 0x405fe00000000000, 0x80),
            (Float(64), true, Int(16), true, true, Rtn, 0x405fe00000000000, 0x7f),
            (Float(64), true, Int(64), false, false, Rte, 0x3fdfffffdfc9a9ad, 0x0),
            (Float(64), true, Int(64), false, false, Rtz, 0x3fdfffffdfc9a9ad, 0x0),
            (Float(64), true, Int(64), false, false, Rtp, 0x3fdfffffdfc9a9ad, 0x1),
            (Float(64), true, Int(64), false, false, Rtn, 0x3fdfffffdfc9a9ad, 0x0),
            (Float(64), true, Int(8), true, true, Rte, 0x4004000000000000, 0x2),
            (Float(64), true, Int(8), true, true, Rtz, 0x4004000000000000, 0x2),
            (Float(64), true, Int(8), true, true, Rtp, 0x4004000000000000, 0x3),
            (Float(64), true, Int(8), true, true, Rtn, 0x4004000000000000, 0x2),
            (Float(64), true, Int(16), false, true, Rtz, 0x43dffffffddad230, 0xffff),
            (Float(64), true, Int(32), true, true, Rtz, 0x4170000010000000, 0x1000001),
            (Float(64), true, Int(64), true, true, Rtz, 0xc1e0000020000000, 0xffffffff7fffff00),
            (Float(32), true, Int(8), true, true, Rtz, 0xc70000b3, 0x80),
            (Float(32), true, Int(32), true, true, Rtz, 0x3effffff, 0x0),
            (Float(32), true, Int(8), true, true, Rtz, 0x116c2, 0x0),
            (Float(32), true, Int(16), true, true, Rtz, 0x3f800000, 0x1),
            (Float(64), true, Int(16), false, true, Rtz, 0x4170000010000000, 0xffff),
            (Float(64), true, Int(16), false, true, Rtz, 0x4004000000000000, 0x2),
            (Float(32), true, Int(32), true, true, Rtz, 0x47800000, 0x10000),
            (Float(64), true, Int(64), false, true, Rtz, 0xbff0000000000000, 0x0),
            (Float(32), true, Int(32), false, true, Rtz, 0x80000000, 0x0),
            (Float(32), true, Int(64), true, true, Rtz, 0xc0200000, 0xfffffffffffffffe),
            (Float(32), true, Int(8), false, true, Rtz, 0x42ff0000, 0x7f),
            (Float(32), true, Int(8), true, true, Rtz, 0x47f1205a, 0x7f),
            (Float(32), true, Int(32), true, true, Rtz, 0x4b800000, 0x1000000),
            (Float(64), true, Int(16), false, true, Rtz, 0x40f0000000000000, 0xffff),
            (Float(64), true, Int(32), true, true, Rtz, 0x406ff00000000000, 0xff),
            (Float(64), true, Int(64), true, true, Rtz, 0x7ff0000000000000, 0x7fffffffffffffff),
            (Float(32), true, Int(16), false, true, Rtz, 0x42ff0000, 0x7f),
        ];
        for &(from, fs, to, ts, sat, mode, x, want) in cases {
            let got = convert(x, from, fs, to, ts, sat, mode);
            assert_eq!(
                got, want,
                "{x:#x} {from:?}/{fs} -> {to:?}/{ts} sat={sat} {mode:?}"
            );
        }
    }
}
