//! The process-wide [`Session`] and the per-launch [`LaunchChecker`] (the executor's observer).

use crate::mar::{self, Me, Op, Party, Scope};
use crate::report::{self, Finding, FindingKind, LaunchSummary, RaceKind, Report, Side};
use crate::shadow::Shadow;
use crate::{Checks, Config};
use parking_lot::{Mutex, RwLock};
use shadowcl_interpreter::{
    Access, AccessKind, AddressSpace, AllocId, ArgBinding, BarrierArrival, Fault, Fences,
    GroupCopy, GroupInfo, GroupWait, InstId, LaunchInfo, LocalAlloc, Observer, Program, Release,
    SourceLoc, WorkItem,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Maps instructions to source lines: implemented by `Program`; tests use a closure.
pub trait Locations: Sync {
    fn location(&self, inst: InstId) -> Option<SourceLoc>;
}

impl Locations for Program {
    fn location(&self, inst: InstId) -> Option<SourceLoc> {
        Program::location(self, inst)
    }
}

impl<F: Fn(InstId) -> Option<SourceLoc> + Sync> Locations for F {
    fn location(&self, inst: InstId) -> Option<SourceLoc> {
        self(inst)
    }
}

/// Distinct new findings one launch may add; the rest are counted in `Report::dropped`.
pub const LAUNCH_CAP: usize = 100;

/// Launch shape, enough to turn a session item id back into work-item ids.
#[derive(Clone, Debug)]
struct Geometry {
    global_offset: [u64; 3],
    global_size: [u64; 3],
    local_size: [u64; 3],
    num_groups: [u64; 3],
    /// Work-items per group (the full local size; a partial group uses fewer).
    group_items: u64,
}

/// Who a session item id of a launch names.
enum Actor {
    Item([u64; 3], [u32; 3], [u32; 3]),
    /// The work-group itself, performing an `async_work_group_copy`.
    GroupCopy([u32; 3]),
}

impl Geometry {
    fn from_info(info: &LaunchInfo<'_>) -> Geometry {
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
    fn stride(&self) -> u64 {
        self.group_items + 1
    }

    fn total_items(&self) -> u64 {
        self.num_groups
            .iter()
            .product::<u64>()
            .saturating_mul(self.stride())
    }

    /// Who the id `rel` ids after the launch's first one is.
    fn actor(&self, rel: u64) -> Actor {
        let (gl, ll) = (rel / self.stride(), rel % self.stride());
        if ll == self.group_items {
            let group = unlinear(gl, self.num_groups);
            return Actor::GroupCopy(group.map(|x| x as u32));
        }
        let (global, local, group) = self.ids(gl, ll);
        Actor::Item(global, local, group)
    }

    /// (global, local, group) ids of item `ll` of linear group `gl`.
    fn ids(&self, gl: u64, ll: u64) -> ([u64; 3], [u32; 3], [u32; 3]) {
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

fn unlinear(mut v: u64, dims: [u64; 3]) -> [u64; 3] {
    let mut out = [0; 3];
    for d in 0..3 {
        out[d] = v % dims[d];
        v /= dims[d];
    }
    out
}

/// A launch of the current synchronisation window (its items may still be in records).
struct WindowLaunch {
    id: u64,
    /// Its [`LaunchOrder::key`].
    order: u64,
    kernel: Arc<str>,
    lo: u64,
    hi: u64,
    geometry: Geometry,
}

/// How a launch is ordered against earlier ones. The platform knows queues and events; the
/// checkers only ask these questions about launches still in the window.
pub trait LaunchOrder: Sync {
    /// This launch's identity in the platform's ordering (stored with its window entry).
    fn key(&self) -> u64;
    /// The launch `key` completed before this one started (happens-before): its accesses can
    /// not race with this launch's.
    fn follows(&self, key: u64) -> bool;
    /// The launch `key` happens before this one and before every launch that may still start,
    /// so its records may be forgotten.
    fn settled(&self, key: u64) -> bool;
}

/// Every earlier launch completed before this one and nothing else can start meanwhile (one
/// in-order queue; replay).
pub struct Sequential;

impl LaunchOrder for Sequential {
    fn key(&self) -> u64 {
        0
    }
    fn follows(&self, _: u64) -> bool {
        true
    }
    fn settled(&self, _: u64) -> bool {
        true
    }
}

/// The launch may overlap every earlier launch (out-of-order queue with no wait list).
pub struct Unordered;

impl LaunchOrder for Unordered {
    fn key(&self) -> u64 {
        0
    }
    fn follows(&self, _: u64) -> bool {
        false
    }
    fn settled(&self, _: u64) -> bool {
        false
    }
}

/// Most window launches kept: past it the oldest launches ordered before the new one are
/// forgotten (their inter-kernel races with later launches are missed), so each launch start
/// stays cheap when an application enqueues thousands of kernels without waiting.
const WINDOW_CAP: usize = 256;

/// An interned instruction (MARs hold 13-bit site numbers, not instruction ids).
struct Site {
    launch: u64,
    kernel: Arc<str>,
    location: Option<SourceLoc>,
}

struct State {
    /// Next free item id of the window (0 means "no item" in a record).
    next_item: u64,
    window: Vec<WindowLaunch>,
    /// Index 0 is the "unknown site" placeholder.
    sites: Vec<Option<Site>>,
    launches: Vec<LaunchSummary>,
    findings: Vec<Finding>,
    index: HashMap<String, usize>,
    /// Races by `Finding::loose_key`, for folding unidentified first accesses.
    loose: HashMap<String, usize>,
    dropped: u64,
    printed: usize,
}

/// One per process: the global-memory shadows (kept across launches, so races between launches
/// that may run concurrently are found) and the findings.
pub struct Session {
    config: Config,
    shadows: RwLock<HashMap<AllocId, Arc<Shadow>>>,
    state: Mutex<State>,
}

impl Session {
    pub fn new(config: Config) -> Session {
        Session {
            config,
            shadows: RwLock::new(HashMap::new()),
            state: Mutex::new(State {
                next_item: 1,
                window: Vec::new(),
                sites: vec![None],
                launches: Vec::new(),
                findings: Vec::new(),
                index: HashMap::new(),
                loose: HashMap::new(),
                dropped: 0,
                printed: 0,
            }),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn checks(&self) -> Checks {
        self.config.checks
    }

    /// A buffer was created. `initialised`: its bytes came from the host
    /// (`CL_MEM_COPY_HOST_PTR` / `CL_MEM_USE_HOST_PTR`), so reading them is not an uninit read.
    pub fn buffer_created(&self, id: AllocId, len: u64, initialised: bool) {
        self.shadows
            .write()
            .insert(id, Arc::new(Shadow::new(len, initialised)));
    }

    /// The host wrote bytes of a buffer (write, fill, copy, unmap of a write mapping).
    pub fn buffer_written_by_host(&self, id: AllocId, offset: u64, len: u64) {
        if let Some(s) = self.shadows.read().get(&id) {
            s.initialise(offset, len);
        }
    }

    /// The buffer is gone; its shadow is freed.
    pub fn buffer_released(&self, id: AllocId) {
        self.shadows.write().remove(&id);
    }

    /// The platform found a launch that uses a released buffer (bound to argument `arg`).
    pub fn use_after_release(&self, launch: u64, kernel: &str, arg: &str) {
        self.add_finding(Finding {
            kind: FindingKind::UseAfterRelease,
            race: None,
            scope: None,
            memory: Some(AddressSpace::Global),
            launch,
            kernel: kernel.to_string(),
            buffer: Some(arg.to_string()),
            offset: None,
            index: None,
            first: None,
            second: None,
            count: 1,
            message: format!("argument `{arg}` names a released buffer"),
        });
    }

    /// Every earlier launch has completed and happens before every later one: forget all
    /// access records except "initialised". Call only while no launch runs.
    pub fn synchronize(&self) {
        let mut st = self.state.lock();
        Self::reset_locked(&mut st, &self.shadows);
    }

    fn reset_locked(st: &mut State, shadows: &RwLock<HashMap<AllocId, Arc<Shadow>>>) {
        for s in shadows.read().values() {
            s.reset();
        }
        st.next_item = 1;
        st.window.clear();
        st.sites.truncate(1);
    }

    /// Starts checking one launch. `order` tells which earlier launches happen before it:
    /// their records no longer count against this launch's accesses, while those of launches
    /// that may overlap it (out-of-order queue, other queues without events between them) do,
    /// so races between kernels are found. `schedule` goes into the report
    /// (`Schedule::describe`).
    pub fn launch<'a>(
        &'a self,
        program: &'a dyn Locations,
        launch_id: u64,
        schedule: &str,
        order: &'a dyn LaunchOrder,
    ) -> LaunchChecker<'a> {
        LaunchChecker {
            session: self,
            program,
            order,
            id: launch_id,
            schedule: schedule.to_string(),
            checks: self.config.checks,
            st: OnceLock::new(),
            sites: Mutex::new(HashMap::new()),
            raw: Mutex::new(RawSet::default()),
            finished: AtomicBool::new(false),
        }
    }

    /// Adds a finding made elsewhere (e.g. schedule-dependent output from the amplifier).
    pub fn add_finding(&self, f: Finding) {
        let mut st = self.state.lock();
        let mut new = 0;
        Self::merge_locked(&mut st, f, &mut new);
    }

    fn merge_locked(st: &mut State, f: Finding, new: &mut usize) {
        let key = f.dedup_key();
        let loose = f.loose_key();
        let unidentified = f.first_unidentified();
        let folded = loose
            .as_ref()
            .filter(|_| unidentified)
            .and_then(|k| st.loose.get(k).copied());
        if let Some(i) = st.index.get(&key).copied().or(folded) {
            st.findings[i].count += f.count;
        } else if *new >= LAUNCH_CAP {
            st.dropped += 1;
        } else {
            *new += 1;
            let i = st.findings.len();
            st.index.insert(key, i);
            if let (Some(k), false) = (loose, unidentified) {
                st.loose.entry(k).or_insert(i);
            }
            st.findings.push(f);
        }
    }

    pub fn report(&self) -> Report {
        let st = self.state.lock();
        Report {
            launches: st.launches.clone(),
            findings: st.findings.clone(),
            dropped: st.dropped,
        }
    }

    /// Bytes of global-memory shadow allocated (8 per byte of each touched 4 KiB page).
    pub fn shadow_bytes(&self) -> usize {
        self.shadows
            .read()
            .values()
            .map(|s| s.allocated_bytes())
            .sum()
    }

    /// Text for findings not printed before (the platform prints it to stderr after a launch).
    pub fn take_new_text(&self) -> String {
        let mut st = self.state.lock();
        let from = st.printed;
        st.printed = st.findings.len();
        report::render_findings(&st.findings[from..], 0)
    }

    /// Writes `SHADOWCL_REPORT` (JSON) and `SHADOWCL_SARIF` when configured.
    pub fn write_files(&self) -> std::io::Result<()> {
        let r = self.report();
        let outputs = [
            (self.config.report.as_ref(), r.to_json()),
            (self.config.sarif.as_ref(), r.to_sarif()),
        ];
        for (path, value) in outputs {
            let Some(path) = path else { continue };
            // Write then rename, so a reader never sees half a report.
            let mut tmp = path.clone().into_os_string();
            tmp.push(format!(".{}.tmp", std::process::id()));
            let tmp = std::path::PathBuf::from(tmp);
            let text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
            std::fs::write(&tmp, text + "\n")?;
            std::fs::rename(&tmp, path)?;
        }
        Ok(())
    }

    /// The shadow of `id`; buffers the platform did not announce get one of `len` bytes,
    /// assumed initialised (no false uninitialised reads). A known shadow is kept even when
    /// shorter than `len`: its size is the buffer's, and the executor checks bounds.
    fn shadow_for(&self, id: AllocId, len: u64) -> Arc<Shadow> {
        if let Some(s) = self.shadows.read().get(&id) {
            return s.clone();
        }
        self.shadows
            .write()
            .entry(id)
            .or_insert_with(|| Arc::new(Shadow::new(len, true)))
            .clone()
    }
}

/// One side of a raw finding, resolved to ids and locations when the launch ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum RawSide {
    /// From a record: a session item id and a site.
    Recorded { item: u32, site: u16, op: Op },
    /// From a summary flag: the kind is known, the work-item is not.
    Unknown { op: Op },
    /// An event of this launch (`group`: the access was the group's async copy).
    Here {
        inst: Option<InstId>,
        access: &'static str,
        group: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct RawKey {
    kind: FindingKind,
    race: Option<RaceKind>,
    scope: Option<Scope>,
    memory: Option<AddressSpace>,
    alloc: Option<AllocId>,
    /// The parts of the first side that identify the pair (site or barrier instruction).
    first: Option<(&'static str, u16, Option<InstId>)>,
    second: Option<(&'static str, Option<InstId>)>,
}

#[derive(Clone, Debug)]
struct Raw {
    key: RawKey,
    offset: Option<i64>,
    first: Option<(RawSide, Option<WorkItem>)>,
    second: Option<(RawSide, Option<WorkItem>)>,
    count: u64,
    message: String,
}

#[derive(Default)]
struct RawSet {
    list: Vec<Raw>,
    index: HashMap<RawKey, usize>,
}

impl RawSet {
    fn add(&mut self, r: Raw) {
        match self.index.get(&r.key) {
            Some(&i) => {
                let known = &mut self.list[i];
                known.count += r.count;
                // The same pair of sites: show the occurrence whose first work-item is known.
                if identified(&r) && !identified(known) {
                    known.offset = r.offset;
                    known.first = r.first;
                    known.second = r.second;
                }
            }
            None => {
                self.index.insert(r.key.clone(), self.list.len());
                self.list.push(r);
            }
        }
    }
}

/// Whether a raw finding's first side names its work-item.
fn identified(r: &Raw) -> bool {
    !matches!(
        r.first,
        Some((RawSide::Recorded { item: 0, .. }, _)) | Some((RawSide::Unknown { .. }, _))
    )
}

fn side_key(s: &RawSide) -> (&'static str, u16, Option<InstId>) {
    match *s {
        RawSide::Recorded { site, op, .. } => (op.name(), site, None),
        RawSide::Unknown { op } => (op.name(), 0, None),
        RawSide::Here { inst, access, .. } => (access, 0, inst),
    }
}

/// Launch facts fixed at `launch_start`.
struct LaunchState {
    kernel: Arc<str>,
    lo: u64,
    hi: u64,
    geometry: Geometry,
    args: Vec<ArgBinding>,
    local_allocs: Vec<LocalAlloc>,
    shadows: Vec<(AllocId, Arc<Shadow>)>,
    /// Item ranges of earlier launches that may overlap this one. Records naming any other
    /// item below `lo` come from launches ordered before this one and count as reset.
    overlapping: Vec<(u32, u32)>,
}

impl LaunchState {
    /// Whether record item `item` (not of this launch) is from a launch ordered before it.
    fn is_stale(&self, item: u32) -> bool {
        let item = item as u64;
        // Ids above ours belong to launches that started after this one: they overlap it.
        item < self.lo
            && !self
                .overlapping
                .iter()
                .any(|&(lo, hi)| (lo as u64..hi as u64).contains(&item))
    }
}

/// Checks one launch; pass it to `Device::run` as the observer. Findings go into the session
/// at `launch_end` (or when dropped, if the executor stopped early).
pub struct LaunchChecker<'a> {
    session: &'a Session,
    program: &'a dyn Locations,
    order: &'a dyn LaunchOrder,
    id: u64,
    schedule: String,
    checks: Checks,
    st: OnceLock<LaunchState>,
    sites: Mutex<HashMap<InstId, u16>>,
    raw: Mutex<RawSet>,
    finished: AtomicBool,
}

/// Per-work-group state (lives on the worker thread running the group).
pub struct GroupState {
    lo: u64,
    /// End of the group's ids: its work-items, then its async-copy actor (`hi - 1`).
    hi: u64,
    launch_lo: u64,
    launch_hi: u64,
    epoch_global: u8,
    epoch_local: u8,
    local: Vec<Vec<u64>>,
    arrivals: Vec<(WorkItem, InstId, Fences)>,
    last_finished: Option<WorkItem>,
    sites: SiteMap,
    shadows: Vec<(AllocId, Arc<Shadow>)>,
    raw: RawSet,
    /// Async copies in flight, oldest first.
    copies: Vec<PendingCopy>,
    /// Events named by `wait_group_events` arrivals since the last barrier release.
    waited: Vec<u64>,
    /// Events of copies already completed (waiting on one again is fine).
    completed: Vec<u64>,
}

/// An `async_work_group_copy` the group has not waited for yet.
struct PendingCopy {
    event: u64,
    inst: InstId,
    item: WorkItem,
    /// Group epochs when it started.
    local_since: u8,
    global_since: u8,
    /// Bytes it touched: (space, allocation, start, end).
    ranges: Vec<(AddressSpace, AllocId, u64, u64)>,
}

/// Report sites of a group by instruction: looked up on every access, so hashed with one
/// multiply (instruction ids are small integers chosen by us, not by an adversary).
type SiteMap = HashMap<InstId, u16, std::hash::BuildHasherDefault<InstIdHasher>>;

#[derive(Default)]
struct InstIdHasher(u64);

impl std::hash::Hasher for InstIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0 ^ x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The record kind of an access (an atomic read is named and paired as an atomic).
fn op_of(k: AccessKind) -> Op {
    match k {
        AccessKind::Read => Op::Read,
        AccessKind::Write => Op::Write,
        AccessKind::Atomic | AccessKind::AtomicRead => Op::Atomic,
    }
}

fn race_kind(second: Op, first: Op) -> RaceKind {
    match (second, first) {
        (Op::Atomic, _) | (_, Op::Atomic) => RaceKind::AtomicPlain,
        (Op::Write, Op::Write) => RaceKind::WriteWrite,
        _ => RaceKind::ReadWrite,
    }
}

/// Item ids are u32 in records; ids past the 30-bit space wrap (only launches of more than
/// a billion work-items, where two far-apart items may then look alike).
fn clamp_item(v: u64) -> u32 {
    if v <= mar::MAX_ITEM {
        v as u32
    } else {
        (1 + (v - 1) % mar::MAX_ITEM) as u32
    }
}

impl GroupState {
    fn actor(&self) -> u32 {
        clamp_item(self.hi - 1)
    }

    /// Who makes access `a` (a work-item, or the group's async copy), and since when the
    /// oldest copy in flight of `space` started.
    fn me(&self, a: &Access<'_>) -> Me {
        // Range ends may be MAX_ITEM + 1, which still fits a u32.
        let end = |v: u64| v.min(u32::MAX as u64) as u32;
        let item = if a.by_group {
            self.actor()
        } else {
            clamp_item(self.lo + a.item.local_linear as u64)
        };
        Me {
            item,
            group_lo: end(self.lo),
            group_hi: end(self.hi),
            launch_lo: end(self.launch_lo),
            launch_hi: end(self.launch_hi),
            actor: self.actor(),
            actor_since: self.copies.first().map(|c| match a.space {
                AddressSpace::Local => c.local_since,
                _ => c.global_since,
            }),
        }
    }
}

impl LaunchChecker<'_> {
    fn state(&self) -> Option<&LaunchState> {
        self.st.get()
    }

    /// A global record as this launch sees it: one last touched by a launch ordered before
    /// this one counts as reset (only "initialised" is left).
    fn current(&self, rec: u64, me: &Me) -> u64 {
        let item = mar::item_of(rec);
        let foreign = item != 0 && !(me.launch_lo..me.launch_hi).contains(&item);
        match self.state() {
            Some(ls) if foreign && ls.is_stale(item) => mar::reset(rec),
            _ => rec,
        }
    }

    fn site(&self, g: &mut GroupState, inst: InstId) -> u16 {
        if let Some(&s) = g.sites.get(&inst) {
            return s;
        }
        let s = *self.sites.lock().entry(inst).or_insert_with(|| {
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
        s
    }

    fn here(
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
        let mut raws = std::mem::take(&mut *self.raw.lock()).list;
        raws.sort_by(|a, b| a.key.cmp(&b.key));
        let Some(ls) = self.state() else { return 0 };
        let mut st = self.session.state.lock();
        let mut findings: Vec<Finding> = raws.iter().map(|r| self.resolve(&st, ls, r)).collect();
        // Identified races first, so unidentified ones of the same pair fold into them.
        findings.sort_by_key(Finding::first_unidentified);
        let mut new = 0;
        for f in findings {
            Session::merge_locked(&mut st, f, &mut new);
        }
        new
    }

    fn resolve(&self, st: &State, ls: &LaunchState, r: &Raw) -> Finding {
        let side = |s: &(RawSide, Option<WorkItem>)| -> Side {
            match s {
                (RawSide::Recorded { item, site, op }, _) => {
                    let item = *item as u64;
                    let w = st.window.iter().find(|w| (w.lo..w.hi).contains(&item));
                    let actor = w.map(|w| w.geometry.actor(item - w.lo));
                    let site = st.sites.get(*site as usize).and_then(Option::as_ref);
                    let (global_id, local_id, group_id, group_copy) = match actor {
                        Some(Actor::Item(g, l, w)) => (Some(g), Some(l), Some(w), false),
                        Some(Actor::GroupCopy(w)) => (None, None, Some(w), true),
                        None => (None, None, None, false),
                    };
                    Side {
                        access: op.name().into(),
                        global_id,
                        local_id,
                        group_id,
                        group_copy,
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
                (RawSide::Unknown { op }, _) => Side {
                    access: op.name().into(),
                    global_id: None,
                    local_id: None,
                    group_id: None,
                    group_copy: false,
                    location: None,
                    launch: self.id,
                    kernel: ls.kernel.to_string(),
                },
                (
                    RawSide::Here {
                        inst,
                        access,
                        group,
                    },
                    item,
                ) => Side {
                    access: (*access).into(),
                    global_id: item.filter(|_| !group).map(|i| i.global),
                    local_id: item.filter(|_| !group).map(|i| i.local),
                    group_id: item.map(|i| i.group),
                    group_copy: *group,
                    location: inst.and_then(|i| self.program.location(i)),
                    launch: self.id,
                    kernel: ls.kernel.to_string(),
                },
            }
        };
        let (buffer, index) = match (r.key.alloc, r.offset) {
            (Some(a), Some(off)) => name_and_index(ls, a, off),
            (Some(a), None) => (Some(name_and_index(ls, a, 0).0.unwrap_or_default()), None),
            _ => (None, None),
        };
        Finding {
            kind: r.key.kind,
            race: r.key.race,
            scope: r.key.scope,
            memory: r.key.memory,
            launch: self.id,
            kernel: ls.kernel.to_string(),
            buffer,
            offset: r.offset,
            index,
            first: r.first.as_ref().map(side),
            second: r.second.as_ref().map(side),
            count: r.count,
            message: r.message.clone(),
        }
    }

    /// The shadow of `alloc`, kept by the group: borrowed, since a reference count touched on
    /// every access would be a cache line the worker threads fight over.
    fn shadow<'g>(&self, g: &'g mut GroupState, alloc: AllocId, end: u64) -> &'g Shadow {
        let i = match g.shadows.iter().position(|(a, _)| *a == alloc) {
            Some(i) => i,
            None => {
                g.shadows.push((alloc, self.session.shadow_for(alloc, end)));
                g.shadows.len() - 1
            }
        };
        &g.shadows[i].1
    }
}

impl LaunchChecker<'_> {
    /// The group passed `wait_group_events` for the copies `g.waited` names: they are
    /// complete, so the group's later accesses are ordered after them.
    fn complete_copies(&self, g: &mut GroupState) {
        let waited = std::mem::take(&mut g.waited);
        let (done, still): (Vec<PendingCopy>, Vec<PendingCopy>) = std::mem::take(&mut g.copies)
            .into_iter()
            .partition(|c| waited.contains(&c.event));
        g.copies = still;
        let actor = g.actor();
        for c in done {
            for &(space, alloc, start, end) in &c.ranges {
                match space {
                    AddressSpace::Local => {
                        let now = g.epoch_local;
                        let slot = alloc.local_slot().map(|s| s as usize);
                        if let Some(mem) = slot.and_then(|s| g.local.get_mut(s)) {
                            let (s, e) = (start as usize, (end as usize).min(mem.len()));
                            for rec in mem.get_mut(s..e).into_iter().flatten() {
                                *rec = mar::retire(*rec, actor, now);
                            }
                        }
                    }
                    _ => {
                        let now = g.epoch_global;
                        let shadow = self.shadow(g, alloc, end);
                        for o in start..end {
                            if let Some(cell) = shadow.cell(o) {
                                let old = cell.load(Ordering::Relaxed);
                                let new = mar::retire(old, actor, now);
                                if new != old {
                                    // Another group's newer access wins: it names its item.
                                    let _ = cell.compare_exchange(
                                        old,
                                        new,
                                        Ordering::AcqRel,
                                        Ordering::Relaxed,
                                    );
                                }
                            }
                        }
                    }
                }
            }
            if !g.completed.contains(&c.event) {
                g.completed.push(c.event);
            }
        }
    }

    /// A misused collective (async copy or wait) at `inst`, reached by `item`.
    fn misuse(
        &self,
        g: &mut GroupState,
        kind: FindingKind,
        item: &WorkItem,
        inst: InstId,
        message: &str,
    ) {
        g.raw.add(Raw {
            key: RawKey {
                kind,
                race: None,
                scope: None,
                memory: None,
                alloc: None,
                first: None,
                second: Some(("async-copy", Some(inst))),
            },
            offset: None,
            first: None,
            second: Some(Self::here(item, Some(inst), "async-copy")),
            count: 1,
            message: message.into(),
        });
    }
}

/// Argument (or `__local` variable) name and element index of byte `off` of `alloc`.
fn name_and_index(ls: &LaunchState, alloc: AllocId, off: i64) -> (Option<String>, Option<i64>) {
    if let Some(slot) = alloc.local_slot() {
        return match ls.local_allocs.get(slot as usize) {
            Some(l) => (
                Some(l.name.clone()),
                Some(off.div_euclid(l.elem_size.max(1) as i64)),
            ),
            None => (Some(format!("local#{slot}")), None),
        };
    }
    let inside = |a: &&ArgBinding| {
        (a.view_offset as i64..(a.view_offset + a.view_size) as i64).contains(&off)
    };
    let bound: Vec<&ArgBinding> = ls.args.iter().filter(|a| a.alloc == Some(alloc)).collect();
    match bound
        .iter()
        .copied()
        .find(inside)
        .or(bound.first().copied())
    {
        Some(a) => (
            Some(a.name.clone()),
            Some((off - a.view_offset as i64).div_euclid(a.elem_size.max(1) as i64)),
        ),
        None => (Some(format!("buffer#{}", alloc.0)), None),
    }
}

impl Drop for LaunchChecker<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Observer for LaunchChecker<'_> {
    type Group = GroupState;

    fn launch_start(&self, info: &LaunchInfo<'_>) {
        let geometry = Geometry::from_info(info);
        let total = geometry.total_items();
        let kernel: Arc<str> = Arc::from(info.kernel);
        let (lo, hi, overlapping) = {
            let mut st = self.session.state.lock();
            let order = self.order;
            st.window.retain(|w| !order.settled(w.order));
            if st.window.is_empty() {
                // Everything recorded happens before every launch to come: start afresh.
                Session::reset_locked(&mut st, &self.session.shadows);
            } else if st.next_item.saturating_add(total) > mar::MAX_ITEM + 1 {
                // Item ids of this window are used up; ids wrap (two far-apart work-items
                // may then look alike).
                tracing::warn!("shadowcl: race record item ids wrap (no sync for too long)");
            }
            let end = |v: u64| v.min(u32::MAX as u64) as u32;
            let mut overlapping = Vec::new();
            let mut before = Vec::new();
            for w in &st.window {
                if order.follows(w.order) {
                    before.push(w.id);
                } else {
                    overlapping.push((end(w.lo), end(w.hi)));
                }
            }
            if st.window.len() >= WINDOW_CAP {
                // Forget the oldest launches ordered before this one (their records now
                // count as reset for every later launch too).
                before.truncate(st.window.len() + 1 - WINDOW_CAP);
                st.window.retain(|w| !before.contains(&w.id));
            }
            let lo = st.next_item;
            let hi = lo.saturating_add(total);
            st.next_item = hi;
            st.window.push(WindowLaunch {
                id: self.id,
                order: order.key(),
                kernel: kernel.clone(),
                lo,
                hi,
                geometry: geometry.clone(),
            });
            st.launches.push(LaunchSummary {
                id: self.id,
                kernel: info.kernel.to_string(),
                global_size: info.global_size,
                local_size: info.local_size,
                global_offset: info.global_offset,
                schedule: self.schedule.clone(),
            });
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
        });
    }

    fn group_start(&self, g: &GroupInfo) -> GroupState {
        let (lo, launch_lo, launch_hi, group_items, local, shadows) = match self.state() {
            Some(ls) => (
                ls.lo + g.group_linear * ls.geometry.stride(),
                ls.lo,
                ls.hi,
                ls.geometry.group_items,
                // Local records are needed only by the access checks.
                if self.checks.races || self.checks.benign || self.checks.uninit {
                    ls.local_allocs
                        .iter()
                        .map(|l| vec![0; l.size as usize])
                        .collect()
                } else {
                    Vec::new()
                },
                ls.shadows.clone(),
            ),
            None => (
                1,
                1,
                2 + g.items as u64,
                g.items as u64,
                Vec::new(),
                Vec::new(),
            ),
        };
        GroupState {
            lo,
            // The actor's id follows the full group's items (partial groups leave a gap).
            hi: lo + group_items.max(1) + 1,
            launch_lo,
            launch_hi,
            epoch_global: 0,
            epoch_local: 0,
            local,
            arrivals: Vec::new(),
            last_finished: None,
            sites: SiteMap::default(),
            shadows,
            raw: RawSet::default(),
            copies: Vec::new(),
            waited: Vec::new(),
            completed: Vec::new(),
        }
    }

    fn access(&self, g: &mut GroupState, a: &Access<'_>) {
        let (want_races, want_uninit) =
            (self.checks.races || self.checks.benign, self.checks.uninit);
        if !(want_races || want_uninit) {
            return;
        }
        let op = op_of(a.kind);
        // Whether the bytes were already there is decided per byte by the record (undefined
        // bytes have no value to store again).
        let same_value = op == Op::Write && !a.value.is_empty() && a.value == a.previous;
        let me = g.me(a);
        let step = |rec: u64, site: u16, epoch: u8| {
            if a.kind == AccessKind::AtomicRead {
                mar::step_atomic_read(rec, &me, site, epoch)
            } else {
                mar::step(rec, &me, site, epoch, op, same_value)
            }
        };
        if a.by_group {
            if let Some(c) = g.copies.last_mut() {
                let r = (a.space, a.alloc, a.offset, a.offset + a.size as u64);
                match c.ranges.last_mut() {
                    Some(l) if (l.0, l.1, l.3) == (r.0, r.1, r.2) => l.3 = r.3,
                    _ => c.ranges.push(r),
                }
            }
        }
        let site = self.site(g, a.inst);
        let mut conflict: Option<(u64, mar::Conflict)> = None;
        let mut uninit: Option<u64> = None;
        let mut note = |i: u64, s: mar::Step| {
            if conflict.is_none() {
                conflict = s.conflict.map(|c| (i, c));
            }
            if s.uninit && uninit.is_none() {
                uninit = Some(i);
            }
        };
        match a.space {
            AddressSpace::Local => {
                let epoch = g.epoch_local;
                let Some(slot) = a.alloc.local_slot() else {
                    return;
                };
                let Some(mem) = g.local.get_mut(slot as usize) else {
                    return;
                };
                for i in 0..a.size as u64 {
                    let Some(rec) = mem.get_mut((a.offset + i) as usize) else {
                        break;
                    };
                    let s = step(*rec, site, epoch);
                    *rec = s.new;
                    note(a.offset + i, s);
                }
            }
            AddressSpace::Global => {
                let epoch = g.epoch_global;
                let shadow = self.shadow(g, a.alloc, a.offset + a.size as u64);
                for i in 0..a.size as u64 {
                    let Some(cell) = shadow.cell(a.offset + i) else {
                        break;
                    };
                    let mut old = cell.load(Ordering::Relaxed);
                    // Work-groups run on several threads: retry until our update lands.
                    let s = loop {
                        let s = step(self.current(old, &me), site, epoch);
                        if s.new == old {
                            break s;
                        }
                        match cell.compare_exchange_weak(
                            old,
                            s.new,
                            Ordering::AcqRel,
                            Ordering::Relaxed,
                        ) {
                            Ok(_) => break s,
                            Err(now) => old = now,
                        }
                    };
                    note(a.offset + i, s);
                }
            }
            // Constant memory is read-only (no races) and private memory is not reported.
            AddressSpace::Constant | AddressSpace::Private => return,
        }
        let mut second = Self::here(a.item, Some(a.inst), op.name());
        if let RawSide::Here { group, .. } = &mut second.0 {
            *group = a.by_group;
        }
        if let Some((off, c)) = conflict {
            let (kind, wanted) = if c.benign {
                (FindingKind::BenignRace, self.checks.benign)
            } else {
                (FindingKind::DataRace, self.checks.races)
            };
            if wanted {
                let first = match c.first {
                    Party {
                        op,
                        who: Some((item, site)),
                    } => RawSide::Recorded { item, site, op },
                    Party { op, who: None } => RawSide::Unknown { op },
                };
                g.raw.add(Raw {
                    key: RawKey {
                        kind,
                        race: Some(race_kind(op, c.first.op)),
                        scope: Some(c.scope),
                        memory: Some(a.space),
                        alloc: Some(a.alloc),
                        first: Some(side_key(&first)),
                        second: Some((op.name(), Some(a.inst))),
                    },
                    offset: Some(off as i64),
                    first: Some((first, None)),
                    second: Some(second),
                    count: 1,
                    message: String::new(),
                });
            }
        }
        if let (Some(off), true) = (uninit, want_uninit) {
            g.raw.add(Raw {
                key: RawKey {
                    kind: FindingKind::UninitializedRead,
                    race: None,
                    scope: None,
                    memory: Some(a.space),
                    alloc: Some(a.alloc),
                    first: None,
                    second: Some((op.name(), Some(a.inst))),
                },
                offset: Some(off as i64),
                first: None,
                second: Some(second),
                count: 1,
                message: "read of memory never written since it was created".into(),
            });
        }
    }

    fn barrier(&self, g: &mut GroupState, arrival: &BarrierArrival<'_>) {
        g.arrivals
            .push((*arrival.item, arrival.inst, arrival.fences));
    }

    fn group_copy(&self, g: &mut GroupState, c: &GroupCopy<'_>) {
        if !c.same_args && self.checks.divergence {
            self.misuse(
                g,
                FindingKind::BarrierDivergence,
                c.item,
                c.inst,
                "work-items of one work-group passed different arguments to async_work_group_copy",
            );
        }
        if c.first {
            g.copies.push(PendingCopy {
                event: c.event,
                inst: c.inst,
                item: *c.item,
                local_since: g.epoch_local,
                global_since: g.epoch_global,
                ranges: Vec::new(),
            });
        }
    }

    fn group_wait(&self, g: &mut GroupState, w: &GroupWait<'_>) {
        for &e in w.events {
            if g.copies.iter().any(|c| c.event == e) {
                if !g.waited.contains(&e) {
                    g.waited.push(e);
                }
            } else if !g.completed.contains(&e) && self.checks.divergence {
                self.misuse(
                    g,
                    FindingKind::AsyncCopyMisuse,
                    w.item,
                    w.inst,
                    "wait_group_events on an event that no async copy of this work-group returned",
                );
            }
        }
    }

    fn barrier_release(&self, g: &mut GroupState, why: Release) {
        if !g.waited.is_empty() {
            self.complete_copies(g);
        }
        let arrivals = std::mem::take(&mut g.arrivals);
        // A barrier orders only the memory its fences name, and only memory every arriving
        // work-item fenced (flags may differ between items when they are not constants).
        let (local, global) = if arrivals.is_empty() {
            (false, false)
        } else {
            arrivals.iter().fold((true, true), |(l, gl), (_, _, f)| {
                (l && f.local, gl && f.global)
            })
        };
        g.epoch_local = g.epoch_local.wrapping_add(local as u8);
        g.epoch_global = g.epoch_global.wrapping_add(global as u8);
        // Epochs are 7 bits: every AGE_EVERY barriers, pull the group's older records to "just
        // before now" so none looks current again after a wrap. For global memory that sweeps
        // the launch's buffers, once per AGE_EVERY global barriers of a group (only long
        // barrier loops).
        if local && g.epoch_local.is_multiple_of(mar::AGE_EVERY) {
            let now = g.epoch_local;
            for rec in g.local.iter_mut().flatten() {
                *rec = mar::age(*rec, now);
            }
        }
        if global && g.epoch_global.is_multiple_of(mar::AGE_EVERY) {
            let now = g.epoch_global;
            let end = |v: u64| v.min(u32::MAX as u64) as u32;
            let (lo, hi) = (end(g.lo), end(g.hi));
            for (_, shadow) in &g.shadows {
                shadow.update_allocated(|rec| mar::age_group(rec, now, lo, hi));
            }
        }
        if !self.checks.divergence {
            return;
        }
        let Some(&(first_item, first_inst, first_fences)) = arrivals.first() else {
            return;
        };
        let (second, message) = match why {
            Release::AllArrived => match arrivals.iter().find(|(_, i, _)| *i != first_inst) {
                Some((item, inst, _)) => (
                    Some(Self::here(item, Some(*inst), "barrier")),
                    "work-items of one work-group wait at different barriers",
                ),
                None => match arrivals.iter().find(|(_, _, f)| *f != first_fences) {
                    // Run-time flags (OpenCL 2.0: every work-item passes the same ones).
                    Some((item, inst, _)) => (
                        Some(Self::here(item, Some(*inst), "barrier")),
                        "work-items of one work-group pass different fence flags to one barrier",
                    ),
                    None => return,
                },
            },
            Release::SomeFinished => (
                g.last_finished
                    .as_ref()
                    .map(|item| Self::here(item, None, "exit")),
                "some work-items finished while others wait at a barrier",
            ),
        };
        g.raw.add(Raw {
            key: RawKey {
                kind: FindingKind::BarrierDivergence,
                race: None,
                scope: None,
                memory: None,
                alloc: None,
                first: Some(("barrier", 0, Some(first_inst))),
                second: second.as_ref().map(|(s, _)| {
                    let (a, _, i) = side_key(s);
                    (a, i)
                }),
            },
            offset: None,
            first: Some(Self::here(&first_item, Some(first_inst), "barrier")),
            second,
            count: 1,
            message: message.into(),
        });
    }

    fn item_end(&self, g: &mut GroupState, item: &WorkItem) {
        g.last_finished = Some(*item);
    }

    fn fault(&self, g: &mut GroupState, f: &Fault<'_>) {
        if !self.checks.bounds {
            return;
        }
        let (memory, alloc, offset, kind, item, inst, message) = match *f {
            Fault::OutOfBounds {
                space,
                alloc,
                offset,
                size,
                alloc_size,
                kind,
                item,
                inst,
            } => (
                Some(space),
                Some(alloc),
                Some(offset),
                kind,
                item,
                inst,
                format!("{size}-byte access at offset {offset} of a {alloc_size}-byte allocation"),
            ),
            Fault::InvalidPointer {
                pointer,
                size,
                kind,
                item,
                inst,
            } => (
                None,
                None,
                None,
                kind,
                item,
                inst,
                format!("{size}-byte access through invalid pointer {pointer:#x}"),
            ),
        };
        let access = op_of(kind).name();
        g.raw.add(Raw {
            key: RawKey {
                kind: FindingKind::OutOfBounds,
                race: None,
                scope: None,
                memory,
                alloc,
                first: None,
                second: Some((access, Some(inst))),
            },
            offset,
            first: None,
            second: Some(Self::here(item, Some(inst), access)),
            count: 1,
            message,
        });
    }

    fn group_end(&self, mut g: GroupState) {
        if self.checks.divergence {
            for c in std::mem::take(&mut g.copies) {
                self.misuse(
                    &mut g,
                    FindingKind::AsyncCopyMisuse,
                    &c.item,
                    c.inst,
                    "async_work_group_copy never waited for with wait_group_events",
                );
            }
        }
        if g.raw.list.is_empty() {
            return;
        }
        let mut all = self.raw.lock();
        for r in g.raw.list {
            all.add(r);
        }
    }

    fn launch_end(&self) {
        self.finish();
    }
}
