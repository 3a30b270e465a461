//! Casts, bitcasts and numeric conversions.

use super::*;

/// Pointer casts and copies move the value; a builtin pointer stays one.
pub(super) fn lower_copy_value(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let sid = id_at(inst, 0)?;
    if let Some(bp) = fx.builtin_ptrs.get(&sid).copied() {
        fx.builtin_ptrs.insert(result_id(inst)?, bp);
        return Ok(());
    }
    let s = fx.val(sid)?;
    let n = fx.lanes_of_val(sid)?;
    fx.mov(d, s, n);
    Ok(())
}

/// OpGenericCastToPtrExplicit (`to_global`, `to_local`, `to_private`): the pointer if it
/// points into the storage class named, else null (OpenCL C 6.15.9, address space qualifier
/// functions). A pointer's storage class is its encoding's tag (`ir::ptr`).
pub(super) fn lower_cast_to_space(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let p = fx.val(id_at(inst, 0)?)?;
    let tag = match inst.operands.get(1) {
        Some(Operand::StorageClass(StorageClass::CrossWorkgroup)) => ptr::TAG_LAUNCH,
        Some(Operand::StorageClass(StorageClass::Workgroup)) => ptr::TAG_LOCAL,
        Some(Operand::StorageClass(StorageClass::Function)) => ptr::TAG_PRIVATE,
        other => return Err(fx.unsup(format!("OpGenericCastToPtrExplicit to {other:?}"))),
    };
    let (shift, tag, null) = (fx.const_slot(62), fx.const_slot(tag), fx.zero_slot());
    // d = tag of p; d = (d == tag); d = d ? p : null.
    fx.emit(Op::Shr64 { d, a: p, b: shift });
    fx.emit(Op::Eq64 { d, a: d, b: tag });
    fx.emit(Op::Select {
        cvec: false,
        n: 1,
        d,
        c: d,
        a: p,
        b: null,
    });
    Ok(())
}

/// OpGenericPtrMemSemantics (`get_fence`): the memory semantics bit of the pointer's storage
/// class, CrossWorkgroupMemory (0x200) for global, WorkgroupMemory (0x100) for local, none
/// for private: `(0x200 >> tag) & 0x300` over the tags 0, 1 and 2 of `ir::ptr`.
pub(super) fn lower_pointer_semantics(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    const _: () = assert!(ptr::TAG_LAUNCH == 0 && ptr::TAG_LOCAL == 1 && ptr::TAG_PRIVATE == 2);
    let d = fx.dst(inst)?;
    let p = fx.val(id_at(inst, 0)?)?;
    let (shift, global, mask) = (
        fx.const_slot(62),
        fx.const_slot(0x200),
        fx.const_slot(0x300),
    );
    fx.emit(Op::Shr64 { d, a: p, b: shift });
    fx.emit(Op::Shr64 { d, a: global, b: d });
    fx.emit(Op::And { d, a: d, b: mask });
    Ok(())
}

pub(super) fn lower_ptr_to_int(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let s = fx.val(id_at(inst, 0)?)?;
    let (_, w, _) = fx.sc(result_ty(inst)?)?;
    if w >= 64 {
        fx.mov(d, s, 1);
    } else {
        fx.emit(Op::Mask { w, d, s });
    }
    Ok(())
}

pub(super) fn lower_bitcast(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let sid = id_at(inst, 0)?;
    let s = fx.val(sid)?;
    let sty = fx.md.type_id_of(sid)?;
    let (_, fw, fnl) = fx.sc(sty)?;
    let (_, tw, tn) = fx.sc(result_ty(inst)?)?;
    if fw == tw && fnl == tn {
        fx.mov(d, s, tn);
    } else {
        fx.emit(Op::Bitcast {
            fw,
            fnl: fnl as u8,
            tw,
            tn: tn as u8,
            d,
            s,
        });
    }
    Ok(())
}

/// Numeric conversions, with their saturation and rounding decorations.
pub(super) fn lower_convert(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let op = inst.class.opcode;
    let rid = result_id(inst)?;
    let d = fx.dst(inst)?;
    let sid = id_at(inst, 0)?;
    let s = fx.val(sid)?;
    let sty = fx.md.type_id_of(sid)?;
    let (from, fw, n) = fx.sc(sty)?;
    let (to, tw, _) = fx.sc(result_ty(inst)?)?;
    let sat = fx.md.has_deco(rid, Decoration::SaturatedConversion)
        || matches!(op, S::SatConvertSToU | S::SatConvertUToS);
    let rounding = match fx.md.deco_ops(rid, Decoration::FPRoundingMode) {
        Some([Operand::FPRoundingMode(m), ..]) => match m {
            spirv::FPRoundingMode::RTE => Rounding::Rte,
            spirv::FPRoundingMode::RTZ => Rounding::Rtz,
            spirv::FPRoundingMode::RTP => Rounding::Rtp,
            spirv::FPRoundingMode::RTN => Rounding::Rtn,
        },
        _ => crate::clstd::implied_rounding(from, to),
    };
    let (from_signed, to_signed) = match op {
        S::SConvert => (true, true),
        S::UConvert => (false, false),
        S::ConvertFToS => (true, true),
        S::ConvertFToU => (true, false),
        S::ConvertSToF => (true, true),
        S::ConvertUToF => (false, false),
        S::SatConvertSToU => (true, false),
        S::SatConvertUToS => (false, true),
        _ => (true, true),
    };
    if fx.sconv.contains_key(&rid) {
        // Folded into the access chains that use it.
    } else if matches!(op, S::SConvert | S::UConvert) && !sat {
        fx.emit(Op::IConv {
            signed: op == S::SConvert,
            from: fw,
            to: tw,
            n: n as u8,
            d,
            s,
        });
    } else {
        let cv = fx.md.code.convs.len() as u32;
        fx.md.code.convs.push(ConvSpec {
            from,
            from_signed,
            to,
            to_signed,
            sat,
            rounding,
        });
        fx.emit(Op::Conv {
            cv,
            n: n as u8,
            d,
            s,
        });
    }
    Ok(())
}
