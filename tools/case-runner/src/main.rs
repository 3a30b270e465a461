//! `case-runner`: runs ShadowCL's labelled kernel corpus (tests/kernels) on any OpenCL
//! platform and checks race verdicts (ShadowCL's JSON report or Oclgrind's stderr) and
//! outputs (reference platform vs candidate platform).

mod case;
mod compare;
mod exec;
mod ffi;

use case::{Case, CompareMode};
use clap::{Parser, Subcommand};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "case-runner",
    version,
    about = "Run and check ShadowCL's kernel corpus"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one case on one platform and write its buffers (and notes) as JSON.
    Run {
        case: PathBuf,
        /// Substring of the platform name (case-insensitive), e.g. ShadowCL, Portable, Oclgrind.
        #[arg(long)]
        platform: String,
        /// Extra build options, e.g. "-cl-opt-disable".
        #[arg(long, default_value = "", allow_hyphen_values = true)]
        options: String,
        /// Where to write the outputs JSON (default: stdout).
        #[arg(long)]
        dump_outputs: Option<PathBuf>,
    },
    /// Run every case under DIR in its own process and check findings against `expect:`;
    /// on ShadowCL, at each option set and under each schedule, whose findings must agree.
    CheckRaces {
        dir: PathBuf,
        #[arg(long)]
        platform: String,
        /// Build option sets, each run separately (default on ShadowCL: "-cl-opt-disable"
        /// and ""; on Oclgrind: "" only, the build its declared differences are about).
        #[arg(long = "options", allow_hyphen_values = true)]
        options: Vec<String>,
        /// ShadowCL schedules, comma separated, or `all`: the set of findings (kind, race,
        /// scope, memory, buffer, both source lines) must be the same under each.
        #[arg(long, default_value = "run-to-barrier")]
        schedules: String,
        /// Per-case time limit in seconds.
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Only cases whose path contains this substring.
        #[arg(long)]
        filter: Option<String>,
        /// Print each case's child stderr (and report) on failure.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Run every case under DIR on both platforms and compare the declared outputs.
    Diff {
        dir: PathBuf,
        #[arg(long)]
        reference: String,
        #[arg(long)]
        candidate: String,
        /// Build option sets, each run separately (default: "-cl-opt-disable" and "").
        #[arg(long = "options", allow_hyphen_values = true)]
        options: Vec<String>,
        /// Schedules the candidate (ShadowCL) runs under, comma separated, or `all`; the
        /// reference runs once per option set and every schedule must match it.
        #[arg(long, default_value = "run-to-barrier")]
        schedules: String,
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        #[arg(long)]
        filter: Option<String>,
        #[arg(long, short)]
        verbose: bool,
    },
    /// Parse every case under DIR and print a summary (no OpenCL needed).
    List { dir: PathBuf },
    /// Check the corpus without OpenCL: every case parses; under a `races` folder every
    /// case has `expect:` and every racy case a race-free twin; under a `diff` folder every
    /// case has `compare:` and no `expect:`.
    Lint { dir: PathBuf },
    /// Print the platforms the ICD loader sees.
    Platforms,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run {
            case,
            platform,
            options,
            dump_outputs,
        } => cmd_run(&case, &platform, &options, dump_outputs.as_deref()),
        Cmd::CheckRaces {
            dir,
            platform,
            options,
            schedules,
            timeout,
            filter,
            verbose,
        } => {
            let oclgrind = platform.to_lowercase().contains("oclgrind");
            let options = match (options.is_empty(), oclgrind) {
                (false, _) => options,
                (true, true) => vec![String::new()],
                (true, false) => vec!["-cl-opt-disable".to_string(), String::new()],
            };
            let schedules = match parse_schedules(&schedules) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("case-runner: {e}");
                    return ExitCode::from(2);
                }
            };
            let run = CheckRun {
                platform: &platform,
                options: &options,
                schedules: if oclgrind {
                    &SCHEDULES[..1]
                } else {
                    &schedules
                },
                timeout,
                verbose,
            };
            cmd_check_races(&dir, &run, filter.as_deref())
        }
        Cmd::Diff {
            dir,
            reference,
            candidate,
            options,
            schedules,
            timeout,
            filter,
            verbose,
        } => {
            let options = if options.is_empty() {
                vec!["-cl-opt-disable".to_string(), String::new()]
            } else {
                options
            };
            let schedules = match parse_schedules(&schedules) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("case-runner: {e}");
                    return ExitCode::from(2);
                }
            };
            let run = DiffRun {
                reference: &reference,
                candidate: &candidate,
                options: &options,
                schedules: &schedules,
                timeout,
                verbose,
            };
            cmd_diff(&dir, &run, filter.as_deref())
        }
        Cmd::List { dir } => cmd_list(&dir),
        Cmd::Lint { dir } => cmd_lint(&dir),
        Cmd::Platforms => {
            for (_, n) in exec::platforms() {
                println!("{n}");
            }
            ExitCode::SUCCESS
        }
    }
}

const EXIT_SKIP: i32 = 3;
const EXIT_CASE_ERROR: i32 = 2;

fn cmd_run(path: &Path, platform: &str, options: &str, dump: Option<&Path>) -> ExitCode {
    let case = match Case::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("case-runner: {e}");
            return ExitCode::from(EXIT_CASE_ERROR as u8);
        }
    };
    match exec::run(&case, platform, options) {
        Ok(out) => {
            for n in &out.notes {
                eprintln!("case-runner: note: {n}");
            }
            let bufs: Vec<Value> = out
                .buffers
                .iter()
                .map(|(n, t, d)| json!({"name": n, "type": t, "hex": hex(d)}))
                .collect();
            let doc = json!({
                "case": path.display().to_string(),
                "platform": out.platform,
                "device": out.device,
                "options": options,
                "buffers": bufs,
                "notes": out.notes,
            });
            let text = match serde_json::to_string_pretty(&doc) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("case-runner: cannot render outputs: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match dump {
                Some(p) => {
                    if let Err(e) = std::fs::write(p, text) {
                        eprintln!("case-runner: cannot write {}: {e}", p.display());
                        return ExitCode::FAILURE;
                    }
                }
                None => {
                    use std::io::Write;
                    let _ = writeln!(std::io::stdout(), "{text}");
                }
            }
            ExitCode::SUCCESS
        }
        Err(exec::RunError::Skip(m)) => {
            eprintln!("case-runner: skipped: {m}");
            ExitCode::from(EXIT_SKIP as u8)
        }
        Err(exec::RunError::Fail(m)) => {
            eprintln!("case-runner: {}: {m}", path.display());
            ExitCode::FAILURE
        }
    }
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Every `.cl` file under `dir`, sorted.
fn collect_cases(dir: &Path, filter: Option<&str>) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "cl") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    if dir.is_file() {
        v.push(dir.to_path_buf());
    } else {
        walk(dir, &mut v);
    }
    v.sort();
    if let Some(f) = filter {
        v.retain(|p| p.display().to_string().contains(f));
    }
    v
}

struct Child {
    code: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("case-runner-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Runs `case-runner run ...` as a child with extra env, capturing output via files.
fn run_child(
    case: &Path,
    platform: &str,
    options: &str,
    dump: &Path,
    env: &[(&str, String)],
    unset: &[&str],
    timeout: u64,
) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let dir = scratch_dir();
    let out_p = dir.join("child.stdout");
    let err_p = dir.join("child.stderr");
    let out_f = std::fs::File::create(&out_p).map_err(|e| format!("{}: {e}", out_p.display()))?;
    let err_f = std::fs::File::create(&err_p).map_err(|e| format!("{}: {e}", err_p.display()))?;
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        .arg(case)
        .arg("--platform")
        .arg(platform)
        .arg(format!("--options={options}"))
        .arg("--dump-outputs")
        .arg(dump)
        .stdin(Stdio::null())
        .stdout(out_f)
        .stderr(err_f);
    for u in unset {
        cmd.env_remove(u);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot spawn: {e}"))?;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {
                if start.elapsed() > Duration::from_secs(timeout) {
                    let _ = child.kill();
                    let _ = child.wait();
                    timed_out = true;
                    break None;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(format!("wait failed: {e}")),
        }
    };
    Ok(Child {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: std::fs::read_to_string(&out_p).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_p).unwrap_or_default(),
        elapsed: start.elapsed(),
    })
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let from = lines.len().saturating_sub(n);
    lines[from..]
        .iter()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines of a child's stderr that explain a failure: the runner's own messages and
/// error lines first (a platform may print a long backtrace after them), else the tail.
fn explain(s: &str, n: usize) -> String {
    let key: Vec<&str> = s
        .lines()
        .filter(|l| {
            let low = l.to_lowercase();
            l.starts_with("case-runner:") || low.contains("error")
        })
        .take(n)
        .collect();
    if key.is_empty() {
        tail(s, n)
    } else {
        key.iter()
            .map(|l| format!("    | {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn child_problem(c: &Child) -> Option<String> {
    if c.timed_out {
        return Some(format!("timed out after {:.0?}", c.elapsed));
    }
    match c.code {
        Some(0) => None,
        Some(EXIT_SKIP) => None,
        Some(EXIT_CASE_ERROR) => Some("case file error".into()),
        Some(n) => Some(format!("child exited with {n}")),
        None => Some("child killed by a signal (crash)".into()),
    }
}

fn summary(passed: usize, failed: usize, skipped: usize) {
    if skipped > 0 {
        println!("{passed} passed, {failed} failed, {skipped} skipped");
    } else {
        println!("{passed} passed, {failed} failed");
    }
}

/// Finding kinds (and details) Oclgrind printed to stderr.
fn oclgrind_kinds(stderr: &str) -> (BTreeSet<String>, Vec<String>) {
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
        } else if low.starts_with("invalid read") || low.starts_with("invalid write") {
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

fn finding_matches(f: &Value, e: &case::Expect) -> bool {
    if f.get("kind").and_then(Value::as_str) != Some(e.kind.as_str()) {
        return false;
    }
    e.fields.iter().all(|(k, want)| match f.get(k) {
        Some(Value::String(s)) => s == want,
        Some(Value::Number(n)) => n.to_string() == *want,
        _ => false,
    })
}

fn describe_finding(f: &Value) -> String {
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

/// A case's name relative to the corpus root (its file name when run on one file).
fn case_name(dir: &Path, path: &Path) -> String {
    match path.strip_prefix(dir) {
        Ok(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string()),
    }
}

/// A ShadowCL schedule as the environment variables that select it.
type Schedule = (&'static str, &'static [(&'static str, &'static str)]);

/// Schedules `check-races --schedules all` runs (DESIGN.md, "Execution model").
const SCHEDULES: &[Schedule] = &[
    ("run-to-barrier", &[]),
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
const SCHEDULE_VARS: [&str; 4] = [
    "SHADOWCL_QUANTUM",
    "SHADOWCL_WI_ORDER",
    "SHADOWCL_WG_ORDER",
    "SHADOWCL_SEED",
];

fn parse_schedules(list: &str) -> Result<Vec<Schedule>, String> {
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

struct CheckRun<'a> {
    platform: &'a str,
    options: &'a [String],
    schedules: &'a [Schedule],
    timeout: u64,
    verbose: bool,
}

/// One case at one option set under one schedule.
enum Outcome {
    Skipped(String),
    Checked {
        verdict: Result<String, String>,
        /// The findings that must not depend on the schedule (ShadowCL only).
        signature: Signature,
        stderr: String,
        ms: u128,
    },
}

fn cmd_check_races(dir: &Path, run: &CheckRun<'_>, filter: Option<&str>) -> ExitCode {
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
            let mut first: Option<(&str, Signature)> = None;
            let mut pairs_differ = None;
            let mut result: Result<String, String> = Ok(String::new());
            let mut total_ms = 0;
            let mut skip = None;
            for schedule in run.schedules {
                match check_one(path, &case, &expects, options, schedule, run, &scratch) {
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
            if let Some(why) = skip {
                println!("SKIP {label}: {why}");
                skipped += 1;
                continue;
            }
            // Every racing pair is named under every schedule (issue #11 item 10), unless
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

fn schedule_difference(
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

fn check_one(
    path: &Path,
    case: &Case,
    expects: &[case::Expect],
    options: &str,
    schedule: &Schedule,
    run: &CheckRun<'_>,
    scratch: &Path,
) -> Outcome {
    let oclgrind = run.platform.to_lowercase().contains("oclgrind");
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
        run.platform,
        options,
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

fn oclgrind_verdict(
    case: &Case,
    expects: &[case::Expect],
    child: &Child,
    problem: Option<String>,
) -> Result<String, String> {
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
struct Signature {
    verdicts: BTreeSet<String>,
    pairs: BTreeSet<String>,
}

fn report_signature(report: &Path) -> Signature {
    let Some(doc) = std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return Signature::default();
    };
    let field = |f: &Value, k: &str| f.get(k).and_then(Value::as_str).unwrap_or("-").to_string();
    let line = |f: &Value, side: &str| {
        f.get(side)
            .and_then(|s| s.get("location"))
            .and_then(|l| l.get("line"))
            .and_then(Value::as_u64)
            .map_or("?".to_string(), |l| l.to_string())
    };
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
                let (a, b) = (line(f, "first"), line(f, "second"));
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

fn check_report(
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

fn load_outputs(p: &Path) -> Result<Vec<(String, String, Vec<u8>)>, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("no outputs file: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("outputs not JSON: {e}"))?;
    let Some(Value::Array(bufs)) = doc.get("buffers") else {
        return Err("outputs have no `buffers` array".into());
    };
    bufs.iter()
        .map(|b| {
            let f = |k: &str| {
                b.get(k)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| format!("outputs: buffer entry lacks `{k}`"))
            };
            let data = unhex(&f("hex")?).ok_or("outputs: bad hex")?;
            Ok((f("name")?, f("type")?, data))
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
/// A differential run: `reference` once per option set, `candidate` under each schedule.
struct DiffRun<'a> {
    reference: &'a str,
    candidate: &'a str,
    options: &'a [String],
    schedules: &'a [Schedule],
    timeout: u64,
    verbose: bool,
}

fn cmd_diff(dir: &Path, run: &DiffRun<'_>, filter: Option<&str>) -> ExitCode {
    let cases = collect_cases(dir, filter);
    if cases.is_empty() {
        eprintln!("case-runner: no .cl cases under {}", dir.display());
        summary(0, 0, 0);
        return ExitCode::FAILURE;
    }
    let scratch = scratch_dir();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let started = Instant::now();
    let mut unset = vec![
        "SHADOWCL_REPORT",
        "OCLGRIND_DATA_RACES",
        "OCLGRIND_UNINITIALIZED",
    ];
    unset.extend(SCHEDULE_VARS);
    let runs_per_case = run.options.len() * run.schedules.len();
    for path in &cases {
        let name = case_name(dir, path);
        let case = match Case::load(path) {
            Ok(c) => c,
            Err(e) => {
                println!("FAIL {name}: {e}");
                failed += runs_per_case;
                continue;
            }
        };
        if case.compares.is_empty() {
            println!("FAIL {name}: declares no `// compare:` line");
            failed += runs_per_case;
            continue;
        }
        for opts in run.options {
            let label = if opts.is_empty() {
                "default".to_string()
            } else {
                opts.clone()
            };
            let ra = scratch.join("ref.json");
            let _ = std::fs::remove_file(&ra);
            let a = match run_child(path, run.reference, opts, &ra, &[], &unset, run.timeout) {
                Ok(a) => a,
                Err(e) => {
                    println!("FAIL {name} [{label}]: {e}");
                    failed += run.schedules.len();
                    continue;
                }
            };
            for (schedule, vars) in run.schedules {
                let label = if run.schedules.len() > 1 {
                    format!("{label}, {schedule}")
                } else {
                    label.clone()
                };
                let rb = scratch.join("cand.json");
                let _ = std::fs::remove_file(&rb);
                let env: Vec<(&str, String)> =
                    vars.iter().map(|(k, v)| (*k, v.to_string())).collect();
                let b = match run_child(path, run.candidate, opts, &rb, &env, &unset, run.timeout) {
                    Ok(b) => b,
                    Err(e) => {
                        println!("FAIL {name} [{label}]: {e}");
                        failed += 1;
                        continue;
                    }
                };
                if a.code == Some(EXIT_SKIP) || b.code == Some(EXIT_SKIP) {
                    println!(
                        "SKIP {name} [{label}]: {}{}",
                        a.stderr.trim(),
                        b.stderr.trim()
                    );
                    skipped += 1;
                    continue;
                }
                let errs = diff_outputs(&case, (&a, &ra), (&b, &rb));
                if errs.is_empty() {
                    passed += 1;
                    println!(
                        "PASS {name} [{label}] ({} + {} ms)",
                        a.elapsed.as_millis(),
                        b.elapsed.as_millis()
                    );
                } else {
                    failed += 1;
                    println!("FAIL {name} [{label}]: {}", errs.join("; "));
                    if run.verbose {
                        println!("{}\n{}", tail(&a.stderr, 20), tail(&b.stderr, 20));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
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

/// What differs between the reference's run `a` and the candidate's `b` in the outputs the
/// case declares (`compare:`), or why they cannot be compared.
fn diff_outputs(case: &Case, a: (&Child, &Path), b: (&Child, &Path)) -> Vec<String> {
    let ((a, ra), (b, rb)) = (a, b);
    let mut errs = Vec::new();
    if let Some(p) = child_problem(a) {
        errs.push(format!("reference: {p}\n{}", explain(&a.stderr, 6)));
    }
    if let Some(p) = child_problem(b) {
        errs.push(format!("candidate: {p}\n{}", explain(&b.stderr, 6)));
    }
    if !errs.is_empty() {
        return errs;
    }
    let (oa, ob) = match (load_outputs(ra), load_outputs(rb)) {
        (Ok(oa), Ok(ob)) => (oa, ob),
        (Err(e), _) => return vec![format!("reference: {e}")],
        (_, Err(e)) => return vec![format!("candidate: {e}")],
    };
    for c in &case.compares {
        for t in &c.targets {
            if t == "stdout" {
                if a.stdout != b.stdout {
                    errs.push(format!(
                        "stdout differs:\n  reference: {:?}\n  candidate: {:?}",
                        a.stdout, b.stdout
                    ));
                }
                continue;
            }
            let find = |o: &[(String, String, Vec<u8>)]| o.iter().find(|x| &x.0 == t).cloned();
            match (find(&oa), find(&ob)) {
                (Some(x), Some(y)) => {
                    let mode = match c.mode {
                        CompareMode::Exact => 0,
                        CompareMode::Ulp(n) => n,
                    };
                    if let Err(e) = compare::buffers(&x.1, &x.2, &y.2, mode) {
                        errs.push(format!("buffer {t}: {e}"));
                    }
                }
                _ => errs.push(format!("buffer {t} missing from outputs")),
            }
        }
    }
    errs
}

fn cmd_list(dir: &Path) -> ExitCode {
    let cases = collect_cases(dir, None);
    let mut bad = 0;
    for p in &cases {
        match Case::load(p) {
            Ok(c) => {
                let exp = match &c.expects {
                    Some(v) if v.is_empty() => "none".to_string(),
                    Some(v) => v
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                    None => "-".into(),
                };
                println!(
                    "{}  launches={} expect=[{}]{}",
                    c.display_name(dir),
                    c.launches.len(),
                    exp,
                    if c.compares.is_empty() {
                        String::new()
                    } else {
                        format!(" compares={}", c.compares.len())
                    }
                );
            }
            Err(e) => {
                bad += 1;
                println!("ERROR {e}");
            }
        }
    }
    println!("{} cases, {bad} with errors", cases.len());
    if bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Problems of one case for `lint`, given the corpus layout.
fn lint_case(path: &Path) -> Vec<String> {
    let case = match Case::load(path) {
        Ok(c) => c,
        Err(e) => return vec![e.to_string()],
    };
    let in_dir = |d: &str| path.components().any(|c| c.as_os_str() == d);
    let mut errs = Vec::new();
    if in_dir("races") {
        match &case.expects {
            None => errs.push("declares no `// expect:` line".to_string()),
            Some(list) if !list.is_empty() => {
                let twin = match &case.twin {
                    Some(t) => path.with_file_name(t),
                    None => {
                        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
                        path.with_file_name(format!("{}-fixed.cl", stem.unwrap_or_default()))
                    }
                };
                match Case::load(&twin) {
                    Ok(t) if t.expects.as_ref().is_some_and(|e| e.is_empty()) => {}
                    Ok(_) => errs.push(format!("twin {} does not `expect: none`", twin.display())),
                    Err(_) => errs.push(format!(
                        "racy case without a race-free twin (no {}; name one with `// twin:`)",
                        twin.display()
                    )),
                }
            }
            Some(_) => {}
        }
        if !case.compares.is_empty() {
            errs.push("race cases do not compare outputs".into());
        }
    }
    if in_dir("diff") {
        if case.compares.is_empty() {
            errs.push("declares no `// compare:` line".into());
        }
        if case.expects.is_some() {
            errs.push("diff cases must be race-free: no `// expect:`".into());
        }
    }
    for l in &case.launches {
        let items: usize = l.global.iter().product();
        if items > 1024 {
            errs.push(format!(
                "launch {} has {items} work-items (keep it <= 1024)",
                l.kernel
            ));
        }
    }
    errs
}

fn cmd_lint(dir: &Path) -> ExitCode {
    let cases = collect_cases(dir, None);
    let mut bad = 0;
    for p in &cases {
        let errs = lint_case(p);
        if !errs.is_empty() {
            bad += 1;
            for e in errs {
                println!("FAIL {}: {e}", case_name(dir, p));
            }
        }
    }
    println!("{} cases checked", cases.len());
    summary(cases.len() - bad, bad, 0);
    if bad > 0 || cases.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
