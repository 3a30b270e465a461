//! Accesses the program or the host forbade, whatever the schedule: an address that is not
//! a multiple of its type's alignment (OpenCL C 6.3) and a kernel write to memory the host
//! created `CL_MEM_READ_ONLY` or read of memory created `CL_MEM_WRITE_ONLY` (OpenCL 3.0
//! 5.2.1). Both are undefined behaviour that most devices let pass silently.

use super::races::op_of;
use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::raw::{Raw, RawKey};
use crate::report::FindingKind;
use crate::session::{KernelAccess, Session};
use shadowcl_interpreter::{Access, AccessKind, AddressSpace, AllocId, ArgBinding, LaneAccesses};

/// Where accesses of one instruction, kind and allocation surely break no rule: at offsets
/// that are multiples of `mask + 1` (the instruction's alignment) inside `lo..hi` (an
/// argument whose flag permits the kind holds them). Outside, they may or may not: the
/// full test says ([`LaunchChecker::breaks_no_rule`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RuleFree {
    mask: u64,
    lo: u64,
    hi: u64,
}

impl RuleFree {
    /// Whether access `a` surely breaks no rule (a value's later parts are not tested for
    /// alignment: the first stands for the value).
    #[inline(always)]
    pub(crate) fn holds(&self, a: &Access<'_>) -> bool {
        (a.offset & self.mask == 0 || a.component > 0)
            && self.lo <= a.offset
            && a.offset
                .checked_add(a.size as u64)
                .is_some_and(|end| end <= self.hi)
    }

    /// Whether every aligned word access inside `lo..hi` surely breaks no rule: the bytes
    /// are inside the permitted ones and the instruction asks for word alignment at most.
    pub(crate) fn admits_words(&self, lo: u64, hi: u64) -> bool {
        self.mask < 4 && self.lo <= lo && hi <= self.hi
    }
}

/// The access flags of one launch's global arguments. Empty (one test per access) unless an
/// argument's memory object is read-only or write-only.
#[derive(Debug, Default)]
pub(crate) struct AccessRules {
    /// Every global argument's bytes and flag: (allocation, start, end, access).
    bound: Vec<(AllocId, u64, u64, KernelAccess)>,
}

impl AccessRules {
    /// The flags of the memory objects `args` are bound to (a binding that matches no
    /// object's exact bytes may be read and written).
    pub(crate) fn of(session: &Session, args: &[ArgBinding]) -> AccessRules {
        let views = session.views.read();
        if views.is_empty() {
            return AccessRules::default();
        }
        let bound: Vec<_> = args
            .iter()
            .filter(|a| matches!(a.space, AddressSpace::Global | AddressSpace::Constant))
            .filter_map(|a| {
                let id = a.alloc?;
                let access = views
                    .get(&id)
                    .and_then(|vs| {
                        vs.iter()
                            .find(|v| (v.offset, v.size) == (a.view_offset, a.view_size))
                    })
                    .map_or(KernelAccess::ReadWrite, |v| v.access);
                Some((id, a.view_offset, a.view_offset + a.view_size, access))
            })
            .collect();
        if bound.iter().all(|b| b.3 == KernelAccess::ReadWrite) {
            return AccessRules::default();
        }
        AccessRules { bound }
    }

    /// Whether an argument whose flag permits `kind` holds all of `lo..hi`: then so does
    /// every access inside it, which breaks no flag.
    fn permits(&self, alloc: AllocId, lo: u64, hi: u64, kind: AccessKind) -> bool {
        self.bound.iter().any(|&(id, start, end, access)| {
            id == alloc && start <= lo && hi <= end && allows(access, kind)
        })
    }

    /// The bytes of the first argument bound to `alloc` whose flag permits `kind`: an
    /// access inside them breaks no flag (`permits`). Empty when there is none.
    fn permitting(&self, alloc: AllocId, kind: AccessKind) -> (u64, u64) {
        self.bound
            .iter()
            .find(|&&(id, _, _, access)| id == alloc && allows(access, kind))
            .map_or((0, 0), |&(_, start, end, _)| (start, end))
    }

    /// The flag an access breaks: it falls inside an argument whose flag forbids it and
    /// inside no argument whose flag permits it (two arguments may alias).
    fn broken(&self, alloc: AllocId, lo: u64, hi: u64, kind: AccessKind) -> Option<KernelAccess> {
        let mut broken = None;
        for &(id, start, end, access) in &self.bound {
            if id != alloc || lo < start || hi > end {
                continue;
            }
            if allows(access, kind) {
                return None;
            }
            broken = Some(access);
        }
        broken
    }
}

/// Whether memory the host created with `access` may be accessed as `kind` by a kernel.
fn allows(access: KernelAccess, kind: AccessKind) -> bool {
    let (reads, writes) = match kind {
        AccessKind::Read | AccessKind::AtomicRead => (true, false),
        AccessKind::Write => (false, true),
        AccessKind::Atomic => (true, true),
    };
    match access {
        KernelAccess::ReadOnly => !writes,
        KernelAccess::WriteOnly => !reads,
        KernelAccess::ReadWrite => true,
    }
}

impl LaunchChecker<'_> {
    pub(crate) fn check_access_rules(&self, g: &mut GroupState, a: &Access<'_>) {
        if a.space == AddressSpace::Private {
            // Only reads of undefined private bytes are reported: nothing to check here.
            return;
        }
        // A value accessed in parts (a vector's elements, a copy's chunks) is one access:
        // its first part, which starts where the value does, stands for it.
        let align = self.alignments.of(a.inst) as u64;
        if align > 1 && a.component == 0 && a.offset & (align - 1) != 0 {
            self.report_rule(g, a, FindingKind::MisalignedAccess, || {
                let (op, at) = (op_of(a.kind).name(), a.offset);
                if a.size as u64 >= align {
                    format!(
                        "{}-byte {op} at offset {at}, which needs {align}-byte alignment",
                        a.size
                    )
                } else {
                    // A value accessed in parts.
                    format!(
                        "{op} of a value at offset {at}, whose type needs {align}-byte alignment"
                    )
                }
            });
        }
        if !matches!(a.space, AddressSpace::Global | AddressSpace::Constant) {
            return;
        }
        let Some(rules) = self.state().map(|s| &s.rules) else {
            return;
        };
        if rules.bound.is_empty() {
            return;
        }
        let end = a.offset + a.size as u64;
        if let Some(flag) = rules.broken(a.alloc, a.offset, end, a.kind) {
            let what = match flag {
                KernelAccess::ReadOnly => "write to",
                _ => "read of",
            };
            self.report_rule(g, a, FindingKind::InvalidAccess, || {
                format!("{what} memory the host created {}", flag.flag())
            });
        }
    }

    /// [`LaunchChecker::check_access_rules`] of each lane of a lockstep operation: the
    /// alignment and the argument flags are looked up once, and a lane is checked alone only
    /// when its offset is misaligned or a flag may forbid it.
    /// `lo..hi`: the bytes the lanes span; `offset_bits`: the bitwise or of their offsets.
    pub(crate) fn check_lane_rules(
        &self,
        g: &mut GroupState,
        lanes: &LaneAccesses<'_>,
        (lo, hi): (u64, u64),
        offset_bits: u64,
    ) {
        // A vector's later elements: its first element's operation tested the alignment
        // (copies, the other values accessed in parts, are not lockstep operations).
        let mask = match lanes.component {
            0 => (self.alignments.of(lanes.inst) as u64).max(1) - 1,
            _ => 0,
        };
        let flagged = self.flags_may_forbid(lanes.space, lanes.alloc, (lo, hi), lanes.kind);
        if !flagged && offset_bits & mask == 0 {
            // No lane is misaligned (the usual case): nothing to look at lane by lane.
            return;
        }
        let mut bytes = [[0u8; 8]; 2];
        for &l in lanes.order {
            if flagged || lanes.offsets[l] & mask != 0 {
                self.check_access_rules(g, &lanes.lane(l, &mut bytes));
            }
        }
    }

    /// Whether an argument's flag may forbid a `kind` access to bytes `lo..hi` of `alloc`
    /// (false when an argument that permits it holds them all: the usual case).
    fn flags_may_forbid(
        &self,
        space: AddressSpace,
        alloc: AllocId,
        (lo, hi): (u64, u64),
        kind: AccessKind,
    ) -> bool {
        matches!(space, AddressSpace::Global | AddressSpace::Constant)
            && self
                .state()
                .is_some_and(|s| !s.rules.bound.is_empty() && !s.rules.permits(alloc, lo, hi, kind))
    }

    /// Where the accesses of `a`'s instruction, kind and allocation surely break no rule
    /// (see [`RuleFree`]): worked out once for the accesses of a loop.
    pub(crate) fn rule_free(&self, a: &Access<'_>) -> RuleFree {
        let mask = (self.alignments.of(a.inst) as u64).max(1) - 1;
        let (lo, hi) = match self.state() {
            Some(s)
                if matches!(a.space, AddressSpace::Global | AddressSpace::Constant)
                    && !s.rules.bound.is_empty() =>
            {
                s.rules.permitting(a.alloc, a.kind)
            }
            _ => (0, u64::MAX),
        };
        RuleFree { mask, lo, hi }
    }

    /// Whether access `a` surely breaks no rule (it is aligned and no flag may forbid it),
    /// so that [`LaunchChecker::check_access_rules`] would find nothing.
    pub(crate) fn breaks_no_rule(&self, a: &Access<'_>) -> bool {
        let align = self.alignments.of(a.inst) as u64;
        (a.component > 0 || a.offset & (align.max(1) - 1) == 0)
            && !self.flags_may_forbid(
                a.space,
                a.alloc,
                (a.offset, a.offset + a.size as u64),
                a.kind,
            )
    }

    /// One finding per (kind, allocation, instruction); the message is made once.
    fn report_rule(
        &self,
        g: &mut GroupState,
        a: &Access<'_>,
        kind: FindingKind,
        message: impl FnOnce() -> String,
    ) {
        let access = op_of(a.kind).name();
        let key = RawKey {
            kind,
            race: None,
            scope: None,
            memory: Some(a.space),
            alloc: Some(a.alloc),
            first: None,
            second: Some((access, Some(a.inst))),
        };
        if g.raw.count_again(&key) {
            return;
        }
        g.raw.add(Raw {
            sync: None,
            key,
            offset: Some(a.offset as i64),
            first: None,
            second: Some(Self::here(a.item, Some(a.inst), access)),
            count: 1,
            message: message(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(bound: &[(u64, u64, KernelAccess)]) -> AccessRules {
        AccessRules {
            bound: bound
                .iter()
                .map(|&(s, e, k)| (AllocId(7), s, e, k))
                .collect(),
        }
    }

    #[test]
    fn flags_forbid_what_they_say_unless_another_argument_permits_it() {
        use AccessKind::*;
        use KernelAccess::*;
        let ro = rules(&[(0, 64, ReadOnly)]);
        assert_eq!(ro.broken(AllocId(7), 0, 4, Write), Some(ReadOnly));
        assert_eq!(ro.broken(AllocId(7), 0, 4, Atomic), Some(ReadOnly));
        assert_eq!(ro.broken(AllocId(7), 0, 4, Read), None);
        assert_eq!(ro.broken(AllocId(8), 0, 4, Write), None, "other buffer");
        let wo = rules(&[(0, 64, WriteOnly)]);
        assert_eq!(wo.broken(AllocId(7), 60, 64, Read), Some(WriteOnly));
        assert_eq!(wo.broken(AllocId(7), 60, 64, AtomicRead), Some(WriteOnly));
        assert_eq!(wo.broken(AllocId(7), 60, 64, Atomic), Some(WriteOnly));
        assert_eq!(wo.broken(AllocId(7), 0, 4, Write), None);
        // A read-only sub-buffer inside a buffer also bound read-write: the write may have
        // gone through the read-write argument.
        let both = rules(&[(16, 32, ReadOnly), (0, 64, ReadWrite)]);
        assert_eq!(both.broken(AllocId(7), 16, 20, Write), None);
        let sub = rules(&[(16, 32, ReadOnly), (48, 64, ReadWrite)]);
        assert_eq!(sub.broken(AllocId(7), 16, 20, Write), Some(ReadOnly));
        assert_eq!(
            sub.broken(AllocId(7), 0, 4, Write),
            None,
            "outside the view"
        );
    }
}
