//! `Report::to_sarif()` checked against the official SARIF 2.1.0 JSON schema.
//!
//! The schema is the `sarif-2.1.0.json` bundled in the npm package
//! `@microsoft/sarif-multitool-linux` (for its `validate` command), which ci/setup installs
//! under /opt/shadowcl-sarif; `$SHADOWCL_SARIF_SCHEMA` names another copy. The validator is
//! Debian's python3-jsonschema (ci/setup installs it), run as `/usr/bin/python3`, or
//! `$SHADOWCL_SARIF_PYTHON`. Without either the tests print `SKIP: ...` and pass, unless
//! `SHADOWCL_REQUIRE_LIB=1` (set by ci/test), where they fail.

use serde_json::{json, Value};
use shadowcl_interpreter::{AddressSpace, SourceLoc};
use shadowcl_shadow::{
    Candidate, Finding, FindingKind, LaunchSummary, RaceKind, Report, Scope, Side, SyncSide,
    Synchronisation,
};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

const DEFAULT_SCHEMA: &str =
    "/opt/shadowcl-sarif/node_modules/@microsoft/sarif-multitool-linux/sarif-2.1.0.json";
const DEFAULT_PYTHON: &str = "/usr/bin/python3";

/// Exit code of the validator script for "the document breaks the schema"; anything else but
/// 0 means the validator itself failed.
const INVALID: i32 = 3;

/// Validates the JSON document on stdin against the schema named by argv[1], with the
/// draft the schema declares in `$schema` (2020-12 for this copy) and its format checks.
const VALIDATOR: &str = r#"
import json, sys
from jsonschema import validators
with open(sys.argv[1], encoding="utf-8") as f:
    schema = json.load(f)
title = schema.get("title", "")
if "SARIF" not in title or "2.1.0" not in title:
    sys.exit("not the SARIF 2.1.0 schema: title %r" % title)
cls = validators.validator_for(schema)
cls.check_schema(schema)
doc = json.load(sys.stdin)
v = cls(schema, format_checker=cls.FORMAT_CHECKER)
errors = sorted(v.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
for e in errors:
    print("/" + "/".join(str(p) for p in e.absolute_path), ":", e.message)
sys.exit(3 if errors else 0)
"#;

struct Validator {
    python: PathBuf,
    schema: PathBuf,
}

fn env_path(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default))
}

/// The validator, or `None` after a `SKIP:` line; panics instead of skipping when
/// `SHADOWCL_REQUIRE_LIB=1`.
fn validator(test: &str) -> Option<Validator> {
    let python = env_path("SHADOWCL_SARIF_PYTHON", DEFAULT_PYTHON);
    let schema = env_path("SHADOWCL_SARIF_SCHEMA", DEFAULT_SCHEMA);
    let why = if !schema.is_file() {
        Some(format!(
            "no SARIF 2.1.0 schema at {} (ci/setup installs it)",
            schema.display()
        ))
    } else {
        match Command::new(&python)
            .args(["-c", "import jsonschema"])
            .stdin(Stdio::null())
            .output()
        {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(format!(
                "{} cannot import jsonschema (ci/setup installs python3-jsonschema): {}",
                python.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => Some(format!("cannot run {}: {e}", python.display())),
        }
    };
    match why {
        None => Some(Validator { python, schema }),
        Some(why) => {
            if std::env::var("SHADOWCL_REQUIRE_LIB").is_ok_and(|v| v == "1") {
                panic!("{test}: {why}, and SHADOWCL_REQUIRE_LIB=1");
            }
            // On the real stderr, past the test harness's capture.
            let _ = writeln!(std::io::stderr(), "SKIP: {test}: {why}");
            None
        }
    }
}

impl Validator {
    /// `Ok(())` when `doc` is valid, `Err(errors)` when the schema rejects it; panics when
    /// the validator itself fails.
    fn check(&self, doc: &Value) -> Result<(), String> {
        let mut child = Command::new(&self.python)
            .arg("-c")
            .arg(VALIDATOR)
            .arg(&self.schema)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.python.display()));
        let text = serde_json::to_vec(doc).unwrap();
        child.stdin.take().unwrap().write_all(&text).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        match out.status.code() {
            Some(0) => Ok(()),
            Some(INVALID) if !stdout.trim().is_empty() => Err(stdout),
            _ => panic!(
                "the validator failed ({}):\n{stdout}{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
}

fn loc(file: &str, line: u32, column: u32) -> Option<SourceLoc> {
    Some(SourceLoc {
        file: Arc::from(file),
        line,
        column,
    })
}

/// This file, by absolute path, as the kernel source: a location a real run would give.
const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sarif_schema.rs");

fn side(access: &str, item: Option<u32>, location: Option<SourceLoc>, kernel: &str) -> Side {
    Side {
        access: access.into(),
        global_id: item.map(|i| [u64::from(i) + 4, 0, 0]),
        local_id: item.map(|i| [i, 0, 0]),
        group_id: item.map(|_| [1, 0, 0]),
        location,
        launch: 2,
        kernel: kernel.into(),
        group_copy: false,
        host: false,
        candidates: Vec::new(),
    }
}

fn finding(kind: FindingKind, message: &str) -> Finding {
    Finding {
        synchronisation: None,
        kind,
        race: None,
        scope: None,
        memory: None,
        launch: 2,
        kernel: "reduce".into(),
        buffer: None,
        offset: None,
        index: None,
        first: None,
        second: None,
        count: 1,
        message: message.into(),
    }
}

/// The memory-error and limit kinds of [`every_kind`]: misaligned and invalid accesses, a
/// hang, checks degraded by a limit.
fn memory_and_limit_findings() -> Vec<Finding> {
    vec![
        Finding {
            synchronisation: None,
            memory: Some(AddressSpace::Global),
            buffer: Some("in".into()),
            offset: Some(2),
            index: Some(0),
            second: Some(side("read", Some(0), loc(SOURCE, 70, 9), "reduce")),
            ..finding(
                FindingKind::MisalignedAccess,
                "4-byte read at offset 2, which needs 4-byte alignment",
            )
        },
        Finding {
            synchronisation: None,
            memory: Some(AddressSpace::Global),
            buffer: Some("in".into()),
            offset: Some(0),
            index: Some(0),
            second: Some(side("write", Some(0), loc(SOURCE, 80, 5), "reduce")),
            count: 16,
            ..finding(
                FindingKind::InvalidAccess,
                "write to memory the host created CL_MEM_READ_ONLY",
            )
        },
        Finding {
            synchronisation: None,
            second: Some(side("running", Some(0), loc(SOURCE, 90, 3), "reduce")),
            count: 64,
            ..finding(
                FindingKind::Hang,
                "time limit of 1.0 s exceeded (SHADOWCL_TIMEOUT): work-items had not finished",
            )
        },
        Finding {
            synchronisation: None,
            memory: Some(AddressSpace::Global),
            buffer: Some("in".into()),
            ..finding(
                FindingKind::ChecksDegraded,
                "the shadow memory budget of 64 MiB (SHADOWCL_SHADOW_LIMIT) was reached",
            )
        },
    ]
}

/// A report with a finding of every kind, in the shapes the checkers produce: races with
/// both sides located, with an unidentified first side, and across kernels; locations at
/// line/column 0 (unknown); findings with no location at all.
fn every_kind() -> Report {
    let race = |race, scope, space, first, second, count| Finding {
        synchronisation: None,
        race: Some(race),
        scope: Some(scope),
        memory: Some(space),
        buffer: Some("data".into()),
        offset: Some(16),
        index: Some(4),
        first: Some(first),
        second: Some(second),
        count,
        ..finding(FindingKind::DataRace, "")
    };
    // A race a synchronisation at too narrow a scope failed to order.
    let sync_side = |group: u32, line| SyncSide {
        global_id: [group as u64 * 64, 0, 0],
        local_id: [0; 3],
        group_id: [group, 0, 0],
        order: "release".into(),
        scope: "work_group".into(),
        fence: false,
        location: loc(SOURCE, line, 5),
    };
    let mut findings = vec![
        race(
            RaceKind::ReadWrite,
            Scope::IntraGroup,
            AddressSpace::Local,
            side("read", Some(1), loc(SOURCE, 12, 9), "reduce"),
            side("write", Some(2), loc(SOURCE, 14, 5), "reduce"),
            7,
        ),
        Finding {
            synchronisation: Some(Synchronisation {
                reason: "release-scope".into(),
                atomic: "flag".into(),
                release: sync_side(0, 20),
                acquire: sync_side(1, 22),
            }),
            ..race(
                RaceKind::ReadWrite,
                Scope::InterGroup,
                AddressSpace::Global,
                side("write", Some(1), loc(SOURCE, 19, 5), "reduce"),
                side("read", Some(65), loc(SOURCE, 23, 5), "reduce"),
                4,
            )
        },
        race(
            RaceKind::WriteWrite,
            Scope::InterGroup,
            AddressSpace::Global,
            // Known only by kind, made at one of two sites.
            Side {
                candidates: vec![
                    Candidate {
                        launch: 1,
                        kernel: "init".into(),
                        location: loc("./program.cl", 5, 2),
                    },
                    Candidate {
                        launch: 2,
                        kernel: "reduce".into(),
                        location: loc(SOURCE, 25, 1),
                    },
                ],
                ..side("write", None, None, "reduce")
            },
            side("write", Some(3), loc("kernel.cl", 0, 0), "reduce"),
            1,
        ),
        race(
            RaceKind::AtomicPlain,
            Scope::InterKernel,
            AddressSpace::Global,
            Side {
                launch: 1,
                ..side("atomic", Some(0), loc("./program.cl", 3, 1), "init")
            },
            side("read", Some(0), loc(SOURCE, 20, 3), "reduce"),
            2,
        ),
        Finding {
            synchronisation: None,
            race: Some(RaceKind::WriteWrite),
            scope: Some(Scope::IntraGroup),
            memory: Some(AddressSpace::Global),
            buffer: Some("out".into()),
            offset: Some(0),
            index: Some(0),
            first: Some(side("write", Some(0), loc(SOURCE, 30, 7), "reduce")),
            second: Some(side("write", Some(1), loc(SOURCE, 30, 7), "reduce")),
            ..finding(FindingKind::BenignRace, "")
        },
        Finding {
            synchronisation: None,
            first: Some(side("barrier", Some(0), loc(SOURCE, 40, 5), "reduce")),
            second: Some(side("exit", Some(3), None, "reduce")),
            count: 4,
            ..finding(
                FindingKind::BarrierDivergence,
                "work-item (3,0,0) exits while (0,0,0) waits at a barrier",
            )
        },
        Finding {
            synchronisation: None,
            memory: Some(AddressSpace::Global),
            buffer: Some("data".into()),
            offset: Some(-4),
            index: Some(-1),
            second: Some(side("read", Some(0), loc(SOURCE, 50, 11), "reduce")),
            ..finding(
                FindingKind::OutOfBounds,
                "4 bytes before the start of `data`",
            )
        },
        Finding {
            synchronisation: None,
            memory: Some(AddressSpace::Local),
            buffer: Some("tile".into()),
            offset: Some(8),
            index: Some(2),
            second: Some(side("read", Some(2), loc(SOURCE, 60, 13), "reduce")),
            count: 3,
            ..finding(FindingKind::UninitializedRead, "")
        },
        Finding {
            synchronisation: None,
            buffer: Some("buffer#17".into()),
            ..finding(
                FindingKind::UseAfterRelease,
                "argument 0 is a buffer released before the launch",
            )
        },
        Finding {
            synchronisation: None,
            second: Some(side("async-copy", Some(1), loc(SOURCE, 4, 3), "reduce")),
            ..finding(
                FindingKind::AsyncCopyMisuse,
                "async_work_group_copy never waited for with wait_group_events",
            )
        },
        Finding {
            synchronisation: None,
            buffer: Some("out".into()),
            offset: Some(0),
            index: Some(0),
            ..finding(
                FindingKind::ScheduleDependentOutput,
                "bytes 0..4 differ between schedules",
            )
        },
    ];
    findings.extend(memory_and_limit_findings());
    let launch = |id, kernel: &str| LaunchSummary {
        id,
        kernel: kernel.into(),
        global_size: [8, 1, 1],
        local_size: [4, 1, 1],
        global_offset: [0, 0, 0],
        schedule: "sequential".into(),
    };
    Report {
        launches: vec![launch(1, "init"), launch(2, "reduce")],
        findings,
        dropped: 2,
        ..Report::default()
    }
}

#[test]
fn sarif_of_every_finding_kind_is_valid_sarif_2_1_0() {
    let test = "sarif_of_every_finding_kind_is_valid_sarif_2_1_0";
    let Some(v) = validator(test) else { return };
    let report = every_kind();
    let sarif = report.to_sarif();

    // The document holds what the test means to check: every kind, both sides of a race.
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), report.findings.len());
    for kind in FindingKind::ALL {
        assert!(
            results.iter().any(|r| r["ruleId"] == kind.name()),
            "no {} result in {sarif:#}",
            kind.name()
        );
    }
    assert!(results[0]["locations"].is_array() && results[0]["relatedLocations"].is_array());
    assert!(results.iter().any(|r| r.get("locations").is_none()));
    // A race's synchronisation goes into the result's property bag.
    assert!(results
        .iter()
        .any(
            |r| r["properties"]["synchronisation"]["reason"] == "release-scope"
                && r["properties"]["synchronisation"]["release"]["scope"] == "work_group"
        ));
    // A first access known only by kind lists its candidate sites as related locations.
    assert!(results
        .iter()
        .any(|r| r["relatedLocations"][1]["message"]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("possible first access:"))));

    if let Err(errors) = v.check(&sarif) {
        panic!("to_sarif() is not valid SARIF 2.1.0:\n{errors}\n{sarif:#}");
    }
    // An interrupted run is an invocation that did not succeed, with the reason.
    let interrupted = Report {
        incomplete: Some("the process was ended by SIGTERM".into()),
        ..every_kind()
    }
    .to_sarif();
    let invocation = &interrupted["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert!(
        invocation["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("SIGTERM"))
    );
    if let Err(errors) = v.check(&interrupted) {
        panic!("an interrupted run's SARIF is not valid SARIF 2.1.0:\n{errors}\n{interrupted:#}");
    }
    // No findings at all is a valid log too.
    if let Err(errors) = v.check(&Report::default().to_sarif()) {
        panic!("to_sarif() of an empty report is not valid SARIF 2.1.0:\n{errors}");
    }
}

#[test]
fn schema_check_rejects_broken_sarif() {
    let test = "schema_check_rejects_broken_sarif";
    let Some(v) = validator(test) else { return };
    let good = every_kind().to_sarif();
    v.check(&good)
        .unwrap_or_else(|e| panic!("the valid document is rejected:\n{e}"));

    let mut breakages: Vec<(&str, Value)> = Vec::new();
    let mut doc = good.clone();
    doc["version"] = json!("2.0");
    breakages.push(("/version", doc));
    let mut doc = good.clone();
    doc["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    breakages.push(("/runs/0/results/0", doc));
    let mut doc = good.clone();
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        json!(0);
    breakages.push((
        "/runs/0/results/0/locations/0/physicalLocation/region/startLine",
        doc,
    ));
    let mut doc = good.clone();
    doc["runs"][0]["results"][1]["level"] = json!("fatal");
    breakages.push(("/runs/0/results/1/level", doc));
    let mut doc = good;
    doc["runs"][0]["tool"]["driver"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    breakages.push(("/runs/0/tool/driver", doc));

    for (path, doc) in breakages {
        match v.check(&doc) {
            Ok(()) => panic!("a document broken at {path} passed the schema check"),
            Err(errors) => assert!(
                errors.lines().any(|l| l.starts_with(&format!("{path} :"))),
                "the error for the document broken at {path} does not name it:\n{errors}"
            ),
        }
    }
}
