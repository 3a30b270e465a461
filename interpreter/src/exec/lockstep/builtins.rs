//! Work-item builtins and OpenCL.std instructions, run for each lane.

use super::super::ext::ext_inst;
use super::{Cx, Flow, Sel};
use crate::ir::{Builtin, ExtKind};
use crate::observer::Observer;

/// `LoadBuiltin`: every component asked for (`comp == u8::MAX`: all of them), each lane's own.
pub(super) fn load_builtin<O: Observer>(
    cx: &mut Cx<'_, '_, O>,
    sel: Sel<'_>,
    (b, comp, d): (Builtin, u8, u32),
) {
    let comps = if comp == u8::MAX {
        0..b.lanes()
    } else {
        comp as u32..comp as u32 + 1
    };
    for (k, c) in comps.enumerate() {
        for l in sel.lanes(cx.n) {
            let v = cx.lx.builtin(cx.gx, &cx.wis[l], b, c as usize);
            cx.set(d + k as u32, l, v);
        }
    }
}

/// `ExtInst`: each lane runs the per-item code on a scratch frame holding its operands.
pub(super) fn ext<O: Observer>(cx: &mut Cx<'_, '_, O>, here: usize, sel: Sel<'_>, e: u32) -> Flow {
    let code = cx.lx.code;
    let spec = &code.exts[e as usize];
    let frame = code.funcs[cx.func as usize].frame as usize;
    let mut scratch = std::mem::take(cx.scratch);
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
    for &l in sel.ordered(cx.order) {
        for &(s, k) in &slots {
            for i in s..s + k {
                scratch[i as usize] = cx.get(i, l);
            }
        }
        if let Err(m) = ext_inst(&mut cx.mx(l), &mut scratch, 0, e, here) {
            failed = Some(m);
            break;
        }
        for i in spec.d..spec.d + spec.n {
            cx.set(i, l, scratch[i as usize]);
        }
    }
    *cx.scratch = scratch;
    match failed {
        Some(m) => Flow::Abort(m),
        None => Flow::Next,
    }
}
