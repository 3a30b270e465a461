//! Schedules: the order in which work-groups and work-items run (docs/design.md,
//! "Execution model").

/// Order of a set of work-groups or of the work-items of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Order {
    #[default]
    InOrder,
    Reverse,
    /// Seeded shuffle (deterministic for a given [`Schedule::seed`]).
    Random,
}

impl std::str::FromStr for Order {
    type Err = String;
    fn from_str(s: &str) -> Result<Order, String> {
        match s {
            "in-order" => Ok(Order::InOrder),
            "reverse" => Ok(Order::Reverse),
            "random" => Ok(Order::Random),
            _ => Err(format!(
                "unknown order `{s}` (expected in-order, reverse or random)"
            )),
        }
    }
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Order::InOrder => "in-order",
            Order::Reverse => "reverse",
            Order::Random => "random",
        })
    }
}

/// Everything that decides how a launch is interleaved. Deterministic given `seed`
/// (with `parallel == false`, or with checkers that do not depend on thread timing).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub wg_order: Order,
    pub wi_order: Order,
    /// Instructions a work-item runs before the next one gets a turn; 0 = run to barrier,
    /// 1 = lockstep, [`Schedule::AUTO`] = lockstep where the work-items agree.
    pub quantum: u32,
    pub seed: u64,
    /// Work-groups run concurrently on `threads` workers (false: one after another).
    pub parallel: bool,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule {
            wg_order: Order::InOrder,
            wi_order: Order::InOrder,
            quantum: Schedule::AUTO,
            seed: 0,
            parallel: true,
            threads: 0,
        }
    }
}

impl Schedule {
    /// The `quantum` (`SHADOWCL_QUANTUM=auto`, the default) that runs each work-group in
    /// lockstep, as quantum 1 does, while its work-items run the same operations, and
    /// run-to-barrier, as quantum 0 does, from where lockstep would be slow (a private array;
    /// lanes still apart after a few regroupings, as in a loop whose trip count differs
    /// between them) until a barrier releases them at one operation. Each part is a valid
    /// interleaving, so the findings are those of every schedule; the mix runs each part of a
    /// kernel the faster way (docs/settings.md, "Schedules").
    pub const AUTO: u32 = u32::MAX;

    /// Reads `SHADOWCL_WG_ORDER`, `SHADOWCL_WI_ORDER`, `SHADOWCL_QUANTUM`, `SHADOWCL_SEED`,
    /// `SHADOWCL_THREADS` and `SHADOWCL_WG_SERIAL` through `get` (the platform passes its
    /// settings' source; this crate reads no environment). A malformed value is left at its
    /// default and described in the returned list, for the caller to report.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> (Schedule, Vec<String>) {
        let mut s = Schedule::default();
        let mut problems = Vec::new();
        let mut parse = |key: &str, set: &mut dyn FnMut(&str) -> bool| {
            if let Some(v) = get(key) {
                if !set(v.trim()) {
                    problems.push(format!("ignoring {key}={v}: not understood"));
                }
            }
        };
        parse("SHADOWCL_WG_ORDER", &mut |v| to(v, &mut s.wg_order));
        parse("SHADOWCL_WI_ORDER", &mut |v| to(v, &mut s.wi_order));
        parse("SHADOWCL_QUANTUM", &mut |v| {
            parse_quantum(v).map(|q| s.quantum = q).is_ok()
        });
        parse("SHADOWCL_SEED", &mut |v| to(v, &mut s.seed));
        parse("SHADOWCL_THREADS", &mut |v| to(v, &mut s.threads));
        let mut serial = false;
        parse("SHADOWCL_WG_SERIAL", &mut |v| to(v, &mut serial));
        s.parallel = !serial;
        (s, problems)
    }

    /// A short text naming the schedule, e.g. `wg=random,wi=reverse,q=0,seed=3,parallel`.
    pub fn describe(&self) -> String {
        format!(
            "wg={},wi={},q={},seed={},{}",
            self.wg_order,
            self.wi_order,
            quantum_name(self.quantum),
            self.seed,
            if self.parallel { "parallel" } else { "serial" }
        )
    }
}

/// A quantum as `SHADOWCL_QUANTUM` and `--quantum` spell it: a number of instructions, or
/// `auto` ([`Schedule::AUTO`]).
pub fn parse_quantum(v: &str) -> Result<u32, String> {
    match v.trim() {
        "auto" => Ok(Schedule::AUTO),
        n => n
            .parse()
            .map_err(|_| format!("`{v}` is not a number of instructions or auto")),
    }
}

/// The spelling [`parse_quantum`] reads back.
pub fn quantum_name(q: u32) -> String {
    match q {
        Schedule::AUTO => "auto".into(),
        q => q.to_string(),
    }
}

/// Parses `v` into `into`; false (and `into` unchanged) when it does not parse.
fn to<T: std::str::FromStr>(v: &str, into: &mut T) -> bool {
    v.parse().map(|x| *into = x).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_variables_and_ignores_garbage() {
        let (s, problems) = Schedule::from_lookup(|k| match k {
            "SHADOWCL_WG_ORDER" => Some("reverse".into()),
            "SHADOWCL_WI_ORDER" => Some("bogus".into()),
            "SHADOWCL_QUANTUM" => Some("7".into()),
            "SHADOWCL_SEED" => Some("42".into()),
            "SHADOWCL_WG_SERIAL" => Some("true".into()),
            _ => None,
        });
        assert_eq!(s.wg_order, Order::Reverse);
        assert_eq!(s.wi_order, Order::InOrder);
        assert_eq!(
            problems,
            ["ignoring SHADOWCL_WI_ORDER=bogus: not understood"]
        );
        assert_eq!((s.quantum, s.seed, s.parallel), (7, 42, false));
        assert_eq!(s.describe(), "wg=reverse,wi=in-order,q=7,seed=42,serial");
        let (auto, problems) =
            Schedule::from_lookup(|k| (k == "SHADOWCL_QUANTUM").then(|| "auto".into()));
        assert_eq!((auto.quantum, problems.len()), (Schedule::AUTO, 0));
        assert!(auto.describe().contains(",q=auto,"));
    }
}
