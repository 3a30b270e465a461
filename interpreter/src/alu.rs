//! Lane arithmetic: integers are zero-extended from their width, floats are bit patterns.

use crate::ir::{AtomicOp, BinOp, UnOp};
use half::f16;

#[inline(always)]
pub(crate) fn mask(w: u8) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

#[inline(always)]
pub(crate) fn sext(v: u64, w: u8) -> i64 {
    if w >= 64 || w == 0 {
        v as i64
    } else {
        let s = 64 - w as u32;
        ((v << s) as i64) >> s
    }
}

#[inline(always)]
pub(crate) fn to_f64(v: u64, w: u8) -> f64 {
    match w {
        16 => f16::from_bits(v as u16).to_f64(),
        32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

#[inline(always)]
fn fop(w: u8, a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match w {
        32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        64 => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        _ => {
            let r = f32op(
                f16::from_bits(a as u16).to_f32(),
                f16::from_bits(b as u16).to_f32(),
            );
            f16::from_f32(r).to_bits() as u64
        }
    }
}

fn fmod_divisor_sign32(a: f32, b: f32) -> f32 {
    let r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r + b
    } else {
        r
    }
}

fn fmod_divisor_sign64(a: f64, b: f64) -> f64 {
    let r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r + b
    } else {
        r
    }
}

#[inline(always)]
pub(crate) fn bin(op: BinOp, w: u8, a: u64, b: u64) -> u64 {
    use BinOp::*;
    let m = mask(w);
    let sh = (b & (w.max(1) as u64 - 1)) as u32;
    match op {
        IAdd => a.wrapping_add(b) & m,
        ISub => a.wrapping_sub(b) & m,
        IMul => a.wrapping_mul(b) & m,
        UDiv => a.checked_div(b).unwrap_or(0),
        UMod => a.checked_rem(b).unwrap_or(0),
        SDiv => {
            let (x, y) = (sext(a, w), sext(b, w));
            if y == 0 {
                0
            } else {
                x.wrapping_div(y) as u64 & m
            }
        }
        SRem => {
            let (x, y) = (sext(a, w), sext(b, w));
            if y == 0 {
                0
            } else {
                x.wrapping_rem(y) as u64 & m
            }
        }
        SMod => {
            let (x, y) = (sext(a, w), sext(b, w));
            if y == 0 {
                0
            } else {
                let r = x.wrapping_rem(y);
                let r = if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                };
                r as u64 & m
            }
        }
        Shl => (a << sh) & m,
        LShr => a >> sh,
        AShr => (sext(a, w) >> sh) as u64 & m,
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        FAdd => fop(w, a, b, |x, y| x + y, |x, y| x + y),
        FSub => fop(w, a, b, |x, y| x - y, |x, y| x - y),
        FMul => fop(w, a, b, |x, y| x * y, |x, y| x * y),
        FDiv => fop(w, a, b, |x, y| x / y, |x, y| x / y),
        FRem => fop(w, a, b, |x, y| x % y, |x, y| x % y),
        FMod => fop(w, a, b, fmod_divisor_sign32, fmod_divisor_sign64),
        IEq => (a == b) as u64,
        INe => (a != b) as u64,
        UGt => (a > b) as u64,
        UGe => (a >= b) as u64,
        ULt => (a < b) as u64,
        ULe => (a <= b) as u64,
        SGt => (sext(a, w) > sext(b, w)) as u64,
        SGe => (sext(a, w) >= sext(b, w)) as u64,
        SLt => (sext(a, w) < sext(b, w)) as u64,
        SLe => (sext(a, w) <= sext(b, w)) as u64,
        _ => {
            let (x, y) = (to_f64(a, w), to_f64(b, w));
            let un = x.is_nan() || y.is_nan();
            (match op {
                FOEq => x == y,
                FONe => !un && x != y,
                FOLt => x < y,
                FOGt => x > y,
                FOLe => x <= y,
                FOGe => x >= y,
                FUEq => un || x == y,
                FUNe => x != y,
                FULt => un || x < y,
                FUGt => un || x > y,
                FULe => un || x <= y,
                FUGe => un || x >= y,
                Ordered => !un,
                Unordered => un,
                _ => false,
            }) as u64
        }
    }
}

#[inline(always)]
pub(crate) fn un(op: UnOp, w: u8, a: u64) -> u64 {
    let m = mask(w);
    match op {
        UnOp::SNeg => 0u64.wrapping_sub(a) & m,
        UnOp::FNeg => a ^ (1u64 << (w.max(1) - 1)),
        UnOp::Not => !a & m,
        UnOp::LNot => (a & 1) ^ 1,
        UnOp::IsNan => to_f64(a, w).is_nan() as u64,
        UnOp::IsInf => to_f64(a, w).is_infinite() as u64,
        UnOp::IsFinite => to_f64(a, w).is_finite() as u64,
        UnOp::IsNormal => match w {
            16 => f16::from_bits(a as u16).is_normal() as u64,
            32 => f32::from_bits(a as u32).is_normal() as u64,
            _ => f64::from_bits(a).is_normal() as u64,
        },
        UnOp::SignBit => (a >> (w.max(1) - 1)) & 1,
        UnOp::BitCount => (a & m).count_ones() as u64,
        UnOp::BitReverse => (a.reverse_bits() >> (64 - w as u32)) & m,
    }
}

/// New value of an atomic read-modify-write (`old` and operands zero-extended to `w`).
#[inline]
pub(crate) fn atomic_new(op: AtomicOp, w: u8, old: u64, v: u64, c: u64) -> u64 {
    let m = mask(w);
    (match op {
        AtomicOp::Load => old,
        AtomicOp::Store | AtomicOp::Xchg => v,
        AtomicOp::CmpXchg => {
            if old == c & m {
                v
            } else {
                old
            }
        }
        AtomicOp::Inc => old.wrapping_add(1),
        AtomicOp::Dec => old.wrapping_sub(1),
        AtomicOp::Add => old.wrapping_add(v),
        AtomicOp::Sub => old.wrapping_sub(v),
        AtomicOp::SMin => {
            if sext(v, w) < sext(old, w) {
                v
            } else {
                old
            }
        }
        AtomicOp::SMax => {
            if sext(v, w) > sext(old, w) {
                v
            } else {
                old
            }
        }
        AtomicOp::UMin => old.min(v & m),
        AtomicOp::UMax => old.max(v & m),
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
    }) & m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ops_respect_width_and_sign() {
        assert_eq!(bin(BinOp::IAdd, 8, 250, 10), 4);
        assert_eq!(
            bin(BinOp::SDiv, 32, (-7i32) as u32 as u64, 2),
            (-3i32) as u32 as u64
        );
        assert_eq!(bin(BinOp::SMod, 32, (-7i32) as u32 as u64, 3), 2);
        assert_eq!(
            bin(BinOp::SRem, 32, (-7i32) as u32 as u64, 3),
            (-1i32) as u32 as u64
        );
        assert_eq!(bin(BinOp::UDiv, 32, 7, 0), 0);
        assert_eq!(bin(BinOp::Shl, 32, 1, 33), 2);
        assert_eq!(bin(BinOp::AShr, 16, 0x8000, 15), 0xffff);
        assert_eq!(bin(BinOp::SLt, 32, 0xffff_ffff, 0), 1);
        assert_eq!(bin(BinOp::ULt, 32, 0xffff_ffff, 0), 0);
        assert_eq!(un(UnOp::SNeg, 32, 1), 0xffff_ffff);
        assert_eq!(un(UnOp::BitReverse, 8, 1), 0x80);
        assert_eq!(
            atomic_new(AtomicOp::SMin, 32, 5, (-1i32) as u32 as u64, 0),
            0xffff_ffff
        );
    }

    #[test]
    fn float_ops_and_unordered_compares() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(bin(BinOp::FAdd, 32, f(1.5), f(2.0)), f(3.5));
        assert_eq!(bin(BinOp::FMod, 32, f(-1.0), f(3.0)), f(2.0));
        let nan = f(f32::NAN);
        assert_eq!(bin(BinOp::FOEq, 32, nan, nan), 0);
        assert_eq!(bin(BinOp::FUNe, 32, nan, f(1.0)), 1);
        assert_eq!(un(UnOp::FNeg, 32, f(2.0)), f(-2.0));
        assert_eq!(un(UnOp::IsNan, 32, nan), 1);
        let h = |x: f32| f16::from_f32(x).to_bits() as u64;
        assert_eq!(bin(BinOp::FMul, 16, h(1.5), h(2.0)), h(3.0));
    }
}
