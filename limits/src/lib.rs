//! The limits ShadowCL enforces on the applications and kernels it runs, each defined and
//! documented once, here. Past any of them ShadowCL answers as `docs/limits.md` says (a
//! refused launch or build, a `checks-degraded` finding, fewer names in a report); it never
//! aborts or hangs the host process. The crates that enforce them read [`LIMITS`]; this
//! crate's tests check `docs/limits.md`'s table states each one as it is here.

/// The enforced limits (one value: [`LIMITS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Local memory a launch may need as the application's build allocates it
    /// (`CL_DEVICE_LOCAL_MEM_SIZE`); past it `clEnqueueNDRangeKernel` returns
    /// `CL_OUT_OF_RESOURCES`.
    pub device_local_memory: u64,
    /// Local memory per work-group the checked build may allocate (arguments and
    /// `__local` variables); past it the launch is refused.
    pub checked_local_memory: u64,
    /// Private memory per work-item; past it the launch is aborted.
    pub private_memory: u64,
    /// Bytes of module-scope variables (`__constant` and program-scope `global` data) a
    /// program may declare, all allocated when it loads; past it the build fails.
    pub module_data: u64,
    /// How deeply SPIR-V types may nest; past it the build fails.
    pub type_depth: u32,
    /// The largest SPIR-V id bound a module may declare (ids index tables the lowering
    /// allocates up front); past it the build fails.
    pub id_bound: u32,
    /// Lanes of one constant or value (vector, array or struct leaves); past it the build
    /// fails.
    pub constant_lanes: u64,
    /// Work-groups fair scheduling may keep suspended at once...
    pub suspended_groups: usize,
    /// ... and the bytes of their state; past either no more groups start until one ends.
    pub suspended_bytes: usize,
    /// Race records tell apart this many work-items (one id per work-item and one per
    /// group's async copies) per synchronisation window; a launch with more is not checked
    /// for races (`checks-degraded`).
    pub race_item_ids: u64,
    /// Bytes of buffers a launch's second run may copy to name racing pairs; past it pairs
    /// are named as the first run saw them.
    pub snapshot_bytes: u64,
    /// Racy bytes the pair pass watches per launch; further pairs stay unnamed.
    pub watched_bytes: usize,
    /// Access classes the pair pass tells apart per watched byte.
    pub access_classes: usize,
    /// Release contributions followed per atomic location; past them races are reported as
    /// the records see them (atomics ordering nothing): more reports, never fewer.
    pub release_contributions: usize,
    /// New findings a launch may add to the report; the rest are counted in `dropped`.
    pub findings_per_launch: usize,
    /// Launches whose records may still race with later ones, per synchronisation window;
    /// older ones ordered before the newest are forgotten.
    pub launch_window: usize,
}

/// The limits.
pub const LIMITS: Limits = Limits {
    device_local_memory: 64 << 10,
    checked_local_memory: 16 << 20,
    private_memory: 4 << 20,
    module_data: 256 << 20,
    type_depth: 64,
    id_bound: 1 << 22,
    constant_lanes: 1 << 16,
    suspended_groups: 1024,
    suspended_bytes: 256 << 20,
    race_item_ids: 1 << 28,
    snapshot_bytes: 256 << 20,
    watched_bytes: 1 << 16,
    access_classes: 1024,
    release_contributions: 4096,
    findings_per_launch: 100,
    launch_window: 256,
};

#[cfg(test)]
mod tests {
    use super::LIMITS;

    /// `n` as the table writes sizes: `64 KiB`, `16 MiB`.
    fn bytes(n: u64) -> String {
        match n {
            n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
            n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
            n => format!("{n} bytes"),
        }
    }

    /// `n` as the table writes counts: `1,024`, `65,536`.
    fn count(n: u64) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    /// `n` as a power of two: `2^28`.
    fn power(n: u64) -> String {
        format!("2^{}", n.trailing_zeros())
    }

    #[test]
    fn the_limits_page_states_every_limit_as_it_is() {
        let page = include_str!("../../docs/limits.md");
        let l = LIMITS;
        // (the row's first words, what its limit column must say)
        let rows = [
            (
                "| local memory a launch needs",
                bytes(l.device_local_memory),
            ),
            (
                "| local memory per work-group the checked build",
                bytes(l.checked_local_memory),
            ),
            ("| private memory per work-item", bytes(l.private_memory)),
            (
                "| module-scope variables",
                format!("{} in all", bytes(l.module_data)),
            ),
            (
                "| types nested / SPIR-V id bound / constant lanes",
                format!(
                    "{} / {} / {}",
                    l.type_depth,
                    power(l.id_bound as u64),
                    count(l.constant_lanes)
                ),
            ),
            (
                "| work-groups suspended by fair scheduling",
                format!(
                    "{} groups and {} of their state",
                    count(l.suspended_groups as u64),
                    bytes(l.suspended_bytes as u64)
                ),
            ),
            (
                "| work-items per launch, for race checking",
                power(l.race_item_ids),
            ),
            (
                "| copies taken to name racing pairs",
                format!("{} of buffers per launch", bytes(l.snapshot_bytes)),
            ),
            (
                "| racy bytes watched by the pair pass",
                format!(
                    "{} per launch, {} access classes per byte",
                    count(l.watched_bytes as u64),
                    count(l.access_classes as u64)
                ),
            ),
            (
                "| synchronisation followed",
                format!(
                    "{} release contributions per atomic location",
                    count(l.release_contributions as u64)
                ),
            ),
            (
                "| new findings per launch",
                count(l.findings_per_launch as u64),
            ),
            (
                "| launches whose records may still race",
                count(l.launch_window as u64),
            ),
        ];
        for (start, limit) in rows {
            let row = page.lines().find(|line| line.starts_with(start));
            let row = row.unwrap_or_else(|| panic!("docs/limits.md has no row `{start}`"));
            // | input | limit | answer |
            let column = row.split('|').nth(2).unwrap_or_default();
            assert!(
                column.contains(&limit),
                "docs/limits.md's row `{start}` should state {limit}:\n{row}"
            );
        }
    }

    #[test]
    fn the_table_formats_read_as_written() {
        assert_eq!(bytes(64 << 10), "64 KiB");
        assert_eq!(bytes(256 << 20), "256 MiB");
        assert_eq!(count(65536), "65,536");
        assert_eq!(count(100), "100");
        assert_eq!(power(1 << 28), "2^28");
    }
}
