//! ShadowCL's software OpenCL device.
//!
//! [`Program::load`] parses an OpenCL-flavoured SPIR-V module and translates it once into a
//! compact executable form; [`Device::run`] executes one NDRange launch of a kernel over worker
//! threads, reporting memory accesses and synchronisation to an [`Observer`]. The crate knows
//! nothing of races or of the OpenCL C ABI.

mod clstd;
pub mod image;
pub mod memory;
pub mod observer;
pub mod schedule;

pub use image::{ImageDesc, ImageDim, ImageFormat};
pub use memory::{AllocId, Buffer, OutOfRange};
pub use observer::{
    fences_of_semantics, Access, AccessKind, AddressSpace, ArgBinding, BarrierArrival, Fault,
    Fences, GroupCopy, GroupInfo, GroupWait, InstId, LaneAccesses, LaunchInfo, LocalAlloc,
    MemoryOrder, MemoryScope, NoObserver, Observer, Release, SyncEvent, SyncKind, WorkItem,
};
pub use schedule::{parse_quantum, quantum_name, Order, Schedule};

use std::sync::Arc;

/// Why a module could not be loaded; the text goes into the program's build log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("malformed SPIR-V: {0}")]
    Malformed(String),
    /// `what` names the capability, opcode or construct; `function` where it occurred.
    #[error("unsupported SPIR-V: {what}{}", .function.as_deref().map(|f| format!(" (in function {f})")).unwrap_or_default())]
    Unsupported {
        what: String,
        function: Option<String>,
    },
}

/// Why a launch could not run (validation the platform library did not catch, or a kernel
/// construct only detectable at run time).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    #[error("no kernel named {0}")]
    NoSuchKernel(String),
    #[error("invalid launch: {0}")]
    InvalidLaunch(String),
    #[error("invalid argument {index}: {why}")]
    InvalidArg { index: u32, why: String },
    #[error("kernel aborted: {0}")]
    Aborted(String),
}

/// Address qualifier of a kernel argument (`CL_KERNEL_ARG_ADDRESS_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgAddress {
    Global,
    Constant,
    Local,
    /// Passed by value (scalars, vectors, structs, samplers).
    Private,
}

/// Access qualifier (`CL_KERNEL_ARG_ACCESS_*`; images only, so `None` for buffers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgAccess {
    ReadOnly,
    WriteOnly,
    ReadWrite,
    None,
}

/// What the platform needs to know about one kernel argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    /// Shared by every launch's [`ArgBinding`].
    pub name: Arc<str>,
    /// OpenCL C type name as written (`float*`, `int4`, `struct foo`), from
    /// `-cl-kernel-arg-info` metadata; empty when absent.
    pub type_name: String,
    pub address: ArgAddress,
    pub access: ArgAccess,
    /// `CL_KERNEL_ARG_TYPE_CONST | _RESTRICT | _VOLATILE | _PIPE` bits.
    pub type_qualifier: u64,
    /// By-value size in bytes (`sizeof(cl_mem)` = 8 for buffers, for local pointers 0).
    pub size: usize,
    /// Size of the pointee for pointer arguments (for element indices in reports); else 0.
    pub pointee_size: u32,
    /// True for `sampler_t` arguments.
    pub is_sampler: bool,
    /// A buffer pointer that no instruction of the kernel, or of a function it calls, writes
    /// through (every use of it reads memory; proven when the program loads).
    pub never_written: bool,
}

/// A kernel of a loaded program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: String,
    pub args: Vec<KernelArg>,
    /// `reqd_work_group_size(x,y,z)`, or zeros.
    pub reqd_work_group_size: [u64; 3],
    pub work_group_size_hint: [u64; 3],
    /// `vec_type_hint` / other attributes as the source spelled them, space separated.
    pub attributes: String,
    /// Bytes of `__local` variables declared at kernel scope.
    pub local_mem_size: u64,
    /// Bytes of private memory one work-item uses (estimate).
    pub private_mem_size: u64,
}

/// A source location from `OpLine` / debug info.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLoc {
    pub file: Arc<str>,
    pub line: u32,
    pub column: u32,
}

/// How one kernel argument is bound for a launch.
#[derive(Clone, Debug)]
pub enum ArgValue {
    /// A global or constant buffer (or a sub-buffer: a view `offset..offset+size` of it).
    Buffer {
        buffer: Arc<Buffer>,
        offset: u64,
        size: u64,
    },
    /// A NULL buffer pointer (`clSetKernelArg` with a NULL `cl_mem`).
    Null,
    /// `__local` pointer argument: bytes to allocate per work-group.
    Local(u64),
    /// By-value bytes exactly as the application passed them to `clSetKernelArg`.
    Bytes(Vec<u8>),
    /// An image: its texels live in `buffer` as `desc` lays them out.
    Image {
        buffer: Arc<Buffer>,
        desc: ImageDesc,
    },
    /// A sampler: its `sampler_t` bits ([`image::sampler`]).
    Sampler(u32),
}

/// One NDRange launch.
#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: String,
    pub work_dim: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    /// Must divide `global_size` unless non-uniform groups are enabled.
    pub local_size: [u64; 3],
    pub args: Vec<ArgValue>,
}

/// What a finished launch reports back.
#[derive(Clone, Debug, Default)]
pub struct LaunchStats {
    pub work_groups: u64,
    pub work_items: u64,
    /// Executed instructions: counted under a quantum, an instruction limit or
    /// [`Device::with_instruction_count`]; 0 for an uncounted run-to-barrier launch.
    pub instructions: u64,
}

mod alu;
mod ir;
mod lower;
mod printf;
mod program;
pub use program::{Alignments, Atomics, Program};

mod exec;
pub use exec::{Device, GroupCounts, DEFAULT_LOCAL_MEMORY_LIMIT};
