//! `check-races`: every case under every schedule, its findings against its `// expect:`
//! lines, and the same findings (and racing pairs) under every schedule.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::Value;

use crate::case::{self, Case};
use crate::child::{child_problem, explain, run_child, scratch_dir, tail, Build, Child};
use crate::schedule::{Schedule, SCHEDULE_VARS};
use crate::{case_name, collect_cases, summary, EXIT_SKIP};

/// Finding kinds (and details) Oclgrind printed to stderr.
pub(crate) fn oclgrind_kinds(stderr: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut kinds = BTreeSet::new();
    let mut details = Vec::new();
    for l in stderr.lines() {
        let low = l.to_lowercase();
        let k = if low.contains("data race") {
            "data-race"
        } else if low.contains("read-only buffer") || low.contains("write-only buffer") {
            "invalid-access"
        } else if low.contains("not aligned") {
            "misaligned-access"
        } else if low.starts_with("invalid read")
            || low.starts_with("invalid write")
            || low.contains("exceeds static array size")
        {
            "out-of-bounds"
        } else if low.contains("divergence") {
            "barrier-divergence"
        } else if low.contains("uninitialized") {
            "uninitialized-read"
        } else {
            continue;
        };
        kinds.insert(k.to_string());
        // Drop the address so repeated messages collapse into one line.
        let d = match l.find(" address 0x") {
            Some(p) => l[..p].trim().to_string(),
            None => l.trim().to_string(),
        };
        if !details.contains(&d) {
            details.push(d);
        }
    }
    (kinds, details)
}

pub(crate) fn finding_matches(f: &Value, e: &case::Expect) -> bool {
    if f.get("kind").and_then(Value::as_str) != Some(e.kind.as_str()) {
        return false;
    }
    e.fields.iter().all(|(k, want)| match f.get(k) {
        _ if k == "lines" => side_lines(f) == *want,
        _ if k == "sync" => sync_reason(f) == *want,
        _ if k == "says" => f
            .get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.contains(&want.replace('-', " "))),
        Some(Value::String(s)) => s == want,
        Some(Value::Number(n)) => n.to_string() == *want,
        _ => false,
    })
}

/// The reason of the synchronisation a race's report explains, `none` without one.
fn sync_reason(f: &Value) -> &str {
    f.get("synchronisation")
        .and_then(|s| s.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("none")
}

/// A side's source line, `?` when the report names none.
fn side_line(f: &Value, side: &str) -> String {
    f.get(side)
        .and_then(|s| s.get("location"))
        .and_then(|l| l.get("line"))
        .and_then(Value::as_u64)
        .map_or("?".to_string(), |l| l.to_string())
}

/// `FIRST/SECOND`: the source lines of a finding's two sides.
fn side_lines(f: &Value) -> String {
    format!("{}/{}", side_line(f, "first"), side_line(f, "second"))
}

pub(crate) fn describe_finding(f: &Value) -> String {
    let mut s = f
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    for k in case::EXPECT_FIELDS {
        match f.get(*k) {
            Some(Value::String(v)) => s.push_str(&format!(" {k}={v}")),
            Some(Value::Number(v)) => s.push_str(&format!(" {k}={v}")),
            _ => {}
        }
    }
    s
}

pub(crate) struct CheckRun<'a> {
    pub(crate) platform: &'a str,
    pub(crate) options: &'a [String],
    pub(crate) schedules: &'a [Schedule],
    pub(crate) timeout: u64,
    pub(crate) verbose: bool,
}

/// One case at one option set under one schedule.
pub(crate) enum Outcome {
    Skipped(String),
    Checked {
        verdict: Result<String, String>,
        /// The findings that must not depend on the schedule (ShadowCL only).
        signature: Signature,
        stderr: String,
        ms: u128,
    },
}

pub(crate) fn cmd_check_races(dir: &Path, run: &CheckRun<'_>, filter: Option<&str>) -> ExitCode {
    let cases = collect_cases(dir, filter);
    if cases.is_empty() {
        eprintln!("case-runner: no .cl cases under {}", dir.display());
        summary(0, 0, 0);
        return ExitCode::FAILURE;
    }
    let scratch = scratch_dir();
    let (mut passed, mut failed, mut skipped, mut known) = (0, 0, 0, 0);
    let mut pair_notes = 0;
    let started = Instant::now();
    for path in &cases {
        let name = case_name(dir, path);
        let case = match Case::load(path) {
            Ok(c) => c,
            Err(e) => {
                println!("FAIL {name}: {e}");
                failed += 1;
                continue;
            }
        };
        let Some(expects) = case.expects.clone() else {
            println!("FAIL {name}: declares no `// expect:` line");
            failed += 1;
            continue;
        };
        for options in run.options {
            let label = if run.options.len() > 1 {
                format!(
                    "{name} [{}]",
                    if options.is_empty() {
                        "default"
                    } else {
                        options
                    }
                )
            } else {
                name.clone()
            };
            let ScheduleRuns {
                mut result,
                pairs_differ,
                total_ms,
                skip,
            } = run_schedules(path, &case, &expects, options, run, &scratch);
            if let Some(why) = skip {
                println!("SKIP {label}: {why}");
                skipped += 1;
                continue;
            }
            // Every racing pair is named under every schedule, unless
            // the case says why its accesses depend on the schedule.
            if let (Ok(_), Some(d), None) = (&result, &pairs_differ, &case.schedule_dependent) {
                result = Err(format!("racing pairs {d}"));
            }
            match result {
                Ok(msg) => {
                    passed += 1;
                    if msg.contains("known difference") {
                        known += 1;
                    }
                    println!("PASS {label} ({total_ms} ms) {msg}");
                    if let Some(d) = pairs_differ {
                        // Declared: which accesses happen depends on how the race went.
                        pair_notes += 1;
                        println!("  note: racing pairs {d}");
                    }
                }
                Err(msg) => {
                    failed += 1;
                    println!("FAIL {label} ({total_ms} ms): {msg}");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if known > 0 {
        println!("({known} passed only through a declared `oclgrind:` difference)");
    }
    if pair_notes > 0 {
        println!(
            "({pair_notes} passed with racing pairs that differ across schedules, as they declare)"
        );
    }
    println!(
        "({} cases x {} option sets x {} schedules in {:.1?})",
        cases.len(),
        run.options.len(),
        run.schedules.len(),
        started.elapsed()
    );
    summary(passed, failed, skipped);
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// A case at one option set under each schedule in turn.
struct ScheduleRuns {
    /// The first schedule's verdict, or the first failure (a wrong verdict, or verdicts
    /// that differ between schedules).
    result: Result<String, String>,
    /// How the racing pairs differ between two schedules, when they do.
    pairs_differ: Option<String>,
    total_ms: u128,
    /// Why the case was skipped.
    skip: Option<String>,
}

/// Runs a case at one option set under every schedule of `run`, until one fails or skips.
fn run_schedules(
    path: &Path,
    case: &Case,
    expects: &[case::Expect],
    options: &str,
    run: &CheckRun<'_>,
    scratch: &Path,
) -> ScheduleRuns {
    let mut first: Option<(&str, Signature)> = None;
    let mut pairs_differ = None;
    let mut result: Result<String, String> = Ok(String::new());
    let mut total_ms = 0;
    let mut skip = None;
    for schedule in run.schedules {
        match check_one(path, case, expects, options, schedule, run, scratch) {
            Outcome::Skipped(why) => {
                skip = Some(why);
                break;
            }
            Outcome::Checked {
                verdict,
                signature,
                stderr,
                ms,
            } => {
                total_ms += ms;
                let verdict = verdict.map_err(|e| {
                    let e = if run.schedules.len() > 1 {
                        format!("under {}: {e}", schedule.0)
                    } else {
                        e
                    };
                    if run.verbose {
                        format!("{e}\n{}", tail(&stderr, 40))
                    } else {
                        e
                    }
                });
                match (&first, verdict) {
                    (_, Err(e)) => {
                        result = Err(e);
                        break;
                    }
                    (None, Ok(msg)) => {
                        first = Some((schedule.0, signature));
                        result = Ok(msg);
                    }
                    (Some((s0, sig0)), Ok(_)) if sig0.verdicts != signature.verdicts => {
                        result = Err(schedule_difference(
                            s0,
                            &sig0.verdicts,
                            schedule.0,
                            &signature.verdicts,
                        ));
                        break;
                    }
                    (Some((s0, sig0)), Ok(_)) => {
                        if pairs_differ.is_none() && sig0.pairs != signature.pairs {
                            pairs_differ = Some(schedule_difference(
                                s0,
                                &sig0.pairs,
                                schedule.0,
                                &signature.pairs,
                            ));
                        }
                    }
                }
            }
        }
    }
    ScheduleRuns {
        result,
        pairs_differ,
        total_ms,
        skip,
    }
}

pub(crate) fn schedule_difference(
    s0: &str,
    sig0: &BTreeSet<String>,
    s1: &str,
    sig1: &BTreeSet<String>,
) -> String {
    let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| -> String {
        let v: Vec<&str> = a.difference(b).map(String::as_str).collect();
        if v.is_empty() {
            "nothing".into()
        } else {
            v.join("; ")
        }
    };
    format!(
        "findings depend on the schedule: only under {s0}: [{}]; only under {s1}: [{}]",
        only(sig0, sig1),
        only(sig1, sig0)
    )
}

pub(crate) fn check_one(
    path: &Path,
    case: &Case,
    expects: &[case::Expect],
    options: &str,
    schedule: &Schedule,
    run: &CheckRun<'_>,
    scratch: &Path,
) -> Outcome {
    let oclgrind = run.platform.to_lowercase().contains("oclgrind");
    if let Some(o) = case.oclgrind.as_ref().filter(|o| oclgrind && o.unfinished) {
        return Outcome::Skipped(format!("Oclgrind does not finish it: {}", o.reason));
    }
    let report = scratch.join("report.json");
    let dump = scratch.join("outputs.json");
    let _ = std::fs::remove_file(&report);
    let checks = case.checks_list();
    let mut env: Vec<(&str, String)> = vec![("SHADOWCL_REPORT", report.display().to_string())];
    let mut unset = vec!["OCLGRIND_DATA_RACES", "OCLGRIND_UNINITIALIZED"];
    unset.extend(SCHEDULE_VARS);
    env.extend(schedule.1.iter().map(|(k, v)| (*k, v.to_string())));
    match &case.checks {
        Some(c) => env.push(("SHADOWCL_CHECKS", c.clone())),
        None => unset.push("SHADOWCL_CHECKS"),
    }
    match &case.compile {
        Some(c) => env.push(("SHADOWCL_COMPILE", c.clone())),
        None => unset.push("SHADOWCL_COMPILE"),
    }
    if oclgrind {
        if checks.iter().any(|c| c == "races") {
            env.push(("OCLGRIND_DATA_RACES", "1".into()));
        }
        if checks.iter().any(|c| c == "uninit") {
            env.push(("OCLGRIND_UNINITIALIZED", "1".into()));
        }
    }
    let child = match run_child(
        path,
        Build {
            platform: run.platform,
            options,
            reference: false,
        },
        &dump,
        &env,
        &unset,
        run.timeout,
    ) {
        Ok(c) => c,
        Err(e) => {
            return Outcome::Checked {
                verdict: Err(e),
                signature: Signature::default(),
                stderr: String::new(),
                ms: 0,
            }
        }
    };
    if child.code == Some(EXIT_SKIP) {
        return Outcome::Skipped(child.stderr.trim().to_string());
    }
    let problem = child_problem(&child);
    let ms = child.elapsed.as_millis();
    let (verdict, signature) = if oclgrind {
        (
            oclgrind_verdict(case, expects, &child, problem),
            Signature::default(),
        )
    } else {
        let verdict = check_report(
            &report,
            expects,
            problem.map(|p| format!("{p}\n{}", explain(&child.stderr, 6))),
        );
        (verdict, report_signature(&report))
    };
    Outcome::Checked {
        verdict,
        signature,
        stderr: child.stderr,
        ms,
    }
}

pub(crate) fn oclgrind_verdict(
    case: &Case,
    expects: &[case::Expect],
    child: &Child,
    problem: Option<String>,
) -> Result<String, String> {
    if let Some(o) = case.oclgrind.as_ref().filter(|o| o.fatal) {
        // A fatal error it reports (some plugins' fatal errors let the run go on), or a
        // crash.
        let fatal = child.stderr.contains("OCLGRIND FATAL ERROR") || child.code.is_none();
        return if fatal {
            Ok(format!(
                "oclgrind: fatal error or crash (known difference: {})",
                o.reason
            ))
        } else {
            Err(format!(
                "expected Oclgrind to stop with a fatal error or crash\n{}",
                explain(&child.stderr, 8)
            ))
        };
    }
    if let Some(o) = case.oclgrind.as_ref().filter(|o| o.unbuildable) {
        let refused = child.stderr.contains("clBuildProgram") && child.stderr.contains("failed");
        return if refused {
            Ok(format!(
                "oclgrind: does not build it (known difference: {})",
                o.reason
            ))
        } else {
            Err(format!(
                "expected Oclgrind to refuse to build the program\n{}",
                explain(&child.stderr, 8)
            ))
        };
    }
    let (got, details) = oclgrind_kinds(&child.stderr);
    let (want, note): (BTreeSet<String>, Option<&str>) = match &case.oclgrind {
        Some(o) => (o.kinds.iter().cloned().collect(), Some(o.reason.as_str())),
        None => (
            expects
                .iter()
                .filter(|e| e.kind != "benign-race")
                .map(|e| e.kind.clone())
                .collect(),
            None,
        ),
    };
    let fmt = |s: &BTreeSet<String>| {
        if s.is_empty() {
            "none".to_string()
        } else {
            s.iter().cloned().collect::<Vec<_>>().join(",")
        }
    };
    if let Some(p) = problem {
        Err(format!("{p}\n{}", explain(&child.stderr, 8)))
    } else if got == want {
        Ok(match note {
            Some(r) => format!("oclgrind: {} (known difference: {r})", fmt(&got)),
            None => format!("oclgrind: {}", fmt(&got)),
        })
    } else {
        let d = if details.is_empty() {
            String::new()
        } else {
            format!("\n    {}", details.join("\n    "))
        };
        Err(format!(
            "expected {}, oclgrind reported {}{d}",
            fmt(&want),
            fmt(&got)
        ))
    }
}

/// What of a report must not depend on the schedule: each finding's kind, memory and buffer
/// (`verdicts`), and, as far as the records can name them, its race kind, scope and both
/// source lines as an unordered pair (`pairs`: which of two racing accesses comes first is
/// the schedule's choice, and work-groups running in parallel decide which group's access a
/// record holds, so a race may show as inter- or intra-group).
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Signature {
    pub(crate) verdicts: BTreeSet<String>,
    pub(crate) pairs: BTreeSet<String>,
}

pub(crate) fn report_signature(report: &Path) -> Signature {
    let Some(doc) = std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return Signature::default();
    };
    let field = |f: &Value, k: &str| f.get(k).and_then(Value::as_str).unwrap_or("-").to_string();
    let findings = doc
        .get("findings")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let verdict = |f: &Value| {
        format!(
            "{} {} {}",
            field(f, "kind"),
            field(f, "memory"),
            field(f, "buffer"),
        )
    };
    Signature {
        verdicts: findings.iter().map(verdict).collect(),
        pairs: findings
            .iter()
            .map(|f| {
                let (a, b) = (side_line(f, "first"), side_line(f, "second"));
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                format!(
                    "{} {} {} lines {a}/{b}",
                    verdict(f),
                    field(f, "race"),
                    field(f, "scope")
                )
            })
            .collect(),
    }
}

pub(crate) fn check_report(
    report: &Path,
    expects: &[case::Expect],
    problem: Option<String>,
) -> Result<String, String> {
    let text = match std::fs::read_to_string(report) {
        Ok(t) => t,
        Err(e) => {
            return Err(format!(
                "no report at {} ({e}){}",
                report.display(),
                problem.map(|p| format!("; {p}")).unwrap_or_default()
            ))
        }
    };
    if let Some(p) = problem {
        return Err(p);
    }
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("report is not JSON: {e}"))?;
    let findings: Vec<Value> = match doc.get("findings") {
        Some(Value::Array(a)) => a.clone(),
        _ => return Err("report has no `findings` array".into()),
    };
    let mut used = vec![false; findings.len()];
    let mut missing = Vec::new();
    for e in expects {
        match findings
            .iter()
            .enumerate()
            .find(|(i, f)| !used[*i] && finding_matches(f, e))
        {
            Some((i, _)) => used[i] = true,
            None => missing.push(e.to_string()),
        }
    }
    let allowed: BTreeSet<&str> = expects.iter().map(|e| e.kind.as_str()).collect();
    let unexpected: Vec<String> = findings
        .iter()
        .filter(|f| !allowed.contains(f.get("kind").and_then(Value::as_str).unwrap_or("?")))
        .map(describe_finding)
        .collect();
    if missing.is_empty() && unexpected.is_empty() {
        let got: BTreeSet<String> = findings.iter().map(describe_finding).collect();
        Ok(if got.is_empty() {
            "none".into()
        } else {
            got.into_iter().collect::<Vec<_>>().join("; ")
        })
    } else {
        let got: Vec<String> = findings.iter().map(describe_finding).collect();
        let mut m = String::new();
        if !missing.is_empty() {
            m.push_str(&format!("missing [{}]", missing.join("; ")));
        }
        if !unexpected.is_empty() {
            if !m.is_empty() {
                m.push_str(", ");
            }
            m.push_str(&format!("unexpected [{}]", unexpected.join("; ")));
        }
        m.push_str(&format!("; report has [{}]", got.join("; ")));
        Err(m)
    }
}
