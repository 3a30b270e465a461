//! The C host programs in `tests/c`, compiled at test time with `cc ... -lOpenCL` and run
//! through the real ICD loader against ShadowCL. `hosts_pass_on_pocl` runs the same hosts
//! against PoCL, to show that a failure on ShadowCL is ShadowCL's and not the host's.

use shadowcl_tests::{c_host, run, spirv_of, Icd, Outcome, TIMEOUT};

const VADD_CL: &str = "__kernel void vadd(__global const float *a, __global const float *b,\n\
                       __global float *c, const float scale) {\n\
                       size_t i = get_global_id(0);\n  c[i] = a[i] + scale * b[i];\n}\n";

fn run_host(icd: &Icd, host: &str, args: &[&str], envs: &[(&str, &str)]) -> Outcome {
    let mut cmd = icd.command(c_host(host));
    cmd.args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    run(cmd, TIMEOUT)
}

/// [`run_host`] with a JSON report (`SHADOWCL_REPORT`), in a folder that lives as long as
/// the returned guard; read it with [`findings`] once the outcome is checked.
fn run_host_reporting(
    icd: &Icd,
    host: &str,
    args: &[&str],
) -> (Outcome, tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let o = run_host(
        icd,
        host,
        args,
        &[("SHADOWCL_REPORT", report.to_str().expect("UTF-8 temp path"))],
    );
    (o, dir, report)
}

fn assert_pass(o: &Outcome, name: &str) {
    o.assert_success();
    assert!(
        o.stdout.contains(&format!("{name}: PASS")),
        "no PASS line\n{}",
        o.describe()
    );
}

fn findings(report: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(report)
        .unwrap_or_else(|e| panic!("no JSON report at {}: {e}", report.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("report is JSON");
    assert_eq!(v["tool"], "shadowcl", "report: {text}");
    v["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("report has no findings array: {text}"))
        .clone()
}

#[test]
fn vadd_from_source_on_shadowcl_has_no_findings() {
    let Some(icd) = Icd::shadowcl("vadd_from_source_on_shadowcl_has_no_findings") else {
        return;
    };
    let (o, _dir, report) = run_host_reporting(&icd, "vadd", &["source"]);
    assert_pass(&o, "vadd-source");
    let f = findings(&report);
    assert!(f.is_empty(), "false positives on vadd: {f:#?}");
}

#[test]
fn vadd_from_spirv_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("vadd_from_spirv_on_shadowcl") else {
        return;
    };
    let Some(spv) = spirv_of(VADD_CL, "vadd") else {
        shadowcl_tests::skip(
            "vadd_from_spirv_on_shadowcl",
            "clang-15/llvm-spirv-15 missing",
        );
        return;
    };
    let o = run_host(&icd, "vadd", &["spirv", spv.to_str().unwrap()], &[]);
    assert_pass(&o, "vadd-spirv");
}

#[test]
fn buffers_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("buffers_on_shadowcl") else {
        return;
    };
    let (o, _dir, report) = run_host_reporting(&icd, "buffers", &[]);
    assert_pass(&o, "buffers");
    // The two host accesses the flags forbid are refused and reported, naming the call and
    // the flag; nothing else in this host is a finding.
    let f = findings(&report);
    let refused: Vec<&str> = f
        .iter()
        .filter(|f| f["kind"] == "invalid-access")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert_eq!(f.len(), 2, "{f:?}");
    assert_eq!(refused.len(), 2, "{f:?}");
    assert!(
        refused
            .iter()
            .any(|m| m.starts_with("clEnqueueReadBuffer: host read")
                && m.contains("CL_MEM_HOST_NO_ACCESS")),
        "{refused:?}"
    );
    assert!(
        refused
            .iter()
            .any(|m| m.starts_with("clEnqueueWriteBuffer: host write")
                && m.contains("CL_MEM_HOST_READ_ONLY")),
        "{refused:?}"
    );
}

#[test]
fn events_and_out_of_order_queue_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("events_and_out_of_order_queue_on_shadowcl") else {
        return;
    };
    assert_pass(&run_host(&icd, "events", &[], &[]), "events");
}

#[test]
fn kernel_info_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("kernel_info_on_shadowcl") else {
        return;
    };
    assert_pass(&run_host(&icd, "kernel_info", &[], &[]), "kernel_info");
}

/// The API rules the Khronos CTS found broken: clSetKernelArg does not retain memory
/// objects, zero-sized launches, CL_KERNEL_ATTRIBUTES, property values and device types,
/// -cl-uniform-work-group-size, read-write image formats, 2-D images from buffers.
/// Not run on PoCL: PoCL 3.1 aborts on a launch whose buffer argument was destroyed.
#[test]
fn cts_rules_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("cts_rules_on_shadowcl") else {
        return;
    };
    assert_pass(&run_host(&icd, "cts_rules", &[], &[]), "cts_rules");
}

#[test]
fn programs_build_compile_link_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("programs_build_compile_link_on_shadowcl") else {
        return;
    };
    assert_pass(&run_host(&icd, "programs", &[], &[]), "programs");
}

#[test]
fn api_abuse_returns_errors_and_never_crashes_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("api_abuse_returns_errors_and_never_crashes_on_shadowcl") else {
        return;
    };
    assert_pass(&run_host(&icd, "api_abuse", &[], &[]), "api_abuse");
}

#[test]
fn racy_reduction_reports_local_race_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("racy_reduction_reports_local_race_on_shadowcl") else {
        return;
    };
    let (o, _dir, report) = run_host_reporting(&icd, "racy_reduction", &[]);
    o.assert_success();
    assert!(
        o.stdout.contains("racy_reduction: sum ="),
        "{}",
        o.describe()
    );
    let f = findings(&report);
    let race = f
        .iter()
        .find(|x| x["kind"] == "data-race" && x["memory"] == "local")
        .unwrap_or_else(|| panic!("no local data race reported: {f:#?}\n{}", o.describe()));
    assert_eq!(race["kernel"], "reduce", "{race:#}");
    assert_eq!(race["buffer"], "scratch", "{race:#}");
    let lines: Vec<_> = [&race["first"], &race["second"]]
        .iter()
        .map(|a| a["location"]["line"].as_u64())
        .collect();
    assert!(
        lines.contains(&Some(8)),
        "neither access is on line 8 (scratch[l] += scratch[l + k]): {race:#}"
    );
    // At exit, one line sums the run up: findings by kind, launches, the report's path.
    let summary = o
        .stderr
        .lines()
        .find(|l| l.starts_with("shadowcl: ") && l.contains(" finding") && l.contains("; report: "))
        .unwrap_or_else(|| panic!("no summary line\n{}", o.describe()));
    let n = f.len();
    assert!(
        summary.starts_with(&format!("shadowcl: {n} finding")),
        "{summary}"
    );
    assert!(summary.contains("data-race "), "{summary}");
    assert!(
        summary.ends_with(&format!("; report: {}", report.display())),
        "{summary}"
    );
}

/// A block written on a transfer queue with no event between it and the kernel that reads
/// the buffer races with it (the rectangle path of host commands); the block read after the
/// kernel's event does not.
#[test]
fn transfer_queue_rect_write_races_with_the_kernel() {
    let Some(icd) = Icd::shadowcl("transfer_queue_rect_write_races_with_the_kernel") else {
        return;
    };
    let (o, _dir, report) = run_host_reporting(&icd, "transfer_queue", &[]);
    assert_pass(&o, "transfer_queue");
    let f = findings(&report);
    assert_eq!(f.len(), 1, "one finding: {f:#?}");
    let race = &f[0];
    assert_eq!(
        (&race["kind"], &race["scope"], &race["buffer"]),
        (
            &serde_json::json!("data-race"),
            &serde_json::json!("host-command"),
            &serde_json::json!("in")
        ),
        "{race:#}"
    );
    // Either may have run first.
    let sides = [&race["first"], &race["second"]];
    let kernel = sides.iter().find(|s| s["host"] == false);
    let host = sides.iter().find(|s| s["host"] == true);
    let (Some(kernel), Some(host)) = (kernel, host) else {
        panic!("a kernel side and a host side: {race:#}");
    };
    assert_eq!(
        (
            &kernel["kernel"],
            &kernel["access"],
            &kernel["location"]["line"]
        ),
        (
            &serde_json::json!("twice"),
            &serde_json::json!("read"),
            &serde_json::json!(2)
        ),
        "{race:#}"
    );
    assert_eq!(
        (&host["kernel"], &host["access"]),
        (
            &serde_json::json!("clEnqueueWriteBufferRect"),
            &serde_json::json!("write")
        ),
        "{race:#}"
    );
    // The racing byte is inside the block: rows 2..5, ints 4..11.
    let at = race["offset"].as_u64().unwrap_or(0) as usize / 4;
    assert!(
        (2..6).contains(&(at / 16)) && (4..12).contains(&(at % 16)),
        "{race:#}"
    );
}

#[test]
fn checks_none_lists_launches_and_reports_nothing() {
    let Some(icd) = Icd::shadowcl("checks_none_lists_launches_and_reports_nothing") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let path = report.to_str().expect("UTF-8 temp path");
    let o = run_host(
        &icd,
        "racy_reduction",
        &[],
        &[("SHADOWCL_REPORT", path), ("SHADOWCL_CHECKS", "none")],
    );
    o.assert_success();
    assert_eq!(findings(&report), Vec::<serde_json::Value>::new());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    let launches = v["launches"].as_array().expect("launches array");
    assert!(
        launches.iter().any(|l| l["kernel"] == "reduce"),
        "the unobserved launch is listed: {v:#}"
    );
}

#[test]
fn images_and_samplers_on_shadowcl() {
    let Some(icd) = Icd::shadowcl("images_and_samplers_on_shadowcl") else {
        return;
    };
    let (o, _dir, report) = run_host_reporting(&icd, "images", &[]);
    assert_pass(&o, "images");
    let f = findings(&report);
    assert!(f.is_empty(), "false positives on images: {f:#?}");
}

/// The same hosts against PoCL: they must pass there (api_abuse without the checks PoCL
/// does not do, vadd from SPIR-V may be unsupported: exit 77).
#[test]
fn hosts_pass_on_pocl() {
    let Some(icd) = Icd::pocl("hosts_pass_on_pocl") else {
        return;
    };
    let mut failed = Vec::new();
    for (host, args, env, pass) in [
        ("vadd", vec!["source"], vec![], "vadd-source"),
        ("buffers", vec![], vec![], "buffers"),
        ("events", vec![], vec![], "events"),
        ("kernel_info", vec![], vec![], "kernel_info"),
        ("programs", vec![], vec![], "programs"),
        (
            "api_abuse",
            vec![],
            vec![("ABUSE_LENIENT", "1")],
            "api_abuse",
        ),
        ("racy_reduction", vec![], vec![], "racy_reduction: sum"),
        ("images", vec![], vec![("ABUSE_LENIENT", "1")], "images"),
        ("two_races", vec![], vec![], "two_races: PASS"),
        ("transfer_queue", vec![], vec![], "transfer_queue: PASS"),
    ] {
        let o = run_host(&icd, host, &args, &env);
        if !(o.success() && o.stdout.contains(pass)) {
            failed.push(o.describe());
        }
    }
    if let Some(spv) = spirv_of(VADD_CL, "vadd-pocl") {
        let o = run_host(&icd, "vadd", &["spirv", spv.to_str().unwrap()], &[]);
        if !(o.success() || o.code() == Some(77)) {
            failed.push(o.describe());
        }
    }
    assert!(
        failed.is_empty(),
        "hosts failed on PoCL:\n{}",
        failed.join("\n\n")
    );
}
