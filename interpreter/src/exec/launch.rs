//! Launch set-up: [`Device::run`] checks a launch's sizes, binds its arguments and the
//! module's variables to allocations and registers, and runs its work-groups on worker
//! threads. Also the launch-wide state every worker shares ([`LaunchRun`]) and the builtins it
//! answers.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::group::{run_group, Carry, GroupEnd, Job, Suspended};
use super::group_order::GroupOrder;
use super::state::{RunningGroup, Scratch};
use super::Device;
use crate::ir::{ptr, Builtin, Code, KernelCode, Op, ParamKind};
use crate::memory::View;
use crate::observer::{AddressSpace, ArgBinding, LaunchInfo, LocalAlloc, Observer, WorkItem};
use crate::schedule::Order;
use crate::{
    ArgValue, Buffer, ExecError, KernelArg, KernelInfo, Launch, LaunchStats, Program, Schedule,
};

/// A global/constant allocation bound for one launch (a buffer view).
pub(super) struct GAlloc {
    pub(super) buf: Arc<Buffer>,
    pub(super) view_off: u64,
    pub(super) view_size: u64,
    pub(super) space: AddressSpace,
    /// Set when the allocation holds an image's texels.
    pub(super) image: Option<crate::ImageDesc>,
}

/// A launch being run: the state every worker shares. Read-only but for [`RunStatus`]; its
/// parts are held by value, as the executor reads them per instruction.
pub(super) struct LaunchRun<'a, O: Observer> {
    pub(super) code: &'a Code,
    pub(super) kc: &'a KernelCode,
    pub(super) obs: &'a O,
    /// Index 0 is the NULL allocation.
    pub(super) allocs: Vec<Option<GAlloc>>,
    /// The bytes of each of `allocs` (same index; empty for NULL): the unobserved fast path.
    pub(super) views: Vec<View<'a>>,
    pub(super) byval: Vec<Option<(Vec<u8>, u32)>>,
    /// `(slot, value)` of every register lane the kernel's parameters start with (by-value
    /// aggregates excepted: those need a private copy per work-item).
    pub(super) param_init: Vec<(u32, u64)>,
    /// Where run-to-barrier items start (see [`entry_of`]): the kernel's function, or the
    /// body a forwarding wrapper calls, with its own parameter lanes and the number of
    /// wrapper instructions skipped (still counted, once per finished item).
    pub(super) entry: Entry,
    pub(super) local_sizes: Vec<u64>,
    pub(super) geometry: Geometry,
    pub(super) policy: SchedulePolicy,
    pub(super) status: RunStatus,
    pub(super) count_all: bool,
    /// A second run of a launch (see [`Device::run_again`]): printf prints nothing.
    pub(super) quiet: bool,
    /// The observer follows which private bytes were written ([`Observer::wants_definedness`]).
    pub(super) definedness: bool,
    /// Plain stores report the bytes they replaced ([`Observer::wants_previous`]).
    pub(super) previous: bool,
    /// Atomics and fences report their orders and scopes ([`Observer::wants_sync`]).
    pub(super) sync: bool,
}

/// How a launch's work-items and work-groups take turns: what its schedule asks for, as the
/// launch's shape and the workers it runs on settle it.
pub(super) struct SchedulePolicy {
    pub(super) wi_order: Order,
    /// The per-item executor's quantum (0 under [`Schedule::AUTO`]).
    pub(super) quantum: u32,
    /// Groups run in lockstep where they can (quantum 1 and [`Schedule::AUTO`]).
    pub(super) lockstep: bool,
    /// Lockstep hands a diverged group to the per-item executor rather than give its items
    /// turns one by one ([`Schedule::AUTO`]).
    pub(super) lockstep_scatters: bool,
    pub(super) seed: u64,
    /// Whether a group that spins may step aside for others (there are others).
    pub(super) fair: bool,
    /// How long the calling thread runs the launch alone before it calls the other workers
    /// (see [`run_groups`]); `None` when it has no one to call.
    pub(super) alone_until: Option<Instant>,
}

/// How a launch is going, as its workers update it: its instruction count, whether and why
/// it stopped, and the watchdog's limits.
pub(super) struct RunStatus {
    /// A memory fault was logged (only the first is, without an observer).
    pub(super) warned: AtomicBool,
    pub(super) instructions: AtomicU64,
    pub(super) abort: AtomicBool,
    pub(super) error: Mutex<Option<ExecError>>,
    pub(super) limit: Option<u64>,
    /// When the launch must have ended, and the time limit that says so.
    pub(super) deadline: Option<(Instant, Duration)>,
    /// Why the watchdog ended the launch, once it has.
    pub(super) stalled: OnceLock<String>,
    /// Set once the other workers were called.
    pub(super) helped: AtomicBool,
}

impl<O: Observer> LaunchRun<'_, O> {
    /// Whether the calling thread, running the launch alone, has run it long enough to call
    /// the other workers: its group steps aside (at a barrier release) so that it can.
    pub(super) fn help_due(&self) -> bool {
        match self.policy.alone_until {
            Some(t) if self.policy.fair && !self.status.helped.load(Ordering::Relaxed) => {
                Instant::now() >= t
            }
            _ => false,
        }
    }
}

impl RunStatus {
    /// Whether a watchdog (instruction or time limit) watches this launch.
    pub(super) fn watched(&self) -> bool {
        self.limit.is_some() || self.deadline.is_some()
    }

    /// The watchdog: adds `executed` to the launch's count and says why the launch must stop,
    /// if it must. The clock is read once per 2^16 instructions of the launch, not per call.
    pub(super) fn watchdog(&self, executed: &mut u64) -> Option<String> {
        let why = self.limit_passed(executed)?;
        let _ = self.stalled.set(why.clone());
        Some(why)
    }

    fn limit_passed(&self, executed: &mut u64) -> Option<String> {
        let n = std::mem::take(executed);
        let before = self.instructions.fetch_add(n, Ordering::Relaxed);
        let total = before + n;
        if let Some(limit) = self.limit.filter(|l| total > *l) {
            return Some(format!("instruction limit of {limit} exceeded"));
        }
        let (at, limit) = self.deadline?;
        if before >> 16 != total >> 16 && Instant::now() >= at {
            return Some(format!(
                "time limit of {:.1} s exceeded (SHADOWCL_TIMEOUT); the kernel may never end",
                limit.as_secs_f64()
            ));
        }
        None
    }
}

/// The NDRange of a launch in three dimensions (an unused one has size 1 and offset 0).
pub(super) struct Geometry {
    pub(super) work_dim: u32,
    pub(super) global_size: [u64; 3],
    pub(super) local_size: [u64; 3],
    pub(super) offset: [u64; 3],
    pub(super) num_groups: [u64; 3],
    pub(super) total_groups: u64,
}

/// What a launch binds, built argument by argument: its global/constant allocations (with
/// their bytes), its local allocations, each parameter's register lanes or by-value bytes,
/// and the bindings observers are told about.
struct Bound<'a> {
    /// Index 0 is the NULL allocation.
    allocs: Vec<Option<GAlloc>>,
    views: Vec<View<'a>>,
    local_sizes: Vec<u64>,
    local_allocs: Vec<LocalAlloc>,
    param_lanes: Vec<Vec<u64>>,
    byval: Vec<Option<(Vec<u8>, u32)>>,
    bindings: Vec<ArgBinding>,
    /// Program-scope `global` variables, bound after the arguments (see [`Bound::new`]).
    var_bindings: Vec<ArgBinding>,
}

impl Device {
    /// Runs one launch to completion under `schedule`, reporting to `observer`.
    /// Printf output goes to the process's stdout.
    pub fn run<O: Observer>(
        &self,
        program: &Program,
        launch: &Launch,
        schedule: &Schedule,
        observer: &O,
    ) -> Result<LaunchStats, ExecError> {
        self.run_with(program, launch, schedule, observer, None)
    }

    /// Runs a launch again, for an observer that wants a second look (the race checker
    /// naming every racing pair): program-scope variables live in `variables` (copies made by
    /// [`Program::copy_variables`] before the first run) instead of the program's own
    /// storage, and printf prints nothing. The launch's buffers must be copies too.
    pub fn run_again<O: Observer>(
        &self,
        program: &Program,
        launch: &Launch,
        schedule: &Schedule,
        observer: &O,
        variables: &[Arc<Buffer>],
    ) -> Result<LaunchStats, ExecError> {
        if variables.len() != program.const_bufs.len()
            || variables
                .iter()
                .zip(&program.const_bufs)
                .any(|(v, b)| v.len() != b.len())
        {
            return Err(ExecError::InvalidLaunch(
                "program variables do not match the program".into(),
            ));
        }
        self.run_with(program, launch, schedule, observer, Some(variables))
    }

    fn run_with<O: Observer>(
        &self,
        program: &Program,
        launch: &Launch,
        schedule: &Schedule,
        observer: &O,
        variables: Option<&[Arc<Buffer>]>,
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
        let Some(geo) = geometry(info, launch)? else {
            return Ok(LaunchStats::default());
        };
        let mut bound = Bound::new(program, kc, variables.unwrap_or(&program.const_bufs));
        for (i, (pk, av)) in kc.params.iter().zip(&launch.args).enumerate() {
            bound.bind_arg(code, &info.args[i], i, pk, av)?;
        }
        let Bound {
            allocs,
            views,
            local_sizes,
            local_allocs,
            param_lanes,
            byval,
            mut bindings,
            var_bindings,
        } = bound;
        bindings.extend(var_bindings);
        debug_assert_eq!(allocs.len(), views.len());
        if allocs.len() as u64 > ptr::IDX_MASK {
            return Err(ExecError::InvalidLaunch("too many buffers".into()));
        }
        let param_init = param_init(code, kc, &param_lanes, &byval);
        self.check_local_memory(launch, &local_sizes)?;
        // Under auto, what lockstep cannot run together runs per item from the start.
        let single_items = geo.local_size.iter().product::<u64>() == 1;
        let quantum = match schedule.quantum {
            Schedule::AUTO if single_items => 0,
            q => q,
        };
        let entry = entry_of(code, kc, &param_init, quantum, &byval);
        let threads = self.threads_for(schedule);
        let total_groups = geo.total_groups;
        let workers = threads.min(total_groups.max(1) as usize);
        let pool = (workers > 1).then(|| self.pool(threads)).flatten();
        let lx = LaunchRun {
            code,
            kc,
            obs: observer,
            allocs,
            views,
            byval,
            param_init,
            entry,
            local_sizes,
            geometry: geo,
            policy: SchedulePolicy {
                wi_order: schedule.wi_order,
                quantum: match quantum {
                    Schedule::AUTO => 0,
                    q => q,
                },
                lockstep: matches!(quantum, 1 | Schedule::AUTO),
                lockstep_scatters: quantum == Schedule::AUTO,
                seed: schedule.seed,
                fair: total_groups > 1,
                alone_until: (workers > 1).then(|| Instant::now() + HELP_AFTER),
            },
            status: RunStatus {
                warned: AtomicBool::new(false),
                instructions: AtomicU64::new(0),
                abort: AtomicBool::new(false),
                error: Mutex::new(None),
                limit: self.limit,
                deadline: self.time_limit.map(|d| (Instant::now() + d, d)),
                stalled: OnceLock::new(),
                helped: AtomicBool::new(false),
            },
            count_all: self.count_all,
            quiet: variables.is_some(),
            definedness: O::ENABLED && observer.wants_definedness(),
            previous: O::ENABLED && observer.wants_previous(),
            sync: O::ENABLED && observer.wants_sync(),
        };
        let geo = &lx.geometry;
        if O::ENABLED {
            observer.launch_start(&LaunchInfo {
                kernel: &info.name,
                work_dim: geo.work_dim,
                global_offset: geo.offset,
                global_size: geo.global_size,
                local_size: geo.local_size,
                num_groups: geo.num_groups,
                args: &bindings,
                local_allocs: &local_allocs,
            });
        }
        let order = GroupOrder::new(schedule.wg_order, total_groups, schedule.seed);
        self.groups_started
            .fetch_add(total_groups, Ordering::Relaxed);
        let ran = run_groups(&lx, &order, workers, pool, &self.groups_done);
        // Groups an error left unrun count as done, so a progress display sees the launch end.
        self.groups_done
            .fetch_add(total_groups - ran, Ordering::Relaxed);
        if O::ENABLED {
            observer.launch_end();
        }
        if let Some(e) = lx.status.error.lock().take() {
            return Err(e);
        }
        Ok(LaunchStats {
            work_groups: total_groups,
            work_items: lx.geometry.global_size.iter().product(),
            instructions: lx.status.instructions.load(Ordering::Relaxed),
        })
    }

    /// Refuses a launch whose local allocations together exceed the device's limit.
    fn check_local_memory(&self, launch: &Launch, local_sizes: &[u64]) -> Result<(), ExecError> {
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
        Ok(())
    }

    /// The device's worker threads, started at its first parallel launch and kept (starting
    /// two threads per launch cost five times what 5,000 small launches themselves took);
    /// `None` when the pool has fewer than `threads` (a schedule asked for more).
    fn pool(&self, threads: usize) -> Option<&rayon_core::ThreadPool> {
        self.pool
            .get_or_init(|| {
                rayon_core::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("shadowcl-worker-{i}"))
                    .build()
                    .ok()
            })
            .as_ref()
            .filter(|p| p.current_num_threads() >= threads)
    }

    /// Worker threads for a launch: the schedule's choice, else the device's, else every
    /// core; one when the schedule runs groups serially.
    fn threads_for(&self, schedule: &Schedule) -> usize {
        if !schedule.parallel {
            1
        } else if schedule.threads > 0 {
            schedule.threads
        } else if self.threads > 0 {
            self.threads
        } else {
            cores()
        }
        .max(1)
    }
}

/// The cores this process may use, asked once: `available_parallelism` reads the cgroup's
/// CPU quota and the affinity mask (files and system calls); asked per launch, it made
/// 5,000 small launches on the default threads take 265 ms instead of 115 ms.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The launch's NDRange, or `None` when it has no work-items. Local sizes left to the
/// implementation are the kernel's required size, else the largest divisor of the global
/// size up to 64 in dimension 0 (1 in the others).
fn geometry(info: &KernelInfo, launch: &Launch) -> Result<Option<Geometry>, ExecError> {
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
        return Ok(None);
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
    Ok(Some(Geometry {
        work_dim,
        global_size,
        local_size,
        offset,
        num_groups,
        total_groups,
    }))
}

impl<'a> Bound<'a> {
    /// The module's variables, bound before any argument (their pointers are baked into the
    /// code). Program-scope `global` variables are global memory the checkers watch, named
    /// in reports after the variable (their bindings follow the kernel's arguments).
    fn new(program: &'a Program, kc: &KernelCode, variables: &'a [Arc<Buffer>]) -> Bound<'a> {
        let code = &program.code;
        let mut bound = Bound {
            allocs: vec![None],
            views: vec![View::EMPTY],
            local_sizes: vec![],
            local_allocs: vec![],
            param_lanes: vec![],
            byval: vec![],
            bindings: vec![],
            var_bindings: vec![],
        };
        for (b, v) in variables.iter().zip(&code.const_vars) {
            let space = if v.writable {
                AddressSpace::Global
            } else {
                AddressSpace::Constant
            };
            bound.push_alloc(b, 0, b.len() as u64, space, None);
            if v.writable {
                bound.var_bindings.push(ArgBinding {
                    index: u32::MAX,
                    name: v.name.clone(),
                    space,
                    alloc: Some(b.id()),
                    view_offset: 0,
                    view_size: b.len() as u64,
                    elem_size: v.elem_size,
                    never_written: false,
                });
            }
        }
        bound.local_sizes = code
            .local_vars
            .iter()
            .zip(&kc.local_vars_used)
            .map(|(v, u)| if *u { v.size } else { 0 })
            .collect();
        bound.local_allocs = code
            .local_vars
            .iter()
            .zip(&bound.local_sizes)
            .map(|(v, s)| LocalAlloc {
                name: v.name.clone(),
                size: *s,
                arg_index: None,
                elem_size: v.elem_size,
            })
            .collect();
        bound
    }

    /// Adds a global/constant allocation over `view_size` bytes of `buf` from `view_off`;
    /// returns its index in the launch table.
    fn push_alloc(
        &mut self,
        buf: &'a Arc<Buffer>,
        view_off: u64,
        view_size: u64,
        space: AddressSpace,
        image: Option<crate::ImageDesc>,
    ) -> u64 {
        let idx = self.allocs.len() as u64;
        self.views
            .push(buf.view(view_off, view_size).unwrap_or(View::EMPTY));
        self.allocs.push(Some(GAlloc {
            buf: buf.clone(),
            view_off,
            view_size,
            space,
            image,
        }));
        idx
    }

    /// Binds argument `i` (`av`) to the parameter it is given for (`pk`, described by `arg`):
    /// its register lanes, its allocation if any, and its binding.
    fn bind_arg(
        &mut self,
        code: &Code,
        arg: &KernelArg,
        i: usize,
        pk: &ParamKind,
        av: &'a ArgValue,
    ) -> Result<(), ExecError> {
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
            never_written: arg.never_written,
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
                let idx = self.push_alloc(buffer, *offset, *size, space, None);
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
                let slot = self.local_sizes.len() as u64;
                self.local_sizes.push(*n);
                self.local_allocs.push(LocalAlloc {
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
                let len = buffer.len() as u64;
                let idx = self.push_alloc(buffer, 0, len, AddressSpace::Global, Some(*desc));
                lanes.push(ptr::enc(ptr::TAG_LAUNCH, idx, 0));
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
            (_, ArgValue::Bytes(_)) => return Err(bad("bytes were given for a pointer argument")),
            (_, ArgValue::Image { .. }) => return Err(bad("not an image argument")),
            (_, ArgValue::Sampler(_)) => return Err(bad("not a sampler argument")),
        }
        self.param_lanes.push(lanes);
        self.byval.push(bv);
        self.bindings.push(binding);
        Ok(())
    }
}

/// `(slot, value)` of every register lane the kernel function's parameters start with;
/// by-value aggregates are bound per work-item instead (a private copy each).
fn param_init(
    code: &Code,
    kc: &KernelCode,
    param_lanes: &[Vec<u64>],
    byval: &[Option<(Vec<u8>, u32)>],
) -> Vec<(u32, u64)> {
    let mut init = vec![];
    for (k, &(slot, nl)) in code.funcs[kc.func as usize].params.iter().enumerate() {
        if byval[k].is_none() {
            for (i, v) in param_lanes[k].iter().take(nl as usize).enumerate() {
                init.push((slot + i as u32, *v));
            }
        }
    }
    init
}

/// Most work-groups suspended at once (see [`Queue`]), and most bytes of state they may
/// hold together: what bounds the memory fair scheduling takes
/// ([`shadowcl_limits::Limits::suspended_groups`], `suspended_bytes`).
const MAX_SUSPENDED: usize = shadowcl_limits::LIMITS.suspended_groups;
const MAX_SUSPENDED_BYTES: usize = shadowcl_limits::LIMITS.suspended_bytes;

/// The work-groups still to run: the next of `order` to start, and the groups that stepped
/// aside (`run_group` returned them suspended), oldest first.
///
/// A worker starts the next group of the order while fewer than [`MAX_SUSPENDED`] groups
/// (and [`MAX_SUSPENDED_BYTES`]) are suspended, else takes up the oldest suspended one; a
/// group that steps aside goes to the back. So a group that spins waiting for another
/// group lets the groups after it in the order start and every started group run again,
/// whatever the order and the number of workers, and with one worker the interleaving is
/// the same at every run (slices are counted in instructions or jumps, not time).
struct Queue<O: Observer> {
    next: u64,
    suspended: VecDeque<(Box<Suspended<O>>, usize)>,
    bytes: usize,
}

impl<O: Observer> Queue<O> {
    /// The next job for a worker, after queueing the group it suspended, if any (with its
    /// size in bytes). Once the launch is aborted no group starts, but suspended ones are
    /// still handed out, so each reports its running items and ends.
    fn next(
        &mut self,
        order: &GroupOrder,
        suspended: Option<(Box<Suspended<O>>, usize)>,
        aborted: bool,
    ) -> Option<Job<O>> {
        if let Some((s, b)) = suspended {
            self.bytes += b;
            self.suspended.push_back((s, b));
        }
        let room = self.suspended.len() < MAX_SUSPENDED && self.bytes <= MAX_SUSPENDED_BYTES;
        if !aborted && self.next < order.len() && (room || self.suspended.is_empty()) {
            let g = order.get(self.next);
            self.next += 1;
            return Some(Job::Start(g));
        }
        let (s, b) = self.suspended.pop_front()?;
        self.bytes -= b;
        Some(Job::Resume(s))
    }
}

/// Ended groups a worker counts before adding them to the progress counter.
const DONE_BATCH: u64 = 64;

/// How long the calling thread runs a launch alone before it calls the other workers.
/// Waking a sleeping worker and being woken by it when the launch ends costs tens of
/// microseconds, more than a small launch itself takes (5,000 launches of 4 groups of 64
/// items took 108 ms on 2 workers against 50 ms on the calling thread alone).
const HELP_AFTER: Duration = Duration::from_micros(100);

/// Runs every group of `order` on `threads` workers: the device's pool when it has one,
/// else threads started for this launch, counting each in `done` when it ends. The calling
/// thread is the first worker: it runs groups alone until [`HELP_AFTER`] has passed, at a
/// group's end (a long group steps aside at a barrier release, `LaunchRun::help_due`, or where it
/// spins), then calls the others while groups remain. The first error is kept in
/// `lx.status.error` and stops the launch. Returns how many groups started (every started group
/// ends, suspended ones included).
fn run_groups<O: Observer>(
    lx: &LaunchRun<O>,
    order: &GroupOrder,
    threads: usize,
    pool: Option<&rayon_core::ThreadPool>,
    done: &AtomicU64,
) -> u64 {
    let queue = Mutex::new(Queue {
        next: 0,
        suspended: VecDeque::new(),
        bytes: 0,
    });
    // `help` (the calling thread's only) calls the other workers.
    let worker = |mut help: Option<&dyn Fn()>| {
        let mut scratch = Scratch::kept();
        let mut stepped_aside = None;
        // Groups ended and instructions run, not yet in `done` and the launch's count: a
        // shared counter touched per group is a cache line the workers fight over when
        // groups are short.
        let mut ended = 0u64;
        let mut carry = Carry::default();
        loop {
            let aborted = lx.status.abort.load(Ordering::Relaxed);
            let (job, more) = {
                let mut q = queue.lock();
                let job = q.next(order, stepped_aside.take(), aborted);
                (job, q.next < order.len() || !q.suspended.is_empty())
            };
            let Some(job) = job else {
                break;
            };
            if help.is_some() && lx.help_due() {
                // Called once: with no group left but this one, there is nothing to share
                // (only running groups add to the queue), and none steps aside again.
                lx.status.helped.store(true, Ordering::Relaxed);
                help.take()
                    .filter(|_| more)
                    .into_iter()
                    .for_each(|call| call());
            }
            let g = match &job {
                Job::Start(g) => *g,
                Job::Resume(s) => s.linear(),
            };
            // Last resort: an interpreter bug must not unwind into the host application.
            let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_group(lx, job, &mut scratch, &mut carry)
            }))
            .unwrap_or_else(|_| {
                scratch = Scratch::default();
                // Nor is the observer's state of a group that panicked reused.
                carry.obs = None;
                GroupEnd::Ended(Err(ExecError::Aborted(format!(
                    "internal interpreter error in work-group {g}"
                ))))
            });
            match end {
                GroupEnd::Suspended(s) => {
                    // Measured here, not under the queue's lock.
                    let bytes = s.bytes();
                    stepped_aside = Some((s, bytes));
                }
                GroupEnd::Ended(r) => {
                    ended += 1;
                    if ended == DONE_BATCH {
                        done.fetch_add(std::mem::take(&mut ended), Ordering::Relaxed);
                    }
                    if let Err(e) = r {
                        lx.status.abort.store(true, Ordering::Relaxed);
                        lx.status.error.lock().get_or_insert(e);
                    }
                }
            }
        }
        done.fetch_add(ended, Ordering::Relaxed);
        scratch.keep();
        lx.obs.worker_done(carry.obs.take());
        // The launch is over for this worker: its count only has to be complete.
        lx.status
            .instructions
            .fetch_add(carry.unflushed, Ordering::Relaxed);
    };
    if threads == 1 {
        worker(None);
    } else if let Some(pool) = pool {
        pool.in_place_scope(|s| {
            worker(Some(&|| {
                for _ in 1..threads {
                    s.spawn(|_| worker(None));
                }
            }))
        });
    } else {
        std::thread::scope(|s| {
            worker(Some(&|| {
                for _ in 1..threads {
                    s.spawn(|| worker(None));
                }
            }))
        });
    }
    queue.into_inner().next
}

/// Start of the per-item (run-to-barrier) executor.
pub(super) struct Entry {
    pub(super) func: u32,
    pub(super) param_init: Vec<(u32, u64)>,
    pub(super) skipped: u64,
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
    let Some((f, args)) = wrapper_call(code, kc) else {
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

/// The call of a kernel that is only llvm-spirv's entry wrapper (`Call; Ret`, see
/// [`entry_of`]): the body it calls and the call's arguments.
fn wrapper_call(code: &Code, kc: &KernelCode) -> Option<(u32, u32)> {
    let e = code.funcs.get(kc.func as usize)?.entry as usize;
    match (code.ops.get(e), code.ops.get(e + 1)) {
        (Some(&Op::Call { f, args, .. }), Some(&Op::Ret)) => Some((f, args)),
        _ => None,
    }
}

/// Whether some work-item's global id (offset + index) would not fit 64 bits.
fn global_offset_overflows(offset: [u64; 3], size: [u64; 3]) -> bool {
    (0..3).any(|d| offset[d].checked_add(size[d]).is_none())
}

/// The values of builtins (`get_global_id` and co.) for a work-item of a group.
impl<O: Observer> LaunchRun<'_, O> {
    /// All lanes of a builtin (lane 0 only for the scalar ones).
    #[inline(always)]
    pub(super) fn builtin3(&self, gx: &RunningGroup<O>, wi: &WorkItem, b: Builtin) -> [u64; 3] {
        let geo = &self.geometry;
        match b {
            Builtin::GlobalId => wi.global,
            Builtin::LocalId => wi.local.map(|x| x as u64),
            Builtin::GroupId => gx.group,
            Builtin::GlobalSize => geo.global_size,
            Builtin::LocalSize => gx.size,
            Builtin::EnqueuedLocalSize => geo.local_size,
            Builtin::NumGroups => geo.num_groups,
            Builtin::GlobalOffset => geo.offset,
            _ => [self.builtin(gx, wi, b, 0), 0, 0],
        }
    }

    #[inline]
    pub(super) fn builtin(&self, gx: &RunningGroup<O>, wi: &WorkItem, b: Builtin, c: usize) -> u64 {
        if c > 2 && b.lanes() == 3 {
            return b.past_last_dim();
        }
        let c = c.min(2);
        let geo = &self.geometry;
        match b {
            Builtin::GlobalId => wi.global[c],
            Builtin::LocalId => wi.local[c] as u64,
            Builtin::GroupId => gx.group[c],
            Builtin::GlobalSize => geo.global_size[c],
            Builtin::LocalSize => gx.size[c],
            Builtin::EnqueuedLocalSize => geo.local_size[c],
            Builtin::NumGroups => geo.num_groups[c],
            Builtin::GlobalOffset => geo.offset[c],
            Builtin::WorkDim => geo.work_dim as u64,
            Builtin::GlobalLinearId => {
                let g: [u64; 3] = std::array::from_fn(|d| wi.global[d] - geo.offset[d]);
                (g[2] * geo.global_size[1] + g[1]) * geo.global_size[0] + g[0]
            }
            Builtin::LocalIndex | Builtin::SubgroupLocalId => wi.local_linear as u64,
            Builtin::SubgroupSize | Builtin::SubgroupMaxSize => gx.size.iter().product(),
            Builtin::NumSubgroups => 1,
            Builtin::SubgroupId => 0,
        }
    }
}
