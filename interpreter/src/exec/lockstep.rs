//! Lockstep execution of a work-group: the round-robin schedule with a quantum of one
//! instruction (DESIGN.md, "Execution model"), run one lowered op at a time for every
//! work-item of the group while they all share a program counter.
//!
//! Registers are laid out slot-major (`regs[slot * n + lane]`), so one dispatch serves the
//! whole group and pure ops are plain loops over contiguous lanes. Ops with effects (memory,
//! atomics, barriers, printf) visit the lanes in the schedule's work-item order, which is what
//! round-robin with quantum 1 does. When the lanes disagree at a branch, or reach an op this
//! path does not run (calls, private allocations, async copies, traps), the group's registers
//! are scattered into the per-work-item register files and the ordinary per-item executor
//! takes over from that op; the group comes back to lockstep when a barrier releases every
//! work-item at one program counter.

use std::sync::atomic::Ordering;

use super::access::{in_range, rd, wr, Mx};
use super::ext::ext_inst;
use super::group::Rng;
use super::launch::Lx;
use super::state::{Frame, Gx, Item, Priv};
use crate::alu::{self, mask, sext};
use crate::ir::{fences_of_flags, ptr, AtomicOp, ExtKind, Op, NO_SLOT};
use crate::observer::{BarrierArrival, InstId, Observer, Release, WorkItem};
use crate::schedule::Order;

/// Why a lockstep turn ended.
pub(super) enum LsStop {
    /// Every work-item returned from the kernel.
    Done,
    /// Continue per work-item from [`Pos::pc`] (that op has not run for any lane).
    Scatter,
    /// Another work-group aborted the launch.
    Stopped,
    Abort(String),
}

/// Where the group stands in lockstep: one program counter and call stack for every lane.
/// `frames[..].mark` stays (0, 0): lockstep never has private allocations.
pub(super) struct Pos {
    /// Every lane's op, unless `lanes` is set.
    pub pc: usize,
    /// After a divergent branch: each lane's op and state (`RUN`, `WAIT`, `DONE`).
    pub lanes: Vec<(usize, u8)>,
    pub base: usize,
    pub func: u32,
    pub frames: Vec<Frame>,
}

/// Sets up the group's lockstep registers: constants and parameters in every lane.
pub(super) fn init_regs(lx: &Lx<'_, impl Observer>, regs: &mut Vec<u64>, n: usize) {
    let func = &lx.code.funcs[lx.kc.func as usize];
    let need = func.frame as usize * n;
    if regs.len() < need {
        regs.resize(need, 0);
    }
    let cb = func.const_base as usize;
    for (i, &c) in func.consts.iter().enumerate() {
        regs[(cb + i) * n..(cb + i + 1) * n].fill(c);
    }
    for &(slot, v) in &lx.param_init {
        let s = slot as usize;
        regs[s * n..(s + 1) * n].fill(v);
    }
}

/// Hands the group over to the per-item executor at `at` (the op has not run yet).
pub(super) fn scatter(lx: &Lx<'_, impl Observer>, regs: &[u64], items: &mut [Item], at: &Pos) {
    let n = items.len();
    let used = at.base + lx.code.funcs[at.func as usize].frame as usize;
    for it in items.iter_mut() {
        if it.regs.len() < used {
            it.regs.resize(used, 0);
        }
    }
    // Slot-outer, so the lockstep side is walked contiguously (lane-outer strides by n * 8
    // bytes, a power of two that maps every slot to the same few cache sets), through a
    // table of the items' register slices (walking the Items themselves misses the cache).
    let mut cols: Vec<&mut [u64]> = items.iter_mut().map(|it| &mut it.regs[..used]).collect();
    for s in 0..used {
        for (c, &r) in cols.iter_mut().zip(&regs[s * n..s * n + n]) {
            c[s] = r;
        }
    }
    for (l, it) in items.iter_mut().enumerate() {
        let st = &mut it.st;
        let (pc, state) = at.lanes.get(l).copied().unwrap_or((at.pc, RUN));
        st.pc = pc as u32;
        st.waiting = state == WAIT;
        st.done = state == DONE;
        st.base = at.base as u32;
        st.func = at.func;
        st.frames.clear();
        st.frames.extend(at.frames.iter().map(|f| Frame { ..*f }));
    }
}

/// Whether the per-item executor left the group where lockstep can resume: every work-item
/// at the same op with the same call stack, none finished, no private allocations.
pub(super) fn can_gather(items: &[Item]) -> Option<Pos> {
    let s0 = &items.first()?.st;
    let same = |a: &Frame, b: &Frame| {
        (a.pc, a.base, a.func, a.ret_d, a.ret_n) == (b.pc, b.base, b.func, b.ret_d, b.ret_n)
    };
    items
        .iter()
        .all(|it| {
            let st = &it.st;
            !st.done
                && (st.pc, st.base, st.func) == (s0.pc, s0.base, s0.func)
                && st.frames.len() == s0.frames.len()
                && st.frames.iter().zip(&s0.frames).all(|(a, b)| same(a, b))
                && it.mem.allocs.is_empty()
        })
        .then(|| Pos {
            pc: s0.pc as usize,
            base: s0.base as usize,
            func: s0.func,
            frames: s0.frames.iter().map(|f| Frame { ..*f }).collect(),
            lanes: vec![],
        })
}

/// The inverse of [`scatter`].
pub(super) fn gather(lx: &Lx<'_, impl Observer>, regs: &mut Vec<u64>, items: &[Item], at: &Pos) {
    let n = items.len();
    let used = at.base + lx.code.funcs[at.func as usize].frame as usize;
    if regs.len() < used * n {
        regs.resize(used * n, 0);
    }
    let cols: Vec<&[u64]> = items.iter().map(|it| &it.regs[..used]).collect();
    for s in 0..used {
        for (r, c) in regs[s * n..s * n + n].iter_mut().zip(&cols) {
            *r = c[s];
        }
    }
}

/// `d[l] = f(a[l], b[l])` for every lane.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // flat, always inlined
fn bin(
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
fn un(
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

fn f32b(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

/// Which lanes an op runs for.
#[derive(Clone, Copy)]
enum Sel<'s> {
    /// Every lane of the group.
    All,
    /// These lanes, in the schedule's work-item order.
    Some(&'s [usize]),
}

/// Lanes of a [`Sel`] in lane order (for ops without effects, where order does not matter).
enum LaneIter<'s> {
    Range(std::ops::Range<usize>),
    List(std::slice::Iter<'s, usize>),
}

impl Iterator for LaneIter<'_> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        match self {
            LaneIter::Range(r) => r.next(),
            LaneIter::List(l) => l.next().copied(),
        }
    }
}

impl<'s> Sel<'s> {
    fn all(self) -> bool {
        matches!(self, Sel::All)
    }
    #[inline(always)]
    fn lanes(self, n: usize) -> LaneIter<'s> {
        match self {
            Sel::All => LaneIter::Range(0..n),
            Sel::Some(l) => LaneIter::List(l.iter()),
        }
    }
    /// The lanes in the schedule's order (`order` holds every lane).
    #[inline(always)]
    fn ordered<'o>(self, order: &'o [usize]) -> std::slice::Iter<'o, usize>
    where
        's: 'o,
    {
        match self {
            Sel::All => order.iter(),
            Sel::Some(l) => l.iter(),
        }
    }
}

/// Where the lanes an op ran for go next.
enum Flow {
    Next,
    Jump(usize),
    /// Lanes whose condition (register row starting at `c`) is true go to `t`, others to `f`.
    Split {
        c: usize,
        t: usize,
        f: usize,
    },
    /// Each lane goes where `Code::switches[tab]` sends its value (row `s`, masked by `m`).
    SwitchSplit {
        s: usize,
        m: u64,
        tab: u32,
    },
    /// The lanes wait at a barrier (arrivals already reported).
    Barrier,
    /// The lanes returned from the kernel (already reported).
    Exit,
    /// The op needs the per-item executor; it has not run.
    Scatter,
    Abort(String),
}

/// A lane's state while the group is diverged.
const RUN: u8 = 0;
const WAIT: u8 = 1;
const DONE: u8 = 2;

/// The group's state, shared by [`run`] and [`exec`].
struct Ls<'r, 'l, 'a, O: Observer> {
    lx: &'l Lx<'a, O>,
    gx: &'r mut Gx<O>,
    wis: &'r [WorkItem],
    order: &'r mut [usize],
    regs_vec: &'r mut Vec<u64>,
    pos: &'r mut Pos,
    /// Private memory stays empty in lockstep (allocations hand over to the per-item path).
    nomem: Priv,
    scratch: Vec<u64>,
}

/// Whether an op's effects are visible to other lanes or to observers (so lanes at different
/// ops in one round must take their turns in the schedule's order).
fn effectful(op: Option<&Op>) -> bool {
    !matches!(
        op,
        Some(
            Op::Mov { .. }
                | Op::Bin { .. }
                | Op::Add32 { .. }
                | Op::Add64 { .. }
                | Op::Sub32 { .. }
                | Op::Sub64 { .. }
                | Op::Mul32 { .. }
                | Op::Mul64 { .. }
                | Op::SLt32 { .. }
                | Op::ULt32 { .. }
                | Op::SLt64 { .. }
                | Op::ULt64 { .. }
                | Op::Eq32 { .. }
                | Op::FAdd32 { .. }
                | Op::FMul32 { .. }
                | Op::FSub32 { .. }
                | Op::Eq64 { .. }
                | Op::Ne32 { .. }
                | Op::Ne64 { .. }
                | Op::Shr32 { .. }
                | Op::Shr64 { .. }
                | Op::Shl32 { .. }
                | Op::Shl64 { .. }
                | Op::And { .. }
                | Op::Or { .. }
                | Op::BinV { .. }
                | Op::Un { .. }
                | Op::Select { .. }
                | Op::IConv { .. }
                | Op::Conv { .. }
                | Op::Mask { .. }
                | Op::Gep { .. }
                | Op::Gep1 { .. }
                | Op::GepN { .. }
                | Op::LoadBuiltin { .. }
                | Op::Fma { .. }
                | Op::FMinMax { .. }
                | Op::FUn { .. }
                | Op::Br { .. }
                | Op::BrIf { .. }
                | Op::Switch { .. }
        )
    )
}

/// Checks the watchdog and whether another group aborted (at control transfers).
fn watchdog<O: Observer>(lx: &Lx<'_, O>, executed: &mut u64) -> Option<LsStop> {
    if lx.abort.load(Ordering::Relaxed) {
        return Some(LsStop::Stopped);
    }
    // An instruction limit is exact; a time limit alone is checked in slices (the shared
    // counter is not touched at every control transfer).
    if !lx.watched() || (lx.limit.is_none() && *executed < 1 << 12) {
        return None;
    }
    lx.watchdog(executed).map(LsStop::Abort)
}

/// Runs the group from `at` until every item has returned, or an op needs the per-item
/// executor. While all lanes share a program counter each op runs once for the whole group;
/// after a divergent branch the group runs in rounds, each lane one op per round (the
/// round-robin turns of quantum 1): lanes at the same op run it together, and when lanes at
/// different ops with effects share a round, they take their turns one by one in order.
/// `wis` gives each lane's identity; `order` is the schedule's work-item order
/// (reshuffled at barrier releases for random order).
#[allow(clippy::too_many_arguments)] // the group's whole state, passed flat
pub(super) fn run<O: Observer>(
    lx: &Lx<'_, O>,
    gx: &mut Gx<O>,
    wis: &[WorkItem],
    order: &mut [usize],
    rng: &mut Rng,
    regs_vec: &mut Vec<u64>,
    at: &mut Pos,
    executed: &mut u64,
) -> LsStop {
    let n = wis.len();
    let mut pc = at.pc;
    let mut ls = Ls {
        lx,
        gx,
        wis,
        order,
        regs_vec,
        pos: at,
        nomem: Priv::default(),
        scratch: vec![],
    };
    let mut lpc: Vec<usize> = vec![];
    let mut state: Vec<u8> = vec![];
    let mut groups: Vec<(usize, Vec<usize>)> = vec![];
    let mut turn: Vec<usize> = vec![];
    // Releases a barrier all lanes (or all not finished) wait at.
    macro_rules! release {
        ($why:expr) => {{
            if O::ENABLED {
                lx.obs.barrier_release(&mut ls.gx.obs, $why);
            }
            if lx.wi_order == Order::Random {
                rng.shuffle(ls.order);
            }
            if let Some(s) = watchdog(lx, executed) {
                return s;
            }
        }};
    }
    // Moves the lanes an op ran for to where its flow sends them.
    macro_rules! apply {
        ($flow:expr, $here:expr, $lanes:expr) => {{
            let (flow, here, lanes): (Flow, usize, &[usize]) = ($flow, $here, $lanes);
            match flow {
                Flow::Next => lanes.iter().for_each(|&l| lpc[l] = here + 1),
                Flow::Jump(t) => {
                    lanes.iter().for_each(|&l| lpc[l] = t);
                    if let Some(s) = watchdog(lx, executed) {
                        return s;
                    }
                }
                Flow::Split { .. } | Flow::SwitchSplit { .. } => {
                    follow(&ls, flow, here, lanes, &mut lpc)
                }
                Flow::Barrier => lanes.iter().for_each(|&l| {
                    lpc[l] = here + 1;
                    state[l] = WAIT;
                }),
                Flow::Exit => lanes.iter().for_each(|&l| state[l] = DONE),
                Flow::Scatter => {
                    *executed -= lanes.len() as u64;
                    lanes.iter().for_each(|&l| lpc[l] = here);
                    let pos = &mut *ls.pos;
                    pos.pc = here;
                    pos.lanes = lpc.iter().zip(&state).map(|(&p, &s)| (p, s)).collect();
                    return LsStop::Scatter;
                }
                Flow::Abort(m) => return LsStop::Abort(m),
            }
        }};
    }
    'converged: loop {
        // Every lane at `pc`.
        loop {
            let flow = exec(&mut ls, pc, Sel::All, true);
            *executed += n as u64;
            match flow {
                Flow::Next => pc += 1,
                Flow::Jump(t) => {
                    pc = t;
                    if let Some(s) = watchdog(lx, executed) {
                        return s;
                    }
                }
                Flow::Barrier => {
                    pc += 1;
                    release!(Release::AllArrived);
                }
                Flow::Exit => return LsStop::Done,
                Flow::Scatter => {
                    *executed -= n as u64;
                    ls.pos.pc = pc;
                    return LsStop::Scatter;
                }
                Flow::Abort(m) => return LsStop::Abort(m),
                Flow::Split { .. } | Flow::SwitchSplit { .. } => {
                    lpc.clear();
                    lpc.resize(n, pc);
                    state.clear();
                    state.resize(n, RUN);
                    let all: Vec<usize> = (0..n).collect();
                    follow(&ls, flow, pc, &all, &mut lpc);
                    break;
                }
            }
        }
        // Diverged: rounds of one op per running lane.
        loop {
            let mut ng = 0;
            for &l in ls.order.iter() {
                if state[l] != RUN {
                    continue;
                }
                if let Some(g) = groups[..ng].iter_mut().find(|g| g.0 == lpc[l]) {
                    g.1.push(l);
                    continue;
                }
                if ng == groups.len() {
                    groups.push((0, vec![]));
                }
                groups[ng].0 = lpc[l];
                groups[ng].1.clear();
                groups[ng].1.push(l);
                ng += 1;
            }
            if ng == 0 {
                // Every lane waits at a barrier or has finished.
                let done = state.iter().filter(|s| **s == DONE).count();
                if done == n {
                    return LsStop::Done;
                }
                release!(if done > 0 {
                    Release::SomeFinished
                } else {
                    Release::AllArrived
                });
                for s in state.iter_mut() {
                    if *s == WAIT {
                        *s = RUN;
                    }
                }
                if done == 0 && lpc.iter().all(|p| *p == lpc[0]) {
                    pc = lpc[0];
                    continue 'converged;
                }
                continue;
            }
            if ng == 1 && groups[0].1.len() == n {
                pc = groups[0].0;
                continue 'converged;
            }
            if ng == 1 {
                // The only lanes running: their rounds need no regrouping until they split,
                // wait or finish.
                let (mut here, lanes) = (groups[0].0, &groups[0].1[..]);
                loop {
                    let flow = exec(&mut ls, here, Sel::Some(lanes), false);
                    *executed += lanes.len() as u64;
                    match flow {
                        Flow::Next => here += 1,
                        Flow::Jump(t) => {
                            here = t;
                            if let Some(s) = watchdog(lx, executed) {
                                return s;
                            }
                        }
                        flow => {
                            apply!(flow, here, lanes);
                            break;
                        }
                    }
                }
                continue;
            }
            let effects = groups[..ng]
                .iter()
                .filter(|g| effectful(lx.code.ops.get(g.0)))
                .count();
            turn.clear();
            if effects >= 2 {
                // One lane at a time, in order: the exact round-robin interleaving.
                turn.extend(ls.order.iter().copied().filter(|l| state[*l] == RUN));
            }
            let singles = turn.len();
            for k in 0..singles.max(ng) {
                let (here, lanes): (usize, &[usize]) = if singles > 0 {
                    (lpc[turn[k]], std::slice::from_ref(&turn[k]))
                } else {
                    (groups[k].0, &groups[k].1)
                };
                let flow = exec(&mut ls, here, Sel::Some(lanes), false);
                *executed += lanes.len() as u64;
                apply!(flow, here, lanes);
            }
        }
    }
}

/// Sends each lane of a divergent branch to its target.
fn follow<O: Observer>(
    ls: &Ls<'_, '_, '_, O>,
    flow: Flow,
    here: usize,
    lanes: &[usize],
    lpc: &mut [usize],
) {
    let regs = &ls.regs_vec[..];
    match flow {
        Flow::Split { c, t, f } => {
            for &l in lanes {
                lpc[l] = if regs[c + l] & 1 != 0 { t } else { f };
            }
        }
        Flow::SwitchSplit { s, m, tab } => {
            let t = &ls.lx.code.switches[tab as usize];
            for &l in lanes {
                let v = regs[s + l] & m;
                lpc[l] = t.cases.iter().find(|c| c.0 == v).map_or(t.default, |c| c.1) as usize;
            }
        }
        _ => lanes.iter().for_each(|&l| lpc[l] = here + 1),
    }
}

/// Runs the op at `here` for the lanes of `sel`, in the schedule's order where it matters.
/// `converged`: every lane of the group is at `here` (calls and returns need that).
fn exec<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    here: usize,
    sel: Sel<'_>,
    converged: bool,
) -> Flow {
    let Ls {
        lx,
        gx,
        wis,
        order,
        regs_vec,
        pos,
        nomem,
        scratch,
    } = ls;
    let (lx, wis, order): (&Lx<'_, O>, &[WorkItem], &[usize]) = (lx, wis, order);
    let code = lx.code;
    let n = wis.len();
    let (base, func) = (pos.base, pos.func);
    let mut regs: &mut [u64] = &mut regs_vec[..];
    let Some(opr) = code.ops.get(here) else {
        return Flow::Abort(format!("jump outside the program (pc {here})"));
    };
    macro_rules! lane {
        ($s:expr, $l:expr) => {
            regs[(base + $s as usize) * n + $l]
        };
    }
    macro_rules! mx {
        ($l:expr) => {
            Mx {
                lx,
                gx: &mut **gx,
                mem: &mut *nomem,
                wi: &wis[$l],
            }
        };
    }
    match *opr {
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
                    lane!(d + i, l) = if lane!(cs, l) & 1 != 0 {
                        lane!(a + i, l)
                    } else {
                        lane!(b + i, l)
                    };
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
        Op::GepN { g, d, p } => {
            let spec = &code.geps[g as usize];
            for l in sel.lanes(n) {
                let mut o = spec.off;
                for t in &spec.terms {
                    o = o.wrapping_add(sext(lane!(t.slot, l), t.w).wrapping_mul(t.scale));
                }
                lane!(d, l) = lane!(p, l).wrapping_add(o as u64);
            }
        }
        Op::Load { w, d, p } => {
            let (di, pi) = ((base + d as usize) * n, (base + p as usize) * n);
            if sel.all() && load_fast(lx, gx, regs, n, di, pi, w as usize) {
                return Flow::Next;
            }
            for &l in sel.ordered(order) {
                let pv = lane!(p, l);
                lane!(d, l) = mx!(l).load(pv, w as usize, here);
            }
        }
        Op::LoadN { w, n: k, d, p } => {
            for &l in sel.ordered(order) {
                let pv = lane!(p, l);
                for i in 0..k {
                    let v = mx!(l).load(pv.wrapping_add(i as u64 * w as u64), w as usize, here);
                    lane!(d + i, l) = v;
                }
            }
        }
        Op::Store { w, p, v } => {
            let (pi, vi) = ((base + p as usize) * n, (base + v as usize) * n);
            if sel.all() && store_fast(lx, gx, regs, n, pi, vi, w as usize, order) {
                return Flow::Next;
            }
            for &l in sel.ordered(order) {
                let (pv, vv) = (lane!(p, l), lane!(v, l));
                mx!(l).store(pv, w as usize, vv, here);
            }
        }
        Op::StoreN { w, n: k, p, v } => {
            for &l in sel.ordered(order) {
                let pv = lane!(p, l);
                for i in 0..k {
                    let vv = lane!(v + i, l);
                    mx!(l).store(pv.wrapping_add(i as u64 * w as u64), w as usize, vv, here);
                }
            }
        }
        Op::LoadBuiltin { b, comp, d } => {
            let comps = if comp == u8::MAX {
                0..b.lanes()
            } else {
                comp as u32..comp as u32 + 1
            };
            for (k, c) in comps.enumerate() {
                for l in sel.lanes(n) {
                    lane!(d + k as u32, l) = lx.builtin(gx, &wis[l], b, c as usize);
                }
            }
        }
        Op::Fma {
            fused,
            w,
            n: k,
            d,
            a,
            b,
            c,
        } => {
            for i in 0..k as u32 {
                for l in sel.lanes(n) {
                    let (x, y, z) = (lane!(a + i, l), lane!(b + i, l), lane!(c + i, l));
                    lane!(d + i, l) = if w == 32 {
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
        Op::Br { t } => return Flow::Jump(t as usize),
        Op::BrIf { c, t, f } => {
            let c0 = (base + c as usize) * n;
            let (mut yes, mut no) = (false, false);
            for l in sel.lanes(n) {
                if regs[c0 + l] & 1 != 0 {
                    yes = true;
                } else {
                    no = true;
                }
            }
            let (t, f) = (t as usize, f as usize);
            return match (yes, no) {
                (true, true) => Flow::Split { c: c0, t, f },
                (true, false) => Flow::Jump(t),
                _ => Flow::Jump(f),
            };
        }
        Op::Switch { w, s, tab } => {
            let m = mask(w);
            let s0 = (base + s as usize) * n;
            let t = &code.switches[tab as usize];
            let target = |v: u64| t.cases.iter().find(|c| c.0 == v).map_or(t.default, |c| c.1);
            let mut lanes = sel.lanes(n);
            let Some(first) = lanes.next() else {
                return Flow::Next;
            };
            let v = regs[s0 + first] & m;
            if lanes.any(|l| regs[s0 + l] & m != v) {
                return Flow::SwitchSplit { s: s0, m, tab };
            }
            return Flow::Jump(target(v) as usize);
        }
        Op::Call { f, d, args } => {
            // Lanes share one call stack, so only a converged group calls.
            if !converged {
                return Flow::Scatter;
            }
            if pos.frames.len() >= 1024 {
                return Flow::Abort("call stack overflow (recursion?)".into());
            }
            let callee = &code.funcs[f as usize];
            let nb = base + code.funcs[func as usize].frame as usize;
            let need = (nb + callee.frame as usize) * n;
            if regs.len() < need {
                regs_vec.resize(need, 0);
                regs = &mut regs_vec[..];
            }
            let cb = nb + callee.const_base as usize;
            for (i, &c) in callee.consts.iter().enumerate() {
                regs[(cb + i) * n..(cb + i + 1) * n].fill(c);
            }
            let ca = &code.calls[args as usize];
            // Slot-major: k consecutive slots of every lane are one contiguous run.
            for &(s, ds, k) in &ca.moves {
                let s = (base + s as usize) * n;
                regs.copy_within(s..s + k as usize * n, (nb + ds as usize) * n);
            }
            pos.frames.push(Frame {
                pc: here as u32 + 1,
                base: base as u32,
                func,
                ret_d: d,
                ret_n: ca.ret_n,
                mark: (0, 0),
            });
            pos.func = f;
            pos.base = nb;
            return Flow::Jump(callee.entry as usize);
        }
        Op::Ret | Op::RetV { .. } => {
            if pos.frames.is_empty() {
                if O::ENABLED {
                    for &l in sel.ordered(order) {
                        lx.obs.item_end(&mut gx.obs, &wis[l]);
                    }
                }
                return Flow::Exit;
            }
            if !converged {
                // Lanes leaving the kernel body for an entry wrapper that only returns
                // (what llvm-spirv emits) are done; other returns need their own stacks.
                let to_exit = match &pos.frames[..] {
                    [fr] => matches!(code.ops.get(fr.pc as usize), Some(Op::Ret)),
                    _ => false,
                };
                if !to_exit {
                    return Flow::Scatter;
                }
                if O::ENABLED {
                    for &l in sel.ordered(order) {
                        lx.obs.item_end(&mut gx.obs, &wis[l]);
                    }
                }
                return Flow::Exit;
            }
            let Some(fr) = pos.frames.pop() else {
                return Flow::Exit;
            };
            if let Op::RetV { s, n: k } = *opr {
                let s = (base + s as usize) * n;
                let k = k.min(fr.ret_n) as usize;
                regs.copy_within(s..s + k * n, (fr.base as usize + fr.ret_d as usize) * n);
            }
            pos.base = fr.base as usize;
            pos.func = fr.func;
            return Flow::Jump(fr.pc as usize);
        }
        Op::Barrier { fences, flags } => {
            if O::ENABLED {
                for &l in sel.ordered(order) {
                    let fences = if flags == NO_SLOT {
                        fences
                    } else {
                        fences_of_flags(lane!(flags, l))
                    };
                    lx.obs.barrier(
                        &mut gx.obs,
                        &BarrierArrival {
                            item: &wis[l],
                            inst: InstId(code.inst_of[here]),
                            fences,
                        },
                    );
                }
            }
            return Flow::Barrier;
        }
        Op::Atomic { op, w, d, p, v, c } => {
            for &l in sel.ordered(order) {
                let (pv, vv, cv) = (lane!(p, l), lane!(v, l), lane!(c, l));
                let old = mx!(l).atomic(op, w, pv, vv, cv, here);
                if op != AtomicOp::Store {
                    lane!(d, l) = old;
                }
            }
        }
        Op::ExtInst { e } => {
            // Each lane runs the per-item code on a scratch frame holding its operands.
            let spec = &code.exts[e as usize];
            let frame = code.funcs[func as usize].frame as usize;
            scratch.resize(frame, 0);
            let mut slots: Vec<(u32, u32)> = spec.args.iter().map(|a| (a.slot, a.n)).collect();
            if let ExtKind::Pure {
                ptr: Some((ps, _, _)),
                ..
            } = spec.kind
            {
                slots.push((ps, 1));
            }
            let mut failed = None;
            for &l in sel.ordered(order) {
                for &(s, k) in &slots {
                    for i in s..s + k {
                        scratch[i as usize] = lane!(i, l);
                    }
                }
                if let Err(m) = ext_inst(&mut mx!(l), scratch, 0, e, here) {
                    failed = Some(m);
                    break;
                }
                for i in spec.d..spec.d + spec.n {
                    lane!(i, l) = scratch[i as usize];
                }
            }
            if let Some(m) = failed {
                return Flow::Abort(m);
            }
        }
        Op::MovN { .. }
        | Op::BinS { .. }
        | Op::Reduce { .. }
        | Op::Bitcast { .. }
        | Op::ExtractDyn { .. }
        | Op::InsertDyn { .. }
        | Op::LoadAgg { .. }
        | Op::StoreAgg { .. }
        | Op::PtrDiff { .. }
        | Op::Alloca { .. }
        | Op::CopyMem { .. }
        | Op::CopyMemDyn { .. }
        | Op::Dot { .. }
        | Op::AsyncCopy { .. }
        | Op::AsyncWait { .. }
        | Op::Trap => return Flow::Scatter,
    }
    Flow::Next
}
