//! Control flow: calls, barriers, branches, switches, returns.

use super::*;

/// OpFunctionCall: arguments are moved into the callee's first slots.
pub(super) fn lower_call(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let fid = id_at(inst, 0)?;
    if fx.md.names.get(&fid).map(String::as_str) == Some(DYNAMIC_BARRIER) {
        // barrier(flags) with run-time flags, rewritten by the compile driver.
        let flags = fx.val(id_at(inst, 1)?)?;
        fx.emit(Op::Barrier {
            fences: crate::Fences::default(),
            flags,
        });
        return Ok(());
    }
    let Some(&f) = fx.md.func_index.get(&fid) else {
        let n = fx.md.names.get(&fid).cloned().unwrap_or(format!("%{fid}"));
        return Err(fx.unsup(format!("call to undefined function {n}")));
    };
    fx.callees.insert(f);
    let fty = fx.md.m.functions.iter().find_map(|g| {
        g.def
            .as_ref()
            .filter(|d| d.result_id == Some(fid))
            .and_then(|d| id_at(d, 1).ok())
    });
    let fty = fty.ok_or_else(|| malformed("call target without type"))?;
    let ptys = match &fx.md.ty(fty)?.k {
        TypeKind::Func(ps) => ps.clone(),
        _ => return Err(malformed("function type expected")),
    };
    if ptys.len() + 1 != inst.operands.len() {
        return Err(malformed("call with wrong argument count"));
    }
    let mut moves = vec![];
    let mut slot = 0;
    for (k, pt) in ptys.iter().enumerate() {
        let a = fx.val(id_at(inst, k + 1)?)?;
        let n = fx.md.ty(*pt)?.lanes as u32;
        moves.push((a, slot, n));
        slot += n;
    }
    let rt = result_ty(inst)?;
    let ret_n = fx.md.ty(rt)?.lanes as u32;
    let d = if ret_n > 0 { fx.dst(inst)? } else { 0 };
    let args = fx.md.code.calls.len() as u32;
    fx.md.code.calls.push(CallArgs { moves, ret_n });
    fx.emit(Op::Call { f, d, args });
    Ok(())
}

/// OpControlBarrier with constant semantics (run-time flags come as a call, above).
pub(super) fn lower_barrier(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let sem = id_at(inst, 2)?;
    let v = fx.const_val(sem).unwrap_or(0x300) as u64;
    fx.emit(Op::Barrier {
        fences: crate::Fences {
            local: v & 0x100 != 0,
            global: v & 0x200 != 0,
        },
        flags: NO_SLOT,
    });
    Ok(())
}

pub(super) fn lower_branch(fx: &mut FunctionLowering, inst: &Instruction, label: Word) -> R<()> {
    let t = id_at(inst, 0)?;
    let mv = fx.edge_moves(label, t)?;
    fx.emit_moves(&mv);
    let k = fx.key(t)?;
    fx.emit(Op::Br { t: k });
    Ok(())
}

pub(super) fn lower_branch_conditional(
    fx: &mut FunctionLowering,
    inst: &Instruction,
    label: Word,
) -> R<()> {
    let c = fx.val(id_at(inst, 0)?)?;
    let t = fx.edge_target(label, id_at(inst, 1)?)?;
    let f = fx.edge_target(label, id_at(inst, 2)?)?;
    fx.emit(Op::BrIf { c, t, f });
    Ok(())
}

pub(super) fn lower_switch(fx: &mut FunctionLowering, inst: &Instruction, label: Word) -> R<()> {
    let sid = id_at(inst, 0)?;
    let s = fx.val(sid)?;
    let (_, w, _) = fx.sc(fx.md.type_id_of(sid)?)?;
    let default = fx.edge_target(label, id_at(inst, 1)?)?;
    let mut cases = vec![];
    let mut k = 2;
    while k < inst.operands.len() {
        let v = lit_at(inst, k)? & mask(w);
        let t = fx.edge_target(label, id_at(inst, k + 1)?)?;
        cases.push((v, t));
        k += 2;
    }
    let tab = fx.md.code.switches.len() as u32;
    fx.md.code.switches.push(SwitchTab { default, cases });
    fx.switch_tabs.push(tab);
    fx.emit(Op::Switch { w, s, tab });
    Ok(())
}

pub(super) fn lower_return_value(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let vid = id_at(inst, 0)?;
    let s = fx.val(vid)?;
    let n = fx.lanes_of_val(vid)?;
    fx.emit(Op::RetV { s, n });
    Ok(())
}
