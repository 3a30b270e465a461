//! The seam between the executor and the checkers (docs/design.md, "Layout").
//!
//! The executor is generic over an [`Observer`]; with [`NoObserver`] every hook is an empty
//! inline function, so a launch without checkers pays nothing for the seam. Global and constant
//! memory events go through `&self` (work-groups run on several threads at once); everything
//! private to one work-group (its local memory, its barrier bookkeeping) lives in the observer's
//! per-group state `Self::Group`, which the executor threads through every hook of that group.

use crate::memory::AllocId;
use std::sync::Arc;

/// OpenCL address spaces as the checkers see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    Global,
    Constant,
    Local,
    Private,
}

/// What an access did to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
    /// An `OpAtomic*` that writes: store, read-modify-write, compare-exchange that succeeded.
    Atomic,
    /// An atomic that only reads: `OpAtomicLoad`, or a compare-exchange whose comparison
    /// failed (it races only with plain writes).
    AtomicRead,
}

/// Identity of one work-item within a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct WorkItem {
    /// Global id including the global offset, as `get_global_id` returns it.
    pub global: [u64; 3],
    pub local: [u32; 3],
    pub group: [u32; 3],
    /// Linear local id (x + y*sx + z*sx*sy): a dense index inside the group.
    pub local_linear: u32,
}

/// One memory access, reported *after* bounds checking (see [`Fault`] for the others).
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    pub space: AddressSpace,
    /// Global/constant: the buffer's [`AllocId`] (stable across launches, so races between
    /// kernels can be found). Local: `AllocId::local(slot)` where slot numbers the group's
    /// local allocations in declaration/argument order. Private accesses are not reported.
    pub alloc: AllocId,
    /// Byte offset from the start of the allocation (for a sub-buffer: of the parent buffer).
    pub offset: u64,
    pub size: u32,
    pub kind: AccessKind,
    /// Bytes stored, for writes and atomics (the value after the operation); empty for reads.
    /// Lets the benign-race check see "same value already there".
    pub value: &'a [u8],
    /// Bytes present in memory before the access (for writes and atomics); empty for reads,
    /// and zero for plain stores when the observer does not want them
    /// ([`Observer::wants_previous`]).
    pub previous: &'a [u8],
    pub item: &'a WorkItem,
    /// Index of the instruction; [`crate::Program::location`] maps it to a source line.
    pub inst: InstId,
    /// Made by the work-group as a whole (an `async_work_group_copy` in flight), not by
    /// `item`, which is the work-item that reached the copy first.
    pub by_group: bool,
    /// One half of a memory-to-memory copy (OpCopyMemory, a by-value argument's copy, an
    /// async copy): its load reads bytes only to move them, so undefined bytes are not a use
    /// and stay undefined where they are stored.
    pub copy: bool,
    /// Bit `i`: byte `i` of the access is undefined as far as the executor knows, which is
    /// for private memory only: a private read's never-written bytes (private reads are
    /// reported only when this is non-zero), or a copy's store of never-written private
    /// bytes.
    pub undefined: u8,
    /// Which part of the instruction's value this access is, in order (saturating at 255):
    /// a vector's element (which starts `component * size` bytes into the vector), a
    /// memory copy's chunk (one count for each side); 0 for a scalar or an aggregate's
    /// leaf. Part 0 starts where the value does: the instruction's alignment
    /// ([`crate::Alignments`]) applies to its offset.
    pub component: u8,
}

/// The accesses one lockstep operation made: each listed work-item of one group accessed
/// `size` bytes of one global or local allocation at one instruction, in the order `order`
/// gives (the schedule's; an observer must see them so). Plain loads and stores only: no
/// copies, atomics or group copies, and every access was in bounds.
#[derive(Clone, Copy, Debug)]
pub struct LaneAccesses<'a> {
    pub space: AddressSpace,
    pub alloc: AllocId,
    pub size: u32,
    /// [`AccessKind::Read`] or [`AccessKind::Write`].
    pub kind: AccessKind,
    pub inst: InstId,
    /// The group's work-items by lane, lane `l` being the item of local linear id `l` (an
    /// observer may take the one for the other); only the lanes `order` names made an
    /// access.
    pub items: &'a [WorkItem],
    /// Lanes in the order their accesses reached memory.
    pub order: &'a [usize],
    /// By lane: the byte offset as [`Access::offset`], and for writes the value stored and
    /// the one replaced (low `size` bytes; [`Access::value`], [`Access::previous`]).
    pub offsets: &'a [u64],
    pub values: &'a [u64],
    pub previous: &'a [u64],
    /// Which element of a vector access the lanes made ([`Access::component`]).
    pub component: u8,
    /// [`LaneAccesses::span`], when the executor worked it out on the way.
    pub known_span: Option<((u64, u64), u64)>,
}

impl LaneAccesses<'_> {
    /// The bytes the lanes' accesses span (from the lowest offset to the end of the highest)
    /// and the bitwise or of their offsets (whose low bits say whether any lane's offset is
    /// not a multiple of an alignment), in one pass.
    pub fn span(&self) -> ((u64, u64), u64) {
        debug_assert!(
            self.order
                .iter()
                .all(|&l| self.items[l].local_linear as usize == l),
            "lane l is the item of local linear id l"
        );
        match self.known_span {
            Some(known) => {
                debug_assert_eq!(known, self.lanes_span(), "the executor's span");
                known
            }
            None => self.lanes_span(),
        }
    }

    /// [`LaneAccesses::span`] worked out from the lanes.
    fn lanes_span(&self) -> ((u64, u64), u64) {
        if self.order.is_empty() {
            return ((0, self.size as u64), 0);
        }
        let (lo, hi, bits) = self
            .order
            .iter()
            .fold((u64::MAX, 0, 0), |(lo, hi, bits), &l| {
                let o = self.offsets[l];
                (lo.min(o), hi.max(o), bits | o)
            });
        ((lo, hi + self.size as u64), bits)
    }

    /// Lane `l`'s access as [`Observer::access`] takes it; `bytes` holds its value and
    /// previous bytes.
    #[inline(always)]
    pub fn lane<'b>(&'b self, l: usize, bytes: &'b mut [[u8; 8]; 2]) -> Access<'b> {
        let n = self.size as usize;
        let write = self.kind == AccessKind::Write;
        if write {
            bytes[0] = self.values.get(l).copied().unwrap_or(0).to_le_bytes();
            bytes[1] = self.previous.get(l).copied().unwrap_or(0).to_le_bytes();
        }
        let [v, p] = bytes;
        Access {
            space: self.space,
            alloc: self.alloc,
            offset: self.offsets[l],
            size: self.size,
            kind: self.kind,
            value: if write { &v[..n] } else { &[] },
            previous: if write { &p[..n] } else { &[] },
            item: &self.items[l],
            inst: self.inst,
            by_group: false,
            copy: false,
            undefined: 0,
            component: self.component,
        }
    }
}

/// A work-item reached an `async_work_group_copy` (every item of the group must, with the
/// same arguments; the first one performs the copy, as the group, before its accesses).
#[derive(Clone, Copy, Debug)]
pub struct GroupCopy<'a> {
    pub item: &'a WorkItem,
    pub inst: InstId,
    /// The `event_t` value the copy returns: one per copy instruction, or the event it was
    /// given to join (copies sharing an event are complete when it is waited for).
    pub event: u64,
    /// This arrival performs the copy (the group's first at this execution of it).
    pub first: bool,
    /// The arguments equal the first arrival's.
    pub same_args: bool,
}

/// A work-item reached `wait_group_events`; the copies it names are complete for the whole
/// group once every work-item has (the barrier that follows it is released).
#[derive(Clone, Copy, Debug)]
pub struct GroupWait<'a> {
    pub item: &'a WorkItem,
    pub inst: InstId,
    pub events: &'a [u64],
}

/// An instruction, numbered densely across a program; used to look up source locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct InstId(pub u32);

/// Memory fences a barrier applies (bits of `cl_mem_fence_flags`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fences {
    pub local: bool,
    pub global: bool,
}

/// A work-item arrived at a barrier.
#[derive(Clone, Copy, Debug)]
pub struct BarrierArrival<'a> {
    pub item: &'a WorkItem,
    /// The `OpControlBarrier` instruction: different ids at one release = divergence.
    pub inst: InstId,
    pub fences: Fences,
}

/// Why the executor released a barrier round of one work-group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Every work-item of the group reached a barrier (maybe not the same one: the observer
    /// compares the arrivals it saw since the previous release).
    AllArrived,
    /// Some work-items finished while others wait at a barrier: the executor releases the
    /// waiting ones so the launch cannot hang. Always barrier divergence.
    SomeFinished,
}

/// Something went wrong in the kernel itself; the executor contained it.
#[derive(Clone, Copy, Debug)]
pub enum Fault<'a> {
    /// Access outside its allocation (reads gave zero, writes were dropped).
    OutOfBounds {
        space: AddressSpace,
        alloc: AllocId,
        /// Offset of the first byte, relative to the allocation start (may be negative).
        offset: i64,
        size: u32,
        /// Size in bytes of the allocation (the sub-buffer's view for sub-buffers).
        alloc_size: u64,
        kind: AccessKind,
        item: &'a WorkItem,
        inst: InstId,
    },
    /// An array index past the array's declared length (`s.b[i]` reaching the next field,
    /// `a[i][j]` the next row): undefined behaviour even where the address stays inside its
    /// allocation, so no bounds check of the access sees it. The access itself still runs.
    IndexPastArray {
        index: i64,
        len: u32,
        space: Option<AddressSpace>,
        item: &'a WorkItem,
        inst: InstId,
    },
    /// Access through a pointer that names no allocation (NULL or garbage).
    InvalidPointer {
        pointer: u64,
        size: u32,
        kind: AccessKind,
        item: &'a WorkItem,
        inst: InstId,
    },
}

/// The memory order of an atomic operation or a fence (OpenCL C 6.15.12.1; SPIR-V's memory
/// semantics bits `Acquire`, `Release`, `AcquireRelease`, `SequentiallyConsistent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum MemoryOrder {
    /// Orders nothing: the OpenCL 1.2 `atomic_*` built-ins are relaxed atomics.
    #[default]
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemoryOrder {
    /// The order of SPIR-V memory semantics bits (the strongest bit set).
    pub fn of_semantics(semantics: u32) -> MemoryOrder {
        if semantics & 0x10 != 0 {
            MemoryOrder::SeqCst
        } else if semantics & 0x8 != 0 || semantics & 0x6 == 0x6 {
            MemoryOrder::AcqRel
        } else if semantics & 0x4 != 0 {
            MemoryOrder::Release
        } else if semantics & 0x2 != 0 {
            MemoryOrder::Acquire
        } else {
            MemoryOrder::Relaxed
        }
    }
    /// An acquire, acq_rel or seq_cst operation.
    pub fn acquires(self) -> bool {
        matches!(
            self,
            MemoryOrder::Acquire | MemoryOrder::AcqRel | MemoryOrder::SeqCst
        )
    }
    /// A release, acq_rel or seq_cst operation.
    pub fn releases(self) -> bool {
        matches!(
            self,
            MemoryOrder::Release | MemoryOrder::AcqRel | MemoryOrder::SeqCst
        )
    }
    /// The name in OpenCL C (`memory_order_acquire` without its prefix).
    pub fn name(self) -> &'static str {
        match self {
            MemoryOrder::Relaxed => "relaxed",
            MemoryOrder::Acquire => "acquire",
            MemoryOrder::Release => "release",
            MemoryOrder::AcqRel => "acq_rel",
            MemoryOrder::SeqCst => "seq_cst",
        }
    }
}

/// The scope of an atomic operation or a fence: the work-items it may synchronise with
/// (OpenCL C 6.15.12.2, `memory_scope_*`), narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum MemoryScope {
    WorkItem,
    SubGroup,
    WorkGroup,
    #[default]
    Device,
    AllDevices,
}

impl MemoryScope {
    /// The scope of a SPIR-V `Scope` value (`CrossDevice` 0, `Device` 1, `Workgroup` 2,
    /// `Subgroup` 3, `Invocation` 4); `None` for any other value.
    pub fn of_spirv(scope: u32) -> Option<MemoryScope> {
        Some(match scope {
            0 => MemoryScope::AllDevices,
            1 => MemoryScope::Device,
            2 => MemoryScope::WorkGroup,
            3 => MemoryScope::SubGroup,
            4 => MemoryScope::WorkItem,
            _ => return None,
        })
    }
    /// The name in OpenCL C (`memory_scope_work_group` without its prefix).
    pub fn name(self) -> &'static str {
        match self {
            MemoryScope::WorkItem => "work_item",
            MemoryScope::SubGroup => "sub_group",
            MemoryScope::WorkGroup => "work_group",
            MemoryScope::Device => "device",
            MemoryScope::AllDevices => "all_svm_devices",
        }
    }
}

/// The memory a fence orders, from SPIR-V memory semantics: `WorkgroupMemory` (0x100) is
/// local memory, `CrossWorkgroupMemory` (0x200) and `ImageMemory` (0x800) global memory. An
/// atomic operation whose semantics name no memory orders both (OpenCL C producers such as
/// llvm-spirv name none for `atomic_*_explicit`).
pub fn fences_of_semantics(semantics: u32) -> Fences {
    let (local, global) = (semantics & 0x100 != 0, semantics & 0xA00 != 0);
    if !local && !global {
        Fences {
            local: true,
            global: true,
        }
    } else {
        Fences { local, global }
    }
}

/// What a synchronising operation was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    /// An atomic operation on `size` bytes at `offset` of `alloc` (as [`Access`] names them),
    /// reported right after its [`Access`]. `reads`: it read the value there (a load, a
    /// read-modify-write, a compare-exchange); `writes`: it stored one (a store, a
    /// read-modify-write, a compare-exchange that succeeded).
    Atomic {
        space: AddressSpace,
        alloc: AllocId,
        offset: u64,
        size: u32,
        reads: bool,
        writes: bool,
    },
    /// A fence (`OpMemoryBarrier`: `atomic_work_item_fence`, `mem_fence`, `read_mem_fence`,
    /// `write_mem_fence`) of the memory `fences` names.
    Fence { fences: Fences },
}

/// An atomic operation's or a fence's order and scope, reported to
/// [`Observer::synchronise`] for every atomic (relaxed ones too: they continue or end
/// release sequences) and every fence a work-item executes.
#[derive(Clone, Copy, Debug)]
pub struct SyncEvent<'a> {
    pub item: &'a WorkItem,
    pub inst: InstId,
    pub kind: SyncKind,
    /// For a compare-exchange whose comparison failed: its failure order.
    pub order: MemoryOrder,
    pub scope: MemoryScope,
    /// The memory the order applies to ([`fences_of_semantics`]).
    pub fences: Fences,
}

/// Launch-wide facts handed to [`Observer::launch_start`].
#[derive(Clone, Debug)]
pub struct LaunchInfo<'a> {
    pub kernel: &'a str,
    pub work_dim: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
    /// Number of work-groups in each dimension.
    pub num_groups: [u64; 3],
    /// One entry per kernel argument (names let reports say "buffer `out`"), then one per
    /// program-scope `global` variable.
    pub args: &'a [ArgBinding],
    /// Sizes of the group's local allocations, indexed by the slot in `AllocId::local(slot)`.
    pub local_allocs: &'a [LocalAlloc],
}

/// How a kernel argument was bound, as the checkers need to name it.
#[derive(Clone, Debug)]
pub struct ArgBinding {
    /// The kernel argument's position; `u32::MAX` for a program-scope variable, bound after
    /// the arguments.
    pub index: u32,
    /// Shared with the kernel's [`crate::KernelArg`]: bound at every launch.
    pub name: Arc<str>,
    pub space: AddressSpace,
    /// For buffers: the allocation and the view (sub-buffer offset and size).
    pub alloc: Option<AllocId>,
    pub view_offset: u64,
    pub view_size: u64,
    /// Element size of the pointee (for "element index" in reports); 1 when unknown.
    pub elem_size: u32,
    /// A buffer the kernel never writes through this argument ([`crate::KernelArg`]'s).
    pub never_written: bool,
}

/// A local-memory allocation of each work-group.
#[derive(Clone, Debug)]
pub struct LocalAlloc {
    /// Argument name, or the `__local` variable's name.
    pub name: Arc<str>,
    pub size: u64,
    /// Argument index when it came from a `__local` pointer argument.
    pub arg_index: Option<u32>,
    pub elem_size: u32,
}

/// What a work-group is, handed to [`Observer::group_start`].
#[derive(Clone, Copy, Debug)]
pub struct GroupInfo {
    pub group: [u32; 3],
    /// Linear group id in launch order (x + y*nx + z*nx*ny).
    pub group_linear: u64,
    pub items: u32,
}

/// Receives the executor's events. All hooks default to doing nothing.
pub trait Observer: Sync {
    /// Per-work-group state (e.g. local-memory shadow, barrier arrivals).
    type Group: Send;
    /// False only for [`NoObserver`]: lets the executor skip building event data.
    const ENABLED: bool = true;

    fn launch_start(&self, _launch: &LaunchInfo<'_>) {}
    /// Asked once per launch: whether the executor should follow which bytes of private
    /// arrays and structs were written, and report reads of the others ([`Access::undefined`]).
    fn wants_definedness(&self) -> bool {
        false
    }
    /// Asked once per launch: whether stores report the bytes they replaced
    /// ([`Access::previous`]). Getting them in memory order serialises observed stores per
    /// address stripe, which an observer that never compares values need not pay for.
    fn wants_previous(&self) -> bool {
        true
    }
    fn group_start(&self, group: &GroupInfo) -> Self::Group;
    fn access(&self, _group: &mut Self::Group, _access: &Access<'_>) {}
    /// Whether a work-item's plain read (not a copy's) of `size` bytes at `offset` of global
    /// `alloc` by instruction `inst` needs no [`Observer::access`]: the observer knows, from
    /// the group's earlier reads, that it would find nothing and change nothing. Asked before
    /// the access is built; a read it answers true for is not reported at all.
    #[inline(always)]
    fn read_is_quiet(
        &self,
        _group: &Self::Group,
        _alloc: AllocId,
        _inst: InstId,
        _offset: u64,
        _size: u32,
    ) -> bool {
        false
    }
    /// The accesses of one lockstep operation; the same as [`Observer::access`] for each in
    /// `order`, which is what this default does. An observer may hoist what the lanes share.
    fn access_lanes(&self, group: &mut Self::Group, lanes: &LaneAccesses<'_>) {
        let mut bytes = [[0u8; 8]; 2];
        for &l in lanes.order {
            let a = lanes.lane(l, &mut bytes);
            self.access(group, &a);
        }
    }
    /// Asked once per launch: whether the executor reports atomics' and fences' orders and
    /// scopes ([`Observer::synchronise`]).
    fn wants_sync(&self) -> bool {
        false
    }
    /// An atomic operation (after its [`Observer::access`]) or a fence, with its order and
    /// scope; only when [`Observer::wants_sync`] said so.
    fn synchronise(&self, _group: &mut Self::Group, _sync: &SyncEvent<'_>) {}
    fn barrier(&self, _group: &mut Self::Group, _arrival: &BarrierArrival<'_>) {}
    fn barrier_release(&self, _group: &mut Self::Group, _why: Release) {}
    fn group_copy(&self, _group: &mut Self::Group, _copy: &GroupCopy<'_>) {}
    fn group_wait(&self, _group: &mut Self::Group, _wait: &GroupWait<'_>) {}
    fn item_end(&self, _group: &mut Self::Group, _item: &WorkItem) {}
    fn fault(&self, _group: &mut Self::Group, _fault: &Fault<'_>) {}
    /// The watchdog ended the launch (`why`) while these work-items of the group had not
    /// finished, each at the instruction it was about to run (empty: the group had finished,
    /// other groups had not started).
    fn stalled(&self, _group: &mut Self::Group, _why: &str, _running: &[(WorkItem, InstId)]) {}
    fn group_end(&self, _group: Self::Group) {}
    /// Ends `group` as [`Observer::group_end`] does, and may give its state back for the
    /// next group the same worker starts ([`Observer::group_start_on`]): a worker's groups
    /// follow one another, so reusing their state needs no pool the workers share.
    fn group_end_keep(&self, group: Self::Group) -> Option<Self::Group> {
        self.group_end(group);
        None
    }
    /// Starts a group on the state the worker's previous group of this launch left
    /// (`previous`, from [`Observer::group_end_keep`]).
    fn group_start_on(&self, group: &GroupInfo, previous: Option<Self::Group>) -> Self::Group {
        drop(previous);
        self.group_start(group)
    }
    /// A worker has no group of this launch left to run: `kept` is the state its last
    /// group gave back ([`Observer::group_end_keep`]), which the observer may keep for a
    /// later launch.
    fn worker_done(&self, kept: Option<Self::Group>) {
        drop(kept);
    }
    fn launch_end(&self) {}
}

/// The observer that observes nothing; the executor compiles every hook away.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    type Group = ();
    const ENABLED: bool = false;
    #[inline(always)]
    fn group_start(&self, _group: &GroupInfo) {}
}
