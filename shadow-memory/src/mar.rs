//! Memory access records (MARs), one packed `u64` per byte of device memory.
//!
//! After KLEE-CL (docs/design.md, "Per-byte shadow records") with three extensions: atomic
//! flags, an "initialised" bit, and a per-group barrier *epoch* stored in the record, so a
//! barrier is O(1) (no sweep): a record last touched by the same group in an older epoch is
//! ordered before the current access.
//!
//! Layout (bit 0 = least significant):
//!
//! | bits   | field | meaning |
//! |--------|-------|---------|
//! | 0..28  | item  | last accessing work-item, session-unique id (0 = none since reset) |
//! | 28..39 | site  | interned instruction of that access (0 = unknown) |
//! | 39     | one   | every access E counts was made at that site (so an unidentified party's line is known) |
//! | 40..47 | epoch | that item's group barrier epoch at the access (wraps at 128) |
//! | 47..49 | last  | kind of that access ([`Op`]: 0 atomic read, 1 read, 2 write, 3 atomic; meaningless while item is 0); an earlier access stays when it races with all the new one races with (see `covers`) |
//! | 49..52 | E     | read / written / atomic by items of the last group in its current epoch; 0 = atomically read only |
//! | 52     | many  | read or atomic by two or more items in that epoch (KLEE-CL's many-read) |
//! | 53     | ok    | the O flags include accesses by other launches (for the race's scope) |
//! | 54..57 | H     | the E kinds, by the last group since the last full sync; 0 = atomically read only |
//! | 57..61 | O     | read / written / atomic / atomically read by *other* groups or launches (KLEE-CL's wg-many-read, generalised) |
//! | 61     | sv_e  | every write counted in E put back the value already there ([`Stored::Back`]: a racing read is benign) |
//! | 62     | sv_o  | the same for the writes counted in H and O |
//! | 63     | init  | written at least once (by host or kernel) |
//!
//! An atomic read (an atomic load, a failed compare-exchange) races with plain writes only, and
//! every other kind races with those too: beside another kind it adds nothing, so E and H
//! (never empty once a record names an item) store "only atomically read" as 0 and otherwise
//! leave it out; O, which may be empty, has a bit for it. In a group epoch that already has
//! other kinds of access an atomic read leaves the record as it is (see `step`).
//!
//! When E is not `many`, every access it counts was made by the recorded item or already
//! raced with it, so a conflict with any kind in E is a conflict with that item: this keeps an
//! item's plain read that its own later atomic replaced as `last`.
//!
//! Work-item ids are allocated per launch in one contiguous range, each group a contiguous
//! sub-range, so "same group" and "other launch" are range tests on the item id.
//!
//! Performance: `step` runs for every record of every checked access. It is one long function on
//! purpose: split into parts it cost 13% of checks-on time. It answers a settled shared read
//! (`settled_read`) before the whole step; a property test in `mar/tests.rs` holds the two to
//! the same answer, so a change of the record rules that breaks the shortcut fails there. A
//! plain read of memory the launch never writes leaves a record as it is when the record
//! already names such a read of this launch (`read_only_settled`); a property test holds it to
//! the full step for every access that can still come.

use crate::report::RaceKind;

/// What the current access does; also the bit order of the E, H and O flag sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    Read = 0,
    Write = 1,
    /// An atomic read-modify-write.
    Atomic = 2,
    /// An atomic that only reads (an atomic load, a compare-exchange that failed): it races
    /// with plain writes only.
    AtomicRead = 3,
}

impl Op {
    fn bit(self) -> u64 {
        1 << self as u64
    }
    const ALL: [Op; 4] = [Op::Read, Op::Write, Op::Atomic, Op::AtomicRead];
    /// `last` has two bits and no "none" (a record with item 0 has no last access).
    fn from_last(v: u64) -> Op {
        match v & 0b11 {
            0 => Op::AtomicRead,
            1 => Op::Read,
            2 => Op::Write,
            _ => Op::Atomic,
        }
    }
    fn to_last(self) -> u64 {
        match self {
            Op::AtomicRead => 0,
            Op::Read => 1,
            Op::Write => 2,
            Op::Atomic => 3,
        }
    }
    /// Whether the access changes memory (a plain write or an atomic read-modify-write).
    pub fn writes(self) -> bool {
        matches!(self, Op::Write | Op::Atomic)
    }
    /// Whether an access of this kind can race with one of `other`'s: one of them writes,
    /// and they are not both atomic.
    pub fn may_race_with(self, other: Op) -> bool {
        let atomic = |op| matches!(op, Op::Atomic | Op::AtomicRead);
        (self.writes() || other.writes()) && !(atomic(self) && atomic(other))
    }
    /// The name in reports: an atomic read is an atomic access like any other.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Atomic | Op::AtomicRead => "atomic",
        }
    }
}

/// Bits of a record's item id ([`shadowcl_limits::Limits::race_item_ids`] ids).
pub const ITEM_BITS: u32 = shadowcl_limits::LIMITS.race_item_ids.trailing_zeros();
pub const MAX_ITEM: u64 = (1 << ITEM_BITS) - 1;
const _: () = assert!(1 << ITEM_BITS == shadowcl_limits::LIMITS.race_item_ids);
pub const SITE_BITS: u32 = 11;
pub const MAX_SITE: u32 = (1 << SITE_BITS) - 1;

const SITE_SHIFT: u32 = 28;
const ONE_SITE_BIT: u64 = 1 << 39;
const EPOCH_SHIFT: u32 = 40;
/// Epochs are 7 bits: a group ages its records every [`AGE_EVERY`] barriers.
const EPOCH_MASK: u64 = 0x7F;
/// Barriers between two agings of a group's records (half the epoch range).
pub const AGE_EVERY: u8 = 64;
const LAST_SHIFT: u32 = 47;
const E_SHIFT: u32 = 49;
const MANY_BIT: u64 = 1 << 52;
const OTHER_KERNEL_BIT: u64 = 1 << 53;
const H_SHIFT: u32 = 54;
const O_SHIFT: u32 = 57;
const SV_E_BIT: u64 = 1 << 61;
const SV_O_BIT: u64 = 1 << 62;
pub const INIT_BIT: u64 = 1 << 63;
/// One bit per [`Op`] (the O field).
const KINDS: u64 = 0b1111;
/// The plain kinds and plain atomics (the E and H fields).
const PLAIN_KINDS: u64 = 0b111;

/// E and H: a set that holds only an atomic read is stored as 0, and an atomic read beside
/// another kind is left out (that kind races with everything it would).
fn pack_nonempty(kinds: u64) -> u64 {
    if kinds == Op::AtomicRead.bit() {
        0
    } else {
        kinds & PLAIN_KINDS
    }
}

fn unpack_nonempty(raw: u64) -> u64 {
    match raw & PLAIN_KINDS {
        0 => Op::AtomicRead.bit(),
        k => k,
    }
}

/// A record with every byte marked initialised (buffers created from host data).
pub const INITIALISED: u64 = INIT_BIT;

/// Who is accessing, precomputed once per work-item.
#[derive(Clone, Copy, Debug)]
pub struct Accessor {
    pub item: u32,
    /// This work-item's group: items `group_lo..group_hi`.
    pub group_lo: u32,
    pub group_hi: u32,
    /// This launch: items `launch_lo..launch_hi`.
    pub launch_lo: u32,
    pub launch_hi: u32,
    /// The id of this group's async copies (within `group_lo..group_hi`).
    pub actor: u32,
    /// While a copy is in flight, the epoch it started in: the copy's accesses since then
    /// are unordered with the group's, across barriers, until the group waits for it.
    pub actor_since: Option<u8>,
}

/// How the previous accessor relates to the current one.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    IntraGroup,
    InterGroup,
    InterKernel,
    /// Between a kernel and a host command (read, write, copy, fill of a buffer or image):
    /// the records see it as inter-kernel; the report names it ([`crate::launch`]).
    HostCommand,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::IntraGroup => "intra-group",
            Scope::InterGroup => "inter-group",
            Scope::InterKernel => "inter-kernel",
            Scope::HostCommand => "host-command",
        }
    }
}

/// What a plain write stored, against what its bytes held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stored {
    /// Other bytes, or bytes that held no value; also every access that is not a plain write.
    New,
    /// The bytes already there, on this input.
    Same,
    /// The bytes already there, put back by a store of what its work-item read there
    /// (`Program::stores_back`): the same whatever the input.
    Back,
}

impl Stored {
    /// What a write stored: `same`, the bytes already there; `back`, asked only then,
    /// whether its instruction stores what its work-item read there.
    #[inline]
    pub fn of(same: bool, back: impl FnOnce() -> bool) -> Stored {
        match same {
            false => Stored::New,
            true if back() => Stored::Back,
            true => Stored::Same,
        }
    }
}

/// The earlier access a conflict is with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Party {
    pub op: Op,
    /// The earlier work-item and instruction when known; `None` when the conflict comes from a
    /// summary flag (the record keeps only the last accessor's identity). The item is 0 when
    /// only the instruction is known (every access of the epoch was at one).
    pub who: Option<(u32, u16)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub first: Party,
    pub scope: Scope,
    /// A benign race (docs/design.md, "Benign races"): two writes of the value already
    /// there, or a read (and a write) racing only with writes that put back what was there
    /// ([`Stored::Back`]). A read racing a write that stored the same bytes on this input
    /// only is a data race: the next input stores others.
    pub benign: bool,
}

/// Decoded view of a record.
#[derive(Clone, Copy, Debug)]
struct Rec(u64);

impl Rec {
    fn item(self) -> u32 {
        (self.0 & MAX_ITEM) as u32
    }
    fn site(self) -> u16 {
        ((self.0 >> SITE_SHIFT) & MAX_SITE as u64) as u16
    }
    fn epoch(self) -> u8 {
        ((self.0 >> EPOCH_SHIFT) & EPOCH_MASK) as u8
    }
    fn last(self) -> Option<Op> {
        (self.item() != 0).then(|| Op::from_last(self.0 >> LAST_SHIFT))
    }
    fn e(self) -> u64 {
        unpack_nonempty(self.0 >> E_SHIFT)
    }
    fn h(self) -> u64 {
        unpack_nonempty(self.0 >> H_SHIFT)
    }
    fn o(self) -> u64 {
        (self.0 >> O_SHIFT) & KINDS
    }
    fn many(self) -> bool {
        self.0 & MANY_BIT != 0
    }
    fn other_kernel(self) -> bool {
        self.0 & OTHER_KERNEL_BIT != 0
    }
    fn one_site(self) -> bool {
        self.0 & ONE_SITE_BIT != 0
    }
    fn sv_e(self) -> bool {
        self.0 & SV_E_BIT != 0
    }
    fn sv_o(self) -> bool {
        self.0 & SV_O_BIT != 0
    }
}

/// The fields of a record before packing.
struct Fields {
    item: u32,
    site: u16,
    one_site: bool,
    epoch: u8,
    last: Op,
    e: u64,
    many: bool,
    h: u64,
    o: u64,
    other_kernel: bool,
    sv_e: bool,
    sv_o: bool,
    init: bool,
}

impl Fields {
    fn pack(self) -> u64 {
        (self.item as u64 & MAX_ITEM)
            | ((self.site as u64 & MAX_SITE as u64) << SITE_SHIFT)
            | if self.one_site { ONE_SITE_BIT } else { 0 }
            | ((self.epoch as u64 & EPOCH_MASK) << EPOCH_SHIFT)
            | (self.last.to_last() << LAST_SHIFT)
            | (pack_nonempty(self.e) << E_SHIFT)
            | if self.many { MANY_BIT } else { 0 }
            | (pack_nonempty(self.h) << H_SHIFT)
            | ((self.o & KINDS) << O_SHIFT)
            | if self.other_kernel {
                OTHER_KERNEL_BIT
            } else {
                0
            }
            | if self.sv_e { SV_E_BIT } else { 0 }
            | if self.sv_o { SV_O_BIT } else { 0 }
            | if self.init { INIT_BIT } else { 0 }
    }
}

/// Whether `op` conflicts with an earlier access of kind `earlier` by another work-item:
/// a plain write with everything, an atomic with plain accesses, an atomic read with plain
/// writes, a plain read with writes and read-modify-writes.
fn conflicts(op: Op, earlier: Op) -> bool {
    races_with(earlier) & op.bit() != 0
}

/// The kinds (a bit set of [`Op`]s) an access of kind `k` races with, in either order.
fn races_with(k: Op) -> u64 {
    const R: u64 = 1 << Op::Read as u64;
    const W: u64 = 1 << Op::Write as u64;
    const A: u64 = 1 << Op::Atomic as u64;
    const AR: u64 = 1 << Op::AtomicRead as u64;
    match k {
        Op::Write => R | W | A | AR,
        Op::Read => W | A,
        Op::Atomic => R | W,
        Op::AtomicRead => W,
    }
}

/// Whether an earlier access of kind `earlier` races with every later access that one of
/// kind `op` races with: the record may then keep naming `earlier` (the other is implied).
fn covers(earlier: Op, op: Op) -> bool {
    races_with(op) & !races_with(earlier) == 0
}

/// The most telling earlier kind in a flag set that conflicts with `op` (writes first).
fn conflicting(op: Op, flags: u64) -> Option<Op> {
    [Op::Write, Op::Read, Op::Atomic, Op::AtomicRead]
        .into_iter()
        .find(|k| flags & k.bit() != 0 && conflicts(op, *k))
}

/// The race kind of a conflict between `op` and an `earlier` access.
pub fn race_kind(op: Op, earlier: Op) -> RaceKind {
    match (op, earlier) {
        (Op::Atomic | Op::AtomicRead, _) | (_, Op::Atomic | Op::AtomicRead) => {
            RaceKind::AtomicPlain
        }
        (Op::Write, Op::Write) => RaceKind::WriteWrite,
        _ => RaceKind::ReadWrite,
    }
}

/// The conflicts of one access with a byte's earlier accesses: at most one per race kind, so
/// an access that races with both a read and a write of others reports both whichever came
/// last (the record's `last` would otherwise hide one, depending on the schedule).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conflicts([Option<Conflict>; 3]);

impl Conflicts {
    const KINDS: [RaceKind; 3] = [
        RaceKind::WriteWrite,
        RaceKind::ReadWrite,
        RaceKind::AtomicPlain,
    ];

    fn slot(kind: RaceKind) -> usize {
        match kind {
            RaceKind::WriteWrite => 0,
            RaceKind::ReadWrite => 1,
            RaceKind::AtomicPlain => 2,
        }
    }

    /// Finds, for each race kind `op` can be in, the conflict `search` gives among the earlier
    /// kinds of that race kind (a bit set of [`Op`]s).
    fn find(op: Op, any: bool, search: impl Fn(u64) -> Option<Conflict>) -> Conflicts {
        let mut out = Conflicts::default();
        if !any {
            return out;
        }
        for kind in Self::KINDS {
            let earlier = Op::ALL
                .into_iter()
                .filter(|k| conflicts(op, *k) && race_kind(op, *k) == kind)
                .fold(0, |m, k| m | k.bit());
            if earlier != 0 {
                out.0[Self::slot(kind)] = search(earlier);
            }
        }
        out
    }

    /// Whether the access conflicts with anything.
    #[inline(always)]
    pub fn any(&self) -> bool {
        self.0.iter().any(Option::is_some)
    }

    /// The conflict of race kind `kind`.
    pub fn get(&self, kind: RaceKind) -> Option<Conflict> {
        self.0[Self::slot(kind)]
    }

    /// Every race kind (write-write, read-write, atomic-plain) with its conflict if any.
    pub fn iter_all(&self) -> impl Iterator<Item = (RaceKind, Option<Conflict>)> + '_ {
        Self::KINDS.into_iter().map(|k| (k, self.get(k)))
    }

    /// The first conflict (write-write, then read-write, then atomic-plain).
    #[cfg(test)]
    pub fn first(&self) -> Option<Conflict> {
        self.0.iter().flatten().next().copied()
    }
}

/// Result of one byte's check-and-update.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub new: u64,
    pub conflicts: Conflicts,
    /// A plain read of a byte nobody wrote since the buffer (or group) was created.
    pub uninit: bool,
}

/// Checks an access of `op` by `me` (site `site`, group epoch `epoch`) against record `old`
/// and computes the updated record. `stored`: what a write stored against what was there.
/// Pure, so the caller can retry it in a compare-exchange loop.
///
/// One function on purpose, like the interpreter's `run_turns`: it runs for every byte of
/// every checked access, and split into a same-group and an other-group part over a shared
/// struct it made checks-on `reduce` 13% slower (ci/bench, 158 -> 178 ms).
pub fn step(old: u64, me: &Accessor, site: u16, epoch: u8, op: Op, stored: Stored) -> Step {
    if op == Op::Read && settled_read(old, me, site, epoch) {
        return Step {
            new: old,
            conflicts: Conflicts::default(),
            uninit: false,
        };
    }
    step_full(old, me, site, epoch, op, stored)
}

/// The work-item record `rec` names (0: none).
pub(crate) fn recorded_item(rec: u64) -> u32 {
    Rec(rec).item()
}

/// A plain read that would leave record `old` as it is and find nothing: several items of
/// this group (not only this one) read the initialised byte in the current epoch, nothing
/// else happened to it in the epoch, at this access's site if the record keeps one, and no
/// other group or launch wrote it. The usual read of a value many work-items share after a
/// barrier (a tile of a tiled matrix product): `step_full` would rebuild the record it was
/// given, field by field (a property test holds the two to the same answer).
#[inline(always)]
pub(crate) fn settled_read(old: u64, me: &Accessor, site: u16, epoch: u8) -> bool {
    let r = Rec(old);
    let item = r.item();
    old & INIT_BIT != 0
        && r.many()
        && r.epoch() == epoch & EPOCH_MASK as u8
        && item != 0
        && item != me.item
        && (me.group_lo..me.group_hi).contains(&item)
        && r.last() == Some(Op::Read)
        && r.e() == Op::Read.bit()
        && r.h() & Op::Read.bit() != 0
        && r.o() & (Op::Write.bit() | Op::Atomic.bit()) == 0
        && (!r.one_site() || r.site() == site)
}

/// A plain read, of memory no work-item of this launch writes, that may leave record `old` as
/// it is: the byte is initialised, its record names a plain read by an item of this launch,
/// and it records no write or read-modify-write by anyone. The read finds nothing (reads race with writes
/// and read-modify-writes only, and none can come from this launch), and what the full step
/// would change (the item named, `many`, the flags for other groups) serves only accesses
/// that write: a later launch or host command that may overlap this one conflicts with the
/// read the record keeps as it would with this one. Leaving the record whole keeps a block
/// of lockstep reads one record (a stencil's neighbour reads would split it).
#[inline(always)]
pub(crate) fn read_only_settled(old: u64, me: &Accessor) -> bool {
    let r = Rec(old);
    let writes = Op::Write.bit() | Op::Atomic.bit();
    old & INIT_BIT != 0
        && r.item() != 0
        && (me.launch_lo..me.launch_hi).contains(&r.item())
        && r.last() == Some(Op::Read)
        && (r.e() | r.h() | r.o()) & writes == 0
}

/// Whether `n` steps, of word `k`'s record by item `me.item + k` for `k` in `0..n` (word
/// `k`'s record is `old + k` when `old` names an item, else `old`: a shadow block's words),
/// are the one step of `old` by `me` shifted: each finds what it finds, and its new record
/// is its own plus `k`. True when every item relation `step` asks about is the same for every
/// `k`: the recorded items are all in `me`'s group or all outside it, likewise its launch,
/// and none is the group's async-copy actor (whether a recorded item is the accessor does
/// not depend on `k`); both item ranges must fit the item field. The new record names the
/// accessor or keeps the recorded item, both shifted by `k` (a property test holds `step`
/// to this).
pub(crate) fn step_shifts(old: u64, me: &Accessor, n: u32) -> bool {
    let last = n.saturating_sub(1);
    if me.item as u64 + last as u64 > MAX_ITEM {
        return false;
    }
    let lo = Rec(old).item();
    if lo == 0 {
        return true;
    }
    let Some(hi) = lo.checked_add(last).filter(|&h| h as u64 <= MAX_ITEM) else {
        return false;
    };
    let uniform = |a: u32, b: u32| (a <= lo && hi < b) || hi < a || lo >= b;
    uniform(me.group_lo, me.group_hi)
        && uniform(me.launch_lo, me.launch_hi)
        && !(lo..=hi).contains(&me.actor)
}

/// Whether `n` steps of one record `old` (words with equal records: a row of a tile that
/// one work-item's read named for all, as the first reader of a shared row leaves it) by
/// items `me.item + k` for `k` in `0..n` (group epoch `epoch`) are the one step of `old` by
/// `me`, its new record shifted by `k` where it names the accessor and kept as it is where
/// it keeps the recorded item. True when the accessors fit the item field and whether the
/// recorded item is the accessor does not count: it is none of them, or its access is from
/// an earlier epoch of the group (a row stored after the barrier that followed the reads
/// that named one of the storing items), and it is not the group's async-copy actor. Every
/// relation `step` asks about is then the same for every `k` (a property test holds `step`
/// to this).
pub(crate) fn same_step_shifts(old: u64, me: &Accessor, n: u32, epoch: u8) -> bool {
    let r = Rec(old);
    let (first, last) = (me.item as u64, me.item as u64 + n.saturating_sub(1) as u64);
    let recorded = r.item();
    let one_of_us = (first..=last).contains(&(recorded as u64));
    last <= MAX_ITEM
        && (!one_of_us || (r.epoch() != epoch & EPOCH_MASK as u8 && recorded != me.actor))
}

/// [`step`] without the shortcut for settled reads.
fn step_full(old: u64, me: &Accessor, site: u16, epoch: u8, op: Op, stored: Stored) -> Step {
    let epoch = epoch & EPOCH_MASK as u8;
    let r = Rec(old);
    let o_item = r.item();
    let init = old & INIT_BIT != 0;
    let uninit = op == Op::Read && !init;
    let new_init = init || matches!(op, Op::Write | Op::Atomic);
    let mine = op.bit();
    // Never-written bytes hold no value, so no write over them stores "the value already
    // there". Reads and atomics leave the put-back flags as they are.
    let same = op != Op::Write || (stored != Stored::New && init);
    let back = op != Op::Write || (stored == Stored::Back && init);

    if o_item == 0 {
        let new = Fields {
            item: me.item,
            site,
            one_site: true,
            epoch,
            last: op,
            e: mine,
            many: false,
            h: mine,
            o: 0,
            other_kernel: false,
            sv_e: back,
            sv_o: back,
            init: new_init,
        };
        return Step {
            new: new.pack(),
            conflicts: Conflicts::default(),
            uninit,
        };
    }
    let same_group = (me.group_lo..me.group_hi).contains(&o_item);
    let same_launch = (me.launch_lo..me.launch_hi).contains(&o_item);
    let scope = match (same_group, same_launch) {
        (true, _) => Scope::IntraGroup,
        (false, true) => Scope::InterGroup,
        (false, false) => Scope::InterKernel,
    };
    let o_scope = if r.other_kernel() {
        Scope::InterKernel
    } else {
        Scope::InterGroup
    };
    let last = r.last();
    // The recorded access, if it is of one of the kinds `mask` and conflicts.
    let direct = |mask: u64| {
        last.filter(|l| mask & l.bit() != 0 && conflicts(op, *l))
            .map(|l| Party {
                op: l,
                who: Some((o_item, r.site())),
            })
    };
    let unknown = |flags: u64| conflicting(op, flags).map(|k| Party { op: k, who: None });
    // A party from E: its instruction is known when the epoch's accesses were all at one.
    let from_epoch = |flags: u64| {
        conflicting(op, flags).map(|k| Party {
            op: k,
            who: r.one_site().then(|| (0, r.site())),
        })
    };
    // Whether a conflict with earlier accesses of the kinds `mask` (one race kind's) is
    // benign: two writes of what was there, or a write and a read where the writes only put
    // back what was there (put-back bit `sv` of the earlier writes).
    let benign = |mask: u64, sv: bool| match op {
        Op::Write if mask == Op::Write.bit() => same,
        Op::Write => back && mask == Op::Read.bit(),
        Op::Read => sv && mask == Op::Write.bit(),
        Op::Atomic | Op::AtomicRead => false,
    };

    // Who the record names afterwards: normally this access.
    let mut keep_identity = false;
    // Whether the record stays as it was (an atomic read beside the epoch's other accesses).
    let mut unchanged = false;
    let (conflicts, e, many, h, o, sv_e, sv_o, one_site) = if same_group {
        let in_flight = |s: u8| {
            let back = |e: u8| epoch.wrapping_sub(e) & EPOCH_MASK as u8;
            back(r.epoch()) <= back(s & EPOCH_MASK as u8)
        };
        let current =
            r.epoch() == epoch || (o_item == me.actor && me.actor_since.is_some_and(in_flight));
        // Intra-group: only accesses since this group's last barrier count (of kinds `mask`).
        let intra_of = |mask: u64| {
            if !current {
                None
            } else if o_item != me.item {
                // Without `many`, every access E counts is the recorded item's (or raced
                // with it).
                direct(mask).or_else(|| {
                    if r.many() {
                        None
                    } else {
                        from_epoch(r.e() & mask)
                    }
                })
            } else if r.many() {
                // Others read or atomically touched the byte since the barrier (we do not
                // know who): a write conflicts with either, a read with their atomics.
                from_epoch(r.e() & mask & !Op::Write.bit())
            } else if last != Some(Op::Write) {
                // Our own writes stay `last`, so a write in E is another item's (one that
                // raced with our earlier access already; this access may race with it
                // differently).
                from_epoch(r.e() & mask & Op::Write.bit())
            } else {
                None
            }
        };
        let search = |mask: u64| {
            let others = unknown(r.o() & mask).map(|p| Conflict {
                first: p,
                scope: o_scope,
                benign: benign(mask, r.sv_o()),
            });
            intra_of(mask)
                .map(|p| Conflict {
                    first: p,
                    scope,
                    // A read is benign only if the other groups' racing writes are too.
                    benign: benign(mask, r.sv_e()) && others.is_none_or(|c| c.benign),
                })
                .or(others)
        };
        let intra = intra_of(KINDS);
        // An atomic read in an epoch that has other kinds of access changes nothing: those
        // kinds race with every write it would, and naming it would hide what they race
        // with (an earlier atomic's race with a later plain read), or count it into `many`
        // (and make a read race with this item's own atomic).
        unchanged = op == Op::AtomicRead && current && r.e() & PLAIN_KINDS != 0;
        let any = intra.is_some() || unknown(r.o()).is_some();
        let conflicts = Conflicts::find(op, any, search);
        // A read (atomic) after another item's read (atomic) in the same interval keeps that
        // item in the record: if the owner overwrites the byte later, the report can name the
        // other reader instead of an unidentified one. An item's own earlier access stays when
        // it races with all its later one does (a plain write before a read or atomic, a read
        // or atomic before an atomic read): the earlier access is what can race.
        keep_identity = current
            && last.is_some_and(|l| {
                covers(l, op)
                    && if o_item != me.item {
                        intra.is_none()
                    } else {
                        l != op
                    }
            });
        let (e, many, sv_e, one_site) = if current {
            let shared_read = op != Op::Write && o_item != me.item && r.e() & !Op::Write.bit() != 0;
            (
                r.e() | mine,
                r.many() || shared_read,
                r.sv_e() && back,
                r.one_site() && site == r.site(),
            )
        } else {
            (mine, false, back, true)
        };
        (
            conflicts,
            e,
            many,
            r.h() | mine,
            r.o(),
            sv_e,
            r.sv_o() && back,
            one_site,
        )
    } else {
        // Another group or launch: barriers never order these, so all its accesses count.
        let search = |mask: u64| {
            let here = benign(mask, r.sv_o());
            direct(mask)
                .map(|p| Conflict {
                    first: p,
                    scope,
                    benign: here,
                })
                .or_else(|| {
                    unknown(r.h() & mask).map(|p| Conflict {
                        first: p,
                        scope,
                        benign: here,
                    })
                })
                .or_else(|| {
                    unknown(r.o() & mask).map(|p| Conflict {
                        first: p,
                        scope: o_scope,
                        benign: here,
                    })
                })
        };
        let any = direct(KINDS).is_some() || unknown(r.h() | r.o()).is_some();
        let conflicts = Conflicts::find(op, any, search);
        let o = r.o() | r.h();
        (
            conflicts,
            mine,
            false,
            mine,
            o,
            back,
            r.sv_o() && back,
            true,
        )
    };
    // O gains the previous group's flags when the accessor changes group; remember whether
    // they came from another launch.
    let other_kernel = r.other_kernel() || (scope == Scope::InterKernel && r.h() != 0);
    let (item, site, last) = match (keep_identity, last) {
        (true, Some(l)) => (o_item, r.site(), l),
        _ => (me.item, site, op),
    };
    if unchanged {
        return Step {
            new: old,
            conflicts,
            uninit,
        };
    }
    Step {
        new: Fields {
            item,
            site,
            one_site,
            epoch,
            last,
            e,
            many,
            h,
            o,
            other_kernel,
            sv_e,
            sv_o,
            init: new_init,
        }
        .pack(),
        conflicts,
        uninit,
    }
}

/// Makes a record from an epoch other than `now` look exactly one epoch old, so a 7-bit epoch
/// that wraps never makes an old access look current (called every [`AGE_EVERY`] epochs).
pub fn age(old: u64, now: u8) -> u64 {
    let r = Rec(old);
    let now = now as u64 & EPOCH_MASK;
    if r.item() == 0 || r.epoch() as u64 == now {
        return old;
    }
    let before = now.wrapping_sub(1) & EPOCH_MASK;
    (old & !(EPOCH_MASK << EPOCH_SHIFT)) | (before << EPOCH_SHIFT)
}

/// A completed async copy: a record that names the group's copy `actor` is pulled to the
/// epoch before `now`, so the group's later accesses are ordered after the copy.
pub fn retire(old: u64, actor: u32, now: u8) -> u64 {
    if Rec(old).item() != actor {
        return old;
    }
    let before = (now as u64).wrapping_sub(1) & EPOCH_MASK;
    (old & !(EPOCH_MASK << EPOCH_SHIFT)) | (before << EPOCH_SHIFT)
}

/// [`age`] for a record whose last accessor is one of the items `lo..hi` (one work-group's);
/// other groups' records keep their own epochs.
pub fn age_group(old: u64, now: u8, lo: u32, hi: u32) -> u64 {
    if (lo..hi).contains(&Rec(old).item()) {
        age(old, now)
    } else {
        old
    }
}

/// The record after a full synchronisation (kernel end on an in-order queue): only "initialised"
/// survives.
pub fn reset(old: u64) -> u64 {
    old & INIT_BIT
}

/// The work-item a record names (0: none since the last reset).
pub fn item_of(rec: u64) -> u32 {
    Rec(rec).item()
}

#[cfg(test)]
pub(crate) mod tests;
