//! The race checker as the registry sees it: its state per group and the hooks that feed
//! the access checks (`races.rs`), the pair pass's runs (`pairs.rs`) and the
//! synchronisation model (`sync.rs`). The access hooks also run the `bounds` switch's rule
//! checks and the `uninit` switch's reads, on the same look at each access.

use super::{PendingRead, QuietReads, WordSite};
use crate::checks::{Checker, GroupPart};
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::pairs::{Pass, Seen};
use crate::shadow::WordCursor;
use parking_lot::Mutex;
use shadowcl_interpreter::{Access, AllocId, InstId, LaneAccesses, Release, SyncEvent};
use std::sync::atomic::AtomicUsize;

/// The race checker (switches `races`, `benign` and `uninit`).
pub(crate) struct Races;

/// What the race checker keeps of a group.
#[derive(Default)]
pub(crate) struct RaceGroup {
    /// Reads the group need not report (see [`QuietReads`]).
    pub(crate) quiet: QuietReads,
    /// Reads kept for the launch's end (see [`PendingRead`]), handed to the launch when
    /// the group ends.
    pub(crate) pending: Vec<PendingRead>,
    /// Reads this state may still keep for its launch (reserved from the launch's count).
    pub(crate) pending_quota: usize,
    /// The block of global memory the group's last word access touched (see
    /// `LaunchChecker::check_word_at`).
    pub(crate) word_cursor: WordCursor,
    /// The site of the group's last word access (see `LaunchChecker::word_access_site`).
    pub(crate) last_word_site: Option<WordSite>,
    /// What the pair pass needs from a first run (see `pairs`).
    pub(crate) seen: Seen,
}

impl GroupPart for RaceGroup {
    /// The launch's word cursor, last site and read quota carry over to its next group.
    fn restart(&mut self) {
        self.quiet.next_group();
        self.pending.clear();
        self.seen = Seen::default();
    }

    fn relaunch(&mut self) {
        // The cursor points into a shadow page of the earlier launch, which may be gone;
        // the quota was reserved from the earlier launch's count.
        self.word_cursor = WordCursor::default();
        self.last_word_site = None;
        self.pending_quota = 0;
        self.restart();
    }

    fn park(&mut self) {
        self.word_cursor = WordCursor::default();
        self.last_word_site = None;
    }
}

/// What the race checker keeps of a launch.
#[derive(Default)]
pub(crate) struct RaceLaunch {
    /// Reads the groups kept for the launch's end (see [`PendingRead`]).
    pub(crate) pending: Mutex<Vec<Vec<PendingRead>>>,
    /// How many reads the groups reserved room for.
    pub(crate) pending_count: AtomicUsize,
}

impl Checker for Races {
    type Group = RaceGroup;
    type Launch = RaceLaunch;
    const SEES_ACCESSES: bool = true;

    #[inline(always)]
    fn access(l: &LaunchChecker<'_>, g: &mut GroupState, a: &Access<'_>) {
        let checked = match &l.pass {
            Pass::Only => l.check_word_access::<false>(g, a),
            Pass::First(_) => l.check_word_access::<true>(g, a),
            Pass::Second(_) => false,
        };
        if checked {
            return;
        }
        if l.checks.bounds && !matches!(l.pass, Pass::Second(_)) {
            l.check_access_rules(g, a);
        }
        // One instance of the access check per pass, so an ordinary run carries none of the
        // first run's bookkeeping.
        match &l.pass {
            Pass::Only => l.check_access::<false>(g, a),
            Pass::First(_) => l.check_access::<true>(g, a),
            Pass::Second(probe) => l.probe_access(g, a, probe),
        }
    }

    #[inline(always)]
    fn access_lanes(l: &LaunchChecker<'_>, g: &mut GroupState, lanes: &LaneAccesses<'_>) {
        let (span, offset_bits) = lanes.span();
        if l.checks.bounds && !matches!(l.pass, Pass::Second(_)) {
            l.check_lane_rules(g, lanes, span, offset_bits);
        }
        match &l.pass {
            Pass::Only => l.check_lanes::<false>(g, lanes, span.1),
            Pass::First(_) => l.check_lanes::<true>(g, lanes, span.1),
            Pass::Second(probe) => {
                let mut bytes = [[0u8; 8]; 2];
                for &lane in lanes.order {
                    l.probe_access(g, &lanes.lane(lane, &mut bytes), probe);
                }
            }
        }
    }

    #[inline(always)]
    fn read_is_quiet(g: &GroupState, alloc: AllocId, inst: InstId, offset: u64, size: u32) -> bool {
        g.checkers.races.quiet.covers(alloc, inst, offset, size)
    }

    /// Only the race checks compare a store with what it replaced (same-value writes).
    fn wants_previous(l: &LaunchChecker<'_>) -> bool {
        l.checks.race_records()
    }

    fn wants_definedness(l: &LaunchChecker<'_>) -> bool {
        l.checks.uninit && !matches!(l.pass, Pass::Second(_))
    }

    fn wants_sync(l: &LaunchChecker<'_>) -> bool {
        matches!(&l.pass, Pass::Second(probe) if probe.sync.is_some())
    }

    fn synchronise(l: &LaunchChecker<'_>, g: &mut GroupState, sync: &SyncEvent<'_>) {
        if let Pass::Second(probe) = &l.pass {
            l.probe_sync(g, sync, probe);
        }
    }

    fn barrier_release(l: &LaunchChecker<'_>, g: &mut GroupState, why: Release) {
        if let (Pass::Second(probe), Release::AllArrived) = (&l.pass, why) {
            l.probe_release(g, g.arrivals.fences(), probe);
        }
    }

    fn group_end(l: &LaunchChecker<'_>, g: &mut GroupState) {
        l.pass_group_end(g);
        let pending = &mut g.checkers.races.pending;
        if !pending.is_empty() {
            // Moved, not copied: a group's list becomes one of the launch's.
            l.checkers
                .races
                .pending
                .lock()
                .push(std::mem::take(pending));
        }
    }
}
