//! `case-runner`: runs ShadowCL's labelled kernel corpus (tests/kernels) on any OpenCL
//! platform and checks race verdicts (ShadowCL's JSON report or Oclgrind's stderr) and
//! outputs (reference platform vs candidate platform).

mod case;
mod child;
mod compare;
mod diff;
mod exec;
mod ffi;
mod races;
mod schedule;

use case::Case;
use clap::{Parser, Subcommand};
use diff::{cmd_diff, DiffRun};
use races::{cmd_check_races, CheckRun};
use schedule::{parse_schedules, SCHEDULES};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
        /// Build as the differential reference: with the case's `reference-options:`, if
        /// it has them, instead of its `options:`.
        #[arg(long)]
        reference: bool,
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
        #[arg(long, default_value = "auto")]
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
        #[arg(long, default_value = "auto")]
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
            reference,
        } => cmd_run(
            &case,
            &platform,
            &options,
            dump_outputs.as_deref(),
            reference,
        ),
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

fn cmd_run(
    path: &Path,
    platform: &str,
    options: &str,
    dump: Option<&Path>,
    reference: bool,
) -> ExitCode {
    let mut case = match Case::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("case-runner: {e}");
            return ExitCode::from(EXIT_CASE_ERROR as u8);
        }
    };
    if let (true, Some(o)) = (reference, case.reference_options.take()) {
        case.options = o;
    }
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

fn summary(passed: usize, failed: usize, skipped: usize) {
    if skipped > 0 {
        println!("{passed} passed, {failed} failed, {skipped} skipped");
    } else {
        println!("{passed} passed, {failed} failed");
    }
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
