//! One work-group: its work-items' identities and start state, the schedule's work-item
//! order, and the alternation of lockstep and barrier phases of the per-item executor that
//! runs it to its end.
//!
//! Performance: a worker's next work-group starts from the state of its last one. The
//! per-worker `Carry` hands the observer's group state back (`Observer::group_end_keep`,
//! `Observer::group_start_on`), and the checkers restart it in place. At the launch's end the
//! worker gives its last state to the observer (`Observer::worker_done`) for the next launch.
//! A loop of small launches then builds no state per group or per launch.

use std::sync::atomic::Ordering;

use super::collective;
use super::dispatch::run_turns;
use super::launch::LaunchRun;
use super::lockstep;
use super::state::{alloca, Item, LocalMem, Priv, RunningGroup, Scratch};
use crate::observer::{GroupInfo, InstId, Observer, Release, WorkItem};
use crate::schedule::Order;
use crate::ExecError;

/// splitmix64: small, seedable, good enough to shuffle schedules.
pub(super) struct Rng(pub(super) u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(super) fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// Puts `v` in the schedule's `order`.
pub(super) fn ordered<T>(v: &mut [T], order: Order, rng: &mut Rng) {
    match order {
        Order::InOrder => {}
        Order::Reverse => v.reverse(),
        Order::Random => rng.shuffle(v),
    }
}

/// Instructions a worker's ended groups may hold back from the launch's count (see
/// [`run_group`]).
pub(super) const WATCH_BATCH: u64 = 1 << 12;

/// Group-level slice of fair scheduling: a group whose items have used this much of their
/// turn budgets (instructions, or jumps where turns are not counted; see
/// `dispatch::run_turns`) with none reaching a barrier or its end leaves its worker for
/// other groups (see [`GroupEnd::Suspended`]).
const FAIR_SLICE: u64 = 1 << 20;

/// A turn's budget in jumps where instructions are not counted (run to barrier without a
/// watchdog): a barrier-free loop still hands over to the other items now and then. Also
/// lockstep's slice (its jumps run every lane).
pub(super) const FAIR_TURN_JUMPS: u64 = 1 << 16;

/// What [`run_group`] keeps of a work-group between its passes, besides the worker buffers
/// (`Scratch`) its items, lanes and order live in.
struct GroupRun<O: Observer> {
    linear: u64,
    gx: RunningGroup<O>,
    rng: Rng,
    /// Whether the items' per-item state is set up (see [`run_group`]).
    prepared: bool,
    /// Where lockstep resumes, when the group left it converged or diverged in lockstep.
    lockstep_at: Option<lockstep::Pos>,
    executed: u64,
}

/// A work-group taken off its worker between passes: everything [`run_group`] keeps of it,
/// moved to the heap so that any worker can take it up again where it stopped.
pub(super) struct Suspended<O: Observer> {
    run: GroupRun<O>,
    /// The worker buffers the group's items, lanes and order live in.
    scratch: Scratch,
}

impl<O: Observer> Suspended<O> {
    /// The group's linear id.
    pub(super) fn linear(&self) -> u64 {
        self.run.linear
    }

    /// Roughly how many heap bytes the group holds: what bounds the groups in flight.
    pub(super) fn bytes(&self) -> usize {
        let sc = &self.scratch;
        let items: usize = sc
            .pool
            .iter()
            .map(|it| it.regs.capacity() * 8 + it.mem.bytes.capacity() + it.st.frames.len() * 32)
            .sum();
        let locals: usize = self.run.gx.locals.iter().map(|l| l.len()).sum();
        items + locals + sc.lanes.capacity() * 8 + sc.order.capacity() * 8 + 1024
    }
}

/// What a worker hands [`run_group`]: a group to start, or one to take up again.
pub(super) enum Job<O: Observer> {
    Start(u64),
    Resume(Box<Suspended<O>>),
}

/// How [`run_group`] left a group.
pub(super) enum GroupEnd<O: Observer> {
    /// Ended: its items all finished, or the launch stopped (`Err`: why, if this group's).
    Ended(Result<(), ExecError>),
    /// Ran a [`FAIR_SLICE`] without progress (a spin-wait, or a long barrier-free loop)
    /// while other groups could run: to be resumed after them.
    Suspended(Box<Suspended<O>>),
}

/// What a worker carries from one group to the next: instructions of ended groups not yet
/// added to the launch's count (added in batches of [`WATCH_BATCH`], unless an instruction
/// limit needs each group's), and the observer state its last group left.
pub(super) struct Carry<O: Observer> {
    pub(super) unflushed: u64,
    pub(super) obs: Option<O::Group>,
}

impl<O: Observer> Default for Carry<O> {
    fn default() -> Self {
        Carry {
            unflushed: 0,
            obs: None,
        }
    }
}

/// Runs a work-group (groups numbered dimension 0 fastest) until its end, or until it has
/// run a slice without progress and `lx.policy.fair` lets it step aside: in lockstep while the
/// schedule allows it, else in barrier phases of the per-item executor.
pub(super) fn run_group<O: Observer>(
    lx: &LaunchRun<O>,
    job: Job<O>,
    scratch: &mut Scratch,
    carry: &mut Carry<O>,
) -> GroupEnd<O> {
    // Quantum 1 is lockstep order: run it one op for all items at a time (exec/lockstep.rs);
    // so does `Schedule::AUTO` where it can.
    let lockstep_ok = lx.policy.lockstep;
    let mut g = match job {
        Job::Start(linear) => begin_group(lx, linear, scratch, lockstep_ok, carry.obs.take()),
        Job::Resume(s) => {
            let s = *s;
            // The worker's own buffers go: the group's are the ones that hold its state.
            *scratch = s.scratch;
            s.run
        }
    };
    let n = g.gx.items();
    let Scratch {
        pool,
        lanes,
        wis,
        locals,
        order,
        ops,
    } = scratch;
    let mut result = Ok(());
    // Where the group's unfinished items were when a watchdog stopped lockstep.
    let mut running: Vec<(WorkItem, InstId)> = Vec::new();
    let mut idle = Idle::default();
    // Set when the group steps aside for the others.
    let mut suspend = false;
    'outer: loop {
        if lx.status.abort.load(Ordering::Relaxed) {
            break;
        }
        if let Some(mut at) = g.lockstep_at.take() {
            match lockstep::run(
                lx,
                &mut g.gx,
                &wis[..n],
                &mut pool[..n],
                order,
                &mut g.rng,
                lanes,
                ops,
                &mut at,
                &mut g.executed,
            ) {
                lockstep::LsStop::Done => break 'outer,
                lockstep::LsStop::Stopped => {
                    running = lockstep::running(lx, &at, &wis[..n]);
                    break 'outer;
                }
                lockstep::LsStop::Yield => {
                    g.lockstep_at = Some(at);
                    suspend = true;
                    break 'outer;
                }
                lockstep::LsStop::Scatter => {
                    if !g.prepared {
                        prepare_items(lx, &mut pool[..n], wis);
                        g.prepared = true;
                    }
                    lockstep::scatter(lx, lanes, &mut pool[..n], &at)
                }
                lockstep::LsStop::Abort(m) => {
                    running = lockstep::running(lx, &at, &wis[..n]);
                    result = Err(ExecError::Aborted(m));
                    break 'outer;
                }
            }
        }
        let (pass, budget) = match run_phase(lx, &mut g.gx, &mut pool[..n], order, &mut g.executed)
        {
            Ok(p) => p,
            Err(e) => {
                result = Err(e);
                break 'outer;
            }
        };
        if lx.status.abort.load(Ordering::Relaxed) {
            break;
        }
        if pass.done == n {
            break;
        }
        if idle.spinning(&pass, budget) && lx.policy.fair {
            suspend = true;
            break;
        }
        if pass.yields > 0 {
            continue;
        }
        // Every item finished or waits at a barrier: release it.
        // A loop with a barrier in it ends every turn at the barrier, never at the turn
        // budget where run_turns consults the watchdog: consult it at each release.
        if lx.status.watched() {
            if let Some(why) = lx.status.watchdog(&mut g.executed) {
                result = Err(ExecError::Aborted(why));
                break;
            }
        }
        if let Err(m) = release_barrier(
            lx,
            &mut g.gx,
            &mut pool[..n],
            order,
            &mut g.rng,
            pass.done > 0,
        ) {
            result = Err(ExecError::Aborted(m));
            break;
        }
        if lockstep_ok {
            g.lockstep_at = lockstep::can_gather(&pool[..n]);
            if let Some(at) = &g.lockstep_at {
                lockstep::gather(lx, lanes, &pool[..n], at);
            }
        }
        if lx.help_due() {
            // A long group of a launch the calling thread runs alone: it steps aside so the
            // thread can call the other workers (see `launch::run_groups`).
            suspend = true;
            break;
        }
    }
    if suspend {
        return GroupEnd::Suspended(Box::new(Suspended {
            run: g,
            scratch: std::mem::take(scratch),
        }));
    }
    // The watchdog also looks at group ends: a launch of many short groups never has a turn
    // long enough to be looked at inside one. Its clock is read once per 2^16 instructions,
    // so batching the short groups' counts per worker loses nothing, and spares the workers
    // a shared counter's cache line per group.
    carry.unflushed += std::mem::take(&mut g.executed);
    if carry.unflushed >= WATCH_BATCH || lx.status.limit.is_some() {
        match lx.status.watchdog(&mut carry.unflushed) {
            Some(why) if result.is_ok() => result = Err(ExecError::Aborted(why)),
            _ => {}
        }
    }
    if let (true, Some(why)) = (O::ENABLED, lx.status.stalled.get()) {
        // The watchdog ended the launch: say which items had not finished, and where.
        if running.is_empty() {
            running = still_running(
                lx,
                g.lockstep_at.as_ref(),
                g.prepared,
                &pool[..n],
                &wis[..n],
            );
        }
        // A group that finished while another stopped the launch has nothing to say; one
        // whose own end found the launch over its limit says so without items.
        if !running.is_empty() || result.is_err() {
            lx.obs.stalled(&mut g.gx.obs, why, &running);
        }
    }
    *locals = g.gx.locals;
    carry.obs = lx.obs.group_end_keep(g.gx.obs);
    GroupEnd::Ended(result)
}

/// Starts work-group `linear` on a worker's `scratch`: its items' identities and order, and
/// either their per-item state or (lockstep) their lanes at the kernel's entry.
fn begin_group<O: Observer>(
    lx: &LaunchRun<O>,
    linear: u64,
    scratch: &mut Scratch,
    lockstep_ok: bool,
    previous: Option<O::Group>,
) -> GroupRun<O> {
    let gx = start_group(lx, linear, &mut scratch.locals, previous);
    let n = gx.items();
    let Scratch {
        pool,
        lanes,
        wis,
        order,
        ..
    } = scratch;
    if pool.len() < n {
        pool.resize_with(n, Item::default);
    }
    for it in &mut pool[..n] {
        it.mem.clear();
    }
    identities(lx, &gx, n, wis);
    // Lockstep needs only the items' identities (`wis`); their per-item state is set up
    // when the group first hands over to the per-item executor.
    if !lockstep_ok {
        prepare_items(lx, &mut pool[..n], wis);
        init_item_regs(lx, &mut pool[..n]);
    }
    let mut rng = Rng(lx.policy.seed ^ linear.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xA5A5);
    order.clear();
    order.extend(0..n);
    ordered(order, lx.policy.wi_order, &mut rng);
    let lockstep_at = lockstep_ok.then(|| {
        lockstep::init_regs(lx, lanes, n);
        for (l, it) in pool[..n].iter_mut().enumerate() {
            copy_byval(lx, &mut it.mem, |slot, p| lanes[slot * n + l] = p);
        }
        lockstep::Pos {
            pc: lx.code.funcs[lx.kc.func as usize].entry as usize,
            base: 0,
            func: lx.kc.func,
            frames: vec![],
            lanes: vec![],
        }
    });
    GroupRun {
        linear,
        gx,
        rng,
        prepared: !lockstep_ok,
        lockstep_at,
        executed: 0,
    }
}

/// How long a group has gone without progress, for fair scheduling.
#[derive(Default)]
struct Idle {
    /// Turn budget the items used up since one last reached a barrier or its end.
    used: u64,
    /// Items ended at the last pass (`None`: no pass yet since the group was taken up).
    last_done: Option<usize>,
}

impl Idle {
    /// Takes in a pass that ran with turn `budget`: whether the group has now used a
    /// [`FAIR_SLICE`] with no item reaching a barrier or its end (it may be spinning on
    /// what another group will write).
    fn spinning(&mut self, pass: &Pass, budget: u64) -> bool {
        let progress = pass.arrived > 0 || self.last_done != Some(pass.done);
        self.last_done = Some(pass.done);
        if progress || pass.yields == 0 {
            self.used = 0;
            return false;
        }
        self.used = self.used.saturating_add(pass.yields.saturating_mul(budget));
        self.used >= FAIR_SLICE
    }
}

/// The group's unfinished items and where each stands: from lockstep's position when the
/// group stopped there, else from the per-item states (if they were ever set up).
fn still_running<O: Observer>(
    lx: &LaunchRun<O>,
    lockstep_at: Option<&lockstep::Pos>,
    prepared: bool,
    pool: &[Item],
    wis: &[WorkItem],
) -> Vec<(WorkItem, InstId)> {
    match lockstep_at {
        Some(at) => lockstep::running(lx, at, wis),
        None if prepared => pool
            .iter()
            .filter(|it| !it.st.done)
            .map(|it| (it.st.wi, InstId(lx.code.inst_of[it.st.pc as usize])))
            .collect(),
        None => Vec::new(),
    }
}

/// Releases a barrier every item of the group finished at or waits at (`finished`: some
/// items ended rather than arrived): the observer hears of it, the items waiting at a
/// work-group function get its result, the items run again, in a new order when the
/// schedule's is random. An `Err` aborts the launch.
fn release_barrier<O: Observer>(
    lx: &LaunchRun<O>,
    gx: &mut RunningGroup<O>,
    pool: &mut [Item],
    order: &mut [usize],
    rng: &mut Rng,
    finished: bool,
) -> Result<(), String> {
    let why = if finished {
        Release::SomeFinished
    } else {
        Release::AllArrived
    };
    if O::ENABLED {
        lx.obs.barrier_release(&mut gx.obs, why);
    }
    collective::release(lx.code, gx.size, &mut collective::Items(pool))?;
    for it in pool {
        it.st.waiting = false;
    }
    if lx.policy.wi_order == Order::Random {
        rng.shuffle(order);
    }
    Ok(())
}

/// Starts work-group `linear`: its coordinates and actual size, the observer's state for
/// it, and its local memory, zeroed in the buffers the worker keeps (`locals`: no
/// allocation per group; [`run_group`] hands them back at the group's end).
fn start_group<O: Observer>(
    lx: &LaunchRun<O>,
    linear: u64,
    locals: &mut Vec<LocalMem>,
    previous: Option<O::Group>,
) -> RunningGroup<O> {
    let geo = &lx.geometry;
    let ng = geo.num_groups;
    let group = [
        linear % ng[0],
        (linear / ng[0]) % ng[1],
        linear / (ng[0] * ng[1]),
    ];
    let size: [u64; 3] = std::array::from_fn(|d| {
        geo.local_size[d].min(geo.global_size[d] - group[d] * geo.local_size[d])
    });
    let n = (size[0] * size[1] * size[2]) as usize;
    let info = GroupInfo {
        group: group.map(|g| g as u32),
        group_linear: linear,
        items: n as u32,
    };
    let obs = lx.obs.group_start_on(&info, previous);
    locals.resize_with(lx.local_sizes.len(), LocalMem::default);
    for (l, &size) in locals.iter_mut().zip(&lx.local_sizes) {
        l.reset(size as usize);
    }
    RunningGroup {
        obs,
        locals: std::mem::take(locals),
        async_counts: vec![0; lx.code.asyncs.len()],
        async_args: vec![[0; 5]; lx.code.asyncs.len()],
        by_group: false,
        group,
        size,
        faults: 0,
        copying: false,
        copy_undefined: 0,
        component: 0,
    }
}

/// The identities of the group's `n` work-items in local linear order. Local ids advance
/// as an odometer (no divisions per work-item).
fn identities<O: Observer>(
    lx: &LaunchRun<O>,
    gx: &RunningGroup<O>,
    n: usize,
    wis: &mut Vec<WorkItem>,
) {
    let (group, size) = (gx.group, gx.size);
    let group32 = group.map(|x| x as u32);
    let geo = &lx.geometry;
    let first: [u64; 3] = std::array::from_fn(|d| group[d] * geo.local_size[d] + geo.offset[d]);
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
}

/// Sets every item of `pool` (identities from `wis`) at the start of the per-item entry
/// function: no frames, no async copies seen. Registers are the caller's:
/// [`init_item_regs`], or lockstep's scatter; private memory is [`begin_group`]'s (lockstep
/// allocates in the items' own).
fn prepare_items<O: Observer>(lx: &LaunchRun<O>, pool: &mut [Item], wis: &[WorkItem]) {
    // Lockstep always starts in the kernel's own function; `lx.entry` only differs from it
    // under quantum 0, which never runs lockstep.
    let func = &lx.code.funcs[lx.entry.func as usize];
    let n_async = lx.code.asyncs.len();
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
    }
}

/// Fills every item's registers for the start of the entry function: its constants, the
/// parameters' lanes, and a private copy of each by-value argument.
fn init_item_regs<O: Observer>(lx: &LaunchRun<O>, pool: &mut [Item]) {
    let func = &lx.code.funcs[lx.entry.func as usize];
    for it in pool.iter_mut() {
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
        copy_byval(lx, &mut it.mem, |slot, p| it.regs[slot] = p);
    }
}

/// Copies each by-value argument into a work-item's private memory and calls `bind` with
/// the parameter's slot and the copy's pointer (the same in every item: their allocations
/// are alike).
fn copy_byval<O: Observer>(lx: &LaunchRun<O>, mem: &mut Priv, mut bind: impl FnMut(usize, u64)) {
    let params = &lx.code.funcs[lx.entry.func as usize].params;
    for (&(slot, _), byval) in params.iter().zip(&lx.byval) {
        if let Some((bytes, align)) = byval {
            let p = alloca(mem, bytes.len(), *align as usize);
            let start = mem.allocs.last().map_or(0, |a| a.0);
            mem.bytes[start..start + bytes.len()].copy_from_slice(bytes);
            bind(slot as usize, p);
        }
    }
}

/// One pass of run-to-barrier over the group's items in schedule order: each item not
/// finished or waiting runs until its next barrier, its end or the end of its turn.
/// Returns what the pass did (no turn used up its budget: every item is finished or waits
/// at a barrier) and the turn budget it ran with.
fn run_phase<O: Observer>(
    lx: &LaunchRun<O>,
    gx: &mut RunningGroup<O>,
    pool: &mut [Item],
    order: &[usize],
    executed: &mut u64,
) -> Result<(Pass, u64), ExecError> {
    // A turn ends at a barrier, after `quantum` instructions, or (with a watchdog limit) in
    // slices so the limit is checked even in a loop without barriers.
    let budget: u64 = match (lx.policy.quantum, lx.status.limit, lx.status.deadline) {
        (0, None, None) => u64::MAX,
        (0, Some(l), _) => l.clamp(1, FAIR_SLICE),
        (0, None, Some(_)) => FAIR_SLICE,
        (q, ..) => q as u64,
    };
    // Run to barrier with no watchdog needs no count of instructions: that interpreter
    // counts jumps instead, for fair turns.
    if budget != u64::MAX || lx.count_all {
        // Counted run to barrier without a watchdog: fair turns, as uncounted.
        let budget = if budget == u64::MAX {
            FAIR_SLICE
        } else {
            budget
        };
        run_turns::<O, true>(lx, gx, pool, order, executed, budget).map(|p| (p, budget))
    } else {
        run_turns::<O, false>(lx, gx, pool, order, executed, FAIR_TURN_JUMPS)
            .map(|p| (p, FAIR_TURN_JUMPS))
    }
}

/// What one pass of [`run_phase`] did: how many items are finished (all of them, not only
/// in this pass), how many turns used up their budget, how many reached a barrier.
pub(super) struct Pass {
    pub(super) done: usize,
    pub(super) yields: u64,
    pub(super) arrived: u64,
}

/// Why a turn left the dispatch loop for the scheduling code around it (a barrier or an
/// item's end hand over to the next item inside the loop).
pub(super) enum TurnEnd {
    Yield,
    Abort(String),
}

/// The next item of `order` from position `*k` on that is neither finished nor waiting;
/// the finished ones passed are counted in `done`.
#[inline(always)]
pub(super) fn next_runnable(
    pool: &[Item],
    order: &[usize],
    k: &mut usize,
    done: &mut usize,
) -> Option<usize> {
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
