//! Shadow memory and checkers (see docs/design.md, "The race detector").
//!
//! The platform library makes one [`Session`] per process and, for each kernel launch, a
//! [`LaunchChecker`] (an [`shadowcl_interpreter::Observer`]) that it hands to `Device::run`.
//! Findings accumulate in the session; [`Session::report`] renders them as JSON, SARIF, HTML
//! or text.
//!
//! ```no_run
//! use shadowcl_interpreter::{Buffer, Device, Launch, Program, Schedule};
//! use shadowcl_shadow::{Config, Session};
//! # fn demo(program: &Program, launch: &Launch, buffer: &Buffer, settings: &dyn Fn(&str) -> Option<String>) {
//! // Once per process, from the caller's settings (the platform reads its environment once);
//! // a bad SHADOWCL_CHECKS is reported, not fatal.
//! let config = Config::from_lookup(settings).unwrap_or_else(|e| {
//!     eprintln!("shadowcl: {e}");
//!     Config::default()
//! });
//! let session = Session::new(config);
//! // clCreateBuffer (initialised: COPY_HOST_PTR / USE_HOST_PTR), clEnqueueWriteBuffer & co.
//! session.buffer_created(buffer.id(), buffer.len() as u64, false);
//! session.buffer_written_by_host(buffer.id(), 0, 16);
//! // clEnqueueNDRangeKernel: the order says which earlier launches happen before this one
//! // (`Sequential`: all of them, as on a single in-order queue; the platform derives it from
//! // its queues and events).
//! let (schedule, _problems) = Schedule::from_lookup(settings);
//! if session.checks() != shadowcl_shadow::Checks::none() {
//!     let order = shadowcl_shadow::Sequential;
//!     let checker = session.launch(program, 0, &schedule.describe(), &order);
//!     let _ = Device::new(0).run(program, launch, &schedule, &checker);
//!     drop(checker); // findings move into the session at launch_end (or drop)
//! }
//! eprint!("{}", session.take_new_text());
//! let _ = session.write_files(); // SHADOWCL_REPORT / SHADOWCL_SARIF, after each kernel and at exit
//! // clReleaseMemObject (last reference):
//! session.buffer_released(buffer.id());
//! # }
//! ```
//!
//! Limits: records keep one work-item identity per byte (KLEE-CL's design; a read after
//! another item's read keeps the earlier reader), so a conflict with an access that is no
//! longer in the record is reported with an unidentified first work-item and folded into the
//! identified finding of the same pair when there is one. [`Session::run_launch`] (the
//! platform's path) removes that limit for races inside a launch: it runs a racy launch a
//! second time from copies of its inputs and names every racing pair of the racy bytes
//! (`pairs.rs`; launches whose buffers exceed [`SNAPSHOT_LIMIT`] keep the first run's names). Barrier epochs are 7 bits; every
//! 64 barriers a group ages its own records (local and global) so a wrap never makes an old
//! access look current. Item ids are 28 bits per
//! synchronisation window (ids wrap past that, and a single launch of over 2^28 work-items
//! aliases ids). Launches ordered before the current one count as reset lazily, byte by byte:
//! a record whose last accessor was such a launch is treated as fresh, but the summary flags
//! of a record last touched by an overlapping launch may still carry accesses of an ordered
//! one, which can add an unidentified inter-kernel finding on a byte where a real race between
//! kernels was already found. The window keeps at most 256 launches; older ones ordered
//! before the newest are forgotten (their races with later overlapping launches are missed).

mod checks;
mod export;
mod group;
mod host;
mod html;
mod launch;
mod local;
mod mar;
mod pairs;
mod progress;
mod raw;
mod report;
mod session;
mod shadow;
mod sources;
mod suppress;

pub use checks::{checkers, CheckerInfo, Checks};
pub use export::{
    exporter, exporter_names, parse_exports, Exporter, Html, Json, Sarif, Text, EXPORTERS,
};
pub use group::GroupState;
pub use host::HostAccess;
pub use launch::LaunchChecker;
pub use pairs::SNAPSHOT_LIMIT;
pub use progress::progress_message;
pub use report::{
    Candidate, Finding, FindingKind, LaunchSummary, RaceKind, Report, RuleHits, Scope, Side,
    SyncSide, Synchronisation,
};
pub use session::{
    KernelAccess, LaunchOrder, Locations, Sequential, Session, Unordered, LAUNCH_CAP,
};
pub use suppress::{glob_match, Patterns, Rule, Suppressions};

use std::path::PathBuf;

/// The checker configuration read from the environment (docs/design.md, "Contracts").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub checks: Checks,
    /// `SHADOWCL_REPORT`: JSON report path.
    pub report: Option<PathBuf>,
    /// `SHADOWCL_SARIF`: SARIF 2.1.0 path.
    pub sarif: Option<PathBuf>,
    /// `SHADOWCL_HTML`: HTML report path.
    pub html: Option<PathBuf>,
    /// `SHADOWCL_SHADOW_LIMIT`: bytes of shadow memory all buffers may use together (8 per
    /// byte a kernel touches); `None`: half the machine's memory ([`default_shadow_limit`]).
    pub shadow_limit: Option<u64>,
    /// `SHADOWCL_EXPORT`: more report files, as (registered format name, path).
    pub exports: Vec<(String, PathBuf)>,
    /// `SHADOWCL_SOURCE_DIR` (`:`-separated): where the application's kernel files are, so
    /// reports name them instead of the cache's copy; empty: the working directory.
    pub source_dirs: Vec<PathBuf>,
    /// `SHADOWCL_SUPPRESSIONS`: the rules of findings the report leaves out (and counts).
    pub suppressions: Suppressions,
    /// `SHADOWCL_KERNELS`: the kernels checked; launches of the others run unchecked.
    pub kernels: Patterns,
}

/// The shadow budget when none is set: half the machine's memory (8 GiB when unknown).
pub fn default_shadow_limit() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    });
    total_kib.map_or(8 << 30, |k| k.saturating_mul(1024) / 2)
}

/// `SHADOWCL_SHADOW_LIMIT`'s syntax: bytes with an optional `K`, `M` or `G` (binary) suffix,
/// or `off` for no limit.
fn parse_bytes(v: &str) -> Result<u64, String> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("off") {
        return Ok(u64::MAX);
    }
    let (digits, shift) = match v.char_indices().last() {
        Some((i, 'k' | 'K')) => (&v[..i], 10),
        Some((i, 'm' | 'M')) => (&v[..i], 20),
        Some((i, 'g' | 'G')) => (&v[..i], 30),
        _ => (v, 0),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("`{v}` is not a size (bytes, or with K, M or G; or off)"))
}

impl Config {
    /// From a key/value source (the platform's settings; this crate reads no environment).
    /// A bad setting (`SHADOWCL_CHECKS`, an unreadable or malformed `SHADOWCL_SUPPRESSIONS`
    /// file, ...) is an error naming it
    /// (the caller reports it and may fall back to `Config::default()`).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let path = |k: &str| get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        Ok(Config {
            checks: match get("SHADOWCL_CHECKS") {
                Some(v) if !v.trim().is_empty() => {
                    v.parse().map_err(|e| format!("SHADOWCL_CHECKS={v}: {e}"))?
                }
                _ => Checks::default(),
            },
            report: path("SHADOWCL_REPORT"),
            sarif: path("SHADOWCL_SARIF"),
            html: path("SHADOWCL_HTML"),
            shadow_limit: match get("SHADOWCL_SHADOW_LIMIT") {
                Some(v) if !v.trim().is_empty() => {
                    Some(parse_bytes(&v).map_err(|e| format!("SHADOWCL_SHADOW_LIMIT={v}: {e}"))?)
                }
                _ => None,
            },
            source_dirs: get("SHADOWCL_SOURCE_DIR")
                .map(|v| {
                    v.split(':')
                        .filter(|d| !d.is_empty())
                        .map(PathBuf::from)
                        .collect()
                })
                .unwrap_or_default(),
            exports: match get("SHADOWCL_EXPORT") {
                Some(v) => parse_exports(&v)
                    .map_err(|e| format!("SHADOWCL_EXPORT={v}: {e}"))?
                    .into_iter()
                    .map(|(e, p)| (e.name().to_string(), p))
                    .collect(),
                None => Vec::new(),
            },
            suppressions: match path("SHADOWCL_SUPPRESSIONS") {
                Some(p) => {
                    Suppressions::load(&p).map_err(|e| format!("SHADOWCL_SUPPRESSIONS: {e}"))?
                }
                None => Suppressions::default(),
            },
            kernels: get("SHADOWCL_KERNELS")
                .map(|v| Patterns::parse(&v))
                .unwrap_or_default(),
        })
    }

    /// The report files to write and their formats: `SHADOWCL_REPORT` (JSON),
    /// `SHADOWCL_SARIF`, `SHADOWCL_HTML`, then `SHADOWCL_EXPORT`'s.
    pub fn files(&self) -> Vec<(&'static dyn Exporter, &PathBuf)> {
        let named = self
            .exports
            .iter()
            .filter_map(|(name, p)| exporter(name).ok().map(|e| (e, p)));
        let fixed = [
            (&export::Json as &dyn Exporter, self.report.as_ref()),
            (&export::Sarif, self.sarif.as_ref()),
            (&export::Html, self.html.as_ref()),
        ];
        fixed
            .into_iter()
            .filter_map(|(e, p)| p.map(|p| (e, p)))
            .chain(named)
            .collect()
    }
}
