//! Out-of-bounds and invalid-pointer accesses, which the executor contained.

use super::races::op_of;
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::raw::{Raw, RawKey};
use crate::report::FindingKind;
use shadowcl_interpreter::{AccessKind, Fault};

impl LaunchChecker<'_> {
    pub(crate) fn report_fault(&self, g: &mut GroupState, f: &Fault<'_>) {
        if !self.checks.bounds {
            return;
        }
        let (memory, alloc, offset, kind, item, inst, message) = match *f {
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
                kind,
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
                AccessKind::Read,
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
                kind,
                item,
                inst,
                format!("{size}-byte access through invalid pointer {pointer:#x}"),
            ),
        };
        let access = match f {
            Fault::IndexPastArray { .. } => "index",
            _ => op_of(kind).name(),
        };
        g.raw.add(Raw {
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
