//! Part accesses of private composites: `v.x = a; v.y = b;` on a private vector (a struct's
//! field, an array's element) that lives in memory is, in unoptimised SPIR-V, a load of the
//! whole value, one `OpCompositeInsert` per part and a store of the whole value; `v.x` read
//! is a load of the whole value and an `OpCompositeExtract`. Run as they stand, the loads
//! read the parts never written yet, and a checker that follows private definedness would
//! call that a read of undefined bytes, though the source reads nothing more than the parts
//! it names. So the lowering accesses only those: the whole load and the inserts emit
//! nothing, the store becomes one store per part, in order, and each extract a load of its
//! part.
//!
//! Only where that is exactly the same: the pointer is private; for a write, the load's
//! value and each insert's are used once, by the next insert and at last the store through
//! the same pointer; for a read, every use of the load's value is an extract; and nothing
//! between the load and its last use can write memory.

use super::*;

/// What the lowering emits instead of one instruction of a block.
pub(super) enum PartAccess {
    /// Nothing: the whole load, or an insert of a part write.
    Skip,
    /// The store of a part write: each part written, in order, as (byte offset in the
    /// stored value, the part's type, the id of the value holding it, the part's first
    /// register in that value).
    Store { parts: Vec<(i64, Word, Word, u32)> },
    /// An extract of a part read: a load of the part at this byte offset, of this type.
    Load { pointer: Word, off: i64, ty: Word },
}

/// The part accesses of function `f`, by (block, instruction) index, and for each the
/// skipped load's result, whose register is free to hold a part's address.
pub(super) fn part_accesses(
    md: &Mod,
    f: &rspirv::dr::Function,
) -> HashMap<(usize, usize), (PartAccess, Word)> {
    let mut uses: HashMap<Word, u32> = HashMap::new();
    for b in &f.blocks {
        for i in &b.instructions {
            for o in &i.operands {
                if let Operand::IdRef(x) = o {
                    *uses.entry(*x).or_default() += 1;
                }
            }
        }
    }
    let uses_of = |id: Word| uses.get(&id).copied().unwrap_or(0);
    let mut out = HashMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (li, load) in b.instructions.iter().enumerate() {
            if load.class.opcode != S::Load {
                continue;
            }
            let (Some(v), Ok(p)) = (load.result_id, id_at(load, 0)) else {
                continue;
            };
            if !private_composite(md, p) || uses_of(v) == 0 {
                continue;
            }
            let later = b.instructions.iter().enumerate().skip(li + 1);
            let found = if uses_of(v) == 1 {
                part_write(md, load.result_type, later.clone(), (v, p), |x| {
                    uses_of(x) == 1
                })
            } else {
                None
            }
            .or_else(|| part_reads(md, load.result_type, later, (v, p), uses_of(v)));
            if let Some(rewrites) = found {
                out.insert((bi, li), (PartAccess::Skip, v));
                for (k, r) in rewrites {
                    out.insert((bi, k), (r, v));
                }
            }
        }
    }
    out
}

/// The inserts and store of a part write of the value `v` loaded through `p`, if the
/// instructions after the load make one (`once`: whether a value has one use).
fn part_write<'a>(
    md: &Mod,
    ty: Option<Word>,
    later: impl Iterator<Item = (usize, &'a Instruction)>,
    (v, p): (Word, Word),
    once: impl Fn(Word) -> bool,
) -> Option<Vec<(usize, PartAccess)>> {
    let (mut cur, mut rewrites, mut parts) = (v, vec![], vec![]);
    for (k, inst) in later {
        match inst.class.opcode {
            S::CompositeInsert if id_at(inst, 1).ok() == Some(cur) => {
                // Each insert's value is used once, by the next insert or the store.
                let next = inst.result_id.filter(|&n| once(n))?;
                let (off, part_ty) = part_at(md, ty, inst, 2)?;
                parts.push((off, part_ty, id_at(inst, 0).ok()?, 0));
                rewrites.push((k, PartAccess::Skip));
                cur = next;
            }
            // A blend: each lane either `cur`'s own, in place, or another value's lane
            // (`v.xy = u` once optimised: a shuffle of a constant and the loaded vector).
            S::VectorShuffle if [id_at(inst, 0).ok(), id_at(inst, 1).ok()].contains(&Some(cur)) => {
                let next = inst.result_id.filter(|&n| once(n))?;
                let (a, b) = (id_at(inst, 0).ok()?, id_at(inst, 1).ok()?);
                let TypeKind::Vector(elem, n) = md.ty(ty?).ok()?.k else {
                    return None;
                };
                let na = match md.ty_of(a).ok()?.k {
                    TypeKind::Vector(_, na) => na,
                    _ => return None,
                };
                let size = i64::try_from(md.ty(elem).ok()?.size).ok()?;
                if inst.operands.len() != 2 + n as usize {
                    return None;
                }
                for (lane, operand) in (2..inst.operands.len()).enumerate() {
                    let c = lit_at(inst, operand).ok()? as u32;
                    let (from, at) = if c < na { (a, c) } else { (b, c - na) };
                    if c == u32::MAX || (from == cur && at == lane as u32) {
                        continue;
                    }
                    if from == cur {
                        return None;
                    }
                    parts.push((lane as i64 * size, elem, from, at));
                }
                rewrites.push((k, PartAccess::Skip));
                cur = next;
            }
            S::Store
                if !parts.is_empty()
                    && id_at(inst, 0).ok() == Some(p)
                    && id_at(inst, 1).ok() == Some(cur) =>
            {
                rewrites.push((k, PartAccess::Store { parts }));
                return Some(rewrites);
            }
            _ if may_write_memory(md, inst) => return None,
            _ => {}
        }
    }
    None
}

/// The extracts of a part read of the value `v` loaded through `p`, if all its `n` uses are
/// extracts before anything can write memory.
fn part_reads<'a>(
    md: &Mod,
    ty: Option<Word>,
    later: impl Iterator<Item = (usize, &'a Instruction)>,
    (v, p): (Word, Word),
    n: u32,
) -> Option<Vec<(usize, PartAccess)>> {
    let mut rewrites = vec![];
    for (k, inst) in later {
        if inst.class.opcode == S::CompositeExtract && id_at(inst, 0).ok() == Some(v) {
            let (off, part_ty) = part_at(md, ty, inst, 1)?;
            rewrites.push((
                k,
                PartAccess::Load {
                    pointer: p,
                    off,
                    ty: part_ty,
                },
            ));
            if rewrites.len() as u32 == n {
                return Some(rewrites);
            }
        } else if may_write_memory(md, inst) {
            return None;
        }
    }
    None
}

/// Whether `p` points to a private vector, array or struct.
fn private_composite(md: &Mod, p: Word) -> bool {
    let Ok(TypeKind::Ptr(sc, pointee)) = md.ty_of(p).map(|t| &t.k) else {
        return false;
    };
    matches!(sc, StorageClass::Function | StorageClass::Private)
        && md.ty(*pointee).is_ok_and(|t| {
            matches!(
                t.k,
                TypeKind::Vector(..) | TypeKind::Array(..) | TypeKind::Struct(_)
            )
        })
}

/// The byte offset and type of the part of a value of type `ty` that an `OpCompositeInsert`
/// or `OpCompositeExtract` names (its literal indices from operand `from` on).
fn part_at(md: &Mod, ty: Option<Word>, inst: &Instruction, from: usize) -> Option<(i64, Word)> {
    let mut ty = ty?;
    let mut off = 0i64;
    for k in from..inst.operands.len() {
        let i = lit_at(inst, k).ok()?;
        let t = md.ty(ty).ok()?;
        let (step, next) = match &t.k {
            TypeKind::Vector(e, n) if i < u64::from(*n) => (i * md.ty(*e).ok()?.size, *e),
            TypeKind::Array(e, n) if i < *n => (i * md.ty(*e).ok()?.size, *e),
            TypeKind::Struct(ms) => {
                let i = usize::try_from(i).ok()?;
                (*t.offsets.get(i)?, *ms.get(i)?)
            }
            _ => return None,
        };
        off = off.checked_add(i64::try_from(step).ok()?)?;
        ty = next;
    }
    Some((off, ty))
}

/// Whether `inst` may write memory: a call, or anything but a load or an instruction that
/// makes a pointer from one ([`makes_pointer`]) and takes a pointer (stores, copies,
/// atomics, builtins that write through one). Private memory is the work-item's own, so
/// barriers do not change it.
fn may_write_memory(md: &Mod, inst: &Instruction) -> bool {
    match inst.class.opcode {
        S::FunctionCall => true,
        S::Load | S::ConvertPtrToU => false,
        op if makes_pointer(op) => false,
        _ => inst.operands.iter().any(|o| {
            matches!(o, Operand::IdRef(x)
                if md.ty_of(*x).is_ok_and(|t| matches!(t.k, TypeKind::Ptr(..))))
        }),
    }
}
