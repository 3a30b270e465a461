//! `diff`: a case's outputs on a reference platform against a candidate's.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::Value;

use crate::case::{Case, CompareMode};
use crate::child::{child_problem, explain, run_child, scratch_dir, tail, Build, Child};
use crate::schedule::{Schedule, SCHEDULE_VARS};
use crate::{case_name, collect_cases, compare, summary, unhex, EXIT_SKIP};

pub(crate) fn load_outputs(p: &Path) -> Result<Vec<(String, String, Vec<u8>)>, String> {
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
pub(crate) struct DiffRun<'a> {
    pub(crate) reference: &'a str,
    pub(crate) candidate: &'a str,
    pub(crate) options: &'a [String],
    pub(crate) schedules: &'a [Schedule],
    pub(crate) timeout: u64,
    pub(crate) verbose: bool,
}

pub(crate) fn cmd_diff(dir: &Path, run: &DiffRun<'_>, filter: Option<&str>) -> ExitCode {
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
            let a = match run_child(
                path,
                Build {
                    platform: run.reference,
                    options: opts,
                    reference: true,
                },
                &ra,
                &[],
                &unset,
                run.timeout,
            ) {
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
                let b = match run_child(
                    path,
                    Build {
                        platform: run.candidate,
                        options: opts,
                        reference: false,
                    },
                    &rb,
                    &env,
                    &unset,
                    run.timeout,
                ) {
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
pub(crate) fn diff_outputs(case: &Case, a: (&Child, &Path), b: (&Child, &Path)) -> Vec<String> {
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
