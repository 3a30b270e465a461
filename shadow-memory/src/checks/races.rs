//! The data-race and uninitialised-read checks: every global and local access goes through
//! the byte records (`mar`), which say whether it conflicts with an unordered earlier one.
//!
//! Performance: the per-item executor reports accesses one by one. A work-item's plain access
//! to one aligned word of global memory that breaks no rule takes `check_word_access` (one word
//! record's step); every other access takes the general `check_at`. In local memory, runs whose
//! blocks other lanes of the operation also touch cannot be stepped before those lanes, out of
//! the schedule's order. A run of reads of local memory (rows of lanes reading one row,
//! `tb[k][lx]`) is then stepped as one where its sixteen lanes come, one after the other, in
//! the schedule (`check_run` in `check_local_reads`).

use crate::checks::access_rules::RuleFree;
use crate::group::{clamp_item, GroupState, NO_INST};
use crate::launch::LaunchChecker;
use crate::local::Run;
use crate::mar::{self, Op, Party, Stored};
use crate::raw::{side_key, Raw, RawKey, RawSide};
use crate::report::{FindingKind, RaceKind};
use crate::shadow::{self, Shadow, WordCursor, BLOCK};
use shadowcl_interpreter::{Access, AllocId, GroupInfo, InstId, LaneAccesses, Observer, WorkItem};
use shadowcl_interpreter::{AccessKind, AddressSpace};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The record kind of an access (an atomic read is named and paired as an atomic).
pub(crate) fn op_of(k: AccessKind) -> Op {
    match k {
        AccessKind::Read => Op::Read,
        AccessKind::Write => Op::Write,
        AccessKind::Atomic => Op::Atomic,
        AccessKind::AtomicRead => Op::AtomicRead,
    }
}

/// `a == b`, without a library call for the usual scalar widths (it runs for every write).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if let (Ok(x), Ok(y)) = (<[u8; 4]>::try_from(a), <[u8; 4]>::try_from(b)) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (<[u8; 8]>::try_from(a), <[u8; 8]>::try_from(b)) {
        return x == y;
    }
    a == b
}

impl LaunchChecker<'_> {
    /// What access `a` (of kind `op`) stored against what was there.
    #[inline]
    pub(crate) fn stored(&self, a: &Access<'_>, op: Op) -> Stored {
        let same = op == Op::Write && !a.value.is_empty() && same_bytes(a.value, a.previous);
        Stored::of(same, || self.program.stores_back(a.inst))
    }
}

/// What one access found, byte by byte.
#[derive(Default)]
struct Found {
    /// The first byte of each race kind (an access may race with reads and writes alike),
    /// or its first byte whose conflict is not benign: the access is a benign race only if
    /// every byte's is (a host command's long access may store the value already there in
    /// its first bytes only).
    conflicts: [Option<(u64, RaceKind, mar::Conflict)>; 3],
    /// The first byte read before anything wrote it.
    uninit: Option<u64>,
}

impl Found {
    /// Notes byte `i`'s step; whether it raced with another access of this launch.
    #[inline(always)]
    fn note(&mut self, i: u64, s: mar::Step) -> bool {
        let mut inside = false;
        for (slot, (kind, c)) in self.conflicts.iter_mut().zip(s.conflicts.iter_all()) {
            if let Some(c) = c {
                inside |= c.scope != mar::Scope::InterKernel;
                if slot.is_none_or(|(_, _, first)| first.benign && !c.benign) {
                    *slot = Some((i, kind, c));
                }
            }
        }
        if s.uninit && self.uninit.is_none() {
            self.uninit = Some(i);
        }
        inside
    }
}

/// Whether lane `l`'s plain read of local memory finds nothing and leaves its record as it
/// is, as `mar::settled_read` decides on the one record of the words it reads
/// (`mar::step` asks it first): then the item the record names, else `None`. The general
/// check's answer for such a read, for a fraction of its work. Global reads go the general
/// way: finding their word record again here cost a checked vadd 10% (every read looked it
/// up twice) and gained nothing measurable on stencil, whose reads neighbours share.
#[inline(always)]
fn settled_local_read(
    g: &GroupState,
    lanes: &LaneAccesses<'_>,
    l: usize,
    at: &AccessSite,
) -> Option<u32> {
    let mem = g.local.get(lanes.alloc.local_slot()? as usize)?;
    let rec = mem.uniform(lanes.offsets[l] as usize, lanes.size as usize)?;
    mar::settled_read(rec, &at.me, at.site, g.epoch_local).then(|| mar::recorded_item(rec))
}

/// The one access shape [`QuietReads`] covers: an aligned word.
const WORD_BYTES: u32 = 4;

/// A word record's step: its old record, its new record, and the step when it found
/// something.
type WordStep = (u64, u64, Option<mar::Step>);

/// What the accesses of one instruction to one allocation share, looked up once for all the
/// lanes of a lockstep operation ([`LaunchChecker::check_lanes`]).
#[derive(Clone, Copy)]
pub(crate) struct AccessSite {
    op: Op,
    site: u16,
    /// The accessor; `item` is set per access.
    me: mar::Accessor,
    /// Index of the allocation's shadow in `GroupState::shadows` (global memory only).
    shadow: usize,
    /// A plain read (not a copy's) of global memory this launch never writes: records that
    /// [`mar::read_only_settled`] holds for stay as they are.
    read_only: bool,
}

impl LaunchChecker<'_> {
    /// Whether the race and the uninitialised-read checks want this group's accesses.
    fn wanted(&self, g: &GroupState) -> (bool, bool) {
        (
            self.checks.race_records() && !g.races_off,
            self.checks.uninit,
        )
    }

    /// The site, accessor and shadow of access `a` (global or local).
    fn access_site(&self, g: &mut GroupState, a: &Access<'_>, end: u64) -> AccessSite {
        let op = op_of(a.kind);
        let site = self.site(g, a, op);
        let shadow = if a.space == AddressSpace::Global {
            self.shadow_index(g, a.alloc, end)
        } else {
            usize::MAX
        };
        let read_only = op == Op::Read
            && a.space == AddressSpace::Global
            && !a.copy
            && !a.by_group
            && self
                .state()
                .is_some_and(|st| st.read_only.binary_search(&a.alloc).is_ok());
        AccessSite {
            op,
            site,
            me: g.me(a),
            shadow,
            read_only,
        }
    }

    /// [`LaunchChecker::check_access`] (and the rules) of a work-item's plain load or store
    /// of one aligned word of global memory, the usual access of the per-item executor, by
    /// the shortest way ([`LaunchChecker::check_word_at`]). False, having changed nothing,
    /// for any other access (another shape, the group's async copy, a rule that may be
    /// broken, a word without its own record): the general check takes it then. The
    /// general check of such an access cost the per-item `divergent` app 15% more.
    pub(crate) fn check_word_access<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
    ) -> bool {
        if !matches!(a.kind, AccessKind::Read | AccessKind::Write)
            || a.space != AddressSpace::Global
            || a.size != 4
            || !a.offset.is_multiple_of(4)
            || a.by_group
            || a.copy
        {
            return false;
        }
        let want = self.wanted(g);
        if !(want.0 || want.1) {
            return !self.checks.bounds || self.breaks_no_rule(a);
        }
        let (at, rule_free) = self.word_access_site(g, a);
        if self.checks.bounds && !rule_free.holds(a) && !self.breaks_no_rule(a) {
            return false;
        }
        self.check_word_at::<FIRST>(g, a, &at, want, &rule_free)
    }

    /// [`LaunchChecker::access_site`] and [`LaunchChecker::rule_free`] of a work-item's word
    /// access, kept for the group's next access by the same instruction to the same
    /// allocation (a loop's): only the item differs then. Not kept while an async copy is in
    /// flight (the accessor's `actor_since` follows the copies).
    #[inline(always)]
    fn word_access_site(&self, g: &mut GroupState, a: &Access<'_>) -> (AccessSite, RuleFree) {
        if let Some(mut last) = g.checkers.races.last_word_site {
            if (last.inst, last.alloc, last.serial) == (a.inst, a.alloc, g.group_serial)
                && g.checkers.async_copies.in_flight.is_empty()
            {
                last.at.me.item = g.item_of(a);
                return (last.at, last.rule_free);
            }
        }
        let (at, rule_free) = (self.access_site(g, a, a.offset + 4), self.rule_free(a));
        if g.checkers.async_copies.in_flight.is_empty() {
            g.checkers.races.last_word_site = Some(WordSite {
                inst: a.inst,
                alloc: a.alloc,
                serial: g.group_serial,
                at,
                rule_free,
            });
        }
        (at, rule_free)
    }

    /// [`LaunchChecker::check_at`] of a plain load or store of one aligned word of global
    /// memory (no copy) by a work-item: one word record's step, without the byte
    /// bookkeeping. False, having changed nothing, when the word has no record of its own
    /// (split, or past the shadow) or its shadow is not the launch's.
    #[inline(always)]
    fn check_word_at<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
        at: &AccessSite,
        want: (bool, bool),
        rule_free: &RuleFree,
    ) -> bool {
        let shadow = self.launch_shadow(at.shadow, a.alloc);
        if let Some(s) = shadow.filter(|_| at.read_only) {
            if Self::read_settles(s, a.offset, 4, at) {
                Self::note_quiet_words(g, s, a, at, rule_free);
                return true;
            }
        }
        match shadow.and_then(|s| s.word_at(&mut g.checkers.races.word_cursor, a.offset)) {
            Some(cell) => self.check_word_cell::<FIRST>(g, a, at, want, cell),
            None => false,
        }
    }

    /// After a work-item's read at `at` of memory this launch never writes settled: the
    /// words from it on (or from the end of the instruction's quiet bytes it starts at) that
    /// settle too, up to a block's worth, join the instruction's quiet bytes
    /// ([`QuietReads`]): later reads of them need not be reported at all. They would each
    /// settle (a settled word stays settled until the launch ends), and they break no access
    /// rule: they are inside `rule_free`'s bytes, and any word-aligned offset meets the
    /// instruction's alignment. A loop walking an array tests each word once.
    #[inline]
    fn note_quiet_words(
        g: &mut GroupState,
        shadow: &Shadow,
        a: &Access<'_>,
        at: &AccessSite,
        rule_free: &RuleFree,
    ) {
        let from = g.checkers.races.quiet.extends(a.inst, a.alloc, a.offset);
        let stop = (from + BLOCK).min(shadow.len());
        if !rule_free.admits_words(a.offset, stop) {
            return;
        }
        let mut upto = from;
        while upto < stop && Self::read_settles(shadow, upto, WORD_BYTES as u64, at) {
            upto += WORD_BYTES as u64;
        }
        g.checkers.races.quiet.add(a.inst, a.alloc, a.offset, upto);
    }

    /// How many lanes, from the first in the order, read leaving their records as they are
    /// (as [`LaunchChecker::read_settles`] says for each): the usual read of memory a launch
    /// never writes, after its first, finds its words' block a block of this launch's reads,
    /// which one test answers for all its lanes. Those lanes need nothing more.
    fn lanes_settle(shadow: &Shadow, lanes: &LaneAccesses<'_>, at: &AccessSite) -> usize {
        let mut blocks = SettledBlock::default();
        let len = lanes.size as u64;
        (lanes.order.iter())
            .position(|&l| !blocks.read_settles(shadow, lanes.offsets[l], len, at))
            .unwrap_or(lanes.order.len())
    }

    /// Whether a read at `at` of `offset..offset + len` leaves its records as they are
    /// ([`mar::read_only_settled`]; `at.read_only` is the caller's).
    #[inline(always)]
    fn read_settles(shadow: &Shadow, offset: u64, len: u64, at: &AccessSite) -> bool {
        shadow.words_all(offset, len, |r| mar::read_only_settled(r, &at.me))
    }

    /// [`LaunchChecker::check_word_at`] of the access's word record `cell` (`SPLIT`: false,
    /// having changed nothing).
    #[inline(always)]
    fn check_word_cell<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
        at: &AccessSite,
        want: (bool, bool),
        cell: &AtomicU64,
    ) -> bool {
        let stored = self.stored(a, at.op);
        let epoch = g.epoch_global;
        let Some(stepped) = self.step_word(cell, &at.me, at.site, epoch, at.op, stored) else {
            return false;
        };
        if Self::word_step_notable::<FIRST>(at.op, &stepped) {
            self.note_word_step::<FIRST>(g, a, at, want, stepped);
        }
        true
    }

    /// Whether a word's step (old record, new record, the step when it found something)
    /// has anything to note: a finding, or (a first run) the word made defined.
    #[inline(always)]
    fn word_step_notable<const FIRST: bool>(op: Op, &(old, new, kept): &WordStep) -> bool {
        kept.is_some()
            || (FIRST && op == Op::Write && old & mar::INIT_BIT == 0 && new & mar::INIT_BIT != 0)
    }

    /// Notes what a word's step of access `a` found, as `check_at` notes it: the findings,
    /// and for a first run the bytes it made defined and those that raced inside the launch
    /// (bit i: byte i of the word).
    #[cold]
    #[inline(never)]
    fn note_word_step<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
        at: &AccessSite,
        want: (bool, bool),
        (old, new, kept): WordStep,
    ) {
        let op = at.op;
        let defined =
            FIRST && op == Op::Write && old & mar::INIT_BIT == 0 && new & mar::INIT_BIT != 0;
        let Some(s) = kept else {
            if defined {
                Self::note_first_run(&mut g.checkers.races.seen, a, 0, 0xF);
            }
            return;
        };
        let mut found = Found::default();
        let racy = found.note(a.offset, s) && FIRST && want.0;
        if !want.0 {
            found.conflicts = [None; 3];
        }
        if racy || defined {
            let (racy, defined) = (if racy { 0xF } else { 0 }, if defined { 0xF } else { 0 });
            Self::note_first_run(&mut g.checkers.races.seen, a, racy, defined);
        }
        let uninit = found.uninit.filter(|_| want.1);
        self.add_findings(g, a, op, found.conflicts, uninit);
    }

    /// One step of word record `cell` (a compare-exchange loop: `Shadow::update_word`):
    /// (old record, new record, the step when it found something); `None` when the word was
    /// split meanwhile. Only a step that found something is kept (rarely): the loop carries
    /// the new record alone (moving the whole `Step` per attempt was a hot spot).
    #[inline(always)]
    fn step_word(
        &self,
        cell: &AtomicU64,
        me: &mar::Accessor,
        site: u16,
        epoch: u8,
        op: Op,
        stored: Stored,
    ) -> Option<WordStep> {
        let mut kept: Option<mar::Step> = None;
        let (old, (new, notable)) = Shadow::update_word(cell, |old| {
            let s = mar::step(self.current(old, me), me, site, epoch, op, stored);
            let notable = s.uninit || s.conflicts.any();
            if notable {
                kept = Some(s);
            }
            (s.new, (s.new, notable))
        })?;
        Some((old, new, kept.filter(|_| notable)))
    }

    /// `FIRST`: a first run that a pair pass may follow (see `pairs`).
    pub(crate) fn check_access<const FIRST: bool>(&self, g: &mut GroupState, a: &Access<'_>) {
        let want = self.wanted(g);
        if !(want.0 || want.1) {
            return;
        }
        if a.space == AddressSpace::Private {
            if want.1 {
                self.check_private_read(g, a);
            }
            return;
        }
        if a.by_group {
            if want.0 {
                self.check_copy_overlap(g, a);
            }
            g.checkers.async_copies.add_range(a);
        }
        let at = self.access_site(g, a, a.offset + a.size as u64);
        self.check_at::<FIRST>(g, a, &at, want);
    }

    /// [`LaunchChecker::check_access`] of each lane of a lockstep operation (plain loads or
    /// stores of one instruction to one global or local allocation): the site, the shadow
    /// and the rules are looked up once. `end`: where the lanes' bytes end.
    pub(crate) fn check_lanes<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        lanes: &LaneAccesses<'_>,
        end: u64,
    ) {
        let want = self.wanted(g);
        let Some(&first) = lanes.order.first() else {
            return;
        };
        // Constant memory is read-only (no races); private memory is the executor's.
        if !(want.0 || want.1) || !matches!(lanes.space, AddressSpace::Global | AddressSpace::Local)
        {
            return;
        }
        let mut bytes = [[0u8; 8]; 2];
        let mut at = self.access_site(g, &lanes.lane(first, &mut bytes), end);
        // Lanes before `settled` in the order need nothing.
        let settled = match self.launch_shadow(at.shadow, lanes.alloc) {
            Some(s) if at.read_only => Self::lanes_settle(s, lanes, &at),
            _ => 0,
        };
        if settled == lanes.order.len() {
            return;
        }
        // The lanes' records are far apart in memory from anything the executor touched:
        // ask for them a few cache lines ahead.
        const AHEAD: usize = 32;
        let global = lanes.space == AddressSpace::Global;
        let mut by_block = LaneSet::default();
        let runs = block_runs(lanes);
        if !runs.shared {
            self.check_lane_blocks::<FIRST>(g, lanes, &at, &runs, &mut by_block);
        }
        if by_block.len == lanes.order.len() {
            return;
        }
        if at.op == Op::Read && lanes.space == AddressSpace::Local {
            return self.check_local_reads::<FIRST>(g, lanes, &mut at, want, &by_block, &runs);
        }
        // Lanes' plain words of global memory step their word records straight (see
        // `check_word_at`), the block's looked up once for the lanes that follow in it.
        let shadow = self.launch_shadow(at.shadow, lanes.alloc);
        let word = shadow.filter(|_| global && lanes.size == 4);
        let mut cursor = WordCursor::for_lanes();
        let run_firsts = runs.shared_firsts();
        // Lanes before this one in the order were checked with a run.
        let mut run_end = 0;
        let mut blocks = SettledBlock::default();
        for (k, &l) in lanes.order.iter().enumerate().skip(settled) {
            if k < run_end || by_block.contains(l) {
                continue;
            }
            if global && k % 8 == 0 {
                if let Some(&ahead) = lanes.order.get(k + AHEAD) {
                    g.shadows[at.shadow].1.prefetch_word(lanes.offsets[ahead]);
                }
            }
            // `g.item_of` of the lane's access (a lane's access is never the group's).
            at.me.item = clamp_item(g.lo + l as u64);
            // A run's lanes next in the schedule, in lane order: checked as one there.
            if run_firsts.len != 0
                && run_firsts.contains(l)
                && run_next(&lanes.order[k..])
                && self.check_run::<FIRST>(g, lanes, &at, l)
            {
                run_end = k + BLOCK_LANES;
                continue;
            }
            let offset = lanes.offsets[l];
            if at.read_only
                && shadow.is_some_and(|s| blocks.read_settles(s, offset, lanes.size as u64, &at))
            {
                continue;
            }
            if at.read_only && word.is_some_and(|s| self.keep_read(g, s, lanes, l, &at)) {
                continue;
            }
            let cell = word.and_then(|shadow| shadow.word_at(&mut cursor, offset));
            // As `check_word_cell`, the lane's access made only when there is something to
            // note.
            if let Some(cell) = cell {
                let value = |v: &[u64]| v.get(l).copied().unwrap_or(0) as u32;
                let same = at.op == Op::Write && value(lanes.values) == value(lanes.previous);
                let same = Stored::of(same, || self.program.stores_back(lanes.inst));
                let epoch = g.epoch_global;
                if let Some(stepped) = self.step_word(cell, &at.me, at.site, epoch, at.op, same) {
                    if Self::word_step_notable::<FIRST>(at.op, &stepped) {
                        let a = lanes.lane(l, &mut bytes);
                        self.note_word_step::<FIRST>(g, &a, &at, want, stepped);
                    }
                    continue;
                }
            }
            let a = lanes.lane(l, &mut bytes);
            self.check_at::<FIRST>(g, &a, &at, want);
        }
    }

    /// Keeps lane `l`'s read at `at` (of a word of memory the launch never writes, not
    /// settled) for the launch's end ([`PendingRead`]) when its word's block is one record
    /// and the read's step finds nothing now. Whether it was kept.
    fn keep_read(
        &self,
        g: &mut GroupState,
        shadow: &Shadow,
        lanes: &LaneAccesses<'_>,
        l: usize,
        at: &AccessSite,
    ) -> bool {
        let offset = lanes.offsets[l];
        let Some(rec) = shadow.whole_block_word(offset) else {
            return false;
        };
        let epoch = g.epoch_global;
        let s = mar::step(
            self.current(rec, &at.me),
            &at.me,
            at.site,
            epoch,
            Op::Read,
            Stored::New,
        );
        // Made again at the end as the group's work-item would make it: with no copy in
        // flight (the accessor then depends on nothing else of the group).
        if s.uninit || s.conflicts.any() || !g.checkers.async_copies.in_flight.is_empty() {
            return false;
        }
        let Some(ls) = self.state() else {
            return false;
        };
        if g.checkers.races.pending_quota == 0 {
            // Taken from the launch's count a chunk at a time: not one shared atomic
            // operation per kept read.
            if self
                .checkers
                .races
                .pending_count
                .fetch_add(PENDING_CHUNK, Ordering::Relaxed)
                >= PENDING_READS
            {
                return false;
            }
            g.checkers.races.pending_quota = PENDING_CHUNK;
        }
        g.checkers.races.pending_quota -= 1;
        let item = &lanes.items[l];
        g.checkers.races.pending.push(PendingRead {
            alloc: lanes.alloc,
            offset,
            group_linear: (g.lo - ls.lo) / ls.geometry.stride(),
            local_linear: item.local_linear,
            inst: lanes.inst,
            shadow: at.shadow as u32,
            epoch,
            component: lanes.component,
        });
        true
    }

    /// Makes the reads the launch's groups kept ([`PendingRead`]), once every group has
    /// ended: a read whose word another read of the launch has named since leaves it as it
    /// is; the others step their words now, and what they find is reported as theirs.
    pub(crate) fn apply_pending_reads(&self) {
        let pending = std::mem::take(&mut *self.checkers.races.pending.lock());
        let Some(ls) = self.state() else {
            return;
        };
        // What `read_settles` asks of the accessor: only which launch it is in.
        let end = |v: u64| v.min(u32::MAX as u64) as u32;
        let launch = mar::Accessor {
            item: 0,
            group_lo: 0,
            group_hi: 0,
            launch_lo: end(ls.lo),
            launch_hi: end(ls.hi),
            actor: 0,
            actor_since: None,
        };
        let mut state: Option<Box<GroupState>> = None;
        for p in pending.iter().flatten() {
            let Some(shadow) = self.launch_shadow(p.shadow as usize, p.alloc) else {
                continue;
            };
            if shadow.words_all(p.offset, 4, |r| mar::read_only_settled(r, &launch)) {
                continue;
            }
            let (global, local, group) = ls.geometry.ids(p.group_linear, p.local_linear as u64);
            let info = GroupInfo {
                group,
                group_linear: p.group_linear,
                items: ls.geometry.group_items as u32,
            };
            let item = WorkItem {
                global,
                local,
                group,
                local_linear: p.local_linear,
            };
            let mut g = self.group_start_on(&info, state.take());
            g.epoch_global = p.epoch;
            let a = Access {
                space: AddressSpace::Global,
                alloc: p.alloc,
                offset: p.offset,
                size: 4,
                kind: AccessKind::Read,
                value: &[],
                previous: &[],
                item: &item,
                inst: p.inst,
                by_group: false,
                copy: false,
                undefined: 0,
                component: p.component,
            };
            let at = self.access_site(&mut g, &a, p.offset + 4);
            // Never a first run's: the pair pass names pairs of this launch's own
            // work-items, and a read of memory the launch never writes races with none.
            let want = self.wanted(&g);
            self.check_at::<false>(&mut g, &a, &at, want);
            state = self.group_end_keep(g);
        }
    }

    /// [`LaunchChecker::check_lanes`] of a read of local memory, for the lanes not checked by
    /// block (`by_block`). A read that leaves its record as it is and finds nothing (of a
    /// value several work-items of the group read since the barrier: a tile's element, read
    /// by a row of the tile) needs none of the general check; nor does the next lane's read
    /// of the same bytes, unless the record names that lane's item (every other condition
    /// of `mar::settled_read` is the same).
    fn check_local_reads<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        lanes: &LaneAccesses<'_>,
        at: &mut AccessSite,
        want: (bool, bool),
        by_block: &LaneSet,
        runs: &BlockRuns,
    ) {
        let mut bytes = [[0u8; 8]; 2];
        // The last lane's offset and its record's item, when that read was settled (lanes
        // checked by block read other words: they change no record this cache names).
        let mut settled: Option<(u64, u32)> = None;
        let some_by_block = by_block.len != 0;
        let run_firsts = runs.shared_firsts();
        let mut k = 0;
        while let Some(&l) = lanes.order.get(k) {
            k += 1;
            // The offset first: most lanes of a broadcast read stop at it. A lane checked
            // by block reads no word this cache names, so it may stop here too.
            let offset = lanes.offsets[l];
            let item = clamp_item(g.lo + l as u64);
            if settled.is_some_and(|(o, recorded)| o == offset && recorded != item) {
                continue;
            }
            if some_by_block && by_block.contains(l) {
                continue;
            }
            at.me.item = item;
            // A run's lanes next in the schedule, in lane order: checked as one there
            // (rows of a tile reading one row of another, `tb[k][lx]`).
            if run_firsts.len != 0
                && run_firsts.contains(l)
                && run_next(&lanes.order[k - 1..])
                && self.check_run::<FIRST>(g, lanes, at, l)
            {
                // The run may have changed the record the cache names.
                settled = None;
                k += BLOCK_LANES - 1;
                continue;
            }
            settled = settled_local_read(g, lanes, l, at).map(|item| (offset, item));
            if settled.is_none() {
                let a = lanes.lane(l, &mut bytes);
                self.check_at::<FIRST>(g, &a, at, want);
            }
        }
    }

    /// Runs of consecutive lanes over consecutive words (`a[i]` with `i` the global id; a row
    /// of a 2-D group; `s[l]` of local memory) that cover whole blocks ([`block_runs`]): each
    /// block is checked as one record (global memory's [`Shadow::update_block`], or 16 local
    /// word records that are one block's) as long as that finds nothing and leaves the words
    /// one block's; the lanes checked so are added to `done`.
    fn check_lane_blocks<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        lanes: &LaneAccesses<'_>,
        at: &AccessSite,
        runs: &BlockRuns,
        done: &mut LaneSet,
    ) {
        for first in runs.iter() {
            if self.check_run::<FIRST>(g, lanes, at, first) {
                done.insert(first..first + BLOCK_LANES);
            }
        }
    }

    /// Checks the run of [`block_runs`] from lane `first` as one record (global memory's
    /// [`Shadow::update_block`], or 16 local word records that are one block's or equal) if
    /// that finds nothing and leaves the words one block's (or equal, local): the sixteen
    /// lanes' steps, in lane order, as one. Whether it did. Called once per run: kept out
    /// of the per-lane loops that call it.
    #[inline(never)]
    fn check_run<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        lanes: &LaneAccesses<'_>,
        at: &AccessSite,
        first: usize,
    ) -> bool {
        let global = lanes.space == AddressSpace::Global;
        let (write, lo) = (at.op == Op::Write, g.lo);
        let epoch = if global {
            g.epoch_global
        } else {
            g.epoch_local
        };
        let n = BLOCK_LANES as u32;
        let b = lanes.offsets[first];
        // As `check_at` decides it for a lane's 4 bytes.
        let back = write && self.program.stores_back(lanes.inst);
        let same_value = |l: usize| {
            let value = |v: &[u64]| v.get(l).copied().unwrap_or(0) as u32;
            Stored::of(
                write && value(lanes.values) == value(lanes.previous),
                || back,
            )
        };
        let me_of = |l: usize| {
            let mut me = at.me;
            me.item = clamp_item(lo + l as u64);
            me
        };
        let (me, same) = (me_of(first), same_value(first));
        // Only stores differ in "same value" (a read's is always false).
        let alike = !write || (first..first + BLOCK_LANES).all(|l| same_value(l) == same);
        // A global record may belong to a launch whose records now read as reset; local
        // records are the group's own.
        let current = |old: u64, me: &mar::Accessor| {
            if global {
                self.current(old, me)
            } else {
                old
            }
        };
        let step_block = |old: u64| {
            // Reads of memory the launch never writes leave a block of this launch's reads
            // as it is (its words' items are contiguous: the first and last word say it).
            if global
                && at.read_only
                && mar::read_only_settled(old, &me)
                && mar::read_only_settled(shadow::block_word(old, shadow::BLOCK_WORDS - 1), &me)
            {
                return Some(old);
            }
            // One step for the block's words where they are its first word's shifted
            // (`mar::step_shifts`, which a property test holds `step` to).
            if alike && (!global || self.current_is_uniform(old, &me, n)) {
                let cur = current(old, &me);
                if mar::step_shifts(cur, &me, n) {
                    let s = mar::step(cur, &me, at.site, epoch, at.op, same);
                    return (!s.uninit && !s.conflicts.any()).then_some(s.new);
                }
            }
            shadow::block_map(old, |k, old| {
                let (l, me) = (first + k as usize, me_of(first + k as usize));
                let cur = current(old, &me);
                let s = mar::step(cur, &me, at.site, epoch, at.op, same_value(l));
                (!s.uninit && !s.conflicts.any()).then_some(s.new)
            })
        };
        if global {
            let one = g.shadows[at.shadow].1.update_block(b, step_block);
            // A first run notes the global bytes written first, as `check_at` does (the
            // words of a block share their "initialised" bit).
            if let Some((old, new)) = one.filter(|_| FIRST && write) {
                if old & mar::INIT_BIT == 0 && new & mar::INIT_BIT != 0 {
                    g.checkers.races.seen.add_defined(lanes.alloc, b, b + BLOCK);
                }
            }
            return one.is_some();
        }
        // Local words may also hold one record each (a row one item's read named): one
        // step where `mar::same_step_shifts` says it is the sixteen steps.
        let step_same = |old: u64| {
            if !(alike && mar::same_step_shifts(old, &me, n, epoch)) {
                return None;
            }
            let s = mar::step(old, &me, at.site, epoch, at.op, same);
            if s.uninit || s.conflicts.any() {
                return None;
            }
            Some(match mar::item_of(s.new) == me.item {
                true => Run::Block(s.new),
                false => Run::Same(s.new),
            })
        };
        let slot = lanes.alloc.local_slot().map(|s| s as usize);
        let mem = slot.and_then(|s| g.local.get_mut(s));
        mem.and_then(|m| {
            m.update_block(b as usize, |run| match run {
                Run::Block(old) => step_block(old).map(Run::Block),
                Run::Same(old) => step_same(old),
            })
        })
        .is_some()
    }

    /// The check of access `a` at `at` (`want`: races, uninitialised reads).
    #[inline(always)]
    fn check_at<const FIRST: bool>(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
        at: &AccessSite,
        (want_races, want_uninit): (bool, bool),
    ) {
        let (op, site, me) = (at.op, at.site, &at.me);
        // A copy moves undefined bytes without using them: its load reports none and tells
        // its store which bytes stay undefined (with those the executor knows of, private).
        let copy_read = a.copy && op == Op::Read;
        let keep_undefined = if a.copy && op == Op::Write {
            std::mem::take(&mut g.checkers.async_copies.undefined) | a.undefined
        } else {
            0
        };
        let mut read_undefined = 0u8;
        // Whether the bytes were already there is decided per byte by the record (undefined
        // bytes have no value to store again).
        let stored = self.stored(a, op);
        let step = |rec: u64, site: u16, epoch: u8| mar::step(rec, me, site, epoch, op, stored);
        let mut found = Found::default();
        // Only for a pair pass (bit i = byte i of the access): raced inside the launch, written
        // first (global bytes).
        let (mut racy, mut defined) = (0u128, 0u128);
        // A copy's store of byte `i` leaves its definedness as it was when the byte copied
        // was undefined (it does not make it defined).
        let keep = |i: u64, old: u64, new: u64| {
            if i < 8 && keep_undefined >> i & 1 != 0 {
                (new & !mar::INIT_BIT) | (old & mar::INIT_BIT)
            } else {
                new
            }
        };
        // Only writes make bytes defined.
        let writes = FIRST && matches!(op, Op::Write | Op::Atomic);
        // Bits `i..i + n` of a 128-bit byte mask (bytes past 128 are not followed).
        let bits = |i: u64, n: u64| ((1u128 << n) - 1).checked_shl(i as u32).unwrap_or(0);
        match a.space {
            AddressSpace::Local => {
                let epoch = g.epoch_local;
                let Some(mem) = a
                    .alloc
                    .local_slot()
                    .and_then(|s| g.local.get_mut(s as usize))
                else {
                    return;
                };
                let (start, n) = (a.offset as usize, a.size as usize);
                // Whole words (a scalar or a vector of words: the usual case) step their word
                // records; any other access (and a copy, whose bytes may stay undefined one
                // by one) its byte records.
                let (recs, unit) = match mem.whole_words(start, n).filter(|_| !a.copy) {
                    Some(words) => (words, 4),
                    None => (mem.bytes(start, n), 1),
                };
                // The step of a record equal to the previous unit's is that unit's step,
                // whose conflicts are already noted. Kept as scalars: copying the whole
                // `Step` per byte was the hot spot (store-forwarding stalls).
                let mut last: Option<(u64, u64, bool, bool)> = None;
                for (k, rec) in recs.iter_mut().enumerate() {
                    let i = (k * unit) as u64;
                    let (new, inside, undefined) = match last {
                        Some((old, new, inside, undefined)) if old == *rec => {
                            (new, inside, undefined)
                        }
                        _ => {
                            let s = step(*rec, site, epoch);
                            let inside = found.note(a.offset + i, s);
                            last = Some((*rec, s.new, inside, s.uninit));
                            (s.new, inside, s.uninit)
                        }
                    };
                    if copy_read && undefined {
                        read_undefined |= 1 << (i & 7);
                    }
                    *rec = keep(i, *rec, new);
                    if FIRST && inside {
                        racy |= bits(i, unit as u64);
                    }
                }
            }
            AddressSpace::Global => {
                let epoch = g.epoch_global;
                let shadow = &g.shadows[at.shadow].1;
                if at.read_only && Self::read_settles(shadow, a.offset, a.size as u64, at) {
                    return;
                }
                // Whole aligned words (a scalar or a short vector: most accesses) go straight
                // to their word records, without the general loop's bookkeeping (vadd of 2^22
                // floats, checks on: 19% faster); the rest of the access (a split word, a
                // page of byte records), or all of it, through the general loop below.
                let mut from = 0u64;
                if !a.copy && a.size <= 16 && a.offset.is_multiple_of(4) && a.size.is_multiple_of(4)
                {
                    while from < a.size as u64 {
                        let Some(cell) = shadow.word(a.offset + from) else {
                            break;
                        };
                        let Some((old, new, kept)) =
                            self.step_word(cell, me, site, epoch, op, stored)
                        else {
                            break;
                        };
                        if writes && old & mar::INIT_BIT == 0 && new & mar::INIT_BIT != 0 {
                            defined |= bits(from, 4);
                        }
                        if let Some(s) = kept {
                            let inside = found.note(a.offset + from, s);
                            if FIRST && inside {
                                racy |= bits(from, 4);
                            }
                        }
                        from += 4;
                    }
                }
                // Only the new record and whether the step found anything pass through the
                // shadow's loop; a step that did is kept aside for `done` (moving the whole
                // `Step` per word was that loop's hot spot). Within one access the step is a
                // function of the old record alone: words with equal records (a long host
                // transfer, a vector one item wrote) reuse the previous word's.
                let notable: Cell<Option<mar::Step>> = Cell::new(None);
                // The last step that found nothing: (old record, new record).
                let mut last: Option<(u64, u64)> = None;
                if from < a.size as u64 {
                    shadow.update(
                        a.offset + from,
                        a.size as u64 - from,
                        keep_undefined != 0,
                        |i, old| {
                            let i = i + from;
                            let new = match last {
                                // Only steps that found nothing are reused: `notable` is `None`.
                                Some((o, new)) if o == old => new,
                                _ => {
                                    let s = step(self.current(old, me), site, epoch);
                                    let found_something = s.uninit || s.conflicts.any();
                                    notable.set(found_something.then_some(s));
                                    last = (!found_something).then_some((old, s.new));
                                    s.new
                                }
                            };
                            let new = keep(i, old, new);
                            (new, new)
                        },
                        |i, n, old, new| {
                            let i = i + from;
                            if writes && old & mar::INIT_BIT == 0 && new & mar::INIT_BIT != 0 {
                                defined |= bits(i, n);
                            }
                            let Some(s) = notable.get() else {
                                return;
                            };
                            if copy_read && s.uninit {
                                read_undefined |= (((1u16 << n) - 1) << (i & 7)) as u8;
                            }
                            let inside = found.note(a.offset + i, s);
                            if FIRST && inside {
                                racy |= bits(i, n);
                            }
                        },
                    );
                }
            }
            // Constant memory is read-only (no races); private memory is handled above.
            AddressSpace::Constant | AddressSpace::Private => return,
        }
        if copy_read {
            g.checkers.async_copies.undefined = read_undefined;
            found.uninit = None;
        }
        if !want_races {
            // Only uninitialised reads are wanted (or the launch is past what records tell
            // apart): conflicts are not races to report or to name.
            found.conflicts = [None; 3];
            racy = 0;
        }
        if FIRST && racy | defined != 0 {
            Self::note_first_run(&mut g.checkers.races.seen, a, racy, defined);
        }
        let uninit = found.uninit.filter(|_| want_uninit);
        self.add_findings(g, a, op, found.conflicts, uninit);
    }

    /// The executor follows private bytes itself and reports only reads of undefined ones
    /// (no other work-item can see them: no races).
    #[cold]
    fn check_private_read(&self, g: &mut GroupState, a: &Access<'_>) {
        if a.kind == AccessKind::Read && !a.copy && a.undefined != 0 {
            let first = a.offset + a.undefined.trailing_zeros() as u64;
            self.add_findings(g, a, Op::Read, [None; 3], Some(first));
        }
    }

    /// Turns what one access found into raw findings: the first byte of each race kind it
    /// is in (when that kind is wanted), and its first uninitialised byte.
    #[inline(always)]
    fn add_findings(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
        op: Op,
        conflicts: [Option<(u64, RaceKind, mar::Conflict)>; 3],
        uninit: Option<u64>,
    ) {
        // The usual case, without building the sides or walking the array.
        if uninit.is_none() && conflicts.iter().all(Option::is_none) {
            return;
        }
        let here = || {
            let mut second = Self::here(a.item, Some(a.inst), op.name());
            if let RawSide::Here { group, .. } = &mut second.0 {
                *group = a.by_group;
            }
            second
        };
        for (off, race, c) in conflicts.into_iter().flatten() {
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
                    sync: None,
                    key: RawKey {
                        kind,
                        race: Some(race),
                        scope: Some(c.scope),
                        memory: Some(a.space),
                        alloc: Some(a.alloc),
                        first: Some(side_key(&first)),
                        second: Some((op.name(), Some(a.inst))),
                    },
                    offset: Some(off as i64),
                    first: Some((first, None)),
                    second: Some(here()),
                    count: 1,
                    message: String::new(),
                });
            }
        }
        if let Some(off) = uninit {
            let key = RawKey {
                kind: FindingKind::UninitializedRead,
                race: None,
                scope: None,
                memory: Some(a.space),
                alloc: Some(a.alloc),
                first: None,
                second: Some((op.name(), Some(a.inst))),
            };
            // A kernel that reads unwritten memory in a loop meets this once per access: count
            // it without building the finding (and its message) again.
            if g.raw.count_again(&key) {
                return;
            }
            g.raw.add(Raw {
                sync: None,
                key,
                offset: Some(off as i64),
                first: None,
                second: Some(here()),
                count: 1,
                message: "read of memory never written since it was created".into(),
            });
        }
    }
}

mod hooks;
mod lockstep;
#[cfg(test)]
mod tests;

pub(crate) use hooks::Races;
use lockstep::*;
pub(crate) use lockstep::{PendingRead, QuietReads, WordSite};
