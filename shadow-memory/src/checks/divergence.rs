//! Barrier divergence: work-items of a group at different barriers, some finished while
//! others wait, or different fence flags at one barrier. A release also advances the
//! group's epochs, which is what orders its accesses.

use crate::checks::{Checker, GroupPart};
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::mar::{self};
use crate::raw::{side_key, Raw, RawKey};
use crate::report::FindingKind;
use shadowcl_interpreter::{BarrierArrival, Fences, InstId, Release, WorkItem};

/// What a release needs of the work-items that arrived at a group's barrier since the last
/// one: the first arrival, the first at another barrier and the first with other fence
/// flags than it, and the fences every arrival named. Kept as they come (a lockstep barrier
/// brings every lane of the group), not as a list to search at the release.
#[derive(Default)]
pub(crate) struct Arrivals {
    first: Option<(WorkItem, InstId, Fences)>,
    other_barrier: Option<(WorkItem, InstId)>,
    other_fences: Option<(WorkItem, InstId)>,
    /// The fences every arrival named.
    all: Fences,
}

impl Arrivals {
    /// The memory every arrival so far fenced.
    pub(crate) fn fences(&self) -> Fences {
        self.all
    }

    #[inline(always)]
    fn add(&mut self, item: &WorkItem, inst: InstId, fences: Fences) {
        let Some((_, first_inst, first_fences)) = self.first else {
            self.first = Some((*item, inst, fences));
            self.all = fences;
            return;
        };
        if inst != first_inst && self.other_barrier.is_none() {
            self.other_barrier = Some((*item, inst));
        }
        if fences != first_fences && self.other_fences.is_none() {
            self.other_fences = Some((*item, inst));
        }
        self.all.local &= fences.local;
        self.all.global &= fences.global;
    }
}

/// The divergence checker (see the module's doc).
pub(crate) struct Divergence;

/// What the divergence checker keeps of a group.
#[derive(Default)]
pub(crate) struct DivergenceGroup {
    /// The work-item that finished last, named when others still wait at a barrier.
    pub(crate) last_finished: Option<WorkItem>,
}

impl GroupPart for DivergenceGroup {}

impl Checker for Divergence {
    type Group = DivergenceGroup;
    type Launch = ();

    fn item_end(_: &LaunchChecker<'_>, g: &mut GroupState, item: &WorkItem) {
        g.checkers.divergence.last_finished = Some(*item);
    }

    fn barrier_release(l: &LaunchChecker<'_>, g: &mut GroupState, why: Release) {
        if l.checks.divergence {
            l.report_divergence(g, why);
        }
    }
}

impl LaunchChecker<'_> {
    pub(crate) fn record_arrival(&self, g: &mut GroupState, arrival: &BarrierArrival<'_>) {
        g.arrivals.add(arrival.item, arrival.inst, arrival.fences);
    }

    /// The group's barrier released: its epochs advance for the memory every arrival fenced,
    /// and the arrivals start afresh.
    pub(crate) fn release_barrier(&self, g: &mut GroupState) {
        let arrivals = std::mem::take(&mut g.arrivals);
        // A barrier orders only the memory its fences name, and only memory every arriving
        // work-item fenced (flags may differ between items when they are not constants).
        let Fences { local, global } = arrivals.all;
        g.epoch_local = g.epoch_local.wrapping_add(local as u8);
        g.epoch_global = g.epoch_global.wrapping_add(global as u8);
        g.barriers_local = g.barriers_local.wrapping_add(local as u32);
        g.barriers_global = g.barriers_global.wrapping_add(global as u32);
        // Epochs are 7 bits: every AGE_EVERY barriers, pull the group's older records to "just
        // before now" so none looks current again after a wrap. For global memory that sweeps
        // the launch's buffers, once per AGE_EVERY global barriers of a group (only long
        // barrier loops).
        if local && g.epoch_local.is_multiple_of(mar::AGE_EVERY) {
            let now = g.epoch_local;
            for mem in &mut g.local {
                mem.map_all(|rec| mar::age(rec, now));
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
    }

    /// Work-items at different barriers, with different fence flags, or finished while
    /// others wait.
    fn report_divergence(&self, g: &mut GroupState, why: Release) {
        let arrivals = &g.arrivals;
        let Some((first_item, first_inst, _)) = arrivals.first else {
            return;
        };
        let (second, message) = match why {
            Release::AllArrived => match (arrivals.other_barrier, arrivals.other_fences) {
                (Some((item, inst)), _) => (
                    Some(Self::here(&item, Some(inst), "barrier")),
                    "work-items of one work-group wait at different barriers",
                ),
                // Run-time flags (OpenCL 2.0: every work-item passes the same ones).
                (None, Some((item, inst))) => (
                    Some(Self::here(&item, Some(inst), "barrier")),
                    "work-items of one work-group pass different fence flags to one barrier",
                ),
                (None, None) => return,
            },
            Release::SomeFinished => (
                g.checkers
                    .divergence
                    .last_finished
                    .as_ref()
                    .map(|item| Self::here(item, None, "exit")),
                "some work-items finished while others wait at a barrier",
            ),
        };
        g.raw.add(Raw {
            sync: None,
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
}
