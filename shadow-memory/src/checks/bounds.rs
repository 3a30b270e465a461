//! Out-of-bounds and invalid-pointer accesses, which the executor contained.

use super::races::op_of;
use crate::checks::Checker;
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::raw::{Raw, RawKey};
use crate::report::FindingKind;
use shadowcl_interpreter::Fault;

/// The bounds checker's faults: accesses the executor stopped (the access rules and
/// declared-array bounds are checked in the race checker's access path, which reads this
/// checker's switch, so each access is looked at once).
pub(crate) struct Bounds;

impl Checker for Bounds {
    type Group = ();
    type Launch = ();

    fn fault(l: &LaunchChecker<'_>, g: &mut GroupState, f: &Fault<'_>) {
        l.report_fault(g, f);
    }
}

impl LaunchChecker<'_> {
    fn report_fault(&self, g: &mut GroupState, f: &Fault<'_>) {
        if !self.checks.bounds {
            return;
        }
        let (memory, alloc, offset, access, item, inst, message) = match *f {
            Fault::OutOfBounds {
                space,
                alloc,
                offset,
                size,
                alloc_size,
                kind,
                item,
                inst,
            } => (
                Some(space),
                Some(alloc),
                Some(offset),
                op_of(kind).name(),
                item,
                inst,
                format!("{size}-byte access at offset {offset} of a {alloc_size}-byte allocation"),
            ),
            Fault::IndexPastArray {
                index,
                len,
                space,
                item,
                inst,
            } => (
                space,
                None,
                None,
                "index",
                item,
                inst,
                format!(
                    "index {index} is past the end of an array of {len} elements (undefined \
                     even where the address stays inside the allocation)"
                ),
            ),
            Fault::InvalidPointer {
                pointer,
                size,
                kind,
                item,
                inst,
            } => (
                None,
                None,
                None,
                op_of(kind).name(),
                item,
                inst,
                format!("{size}-byte access through invalid pointer {pointer:#x}"),
            ),
        };
        g.raw.add(Raw {
            sync: None,
            key: RawKey {
                kind: FindingKind::OutOfBounds,
                race: None,
                scope: None,
                memory,
                alloc,
                first: None,
                second: Some((access, Some(inst))),
            },
            offset,
            first: None,
            second: Some(Self::here(item, Some(inst), access)),
            count: 1,
            message,
        });
    }
}
