//! Findings as a launch collects them (raw sides: record ids, sites, this launch's events),
//! merged per pair of sites and resolved into report findings when the launch ends.

use crate::group::InstIdHasher;
use crate::mar::{Op, Scope};
use crate::report::{FindingKind, RaceKind};
use shadowcl_interpreter::{AddressSpace, AllocId, InstId, WorkItem};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// One side of a raw finding, resolved to ids and locations when the launch ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum RawSide {
    /// From a record: a session item id and a site.
    Recorded { item: u32, site: u16, op: Op },
    /// From a summary flag: the kind is known, the work-item is not.
    Unknown { op: Op },
    /// An event of this launch (`group`: the access was the group's async copy).
    Here {
        inst: Option<InstId>,
        access: &'static str,
        group: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct RawKey {
    pub(crate) kind: FindingKind,
    pub(crate) race: Option<RaceKind>,
    pub(crate) scope: Option<Scope>,
    pub(crate) memory: Option<AddressSpace>,
    pub(crate) alloc: Option<AllocId>,
    /// The parts of the first side that identify the pair (site or barrier instruction).
    pub(crate) first: Option<(&'static str, u16, Option<InstId>)>,
    pub(crate) second: Option<(&'static str, Option<InstId>)>,
}

#[derive(Clone, Debug)]
pub(crate) struct Raw {
    pub(crate) key: RawKey,
    pub(crate) offset: Option<i64>,
    pub(crate) first: Option<(RawSide, Option<WorkItem>)>,
    pub(crate) second: Option<(RawSide, Option<WorkItem>)>,
    pub(crate) count: u64,
    pub(crate) message: String,
    /// For a race the memory model explains ([`crate::Synchronisation`]).
    pub(crate) sync: Option<Box<crate::Synchronisation>>,
}

#[derive(Default)]
pub(crate) struct RawSet {
    pub(crate) list: Vec<Raw>,
    /// Looked up once per finding occurrence (a kernel that reads unwritten memory in a
    /// loop: every read), so hashed like the group's site map, not with SipHash (a third of
    /// such a kernel's time).
    pub(crate) index: HashMap<RawKey, usize, BuildHasherDefault<InstIdHasher>>,
}

impl RawSet {
    /// Counts one more occurrence of a finding already collected; false when it is new.
    pub(crate) fn count_again(&mut self, key: &RawKey) -> bool {
        match self.index.get(key) {
            Some(&i) => {
                self.list[i].count += 1;
                true
            }
            None => false,
        }
    }

    pub(crate) fn add(&mut self, r: Raw) {
        match self.index.get(&r.key) {
            Some(&i) => {
                let known = &mut self.list[i];
                known.count += r.count;
                // The same pair of sites: show the occurrence whose first work-item is known.
                if identified(&r) && !identified(known) {
                    known.offset = r.offset;
                    known.first = r.first;
                    known.second = r.second;
                }
            }
            None => {
                self.index.insert(r.key.clone(), self.list.len());
                self.list.push(r);
            }
        }
    }
}

/// Whether a raw finding's first side names its work-item.
pub(crate) fn identified(r: &Raw) -> bool {
    !matches!(
        r.first,
        Some((RawSide::Recorded { item: 0, .. }, _)) | Some((RawSide::Unknown { .. }, _))
    )
}

pub(crate) fn side_key(s: &RawSide) -> (&'static str, u16, Option<InstId>) {
    match *s {
        RawSide::Recorded { site, op, .. } => (op.name(), site, None),
        RawSide::Unknown { op } => (op.name(), 0, None),
        RawSide::Here { inst, access, .. } => (access, 0, inst),
    }
}
