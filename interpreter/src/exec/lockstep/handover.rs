//! Moving a group between lockstep and the per-item executor: lockstep keeps registers
//! slot-major for the whole group (`regs[slot * n + lane]`), the per-item executor one file
//! per work-item.

use super::super::launch::LaunchRun;
use super::super::state::{Frame, Item};
use super::{Pos, DONE, RUN, WAIT};
use crate::observer::Observer;

/// Sets up the group's lockstep registers: constants and parameters in every lane.
pub(in crate::exec) fn init_regs(lx: &LaunchRun<'_, impl Observer>, regs: &mut Vec<u64>, n: usize) {
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
pub(in crate::exec) fn scatter(
    lx: &LaunchRun<'_, impl Observer>,
    regs: &[u64],
    items: &mut [Item],
    at: &Pos,
) {
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
/// at the same op with the same call stack and the same private allocations, none finished.
pub(in crate::exec) fn can_gather(items: &[Item]) -> Option<Pos> {
    let first = items.first()?;
    let s0 = &first.st;
    let same = |a: &Frame, b: &Frame| {
        (a.pc, a.base, a.func, a.ret_d, a.ret_n, a.mark)
            == (b.pc, b.base, b.func, b.ret_d, b.ret_n, b.mark)
    };
    items
        .iter()
        .all(|it| {
            let st = &it.st;
            !st.done
                && (st.pc, st.base, st.func) == (s0.pc, s0.base, s0.func)
                && st.frames.len() == s0.frames.len()
                && st.frames.iter().zip(&s0.frames).all(|(a, b)| same(a, b))
                && it.mem.same_layout(&first.mem)
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
pub(in crate::exec) fn gather(
    lx: &LaunchRun<'_, impl Observer>,
    regs: &mut Vec<u64>,
    items: &[Item],
    at: &Pos,
) {
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
