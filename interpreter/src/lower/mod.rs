//! SPIR-V (OpenCL flavour, as clang-15 + llvm-spirv-15 emit it) → [`ir::Code`].
//!
//! Everything here runs once per program. Malformed input must give an error, never a panic:
//! every operand access goes through the checked helpers below.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Decoration, Op as S, StorageClass};

use crate::clstd::{Elem, Rounding};
use crate::ir::*;
use crate::{ArgAccess, ArgAddress, KernelArg, KernelInfo, LoadError, SourceLoc};

mod ext;
mod function;
mod inst;
mod kernel_info;
mod memory;
mod module;
mod param_writes;
mod parts;
mod types;

use ext::*;
use function::*;
use inst::*;
use kernel_info::*;
use memory::*;
use module::*;
use param_writes::*;
use parts::*;
use types::*;

type Word = u32;

type R<T> = Result<T, LoadError>;

fn malformed(s: impl Into<String>) -> LoadError {
    LoadError::Malformed(s.into())
}

/// Largest value (in lanes) a register value may have
/// ([`shadowcl_limits::Limits::constant_lanes`]).
const MAX_LANES: u64 = shadowcl_limits::LIMITS.constant_lanes;
/// Most bytes of module-scope variables a module may declare: they are allocated when it
/// loads, before any launch ([`shadowcl_limits::Limits::module_data`]).
pub(crate) const MAX_MODULE_DATA: u64 = shadowcl_limits::LIMITS.module_data;

/// What a SPIR-V type is, with the ids of the types it is made of.
#[derive(Clone, Debug)]
enum TypeKind {
    Void,
    Bool,
    Int(u8),
    Float(u8),
    Vector(Word, u32),
    Array(Word, u64),
    Struct(Vec<Word>),
    Ptr(StorageClass, Word),
    /// Parameter types (the return type is not needed).
    Func(Vec<Word>),
    /// Events, samplers, opaque structs, images: one lane, pointer-sized.
    Opaque(&'static str),
}

#[derive(Clone, Debug)]
struct Ty {
    k: TypeKind,
    size: u64,
    align: u64,
    lanes: u64,
    offsets: Vec<u64>,
    /// Nesting of vectors, arrays and structs (1 for a scalar; a pointer does not count its
    /// pointee): bounded by [`MAX_TYPE_DEPTH`] so walks over a type cannot exhaust the stack.
    depth: u32,
}

/// Deepest type nesting accepted (OpenCL C programs stay far below it;
/// [`shadowcl_limits::Limits::type_depth`]).
const MAX_TYPE_DEPTH: u32 = shadowcl_limits::LIMITS.type_depth;

pub(crate) struct Loaded {
    pub code: Code,
    pub kernels: Vec<KernelInfo>,
    pub locs: Vec<Option<SourceLoc>>,
    pub aligns: Vec<u8>,
    pub stores_back: Vec<u32>,
}

fn id_at(inst: &Instruction, i: usize) -> R<Word> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(w))
        | Some(Operand::IdScope(w))
        | Some(Operand::IdMemorySemantics(w)) => Ok(*w),
        _ => Err(malformed(format!(
            "{:?}: operand {i} is not an id",
            inst.class.opcode
        ))),
    }
}

fn lit_at(inst: &Instruction, i: usize) -> R<u64> {
    match inst.operands.get(i) {
        Some(Operand::LiteralBit32(w)) | Some(Operand::LiteralExtInstInteger(w)) => Ok(*w as u64),
        Some(Operand::LiteralBit64(w)) => Ok(*w),
        _ => Err(malformed(format!(
            "{:?}: operand {i} is not a literal",
            inst.class.opcode
        ))),
    }
}

fn result_id(inst: &Instruction) -> R<Word> {
    inst.result_id
        .ok_or_else(|| malformed(format!("{:?} without result id", inst.class.opcode)))
}

fn result_ty(inst: &Instruction) -> R<Word> {
    inst.result_type
        .ok_or_else(|| malformed(format!("{:?} without result type", inst.class.opcode)))
}

fn mask(w: u8) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn sext(v: u64, w: u8) -> i64 {
    if w >= 64 || w == 0 {
        v as i64
    } else {
        let s = 64 - w as u32;
        ((v << s) as i64) >> s
    }
}

/// Whether `inst` (its words) is an OpDecorate LinkageAttributes whose linkage type (its
/// last word) is SPIRV-LLVM-Translator's own `LinkageTypeInternal` (0x7ffffffe, in its
/// `spirv_internal.hpp`), which is no SPIR-V value. llvm-spirv-15 writes it for the helpers
/// it adds to a module itself: `__translate_ocl_memory_scope` and
/// `__translate_ocl_memory_order`, which turn OpenCL C's `memory_scope` and `memory_order`
/// into a SPIR-V scope and semantics when they are run-time values (a helper function's
/// parameters).
fn internal_linkage(inst: &[u32]) -> bool {
    const LINKAGE_TYPE_INTERNAL: u32 = 0x7fff_fffe;
    let decorate = inst
        .first()
        .is_some_and(|w| w & 0xffff == S::Decorate as u32);
    let linkage = inst.get(2) == Some(&(Decoration::LinkageAttributes as u32));
    decorate && linkage && inst.len() >= 4 && inst.last() == Some(&LINKAGE_TYPE_INTERNAL)
}

pub(crate) fn load(bytes: &[u8]) -> R<Loaded> {
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) {
        return Err(malformed(format!(
            "{} bytes is not a SPIR-V module (needs a 5-word header and whole words)",
            bytes.len()
        )));
    }
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match words[0] {
        0x0723_0203 => {}
        0x0302_2307 => words.iter_mut().for_each(|w| *w = w.swap_bytes()),
        m => return Err(malformed(format!("bad magic number {m:#010x}"))),
    }
    if words[3] > shadowcl_limits::LIMITS.id_bound {
        return Err(malformed(format!("id bound {} is implausible", words[3])));
    }
    // Structural pre-check: every instruction's word count must be non-zero and fit.
    // Module-level OpExtInst (OpenCL.DebugInfo.100 types) is valid SPIR-V that rspirv's
    // loader refuses, so those are set aside here (they only feed argument type names).
    // So are the LinkageAttributes of the functions llvm-spirv-15 writes itself with its own
    // internal linkage type, which rspirv refuses (see `internal_linkage`).
    // So is OpSpecConstantOp, whose operands rspirv decodes one per grammar operand (an
    // access chain without indices reads past its end): it is kept as an OpUndef of the
    // same type and id, and its opcode and operands go to the lowering aside.
    let mut kept = words[..5].to_vec();
    let mut dbg = vec![];
    let mut spec_ops = HashMap::new();
    let mut in_func = false;
    let mut i = 5;
    while i < words.len() {
        let wc = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if wc == 0 || i + wc > words.len() {
            return Err(malformed(format!(
                "instruction at word {i} has a bad length"
            )));
        }
        match opcode {
            54 => in_func = true,
            56 => in_func = false,
            _ => {}
        }
        if opcode == 12 && !in_func && wc >= 5 {
            dbg.push(DbgInst {
                id: words[i + 2],
                w: words[i + 3..i + wc].to_vec(),
            });
        } else if internal_linkage(&words[i..i + wc]) {
            // Dropped: a function of internal linkage has none to declare.
        } else if opcode == S::SpecConstantOp as u32 && wc >= 4 {
            spec_ops.insert(words[i + 2], words[i + 3..i + wc].to_vec());
            kept.extend_from_slice(&[(3 << 16) | S::Undef as u32, words[i + 1], words[i + 2]]);
        } else {
            kept.extend_from_slice(&words[i..i + wc]);
        }
        i += wc;
    }
    // rspirv can panic on some malformed input; keep that from reaching the caller.
    let module = std::panic::catch_unwind(|| rspirv::dr::load_words(&kept))
        .map_err(|_| malformed("the SPIR-V parser rejected the module"))?
        .map_err(|e| malformed(e.to_string()))?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lower_module(&module, &dbg, spec_ops)
    }))
    .map_err(|_| malformed("internal error while lowering the module"))?
}
