//! Work-item builtins, OpenCL.std instructions and the ops lockstep has no whole-group form
//! of, run for each lane.

use super::super::access::ItemMemory;
use super::super::cold::run_cold;
use super::super::ext::ext_inst;
use super::{Flow, LaneView, Sel};
use crate::ir::{Builtin, Code, ExtKind, Op};
use crate::observer::Observer;

/// `LoadBuiltin`: every component asked for (`comp == u8::MAX`: all of them), each lane's own.
pub(super) fn load_builtin<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    sel: Sel<'_>,
    (b, comp, d): (Builtin, u8, u32),
) {
    let comps = if comp == u8::MAX {
        0..b.lanes()
    } else {
        comp as u32..comp as u32 + 1
    };
    let wis = cx.wis;
    for (k, c) in comps.enumerate() {
        let (d, c) = (d + k as u32, c as usize);
        // The ids of every kernel's first ops read straight from each lane's work-item.
        match b {
            Builtin::GlobalId if c < 3 => {
                sel.lanes(cx.n).for_each(|l| cx.set(d, l, wis[l].global[c]))
            }
            Builtin::LocalId if c < 3 => sel
                .lanes(cx.n)
                .for_each(|l| cx.set(d, l, wis[l].local[c] as u64)),
            _ if b.same_in_group() => {
                let v = cx.lx.builtin(cx.gx, &wis[0], b, c);
                sel.lanes(cx.n).for_each(|l| cx.set(d, l, v));
            }
            _ => {
                for l in sel.lanes(cx.n) {
                    let v = cx.lx.builtin(cx.gx, &wis[l], b, c);
                    cx.set(d, l, v);
                }
            }
        }
    }
}

/// `ExtInst`: each lane runs the per-item code on a scratch frame holding its operands.
pub(super) fn ext<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    here: usize,
    sel: Sel<'_>,
    e: u32,
) -> Flow {
    let spec = &cx.lx.code.exts[e as usize];
    let mut reads: Vec<(u32, u32)> = spec.args.iter().map(|a| (a.slot, a.n)).collect();
    if let ExtKind::Pure {
        ptr: Some((ps, _, _)),
        ..
    } = spec.kind
    {
        reads.push((ps, 1));
    }
    on_scratch(cx, sel, &reads, (spec.d, spec.n), |mx, frame| {
        ext_inst(mx, frame, 0, e, here)
    })
}

/// Runs `run` for each lane of `sel`, in the schedule's order, on a scratch frame holding the
/// lane's registers `reads` (ranges `(slot, lanes)`), then copies the frame's `write` range
/// back into the lane's registers: the per-item executor's code, lane by lane.
fn on_scratch<'a, O: Observer>(
    cx: &mut LaneView<'_, 'a, O>,
    sel: Sel<'_>,
    reads: &[(u32, u32)],
    (d, n): (u32, u32),
    mut run: impl FnMut(&mut ItemMemory<'_, '_, '_, 'a, O>, &mut [u64]) -> Result<(), String>,
) -> Flow {
    let frame = cx.lx.code.funcs[cx.func as usize].frame as usize;
    let mut scratch = std::mem::take(cx.scratch);
    scratch.resize(frame, 0);
    let mut failed = None;
    for &l in sel.ordered(cx.order) {
        for &(s, k) in reads {
            for i in s..s + k {
                scratch[i as usize] = cx.get(i, l);
            }
        }
        if let Err(m) = run(&mut cx.mx(l), &mut scratch) {
            failed = Some(m);
            break;
        }
        for i in d..d + n {
            cx.set(i, l, scratch[i as usize]);
        }
    }
    *cx.scratch = scratch;
    match failed {
        Some(m) => Flow::Abort(m),
        None => Flow::Next,
    }
}

/// Register ranges `(slot, lanes)` an op reads, and the one it writes (`n` 0: none).
struct Operands {
    reads: [(u32, u32); 3],
    write: (u32, u32),
}

/// The operands of the ops lockstep runs lane by lane through the per-item executor's code
/// ([`per_lane`]); `None` for every other op. Their slots are those `Code::verify` checks.
fn operands(op: &Op, code: &Code) -> Option<Operands> {
    let none = (0, 0);
    let (reads, write) = match *op {
        Op::MovN { d, s, n } => ([(s, n), none, none], (d, n)),
        Op::BinS { n, d, a, b, .. } => ([(a, n as u32), (b, 1), none], (d, n as u32)),
        Op::Reduce { n, d, a, .. } => ([(a, n as u32), none, none], (d, 1)),
        Op::Dot { n, d, a, b, .. } => ([(a, n as u32), (b, n as u32), none], (d, 1)),
        Op::PtrDiff { d, a, b, .. } => ([(a, 1), (b, 1), none], (d, 1)),
        Op::CheckIndex { idx, .. } => ([(idx, 1), none, none], none),
        Op::Fence { scope, sem } => ([(scope, 1), (sem, 1), none], none),
        Op::Bitcast { fnl, tn, d, s, .. } => ([(s, fnl as u32), none, none], (d, tn as u32)),
        Op::ExtractDyn {
            n,
            stride,
            d,
            v,
            idx,
            ..
        } => ([(v, n * stride), (idx, 1), none], (d, 1)),
        Op::InsertDyn {
            n,
            stride,
            d,
            v,
            x,
            idx,
        } => {
            let k = n * stride;
            ([(v, k), (x, 1), (idx, 1)], (d, k))
        }
        Op::LoadAgg { l, d, p } => (
            [(p, 1), none, none],
            (d, code.layouts[l as usize].len() as u32),
        ),
        Op::StoreAgg { l, p, v } => (
            [(p, 1), (v, code.layouts[l as usize].len() as u32), none],
            none,
        ),
        Op::CopyMem { d, s, .. } => ([(d, 1), (s, 1), none], none),
        Op::CopyMemDyn { d, s, size, .. } => ([(d, 1), (s, 1), (size, 1)], none),
        _ => return None,
    };
    Some(Operands { reads, write })
}

/// Vector moves and shuffles, aggregates, memory copies and observed fences: lockstep has
/// no whole-group form of them, so each lane runs the per-item executor's code on a scratch
/// frame holding its operands, in the schedule's order (the memory ones are effects),
/// instead of handing the group over (`Flow::Scatter`) for the rest of the phase. Lockstep
/// has no private memory, so none of them can reach it.
pub(super) fn per_lane<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    here: usize,
    sel: Sel<'_>,
    op: &Op,
) -> Flow {
    let Some(ops) = operands(op, cx.lx.code) else {
        return Flow::Scatter;
    };
    on_scratch(cx, sel, &ops.reads, ops.write, |mx, frame| {
        run_cold(op, frame, 0, mx, &mut [], here)
    })
}
