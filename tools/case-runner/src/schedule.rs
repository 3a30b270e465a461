//! ShadowCL schedules the corpus runs under, as the `SHADOWCL_*` variables that select them.

/// A ShadowCL schedule as the environment variables that select it.
pub(crate) type Schedule = (&'static str, &'static [(&'static str, &'static str)]);

/// Schedules `check-races --schedules all` runs (docs/design.md, "Execution model").
pub(crate) const SCHEDULES: &[Schedule] = &[
    ("auto", &[]),
    ("run-to-barrier", &[("SHADOWCL_QUANTUM", "0")]),
    ("lockstep", &[("SHADOWCL_QUANTUM", "1")]),
    (
        "reverse",
        &[
            ("SHADOWCL_WI_ORDER", "reverse"),
            ("SHADOWCL_WG_ORDER", "reverse"),
        ],
    ),
    (
        "random",
        &[
            ("SHADOWCL_WI_ORDER", "random"),
            ("SHADOWCL_WG_ORDER", "random"),
            ("SHADOWCL_SEED", "7"),
        ],
    ),
    (
        "quantum-3-random",
        &[
            ("SHADOWCL_QUANTUM", "3"),
            ("SHADOWCL_WI_ORDER", "random"),
            ("SHADOWCL_WG_ORDER", "random"),
            ("SHADOWCL_SEED", "11"),
        ],
    ),
];

/// The variables a schedule sets; unset in every child first, so the caller's do not leak.
pub(crate) const SCHEDULE_VARS: [&str; 4] = [
    "SHADOWCL_QUANTUM",
    "SHADOWCL_WI_ORDER",
    "SHADOWCL_WG_ORDER",
    "SHADOWCL_SEED",
];

pub(crate) fn parse_schedules(list: &str) -> Result<Vec<Schedule>, String> {
    if list.trim() == "all" {
        return Ok(SCHEDULES.to_vec());
    }
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| {
            SCHEDULES.iter().find(|s| s.0 == n).copied().ok_or_else(|| {
                let names: Vec<&str> = SCHEDULES.iter().map(|s| s.0).collect();
                format!(
                    "unknown schedule `{n}` (expected all or {})",
                    names.join(", ")
                )
            })
        })
        .collect()
}
