//! Lockstep execution of a work-group: the round-robin schedule with a quantum of one
//! instruction (docs/design.md, "Execution model"), run one lowered op at a time for every
//! work-item of the group while they all share a program counter.
//!
//! Registers are laid out slot-major (`regs[slot * n + lane]`), so one dispatch serves the
//! whole group and pure ops are plain loops over contiguous lanes. Ops with effects (memory,
//! atomics, barriers, printf) visit the lanes in the schedule's work-item order, which is what
//! round-robin with quantum 1 does. When the lanes disagree at a branch, or reach an op this
//! path does not run (calls while apart, private allocations, async copies, traps), the
//! group's registers are scattered into the per-work-item register files and the per-item
//! executor takes over from that op; the group comes back to lockstep when a barrier releases
//! every work-item at one program counter. Rare ops it has no whole-group form of
//! (vector moves, aggregates, memory copies) run lane by lane instead (`builtins::per_lane`).
//!
//! One file per concern: `driver` runs the group (converged, diverged, back together);
//! `handover` moves it to and from the per-item executor; [`exec`] dispatches one op to its
//! family: `lanes` (ops without effects), `memory` (loads, stores, atomics), `control`
//! (branches, calls, returns, barriers), `builtins` (work-item builtins, OpenCL.std).

mod builtins;
mod control;
mod driver;
mod handover;
mod lanes;
mod memory;

pub(super) use driver::run;
pub(super) use handover::{can_gather, gather, init_regs, scatter};

use super::access::ItemMemory;
use super::launch::LaunchRun;
use super::state::{alloca_op, Frame, Item, RunningGroup};
use crate::ir::Op;
use crate::observer::{InstId, Observer, WorkItem};

/// Why a lockstep turn ended.
pub(super) enum LsStop {
    /// Every work-item returned from the kernel.
    Done,
    /// Continue per work-item from [`Pos::pc`] (that op has not run for any lane).
    Scatter,
    /// Another work-group aborted the launch.
    Stopped,
    /// The group ran a slice without progress and steps aside for other groups; lockstep
    /// resumes at [`Pos`] (converged at `pc`, or each lane where `lanes` says).
    Yield,
    Abort(String),
}

/// Where the group stands in lockstep: one program counter and call stack for every lane.
/// [`run`] starts from it converged at `pc`, or diverged when `lanes` is set.
/// Every lane's private memory has the same allocations (lockstep allocates only converged),
/// so `frames[..].mark` holds for all.
pub(super) struct Pos {
    /// Every lane's op, unless `lanes` is set.
    pub pc: usize,
    /// After a divergent branch: each lane's op and state (`RUN`, `WAIT`, `DONE`).
    pub lanes: Vec<(usize, u8)>,
    pub base: usize,
    pub func: u32,
    pub frames: Vec<Frame>,
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
    lx: &'l LaunchRun<'a, O>,
    gx: &'r mut RunningGroup<O>,
    wis: &'r [WorkItem],
    order: &'r mut [usize],
    regs_vec: &'r mut Vec<u64>,
    pos: &'r mut Pos,
    /// The work-items, for their private memory (their registers are the per-item
    /// executor's: lockstep's are `regs_vec`).
    items: &'r mut [Item],
    /// The operations' scratch (see `memory::scratch`), the worker's: kept from group to
    /// group and launch to launch.
    scratch: &'r mut Vec<u64>,
    /// Jumps since a lane last reached a barrier or its end (fair scheduling: see
    /// `driver::at_jump`).
    idle: u64,
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
                | Op::MovN { .. }
                | Op::BinS { .. }
                | Op::Reduce { .. }
                | Op::Bitcast { .. }
                | Op::ExtractDyn { .. }
                | Op::InsertDyn { .. }
                | Op::PtrDiff { .. }
                | Op::Dot { .. }
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

/// One op's view of the group: the current frame's registers, lane by lane, and what the
/// lanes' memory accesses need.
struct LaneView<'c, 'a, O: Observer> {
    lx: &'c LaunchRun<'a, O>,
    gx: &'c mut RunningGroup<O>,
    wis: &'c [WorkItem],
    order: &'c [usize],
    regs: &'c mut [u64],
    items: &'c mut [Item],
    scratch: &'c mut Vec<u64>,
    n: usize,
    base: usize,
    func: u32,
}

impl<'c, 'a, O: Observer> LaneView<'c, 'a, O> {
    #[inline(always)]
    fn of(ls: &'c mut Ls<'_, '_, 'a, O>) -> Self {
        LaneView {
            lx: ls.lx,
            gx: &mut *ls.gx,
            wis: ls.wis,
            order: &*ls.order,
            regs: &mut ls.regs_vec[..],
            items: &mut *ls.items,
            scratch: &mut *ls.scratch,
            n: ls.wis.len(),
            base: ls.pos.base,
            func: ls.pos.func,
        }
    }

    /// Index of frame slot `s` of lane `l` (registers are slot-major).
    #[inline(always)]
    fn at(&self, s: u32, l: usize) -> usize {
        (self.base + s as usize) * self.n + l
    }

    #[inline(always)]
    fn get(&self, s: u32, l: usize) -> u64 {
        self.regs[self.at(s, l)]
    }

    #[inline(always)]
    fn set(&mut self, s: u32, l: usize, v: u64) {
        let i = self.at(s, l);
        self.regs[i] = v;
    }

    /// Lane `l`'s memory accesses.
    #[inline(always)]
    fn mx(&mut self, l: usize) -> ItemMemory<'_, '_, '_, 'a, O> {
        ItemMemory {
            lx: self.lx,
            gx: &mut *self.gx,
            mem: &mut self.items[l].mem,
            wi: &self.wis[l],
        }
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
    let Some(&op) = ls.lx.code.ops.get(here) else {
        return Flow::Abort(format!("jump outside the program (pc {here})"));
    };
    match op {
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
        | Op::Mask { .. }
        | Op::Gep { .. }
        | Op::Gep1 { .. } => {
            let (n, base) = (ls.wis.len(), ls.pos.base);
            lanes::scalar(&mut ls.regs_vec[..], n, sel, base, op);
        }
        Op::BinV { .. }
        | Op::Un { .. }
        | Op::Select { .. }
        | Op::IConv { .. }
        | Op::Conv { .. }
        | Op::GepN { .. } => lanes::vector(&mut LaneView::of(ls), sel, op),
        Op::Fma { .. } | Op::FMinMax { .. } | Op::FUn { .. } => {
            let (n, base) = (ls.wis.len(), ls.pos.base);
            lanes::float(&mut ls.regs_vec[..], n, sel, base, op);
        }
        Op::Load { .. }
        | Op::LoadN { .. }
        | Op::Store { .. }
        | Op::StoreN { .. }
        | Op::Atomic { .. } => memory::access(&mut LaneView::of(ls), here, sel, op),
        Op::LoadBuiltin { b, comp, d } => {
            builtins::load_builtin(&mut LaneView::of(ls), sel, (b, comp, d))
        }
        // Only an observer hears of an index past its array; the lanes that pass one (rare)
        // report it in the schedule's order.
        Op::CheckIndex {
            idx,
            w,
            strict,
            len,
            ..
        } if O::ENABLED => {
            let cx = LaneView::of(ls);
            let past = |v: u64| crate::ir::index_past_array(v, w, len, strict);
            let any = match sel {
                // One branch-free pass over the row (it vectorises).
                Sel::All => {
                    let row = cx.at(idx, 0);
                    cx.regs[row..row + cx.n]
                        .iter()
                        .fold(false, |a, &v| a | past(v))
                }
                Sel::Some(_) => sel.lanes(cx.n).any(|l| past(cx.get(idx, l))),
            };
            if any {
                return builtins::per_lane(&mut LaneView::of(ls), here, sel, &op);
            }
        }
        Op::CheckIndex { .. } => {}
        // A fence changes nothing; an observer that wants it hears of it lane by lane.
        Op::Fence { .. } if O::ENABLED && ls.lx.sync => {
            return builtins::per_lane(&mut LaneView::of(ls), here, sel, &op)
        }
        Op::Fence { .. } => {}
        Op::ExtInst { e } => return builtins::ext(&mut LaneView::of(ls), here, sel, e),
        Op::Br { .. } | Op::BrIf { .. } | Op::Switch { .. } => {
            return control::branch(&LaneView::of(ls), sel, op)
        }
        Op::Call { f, d, args } => return control::call(ls, here, converged, (f, d, args)),
        Op::Ret | Op::RetV { .. } => return control::ret(ls, sel, converged, op),
        Op::Barrier { fences, flags } => {
            return control::barrier(&mut LaneView::of(ls), here, sel, fences, flags)
        }
        // A work-group function waits as a barrier that fences nothing; the driver's
        // release gives it its result (`driver::group_results`).
        Op::Group { .. } => {
            let none = crate::observer::Fences::default();
            return control::barrier(&mut LaneView::of(ls), here, sel, none, crate::ir::NO_SLOT);
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
        | Op::CopyMem { .. }
        | Op::CopyMemDyn { .. }
        | Op::Dot { .. } => return builtins::per_lane(&mut LaneView::of(ls), here, sel, &op),
        // Lanes allocate together, so that their allocations stay alike (see `Pos`).
        Op::Alloca {
            size,
            align,
            d,
            watch,
        } => {
            if !converged {
                return Flow::Scatter;
            }
            let mut cx = LaneView::of(ls);
            let watch = watch && cx.lx.definedness;
            for l in 0..cx.n {
                match alloca_op(&mut cx.items[l].mem, size, align, watch) {
                    Ok(p) => cx.set(d, l, p),
                    Err(m) => return Flow::Abort(m),
                }
            }
        }
        // The group's async copies are the per-item executor's.
        Op::AsyncCopy { .. } | Op::AsyncWait { .. } | Op::Trap => return Flow::Scatter,
    }
    Flow::Next
}

/// The group's unfinished work-items at `at`, each at the op it was about to run (the
/// watchdog names them).
pub(super) fn running<O: Observer>(
    lx: &LaunchRun<'_, O>,
    at: &Pos,
    wis: &[WorkItem],
) -> Vec<(WorkItem, InstId)> {
    let inst = |pc: usize| InstId(lx.code.inst_of.get(pc).copied().unwrap_or(0));
    if at.lanes.is_empty() {
        return wis.iter().map(|w| (*w, inst(at.pc))).collect();
    }
    wis.iter()
        .zip(&at.lanes)
        .filter(|(_, &(_, state))| state != DONE)
        .map(|(w, &(pc, _))| (*w, inst(pc)))
        .collect()
}
