//! Branches, calls, returns and barriers: where the lanes go next.

use super::super::state::Frame;
use super::{Flow, LaneView, Ls, Sel};
use crate::alu::mask;
use crate::ir::{fences_of_flags, Op, NO_SLOT};
use crate::observer::{BarrierArrival, Fences, InstId, Observer};

/// `Br`, `BrIf`, `Switch`: a jump when the lanes agree, a split when they do not.
#[inline(always)]
pub(super) fn branch<O: Observer>(cx: &LaneView<'_, '_, O>, sel: Sel<'_>, op: Op) -> Flow {
    let (regs, n) = (&*cx.regs, cx.n);
    match op {
        Op::Br { t } => Flow::Jump(t as usize),
        Op::BrIf { c, t, f } => {
            let c0 = cx.at(c, 0);
            let (mut yes, mut no) = (false, false);
            for l in sel.lanes(n) {
                if regs[c0 + l] & 1 != 0 {
                    yes = true;
                } else {
                    no = true;
                }
            }
            let (t, f) = (t as usize, f as usize);
            match (yes, no) {
                (true, true) => Flow::Split { c: c0, t, f },
                (true, false) => Flow::Jump(t),
                _ => Flow::Jump(f),
            }
        }
        Op::Switch { w, s, tab } => {
            let m = mask(w);
            let s0 = cx.at(s, 0);
            let t = &cx.lx.code.switches[tab as usize];
            let target = |v: u64| t.cases.iter().find(|c| c.0 == v).map_or(t.default, |c| c.1);
            let mut lanes = sel.lanes(n);
            let Some(first) = lanes.next() else {
                return Flow::Next;
            };
            let v = regs[s0 + first] & m;
            if lanes.any(|l| regs[s0 + l] & m != v) {
                return Flow::SwitchSplit { s: s0, m, tab };
            }
            Flow::Jump(target(v) as usize)
        }
        _ => unreachable!("not a lockstep branch: {op:?}"),
    }
}

/// `Call`: pushes one frame for the whole group.
pub(super) fn call<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    here: usize,
    converged: bool,
    (f, d, args): (u32, u32, u32),
) -> Flow {
    // Lanes share one call stack, so only a converged group calls.
    if !converged {
        return Flow::Scatter;
    }
    let code = ls.lx.code;
    let n = ls.wis.len();
    let pos = &mut *ls.pos;
    let (base, func) = (pos.base, pos.func);
    if pos.frames.len() >= 1024 {
        return Flow::Abort("call stack overflow (recursion?)".into());
    }
    let callee = &code.funcs[f as usize];
    let nb = base + code.funcs[func as usize].frame as usize;
    let need = (nb + callee.frame as usize) * n;
    if ls.regs_vec.len() < need {
        ls.regs_vec.resize(need, 0);
    }
    let regs = &mut ls.regs_vec[..];
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
        mark: ls.items.first().map_or((0, 0), |it| it.mem.mark()),
    });
    pos.func = f;
    pos.base = nb;
    Flow::Jump(callee.entry as usize)
}

/// `Ret` / `RetV`: pops the group's frame, or ends the lanes' work-items.
pub(super) fn ret<O: Observer>(
    ls: &mut Ls<'_, '_, '_, O>,
    sel: Sel<'_>,
    converged: bool,
    op: Op,
) -> Flow {
    let (lx, n) = (ls.lx, ls.wis.len());
    let code = lx.code;
    let pos = &mut *ls.pos;
    let base = pos.base;
    if pos.frames.is_empty() {
        if O::ENABLED {
            for &l in sel.ordered(ls.order) {
                lx.obs.item_end(&mut ls.gx.obs, &ls.wis[l]);
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
            for &l in sel.ordered(ls.order) {
                lx.obs.item_end(&mut ls.gx.obs, &ls.wis[l]);
            }
        }
        return Flow::Exit;
    }
    let Some(fr) = pos.frames.pop() else {
        return Flow::Exit;
    };
    if let Op::RetV { s, n: k } = op {
        let s = (base + s as usize) * n;
        let k = k.min(fr.ret_n) as usize;
        ls.regs_vec
            .copy_within(s..s + k * n, (fr.base as usize + fr.ret_d as usize) * n);
    }
    for it in ls.items.iter_mut() {
        it.mem.release(fr.mark);
    }
    pos.base = fr.base as usize;
    pos.func = fr.func;
    Flow::Jump(fr.pc as usize)
}

/// `Barrier`: reports each lane's arrival in order; the driver releases the group.
pub(super) fn barrier<O: Observer>(
    cx: &mut LaneView<'_, '_, O>,
    here: usize,
    sel: Sel<'_>,
    fences: Fences,
    flags: u32,
) -> Flow {
    if O::ENABLED {
        let lx = cx.lx;
        for &l in sel.ordered(cx.order) {
            let fences = if flags == NO_SLOT {
                fences
            } else {
                fences_of_flags(cx.get(flags, l))
            };
            lx.obs.barrier(
                &mut cx.gx.obs,
                &BarrierArrival {
                    item: &cx.wis[l],
                    inst: InstId(lx.code.inst_of[here]),
                    fences,
                },
            );
        }
    }
    Flow::Barrier
}
