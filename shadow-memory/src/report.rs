//! The report model and its renderers: JSON (docs/design.md, "Contracts"), SARIF 2.1.0, text.

use serde::ser::SerializeStruct as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};
use shadowcl_interpreter::{AddressSpace, SourceLoc};
use std::fmt::Write as _;
use std::sync::Arc;

pub use crate::mar::Scope;

/// What went wrong; the `kind` field of a JSON finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    DataRace,
    BenignRace,
    BarrierDivergence,
    OutOfBounds,
    UninitializedRead,
    UseAfterRelease,
    ScheduleDependentOutput,
    AsyncCopyMisuse,
    MisalignedAccess,
    InvalidAccess,
    ChecksDegraded,
    Hang,
}

impl FindingKind {
    pub const ALL: [FindingKind; 12] = [
        FindingKind::DataRace,
        FindingKind::BenignRace,
        FindingKind::BarrierDivergence,
        FindingKind::OutOfBounds,
        FindingKind::UninitializedRead,
        FindingKind::UseAfterRelease,
        FindingKind::ScheduleDependentOutput,
        FindingKind::AsyncCopyMisuse,
        FindingKind::MisalignedAccess,
        FindingKind::InvalidAccess,
        FindingKind::ChecksDegraded,
        FindingKind::Hang,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FindingKind::DataRace => "data-race",
            FindingKind::BenignRace => "benign-race",
            FindingKind::BarrierDivergence => "barrier-divergence",
            FindingKind::OutOfBounds => "out-of-bounds",
            FindingKind::UninitializedRead => "uninitialized-read",
            FindingKind::UseAfterRelease => "use-after-release",
            FindingKind::ScheduleDependentOutput => "schedule-dependent-output",
            FindingKind::AsyncCopyMisuse => "async-copy-misuse",
            FindingKind::MisalignedAccess => "misaligned-access",
            FindingKind::InvalidAccess => "invalid-access",
            FindingKind::ChecksDegraded => "checks-degraded",
            FindingKind::Hang => "hang",
        }
    }

    /// One-line description, used for SARIF rules and the HTML report.
    pub(crate) fn description(self) -> &'static str {
        match self {
            FindingKind::DataRace => "Two work-items access the same byte without synchronisation, at least one writing",
            FindingKind::BenignRace => "Unsynchronised writes of the value already in memory, or a read that can see only that value (harmless on most hardware)",
            FindingKind::BarrierDivergence => "Work-items of a work-group reach different barriers, or a barrier a different number of times",
            FindingKind::OutOfBounds => "Access outside its buffer, or through an invalid pointer",
            FindingKind::UninitializedRead => "Read of memory that was never written",
            FindingKind::UseAfterRelease => "A kernel uses a buffer that was released",
            FindingKind::ScheduleDependentOutput => "Output bytes differ between work-group / work-item schedules",
            FindingKind::AsyncCopyMisuse => "wait_group_events on an event no async copy returned, or an async copy never waited for",
            FindingKind::MisalignedAccess => "Load, store or atomic at an address that is not a multiple of its type's alignment",
            FindingKind::InvalidAccess => "Kernel write to memory created read-only, read of memory created write-only, or a host access the creation flags forbid",
            FindingKind::ChecksDegraded => "Part of a launch went unchecked because a limit was reached (shadow memory budget, work-items per launch)",
            FindingKind::Hang => "The launch ran past its time limit: the work-items that had not finished, and where they were",
        }
    }

    /// What a finding's count counts: occurrences, or for a hang the work-items stopped.
    pub(crate) fn counted(self) -> &'static str {
        match self {
            FindingKind::Hang => "work-items",
            _ => "times",
        }
    }

    pub(crate) fn level(self) -> &'static str {
        match self {
            FindingKind::BenignRace => "note",
            FindingKind::UninitializedRead
            | FindingKind::ScheduleDependentOutput
            | FindingKind::ChecksDegraded => "warning",
            _ => "error",
        }
    }
}

/// Which two kinds of access race (races only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RaceKind {
    ReadWrite,
    WriteWrite,
    AtomicPlain,
}

impl RaceKind {
    pub fn name(self) -> &'static str {
        match self {
            RaceKind::ReadWrite => "read-write",
            RaceKind::WriteWrite => "write-write",
            RaceKind::AtomicPlain => "atomic-plain",
        }
    }
}

pub fn space_name(s: AddressSpace) -> &'static str {
    match s {
        AddressSpace::Global => "global",
        AddressSpace::Constant => "constant",
        AddressSpace::Local => "local",
        AddressSpace::Private => "private",
    }
}

/// The address space named `name` (the inverse of [`space_name`]).
fn space_of(name: &str) -> Option<AddressSpace> {
    [
        AddressSpace::Global,
        AddressSpace::Constant,
        AddressSpace::Local,
        AddressSpace::Private,
    ]
    .into_iter()
    .find(|s| space_name(*s) == name)
}

/// `memory` in JSON: an address space by its OpenCL name.
mod space_field {
    use super::*;
    use serde::de::Error as _;

    pub(super) fn serialize<S: Serializer>(
        v: &Option<AddressSpace>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.map(space_name).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<AddressSpace>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|n| {
                space_of(&n).ok_or_else(|| D::Error::custom(format!("no address space `{n}`")))
            })
            .transpose()
    }
}

/// A source location in JSON: `{ "file", "line", "column" }`.
#[derive(Serialize, Deserialize)]
struct LocJson<F> {
    file: F,
    line: u32,
    column: u32,
}

impl<'a> From<&'a SourceLoc> for LocJson<&'a str> {
    fn from(l: &'a SourceLoc) -> Self {
        LocJson {
            file: &l.file,
            line: l.line,
            column: l.column,
        }
    }
}

/// `location` fields.
mod loc_field {
    use super::*;

    pub(super) fn serialize<S: Serializer>(v: &Option<SourceLoc>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(LocJson::from).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<SourceLoc>, D::Error> {
        Ok(
            Option::<LocJson<String>>::deserialize(d)?.map(|l| SourceLoc {
                file: std::sync::Arc::from(l.file),
                line: l.line,
                column: l.column,
            }),
        )
    }
}

/// One side of a finding: an access (or barrier / exit) by one work-item. In JSON it also
/// carries `source`, the text of its line when the file can be read (not read back).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
pub struct Side {
    /// `read`, `write`, `atomic`, `barrier`, `exit`.
    pub access: String,
    /// Work-item ids; `None` when the record kept only a summary of earlier accesses.
    pub global_id: Option<[u64; 3]>,
    pub local_id: Option<[u32; 3]>,
    pub group_id: Option<[u32; 3]>,
    #[serde(default, deserialize_with = "loc_field::deserialize")]
    pub location: Option<SourceLoc>,
    /// Launch and kernel of this access (differs from the finding's for inter-kernel races;
    /// with several `candidates`, the first candidate's).
    pub launch: u64,
    pub kernel: String,
    /// The access was the work-group's `async_work_group_copy` (`group_id` names the group).
    pub group_copy: bool,
    /// The access was a host command's (a buffer or image read, write, copy or fill, named
    /// by `kernel`): no work-item and no line; `launch` numbers host commands on their own.
    #[serde(default)]
    pub host: bool,
    /// For an access whose record kept only its kind: the sites that made such an access to
    /// this buffer where the race's scope allows, when there are several (with exactly one,
    /// `location`, `launch` and `kernel` name it and this is empty).
    #[serde(default)]
    pub candidates: Vec<Candidate>,
}

impl Serialize for Side {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Side", 11)?;
        st.serialize_field("access", &self.access)?;
        st.serialize_field("global_id", &self.global_id)?;
        st.serialize_field("local_id", &self.local_id)?;
        st.serialize_field("group_id", &self.group_id)?;
        st.serialize_field("location", &self.location.as_ref().map(LocJson::from))?;
        st.serialize_field("source", &self.location.as_ref().and_then(source_line))?;
        st.serialize_field("launch", &self.launch)?;
        st.serialize_field("kernel", &self.kernel)?;
        st.serialize_field("group_copy", &self.group_copy)?;
        st.serialize_field("host", &self.host)?;
        st.serialize_field("candidates", &self.candidates)?;
        st.end()
    }
}

/// A synchronisation between a race's two work-items that did not order them (the OpenCL
/// memory model: a scope that does not include the other work-item, or a relaxed order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Synchronisation {
    /// `release-scope`, `acquire-scope` (the scope does not include the other work-item),
    /// `relaxed-write`, `relaxed-read` (the order orders nothing).
    pub reason: String,
    /// The atomic's buffer, as `buffer` names one (`flag`, `flag[3]`).
    pub atomic: String,
    pub release: SyncSide,
    pub acquire: SyncSide,
}

/// One side of a [`Synchronisation`]: the atomic operation (or the fence that gave it its
/// order) of one work-item.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SyncSide {
    pub global_id: [u64; 3],
    pub local_id: [u32; 3],
    pub group_id: [u32; 3],
    /// `relaxed`, `acquire`, `release`, `acq_rel`, `seq_cst`.
    pub order: String,
    /// `work_item`, `sub_group`, `work_group`, `device`, `all_svm_devices`.
    pub scope: String,
    /// The order came from a fence (`atomic_work_item_fence`, `mem_fence`).
    pub fence: bool,
    #[serde(default, with = "loc_field")]
    pub location: Option<SourceLoc>,
}

/// A site that may have made an access the record kept only the kind of.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Candidate {
    pub launch: u64,
    pub kernel: String,
    #[serde(default, with = "loc_field")]
    pub location: Option<SourceLoc>,
}

impl Candidate {
    fn describe(&self) -> String {
        let at = self.location.as_ref().map_or_else(
            || "an unknown line".to_string(),
            |l| format!("{}:{}:{}", l.file, l.line, l.column),
        );
        format!("{at} (kernel {}, launch {})", self.kernel, self.launch)
    }
}

impl Side {
    /// The record kept only the kind of this access (not its work-item).
    pub fn unidentified(&self) -> bool {
        self.global_id.is_none() && !self.group_copy && !self.host
    }

    fn describe(&self) -> String {
        if self.host {
            return format!(
                "{} by host command {} (command {})",
                self.access, self.kernel, self.launch
            );
        }
        let who = match (self.global_id, self.local_id, self.group_id) {
            (_, _, Some(w)) if self.group_copy => {
                format!("the async copy of work-group {}", ids(&w))
            }
            (Some(g), Some(l), Some(w)) => format!(
                "work-item global {} local {} group {}",
                ids(&g),
                ids(&l),
                ids(&w)
            ),
            _ => "an unidentified work-item".to_string(),
        };
        if !self.candidates.is_empty() {
            return format!("{} by {who} of one of the launches below", self.access);
        }
        format!(
            "{} by {who} (kernel {}, launch {})",
            self.access, self.kernel, self.launch
        )
    }
}

pub(crate) fn ids<T: std::fmt::Display>(v: &[T; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// The source line at `l`, when the file can be read.
pub fn source_line(l: &SourceLoc) -> Option<String> {
    source_lines(&l.file)?
        .get((l.line as usize).checked_sub(1)?)
        .cloned()
}

/// The lines of `file` (trailing blanks trimmed), when it can be read. Files are read once
/// per process: reports are rendered after every launch, and sources do not change under a
/// run.
pub(crate) fn source_lines(file: &std::sync::Arc<str>) -> Option<std::sync::Arc<Vec<String>>> {
    type Lines = Option<std::sync::Arc<Vec<String>>>;
    static FILES: std::sync::OnceLock<
        parking_lot::Mutex<std::collections::HashMap<std::sync::Arc<str>, Lines>>,
    > = std::sync::OnceLock::new();
    FILES
        .get_or_init(Default::default)
        .lock()
        .entry(file.clone())
        .or_insert_with(|| {
            let text = std::fs::read_to_string(&**file).ok()?;
            Some(std::sync::Arc::new(
                text.lines().map(|s| s.trim_end().to_string()).collect(),
            ))
        })
        .clone()
}

/// One finding, deduplicated: `count` says how many times it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub race: Option<RaceKind>,
    pub scope: Option<Scope>,
    #[serde(default, with = "space_field")]
    pub memory: Option<AddressSpace>,
    pub launch: u64,
    pub kernel: String,
    /// Kernel argument name, `__local` variable name, or `buffer#<id>`.
    pub buffer: Option<String>,
    /// Byte offset in the allocation (negative for accesses before its start).
    pub offset: Option<i64>,
    /// Element index (offset / element size, relative to the argument's view).
    pub index: Option<i64>,
    pub first: Option<Side>,
    pub second: Option<Side>,
    pub count: u64,
    /// Extra explanation (divergence, bounds, use-after-release).
    pub message: String,
    /// For a race: a synchronisation that did not order its two accesses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synchronisation: Option<Synchronisation>,
}

impl Finding {
    /// What makes two findings "the same pair" for deduplication. A race is the same race
    /// whichever of its two accesses ran first (that is the schedule's choice, and a host
    /// command running beside a kernel meets some bytes before the kernel and some after), so
    /// the sides are keyed as an unordered pair, and the launch that noticed it does not count
    /// once both sides name their kernels.
    pub(crate) fn dedup_key(&self) -> String {
        // A hang is one per line: the work-items of a spinning loop stop at whichever of
        // its instructions they were at when the watchdog fired, a matter of timing.
        let column = |l: &SourceLoc| {
            if self.kind == FindingKind::Hang {
                0
            } else {
                l.column
            }
        };
        let side = |s: &Option<Side>| {
            s.as_ref()
                .map(|s| {
                    format!(
                        "{}@{}:{:?}",
                        s.access,
                        s.kernel,
                        s.location.as_ref().map(|l| (&*l.file, l.line, column(l)))
                    )
                })
                .unwrap_or_default()
        };
        let located = |s: &Option<Side>| s.as_ref().is_some_and(|s| s.location.is_some());
        let mut sides = [side(&self.first), side(&self.second)];
        let both = self.first.is_some() && self.second.is_some();
        if both {
            sides.sort();
        }
        format!(
            "{:?}|{:?}|{:?}|{:?}|{}|{:?}|{}|{}|{}",
            self.kind,
            self.race,
            self.scope,
            self.memory,
            if both { "" } else { self.kernel.as_str() },
            self.buffer,
            sides[0],
            sides[1],
            // Without any location, the message tells findings apart (e.g. different
            // barriers). With one, it only describes: an out-of-bounds line's message names
            // the offset its launch met first, which a racy program's schedule may change.
            if located(&self.first) || located(&self.second) {
                ""
            } else {
                self.message.as_str()
            }
        )
    }

    /// A race whose first access is known only by kind (the record had moved on).
    pub(crate) fn first_unidentified(&self) -> bool {
        self.race.is_some() && self.first.as_ref().is_some_and(Side::unidentified)
    }

    /// The pair without the first access's identity: an unidentified first access is folded
    /// into an identified finding with the same key (same second access, same first kind).
    pub(crate) fn loose_key(&self) -> Option<String> {
        let first = self.first.as_ref()?;
        let second = self.second.as_ref()?;
        self.race.map(|_| {
            format!(
                "{:?}|{:?}|{:?}|{:?}|{}|{:?}|{}|{}@{}:{:?}",
                self.kind,
                self.race,
                self.scope,
                self.memory,
                self.kernel,
                self.buffer,
                first.access,
                second.access,
                second.kernel,
                second
                    .location
                    .as_ref()
                    .map(|l| (&*l.file, l.line, l.column))
            )
        })
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// One-line summary used as the SARIF message and the text headline.
    pub fn headline(&self) -> String {
        let mut s = self.kind.name().to_string();
        if let Some(r) = self.race {
            let _ = write!(s, " ({}", r.name());
            if let Some(sc) = self.scope {
                let _ = write!(s, ", {}", sc.name());
            }
            s.push(')');
        }
        if let Some(m) = self.memory {
            let _ = write!(s, " on {} memory", space_name(m));
        }
        if let Some(b) = &self.buffer {
            let _ = write!(s, " `{b}`");
        }
        if let Some(o) = self.offset {
            let _ = write!(s, " at byte {o}");
            if let Some(i) = self.index {
                let _ = write!(s, " (element {i})");
            }
        }
        if self.kernel.is_empty() {
            let _ = write!(s, " by the host (after {} launches)", self.launch);
        } else if self.second.as_ref().is_some_and(|s| s.host) {
            let _ = write!(
                s,
                " in host command {} (command {})",
                self.kernel, self.launch
            );
        } else {
            let _ = write!(s, " in kernel {} (launch {})", self.kernel, self.launch);
        }
        if !self.message.is_empty() {
            let _ = write!(s, ": {}", self.message);
        }
        s
    }
}

/// Facts about one launch, for the `launches` array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchSummary {
    pub id: u64,
    /// Shared with every launch of the kernel (a program launches few kernels many times).
    pub kernel: Arc<str>,
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
    pub global_offset: [u64; 3],
    pub schedule: Arc<str>,
}

/// Everything found so far: the JSON report (docs/design.md, "Contracts"), which also names the
/// tool and its version (not read back).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Why the report does not cover the whole run (the process was ended by a signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    pub launches: Vec<LaunchSummary>,
    pub findings: Vec<Finding>,
    /// Distinct findings not recorded because a launch hit its cap.
    #[serde(default)]
    pub dropped: u64,
    /// Distinct findings left out by a suppression rule (`SHADOWCL_SUPPRESSIONS`).
    #[serde(default)]
    pub suppressed: u64,
    /// Every suppression rule and how many distinct findings it left out.
    #[serde(default)]
    pub suppressions: Vec<RuleHits>,
}

/// A suppression rule and its hits, for the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleHits {
    /// The rule as written.
    pub rule: String,
    /// The suppressions file and the rule's line in it.
    pub file: String,
    pub line: usize,
    /// Distinct findings it suppressed (a finding counts for the first rule that matches).
    pub hits: u64,
}

const TOOL: &str = "shadowcl";
const VERSION: &str = env!("CARGO_PKG_VERSION");

impl Report {
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty() && self.dropped == 0
    }

    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("tool".into(), json!(TOOL));
            m.insert("version".into(), json!(VERSION));
        }
        v
    }

    /// Reads a JSON report back (written by [`Report::to_json`], by this or an earlier
    /// version: fields added since default to empty).
    pub fn from_json(text: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// SARIF 2.1.0. File locations under the working directory are relative URIs against
    /// `%SRCROOT%` (declared in `originalUriBaseIds` as the working directory), so code-scanning
    /// views place them in the repository; other absolute paths are `file://` URIs.
    pub fn to_sarif(&self) -> Value {
        let root = std::env::current_dir().ok();
        self.to_sarif_with_root(root.as_deref())
    }

    /// [`Report::to_sarif`] against source root `root`.
    pub fn to_sarif_with_root(&self, root: Option<&std::path::Path>) -> Value {
        let rules: Vec<Value> = FindingKind::ALL
            .iter()
            .map(|k| {
                json!({
                    "id": k.name(),
                    "name": k.name(),
                    "shortDescription": { "text": k.description() },
                    "defaultConfiguration": { "level": k.level() },
                })
            })
            .collect();
        let phys = |l: &SourceLoc| {
            json!({ "physicalLocation": {
                "artifactLocation": artifact_location(&l.file, root),
                "region": { "startLine": l.line.max(1), "startColumn": l.column.max(1) },
            }})
        };
        let results: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                let mut r = json!({
                    "ruleId": f.kind.name(),
                    "level": f.kind.level(),
                    "message": { "text": format!("{} ({} {})", f.headline(), f.count, f.kind.counted()) },
                    "occurrenceCount": f.count,
                });
                let second = f.second.as_ref().and_then(|s| s.location.as_ref());
                let first = f.first.as_ref().and_then(|s| s.location.as_ref());
                // The primary location is the access that completed the finding.
                if let Some(l) = second.or(first) {
                    r["locations"] = json!([phys(l)]);
                }
                if let (Some(_), Some(l)) = (second, first) {
                    let mut rel = phys(l);
                    rel["id"] = json!(0);
                    rel["message"] = json!({
                        "text": f.first.as_ref().map(Side::describe).unwrap_or_default()
                    });
                    r["relatedLocations"] = json!([rel]);
                }
                // A first access known only by kind: each site that may have made it.
                let candidates = f.first.as_ref().map_or(&[][..], |s| &s.candidates[..]);
                let related: Vec<Value> = candidates
                    .iter()
                    .filter_map(|c| c.location.as_ref().map(|l| (c, l)))
                    .enumerate()
                    .map(|(i, (c, l))| {
                        let mut rel = phys(l);
                        rel["id"] = json!(i);
                        rel["message"] = json!({
                            "text": format!("possible first access: {}", c.describe())
                        });
                        rel
                    })
                    .collect();
                if second.is_some() && !related.is_empty() {
                    r["relatedLocations"] = json!(related);
                }
                // The synchronisation that did not order a race, as the JSON report has it
                // (SARIF 2.1.0 §3.8: a result's property bag).
                if let Some(sync) = &f.synchronisation {
                    r["properties"] = json!({ "synchronisation": sync });
                }
                r
            })
            .collect();
        // An interrupted run says so (SARIF 2.1.0 §3.20: an invocation that did not
        // succeed, with a notification saying why).
        let invocations = match &self.incomplete {
            Some(why) => json!([{
                "executionSuccessful": false,
                "toolExecutionNotifications": [{ "level": "error", "message": { "text": why } }],
            }]),
            None => json!([]),
        };
        json!({
            "version": "2.1.0",
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "runs": [{
                "invocations": invocations,
                "tool": { "driver": {
                    "name": TOOL,
                    "version": VERSION,
                    "informationUri": "https://github.com/shadowcl/shadowcl",
                    "rules": rules,
                }},
                "results": results,
                "originalUriBaseIds": root.map_or_else(
                    || json!({}),
                    |r| json!({ SRCROOT: { "uri": format!("file://{}/", uri_path(&r.to_string_lossy()).trim_end_matches('/')) } }),
                ),
            }],
        })
    }

    /// Human text for stderr: every finding with both accesses and their source lines.
    pub fn render_text(&self) -> String {
        let mut out = render_findings(&self.findings, self.dropped);
        if self.suppressed > 0 {
            let hits: Vec<String> = self
                .suppressions
                .iter()
                .filter(|r| r.hits > 0)
                .map(|r| format!("{}:{} `{}` {}", r.file, r.line, r.rule, r.hits))
                .collect();
            let _ = writeln!(
                out,
                "shadowcl: {} {} suppressed: {}",
                self.suppressed,
                if self.suppressed == 1 {
                    "finding"
                } else {
                    "findings"
                },
                hits.join("; ")
            );
        }
        out
    }
}

/// The base id of SARIF URIs relative to the source root.
const SRCROOT: &str = "SRCROOT";

/// A SARIF `artifactLocation` for `file`: relative to `%SRCROOT%` when under `root` (or
/// already relative), else a `file://` URI.
fn artifact_location(file: &str, root: Option<&std::path::Path>) -> Value {
    let path = std::path::Path::new(file);
    if path.is_relative() {
        return json!({ "uri": uri_path(file), "uriBaseId": SRCROOT });
    }
    match root.and_then(|r| path.strip_prefix(r).ok()) {
        Some(rel) => json!({ "uri": uri_path(&rel.to_string_lossy()), "uriBaseId": SRCROOT }),
        None => json!({ "uri": format!("file://{}", uri_path(file)) }),
    }
}

/// A path as a URI path: bytes other than unreserved characters and `/` percent-encoded.
fn uri_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Text for a slice of findings (also used to print new findings after each launch).
pub fn render_findings(findings: &[Finding], dropped: u64) -> String {
    let mut out = String::new();
    for f in findings {
        let times = if f.count == 1 {
            String::new()
        } else {
            format!(" ({} {})", f.count, f.kind.counted())
        };
        let _ = writeln!(out, "shadowcl: {}{times}", f.headline());
        for (label, side) in [("first", &f.first), ("second", &f.second)] {
            let Some(s) = side else { continue };
            // A finding of one access (out of bounds, uninitialised...) has no pair to order.
            let shown = if f.first.is_none() { "access" } else { label };
            let _ = writeln!(out, "  {shown}: {}", s.describe());
            match &s.location {
                Some(l) => {
                    let _ = writeln!(out, "    at {}:{}:{}", l.file, l.line, l.column);
                    if let Some(src) = source_line(l) {
                        let _ = writeln!(out, "    | {}", src.trim());
                    }
                    if label == "first" && f.race.is_some() && s.unidentified() {
                        let _ = writeln!(
                            out,
                            "    (the record kept only the kind of this access; this is the only \
                             site that made one here)"
                        );
                    }
                }
                // A host command has no line; `describe` named it.
                None if s.host => {}
                None if !s.candidates.is_empty() => {
                    let _ = writeln!(
                        out,
                        "    at one of these sites (the record kept only the kind of this access):"
                    );
                    for c in &s.candidates {
                        let _ = writeln!(out, "      {}", c.describe());
                    }
                }
                // A work-item that ended without reaching the barrier: no line to name.
                None if s.access == "exit" => {
                    let _ = writeln!(
                        out,
                        "    (it ended the kernel without reaching the barrier)"
                    );
                }
                None if !s.unidentified() => {
                    let _ = writeln!(out, "    at an unknown line");
                }
                None => {
                    // Say why, so nobody hunts for a line that was never kept.
                    let _ = writeln!(
                        out,
                        "    at an unknown line: the bytes' record kept only the kind of \
                         this access, not its work-item or line"
                    );
                }
            }
        }
    }
    if dropped > 0 {
        let _ = writeln!(
            out,
            "shadowcl: {dropped} more distinct findings were dropped (per-launch cap)"
        );
    }
    out
}
