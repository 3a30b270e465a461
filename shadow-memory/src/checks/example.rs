//! The example checker of the tests: what a new checker takes (this file and one registry
//! line in `checks/mod.rs`). It counts the barriers each group passes, per group and for
//! the launch, under its own switch `barrier_count`.

use crate::checks::{Checker, GroupPart};
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use shadowcl_interpreter::Release;
use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) struct BarrierCount;

/// Barriers the group passed.
#[derive(Default)]
pub(crate) struct GroupBarriers(u64);

impl GroupPart for GroupBarriers {}

impl Checker for BarrierCount {
    type Group = GroupBarriers;
    /// Barriers all the launch's groups passed.
    type Launch = AtomicU64;

    fn barrier_release(l: &LaunchChecker<'_>, g: &mut GroupState, _why: Release) {
        if l.checks.barrier_count {
            g.checkers.barrier_count.0 += 1;
        }
    }

    fn group_end(l: &LaunchChecker<'_>, g: &mut GroupState) {
        let passed = g.checkers.barrier_count.0;
        l.checkers
            .barrier_count
            .fetch_add(passed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use crate::session::Locations;
    use crate::{Checks, Config, Sequential, Session};
    use shadowcl_interpreter::{
        BarrierArrival, Fences, GroupInfo, InstId, LaunchInfo, Observer, Release, SourceLoc,
        WorkItem,
    };
    use std::sync::atomic::Ordering;

    struct NoLines;

    impl Locations for NoLines {
        fn location(&self, _: InstId) -> Option<SourceLoc> {
            None
        }
    }

    /// Two groups of two work-items; group `g` passes `g + 1` barriers. Returns the count
    /// the checker kept for the launch.
    fn barriers_counted(checks: &str) -> u64 {
        let checks: Checks = checks.parse().expect("a registered switch");
        let session = Session::new(Config {
            checks,
            ..Config::default()
        });
        let checker = session.launch(&NoLines, 0, "wg=in-order", &Sequential);
        checker.launch_start(&LaunchInfo {
            kernel: "k",
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [4, 1, 1],
            local_size: [2, 1, 1],
            num_groups: [2, 1, 1],
            args: &[],
            local_allocs: &[],
        });
        for group in 0..2u32 {
            let mut state = checker.group_start(&GroupInfo {
                group: [group, 0, 0],
                group_linear: group as u64,
                items: 2,
            });
            for _ in 0..=group {
                for l in 0..2 {
                    let item = WorkItem {
                        global: [(2 * group + l) as u64, 0, 0],
                        local: [l, 0, 0],
                        group: [group, 0, 0],
                        local_linear: l,
                    };
                    let fences = Fences {
                        local: true,
                        global: false,
                    };
                    checker.barrier(
                        &mut state,
                        &BarrierArrival {
                            item: &item,
                            inst: InstId(1),
                            fences,
                        },
                    );
                }
                checker.barrier_release(&mut state, Release::AllArrived);
            }
            checker.group_end(state);
        }
        let counted = checker.checkers.barrier_count.load(Ordering::Relaxed);
        checker.launch_end();
        counted
    }

    #[test]
    fn a_registered_checker_gets_its_switch_its_state_and_its_events() {
        assert!(crate::checkers().iter().any(|c| c.name == "barrier_count"));
        assert_eq!(barriers_counted("races,barrier_count"), 3);
        // Off: its hooks still run, but it counts nothing (it reads its own switch).
        assert_eq!(barriers_counted("races"), 0);
    }
}
