//! Work-group functions (OpenCL C 6.15.13): OpGroupAll, OpGroupAny, OpGroupBroadcast and
//! the arithmetic group operations, at Workgroup scope only.

use super::*;

/// SPIR-V `Scope` values (SPIR-V 3.27).
const SCOPE_WORKGROUP: i64 = 2;
const SCOPE_SUBGROUP: i64 = 3;

/// The group operation of an opcode this family lowers.
pub(super) fn group_op_of(op: S) -> Option<GroupOp> {
    Some(match op {
        S::GroupAll => GroupOp::All,
        S::GroupAny => GroupOp::Any,
        S::GroupBroadcast => GroupOp::Broadcast,
        S::GroupIAdd => GroupOp::IAdd,
        S::GroupFAdd => GroupOp::FAdd,
        S::GroupSMin => GroupOp::SMin,
        S::GroupUMin => GroupOp::UMin,
        S::GroupFMin => GroupOp::FMin,
        S::GroupSMax => GroupOp::SMax,
        S::GroupUMax => GroupOp::UMax,
        S::GroupFMax => GroupOp::FMax,
        _ => return None,
    })
}

/// Execution, then (arithmetic) GroupOperation, then the operand; a broadcast's local id last.
pub(super) fn lower_group(fx: &mut FunctionLowering, inst: &Instruction, op: GroupOp) -> R<()> {
    let name = inst.class.opcode;
    // Sub-group functions are not the device's (no cl_khr_subgroups): refused, never run
    // as if the sub-group were the work-group.
    match fx.const_val(id_at(inst, 0)?) {
        Some(SCOPE_WORKGROUP) => {}
        Some(SCOPE_SUBGROUP) => return Err(fx.unsup(format!("Op{name:?} at Subgroup scope"))),
        Some(s) => return Err(fx.unsup(format!("Op{name:?} at scope {s}"))),
        None => return Err(fx.unsup(format!("Op{name:?} with a run-time scope"))),
    }
    let arithmetic = !matches!(op, GroupOp::All | GroupOp::Any | GroupOp::Broadcast);
    let scan = if arithmetic {
        match inst.operands.get(1) {
            Some(Operand::GroupOperation(g)) => match g {
                spirv::GroupOperation::Reduce => GroupScan::Reduce,
                spirv::GroupOperation::InclusiveScan => GroupScan::Inclusive,
                spirv::GroupOperation::ExclusiveScan => GroupScan::Exclusive,
                g => return Err(fx.unsup(format!("Op{name:?} with group operation {g:?}"))),
            },
            _ => return Err(malformed(format!("{name:?}: no group operation"))),
        }
    } else {
        GroupScan::Reduce
    };
    let xid = id_at(inst, 1 + arithmetic as usize)?;
    let a = fx.val(xid)?;
    let (_, w, lanes) = fx.sc(fx.md.type_id_of(xid)?)?;
    let (_, rw, rlanes) = fx.sc(result_ty(inst)?)?;
    // OpenCL C's work-group functions take scalars only.
    if lanes != 1 || rlanes != 1 || rw != w {
        return Err(fx.unsup(format!("Op{name:?} on a vector or of another result type")));
    }
    let (id, id_n, id_w) = if op == GroupOp::Broadcast {
        let iid = id_at(inst, 2)?;
        let (_, id_w, id_n) = fx.sc(fx.md.type_id_of(iid)?)?;
        if !(1..=3).contains(&id_n) {
            return Err(malformed(format!(
                "{name:?}: local id of {id_n} components"
            )));
        }
        (fx.val(iid)?, id_n as u8, id_w)
    } else {
        (NO_SLOT, 0, 0)
    };
    let d = fx.dst(inst)?;
    fx.md.code.group_fns = true;
    fx.emit(Op::Group {
        op,
        scan,
        w,
        id_n,
        id_w,
        d,
        a,
        id,
    });
    Ok(())
}
