//! Loads, stores and atomics: lanes take their turns in the schedule's work-item order, so
//! observers and other lanes see the round-robin interleaving.

use super::super::access::{in_range, rd, store_order_locks, wr, SyncOperands};
use super::super::launch::LaunchRun;
use super::super::state::RunningGroup;
use super::{LaneView, Sel};
use crate::ir::{ptr, AtomicOp, Op};
use crate::memory::AllocId;
use crate::observer::{AccessKind, AddressSpace, InstId, LaneAccesses, Observer};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Without observers, a load or store whose lanes all point into one allocation resolves
/// that allocation once. Returns false, having changed nothing another try would not redo
/// identically, when it cannot (mixed allocations, a lane out of bounds: the per-lane path
/// then reports the fault).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one flat call for the hottest op
fn load_fast<O: Observer>(
    lx: &LaunchRun<'_, O>,
    gx: &RunningGroup<O>,
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
    lx: &LaunchRun<'_, O>,
    gx: &mut RunningGroup<O>,
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

/// The one global or local allocation every lane of a lockstep op accesses in bounds: what
/// [`observed`] needs to run the op for all lanes at once.
struct Target {
    tag: u64,
    idx: usize,
    space: AddressSpace,
    alloc: AllocId,
    view_off: u64,
    /// The lanes' lowest and highest pointers (their offsets' order: one allocation).
    lo: u64,
    hi: u64,
}

/// The [`Target`] of the lanes of `sel` accessing `w` bytes from their pointer (register
/// `p`); `None` when there is none (mixed allocations, a lane out of bounds, a copy in
/// progress, no observer).
fn target<O: Observer>(cx: &LaneView<'_, '_, O>, sel: Sel<'_>, p: u32, w: usize) -> Option<Target> {
    if !observable(cx) {
        return None;
    }
    let lanes = sel.ordered(cx.order).as_slice();
    let p0 = cx.get(p, *lanes.first()?);
    let (mut lo, mut hi) = (p0, p0);
    for &l in lanes {
        let x = cx.get(p, l);
        (lo, hi) = (lo.min(x), hi.max(x));
    }
    target_between(cx, lo, hi, w)
}

/// Whether an op may run as one for its lanes ([`observed`]): an observer follows, and the
/// group's async copy is not running.
#[inline(always)]
fn observable<O: Observer>(cx: &LaneView<'_, '_, O>) -> bool {
    O::ENABLED && !cx.gx.by_group && !cx.gx.copying
}

/// The [`Target`] of lanes whose lowest and highest pointers are `lo` and `hi`, each
/// accessing `w` bytes.
fn target_between<O: Observer>(
    cx: &LaneView<'_, '_, O>,
    lo: u64,
    hi: u64,
    w: usize,
) -> Option<Target> {
    // One allocation (pointer tag and index) for every lane.
    if (lo ^ hi) >> ptr::OFF_BITS != 0 {
        return None;
    }
    let (tag, idx, _) = ptr::dec(lo);
    let (space, alloc, len, view_off) = match tag {
        ptr::TAG_LOCAL => {
            let m = cx.gx.locals.get(idx)?;
            (
                AddressSpace::Local,
                AllocId::local(idx as u32),
                m.len() as u64,
                0,
            )
        }
        ptr::TAG_LAUNCH => {
            let a = cx.lx.allocs.get(idx)?.as_ref()?;
            (a.space, a.buf.id(), a.view_size, a.view_off)
        }
        _ => return None,
    };
    let ok = |x: u64| in_range(offset_of(x), w, len);
    (ok(lo) && ok(hi)).then_some(Target {
        tag,
        idx,
        space,
        alloc,
        view_off,
        lo,
        hi,
    })
}

/// The signed offset a pointer holds.
#[inline(always)]
fn offset_of(x: u64) -> i64 {
    (x & ((1u64 << ptr::OFF_BITS) - 1)) as i64 - ptr::BIAS as i64
}

/// With an observer, a load or store whose lanes all access one allocation in bounds (`t`,
/// from [`target`]) runs for every lane, then tells the observer once
/// ([`Observer::access_lanes`]), so that it looks up what the lanes share once. Each lane
/// accesses `w` bytes at its pointer (register `p`) plus `delta`; the value goes to or comes
/// from register `dv`.
#[allow(clippy::too_many_arguments)] // the op's operands, as `load_fast` takes them
fn observed<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    t: &Target,
    here: usize,
    sel: Sel<'_>,
    w: usize,
    p: u32,
    delta: u64,
    dv: u32,
    kind: AccessKind,
) {
    let lanes = sel.ordered(cx.order).as_slice();
    let mut buf = scratch(cx);
    let offsets = &mut buf[..cx.n];
    let offset = |x: u64| t.view_off + (offset_of(x) as u64).wrapping_add(delta);
    let mut bits = 0;
    for &l in lanes {
        offsets[l] = offset(cx.get(p, l));
        bits |= offsets[l];
    }
    // The span from the target's extremes: no pass of the observer's over the lanes.
    let span = ((offset(t.lo), offset(t.hi) + w as u64), bits);
    cx.gx.component = (delta / w as u64) as u8;
    run_observed(cx, t, here, sel, w, dv, kind, buf, span);
    cx.gx.component = 0;
}

/// [`target`] and [`observed`] of a load or store in one pass over the lanes (their
/// extremes, offsets and the offsets' or taken together). False, having changed nothing,
/// when the lanes have no target.
#[allow(clippy::too_many_arguments)] // as `observed`
fn observed_op<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    here: usize,
    sel: Sel<'_>,
    w: usize,
    p: u32,
    dv: u32,
    kind: AccessKind,
) -> bool {
    let lanes = sel.ordered(cx.order).as_slice();
    let Some(&first) = lanes.first().filter(|_| observable(cx)) else {
        return false;
    };
    let mut buf = scratch(cx);
    let offsets = &mut buf[..cx.n];
    // The pointer's register of every lane, looked up once.
    let ptrs = &cx.regs[(cx.base + p as usize) * cx.n..][..cx.n];
    let p0 = ptrs[first];
    let (mut lo, mut hi, mut bits) = (p0, p0, 0);
    for &l in lanes {
        let x = ptrs[l];
        (lo, hi) = (lo.min(x), hi.max(x));
        offsets[l] = offset_of(x) as u64;
        bits |= offsets[l];
    }
    let Some(t) = target_between(cx, lo, hi, w) else {
        *cx.scratch = buf;
        return false;
    };
    if t.view_off != 0 {
        // A sub-buffer's offsets count from its parent's start.
        bits = 0;
        for &l in lanes {
            offsets[l] += t.view_off;
            bits |= offsets[l];
        }
    }
    let offset = |x: u64| t.view_off + offset_of(x) as u64;
    let span = ((offset(lo), offset(hi) + w as u64), bits);
    run_observed(cx, &t, here, sel, w, dv, kind, buf, span);
    true
}

/// The scratch of three `u64` per lane (offsets, values, previous values) that
/// [`run_observed`] hands the observer, taken from `cx` (and given back by it). Not
/// cleared: the observer reads only the lanes that access, whose entries are all written
/// (zeroing the three arrays per operation was 3% of a checked vadd).
fn scratch<O: Observer>(cx: &mut LaneView<'_, '_, O>) -> Vec<u64> {
    let mut buf = std::mem::take(cx.scratch);
    if buf.len() < 3 * cx.n {
        buf.resize(3 * cx.n, 0);
    }
    buf
}

/// The rest of [`observed`]: the lanes' offsets are in `buf` (see [`scratch`]), `span` as
/// [`LaneAccesses::span`] says.
#[allow(clippy::too_many_arguments)] // as `observed`
fn run_observed<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    t: &Target,
    here: usize,
    sel: Sel<'_>,
    w: usize,
    dv: u32,
    kind: AccessKind,
    mut buf: Vec<u64>,
    span: ((u64, u64), u64),
) {
    let lanes = sel.ordered(cx.order).as_slice();
    let (tag, idx) = (t.tag, t.idx);
    let n = cx.n;
    let (offsets, rest) = buf[..3 * n].split_at_mut(n);
    let (values, previous) = rest.split_at_mut(n);
    let want_previous = cx.lx.previous;
    // Held until the observer has the stores (as `ItemMemory::store` holds its one lock).
    let mut _order = Vec::new();
    match (tag, kind) {
        (ptr::TAG_LOCAL, AccessKind::Read) => {
            let m = &cx.gx.locals[idx];
            let dst = &mut cx.regs[(cx.base + dv as usize) * n..][..n];
            // The usual width outside the loop: `rd`'s match folds away inside it.
            match w {
                4 => lanes
                    .iter()
                    .for_each(|&l| dst[l] = rd(m, offsets[l] as usize, 4)),
                w => lanes
                    .iter()
                    .for_each(|&l| dst[l] = rd(m, offsets[l] as usize, w)),
            }
        }
        (ptr::TAG_LOCAL, _) => {
            let m = &mut cx.gx.locals[idx];
            let src = &cx.regs[(cx.base + dv as usize) * n..][..n];
            let mut each = |w: usize| {
                for &l in lanes {
                    let (o, v) = (offsets[l] as usize, src[l]);
                    previous[l] = if want_previous { rd(m, o, w) } else { 0 };
                    values[l] = v;
                    wr(m, o, w, v);
                }
            };
            match w {
                4 => each(4),
                w => each(w),
            }
        }
        (_, AccessKind::Read) => {
            let Some(Some(a)) = cx.lx.allocs.get(idx) else {
                *cx.scratch = buf;
                return;
            };
            let dst = (cx.base + dv as usize) * n;
            if let Some((lo, words)) = word_span(&a.buf, w, span) {
                for &l in lanes {
                    let v = words[((offsets[l] - lo) / 4) as usize].load(Relaxed);
                    cx.regs[dst + l] = v as u64;
                }
            } else {
                for &l in lanes {
                    cx.regs[dst + l] = a.buf.load(offsets[l] as usize, w).unwrap_or(0);
                }
            }
        }
        (_, _) => {
            let Some(Some(a)) = cx.lx.allocs.get(idx) else {
                *cx.scratch = buf;
                return;
            };
            if want_previous {
                _order = store_order_locks(t.alloc, lanes.iter().map(|&l| offsets[l]), span.0);
            }
            let src = (cx.base + dv as usize) * n;
            if let Some((lo, words)) = word_span(&a.buf, w, span) {
                for &l in lanes {
                    let (word, v) = (&words[((offsets[l] - lo) / 4) as usize], cx.regs[src + l]);
                    previous[l] = if want_previous {
                        word.load(Relaxed) as u64
                    } else {
                        0
                    };
                    values[l] = v;
                    word.store(v as u32, Relaxed);
                }
            } else {
                for &l in lanes {
                    let (o, v) = (offsets[l] as usize, cx.regs[src + l]);
                    previous[l] = if want_previous {
                        a.buf.load(o, w).unwrap_or(0)
                    } else {
                        0
                    };
                    values[l] = v;
                    a.buf.store(o, w, v);
                }
            }
        }
    }
    cx.lx.obs.access_lanes(
        &mut cx.gx.obs,
        &LaneAccesses {
            space: t.space,
            alloc: t.alloc,
            size: w as u32,
            kind,
            inst: InstId(cx.lx.code.inst_of[here]),
            items: cx.wis,
            order: lanes,
            offsets,
            values,
            previous,
            component: cx.gx.component,
            known_span: Some(span),
        },
    );
    drop(_order);
    *cx.scratch = buf;
}

/// The buffer's words over `span` (as [`LaneAccesses::span`] says it: the lanes' bytes, and
/// their offsets or'ed together), with the span's start, when every lane accesses one aligned
/// word of it: the lanes then index their words with no range test each.
#[inline(always)]
fn word_span(
    buf: &crate::memory::Buffer,
    w: usize,
    ((lo, hi), bits): ((u64, u64), u64),
) -> Option<(u64, &[AtomicU32])> {
    if w != 4 || bits % 4 != 0 || hi < lo {
        return None;
    }
    let count = usize::try_from((hi - lo) / 4).ok()?;
    Some((lo, buf.atomic_u32s(usize::try_from(lo).ok()?, count)?))
}

/// Lane `l`'s load of `w` bytes at `p`: private memory inline (each lane's own), the rest
/// and any fault or undefined private read through
/// [`ItemMemory::load`](super::super::access::ItemMemory).
#[inline(always)]
fn lane_load<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    l: usize,
    p: u64,
    w: usize,
    here: usize,
) -> u64 {
    let defined_only = O::ENABLED && cx.lx.definedness;
    match cx.items[l].mem.try_load(p, w, defined_only) {
        Some(v) => v,
        None => cx.mx(l).load(p, w, here),
    }
}

/// Lane `l`'s store (as [`lane_load`]).
#[inline(always)]
fn lane_store<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    l: usize,
    p: u64,
    w: usize,
    v: u64,
    here: usize,
) {
    let definedness = O::ENABLED && cx.lx.definedness;
    if !cx.items[l].mem.try_store(p, w, v, definedness) {
        cx.mx(l).store(p, w, v, here);
    }
}

/// Whether the first lane of `sel` points at private memory (register `p`): the lanes then
/// skip the whole-operation paths, which serve global and local memory.
#[inline(always)]
fn private<O: Observer>(cx: &LaneView<'_, '_, O>, sel: Sel<'_>, p: u32) -> bool {
    let first = match sel {
        Sel::All => 0,
        Sel::Some(l) => l.first().copied().unwrap_or(0),
    };
    cx.n > 0 && ptr::dec(cx.get(p, first)).0 == ptr::TAG_PRIVATE
}

/// Runs a load, store or atomic op at `here` for the lanes of `sel`.
#[inline(always)]
pub(super) fn access<O: Observer>(cx: &mut LaneView<'_, '_, O>, here: usize, sel: Sel<'_>, op: Op) {
    let order = cx.order;
    match op {
        Op::Load { w, d, p } => {
            let (di, pi, n) = (cx.at(d, 0), cx.at(p, 0), cx.n);
            if !private(cx, sel, p) {
                if sel.all() && load_fast(cx.lx, cx.gx, cx.regs, n, di, pi, w as usize) {
                    return;
                }
                if observed_op(cx, here, sel, w as usize, p, d, AccessKind::Read) {
                    return;
                }
            }
            for &l in sel.ordered(order) {
                let pv = cx.get(p, l);
                let v = lane_load(cx, l, pv, w as usize, here);
                cx.set(d, l, v);
            }
        }
        Op::LoadN { w, n: k, d, p } => {
            // Component by component for all lanes: reads leave memory as it was, so only
            // the observer sees another order, and reads of one byte do not conflict.
            // (`target` refuses private memory too, after a pass over the lanes.)
            let t = if private(cx, sel, p) {
                None
            } else {
                target(cx, sel, p, w as usize * k as usize)
            };
            if let Some(t) = t {
                for i in 0..k {
                    let delta = i as u64 * w as u64;
                    observed(
                        cx,
                        &t,
                        here,
                        sel,
                        w as usize,
                        p,
                        delta,
                        d + i,
                        AccessKind::Read,
                    );
                }
                return;
            }
            for &l in sel.ordered(order) {
                let pv = cx.get(p, l);
                for i in 0..k {
                    cx.gx.component = i as u8;
                    let v = lane_load(
                        cx,
                        l,
                        pv.wrapping_add(i as u64 * w as u64),
                        w as usize,
                        here,
                    );
                    cx.set(d + i, l, v);
                }
            }
            cx.gx.component = 0;
        }
        Op::Store { w, p, v } => {
            let (pi, vi, n) = (cx.at(p, 0), cx.at(v, 0), cx.n);
            if !private(cx, sel, p) {
                if sel.all() && store_fast(cx.lx, cx.gx, cx.regs, n, pi, vi, w as usize, order) {
                    return;
                }
                if observed_op(cx, here, sel, w as usize, p, v, AccessKind::Write) {
                    return;
                }
            }
            for &l in sel.ordered(order) {
                let (pv, vv) = (cx.get(p, l), cx.get(v, l));
                lane_store(cx, l, pv, w as usize, vv, here);
            }
        }
        Op::StoreN { w, n: k, p, v } => {
            for &l in sel.ordered(order) {
                let pv = cx.get(p, l);
                for i in 0..k {
                    let vv = cx.get(v + i, l);
                    cx.gx.component = i as u8;
                    lane_store(
                        cx,
                        l,
                        pv.wrapping_add(i as u64 * w as u64),
                        w as usize,
                        vv,
                        here,
                    );
                }
            }
            cx.gx.component = 0;
        }
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
            let sync = O::ENABLED && cx.lx.sync;
            for &l in sel.ordered(order) {
                let (pv, vv, cv) = (cx.get(p, l), cx.get(v, l), cx.get(c, l));
                let s = sync.then(|| SyncOperands {
                    scope: cx.get(scope, l),
                    sem: cx.get(sem, l),
                    unequal: cx.get(unequal, l),
                });
                let old = cx.mx(l).atomic(op, w, pv, (vv, cv), s, here);
                if op != AtomicOp::Store {
                    cx.set(d, l, old);
                }
            }
        }
        _ => unreachable!("not a lockstep memory op: {op:?}"),
    }
}
