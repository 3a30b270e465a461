//! The compact executable form a module is lowered to once at load time.
//!
//! Every SPIR-V result id becomes one or more consecutive 64-bit register slots of its
//! function's frame (vectors, structs and arrays are flattened into their scalar leaves).
//! Operands are frame-relative slot numbers; constants live in slots that are filled from a
//! per-function template when a frame is entered, so the executor never distinguishes them.

use crate::clstd::{Elem, Rounding};
use crate::observer::{Fences, MemoryOrder};
use crate::program::Atomics;
use std::sync::Arc;

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

/// The operation of a work-group function ([`Op::Group`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GroupOp {
    All,
    Any,
    Broadcast,
    IAdd,
    FAdd,
    SMin,
    UMin,
    FMin,
    SMax,
    UMax,
    FMax,
}

/// What a work-group function gives each work-item: the whole group's value, or the scan
/// up to it in local linear id order (SPIR-V `GroupOperation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GroupScan {
    Reduce,
    Inclusive,
    Exclusive,
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

    /// Whether every work-item of a work-group reads the same value (lockstep fills the
    /// group's row once).
    pub(crate) fn same_in_group(self) -> bool {
        match self {
            Builtin::GlobalId
            | Builtin::LocalId
            | Builtin::GlobalLinearId
            | Builtin::LocalIndex
            | Builtin::SubgroupLocalId => false,
            Builtin::GroupId
            | Builtin::GlobalSize
            | Builtin::LocalSize
            | Builtin::EnqueuedLocalSize
            | Builtin::NumGroups
            | Builtin::GlobalOffset
            | Builtin::WorkDim
            | Builtin::SubgroupSize
            | Builtin::SubgroupMaxSize
            | Builtin::NumSubgroups
            | Builtin::SubgroupId => true,
        }
    }

    /// What OpenCL C's work-item function answers for a dimension past the NDRange's (OpenCL
    /// C 6.15.1: sizes and counts 1, ids and offsets 0). The SPIR-V translator turns
    /// `get_global_size(d)` into an extract from this vector, with `d` as it is, so the
    /// executor gives this for components past the third.
    pub(crate) fn past_last_dim(self) -> u64 {
        match self {
            Builtin::GlobalSize
            | Builtin::LocalSize
            | Builtin::EnqueuedLocalSize
            | Builtin::NumGroups => 1,
            _ => 0,
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
    /// `d = v[idx]`, or `outside` when `idx` is past the `n` lanes.
    ExtractDyn {
        n: u32,
        stride: u32,
        d: u32,
        v: u32,
        idx: u32,
        outside: u8,
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
    /// An access chain's run-time index `idx` (`w` bits, signed) into an array of `len`
    /// elements must be below `len` (`strict`: the chain is only dereferenced) or at most
    /// `len` (a one-past-the-end pointer may be formed); otherwise the observer hears of an
    /// index past the array, even where the address stays inside its allocation (`s.b[i]`
    /// reaching the next field, `a[i][j]` the next row).
    CheckIndex {
        idx: u32,
        w: u8,
        strict: bool,
        len: u32,
        /// The array's address space (`None`: a generic pointer).
        space: Option<crate::AddressSpace>,
    },
    /// `d = (a - b) / elem` (OpPtrDiff).
    PtrDiff {
        elem: u32,
        d: u32,
        a: u32,
        b: u32,
    },
    /// `watch`: an array or struct, whose never-written bytes the uninitialised-read check
    /// follows (scalars and vectors are the spills of `-O0` builds: not followed).
    Alloca {
        size: u32,
        align: u32,
        d: u32,
        watch: bool,
    },
    /// memcpy of `size` bytes from `*s` to `*d`. `carry`: the source may hold bytes no one
    /// writes (struct padding), so the copy carries undefined bytes instead of using them
    /// (see `Access::copy`).
    CopyMem {
        d: u32,
        s: u32,
        size: u32,
        carry: bool,
    },
    /// `size` comes from a slot (OpCopyMemorySized with a non-constant size).
    CopyMemDyn {
        d: u32,
        s: u32,
        size: u32,
        w: u8,
        carry: bool,
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
    /// A work-group function (OpenCL C 6.15.13; SPIR-V OpGroupAll to OpGroupFMax at
    /// Workgroup scope): each work-item arrives with its operand `a` (`w` bits) as at a
    /// barrier that fences nothing, and when the group is released each gets its result in
    /// `d`. `id` is a broadcast's local id slot (`id_n` lanes of `id_w` bits), else
    /// [`NO_SLOT`].
    Group {
        op: GroupOp,
        scan: GroupScan,
        w: u8,
        id_n: u8,
        id_w: u8,
        d: u32,
        a: u32,
        id: u32,
    },
    /// An atomic operation on the `w`-bit integer at `*p`: the old value to `d` (not for a
    /// store), `v` its operand, `c` a compare-exchange's comparator.
    Atomic {
        op: AtomicOp,
        w: u8,
        d: u32,
        p: u32,
        v: u32,
        c: u32,
        /// The SPIR-V `Scope` operand's slot (a constant's slot holds its value from the
        /// frame's entry; a run-time scope is read from its register).
        scope: u32,
        /// The memory semantics operand's slot (a compare-exchange's `Equal` semantics).
        sem: u32,
        /// A compare-exchange's `Unequal` semantics' slot, the order of one whose
        /// comparison fails; `sem` for every other op.
        unequal: u32,
    },
    /// OpMemoryBarrier (`atomic_work_item_fence`, `mem_fence`): a fence of the memory its
    /// semantics name, with their order, at its scope. Only an observer that wants
    /// synchronisation hears of it; it changes nothing.
    Fence {
        /// The `Scope` operand's slot (constant or run-time, as [`Op::Atomic`]'s).
        scope: u32,
        /// The memory semantics operand's slot.
        sem: u32,
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

/// Whether `idx` (`w` bits, signed) fails an [`Op::CheckIndex`] of an array of `len`
/// elements: negative, or past its end (`strict`) or past one past its end.
#[inline(always)]
pub(crate) fn index_past_array(idx: u64, w: u8, len: u32, strict: bool) -> bool {
    // Unsigned: a negative index is past the end too.
    crate::alu::sext(idx, w) as u64 > u64::from(len) - u64::from(strict)
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
    /// The `event` operand: a copy given a non-zero event joins it (returns it, and is
    /// complete when it is waited for), OpenCL C 6.15.10.
    pub event: u32,
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
    pub name: Arc<str>,
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
    /// Some function has an [`Op::Group`]: a barrier's release looks for their results.
    pub group_fns: bool,
    /// Module `__constant` (UniformConstant / CrossWorkgroup) variables: launch table 1..
    pub const_vars: Vec<ModVar>,
    /// Module Workgroup variables: local slots 0..
    pub local_vars: Vec<ModVar>,
}

impl Code {
    /// What atomics and fences a kernel's code (its function and those it calls) has.
    pub(crate) fn atomics(&self) -> Atomics {
        let mut found = Atomics::None;
        let mut seen = vec![false; self.funcs.len()];
        let mut todo: Vec<u32> = self.kernels.iter().map(|k| k.func).collect();
        while let Some(fi) = todo.pop() {
            let (Some(seen), Some(f)) = (seen.get_mut(fi as usize), self.funcs.get(fi as usize))
            else {
                continue;
            };
            if std::mem::replace(seen, true) {
                continue;
            }
            let ops = self
                .ops
                .get(f.entry as usize..f.end as usize)
                .unwrap_or(&[]);
            for op in ops {
                let orders = match *op {
                    Op::Atomic { sem, unequal, .. } => f.may_order(sem) || f.may_order(unequal),
                    Op::Fence { sem, .. } => f.may_order(sem),
                    Op::Call { f: callee, .. } => {
                        todo.push(callee);
                        continue;
                    }
                    _ => continue,
                };
                if orders {
                    return Atomics::Ordering;
                }
                found = Atomics::Relaxed;
            }
        }
        found
    }
}

impl Func {
    /// Whether the memory semantics in slot `s` may order memory: a constant's order is not
    /// relaxed, or the slot is not a constant's (a run-time value).
    fn may_order(&self, s: u32) -> bool {
        let constant = s.checked_sub(self.const_base);
        match constant.and_then(|i| self.consts.get(i as usize)) {
            Some(&v) => MemoryOrder::of_semantics(v as u32) != MemoryOrder::Relaxed,
            None => true,
        }
    }
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

mod verify;

#[cfg(test)]
mod tests {
    /// Ops are fetched from one array by the dispatch loop: each one it grows costs cache.
    #[test]
    fn an_op_is_32_bytes() {
        assert_eq!(std::mem::size_of::<super::Op>(), 32);
    }
}
