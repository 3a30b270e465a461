//! Thread safety: any OpenCL entry point may be called from any thread at any time. The C
//! host `tests/c/threads.c` drives ShadowCL from several threads at once (buffers,
//! sub-buffers, user events, kernels, a shared in-order queue and per-thread queues, wait
//! lists crossing threads, retain/release and queries on shared objects) and checks every
//! result and the final reference counts. The same host runs on PoCL to show it is right.

use shadowcl_tests::{c_host, run, Icd, Outcome, TIMEOUT};

fn run_threads(icd: &Icd, args: &[&str], envs: &[(&str, &str)]) -> Outcome {
    let mut cmd = icd.command(c_host("threads"));
    cmd.args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    run(cmd, TIMEOUT)
}

fn assert_pass(o: &Outcome) {
    o.assert_success();
    assert!(
        o.stdout.contains("threads: PASS"),
        "no PASS line\n{}",
        o.describe()
    );
}

/// The full stress run, without the checkers (kernels are still interpreted).
#[test]
fn threads_stress_on_shadowcl_without_checks() {
    let Some(icd) = Icd::shadowcl("threads_stress_on_shadowcl_without_checks") else {
        return;
    };
    let o = run_threads(&icd, &["300", "8"], &[("SHADOWCL_CHECKS", "none")]);
    assert_pass(&o);
}

/// A shorter run with the default checkers on, which must also report nothing amiss.
#[test]
fn threads_stress_on_shadowcl_with_checks() {
    let Some(icd) = Icd::shadowcl("threads_stress_on_shadowcl_with_checks") else {
        return;
    };
    let o = run_threads(&icd, &["30", "6"], &[]);
    assert_pass(&o);
}

/// The checked run must also report no findings: launches on the threads' queues overlap,
/// so checker state must not be reset under a running launch, and a launch must count as
/// ordered after exactly what its queue, its wait list and the host's waits order it after
/// (icd/src/core/order.rs), or a host write racing a reset loses "initialised" marks (false
/// `uninitialized-read`) and unrelated launches look racy.
#[test]
fn threads_stress_on_shadowcl_with_checks_has_no_findings() {
    let Some(icd) = Icd::shadowcl("threads_stress_on_shadowcl_with_checks_has_no_findings") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    for _ in 0..5 {
        let o = run_threads(
            &icd,
            &["60", "8"],
            &[("SHADOWCL_REPORT", report.to_str().unwrap())],
        );
        assert_pass(&o);
        let text = std::fs::read_to_string(&report)
            .unwrap_or_else(|e| panic!("no JSON report at {}: {e}", report.display()));
        let v: serde_json::Value = serde_json::from_str(&text).expect("report is JSON");
        let findings = v["findings"].as_array().cloned().unwrap_or_default();
        assert!(
            findings.is_empty(),
            "findings on a correct host: {findings:#?}"
        );
    }
}

/// The same host on PoCL: a failure on ShadowCL is then ShadowCL's, not the host's.
#[test]
fn threads_stress_on_pocl() {
    let Some(icd) = Icd::pocl("threads_stress_on_pocl") else {
        return;
    };
    let o = run_threads(&icd, &["200", "6"], &[]);
    assert_pass(&o);
}
