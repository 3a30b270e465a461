//! Vectors and composites: select, reductions, extract/insert, construct, shuffle.

use super::*;

pub(super) fn lower_select(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let cid = id_at(inst, 0)?;
    let c = fx.val(cid)?;
    let a = fx.val(id_at(inst, 1)?)?;
    let b = fx.val(id_at(inst, 2)?)?;
    let n = fx.md.ty(result_ty(inst)?)?.lanes as u32;
    let cn = fx.lanes_of_val(cid)?;
    fx.emit(Op::Select {
        cvec: cn > 1,
        n,
        d,
        c,
        a,
        b,
    });
    Ok(())
}

pub(super) fn lower_any_all(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let op = inst.class.opcode;
    let d = fx.dst(inst)?;
    let aid = id_at(inst, 0)?;
    let a = fx.val(aid)?;
    let n = fx.lanes_of_val(aid)?;
    fx.emit(Op::Reduce {
        all: op == S::All,
        n: n as u8,
        d,
        a,
    });
    Ok(())
}

pub(super) fn lower_dot(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let aid = id_at(inst, 0)?;
    let a = fx.val(aid)?;
    let b = fx.val(id_at(inst, 1)?)?;
    let aty = fx.md.type_id_of(aid)?;
    let (_, w, n) = fx.sc(aty)?;
    fx.emit(Op::Dot {
        w,
        n: n as u8,
        d,
        a,
        b,
    });
    Ok(())
}

pub(super) fn lower_composite_extract(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let cid = id_at(inst, 0)?;
    let s = fx.val(cid)?;
    let cty = fx.md.type_id_of(cid)?;
    let n = fx.md.ty(result_ty(inst)?)?.lanes as u32;
    // `get_global_size(4)`: the translator extracts component 4 of the 3-vector.
    if let Some(b) = fx.builtin_vectors.get(&cid).copied() {
        if lit_at(inst, 1)? >= u64::from(b.lanes()) {
            let s = fx.const_slot(b.past_last_dim());
            fx.mov(d, s, n);
            return Ok(());
        }
    }
    let off = lane_offset(fx, cty, inst, 1)?;
    let s = s
        .checked_add(off)
        .ok_or_else(|| malformed("composite index out of range"))?;
    fx.mov(d, s, n);
    Ok(())
}

pub(super) fn lower_composite_insert(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let oid = id_at(inst, 0)?;
    let o = fx.val(oid)?;
    let cid = id_at(inst, 1)?;
    let c = fx.val(cid)?;
    let cty = fx.md.type_id_of(cid)?;
    let off = lane_offset(fx, cty, inst, 2)?;
    let n = fx.lanes_of_val(cid)?;
    let on = fx.lanes_of_val(oid)?;
    fx.mov(d, c, n);
    let d = d
        .checked_add(off)
        .ok_or_else(|| malformed("composite index out of range"))?;
    fx.mov(d, o, on);
    Ok(())
}

pub(super) fn lower_composite_construct(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let mut off = 0;
    for i in 0..inst.operands.len() {
        let id = id_at(inst, i)?;
        let s = fx.val(id)?;
        let n = fx.lanes_of_val(id)?;
        fx.mov(d + off, s, n);
        off += n;
    }
    Ok(())
}

/// Each lane is a move; an undefined lane (0xFFFFFFFF) reads zero.
pub(super) fn lower_vector_shuffle(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let aid = id_at(inst, 0)?;
    let bid = id_at(inst, 1)?;
    let a = fx.val(aid)?;
    let b = fx.val(bid)?;
    let na = fx.lanes_of_val(aid)?;
    let nb = fx.lanes_of_val(bid)?;
    for k in 2..inst.operands.len() {
        let c = lit_at(inst, k)? as u32;
        let s = if c == u32::MAX {
            fx.zero_slot()
        } else if c < na {
            a + c
        } else if c - na < nb {
            b + (c - na)
        } else {
            return Err(malformed(format!(
                "vector shuffle component {c} past the {} lanes of its vectors",
                na + nb
            )));
        };
        fx.emit(Op::Mov {
            d: d + (k as u32 - 2),
            s,
        });
    }
    Ok(())
}

pub(super) fn lower_extract_dynamic(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let vid = id_at(inst, 0)?;
    let v = fx.val(vid)?;
    let idx = fx.val(id_at(inst, 1)?)?;
    let n = fx.lanes_of_val(vid)?;
    let outside = fx
        .builtin_vectors
        .get(&vid)
        .map_or(0, |b| b.past_last_dim() as u8);
    fx.emit(Op::ExtractDyn {
        n,
        stride: 1,
        d,
        v,
        idx,
        outside,
    });
    Ok(())
}

pub(super) fn lower_insert_dynamic(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let vid = id_at(inst, 0)?;
    let v = fx.val(vid)?;
    let x = fx.val(id_at(inst, 1)?)?;
    let idx = fx.val(id_at(inst, 2)?)?;
    let n = fx.lanes_of_val(vid)?;
    fx.emit(Op::InsertDyn {
        n,
        stride: 1,
        d,
        v,
        x,
        idx,
    });
    Ok(())
}

/// OpExpectKHR passes its value through.
pub(super) fn lower_expect(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let s = fx.val(id_at(inst, 0)?)?;
    let n = fx.lanes_of_val(id_at(inst, 0)?)?;
    fx.mov(d, s, n);
    Ok(())
}
