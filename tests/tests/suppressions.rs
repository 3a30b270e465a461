//! Suppressions and kernel selection through the real library: `shadowcl run --suppressions`
//! over an application with two racy kernels, a malformed suppressions file, and
//! `SHADOWCL_KERNELS` set directly for the library (with capture on).

use shadowcl_tests::{c_host, find_shadowcl_lib, run, shadowcl_cli, Icd, Outcome, TIMEOUT};
use std::path::Path;
use std::process::Command;

fn report(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no JSON report at {}: {e}", path.display()));
    serde_json::from_str(&text).expect("report is JSON")
}

/// `(kind, kernel, buffer)` of each finding.
fn named(report: &serde_json::Value) -> Vec<(String, String, String)> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    report["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| (s(&f["kind"]), s(&f["kernel"]), s(&f["buffer"])))
        .collect()
}

fn shadowcl_run(cli: &Path, args: &[&str]) -> Outcome {
    let mut cmd = Command::new(cli);
    cmd.env("SHADOWCL_LIB", find_shadowcl_lib().expect("library"))
        .env_remove("SHADOWCL_SUPPRESSIONS")
        .env_remove("SHADOWCL_KERNELS")
        .arg("run")
        .args(args)
        .arg("--")
        .arg(c_host("two_races"));
    run(cmd, TIMEOUT)
}

/// One of the two races suppressed: the report names the other one and counts one
/// suppressed, with the rule's hit; the run's exit status still reflects the finding left.
#[test]
fn run_with_suppressions_reports_one_race_and_counts_the_other() {
    let test = "run_with_suppressions_reports_one_race_and_counts_the_other";
    let Some(cli) = shadowcl_cli(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let supp = dir.path().join("known.supp");
    std::fs::write(
        &supp,
        "# second_race is known and harmless here\nkind:data-race kernel:second_* buffer:second_slot\n",
    )
    .unwrap();
    let out = dir.path().join("r.json");
    let o = shadowcl_run(
        &cli,
        &[
            "--suppressions",
            supp.to_str().unwrap(),
            "--report",
            out.to_str().unwrap(),
            "--error-exitcode",
            "3",
        ],
    );
    assert_eq!(o.code(), Some(3), "{}", o.describe());
    assert!(o.stdout.contains("two_races: PASS"), "{}", o.describe());
    let r = report(&out);
    assert_eq!(
        named(&r),
        [(
            "data-race".to_string(),
            "first_race".to_string(),
            "first_slot".to_string()
        )],
        "{r:#}"
    );
    assert_eq!(r["suppressed"], 1, "{r:#}");
    assert_eq!(r["suppressions"][0]["line"], 2, "{r:#}");
    assert_eq!(r["suppressions"][0]["hits"], 1, "{r:#}");
    // Printed: the finding left, not the suppressed one; the exit summary counts both.
    assert!(
        o.stderr.contains("in kernel first_race"),
        "{}",
        o.describe()
    );
    assert!(
        !o.stderr.contains("in kernel second_race"),
        "{}",
        o.describe()
    );
    assert!(
        o.stderr.contains(&format!(
            "shadowcl: 1 finding (data-race 1) in 2 launches, 1 suppressed ({}:2 1)",
            supp.display()
        )),
        "{}",
        o.describe()
    );

    // Without the file, both races are reported.
    let o = shadowcl_run(&cli, &["--report", out.to_str().unwrap()]);
    o.assert_success();
    let r = report(&out);
    let kernels: Vec<String> = named(&r).into_iter().map(|(_, k, _)| k).collect();
    assert_eq!(kernels, ["first_race", "second_race"], "{r:#}");
    assert_eq!(r["suppressed"], 0, "{r:#}");
}

/// A malformed suppressions file stops `shadowcl run` before the application starts, with
/// the file and line of the bad rule.
#[test]
fn run_with_a_malformed_suppressions_file_fails_naming_file_and_line() {
    let test = "run_with_a_malformed_suppressions_file_fails_naming_file_and_line";
    let Some(cli) = shadowcl_cli(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let supp = dir.path().join("bad.supp");
    std::fs::write(
        &supp,
        "# ok\nkind:data-race\nkind:data-race kernal:first_race\n",
    )
    .unwrap();
    let o = shadowcl_run(&cli, &["--suppressions", supp.to_str().unwrap()]);
    assert_eq!(o.code(), Some(2), "{}", o.describe());
    assert!(
        o.stderr.contains(&format!(
            "shadowcl run: {}:3: unknown field `kernal`",
            supp.display()
        )),
        "{}",
        o.describe()
    );
    assert!(!o.stdout.contains("two_races"), "the application ran");
}

/// `SHADOWCL_KERNELS` read by the library itself: the selected kernel's race is reported,
/// the other kernel runs unchecked (its results still right) and is still captured.
#[test]
fn kernel_selection_checks_only_matching_kernels() {
    let test = "kernel_selection_checks_only_matching_kernels";
    let Some(icd) = Icd::shadowcl(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let caps = dir.path().join("caps");
    let mut cmd = icd.command(c_host("two_races"));
    cmd.env("SHADOWCL_REPORT", &out)
        .env("SHADOWCL_KERNELS", "nothing, second_*")
        .env("SHADOWCL_CAPTURE", &caps)
        .env_remove("SHADOWCL_SUPPRESSIONS");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(o.stdout.contains("two_races: PASS"), "{}", o.describe());
    let r = report(&out);
    let kernels: Vec<String> = named(&r).into_iter().map(|(_, k, _)| k).collect();
    assert_eq!(kernels, ["second_race"], "{r:#}");
    let launched: Vec<&str> = r["launches"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["kernel"].as_str())
        .collect();
    assert_eq!(launched, ["second_race"], "{r:#}");
    assert!(
        o.stderr
            .contains("1 launch not checked (SHADOWCL_KERNELS=nothing,second_*)"),
        "{}",
        o.describe()
    );
    // Both launches were recorded, the unchecked one too.
    let records = walk_records(&caps);
    assert_eq!(records, 2, "launch records under {}", caps.display());
}

/// Launch records (folders holding `record.json`) under `dir`.
fn walk_records(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|p| usize::from(p.join("record.json").is_file()) + walk_records(&p))
        .sum()
}
