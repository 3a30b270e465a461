//! What the race check keeps for lockstep operations: which lanes' accesses a shadow block
//! checks as one ([`block_runs`]), lane sets, reads kept for the launch's end
//! ([`PendingRead`]), global reads a group need not report ([`QuietReads`]) and the last
//! blocks found settled ([`SettledBlock`]).
//!
//! Performance: reads of global memory no work-item of the launch writes (`LaunchState::read_only`:
//! every argument bound to it is `KernelArg::never_written`, proven by the interpreter's
//! `lower/param_writes.rs`) settle without splitting blocks (`mar::read_only_settled`,
//! `Shadow::words_all`). `lanes_settle` and the per-lane loop remember the last block found
//! settled whole (`SettledBlock`), so a stencil's neighbour reads no longer split the block the
//! centre read left whole. A work-item's read that settles also tests the words after it: those
//! that settle join its instruction's quiet words (`QuietReads`, per group), which the executor
//! asks before it reports a read.
//!
//! A lockstep lane's read of such memory that does not settle and would split a block record
//! (a stencil's `x + 1` read of the next group's row, before that group reads it) is kept for
//! the launch's end when its step finds nothing now (`PendingRead`, 40 bytes: the work-item
//! and site are made again from the launch's geometry; at most 65,536 per launch).
//! `LaunchChecker::finish` makes the kept reads first. One whose word another read of the launch
//! has named since leaves it as it is; the others step then (in a group state restarted for
//! their group) and report what they find as theirs. Reads commute with reads, and a write of
//! an overlapping launch either finds the read the record names or is found by the kept read
//! (corpus `inter-kernel/shifted-reads-then-writer`).

use super::*;

/// The blocks a lockstep operation's lanes may check as one record each, by their first
/// lane: that lane and the next [`BLOCK_LANES`]` - 1` made 4-byte accesses of the block's
/// words in order (their items, a lane's local id being its index, count up with the
/// words).
/// `shared` unless the blocks differ and no other lane touches them: then every block's
/// words are accessed by its lanes alone, so checking them apart from the others, in any
/// order, gives what checking every lane in the schedule's order gives.
pub(super) fn block_runs(lanes: &LaneAccesses<'_>) -> BlockRuns {
    let mut runs = BlockRuns::default();
    let n = lanes.items.len();
    let words = BLOCK_LANES;
    if lanes.size != 4 || lanes.order.len() < words || n > LaneSet::LANES {
        return runs;
    }
    let all = lanes.order.len() == n;
    // The usual case first: every lane, one run of consecutive words (`a[i]`, a 1-D group).
    let o0 = lanes.offsets[0];
    let consecutive = |l: usize| lanes.offsets[l] == o0 + 4 * l as u64;
    if all && o0.is_multiple_of(4) && (1..n).all(consecutive) {
        let end = o0 + 4 * n as u64;
        for b in (o0.next_multiple_of(BLOCK)..end.saturating_sub(BLOCK - 1)).step_by(BLOCK as usize)
        {
            runs.push(((b - o0) / 4) as usize);
        }
        return runs;
    }
    let mut accessing = LaneSet::default();
    if !all {
        lanes.order.iter().for_each(|&l| accessing.insert(l..l + 1));
    }
    let active = |l: usize| all || accessing.contains(l);
    let mut in_run = LaneSet::default();
    let mut l = 0;
    while l + words <= n {
        // Past the lanes that made no access (a reduction's idle half) in one step.
        if !all {
            match accessing.next_from(l) {
                Some(next) if next + words <= n => l = next,
                _ => break,
            }
        }
        let o = lanes.offsets[l];
        if !(active(l) && o.is_multiple_of(BLOCK)) {
            l += 1;
            continue;
        }
        // How many lanes from `l` go on word by word (a run needs all sixteen).
        let along = (1..words)
            .find(|&k| !(active(l + k) && lanes.offsets[l + k] == o + 4 * k as u64))
            .unwrap_or(words);
        if along < words {
            // The lanes after `l` that went on word by word access words inside `o`'s
            // block, past its start: none of them starts a run.
            l += along;
            continue;
        }
        runs.push(l);
        in_run.insert(l..l + words);
        l += words;
    }
    if runs.len == 0 {
        return runs;
    }
    // Every lane that accesses is in a run: no other lane touches their blocks.
    let others = lanes.order.len() != runs.len * words;
    let mut sorted = [0u64; LaneSet::LANES / BLOCK_LANES];
    let blocks = &mut sorted[..runs.len];
    blocks
        .iter_mut()
        .zip(runs.iter())
        .for_each(|(b, first)| *b = lanes.offsets[first]);
    blocks.sort_unstable();
    let shared = blocks.windows(2).any(|w| w[0] == w[1]);
    let touched = |o: u64| blocks.binary_search(&(o - o % BLOCK)).is_ok();
    let others_touch = others
        && (0..n)
            .filter(|&l| active(l) && !in_run.contains(l))
            .any(|l| touched(lanes.offsets[l]) || touched(lanes.offsets[l] + 3));
    runs.shared = shared || others_touch;
    runs
}

/// Lanes (4-byte accesses) one shadow block covers.
pub(super) const BLOCK_LANES: usize = (BLOCK / 4) as usize;

/// [`block_runs`]' answer: the first lane of each run (at most one per [`BLOCK_LANES`]
/// lanes); the block is that lane's offset.
pub(super) struct BlockRuns {
    pub(super) firsts: [u16; LaneSet::LANES / BLOCK_LANES],
    pub(super) len: usize,
    /// Two runs access one block, or another lane touches a run's block: the runs may not
    /// be checked apart from the other lanes.
    pub(super) shared: bool,
}

impl Default for BlockRuns {
    fn default() -> Self {
        BlockRuns {
            firsts: [0; LaneSet::LANES / BLOCK_LANES],
            len: 0,
            shared: false,
        }
    }
}

/// Whether `order` starts with the [`BLOCK_LANES`] lanes of a run, in lane order: the run's
/// accesses came one after the other in the schedule, so checking them as one there
/// ([`LaunchChecker::check_run`]) is checking them in the schedule's order, whatever other
/// lanes touch the block.
pub(super) fn run_next(order: &[usize]) -> bool {
    order.len() >= BLOCK_LANES && (1..BLOCK_LANES).all(|i| order[i] == order[0] + i)
}

impl BlockRuns {
    /// The first lanes of the runs when they are `shared`: those the block pass before the
    /// lanes' loop leaves alone, and the loop checks where they come ([`run_next`]).
    pub(super) fn shared_firsts(&self) -> LaneSet {
        let mut firsts = LaneSet::default();
        if self.shared {
            self.iter().for_each(|l| firsts.insert(l..l + 1));
        }
        firsts
    }

    pub(super) fn push(&mut self, first: usize) {
        if let Some(slot) = self.firsts.get_mut(self.len) {
            *slot = first as u16;
            self.len += 1;
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.firsts[..self.len].iter().map(|&l| l as usize)
    }
}

/// Lanes of a lockstep operation (up to [`LaneSet::LANES`]).
#[derive(Default)]
pub(super) struct LaneSet {
    pub(super) bits: [u64; 16],
    /// Lanes inserted (each once).
    pub(super) len: usize,
}

impl LaneSet {
    pub(super) const LANES: usize = 16 * 64;

    /// Adds `lanes`, none of which is in the set yet.
    pub(super) fn insert(&mut self, lanes: std::ops::Range<usize>) {
        self.len += lanes.len();
        let mut l = lanes.start;
        while l < lanes.end {
            // The lanes of `lanes` in `l`'s 64-bit word, as one mask.
            let n = (lanes.end - l).min(64 - l % 64);
            let mask = u64::MAX >> (64 - n) << (l % 64);
            if let Some(w) = self.bits.get_mut(l / 64) {
                *w |= mask;
            }
            l += n;
        }
    }

    /// The set's first lane from `l` on.
    pub(super) fn next_from(&self, l: usize) -> Option<usize> {
        let mut w = l / 64;
        let mut bits = self.bits.get(w)? & (u64::MAX << (l % 64));
        while bits == 0 {
            w += 1;
            bits = *self.bits.get(w)?;
        }
        Some(w * 64 + bits.trailing_zeros() as usize)
    }

    #[inline(always)]
    pub(super) fn contains(&self, l: usize) -> bool {
        self.bits
            .get(l / 64)
            .is_some_and(|w| w >> (l % 64) & 1 != 0)
    }
}

/// A lockstep lane's read of memory the launch never writes, kept for the launch's end
/// ([`LaunchChecker::apply_pending_reads`]) instead of made at once: its step would have
/// found nothing and split a block record (a stencil's `x + 1` read of the next group's
/// row, before that group reads it). By the launch's end another read of the launch has
/// mostly named the word (the row's own group reads it whole, as one block record): then
/// the kept read leaves the record as it is, as it would have at once
/// ([`mar::read_only_settled`]), and the block stays one record. Reads commute with reads,
/// and a write of another launch or a host command that may overlap this one either finds
/// the read the record names or is found by the kept read when it is made.
/// Kept small (a stencil launch keeps tens of thousands): the rest of the read (its
/// work-item, accessor and site) is made again from the launch's geometry when it is made.
#[derive(Clone, Copy)]
pub(crate) struct PendingRead {
    pub(super) alloc: AllocId,
    pub(super) offset: u64,
    /// The group's linear index and the work-item's inside it.
    pub(super) group_linear: u64,
    pub(super) local_linear: u32,
    pub(super) inst: InstId,
    /// Index of the allocation's shadow in `GroupState::shadows`.
    pub(super) shadow: u32,
    pub(super) epoch: u8,
    pub(super) component: u8,
}

/// Most reads a launch keeps for its end (at most 10 MB of them); past it they are made at
/// once.
pub(super) const PENDING_READS: usize = 1 << 16;
/// Kept reads a group reserves of [`PENDING_READS`] at a time (`RaceGroup::pending_quota`).
pub(super) const PENDING_CHUNK: usize = 256;
const _: () = assert!(PENDING_READS.is_multiple_of(PENDING_CHUNK));
const _: () = assert!(PENDING_READS * std::mem::size_of::<PendingRead>() <= 10 << 20);

/// What `LaunchChecker::word_access_site` keeps of a group's last word access, and what
/// it is kept for (instruction, allocation, `GroupState::group_serial`).
#[derive(Clone, Copy)]
pub(crate) struct WordSite {
    pub(super) inst: InstId,
    pub(super) alloc: AllocId,
    pub(super) serial: u32,
    pub(super) at: AccessSite,
    pub(super) rule_free: RuleFree,
}

/// Reads of global memory a group need not report ([`Observer::read_is_quiet`]): by
/// instruction, allocation and bytes, whole words whose records every read of this launch
/// leaves as they are ([`mar::read_only_settled`]: the allocation is never written by the
/// launch, and each record names a read of the launch). Settled records stay settled until
/// the launch ends: no work-item of it writes them, and another launch's write, which would
/// change them, finds the read they name. Kept per instruction, so that a group's first
/// access of each instruction still goes through the checks (`touched`, the sites); void
/// when the state starts another group.
#[derive(Clone)]
pub(crate) struct QuietReads {
    /// (instruction, allocation, quiet bytes, the group that found them), at a hash of the
    /// instruction.
    pub(super) ranges: [(InstId, AllocId, u64, u64, u32); QUIET_RANGES],
    /// Counts the groups this state served: entries of earlier groups are void (so a new
    /// group need not clear them).
    pub(super) group: u32,
}

/// Entries of [`QuietReads`] (the loads of an unrolled loop's body, each its own
/// instruction: most find their own entry).
pub(super) const QUIET_RANGES: usize = 32;

impl Default for QuietReads {
    fn default() -> QuietReads {
        QuietReads {
            ranges: [(NO_INST, AllocId(u64::MAX), 0, 0, 0); QUIET_RANGES],
            group: 0,
        }
    }
}

impl QuietReads {
    /// The entry of `inst` (multiplicative hashing, as `LaunchChecker::site`'s).
    #[inline(always)]
    pub(super) fn slot(inst: InstId) -> usize {
        (inst.0.wrapping_mul(0x9E37_79B9) >> 27) as usize % QUIET_RANGES
    }

    /// The quiet bytes of `inst` and `alloc` this group found.
    #[inline(always)]
    pub(super) fn entry(&self, inst: InstId, alloc: AllocId) -> Option<(u64, u64)> {
        let (i, al, lo, hi, group) = self.ranges[Self::slot(inst)];
        (i == inst && al == alloc && group == self.group).then_some((lo, hi))
    }

    /// Whether a word read at `offset` by `inst` of `alloc` is quiet.
    #[inline(always)]
    pub(crate) fn covers(&self, alloc: AllocId, inst: InstId, offset: u64, size: u32) -> bool {
        size == WORD_BYTES
            && offset.is_multiple_of(WORD_BYTES as u64)
            && self
                .entry(inst, alloc)
                .is_some_and(|(lo, hi)| lo <= offset && offset + WORD_BYTES as u64 <= hi)
    }

    /// Where words from `offset` on that are not yet quiet for `inst` start: the end of its
    /// quiet bytes when `offset` is inside them or just past them, else `offset`.
    #[inline(always)]
    pub(super) fn extends(&self, inst: InstId, alloc: AllocId, offset: u64) -> u64 {
        match self.entry(inst, alloc) {
            Some((lo, hi)) if lo <= offset && offset <= hi => hi,
            _ => offset,
        }
    }

    /// Makes `lo..hi` quiet for `inst`: joined to its quiet bytes where the two meet or
    /// overlap, else in their place.
    pub(super) fn add(&mut self, inst: InstId, alloc: AllocId, lo: u64, hi: u64) {
        if lo >= hi {
            return;
        }
        let (lo, hi) = match self.entry(inst, alloc) {
            Some((l, h)) if l <= hi && lo <= h => (l.min(lo), h.max(hi)),
            _ => (lo, hi),
        };
        self.ranges[Self::slot(inst)] = (inst, alloc, lo, hi, self.group);
    }

    /// The state starts another group: every entry is void.
    pub(crate) fn next_group(&mut self) {
        self.group = self.group.wrapping_add(1);
    }
}

/// The last block a lockstep operation's lanes found settled as a whole, and the last they
/// found not to be (see [`LaunchChecker::read_settles`]): the lanes that follow in a settled
/// block need no look at the shadow (a row of lanes reads one block; settled records stay
/// settled until the launch ends), those in the other ask only for their own words.
#[derive(Default)]
pub(super) struct SettledBlock {
    pub(super) settled: Option<u64>,
    pub(super) not: Option<u64>,
}

impl SettledBlock {
    /// [`LaunchChecker::read_settles`] of `offset..offset + len` (one lane's read), through
    /// the last blocks looked at; the block of a lane's read inside one is looked at whole
    /// first.
    #[inline(always)]
    pub(super) fn read_settles(
        &mut self,
        shadow: &Shadow,
        offset: u64,
        len: u64,
        at: &AccessSite,
    ) -> bool {
        let start = offset - offset % BLOCK;
        let inside =
            offset.is_multiple_of(4) && len.is_multiple_of(4) && offset % BLOCK + len <= BLOCK;
        if inside && self.settled == Some(start) {
            return true;
        }
        if inside && self.not != Some(start) {
            if LaunchChecker::read_settles(shadow, start, BLOCK, at) {
                self.settled = Some(start);
                return true;
            }
            self.not = Some(start);
        }
        LaunchChecker::read_settles(shadow, offset, len, at)
    }
}
