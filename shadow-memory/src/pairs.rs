//! Naming every racing pair: a second run of a racy launch over the bytes the first run found
//! racy.
//!
//! A record keeps one accessor per byte, so which pair of instructions the first run names for
//! a racy byte depends on the order the work-items ran in. When a launch has races inside it,
//! [`Session::run_launch`] runs it again from copies of its buffers as they were before it
//! started, with a [`Probe`] that logs every access to those bytes, and pairs the logged
//! accesses with the records' own relation ([`mar::step`] on a record that holds only the
//! earlier one). The pairs found that way are the same under every schedule as long as the
//! kernel touches the same bytes (its addresses do not depend on the race). The first run's
//! verdicts stay as they are; only the names of its intra-launch race findings are replaced,
//! per buffer and finding kind, by the pairs the second run found there.
//!
//! Cost: a checked launch copies its buffers first (skipped past [`SNAPSHOT_LIMIT`]; the
//! findings then name what the first run saw); a launch with races runs twice.

use crate::checks::sync::{self, SyncModel};
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::mar::{self, Accessor, Op, Stored};
use crate::raw::{side_key, Raw, RawKey, RawSide};
use crate::report::{FindingKind, RaceKind};
use crate::session::{LaunchOrder, Session};
use crate::Scope;
use parking_lot::Mutex;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use shadowcl_interpreter::{
    Access, AddressSpace, AllocId, ArgAccess, ArgAddress, ArgValue, Atomics, Buffer, Device,
    ExecError, InstId, Launch, LaunchStats, NoObserver, Program, Schedule, SourceLoc, WorkItem,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Most bytes of buffers and program variables copied before a checked launch
/// ([`shadowcl_limits::Limits::snapshot_bytes`]).
pub const SNAPSHOT_LIMIT: u64 = shadowcl_limits::LIMITS.snapshot_bytes;
/// Most racy bytes the second run watches (the lowest offsets of each allocation first).
const WATCH_LIMIT: usize = shadowcl_limits::LIMITS.watched_bytes;
/// Most access classes kept per watched byte (see [`ByteLog`]).
const CLASS_LIMIT: usize = shadowcl_limits::LIMITS.access_classes;

/// A byte of device memory: global bytes by buffer, local bytes by buffer slot and group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Byte {
    alloc: AllocId,
    group: [u32; 3],
    offset: u64,
}

/// What a first run collects for the pair pass, per group and then per launch.
#[derive(Default)]
pub(crate) struct Seen {
    /// Bytes with a race between two accesses of this launch.
    racy: Vec<Byte>,
    /// Global bytes this launch wrote for the first time: (buffer, start, end).
    defined: Vec<(AllocId, u64, u64)>,
}

impl Seen {
    fn merge(&mut self, other: Seen) {
        self.racy.extend(other.racy);
        keep_lowest(&mut self.racy, 2 * WATCH_LIMIT);
        self.defined.extend(other.defined);
    }

    /// Global bytes `lo..hi` of `alloc` were written for the first time (joined to the
    /// last range when they follow it).
    pub(crate) fn add_defined(&mut self, alloc: AllocId, lo: u64, hi: u64) {
        match self.defined.last_mut() {
            Some(r) if r.0 == alloc && r.2 == lo => r.2 = hi,
            _ => self.defined.push((alloc, lo, hi)),
        }
    }
}

/// Once `v` holds more than `past` bytes, keeps only the lowest [`WATCH_LIMIT`]: the lowest of
/// the lowest are the lowest of all, so memory stays bounded and the choice order-free.
fn keep_lowest(v: &mut Vec<Byte>, past: usize) {
    if v.len() > past {
        v.sort_unstable();
        v.dedup();
        v.truncate(WATCH_LIMIT);
    }
}

/// How a checker takes part in naming pairs.
pub(crate) enum Pass {
    /// An ordinary run.
    Only,
    /// A run that may be followed by a pair pass: collect [`Seen`], and leave the findings to
    /// [`LaunchChecker::finish`] called after it.
    First(Mutex<Seen>),
    /// The second run: log the accesses to watched bytes, check nothing.
    Second(Probe),
}

impl LaunchChecker<'_> {
    /// A first run notes which bytes of access `a` raced inside the launch (`racy`, bit i =
    /// byte i) and which global bytes it wrote first (`defined`).
    pub(crate) fn note_first_run(seen: &mut Seen, a: &Access<'_>, racy: u128, defined: u128) {
        let group = if a.space == AddressSpace::Local {
            a.item.group
        } else {
            [0; 3]
        };
        for i in set_bits(racy) {
            seen.racy.push(Byte {
                alloc: a.alloc,
                group,
                offset: a.offset + i,
            });
        }
        keep_lowest(&mut seen.racy, 2 * WATCH_LIMIT);
        // By runs of set bits (a word written whole is one run, not four bytes).
        let mut rest = defined;
        while rest != 0 {
            let start = rest.trailing_zeros();
            let len = (rest >> start).trailing_ones();
            let (lo, hi) = (a.offset + start as u64, a.offset + (start + len) as u64);
            seen.add_defined(a.alloc, lo, hi);
            rest &= u128::MAX.checked_shl(start + len).unwrap_or(0);
        }
    }

    pub(crate) fn pass_group_end(&self, g: &mut GroupState) {
        if let Pass::First(seen) = &self.pass {
            let mine = std::mem::take(&mut g.checkers.races.seen);
            if !mine.racy.is_empty() || !mine.defined.is_empty() {
                seen.lock().merge(mine);
            }
        }
    }

    /// The second run: logs an access's watched bytes.
    #[inline(never)]
    pub(crate) fn probe_access(&self, g: &mut GroupState, a: &Access<'_>, probe: &Probe) {
        let alloc = match a.space {
            AddressSpace::Global => match probe.originals.get(&a.alloc) {
                Some(o) => *o,
                None => a.alloc,
            },
            AddressSpace::Local => a.alloc,
            AddressSpace::Constant | AddressSpace::Private => return,
        };
        if !probe.allocs.contains(&alloc) {
            return;
        }
        let local = a.space == AddressSpace::Local;
        let me = g.me(a);
        let (epoch, barriers, barriers_other) = if local {
            (g.epoch_local, g.barriers_local, g.barriers_global)
        } else {
            (g.epoch_global, g.barriers_global, g.barriers_local)
        };
        let op = crate::checks::races::op_of(a.kind);
        let stored = self.stored(a, op);
        let group = if local { a.item.group } else { [0; 3] };
        let mut model = probe.sync.as_ref().map(|m| m.lock());
        let clock = model.as_mut().map_or(0, |m| m.clock(me.item));
        for i in 0..a.size as u64 {
            let byte = Byte {
                alloc,
                group,
                offset: a.offset + i,
            };
            let Some(&at) = probe.index.get(&byte) else {
                continue;
            };
            let mut log = probe.logs[at].lock();
            let value = a.value.get(i as usize).copied().unwrap_or(0);
            let own = op == Op::Read && log.wrote_here(me.item, barriers);
            let entry = Logged {
                seq: probe.seq.fetch_add(1, Ordering::Relaxed),
                me,
                epoch,
                barriers,
                barriers_other,
                op,
                stored,
                defined: log.defined,
                inst: a.inst,
                item: *a.item,
                by_group: a.by_group,
                clock,
                local,
                value,
                own,
            };
            if matches!(op, Op::Write | Op::Atomic) {
                log.defined = true;
                log.note_write(&entry);
            }
            if log.add(entry) {
                if let Some(m) = &model {
                    log.note_synced(&entry, m);
                }
            }
        }
    }
}

/// The positions of the set bits of `mask`, lowest first.
fn set_bits(mut mask: u128) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as u64;
            mask &= mask - 1;
            i
        })
    })
}

/// One logged access to a watched byte.
#[derive(Clone, Copy, Debug)]
struct Logged {
    seq: u64,
    me: Accessor,
    epoch: u8,
    barriers: u32,
    /// Barriers that fenced only the other memory released so far in the group (a
    /// barrier of this count between two accesses does not order them).
    barriers_other: u32,
    op: Op,
    stored: Stored,
    /// The byte held a value before this access.
    defined: bool,
    inst: InstId,
    item: WorkItem,
    by_group: bool,
    /// Its work-item's clock in the happens-before model (launches that synchronise).
    clock: u32,
    /// Local memory (`barriers` counts the barriers that fenced it).
    local: bool,
    /// The byte a write or atomic stored.
    value: u8,
    /// A read by a work-item that wrote the byte itself earlier in its barrier interval.
    own: bool,
}

/// Accesses with the same class race with the same accesses, so a byte keeps two of each
/// (two work-items, or two groups), not every access: a byte many items hit stays small.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Class {
    /// Group, barrier interval and interval of the other memory's barriers (`None` for
    /// the cross-group view).
    within: Option<(u32, u32, Option<u8>, u32)>,
    inst: InstId,
    op: Op,
    stored: Stored,
    defined: bool,
    by_group: bool,
    /// The work-item, in launches that synchronise: accesses of one instruction by
    /// different work-items are ordered differently by synchronisation, so each is kept.
    item: Option<u32>,
    own: bool,
}

#[derive(Default)]
struct ByteLog {
    /// Each work-item's accesses are kept apart ([`Class::item`]).
    by_item: bool,
    defined: bool,
    /// Per group and interval: up to two accesses by different work-items.
    intra: HashMap<Class, Vec<Logged>>,
    /// Across groups: up to two accesses by different groups.
    inter: HashMap<Class, Vec<Logged>>,
    /// In launches that synchronise: the kept writes and read-modify-writes, and the kept
    /// pairs (by `seq`, earlier first) that synchronisation orders, decided as the later
    /// access is made, with what its work-item knows then.
    writers: Vec<Logged>,
    synced: HashSet<(u64, u64)>,
    /// Work-item -> the barrier interval of its latest write or atomic (up to
    /// [`WRITERS_LIMIT`] work-items; a read by one past them is not known to follow its own
    /// write).
    wrote: HashMap<u32, u32>,
    /// (group, barrier interval) -> the one byte every write or atomic of that interval
    /// stored, `None` once two differ.
    stored: HashMap<(u32, u32), Option<u8>>,
    /// Some access was not kept for want of room ([`CLASS_LIMIT`]): the kept ones do not
    /// stand for all.
    overflowed: bool,
}

/// Most work-items per watched byte whose latest write interval is kept (see
/// [`ByteLog::wrote`]).
const WRITERS_LIMIT: usize = 256;

impl ByteLog {
    /// Notes a write or atomic for [`ByteLog::wrote`] and [`ByteLog::stored`].
    fn note_write(&mut self, e: &Logged) {
        let item = e.me.item;
        if self.wrote.len() < WRITERS_LIMIT || self.wrote.contains_key(&item) {
            self.wrote.insert(item, e.barriers);
        }
        self.stored
            .entry((e.me.group_lo, e.barriers))
            .and_modify(|v| {
                if *v != Some(e.value) {
                    *v = None;
                }
            })
            .or_insert(Some(e.value));
    }

    /// Whether `item` wrote the byte in its barrier interval `barriers`.
    fn wrote_here(&self, item: u32, barriers: u32) -> bool {
        self.wrote.get(&item) == Some(&barriers)
    }

    /// Whether read `r` returns the same byte whichever way it races with write `w`: its
    /// work-item wrote the byte earlier in its interval, and every write of its interval and
    /// of `w`'s stored one byte (`flag = 1; ... = flag;` by every item). The sameness is
    /// structural: the reader reads back what it wrote, whoever else wrote too.
    fn reads_back(&self, r: &Logged, w: &Logged) -> bool {
        let one = |e: &Logged| {
            self.stored
                .get(&(e.me.group_lo, e.barriers))
                .copied()
                .flatten()
        };
        r.own && w.op == Op::Write && one(w).is_some() && one(w) == one(r)
    }

    /// Logs `e`; whether it was kept.
    fn add(&mut self, e: Logged) -> bool {
        let item = self.by_item.then_some(e.me.item);
        let class = |within| Class {
            within,
            inst: e.inst,
            op: e.op,
            stored: e.stored,
            defined: e.defined,
            by_group: e.by_group,
            item,
            own: e.own,
        };
        let intra = class(Some((
            e.me.group_lo,
            e.barriers,
            e.me.actor_since,
            e.barriers_other,
        )));
        let a = keep(&mut self.intra, intra, e, |a, b| a.me.item != b.me.item);
        let b = keep(&mut self.inter, class(None), e, |a, b| {
            a.me.group_lo != b.me.group_lo
        });
        self.overflowed |= a.is_none() || b.is_none();
        a == Some(true) || b == Some(true)
    }

    /// Notes which kept accesses before `y` (just kept) synchronisation orders before it:
    /// only those it may race with, so a read is compared with the writes alone.
    fn note_synced(&mut self, y: &Logged, model: &SyncModel) {
        let ordered = |x: &Logged| {
            x.seq != y.seq
                && x.me.item != y.me.item
                && x.op.may_race_with(y.op)
                && model.ordered(
                    (x.me.item, x.me.group_lo, x.barriers, x.clock),
                    x.local,
                    y.me.item,
                )
        };
        let earlier: Vec<u64> = if y.op.writes() {
            let all = self.intra.values().chain(self.inter.values()).flatten();
            all.filter(|x| ordered(x)).map(|x| x.seq).collect()
        } else {
            self.writers
                .iter()
                .filter(|x| ordered(x))
                .map(|x| x.seq)
                .collect()
        };
        self.synced.extend(earlier.into_iter().map(|x| (x, y.seq)));
        if y.op.writes() {
            self.writers.push(*y);
        }
    }
}

/// Keeps `e` in its class unless the class has its two; whether it was kept, `None` when it
/// was a new class past [`CLASS_LIMIT`].
fn keep(
    map: &mut HashMap<Class, Vec<Logged>>,
    class: Class,
    e: Logged,
    differ: impl Fn(&Logged, &Logged) -> bool,
) -> Option<bool> {
    if let Some(v) = map.get_mut(&class) {
        if v.len() < 2 && v.iter().all(|k| differ(k, &e)) {
            v.push(e);
            return Some(true);
        }
        Some(false)
    } else if map.len() < CLASS_LIMIT {
        map.insert(class, vec![e]);
        Some(true)
    } else {
        None
    }
}

/// The second run's observer state: which bytes to log, and the logs.
pub(crate) struct Probe {
    /// Copy id -> the first run's buffer id.
    originals: HashMap<AllocId, AllocId>,
    allocs: HashSet<AllocId>,
    index: HashMap<Byte, usize>,
    logs: Vec<Mutex<ByteLog>>,
    seq: AtomicU64,
    /// The happens-before model, for a launch whose program synchronises.
    pub(crate) sync: Option<Box<Mutex<SyncModel>>>,
}

impl Probe {
    /// The first run's id of an allocation the second run names (its copy's id for a
    /// copied buffer).
    pub(crate) fn original(&self, space: AddressSpace, alloc: AllocId) -> AllocId {
        match space {
            AddressSpace::Global | AddressSpace::Constant => {
                self.originals.get(&alloc).copied().unwrap_or(alloc)
            }
            _ => alloc,
        }
    }
}

/// What the watched bytes tell of one racing pair.
struct PairFound {
    bytes: u64,
    /// The work-items of the first byte's pair.
    items: (WorkItem, WorkItem),
    /// The first byte's offset.
    offset: u64,
    /// Some byte's pair has a barrier between its accesses that fenced only the other
    /// memory.
    across: bool,
    /// A synchronisation between the two work-items that did not order them, explained.
    sync: Option<Explained>,
    /// Every byte's write stored the value already there (on this input).
    unchanged: bool,
}

/// What one byte tells of one racing pair (see [`PairFound`]).
struct Here {
    items: (WorkItem, WorkItem),
    across: bool,
    sync: Option<Explained>,
    unchanged: bool,
}

/// A synchronisation that did not happen: the sentence and the report's field.
type Explained = (String, crate::Synchronisation);

/// A racing pair: both accesses and how they race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct PairKey {
    benign: bool,
    race: RaceKind,
    scope: Scope,
    first: (InstId, &'static str, bool),
    second: (InstId, &'static str, bool),
}

impl Probe {
    /// The pairs that race on each watched byte, as raw findings (count = bytes).
    fn pairs(
        &self,
        memory_of: impl Fn(AllocId) -> AddressSpace,
        location_of: &dyn Fn(InstId) -> Option<SourceLoc>,
    ) -> Vec<(Raw, AllocId)> {
        let model = self.sync.as_ref().map(|m| m.lock());
        // Whether synchronisation orders `x` before `y` (as the byte's log noted), and else
        // what may say why not.
        let sync_order = |log: &ByteLog, x: &Logged, y: &Logged| -> (bool, Option<Explained>) {
            let Some(m) = &model else {
                return (false, None);
            };
            if log.synced.contains(&(x.seq, y.seq)) {
                return (true, None);
            }
            let why = m
                .misses(y.me.item, x.me.item, x.me.group_lo, x.local)
                .or_else(|| m.misses(x.me.item, y.me.item, y.me.group_lo, x.local))
                .map(|miss| sync::explain(miss, location_of));
            (false, why)
        };
        let mut found: BTreeMap<(AllocId, PairKey), PairFound> = BTreeMap::new();
        let mut bytes: Vec<(&Byte, &usize)> = self.index.iter().collect();
        bytes.sort();
        for (byte, &at) in bytes {
            let log = self.logs[at].lock();
            let mut here: HashMap<PairKey, Here> = HashMap::default();
            let mut buckets: HashMap<u32, Vec<Logged>> = HashMap::default();
            for e in log.intra.values().flatten() {
                buckets.entry(e.me.group_lo).or_default().push(*e);
            }
            let inter: Vec<Logged> = log.inter.values().flatten().copied().collect();
            let lists = buckets.values().map(|l| (l, true)).chain([(&inter, false)]);
            for (list, same_group) in lists {
                // Every racing pair has a write or an atomic read-modify-write in it, so the
                // pairs are taken from those: a byte many work-items read and one writes
                // (a launch that synchronises logs each item apart) costs the readers once,
                // not once per pair of readers.
                for w in list.iter().filter(|e| e.op.writes()) {
                    for o in list {
                        if o.op.writes() && o.seq <= w.seq || !w.op.may_race_with(o.op) {
                            continue;
                        }
                        let (x, y) = if w.seq < o.seq { (w, o) } else { (o, w) };
                        if x.me.item == y.me.item {
                            continue;
                        }
                        if same_group != (x.me.group_lo == y.me.group_lo) {
                            continue;
                        }
                        let across = same_group && x.barriers_other != y.barriers_other;
                        let pairs = race(x, y);
                        if pairs.is_empty() {
                            continue;
                        }
                        let (ordered, why) = sync_order(&log, x, y);
                        if ordered {
                            continue;
                        }
                        let unchanged = w.stored != Stored::New;
                        let read = if o.op == Op::Read { Some(o) } else { None };
                        let read_back = read.is_some_and(|r| log.reads_back(r, w));
                        for (mut key, items) in pairs {
                            if read_back && key.race == RaceKind::ReadWrite {
                                key.benign = true;
                            }
                            let e = here.entry(key).or_insert(Here {
                                items,
                                across: false,
                                sync: None,
                                unchanged: true,
                            });
                            e.across |= across;
                            e.unchanged &= unchanged;
                            if e.sync.is_none() {
                                e.sync.clone_from(&why);
                            }
                        }
                    }
                }
            }
            for (key, h) in here {
                let e = found.entry((byte.alloc, key)).or_insert(PairFound {
                    bytes: 0,
                    items: h.items,
                    offset: byte.offset,
                    across: false,
                    sync: None,
                    unchanged: true,
                });
                e.bytes += 1;
                e.across |= h.across;
                e.unchanged &= h.unchanged;
                if e.sync.is_none() {
                    e.sync = h.sync;
                }
            }
        }
        found
            .into_iter()
            .map(|((alloc, k), p)| {
                let side = |s: (InstId, &'static str, bool)| RawSide::Here {
                    inst: Some(s.0),
                    access: s.1,
                    group: s.2,
                };
                let (first, second) = (side(k.first), side(k.second));
                let kind = if k.benign {
                    FindingKind::BenignRace
                } else {
                    FindingKind::DataRace
                };
                let raw = Raw {
                    sync: p.sync.as_ref().map(|(_, field)| Box::new(field.clone())),
                    key: RawKey {
                        kind,
                        race: Some(k.race),
                        scope: Some(k.scope),
                        memory: Some(memory_of(alloc)),
                        alloc: Some(alloc),
                        first: Some(side_key(&first)),
                        second: Some((k.second.1, Some(k.second.0))),
                    },
                    offset: Some(p.offset as i64),
                    first: Some((first, Some(p.items.0))),
                    second: Some((second, Some(p.items.1))),
                    count: p.bytes,
                    message: pair_message(&k, &p, memory_of(alloc)),
                };
                (raw, alloc)
            })
            .collect()
    }
}

/// What a pair's report says beside the two accesses: a barrier that fenced only the other
/// memory, a synchronisation that did not order them, or how to read memory others update
/// atomically.
fn pair_message(k: &PairKey, p: &PairFound, memory: AddressSpace) -> String {
    let mut parts = Vec::new();
    if p.across {
        parts.push(other_fence_only(memory));
    }
    if let Some((why, _)) = &p.sync {
        parts.push(why.clone());
    }
    if k.race == RaceKind::ReadWrite && !k.benign && p.unchanged {
        parts.push(
            "the write stored the value already there, so the race hid no wrong value on \
             this input; another input stores another value"
                .to_string(),
        );
    }
    if k.race == RaceKind::AtomicPlain && (k.first.1 == "read" || k.second.1 == "read") {
        parts.push(
            "a plain read of memory other work-items update atomically races with them: read \
             it with an atomic (atomic_load_explicit, or atomic_or(p, 0) in OpenCL 1.2), or \
             order the two with a barrier"
                .to_string(),
        );
    }
    parts.join("; ")
}

/// Why two accesses of one group to `memory` with a barrier between them still race.
fn other_fence_only(memory: AddressSpace) -> String {
    let (fenced, flag, this) = match memory {
        AddressSpace::Local => ("__global", "CLK_LOCAL_MEM_FENCE", "__local"),
        _ => ("__local", "CLK_GLOBAL_MEM_FENCE", "__global"),
    };
    format!(
        "a barrier between these accesses fences only {fenced} memory, which does not order \
         {this} memory: it needs {flag}"
    )
}

/// How `x` (earlier) and `y` race, by the records' own rules: a record that holds only `x`
/// stepped with `y`. Each race kind gives one pair, its sides in a fixed order (by
/// instruction), so the same two accesses name the same pair whichever ran first.
fn race(x: &Logged, y: &Logged) -> Vec<(PairKey, (WorkItem, WorkItem))> {
    let same_group = x.me.group_lo == y.me.group_lo;
    // Epochs are 7 bits in a record; intervals far apart are ordered whatever they wrap to.
    if same_group && y.barriers.wrapping_sub(x.barriers) >= mar::AGE_EVERY as u32 {
        return Vec::new();
    }
    let start = if x.defined { mar::INITIALISED } else { 0 };
    let mut rec = mar::step(start, &x.me, 1, x.epoch, x.op, x.stored).new;
    if y.defined {
        rec |= mar::INIT_BIT;
    }
    let s = mar::step(rec, &y.me, 1, y.epoch, y.op, y.stored);
    let side = |l: &Logged| (l.inst, l.op.name(), l.by_group);
    s.conflicts
        .iter_all()
        .filter_map(|(race, c)| {
            let c = c?;
            let (a, b) = (side(x), side(y));
            let (first, second, fi, si) = if a <= b {
                (a, b, x.item, y.item)
            } else {
                (b, a, y.item, x.item)
            };
            Some((
                PairKey {
                    benign: c.benign,
                    race,
                    scope: c.scope,
                    first,
                    second,
                },
                (fi, si),
            ))
        })
        .collect()
}

/// Copies of a launch's buffers and program variables taken before it runs.
struct Snapshot {
    launch: Launch,
    variables: Vec<Arc<Buffer>>,
    originals: HashMap<AllocId, AllocId>,
    /// The copies made, handed back to the session's spares when the launch is done.
    copies: Vec<Arc<Buffer>>,
}

impl Snapshot {
    /// `spares`: copies of earlier launches, reused when a length matches.
    fn take(program: &Program, launch: &Launch, spares: &mut Vec<Arc<Buffer>>) -> Option<Snapshot> {
        // Buffers the kernel can only read (`__constant` pointers, pointers it never writes
        // through, read-only images) hold the same bytes in the second run: shared, not
        // copied, unless another argument can write them. (`const` alone proves nothing: a
        // cast takes it away.)
        let params = program.kernel(&launch.kernel).map(|k| k.args.as_slice());
        let read_only = |i: usize| {
            params.and_then(|p| p.get(i)).is_some_and(|p| {
                p.address == ArgAddress::Constant
                    || p.never_written
                    || p.access == ArgAccess::ReadOnly
            })
        };
        let written: HashSet<AllocId> = (launch.args.iter().enumerate())
            .filter(|(i, _)| !read_only(*i))
            .filter_map(|(_, a)| match a {
                ArgValue::Buffer { buffer, .. } | ArgValue::Image { buffer, .. } => {
                    Some(buffer.id())
                }
                _ => None,
            })
            .collect();
        let mut copies: HashMap<AllocId, Arc<Buffer>> = HashMap::default();
        let mut total = 0u64;
        let mut copy = |b: &Arc<Buffer>| -> Option<Arc<Buffer>> {
            if !written.contains(&b.id()) {
                return Some(b.clone());
            }
            if let Some(c) = copies.get(&b.id()) {
                return Some(c.clone());
            }
            total += b.len() as u64;
            if total > SNAPSHOT_LIMIT {
                return None;
            }
            let c = match spares.iter().position(|s| s.len() == b.len()) {
                Some(i) => {
                    let c = spares.swap_remove(i);
                    c.overwrite_with(b).ok()?;
                    c
                }
                None => b.copy()?,
            };
            copies.insert(b.id(), c.clone());
            Some(c)
        };
        let mut args = Vec::with_capacity(launch.args.len());
        for a in &launch.args {
            args.push(match a {
                ArgValue::Buffer {
                    buffer,
                    offset,
                    size,
                } => ArgValue::Buffer {
                    buffer: copy(buffer)?,
                    offset: *offset,
                    size: *size,
                },
                ArgValue::Image { buffer, desc } => ArgValue::Image {
                    buffer: copy(buffer)?,
                    desc: *desc,
                },
                other => other.clone(),
            });
        }
        let variables = program.copy_variables()?;
        total += variables.iter().map(|v| v.len() as u64).sum::<u64>();
        if total > SNAPSHOT_LIMIT {
            return None;
        }
        let mut originals: HashMap<AllocId, AllocId> =
            copies.iter().map(|(o, c)| (c.id(), *o)).collect();
        originals.extend(
            program
                .variables()
                .iter()
                .zip(&variables)
                .map(|(o, c)| (c.id(), o.id())),
        );
        Some(Snapshot {
            launch: Launch {
                args,
                ..launch.clone()
            },
            variables,
            originals,
            copies: copies.into_values().collect(),
        })
    }
}

impl Session {
    /// Runs `launch` on `device` under the checkers (the platform's launch path): when the
    /// launch has races between its own work-items, a second run from copies of its inputs
    /// names every racing pair (see the module comment). `id` numbers the launch in reports.
    pub fn run_launch(
        &self,
        device: &Device,
        program: &Program,
        launch: &Launch,
        schedule: &Schedule,
        id: u64,
        order: &dyn LaunchOrder,
    ) -> Result<LaunchStats, ExecError> {
        let describe = self.schedule_name(schedule);
        if !self.checks().any() {
            // Nothing to check (a session kept for its report files): the unobserved
            // executor, at checks-off speed; the report still lists the launch.
            let result = device.run(program, launch, schedule, &NoObserver);
            self.unobserved_launch(id, launch, describe);
            return result;
        }
        let races = self.checks().race_records();
        // The happens-before model follows atomics in the order they reached memory, which
        // the checker hears of in that order only when one thread runs the groups (fair
        // scheduling still interleaves them, the same way at every run).
        let serial;
        let schedule = if races && program.synchronises() {
            serial = Schedule {
                threads: 1,
                ..schedule.clone()
            };
            &serial
        } else {
            schedule
        };
        let snapshot = races
            .then(|| Snapshot::take(program, launch, &mut self.spares.lock()))
            .flatten();
        let mut checker = self.launch(program, id, &describe, order);
        if snapshot.is_some() {
            checker.pass = Pass::First(Mutex::new(Seen::default()));
        }
        let result = device.run(program, launch, schedule, &checker);
        if let (Some(snap), Ok(_), Pass::First(seen)) = (&snapshot, &result, &checker.pass) {
            let seen = std::mem::take(&mut *seen.lock());
            if !seen.racy.is_empty() {
                self.name_pairs(&checker, device, program, schedule, snap, seen);
            }
        }
        checker.finish();
        if let Some(snap) = snapshot {
            self.keep_spares(snap);
        }
        result
    }

    /// Keeps a launch's copies for the next launch (up to [`SNAPSHOT_LIMIT`] bytes, newest
    /// first): an application launches the same kernel on the same buffers again and again, and
    /// allocating then freeing big copies each time makes the C allocator keep ever more memory.
    fn keep_spares(&self, snap: Snapshot) {
        let Snapshot { launch, copies, .. } = snap;
        drop(launch);
        let mut spares = self.spares.lock();
        let mut kept: Vec<Arc<Buffer>> = copies
            .into_iter()
            .filter(|c| Arc::strong_count(c) == 1)
            .collect();
        kept.append(&mut spares);
        let mut total = 0u64;
        kept.retain(|c| {
            total += c.len() as u64;
            total <= SNAPSHOT_LIMIT
        });
        *spares = kept;
    }

    fn name_pairs(
        &self,
        checker: &LaunchChecker<'_>,
        device: &Device,
        program: &Program,
        schedule: &Schedule,
        snap: &Snapshot,
        mut seen: Seen,
    ) {
        // The first bytes in (buffer, group, offset) order, so the choice does not depend on
        // the order the races were found in.
        keep_lowest(&mut seen.racy, 0);
        // Synchronisation decides which of the first run's races are races at all, and it
        // can decide only for the bytes the second run watches. Relaxed atomics order
        // nothing, but the model still says so in the reports.
        let atomics = checker.program.atomics();
        let synchronises = atomics != Atomics::None;
        let watched_all = seen.racy.len() < WATCH_LIMIT;
        let decided = atomics == Atomics::Ordering && watched_all;
        // Disjoint (a byte is first written once), sorted for a binary search.
        let mut defined_here: HashMap<AllocId, Vec<(u64, u64)>> = HashMap::default();
        for (a, lo, hi) in &seen.defined {
            defined_here.entry(*a).or_default().push((*lo, *hi));
        }
        for ranges in defined_here.values_mut() {
            ranges.sort_unstable();
        }
        let first_written = |b: &Byte| {
            defined_here.get(&b.alloc).is_some_and(|r| {
                let i = r.partition_point(|(lo, _)| *lo <= b.offset);
                i > 0 && b.offset < r[i - 1].1
            })
        };
        // Whether a global byte held a value before the launch: written at least once by
        // the end of it, and not first by it.
        let defined_before = |b: &Byte| {
            if b.alloc.is_local() {
                return false;
            }
            let Some(shadow) = self.shadows.read().get(&b.alloc).cloned() else {
                return true;
            };
            let now = shadow
                .record(b.offset)
                .is_some_and(|r| r & mar::INIT_BIT != 0);
            now && !first_written(b)
        };
        let probe = Probe {
            originals: snap.originals.clone(),
            allocs: seen.racy.iter().map(|b| b.alloc).collect(),
            index: seen.racy.iter().enumerate().map(|(i, b)| (*b, i)).collect(),
            logs: seen
                .racy
                .iter()
                .map(|b| {
                    Mutex::new(ByteLog {
                        defined: defined_before(b),
                        by_item: synchronises,
                        ..ByteLog::default()
                    })
                })
                .collect(),
            seq: AtomicU64::new(0),
            sync: synchronises.then(|| Box::new(Mutex::new(SyncModel::default()))),
        };
        // The second run checks nothing of its own: a private session keeps its records.
        let private = Session::new(self.config.clone());
        let mut second = private.launch(
            checker.program,
            checker.id,
            &checker.schedule,
            &crate::Sequential,
        );
        second.pass = Pass::Second(probe);
        let serial = Schedule {
            threads: 1,
            ..schedule.clone()
        };
        let schedule = if synchronises { &serial } else { schedule };
        let rerun = device.run_again(program, &snap.launch, schedule, &second, &snap.variables);
        let Pass::Second(probe) = std::mem::replace(&mut second.pass, Pass::Only) else {
            return;
        };
        drop(second);
        if let Err(e) = rerun {
            tracing::warn!("shadowcl: the pair-naming run failed ({e}); first-run names kept");
            return;
        }
        let memory_of = |a: AllocId| {
            if a.is_local() {
                AddressSpace::Local
            } else {
                AddressSpace::Global
            }
        };
        let location_of = |inst: InstId| checker.program.location(inst);
        let complete = watched_all && !probe.logs.iter().any(|l| l.lock().overflowed);
        let pairs = probe.pairs(memory_of, &location_of);
        checker.adopt_pairs(pairs, self.checks(), decided, complete);
    }
}

impl LaunchChecker<'_> {
    /// Replaces this launch's intra-launch race findings by the named pairs, for each buffer
    /// and finding kind the second run found pairs for; verdicts stay the first run's, but
    /// where the pairs `decided` them (synchronisation, which only the second run follows):
    /// then a verdict the second run found no pair for is dropped. When the second run
    /// logged every access to every racy byte (`complete`), its pairs also say which races
    /// are benign: a read that reads back its own write is one the records cannot see.
    fn adopt_pairs(
        &self,
        pairs: Vec<(Raw, AllocId)>,
        checks: crate::Checks,
        decided: bool,
        complete: bool,
    ) {
        let mut raw = self.raw.lock();
        let verdict = |r: &Raw| {
            let kind = match r.key.kind {
                FindingKind::BenignRace if complete => FindingKind::DataRace,
                k => k,
            };
            (kind, r.key.alloc)
        };
        let intra_launch =
            |r: &Raw| r.key.race.is_some() && r.key.scope.is_some_and(|s| s != Scope::InterKernel);
        let had: HashSet<_> = raw
            .list
            .iter()
            .filter(|r| intra_launch(r))
            .map(verdict)
            .collect();
        let wanted = |k: FindingKind| match k {
            FindingKind::BenignRace => checks.benign,
            _ => checks.races,
        };
        let found: Vec<Raw> = pairs
            .into_iter()
            .map(|(r, _)| r)
            .filter(|r| had.contains(&verdict(r)))
            .collect();
        let replaced: HashSet<_> = found.iter().map(verdict).collect();
        let named: Vec<Raw> = found.into_iter().filter(|r| wanted(r.key.kind)).collect();
        let kept: Vec<Raw> = std::mem::take(&mut raw.list)
            .into_iter()
            .filter(|r| {
                let decided_here = decided
                    && r.key.race.is_some()
                    && matches!(r.key.scope, Some(Scope::IntraGroup | Scope::InterGroup));
                !(decided_here || intra_launch(r) && replaced.contains(&verdict(r)))
            })
            .collect();
        raw.index.clear();
        for r in kept.into_iter().chain(named) {
            raw.add(r);
        }
    }
}

#[cfg(test)]
mod tests;
