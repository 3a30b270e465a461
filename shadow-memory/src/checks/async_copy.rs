//! Async copies are the work-group's: in flight until `wait_group_events`, complete for every
//! work-item once the group has waited. Misuse (a stray wait, a copy never waited for,
//! different arguments) is reported.

use crate::checks::{Checker, GroupPart};
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::mar::Scope;
use crate::mar::{self};
use crate::raw::{side_key, Raw, RawKey, RawSide};
use crate::report::{FindingKind, RaceKind};
use shadowcl_interpreter::{Access, AccessKind, AddressSpace, AllocId, InstId, WorkItem};
use shadowcl_interpreter::{GroupCopy, GroupWait, Release};

/// The async-copy checker: follows each group's copies so the race checker orders them,
/// and reports their misuse under the `divergence` switch.
pub(crate) struct AsyncCopies;

/// A group's async copies.
#[derive(Default)]
pub(crate) struct AsyncCopyGroup {
    /// Copies in flight, oldest first.
    pub(crate) in_flight: Vec<PendingCopy>,
    /// Events every work-item named at the `wait_group_events` the group passed.
    pub(crate) waited: Vec<u64>,
    /// Each arrival's event list (sorted) at the `wait_group_events` in progress, compared
    /// when the group passes it (every work-item must name the same events).
    pub(crate) wait_lists: Vec<(WorkItem, InstId, Vec<u64>)>,
    /// Events of copies already completed (waiting on one again is fine).
    pub(crate) completed: Vec<u64>,
    /// The never-written bytes (bit `i` = byte `i`) the running copy's last load read from
    /// global or local memory: its store keeps them undefined.
    pub(crate) undefined: u8,
}

impl GroupPart for AsyncCopyGroup {
    /// Keeps the lists' allocations.
    fn restart(&mut self) {
        self.in_flight.clear();
        self.waited.clear();
        self.wait_lists.clear();
        self.completed.clear();
        self.undefined = 0;
    }
}

impl AsyncCopyGroup {
    /// The running async copy touched `a`'s bytes (adjacent ranges merge).
    pub(crate) fn add_range(&mut self, a: &Access<'_>) {
        if let Some(c) = self.in_flight.last_mut() {
            let write = a.kind == AccessKind::Write;
            let r = (a.space, a.alloc, a.offset, a.offset + a.size as u64, write);
            match c.ranges.last_mut() {
                Some(l) if (l.0, l.1, l.3, l.4) == (r.0, r.1, r.2, r.4) => l.3 = r.3,
                _ => c.ranges.push(r),
            }
        }
    }
}

/// An `async_work_group_copy` the group has not waited for yet.
pub(crate) struct PendingCopy {
    pub(crate) event: u64,
    pub(crate) inst: InstId,
    pub(crate) item: WorkItem,
    /// Group epochs when it started.
    pub(crate) local_since: u8,
    pub(crate) global_since: u8,
    /// Bytes it touched: (space, allocation, start, end, written).
    pub(crate) ranges: Vec<(AddressSpace, AllocId, u64, u64, bool)>,
}

impl Checker for AsyncCopies {
    type Group = AsyncCopyGroup;
    type Launch = ();

    fn group_copy(l: &LaunchChecker<'_>, g: &mut GroupState, c: &GroupCopy<'_>) {
        l.start_copy(g, c);
    }

    fn group_wait(l: &LaunchChecker<'_>, g: &mut GroupState, w: &GroupWait<'_>) {
        l.wait_copies(g, w);
    }

    fn barrier_release(l: &LaunchChecker<'_>, g: &mut GroupState, why: Release) {
        let copies = &g.checkers.async_copies;
        if !copies.wait_lists.is_empty() {
            // Reached by every work-item of the group (not only some, with the others at a
            // barrier).
            let items = l.state().map_or(0, |ls| ls.geometry.group_items);
            let all = matches!(why, Release::AllArrived) && copies.wait_lists.len() as u64 == items;
            l.check_wait_lists(g, all);
        }
        if !g.checkers.async_copies.waited.is_empty() {
            l.complete_copies(g);
        }
    }

    fn group_end(l: &LaunchChecker<'_>, g: &mut GroupState) {
        l.end_copies(g);
    }
}

impl LaunchChecker<'_> {
    fn start_copy(&self, g: &mut GroupState, c: &GroupCopy<'_>) {
        if !c.same_args && self.checks.divergence {
            self.misuse(
                g,
                FindingKind::BarrierDivergence,
                c.item,
                c.inst,
                "work-items of one work-group passed different arguments to async_work_group_copy",
            );
        }
        if c.first {
            g.checkers.async_copies.in_flight.push(PendingCopy {
                event: c.event,
                inst: c.inst,
                item: *c.item,
                local_since: g.epoch_local,
                global_since: g.epoch_global,
                ranges: Vec::new(),
            });
        }
    }

    fn wait_copies(&self, g: &mut GroupState, w: &GroupWait<'_>) {
        // The same events in another order are the same events.
        let mut events = w.events.to_vec();
        events.sort_unstable();
        events.dedup();
        g.checkers
            .async_copies
            .wait_lists
            .push((*w.item, w.inst, events));
        for &e in w.events {
            if !g
                .checkers
                .async_copies
                .in_flight
                .iter()
                .any(|c| c.event == e)
                && !g.checkers.async_copies.completed.contains(&e)
                && self.checks.divergence
            {
                self.misuse(
                    g,
                    FindingKind::AsyncCopyMisuse,
                    w.item,
                    w.inst,
                    "wait_group_events on an event that no async copy of this work-group returned",
                );
            }
        }
    }

    /// The group passed a `wait_group_events` (`all`: every work-item reached it): every
    /// work-item must have named the same events, in any order (OpenCL C 6.15.10; otherwise
    /// the results are undefined). Reported once, at the lowest-numbered work-item whose
    /// list differs from work-item 0's (the lowest arrived), so that every schedule reports
    /// the same. The copies waited for are those every work-item named, only when all
    /// reached the wait: the others stay pending, and a copy never waited for is reported
    /// at the group's end.
    fn check_wait_lists(&self, g: &mut GroupState, all: bool) {
        let mut lists = std::mem::take(&mut g.checkers.async_copies.wait_lists);
        lists.sort_by_key(|(item, ..)| item.local_linear);
        if let Some(((_, inst, first), rest)) = lists.split_first() {
            let differ = rest.iter().find(|(_, i, e)| (i, e) != (inst, first));
            if let (Some((item, at, _)), true) = (differ, self.checks.divergence) {
                self.misuse(
                    g,
                    FindingKind::BarrierDivergence,
                    item,
                    *at,
                    "work-items of one work-group passed different events to wait_group_events",
                );
            }
            if all {
                g.checkers.async_copies.waited = first
                    .iter()
                    .copied()
                    .filter(|e| {
                        g.checkers
                            .async_copies
                            .in_flight
                            .iter()
                            .any(|c| c.event == *e)
                    })
                    .filter(|e| rest.iter().all(|(_, _, l)| l.binary_search(e).is_ok()))
                    .collect();
            }
        }
        lists.clear();
        g.checkers.async_copies.wait_lists = lists;
    }

    /// The group ended: copies it never waited for are misuse.
    fn end_copies(&self, g: &mut GroupState) {
        if self.checks.divergence {
            for c in std::mem::take(&mut g.checkers.async_copies.in_flight) {
                self.misuse(
                    g,
                    FindingKind::AsyncCopyMisuse,
                    &c.item,
                    c.inst,
                    "async_work_group_copy never waited for with wait_group_events",
                );
            }
        }
    }

    /// The group passed `wait_group_events` for the copies `g.checkers.async_copies.waited` names: they are
    /// complete, so the group's later accesses are ordered after them.
    fn complete_copies(&self, g: &mut GroupState) {
        let waited = std::mem::take(&mut g.checkers.async_copies.waited);
        let (done, still): (Vec<PendingCopy>, Vec<PendingCopy>) =
            std::mem::take(&mut g.checkers.async_copies.in_flight)
                .into_iter()
                .partition(|c| waited.contains(&c.event));
        g.checkers.async_copies.in_flight = still;
        let actor = g.actor();
        for c in done {
            for &(space, alloc, start, end, _) in &c.ranges {
                match space {
                    AddressSpace::Local => {
                        let now = g.epoch_local;
                        let slot = alloc.local_slot().map(|s| s as usize);
                        if let Some(mem) = slot.and_then(|s| g.local.get_mut(s)) {
                            mem.map_range(start as usize, end as usize, |rec| {
                                mar::retire(rec, actor, now)
                            });
                        }
                    }
                    _ => {
                        let now = g.epoch_global;
                        let shadow = self.shadow(g, alloc, end);
                        // A record that names another item now belongs to a newer access.
                        shadow.update(
                            start,
                            end.saturating_sub(start),
                            false,
                            |_, old| (mar::retire(old, actor, now), ()),
                            |_, _, _, _| {},
                        );
                    }
                }
            }
            if !g.checkers.async_copies.completed.contains(&c.event) {
                g.checkers.async_copies.completed.push(c.event);
            }
        }
    }

    /// The running async copy's access `a` against the other copies in flight: copies the
    /// group has not waited for between them are unordered (a copy is complete only once
    /// waited for, OpenCL C 6.15.10), so bytes one writes and another reads or writes race.
    /// The group's copies share one record id, so their records cannot tell them apart.
    pub(crate) fn check_copy_overlap(&self, g: &mut GroupState, a: &Access<'_>) {
        let Some((_running, others)) = g.checkers.async_copies.in_flight.split_last() else {
            return;
        };
        let write = a.kind == AccessKind::Write;
        let (start, end) = (a.offset, a.offset + a.size as u64);
        let hit = others.iter().find_map(|c| {
            c.ranges
                .iter()
                .find(|r| {
                    (r.0, r.1) == (a.space, a.alloc) && r.2 < end && start < r.3 && (write || r.4)
                })
                .map(|r| (c.inst, c.item, r.4))
        });
        let Some((inst, item, other_writes)) = hit else {
            return;
        };
        let (race, first_access) = match (other_writes, write) {
            (true, true) => (RaceKind::WriteWrite, "write"),
            (true, false) => (RaceKind::ReadWrite, "write"),
            _ => (RaceKind::ReadWrite, "read"),
        };
        let here = if write { "write" } else { "read" };
        let first = RawSide::Here {
            inst: Some(inst),
            access: first_access,
            group: true,
        };
        g.raw.add(Raw {
            sync: None,
            key: RawKey {
                kind: FindingKind::DataRace,
                race: Some(race),
                scope: Some(Scope::IntraGroup),
                memory: Some(a.space),
                alloc: Some(a.alloc),
                first: Some(side_key(&first)),
                second: Some((here, Some(a.inst))),
            },
            offset: Some(start as i64),
            first: Some((first, Some(item))),
            second: Some((
                RawSide::Here {
                    inst: Some(a.inst),
                    access: here,
                    group: true,
                },
                Some(*a.item),
            )),
            count: 1,
            message: String::new(),
        });
    }

    /// A misused collective (async copy or wait) at `inst`, reached by `item`.
    pub(crate) fn misuse(
        &self,
        g: &mut GroupState,
        kind: FindingKind,
        item: &WorkItem,
        inst: InstId,
        message: &str,
    ) {
        g.raw.add(Raw {
            sync: None,
            key: RawKey {
                kind,
                race: None,
                scope: None,
                memory: None,
                alloc: None,
                first: None,
                second: Some(("async-copy", Some(inst))),
            },
            offset: None,
            first: None,
            second: Some(Self::here(item, Some(inst), "async-copy")),
            count: 1,
            message: message.into(),
        });
    }
}
