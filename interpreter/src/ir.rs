//! The compact executable form a module is lowered to once at load time.
//!
//! Every SPIR-V result id becomes one or more consecutive 64-bit register slots of its
//! function's frame (vectors, structs and arrays are flattened into their scalar leaves).
//! Operands are frame-relative slot numbers; constants live in slots that are filled from a
//! per-function template when a frame is entered, so the executor never distinguishes them.

use crate::clstd::{Elem, Rounding};
use crate::observer::Fences;

/// Binary lane operations; `w` (element bits) travels next to it in the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    IAdd,
    ISub,
    IMul,
    UDiv,
    SDiv,
    UMod,
    SRem,
    SMod,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
    FMod,
    IEq,
    INe,
    UGt,
    SGt,
    UGe,
    SGe,
    ULt,
    SLt,
    ULe,
    SLe,
    FOEq,
    FONe,
    FOLt,
    FOGt,
    FOLe,
    FOGe,
    FUEq,
    FUNe,
    FULt,
    FUGt,
    FULe,
    FUGe,
    Ordered,
    Unordered,
}

/// Unary lane operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    SNeg,
    FNeg,
    Not,
    LNot,
    IsNan,
    IsInf,
    IsFinite,
    IsNormal,
    SignBit,
    BitCount,
    BitReverse,
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    Load,
    Store,
    Xchg,
    CmpXchg,
    Inc,
    Dec,
    Add,
    Sub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
}

/// Values the executor provides per work-item (`BuiltIn` decorated `Input` variables).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    EnqueuedLocalSize,
    NumGroups,
    GlobalOffset,
    WorkDim,
    GlobalLinearId,
    LocalIndex,
    SubgroupSize,
    SubgroupMaxSize,
    NumSubgroups,
    SubgroupId,
    SubgroupLocalId,
}

impl Builtin {
    /// Number of lanes the variable holds (vectors of 3 or scalars).
    pub(crate) fn lanes(self) -> u32 {
        match self {
            Builtin::GlobalId
            | Builtin::LocalId
            | Builtin::GroupId
            | Builtin::GlobalSize
            | Builtin::LocalSize
            | Builtin::EnqueuedLocalSize
            | Builtin::NumGroups
            | Builtin::GlobalOffset => 3,
            _ => 1,
        }
    }
}

/// One executable instruction. Slots are frame-relative.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Mov {
        d: u32,
        s: u32,
    },
    MovN {
        d: u32,
        s: u32,
        n: u32,
    },
    Bin {
        op: BinOp,
        w: u8,
        d: u32,
        a: u32,
        b: u32,
    },
    // Scalar specialisations of `Bin` for the hottest operations (one dispatch, not two).
    Add32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Add64 {
        d: u32,
        a: u32,
        b: u32,
    },
    Sub32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Sub64 {
        d: u32,
        a: u32,
        b: u32,
    },
    Mul32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Mul64 {
        d: u32,
        a: u32,
        b: u32,
    },
    SLt32 {
        d: u32,
        a: u32,
        b: u32,
    },
    ULt32 {
        d: u32,
        a: u32,
        b: u32,
    },
    SLt64 {
        d: u32,
        a: u32,
        b: u32,
    },
    ULt64 {
        d: u32,
        a: u32,
        b: u32,
    },
    Eq32 {
        d: u32,
        a: u32,
        b: u32,
    },
    FAdd32 {
        d: u32,
        a: u32,
        b: u32,
    },
    FMul32 {
        d: u32,
        a: u32,
        b: u32,
    },
    FSub32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Eq64 {
        d: u32,
        a: u32,
        b: u32,
    },
    Ne32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Ne64 {
        d: u32,
        a: u32,
        b: u32,
    },
    Shr32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Shr64 {
        d: u32,
        a: u32,
        b: u32,
    },
    Shl32 {
        d: u32,
        a: u32,
        b: u32,
    },
    Shl64 {
        d: u32,
        a: u32,
        b: u32,
    },
    And {
        d: u32,
        a: u32,
        b: u32,
    },
    Or {
        d: u32,
        a: u32,
        b: u32,
    },
    BinV {
        op: BinOp,
        w: u8,
        n: u8,
        d: u32,
        a: u32,
        b: u32,
    },
    /// `d[i] = a[i] op b[0]` (OpVectorTimesScalar).
    BinS {
        op: BinOp,
        w: u8,
        n: u8,
        d: u32,
        a: u32,
        b: u32,
    },
    Un {
        op: UnOp,
        w: u8,
        n: u8,
        d: u32,
        a: u32,
    },
    /// OpAny / OpAll over `n` bool lanes.
    Reduce {
        all: bool,
        n: u8,
        d: u32,
        a: u32,
    },
    /// `c` is one lane (`cvec == false`) or `n` lanes.
    Select {
        cvec: bool,
        n: u32,
        d: u32,
        c: u32,
        a: u32,
        b: u32,
    },
    /// Integer width change without saturation, done inline (the hot OpSConvert/OpUConvert).
    IConv {
        signed: bool,
        from: u8,
        to: u8,
        n: u8,
        d: u32,
        s: u32,
    },
    /// Anything else goes through `clstd::convert`; `cv` indexes `Code::convs`.
    Conv {
        cv: u32,
        n: u8,
        d: u32,
        s: u32,
    },
    /// Reinterpret `s` (lanes of `fw` bits) as lanes of `tw` bits.
    Bitcast {
        fw: u8,
        fnl: u8,
        tw: u8,
        tn: u8,
        d: u32,
        s: u32,
    },
    /// Masks a value to `w` bits (pointer to narrow integer).
    Mask {
        w: u8,
        d: u32,
        s: u32,
    },
    ExtractDyn {
        n: u32,
        stride: u32,
        d: u32,
        v: u32,
        idx: u32,
    },
    InsertDyn {
        n: u32,
        stride: u32,
        d: u32,
        v: u32,
        x: u32,
        idx: u32,
    },
    Load {
        w: u8,
        d: u32,
        p: u32,
    },
    /// `n` consecutive lanes of `w` bytes each.
    LoadN {
        w: u8,
        n: u32,
        d: u32,
        p: u32,
    },
    /// Leaves per `Code::layouts[l]`.
    LoadAgg {
        l: u32,
        d: u32,
        p: u32,
    },
    Store {
        w: u8,
        p: u32,
        v: u32,
    },
    StoreN {
        w: u8,
        n: u32,
        p: u32,
        v: u32,
    },
    StoreAgg {
        l: u32,
        p: u32,
        v: u32,
    },
    /// `d = p + off`.
    Gep {
        d: u32,
        p: u32,
        off: i64,
    },
    /// `d = p + sext(idx, w) * scale + off`.
    Gep1 {
        w: u8,
        d: u32,
        p: u32,
        idx: u32,
        scale: i32,
        off: i32,
    },
    /// General form, terms in `Code::geps[g]`.
    GepN {
        g: u32,
        d: u32,
        p: u32,
    },
    /// `d = (a - b) / elem` (OpPtrDiff).
    PtrDiff {
        elem: u32,
        d: u32,
        a: u32,
        b: u32,
    },
    Alloca {
        size: u32,
        align: u32,
        d: u32,
    },
    /// memcpy of `size` bytes from `*s` to `*d`.
    CopyMem {
        d: u32,
        s: u32,
        size: u32,
    },
    /// `size` comes from a slot (OpCopyMemorySized with a non-constant size).
    CopyMemDyn {
        d: u32,
        s: u32,
        size: u32,
        w: u8,
    },
    /// `comp == u8::MAX`: all lanes; else one component.
    LoadBuiltin {
        b: Builtin,
        comp: u8,
        d: u32,
    },
    /// `d = a * b + c` on float lanes (OpenCL.std fma / mad, the hot one in float kernels).
    Fma {
        fused: bool,
        w: u8,
        n: u8,
        d: u32,
        a: u32,
        b: u32,
        c: u32,
    },
    /// fmin / fmax on float lanes (the non-NaN operand wins, as OpenCL requires).
    FMinMax {
        max: bool,
        w: u8,
        n: u8,
        d: u32,
        a: u32,
        b: u32,
    },
    /// sqrt / fabs on float lanes.
    FUn {
        sqrt: bool,
        w: u8,
        n: u8,
        d: u32,
        a: u32,
    },
    /// Float dot product of `n` lanes.
    Dot {
        w: u8,
        n: u8,
        d: u32,
        a: u32,
        b: u32,
    },
    Br {
        t: u32,
    },
    BrIf {
        c: u32,
        t: u32,
        f: u32,
    },
    Switch {
        w: u8,
        s: u32,
        tab: u32,
    },
    Call {
        f: u32,
        d: u32,
        args: u32,
    },
    Ret,
    RetV {
        s: u32,
        n: u32,
    },
    Barrier {
        fences: Fences,
        /// [`NO_SLOT`], or the slot of run-time `cl_mem_fence_flags` that replace `fences`
        /// (a barrier whose flags are not a constant; see shadowcl-compiler's `barriers`).
        flags: u32,
    },
    Atomic {
        op: AtomicOp,
        w: u8,
        d: u32,
        p: u32,
        v: u32,
        c: u32,
    },
    ExtInst {
        e: u32,
    },
    AsyncCopy {
        a: u32,
    },
    /// OpGroupWaitEvents: `n` (slot) events stored in private memory at pointer slot `list`.
    AsyncWait {
        n: u32,
        n_w: u8,
        list: u32,
    },
    /// Undefined behaviour reached (OpUnreachable): the work-item stops.
    Trap,
}

/// The imported function shadowcl-compiler calls for `barrier(flags)` with run-time flags
/// (llvm-spirv-15 cannot translate those); lowered to [`Op::Barrier`] with a flags slot.
pub(crate) const DYNAMIC_BARRIER: &str = "__shadowcl_barrier";

/// No register: `Op::Barrier` with constant fences.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// Fences of run-time `cl_mem_fence_flags` (`CLK_LOCAL_MEM_FENCE` = 1,
/// `CLK_GLOBAL_MEM_FENCE` = 2).
pub(crate) fn fences_of_flags(flags: u64) -> Fences {
    Fences {
        local: flags & 1 != 0,
        global: flags & 2 != 0,
    }
}

/// A `clstd::convert` call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConvSpec {
    pub from: Elem,
    pub from_signed: bool,
    pub to: Elem,
    pub to_signed: bool,
    pub sat: bool,
    pub rounding: Rounding,
}

impl ConvSpec {
    /// The conversion of one lane.
    #[inline]
    pub fn apply(&self, v: u64) -> u64 {
        crate::clstd::convert(
            v,
            self.from,
            self.from_signed,
            self.to,
            self.to_signed,
            self.sat,
            self.rounding,
        )
    }
}

/// A scalar leaf of an aggregate in memory: byte offset and size, register lane = index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaf {
    pub off: u32,
    pub size: u8,
}

/// One dynamic term of a GepN: `sext(slot, w) * scale`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GepTerm {
    pub slot: u32,
    pub w: u8,
    pub scale: i64,
}

#[derive(Clone, Debug)]
pub(crate) struct GepSpec {
    pub off: i64,
    pub terms: Vec<GepTerm>,
}

#[derive(Clone, Debug)]
pub(crate) struct SwitchTab {
    pub default: u32,
    pub cases: Vec<(u64, u32)>,
}

/// Argument copies of a call: `(caller slot, callee slot, lanes)`.
#[derive(Clone, Debug)]
pub(crate) struct CallArgs {
    pub moves: Vec<(u32, u32, u32)>,
    /// Lanes of the return value.
    pub ret_n: u32,
}

/// Operand of an OpenCL.std instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExtArg {
    pub slot: u32,
    pub n: u32,
    pub elem: Elem,
}

/// What kind of OpenCL.std instruction: pure ones go to `clstd::eval`.
#[derive(Clone, Debug)]
pub(crate) enum ExtKind {
    /// `clstd::eval`; `ptr` is the slot of a trailing pointer operand that receives `out2`
    /// (with its element width in bytes), when the instruction has one.
    Pure {
        op: u32,
        ptr: Option<(u32, u8, Elem)>,
    },
    /// vloadn / vload_half(n) / vloada_halfn: `(offset, pointer)`; `half` converts from f16.
    VLoad {
        n: u32,
        elem_bytes: u8,
        half: bool,
        aligned: bool,
    },
    /// vstoren / vstore_half(n)[_r] / vstorea_halfn: `(data, offset, pointer)`.
    VStore {
        n: u32,
        elem_bytes: u8,
        half: bool,
        aligned: bool,
        rounding: Rounding,
    },
    Printf,
    /// An image instruction (`crate::image`); operands are the spec's `args`.
    Image(crate::image::ImageOp),
    Nop,
}

#[derive(Clone, Debug)]
pub(crate) struct ExtSpec {
    pub kind: ExtKind,
    pub d: u32,
    /// Result lanes and element.
    pub n: u32,
    pub elem: Elem,
    pub args: Vec<ExtArg>,
}

/// OpGroupAsyncCopy: copy `n` elements of `elem` bytes, with `stride` on the global side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AsyncSpec {
    pub d: u32,
    pub dst: u32,
    pub src: u32,
    pub n: u32,
    pub n_w: u8,
    pub stride: u32,
    pub stride_w: u8,
    pub elem: u32,
    /// True when the destination is the local side (so the stride applies to the source).
    pub to_local: bool,
    /// Index into the per-group async counters.
    pub counter: u32,
}

/// A lowered function.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    #[allow(dead_code)] // for debugging dumps
    pub name: String,
    pub entry: u32,
    pub frame: u32,
    /// Constant lanes copied to `const_base..` on entry.
    pub const_base: u32,
    pub consts: Vec<u64>,
    /// Slots of the parameters (`(slot, lanes)`).
    pub params: Vec<(u32, u32)>,
    /// One past the function's last op: its ops are `entry..end` (see [`Code::verify`]).
    pub end: u32,
}

/// How a kernel parameter is bound at launch.
#[derive(Clone, Debug)]
pub(crate) enum ParamKind {
    /// Global or constant buffer pointer.
    Buffer { constant: bool },
    /// `__local` pointer: a per-group allocation of the size the launch gives.
    Local,
    /// By-value scalar/vector: register lanes decoded with this layout.
    Value { layout: u32 },
    /// By-value aggregate passed as a pointer to a private copy of the bytes.
    ByVal { size: u32, align: u32 },
    /// Samplers, events: lanes are filled with the raw bytes.
    Opaque,
    /// An image: a pointer to the launch allocation of its texels.
    Image,
}

#[derive(Clone, Debug)]
pub(crate) struct KernelCode {
    pub func: u32,
    pub params: Vec<ParamKind>,
    /// Module Workgroup variables this kernel uses (indices into `Code::local_vars`).
    pub local_vars_used: Vec<bool>,
}

/// A module-scope variable with a launch-wide or per-group allocation.
#[derive(Clone, Debug)]
pub(crate) struct ModVar {
    pub name: String,
    pub size: u64,
    pub elem_size: u32,
    pub init: Vec<u8>,
    /// A program-scope `global` variable (OpenCL C 2.0, CrossWorkgroup): global memory that
    /// kernels may write and that keeps its value from launch to launch. Otherwise
    /// read-only `__constant` data.
    pub writable: bool,
}

/// Everything the executor needs.
#[derive(Debug, Default)]
pub(crate) struct Code {
    pub ops: Vec<Op>,
    /// InstId of each op (same index as `ops`).
    pub inst_of: Vec<u32>,
    pub funcs: Vec<Func>,
    pub kernels: Vec<KernelCode>,
    pub convs: Vec<ConvSpec>,
    pub layouts: Vec<Vec<Leaf>>,
    pub geps: Vec<GepSpec>,
    pub switches: Vec<SwitchTab>,
    pub calls: Vec<CallArgs>,
    pub exts: Vec<ExtSpec>,
    pub asyncs: Vec<AsyncSpec>,
    /// Module `__constant` (UniformConstant / CrossWorkgroup) variables: launch table 1..
    pub const_vars: Vec<ModVar>,
    /// Module Workgroup variables: local slots 0..
    pub local_vars: Vec<ModVar>,
}

/// Pointer encoding: `tag:2 | index:22 | offset:40`, offset biased by 2^39 so small negative
/// offsets stay inside their allocation (and are reported as out of bounds, not as garbage).
pub(crate) mod ptr {
    pub const TAG_LAUNCH: u64 = 0;
    pub const TAG_LOCAL: u64 = 1;
    pub const TAG_PRIVATE: u64 = 2;
    pub const OFF_BITS: u32 = 40;
    pub const BIAS: u64 = 1 << 39;
    pub const IDX_MASK: u64 = (1 << 22) - 1;

    #[inline(always)]
    pub fn enc(tag: u64, idx: u64, off: u64) -> u64 {
        ((tag << 62) | (idx << OFF_BITS)).wrapping_add(BIAS.wrapping_add(off))
    }
    #[inline(always)]
    pub fn dec(p: u64) -> (u64, usize, i64) {
        (
            p >> 62,
            ((p >> OFF_BITS) & IDX_MASK) as usize,
            (p & ((1u64 << OFF_BITS) - 1)) as i64 - BIAS as i64,
        )
    }
}

impl Code {
    /// Checks what the executors rely on to read registers and fetch ops without bounds
    /// checks (`exec/dispatch.rs`, `run_turns`, its `u!` reads): every function's ops lie in
    /// `entry..end` inside `ops`, its last op never falls through, its branches stay inside
    /// it, calls name existing functions, and the register operands of every op (not only
    /// those read unchecked: see [`Code::op_fits`]) lie inside its frame, as do its constants
    /// and parameters. The executor keeps `base + frame` registers of the current function
    /// and only changes function through `Call`/`Ret`.
    pub(crate) fn verify(&self) -> Result<(), String> {
        let n = self.ops.len() as u64;
        for (fi, f) in self.funcs.iter().enumerate() {
            let (entry, end, frame) = (f.entry as u64, f.end as u64, f.frame as u64);
            if entry >= end || end > n {
                return Err(format!("function {fi} has ops {entry}..{end} of {n}"));
            }
            let fits = |s: u32, lanes: u64| s as u64 + lanes <= frame;
            let consts_fit = fits(f.const_base, f.consts.len() as u64);
            if !consts_fit || !f.params.iter().all(|&(s, k)| fits(s, k as u64)) {
                return Err(format!(
                    "function {fi} has constants or parameters outside its frame"
                ));
            }
            for pc in entry..end {
                let op = &self.ops[pc as usize];
                if !self.op_fits(op, (entry, end), frame) {
                    return Err(format!("op {pc} ({op:?}) leaves function {fi}"));
                }
            }
            let last = &self.ops[end as usize - 1];
            let falls_through = !matches!(
                last,
                Op::Br { .. }
                    | Op::BrIf { .. }
                    | Op::Switch { .. }
                    | Op::Ret
                    | Op::RetV { .. }
                    | Op::Trap
            );
            if falls_through {
                return Err(format!("function {fi} falls through its end ({last:?})"));
            }
        }
        Ok(())
    }

    /// Whether `op`, in a function with ops `entry..end` and a frame of `frame` registers,
    /// keeps its branches inside the function and its register operands (with all their
    /// lanes) inside the frame, and names side-table entries that exist. Exhaustive on
    /// purpose: a new op must say how it is checked.
    fn op_fits(&self, op: &Op, (entry, end): (u64, u64), frame: u64) -> bool {
        let inside = |t: u32| (entry..end).contains(&(t as u64));
        let fits = |s: u32, lanes: u64| s as u64 + lanes <= frame;
        let all = |slots: &[u32], lanes: u64| slots.iter().all(|&s| fits(s, lanes));
        match *op {
            Op::Mov { d, s } | Op::Mask { d, s, .. } => all(&[d, s], 1),
            Op::MovN { d, s, n } => all(&[d, s], n as u64),
            Op::Bin { d, a, b, .. }
            | Op::Add32 { d, a, b }
            | Op::Add64 { d, a, b }
            | Op::Sub32 { d, a, b }
            | Op::Sub64 { d, a, b }
            | Op::Mul32 { d, a, b }
            | Op::Mul64 { d, a, b }
            | Op::SLt32 { d, a, b }
            | Op::ULt32 { d, a, b }
            | Op::SLt64 { d, a, b }
            | Op::ULt64 { d, a, b }
            | Op::Eq32 { d, a, b }
            | Op::FAdd32 { d, a, b }
            | Op::FMul32 { d, a, b }
            | Op::FSub32 { d, a, b }
            | Op::Eq64 { d, a, b }
            | Op::Ne32 { d, a, b }
            | Op::Ne64 { d, a, b }
            | Op::Shr32 { d, a, b }
            | Op::Shr64 { d, a, b }
            | Op::Shl32 { d, a, b }
            | Op::Shl64 { d, a, b }
            | Op::And { d, a, b }
            | Op::Or { d, a, b }
            | Op::PtrDiff { d, a, b, .. } => all(&[d, a, b], 1),
            Op::BinV { n, d, a, b, .. } | Op::FMinMax { n, d, a, b, .. } => {
                all(&[d, a, b], n as u64)
            }
            Op::BinS { n, d, a, b, .. } => all(&[d, a], n as u64) && fits(b, 1),
            Op::Un { n, d, a, .. } | Op::FUn { n, d, a, .. } => all(&[d, a], n as u64),
            Op::Reduce { n, d, a, .. } => fits(d, 1) && fits(a, n as u64),
            Op::Dot { n, d, a, b, .. } => fits(d, 1) && all(&[a, b], n as u64),
            Op::Select {
                cvec,
                n,
                d,
                c,
                a,
                b,
            } => all(&[d, a, b], n as u64) && fits(c, if cvec { n as u64 } else { 1 }),
            Op::IConv { n, d, s, .. } => all(&[d, s], n as u64),
            Op::Conv { cv, n, d, s } => (cv as usize) < self.convs.len() && all(&[d, s], n as u64),
            Op::Bitcast { fnl, tn, d, s, .. } => fits(s, fnl as u64) && fits(d, tn as u64),
            Op::ExtractDyn {
                n,
                stride,
                d,
                v,
                idx,
            } => all(&[d, idx], 1) && fits(v, n as u64 * stride as u64),
            Op::InsertDyn {
                n,
                stride,
                d,
                v,
                x,
                idx,
            } => all(&[x, idx], 1) && all(&[d, v], n as u64 * stride as u64),
            Op::Load { d, p, .. } => all(&[d, p], 1),
            Op::LoadN { n, d, p, .. } => fits(d, n as u64) && fits(p, 1),
            Op::Store { p, v, .. } => all(&[p, v], 1),
            Op::StoreN { n, p, v, .. } => fits(p, 1) && fits(v, n as u64),
            Op::LoadAgg { l, d: v, p } | Op::StoreAgg { l, p, v } => self
                .layouts
                .get(l as usize)
                .is_some_and(|leaves| fits(v, leaves.len() as u64) && fits(p, 1)),
            Op::Gep { d, p, .. } => all(&[d, p], 1),
            Op::Gep1 { d, p, idx, .. } => all(&[d, p, idx], 1),
            Op::GepN { g, d, p } => {
                all(&[d, p], 1)
                    && self
                        .geps
                        .get(g as usize)
                        .is_some_and(|g| g.terms.iter().all(|t| fits(t.slot, 1)))
            }
            Op::Alloca { d, .. } => fits(d, 1),
            Op::CopyMem { d, s, .. } => all(&[d, s], 1),
            Op::CopyMemDyn { d, s, size, .. } => all(&[d, s, size], 1),
            Op::LoadBuiltin { b, comp, d } => {
                fits(d, if comp == u8::MAX { b.lanes() as u64 } else { 1 })
            }
            Op::Fma { n, d, a, b, c, .. } => all(&[d, a, b, c], n as u64),
            Op::Br { t } => inside(t),
            Op::BrIf { c, t, f } => fits(c, 1) && inside(t) && inside(f),
            Op::Switch { s, tab, .. } => {
                fits(s, 1)
                    && self
                        .switches
                        .get(tab as usize)
                        .is_some_and(|t| inside(t.default) && t.cases.iter().all(|c| inside(c.1)))
            }
            Op::Call { f, d, args } => {
                let (Some(callee), Some(ca)) =
                    (self.funcs.get(f as usize), self.calls.get(args as usize))
                else {
                    return false;
                };
                // Arguments go from this frame into the callee's, the value comes back to `d`.
                fits(d, ca.ret_n as u64)
                    && ca.moves.iter().all(|&(s, ds, k)| {
                        fits(s, k as u64) && ds as u64 + k as u64 <= callee.frame as u64
                    })
            }
            Op::Ret | Op::Trap => true,
            Op::RetV { s, n } => fits(s, n as u64),
            Op::Barrier { flags, .. } => flags == NO_SLOT || fits(flags, 1),
            Op::Atomic { d, p, v, c, .. } => all(&[d, p, v, c], 1),
            Op::ExtInst { e } => self.exts.get(e as usize).is_some_and(|x| {
                let ptr_fits = match x.kind {
                    ExtKind::Pure {
                        ptr: Some((ps, _, _)),
                        ..
                    } => fits(ps, 1),
                    _ => true,
                };
                ptr_fits && fits(x.d, x.n as u64) && x.args.iter().all(|a| fits(a.slot, a.n as u64))
            }),
            Op::AsyncCopy { a } => self
                .asyncs
                .get(a as usize)
                .is_some_and(|x| all(&[x.d, x.dst, x.src, x.n, x.stride], 1)),
            Op::AsyncWait { n, list, .. } => all(&[n, list], 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One function of `frame` registers running `ops`.
    fn code(frame: u32, ops: Vec<Op>) -> Code {
        let end = ops.len() as u32;
        Code {
            inst_of: vec![0; ops.len()],
            ops,
            funcs: vec![Func {
                name: "f".into(),
                entry: 0,
                frame,
                const_base: 0,
                consts: vec![],
                params: vec![],
                end,
            }],
            ..Code::default()
        }
    }

    #[test]
    fn verify_checks_the_operands_of_every_op() {
        assert_eq!(
            code(3, vec![Op::Mov { d: 0, s: 2 }, Op::Ret]).verify(),
            Ok(())
        );
        assert!(code(3, vec![Op::Mov { d: 0, s: 3 }, Op::Ret])
            .verify()
            .is_err());
        // Ops off the hot path too: every lane of a vector operand, a select's condition.
        assert!(code(4, vec![Op::MovN { d: 0, s: 2, n: 3 }, Op::Ret])
            .verify()
            .is_err());
        let select = Op::Select {
            cvec: true,
            n: 4,
            d: 0,
            c: 5,
            a: 0,
            b: 0,
        };
        assert!(code(8, vec![select, Op::Ret]).verify().is_err());
        // Side tables must hold the entry an op names.
        assert!(code(2, vec![Op::ExtInst { e: 0 }, Op::Ret])
            .verify()
            .is_err());
        let barrier = Op::Barrier {
            fences: Fences::default(),
            flags: 2,
        };
        assert!(code(2, vec![barrier, Op::Ret]).verify().is_err());
        // The last op may not fall through.
        assert!(code(2, vec![Op::Mov { d: 0, s: 1 }]).verify().is_err());
    }
}
