//! Async copies are the work-group's: in flight until `wait_group_events`, complete for every
//! work-item once the group has waited. Misuse (a stray wait, a copy never waited for,
//! different arguments) is reported.

use crate::group::{GroupState, PendingCopy};
use crate::launch::LaunchChecker;
use crate::mar::{self};
use crate::raw::{Raw, RawKey};
use crate::report::FindingKind;
use shadowcl_interpreter::{AddressSpace, InstId, WorkItem};
use shadowcl_interpreter::{GroupCopy, GroupWait};

impl LaunchChecker<'_> {
    pub(crate) fn start_copy(&self, g: &mut GroupState, c: &GroupCopy<'_>) {
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
            g.copies.push(PendingCopy {
                event: c.event,
                inst: c.inst,
                item: *c.item,
                local_since: g.epoch_local,
                global_since: g.epoch_global,
                ranges: Vec::new(),
            });
        }
    }

    pub(crate) fn wait_copies(&self, g: &mut GroupState, w: &GroupWait<'_>) {
        for &e in w.events {
            if g.copies.iter().any(|c| c.event == e) {
                if !g.waited.contains(&e) {
                    g.waited.push(e);
                }
            } else if !g.completed.contains(&e) && self.checks.divergence {
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

    /// The group ended: copies it never waited for are misuse.
    pub(crate) fn end_copies(&self, g: &mut GroupState) {
        if self.checks.divergence {
            for c in std::mem::take(&mut g.copies) {
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

    /// The group passed `wait_group_events` for the copies `g.waited` names: they are
    /// complete, so the group's later accesses are ordered after them.
    pub(crate) fn complete_copies(&self, g: &mut GroupState) {
        let waited = std::mem::take(&mut g.waited);
        let (done, still): (Vec<PendingCopy>, Vec<PendingCopy>) = std::mem::take(&mut g.copies)
            .into_iter()
            .partition(|c| waited.contains(&c.event));
        g.copies = still;
        let actor = g.actor();
        for c in done {
            for &(space, alloc, start, end) in &c.ranges {
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
            if !g.completed.contains(&c.event) {
                g.completed.push(c.event);
            }
        }
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
