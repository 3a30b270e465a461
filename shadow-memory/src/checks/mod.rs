//! The checkers: one type each, implementing [`Checker`] over the executor's events, and
//! the registry that lists them with the switches `SHADOWCL_CHECKS` names. The settings
//! parser, [`Checks::any`], the command line's `--checks` help, the checker table of
//! `docs/checks.md`, each group's checker state and its reset, and the calls from the
//! observer seam (`launch.rs`) all derive from the registry: a new checker is its file and
//! one line there.

pub(crate) mod access_rules;
mod async_copy;
mod bounds;
pub(crate) mod divergence;
#[cfg(test)]
mod example;
mod hang;
pub(crate) mod races;
pub(crate) mod sync;

use crate::group::GroupState;
use crate::launch::LaunchChecker;
use crate::report::FindingKind;
use shadowcl_interpreter::{
    Access, AllocId, BarrierArrival, Fault, GroupCopy, GroupWait, InstId, LaneAccesses, Release,
    SyncEvent, WorkItem,
};
use std::sync::LazyLock;

/// A switch of `SHADOWCL_CHECKS`: a checker the user can turn on or off.
#[derive(Clone, Copy, Debug)]
pub struct CheckerInfo {
    /// Its name in `SHADOWCL_CHECKS` and `--checks`.
    pub name: &'static str,
    /// Whether it runs when `SHADOWCL_CHECKS` is unset.
    pub on_by_default: bool,
    /// The finding kinds it reports.
    pub kinds: &'static [FindingKind],
    /// What it reports, in a sentence (the command line's help, the table of `docs/checks.md`).
    pub summary: &'static str,
}

/// One checker over the executor's events, as an Oclgrind plugin is: every hook does nothing
/// unless the checker says otherwise, and what the checker keeps per work-group is its
/// [`Checker::Group`] (a field of [`GroupState::checkers`] named in the registry), what it
/// keeps per launch its [`Checker::Launch`] (of [`LaunchChecker::checkers`]). Hooks run for
/// every registered checker, in registry order, whenever the launch is observed: a checker
/// reads its own switch in [`LaunchChecker::checks`]. Dispatch is static (each hook is an
/// associated function, inlined into the observer), so a hook a checker leaves alone costs
/// nothing and the access hooks stay as fast as a direct call.
pub(crate) trait Checker {
    /// Its state per work-group.
    type Group: GroupPart;
    /// Its state per launch, shared by the workers.
    type Launch: Default + Send + Sync;

    /// A work-item's load, store or atomic.
    #[inline(always)]
    fn access(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _access: &Access<'_>) {}
    /// One operation of a group's lanes in lockstep.
    #[inline(always)]
    fn access_lanes(
        _launch: &LaunchChecker<'_>,
        _group: &mut GroupState,
        _lanes: &LaneAccesses<'_>,
    ) {
    }
    /// Whether [`Checker::access`] looks at accesses at all; one that does says which
    /// reads it can do without in [`Checker::read_is_quiet`].
    const SEES_ACCESSES: bool = false;
    /// Whether the checker has nothing to say about this read, so the executor may skip it
    /// ([`shadowcl_interpreter::Observer::read_is_quiet`]): a read is quiet when no checker
    /// wants it.
    #[inline(always)]
    fn read_is_quiet(
        _group: &GroupState,
        _alloc: AllocId,
        _inst: InstId,
        _offset: u64,
        _size: u32,
    ) -> bool {
        !Self::SEES_ACCESSES
    }
    /// Whether the checker wants the bytes a store replaces.
    fn wants_previous(_launch: &LaunchChecker<'_>) -> bool {
        false
    }
    /// Whether the checker wants to know which private bytes were written.
    fn wants_definedness(_launch: &LaunchChecker<'_>) -> bool {
        false
    }
    /// Whether the checker wants the atomics' and fences' [`SyncEvent`]s.
    fn wants_sync(_launch: &LaunchChecker<'_>) -> bool {
        false
    }
    /// A work-item's atomic or fence, when some checker wants them.
    fn synchronise(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _sync: &SyncEvent<'_>) {}
    /// A work-item arrived at a barrier.
    fn barrier(
        _launch: &LaunchChecker<'_>,
        _group: &mut GroupState,
        _arrival: &BarrierArrival<'_>,
    ) {
    }
    /// The group's barrier released (the group's epochs advance after every checker saw it).
    fn barrier_release(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _why: Release) {}
    /// A work-item reached an `async_work_group_copy`.
    fn group_copy(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _copy: &GroupCopy<'_>) {}
    /// A work-item reached a `wait_group_events`.
    fn group_wait(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _wait: &GroupWait<'_>) {}
    /// A work-item finished.
    fn item_end(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _item: &WorkItem) {}
    /// The executor stopped an access it could not make (out of bounds, a bad pointer).
    fn fault(_launch: &LaunchChecker<'_>, _group: &mut GroupState, _fault: &Fault<'_>) {}
    /// The watchdog ended the launch while these work-items ran.
    fn stalled(
        _launch: &LaunchChecker<'_>,
        _group: &mut GroupState,
        _why: &str,
        _running: &[(WorkItem, InstId)],
    ) {
    }
    /// The group ended (before its findings move to the launch).
    fn group_end(_launch: &LaunchChecker<'_>, _group: &mut GroupState) {}
}

/// A checker's state per work-group, and how a worker's next group starts from the state
/// its last group left (states are reused, not rebuilt: see [`GroupState::restart`]).
pub(crate) trait GroupPart: Default + Send {
    /// The next group of the same launch; by default a fresh state.
    fn restart(&mut self) {
        *self = Self::default();
    }
    /// The first group of another launch; by default a fresh state.
    fn relaunch(&mut self) {
        *self = Self::default();
    }
    /// The state waits for the next launch: let go of what points into this one.
    fn park(&mut self) {}
}

impl GroupPart for () {}

/// Defines, from one line per checker: [`Checks`] (one switch per named checker),
/// [`checkers`], each group's [`CheckerGroups`], each launch's [`CheckerLaunches`], and
/// [`Registered`], whose hooks call every checker's in order.
macro_rules! registry {
    // A checker with a switch of its own.
    (@sort [$($switches:tt)*] [$($parts:tt)*]
        $(#[$attr:meta])* $part:ident: $checker:ty,
        switch $name:ident = $default:literal, [$($kind:ident),*], $summary:literal; $($rest:tt)*) => {
        registry!(@sort
            [$($switches)* { $(#[$attr])* $name $default [$($kind)*] $summary }]
            [$($parts)* { $(#[$attr])* $part $checker }] $($rest)*);
    };
    // A switch a checker listed elsewhere reads.
    (@sort [$($switches:tt)*] [$($parts:tt)*]
        $(#[$attr:meta])* switch $name:ident = $default:literal, [$($kind:ident),*], $summary:literal;
        $($rest:tt)*) => {
        registry!(@sort
            [$($switches)* { $(#[$attr])* $name $default [$($kind)*] $summary }]
            [$($parts)*] $($rest)*);
    };
    // A checker no switch turns off.
    (@sort [$($switches:tt)*] [$($parts:tt)*] $(#[$attr:meta])* $part:ident: $checker:ty; $($rest:tt)*) => {
        registry!(@sort [$($switches)*] [$($parts)* { $(#[$attr])* $part $checker }] $($rest)*);
    };
    (@sort
        [$({ $(#[$sattr:meta])* $name:ident $default:literal [$($kind:ident)*] $summary:literal })*]
        [$({ $(#[$pattr:meta])* $part:ident $checker:ty })*]) => {
        /// Which checkers run (`SHADOWCL_CHECKS`): one switch per entry of [`checkers`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Checks {
            $($(#[$sattr])* #[doc = $summary] pub $name: bool,)*
        }

        /// Every switch, in the order `SHADOWCL_CHECKS` lists them.
        // Pushed one by one: an entry may be `cfg`'d out, which a `vec![]` item cannot be.
        #[allow(clippy::vec_init_then_push)]
        pub fn checkers() -> &'static [CheckerInfo] {
            static LIST: LazyLock<Vec<CheckerInfo>> = LazyLock::new(|| {
                let mut list = Vec::new();
                $($(#[$sattr])* list.push(CheckerInfo {
                    name: stringify!($name),
                    on_by_default: $default,
                    kinds: &[$(FindingKind::$kind),*],
                    summary: $summary,
                });)*
                list
            });
            &LIST
        }

        impl Checks {
            /// Every checker off.
            pub const fn none() -> Checks {
                Checks { $($(#[$sattr])* $name: false,)* }
            }

            fn switch(&mut self, name: &str) -> Option<&mut bool> {
                match name {
                    $($(#[$sattr])* stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }

            fn is_on(&self, name: &str) -> bool {
                match name {
                    $($(#[$sattr])* stringify!($name) => self.$name,)*
                    _ => false,
                }
            }
        }

        /// Every checker's state for one work-group, by its registry name.
        // A checker with nothing to keep holds `()`, which nobody reads.
        #[allow(dead_code)]
        #[derive(Default)]
        pub(crate) struct CheckerGroups {
            $($(#[$pattr])* pub(crate) $part: <$checker as Checker>::Group,)*
        }

        impl CheckerGroups {
            pub(crate) fn restart(&mut self) {
                $($(#[$pattr])* self.$part.restart();)*
            }
            pub(crate) fn relaunch(&mut self) {
                $($(#[$pattr])* self.$part.relaunch();)*
            }
            pub(crate) fn park(&mut self) {
                $($(#[$pattr])* self.$part.park();)*
            }
        }

        /// Every checker's state for one launch, by its registry name.
        // A checker with nothing to keep holds `()`, which nobody reads.
        #[allow(dead_code)]
        #[derive(Default)]
        pub(crate) struct CheckerLaunches {
            $($(#[$pattr])* pub(crate) $part: <$checker as Checker>::Launch,)*
        }

        /// The registered checkers as one: each hook calls every checker's, in registry order.
        pub(crate) struct Registered;

        impl Registered {
            #[inline(always)]
            pub(crate) fn access(l: &LaunchChecker<'_>, g: &mut GroupState, a: &Access<'_>) {
                $($(#[$pattr])* <$checker as Checker>::access(l, g, a);)*
            }
            #[inline(always)]
            pub(crate) fn access_lanes(l: &LaunchChecker<'_>, g: &mut GroupState, a: &LaneAccesses<'_>) {
                $($(#[$pattr])* <$checker as Checker>::access_lanes(l, g, a);)*
            }
            #[inline(always)]
            pub(crate) fn read_is_quiet(g: &GroupState, alloc: AllocId, inst: InstId, offset: u64, size: u32) -> bool {
                let mut quiet = true;
                $($(#[$pattr])* {
                    quiet = quiet && <$checker as Checker>::read_is_quiet(g, alloc, inst, offset, size);
                })*
                quiet
            }
            pub(crate) fn wants_previous(l: &LaunchChecker<'_>) -> bool {
                let mut wants = false;
                $($(#[$pattr])* {
                    wants = wants || <$checker as Checker>::wants_previous(l);
                })*
                wants
            }
            pub(crate) fn wants_definedness(l: &LaunchChecker<'_>) -> bool {
                let mut wants = false;
                $($(#[$pattr])* {
                    wants = wants || <$checker as Checker>::wants_definedness(l);
                })*
                wants
            }
            pub(crate) fn wants_sync(l: &LaunchChecker<'_>) -> bool {
                let mut wants = false;
                $($(#[$pattr])* {
                    wants = wants || <$checker as Checker>::wants_sync(l);
                })*
                wants
            }
            pub(crate) fn synchronise(l: &LaunchChecker<'_>, g: &mut GroupState, e: &SyncEvent<'_>) {
                $($(#[$pattr])* <$checker as Checker>::synchronise(l, g, e);)*
            }
            pub(crate) fn barrier(l: &LaunchChecker<'_>, g: &mut GroupState, e: &BarrierArrival<'_>) {
                $($(#[$pattr])* <$checker as Checker>::barrier(l, g, e);)*
            }
            pub(crate) fn barrier_release(l: &LaunchChecker<'_>, g: &mut GroupState, why: Release) {
                $($(#[$pattr])* <$checker as Checker>::barrier_release(l, g, why);)*
            }
            pub(crate) fn group_copy(l: &LaunchChecker<'_>, g: &mut GroupState, e: &GroupCopy<'_>) {
                $($(#[$pattr])* <$checker as Checker>::group_copy(l, g, e);)*
            }
            pub(crate) fn group_wait(l: &LaunchChecker<'_>, g: &mut GroupState, e: &GroupWait<'_>) {
                $($(#[$pattr])* <$checker as Checker>::group_wait(l, g, e);)*
            }
            pub(crate) fn item_end(l: &LaunchChecker<'_>, g: &mut GroupState, e: &WorkItem) {
                $($(#[$pattr])* <$checker as Checker>::item_end(l, g, e);)*
            }
            pub(crate) fn fault(l: &LaunchChecker<'_>, g: &mut GroupState, e: &Fault<'_>) {
                $($(#[$pattr])* <$checker as Checker>::fault(l, g, e);)*
            }
            pub(crate) fn stalled(l: &LaunchChecker<'_>, g: &mut GroupState, why: &str, running: &[(WorkItem, InstId)]) {
                $($(#[$pattr])* <$checker as Checker>::stalled(l, g, why, running);)*
            }
            pub(crate) fn group_end(l: &LaunchChecker<'_>, g: &mut GroupState) {
                $($(#[$pattr])* <$checker as Checker>::group_end(l, g);)*
            }
        }
    };
    ($($entries:tt)*) => { registry!(@sort [] [] $($entries)*); };
}

// The registry. Switches list in this order; checkers see each event in this order.
registry! {
    races: races::Races, switch races = true, [DataRace],
        "Data races: two work-items access a byte without synchronisation, one of them \
         writing (within a group, between groups, between kernels, with async copies and \
         atomics).";
    // Read by the race checker (the same records).
    switch benign = false, [BenignRace],
        "Benign races: unsynchronised writes of the value already in memory, and reads that \
         can see only that value.";
    divergence: divergence::Divergence, switch divergence = true,
        [BarrierDivergence, AsyncCopyMisuse],
        "Work-items of a group reaching different barriers, or the same \
         `async_work_group_copy`/`wait_group_events` with different arguments, and misused \
         events.";
    bounds: bounds::Bounds, switch bounds = true,
        [OutOfBounds, MisalignedAccess, InvalidAccess],
        "Accesses outside their buffer or declared array, misaligned ones, and accesses the \
         memory flags forbid.";
    // Read by the race checker's access path (its local records hold the initialised bits).
    switch uninit = true, [UninitializedRead], "Reads of bytes nothing wrote.";
    // What orders a group's copies with its accesses, whatever the switches.
    async_copies: async_copy::AsyncCopies;
    stalls: hang::Stalls;
    #[cfg(test)]
    barrier_count: example::BarrierCount, switch barrier_count = false, [],
        "Counts the barriers each launch's groups pass (the example checker of the tests).";
}

impl Default for Checks {
    fn default() -> Checks {
        let mut checks = Checks::none();
        for c in checkers().iter().filter(|c| c.on_by_default) {
            checks.enable(c.name);
        }
        checks
    }
}

impl Checks {
    /// Whether any check is on (otherwise launches run unobserved).
    pub fn any(&self) -> bool {
        *self != Checks::none()
    }

    /// Whether accesses go through the race records: for data races or benign ones.
    pub fn race_records(&self) -> bool {
        self.races || self.benign
    }

    /// Turns the named checker on; false if no checker has that name.
    pub fn enable(&mut self, name: &str) -> bool {
        self.switch(name).map(|on| *on = true).is_some()
    }

    /// The names of the enabled checkers, comma separated (the inverse of `parse`).
    pub fn list(&self) -> String {
        let on: Vec<&str> = (checkers().iter())
            .map(|c| c.name)
            .filter(|n| self.is_on(n))
            .collect();
        if on.is_empty() {
            "none".into()
        } else {
            on.join(",")
        }
    }

    /// The `--checks` one-line help: the names and the defaults.
    pub fn usage() -> String {
        let names: Vec<&str> = checkers().iter().map(|c| c.name).collect();
        format!(
            "Checkers to run: `none` or a comma list of {} [default: {}]",
            names.join(","),
            Checks::default().list()
        )
    }

    /// The `--checks` full help: the names, what each reports, and the defaults.
    pub fn help() -> String {
        let mut text = String::from("Checkers to run: `none` or a comma list of:\n");
        for c in checkers() {
            let default = if c.on_by_default {
                ""
            } else {
                " (off by default)"
            };
            text += &format!("  {}{default}: {}\n", c.name, c.summary.trim());
        }
        text
    }
}

impl std::str::FromStr for Checks {
    type Err = String;
    /// `none`, or a comma list of checker names (exactly those are enabled).
    fn from_str(s: &str) -> Result<Checks, String> {
        let s = s.trim();
        let mut checks = Checks::none();
        if s == "none" {
            return Ok(checks);
        }
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !checks.enable(name) {
                let names: Vec<&str> = checkers().iter().map(|c| c.name).collect();
                return Err(format!(
                    "unknown check `{name}` (expected none or a comma list of {})",
                    names.join(", ")
                ));
            }
        }
        Ok(checks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_kind_is_reported_by_at_most_one_checker() {
        for kind in FindingKind::ALL {
            let by = checkers()
                .iter()
                .filter(|c| c.kinds.contains(&kind))
                .count();
            assert!(by <= 1, "{kind:?} is reported by {by} checkers");
        }
    }

    /// The checker table of `docs/checks.md`, one row per registry entry.
    fn table_rows() -> String {
        let mut rows = String::new();
        for c in checkers().iter().filter(|c| c.name != "barrier_count") {
            let kinds: Vec<String> = c.kinds.iter().map(|k| format!("`{}`", k.name())).collect();
            let summary = c.summary.split_whitespace().collect::<Vec<_>>().join(" ");
            let default = if c.on_by_default { "on" } else { "off" };
            rows += &format!(
                "| `{}` | {summary} | {} | {default} |\n",
                c.name,
                kinds.join(", ")
            );
        }
        rows
    }

    #[test]
    fn the_checks_page_lists_every_checker_as_the_registry_does() {
        let page = include_str!("../../../docs/checks.md");
        let rows = table_rows();
        assert!(
            page.contains(&rows),
            "docs/checks.md's checker table should read:\n{rows}"
        );
    }

    #[test]
    fn the_list_parses_back_to_the_same_checks() {
        for checks in [
            Checks::default(),
            Checks::none(),
            "benign,bounds".parse().unwrap(),
        ] {
            assert_eq!(checks.list().parse::<Checks>(), Ok(checks));
        }
        assert!("races,racez".parse::<Checks>().is_err());
    }
}
