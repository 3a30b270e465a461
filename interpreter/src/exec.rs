//! The NDRange executor: work-groups over worker threads, work-items interleaved at barriers.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::alu::{self, mask, sext};
use crate::clstd::{self, Elem, LaneArgs, Produced, Rounding};
use crate::ir::{
    fences_of_flags, ptr, AtomicOp, Builtin, Code, ExtKind, KernelCode, Op, ParamKind, NO_SLOT,
};
use crate::memory::{AllocId, View};
use crate::observer::*;
use crate::schedule::Order;
use crate::{ArgValue, Buffer, ExecError, Launch, LaunchStats, Program, Schedule};

mod lockstep;

/// The software device: a pool of worker threads that runs launches.
#[derive(Debug)]
pub struct Device {
    threads: usize,
    limit: Option<u64>,
    count_all: bool,
    local_memory_limit: u64,
}

/// Local memory a work-group may have unless the platform says otherwise: far above any
/// real device's (tens of KiB), low enough that a malformed module cannot exhaust the host.
pub const DEFAULT_LOCAL_MEMORY_LIMIT: u64 = 16 << 20;

/// A global/constant allocation bound for one launch (a buffer view).
struct GAlloc {
    buf: Arc<Buffer>,
    view_off: u64,
    view_size: u64,
    space: AddressSpace,
    /// Set when the allocation holds an image's texels.
    image: Option<crate::ImageDesc>,
}

/// Launch-wide state shared by all workers.
struct Lx<'a, O: Observer> {
    code: &'a Code,
    kc: &'a KernelCode,
    obs: &'a O,
    /// Index 0 is the NULL allocation.
    allocs: Vec<Option<GAlloc>>,
    /// The bytes of each of `allocs` (same index; empty for NULL): the unobserved fast path.
    views: Vec<View<'a>>,
    byval: Vec<Option<(Vec<u8>, u32)>>,
    /// `(slot, value)` of every register lane the kernel's parameters start with (by-value
    /// aggregates excepted: those need a private copy per work-item).
    param_init: Vec<(u32, u64)>,
    /// Where run-to-barrier items start (see [`entry_of`]): the kernel's function, or the
    /// body a forwarding wrapper calls, with its own parameter lanes and the number of
    /// wrapper instructions skipped (still counted, once per finished item).
    entry: Entry,
    local_sizes: Vec<u64>,
    global_size: [u64; 3],
    local_size: [u64; 3],
    offset: [u64; 3],
    num_groups: [u64; 3],
    work_dim: u32,
    warned: AtomicBool,
    instructions: AtomicU64,
    abort: AtomicBool,
    error: Mutex<Option<ExecError>>,
    wi_order: Order,
    quantum: u32,
    seed: u64,
    limit: Option<u64>,
    count_all: bool,
}

/// Per-work-group state.
struct Gx<O: Observer> {
    obs: O::Group,
    locals: Vec<LocalMem>,
    async_counts: Vec<u32>,
    /// Arguments (dst, src, n, stride) of each copy's latest execution, from its first arrival.
    async_args: Vec<[u64; 4]>,
    /// An async copy is being performed: accesses are the group's.
    by_group: bool,
    group: [u64; 3],
    /// Actual size of this group (smaller at the edge of a non-uniform NDRange).
    size: [u64; 3],
    /// Memory faults so far: a copy stops at its first (one report, not one per byte).
    faults: u64,
}

/// Private memory of a work-item: allocations in one arena.
#[derive(Default)]
struct Priv {
    bytes: Vec<u8>,
    allocs: Vec<(usize, usize)>,
}

struct Frame {
    pc: u32,
    base: u32,
    func: u32,
    ret_d: u32,
    ret_n: u32,
    mark: (usize, usize),
}

#[derive(Default)]
struct St {
    wi: WorkItem,
    frames: Vec<Frame>,
    pc: u32,
    base: u32,
    func: u32,
    async_seen: Vec<u32>,
    done: bool,
    waiting: bool,
}

#[derive(Default)]
struct Item {
    regs: Vec<u64>,
    mem: Priv,
    st: St,
}

/// splitmix64: small, seedable, good enough to shuffle schedules.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

fn ordered<T>(v: &mut [T], order: Order, rng: &mut Rng) {
    match order {
        Order::InOrder => {}
        Order::Reverse => v.reverse(),
        Order::Random => rng.shuffle(v),
    }
}

impl Device {
    /// A device with `threads` workers (0 = all cores).
    pub fn new(threads: usize) -> Device {
        Device {
            threads,
            limit: None,
            count_all: false,
            local_memory_limit: DEFAULT_LOCAL_MEMORY_LIMIT,
        }
    }

    /// Refuses (with [`ExecError::InvalidLaunch`]) a launch whose local memory, module-scope
    /// variables and `__local` arguments together, exceeds `bytes` per work-group (default
    /// [`DEFAULT_LOCAL_MEMORY_LIMIT`]; a platform passes its `CL_DEVICE_LOCAL_MEM_SIZE`).
    pub fn with_local_memory_limit(mut self, bytes: u64) -> Device {
        self.local_memory_limit = bytes;
        self
    }

    /// Counts executed instructions in [`LaunchStats::instructions`] under every schedule.
    /// Without it, run-to-barrier launches with no instruction limit leave that count at 0:
    /// counting costs them about a tenth of their time.
    pub fn with_instruction_count(mut self) -> Device {
        self.count_all = true;
        self
    }

    /// Aborts a launch (with [`ExecError::Aborted`]) once it has executed more than `limit`
    /// instructions in total: a watchdog against kernels that never terminate.
    pub fn with_instruction_limit(mut self, limit: u64) -> Device {
        self.limit = Some(limit);
        self
    }

    /// Runs one launch to completion under `schedule`, reporting to `observer`.
    /// Printf output goes to the process's stdout.
    pub fn run<O: Observer>(
        &self,
        program: &Program,
        launch: &Launch,
        schedule: &Schedule,
        observer: &O,
    ) -> Result<LaunchStats, ExecError> {
        let code = &program.code;
        let ki = program
            .kernels()
            .iter()
            .position(|k| k.name == launch.kernel)
            .ok_or_else(|| ExecError::NoSuchKernel(launch.kernel.clone()))?;
        let info = &program.kernels()[ki];
        let kc = &code.kernels[ki];
        if launch.args.len() != kc.params.len() {
            return Err(ExecError::InvalidLaunch(format!(
                "kernel {} takes {} arguments, {} given",
                info.name,
                kc.params.len(),
                launch.args.len()
            )));
        }
        let work_dim = launch.work_dim.clamp(1, 3);
        let mut global_size = [1u64; 3];
        let mut local_size = [1u64; 3];
        let mut offset = [0u64; 3];
        for d in 0..work_dim as usize {
            global_size[d] = launch.global_size[d];
            offset[d] = launch.global_offset[d];
            local_size[d] = match launch.local_size[d] {
                0 if info.reqd_work_group_size[d] > 0 => info.reqd_work_group_size[d],
                0 => (1..=if d == 0 { 64 } else { 1 })
                    .rev()
                    .find(|l| global_size[d] % l == 0)
                    .unwrap_or(1),
                l => l,
            };
        }
        if global_size.contains(&0) {
            return Ok(LaunchStats::default());
        }
        let num_groups: [u64; 3] = std::array::from_fn(|d| global_size[d].div_ceil(local_size[d]));
        // Products of application-chosen sizes: checked, so a wrap cannot turn a huge launch
        // into an empty one that "succeeds".
        let product = |v: &[u64; 3]| v.iter().try_fold(1u64, |p, &x| p.checked_mul(x));
        let items_per_group = product(&local_size).filter(|&n| n <= 1 << 20);
        let Some(items_per_group) = items_per_group else {
            return Err(ExecError::InvalidLaunch(format!(
                "a work-group of {local_size:?} items is too large (at most 2^20)"
            )));
        };
        let total_groups = product(&num_groups)
            .filter(|g| g.checked_mul(items_per_group).is_some())
            .ok_or_else(|| {
                ExecError::InvalidLaunch(format!(
                    "{global_size:?} work-items are more than a launch can count (2^64)"
                ))
            })?;
        if global_offset_overflows(launch.global_offset, global_size) {
            return Err(ExecError::InvalidLaunch(format!(
                "global offset {:?} + size {global_size:?} overflows get_global_id",
                launch.global_offset
            )));
        }

        // Allocations: module variables first (their pointers are baked into the code).
        // Program-scope `global` variables are global memory the checkers watch, named in
        // reports after the variable (bindings after the kernel's arguments).
        let mut allocs: Vec<Option<GAlloc>> = vec![None];
        let mut views = vec![View::EMPTY];
        let mut var_bindings = vec![];
        for (b, v) in program.const_bufs.iter().zip(&code.const_vars) {
            let space = if v.writable {
                AddressSpace::Global
            } else {
                AddressSpace::Constant
            };
            views.push(b.view(0, b.len() as u64).unwrap_or(View::EMPTY));
            allocs.push(Some(GAlloc {
                buf: b.clone(),
                view_off: 0,
                view_size: b.len() as u64,
                space,
                image: None,
            }));
            if v.writable {
                var_bindings.push(ArgBinding {
                    index: u32::MAX,
                    name: v.name.clone(),
                    space,
                    alloc: Some(b.id()),
                    view_offset: 0,
                    view_size: b.len() as u64,
                    elem_size: v.elem_size,
                });
            }
        }
        let mut local_sizes: Vec<u64> = code
            .local_vars
            .iter()
            .zip(&kc.local_vars_used)
            .map(|(v, u)| if *u { v.size } else { 0 })
            .collect();
        let mut local_allocs: Vec<LocalAlloc> = code
            .local_vars
            .iter()
            .zip(&local_sizes)
            .map(|(v, s)| LocalAlloc {
                name: v.name.clone(),
                size: *s,
                arg_index: None,
                elem_size: v.elem_size,
            })
            .collect();
        let mut param_lanes = vec![];
        let mut byval = vec![];
        let mut bindings = vec![];
        for (i, (pk, av)) in kc.params.iter().zip(&launch.args).enumerate() {
            let arg = &info.args[i];
            let bad = |why: &str| ExecError::InvalidArg {
                index: i as u32,
                why: why.into(),
            };
            let mut binding = ArgBinding {
                index: i as u32,
                name: arg.name.clone(),
                space: AddressSpace::Private,
                alloc: None,
                view_offset: 0,
                view_size: 0,
                elem_size: arg.pointee_size.max(1),
            };
            let mut lanes = vec![];
            let mut bv = None;
            match (pk, av) {
                (
                    ParamKind::Buffer { constant },
                    ArgValue::Buffer {
                        buffer,
                        offset,
                        size,
                    },
                ) => {
                    let end = offset.checked_add(*size);
                    if end.is_none_or(|e| e > buffer.len() as u64) {
                        return Err(bad("sub-buffer view lies outside its buffer"));
                    }
                    let space = if *constant {
                        AddressSpace::Constant
                    } else {
                        AddressSpace::Global
                    };
                    binding.space = space;
                    binding.alloc = Some(buffer.id());
                    binding.view_offset = *offset;
                    binding.view_size = *size;
                    let idx = allocs.len() as u64;
                    views.push(buffer.view(*offset, *size).unwrap_or(View::EMPTY));
                    allocs.push(Some(GAlloc {
                        buf: buffer.clone(),
                        view_off: *offset,
                        view_size: *size,
                        space,
                        image: None,
                    }));
                    lanes.push(ptr::enc(ptr::TAG_LAUNCH, idx, 0));
                }
                (ParamKind::Buffer { constant }, ArgValue::Null) => {
                    binding.space = if *constant {
                        AddressSpace::Constant
                    } else {
                        AddressSpace::Global
                    };
                    lanes.push(0);
                }
                (ParamKind::Local, ArgValue::Local(n)) => {
                    binding.space = AddressSpace::Local;
                    let slot = local_sizes.len() as u64;
                    local_sizes.push(*n);
                    local_allocs.push(LocalAlloc {
                        name: arg.name.clone(),
                        size: *n,
                        arg_index: Some(i as u32),
                        elem_size: arg.pointee_size.max(1),
                    });
                    binding.view_size = *n;
                    lanes.push(ptr::enc(ptr::TAG_LOCAL, slot, 0));
                }
                (ParamKind::Value { layout }, ArgValue::Bytes(b)) => {
                    for leaf in &code.layouts[*layout as usize] {
                        let o = leaf.off as usize;
                        let mut w = [0u8; 8];
                        let src = b
                            .get(o..o + leaf.size as usize)
                            .ok_or_else(|| bad("too few bytes for a by-value argument"))?;
                        w[..src.len()].copy_from_slice(src);
                        lanes.push(u64::from_le_bytes(w));
                    }
                }
                (ParamKind::ByVal { size, align }, ArgValue::Bytes(b)) => {
                    if b.len() < *size as usize {
                        return Err(bad("too few bytes for a by-value struct"));
                    }
                    bv = Some((b[..*size as usize].to_vec(), *align));
                    lanes.push(0);
                }
                (ParamKind::Image, ArgValue::Image { buffer, desc }) => {
                    if desc.byte_len().is_none_or(|n| n > buffer.len() as u64) {
                        return Err(bad("image larger than its storage"));
                    }
                    binding.space = AddressSpace::Global;
                    binding.alloc = Some(buffer.id());
                    binding.view_size = buffer.len() as u64;
                    binding.elem_size = desc.format.element_size().unwrap_or(1) as u32;
                    lanes.push(ptr::enc(ptr::TAG_LAUNCH, allocs.len() as u64, 0));
                    views.push(buffer.view(0, buffer.len() as u64).unwrap_or(View::EMPTY));
                    allocs.push(Some(GAlloc {
                        buf: buffer.clone(),
                        view_off: 0,
                        view_size: buffer.len() as u64,
                        space: AddressSpace::Global,
                        image: Some(*desc),
                    }));
                }
                (ParamKind::Image, ArgValue::Null) => lanes.push(0),
                (ParamKind::Image, _) => return Err(bad("an image argument needs an image")),
                (ParamKind::Opaque, ArgValue::Sampler(bits)) => lanes.push(*bits as u64),
                (ParamKind::Opaque, ArgValue::Bytes(b)) => {
                    let mut w = [0u8; 8];
                    let n = b.len().min(8);
                    w[..n].copy_from_slice(&b[..n]);
                    lanes.push(u64::from_le_bytes(w));
                }
                (_, ArgValue::Local(_)) => return Err(bad("not a __local pointer argument")),
                (_, ArgValue::Buffer { .. } | ArgValue::Null) => {
                    return Err(bad("a buffer was given for a by-value argument"))
                }
                (_, ArgValue::Bytes(_)) => {
                    return Err(bad("bytes were given for a pointer argument"))
                }
                (_, ArgValue::Image { .. }) => return Err(bad("not an image argument")),
                (_, ArgValue::Sampler(_)) => return Err(bad("not a sampler argument")),
            }
            param_lanes.push(lanes);
            byval.push(bv);
            bindings.push(binding);
        }
        bindings.extend(var_bindings);
        debug_assert_eq!(allocs.len(), views.len());
        if allocs.len() as u64 > ptr::IDX_MASK {
            return Err(ExecError::InvalidLaunch("too many buffers".into()));
        }
        let mut param_init = vec![];
        for (k, &(slot, nl)) in code.funcs[kc.func as usize].params.iter().enumerate() {
            if byval[k].is_none() {
                for (i, v) in param_lanes[k].iter().take(nl as usize).enumerate() {
                    param_init.push((slot + i as u32, *v));
                }
            }
        }
        let local_total = local_sizes
            .iter()
            .try_fold(0u64, |a, s| a.checked_add(*s))
            .unwrap_or(u64::MAX);
        if local_total > self.local_memory_limit {
            return Err(ExecError::InvalidLaunch(format!(
                "kernel `{}` needs {local_total} bytes of local memory per work-group; the \
                 limit is {}",
                launch.kernel, self.local_memory_limit
            )));
        }
        let entry = entry_of(code, kc, &param_init, schedule.quantum, &byval);
        let lx = Lx {
            code,
            kc,
            obs: observer,
            allocs,
            views,
            byval,
            param_init,
            entry,
            local_sizes,
            global_size,
            local_size,
            offset,
            num_groups,
            work_dim,
            warned: AtomicBool::new(false),
            instructions: AtomicU64::new(0),
            abort: AtomicBool::new(false),
            error: Mutex::new(None),
            wi_order: schedule.wi_order,
            quantum: schedule.quantum,
            seed: schedule.seed,
            limit: self.limit,
            count_all: self.count_all,
        };
        if O::ENABLED {
            observer.launch_start(&LaunchInfo {
                kernel: &info.name,
                work_dim,
                global_offset: offset,
                global_size,
                local_size,
                num_groups,
                args: &bindings,
                local_allocs: &local_allocs,
            });
        }
        let mut order: Vec<u64> = (0..total_groups).collect();
        let mut rng = Rng(schedule.seed ^ 0x5EED_0F60_0D00);
        ordered(&mut order, schedule.wg_order, &mut rng);
        let threads = if !schedule.parallel {
            1
        } else if schedule.threads > 0 {
            schedule.threads
        } else if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
        .clamp(1, total_groups.max(1) as usize);
        let next = AtomicUsize::new(0);
        let worker = || {
            let mut scratch = Scratch::default();
            loop {
                if lx.abort.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&g) = order.get(i) else { break };
                // Last resort: an interpreter bug must not unwind into the host application.
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_group(&lx, g, &mut scratch)
                }))
                .unwrap_or_else(|_| {
                    scratch = Scratch::default();
                    Err(ExecError::Aborted(format!(
                        "internal interpreter error in work-group {g}"
                    )))
                });
                if let Err(e) = r {
                    lx.abort.store(true, Ordering::Relaxed);
                    lx.error.lock().get_or_insert(e);
                }
            }
        };
        if threads == 1 {
            worker();
        } else {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(worker);
                }
            });
        }
        if O::ENABLED {
            observer.launch_end();
        }
        if let Some(e) = lx.error.lock().take() {
            return Err(e);
        }
        Ok(LaunchStats {
            work_groups: total_groups,
            work_items: global_size.iter().product(),
            instructions: lx.instructions.load(Ordering::Relaxed),
        })
    }
}

/// Start of the per-item (run-to-barrier) executor.
struct Entry {
    func: u32,
    param_init: Vec<(u32, u64)>,
    skipped: u64,
}

/// llvm-spirv gives each kernel a wrapper function that only calls the kernel's body with
/// its own parameters (`Call; Ret`). Under run-to-barrier (quantum 0) nothing can observe
/// the wrapper, so items start in the body, their parameters moved as the call would have;
/// the two wrapper instructions are still counted when an item finishes. Any other quantum
/// interleaves by instruction count and keeps the wrapper, as do by-value struct arguments
/// (bound per item through the wrapper's parameter slots).
fn entry_of(
    code: &Code,
    kc: &KernelCode,
    param_init: &[(u32, u64)],
    quantum: u32,
    byval: &[Option<(Vec<u8>, u32)>],
) -> Entry {
    let plain = Entry {
        func: kc.func,
        param_init: param_init.to_vec(),
        skipped: 0,
    };
    if quantum != 0 || byval.iter().any(|b| b.is_some()) {
        return plain;
    }
    let Some(wrapper) = code.funcs.get(kc.func as usize) else {
        return plain;
    };
    let e = wrapper.entry as usize;
    let (Some(&Op::Call { f, args, .. }), Some(&Op::Ret)) = (code.ops.get(e), code.ops.get(e + 1))
    else {
        return plain;
    };
    let (Some(callee), Some(ca)) = (code.funcs.get(f as usize), code.calls.get(args as usize))
    else {
        return plain;
    };
    if ca.ret_n != 0 || f == kc.func {
        return plain;
    }
    let mut init = vec![];
    for &(s, ds, n) in &ca.moves {
        for i in 0..n {
            // Only parameter lanes can be forwarded (a wrapper constant would need its value).
            let Some(&(_, v)) = param_init.iter().find(|p| p.0 == s + i) else {
                return plain;
            };
            if ds + i >= callee.frame {
                return plain;
            }
            init.push((ds + i, v));
        }
    }
    Entry {
        func: f,
        param_init: init,
        skipped: 2,
    }
}

/// Whether some work-item's global id (offset + index) would not fit 64 bits.
fn global_offset_overflows(offset: [u64; 3], size: [u64; 3]) -> bool {
    (0..3).any(|d| offset[d].checked_add(size[d]).is_none())
}

fn run_group<O: Observer>(lx: &Lx<O>, linear: u64, scratch: &mut Scratch) -> Result<(), ExecError> {
    let Scratch {
        pool,
        lanes,
        wis,
        locals,
        order,
    } = scratch;
    let ng = lx.num_groups;
    let group = [
        linear % ng[0],
        (linear / ng[0]) % ng[1],
        linear / (ng[0] * ng[1]),
    ];
    let size: [u64; 3] = std::array::from_fn(|d| {
        lx.local_size[d].min(lx.global_size[d] - group[d] * lx.local_size[d])
    });
    let n = (size[0] * size[1] * size[2]) as usize;
    let obs = lx.obs.group_start(&GroupInfo {
        group: group.map(|g| g as u32),
        group_linear: linear,
        items: n as u32,
    });
    // Local memory starts zeroed in every group, in buffers the worker keeps (no allocation
    // per group).
    locals.resize_with(lx.local_sizes.len(), LocalMem::default);
    for (l, &size) in locals.iter_mut().zip(&lx.local_sizes) {
        l.reset(size as usize);
    }
    let mut gx: Gx<O> = Gx {
        obs,
        locals: std::mem::take(locals),
        async_counts: vec![0; lx.code.asyncs.len()],
        async_args: vec![[0; 4]; lx.code.asyncs.len()],
        by_group: false,
        group,
        size,
        faults: 0,
    };
    if pool.len() < n {
        pool.resize_with(n, Item::default);
    }
    // Lockstep (below) always starts in the kernel's own function; `lx.entry` only differs
    // from it under quantum 0, which never runs lockstep.
    let func = &lx.code.funcs[lx.entry.func as usize];
    let n_async = lx.code.asyncs.len();
    let has_byval = lx.byval.iter().any(|b| b.is_some());
    let group32 = group.map(|x| x as u32);
    // Quantum 1 is lockstep order: run it one op for all items at a time (exec/lockstep.rs).
    // By-value struct arguments need private memory, which only the per-item path has.
    let lockstep_ok = lx.quantum == 1 && !has_byval;
    let first: [u64; 3] = std::array::from_fn(|d| group[d] * lx.local_size[d] + lx.offset[d]);
    // Local ids advance as an odometer (no divisions per work-item).
    let mut local = [0u64; 3];
    wis.clear();
    for l in 0..n {
        wis.push(WorkItem {
            global: [
                first[0] + local[0],
                first[1] + local[1],
                first[2] + local[2],
            ],
            local: local.map(|x| x as u32),
            group: group32,
            local_linear: l as u32,
        });
        local[0] += 1;
        if local[0] == size[0] {
            local[0] = 0;
            local[1] += 1;
            if local[1] == size[1] {
                local[1] = 0;
                local[2] += 1;
            }
        }
    }
    // Lockstep needs only the items' identities (`wis`); their per-item state is set up
    // when the group first hands over to the per-item executor.
    let prepare = |pool: &mut [Item]| {
        for (it, wi) in pool.iter_mut().zip(wis.iter()) {
            let st = &mut it.st;
            st.wi = *wi;
            st.frames.clear();
            st.pc = func.entry;
            st.base = 0;
            st.func = lx.entry.func;
            st.done = false;
            st.waiting = false;
            if n_async > 0 || !st.async_seen.is_empty() {
                st.async_seen.clear();
                st.async_seen.resize(n_async, 0);
            }
            it.mem.bytes.clear();
            it.mem.allocs.clear();
        }
    };
    let mut prepared = !lockstep_ok;
    if !lockstep_ok {
        prepare(&mut pool[..n]);
    }
    for it in pool[..n].iter_mut().filter(|_| !lockstep_ok) {
        if it.regs.len() < func.frame as usize {
            it.regs.resize(func.frame as usize, 0);
        }
        let regs = &mut it.regs[..];
        if !func.consts.is_empty() {
            let cb = func.const_base as usize;
            regs[cb..cb + func.consts.len()].copy_from_slice(&func.consts);
        }
        for &(slot, v) in &lx.entry.param_init {
            regs[slot as usize] = v;
        }
        if has_byval {
            for (k, &(slot, _)) in func.params.iter().enumerate() {
                if let Some((bytes, align)) = &lx.byval[k] {
                    let p = alloca(&mut it.mem, bytes.len(), *align as usize);
                    let start = it.mem.allocs.last().map_or(0, |a| a.0);
                    it.mem.bytes[start..start + bytes.len()].copy_from_slice(bytes);
                    it.regs[slot as usize] = p;
                }
            }
        }
    }
    let mut rng = Rng(lx.seed ^ linear.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xA5A5);
    order.clear();
    order.extend(0..n);
    ordered(order, lx.wi_order, &mut rng);
    let mut result = Ok(());
    let mut executed = 0u64;
    let mut lockstep_at = lockstep_ok.then(|| {
        lockstep::init_regs(lx, lanes, n);
        lockstep::Pos {
            pc: lx.code.funcs[lx.kc.func as usize].entry as usize,
            base: 0,
            func: lx.kc.func,
            frames: vec![],
            lanes: vec![],
        }
    });
    'outer: loop {
        if let Some(mut at) = lockstep_at.take() {
            match lockstep::run(
                lx,
                &mut gx,
                &wis[..n],
                order,
                &mut rng,
                lanes,
                &mut at,
                &mut executed,
            ) {
                lockstep::LsStop::Done | lockstep::LsStop::Stopped => break 'outer,
                lockstep::LsStop::Scatter => {
                    if !prepared {
                        prepare(&mut pool[..n]);
                        prepared = true;
                    }
                    lockstep::scatter(lx, lanes, &mut pool[..n], &at)
                }
                lockstep::LsStop::Abort(m) => {
                    result = Err(ExecError::Aborted(m));
                    break 'outer;
                }
            }
        }
        let (done, parked) = match run_phase(lx, &mut gx, &mut pool[..n], order, &mut executed) {
            Ok(p) => p,
            Err(e) => {
                result = Err(e);
                break 'outer;
            }
        };
        if lx.abort.load(Ordering::Relaxed) {
            break;
        }
        if done == n {
            break;
        }
        if parked {
            let why = if done > 0 {
                Release::SomeFinished
            } else {
                Release::AllArrived
            };
            if O::ENABLED {
                lx.obs.barrier_release(&mut gx.obs, why);
            }
            for it in &mut pool[..n] {
                it.st.waiting = false;
            }
            if lx.wi_order == Order::Random {
                rng.shuffle(order);
            }
            if lockstep_ok {
                lockstep_at = lockstep::can_gather(&pool[..n]);
                if let Some(at) = &lockstep_at {
                    lockstep::gather(lx, lanes, &pool[..n], at);
                }
            }
        }
    }
    lx.instructions.fetch_add(executed, Ordering::Relaxed);
    *locals = gx.locals;
    lx.obs.group_end(gx.obs);
    result
}

/// What a worker thread keeps from one work-group to the next, so that a group allocates
/// nothing: work-item states, lockstep lanes, identities, local memory, schedule order.
#[derive(Default)]
struct Scratch {
    pool: Vec<Item>,
    lanes: Vec<u64>,
    wis: Vec<WorkItem>,
    locals: Vec<LocalMem>,
    order: Vec<usize>,
}

/// One 128-byte line of local memory.
#[repr(C, align(128))]
#[derive(Clone, Copy)]
struct LocalLine([u8; 128]);

/// A work-group's local allocation, in whole aligned lines of its own: no other allocation,
/// another worker's in particular, shares a cache line with it.
#[derive(Default)]
struct LocalMem {
    lines: Vec<LocalLine>,
    len: usize,
}

impl LocalMem {
    /// `len` zero bytes, in the lines already held when they suffice.
    fn reset(&mut self, len: usize) {
        self.lines.clear();
        self.lines.resize(len.div_ceil(128), LocalLine([0; 128]));
        self.len = len;
    }
}

impl std::ops::Deref for LocalMem {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `lines` holds at least `len` initialised bytes (plain `u8` arrays, no
        // padding: size and alignment are both 128).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u8>(), self.len) }
    }
}

impl std::ops::DerefMut for LocalMem {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, through the unique borrow of `lines`.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

fn alloca(mem: &mut Priv, size: usize, align: usize) -> u64 {
    let align = align.clamp(1, 4096);
    let start = mem.bytes.len().div_ceil(align) * align;
    mem.bytes.resize(start + size, 0);
    mem.allocs.push((start, size));
    ptr::enc(ptr::TAG_PRIVATE, (mem.allocs.len() - 1) as u64, 0)
}

// Fixed-width arms: a variable-length copy compiles to a memcpy call per access.
#[inline(always)]
fn rd(b: &[u8], o: usize, n: usize) -> u64 {
    match n {
        4 => u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or_default()) as u64,
        8 => u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or_default()),
        1 => b[o] as u64,
        2 => u16::from_le_bytes(b[o..o + 2].try_into().unwrap_or_default()) as u64,
        _ => {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&b[o..o + n]);
            u64::from_le_bytes(w)
        }
    }
}

#[inline(always)]
fn wr(b: &mut [u8], o: usize, n: usize, v: u64) {
    match n {
        4 => b[o..o + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        8 => b[o..o + 8].copy_from_slice(&v.to_le_bytes()),
        1 => b[o] = v as u8,
        2 => b[o..o + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        _ => b[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]),
    }
}

#[inline(always)]
fn in_range(off: i64, n: usize, len: u64) -> bool {
    off >= 0 && (off as u64).checked_add(n as u64).is_some_and(|e| e <= len)
}

/// Memory access context of one work-item.
struct Mx<'l, 'g, 'p, 'a, O: Observer> {
    lx: &'l Lx<'a, O>,
    gx: &'g mut Gx<O>,
    mem: &'p mut Priv,
    wi: &'p WorkItem,
}

impl<O: Observer> Mx<'_, '_, '_, '_, O> {
    #[cold]
    fn fault(&mut self, f: Fault<'_>) {
        self.gx.faults += 1;
        if O::ENABLED {
            self.lx.obs.fault(&mut self.gx.obs, &f);
        } else if !self.lx.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "kernel memory fault (further faults in this launch are not logged): {f:?}"
            );
        }
    }

    #[cold]
    fn bad(&mut self, p: u64, size: usize, kind: AccessKind, pc: usize) {
        let (tag, idx, off) = ptr::dec(p);
        let inst = InstId(self.lx.code.inst_of[pc]);
        let wi = self.wi;
        let known = match tag {
            ptr::TAG_LAUNCH => self
                .lx
                .allocs
                .get(idx)
                .and_then(|a| a.as_ref())
                .map(|a| (a.space, a.buf.id(), a.view_size)),
            ptr::TAG_LOCAL => self.gx.locals.get(idx).map(|l| {
                (
                    AddressSpace::Local,
                    AllocId::local(idx as u32),
                    l.len() as u64,
                )
            }),
            ptr::TAG_PRIVATE => self
                .mem
                .allocs
                .get(idx)
                .map(|a| (AddressSpace::Private, AllocId(idx as u64), a.1 as u64)),
            _ => None,
        };
        let f = match known {
            Some((space, alloc, alloc_size)) => Fault::OutOfBounds {
                space,
                alloc,
                offset: off,
                size: size as u32,
                alloc_size,
                kind,
                item: wi,
                inst,
            },
            None => Fault::InvalidPointer {
                pointer: p,
                size: size as u32,
                kind,
                item: wi,
                inst,
            },
        };
        self.fault(f);
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // one flat call keeps the NoObserver path trivial
    fn report(
        &mut self,
        space: AddressSpace,
        alloc: AllocId,
        offset: u64,
        size: usize,
        kind: AccessKind,
        value: u64,
        prev: u64,
        pc: usize,
    ) {
        if O::ENABLED {
            let vb = value.to_le_bytes();
            let pb = prev.to_le_bytes();
            let (v, p): (&[u8], &[u8]) = if kind == AccessKind::Read {
                (&[], &[])
            } else {
                (&vb[..size], &pb[..size])
            };
            self.lx.obs.access(
                &mut self.gx.obs,
                &Access {
                    space,
                    alloc,
                    offset,
                    size: size as u32,
                    kind,
                    value: v,
                    previous: p,
                    item: self.wi,
                    inst: InstId(self.lx.code.inst_of[pc]),
                    by_group: self.gx.by_group,
                },
            );
        }
    }

    #[inline(always)]
    fn load(&mut self, p: u64, n: usize, pc: usize) -> u64 {
        let (tag, idx, off) = ptr::dec(p);
        // Unobserved launch buffers: one range check through the allocation's view; local
        // memory straight after (the observed and faulting paths are below).
        if !O::ENABLED {
            if tag == ptr::TAG_LAUNCH {
                if let Some(v) = self.lx.views.get(idx).and_then(|v| v.load(off, n)) {
                    return v;
                }
            } else if tag == ptr::TAG_LOCAL {
                if let Some(l) = self.gx.locals.get(idx) {
                    if in_range(off, n, l.len() as u64) {
                        return rd(l, off as usize, n);
                    }
                }
            }
            return self.load_unobserved_rest(p, n, pc);
        }
        self.load_rest(p, n, pc)
    }

    /// The rest of an unobserved load (private memory, faults): out of the dispatch loop,
    /// and marked cold so the loop's registers are allocated for the fast paths.
    #[cold]
    #[inline(never)]
    fn load_unobserved_rest(&mut self, p: u64, n: usize, pc: usize) -> u64 {
        self.load_rest(p, n, pc)
    }

    fn load_rest(&mut self, p: u64, n: usize, pc: usize) -> u64 {
        let (tag, idx, off) = ptr::dec(p);
        match tag {
            ptr::TAG_PRIVATE => {
                if let Some(&(start, len)) = self.mem.allocs.get(idx) {
                    if in_range(off, n, len as u64) {
                        return rd(&self.mem.bytes, start + off as usize, n);
                    }
                }
            }
            ptr::TAG_LOCAL => {
                if let Some(l) = self.gx.locals.get(idx) {
                    if in_range(off, n, l.len() as u64) {
                        let v = rd(l, off as usize, n);
                        self.report(
                            AddressSpace::Local,
                            AllocId::local(idx as u32),
                            off as u64,
                            n,
                            AccessKind::Read,
                            0,
                            0,
                            pc,
                        );
                        return v;
                    }
                }
            }
            ptr::TAG_LAUNCH => {
                if let Some(Some(a)) = self.lx.allocs.get(idx) {
                    if in_range(off, n, a.view_size) {
                        let abs = a.view_off + off as u64;
                        let v = a.buf.load(abs as usize, n).unwrap_or(0);
                        let (space, id) = (a.space, a.buf.id());
                        self.report(space, id, abs, n, AccessKind::Read, 0, 0, pc);
                        return v;
                    }
                }
            }
            _ => {}
        }
        self.bad(p, n, AccessKind::Read, pc);
        0
    }

    #[inline(always)]
    fn store(&mut self, p: u64, n: usize, v: u64, pc: usize) {
        let (tag, idx, off) = ptr::dec(p);
        if !O::ENABLED {
            if tag == ptr::TAG_LAUNCH {
                if let Some(()) = self.lx.views.get(idx).and_then(|x| x.store(off, n, v)) {
                    return;
                }
            } else if tag == ptr::TAG_LOCAL {
                if let Some(l) = self.gx.locals.get_mut(idx) {
                    if in_range(off, n, l.len() as u64) {
                        wr(l, off as usize, n, v);
                        return;
                    }
                }
            }
            return self.store_unobserved_rest(p, n, v, pc);
        }
        self.store_rest(p, n, v, pc)
    }

    /// See [`Mx::load_unobserved_rest`].
    #[cold]
    #[inline(never)]
    fn store_unobserved_rest(&mut self, p: u64, n: usize, v: u64, pc: usize) {
        self.store_rest(p, n, v, pc)
    }

    fn store_rest(&mut self, p: u64, n: usize, v: u64, pc: usize) {
        let (tag, idx, off) = ptr::dec(p);
        match tag {
            ptr::TAG_PRIVATE => {
                if let Some(&(start, len)) = self.mem.allocs.get(idx) {
                    if in_range(off, n, len as u64) {
                        wr(&mut self.mem.bytes, start + off as usize, n, v);
                        return;
                    }
                }
            }
            ptr::TAG_LOCAL => {
                if let Some(l) = self.gx.locals.get_mut(idx) {
                    if in_range(off, n, l.len() as u64) {
                        let prev = if O::ENABLED {
                            rd(l, off as usize, n)
                        } else {
                            0
                        };
                        wr(l, off as usize, n, v);
                        self.report(
                            AddressSpace::Local,
                            AllocId::local(idx as u32),
                            off as u64,
                            n,
                            AccessKind::Write,
                            v,
                            prev,
                            pc,
                        );
                        return;
                    }
                }
            }
            ptr::TAG_LAUNCH => {
                if let Some(Some(a)) = self.lx.allocs.get(idx) {
                    if in_range(off, n, a.view_size) {
                        let abs = a.view_off + off as u64;
                        let (space, id) = (a.space, a.buf.id());
                        if !O::ENABLED {
                            a.buf.store(abs as usize, n, v);
                            return;
                        }
                        // Store and report under one lock per address stripe: observers see
                        // the writes to a byte in the order they reached memory, so
                        // `previous` is what the last reported writer left (the same-value
                        // check of the race detector depends on it across work-groups).
                        let _order = store_order_lock(id, abs);
                        let prev = a.buf.load(abs as usize, n).unwrap_or(0);
                        a.buf.store(abs as usize, n, v);
                        self.report(space, id, abs, n, AccessKind::Write, v, prev, pc);
                        return;
                    }
                }
            }
            _ => {}
        }
        self.bad(p, n, AccessKind::Write, pc);
    }

    fn atomic(&mut self, op: AtomicOp, w: u8, p: u64, v: u64, c: u64, pc: usize) -> u64 {
        let n = (w / 8) as usize;
        let (tag, idx, off) = ptr::dec(p);
        let m = mask(w);
        let (v, c) = (v & m, c & m);
        match tag {
            ptr::TAG_LAUNCH => {
                if let Some(Some(a)) = self.lx.allocs.get(idx) {
                    if in_range(off, n, a.view_size) {
                        let abs = (a.view_off + off as u64) as usize;
                        let f = |x: u64| alu::atomic_new(op, w, x, v, c);
                        let old = match (w, op) {
                            (32, AtomicOp::Load) => a
                                .buf
                                .atomic_u32(abs)
                                .map(|x| x.load(Ordering::SeqCst) as u64),
                            (64, AtomicOp::Load) => {
                                a.buf.atomic_u64(abs).map(|x| x.load(Ordering::SeqCst))
                            }
                            (32, _) => a.buf.atomic_u32(abs).map(|x| {
                                match x.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |o| {
                                    Some(f(o as u64) as u32)
                                }) {
                                    Ok(o) | Err(o) => o as u64,
                                }
                            }),
                            (_, _) => a.buf.atomic_u64(abs).map(|x| {
                                match x.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |o| {
                                    Some(f(o))
                                }) {
                                    Ok(o) | Err(o) => o,
                                }
                            }),
                        };
                        // Misaligned: not atomic on the host, but still well-defined bytes.
                        let old = old.unwrap_or_else(|| {
                            let o = a.buf.load(abs, n).unwrap_or(0);
                            if op != AtomicOp::Load {
                                a.buf.store(abs, n, f(o));
                            }
                            o
                        });
                        let (space, id) = (a.space, a.buf.id());
                        let kind = atomic_kind(op, old, c);
                        self.report(space, id, abs as u64, n, kind, f(old), old, pc);
                        return old;
                    }
                }
            }
            ptr::TAG_LOCAL => {
                if let Some(l) = self.gx.locals.get_mut(idx) {
                    if in_range(off, n, l.len() as u64) {
                        let old = rd(l, off as usize, n);
                        let new = alu::atomic_new(op, w, old, v, c);
                        wr(l, off as usize, n, new);
                        self.report(
                            AddressSpace::Local,
                            AllocId::local(idx as u32),
                            off as u64,
                            n,
                            atomic_kind(op, old, c),
                            new,
                            old,
                            pc,
                        );
                        return old;
                    }
                }
            }
            ptr::TAG_PRIVATE => {
                if let Some(&(start, len)) = self.mem.allocs.get(idx) {
                    if in_range(off, n, len as u64) {
                        let old = rd(&self.mem.bytes, start + off as usize, n);
                        let new = alu::atomic_new(op, w, old, v, c);
                        wr(&mut self.mem.bytes, start + off as usize, n, new);
                        return old;
                    }
                }
            }
            _ => {}
        }
        self.bad(p, n, AccessKind::Atomic, pc);
        0
    }

    /// Reads a NUL-terminated string without reporting (printf formats, `%s`).
    fn peek_str(&mut self, p: u64) -> Vec<u8> {
        let (tag, idx, off) = ptr::dec(p);
        let bytes: Vec<u8> = match tag {
            ptr::TAG_LAUNCH => match self.lx.allocs.get(idx) {
                Some(Some(a)) if off >= 0 && (off as u64) < a.view_size => {
                    let mut v = vec![0u8; (a.view_size - off as u64).min(1 << 16) as usize];
                    let _ = a.buf.read((a.view_off + off as u64) as usize, &mut v);
                    v
                }
                _ => vec![],
            },
            ptr::TAG_LOCAL => match self.gx.locals.get(idx) {
                Some(l) if off >= 0 && (off as usize) < l.len() => l[off as usize..].to_vec(),
                _ => vec![],
            },
            ptr::TAG_PRIVATE => match self.mem.allocs.get(idx) {
                Some(&(s, len)) if off >= 0 && (off as usize) < len => {
                    self.mem.bytes[s + off as usize..s + len].to_vec()
                }
                _ => vec![],
            },
            _ => vec![],
        };
        if bytes.is_empty() {
            return b"(null)".to_vec();
        }
        let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
        bytes[..end].to_vec()
    }

    /// Copies `size` bytes; returns false, having stopped, at the first faulting byte: a
    /// copy past the end of memory is one error, and its size (an application's or a
    /// fuzzer's) must not decide how long reporting it takes.
    fn copy(&mut self, d: u64, s: u64, size: u64, pc: usize) -> bool {
        let faults = self.gx.faults;
        let mut i = 0u64;
        // Widest chunk that divides the size and keeps both sides equally aligned.
        let step = [8usize, 4, 2, 1]
            .into_iter()
            .find(|&k| size.is_multiple_of(k as u64) && (d % k as u64) == (s % k as u64))
            .unwrap_or(1);
        while i < size {
            let v = self.load(s.wrapping_add(i), step, pc);
            if self.gx.faults == faults {
                self.store(d.wrapping_add(i), step, v, pc);
            }
            if self.gx.faults != faults {
                return false;
            }
            i += step as u64;
        }
        true
    }
}

impl<O: Observer> Lx<'_, O> {
    /// All lanes of a builtin (lane 0 only for the scalar ones).
    #[inline(always)]
    fn builtin3(&self, gx: &Gx<O>, wi: &WorkItem, b: Builtin) -> [u64; 3] {
        match b {
            Builtin::GlobalId => wi.global,
            Builtin::LocalId => wi.local.map(|x| x as u64),
            Builtin::GroupId => gx.group,
            Builtin::GlobalSize => self.global_size,
            Builtin::LocalSize => gx.size,
            Builtin::EnqueuedLocalSize => self.local_size,
            Builtin::NumGroups => self.num_groups,
            Builtin::GlobalOffset => self.offset,
            _ => [self.builtin(gx, wi, b, 0), 0, 0],
        }
    }

    #[inline]
    fn builtin(&self, gx: &Gx<O>, wi: &WorkItem, b: Builtin, c: usize) -> u64 {
        let c = c.min(2);
        match b {
            Builtin::GlobalId => wi.global[c],
            Builtin::LocalId => wi.local[c] as u64,
            Builtin::GroupId => gx.group[c],
            Builtin::GlobalSize => self.global_size[c],
            Builtin::LocalSize => gx.size[c],
            Builtin::EnqueuedLocalSize => self.local_size[c],
            Builtin::NumGroups => self.num_groups[c],
            Builtin::GlobalOffset => self.offset[c],
            Builtin::WorkDim => self.work_dim as u64,
            Builtin::GlobalLinearId => {
                let g: [u64; 3] = std::array::from_fn(|d| wi.global[d] - self.offset[d]);
                (g[2] * self.global_size[1] + g[1]) * self.global_size[0] + g[0]
            }
            Builtin::LocalIndex | Builtin::SubgroupLocalId => wi.local_linear as u64,
            Builtin::SubgroupSize | Builtin::SubgroupMaxSize => gx.size.iter().product(),
            Builtin::NumSubgroups => 1,
            Builtin::SubgroupId => 0,
        }
    }
}

/// One pass of run-to-barrier over the group's items in schedule order: each item not
/// finished or waiting runs until its next barrier, its end or the end of its turn.
/// Returns how many items are finished and whether every item is finished or waiting at a
/// barrier (`order` visits every item), so the caller needs no pass of its own over them.
fn run_phase<O: Observer>(
    lx: &Lx<O>,
    gx: &mut Gx<O>,
    pool: &mut [Item],
    order: &[usize],
    executed: &mut u64,
) -> Result<(usize, bool), ExecError> {
    // A turn ends at a barrier, after `quantum` instructions, or (with a watchdog limit) in
    // slices so the limit is checked even in a loop without barriers.
    let budget: u64 = match (lx.quantum, lx.limit) {
        (0, None) => u64::MAX,
        (0, Some(l)) => l.clamp(1, 1 << 20),
        (q, _) => q as u64,
    };
    // Run to barrier with no watchdog needs no count: that interpreter does without it.
    if budget != u64::MAX || lx.count_all {
        run_turns::<O, true>(lx, gx, pool, order, executed, budget)
    } else {
        run_turns::<O, false>(lx, gx, pool, order, executed, budget)
    }
}

/// Why a turn left the dispatch loop for the scheduling code around it (a barrier or an
/// item's end hand over to the next item inside the loop).
enum TurnEnd {
    Yield,
    Abort(String),
}

/// The next item of `order` from position `*k` on that is neither finished nor waiting;
/// the finished ones passed are counted in `done`.
#[inline(always)]
fn next_runnable(pool: &[Item], order: &[usize], k: &mut usize, done: &mut usize) -> Option<usize> {
    while let Some(&i) = order.get(*k) {
        *k += 1;
        let st = &pool[i].st;
        if st.done {
            *done += 1;
        } else if !st.waiting {
            return Some(i);
        }
    }
    None
}

/// The interpreter, running the turns of one pass (see [`run_phase`]). An item that reaches
/// a barrier or its end hands over to the next item inside the dispatch loop: a turn costs
/// the stores and loads of the two items' state, not a way out of the loop and back in.
/// Executed instructions are added to `executed` (when `COUNTED`), which the caller flushes
/// to the launch-wide counter (shared by all workers) once per pass, not per turn.
fn run_turns<O: Observer, const COUNTED: bool>(
    lx: &Lx<O>,
    gx: &mut Gx<O>,
    pool: &mut [Item],
    order: &[usize],
    executed: &mut u64,
    budget: u64,
) -> Result<(usize, bool), ExecError> {
    let code = lx.code;
    let ops = &code.ops[..];
    // The op being run is a pointer, not an index into `ops`: one register, no address
    // arithmetic per dispatch. Everything that needs the index (reports, saved state) takes
    // it from the pointer.
    let ops_ptr = ops.as_ptr();
    // SAFETY (for each use): `ip` always points into `ops`.
    let pc_of = |ip: *const Op| unsafe { ip.offset_from(ops_ptr) } as usize;
    let mut done = 0;
    let mut parked = true;
    // Position in `order` of the next item to consider.
    let mut k = 0;
    // The running item's state, borrowed from `pool` and replaced whole at each hand-over
    // (`enter!`); declared here so the macros below can name them.
    let mut regs_vec: &mut Vec<u64>;
    let mut frames: &mut Vec<Frame>;
    let mut async_seen: &mut Vec<u32>;
    let mut st_pc: &mut u32;
    let mut st_base: &mut u32;
    let mut st_func: &mut u32;
    let mut st_done: &mut bool;
    let mut st_waiting: &mut bool;
    let mut mx: Mx<'_, '_, '_, '_, O>;
    // The register file as a raw pointer and length, from which every register access is
    // derived (`rb` is the current frame's first register): the dispatch loop keeps one
    // pointer live instead of a slice and a base. Only a call that needs a larger frame
    // resizes the vector, and takes both anew.
    let mut rp: *mut u64;
    let mut rlen: usize;
    let mut rb: *mut u64;
    let mut base: usize;
    let mut func: u32;
    let mut ip: *const Op;
    // Executed ops are counted per straight-line run (`seg` is where the current one
    // started), not per op: `count + (ip - seg)` is the count at any point.
    let mut count: u64;
    let mut seg: *const Op;
    // Takes up item `$i` where it stopped, with the group context `$gx`.
    macro_rules! enter {
        ($i:expr, $gx:expr) => {{
            let Item { regs, mem, st } = &mut pool[$i];
            let St {
                wi,
                frames: f,
                pc,
                base: b,
                func: fu,
                async_seen: a,
                done: d,
                waiting: w,
            } = st;
            mx = Mx {
                lx,
                gx: $gx,
                mem,
                wi,
            };
            (regs_vec, frames, async_seen) = (regs, f, a);
            (st_pc, st_base, st_func, st_done, st_waiting) = (pc, b, fu, d, w);
            rp = regs_vec.as_mut_ptr();
            rlen = regs_vec.len();
            base = *st_base as usize;
            func = *st_func;
            let pc = *st_pc as usize;
            // Registers of the ops `Code::verify` covers are read without bounds checks:
            // verified code keeps `ip` inside the current function's ops and those ops'
            // operands inside its frame, so it is enough that the register file holds the
            // frame (checked here, kept by `Call`, which grows it, and `Ret`, which returns
            // to a frame that fitted before).
            match code.funcs.get(func as usize) {
                Some(f)
                    if (f.entry as usize..f.end as usize).contains(&pc)
                        && rlen >= base + f.frame as usize => {}
                _ => {
                    return Err(ExecError::Aborted(format!(
                        "work-item resumed outside its function (pc {pc})"
                    )))
                }
            }
            // SAFETY: `pc` lies inside its function's ops, inside `ops`; `base` inside the
            // register file (both checked just above).
            ip = unsafe { ops_ptr.add(pc) };
            rb = unsafe { rp.add(base) };
            seg = ip;
            count = 0;
        }};
    }
    // Ends the running item's turn: saves where it stopped.
    macro_rules! save {
        () => {{
            *st_pc = pc_of(ip) as u32;
            *st_base = base as u32;
            *st_func = func;
            if COUNTED {
                // SAFETY: both point into `ops`.
                *executed += count + unsafe { ip.offset_from(seg) } as u64;
            }
        }};
    }
    // Hands over to the next runnable item, or ends the pass when there is none.
    macro_rules! next_item {
        () => {{
            let gx = mx.gx;
            match next_runnable(pool, order, &mut k, &mut done) {
                Some(i) => enter!(i, gx),
                None => return Ok((done, parked)),
            }
        }};
    }
    let Some(first) = next_runnable(pool, order, &mut k, &mut done) else {
        return Ok((done, parked));
    };
    enter!(first, gx);
    // The whole register file as a slice, for the ops that move several lanes or hand the
    // registers to a helper.
    macro_rules! regs {
        () => {
            // SAFETY: `rp`/`rlen` are `regs_vec`'s buffer, which nothing else borrows while
            // the item runs; each such slice is a temporary, gone before the next access.
            unsafe { std::slice::from_raw_parts_mut(rp, rlen) }
        };
    }
    // The index of the op being run (`ip` has moved past it).
    macro_rules! here {
        () => {
            pc_of(ip) - 1
        };
    }
    macro_rules! r {
        ($x:expr) => {
            regs!()[base + $x as usize]
        };
    }
    // The turn budget is checked on control transfers only (every loop passes one).
    macro_rules! jump {
        ($t:expr) => {{
            let t = $t;
            if COUNTED {
                // SAFETY: both point into `ops` (`seg` is where this straight run began).
                count += unsafe { ip.offset_from(seg) } as u64;
            }
            // SAFETY: branch targets of verified code lie inside the function.
            ip = unsafe { ops_ptr.add(t) };
            seg = ip;
            if COUNTED && count >= budget {
                break TurnEnd::Yield;
            }
        }};
    }
    // Accesses with the width as a constant, so the width dispatch in the memory path folds
    // away for the common 4- and 8-byte accesses.
    macro_rules! load {
        ($p:expr, $w:expr, $pc:expr) => {
            match $w {
                4 => mx.load($p, 4, $pc),
                8 => mx.load($p, 8, $pc),
                w => mx.load($p, w as usize, $pc),
            }
        };
    }
    macro_rules! store {
        ($p:expr, $w:expr, $v:expr, $pc:expr) => {
            match $w {
                4 => mx.store($p, 4, $v, $pc),
                8 => mx.store($p, 8, $v, $pc),
                w => mx.store($p, w as usize, $v, $pc),
            }
        };
    }
    macro_rules! u {
        ($x:expr) => {
            // SAFETY: see above; `$x` is an operand slot of a verified op of `func`.
            *unsafe { &mut *rb.add($x as usize) }
        };
    }
    // A comparison followed by the branch on it (every loop test): the branch runs in the
    // same turn of the loop, saving a dispatch. The branch op stays in place (it may be a
    // branch target itself) and is counted as executed.
    macro_rules! test {
        ($d:expr, $v:expr) => {{
            let v: u64 = $v;
            u!($d) = v;
            if let Some(&Op::BrIf { c, t, f }) = Some(unsafe { &*ip }) {
                if c == $d {
                    ip = unsafe { ip.add(1) };
                    if v & 1 != 0 {
                        jump!(t as usize);
                    } else {
                        jump!(f as usize);
                    }
                }
            }
        }};
    }
    // `d = p + sext(idx) * scale + off`, then the access through `d` if that comes next
    // (the common case): it runs in this turn of the loop, saving one dispatch. The access
    // op stays in place (it may be a branch target) and is skipped here.
    macro_rules! gep1 {
        ($w:expr, $d:expr, $p:expr, $idx:expr, $scale:expr, $off:expr) => {{
            let d = $d;
            let i = sext(u!($idx), $w);
            let a =
                u!($p).wrapping_add(i.wrapping_mul($scale as i64).wrapping_add($off as i64) as u64);
            u!(d) = a;
            match Some(unsafe { &*ip }) {
                Some(&Op::Load { w, d: ld, p: lp }) if lp == d => {
                    ip = unsafe { ip.add(1) };
                    u!(ld) = load!(a, w, here!());
                }
                Some(&Op::Store { w, p: sp, v }) if sp == d => {
                    ip = unsafe { ip.add(1) };
                    let vv = u!(v);
                    store!(a, w, vv, here!());
                }
                _ => {}
            }
        }};
    }
    loop {
        let end = loop {
            debug_assert!(pc_of(ip) < ops.len());
            // SAFETY: `ip` is inside the current function's ops (see above): those lie in `ops`.
            let opr = unsafe { &*ip };
            ip = unsafe { ip.add(1) };
            match *opr {
                Op::Mov { d, s } => {
                    u!(d) = u!(s);
                    // A phi's move on a loop's back edge or a branch's join is followed by the
                    // jump: take it in the same turn of the loop (the Br stays in place, counted).
                    if let Some(&Op::Br { t }) = Some(unsafe { &*ip }) {
                        ip = unsafe { ip.add(1) };
                        jump!(t as usize);
                    }
                }
                Op::Bin { op, w, d, a, b } => u!(d) = alu::bin(op, w, u!(a), u!(b)),
                Op::Add32 { d, a, b } => {
                    u!(d) = (u!(a) as u32).wrapping_add(u!(b) as u32) as u64;
                    // An index sum used as the next address's index (`p[y * w + x + 1]`): compute
                    // the address (and its access) in this turn of the loop; the Gep1 is counted.
                    if let Some(&Op::Gep1 {
                        w,
                        d: gd,
                        p,
                        idx,
                        scale,
                        off,
                    }) = Some(unsafe { &*ip })
                    {
                        if idx == d {
                            ip = unsafe { ip.add(1) };
                            gep1!(w, gd, p, idx, scale, off);
                        }
                    }
                }
                Op::Add64 { d, a, b } => u!(d) = u!(a).wrapping_add(u!(b)),
                Op::Sub32 { d, a, b } => u!(d) = (u!(a) as u32).wrapping_sub(u!(b) as u32) as u64,
                Op::Sub64 { d, a, b } => u!(d) = u!(a).wrapping_sub(u!(b)),
                Op::Mul32 { d, a, b } => u!(d) = (u!(a) as u32).wrapping_mul(u!(b) as u32) as u64,
                Op::Mul64 { d, a, b } => u!(d) = u!(a).wrapping_mul(u!(b)),
                Op::SLt32 { d, a, b } => test!(d, ((u!(a) as i32) < (u!(b) as i32)) as u64),
                Op::ULt32 { d, a, b } => test!(d, ((u!(a) as u32) < (u!(b) as u32)) as u64),
                Op::SLt64 { d, a, b } => test!(d, ((u!(a) as i64) < (u!(b) as i64)) as u64),
                Op::ULt64 { d, a, b } => test!(d, (u!(a) < u!(b)) as u64),
                Op::Eq32 { d, a, b } => test!(d, (u!(a) as u32 == u!(b) as u32) as u64),
                Op::FAdd32 { d, a, b } => {
                    u!(d) = (f32::from_bits(u!(a) as u32) + f32::from_bits(u!(b) as u32)).to_bits()
                        as u64
                }
                Op::FMul32 { d, a, b } => {
                    u!(d) = (f32::from_bits(u!(a) as u32) * f32::from_bits(u!(b) as u32)).to_bits()
                        as u64
                }
                Op::FSub32 { d, a, b } => {
                    u!(d) = (f32::from_bits(u!(a) as u32) - f32::from_bits(u!(b) as u32)).to_bits()
                        as u64
                }

                Op::Eq64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    test!(d, (x == y) as u64);
                }
                Op::Ne32 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    test!(d, (x != y) as u64);
                }
                Op::Ne64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    test!(d, (x != y) as u64);
                }
                Op::Shr32 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x >> (y & 31);
                }
                Op::Shr64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x >> (y & 63);
                }
                Op::Shl32 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = (x << (y & 31)) & 0xffff_ffff;
                }
                Op::Shl64 { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x << (y & 63);
                }
                Op::And { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x & y;
                }
                Op::Or { d, a, b } => {
                    let (x, y) = (u!(a), u!(b));
                    u!(d) = x | y;
                }
                Op::Select {
                    cvec,
                    n,
                    d,
                    c,
                    a,
                    b,
                } => {
                    if n == 1 {
                        r!(d) = if r!(c) & 1 != 0 { r!(a) } else { r!(b) };
                        continue;
                    }
                    for i in 0..n {
                        let cc = if cvec { r!(c + i) } else { r!(c) };
                        r!(d + i) = if cc & 1 != 0 { r!(a + i) } else { r!(b + i) };
                    }
                }
                Op::IConv {
                    signed,
                    from,
                    to,
                    n,
                    d,
                    s,
                } => {
                    let m = mask(to);
                    if n == 1 {
                        let v = r!(s);
                        r!(d) = if signed {
                            sext(v, from) as u64 & m
                        } else {
                            v & mask(from) & m
                        };
                        continue;
                    }
                    for i in 0..n as u32 {
                        let v = r!(s + i);
                        r!(d + i) = if signed {
                            sext(v, from) as u64 & m
                        } else {
                            v & mask(from) & m
                        };
                    }
                }
                Op::Load { w, d, p } => {
                    let pv = u!(p);
                    u!(d) = load!(pv, w, here!());
                }
                Op::Store { w, p, v } => {
                    let (pv, vv) = (u!(p), u!(v));
                    store!(pv, w, vv, here!());
                }
                Op::Gep { d, p, off } => r!(d) = r!(p).wrapping_add(off as u64),
                Op::Gep1 {
                    w,
                    d,
                    p,
                    idx,
                    scale,
                    off,
                } => gep1!(w, d, p, idx, scale, off),
                Op::GepN { g, d, p } => {
                    let spec = &code.geps[g as usize];
                    let mut o = spec.off;
                    for t in &spec.terms {
                        o = o.wrapping_add(sext(r!(t.slot), t.w).wrapping_mul(t.scale));
                    }
                    r!(d) = r!(p).wrapping_add(o as u64);
                }
                Op::LoadBuiltin { b, comp, d } => {
                    if comp == u8::MAX {
                        // One dispatch on the builtin for all its lanes.
                        let v = lx.builtin3(mx.gx, mx.wi, b);
                        if b.lanes() == 3 {
                            u!(d) = v[0];
                            u!(d + 1) = v[1];
                            u!(d + 2) = v[2];
                        } else {
                            u!(d) = v[0];
                        }
                        // Lowering copies the component the kernel asked for (`get_global_id(1)`)
                        // out of the vector: do that move here (it stays in place, counted).
                        if let Some(&Op::Mov { d: md, s }) = Some(unsafe { &*ip }) {
                            if s >= d && s < d + b.lanes() {
                                ip = unsafe { ip.add(1) };
                                u!(md) = v[(s - d) as usize];
                            }
                        }
                    } else {
                        u!(d) = lx.builtin(mx.gx, mx.wi, b, comp as usize);
                    }
                }
                Op::Br { t } => jump!(t as usize),
                Op::BrIf { c, t, f } => {
                    if u!(c) & 1 != 0 {
                        jump!(t as usize);
                    } else {
                        jump!(f as usize);
                    }
                }
                Op::Switch { w, s, tab } => {
                    let v = r!(s) & mask(w);
                    let t = &code.switches[tab as usize];
                    jump!(t.cases.iter().find(|c| c.0 == v).map_or(t.default, |c| c.1) as usize);
                }
                Op::Fma {
                    fused,
                    w,
                    n,
                    d,
                    a,
                    b,
                    c,
                } => {
                    if n == 1 && w == 32 && !fused {
                        // The scalar mad of float kernels (matmul's inner loop), without the lane
                        // loop; the same operations as below.
                        let f = |v: u64| f32::from_bits(v as u32);
                        u!(d) = (f(u!(a)) * f(u!(b)) + f(u!(c))).to_bits() as u64;
                        continue;
                    }
                    for i in 0..n as u32 {
                        let (x, y, z) = (u!(a + i), u!(b + i), u!(c + i));
                        u!(d + i) = if w == 32 {
                            let (x, y, z) = (
                                f32::from_bits(x as u32),
                                f32::from_bits(y as u32),
                                f32::from_bits(z as u32),
                            );
                            (if fused { x.mul_add(y, z) } else { x * y + z }).to_bits() as u64
                        } else {
                            let (x, y, z) =
                                (f64::from_bits(x), f64::from_bits(y), f64::from_bits(z));
                            (if fused { x.mul_add(y, z) } else { x * y + z }).to_bits()
                        };
                    }
                }
                Op::Call { f, d, args } => {
                    if frames.len() >= 1024 {
                        break TurnEnd::Abort("call stack overflow (recursion?)".into());
                    }
                    let callee = &code.funcs[f as usize];
                    let nb = base + code.funcs[func as usize].frame as usize;
                    let need = nb + callee.frame as usize;
                    if rlen < need {
                        regs_vec.resize(need, 0);
                        rp = regs_vec.as_mut_ptr();
                        rlen = regs_vec.len();
                    }
                    let regs = regs!();
                    if !callee.consts.is_empty() {
                        let cb = nb + callee.const_base as usize;
                        regs[cb..cb + callee.consts.len()].copy_from_slice(&callee.consts);
                    }
                    let ca = &code.calls[args as usize];
                    for &(s, ds, n) in &ca.moves {
                        let s = base + s as usize;
                        if n == 1 {
                            regs[nb + ds as usize] = regs[s];
                        } else {
                            regs.copy_within(s..s + n as usize, nb + ds as usize);
                        }
                    }
                    frames.push(Frame {
                        pc: here!() as u32 + 1,
                        base: base as u32,
                        func,
                        ret_d: d,
                        ret_n: ca.ret_n,
                        mark: (mx.mem.allocs.len(), mx.mem.bytes.len()),
                    });
                    func = f;
                    base = nb;
                    // SAFETY: `base + frame` of the callee fits in the register file (grown above).
                    rb = unsafe { rp.add(base) };
                    jump!(callee.entry as usize);
                }
                Op::Ret | Op::RetV { .. } => {
                    let Some(fr) = frames.pop() else {
                        // The item's end: the next item runs in this same loop.
                        save!();
                        *st_done = true;
                        done += 1;
                        if COUNTED {
                            *executed += lx.entry.skipped;
                        }
                        if O::ENABLED {
                            lx.obs.item_end(&mut mx.gx.obs, mx.wi);
                        }
                        next_item!();
                        continue;
                    };
                    if let Op::RetV { s, n } = *opr {
                        let s = base + s as usize;
                        let n = (n.min(fr.ret_n)) as usize;
                        regs!().copy_within(s..s + n, fr.base as usize + fr.ret_d as usize);
                    }
                    mx.mem.allocs.truncate(fr.mark.0);
                    mx.mem.bytes.truncate(fr.mark.1);
                    if COUNTED {
                        count += unsafe { ip.offset_from(seg) } as u64;
                    }
                    // SAFETY: `fr.pc` follows a `Call` of a verified function (not its last op).
                    ip = unsafe { ops_ptr.add(fr.pc as usize) };
                    seg = ip;
                    base = fr.base as usize;
                    // SAFETY: the caller's frame fitted when it made the call.
                    rb = unsafe { rp.add(base) };
                    func = fr.func;
                }
                Op::Barrier { fences, flags } => {
                    let fences = if flags == NO_SLOT {
                        fences
                    } else {
                        fences_of_flags(r!(flags))
                    };
                    let at = here!();
                    save!();
                    *st_waiting = true;
                    if O::ENABLED {
                        lx.obs.barrier(
                            &mut mx.gx.obs,
                            &BarrierArrival {
                                item: mx.wi,
                                inst: InstId(code.inst_of[at]),
                                fences,
                            },
                        );
                    }
                    next_item!();
                }
                Op::Trap => break TurnEnd::Abort("unreachable code reached".into()),
                // Everything else runs out of line (see `run_cold`).
                _ => {
                    if let Err(m) = run_cold(opr, regs!(), base, &mut mx, async_seen, here!()) {
                        break TurnEnd::Abort(m);
                    }
                }
            }
        };
        save!();
        match end {
            TurnEnd::Yield => {
                parked = false;
                lx.instructions
                    .fetch_add(std::mem::take(executed), Ordering::Relaxed);
                if lx
                    .limit
                    .is_some_and(|l| lx.instructions.load(Ordering::Relaxed) > l)
                {
                    return Err(ExecError::Aborted(format!(
                        "instruction limit of {} exceeded",
                        lx.limit.unwrap_or(0)
                    )));
                }
            }
            TurnEnd::Abort(m) => return Err(ExecError::Aborted(m)),
        }
        next_item!();
    }
}

/// The ops that are rare in hot loops (vectors, aggregates, conversions, private memory,
/// atomics, OpenCL.std calls), out of line: kept in the dispatch loop, their calls and
/// temporaries made the register allocator spill the loop's own state (the op pointer, the
/// frame pointer) around every op. `pc` is the op's index; an `Err` aborts the work-item.
#[inline(never)]
fn run_cold<O: Observer>(
    opr: &Op,
    regs: &mut [u64],
    base: usize,
    mx: &mut Mx<'_, '_, '_, '_, O>,
    async_seen: &mut [u32],
    pc: usize,
) -> Result<(), String> {
    let code = mx.lx.code;
    macro_rules! r {
        ($x:expr) => {
            regs[base + $x as usize]
        };
    }
    match *opr {
        Op::MovN { d, s, n } => {
            let s = base + s as usize;
            regs.copy_within(s..s + n as usize, base + d as usize);
        }
        Op::BinV { op, w, n, d, a, b } => {
            for i in 0..n as u32 {
                r!(d + i) = alu::bin(op, w, r!(a + i), r!(b + i));
            }
        }
        Op::BinS { op, w, n, d, a, b } => {
            let y = r!(b);
            for i in 0..n as u32 {
                r!(d + i) = alu::bin(op, w, r!(a + i), y);
            }
        }
        Op::Un { op, w, n, d, a } => {
            for i in 0..n as u32 {
                r!(d + i) = alu::un(op, w, r!(a + i));
            }
        }
        Op::Reduce { all, n, d, a } => {
            let mut acc = all;
            for i in 0..n as u32 {
                let x = r!(a + i) & 1 != 0;
                acc = if all { acc && x } else { acc || x };
            }
            r!(d) = acc as u64;
        }
        Op::Conv { cv, n, d, s } => {
            let c = code.convs[cv as usize];
            for i in 0..n as u32 {
                r!(d + i) = c.apply(r!(s + i));
            }
        }
        Op::Bitcast {
            fw,
            fnl,
            tw,
            tn,
            d,
            s,
        } => {
            let mut bytes = [0u8; 128];
            let fb = (fw as usize).div_ceil(8);
            for i in 0..(fnl as usize).min(16) {
                let v = regs[base + s as usize + i].to_le_bytes();
                bytes[i * fb..i * fb + fb].copy_from_slice(&v[..fb]);
            }
            let tb = (tw as usize).div_ceil(8);
            for i in 0..(tn as usize).min(16) {
                regs[base + d as usize + i] = rd(&bytes, i * tb, tb);
            }
        }
        Op::Mask { w, d, s } => r!(d) = r!(s) & mask(w),
        Op::ExtractDyn {
            n,
            stride,
            d,
            v,
            idx,
        } => {
            let i = r!(idx);
            r!(d) = if i < n as u64 {
                r!(v as u64 + i * stride as u64)
            } else {
                0
            };
        }
        Op::InsertDyn {
            n,
            stride,
            d,
            v,
            x,
            idx,
        } => {
            let s = base + v as usize;
            regs.copy_within(s..s + (n * stride) as usize, base + d as usize);
            let i = r!(idx);
            if i < n as u64 {
                r!(d as u64 + i * stride as u64) = r!(x);
            }
        }
        Op::LoadN { w, n, d, p } => {
            let pv = r!(p);
            for i in 0..n {
                r!(d + i) = mx.load(pv.wrapping_add(i as u64 * w as u64), w as usize, pc);
            }
        }
        Op::LoadAgg { l, d, p } => {
            let pv = r!(p);
            for (i, leaf) in code.layouts[l as usize].iter().enumerate() {
                r!(d as usize + i) =
                    mx.load(pv.wrapping_add(leaf.off as u64), leaf.size as usize, pc);
            }
        }
        Op::StoreN { w, n, p, v } => {
            let pv = r!(p);
            for i in 0..n {
                mx.store(
                    pv.wrapping_add(i as u64 * w as u64),
                    w as usize,
                    r!(v + i),
                    pc,
                );
            }
        }
        Op::StoreAgg { l, p, v } => {
            let pv = r!(p);
            for (i, leaf) in code.layouts[l as usize].iter().enumerate() {
                mx.store(
                    pv.wrapping_add(leaf.off as u64),
                    leaf.size as usize,
                    r!(v as usize + i),
                    pc,
                );
            }
        }
        Op::PtrDiff { elem, d, a, b } => {
            r!(d) = (r!(a).wrapping_sub(r!(b)) as i64 / elem.max(1) as i64) as u64;
        }
        Op::Alloca { size, align, d } => {
            if mx.mem.allocs.len() as u64 >= ptr::IDX_MASK || mx.mem.bytes.len() > 1 << 30 {
                return Err("private memory exhausted".into());
            }
            r!(d) = alloca(mx.mem, size as usize, align as usize);
        }
        Op::CopyMem { d, s, size } => {
            let (dv, sv) = (r!(d), r!(s));
            mx.copy(dv, sv, size as u64, pc);
        }
        Op::CopyMemDyn { d, s, size, w } => {
            let (dv, sv, n) = (r!(d), r!(s), r!(size) & mask(w));
            mx.copy(dv, sv, n.min(1 << 32), pc);
        }
        Op::Dot { w, n, d, a, b } => {
            r!(d) = match w {
                64 => {
                    let mut acc = 0f64;
                    for i in 0..n as u32 {
                        acc += f64::from_bits(r!(a + i)) * f64::from_bits(r!(b + i));
                    }
                    acc.to_bits()
                }
                _ => {
                    let mut acc = 0f32;
                    for i in 0..n as u32 {
                        acc += alu::to_f64(r!(a + i), w) as f32 * alu::to_f64(r!(b + i), w) as f32;
                    }
                    if w == 16 {
                        half::f16::from_f32(acc).to_bits() as u64
                    } else {
                        acc.to_bits() as u64
                    }
                }
            };
        }
        Op::FMinMax { max, w, n, d, a, b } => {
            for i in 0..n as u32 {
                let (x, y) = (r!(a + i), r!(b + i));
                r!(d + i) = if w == 32 {
                    let (x, y) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
                    (if max { x.max(y) } else { x.min(y) }).to_bits() as u64
                } else {
                    let (x, y) = (f64::from_bits(x), f64::from_bits(y));
                    (if max { x.max(y) } else { x.min(y) }).to_bits()
                };
            }
        }
        Op::FUn { sqrt, w, n, d, a } => {
            for i in 0..n as u32 {
                let x = r!(a + i);
                r!(d + i) = match (sqrt, w) {
                    (true, 32) => f32::from_bits(x as u32).sqrt().to_bits() as u64,
                    (true, _) => f64::from_bits(x).sqrt().to_bits(),
                    (false, 32) => x & 0x7fff_ffff,
                    (false, _) => x & 0x7fff_ffff_ffff_ffff,
                };
            }
        }
        Op::Atomic { op, w, d, p, v, c } => {
            let (pv, vv, cv) = (r!(p), r!(v), r!(c));
            let old = mx.atomic(op, w, pv, vv, cv, pc);
            if op != AtomicOp::Store {
                r!(d) = old;
            }
        }
        Op::ExtInst { e } => {
            ext_inst(mx, regs, base, e, pc)?;
        }
        Op::AsyncCopy { a } => {
            let s = code.asyncs[a as usize];
            async_copy(mx, async_seen, regs, base, s, pc);
        }
        Op::AsyncWait { n, n_w, list } => {
            let count = regs[base + n as usize] & mask(n_w);
            let list = regs[base + list as usize];
            async_wait(mx, count, list, pc);
        }

        // The dispatch loop runs every other op itself.
        _ => return Err(format!("op {opr:?} reached the out-of-line path")),
    }
    Ok(())
}

/// What an atomic did to memory: a load, or a compare-exchange that found another value
/// than `c`, only read it.
fn atomic_kind(op: AtomicOp, old: u64, c: u64) -> AccessKind {
    match op {
        AtomicOp::Load => AccessKind::AtomicRead,
        AtomicOp::CmpXchg if old != c => AccessKind::AtomicRead,
        _ => AccessKind::Atomic,
    }
}

/// wait_group_events: reads the event list (private memory) and tells the observer.
fn async_wait<O: Observer>(mx: &mut Mx<'_, '_, '_, '_, O>, count: u64, list: u64, pc: usize) {
    if !O::ENABLED {
        return;
    }
    // More events than copy instructions can only repeat or be invalid; 64 tell the story.
    let events: Vec<u64> = (0..count.min(64))
        .map(|i| mx.load(list.wrapping_add(i * 8), 8, pc))
        .collect();
    let wait = GroupWait {
        item: mx.wi,
        inst: InstId(mx.lx.code.inst_of[pc]),
        events: &events,
    };
    mx.lx.obs.group_wait(&mut mx.gx.obs, &wait);
}

/// async_work_group_copy: the first work-item to reach the n-th execution does the copy, as
/// the group; later arrivals are compared with its arguments.
fn async_copy<O: Observer>(
    mx: &mut Mx<'_, '_, '_, '_, O>,
    seen: &mut [u32],
    regs: &mut [u64],
    base: usize,
    s: crate::ir::AsyncSpec,
    pc: usize,
) {
    let k = s.counter as usize;
    let r = |x: u32| regs[base + x as usize];
    let n = r(s.n) & mask(s.n_w);
    let stride = r(s.stride) & mask(s.stride_w);
    let (dst, src) = (r(s.dst), r(s.src));
    let event = k as u64 + 1;
    regs[base + s.d as usize] = event;
    let Some(count) = seen.get_mut(k) else {
        return;
    };
    *count += 1;
    let first = mx.gx.async_counts[k] < *count;
    let args = [dst, src, n, stride];
    if first {
        mx.gx.async_counts[k] = *count;
        mx.gx.async_args[k] = args;
    }
    if O::ENABLED {
        let copy = GroupCopy {
            item: mx.wi,
            inst: InstId(mx.lx.code.inst_of[pc]),
            event,
            first,
            same_args: mx.gx.async_args[k] == args,
        };
        mx.lx.obs.group_copy(&mut mx.gx.obs, &copy);
    }
    if !first {
        return;
    }
    mx.gx.by_group = true;
    let e = s.elem as u64;
    for i in 0..n.min(1 << 32) {
        let (d, sv) = if s.to_local {
            (dst.wrapping_add(i * e), src.wrapping_add(i * stride * e))
        } else {
            (dst.wrapping_add(i * stride * e), src.wrapping_add(i * e))
        };
        if !mx.copy(d, sv, e, pc) {
            break;
        }
    }
    mx.gx.by_group = false;
}

fn ext_inst<O: Observer>(
    mx: &mut Mx<'_, '_, '_, '_, O>,
    regs: &mut [u64],
    base: usize,
    e: u32,
    pc: usize,
) -> Result<(), String> {
    let spec = &mx.lx.code.exts[e as usize];
    let arg = |k: usize| -> (&[u64], Elem) {
        match spec.args.get(k) {
            Some(a) => (
                &regs[base + a.slot as usize..base + (a.slot + a.n) as usize],
                a.elem,
            ),
            None => (&[], Elem::Int(32)),
        }
    };
    match &spec.kind {
        ExtKind::Pure { op, ptr } => {
            let mut lanes = [[0u64; 16]; 4];
            let mut la: [LaneArgs<'_>; 4] = [LaneArgs {
                elem: Elem::Int(32),
                lanes: &[],
            }; 4];
            let na = spec.args.len().min(4);
            for (k, l) in lanes.iter_mut().enumerate().take(na) {
                let (s, _) = arg(k);
                let m = s.len().min(16);
                l[..m].copy_from_slice(&s[..m]);
            }
            for k in 0..na {
                let a = &spec.args[k];
                la[k] = LaneArgs {
                    elem: a.elem,
                    lanes: &lanes[k][..(a.n as usize).min(16)],
                };
            }
            let n = (spec.n as usize).min(16);
            let mut out = [0u64; 16];
            let mut out2 = [0u64; 16];
            let r = clstd::eval(*op, spec.elem, &la[..na], &mut out[..n], &mut out2[..n])?;
            regs[base + spec.d as usize..base + spec.d as usize + n].copy_from_slice(&out[..n]);
            if let (Produced::ResultAndPointee, Some((ps, w, _))) = (r, ptr) {
                let p = regs[base + *ps as usize];
                for (i, v) in out2[..n].iter().enumerate() {
                    mx.store(
                        p.wrapping_add((i * *w as usize) as u64),
                        *w as usize,
                        *v,
                        pc,
                    );
                }
            }
        }
        ExtKind::VLoad {
            n,
            elem_bytes,
            half,
            aligned,
        } => {
            let off = arg(0).0.first().copied().unwrap_or(0);
            let p = arg(1).0.first().copied().unwrap_or(0);
            let eb = *elem_bytes as u64;
            let nn = if *aligned && *n == 3 { 4 } else { *n } as u64;
            let addr = p.wrapping_add(off.wrapping_mul(nn * eb));
            for i in 0..*n as u64 {
                let v = mx.load(addr.wrapping_add(i * eb), eb as usize, pc);
                let v = if *half {
                    let f = half::f16::from_bits(v as u16);
                    match spec.elem {
                        Elem::Float(64) => f.to_f64().to_bits(),
                        _ => f.to_f32().to_bits() as u64,
                    }
                } else {
                    v
                };
                regs[base + spec.d as usize + i as usize] = v;
            }
        }
        ExtKind::VStore {
            n,
            elem_bytes,
            half,
            aligned,
            rounding,
        } => {
            let (data, de) = arg(0);
            let data: Vec<u64> = data.to_vec();
            let off = arg(1).0.first().copied().unwrap_or(0);
            let p = arg(2).0.first().copied().unwrap_or(0);
            let eb = *elem_bytes as u64;
            let nn = if *aligned && *n == 3 { 4 } else { *n } as u64;
            let addr = p.wrapping_add(off.wrapping_mul(nn * eb));
            for (i, v) in data.iter().enumerate().take(*n as usize) {
                let v = if *half {
                    if *rounding == Rounding::Rte {
                        match de {
                            Elem::Float(64) => {
                                half::f16::from_f64(f64::from_bits(*v)).to_bits() as u64
                            }
                            _ => half::f16::from_f32(f32::from_bits(*v as u32)).to_bits() as u64,
                        }
                    } else {
                        clstd::convert(*v, de, true, Elem::Float(16), true, false, *rounding)
                    }
                } else {
                    *v
                };
                mx.store(addr.wrapping_add(i as u64 * eb), eb as usize, v, pc);
            }
        }
        ExtKind::Printf => {
            let fmt_p = arg(0).0.first().copied().unwrap_or(0);
            let fmt = mx.peek_str(fmt_p);
            let owned: Vec<(Vec<u64>, Elem)> = (1..spec.args.len())
                .map(|k| {
                    let (l, e) = arg(k);
                    (l.to_vec(), e)
                })
                .collect();
            let pargs: Vec<crate::printf::PArg<'_>> = owned
                .iter()
                .map(|(l, e)| crate::printf::PArg { elem: *e, lanes: l })
                .collect();
            let out = crate::printf::format(&fmt, &pargs, &mut |p| mx.peek_str(p));
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            let _ = lock.write_all(&out);
            let _ = lock.flush();
            if spec.n > 0 {
                regs[base + spec.d as usize] = 0;
            }
        }
        ExtKind::Image(op) => {
            let mut ops = [crate::image::Operand {
                lanes: &[],
                elem: Elem::Int(32),
            }; 3];
            let na = spec.args.len().min(3);
            for (k, o) in ops.iter_mut().enumerate().take(na) {
                let (lanes, elem) = arg(k);
                *o = crate::image::Operand { lanes, elem };
            }
            let mut out = [0u64; 4];
            let n = (spec.n as usize).min(4);
            let m = &mut Texels { mx, pc };
            crate::image::exec(m, *op, &ops[..na], spec.elem, &mut out[..n]);
            regs[base + spec.d as usize..base + spec.d as usize + n].copy_from_slice(&out[..n]);
        }
        ExtKind::Nop => {}
    }
    Ok(())
}

/// Image texels go through the work-item's checked, observed memory path.
struct Texels<'m, 'l, 'g, 'p, 'a, O: Observer> {
    mx: &'m mut Mx<'l, 'g, 'p, 'a, O>,
    pc: usize,
}

impl<O: Observer> crate::image::TexelMem for Texels<'_, '_, '_, '_, '_, O> {
    fn desc(&self, image: u64) -> Option<crate::ImageDesc> {
        let (tag, idx, _) = ptr::dec(image);
        match self.mx.lx.allocs.get(idx) {
            Some(Some(a)) if tag == ptr::TAG_LAUNCH => a.image,
            _ => None,
        }
    }
    fn load(&mut self, p: u64, n: usize) -> u64 {
        self.mx.load(p, n, self.pc)
    }
    fn store(&mut self, p: u64, n: usize, v: u64) {
        self.mx.store(p, n, v, self.pc)
    }
    fn outside(&mut self, image: u64, offset: i64, size: usize, write: bool) {
        let kind = if write {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        self.mx
            .bad(image.wrapping_add(offset as u64), size, kind, self.pc);
    }
}

/// One of a fixed set of locks chosen by (allocation, 64-byte line): observed global stores
/// of different work-groups to the same bytes are serialised with their reports.
fn store_order_lock(id: AllocId, offset: u64) -> parking_lot::MutexGuard<'static, ()> {
    const STRIPES: usize = 256;
    static LOCKS: [Mutex<()>; STRIPES] = [const { Mutex::new(()) }; STRIPES];
    let line = (offset >> 6) ^ id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    LOCKS[(line as usize) % STRIPES].lock()
}
