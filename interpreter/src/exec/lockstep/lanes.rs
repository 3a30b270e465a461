//! Ops without effects: plain loops over the lanes an op runs for, in lane order (no other
//! lane or observer can tell the order).

use super::{LaneView, Sel};
use crate::alu::{self, mask, sext};
use crate::ir::Op;
use crate::observer::Observer;

/// `d[l] = f(a[l], b[l])` for every lane.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // flat, always inlined
pub(super) fn bin(
    regs: &mut [u64],
    n: usize,
    sel: Sel<'_>,
    base: usize,
    d: u32,
    a: u32,
    b: u32,
    f: impl Fn(u64, u64) -> u64,
) {
    let (d, a, b) = (
        (base + d as usize) * n,
        (base + a as usize) * n,
        (base + b as usize) * n,
    );
    let end = d.max(a).max(b) + n;
    let r = &mut regs[..end];
    match sel {
        Sel::All => {
            for l in 0..n {
                r[d + l] = f(r[a + l], r[b + l]);
            }
        }
        Sel::Some(ls) => {
            for &l in ls {
                r[d + l] = f(r[a + l], r[b + l]);
            }
        }
    }
}

/// `d[l] = f(a[l])` for every lane.
#[inline(always)]
pub(super) fn un(
    regs: &mut [u64],
    n: usize,
    sel: Sel<'_>,
    base: usize,
    d: u32,
    a: u32,
    f: impl Fn(u64) -> u64,
) {
    let (d, a) = ((base + d as usize) * n, (base + a as usize) * n);
    let end = d.max(a) + n;
    let r = &mut regs[..end];
    match sel {
        Sel::All => {
            for l in 0..n {
                r[d + l] = f(r[a + l]);
            }
        }
        Sel::Some(ls) => {
            for &l in ls {
                r[d + l] = f(r[a + l]);
            }
        }
    }
}

fn f32b(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

/// Scalar integer ops, comparisons and pointer arithmetic of one slot per lane.
#[inline(always)]
pub(super) fn scalar(regs: &mut [u64], n: usize, sel: Sel<'_>, base: usize, op: Op) {
    match op {
        Op::Mov { d, s } => un(regs, n, sel, base, d, s, |x| x),
        Op::Bin { op, w, d, a, b } => {
            bin(regs, n, sel, base, d, a, b, |x, y| alu::bin(op, w, x, y))
        }
        Op::Add32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (x as u32).wrapping_add(y as u32) as u64
        }),
        Op::Add64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x.wrapping_add(y)),
        Op::Sub32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (x as u32).wrapping_sub(y as u32) as u64
        }),
        Op::Sub64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x.wrapping_sub(y)),
        Op::Mul32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (x as u32).wrapping_mul(y as u32) as u64
        }),
        Op::Mul64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x.wrapping_mul(y)),
        Op::SLt32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            ((x as i32) < (y as i32)) as u64
        }),
        Op::ULt32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            ((x as u32) < (y as u32)) as u64
        }),
        Op::SLt64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            ((x as i64) < (y as i64)) as u64
        }),
        Op::ULt64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| (x < y) as u64),
        Op::Eq32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (x as u32 == y as u32) as u64
        }),
        Op::FAdd32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (f32b(x) + f32b(y)).to_bits() as u64
        }),
        Op::FMul32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (f32b(x) * f32b(y)).to_bits() as u64
        }),
        Op::Eq64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| (x == y) as u64),
        Op::Ne32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| (x != y) as u64),
        Op::Ne64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| (x != y) as u64),
        Op::Shr32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x >> (y & 31)),
        Op::Shr64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x >> (y & 63)),
        Op::Shl32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (x << (y & 31)) & 0xffff_ffff
        }),
        Op::Shl64 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x << (y & 63)),
        Op::And { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x & y),
        Op::Or { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| x | y),
        Op::FSub32 { d, a, b } => bin(regs, n, sel, base, d, a, b, |x, y| {
            (f32b(x) - f32b(y)).to_bits() as u64
        }),
        Op::Mask { w, d, s } => {
            let m = mask(w);
            un(regs, n, sel, base, d, s, |v| v & m)
        }
        Op::Gep { d, p, off } => un(regs, n, sel, base, d, p, |x| x.wrapping_add(off as u64)),
        Op::Gep1 {
            w,
            d,
            p,
            idx,
            scale,
            off,
        } => {
            bin(regs, n, sel, base, d, p, idx, |x, i| {
                x.wrapping_add(
                    sext(i, w)
                        .wrapping_mul(scale as i64)
                        .wrapping_add(off as i64) as u64,
                )
            });
        }
        _ => unreachable!("not a scalar lockstep op: {op:?}"),
    }
}

/// Ops over several slots per lane (vectors), conversions and general address arithmetic.
#[inline(always)]
pub(super) fn vector<O: Observer>(cx: &mut LaneView<'_, '_, O>, sel: Sel<'_>, op: Op) {
    let code = cx.lx.code;
    let (n, base) = (cx.n, cx.base);
    let regs = &mut *cx.regs;
    match op {
        Op::BinV {
            op,
            w,
            n: k,
            d,
            a,
            b,
        } => {
            for i in 0..k as u32 {
                bin(regs, n, sel, base, d + i, a + i, b + i, |x, y| {
                    alu::bin(op, w, x, y)
                });
            }
        }
        Op::Un { op, w, n: k, d, a } => {
            for i in 0..k as u32 {
                un(regs, n, sel, base, d + i, a + i, |x| alu::un(op, w, x));
            }
        }
        Op::Select {
            cvec,
            n: k,
            d,
            c,
            a,
            b,
        } => {
            for i in 0..k {
                let cs = if cvec { c + i } else { c };
                for l in sel.lanes(n) {
                    cx.set(
                        d + i,
                        l,
                        if cx.get(cs, l) & 1 != 0 {
                            cx.get(a + i, l)
                        } else {
                            cx.get(b + i, l)
                        },
                    );
                }
            }
        }
        Op::IConv {
            signed,
            from,
            to,
            n: k,
            d,
            s,
        } => {
            let m = mask(to);
            let mf = mask(from);
            for i in 0..k as u32 {
                if signed {
                    un(regs, n, sel, base, d + i, s + i, |v| {
                        sext(v, from) as u64 & m
                    });
                } else {
                    un(regs, n, sel, base, d + i, s + i, |v| v & mf & m);
                }
            }
        }
        Op::Conv { cv, n: k, d, s } => {
            let c = code.convs[cv as usize];
            for i in 0..k as u32 {
                un(regs, n, sel, base, d + i, s + i, |v| c.apply(v));
            }
        }
        Op::GepN { g, d, p } => {
            let spec = &code.geps[g as usize];
            for l in sel.lanes(n) {
                let mut o = spec.off;
                for t in &spec.terms {
                    o = o.wrapping_add(sext(cx.get(t.slot, l), t.w).wrapping_mul(t.scale));
                }
                cx.set(d, l, cx.get(p, l).wrapping_add(o as u64));
            }
        }
        _ => unreachable!("not a vector lockstep op: {op:?}"),
    }
}

/// Float ops the lowering specialises (fma / mad, fmin / fmax, sqrt / fabs).
#[inline(always)]
pub(super) fn float(regs: &mut [u64], n: usize, sel: Sel<'_>, base: usize, op: Op) {
    match op {
        Op::Fma {
            fused,
            w,
            n: k,
            d,
            a,
            b,
            c,
        } => {
            let at = |s: u32, l: usize| (base + s as usize) * n + l;
            for i in 0..k as u32 {
                for l in sel.lanes(n) {
                    let (x, y, z) = (regs[at(a + i, l)], regs[at(b + i, l)], regs[at(c + i, l)]);
                    regs[at(d + i, l)] = if w == 32 {
                        let (x, y, z) = (f32b(x), f32b(y), f32b(z));
                        (if fused { x.mul_add(y, z) } else { x * y + z }).to_bits() as u64
                    } else {
                        let (x, y, z) = (f64::from_bits(x), f64::from_bits(y), f64::from_bits(z));
                        (if fused { x.mul_add(y, z) } else { x * y + z }).to_bits()
                    };
                }
            }
        }
        Op::FMinMax {
            max,
            w,
            n: k,
            d,
            a,
            b,
        } => {
            for i in 0..k as u32 {
                bin(regs, n, sel, base, d + i, a + i, b + i, |x, y| {
                    if w == 32 {
                        let (x, y) = (f32b(x), f32b(y));
                        (if max { x.max(y) } else { x.min(y) }).to_bits() as u64
                    } else {
                        let (x, y) = (f64::from_bits(x), f64::from_bits(y));
                        (if max { x.max(y) } else { x.min(y) }).to_bits()
                    }
                });
            }
        }
        Op::FUn {
            sqrt,
            w,
            n: k,
            d,
            a,
        } => {
            for i in 0..k as u32 {
                un(regs, n, sel, base, d + i, a + i, |x| match (sqrt, w) {
                    (true, 32) => f32b(x).sqrt().to_bits() as u64,
                    (true, _) => f64::from_bits(x).sqrt().to_bits(),
                    (false, 32) => x & 0x7fff_ffff,
                    (false, _) => x & 0x7fff_ffff_ffff_ffff,
                });
            }
        }
        _ => unreachable!("not a float lockstep op: {op:?}"),
    }
}
