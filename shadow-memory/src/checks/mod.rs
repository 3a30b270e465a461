//! One module per check, each an `impl LaunchChecker` block the observer seam
//! (`launch.rs`) calls into, and the registry of the checkers `SHADOWCL_CHECKS` names: the
//! settings parser, [`Checks::any`], the command line's help and the README's checker table
//! all derive from [`CHECKERS`].

pub(crate) mod access_rules;
mod async_copy;
mod bounds;
pub(crate) mod divergence;
mod hang;
pub(crate) mod races;
pub(crate) mod sync;

use crate::report::FindingKind;

/// A checker the user can turn on or off.
#[derive(Clone, Copy, Debug)]
pub struct CheckerInfo {
    /// Its name in `SHADOWCL_CHECKS` and `--checks`.
    pub name: &'static str,
    /// Whether it runs when `SHADOWCL_CHECKS` is unset.
    pub on_by_default: bool,
    /// The finding kinds it reports.
    pub kinds: &'static [FindingKind],
    /// What it reports, in a sentence (the command line's help, the README's table).
    pub summary: &'static str,
}

/// Defines [`Checks`] (one switch per checker) and [`CHECKERS`] from one line per checker.
macro_rules! registry {
    ($($(#[doc = $summary:literal])+ $name:ident: $default:expr, [$($kind:ident),*];)+) => {
        /// Which checkers run (`SHADOWCL_CHECKS`): one switch per entry of [`CHECKERS`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Checks {
            $($(#[doc = $summary])+ pub $name: bool,)+
        }

        /// Every checker, in the order `SHADOWCL_CHECKS` lists them.
        pub const CHECKERS: &[CheckerInfo] = &[$(CheckerInfo {
            name: stringify!($name),
            on_by_default: $default,
            kinds: &[$(FindingKind::$kind),*],
            summary: concat!($($summary),+),
        }),+];

        impl Checks {
            /// Every checker off.
            pub const fn none() -> Checks {
                Checks { $($name: false,)+ }
            }

            fn switch(&mut self, name: &str) -> Option<&mut bool> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)+
                    _ => None,
                }
            }

            fn is_on(&self, name: &str) -> bool {
                match name {
                    $(stringify!($name) => self.$name,)+
                    _ => false,
                }
            }
        }
    };
}

registry! {
    /// Data races: two work-items access a byte without synchronisation, one of them writing
    /// (within a group, between groups, between kernels, with async copies and atomics).
    races: true, [DataRace];
    /// Benign races: unsynchronised writes of the value already in memory, and reads that can
    /// see only that value.
    benign: false, [BenignRace];
    /// Work-items of a group reaching different barriers, or the same
    /// `async_work_group_copy`/`wait_group_events` with different arguments, and misused events.
    divergence: true, [BarrierDivergence, AsyncCopyMisuse];
    /// Accesses outside their buffer or declared array, misaligned ones, and accesses the
    /// memory flags forbid.
    bounds: true, [OutOfBounds, MisalignedAccess, InvalidAccess];
    /// Reads of bytes nothing wrote.
    uninit: true, [UninitializedRead];
}

impl Default for Checks {
    fn default() -> Checks {
        let mut checks = Checks::none();
        for c in CHECKERS.iter().filter(|c| c.on_by_default) {
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
        let on: Vec<&str> = (CHECKERS.iter())
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
        let names: Vec<&str> = CHECKERS.iter().map(|c| c.name).collect();
        format!(
            "Checkers to run: `none` or a comma list of {} [default: {}]",
            names.join(","),
            Checks::default().list()
        )
    }

    /// The `--checks` full help: the names, what each reports, and the defaults.
    pub fn help() -> String {
        let mut text = String::from("Checkers to run: `none` or a comma list of:\n");
        for c in CHECKERS {
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
                let names: Vec<&str> = CHECKERS.iter().map(|c| c.name).collect();
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
            let by = CHECKERS.iter().filter(|c| c.kinds.contains(&kind)).count();
            assert!(by <= 1, "{kind:?} is reported by {by} checkers");
        }
    }

    /// The README's checker table, one row per registry entry.
    fn readme_rows() -> String {
        let mut rows = String::new();
        for c in CHECKERS {
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
    fn the_readme_lists_every_checker_as_the_registry_does() {
        let readme = include_str!("../../../README.md");
        let rows = readme_rows();
        assert!(
            readme.contains(&rows),
            "README.md's checker table should read:\n{rows}"
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
