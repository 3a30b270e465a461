//! Happens-before through synchronisation: the OpenCL 3.0 memory model (API spec 3.3.6,
//! OpenCL C 6.15.12) as the pair pass applies it.
//!
//! The byte records (`mar`) know only barriers: to them an atomic orders nothing, so a
//! correct release/acquire hand-off leaves racy-looking bytes. A launch whose program has
//! synchronising atomics or fences ([`shadowcl_interpreter::Program::synchronises`]) is
//! therefore checked in two steps: the records' first run finds the bytes that may race (a
//! superset: every race the memory model admits is one the records see), and the pair pass
//! (`pairs.rs`), which runs the launch again logging every access to those bytes, keeps a
//! pair only when this model says neither access happens before the other.
//!
//! Why vector clocks in the pair pass, not in the records: a record holds one accessor per
//! byte in 64 bits, and synchronisation relates arbitrary pairs of work-items, which needs
//! a clock per item (FastTrack's and ThreadSanitizer's representation). Kept only for the
//! second run of launches that synchronise, and only for the bytes the records found racy,
//! it costs nothing elsewhere: a launch without such atomics checks exactly as before.
//!
//! The model, per work-item: a clock (advanced at each release) and a sparse vector clock,
//! [`Knowledge`], of what it knows of the others: work-item `a` up to clock `c`, and group
//! `g`'s accesses to one memory before its `n`-th barrier that fenced it. A release (an
//! atomic with a release order, or an atomic write after a release fence) leaves a
//! [`Release`] on its location; an acquire (an atomic with an acquire order, or an atomic
//! read followed by an acquire fence) joins the releases on the location it read whose
//! scopes, and its own, include both work-items. A store starts the location's release
//! sequence again (a relaxed one by another work-item ends it); a read-modify-write
//! continues it. A barrier joins what its work-items know. Each order applies to the memory
//! its fence flags (or a barrier's) name; an atomic whose semantics name none orders both.
//! `seq_cst` is `acq_rel` here: its single total order decides which values reads may
//! return, not which accesses happen before others (OpenCL API 3.3.6: happens-before comes
//! from sequenced-before and synchronises-with alone), so data races are the same.
//!
//! What does not synchronise is remembered as a [`NearMiss`] on the acquiring work-item,
//! so a race it leaves can say why ("released at work_group scope, which does not include
//! work-group 1").

use crate::group::GroupState;
use crate::launch::{name_and_index, LaunchChecker};
use crate::pairs::Probe;
use crate::Synchronisation;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use shadowcl_interpreter::{
    AddressSpace, AllocId, Fences, InstId, MemoryOrder, MemoryScope, SourceLoc, SyncEvent,
    SyncKind, WorkItem,
};
use std::sync::Arc;

/// Most releases a location keeps (the oldest go first: fewer happens-before edges, so
/// more reports, never fewer).
const RELEASE_LIMIT: usize = shadowcl_limits::LIMITS.release_contributions;
/// Most near misses a work-item keeps for its reports.
const MISS_LIMIT: usize = 16;

/// What a [`Knowledge`] entry counts, for one memory (a fence orders only the memory its
/// flags name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    /// A work-item's clock (its record id): its accesses to local or global memory.
    Item { item: u32, local: bool },
    /// A group's barriers that fenced one memory (the group's first record id).
    Barriers { group: u32, local: bool },
}

impl Key {
    fn fenced(self, fences: Fences) -> bool {
        let (Key::Item { local, .. } | Key::Barriers { local, .. }) = self;
        if local {
            fences.local
        } else {
            fences.global
        }
    }
}

/// Both memories.
const BOTH: Fences = Fences {
    local: true,
    global: true,
};

/// A sparse vector clock: for each [`Key`], how far its holder is known (sorted by key).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Knowledge(Vec<(Key, u32)>);

impl Knowledge {
    fn get(&self, key: Key) -> u32 {
        match self.0.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    /// Raises `key` to at least `value`; whether anything changed.
    fn raise(&mut self, key: Key, value: u32) -> bool {
        if value == 0 {
            return false;
        }
        match self.0.binary_search_by_key(&key, |e| e.0) {
            Ok(i) if self.0[i].1 >= value => false,
            Ok(i) => {
                self.0[i].1 = value;
                true
            }
            Err(i) => {
                self.0.insert(i, (key, value));
                true
            }
        }
    }

    /// Joins `other` in (the larger of each entry); whether anything changed.
    fn join(&mut self, other: &Knowledge) -> bool {
        self.join_in(other, BOTH)
    }

    /// Joins in the entries of `other` for the memory `fences` names; whether anything
    /// changed.
    fn join_in(&mut self, other: &Knowledge, fences: Fences) -> bool {
        let wanted = other.0.iter().copied().filter(|e| e.0.fenced(fences));
        // In place while every key is already here (the usual case: work-items that
        // synchronise come to know the same others); merged into a new list only when not.
        let mut missing = 0usize;
        let mut changed = false;
        let mut mine = self.0.iter_mut().peekable();
        for (k, v) in wanted.clone() {
            while mine.next_if(|e| e.0 < k).is_some() {}
            match mine.peek_mut() {
                Some(e) if e.0 == k => {
                    if e.1 < v {
                        e.1 = v;
                        changed = true;
                    }
                }
                _ => missing += 1,
            }
        }
        if missing == 0 {
            return changed;
        }
        let mut merged = Vec::with_capacity(self.0.len() + missing);
        let mut mine = self.0.iter().copied().peekable();
        for (k, v) in wanted {
            while let Some(e) = mine.next_if(|e| e.0 < k) {
                merged.push(e);
            }
            match mine.next_if(|e| e.0 == k) {
                Some((_, mv)) => merged.push((k, mv.max(v))),
                None => merged.push((k, v)),
            }
        }
        merged.extend(mine);
        self.0 = merged;
        true
    }
}

/// One side of a synchronisation, as a report names it.
#[derive(Clone, Debug)]
pub(crate) struct SyncSide {
    pub item: WorkItem,
    pub inst: InstId,
    pub order: MemoryOrder,
    pub scope: MemoryScope,
    /// A fence, not the atomic itself, gave the order.
    pub fence: bool,
    /// The memory the order applies to.
    pub fences: Fences,
}

/// One release: what its work-item knew when it made it.
///
/// A release shares its work-item's knowledge rather than copying it (copied on write
/// when the work-item learns more), and its own entries stay apart: an acquirer that
/// already knows the release's epoch knows all it carries, found with one lookup. That is
/// FastTrack's epoch argument: an entry for work-item `x` at clock `t` only ever arrives
/// with all `x` knew at `t`, for that memory.
#[derive(Clone, Debug)]
struct Release {
    /// The releasing work-item's record id and its group's.
    from: u32,
    group: u32,
    side: SyncSide,
    /// The work-item's clock after the release: its accesses before count.
    clock: u32,
    /// What it knew (of which the memories `side.fences` names count).
    knows: Arc<Knowledge>,
    /// Its group's barriers then (local, global).
    barriers: (u32, u32),
}

impl Release {
    /// Whether `other` is this very release.
    fn same(&self, other: &Release) -> bool {
        self.from == other.from && self.clock == other.clock && self.side.inst == other.side.inst
    }
}

/// The memories both `a` and `b` name.
fn both_fence(a: Fences, b: Fences) -> Fences {
    Fences {
        local: a.local && b.local,
        global: a.global && b.global,
    }
}

/// Each memory `fences` names, as [`Key`]s name it (`local`).
fn memories(fences: Fences) -> impl Iterator<Item = bool> {
    [(true, fences.local), (false, fences.global)]
        .into_iter()
        .filter_map(|(local, fenced)| fenced.then_some(local))
}

/// Why an atomic read did not synchronise with a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// The release's scope does not include the acquiring work-item.
    ReleaseScope,
    /// The acquire's scope does not include the releasing work-item.
    AcquireScope,
    /// The value read was stored by a relaxed atomic with no release fence before it.
    RelaxedWrite,
    /// The read was relaxed and no acquire fence followed it.
    RelaxedRead,
    /// The two synchronised, but the fence flags of one side leave out the memory of the
    /// race (`CLK_LOCAL_MEM_FENCE` orders no global memory).
    FenceMemory,
}

/// A synchronisation that did not happen: `release` wrote what `acquire` read.
#[derive(Clone, Debug)]
pub(crate) struct NearMiss {
    pub release: SyncSide,
    /// Record ids of the releasing work-item and its group.
    pub from: u32,
    pub group: u32,
    pub acquire: SyncSide,
    /// The location, as reports name a buffer (`flag`, `flag[3]`).
    pub location: String,
    pub why: Why,
}

impl NearMiss {
    /// `acquire` read what release `c` left on `location`, without synchronising.
    fn of(c: &Release, acquire: &SyncSide, location: &str, why: Why) -> NearMiss {
        NearMiss {
            release: c.side.clone(),
            from: c.from,
            group: c.group,
            acquire: acquire.clone(),
            location: location.to_string(),
            why,
        }
    }
}

/// The model's state for one work-item.
#[derive(Default)]
struct ItemSync {
    /// Advanced at each release: accesses after it are not ordered by it.
    clock: u32,
    /// Shared between the work-items of a group while they know the same (a barrier gives
    /// them one value; copied when one learns more).
    knows: Arc<Knowledge>,
    /// The last release fence, which later atomic writes carry.
    fence: Option<Release>,
    /// Releases read by relaxed atomics since the last acquire fence, with what the read
    /// was.
    pending: Vec<(Release, SyncSide, String)>,
    misses: Vec<NearMiss>,
}

/// The model's state for one atomic location.
#[derive(Default)]
struct Location {
    /// The work-item whose release started the current release sequence.
    head: Option<u32>,
    /// The releases the value now there carries: the one that started its release
    /// sequence and those of read-modify-writes that continued it (OpenCL API 3.3.6).
    releases: Vec<Release>,
    /// The last atomic write, when it released nothing (for a relaxed hand-off's report).
    relaxed_writer: Option<(u32, u32, SyncSide)>,
}

/// The happens-before model of one pair pass.
#[derive(Default)]
pub(crate) struct SyncModel {
    /// By record id (the pair pass's private session numbers its launch's work-items from
    /// the start).
    items: Vec<ItemSync>,
    /// By (allocation, group's first record id for local memory, offset).
    locations: HashMap<(AllocId, u32, u64), Location>,
    /// Groups (by first record id) one of whose work-items learned something since the
    /// group's last barrier: only their barriers have knowledge to share.
    learned: HashSet<u32>,
}

/// Whether `scope`, used by work-item `a` of group `ga`, includes work-item `b` of `gb`. A
/// sub-group is the whole work-group on this device.
fn includes(scope: MemoryScope, (a, ga): (u32, u32), (b, gb): (u32, u32)) -> bool {
    match scope {
        MemoryScope::WorkItem => a == b,
        MemoryScope::SubGroup | MemoryScope::WorkGroup => ga == gb,
        MemoryScope::Device | MemoryScope::AllDevices => true,
    }
}

impl SyncModel {
    fn item(&mut self, id: u32) -> &mut ItemSync {
        item_in(&mut self.items, id)
    }

    /// The clock of an access `item` makes now (logged with it).
    pub(crate) fn clock(&mut self, item: u32) -> u32 {
        self.item(item).clock
    }

    /// Whether an access by `x` (group `x_group`, at `x_barriers` barriers of its group that
    /// fenced the memory, `local`, at clock `x_clock`) happens before an access work-item `y`
    /// makes now, by synchronisation.
    pub(crate) fn ordered(
        &self,
        (x, x_group, x_barriers, x_clock): (u32, u32, u32, u32),
        local: bool,
        y: u32,
    ) -> bool {
        let Some(it) = self.items.get(y as usize) else {
            return false;
        };
        it.knows.get(Key::Item { item: x, local }) > x_clock
            || it.knows.get(Key::Barriers {
                group: x_group,
                local,
            }) > x_barriers
    }

    /// The near misses that may explain why `from` (of `group`) and `to` did not
    /// synchronise: `to`'s acquires of what `from` or its group wrote.
    /// On `local` or global memory: a fence-memory miss explains only a race on the memory
    /// its flags left out. Else any of `to`'s near misses: a release sequence another
    /// work-item broke names that work-item.
    pub(crate) fn misses(&self, to: u32, from: u32, group: u32, local: bool) -> Option<&NearMiss> {
        let it = self.items.get(to as usize)?;
        let fits = |m: &&NearMiss| {
            m.why != Why::FenceMemory || {
                let f = both_fence(m.release.fences, m.acquire.fences);
                if local {
                    !f.local
                } else {
                    !f.global
                }
            }
        };
        let mut misses = it.misses.iter().filter(fits);
        misses
            .clone()
            .find(|m| m.from == from)
            .or_else(|| misses.clone().find(|m| m.group == group))
            .or_else(|| misses.next())
    }

    /// What `item` releases now: what it knows, its own accesses so far and its group's
    /// before its barriers. Its clock moves on, so later accesses are not covered.
    fn release(&mut self, item: u32, group: u32, barriers: (u32, u32), side: SyncSide) -> Release {
        let it = self.item(item);
        it.clock += 1;
        Release {
            from: item,
            group,
            side,
            clock: it.clock,
            knows: Arc::clone(&it.knows),
            barriers,
        }
    }

    /// `item` acquires the releases `releases` (each one's scope and `acquire`'s checked),
    /// or remembers why not.
    fn acquire(
        &mut self,
        item: u32,
        group: u32,
        releases: &[Release],
        acquire: &SyncSide,
        location: &str,
    ) {
        for r in releases {
            let why = if !includes(r.side.scope, (r.from, r.group), (item, group)) {
                Some(Why::ReleaseScope)
            } else if !includes(acquire.scope, (item, group), (r.from, r.group)) {
                Some(Why::AcquireScope)
            } else {
                if r.from != item && !self.covered(item, r, acquire.fences) {
                    self.carry(item, r, acquire.fences);
                    self.learned.insert(group);
                }
                (both_fence(r.side.fences, acquire.fences) != BOTH).then_some(Why::FenceMemory)
            };
            if let Some(why) = why {
                note_miss(self.item(item), NearMiss::of(r, acquire, location, why));
            }
        }
    }

    /// Whether `item` already knows all `r` carries for the memory `fences` names.
    fn covered(&self, item: u32, r: &Release, fences: Fences) -> bool {
        let Some(it) = self.items.get(item as usize) else {
            return false;
        };
        memories(both_fence(fences, r.side.fences)).all(|local| {
            it.knows.get(Key::Item {
                item: r.from,
                local,
            }) >= r.clock
        })
    }

    /// Joins what `r` carries for the memory `fences` names into what `item` knows.
    fn carry(&mut self, item: u32, r: &Release, fences: Fences) {
        let fences = both_fence(fences, r.side.fences);
        let knows = Arc::make_mut(&mut self.item(item).knows);
        knows.join_in(&r.knows, fences);
        for local in memories(fences) {
            let n = if local { r.barriers.0 } else { r.barriers.1 };
            knows.raise(
                Key::Item {
                    item: r.from,
                    local,
                },
                r.clock,
            );
            knows.raise(
                Key::Barriers {
                    group: r.group,
                    local,
                },
                n,
            );
        }
    }

    /// Adds the release `c` of a read-modify-write to the release sequence of the location
    /// `at`. An earlier release an acquirer of `c` would learn all of goes: the same
    /// work-item's at a scope no wider, or one `c`'s work-item had acquired when both came
    /// from one group or are both device-wide (a counter every group increments with
    /// acq_rel stays one release). A narrower acquirer then misses the device-wide releases
    /// of other groups that went: fewer happens-before edges, more reports, never fewer.
    fn contribute(&mut self, at: (AllocId, u32, u64), c: Release) {
        let covers = |r: &Release| {
            let wider = c.side.scope >= r.side.scope
                && both_fence(c.side.fences, r.side.fences) == r.side.fences;
            let peers = r.group == c.group
                || c.side.scope >= MemoryScope::Device && r.side.scope >= MemoryScope::Device;
            wider
                && (r.from == c.from
                    || peers
                        && memories(r.side.fences).all(|local| {
                            c.knows.get(Key::Item {
                                item: r.from,
                                local,
                            }) >= r.clock
                        }))
        };
        let loc = self.locations.entry(at).or_default();
        loc.releases.retain(|r| !covers(r));
        if loc.releases.len() >= RELEASE_LIMIT {
            loc.releases.remove(0);
        }
        loc.releases.push(c);
    }
}

/// Work-item `id`'s state in `items` (made when first asked for).
fn item_in(items: &mut Vec<ItemSync>, id: u32) -> &mut ItemSync {
    let i = id as usize;
    if i >= items.len() {
        items.resize_with(i + 1, ItemSync::default);
    }
    &mut items[i]
}

fn note_miss(it: &mut ItemSync, miss: NearMiss) {
    let known = it
        .misses
        .iter()
        .any(|m| m.from == miss.from && m.why == miss.why && m.release.inst == miss.release.inst);
    if !known && it.misses.len() < MISS_LIMIT {
        it.misses.push(miss);
    }
}

impl LaunchChecker<'_> {
    /// The second run of a synchronising launch: an atomic's or a fence's effect on the
    /// model.
    pub(crate) fn probe_sync(&self, g: &mut GroupState, ev: &SyncEvent<'_>, probe: &Probe) {
        let Some(model) = &probe.sync else {
            return;
        };
        let item = g.item_of_work_item(ev.item);
        let group = g.first_item();
        let barriers = (g.barriers_local, g.barriers_global);
        let side = SyncSide {
            item: *ev.item,
            inst: ev.inst,
            order: ev.order,
            scope: ev.scope,
            fence: false,
            fences: ev.fences,
        };
        let mut m = model.lock();
        match ev.kind {
            SyncKind::Fence { .. } => {
                if ev.order.acquires() {
                    let it = m.item(item);
                    let pending = std::mem::take(&mut it.pending);
                    // The fence decides what those relaxed reads synchronise with.
                    it.misses.retain(|miss| {
                        miss.why != Why::RelaxedRead
                            || !pending.iter().any(|(c, _, _)| {
                                c.from == miss.from && c.side.inst == miss.release.inst
                            })
                    });
                    for (c, read, location) in pending {
                        let acquire = SyncSide {
                            fence: true,
                            inst: ev.inst,
                            order: ev.order,
                            scope: ev.scope,
                            fences: ev.fences,
                            ..read
                        };
                        m.acquire(item, group, std::slice::from_ref(&c), &acquire, &location);
                    }
                }
                if ev.order.releases() {
                    let side = SyncSide {
                        fence: true,
                        ..side
                    };
                    let c = m.release(item, group, barriers, side);
                    m.item(item).fence = Some(c);
                }
            }
            SyncKind::Atomic {
                space,
                alloc,
                offset,
                reads,
                writes,
                ..
            } => {
                let location = self
                    .state()
                    .map(|ls| name_and_index(ls, alloc, offset as i64))
                    .and_then(|(name, index)| {
                        name.map(|n| match index {
                            Some(i) if i > 0 => format!("{n}[{i}]"),
                            _ => n,
                        })
                    })
                    .unwrap_or_else(|| "an atomic".into());
                // Named above as this run binds it (to the copy of a copied buffer).
                let alloc = probe.original(space, alloc);
                let at = (
                    alloc,
                    if space == AddressSpace::Local {
                        group
                    } else {
                        0
                    },
                    offset,
                );
                if reads && ev.order.acquires() {
                    // This acquire decides what the location synchronises: the relaxed reads
                    // of it before (a spin-wait's) explain nothing.
                    m.item(item)
                        .misses
                        .retain(|miss| miss.why != Why::RelaxedRead || miss.location != location);
                }
                if reads {
                    let loc = m.locations.entry(at).or_default();
                    let releases = loc.releases.clone();
                    let relaxed = loc.relaxed_writer.clone();
                    if ev.order.acquires() {
                        m.acquire(item, group, &releases, &side, &location);
                    }
                    let relaxed_read = !ev.order.acquires();
                    for c in releases.iter().filter(|_| relaxed_read) {
                        let it = m.item(item);
                        // A spin-wait reads the same release again and again.
                        let again = it
                            .pending
                            .iter()
                            .any(|(p, read, _)| read.inst == side.inst && p.same(c));
                        if !again {
                            it.pending.push((c.clone(), side.clone(), location.clone()));
                        }
                        if c.from != item {
                            note_miss(it, NearMiss::of(c, &side, &location, Why::RelaxedRead));
                        }
                    }
                    if let Some((from, from_group, release)) = relaxed {
                        if from != item {
                            let miss = NearMiss {
                                release,
                                from,
                                group: from_group,
                                acquire: side.clone(),
                                location: location.clone(),
                                why: Why::RelaxedWrite,
                            };
                            note_miss(m.item(item), miss);
                        }
                    }
                }
                if writes {
                    let own = if ev.order.releases() {
                        Some(m.release(item, group, barriers, side.clone()))
                    } else {
                        m.item(item).fence.clone()
                    };
                    let loc = m.locations.entry(at).or_default();
                    loc.relaxed_writer = match own {
                        Some(_) => None,
                        None => Some((item, group, side)),
                    };
                    match (own, reads) {
                        // A read-modify-write continues the release sequence.
                        (Some(c), true) => m.contribute(at, c),
                        (None, true) => {}
                        (Some(c), false) => {
                            loc.releases.clear();
                            loc.head = Some(item);
                            loc.releases.push(c);
                        }
                        // A relaxed store continues its own work-item's sequence only (C11
                        // release sequences, which OpenCL C 2.0 follows).
                        (None, false) if loc.head == Some(item) => {}
                        (None, false) => {
                            loc.releases.clear();
                            loc.head = None;
                        }
                    }
                }
            }
        }
    }

    /// The second run: a barrier released its group; what each work-item knew, all know.
    /// Called before the divergence check takes the group's arrivals: `fences`, the memory
    /// every arrival fenced.
    pub(crate) fn probe_release(&self, g: &GroupState, fences: Fences, probe: &Probe) {
        let Some(model) = &probe.sync else {
            return;
        };
        let mut m = model.lock();
        if !m.learned.remove(&g.first_item()) {
            return;
        }
        let items = g.first_item()..g.item_end();
        // The work-items of a group mostly know the same, shared: each distinct value is
        // joined once, and the items that held one value share the one it becomes.
        let same = |d: &Arc<Knowledge>, k: &Arc<Knowledge>| Arc::ptr_eq(d, k) || **d == **k;
        let mut distinct: Vec<Arc<Knowledge>> = Vec::new();
        for i in items.clone() {
            let k = &m.item(i).knows;
            if !distinct.iter().any(|d| same(d, k)) {
                distinct.push(Arc::clone(k));
            }
        }
        if distinct.len() < 2 {
            return;
        }
        let mut joined = Knowledge::default();
        for d in &distinct {
            joined.join(d);
        }
        let becomes: Vec<Arc<Knowledge>> = distinct
            .iter()
            .map(|d| {
                let mut k = (**d).clone();
                k.join_in(&joined, fences);
                Arc::new(k)
            })
            .collect();
        for i in items {
            let it = m.item(i);
            if let Some(at) = distinct.iter().position(|d| same(d, &it.knows)) {
                if *becomes[at] != *it.knows {
                    it.knows = Arc::clone(&becomes[at]);
                }
            }
        }
    }
}

/// A synchronisation that did not happen, as a race report carries it: a sentence and the
/// report's field.
pub(crate) fn explain(
    miss: &NearMiss,
    location_of: &dyn Fn(InstId) -> Option<SourceLoc>,
) -> (String, Synchronisation) {
    let report_side = |s: &SyncSide| crate::SyncSide {
        global_id: s.item.global,
        local_id: s.item.local,
        group_id: s.item.group,
        order: s.order.name().into(),
        scope: s.scope.name().into(),
        fence: s.fence,
        location: location_of(s.inst),
    };
    let field = Synchronisation {
        reason: match miss.why {
            Why::ReleaseScope => "release-scope",
            Why::AcquireScope => "acquire-scope",
            Why::RelaxedWrite => "relaxed-write",
            Why::RelaxedRead => "relaxed-read",
            Why::FenceMemory => "fence-memory",
        }
        .into(),
        atomic: miss.location.clone(),
        release: report_side(&miss.release),
        acquire: report_side(&miss.acquire),
    };
    (sentence(miss, &|i| location_of(i).map(|l| l.line)), field)
}

/// The sentence a race report adds for a synchronisation that did not happen.
fn sentence(miss: &NearMiss, line_of: &dyn Fn(InstId) -> Option<u32>) -> String {
    let at = |s: &SyncSide| match line_of(s.inst) {
        Some(l) => format!(" (line {l})"),
        None => String::new(),
    };
    let who = |s: &SyncSide| {
        format!(
            "work-item {:?} of work-group {:?}",
            s.item.local, s.item.group
        )
    };
    let (r, a) = (&miss.release, &miss.acquire);
    let how = |s: &SyncSide, verb: &str| {
        let by = if s.fence { " (by a fence)" } else { "" };
        format!(
            "{} {verb} `{}` with memory_order_{} at memory_scope_{}{by}{}",
            who(s),
            miss.location,
            s.order.name(),
            s.scope.name(),
            at(s)
        )
    };
    match miss.why {
        Why::ReleaseScope => format!(
            "{}; {} acquired it{}: memory_scope_{} does not include work-group {:?}",
            how(r, "released"),
            who(a),
            at(a),
            r.scope.name(),
            a.item.group
        ),
        Why::AcquireScope => format!(
            "{}; {}: memory_scope_{} does not include work-group {:?}",
            how(r, "released"),
            how(a, "acquired"),
            a.scope.name(),
            r.item.group
        ),
        Why::RelaxedWrite if a.order.acquires() => format!(
            "{}, which orders nothing, and {} acquired it{}: the write needs \
             memory_order_release (or a release fence before it)",
            how(r, "stored"),
            who(a),
            at(a)
        ),
        Why::RelaxedWrite => format!(
            "{}, which orders nothing, and {}: the write needs memory_order_release and the \
             read memory_order_acquire (or fences: a release fence before the write, an \
             acquire fence after the read)",
            how(r, "stored"),
            how(a, "read"),
        ),
        Why::RelaxedRead => format!(
            "{}; {}, which orders nothing: the read needs memory_order_acquire (or an acquire \
             fence after it)",
            how(r, "released"),
            how(a, "read"),
        ),
        Why::FenceMemory => {
            let names = |f: Fences| match (f.local, f.global) {
                (true, true) => "local and global memory",
                (true, false) => "local memory only (CLK_LOCAL_MEM_FENCE)",
                (false, true) => "global memory only (CLK_GLOBAL_MEM_FENCE)",
                (false, false) => "no memory",
            };
            format!(
                "{}, fencing {}; {}, fencing {}: both fences must name the memory they hand \
                 over",
                how(r, "released"),
                names(r.fences),
                how(a, "acquired"),
                names(a.fences)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knowledge_joins_entry_by_entry() {
        let mut a = Knowledge::default();
        let item = |item| Key::Item { item, local: false };
        a.raise(item(3), 2);
        a.raise(item(1), 5);
        let mut b = Knowledge::default();
        b.raise(item(3), 4);
        b.raise(
            Key::Barriers {
                group: 0,
                local: true,
            },
            1,
        );
        assert!(a.join(&b));
        assert!(!a.join(&b), "a second join adds nothing");
        assert_eq!(a.get(item(1)), 5);
        assert_eq!(a.get(item(3)), 4);
        assert_eq!(
            a.get(Key::Barriers {
                group: 0,
                local: true
            }),
            1
        );
        assert_eq!(
            a.get(Key::Barriers {
                group: 0,
                local: false
            }),
            0
        );
        let keys: Vec<Key> = a.0.iter().map(|e| e.0).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }

    fn side(scope: MemoryScope, order: MemoryOrder) -> SyncSide {
        SyncSide {
            item: WorkItem::default(),
            inst: InstId(0),
            order,
            scope,
            fence: false,
            fences: BOTH,
        }
    }

    #[test]
    fn an_acquire_orders_what_the_release_saw_when_both_scopes_include_both() {
        let mut m = SyncModel::default();
        // Item 1 of group 0 accesses at clock 0, then releases; item 9 of group 8 acquires.
        let before = m.clock(1);
        let c = m.release(
            1,
            0,
            (0, 0),
            side(MemoryScope::Device, MemoryOrder::Release),
        );
        let after = m.clock(1);
        let a = side(MemoryScope::Device, MemoryOrder::Acquire);
        m.acquire(9, 8, std::slice::from_ref(&c), &a, "flag");
        assert!(m.ordered((1, 0, 0, before), false, 9));
        assert!(!m.ordered((1, 0, 0, after), false, 9), "after the release");
        // At work-group scope the other group is not included.
        let mut m = SyncModel::default();
        let before = m.clock(1);
        let c = m.release(
            1,
            0,
            (0, 0),
            side(MemoryScope::WorkGroup, MemoryOrder::Release),
        );
        m.acquire(9, 8, std::slice::from_ref(&c), &a, "flag");
        assert!(!m.ordered((1, 0, 0, before), false, 9));
        assert_eq!(
            m.misses(9, 1, 0, false).map(|x| x.why),
            Some(Why::ReleaseScope)
        );
    }

    #[test]
    fn a_release_carries_the_groups_barriers() {
        let mut m = SyncModel::default();
        // Item 2 of group 0 wrote before the group's first global barrier (count 0); item 1
        // releases after it (count 1).
        let x = m.clock(2);
        let c = m.release(
            1,
            0,
            (0, 1),
            side(MemoryScope::Device, MemoryOrder::Release),
        );
        m.acquire(
            9,
            8,
            std::slice::from_ref(&c),
            &side(MemoryScope::Device, MemoryOrder::Acquire),
            "flag",
        );
        assert!(
            m.ordered((2, 0, 0, x), false, 9),
            "global, before the barrier"
        );
        assert!(
            !m.ordered((2, 0, 1, x), false, 9),
            "global, after the barrier"
        );
        assert!(
            !m.ordered((2, 0, 0, x), true, 9),
            "local memory was not fenced"
        );
    }

    fn device(order: MemoryOrder) -> SyncSide {
        side(MemoryScope::Device, order)
    }

    #[test]
    fn what_a_release_carries_arrives_through_another_work_item() {
        let mut m = SyncModel::default();
        let acquire = device(MemoryOrder::Acquire);
        // Item 3 accesses, then releases; item 2 releases before and after acquiring it;
        // item 1 acquires both of item 2's releases.
        let by_3 = m.clock(3);
        let from_3 = m.release(3, 3, (0, 0), device(MemoryOrder::Release));
        let first = m.release(2, 2, (0, 0), device(MemoryOrder::Release));
        m.acquire(1, 1, std::slice::from_ref(&first), &acquire, "flag");
        assert!(
            !m.ordered((3, 3, 0, by_3), false, 1),
            "item 2 knew nothing of 3 yet"
        );
        m.acquire(2, 2, std::slice::from_ref(&from_3), &acquire, "flag");
        let second = m.release(2, 2, (0, 0), device(MemoryOrder::Release));
        m.acquire(1, 1, std::slice::from_ref(&second), &acquire, "flag");
        assert!(m.ordered((3, 3, 0, by_3), false, 1), "through item 2");
        assert!(m.covered(1, &second, BOTH), "acquired already");
    }

    #[test]
    fn a_release_carries_only_what_was_known_when_it_was_made() {
        let mut m = SyncModel::default();
        let acquire = device(MemoryOrder::Acquire);
        let by_3 = m.clock(3);
        let from_3 = m.release(3, 3, (0, 0), device(MemoryOrder::Release));
        // A release fence of item 2, then it learns of item 3; a later store would carry
        // the fence's release, which knew nothing of 3.
        let fence = m.release(2, 2, (0, 0), device(MemoryOrder::Release));
        m.acquire(2, 2, std::slice::from_ref(&from_3), &acquire, "flag");
        m.acquire(1, 1, std::slice::from_ref(&fence), &acquire, "flag");
        assert!(!m.ordered((3, 3, 0, by_3), false, 1));
        assert!(m.ordered((2, 2, 0, 0), false, 1), "item 2 before its fence");
    }

    #[test]
    fn a_read_modify_write_chain_carries_every_release_in_it() {
        let mut m = SyncModel::default();
        let at = (AllocId(1), 0, 0);
        let (by_1, by_2) = (m.clock(1), m.clock(2));
        // Two relaxed-read, releasing read-modify-writes of two groups: neither knows the
        // other's, so both stay in the sequence.
        let one = m.release(1, 1, (0, 0), device(MemoryOrder::Release));
        m.contribute(at, one);
        let two = m.release(2, 2, (0, 0), device(MemoryOrder::Release));
        m.contribute(at, two);
        let releases = m.locations[&at].releases.clone();
        assert_eq!(releases.len(), 2);
        m.acquire(9, 9, &releases, &device(MemoryOrder::Acquire), "counter");
        assert!(m.ordered((1, 1, 0, by_1), false, 9));
        assert!(m.ordered((2, 2, 0, by_2), false, 9));
        // An acq_rel one that read them both carries both: it takes their place.
        m.acquire(3, 3, &releases, &device(MemoryOrder::AcqRel), "counter");
        let three = m.release(3, 3, (0, 0), device(MemoryOrder::AcqRel));
        m.contribute(at, three);
        assert_eq!(m.locations[&at].releases.len(), 1);
    }
}
