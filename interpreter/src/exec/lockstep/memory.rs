//! Loads, stores and atomics: lanes take their turns in the schedule's work-item order, so
//! observers and other lanes see the round-robin interleaving.

use super::super::access::{in_range, rd, wr};
use super::super::launch::Lx;
use super::super::state::Gx;
use super::{Cx, Sel};
use crate::ir::{ptr, AtomicOp, Op};
use crate::observer::Observer;

/// Without observers, a load or store whose lanes all point into one allocation resolves
/// that allocation once. Returns false, having changed nothing another try would not redo
/// identically, when it cannot (mixed allocations, a lane out of bounds: the per-lane path
/// then reports the fault).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one flat call for the hottest op
fn load_fast<O: Observer>(
    lx: &Lx<'_, O>,
    gx: &Gx<O>,
    regs: &mut [u64],
    n: usize,
    di: usize,
    pi: usize,
    w: usize,
) -> bool {
    if O::ENABLED {
        return false;
    }
    let end = di.max(pi) + n;
    let r = &mut regs[..end];
    let p0 = r[pi];
    if r[pi..pi + n]
        .iter()
        .any(|&x| (x ^ p0) >> ptr::OFF_BITS != 0)
    {
        return false;
    }
    let (tag, idx, _) = ptr::dec(p0);
    let off = |x: u64| (x & ((1u64 << ptr::OFF_BITS) - 1)) as i64 - ptr::BIAS as i64;
    match tag {
        ptr::TAG_LOCAL => {
            let Some(m) = gx.locals.get(idx) else {
                return false;
            };
            for l in 0..n {
                let o = off(r[pi + l]);
                if !in_range(o, w, m.len() as u64) {
                    return false;
                }
                r[di + l] = rd(m, o as usize, w);
            }
            true
        }
        ptr::TAG_LAUNCH => {
            let Some(Some(a)) = lx.allocs.get(idx) else {
                return false;
            };
            for l in 0..n {
                let o = off(r[pi + l]);
                if !in_range(o, w, a.view_size) {
                    return false;
                }
                r[di + l] = a.buf.load((a.view_off + o as u64) as usize, w).unwrap_or(0);
            }
            true
        }
        _ => false,
    }
}

/// The store counterpart of [`load_fast`]; lanes store in the schedule's `order`, so a retry
/// replays the same stores in the same order.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one flat call for the hottest op
fn store_fast<O: Observer>(
    lx: &Lx<'_, O>,
    gx: &mut Gx<O>,
    regs: &[u64],
    n: usize,
    pi: usize,
    vi: usize,
    w: usize,
    order: &[usize],
) -> bool {
    if O::ENABLED {
        return false;
    }
    let ps = &regs[pi..pi + n];
    let vs = &regs[vi..vi + n];
    let p0 = ps[0];
    if ps.iter().any(|&x| (x ^ p0) >> ptr::OFF_BITS != 0) {
        return false;
    }
    let (tag, idx, _) = ptr::dec(p0);
    let off = |x: u64| (x & ((1u64 << ptr::OFF_BITS) - 1)) as i64 - ptr::BIAS as i64;
    match tag {
        ptr::TAG_LOCAL => {
            let Some(m) = gx.locals.get_mut(idx) else {
                return false;
            };
            for &l in order {
                let o = off(ps[l]);
                if !in_range(o, w, m.len() as u64) {
                    return false;
                }
                wr(m, o as usize, w, vs[l]);
            }
            true
        }
        ptr::TAG_LAUNCH => {
            let Some(Some(a)) = lx.allocs.get(idx) else {
                return false;
            };
            for &l in order {
                let o = off(ps[l]);
                if !in_range(o, w, a.view_size) {
                    return false;
                }
                a.buf.store((a.view_off + o as u64) as usize, w, vs[l]);
            }
            true
        }
        _ => false,
    }
}

/// Runs a load, store or atomic op at `here` for the lanes of `sel`.
#[inline(always)]
pub(super) fn access<O: Observer>(cx: &mut Cx<'_, '_, O>, here: usize, sel: Sel<'_>, op: Op) {
    let order = cx.order;
    match op {
        Op::Load { w, d, p } => {
            let (di, pi, n) = (cx.at(d, 0), cx.at(p, 0), cx.n);
            if sel.all() && load_fast(cx.lx, cx.gx, cx.regs, n, di, pi, w as usize) {
                return;
            }
            for &l in sel.ordered(order) {
                let pv = cx.get(p, l);
                let v = cx.mx(l).load(pv, w as usize, here);
                cx.set(d, l, v);
            }
        }
        Op::LoadN { w, n: k, d, p } => {
            for &l in sel.ordered(order) {
                let pv = cx.get(p, l);
                for i in 0..k {
                    let v = cx
                        .mx(l)
                        .load(pv.wrapping_add(i as u64 * w as u64), w as usize, here);
                    cx.set(d + i, l, v);
                }
            }
        }
        Op::Store { w, p, v } => {
            let (pi, vi, n) = (cx.at(p, 0), cx.at(v, 0), cx.n);
            if sel.all() && store_fast(cx.lx, cx.gx, cx.regs, n, pi, vi, w as usize, order) {
                return;
            }
            for &l in sel.ordered(order) {
                let (pv, vv) = (cx.get(p, l), cx.get(v, l));
                cx.mx(l).store(pv, w as usize, vv, here);
            }
        }
        Op::StoreN { w, n: k, p, v } => {
            for &l in sel.ordered(order) {
                let pv = cx.get(p, l);
                for i in 0..k {
                    let vv = cx.get(v + i, l);
                    cx.mx(l)
                        .store(pv.wrapping_add(i as u64 * w as u64), w as usize, vv, here);
                }
            }
        }
        Op::Atomic { op, w, d, p, v, c } => {
            for &l in sel.ordered(order) {
                let (pv, vv, cv) = (cx.get(p, l), cx.get(v, l), cx.get(c, l));
                let old = cx.mx(l).atomic(op, w, pv, vv, cv, here);
                if op != AtomicOp::Store {
                    cx.set(d, l, old);
                }
            }
        }
        _ => unreachable!("not a lockstep memory op: {op:?}"),
    }
}
