//! One instruction at a time: the opcode tables and `lower_inst`.

use super::*;

pub(super) fn bin_of(op: S) -> Option<BinOp> {
    use BinOp as B;
    Some(match op {
        S::IAdd => B::IAdd,
        S::ISub => B::ISub,
        S::IMul => B::IMul,
        S::UDiv => B::UDiv,
        S::SDiv => B::SDiv,
        S::UMod => B::UMod,
        S::SRem => B::SRem,
        S::SMod => B::SMod,
        S::ShiftLeftLogical => B::Shl,
        S::ShiftRightLogical => B::LShr,
        S::ShiftRightArithmetic => B::AShr,
        S::BitwiseAnd | S::LogicalAnd => B::And,
        S::BitwiseOr | S::LogicalOr => B::Or,
        S::BitwiseXor => B::Xor,
        S::FAdd => B::FAdd,
        S::FSub => B::FSub,
        S::FMul | S::VectorTimesScalar => B::FMul,
        S::FDiv => B::FDiv,
        S::FRem => B::FRem,
        S::FMod => B::FMod,
        S::IEqual | S::LogicalEqual | S::PtrEqual => B::IEq,
        S::INotEqual | S::LogicalNotEqual | S::PtrNotEqual => B::INe,
        S::UGreaterThan => B::UGt,
        S::SGreaterThan => B::SGt,
        S::UGreaterThanEqual => B::UGe,
        S::SGreaterThanEqual => B::SGe,
        S::ULessThan => B::ULt,
        S::SLessThan => B::SLt,
        S::ULessThanEqual => B::ULe,
        S::SLessThanEqual => B::SLe,
        S::FOrdEqual => B::FOEq,
        S::FOrdNotEqual | S::LessOrGreater => B::FONe,
        S::FOrdLessThan => B::FOLt,
        S::FOrdGreaterThan => B::FOGt,
        S::FOrdLessThanEqual => B::FOLe,
        S::FOrdGreaterThanEqual => B::FOGe,
        S::FUnordEqual => B::FUEq,
        S::FUnordNotEqual => B::FUNe,
        S::FUnordLessThan => B::FULt,
        S::FUnordGreaterThan => B::FUGt,
        S::FUnordLessThanEqual => B::FULe,
        S::FUnordGreaterThanEqual => B::FUGe,
        S::Ordered => B::Ordered,
        S::Unordered => B::Unordered,
        _ => return None,
    })
}

pub(super) fn un_of(op: S) -> Option<UnOp> {
    Some(match op {
        S::SNegate => UnOp::SNeg,
        S::FNegate => UnOp::FNeg,
        S::Not => UnOp::Not,
        S::LogicalNot => UnOp::LNot,
        S::IsNan => UnOp::IsNan,
        S::IsInf => UnOp::IsInf,
        S::IsFinite => UnOp::IsFinite,
        S::IsNormal => UnOp::IsNormal,
        S::SignBitSet => UnOp::SignBit,
        S::BitCount => UnOp::BitCount,
        S::BitReverse => UnOp::BitReverse,
        _ => return None,
    })
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

pub(super) fn lower_inst(fx: &mut Fx, inst: &Instruction, label: Word) -> R<()> {
    let op = inst.class.opcode;
    if let Some(b) = bin_of(op) {
        let d = fx.dst(inst)?;
        let a_id = id_at(inst, 0)?;
        let a = fx.val(a_id)?;
        let bb = fx.val(id_at(inst, 1)?)?;
        let aty = *fx
            .md
            .id_ty
            .get(&a_id)
            .ok_or_else(|| malformed("untyped operand"))?;
        let (_, w, n) = fx.sc(aty)?;
        if op == S::VectorTimesScalar {
            fx.emit(Op::BinS {
                op: b,
                w,
                n: n as u8,
                d,
                a,
                b: bb,
            });
        } else if n == 1 {
            let op = match (b, w) {
                (BinOp::IAdd, 32) => Op::Add32 { d, a, b: bb },
                (BinOp::IAdd, 64) => Op::Add64 { d, a, b: bb },
                (BinOp::ISub, 32) => Op::Sub32 { d, a, b: bb },
                (BinOp::ISub, 64) => Op::Sub64 { d, a, b: bb },
                (BinOp::IMul, 32) => Op::Mul32 { d, a, b: bb },
                (BinOp::IMul, 64) => Op::Mul64 { d, a, b: bb },
                (BinOp::SLt, 32) => Op::SLt32 { d, a, b: bb },
                (BinOp::ULt, 32) => Op::ULt32 { d, a, b: bb },
                (BinOp::SLt, 64) => Op::SLt64 { d, a, b: bb },
                (BinOp::ULt, 64) => Op::ULt64 { d, a, b: bb },
                (BinOp::IEq, 32) => Op::Eq32 { d, a, b: bb },
                (BinOp::FAdd, 32) => Op::FAdd32 { d, a, b: bb },
                (BinOp::FMul, 32) => Op::FMul32 { d, a, b: bb },
                (BinOp::FSub, 32) => Op::FSub32 { d, a, b: bb },
                (BinOp::IEq, 64) => Op::Eq64 { d, a, b: bb },
                (BinOp::INe, 32) => Op::Ne32 { d, a, b: bb },
                (BinOp::INe, 64) => Op::Ne64 { d, a, b: bb },
                (BinOp::LShr, 32) => Op::Shr32 { d, a, b: bb },
                (BinOp::LShr, 64) => Op::Shr64 { d, a, b: bb },
                (BinOp::Shl, 32) => Op::Shl32 { d, a, b: bb },
                (BinOp::Shl, 64) => Op::Shl64 { d, a, b: bb },
                (BinOp::And, _) => Op::And { d, a, b: bb },
                (BinOp::Or, _) => Op::Or { d, a, b: bb },
                _ => Op::Bin {
                    op: b,
                    w,
                    d,
                    a,
                    b: bb,
                },
            };
            fx.emit(op);
        } else {
            fx.emit(Op::BinV {
                op: b,
                w,
                n: n as u8,
                d,
                a,
                b: bb,
            });
        }
        return Ok(());
    }
    if let Some(u) = un_of(op) {
        let d = fx.dst(inst)?;
        let a_id = id_at(inst, 0)?;
        let a = fx.val(a_id)?;
        let aty = *fx
            .md
            .id_ty
            .get(&a_id)
            .ok_or_else(|| malformed("untyped operand"))?;
        let (_, w, n) = fx.sc(aty)?;
        fx.emit(Op::Un {
            op: u,
            w,
            n: n as u8,
            d,
            a,
        });
        return Ok(());
    }
    if let Some(a) = atomic_of(op) {
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
        let d = if a == AtomicOp::Store {
            0
        } else {
            fx.dst(inst)?
        };
        fx.emit(Op::Atomic {
            op: a,
            w,
            d,
            p,
            v,
            c,
        });
        return Ok(());
    }
    match op {
        S::Line
        | S::NoLine
        | S::Phi
        | S::LoopMerge
        | S::SelectionMerge
        | S::LifetimeStart
        | S::LifetimeStop
        | S::MemoryBarrier
        | S::Undef
        | S::Nop
        | S::AssumeTrueKHR
        | S::ExpectKHR
        | S::ModuleProcessed => {
            if op == S::ExpectKHR {
                let d = fx.dst(inst)?;
                let s = fx.val(id_at(inst, 0)?)?;
                let n = fx.lanes_of_val(id_at(inst, 0)?)?;
                fx.mov(d, s, n);
            }
        }
        S::Load => {
            let d = fx.dst(inst)?;
            let pid = id_at(inst, 0)?;
            if let Some(b) = fx.md.builtins.get(&pid).copied() {
                fx.emit(Op::LoadBuiltin {
                    b,
                    comp: u8::MAX,
                    d,
                });
                return Ok(());
            }
            if let Some((b, c)) = fx.builtin_ptrs.get(&pid).copied() {
                fx.emit(Op::LoadBuiltin { b, comp: c, d });
                return Ok(());
            }
            let p = fx.val(pid)?;
            let ty = result_ty(inst)?;
            emit_load(fx, ty, d, p)?;
        }
        S::Store => {
            let p = fx.val(id_at(inst, 0)?)?;
            let vid = id_at(inst, 1)?;
            let v = fx.val(vid)?;
            let ty = *fx
                .md
                .id_ty
                .get(&vid)
                .ok_or_else(|| malformed("untyped store"))?;
            emit_store(fx, ty, p, v)?;
        }
        S::Variable => {
            let d = fx.dst(inst)?;
            let ty = result_ty(inst)?;
            let pointee = match fx.md.ty(ty)?.k {
                TyK::Ptr(_, p) => p,
                _ => return Err(malformed("variable of non-pointer type")),
            };
            let t = fx.md.ty(pointee)?;
            let (size, align) = (t.size, t.align);
            if size > u32::MAX as u64 {
                return Err(fx.unsup("private variable larger than 4 GiB"));
            }
            fx.private_bytes += size;
            fx.emit(Op::Alloca {
                size: size as u32,
                align: align as u32,
                d,
            });
            if let Ok(init) = id_at(inst, 1) {
                let v = fx.val(init)?;
                emit_store(fx, pointee, d, v)?;
            }
        }
        S::AccessChain | S::InBoundsAccessChain | S::PtrAccessChain | S::InBoundsPtrAccessChain => {
            lower_gep(fx, inst)?;
        }
        S::PtrCastToGeneric
        | S::GenericCastToPtr
        | S::GenericCastToPtrExplicit
        | S::CopyObject
        | S::ConvertUToPtr => {
            let d = fx.dst(inst)?;
            let sid = id_at(inst, 0)?;
            if let Some(bp) = fx.builtin_ptrs.get(&sid).copied() {
                fx.builtin_ptrs.insert(result_id(inst)?, bp);
                return Ok(());
            }
            let s = fx.val(sid)?;
            let n = fx.lanes_of_val(sid)?;
            fx.mov(d, s, n);
        }
        S::ConvertPtrToU => {
            let d = fx.dst(inst)?;
            let s = fx.val(id_at(inst, 0)?)?;
            let (_, w, _) = fx.sc(result_ty(inst)?)?;
            if w >= 64 {
                fx.mov(d, s, 1);
            } else {
                fx.emit(Op::Mask { w, d, s });
            }
        }
        S::Bitcast => {
            let d = fx.dst(inst)?;
            let sid = id_at(inst, 0)?;
            let s = fx.val(sid)?;
            let sty = *fx.md.id_ty.get(&sid).ok_or_else(|| malformed("untyped"))?;
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
        }
        S::SConvert
        | S::UConvert
        | S::FConvert
        | S::ConvertFToU
        | S::ConvertFToS
        | S::ConvertSToF
        | S::ConvertUToF
        | S::SatConvertSToU
        | S::SatConvertUToS => {
            let rid = result_id(inst)?;
            let d = fx.dst(inst)?;
            let sid = id_at(inst, 0)?;
            let s = fx.val(sid)?;
            let sty = *fx.md.id_ty.get(&sid).ok_or_else(|| malformed("untyped"))?;
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
                _ => {
                    if matches!(op, S::ConvertFToU | S::ConvertFToS) {
                        Rounding::Rtz
                    } else {
                        Rounding::Rte
                    }
                }
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
        }
        S::Select => {
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
        }
        S::Any | S::All => {
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
        }
        S::Dot => {
            let d = fx.dst(inst)?;
            let aid = id_at(inst, 0)?;
            let a = fx.val(aid)?;
            let b = fx.val(id_at(inst, 1)?)?;
            let aty = *fx.md.id_ty.get(&aid).ok_or_else(|| malformed("untyped"))?;
            let (_, w, n) = fx.sc(aty)?;
            fx.emit(Op::Dot {
                w,
                n: n as u8,
                d,
                a,
                b,
            });
        }
        S::CompositeExtract => {
            let d = fx.dst(inst)?;
            let cid = id_at(inst, 0)?;
            let s = fx.val(cid)?;
            let cty = *fx.md.id_ty.get(&cid).ok_or_else(|| malformed("untyped"))?;
            let off = lane_offset(fx, cty, inst, 1)?;
            let n = fx.md.ty(result_ty(inst)?)?.lanes as u32;
            fx.mov(d, s + off, n);
        }
        S::CompositeInsert => {
            let d = fx.dst(inst)?;
            let oid = id_at(inst, 0)?;
            let o = fx.val(oid)?;
            let cid = id_at(inst, 1)?;
            let c = fx.val(cid)?;
            let cty = *fx.md.id_ty.get(&cid).ok_or_else(|| malformed("untyped"))?;
            let off = lane_offset(fx, cty, inst, 2)?;
            let n = fx.lanes_of_val(cid)?;
            let on = fx.lanes_of_val(oid)?;
            fx.mov(d, c, n);
            fx.mov(d + off, o, on);
        }
        S::CompositeConstruct => {
            let d = fx.dst(inst)?;
            let mut off = 0;
            for i in 0..inst.operands.len() {
                let id = id_at(inst, i)?;
                let s = fx.val(id)?;
                let n = fx.lanes_of_val(id)?;
                fx.mov(d + off, s, n);
                off += n;
            }
        }
        S::VectorShuffle => {
            let d = fx.dst(inst)?;
            let aid = id_at(inst, 0)?;
            let a = fx.val(aid)?;
            let b = fx.val(id_at(inst, 1)?)?;
            let na = fx.lanes_of_val(aid)?;
            for k in 2..inst.operands.len() {
                let c = lit_at(inst, k)? as u32;
                let s = if c == u32::MAX {
                    fx.zero_slot()
                } else if c < na {
                    a + c
                } else {
                    b + (c - na)
                };
                fx.emit(Op::Mov {
                    d: d + (k as u32 - 2),
                    s,
                });
            }
        }
        S::VectorExtractDynamic => {
            let d = fx.dst(inst)?;
            let vid = id_at(inst, 0)?;
            let v = fx.val(vid)?;
            let idx = fx.val(id_at(inst, 1)?)?;
            let n = fx.lanes_of_val(vid)?;
            fx.emit(Op::ExtractDyn {
                n,
                stride: 1,
                d,
                v,
                idx,
            });
        }
        S::VectorInsertDynamic => {
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
        }
        S::PtrDiff => {
            let d = fx.dst(inst)?;
            let aid = id_at(inst, 0)?;
            let a = fx.val(aid)?;
            let b = fx.val(id_at(inst, 1)?)?;
            let elem = match fx.md.ty_of(aid)?.k {
                TyK::Ptr(_, p) => fx.md.ty(p)?.size.max(1) as u32,
                _ => 1,
            };
            fx.emit(Op::PtrDiff { elem, d, a, b });
        }
        S::CopyMemorySized | S::CopyMemory => {
            let dp = fx.val(id_at(inst, 0)?)?;
            let sp = fx.val(id_at(inst, 1)?)?;
            if op == S::CopyMemory {
                let size = match fx.md.ty_of(id_at(inst, 0)?)?.k {
                    TyK::Ptr(_, p) => fx.md.ty(p)?.size,
                    _ => 0,
                };
                fx.emit(Op::CopyMem {
                    d: dp,
                    s: sp,
                    size: size as u32,
                });
            } else {
                let sid = id_at(inst, 2)?;
                match fx.const_val(sid) {
                    Some(size) if (0..=u32::MAX as i64).contains(&size) => fx.emit(Op::CopyMem {
                        d: dp,
                        s: sp,
                        size: size as u32,
                    }),
                    _ => {
                        let size = fx.val(sid)?;
                        let (_, w, _) =
                            fx.sc(*fx.md.id_ty.get(&sid).ok_or_else(|| malformed("untyped"))?)?;
                        fx.emit(Op::CopyMemDyn {
                            d: dp,
                            s: sp,
                            size,
                            w,
                        });
                    }
                }
            }
        }
        S::FunctionCall => {
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
                TyK::Func(ps) => ps.clone(),
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
        }
        S::ControlBarrier => {
            let sem = id_at(inst, 2)?;
            let v = fx.const_val(sem).unwrap_or(0x300) as u64;
            fx.emit(Op::Barrier {
                fences: crate::Fences {
                    local: v & 0x100 != 0,
                    global: v & 0x200 != 0,
                },
                flags: NO_SLOT,
            });
        }
        S::GroupAsyncCopy => lower_async(fx, inst)?,
        S::GroupWaitEvents => lower_wait(fx, inst)?,
        S::ExtInst => lower_ext(fx, inst)?,
        S::SampledImage
        | S::ImageSampleExplicitLod
        | S::ImageRead
        | S::ImageWrite
        | S::ImageQuerySizeLod
        | S::ImageQuerySize
        | S::ImageQueryOrder
        | S::ImageQueryFormat => lower_image(fx, inst)?,
        S::Branch => {
            let t = id_at(inst, 0)?;
            let mv = fx.edge_moves(label, t)?;
            fx.emit_moves(&mv);
            let k = fx.key(t)?;
            fx.emit(Op::Br { t: k });
        }
        S::BranchConditional => {
            let c = fx.val(id_at(inst, 0)?)?;
            let t = fx.edge_target(label, id_at(inst, 1)?)?;
            let f = fx.edge_target(label, id_at(inst, 2)?)?;
            fx.emit(Op::BrIf { c, t, f });
        }
        S::Switch => {
            let sid = id_at(inst, 0)?;
            let s = fx.val(sid)?;
            let (_, w, _) = fx.sc(*fx.md.id_ty.get(&sid).ok_or_else(|| malformed("untyped"))?)?;
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
        }
        S::Return => fx.emit(Op::Ret),
        S::ReturnValue => {
            let vid = id_at(inst, 0)?;
            let s = fx.val(vid)?;
            let n = fx.lanes_of_val(vid)?;
            fx.emit(Op::RetV { s, n });
        }
        S::Unreachable | S::Kill => fx.emit(Op::Trap),
        op => return Err(fx.unsup(format!("instruction Op{op:?}"))),
    }
    Ok(())
}
