//! Memory: loads, stores, atomics, private variables, address arithmetic, memory copies and
//! the work-group async copies.

use super::*;

pub(super) fn lane_offset(
    fx: &FunctionLowering,
    mut ty: Word,
    inst: &Instruction,
    from: usize,
) -> R<u32> {
    let mut off = 0u64;
    for k in from..inst.operands.len() {
        let i = lit_at(inst, k)?;
        let t = fx.md.ty(ty)?;
        match &t.k {
            // An index past the end is malformed (and would point past the registers).
            TypeKind::Vector(e, n) if i < *n as u64 => {
                off += i * fx.md.ty(*e)?.lanes;
                ty = *e;
            }
            TypeKind::Array(e, n) if i < *n => {
                off += i * fx.md.ty(*e)?.lanes;
                ty = *e;
            }
            TypeKind::Vector(..) | TypeKind::Array(..) => {
                return Err(malformed("composite index past the end"));
            }
            TypeKind::Struct(ms) => {
                let i = i as usize;
                if i >= ms.len() {
                    return Err(malformed("struct index out of range"));
                }
                for m in &ms[..i] {
                    off += fx.md.ty(*m)?.lanes;
                }
                ty = ms[i];
            }
            _ => return Err(malformed("composite index into a scalar")),
        }
    }
    u32::try_from(off).map_err(|_| malformed("composite index out of range"))
}

pub(super) fn emit_load(fx: &mut FunctionLowering, ty: Word, d: u32, p: u32) -> R<()> {
    let t = fx.md.ty(ty)?;
    match t.k {
        TypeKind::Bool
        | TypeKind::Int(_)
        | TypeKind::Float(_)
        | TypeKind::Ptr(..)
        | TypeKind::Opaque(_) => {
            let w = t.size.clamp(1, 8) as u8;
            fx.emit(Op::Load { w, d, p });
        }
        TypeKind::Vector(e, n) => {
            let w = fx.md.ty(e)?.size as u8;
            fx.emit(Op::LoadN { w, n, d, p });
        }
        _ => {
            let l = fx.md.layout(ty)?;
            fx.emit(Op::LoadAgg { l, d, p });
        }
    }
    Ok(())
}

pub(super) fn emit_store(fx: &mut FunctionLowering, ty: Word, p: u32, v: u32) -> R<()> {
    let t = fx.md.ty(ty)?;
    match t.k {
        TypeKind::Bool
        | TypeKind::Int(_)
        | TypeKind::Float(_)
        | TypeKind::Ptr(..)
        | TypeKind::Opaque(_) => {
            let w = t.size.clamp(1, 8) as u8;
            fx.emit(Op::Store { w, p, v });
        }
        TypeKind::Vector(e, n) => {
            let w = fx.md.ty(e)?.size as u8;
            fx.emit(Op::StoreN { w, n, p, v });
        }
        _ => {
            let l = fx.md.layout(ty)?;
            fx.emit(Op::StoreAgg { l, p, v });
        }
    }
    Ok(())
}

/// The address space a pointer of storage class `sc` points into (`None`: generic).
fn address_space(sc: StorageClass) -> Option<crate::AddressSpace> {
    use crate::AddressSpace as A;
    match sc {
        StorageClass::Function | StorageClass::Private => Some(A::Private),
        StorageClass::Workgroup => Some(A::Local),
        StorageClass::CrossWorkgroup => Some(A::Global),
        StorageClass::UniformConstant => Some(A::Constant),
        _ => None,
    }
}

pub(super) fn lower_gep(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let op = inst.class.opcode;
    let rid = result_id(inst)?;
    let base_id = id_at(inst, 0)?;
    let ptr_elem = matches!(op, S::PtrAccessChain | S::InBoundsPtrAccessChain);
    if let Some(b) = fx.md.builtins.get(&base_id).copied() {
        // get_global_id(d) at -O0 can be an access chain into the builtin vector.
        let comp_idx = if ptr_elem { 2 } else { 1 };
        let c = match inst.operands.get(comp_idx) {
            None => u8::MAX,
            Some(_) => fx
                .const_val(id_at(inst, comp_idx)?)
                .filter(|c| (0..3).contains(c))
                .ok_or_else(|| fx.unsup("dynamic index into a builtin variable"))?
                as u8,
        };
        fx.builtin_ptrs.insert(rid, (b, c));
        return Ok(());
    }
    let d = fx.dst(inst)?;
    let p = fx.val(base_id)?;
    let (mut ty, space) = match fx.md.ty_of(base_id)?.k {
        TypeKind::Ptr(sc, pt) => (pt, address_space(sc)),
        _ => return Err(malformed("access chain base is not a pointer")),
    };
    let mut off: i64 = 0;
    let mut terms: Vec<GepTerm> = vec![];
    // Run-time indices into arrays of known length: (index term, length).
    let mut checks: Vec<(GepTerm, u32)> = vec![];
    let mut add = |fx: &mut FunctionLowering,
                   idx_id: Word,
                   scale: i64,
                   off: &mut i64|
     -> R<Option<GepTerm>> {
        let term = if let Some(c) = fx.const_val(idx_id) {
            *off = off.wrapping_add(c.wrapping_mul(scale));
            return Ok(None);
        } else if let Some(&(src, w)) = fx.sconv.get(&idx_id) {
            GepTerm {
                slot: fx.val(src)?,
                w,
                scale,
            }
        } else {
            let (_, w, _) = fx.sc(fx.md.type_id_of(idx_id)?)?;
            GepTerm {
                slot: fx.val(idx_id)?,
                w,
                scale,
            }
        };
        terms.push(term);
        Ok(Some(term))
    };
    let mut k = 1;
    if ptr_elem {
        let sz = fx.md.ty(ty)?.size as i64;
        add(fx, id_at(inst, 1)?, sz, &mut off)?;
        k = 2;
    }
    while k < inst.operands.len() {
        let idx = id_at(inst, k)?;
        let t = fx.md.ty(ty)?.clone();
        match &t.k {
            TypeKind::Array(e, len) => {
                let sz = fx.md.ty(*e)?.size as i64;
                let term = add(fx, idx, sz, &mut off)?;
                if let (Some(t), Ok(len @ 1..)) = (term, u32::try_from(*len)) {
                    checks.push((t, len));
                }
                ty = *e;
            }
            TypeKind::Vector(e, _) => {
                let sz = fx.md.ty(*e)?.size as i64;
                add(fx, idx, sz, &mut off)?;
                ty = *e;
            }
            TypeKind::Struct(ms) => {
                let i = fx
                    .const_val(idx)
                    .ok_or_else(|| malformed("non-constant struct index"))?;
                let i = usize::try_from(i)
                    .ok()
                    .filter(|i| *i < ms.len())
                    .ok_or_else(|| malformed("struct index out of range"))?;
                off = off.wrapping_add(t.offsets[i] as i64);
                ty = ms[i];
            }
            _ => return Err(malformed("access chain indexes a scalar")),
        }
        k += 1;
    }
    let strict = fx.deref_only.contains(&rid);
    for (t, len) in checks {
        fx.emit(Op::CheckIndex {
            idx: t.slot,
            w: t.w,
            strict,
            len,
            space,
        });
    }
    match terms.as_slice() {
        [] if off == 0 => fx.mov(d, p, 1),
        [] => fx.emit(Op::Gep { d, p, off }),
        [t] if i32::try_from(t.scale).is_ok() && i32::try_from(off).is_ok() => fx.emit(Op::Gep1 {
            w: t.w,
            d,
            p,
            idx: t.slot,
            scale: t.scale as i32,
            off: off as i32,
        }),
        _ => {
            let g = fx.md.code.geps.len() as u32;
            fx.md.code.geps.push(GepSpec { off, terms });
            fx.emit(Op::GepN { g, d, p });
        }
    }
    Ok(())
}

pub(super) fn lower_async(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    // Execution, Destination, Source, NumElements, Stride, Event
    let d = fx.dst(inst)?;
    let did = id_at(inst, 1)?;
    let dst = fx.val(did)?;
    let src = fx.val(id_at(inst, 2)?)?;
    let nid = id_at(inst, 3)?;
    let n = fx.val(nid)?;
    let sid = id_at(inst, 4)?;
    let stride = fx.val(sid)?;
    let event = fx.val(id_at(inst, 5)?)?;
    let (n_w, stride_w) = (
        fx.sc(fx.md.type_id_of(nid)?)?.1,
        fx.sc(fx.md.type_id_of(sid)?)?.1,
    );
    let (to_local, elem) = match fx.md.ty_of(did)?.k {
        TypeKind::Ptr(sc, p) => (sc == StorageClass::Workgroup, fx.md.ty(p)?.size as u32),
        _ => return Err(malformed("async copy to a non-pointer")),
    };
    let a = fx.md.code.asyncs.len() as u32;
    fx.md.code.asyncs.push(AsyncSpec {
        d,
        dst,
        src,
        n,
        n_w,
        stride,
        stride_w,
        elem,
        to_local,
        counter: a,
        event,
    });
    fx.emit(Op::AsyncCopy { a });
    // Every work-item of the group reaches the copy (a control barrier, no memory fence):
    // one that does not is divergence, as at a barrier.
    fx.emit(Op::Barrier {
        fences: crate::Fences::default(),
        flags: NO_SLOT,
    });
    Ok(())
}

/// OpGroupWaitEvents (Execution, NumEvents, EventsList): the group's copies complete when
/// every work-item has waited, so it is a control barrier too (no memory fence).
pub(super) fn lower_wait(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let nid = id_at(inst, 1)?;
    let n = fx.val(nid)?;
    let n_w = fx.sc(fx.md.type_id_of(nid)?)?.1;
    let list = fx.val(id_at(inst, 2)?)?;
    fx.emit(Op::AsyncWait { n, n_w, list });
    fx.emit(Op::Barrier {
        fences: crate::Fences::default(),
        flags: NO_SLOT,
    });
    Ok(())
}

pub(super) fn atomic_of(op: S) -> Option<AtomicOp> {
    use AtomicOp as A;
    Some(match op {
        S::AtomicLoad => A::Load,
        S::AtomicStore => A::Store,
        S::AtomicExchange => A::Xchg,
        S::AtomicCompareExchange | S::AtomicCompareExchangeWeak => A::CmpXchg,
        S::AtomicIIncrement => A::Inc,
        S::AtomicIDecrement => A::Dec,
        S::AtomicIAdd => A::Add,
        S::AtomicISub => A::Sub,
        S::AtomicSMin => A::SMin,
        S::AtomicUMin => A::UMin,
        S::AtomicSMax => A::SMax,
        S::AtomicUMax => A::UMax,
        S::AtomicAnd => A::And,
        S::AtomicOr => A::Or,
        S::AtomicXor => A::Xor,
        _ => return None,
    })
}

pub(super) fn lower_atomic(fx: &mut FunctionLowering, inst: &Instruction, a: AtomicOp) -> R<()> {
    let p = fx.val(id_at(inst, 0)?)?;
    let (v, c, ty) = match a {
        AtomicOp::Store => (
            fx.val(id_at(inst, 3)?)?,
            0,
            *fx.md
                .id_ty
                .get(&id_at(inst, 3)?)
                .ok_or_else(|| malformed("untyped"))?,
        ),
        AtomicOp::CmpXchg => (
            fx.val(id_at(inst, 4)?)?,
            fx.val(id_at(inst, 5)?)?,
            result_ty(inst)?,
        ),
        AtomicOp::Load | AtomicOp::Inc | AtomicOp::Dec => (0, 0, result_ty(inst)?),
        _ => (fx.val(id_at(inst, 3)?)?, 0, result_ty(inst)?),
    };
    let (_, w, _) = fx.sc(ty)?;
    if w != 32 && w != 64 {
        return Err(fx.unsup(format!("{w}-bit atomic")));
    }
    // Atomics need their natural alignment.
    set_alignment(fx, w as u64 / 8);
    let d = if a == AtomicOp::Store {
        0
    } else {
        fx.dst(inst)?
    };
    // Pointer, Scope, Semantics (a compare-exchange's Equal, then its Unequal), ...
    let (scope, sem) = sync_operands(fx, inst, 1)?;
    let unequal = if a == AtomicOp::CmpXchg {
        fx.val(id_at(inst, 3)?)?
    } else {
        sem
    };
    fx.emit(Op::Atomic {
        op: a,
        w,
        d,
        p,
        v,
        c,
        scope,
        sem,
        unequal,
    });
    Ok(())
}

/// The slots of an atomic's or a fence's `Scope` (operand `at`) and memory semantics
/// (operand `at + 1`) ids: a constant's slot, or the register of a run-time value (a helper
/// function's `memory_scope` parameter), which the executor reads when an observer wants
/// them.
fn sync_operands(fx: &mut FunctionLowering, inst: &Instruction, at: usize) -> R<(u32, u32)> {
    let scope = fx.val(id_at(inst, at)?)?;
    let sem = fx.val(id_at(inst, at + 1)?)?;
    Ok((scope, sem))
}

/// OpMemoryBarrier (Scope, Semantics).
pub(super) fn lower_fence(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let (scope, sem) = sync_operands(fx, inst, 0)?;
    fx.emit(Op::Fence { scope, sem });
    Ok(())
}

/// OpAtomicFlagTestAndSet (Pointer, Scope, Semantics) and OpAtomicFlagClear: an
/// `atomic_flag` is a 32-bit integer (OpenCL C 6.15.12.9), set by exchanging 1 into it (the
/// result says whether it was set) and cleared by an atomic store of 0.
pub(super) fn lower_atomic_flag(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let p = fx.val(id_at(inst, 0)?)?;
    let (scope, sem) = sync_operands(fx, inst, 1)?;
    set_alignment(fx, 4);
    let zero = fx.zero_slot();
    if inst.class.opcode == S::AtomicFlagClear {
        fx.emit(Op::Atomic {
            op: AtomicOp::Store,
            w: 32,
            d: 0,
            p,
            v: zero,
            c: 0,
            scope,
            sem,
            unequal: sem,
        });
        return Ok(());
    }
    let d = fx.dst(inst)?;
    let one = fx.const_slot(1);
    fx.emit(Op::Atomic {
        op: AtomicOp::Xchg,
        w: 32,
        d,
        p,
        v: one,
        c: 0,
        scope,
        sem,
        unequal: sem,
    });
    fx.emit(Op::Ne32 { d, a: d, b: zero });
    Ok(())
}

/// OpLoad: builtin variables read their value, everything else is a memory load.
pub(super) fn lower_load(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let pid = id_at(inst, 0)?;
    if let Some(b) = fx.md.builtins.get(&pid).copied() {
        fx.emit(Op::LoadBuiltin {
            b,
            comp: u8::MAX,
            d,
        });
        if b.lanes() == 3 {
            fx.builtin_vectors.insert(result_id(inst)?, b);
        }
        return Ok(());
    }
    if let Some((b, c)) = fx.builtin_ptrs.get(&pid).copied() {
        fx.emit(Op::LoadBuiltin { b, comp: c, d });
        return Ok(());
    }
    let p = fx.val(pid)?;
    let ty = result_ty(inst)?;
    require_alignment(fx, ty, memory_access_alignment(inst, 1))?;
    emit_load(fx, ty, d, p)?;
    Ok(())
}

/// The `Aligned` literal of an OpLoad/OpStore's memory operands (which start at operand
/// `first`), if any.
fn memory_access_alignment(inst: &Instruction, first: usize) -> Option<u64> {
    match inst.operands.get(first) {
        Some(Operand::MemoryAccess(m)) if m.contains(spirv::MemoryAccess::ALIGNED) => {
            match inst.operands.get(first + 1) {
                Some(Operand::LiteralBit32(a)) => Some(*a as u64),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The alignment both sides of an OpCopyMemory(Sized) whose memory operands start at
/// operand `first` declare: one set of operands covers both sides (SPIR-V before 1.4); with
/// two (the target's, then the source's) the smaller, and none unless both declare one, so
/// that a side is never held to the other's.
fn copy_alignment(inst: &Instruction, first: usize) -> Option<u64> {
    let target = memory_access_alignment(inst, first);
    let second = (first + 1..inst.operands.len())
        .find(|&i| matches!(inst.operands[i], Operand::MemoryAccess(_)));
    match second {
        None => target,
        Some(i) => Some(target?.min(memory_access_alignment(inst, i)?)),
    }
}

/// Notes the alignment the current instruction's access of a `ty` value requires: what the
/// module declares (`Aligned`), else the type's own (OpenCL C 6.3: a data item is aligned
/// to its size, a 3-element vector to that of 4, an aggregate to its most aligned member).
/// A vector's elements and an aggregate's leaves are reported one by one, each with its
/// index (`Access::component`), so that the requirement is tested on the value's start.
fn require_alignment(fx: &mut FunctionLowering, ty: Word, declared: Option<u64>) -> R<()> {
    let t = fx.md.ty(ty)?;
    let align = match t.k {
        TypeKind::Bool | TypeKind::Int(_) | TypeKind::Float(_) | TypeKind::Ptr(..) => {
            declared.unwrap_or(t.size)
        }
        TypeKind::Vector(e, n) => {
            let natural = fx.md.ty(e)?.size * (n as u64).next_power_of_two();
            declared.unwrap_or(natural)
        }
        // A struct's or array's natural alignment is its most aligned member's (none
        // when `CPacked`); the first leaf, at the start, stands for the value.
        TypeKind::Array(..) | TypeKind::Struct(_) => declared.unwrap_or(t.align),
        _ => return Ok(()),
    };
    set_alignment(fx, align);
    Ok(())
}

/// Records `align` (bytes; a power of two, else ignored) for the current instruction.
pub(super) fn set_alignment(fx: &mut FunctionLowering, align: u64) {
    if align > 1 && align.is_power_of_two() {
        if let Some(slot) = fx.md.aligns.get_mut(fx.cur_inst as usize) {
            *slot = align.trailing_zeros() as u8 + 1;
        }
    }
}

pub(super) fn lower_store(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let p = fx.val(id_at(inst, 0)?)?;
    let vid = id_at(inst, 1)?;
    let v = fx.val(vid)?;
    let ty = fx.md.type_id_of(vid)?;
    require_alignment(fx, ty, memory_access_alignment(inst, 2))?;
    emit_store(fx, ty, p, v)?;
    Ok(())
}

/// OpVariable in a function: a private allocation, optionally initialised.
pub(super) fn lower_variable(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let ty = result_ty(inst)?;
    let pointee = match fx.md.ty(ty)?.k {
        TypeKind::Ptr(_, p) => p,
        _ => return Err(malformed("variable of non-pointer type")),
    };
    let t = fx.md.ty(pointee)?;
    let (size, align) = (t.size, t.align);
    let watch = matches!(t.k, TypeKind::Array(..) | TypeKind::Struct(_));
    if size > u32::MAX as u64 {
        return Err(fx.unsup("private variable larger than 4 GiB"));
    }
    fx.private_bytes += size;
    fx.emit(Op::Alloca {
        size: size as u32,
        align: align as u32,
        d,
        watch,
    });
    if let Ok(init) = id_at(inst, 1) {
        let v = fx.val(init)?;
        emit_store(fx, pointee, d, v)?;
    }
    Ok(())
}

pub(super) fn lower_ptr_diff(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let d = fx.dst(inst)?;
    let aid = id_at(inst, 0)?;
    let a = fx.val(aid)?;
    let b = fx.val(id_at(inst, 1)?)?;
    let elem = match fx.md.ty_of(aid)?.k {
        TypeKind::Ptr(_, p) => fx.md.ty(p)?.size.max(1) as u32,
        _ => 1,
    };
    fx.emit(Op::PtrDiff { elem, d, a, b });
    Ok(())
}

/// Whether every byte a copy from `src` reads belongs to a value: its object (`src` seen
/// through pointer casts and access chains, which the optimiser puts on memcpy operands) is
/// made of scalars and vectors without gaps. Struct padding, 3-element vectors' fourth
/// lane and objects of unknown type may hold bytes no one writes.
fn copies_only_values(fx: &FunctionLowering, src: Word) -> bool {
    let mut id = src;
    for _ in 0..64 {
        match fx.ptr_base.get(&id) {
            Some(&b) => id = b,
            None => break,
        }
    }
    match fx.md.ty_of(id).map(|t| &t.k) {
        Ok(TypeKind::Ptr(_, p)) => gapless(fx.md, *p),
        _ => false,
    }
}

/// Whether every byte of type `t` belongs to a scalar. (The recursion is bounded: types
/// nest at most `MAX_TYPE_DEPTH` deep, checked when they are read.)
fn gapless(md: &Mod, t: Word) -> bool {
    let Ok(ty) = md.ty(t) else {
        return false;
    };
    match &ty.k {
        TypeKind::Bool | TypeKind::Int(_) | TypeKind::Float(_) => true,
        TypeKind::Vector(e, n) => *n != 3 && gapless(md, *e),
        TypeKind::Array(e, _) => gapless(md, *e),
        TypeKind::Struct(ms) => {
            let inner: Option<u64> = ms.iter().try_fold(0u64, |sum, &m| {
                let size = md.ty(m).ok()?.size;
                gapless(md, m).then_some(sum + size)
            });
            inner == Some(ty.size)
        }
        _ => false,
    }
}

/// OpCopyMemory / OpCopyMemorySized: a constant size when it is one. Both sides of the
/// copy must be aligned as its memory operands declare (a struct copied through a pointer:
/// `llvm.memcpy` with the struct's alignment); see [`copy_alignment`].
pub(super) fn lower_copy_memory(fx: &mut FunctionLowering, inst: &Instruction) -> R<()> {
    let op = inst.class.opcode;
    let dp = fx.val(id_at(inst, 0)?)?;
    let sp = fx.val(id_at(inst, 1)?)?;
    let carry = !copies_only_values(fx, id_at(inst, 1)?);
    if let Some(align) = copy_alignment(inst, if op == S::CopyMemory { 2 } else { 3 }) {
        set_alignment(fx, align);
    }
    if op == S::CopyMemory {
        let size = match fx.md.ty_of(id_at(inst, 0)?)?.k {
            TypeKind::Ptr(_, p) => fx.md.ty(p)?.size,
            _ => 0,
        };
        fx.emit(Op::CopyMem {
            d: dp,
            s: sp,
            size: size as u32,
            carry,
        });
    } else {
        let sid = id_at(inst, 2)?;
        match fx.const_val(sid) {
            Some(size) if (0..=u32::MAX as i64).contains(&size) => fx.emit(Op::CopyMem {
                d: dp,
                s: sp,
                size: size as u32,
                carry,
            }),
            _ => {
                let size = fx.val(sid)?;
                let (_, w, _) = fx.sc(fx.md.type_id_of(sid)?)?;
                fx.emit(Op::CopyMemDyn {
                    d: dp,
                    s: sp,
                    size,
                    w,
                    carry,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod copy_alignment_tests {
    use super::copy_alignment;
    use rspirv::dr::{Instruction, Operand};
    use spirv::{MemoryAccess as M, Op as S};

    /// An OpCopyMemorySized of ids 1 to 2 (size 3) with memory operands `ops`.
    fn copy(ops: Vec<Operand>) -> Instruction {
        let mut operands = vec![Operand::IdRef(1), Operand::IdRef(2), Operand::IdRef(3)];
        operands.extend(ops);
        Instruction::new(S::CopyMemorySized, None, None, operands)
    }

    #[test]
    fn a_copy_holds_both_sides_to_what_both_declare() {
        use Operand::{LiteralBit32 as Lit, MemoryAccess as Mem};
        // One set of operands: both sides.
        assert_eq!(
            copy_alignment(&copy(vec![Mem(M::ALIGNED), Lit(8)]), 3),
            Some(8)
        );
        assert_eq!(copy_alignment(&copy(vec![Mem(M::VOLATILE)]), 3), None);
        assert_eq!(copy_alignment(&copy(vec![]), 3), None);
        // Target's then source's: the smaller, only when both declare one.
        let two = |t: Vec<Operand>, s: Vec<Operand>| copy_alignment(&copy([t, s].concat()), 3);
        let aligned = |a| vec![Mem(M::ALIGNED), Lit(a)];
        assert_eq!(two(aligned(8), aligned(4)), Some(4));
        assert_eq!(two(aligned(2), aligned(16)), Some(2));
        assert_eq!(two(aligned(8), vec![Mem(M::NONE)]), None);
        assert_eq!(two(vec![Mem(M::VOLATILE)], aligned(8)), None);
    }
}
