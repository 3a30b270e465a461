//! The watchdog's finding: a launch that ran past its time (or instruction) limit, with the
//! work-items that had not finished and the lines they were at.

use crate::checks::Checker;
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::raw::{Raw, RawKey};
use crate::report::FindingKind;
use shadowcl_interpreter::{InstId, WorkItem};
use std::collections::BTreeMap;

/// The watchdog's checker: always on (a hang is not a check one can turn off).
pub(crate) struct Stalls;

impl Checker for Stalls {
    type Group = ();
    type Launch = ();

    fn stalled(
        l: &LaunchChecker<'_>,
        g: &mut GroupState,
        why: &str,
        running: &[(WorkItem, InstId)],
    ) {
        l.report_stall(g, why, running);
    }
}

impl LaunchChecker<'_> {
    /// One finding per instruction the group's unfinished items were at (counting them);
    /// the report merges those of one line, from every group (`Finding::dedup_key`).
    fn report_stall(&self, g: &mut GroupState, why: &str, running: &[(WorkItem, InstId)]) {
        let mut at: BTreeMap<InstId, (WorkItem, u64)> = BTreeMap::new();
        for &(item, inst) in running {
            // An op the compiler gave no line (a loop header's phi) is at the next line.
            let inst = (inst.0..inst.0.saturating_add(16))
                .map(InstId)
                .find(|&i| self.program.location(i).is_some())
                .unwrap_or(inst);
            at.entry(inst).or_insert((item, 0)).1 += 1;
        }
        let raw = |inst: Option<InstId>, item: Option<WorkItem>, count: u64, message: String| Raw {
            sync: None,
            key: RawKey {
                kind: FindingKind::Hang,
                race: None,
                scope: None,
                memory: None,
                alloc: None,
                first: None,
                second: inst.map(|i| ("running", Some(i))),
            },
            offset: None,
            first: None,
            second: item.map(|w| Self::here(&w, inst, "running")),
            count,
            message,
        };
        if at.is_empty() {
            g.raw.add(raw(
                None,
                None,
                1,
                format!(
                    "{why}: every work-item that had started had finished; work-groups were left"
                ),
            ));
        }
        for (inst, (item, count)) in at {
            g.raw.add(raw(
                Some(inst),
                Some(item),
                count,
                format!("{why}: work-items that had not finished were here"),
            ));
        }
    }
}
