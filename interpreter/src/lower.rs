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

type Word = u32;
type R<T> = Result<T, LoadError>;

fn malformed(s: impl Into<String>) -> LoadError {
    LoadError::Malformed(s.into())
}

/// Largest value (in lanes) a register value may have.
const MAX_LANES: u64 = 1 << 16;

#[derive(Clone, Debug)]
enum TyK {
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
    k: TyK,
    size: u64,
    align: u64,
    lanes: u64,
    offsets: Vec<u64>,
}

pub(crate) struct Loaded {
    pub code: Code,
    pub kernels: Vec<KernelInfo>,
    pub locs: Vec<Option<SourceLoc>>,
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

/// Module-level facts shared by every function's lowering.
struct Mod<'m> {
    m: &'m Module,
    ptr_size: u64,
    types: HashMap<Word, Ty>,
    /// Type of every id that has one.
    id_ty: HashMap<Word, Word>,
    consts: HashMap<Word, Vec<u64>>,
    bad_consts: HashMap<Word, String>,
    builtins: HashMap<Word, Builtin>,
    /// Module variables: id → (is local, index).
    mod_vars: HashMap<Word, (bool, u32)>,
    names: HashMap<Word, String>,
    decos: HashMap<Word, Vec<(Decoration, Vec<Operand>)>>,
    opencl_std: HashSet<Word>,
    strings: HashMap<Word, String>,
    func_index: HashMap<Word, u32>,
    layouts: HashMap<Word, u32>,
    code: Code,
    locs: Vec<Option<SourceLoc>>,
    files: HashMap<Word, Arc<str>>,
    inst_counter: u32,
}

impl<'m> Mod<'m> {
    fn ty(&self, id: Word) -> R<&Ty> {
        self.types
            .get(&id)
            .ok_or_else(|| malformed(format!("%{id} is not a type")))
    }
    fn ty_of(&self, id: Word) -> R<&Ty> {
        let t = self
            .id_ty
            .get(&id)
            .ok_or_else(|| malformed(format!("%{id} has no type")))?;
        self.ty(*t)
    }
    fn has_deco(&self, id: Word, d: Decoration) -> bool {
        self.decos
            .get(&id)
            .is_some_and(|v| v.iter().any(|(x, _)| *x == d))
    }
    fn deco_ops(&self, id: Word, d: Decoration) -> Option<&[Operand]> {
        self.decos
            .get(&id)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, o)| o.as_slice())
    }
    fn param_attr(&self, id: Word, a: spirv::FunctionParameterAttribute) -> bool {
        self.decos.get(&id).is_some_and(|v| {
            v.iter().any(|(x, o)| {
                *x == Decoration::FuncParamAttr
                    && matches!(o.first(), Some(Operand::FunctionParameterAttribute(y)) if *y == a)
            })
        })
    }

    /// Scalar element of a scalar or vector type: (elem, bits, lanes).
    fn scalar(&self, ty: Word) -> R<(Elem, u8, u32)> {
        let t = self.ty(ty)?;
        Ok(match t.k {
            TyK::Bool => (Elem::Bool, 1, 1),
            TyK::Int(w) => (Elem::Int(w), w, 1),
            TyK::Float(w) => (Elem::Float(w), w, 1),
            TyK::Ptr(..) | TyK::Opaque(_) => (Elem::Int(64), 64, 1),
            TyK::Vector(e, n) => {
                let (el, w, _) = self.scalar(e)?;
                (el, w, n)
            }
            _ => {
                return Err(LoadError::Unsupported {
                    what: format!("operation on non-scalar type {:?}", t.k),
                    function: None,
                })
            }
        })
    }

    fn make_type(&self, inst: &Instruction) -> R<Ty> {
        let simple = |k, size: u64| Ty {
            k,
            size,
            align: size.max(1),
            lanes: 1,
            offsets: vec![],
        };
        Ok(match inst.class.opcode {
            S::TypeVoid => Ty {
                k: TyK::Void,
                size: 0,
                align: 1,
                lanes: 0,
                offsets: vec![],
            },
            S::TypeBool => simple(TyK::Bool, 1),
            S::TypeInt => {
                let w = lit_at(inst, 0)?;
                if !matches!(w, 8 | 16 | 32 | 64) {
                    return Err(LoadError::Unsupported {
                        what: format!("integer width {w}"),
                        function: None,
                    });
                }
                simple(TyK::Int(w as u8), w / 8)
            }
            S::TypeFloat => {
                let w = lit_at(inst, 0)?;
                if !matches!(w, 16 | 32 | 64) {
                    return Err(LoadError::Unsupported {
                        what: format!("float width {w}"),
                        function: None,
                    });
                }
                simple(TyK::Float(w as u8), w / 8)
            }
            S::TypeVector => {
                let e = id_at(inst, 0)?;
                let n = lit_at(inst, 1)?;
                if !matches!(n, 2 | 3 | 4 | 8 | 16) {
                    return Err(malformed(format!("vector of {n} components")));
                }
                let et = self.ty(e)?;
                let es = et.size;
                let size = es * if n == 3 { 4 } else { n };
                Ty {
                    k: TyK::Vector(e, n as u32),
                    size,
                    align: size.max(1),
                    lanes: n,
                    offsets: vec![],
                }
            }
            S::TypeArray => {
                let e = id_at(inst, 0)?;
                let len_id = id_at(inst, 1)?;
                let len = *self
                    .consts
                    .get(&len_id)
                    .and_then(|v| v.first())
                    .ok_or_else(|| malformed("array length is not a constant"))?;
                let et = self.ty(e)?;
                let size = et
                    .size
                    .checked_mul(len)
                    .filter(|s| *s < 1 << 40)
                    .ok_or_else(|| malformed("array too large"))?;
                Ty {
                    k: TyK::Array(e, len),
                    size,
                    align: et.align,
                    lanes: et.lanes.saturating_mul(len),
                    offsets: vec![],
                }
            }
            S::TypeRuntimeArray => {
                let e = id_at(inst, 0)?;
                let et = self.ty(e)?;
                Ty {
                    k: TyK::Array(e, 0),
                    size: 0,
                    align: et.align,
                    lanes: 0,
                    offsets: vec![],
                }
            }
            S::TypeStruct => {
                let id = result_id(inst)?;
                let packed = self.has_deco(id, Decoration::CPacked);
                let mut members = vec![];
                let mut offsets = vec![];
                let (mut off, mut align, mut lanes) = (0u64, 1u64, 0u64);
                for i in 0..inst.operands.len() {
                    let m = id_at(inst, i)?;
                    let mt = self.ty(m)?;
                    let a = if packed { 1 } else { mt.align.max(1) };
                    off = off.div_ceil(a) * a;
                    offsets.push(off);
                    off = off.saturating_add(mt.size);
                    align = align.max(a);
                    lanes = lanes.saturating_add(mt.lanes);
                    members.push(m);
                }
                Ty {
                    k: TyK::Struct(members),
                    size: off.div_ceil(align) * align,
                    align,
                    lanes,
                    offsets,
                }
            }
            S::TypePointer => {
                let sc = match inst.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => return Err(malformed("pointer without storage class")),
                };
                let pointee = id_at(inst, 1)?;
                simple(TyK::Ptr(sc, pointee), self.ptr_size)
            }
            S::TypeFunction => {
                let ret = id_at(inst, 0)?;
                let mut ps = vec![];
                for i in 1..inst.operands.len() {
                    ps.push(id_at(inst, i)?);
                }
                let _ = ret;
                Ty {
                    k: TyK::Func(ps),
                    size: 0,
                    align: 1,
                    lanes: 0,
                    offsets: vec![],
                }
            }
            S::TypeEvent => simple(TyK::Opaque("event_t"), 8),
            S::TypeSampler => simple(TyK::Opaque("sampler_t"), 8),
            S::TypeOpaque => simple(TyK::Opaque("opaque"), 0),
            S::TypeImage => simple(TyK::Opaque(image_type_name(inst)), 8),
            S::TypeSampledImage => simple(TyK::Opaque("sampled_image"), 8),
            S::TypeDeviceEvent | S::TypeReserveId | S::TypeQueue | S::TypePipe => {
                simple(TyK::Opaque("opaque"), 8)
            }
            op => {
                return Err(LoadError::Unsupported {
                    what: format!("type Op{op:?}"),
                    function: None,
                })
            }
        })
    }

    /// Memory leaves of a type, in register-lane order.
    fn leaves(&self, ty: Word, base: u64, out: &mut Vec<Leaf>) -> R<()> {
        if out.len() as u64 > MAX_LANES {
            return Err(LoadError::Unsupported {
                what: "value with too many lanes".into(),
                function: None,
            });
        }
        let t = self.ty(ty)?;
        let off32 = |o: u64| u32::try_from(o).map_err(|_| malformed("offset too large"));
        match &t.k {
            TyK::Vector(e, n) => {
                let es = self.ty(*e)?.size;
                for i in 0..*n as u64 {
                    out.push(Leaf {
                        off: off32(base + i * es)?,
                        size: es as u8,
                    });
                }
            }
            TyK::Array(e, n) => {
                let es = self.ty(*e)?.size;
                for i in 0..*n {
                    self.leaves(*e, base + i * es, out)?;
                }
            }
            TyK::Struct(ms) => {
                for (m, o) in ms.iter().zip(t.offsets.iter()) {
                    self.leaves(*m, base + o, out)?;
                }
            }
            TyK::Void | TyK::Func(..) => {}
            _ => out.push(Leaf {
                off: off32(base)?,
                size: t.size.min(8) as u8,
            }),
        }
        Ok(())
    }

    fn layout(&mut self, ty: Word) -> R<u32> {
        if let Some(l) = self.layouts.get(&ty) {
            return Ok(*l);
        }
        let mut v = vec![];
        self.leaves(ty, 0, &mut v)?;
        let i = self.code.layouts.len() as u32;
        self.code.layouts.push(v);
        self.layouts.insert(ty, i);
        Ok(i)
    }

    fn const_lanes(&self, inst: &Instruction, ty: Word) -> R<Vec<u64>> {
        let t = self.ty(ty)?;
        Ok(match inst.class.opcode {
            S::Constant | S::SpecConstant => {
                let v = lit_at(inst, 0)?;
                let w = match t.k {
                    TyK::Int(w) | TyK::Float(w) => w,
                    _ => 64,
                };
                vec![v & mask(w)]
            }
            S::ConstantSampler => {
                let addressing = match inst.operands.first() {
                    Some(Operand::SamplerAddressingMode(a)) => *a as u32,
                    _ => return Err(malformed("OpConstantSampler without addressing mode")),
                };
                let normalized = lit_at(inst, 1)? != 0;
                let linear = matches!(
                    inst.operands.get(2),
                    Some(Operand::SamplerFilterMode(spirv::SamplerFilterMode::Linear))
                );
                vec![crate::image::sampler::from_spirv(addressing, normalized, linear) as u64]
            }
            S::ConstantTrue | S::SpecConstantTrue => vec![1],
            S::ConstantFalse | S::SpecConstantFalse => vec![0],
            S::ConstantNull | S::Undef => {
                if t.lanes > MAX_LANES {
                    return Err(LoadError::Unsupported {
                        what: "constant too large".into(),
                        function: None,
                    });
                }
                vec![0; t.lanes as usize]
            }
            S::ConstantComposite | S::SpecConstantComposite => {
                let mut v = vec![];
                for i in 0..inst.operands.len() {
                    let c = id_at(inst, i)?;
                    let l = self.consts.get(&c).ok_or_else(|| {
                        malformed(format!("constant %{c} not defined before use"))
                    })?;
                    v.extend_from_slice(l);
                }
                v
            }
            op => {
                return Err(LoadError::Unsupported {
                    what: format!("constant Op{op:?}"),
                    function: None,
                })
            }
        })
    }

    fn var_init_bytes(&mut self, pointee: Word, init: Option<Word>) -> R<Vec<u8>> {
        let t = self.ty(pointee)?;
        let mut bytes = vec![0u8; t.size as usize];
        if let Some(init) = init {
            let lanes = self
                .consts
                .get(&init)
                .ok_or_else(|| LoadError::Unsupported {
                    what: format!("initializer %{init} of a module variable is not a constant"),
                    function: None,
                })?
                .clone();
            let mut leaves = vec![];
            self.leaves(pointee, 0, &mut leaves)?;
            for (leaf, v) in leaves.iter().zip(lanes.iter()) {
                let b = v.to_le_bytes();
                let o = leaf.off as usize;
                if let Some(dst) = bytes.get_mut(o..o + leaf.size as usize) {
                    dst.copy_from_slice(&b[..leaf.size as usize]);
                }
            }
        }
        Ok(bytes)
    }
}

fn builtin_of(b: spirv::BuiltIn) -> Option<Builtin> {
    use spirv::BuiltIn as B;
    Some(match b {
        B::GlobalInvocationId => Builtin::GlobalId,
        B::LocalInvocationId => Builtin::LocalId,
        B::WorkgroupId => Builtin::GroupId,
        B::GlobalSize => Builtin::GlobalSize,
        B::WorkgroupSize => Builtin::LocalSize,
        B::EnqueuedWorkgroupSize => Builtin::EnqueuedLocalSize,
        B::NumWorkgroups => Builtin::NumGroups,
        B::GlobalOffset => Builtin::GlobalOffset,
        B::WorkDim => Builtin::WorkDim,
        B::GlobalLinearId => Builtin::GlobalLinearId,
        B::LocalInvocationIndex => Builtin::LocalIndex,
        B::SubgroupSize => Builtin::SubgroupSize,
        B::SubgroupMaxSize => Builtin::SubgroupMaxSize,
        B::NumSubgroups | B::NumEnqueuedSubgroups => Builtin::NumSubgroups,
        B::SubgroupId => Builtin::SubgroupId,
        B::SubgroupLocalInvocationId => Builtin::SubgroupLocalId,
        _ => return None,
    })
}

const ALLOWED_CAPS: &[spirv::Capability] = {
    use spirv::Capability as C;
    &[
        C::Addresses,
        C::Linkage,
        C::Kernel,
        C::Vector16,
        C::Float16Buffer,
        C::Float16,
        C::Float64,
        C::Int64,
        C::Int64Atomics,
        C::Int8,
        C::Int16,
        C::GenericPointer,
        C::Groups,
        C::LiteralSampler,
        C::ImageBasic,
        C::Sampled1D,
        C::SampledBuffer,
        C::ExpectAssumeKHR,
        C::KernelAttributesINTEL,
    ]
};

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
    if words[3] > 1 << 22 {
        return Err(malformed(format!("id bound {} is implausible", words[3])));
    }
    // Structural pre-check: every instruction's word count must be non-zero and fit.
    // Module-level OpExtInst (OpenCL.DebugInfo.100 types) is valid SPIR-V that rspirv's
    // loader refuses, so those are set aside here (they only feed argument type names).
    let mut kept = words[..5].to_vec();
    let mut dbg = vec![];
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
        } else {
            kept.extend_from_slice(&words[i..i + wc]);
        }
        i += wc;
    }
    // rspirv can panic on some malformed input; keep that from reaching the caller.
    let module = std::panic::catch_unwind(|| rspirv::dr::load_words(&kept))
        .map_err(|_| malformed("the SPIR-V parser rejected the module"))?
        .map_err(|e| malformed(e.to_string()))?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lower_module(&module, &dbg)))
        .map_err(|_| malformed("internal error while lowering the module"))?
}

/// A module-level OpExtInst: result id and the words from the set id on.
struct DbgInst {
    id: Word,
    w: Vec<u32>,
}

fn lower_module(m: &Module, dbg: &[DbgInst]) -> R<Loaded> {
    for c in &m.capabilities {
        if let Some(Operand::Capability(cap)) = c.operands.first() {
            if !ALLOWED_CAPS.contains(cap) {
                return Err(LoadError::Unsupported {
                    what: format!("capability {cap:?}"),
                    function: None,
                });
            }
        }
    }
    let ptr_size = match m.memory_model.as_ref().and_then(|i| i.operands.first()) {
        Some(Operand::AddressingModel(spirv::AddressingModel::Physical64)) => 8,
        Some(Operand::AddressingModel(a)) => {
            return Err(LoadError::Unsupported {
                what: format!("addressing model {a:?} (only Physical64 is supported)"),
                function: None,
            })
        }
        _ => return Err(malformed("missing OpMemoryModel")),
    };
    let mut md = Mod {
        m,
        ptr_size,
        types: HashMap::new(),
        id_ty: HashMap::new(),
        consts: HashMap::new(),
        bad_consts: HashMap::new(),
        builtins: HashMap::new(),
        mod_vars: HashMap::new(),
        names: HashMap::new(),
        decos: HashMap::new(),
        opencl_std: HashSet::new(),
        strings: HashMap::new(),
        func_index: HashMap::new(),
        layouts: HashMap::new(),
        code: Code::default(),
        locs: vec![],
        files: HashMap::new(),
        inst_counter: 0,
    };
    for i in &m.ext_inst_imports {
        if let (Some(id), Some(Operand::LiteralString(s))) = (i.result_id, i.operands.first()) {
            if s == "OpenCL.std" {
                md.opencl_std.insert(id);
            }
        }
    }
    for i in &m.debug_names {
        if i.class.opcode == S::Name {
            if let (Ok(id), Some(Operand::LiteralString(s))) = (id_at(i, 0), i.operands.get(1)) {
                md.names.insert(id, s.clone());
            }
        }
    }
    for i in &m.debug_string_source {
        if i.class.opcode == S::String {
            if let (Some(id), Some(Operand::LiteralString(s))) = (i.result_id, i.operands.first()) {
                md.strings.insert(id, s.clone());
            }
        }
    }
    for i in &m.annotations {
        match i.class.opcode {
            S::Decorate => {
                let id = id_at(i, 0)?;
                if let Some(Operand::Decoration(d)) = i.operands.get(1) {
                    md.decos
                        .entry(id)
                        .or_default()
                        .push((*d, i.operands[2..].to_vec()));
                }
            }
            S::DecorationGroup | S::GroupDecorate | S::MemberDecorate | S::DecorateId => {}
            _ => {}
        }
    }
    // Types, constants and module variables, in order.
    for inst in &m.types_global_values {
        let op = inst.class.opcode;
        if matches!(op, S::Line | S::NoLine) {
            continue;
        }
        if op == S::TypeForwardPointer {
            continue;
        }
        let id = result_id(inst)?;
        if let Some(t) = inst.result_type {
            md.id_ty.insert(id, t);
        }
        if inst.class.opcode == S::Variable {
            let ty = result_ty(inst)?;
            let (sc, pointee) = match md.ty(ty)?.k {
                TyK::Ptr(sc, p) => (sc, p),
                _ => return Err(malformed("variable of non-pointer type")),
            };
            let name = md.names.get(&id).cloned().unwrap_or_default();
            let init = id_at(inst, 1).ok();
            match sc {
                StorageClass::Input => {
                    let b = match md.deco_ops(id, Decoration::BuiltIn) {
                        Some([Operand::BuiltIn(b), ..]) => builtin_of(*b),
                        _ => None,
                    };
                    let b = b.ok_or_else(|| LoadError::Unsupported {
                        what: format!("input variable {name}"),
                        function: None,
                    })?;
                    md.builtins.insert(id, b);
                }
                StorageClass::UniformConstant | StorageClass::CrossWorkgroup => {
                    let init = md.var_init_bytes(pointee, init)?;
                    let pt = md.ty(pointee)?;
                    let elem_size = match pt.k {
                        TyK::Array(e, _) => md.ty(e)?.size as u32,
                        _ => pt.size as u32,
                    };
                    let k = md.code.const_vars.len() as u32;
                    md.code.const_vars.push(ModVar {
                        name,
                        size: init.len() as u64,
                        elem_size: elem_size.max(1),
                        init,
                        writable: sc == StorageClass::CrossWorkgroup,
                    });
                    md.mod_vars.insert(id, (false, k));
                    md.consts
                        .insert(id, vec![ptr::enc(ptr::TAG_LAUNCH, k as u64 + 1, 0)]);
                }
                StorageClass::Workgroup => {
                    let pt = md.ty(pointee)?;
                    let elem_size = match pt.k {
                        TyK::Array(e, _) => md.ty(e)?.size as u32,
                        _ => pt.size as u32,
                    };
                    let size = pt.size;
                    let k = md.code.local_vars.len() as u32;
                    md.code.local_vars.push(ModVar {
                        name: name
                            .rsplit('.')
                            .next()
                            .map(str::to_string)
                            .unwrap_or_default(),
                        size,
                        elem_size: elem_size.max(1),
                        init: vec![],
                        writable: true,
                    });
                    md.mod_vars.insert(id, (true, k));
                    md.consts
                        .insert(id, vec![ptr::enc(ptr::TAG_LOCAL, k as u64, 0)]);
                }
                sc => {
                    return Err(LoadError::Unsupported {
                        what: format!("module variable {name} in storage class {sc:?}"),
                        function: None,
                    })
                }
            }
            continue;
        }
        if is_type(op) {
            let t = md.make_type(inst)?;
            md.types.insert(id, t);
            continue;
        }
        let ty = result_ty(inst)?;
        match md.const_lanes(inst, ty) {
            Ok(v) => {
                md.consts.insert(id, v);
            }
            Err(e) => {
                md.bad_consts.insert(id, e.to_string());
            }
        }
    }
    // Function indices first (calls may go forward).
    let mut bodies = vec![];
    for f in &m.functions {
        let def = f
            .def
            .as_ref()
            .ok_or_else(|| malformed("function without OpFunction"))?;
        let id = result_id(def)?;
        if f.blocks.is_empty() {
            continue;
        }
        md.func_index.insert(id, bodies.len() as u32);
        bodies.push(f);
    }
    for f in &m.functions {
        for p in &f.parameters {
            if let (Some(id), Some(t)) = (p.result_id, p.result_type) {
                md.id_ty.insert(id, t);
            }
        }
        for b in &f.blocks {
            for i in &b.instructions {
                if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
                    md.id_ty.insert(id, t);
                }
            }
        }
    }
    let mut uses: Vec<FnUses> = vec![];
    for f in &bodies {
        let u = lower_function(&mut md, f)?;
        uses.push(u);
    }
    // Kernels.
    let mut kernels = vec![];
    for ep in &m.entry_points {
        if !matches!(
            ep.operands.first(),
            Some(Operand::ExecutionModel(spirv::ExecutionModel::Kernel))
        ) {
            continue;
        }
        let fid = id_at(ep, 1)?;
        let name = match ep.operands.get(2) {
            Some(Operand::LiteralString(s)) => s.clone(),
            _ => return Err(malformed("entry point without a name")),
        };
        let fi = *md
            .func_index
            .get(&fid)
            .ok_or_else(|| LoadError::Unsupported {
                what: format!("kernel {name} has no body"),
                function: Some(name.clone()),
            })?;
        let (info, kc) = kernel_info(&mut md, bodies[fi as usize], fid, fi, &name, &uses, dbg)?;
        kernels.push(info);
        md.code.kernels.push(kc);
    }
    md.code
        .verify()
        .map_err(|e| malformed(format!("internal: lowered code is inconsistent: {e}")))?;
    Ok(Loaded {
        code: md.code,
        kernels,
        locs: md.locs,
    })
}

fn is_type(op: S) -> bool {
    matches!(
        op,
        S::TypeVoid
            | S::TypeBool
            | S::TypeInt
            | S::TypeFloat
            | S::TypeVector
            | S::TypeArray
            | S::TypeRuntimeArray
            | S::TypeStruct
            | S::TypePointer
            | S::TypeFunction
            | S::TypeEvent
            | S::TypeSampler
            | S::TypeOpaque
            | S::TypeImage
            | S::TypeSampledImage
    )
}

/// Type name as OpenCL C spells it, from the SPIR-V type (signedness is lost in SPIR-V).
fn cl_type_name(md: &Mod, ty: Word) -> String {
    let Ok(t) = md.ty(ty) else {
        return String::new();
    };
    match &t.k {
        TyK::Void => "void".into(),
        TyK::Bool => "bool".into(),
        TyK::Int(8) => "char".into(),
        TyK::Int(16) => "short".into(),
        TyK::Int(32) => "int".into(),
        TyK::Int(_) => "long".into(),
        TyK::Float(16) => "half".into(),
        TyK::Float(32) => "float".into(),
        TyK::Float(_) => "double".into(),
        TyK::Vector(e, n) => format!("{}{n}", cl_type_name(md, *e)),
        TyK::Ptr(_, p) => format!("{}*", cl_type_name(md, *p)),
        TyK::Struct(_) => {
            let n = md.names.get(&ty).cloned().unwrap_or_default();
            match n.strip_prefix("struct.") {
                Some(s) => format!("struct {s}"),
                None => n,
            }
        }
        TyK::Array(e, n) => format!("{}[{n}]", cl_type_name(md, *e)),
        TyK::Opaque(s) => (*s).into(),
        TyK::Func(..) => String::new(),
    }
}

/// OpenCL C name of an OpTypeImage (Dim, Arrayed).
fn image_type_name(inst: &Instruction) -> &'static str {
    let arrayed = lit_at(inst, 3).unwrap_or(0) != 0;
    match (inst.operands.get(1), arrayed) {
        (Some(Operand::Dim(spirv::Dim::Dim1D)), false) => "image1d_t",
        (Some(Operand::Dim(spirv::Dim::Dim1D)), true) => "image1d_array_t",
        (Some(Operand::Dim(spirv::Dim::DimBuffer)), _) => "image1d_buffer_t",
        (Some(Operand::Dim(spirv::Dim::Dim2D)), false) => "image2d_t",
        (Some(Operand::Dim(spirv::Dim::Dim2D)), true) => "image2d_array_t",
        (Some(Operand::Dim(spirv::Dim::Dim3D)), _) => "image3d_t",
        _ => "image",
    }
}

/// Access qualifier of an image parameter type (`None` for everything else).
fn image_access(md: &Mod, ty: Word) -> ArgAccess {
    let inst =
        md.m.types_global_values
            .iter()
            .find(|i| i.result_id == Some(ty) && i.class.opcode == S::TypeImage);
    match inst.and_then(|i| i.operands.get(7)) {
        Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadOnly)) => ArgAccess::ReadOnly,
        Some(Operand::AccessQualifier(spirv::AccessQualifier::WriteOnly)) => ArgAccess::WriteOnly,
        Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadWrite)) => ArgAccess::ReadWrite,
        // OpenCL C defaults an image argument to read_only.
        _ if inst.is_some() => ArgAccess::ReadOnly,
        _ => ArgAccess::None,
    }
}

fn kernel_info(
    md: &mut Mod,
    f: &rspirv::dr::Function,
    fid: Word,
    fi: u32,
    name: &str,
    uses: &[FnUses],
    dbg: &[DbgInst],
) -> R<(KernelInfo, KernelCode)> {
    let mut args = vec![];
    let mut params = vec![];
    let dbg = debug_arg_types(md, name, dbg);
    for (i, p) in f.parameters.iter().enumerate() {
        let pid = result_id(p)?;
        let pty = result_ty(p)?;
        let t = md.ty(pty)?.clone();
        let pname = md.names.get(&pid).cloned().unwrap_or_default();
        let mut qual = 0u64;
        if md.param_attr(pid, spirv::FunctionParameterAttribute::NoAlias) {
            qual |= 2;
        }
        if md.has_deco(pid, Decoration::Volatile) {
            qual |= 4;
        }
        let (address, size, pointee_size, kind) = match t.k {
            TyK::Ptr(sc, pointee) => {
                let ps = md.ty(pointee).map(|t| t.size).unwrap_or(0) as u32;
                match sc {
                    StorageClass::CrossWorkgroup => (
                        ArgAddress::Global,
                        8,
                        ps,
                        ParamKind::Buffer { constant: false },
                    ),
                    StorageClass::UniformConstant => {
                        qual |= 1;
                        (
                            ArgAddress::Constant,
                            8,
                            ps,
                            ParamKind::Buffer { constant: true },
                        )
                    }
                    StorageClass::Workgroup => (ArgAddress::Local, 0, ps, ParamKind::Local),
                    StorageClass::Function
                        if md.param_attr(pid, spirv::FunctionParameterAttribute::ByVal) =>
                    {
                        let pt = md.ty(pointee)?;
                        (
                            ArgAddress::Private,
                            pt.size as usize,
                            0,
                            ParamKind::ByVal {
                                size: pt.size as u32,
                                align: pt.align as u32,
                            },
                        )
                    }
                    sc => {
                        return Err(LoadError::Unsupported {
                            what: format!("kernel argument {pname} in storage class {sc:?}"),
                            function: Some(name.into()),
                        })
                    }
                }
            }
            TyK::Opaque(n) if n.starts_with("image") => {
                (ArgAddress::Global, 8, 0, ParamKind::Image)
            }
            TyK::Opaque(_) => (ArgAddress::Private, 8, 0, ParamKind::Opaque),
            _ => {
                let l = md.layout(pty)?;
                (
                    ArgAddress::Private,
                    t.size as usize,
                    0,
                    ParamKind::Value { layout: l },
                )
            }
        };
        let (mut type_name, dq) = dbg
            .get(i)
            .cloned()
            .unwrap_or_else(|| (cl_type_name(md, pty), 0));
        if type_name.is_empty() {
            type_name = cl_type_name(md, pty);
        }
        qual |= dq;
        let is_sampler = matches!(t.k, TyK::Opaque("sampler_t"));
        args.push(KernelArg {
            name: pname,
            type_name,
            address,
            access: image_access(md, pty),
            type_qualifier: qual,
            size,
            pointee_size,
            is_sampler,
        });
        params.push(kind);
    }
    let mut reqd = [0u64; 3];
    let mut hint = [0u64; 3];
    let mut attributes = vec![];
    for em in &md.m.execution_modes {
        if id_at(em, 0)? != fid {
            continue;
        }
        let lits = |em: &Instruction| -> [u64; 3] {
            [
                lit_at(em, 2).unwrap_or(0),
                lit_at(em, 3).unwrap_or(0),
                lit_at(em, 4).unwrap_or(0),
            ]
        };
        match em.operands.get(1) {
            Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSize)) => {
                reqd = lits(em);
                attributes.push(format!(
                    "reqd_work_group_size({},{},{})",
                    reqd[0], reqd[1], reqd[2]
                ));
            }
            Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSizeHint)) => {
                hint = lits(em);
                attributes.push(format!(
                    "work_group_size_hint({},{},{})",
                    hint[0], hint[1], hint[2]
                ));
            }
            _ => {}
        }
    }
    // Module variables reachable from the kernel.
    let mut seen = HashSet::new();
    let mut stack = vec![fi];
    let mut vars = HashSet::new();
    let mut private_mem_size = 0;
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Some((v, c, p)) = uses.get(x as usize) {
            vars.extend(v.iter().copied());
            stack.extend(c.iter().copied());
            private_mem_size += p;
        }
    }
    let mut local_vars_used = vec![false; md.code.local_vars.len()];
    let mut local_mem_size = 0;
    for v in vars {
        if let Some((true, k)) = md.mod_vars.get(&v) {
            local_vars_used[*k as usize] = true;
            local_mem_size += md.code.local_vars[*k as usize].size;
        }
    }
    Ok((
        KernelInfo {
            name: name.into(),
            args,
            reqd_work_group_size: reqd,
            work_group_size_hint: hint,
            attributes: attributes.join(" "),
            local_mem_size,
            private_mem_size,
        },
        KernelCode {
            func: fi,
            params,
            local_vars_used,
        },
    ))
}

/// Argument type names and const qualifiers from OpenCL.DebugInfo.100, when present:
/// the `DebugLocalVariable`s with an argument number whose scope is the kernel's
/// `DebugFunction`.
fn debug_arg_types(md: &Mod, kernel: &str, insts: &[DbgInst]) -> Vec<(String, u64)> {
    let m = md.m;
    let Some(set) = m
        .ext_inst_imports
        .iter()
        .find_map(|i| match i.operands.first() {
            Some(Operand::LiteralString(s)) if s.starts_with("OpenCL.DebugInfo") => i.result_id,
            _ => None,
        })
    else {
        return vec![];
    };
    let dbg: HashMap<Word, &[u32]> = insts
        .iter()
        .filter(|i| i.w.first() == Some(&set))
        .map(|i| (i.id, i.w.as_slice()))
        .collect();
    // Instruction numbers of the OpenCL.DebugInfo.100 grammar; operand k is word k.
    const BASIC: u32 = 2;
    const POINTER: u32 = 3;
    const QUALIFIER: u32 = 4;
    const VECTOR: u32 = 6;
    const TYPEDEF: u32 = 7;
    const COMPOSITE: u32 = 10;
    const FUNCTION: u32 = 20;
    const LOCAL_VAR: u32 = 26;
    let w = |i: &[u32], k: usize| i.get(k).copied().unwrap_or(u32::MAX);
    let str_of = |id: Word| md.strings.get(&id).cloned().unwrap_or_default();
    let Some(func) = dbg
        .iter()
        .find_map(|(id, i)| (w(i, 1) == FUNCTION && str_of(w(i, 2)) == kernel).then_some(*id))
    else {
        return vec![];
    };
    fn name_of(
        dbg: &HashMap<Word, &[u32]>,
        md: &Mod,
        id: Word,
        depth: u32,
        qual: &mut u64,
    ) -> String {
        let Some(i) = dbg.get(&id) else {
            return "void".into();
        };
        if depth > 16 {
            return String::new();
        }
        let w = |k: usize| i.get(k).copied().unwrap_or(u32::MAX);
        let s = |k: usize| md.strings.get(&w(k)).cloned().unwrap_or_default();
        match w(1) {
            BASIC | TYPEDEF => s(2),
            COMPOSITE => {
                let n = s(2);
                if n.is_empty() {
                    "struct".into()
                } else {
                    format!("struct {n}")
                }
            }
            VECTOR => format!("{}{}", name_of(dbg, md, w(2), depth + 1, qual), w(3)),
            POINTER => {
                let mut inner = 0;
                let p = name_of(dbg, md, w(2), depth + 1, &mut inner);
                if depth == 0 {
                    *qual |= inner;
                }
                format!("{p}*")
            }
            QUALIFIER => {
                // ConstType, VolatileType, RestrictType
                *qual |= match w(3) {
                    0 => 1,
                    1 => 4,
                    2 => 2,
                    _ => 0,
                };
                name_of(dbg, md, w(2), depth + 1, qual)
            }
            _ => String::new(),
        }
    }
    let mut out: Vec<(u32, String, u64)> = vec![];
    for i in dbg.values() {
        // DebugLocalVariable: name, type, source, line, column, parent, flags, arg number.
        if w(i, 1) == LOCAL_VAR && w(i, 7) == func && i.len() > 9 {
            let mut q = 0;
            let n = name_of(&dbg, md, w(i, 3), 0, &mut q);
            out.push((w(i, 9), n, q));
        }
    }
    out.sort_by_key(|x| x.0);
    out.into_iter().map(|(_, n, q)| (n, q)).collect()
}

/// What a lowered function references: module variables, callees, bytes of private
/// variables.
type FnUses = (HashSet<Word>, HashSet<u32>, u64);

/// Phis of one block: (result, [(value, predecessor)]).
type Phis = Vec<(Word, Vec<(Word, Word)>)>;
/// An edge stub: its moves `(dst, src, lanes)` and the block key it continues to.
type Stub = (Vec<(u32, u32, u32)>, u32);

/// Per-function lowering state.
struct Fx<'a, 'm> {
    md: &'a mut Mod<'m>,
    fname: String,
    slots: HashMap<Word, (u32, u32)>,
    const_slots: HashMap<Word, u32>,
    consts: Vec<u64>,
    const_base: u32,
    temp_base: u32,
    block_key: HashMap<Word, u32>,
    /// Phis per block label: (dst, [(value, pred)]).
    phis: HashMap<Word, Phis>,
    stubs: Vec<Stub>,
    nblocks: u32,
    start: usize,
    switch_tabs: Vec<u32>,
    used_vars: HashSet<Word>,
    callees: HashSet<u32>,
    cur_inst: u32,
    /// Access chains into builtin variables: id → (builtin, component).
    builtin_ptrs: HashMap<Word, (Builtin, u8)>,
    private_bytes: u64,
    /// Sign extensions to 64 bits used only as access-chain indices: result → (source, bits).
    sconv: HashMap<Word, (Word, u8)>,
}

impl<'a, 'm> Fx<'a, 'm> {
    fn unsup(&self, what: impl Into<String>) -> LoadError {
        LoadError::Unsupported {
            what: what.into(),
            function: Some(self.fname.clone()),
        }
    }
    fn emit(&mut self, op: Op) {
        self.md.code.ops.push(op);
        self.md.code.inst_of.push(self.cur_inst);
    }
    fn dst(&self, inst: &Instruction) -> R<u32> {
        let id = result_id(inst)?;
        self.slots
            .get(&id)
            .map(|s| s.0)
            .ok_or_else(|| malformed(format!("%{id} has no register")))
    }
    /// Slot of an operand id (allocating a constant slot on first use).
    fn val(&mut self, id: Word) -> R<u32> {
        if let Some(s) = self.slots.get(&id) {
            return Ok(s.0);
        }
        if let Some(s) = self.const_slots.get(&id) {
            return Ok(*s);
        }
        if let Some(v) = self.md.consts.get(&id) {
            let s = self.const_base + self.consts.len() as u32;
            let v = v.clone();
            self.consts.extend_from_slice(&v);
            self.const_slots.insert(id, s);
            if self.md.mod_vars.contains_key(&id) {
                self.used_vars.insert(id);
            }
            return Ok(s);
        }
        if let Some(e) = self.md.bad_consts.get(&id) {
            return Err(self.unsup(e.clone()));
        }
        if self.md.builtins.contains_key(&id) {
            return Err(self.unsup("builtin variable used other than by a load"));
        }
        Err(malformed(format!("%{id} is used but never defined")))
    }
    fn lanes_of_val(&self, id: Word) -> R<u32> {
        Ok(self.md.ty_of(id)?.lanes as u32)
    }
    fn const_val(&self, id: Word) -> Option<i64> {
        let v = *self.md.consts.get(&id)?.first()?;
        let w = match self.md.ty_of(id).ok()?.k {
            TyK::Int(w) => w,
            _ => 64,
        };
        Some(sext(v, w))
    }
    fn zero_slot(&mut self) -> u32 {
        let s = self.const_base + self.consts.len() as u32;
        self.consts.push(0);
        s
    }
    fn mov(&mut self, d: u32, s: u32, n: u32) {
        if d == s || n == 0 {
            return;
        }
        if n == 1 {
            self.emit(Op::Mov { d, s });
        } else {
            self.emit(Op::MovN { d, s, n });
        }
    }
    fn key(&self, label: Word) -> R<u32> {
        self.block_key
            .get(&label)
            .copied()
            .ok_or_else(|| malformed(format!("branch to %{label}, which is not a block")))
    }
    fn edge_moves(&mut self, pred: Word, succ: Word) -> R<Vec<(u32, u32, u32)>> {
        let Some(ph) = self.phis.get(&succ).cloned() else {
            return Ok(vec![]);
        };
        let mut mv = vec![];
        for (dst, inc) in ph {
            let (v, _) = inc
                .iter()
                .find(|(_, p)| *p == pred)
                .ok_or_else(|| malformed(format!("phi %{dst} has no value for %{pred}")))?;
            let d = self.slots.get(&dst).map(|s| s.0).unwrap_or(0);
            let n = self.lanes_of_val(dst)?;
            let s = self.val(*v)?;
            mv.push((d, s, n));
        }
        Ok(mv)
    }
    fn emit_moves(&mut self, mv: &[(u32, u32, u32)]) {
        let overlaps = mv.iter().any(|&(_, s, sn)| {
            mv.iter().any(|&(d, _, dn)| {
                s < d + dn && d < s + sn && !(s == d && sn == dn && mv.len() == 1)
            })
        });
        if overlaps {
            let mut t = self.temp_base;
            let mut temps = vec![];
            for &(_, s, n) in mv {
                self.mov(t, s, n);
                temps.push(t);
                t += n;
            }
            for (&(d, _, n), t) in mv.iter().zip(temps) {
                self.mov(d, t, n);
            }
        } else {
            for &(d, s, n) in mv {
                self.mov(d, s, n);
            }
        }
    }
    /// Branch target for an edge: the block itself, or a stub that does the phi moves.
    fn edge_target(&mut self, pred: Word, succ: Word) -> R<u32> {
        let mv = self.edge_moves(pred, succ)?;
        let k = self.key(succ)?;
        if mv.is_empty() {
            return Ok(k);
        }
        self.stubs.push((mv, k));
        Ok(self.nblocks + self.stubs.len() as u32 - 1)
    }
    /// Element bits of a scalar or vector operand type.
    fn sc(&self, ty: Word) -> R<(Elem, u8, u32)> {
        self.md.scalar(ty).map_err(|e| match e {
            LoadError::Unsupported { what, .. } => self.unsup(what),
            e => e,
        })
    }
}

fn bin_of(op: S) -> Option<BinOp> {
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

fn un_of(op: S) -> Option<UnOp> {
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

fn atomic_of(op: S) -> Option<AtomicOp> {
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

fn lower_function(md: &mut Mod, f: &rspirv::dr::Function) -> R<FnUses> {
    let def = f
        .def
        .as_ref()
        .ok_or_else(|| malformed("function without OpFunction"))?;
    let fid = result_id(def)?;
    let fname = md.names.get(&fid).cloned().unwrap_or(format!("%{fid}"));
    // Slots: parameters first (callers rely on that), then every result, then phi temps.
    let mut slots = HashMap::new();
    let mut next = 0u32;
    let mut params = vec![];
    let lanes_of = |md: &Mod, t: Word| -> R<u32> {
        let l = md.ty(t)?.lanes;
        if l > MAX_LANES {
            return Err(LoadError::Unsupported {
                what: "value with too many lanes".into(),
                function: Some(fname.clone()),
            });
        }
        Ok(l as u32)
    };
    for p in &f.parameters {
        let id = result_id(p)?;
        let n = lanes_of(md, result_ty(p)?)?;
        slots.insert(id, (next, n));
        params.push((next, n));
        next += n;
    }
    let mut phis: HashMap<Word, Phis> = HashMap::new();
    let mut block_key = HashMap::new();
    let mut max_phi = 0u32;
    for (bi, b) in f.blocks.iter().enumerate() {
        let label = b
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or_else(|| malformed("block without label"))?;
        block_key.insert(label, bi as u32);
        let mut phi_lanes = 0;
        for i in &b.instructions {
            if let (Some(id), Some(t)) = (i.result_id, i.result_type) {
                let n = lanes_of(md, t)?;
                slots.insert(id, (next, n));
                next = next
                    .checked_add(n)
                    .ok_or_else(|| malformed("frame too large"))?;
                if i.class.opcode == S::Phi {
                    phi_lanes += n;
                    let mut inc = vec![];
                    for k in (0..i.operands.len()).step_by(2) {
                        inc.push((id_at(i, k)?, id_at(i, k + 1)?));
                    }
                    phis.entry(label).or_default().push((id, inc));
                }
            }
        }
        max_phi = max_phi.max(phi_lanes);
    }
    // Uses of each id, and how many of them are access-chain indices: a sign extension
    // used only as an index is folded into the access chain (the common `a[i]` pattern).
    let mut use_count: HashMap<Word, u32> = HashMap::new();
    let mut index_uses: HashMap<Word, u32> = HashMap::new();
    let mut sconv: HashMap<Word, (Word, u8)> = HashMap::new();
    for b in &f.blocks {
        for i in &b.instructions {
            let gep = matches!(
                i.class.opcode,
                S::AccessChain
                    | S::InBoundsAccessChain
                    | S::PtrAccessChain
                    | S::InBoundsPtrAccessChain
            );
            for (k, o) in i.operands.iter().enumerate() {
                if let Operand::IdRef(x) = o {
                    *use_count.entry(*x).or_default() += 1;
                    if gep && k > 0 {
                        *index_uses.entry(*x).or_default() += 1;
                    }
                }
            }
            if i.class.opcode == S::SConvert {
                if let (Some(id), Ok(src), Some(rt)) = (i.result_id, id_at(i, 0), i.result_type) {
                    let from = md
                        .id_ty
                        .get(&src)
                        .and_then(|t| md.types.get(t))
                        .map(|t| t.k.clone());
                    let to = md.types.get(&rt).map(|t| t.k.clone());
                    if let (Some(TyK::Int(fw)), Some(TyK::Int(64))) = (from, to) {
                        sconv.insert(id, (src, fw));
                    }
                }
            }
        }
    }
    sconv.retain(|id, _| use_count.get(id) == index_uses.get(id));
    // A `ByVal` pointer parameter points at the callee's own copy of the argument (LLVM's
    // byval): the caller's object must not see the callee's writes. Each gets a fresh slot
    // that the prologue points at a private copy.
    let mut byval = vec![];
    for p in &f.parameters {
        let id = result_id(p)?;
        if !md.param_attr(id, spirv::FunctionParameterAttribute::ByVal) {
            continue;
        }
        let TyK::Ptr(StorageClass::Function, pointee) = md.ty(result_ty(p)?)?.k else {
            continue;
        };
        let t = md.ty(pointee)?;
        let size = u32::try_from(t.size).map_err(|_| LoadError::Unsupported {
            what: "by-value parameter larger than 4 GiB".into(),
            function: Some(fname.clone()),
        })?;
        let align = u32::try_from(t.align).unwrap_or(u32::MAX);
        let orig = slots.get(&id).map(|s| s.0).unwrap_or(0);
        byval.push((id, orig, next, size, align));
        next = next
            .checked_add(1)
            .ok_or_else(|| malformed("frame too large"))?;
    }
    let temp_base = next;
    let const_base = next + max_phi + 4;
    let start = md.code.ops.len();
    let entry = start as u32;
    let nblocks = f.blocks.len() as u32;
    let mut fx = Fx {
        md,
        fname: fname.clone(),
        slots,
        const_slots: HashMap::new(),
        consts: vec![],
        const_base,
        temp_base,
        block_key,
        phis,
        stubs: vec![],
        nblocks,
        start,
        switch_tabs: vec![],
        used_vars: HashSet::new(),
        callees: HashSet::new(),
        cur_inst: 0,
        builtin_ptrs: HashMap::new(),
        private_bytes: 0,
        sconv,
    };
    // By-value copies, attributed to the function's first instruction. The entry block is
    // never a branch target, so this prologue runs exactly once per call.
    fx.cur_inst = fx.md.inst_counter;
    for &(id, orig, copy, size, align) in &byval {
        fx.private_bytes += u64::from(size);
        fx.emit(Op::Alloca {
            size,
            align,
            d: copy,
        });
        fx.emit(Op::CopyMem {
            d: copy,
            s: orig,
            size,
        });
        fx.slots.insert(id, (copy, 1));
    }
    let mut key_pc = vec![0u32; nblocks as usize];
    for (bi, b) in f.blocks.iter().enumerate() {
        key_pc[bi] = fx.md.code.ops.len() as u32;
        let label = b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        let mut loc: Option<SourceLoc> = None;
        for inst in &b.instructions {
            fx.cur_inst = fx.md.inst_counter;
            fx.md.inst_counter += 1;
            match inst.class.opcode {
                S::Line => {
                    let file = id_at(inst, 0)?;
                    let fname = match fx.md.files.get(&file) {
                        Some(f) => f.clone(),
                        None => {
                            let s: Arc<str> =
                                fx.md.strings.get(&file).cloned().unwrap_or_default().into();
                            fx.md.files.insert(file, s.clone());
                            s
                        }
                    };
                    let line = lit_at(inst, 1)? as u32;
                    loc = (line != 0).then(|| SourceLoc {
                        file: fname,
                        line,
                        column: lit_at(inst, 2).unwrap_or(0) as u32,
                    });
                }
                S::NoLine => loc = None,
                _ => {}
            }
            fx.md.locs.push(loc.clone());
            lower_inst(&mut fx, inst, label)?;
        }
    }
    // Phi edge stubs.
    let stubs = std::mem::take(&mut fx.stubs);
    for (mv, k) in stubs {
        key_pc.push(fx.md.code.ops.len() as u32);
        fx.emit_moves(&mv);
        fx.emit(Op::Br { t: k });
    }
    let pc_of = |k: u32| key_pc.get(k as usize).copied().unwrap_or(0);
    for op in &mut fx.md.code.ops[fx.start..] {
        match op {
            Op::Br { t } => *t = pc_of(*t),
            Op::BrIf { t, f, .. } => {
                *t = pc_of(*t);
                *f = pc_of(*f);
            }
            _ => {}
        }
    }
    for &s in &fx.switch_tabs {
        let tab = &mut fx.md.code.switches[s as usize];
        tab.default = pc_of(tab.default);
        for c in &mut tab.cases {
            c.1 = pc_of(c.1);
        }
    }
    let frame = const_base + fx.consts.len() as u32;
    let used = std::mem::take(&mut fx.used_vars);
    let private = fx.private_bytes;
    let callees = std::mem::take(&mut fx.callees);
    let consts = std::mem::take(&mut fx.consts);
    md_push_func(
        fx.md,
        Func {
            name: fname,
            entry,
            frame,
            const_base,
            consts,
            params,
            end: 0,
        },
    );
    Ok((used, callees, private))
}

fn md_push_func(md: &mut Mod, mut f: Func) {
    f.end = md.code.ops.len() as u32;
    md.code.funcs.push(f);
}

fn lower_inst(fx: &mut Fx, inst: &Instruction, label: Word) -> R<()> {
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

fn lane_offset(fx: &Fx, mut ty: Word, inst: &Instruction, from: usize) -> R<u32> {
    let mut off = 0u64;
    for k in from..inst.operands.len() {
        let i = lit_at(inst, k)?;
        let t = fx.md.ty(ty)?;
        match &t.k {
            TyK::Vector(e, _) => {
                off += i * fx.md.ty(*e)?.lanes;
                ty = *e;
            }
            TyK::Array(e, _) => {
                off += i * fx.md.ty(*e)?.lanes;
                ty = *e;
            }
            TyK::Struct(ms) => {
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

fn emit_load(fx: &mut Fx, ty: Word, d: u32, p: u32) -> R<()> {
    let t = fx.md.ty(ty)?;
    match t.k {
        TyK::Bool | TyK::Int(_) | TyK::Float(_) | TyK::Ptr(..) | TyK::Opaque(_) => {
            let w = t.size.clamp(1, 8) as u8;
            fx.emit(Op::Load { w, d, p });
        }
        TyK::Vector(e, n) => {
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

fn emit_store(fx: &mut Fx, ty: Word, p: u32, v: u32) -> R<()> {
    let t = fx.md.ty(ty)?;
    match t.k {
        TyK::Bool | TyK::Int(_) | TyK::Float(_) | TyK::Ptr(..) | TyK::Opaque(_) => {
            let w = t.size.clamp(1, 8) as u8;
            fx.emit(Op::Store { w, p, v });
        }
        TyK::Vector(e, n) => {
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

fn lower_gep(fx: &mut Fx, inst: &Instruction) -> R<()> {
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
    let mut ty = match fx.md.ty_of(base_id)?.k {
        TyK::Ptr(_, pt) => pt,
        _ => return Err(malformed("access chain base is not a pointer")),
    };
    let mut off: i64 = 0;
    let mut terms: Vec<GepTerm> = vec![];
    let mut add = |fx: &mut Fx, idx_id: Word, scale: i64, off: &mut i64| -> R<()> {
        if let Some(c) = fx.const_val(idx_id) {
            *off = off.wrapping_add(c.wrapping_mul(scale));
        } else if let Some(&(src, w)) = fx.sconv.get(&idx_id) {
            let slot = fx.val(src)?;
            terms.push(GepTerm { slot, w, scale });
        } else {
            let slot = fx.val(idx_id)?;
            let (_, w, _) = fx.sc(*fx
                .md
                .id_ty
                .get(&idx_id)
                .ok_or_else(|| malformed("untyped"))?)?;
            terms.push(GepTerm { slot, w, scale });
        }
        Ok(())
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
            TyK::Array(e, _) | TyK::Vector(e, _) => {
                let sz = fx.md.ty(*e)?.size as i64;
                add(fx, idx, sz, &mut off)?;
                ty = *e;
            }
            TyK::Struct(ms) => {
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

fn lower_async(fx: &mut Fx, inst: &Instruction) -> R<()> {
    // Execution, Destination, Source, NumElements, Stride, Event
    let d = fx.dst(inst)?;
    let did = id_at(inst, 1)?;
    let dst = fx.val(did)?;
    let src = fx.val(id_at(inst, 2)?)?;
    let nid = id_at(inst, 3)?;
    let n = fx.val(nid)?;
    let sid = id_at(inst, 4)?;
    let stride = fx.val(sid)?;
    let (n_w, stride_w) = (
        fx.sc(*fx.md.id_ty.get(&nid).ok_or_else(|| malformed("untyped"))?)?
            .1,
        fx.sc(*fx.md.id_ty.get(&sid).ok_or_else(|| malformed("untyped"))?)?
            .1,
    );
    let (to_local, elem) = match fx.md.ty_of(did)?.k {
        TyK::Ptr(sc, p) => (sc == StorageClass::Workgroup, fx.md.ty(p)?.size as u32),
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
fn lower_wait(fx: &mut Fx, inst: &Instruction) -> R<()> {
    let nid = id_at(inst, 1)?;
    let n = fx.val(nid)?;
    let n_w = fx
        .sc(*fx.md.id_ty.get(&nid).ok_or_else(|| malformed("untyped"))?)?
        .1;
    let list = fx.val(id_at(inst, 2)?)?;
    fx.emit(Op::AsyncWait { n, n_w, list });
    fx.emit(Op::Barrier {
        fences: crate::Fences::default(),
        flags: NO_SLOT,
    });
    Ok(())
}

/// Image instructions become `ExtKind::Image` (off the hot dispatch path; see `image.rs`).
fn lower_image(fx: &mut Fx, inst: &Instruction) -> R<()> {
    use crate::image::ImageOp;
    let (op, n_ops) = match inst.class.opcode {
        S::SampledImage => (ImageOp::Combine, 2),
        S::ImageSampleExplicitLod => (ImageOp::Sample, 2),
        S::ImageRead => (ImageOp::Read, 2),
        S::ImageWrite => (ImageOp::Write, 3),
        S::ImageQuerySizeLod | S::ImageQuerySize => (ImageOp::QuerySize, 1),
        S::ImageQueryOrder => (ImageOp::QueryOrder, 1),
        _ => (ImageOp::QueryFormat, 1),
    };
    let (d, n, elem) = match inst.result_type {
        Some(rty) => {
            let (elem, _, n) = match fx.md.ty(rty)?.k {
                TyK::Opaque(_) => (Elem::Int(64), 64, 1),
                _ => fx.sc(rty)?,
            };
            (fx.dst(inst)?, n, elem)
        }
        None => (0, 0, Elem::Int(32)),
    };
    let mut args = vec![];
    for k in 0..n_ops {
        let id = id_at(inst, k)?;
        let slot = fx.val(id)?;
        let (elem, nn) = match fx.md.ty_of(id)?.k {
            TyK::Opaque(_) => (Elem::Int(64), 1),
            _ => {
                let (e, _, nn) =
                    fx.sc(*fx.md.id_ty.get(&id).ok_or_else(|| malformed("untyped"))?)?;
                (e, nn)
            }
        };
        args.push(ExtArg { slot, n: nn, elem });
    }
    let e = fx.md.code.exts.len() as u32;
    fx.md.code.exts.push(ExtSpec {
        kind: ExtKind::Image(op),
        d,
        n,
        elem,
        args,
    });
    fx.emit(Op::ExtInst { e });
    Ok(())
}

fn lower_ext(fx: &mut Fx, inst: &Instruction) -> R<()> {
    let set = id_at(inst, 0)?;
    if !fx.md.opencl_std.contains(&set) {
        // Debug info and other non-semantic sets.
        return Ok(());
    }
    let num = lit_at(inst, 1)? as u32;
    let rty = result_ty(inst)?;
    let (elem, _, n) = match fx.md.ty(rty)?.k {
        TyK::Void => (Elem::Int(32), 0, 0),
        _ => fx.sc(rty)?,
    };
    let d = if n > 0 { fx.dst(inst)? } else { 0 };
    use spirv::CLOp as C;
    // rspirv does not know the OpenCL.std grammar and parses trailing literals (vloadn's n,
    // vstore_half_r's rounding mode) as ids: only the leading operands are values.
    let n_ids = match num {
        x if x == C::vloadn as u32
            || x == C::vload_half as u32
            || x == C::vload_halfn as u32
            || x == C::vloada_halfn as u32
            || x == C::prefetch as u32 =>
        {
            2
        }
        x if (C::vstoren as u32..=C::vstorea_halfn_r as u32).contains(&x) => 3,
        _ => usize::MAX,
    };
    let mut args = vec![];
    for k in 2..inst.operands.len().min(n_ids.saturating_add(2)) {
        let Ok(id) = id_at(inst, k) else {
            continue;
        };
        let slot = fx.val(id)?;
        let t = *fx.md.id_ty.get(&id).ok_or_else(|| malformed("untyped"))?;
        let (e, nn) = match fx.md.ty(t)?.k {
            TyK::Ptr(..) => (Elem::Int(64), 1),
            _ => {
                let (e, _, nn) = fx.sc(t)?;
                (e, nn)
            }
        };
        args.push(ExtArg {
            slot,
            n: nn,
            elem: e,
        });
    }
    let ptr_elem = |fx: &Fx, k: usize| -> R<(u8, Elem)> {
        let id = id_at(inst, k)?;
        match fx.md.ty_of(id)?.k {
            TyK::Ptr(_, p) => {
                let (e, w, _) = fx.sc(p)?;
                Ok(((w / 8).max(1), e))
            }
            _ => Err(malformed("pointer operand expected")),
        }
    };
    let lit_n = |k: usize| match inst.operands.get(k) {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => lit_at(inst, k).ok().map(|v| v as u32),
    };
    let kind = match num {
        x if x == C::vloadn as u32 => ExtKind::VLoad {
            n,
            elem_bytes: ptr_elem(fx, 3)?.0,
            half: false,
            aligned: false,
        },
        x if x == C::vload_half as u32
            || x == C::vload_halfn as u32
            || x == C::vloada_halfn as u32 =>
        {
            ExtKind::VLoad {
                n,
                elem_bytes: 2,
                half: true,
                aligned: x == C::vloada_halfn as u32,
            }
        }
        x if x == C::vstoren as u32 => {
            let dn = args.first().map(|a| a.n).unwrap_or(1);
            ExtKind::VStore {
                n: dn,
                elem_bytes: ptr_elem(fx, 4)?.0,
                half: false,
                aligned: false,
                rounding: Rounding::Rte,
            }
        }
        x if (C::vstore_half as u32..=C::vstore_halfn_r as u32).contains(&x)
            || x == C::vstorea_halfn as u32
            || x == C::vstorea_halfn_r as u32 =>
        {
            let dn = args.first().map(|a| a.n).unwrap_or(1);
            let rounding = match lit_n(5) {
                Some(1) => Rounding::Rtz,
                Some(2) => Rounding::Rtp,
                Some(3) => Rounding::Rtn,
                _ => Rounding::Rte,
            };
            ExtKind::VStore {
                n: dn,
                elem_bytes: 2,
                half: true,
                aligned: x == C::vstorea_halfn as u32 || x == C::vstorea_halfn_r as u32,
                rounding,
            }
        }
        x if x == C::printf as u32 => ExtKind::Printf,
        x if x == C::prefetch as u32 => ExtKind::Nop,
        x if [
            C::fract,
            C::frexp,
            C::modf,
            C::remquo,
            C::sincos,
            C::lgamma_r,
        ]
        .iter()
        .any(|c| *c as u32 == x) =>
        {
            let last = inst.operands.len() - 1;
            let (w, e) = ptr_elem(fx, last)?;
            let p = args
                .pop()
                .ok_or_else(|| malformed("missing pointer operand"))?;
            ExtKind::Pure {
                op: x,
                ptr: Some((p.slot, w, e)),
            }
        }
        x => ExtKind::Pure { op: x, ptr: None },
    };
    // Inline fast paths for the common float builtins (f32/f64, no scalar broadcast).
    if let (ExtKind::Pure { op, ptr: None }, Elem::Float(w @ (32 | 64))) = (&kind, elem) {
        let same = args.iter().all(|a| a.n == n && a.elem == elem);
        let (n8, w) = (n as u8, w);
        let fast = match (*op, args.as_slice()) {
            (x, [a, b, c]) if same && (x == C::fma as u32 || x == C::mad as u32) => Some(Op::Fma {
                fused: x == C::fma as u32,
                w,
                n: n8,
                d,
                a: a.slot,
                b: b.slot,
                c: c.slot,
            }),
            (x, [a, b]) if same && (x == C::fmin as u32 || x == C::fmax as u32) => {
                Some(Op::FMinMax {
                    max: x == C::fmax as u32,
                    w,
                    n: n8,
                    d,
                    a: a.slot,
                    b: b.slot,
                })
            }
            (x, [a]) if same && (x == C::sqrt as u32 || x == C::fabs as u32) => Some(Op::FUn {
                sqrt: x == C::sqrt as u32,
                w,
                n: n8,
                d,
                a: a.slot,
            }),
            _ => None,
        };
        if let Some(op) = fast {
            fx.emit(op);
            return Ok(());
        }
    }
    let e = fx.md.code.exts.len() as u32;
    fx.md.code.exts.push(ExtSpec {
        kind,
        d,
        n,
        elem,
        args,
    });
    fx.emit(Op::ExtInst { e });
    Ok(())
}
