//! Arithmetic, logic and comparison instructions.

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

/// A binary operation; the common 32/64-bit scalar forms get their own ops (hot in the executor).
pub(super) fn lower_binary(fx: &mut FunctionLowering, inst: &Instruction, b: BinOp) -> R<()> {
    let op = inst.class.opcode;
    let d = fx.dst(inst)?;
    let a_id = id_at(inst, 0)?;
    let a = fx.val(a_id)?;
    let bb = fx.val(id_at(inst, 1)?)?;
    let aty = fx.md.type_id_of(a_id)?;
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
    Ok(())
}

pub(super) fn lower_unary(fx: &mut FunctionLowering, inst: &Instruction, u: UnOp) -> R<()> {
    let d = fx.dst(inst)?;
    let a_id = id_at(inst, 0)?;
    let a = fx.val(a_id)?;
    let aty = fx.md.type_id_of(a_id)?;
    let (_, w, n) = fx.sc(aty)?;
    fx.emit(Op::Un {
        op: u,
        w,
        n: n as u8,
        d,
        a,
    });
    Ok(())
}
