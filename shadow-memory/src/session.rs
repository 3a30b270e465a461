//! The process-wide [`Session`]: buffer shadows, the window of launches whose records may
//! still race, the findings, and the text/JSON/SARIF outputs.
//!
//! Performance: a launch start classifies the window's launches (settled, before, overlapping).
//! It asks the `LaunchOrder` from the newest entry back, and stops at an entry that followed
//! every older one (`WindowLaunch::follows_all`). `follows` and `settled` are transitive (the
//! platform's clocks join the done clocks of what they cover), so one question per launch
//! serves a queue's tight loop of launches.

use crate::group::GroupState;
use crate::launch::{Geometry, LaunchChecker};
use crate::mar::Op;
use crate::raw::RawSet;
use crate::report::{self, Finding, FindingKind, LaunchSummary, Report, RuleHits};
use crate::shadow::{Shadow, ShadowBudget};
use crate::sources::SourceMap;
use crate::{default_shadow_limit, Checks, Config};
use parking_lot::{Mutex, RwLock};
use shadowcl_interpreter::{
    AddressSpace, Alignments, AllocId, ArgBinding, ArgValue, Atomics, InstId, Launch, Program,
    Schedule, SourceLoc,
};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// Maps instructions to source lines: implemented by `Program`; tests use a closure.
pub trait Locations: Sync {
    fn location(&self, inst: InstId) -> Option<SourceLoc>;
    /// The alignment each instruction's access requires (none unless the program says).
    fn alignments(&self) -> Alignments<'_> {
        Alignments::NONE
    }
    /// What atomics and fences the program has, whose synchronisation the race check
    /// follows (`checks/sync.rs`).
    fn atomics(&self) -> Atomics {
        Atomics::None
    }
    /// Whether the instruction stores back what its work-item read there
    /// ([`Program::stores_back`]).
    fn stores_back(&self, _inst: InstId) -> bool {
        false
    }
}

impl Locations for Program {
    fn location(&self, inst: InstId) -> Option<SourceLoc> {
        Program::location(self, inst)
    }
    fn alignments(&self) -> Alignments<'_> {
        Program::alignments(self)
    }
    fn atomics(&self) -> Atomics {
        Program::atomics(self)
    }
    fn stores_back(&self, inst: InstId) -> bool {
        Program::stores_back(self, inst)
    }
}

/// What kernels may do with a memory object's bytes: its `CL_MEM_READ_ONLY` /
/// `CL_MEM_WRITE_ONLY` creation flag (a kernel write to the first, or read of the second,
/// is undefined behaviour, OpenCL 3.0 5.2.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KernelAccess {
    #[default]
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

impl KernelAccess {
    /// The flag's name as the application wrote it.
    pub fn flag(self) -> &'static str {
        match self {
            KernelAccess::ReadWrite => "CL_MEM_READ_WRITE",
            KernelAccess::ReadOnly => "CL_MEM_READ_ONLY",
            KernelAccess::WriteOnly => "CL_MEM_WRITE_ONLY",
        }
    }
}

/// A memory object's bytes inside its storage allocation (a buffer is all of it, a
/// sub-buffer a region) and what kernels may do with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct View {
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) access: KernelAccess,
}

impl<F: Fn(InstId) -> Option<SourceLoc> + Sync> Locations for F {
    fn location(&self, inst: InstId) -> Option<SourceLoc> {
        self(inst)
    }
}

/// Distinct new findings one launch may add; the rest are counted in `Report::dropped`.
pub const LAUNCH_CAP: usize = shadowcl_limits::LIMITS.findings_per_launch;

/// A launch of the current synchronisation window (its items may still be in records).
pub(crate) struct WindowLaunch {
    pub(crate) id: u64,
    /// A host command (`host.rs`): one "work-item" whose accesses are the bytes it moved;
    /// `id` numbers host commands apart from kernel launches.
    pub(crate) host: bool,
    /// Its [`LaunchOrder::key`].
    pub(crate) order: u64,
    pub(crate) kernel: Arc<str>,
    /// Its global-memory arguments: a host command racing with it calls a buffer by them.
    pub(crate) args: Vec<ArgBinding>,
    pub(crate) lo: u64,
    pub(crate) hi: u64,
    pub(crate) geometry: Geometry,
    /// What it accessed, filled when it ends: names the likely site of an access that a
    /// record kept only the kind of.
    pub(crate) touched: Vec<Touched>,
    /// Every launch in the window when it started was ordered before it (see
    /// [`LaunchOrder`]: a launch that follows this one follows those too).
    pub(crate) follows_all: bool,
}

/// An allocation a launch accessed, how, where, and by which work-groups.
#[derive(Clone, Debug)]
pub(crate) struct Touched {
    pub(crate) alloc: AllocId,
    /// Atomic reads count as atomics (one instruction may do either).
    pub(crate) op: Op,
    pub(crate) location: Option<SourceLoc>,
    /// The first group seen making it, and whether others did too.
    pub(crate) group: [u32; 3],
    pub(crate) many_groups: bool,
}

/// How a launch is ordered against earlier ones. The platform knows queues and events; the
/// checkers only ask these questions about launches still in the window.
pub trait LaunchOrder: Sync {
    /// This launch's identity in the platform's ordering (stored with its window entry).
    fn key(&self) -> u64;
    /// The launch `key` completed before this one started (happens-before): its accesses can
    /// not race with this launch's. Transitive: when launch `key` followed launch `x` at its
    /// start, a launch that follows `key` follows `x`.
    fn follows(&self, key: u64) -> bool;
    /// The launch `key` happens before this one and before every launch that may still start,
    /// so its records may be forgotten. Likewise transitive: what a settled launch followed
    /// is settled.
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
pub(crate) const WINDOW_CAP: usize = shadowcl_limits::LIMITS.launch_window;

/// An interned instruction (MARs hold 13-bit site numbers, not instruction ids).
pub(crate) struct Site {
    pub(crate) launch: u64,
    pub(crate) kernel: Arc<str>,
    pub(crate) location: Option<SourceLoc>,
}

pub(crate) struct State {
    /// Next free item id of the window (0 means "no item" in a record).
    pub(crate) next_item: u64,
    /// Oldest first (a launch start forgets from the front).
    pub(crate) window: VecDeque<WindowLaunch>,
    /// Index 0 is the "unknown site" placeholder.
    pub(crate) sites: Vec<Option<Site>>,
    pub(crate) launches: Vec<LaunchSummary>,
    pub(crate) findings: Vec<Finding>,
    pub(crate) index: HashMap<String, usize>,
    /// Races by `Finding::loose_key`, for folding unidentified first accesses.
    pub(crate) loose: HashMap<String, usize>,
    pub(crate) dropped: u64,
    pub(crate) printed: usize,
    /// The `Finding::dedup_key`s of suppressed findings.
    pub(crate) suppressed: HashSet<String>,
    /// The `Finding::loose_key`s of suppressed identified races: the same pair seen with an
    /// unidentified first access folds into them, suppressed too.
    pub(crate) suppressed_loose: HashSet<String>,
    /// Distinct findings each suppression rule matched (first matching rule only).
    pub(crate) rule_hits: Vec<u64>,
    /// Launches run unchecked because their kernel is not in `SHADOWCL_KERNELS`.
    pub(crate) unchecked: u64,
}

/// One per process: the global-memory shadows (kept across launches, so races between launches
/// that may run concurrently are found) and the findings.
pub struct Session {
    pub(crate) config: Config,
    pub(crate) shadows: RwLock<HashMap<AllocId, Arc<Shadow>>>,
    pub(crate) budget: Arc<ShadowBudget>,
    /// Maps the cache's copies of program sources back to the user's files.
    sources: SourceMap,
    /// Memory objects over each allocation that kernels may not both read and write.
    pub(crate) views: RwLock<HashMap<AllocId, Vec<View>>>,
    pub(crate) state: Mutex<State>,
    /// When the report files were last written, and how many launches and findings they had.
    written: Mutex<Option<(std::time::Instant, usize, usize)>>,
    /// Copies of launch inputs kept for the next launch's pair pass (`pairs`).
    pub(crate) spares: Mutex<Vec<Arc<shadowcl_interpreter::Buffer>>>,
    /// Kernel names and schedule descriptions, which every launch repeats (see
    /// [`Session::name`]).
    names: Mutex<Names>,
    /// The states the workers' last groups left at the end of their launches, for the
    /// first groups of the next launch (`LaunchChecker::worker_done`).
    pub(crate) spare_groups: Mutex<Vec<Box<GroupState>>>,
    /// Set when the process is being ended (a signal): the launches running hand over
    /// what they found so far at their next group's end ([`Session::interrupted`]).
    pub(crate) snapshot_wanted: AtomicBool,
    /// Launch checkers alive, and the snapshots they handed over.
    pub(crate) running: Mutex<Running>,
    /// Wakes [`Session::interrupted`] when `running` changes.
    running_changed: parking_lot::Condvar,
    /// Why the report is incomplete, once it is.
    incomplete: Mutex<Option<String>>,
}

/// The launches running, for an interrupted report.
#[derive(Default)]
pub(crate) struct Running {
    /// Launch checkers alive.
    pub(crate) launches: usize,
    /// Of those, how many have merged what they found so far since the snapshot was asked.
    pub(crate) handed_over: usize,
}

/// Shared copies of the strings each launch's checker and report entry hold: a loop of
/// small launches neither formats its schedule nor copies its kernel's name per launch.
#[derive(Default)]
struct Names {
    strings: HashSet<Arc<str>>,
    schedules: Vec<(Schedule, Arc<str>)>,
}

/// Distinct strings [`Names`] keeps (beyond them, each launch has its own copy).
const NAMES_CAP: usize = 4096;

impl Session {
    pub fn new(config: Config) -> Session {
        let budget = ShadowBudget::new(config.shadow_limit.unwrap_or_else(default_shadow_limit));
        let roots = if config.source_dirs.is_empty() {
            std::env::current_dir().into_iter().collect()
        } else {
            config.source_dirs.clone()
        };
        let rules = config.suppressions.rules.len();
        Session {
            config,
            shadows: RwLock::new(HashMap::new()),
            budget,
            sources: SourceMap::new(roots),
            views: RwLock::new(HashMap::new()),
            written: Mutex::new(None),
            spares: Mutex::new(Vec::new()),
            names: Mutex::default(),
            spare_groups: Mutex::default(),
            snapshot_wanted: AtomicBool::new(false),
            running: Mutex::default(),
            running_changed: parking_lot::Condvar::new(),
            incomplete: Mutex::new(None),
            state: Mutex::new(State {
                next_item: 1,
                window: VecDeque::new(),
                sites: vec![None],
                launches: Vec::new(),
                findings: Vec::new(),
                index: HashMap::new(),
                loose: HashMap::new(),
                dropped: 0,
                printed: 0,
                suppressed: HashSet::new(),
                suppressed_loose: HashSet::new(),
                rule_hits: vec![0; rules],
                unchecked: 0,
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
        self.shadows.write().insert(
            id,
            Arc::new(Shadow::new(len, initialised, self.budget.clone())),
        );
    }

    /// The host wrote bytes of a buffer (write, fill, copy, unmap of a write mapping).
    pub fn buffer_written_by_host(&self, id: AllocId, offset: u64, len: u64) {
        if let Some(s) = self.shadows.read().get(&id) {
            s.initialise(offset, len);
        }
    }

    /// A memory object (buffer, sub-buffer, image) over bytes `offset..offset + size` of
    /// allocation `id` was created with kernel access `access`. A kernel argument bound to
    /// exactly those bytes then may not be written (read-only) or read (write-only): such
    /// an access is reported unless another argument of the launch permits it.
    pub fn memory_object_created(&self, id: AllocId, offset: u64, size: u64, access: KernelAccess) {
        let mut views = self.views.write();
        let list = views.entry(id).or_default();
        // The newest object over the same bytes decides (an older one was released).
        list.retain(|v| (v.offset, v.size) != (offset, size));
        if access != KernelAccess::ReadWrite {
            list.push(View {
                offset,
                size,
                access,
            });
        }
        if list.is_empty() {
            views.remove(&id);
        }
    }

    /// The buffer is gone; its shadow is freed.
    pub fn buffer_released(&self, id: AllocId) {
        self.shadows.write().remove(&id);
        self.views.write().remove(&id);
    }

    /// The platform found a launch that uses a released buffer (bound to argument `arg`).
    pub fn use_after_release(&self, launch: u64, kernel: &str, arg: &str) {
        self.add_finding(Finding {
            synchronisation: None,
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

    /// The platform refused a host `access` (`read`, `write`) through entry point `call` to
    /// the memory object at `offset` of allocation `id`, because its creation `flag`
    /// forbids it. The finding names no kernel: the host made the access.
    pub fn host_access_refused(
        &self,
        id: AllocId,
        offset: u64,
        call: &str,
        access: &str,
        flag: &str,
    ) {
        let launch = self.state.lock().launches.len() as u64;
        self.add_finding(Finding {
            synchronisation: None,
            kind: FindingKind::InvalidAccess,
            race: None,
            scope: None,
            memory: Some(AddressSpace::Global),
            launch,
            kernel: String::new(),
            buffer: Some(format!("buffer#{}", id.0)),
            offset: Some(offset as i64),
            index: None,
            first: None,
            second: None,
            count: 1,
            message: format!(
                "{call}: host {access} of a memory object created with {flag} \
                 (refused with CL_INVALID_OPERATION)"
            ),
        });
    }

    /// Every earlier launch has completed and happens before every later one: forget all
    /// access records except "initialised". Call only while no launch runs.
    pub fn synchronize(&self) {
        let mut st = self.state.lock();
        Self::reset_locked(&mut st, &self.shadows);
    }

    pub(crate) fn reset_locked(st: &mut State, shadows: &RwLock<HashMap<AllocId, Arc<Shadow>>>) {
        for s in shadows.read().values() {
            s.reset();
        }
        st.next_item = 1;
        st.window.clear();
        st.sites.truncate(1);
    }

    /// `s`, shared with every earlier and later launch that names it.
    pub(crate) fn name(&self, s: &str) -> Arc<str> {
        let mut names = self.names.lock();
        if let Some(n) = names.strings.get(s) {
            return n.clone();
        }
        let n: Arc<str> = Arc::from(s);
        if names.strings.len() < NAMES_CAP {
            names.strings.insert(n.clone());
        }
        n
    }

    /// `schedule.describe()`, formatted once per schedule.
    pub(crate) fn schedule_name(&self, schedule: &Schedule) -> Arc<str> {
        let mut names = self.names.lock();
        if let Some((_, n)) = names.schedules.iter().find(|(s, _)| s == schedule) {
            return n.clone();
        }
        let n: Arc<str> = Arc::from(schedule.describe());
        if names.schedules.len() < NAMES_CAP {
            names.schedules.push((schedule.clone(), n.clone()));
        }
        n
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
        self.running.lock().launches += 1;
        LaunchChecker {
            session: self,
            program,
            alignments: program.alignments(),
            order,
            id: launch_id,
            schedule: self.name(schedule),
            checks: self.config.checks,
            st: OnceLock::new(),
            sites: Mutex::default(),
            touched: Mutex::default(),
            raw: Mutex::new(RawSet::default()),
            finished: AtomicBool::new(false),
            handed_over: AtomicBool::new(false),
            pass: crate::pairs::Pass::Only,
            host: false,
            checkers: Default::default(),
        }
    }

    /// `f` with its locations in the user's own files where their lines came from (see
    /// `sources.rs`).
    pub(crate) fn in_user_files(&self, mut f: Finding) -> Finding {
        for side in [&mut f.first, &mut f.second].into_iter().flatten() {
            if let Some(l) = &side.location {
                side.location = Some(self.sources.locate(l));
            }
            for c in &mut side.candidates {
                c.location = c.location.as_ref().map(|l| self.sources.locate(l));
            }
        }
        f
    }

    /// Adds a finding made elsewhere (e.g. schedule-dependent output from the amplifier).
    pub fn add_finding(&self, f: Finding) {
        let f = self.in_user_files(f);
        let mut st = self.state.lock();
        let mut new = 0;
        self.merge_locked(&mut st, f, &mut new);
    }

    /// Where every finding enters the session: suppressed ones are counted against their
    /// rule, the others deduplicated into `findings` (at most [`LAUNCH_CAP`] new ones per
    /// call site's batch, counted by `new`).
    pub(crate) fn merge_locked(&self, st: &mut State, f: Finding, new: &mut usize) {
        let key = f.dedup_key();
        let loose = f.loose_key();
        let unidentified = f.first_unidentified();
        if let Some(rule) = self.config.suppressions.find(&f) {
            if let (Some(k), false) = (&loose, unidentified) {
                st.suppressed_loose.insert(k.clone());
            }
            if st.suppressed.insert(key) {
                st.rule_hits[rule] += 1;
            }
            return;
        }
        let folded = loose
            .as_ref()
            .filter(|_| unidentified)
            .and_then(|k| st.loose.get(k).copied());
        let folded_away = || {
            folded.is_none()
                && unidentified
                && loose
                    .as_ref()
                    .is_some_and(|k| st.suppressed_loose.contains(k))
        };
        if !st.index.contains_key(&key) && folded_away() {
            return;
        }
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

    /// The process is being ended (`why`: "SIGTERM"): asks the launches running for what
    /// they found so far (merged at their next group's end), waits up to `wait` for them,
    /// and writes the report files marked incomplete. The launches go on running; the
    /// caller ends the process.
    pub fn interrupted(&self, why: &str, wait: std::time::Duration) -> std::io::Result<()> {
        let deadline = std::time::Instant::now() + wait;
        {
            let mut running = self.running.lock();
            running.handed_over = 0;
            self.snapshot_wanted
                .store(true, std::sync::atomic::Ordering::Release);
            while running.handed_over < running.launches {
                if self
                    .running_changed
                    .wait_until(&mut running, deadline)
                    .timed_out()
                {
                    break;
                }
            }
            self.snapshot_wanted
                .store(false, std::sync::atomic::Ordering::Release);
        }
        *self.incomplete.lock() = Some(format!(
            "the process was ended by {why}: this report holds what was found until then, \
             including what the launches still running had found"
        ));
        let written = self.write_files();
        // A process that handles the signal and goes on writes complete reports again.
        *self.incomplete.lock() = None;
        written
    }

    /// A launch checker merged what it found so far ([`Session::interrupted`]).
    pub(crate) fn launch_handed_over(&self) {
        self.running.lock().handed_over += 1;
        self.running_changed.notify_all();
    }

    /// A launch checker ended.
    pub(crate) fn launch_gone(&self) {
        self.running.lock().launches -= 1;
        self.running_changed.notify_all();
    }

    pub fn report(&self) -> Report {
        let st = self.state.lock();
        Report {
            incomplete: self.incomplete.lock().clone(),
            launches: st.launches.clone(),
            findings: st.findings.clone(),
            dropped: st.dropped,
            suppressed: st.suppressed.len() as u64,
            suppressions: self
                .config
                .suppressions
                .rules
                .iter()
                .zip(&st.rule_hits)
                .map(|(r, &hits)| RuleHits {
                    rule: r.text.clone(),
                    file: self.config.suppressions.file.clone(),
                    line: r.line,
                    hits,
                })
                .collect(),
        }
    }

    /// Whether launches of `kernel` are checked (`SHADOWCL_KERNELS`).
    pub fn checks_kernel(&self, kernel: &str) -> bool {
        self.config.kernels.matches(kernel)
    }

    /// A launch ran with every check off: listed in the report like a checked one.
    pub(crate) fn unobserved_launch(&self, id: u64, launch: &Launch, schedule: Arc<str>) {
        let kernel = self.name(&launch.kernel);
        self.state.lock().launches.push(LaunchSummary {
            id,
            kernel,
            global_size: launch.global_size,
            local_size: launch.local_size,
            global_offset: launch.global_offset,
            schedule,
        });
    }

    /// A launch ran without checks (its kernel is not selected): its buffers' bytes count as
    /// written, so later checked launches do not report reads of what it wrote as
    /// uninitialised (a read of bytes nobody wrote is missed instead).
    pub fn unchecked_launch(&self, launch: &Launch) {
        self.state.lock().unchecked += 1;
        for arg in &launch.args {
            match arg {
                ArgValue::Buffer {
                    buffer,
                    offset,
                    size,
                } => self.buffer_written_by_host(buffer.id(), *offset, *size),
                ArgValue::Image { buffer, .. } => {
                    self.buffer_written_by_host(buffer.id(), 0, buffer.len() as u64)
                }
                _ => {}
            }
        }
    }

    /// One line for the end of a run: findings by kind, launches, where the reports are.
    /// `None` before any launch was checked.
    pub fn summary(&self) -> Option<String> {
        let st = self.state.lock();
        if st.launches.is_empty() && st.unchecked == 0 {
            return None;
        }
        let mut by_kind: Vec<(FindingKind, usize)> = Vec::new();
        for f in &st.findings {
            match by_kind.iter_mut().find(|(k, _)| *k == f.kind) {
                Some((_, n)) => *n += 1,
                None => by_kind.push((f.kind, 1)),
            }
        }
        let launches = st.launches.len();
        let plural =
            |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
        let launched = format!("{launches} {}", plural(launches, "launch", "launches"));
        let mut line = match st.findings.len() {
            0 => format!("shadowcl: no findings in {launched}"),
            n => format!(
                "shadowcl: {n} {} ({}) in {launched}",
                plural(n, "finding", "findings"),
                by_kind
                    .iter()
                    .map(|(k, n)| format!("{} {n}", k.name()))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        };
        if st.dropped > 0 {
            line.push_str(&format!(", {} more not listed", st.dropped));
        }
        if !st.suppressed.is_empty() {
            let hits: Vec<String> = self
                .config
                .suppressions
                .rules
                .iter()
                .zip(&st.rule_hits)
                .filter(|(_, &n)| n > 0)
                .map(|(r, n)| format!("{}:{} {n}", self.config.suppressions.file, r.line))
                .collect();
            line.push_str(&format!(
                ", {} suppressed ({})",
                st.suppressed.len(),
                hits.join(", ")
            ));
        }
        if st.unchecked > 0 {
            line.push_str(&format!(
                ", {} {} not checked (SHADOWCL_KERNELS={})",
                st.unchecked,
                plural(st.unchecked as usize, "launch", "launches"),
                self.config.kernels.list()
            ));
        }
        let files: Vec<String> = self
            .config
            .files()
            .iter()
            .map(|(_, p)| p.display().to_string())
            .collect();
        if !files.is_empty() {
            line.push_str(&format!("; report: {}", files.join(", ")));
        }
        Some(line)
    }

    /// Findings so far (for a progress display).
    pub fn finding_count(&self) -> usize {
        self.state.lock().findings.len()
    }

    /// Bytes of global-memory shadow allocated (1/8, 2 or 8 per byte of each touched 4 KiB
    /// page: block, word or byte records).
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

    /// Writes `SHADOWCL_REPORT` and `SHADOWCL_SARIF` after a launch, when a new finding
    /// appeared or a second has passed since the last write with launches added: an
    /// application of many launches does not rewrite its report after each one. Call
    /// [`Session::write_files`] at exit for the final state.
    pub fn write_files_throttled(&self) -> std::io::Result<()> {
        if self.config.files().is_empty() {
            return Ok(());
        }
        let (launches, findings) = {
            let st = self.state.lock();
            (st.launches.len(), st.findings.len())
        };
        let due = match *self.written.lock() {
            None => true,
            Some((at, l, f)) => f != findings || (l != launches && at.elapsed().as_secs() >= 1),
        };
        if due {
            self.write_files()?;
        }
        Ok(())
    }

    /// Writes `SHADOWCL_REPORT` (JSON), `SHADOWCL_SARIF` and `SHADOWCL_EXPORT`'s files when
    /// configured.
    pub fn write_files(&self) -> std::io::Result<()> {
        if self.config.files().is_empty() {
            return Ok(());
        }
        let r = self.report();
        *self.written.lock() = Some((
            std::time::Instant::now(),
            r.launches.len(),
            r.findings.len(),
        ));
        for (format, path) in self.config.files() {
            // Write then rename, so a reader never sees half a report.
            let mut tmp = path.clone().into_os_string();
            tmp.push(format!(".{}.tmp", std::process::id()));
            let tmp = std::path::PathBuf::from(tmp);
            std::fs::write(&tmp, format.render(&r))?;
            std::fs::rename(&tmp, path)?;
        }
        Ok(())
    }

    /// The shadow of `id`; buffers the platform did not announce get one of `len` bytes,
    /// assumed initialised (no false uninitialised reads). A known shadow is kept even when
    /// shorter than `len`: its size is the buffer's, and the executor checks bounds.
    pub(crate) fn shadow_for(&self, id: AllocId, len: u64) -> Arc<Shadow> {
        if let Some(s) = self.shadows.read().get(&id) {
            return s.clone();
        }
        self.shadows
            .write()
            .entry(id)
            .or_insert_with(|| Arc::new(Shadow::new(len, true, self.budget.clone())))
            .clone()
    }
}
