//! The ops the dispatch loop runs out of line ([`run_cold`]).
//!
//! The helpers below are parts of `run_cold` (one op each), `#[inline(always)]` so that it
//! compiles as the single function it was; they take the current frame's registers as a
//! slice from the frame's first register (`r[x]` is `regs[base + x]`).

use super::access::{rd, ItemMemory, SyncOperands};
use super::async_copy::{async_copy, async_wait};
use super::ext::ext_inst;
use super::state::alloca_op;
use crate::alu::{self, mask};
use crate::ir::{AtomicOp, Leaf, Op};
use crate::observer::Observer;

/// The ops that are rare in hot loops (vectors, aggregates, conversions, private memory,
/// atomics, OpenCL.std calls), out of line: kept in the dispatch loop, their calls and
/// temporaries made the register allocator spill the loop's own state (the op pointer, the
/// frame pointer) around every op. `pc` is the op's index; an `Err` aborts the work-item.
#[inline(never)]
pub(super) fn run_cold<O: Observer>(
    opr: &Op,
    regs: &mut [u64],
    base: usize,
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    async_seen: &mut [u32],
    pc: usize,
) -> Result<(), String> {
    let code = mx.lx.code;
    macro_rules! r {
        ($x:expr) => {
            regs[base + $x as usize]
        };
    }
    match *opr {
        Op::MovN { d, s, n } => {
            let s = base + s as usize;
            regs.copy_within(s..s + n as usize, base + d as usize);
        }
        Op::BinV { op, w, n, d, a, b } => {
            for i in 0..n as u32 {
                r!(d + i) = alu::bin(op, w, r!(a + i), r!(b + i));
            }
        }
        Op::BinS { op, w, n, d, a, b } => {
            let y = r!(b);
            for i in 0..n as u32 {
                r!(d + i) = alu::bin(op, w, r!(a + i), y);
            }
        }
        Op::Un { op, w, n, d, a } => {
            for i in 0..n as u32 {
                r!(d + i) = alu::un(op, w, r!(a + i));
            }
        }
        Op::Reduce { all, n, d, a } => {
            let mut acc = all;
            for i in 0..n as u32 {
                let x = r!(a + i) & 1 != 0;
                acc = if all { acc && x } else { acc || x };
            }
            r!(d) = acc as u64;
        }
        Op::Conv { cv, n, d, s } => {
            let c = code.convs[cv as usize];
            for i in 0..n as u32 {
                r!(d + i) = c.apply(r!(s + i));
            }
        }
        Op::Bitcast {
            fw,
            fnl,
            tw,
            tn,
            d,
            s,
        } => bitcast(&mut regs[base..], (fw, fnl, s), (tw, tn, d)),
        Op::Mask { w, d, s } => r!(d) = r!(s) & mask(w),
        Op::ExtractDyn {
            n,
            stride,
            d,
            v,
            idx,
            outside,
        } => {
            let i = r!(idx);
            r!(d) = if i < n as u64 {
                r!(v as u64 + i * stride as u64)
            } else {
                outside as u64
            };
        }
        Op::InsertDyn {
            n,
            stride,
            d,
            v,
            x,
            idx,
        } => {
            let s = base + v as usize;
            regs.copy_within(s..s + (n * stride) as usize, base + d as usize);
            let i = r!(idx);
            if i < n as u64 {
                r!(d as u64 + i * stride as u64) = r!(x);
            }
        }
        Op::LoadN { w, n, d, p } => load_n(mx, &mut regs[base..], (w, n), d, p, pc),
        Op::LoadAgg { l, d, p } => {
            load_agg(mx, &mut regs[base..], &code.layouts[l as usize], d, p, pc)
        }
        Op::StoreN { w, n, p, v } => store_n(mx, &regs[base..], (w, n), p, v, pc),
        Op::StoreAgg { l, p, v } => {
            store_agg(mx, &regs[base..], &code.layouts[l as usize], p, v, pc)
        }
        Op::CheckIndex {
            idx,
            w,
            strict,
            len,
            space,
        } if O::ENABLED => {
            if crate::ir::index_past_array(r!(idx), w, len, strict) {
                mx.index_past_array(alu::sext(r!(idx), w), len, space, pc);
            }
        }
        Op::CheckIndex { .. } => {}
        Op::PtrDiff { elem, d, a, b } => {
            r!(d) = (r!(a).wrapping_sub(r!(b)) as i64 / elem.max(1) as i64) as u64;
        }
        Op::Alloca {
            size,
            align,
            d,
            watch,
        } => r!(d) = alloca_op(mx.mem, size, align, watch && mx.lx.definedness)?,
        Op::CopyMem { d, s, size, carry } => {
            let (dv, sv) = (r!(d), r!(s));
            mx.copy(dv, sv, size as u64, carry, pc);
        }
        Op::CopyMemDyn {
            d,
            s,
            size,
            w,
            carry,
        } => {
            let (dv, sv, n) = (r!(d), r!(s), r!(size) & mask(w));
            mx.copy(dv, sv, n.min(1 << 32), carry, pc);
        }
        Op::Dot { w, n, d, a, b } => r!(d) = dot(&regs[base..], w, n, a, b),
        Op::FMinMax { max, w, n, d, a, b } => fmin_max(&mut regs[base..], max, w, n, d, a, b),
        Op::FUn { sqrt, w, n, d, a } => fun(&mut regs[base..], sqrt, w, n, d, a),
        Op::Atomic {
            op,
            w,
            d,
            p,
            v,
            c,
            scope,
            sem,
            unequal,
        } => {
            let (pv, vv, cv) = (r!(p), r!(v), r!(c));
            let sync = (O::ENABLED && mx.lx.sync).then(|| SyncOperands {
                scope: r!(scope),
                sem: r!(sem),
                unequal: r!(unequal),
            });
            let old = mx.atomic(op, w, pv, (vv, cv), sync, pc);
            if op != AtomicOp::Store {
                r!(d) = old;
            }
        }
        Op::Fence { scope, sem } if O::ENABLED && mx.lx.sync => mx.fence(r!(scope), r!(sem), pc),
        Op::Fence { .. } => {}
        Op::ExtInst { e } => {
            ext_inst(mx, regs, base, e, pc)?;
        }
        Op::AsyncCopy { a } => {
            let s = code.asyncs[a as usize];
            async_copy(mx, async_seen, regs, base, s, pc);
        }
        Op::AsyncWait { n, n_w, list } => {
            let count = regs[base + n as usize] & mask(n_w);
            let list = regs[base + list as usize];
            async_wait(mx, count, list, pc);
        }

        // The dispatch loop runs every other op itself.
        _ => return Err(format!("op {opr:?} reached the out-of-line path")),
    }
    Ok(())
}

/// `Op::Bitcast`: the `fnl` lanes of `fw` bits from `s` as `tn` lanes of `tw` bits at `d`.
#[inline(always)]
fn bitcast(r: &mut [u64], (fw, fnl, s): (u8, u8, u32), (tw, tn, d): (u8, u8, u32)) {
    let mut bytes = [0u8; 128];
    let fb = (fw as usize).div_ceil(8);
    for i in 0..(fnl as usize).min(16) {
        let v = r[s as usize + i].to_le_bytes();
        bytes[i * fb..i * fb + fb].copy_from_slice(&v[..fb]);
    }
    let tb = (tw as usize).div_ceil(8);
    for i in 0..(tn as usize).min(16) {
        r[d as usize + i] = rd(&bytes, i * tb, tb);
    }
}

/// `Op::LoadN`: `n` lanes of `w` bytes each from consecutive addresses.
#[inline(always)]
fn load_n<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    r: &mut [u64],
    (w, n): (u8, u32),
    d: u32,
    p: u32,
    pc: usize,
) {
    let pv = r[p as usize];
    for i in 0..n {
        mx.gx.component = i as u8;
        r[(d + i) as usize] = mx.load(pv.wrapping_add(i as u64 * w as u64), w as usize, pc);
    }
    mx.gx.component = 0;
}

/// `Op::LoadAgg`: an aggregate's leaves, one lane each.
#[inline(always)]
fn load_agg<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    r: &mut [u64],
    leaves: &[Leaf],
    d: u32,
    p: u32,
    pc: usize,
) {
    let pv = r[p as usize];
    for (i, leaf) in leaves.iter().enumerate() {
        mx.gx.component = i.min(u8::MAX as usize) as u8;
        r[d as usize + i] = mx.load(pv.wrapping_add(leaf.off as u64), leaf.size as usize, pc);
    }
    mx.gx.component = 0;
}

/// `Op::StoreN`: the inverse of [`load_n`].
#[inline(always)]
fn store_n<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    r: &[u64],
    (w, n): (u8, u32),
    p: u32,
    v: u32,
    pc: usize,
) {
    let pv = r[p as usize];
    for i in 0..n {
        mx.gx.component = i as u8;
        mx.store(
            pv.wrapping_add(i as u64 * w as u64),
            w as usize,
            r[(v + i) as usize],
            pc,
        );
    }
    mx.gx.component = 0;
}

/// `Op::StoreAgg`: the inverse of [`load_agg`].
#[inline(always)]
fn store_agg<O: Observer>(
    mx: &mut ItemMemory<'_, '_, '_, '_, O>,
    r: &[u64],
    leaves: &[Leaf],
    p: u32,
    v: u32,
    pc: usize,
) {
    let pv = r[p as usize];
    for (i, leaf) in leaves.iter().enumerate() {
        mx.gx.component = i.min(u8::MAX as usize) as u8;
        mx.store(
            pv.wrapping_add(leaf.off as u64),
            leaf.size as usize,
            r[v as usize + i],
            pc,
        );
    }
    mx.gx.component = 0;
}

/// `Op::Dot`: the dot product of `n` float lanes of `w` bits (halves summed as floats).
#[inline(always)]
fn dot(r: &[u64], w: u8, n: u8, a: u32, b: u32) -> u64 {
    match w {
        64 => {
            let mut acc = 0f64;
            for i in 0..n as u32 {
                acc += f64::from_bits(r[(a + i) as usize]) * f64::from_bits(r[(b + i) as usize]);
            }
            acc.to_bits()
        }
        _ => {
            let mut acc = 0f32;
            for i in 0..n as u32 {
                let (x, y) = (r[(a + i) as usize], r[(b + i) as usize]);
                acc += alu::to_f64(x, w) as f32 * alu::to_f64(y, w) as f32;
            }
            if w == 16 {
                half::f16::from_f32(acc).to_bits() as u64
            } else {
                acc.to_bits() as u64
            }
        }
    }
}

/// `Op::FMinMax`: fmin / fmax on `n` float lanes.
#[inline(always)]
fn fmin_max(r: &mut [u64], max: bool, w: u8, n: u8, d: u32, a: u32, b: u32) {
    for i in 0..n as u32 {
        let (x, y) = (r[(a + i) as usize], r[(b + i) as usize]);
        r[(d + i) as usize] = if w == 32 {
            let (x, y) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
            (if max { x.max(y) } else { x.min(y) }).to_bits() as u64
        } else {
            let (x, y) = (f64::from_bits(x), f64::from_bits(y));
            (if max { x.max(y) } else { x.min(y) }).to_bits()
        };
    }
}

/// `Op::FUn`: sqrt / fabs on `n` float lanes.
#[inline(always)]
fn fun(r: &mut [u64], sqrt: bool, w: u8, n: u8, d: u32, a: u32) {
    for i in 0..n as u32 {
        let x = r[(a + i) as usize];
        r[(d + i) as usize] = match (sqrt, w) {
            (true, 32) => f32::from_bits(x as u32).sqrt().to_bits() as u64,
            (true, _) => f64::from_bits(x).sqrt().to_bits(),
            (false, 32) => x & 0x7fff_ffff,
            (false, _) => x & 0x7fff_ffff_ffff_ffff,
        };
    }
}
