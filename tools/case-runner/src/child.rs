//! Running one case in a child process of this binary (`case-runner run`), with a timeout.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{EXIT_CASE_ERROR, EXIT_SKIP};

pub(crate) struct Child {
    pub(crate) code: Option<i32>,
    pub(crate) timed_out: bool,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) elapsed: Duration,
}

pub(crate) fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("case-runner-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Which platform a child runs a case on, and how it builds it.
pub(crate) struct Build<'a> {
    /// Substring of the platform's name.
    pub(crate) platform: &'a str,
    /// Extra build options.
    pub(crate) options: &'a str,
    /// As the differential reference (the case's `reference-options:`).
    pub(crate) reference: bool,
}

/// Runs `case-runner run ...` as a child with extra env, capturing output via files.
pub(crate) fn run_child(
    case: &Path,
    build: Build<'_>,
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
        .arg(build.platform)
        .arg(format!("--options={}", build.options))
        .args(build.reference.then_some("--reference"))
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

pub(crate) fn tail(s: &str, n: usize) -> String {
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
pub(crate) fn explain(s: &str, n: usize) -> String {
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

pub(crate) fn child_problem(c: &Child) -> Option<String> {
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
