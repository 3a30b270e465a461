//! Capture through the real loader, then replay with the `shadowcl` command: a racy
//! application's recorded launch reports the race the live run reported, a race-free one
//! replays clean, and a replay under a seeded random schedule is deterministic.

use shadowcl_tests::{c_host, find_shadowcl_lib, run, shadowcl_cli, Icd, Outcome, TIMEOUT};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a C host with capture on and returns the launch records it left, in order.
fn capture(icd: &Icd, host: &str, args: &[&str], dir: &Path, report: &Path) -> Vec<PathBuf> {
    let mut cmd = icd.command(c_host(host));
    cmd.args(args)
        .env("SHADOWCL_CAPTURE", dir)
        .env("SHADOWCL_CAPTURE_DATA", "inputs+outputs")
        .env("SHADOWCL_REPORT", report);
    run(cmd, TIMEOUT).assert_success();
    let mut records = Vec::new();
    for proc_dir in std::fs::read_dir(dir).unwrap() {
        let proc_dir = proc_dir.unwrap().path();
        if !proc_dir.is_dir() {
            continue;
        }
        for rec in std::fs::read_dir(&proc_dir).unwrap() {
            let rec = rec.unwrap().path();
            let name = rec.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("launch-") && rec.join("record.json").is_file() {
                records.push(rec);
            }
        }
    }
    records.sort();
    records
}

fn replay(cli: &Path, record: &Path, report: &Path, extra: &[&str]) -> Outcome {
    let mut cmd = Command::new(cli);
    cmd.arg("replay")
        .arg(record)
        .arg("--report")
        .arg(report)
        .args(extra);
    run(cmd, TIMEOUT)
}

fn report_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no JSON report at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("report is not JSON ({e}): {text}"))
}

/// What identifies a finding across a live run and a replay (launch ids and counts differ:
/// the replay is one launch under its own schedule).
fn verdicts(report: &serde_json::Value) -> BTreeSet<String> {
    report["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} {}",
                f["kind"], f["race"], f["scope"], f["memory"], f["buffer"]
            )
        })
        .collect()
}

#[test]
fn racy_launch_replays_with_the_race_the_live_run_found() {
    let test = "racy_launch_replays_with_the_race_the_live_run_found";
    let (Some(icd), Some(cli)) = (Icd::shadowcl(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.json");
    let records = capture(&icd, "racy_reduction", &[], &dir.path().join("cap"), &live);
    assert_eq!(records.len(), 1, "one launch, one record: {records:?}");
    let live = verdicts(&report_json(&live));
    assert!(
        live.iter()
            .any(|v| v.contains("data-race") && v.contains("local") && v.contains("scratch")),
        "live run found no race on scratch: {live:?}"
    );

    let replayed = dir.path().join("replay.json");
    let o = replay(&cli, &records[0], &replayed, &[]);
    assert_eq!(
        o.code(),
        Some(1),
        "replay with findings exits 1\n{}",
        o.describe()
    );
    assert_eq!(
        verdicts(&report_json(&replayed)),
        live,
        "replay differs from live run"
    );
}

#[test]
fn race_free_launch_replays_clean() {
    let test = "race_free_launch_replays_clean";
    let (Some(icd), Some(cli)) = (Icd::shadowcl(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.json");
    let records = capture(&icd, "vadd", &["source"], &dir.path().join("cap"), &live);
    assert!(!records.is_empty(), "vadd left no record");
    for rec in &records {
        let replayed = dir.path().join("replay.json");
        let o = replay(&cli, rec, &replayed, &["--schedules", "3"]);
        assert_eq!(o.code(), Some(0), "clean replay exits 0\n{}", o.describe());
        let v = verdicts(&report_json(&replayed));
        assert!(v.is_empty(), "findings on a race-free launch: {v:?}");
    }
}

/// Image and sampler arguments are recorded with their layout and sampler bits, so image
/// launches replay (clean, and with the outputs the live run produced).
#[test]
fn image_launches_replay_clean() {
    let test = "image_launches_replay_clean";
    let (Some(icd), Some(cli)) = (Icd::shadowcl(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.json");
    let records = capture(&icd, "images", &[], &dir.path().join("cap"), &live);
    assert_eq!(records.len(), 2, "images host launches twice");
    for rec in &records {
        let replayed = dir.path().join("replay.json");
        let o = replay(&cli, rec, &replayed, &["--schedules", "2"]);
        assert_eq!(o.code(), Some(0), "clean replay exits 0\n{}", o.describe());
        assert!(
            !o.stdout.contains("replay differs from the recorded output"),
            "{}",
            o.describe()
        );
        let v = verdicts(&report_json(&replayed));
        assert!(v.is_empty(), "findings replaying an image launch: {v:?}");
    }
}

#[test]
fn seeded_random_replay_is_deterministic() {
    let test = "seeded_random_replay_is_deterministic";
    let (Some(icd), Some(cli)) = (Icd::shadowcl(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.json");
    let records = capture(&icd, "racy_reduction", &[], &dir.path().join("cap"), &live);
    let schedule = [
        "--wg-order",
        "random",
        "--wi-order",
        "random",
        "--quantum",
        "3",
        "--seed",
        "5",
    ];
    let runs: Vec<serde_json::Value> = (0..2)
        .map(|i| {
            let path = dir.path().join(format!("replay-{i}.json"));
            replay(&cli, &records[0], &path, &schedule);
            report_json(&path)
        })
        .collect();
    assert!(
        !runs[0]["findings"].as_array().unwrap().is_empty(),
        "the racy launch must report under this schedule too"
    );
    assert_eq!(
        runs[0]["findings"], runs[1]["findings"],
        "same seed, different report"
    );
}

/// `shadowcl run --schedules N`: the racy reduction's output depends on the schedule (found
/// with the race checkers off), vadd's does not.
#[test]
fn run_with_schedules_flags_schedule_dependent_output() {
    let test = "run_with_schedules_flags_schedule_dependent_output";
    let (Some(_), Some(cli)) = (Icd::shadowcl(test), shadowcl_cli(test)) else {
        return;
    };
    let lib = find_shadowcl_lib().unwrap();
    let run_app = |host: &str, args: &[&str]| {
        let mut cmd = Command::new(&cli);
        cmd.env("SHADOWCL_LIB", &lib)
            .args(["run", "--checks", "none", "--schedules", "5"])
            .args(["--error-exitcode", "3", "--"])
            .arg(c_host(host))
            .args(args);
        run(cmd, TIMEOUT)
    };
    let racy = run_app("racy_reduction", &[]);
    assert_eq!(racy.code(), Some(3), "{}", racy.describe());
    assert!(
        format!("{}{}", racy.stdout, racy.stderr).contains("schedule-dependent output"),
        "{}",
        racy.describe()
    );
    let clean = run_app("vadd", &["source"]);
    assert_eq!(clean.code(), Some(0), "{}", clean.describe());
    assert!(
        format!("{}{}", clean.stdout, clean.stderr).contains("no schedule-dependent output"),
        "{}",
        clean.describe()
    );
}

/// `shadowcl replay --suppressions FILE --html FILE`: the race the replay finds is left out
/// and counted, the HTML page is written, and a malformed file stops the command.
#[test]
fn replay_applies_suppressions_and_writes_html() {
    let test = "replay_applies_suppressions_and_writes_html";
    let (Some(icd), Some(cli)) = (Icd::shadowcl(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let records = capture(
        &icd,
        "racy_reduction",
        &[],
        &dir.path().join("cap"),
        &dir.path().join("live.json"),
    );
    let supp = dir.path().join("known.supp");
    std::fs::write(
        &supp,
        "# the reduction's known race\nkind:data-race buffer:scratch\n",
    )
    .unwrap();
    let (replayed, html) = (dir.path().join("r.json"), dir.path().join("r.html"));
    let o = replay(
        &cli,
        &records[0],
        &replayed,
        &[
            "--suppressions",
            supp.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.code(),
        Some(0),
        "all findings suppressed\n{}",
        o.describe()
    );
    let r = report_json(&replayed);
    assert_eq!(r["findings"].as_array().map(Vec::len), Some(0), "{r}");
    assert!(r["suppressed"].as_u64().is_some_and(|n| n >= 1), "{r}");
    let page = std::fs::read_to_string(&html).expect("HTML report written");
    assert!(page.contains("suppressed"), "{page}");

    std::fs::write(&supp, "kind:data-race\nnot-a-field:x\n").unwrap();
    let o = replay(
        &cli,
        &records[0],
        &replayed,
        &["--suppressions", supp.to_str().unwrap()],
    );
    assert_eq!(o.code(), Some(2), "{}", o.describe());
    assert!(o.stderr.contains("known.supp:2"), "{}", o.describe());
}
