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
//! atomic with a release order, or an atomic store after a release fence) leaves a
//! [`Contribution`] on its location; an acquire (an atomic with an acquire order, or an
//! atomic read followed by an acquire fence) joins the contributions on the location it
//! read whose scopes, and its own, include both work-items. A store starts the location's
//! release sequence again (a relaxed one by another work-item ends it); a read-modify-write
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

/// Most contributions a location keeps (the oldest go first: fewer happens-before edges, so
/// more reports, never fewer).
const CONTRIBUTION_LIMIT: usize = 4096;
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

    /// Whether `other`'s entries for the memory `fences` names are all known here: one
    /// pass over both (sorted) lists.
    fn covers(&self, other: &Knowledge, fences: Fences) -> bool {
        let mut mine = self.0.iter().peekable();
        for &(k, v) in &other.0 {
            if !k.fenced(fences) {
                continue;
            }
            while mine.next_if(|e| e.0 < k).is_some() {}
            match mine.peek() {
                Some(&&(mk, mv)) if mk == k && mv >= v => {}
                _ => return false,
            }
        }
        true
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

/// What a release left on a location: what its work-item knew then.
///
/// A release shares its work-item's knowledge rather than copying it, and keeps its own
/// entries apart ([`Own`]): a release costs nothing however much its work-item knows, and
/// an acquirer that already knows the release's epoch knows all it carries, found with one
/// lookup (the vector-clock epoch argument FastTrack makes: an entry for work-item `x` at
/// clock `t` only ever arrives with all `x` knew at `t`, for that memory).
#[derive(Clone, Debug)]
struct Contribution {
    /// The releasing work-item's record id and its group's.
    from: u32,
    group: u32,
    side: SyncSide,
    /// With `own`, what the releaser knew (of which the memories `side.fences` names
    /// count); without, everything the contribution carries.
    knows: Arc<Knowledge>,
    /// The release's own entries; `None` once merged with others into `knows`.
    own: Option<Own>,
    /// Merged from releases of several groups ([`SyncModel::contribute`]).
    mixed: bool,
}

/// A release's own entries, for each memory its fences name: the releasing work-item up to
/// `clock` and its group's barriers (local, global).
#[derive(Clone, Copy, Debug)]
struct Own {
    clock: u32,
    barriers: (u32, u32),
}

/// The memories both `a` and `b` name.
fn both_fence(a: Fences, b: Fences) -> Fences {
    Fences {
        local: a.local && b.local,
        global: a.global && b.global,
    }
}

impl Contribution {
    /// Whether `other` is this very release (or merge of releases).
    fn same_release(&self, other: &Contribution) -> bool {
        self.from == other.from
            && self.side.inst == other.side.inst
            && self.own.map(|o| o.clock) == other.own.map(|o| o.clock)
            && Arc::ptr_eq(&self.knows, &other.knows)
    }

    /// What the contribution carries for `key`.
    fn get(&self, key: Key) -> u32 {
        let Some(own) = self.own else {
            return self.knows.get(key);
        };
        if !key.fenced(self.side.fences) {
            return 0;
        }
        let mine = match key {
            Key::Item { item, .. } if item == self.from => own.clock,
            Key::Barriers { group, local } if group == self.group => {
                if local {
                    own.barriers.0
                } else {
                    own.barriers.1
                }
            }
            _ => 0,
        };
        mine.max(self.knows.get(key))
    }

    /// Whether `knows` already has all the contribution carries for the memory `fences`
    /// names.
    fn covered_by(&self, knows: &Knowledge, fences: Fences) -> bool {
        let Some(own) = self.own else {
            return knows.covers(&self.knows, fences);
        };
        let fences = both_fence(fences, self.side.fences);
        [(true, fences.local), (false, fences.global)]
            .into_iter()
            .all(|(local, fenced)| {
                !fenced
                    || knows.get(Key::Item {
                        item: self.from,
                        local,
                    }) >= own.clock
            })
    }

    /// Whether the contribution carries all `other` does.
    fn covers(&self, other: &Contribution) -> bool {
        match other.own {
            Some(own) => [
                (true, other.side.fences.local),
                (false, other.side.fences.global),
            ]
            .into_iter()
            .all(|(local, fenced)| {
                !fenced
                    || self.get(Key::Item {
                        item: other.from,
                        local,
                    }) >= own.clock
            }),
            None => other.knows.0.iter().all(|&(k, v)| self.get(k) >= v),
        }
    }

    /// Joins what the contribution carries for the memory `fences` names into `knows`.
    fn join_into(&self, knows: &mut Knowledge, fences: Fences) {
        let Some(own) = self.own else {
            knows.join_in(&self.knows, fences);
            return;
        };
        let fences = both_fence(fences, self.side.fences);
        knows.join_in(&self.knows, fences);
        for (local, fenced, n) in [
            (true, fences.local, own.barriers.0),
            (false, fences.global, own.barriers.1),
        ] {
            if fenced {
                knows.raise(
                    Key::Item {
                        item: self.from,
                        local,
                    },
                    own.clock,
                );
                knows.raise(
                    Key::Barriers {
                        group: self.group,
                        local,
                    },
                    n,
                );
            }
        }
    }
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
    /// `acquire` read what contribution `c` released on `location`, without synchronising.
    fn of(c: &Contribution, acquire: &SyncSide, location: &str, why: Why) -> NearMiss {
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
    /// The view of `knows` logged accesses share until it changes (an index of
    /// [`SyncModel::views`]).
    view: Option<u32>,
    /// The last release fence's contribution, which later atomic stores carry.
    fence: Option<Contribution>,
    /// Contributions read by relaxed atomics since the last acquire fence, with what the
    /// read was.
    pending: Vec<(Contribution, SyncSide, String)>,
    misses: Vec<NearMiss>,
}

/// The model's state for one atomic location.
#[derive(Default)]
struct Location {
    /// The work-item whose release started the current release sequence.
    head: Option<u32>,
    contributions: Vec<Contribution>,
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
    /// Knowledge as logged accesses saw it.
    views: Vec<Arc<Knowledge>>,
    /// Groups (by first record id) one of whose work-items learned something since the
    /// group's last barrier: only their barriers have knowledge to share.
    learned: HashSet<u32>,
}

/// Where a logged access stood in the model: its work-item's clock and what it knew.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stamp {
    pub clock: u32,
    pub view: u32,
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

    /// The stamp of an access `item` makes now.
    pub(crate) fn stamp(&mut self, item: u32) -> Stamp {
        let it = item_in(&mut self.items, item);
        let view = match it.view {
            Some(v) => v,
            None => {
                let v = self.views.len() as u32;
                self.views.push(Arc::clone(&it.knows));
                it.view = Some(v);
                v
            }
        };
        Stamp {
            clock: it.clock,
            view,
        }
    }

    /// Whether an access by `x` (group `x_group`, at `x_barriers` barriers of its group that
    /// fenced the memory, `local`) happens before the access stamped `y` by synchronisation.
    pub(crate) fn ordered(
        &self,
        (x, x_group, x_barriers, x_stamp): (u32, u32, u32, Stamp),
        local: bool,
        y: Stamp,
    ) -> bool {
        let Some(knows) = self.views.get(y.view as usize) else {
            return false;
        };
        knows.get(Key::Item { item: x, local }) > x_stamp.clock
            || knows.get(Key::Barriers {
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
                let f = Fences {
                    local: m.release.fences.local && m.acquire.fences.local,
                    global: m.release.fences.global && m.acquire.fences.global,
                };
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
    fn release(
        &mut self,
        item: u32,
        group: u32,
        barriers: (u32, u32),
        side: SyncSide,
    ) -> Contribution {
        let it = self.item(item);
        it.clock += 1;
        Contribution {
            from: item,
            group,
            side,
            knows: Arc::clone(&it.knows),
            own: Some(Own {
                clock: it.clock,
                barriers,
            }),
            mixed: false,
        }
    }

    /// `item` acquires `c` (its scope and `acquire`'s checked), or remembers why not.
    fn acquire(
        &mut self,
        item: u32,
        group: u32,
        c: &Contribution,
        acquire: &SyncSide,
        location: &str,
    ) {
        let why = if !includes(c.side.scope, (c.from, c.group), (item, group)) {
            Some(Why::ReleaseScope)
        } else if !includes(acquire.scope, (item, group), (c.from, c.group))
            || c.mixed && acquire.scope < MemoryScope::Device
        {
            Some(Why::AcquireScope)
        } else {
            None
        };
        let it = item_in(&mut self.items, item);
        if why.is_none() && !c.covered_by(&it.knows, acquire.fences) {
            c.join_into(Arc::make_mut(&mut it.knows), acquire.fences);
            it.view = None;
            self.learned.insert(group);
        }
        let why = why.or_else(|| {
            (both_fence(c.side.fences, acquire.fences) != BOTH).then_some(Why::FenceMemory)
        });
        if let Some(why) = why {
            note_miss(it, NearMiss::of(c, acquire, location, why));
        }
    }

    /// Adds `c` to a location's release sequence: a later release of the same work-item at
    /// the same scope knows all the earlier one did, so it takes its place; device-wide
    /// releases are included by every device-wide acquirer, so they merge into one (a
    /// counter every group increments stays one contribution, not one per group), which a
    /// narrower acquirer then takes only if it came from its own group alone. A release that
    /// carries all the earlier one did (its work-item acquired it first, as an acq_rel
    /// read-modify-write does) replaces it.
    fn contribute(loc: &mut Location, c: Contribution) {
        let wide = c.side.scope >= MemoryScope::Device;
        let same = |o: &Contribution| {
            if wide {
                o.side.scope >= MemoryScope::Device
            } else {
                o.side.scope == c.side.scope && o.from == c.from
            }
        };
        if let Some(o) = loc.contributions.iter_mut().find(|o| same(o)) {
            if c.covers(o) {
                *o = c;
                return;
            }
            let mut knows = Knowledge::default();
            o.join_into(&mut knows, BOTH);
            c.join_into(&mut knows, BOTH);
            let mixed = o.mixed || o.group != c.group;
            *o = Contribution {
                knows: Arc::new(knows),
                own: None,
                mixed,
                ..c
            };
            return;
        }
        if loc.contributions.len() >= CONTRIBUTION_LIMIT {
            loc.contributions.remove(0);
        }
        loc.contributions.push(c);
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
                        m.acquire(item, group, &c, &acquire, &location);
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
                    let contributions = loc.contributions.clone();
                    let relaxed = loc.relaxed_writer.clone();
                    for c in &contributions {
                        if ev.order.acquires() {
                            m.acquire(item, group, c, &side, &location);
                        } else {
                            let it = m.item(item);
                            // A spin-wait reads the same release again and again.
                            let again = it
                                .pending
                                .iter()
                                .any(|(p, read, _)| read.inst == side.inst && p.same_release(c));
                            if !again {
                                it.pending.push((c.clone(), side.clone(), location.clone()));
                            }
                            if c.from == item {
                                continue;
                            }
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
                        (Some(c), true) => SyncModel::contribute(loc, c),
                        (None, true) => {}
                        (Some(c), false) => {
                            loc.contributions.clear();
                            loc.head = Some(item);
                            loc.contributions.push(c);
                        }
                        // A relaxed store continues its own work-item's sequence only (C11
                        // release sequences, which OpenCL C 2.0 follows).
                        (None, false) if loc.head == Some(item) => {}
                        (None, false) => {
                            loc.contributions.clear();
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
                    it.view = None;
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
        let before = m.stamp(1);
        let c = m.release(
            1,
            0,
            (0, 0),
            side(MemoryScope::Device, MemoryOrder::Release),
        );
        let after = m.stamp(1);
        let a = side(MemoryScope::Device, MemoryOrder::Acquire);
        m.acquire(9, 8, &c, &a, "flag");
        let y = m.stamp(9);
        assert!(m.ordered((1, 0, 0, before), false, y));
        assert!(!m.ordered((1, 0, 0, after), false, y), "after the release");
        // At work-group scope the other group is not included.
        let mut m = SyncModel::default();
        let before = m.stamp(1);
        let c = m.release(
            1,
            0,
            (0, 0),
            side(MemoryScope::WorkGroup, MemoryOrder::Release),
        );
        m.acquire(9, 8, &c, &a, "flag");
        let y = m.stamp(9);
        assert!(!m.ordered((1, 0, 0, before), false, y));
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
        let x = m.stamp(2);
        let c = m.release(
            1,
            0,
            (0, 1),
            side(MemoryScope::Device, MemoryOrder::Release),
        );
        m.acquire(
            9,
            8,
            &c,
            &side(MemoryScope::Device, MemoryOrder::Acquire),
            "flag",
        );
        let y = m.stamp(9);
        assert!(
            m.ordered((2, 0, 0, x), false, y),
            "global, before the barrier"
        );
        assert!(
            !m.ordered((2, 0, 1, x), false, y),
            "global, after the barrier"
        );
        assert!(
            !m.ordered((2, 0, 0, x), true, y),
            "local memory was not fenced"
        );
    }
}
