//! The per-launch [`LaunchChecker`]: the executor's observer. It fixes the launch's ids and
//! buffers at start, hands each event to its check (`checks/`), and resolves the launch's
//! findings into the session at the end.

use crate::checks::access_rules::AccessRules;
use crate::checks::{CheckerLaunches, Registered};
use crate::group::{GroupState, SiteMap, TouchedMap, TouchedSet, NO_INST, RECENT_SITES};
use crate::local::LocalRecords;
use crate::mar::{self, Accessor, Op, Scope};
use crate::pairs::Pass;
use crate::raw::{Raw, RawKey, RawSet, RawSide};
use crate::report::{Candidate, Finding, FindingKind, LaunchSummary, Side};
use crate::session::{
    LaunchOrder, Locations, Session, Site, State, Touched, WindowLaunch, WINDOW_CAP,
};
use crate::shadow::Shadow;
use crate::Checks;
use parking_lot::Mutex;
use shadowcl_interpreter::{
    Access, AddressSpace, Alignments, AllocId, ArgBinding, BarrierArrival, Fault, GroupCopy,
    GroupInfo, GroupWait, InstId, LaneAccesses, LaunchInfo, LocalAlloc, Observer, Release,
    SyncEvent, WorkItem,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Launch shape, enough to turn a session item id back into work-item ids.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    pub(crate) global_offset: [u64; 3],
    pub(crate) global_size: [u64; 3],
    pub(crate) local_size: [u64; 3],
    pub(crate) num_groups: [u64; 3],
    /// Work-items per group (the full local size; a partial group uses fewer).
    pub(crate) group_items: u64,
}

/// Who a session item id of a launch names.
pub(crate) enum Actor {
    Item([u64; 3], [u32; 3], [u32; 3]),
    /// The work-group itself, performing an `async_work_group_copy`.
    GroupCopy([u32; 3]),
}

impl Geometry {
    pub(crate) fn from_info(info: &LaunchInfo<'_>) -> Geometry {
        let local_size = info.local_size.map(|x| x.max(1));
        Geometry {
            global_offset: info.global_offset,
            global_size: info.global_size,
            local_size,
            num_groups: info.num_groups.map(|x| x.max(1)),
            group_items: local_size.iter().product(),
        }
    }

    /// Ids reserved per group: one per work-item, then one for the group's async copies.
    pub(crate) fn stride(&self) -> u64 {
        self.group_items + 1
    }

    pub(crate) fn total_items(&self) -> u64 {
        self.num_groups
            .iter()
            .product::<u64>()
            .saturating_mul(self.stride())
    }

    /// Who the id `rel` ids after the launch's first one is.
    pub(crate) fn actor(&self, rel: u64) -> Actor {
        let (gl, ll) = (rel / self.stride(), rel % self.stride());
        if ll == self.group_items {
            let group = unlinear(gl, self.num_groups);
            return Actor::GroupCopy(group.map(|x| x as u32));
        }
        let (global, local, group) = self.ids(gl, ll);
        Actor::Item(global, local, group)
    }

    /// (global, local, group) ids of item `ll` of linear group `gl`.
    pub(crate) fn ids(&self, gl: u64, ll: u64) -> ([u64; 3], [u32; 3], [u32; 3]) {
        let group = unlinear(gl, self.num_groups);
        // A trailing partial group (non-uniform NDRange) linearises over its own size.
        let sizes: [u64; 3] = std::array::from_fn(|d| {
            let start = group[d] * self.local_size[d];
            self.local_size[d]
                .min(self.global_size[d].saturating_sub(start))
                .max(1)
        });
        let local = unlinear(ll, sizes);
        let global = std::array::from_fn(|d| {
            self.global_offset[d] + group[d] * self.local_size[d] + local[d]
        });
        (global, local.map(|x| x as u32), group.map(|x| x as u32))
    }
}

pub(crate) fn unlinear(mut v: u64, dims: [u64; 3]) -> [u64; 3] {
    let mut out = [0; 3];
    for d in 0..3 {
        out[d] = v % dims[d];
        v /= dims[d];
    }
    out
}

/// Launch facts fixed at `launch_start`.
pub(crate) struct LaunchState {
    pub(crate) kernel: Arc<str>,
    pub(crate) lo: u64,
    pub(crate) hi: u64,
    pub(crate) geometry: Geometry,
    pub(crate) args: Vec<ArgBinding>,
    pub(crate) local_allocs: Vec<LocalAlloc>,
    pub(crate) shadows: Vec<(AllocId, Arc<Shadow>)>,
    /// Item ranges of earlier launches that may overlap this one. Records naming any other
    /// item below `lo` come from launches ordered before this one and count as reset.
    pub(crate) overlapping: Vec<(u32, u32)>,
    /// The access flags of the arguments' memory objects.
    pub(crate) rules: AccessRules,
    /// Global memory no work-item of this launch writes: every argument bound to it is a
    /// pointer the kernel never writes through ([`ArgBinding::never_written`]).
    pub(crate) read_only: Vec<AllocId>,
    /// More work-items than race records tell apart ([`mar::MAX_ITEM`]): races are not
    /// checked in this launch (the report says so).
    pub(crate) races_off: bool,
}

impl LaunchState {
    /// Whether record item `item` (not of this launch) is from a launch ordered before it.
    pub(crate) fn is_stale(&self, item: u32) -> bool {
        let item = item as u64;
        // Ids above ours belong to launches that started after this one: they overlap it.
        item < self.lo
            && !self
                .overlapping
                .iter()
                .any(|&(lo, hi)| (lo as u64..hi as u64).contains(&item))
    }
}

/// Group states kept between launches ([`Session::spare_groups`]): one per worker of a
/// device's pool, with room to spare.
const SPARE_GROUPS: usize = 64;

/// The first group that made an access (allocation, instruction, kind), and whether another
/// group made it too.
pub(crate) type TouchedBy = ([u32; 3], bool);

/// Checks one launch; pass it to `Device::run` as the observer. Findings go into the session
/// at `launch_end` (or when dropped, if the executor stopped early).
pub struct LaunchChecker<'a> {
    pub(crate) session: &'a Session,
    pub(crate) program: &'a dyn Locations,
    /// The program's alignment requirements (`program.alignments()`, looked up once).
    pub(crate) alignments: Alignments<'a>,
    pub(crate) order: &'a dyn LaunchOrder,
    pub(crate) id: u64,
    pub(crate) schedule: Arc<str>,
    pub(crate) checks: Checks,
    pub(crate) st: OnceLock<LaunchState>,
    pub(crate) sites: Mutex<SiteMap>,
    /// Each (allocation, instruction, kind) of this launch's accesses, with the first group
    /// that made it and whether another group did too (see [`Touched`]).
    pub(crate) touched: Mutex<TouchedMap>,
    pub(crate) raw: Mutex<RawSet>,
    pub(crate) finished: AtomicBool,
    /// Whether it merged what it found so far into an interrupted report.
    pub(crate) handed_over: AtomicBool,
    /// Whether this run takes part in naming racing pairs (`pairs`).
    pub(crate) pass: Pass,
    /// Checks a host command, not a kernel launch (`host.rs`).
    pub(crate) host: bool,
    /// Each checker's own state for the launch (see [`crate::checks::Checker::Launch`]).
    pub(crate) checkers: CheckerLaunches,
}

impl LaunchChecker<'_> {
    pub(crate) fn state(&self) -> Option<&LaunchState> {
        self.st.get()
    }

    /// A global record as this launch sees it: one last touched by a launch ordered before
    /// this one counts as reset (only "initialised" is left).
    pub(crate) fn current(&self, rec: u64, me: &Accessor) -> u64 {
        let item = mar::item_of(rec);
        let foreign = item != 0 && !(me.launch_lo..me.launch_hi).contains(&item);
        match self.state() {
            Some(ls) if foreign && ls.is_stale(item) => mar::reset(rec),
            _ => rec,
        }
    }

    /// Whether [`LaunchChecker::current`] answers alike for the `n` words of a shadow block
    /// record `rec` (word `k` names item `item + k`): the items are all of this launch, or
    /// all of launches ordered before it, or all of launches that may overlap it.
    pub(crate) fn current_is_uniform(&self, rec: u64, me: &Accessor, n: u32) -> bool {
        let lo = mar::item_of(rec);
        if lo == 0 {
            return true;
        }
        let hi = lo.saturating_add(n.saturating_sub(1));
        // All inside `a..b`, or all outside it.
        let uniform = |a: u64, b: u64| {
            let (lo, hi) = (lo as u64, hi as u64);
            (a <= lo && hi < b) || hi < a || lo >= b
        };
        uniform(me.launch_lo as u64, me.launch_hi as u64)
            && self.state().is_none_or(|ls| {
                uniform(0, ls.lo)
                    && ls
                        .overlapping
                        .iter()
                        .all(|&(a, b)| uniform(a as u64, b as u64))
            })
    }

    /// The interned site of access `a` (of kind `op`); notes the first time this group's
    /// instruction touches an allocation in [`LaunchChecker::touched`].
    pub(crate) fn site(&self, g: &mut GroupState, a: &Access<'_>, op: Op) -> u16 {
        let inst = a.inst;
        // Multiplicative hashing (an unrolled loop's accesses are evenly spaced), into
        // enough entries for the dozens of accesses of an unrolled inner loop.
        let recent = (inst.0.wrapping_mul(0x9E37_79B9) >> 25) as usize % RECENT_SITES;
        let (i, alloc, s, serial) = g.recent_sites[recent];
        if i == inst && alloc == a.alloc && serial == g.group_serial {
            return s;
        }
        if g.touched.insert((inst, a.alloc)) {
            let op = if op == Op::AtomicRead { Op::Atomic } else { op };
            let key = (a.alloc, inst, op);
            // An entry two groups made stays as it is: no need to lock for it again.
            if !g.touched_by_many.contains(&key) {
                let many = self
                    .touched
                    .lock()
                    .entry(key)
                    .and_modify(|(first, many)| *many |= *first != a.item.group)
                    .or_insert((a.item.group, false))
                    .1;
                if many {
                    g.touched_by_many.insert(key);
                }
            }
        }
        if let Some(&s) = g.sites.get(&inst) {
            g.recent_sites[recent] = (inst, a.alloc, s, g.group_serial);
            return s;
        }
        let s = *self.sites.lock().entry(inst).or_insert_with(|| {
            // A host command has no line, and its window entry names it: it takes no site
            // (sites run short in a process that keeps commands in flight, and only a window
            // with nothing in it frees them).
            if self.host {
                return 0;
            }
            let mut st = self.session.state.lock();
            if st.sites.len() > mar::MAX_SITE as usize {
                return 0;
            }
            let kernel = self
                .st
                .get()
                .map(|l| l.kernel.clone())
                .unwrap_or_else(|| Arc::from(""));
            st.sites.push(Some(Site {
                launch: self.id,
                kernel,
                location: self.program.location(inst),
            }));
            (st.sites.len() - 1) as u16
        });
        g.sites.insert(inst, s);
        g.recent_sites[recent] = (inst, a.alloc, s, g.group_serial);
        s
    }

    pub(crate) fn here(
        item: &WorkItem,
        inst: Option<InstId>,
        access: &'static str,
    ) -> (RawSide, Option<WorkItem>) {
        (
            RawSide::Here {
                inst,
                access,
                group: false,
            },
            Some(*item),
        )
    }

    /// Ends the launch: resolves this launch's findings into the session. Idempotent.
    pub fn finish(&self) -> usize {
        if self.finished.swap(true, Ordering::AcqRel) {
            return 0;
        }
        // Before the findings are collected: what the kept reads find is this launch's.
        self.apply_pending_reads();
        let Some(ls) = self.state() else { return 0 };
        self.note_limits(ls);
        let mut raws = std::mem::take(&mut *self.raw.lock()).list;
        raws.sort_by(|a, b| a.key.cmp(&b.key));
        let touched = self.touched_list();
        let mut st = self.session.state.lock();
        if let Some(w) = st.window.iter_mut().find(|w| self.is(w)) {
            w.touched = touched;
        }
        let mut findings: Vec<Finding> = raws
            .iter()
            .map(|r| self.session.in_user_files(self.resolve(&st, ls, r)))
            .collect();
        // Identified races first, so unidentified ones of the same pair fold into them.
        findings.sort_by_key(Finding::first_unidentified);
        let mut new = 0;
        for f in findings {
            self.session.merge_locked(&mut st, f, &mut new);
        }
        new
    }

    /// The process is being ended: merges what this launch found so far into the
    /// session's findings, once, for the interrupted report ([`Session::interrupted`]).
    fn hand_over(&self) {
        if self.handed_over.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(ls) = self.state() {
            let raws = self.raw.lock().list.clone();
            let mut st = self.session.state.lock();
            let mut new = 0;
            for r in &raws {
                let f = self.session.in_user_files(self.resolve(&st, ls, r));
                self.session.merge_locked(&mut st, f, &mut new);
            }
        }
        self.session.launch_handed_over();
    }

    /// Says in the report what this launch could not check: buffers whose shadow did not fit
    /// the budget (once per buffer), a launch too large for the race records.
    fn note_limits(&self, ls: &LaunchState) {
        let mut raw = self.raw.lock();
        let mut note = |alloc: Option<AllocId>, message: String| {
            raw.add(Raw {
                sync: None,
                key: RawKey {
                    kind: FindingKind::ChecksDegraded,
                    race: None,
                    scope: None,
                    memory: alloc.map(|_| AddressSpace::Global),
                    alloc,
                    first: None,
                    second: None,
                },
                offset: None,
                first: None,
                second: None,
                count: 1,
                message,
            })
        };
        for (alloc, shadow) in &ls.shadows {
            if shadow.degraded() && !shadow.degraded_reported.swap(true, Ordering::Relaxed) {
                note(
                    Some(*alloc),
                    format!(
                        "the shadow memory budget of {} MiB (SHADOWCL_SHADOW_LIMIT) was reached: \
                         accesses to parts of this buffer are not checked for races or \
                         uninitialised reads",
                        self.session.budget.limit() >> 20
                    ),
                );
            }
        }
        if ls.races_off && self.checks.races {
            note(
                None,
                format!(
                    "{} work-items in one launch: race records tell apart at most {} ids (one per \
                     work-item and one per group) per synchronisation window, so races are not \
                     checked in this launch",
                    ls.geometry
                        .num_groups
                        .iter()
                        .product::<u64>()
                        .saturating_mul(ls.geometry.group_items),
                    mar::MAX_ITEM
                ),
            );
        }
    }

    /// The sites that could have made the first access of race `r`, which a record kept only
    /// the kind (`op`) of: accesses of that kind to the same allocation by this launch's
    /// groups that the race's scope allows, and for an inter-kernel race also by the other
    /// launches that overlap this one.
    fn candidates(&self, st: &State, ls: &LaunchState, r: &Raw, op: Op) -> Vec<Candidate> {
        let Some(alloc) = r.key.alloc else {
            return Vec::new();
        };
        let op = if op == Op::AtomicRead { Op::Atomic } else { op };
        let mine = match &r.second {
            Some((_, Some(item))) => Some(item.group),
            _ => None,
        };
        // IntraGroup: made by my group; otherwise by another group (of this launch).
        let allowed = |t: &Touched| match (r.key.scope, mine) {
            (_, None) | (None, _) => true,
            (Some(Scope::IntraGroup), Some(g)) => t.group == g || t.many_groups,
            (Some(_), Some(g)) => t.group != g || t.many_groups,
        };
        let inter_kernel = r.key.scope == Some(Scope::InterKernel) && !alloc.is_local();
        let mut out: Vec<Candidate> = st
            .window
            .iter()
            .filter(|w| {
                if self.is(w) {
                    return true;
                }
                inter_kernel && !ls.is_stale(crate::group::clamp_item(w.lo))
            })
            .flat_map(|w| {
                let own = self.is(w);
                w.touched
                    .iter()
                    .filter(move |t| t.alloc == alloc && t.op == op && (!own || allowed(t)))
                    .map(move |t| Candidate {
                        launch: w.id,
                        kernel: w.kernel.to_string(),
                        location: t.location.clone(),
                    })
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Whether window entry `w` is this launch.
    fn is(&self, w: &WindowLaunch) -> bool {
        w.id == self.id && w.host == self.host
    }

    /// This launch's [`Touched`] list, for its window entry.
    fn touched_list(&self) -> Vec<Touched> {
        let mut out: Vec<Touched> = self
            .touched
            .lock()
            .iter()
            .map(|(&(alloc, inst, op), &(group, many_groups))| Touched {
                alloc,
                op,
                location: self.program.location(inst),
                group,
                many_groups,
            })
            .collect();
        out.sort_by(|a, b| (a.alloc, a.op, &a.location).cmp(&(b.alloc, b.op, &b.location)));
        out
    }

    pub(crate) fn resolve(&self, st: &State, ls: &LaunchState, r: &Raw) -> Finding {
        let side = |s: &(RawSide, Option<WorkItem>)| -> Side {
            match s {
                (RawSide::Recorded { item, site, op }, _) => {
                    let w = window_of(st, *item);
                    let item = *item as u64;
                    let actor = w.map(|w| w.geometry.actor(item - w.lo));
                    let site = st.sites.get(*site as usize).and_then(Option::as_ref);
                    let (global_id, local_id, group_id, group_copy) = match actor {
                        Some(Actor::Item(g, l, w)) => (Some(g), Some(l), Some(w), false),
                        Some(Actor::GroupCopy(w)) => (None, None, Some(w), true),
                        None => (None, None, None, false),
                    };
                    // Host commands take no site: their window entry names them.
                    let host = w.is_some_and(|w| w.host);
                    Side {
                        access: op.name().into(),
                        global_id: global_id.filter(|_| !host),
                        local_id: local_id.filter(|_| !host),
                        group_id: group_id.filter(|_| !host),
                        group_copy,
                        host,
                        candidates: Vec::new(),
                        location: site.and_then(|s| s.location.clone()),
                        launch: w
                            .map(|w| w.id)
                            .or(site.map(|s| s.launch))
                            .unwrap_or(self.id),
                        kernel: w
                            .map(|w| w.kernel.to_string())
                            .or(site.map(|s| s.kernel.to_string()))
                            .unwrap_or_else(|| ls.kernel.to_string()),
                    }
                }
                (RawSide::Unknown { op }, _) => {
                    let mut cs = self.candidates(st, ls, r, *op);
                    let (launch, kernel, location) = match cs.first() {
                        Some(c) => (c.launch, c.kernel.clone(), c.location.clone()),
                        None => (self.id, ls.kernel.to_string(), None),
                    };
                    if cs.len() == 1 {
                        cs.clear();
                    }
                    Side {
                        access: op.name().into(),
                        global_id: None,
                        local_id: None,
                        group_id: None,
                        group_copy: false,
                        host: false,
                        location: location.filter(|_| cs.is_empty()),
                        candidates: cs,
                        launch,
                        kernel,
                    }
                }
                (
                    RawSide::Here {
                        inst,
                        access,
                        group,
                    },
                    item,
                ) => Side {
                    access: (*access).into(),
                    global_id: item.filter(|_| !group && !self.host).map(|i| i.global),
                    local_id: item.filter(|_| !group && !self.host).map(|i| i.local),
                    group_id: item.filter(|_| !self.host).map(|i| i.group),
                    group_copy: *group,
                    host: self.host,
                    candidates: Vec::new(),
                    location: inst.and_then(|i| self.program.location(i)),
                    launch: self.id,
                    kernel: ls.kernel.to_string(),
                },
            }
        };
        let (buffer, index) = match (r.key.alloc, r.offset) {
            // A work-item's own array or struct: named by the source line, not a buffer.
            _ if r.key.memory == Some(AddressSpace::Private) => (Some("private".into()), None),
            // A host command moves bytes, not elements; the buffer is called as the kernel
            // on the other side calls it, when the race has one.
            (Some(a), Some(off)) if self.host => {
                let kernel_side = match &r.first {
                    Some((RawSide::Recorded { item, .. }, _)) => {
                        window_of(st, *item).filter(|w| !w.host)
                    }
                    _ => None,
                };
                let name = kernel_side
                    .and_then(|w| bound_arg(&w.args, a, off))
                    .map(|b| b.name.to_string());
                (name.or(name_and_index(ls, a, off).0), None)
            }
            (Some(a), Some(off)) => name_and_index(ls, a, off),
            (Some(a), None) => (Some(name_and_index(ls, a, 0).0.unwrap_or_default()), None),
            _ => (None, None),
        };
        let (first, second) = (r.first.as_ref().map(side), r.second.as_ref().map(side));
        // The records see a host command as one more launch; the report says which it was.
        let host = [&first, &second].into_iter().flatten().any(|s| s.host);
        let scope = match r.key.scope {
            Some(Scope::InterKernel) if host => Some(Scope::HostCommand),
            s => s,
        };
        Finding {
            synchronisation: r.sync.as_deref().cloned(),
            kind: r.key.kind,
            race: r.key.race,
            scope,
            memory: r.key.memory,
            launch: self.id,
            kernel: ls.kernel.to_string(),
            buffer,
            offset: r.offset,
            index,
            first,
            second,
            count: r.count,
            message: r.message.clone(),
        }
    }

    /// The shadow of `alloc`, kept by the group: borrowed, since a reference count touched on
    /// every access would be a cache line the worker threads fight over.
    pub(crate) fn shadow<'g>(&self, g: &'g mut GroupState, alloc: AllocId, end: u64) -> &'g Shadow {
        let i = self.shadow_index(g, alloc, end);
        &g.shadows[i].1
    }

    /// Shadow `i` of a group that holds `alloc` there, when it is one the launch holds too
    /// (every argument's; the group adds others after them): borrowed from the launch, so
    /// that its records may be held beside the group's state.
    #[inline]
    pub(crate) fn launch_shadow(&self, i: usize, alloc: AllocId) -> Option<&Shadow> {
        let (id, shadow) = self.state()?.shadows.get(i)?;
        (*id == alloc).then_some(&**shadow)
    }

    /// Where [`LaunchChecker::shadow`] keeps `alloc`'s shadow in `g.shadows` (stays valid
    /// for the group: entries are only added).
    pub(crate) fn shadow_index(&self, g: &mut GroupState, alloc: AllocId, end: u64) -> usize {
        match g.shadows.iter().position(|(a, _)| *a == alloc) {
            Some(i) => i,
            None => {
                g.shadows.push((alloc, self.session.shadow_for(alloc, end)));
                g.shadows.len() - 1
            }
        }
    }
}

/// The global allocations of `args` that every argument bound to them never writes.
fn read_only_allocations(args: &[ArgBinding]) -> Vec<AllocId> {
    let global = || args.iter().filter(|a| a.space == AddressSpace::Global);
    let mut ids: Vec<AllocId> = global()
        .filter_map(|a| a.alloc)
        .filter(|&id| global().all(|b| b.alloc != Some(id) || b.never_written))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// How a window entry stands to a starting launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// It and everything before it happen before every launch that may still start.
    Settled,
    /// Ordered before the starting launch.
    Before,
    /// May overlap the starting launch.
    Overlapping,
}

/// The [`Status`] of each of the window's entries (front first) for a launch ordered by
/// `order`: asked entry by entry from the newest, until an entry that followed every older
/// one (its `follows_all`) turns out settled or before this launch; then every older entry
/// stands so too.
fn window_statuses(
    window: &std::collections::VecDeque<WindowLaunch>,
    order: &dyn LaunchOrder,
) -> Vec<Status> {
    let mut statuses = vec![Status::Overlapping; window.len()];
    for (i, w) in window.iter().enumerate().rev() {
        let status = if order.settled(w.order) {
            Status::Settled
        } else if order.follows(w.order) {
            Status::Before
        } else {
            Status::Overlapping
        };
        if w.follows_all && status != Status::Overlapping {
            statuses[..=i].fill(status);
            break;
        }
        statuses[i] = status;
    }
    statuses
}

/// The window launch that record item `item` belongs to.
fn window_of(st: &State, item: u32) -> Option<&WindowLaunch> {
    let item = item as u64;
    st.window.iter().find(|w| (w.lo..w.hi).contains(&item))
}

/// Argument (or `__local` variable) name and element index of byte `off` of `alloc`.
pub(crate) fn name_and_index(
    ls: &LaunchState,
    alloc: AllocId,
    off: i64,
) -> (Option<String>, Option<i64>) {
    if let Some(slot) = alloc.local_slot() {
        return match ls.local_allocs.get(slot as usize) {
            // A `__local` struct (or scalar) variable is one object: its byte says where, an
            // element index would always be 0.
            Some(l) if l.arg_index.is_none() && u64::from(l.elem_size) >= l.size => {
                (Some(l.name.to_string()), None)
            }
            Some(l) => (
                Some(l.name.to_string()),
                Some(off.div_euclid(l.elem_size.max(1) as i64)),
            ),
            None => (Some(format!("local#{slot}")), None),
        };
    }
    match bound_arg(&ls.args, alloc, off) {
        Some(a) => (
            Some(a.name.to_string()),
            Some((off - a.view_offset as i64).div_euclid(a.elem_size.max(1) as i64)),
        ),
        None => (Some(format!("buffer#{}", alloc.0)), None),
    }
}

/// The argument of `args` bound to byte `off` of `alloc` (the one whose view holds it, else
/// the first bound to `alloc`).
fn bound_arg(args: &[ArgBinding], alloc: AllocId, off: i64) -> Option<&ArgBinding> {
    let inside = |a: &&ArgBinding| {
        (a.view_offset as i64..(a.view_offset + a.view_size) as i64).contains(&off)
    };
    let mut bound = args.iter().filter(|a| a.alloc == Some(alloc));
    bound.clone().find(inside).or_else(|| bound.next())
}

impl Drop for LaunchChecker<'_> {
    fn drop(&mut self) {
        self.finish();
        self.session.launch_gone();
    }
}

impl Observer for LaunchChecker<'_> {
    type Group = Box<GroupState>;

    fn launch_start(&self, info: &LaunchInfo<'_>) {
        let geometry = Geometry::from_info(info);
        let total = geometry.total_items();
        let kernel = self.session.name(info.kernel);
        let (lo, hi, overlapping) = {
            let mut st = self.session.state.lock();
            let order = self.order;
            let end = |v: u64| v.min(u32::MAX as u64) as u32;
            // Launches the host has waited for leave; of the others, which are ordered
            // before this one and which may overlap it. Asked newest first, only until an
            // entry that followed every older one is settled or before this launch: then so
            // is every older one (`LaunchOrder`'s questions are transitive). A tight loop of
            // launches on one queue asks once instead of once per entry.
            let statuses = window_statuses(&st.window, order);
            let mut overlapping = Vec::new();
            // Only the oldest launches ordered before this one may have to leave a full
            // window (below): as many as it is over its cap, at most.
            let leaving = (st.window.len() + 1).saturating_sub(WINDOW_CAP);
            let mut before = Vec::new();
            if statuses.iter().all(|s| *s == Status::Before) {
                // A queue's tight loop: nothing settled, nothing overlapping.
                before.extend(st.window.iter().take(leaving).map(|w| w.id));
            } else {
                let mut i = 0;
                st.window.retain(|w| {
                    let status = statuses.get(i).copied().unwrap_or(Status::Overlapping);
                    i += 1;
                    match status {
                        Status::Settled => return false,
                        Status::Before if before.len() < leaving => before.push(w.id),
                        Status::Before => {}
                        Status::Overlapping => overlapping.push((end(w.lo), end(w.hi))),
                    }
                    true
                });
            }
            let follows_all = overlapping.is_empty();
            // Item ids and interned sites run short only after many launches: until then
            // the records of settled launches are not swept (that cost a pass over every
            // touched record per launch) but read as reset (`current`, `is_stale`).
            let running_out = st.next_item.saturating_add(total) > mar::MAX_ITEM / 2
                || st.sites.len() > mar::MAX_SITE as usize / 2;
            if st.window.is_empty() && running_out {
                // Everything recorded happens before every launch to come: start afresh.
                Session::reset_locked(&mut st, &self.session.shadows);
            } else if st.next_item.saturating_add(total) > mar::MAX_ITEM + 1 {
                // Item ids of this window are used up; ids wrap (two far-apart work-items
                // may then look alike).
                tracing::warn!("shadowcl: race record item ids wrap (no sync for too long)");
            }
            if st.window.len() >= WINDOW_CAP {
                // Forget the oldest launches ordered before this one (their records now
                // count as reset for every later launch too): on one in-order queue, the
                // window's first (taken from the front, without moving the rest).
                before.truncate(st.window.len() + 1 - WINDOW_CAP);
                let at_front = (st.window.iter().map(|w| w.id))
                    .zip(&before)
                    .take_while(|(w, b)| w == *b)
                    .count();
                st.window.drain(..at_front);
                if at_front < before.len() {
                    st.window.retain(|w| !before.contains(&w.id));
                }
            }
            let lo = st.next_item;
            let hi = lo.saturating_add(total);
            st.next_item = hi;
            st.window.push_back(WindowLaunch {
                id: self.id,
                host: self.host,
                args: info
                    .args
                    .iter()
                    .filter(|a| a.space == AddressSpace::Global)
                    .cloned()
                    .collect(),
                order: order.key(),
                kernel: kernel.clone(),
                lo,
                hi,
                geometry: geometry.clone(),
                touched: Vec::new(),
                follows_all,
            });
            // The report's launches are kernel launches.
            if !self.host {
                st.launches.push(LaunchSummary {
                    id: self.id,
                    kernel: kernel.clone(),
                    global_size: info.global_size,
                    local_size: info.local_size,
                    global_offset: info.global_offset,
                    schedule: self.schedule.clone(),
                });
            }
            (lo, hi, overlapping)
        };
        let shadows = info
            .args
            .iter()
            .filter(|a| a.space == AddressSpace::Global)
            .filter_map(|a| {
                let id = a.alloc?;
                Some((id, self.session.shadow_for(id, a.view_offset + a.view_size)))
            })
            .collect();
        let _ = self.st.set(LaunchState {
            kernel,
            lo,
            hi,
            geometry,
            args: info.args.to_vec(),
            local_allocs: info.local_allocs.to_vec(),
            shadows,
            overlapping,
            rules: AccessRules::of(self.session, info.args),
            read_only: read_only_allocations(info.args),
            races_off: total > mar::MAX_ITEM,
        });
    }

    fn group_start(&self, g: &GroupInfo) -> Box<GroupState> {
        self.group_start_on(g, None)
    }

    /// A worker's next group restarts the state its last group left (boxed as the executor
    /// holds it: reuse moves a pointer) instead of building a 2.5 KB one.
    fn group_start_on(&self, g: &GroupInfo, previous: Option<Box<GroupState>>) -> Box<GroupState> {
        let ls = self.state();
        let lo = ls.map_or(1, |ls| ls.lo + g.group_linear * ls.geometry.stride());
        // The actor's id follows the full group's items (partial groups leave a gap).
        let hi = lo
            + ls.map_or(g.items as u64, |ls| ls.geometry.group_items)
                .max(1)
            + 1;
        if let Some(mut previous) = previous {
            previous.restart(lo, hi);
            return previous;
        }
        // Local records are needed only by the access checks.
        let local = self.checks.race_records() || self.checks.uninit;
        if let Some(ls) = ls {
            if let Some(mut spare) = self.session.spare_groups.lock().pop() {
                spare.relaunch(lo, hi, ls, local);
                return spare;
            }
        }
        let (launch_lo, launch_hi, local, shadows) = match ls {
            Some(ls) => (
                ls.lo,
                ls.hi,
                if local {
                    ls.local_allocs
                        .iter()
                        .map(|l| LocalRecords::new(l.size as usize))
                        .collect()
                } else {
                    Vec::new()
                },
                ls.shadows.clone(),
            ),
            None => (1, 2 + g.items as u64, Vec::new(), Vec::new()),
        };
        Box::new(GroupState {
            lo,
            hi,
            launch_lo,
            launch_hi,
            epoch_global: 0,
            epoch_local: 0,
            barriers_global: 0,
            barriers_local: 0,
            local,
            arrivals: Default::default(),
            sites: SiteMap::default(),
            recent_sites: [(NO_INST, AllocId(u64::MAX), 0, 0); RECENT_SITES],
            group_serial: 0,
            touched: TouchedSet::default(),
            touched_by_many: Default::default(),
            shadows,
            raw: RawSet::default(),
            races_off: self.state().is_some_and(|s| s.races_off),
            checkers: Default::default(),
        })
    }

    /// Keeps the state a worker's last group left for the next launch's first group
    /// ([`GroupState::relaunch`]), as many as there are workers.
    fn worker_done(&self, kept: Option<Box<GroupState>>) {
        let Some(mut state) = kept else { return };
        state.park();
        let mut spares = self.session.spare_groups.lock();
        if spares.len() < SPARE_GROUPS {
            spares.push(state);
        }
    }

    fn wants_definedness(&self) -> bool {
        Registered::wants_definedness(self)
    }

    fn wants_previous(&self) -> bool {
        Registered::wants_previous(self)
    }

    #[inline(always)]
    fn read_is_quiet(
        &self,
        g: &Box<GroupState>,
        alloc: AllocId,
        inst: InstId,
        offset: u64,
        size: u32,
    ) -> bool {
        Registered::read_is_quiet(g, alloc, inst, offset, size)
    }

    #[inline(always)]
    fn access_lanes(&self, g: &mut Box<GroupState>, lanes: &LaneAccesses<'_>) {
        Registered::access_lanes(self, g, lanes);
    }

    #[inline(always)]
    fn access(&self, g: &mut Box<GroupState>, a: &Access<'_>) {
        Registered::access(self, g, a);
    }

    fn barrier(&self, g: &mut Box<GroupState>, arrival: &BarrierArrival<'_>) {
        self.record_arrival(g, arrival);
        Registered::barrier(self, g, arrival);
    }

    fn wants_sync(&self) -> bool {
        Registered::wants_sync(self)
    }

    fn synchronise(&self, g: &mut Box<GroupState>, sync: &SyncEvent<'_>) {
        Registered::synchronise(self, g, sync);
    }

    fn group_copy(&self, g: &mut Box<GroupState>, c: &GroupCopy<'_>) {
        Registered::group_copy(self, g, c);
    }

    fn group_wait(&self, g: &mut Box<GroupState>, w: &GroupWait<'_>) {
        Registered::group_wait(self, g, w);
    }

    /// Every checker sees the release before the group's epochs advance past it.
    fn barrier_release(&self, g: &mut Box<GroupState>, why: Release) {
        Registered::barrier_release(self, g, why);
        self.release_barrier(g);
    }

    fn item_end(&self, g: &mut Box<GroupState>, item: &WorkItem) {
        Registered::item_end(self, g, item);
    }

    fn fault(&self, g: &mut Box<GroupState>, f: &Fault<'_>) {
        Registered::fault(self, g, f);
    }

    fn stalled(&self, g: &mut Box<GroupState>, why: &str, running: &[(WorkItem, InstId)]) {
        Registered::stalled(self, g, why, running);
    }

    fn group_end(&self, g: Box<GroupState>) {
        self.group_end_keep(g);
    }

    fn group_end_keep(&self, mut g: Box<GroupState>) -> Option<Box<GroupState>> {
        Registered::group_end(self, &mut g);
        if !g.raw.list.is_empty() {
            let mut all = self.raw.lock();
            for r in g.raw.list.drain(..) {
                all.add(r);
            }
        }
        if self.session.snapshot_wanted.load(Ordering::Acquire) {
            self.hand_over();
        }
        Some(g)
    }

    fn launch_end(&self) {
        // After a first run the pair pass may still rename findings; its caller finishes.
        if !matches!(self.pass, Pass::First(_)) {
            self.finish();
        }
    }
}
