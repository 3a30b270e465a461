//! One instruction at a time: `lower_inst` picks the family, each family file lowers it.

use super::*;

mod arith;
mod composite;
mod control;
mod convert;
mod group;

use arith::*;
use composite::*;
use control::*;
use convert::*;
use group::*;

pub(super) fn lower_inst(fx: &mut FunctionLowering, inst: &Instruction, label: Word) -> R<()> {
    let op = inst.class.opcode;
    if let Some(b) = bin_of(op) {
        return lower_binary(fx, inst, b);
    }
    if let Some(u) = un_of(op) {
        return lower_unary(fx, inst, u);
    }
    if let Some(a) = atomic_of(op) {
        return lower_atomic(fx, inst, a);
    }
    if let Some(g) = group_op_of(op) {
        return lower_group(fx, inst, g);
    }
    match op {
        // Structure, debug and hints: nothing to run.
        S::Line
        | S::NoLine
        | S::Phi
        | S::LoopMerge
        | S::SelectionMerge
        | S::LifetimeStart
        | S::LifetimeStop
        | S::Undef
        | S::Nop
        | S::AssumeTrueKHR
        | S::ModuleProcessed => Ok(()),
        S::ExpectKHR => lower_expect(fx, inst),
        S::Load => lower_load(fx, inst),
        S::Store => lower_store(fx, inst),
        S::Variable => lower_variable(fx, inst),
        S::AccessChain | S::InBoundsAccessChain | S::PtrAccessChain | S::InBoundsPtrAccessChain => {
            lower_gep(fx, inst)
        }
        S::PtrDiff => lower_ptr_diff(fx, inst),
        S::CopyMemorySized | S::CopyMemory => lower_copy_memory(fx, inst),
        S::GenericCastToPtrExplicit => lower_cast_to_space(fx, inst),
        S::GenericPtrMemSemantics => lower_pointer_semantics(fx, inst),
        S::PtrCastToGeneric | S::GenericCastToPtr | S::CopyObject | S::ConvertUToPtr => {
            lower_copy_value(fx, inst)
        }
        S::ConvertPtrToU => lower_ptr_to_int(fx, inst),
        S::Bitcast => lower_bitcast(fx, inst),
        S::SConvert
        | S::UConvert
        | S::FConvert
        | S::ConvertFToU
        | S::ConvertFToS
        | S::ConvertSToF
        | S::ConvertUToF
        | S::SatConvertSToU
        | S::SatConvertUToS => lower_convert(fx, inst),
        S::Select => lower_select(fx, inst),
        S::Any | S::All => lower_any_all(fx, inst),
        S::Dot => lower_dot(fx, inst),
        S::CompositeExtract => lower_composite_extract(fx, inst),
        S::CompositeInsert => lower_composite_insert(fx, inst),
        S::CompositeConstruct => lower_composite_construct(fx, inst),
        S::VectorShuffle => lower_vector_shuffle(fx, inst),
        S::VectorExtractDynamic => lower_extract_dynamic(fx, inst),
        S::VectorInsertDynamic => lower_insert_dynamic(fx, inst),
        S::FunctionCall => lower_call(fx, inst),
        S::AtomicFlagTestAndSet | S::AtomicFlagClear => lower_atomic_flag(fx, inst),
        S::ControlBarrier => lower_barrier(fx, inst),
        S::MemoryBarrier => lower_fence(fx, inst),
        S::GroupAsyncCopy => lower_async(fx, inst),
        S::GroupWaitEvents => lower_wait(fx, inst),
        S::ExtInst => lower_ext(fx, inst),
        S::SampledImage
        | S::ImageSampleExplicitLod
        | S::ImageRead
        | S::ImageWrite
        | S::ImageQuerySizeLod
        | S::ImageQuerySize
        | S::ImageQueryOrder
        | S::ImageQueryFormat => lower_image(fx, inst),
        S::Branch => lower_branch(fx, inst, label),
        S::BranchConditional => lower_branch_conditional(fx, inst, label),
        S::Switch => lower_switch(fx, inst, label),
        S::Return => {
            fx.emit(Op::Ret);
            Ok(())
        }
        S::ReturnValue => lower_return_value(fx, inst),
        S::Unreachable | S::Kill => {
            fx.emit(Op::Trap);
            Ok(())
        }
        op => Err(fx.unsup(format!("instruction Op{op:?}"))),
    }
}
