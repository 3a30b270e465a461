//! Per-work-group checker state: its ids, barrier epochs, local-memory records, barrier
//! arrivals, async copies in flight and raw findings (lives on the worker running the group).
//!
//! Performance: a worker's next work-group starts from the state of its last one
//! (`GroupState::restart`, and each checker's `GroupPart::restart`), so a new per-group field
//! must be reset there unless it belongs to the launch. At the launch's end the worker's last
//! state is kept in the session (`Session::spare_groups`) for the next launch's first group
//! (`GroupState::relaunch`, `GroupPart::relaunch`): a new per-launch field must be replaced
//! there. A loop of small launches then builds no state per launch.

use crate::checks::divergence::Arrivals;
use crate::checks::CheckerGroups;
use crate::launch::LaunchState;
use crate::local::LocalRecords;
use crate::mar::{self, Accessor};
use crate::raw::RawSet;
use crate::shadow::Shadow;
use shadowcl_interpreter::{Access, AddressSpace, AllocId, InstId, WorkItem};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Per-work-group state (lives on the worker thread running the group).
pub struct GroupState {
    pub(crate) lo: u64,
    /// End of the group's ids: its work-items, then its async-copy actor (`hi - 1`).
    pub(crate) hi: u64,
    pub(crate) launch_lo: u64,
    pub(crate) launch_hi: u64,
    pub(crate) epoch_global: u8,
    pub(crate) epoch_local: u8,
    /// Barriers of each kind released so far (epochs wrap; the pair pass compares these).
    pub(crate) barriers_global: u32,
    pub(crate) barriers_local: u32,
    pub(crate) local: Vec<LocalRecords>,
    pub(crate) arrivals: Arrivals,
    pub(crate) sites: SiteMap,
    /// The last sites looked up, by a hash of the instruction, with the allocation accessed
    /// and the group that looked (`group_serial`): most accesses hit.
    pub(crate) recent_sites: [(InstId, AllocId, u16, u32); RECENT_SITES],
    /// Counts the groups this state served (see [`GroupState::restart`]): a recent site
    /// found by an earlier group was not yet noted in `touched` by this one.
    pub(crate) group_serial: u32,
    /// (instruction, allocation) pairs this group has made: each is noted once in the
    /// launch's [`crate::launch::LaunchChecker::touched`].
    pub(crate) touched: TouchedSet,
    /// Entries of the launch's `touched` already made by two groups: later groups on this
    /// worker have nothing to add to them (kept with the state from group to group).
    pub(crate) touched_by_many: ManyGroupsSet,
    pub(crate) shadows: Vec<(AllocId, Arc<Shadow>)>,
    pub(crate) raw: RawSet,
    /// The launch has more work-items than records tell apart: races are not checked.
    pub(crate) races_off: bool,
    /// Each checker's own state for the group (see [`crate::checks::Checker::Group`]).
    pub(crate) checkers: CheckerGroups,
}

/// Entries of [`GroupState::recent_sites`].
pub(crate) const RECENT_SITES: usize = 128;
/// No instruction has this id (an empty [`GroupState::recent_sites`] entry).
pub(crate) const NO_INST: InstId = InstId(u32::MAX);

/// Report sites of a group by instruction: looked up on every access, so hashed with one
/// multiply (instruction ids are small integers chosen by us, not by an adversary).
pub(crate) type SiteMap = HashMap<InstId, u16, std::hash::BuildHasherDefault<InstIdHasher>>;

/// (instruction, allocation) pairs, hashed like [`SiteMap`] keys (looked up on the recent-site
/// cache's misses).
pub(crate) type TouchedSet =
    HashSet<(InstId, AllocId), std::hash::BuildHasherDefault<InstIdHasher>>;

/// The launch's `touched` map (see [`crate::launch::LaunchChecker::touched`]), hashed like
/// [`SiteMap`] keys: each group's first access at each site looks it up.
pub(crate) type TouchedMap = HashMap<
    (AllocId, InstId, mar::Op),
    crate::launch::TouchedBy,
    std::hash::BuildHasherDefault<InstIdHasher>,
>;

/// Keys of the launch's `touched` map, hashed like [`SiteMap`] keys.
pub(crate) type ManyGroupsSet =
    HashSet<(AllocId, InstId, mar::Op), std::hash::BuildHasherDefault<InstIdHasher>>;

#[derive(Default)]
pub(crate) struct InstIdHasher(u64);

impl std::hash::Hasher for InstIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    // Enum discriminants and lengths arrive as these: one step each, not eight.
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }
    fn write_u16(&mut self, x: u16) {
        self.write_u64(x as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0 ^ x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(29) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Item ids are u32 in records; ids past the 28-bit space wrap (only launches of more than
/// a quarter of a billion work-items, where two far-apart items may then look alike).
pub(crate) fn clamp_item(v: u64) -> u32 {
    if v <= mar::MAX_ITEM {
        v as u32
    } else {
        (1 + (v - 1) % mar::MAX_ITEM) as u32
    }
}

impl GroupState {
    /// Makes a finished group's state the start state of group `lo..hi` of the same launch.
    /// What belongs to the launch stays: its sites, its shadows, the local records'
    /// allocations (zeroed), the `touched` entries known to be shared; the rest is cleared.
    /// A worker running many small groups (one work-item each, in the CTS's imagedim) then
    /// neither builds nor moves a fresh state per group, nor takes the launch's locks for
    /// each group's first access at every site.
    pub(crate) fn restart(&mut self, lo: u64, hi: u64) {
        self.lo = lo;
        self.hi = hi;
        self.epoch_global = 0;
        self.epoch_local = 0;
        self.barriers_global = 0;
        self.barriers_local = 0;
        self.local.iter_mut().for_each(LocalRecords::reset);
        self.arrivals = Arrivals::default();
        // A recent-site hit means "this group already noted the pair": entries of earlier
        // groups no longer hit.
        self.group_serial = self.group_serial.wrapping_add(1);
        self.touched.clear();
        self.raw.list.clear();
        self.raw.index.clear();
        self.checkers.restart();
    }

    /// Makes the state a worker's last group of an earlier launch left the start state of
    /// group `lo..hi` of the launch `ls` describes: [`GroupState::restart`], and what
    /// belonged to the earlier launch (its sites, shadows, local allocations, shared
    /// `touched` entries, word cursor) replaced. A loop of small launches then builds no
    /// state per launch.
    pub(crate) fn relaunch(&mut self, lo: u64, hi: u64, ls: &LaunchState, local: bool) {
        self.launch_lo = ls.lo;
        self.launch_hi = ls.hi;
        self.races_off = ls.races_off;
        let sizes = ls.local_allocs.iter().map(|l| l.size as usize);
        match local {
            true if self.local.len() == ls.local_allocs.len() => self
                .local
                .iter_mut()
                .zip(sizes)
                .for_each(|(r, n)| r.resize(n)),
            true => self.local = sizes.map(LocalRecords::new).collect(),
            false => self.local.clear(),
        }
        self.shadows.clone_from(&ls.shadows);
        self.sites.clear();
        self.touched_by_many.clear();
        self.checkers.relaunch();
        self.restart(lo, hi);
    }

    /// Lets go of what the state holds of its launch while it waits for the next one
    /// (`Session::spare_groups`): a buffer the application releases meanwhile must not
    /// keep its shadow (and the budget it counts against) alive here.
    pub(crate) fn park(&mut self) {
        self.shadows.clear();
        self.checkers.park();
    }

    /// The record id of work-item `item` of this group.
    pub(crate) fn item_of_work_item(&self, item: &WorkItem) -> u32 {
        clamp_item(self.lo + item.local_linear as u64)
    }

    /// The record id of this group's first work-item, which names the group.
    pub(crate) fn first_item(&self) -> u32 {
        self.lo.min(u32::MAX as u64) as u32
    }

    /// One past the record id of this group's last work-item.
    pub(crate) fn item_end(&self) -> u32 {
        self.hi.min(u32::MAX as u64) as u32
    }

    pub(crate) fn actor(&self) -> u32 {
        clamp_item(self.hi - 1)
    }

    /// The record id of who makes access `a`: its work-item, or the group's async copy.
    #[inline(always)]
    pub(crate) fn item_of(&self, a: &Access<'_>) -> u32 {
        if a.by_group {
            self.actor()
        } else {
            clamp_item(self.lo + a.item.local_linear as u64)
        }
    }

    /// Who makes access `a` (a work-item, or the group's async copy), and since when the
    /// oldest copy in flight of `space` started.
    pub(crate) fn me(&self, a: &Access<'_>) -> Accessor {
        // Range ends may be MAX_ITEM + 1, which still fits a u32.
        let end = |v: u64| v.min(u32::MAX as u64) as u32;
        Accessor {
            item: self.item_of(a),
            group_lo: end(self.lo),
            group_hi: end(self.hi),
            launch_lo: end(self.launch_lo),
            launch_hi: end(self.launch_hi),
            actor: self.actor(),
            actor_since: self
                .checkers
                .async_copies
                .in_flight
                .first()
                .map(|c| match a.space {
                    AddressSpace::Local => c.local_since,
                    _ => c.global_since,
                }),
        }
    }
}
