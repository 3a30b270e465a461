//! pyopencl through Debian's /usr/bin/python3, with PYOPENCL_CTX=ShadowCL picking the
//! platform by name while PoCL is registered too.

use shadowcl_tests::{pyopencl_script, tests_dir};

/// Runs `tests/python/<script>` on ShadowCL (PoCL registered beside it) and checks that it
/// printed `pass_line`. Skips, rather than fails, when pyopencl or numpy is not installed.
fn run_pyopencl_script(test: &str, script: &str, pass_line: &str) {
    run_pyopencl_script_with(test, script, pass_line, &[]);
}

/// [`run_pyopencl_script`] with extra environment variables for the script; false when the
/// test was skipped.
fn run_pyopencl_script_with(
    test: &str,
    script: &str,
    pass_line: &str,
    envs: &[(&str, &str)],
) -> bool {
    let Some(o) = pyopencl_script(test, script, envs) else {
        return false;
    };
    o.assert_success();
    assert!(o.stdout.contains(pass_line), "{}", o.describe());
    true
}

#[test]
fn pyopencl_vadd_on_shadowcl() {
    run_pyopencl_script(
        "pyopencl_vadd_on_shadowcl",
        "vadd.py",
        "pyopencl vadd: PASS on ShadowCL",
    );
}

#[test]
fn pyopencl_images_on_shadowcl() {
    run_pyopencl_script(
        "pyopencl_images_on_shadowcl",
        "images.py",
        "pyopencl images: PASS on ShadowCL",
    );
}

/// The watchdog through the loader: a spinning kernel's event fails at SHADOWCL_TIMEOUT, the
/// application goes on, and the report has a `hang` finding naming the line the work-items
/// were spinning at.
#[test]
fn pyopencl_spinning_kernel_ends_at_the_timeout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let ran = run_pyopencl_script_with(
        "pyopencl_spinning_kernel_ends_at_the_timeout",
        "watchdog.py",
        "pyopencl watchdog: PASS on ShadowCL",
        &[
            ("SHADOWCL_TIMEOUT", "1"),
            ("SHADOWCL_REPORT", report.to_str().expect("utf-8 path")),
        ],
    );
    if !ran {
        return;
    }
    let text = std::fs::read_to_string(&report).expect("the report is written at exit");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON report");
    let hangs: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "hang")
        .collect();
    assert_eq!(hangs.len(), 1, "one hang, at the loop: {text}");
    let h = hangs[0];
    assert_eq!(h["kernel"], "spin", "{text}");
    assert_eq!(
        h["second"]["location"]["line"], 4,
        "the spinning line: {text}"
    );
    assert!(
        h["second"]["source"]
            .as_str()
            .is_some_and(|s| s.contains("while")),
        "{text}"
    );
    // Both groups spin when two workers run them; one when a single worker does.
    let count = h["count"].as_u64().unwrap_or(0);
    assert!(count == 4 || count == 8, "{text}");
    assert!(
        h["message"]
            .as_str()
            .is_some_and(|m| m.contains("time limit")),
        "{text}"
    );
}

/// Reports name the application's own kernel file and its lines, not the cache's copy of the
/// program, even when the application built it after lines of its own.
#[test]
fn pyopencl_findings_name_the_applications_kernel_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let kernels = tests_dir().join("python").join("kernels");
    let ran = run_pyopencl_script_with(
        "pyopencl_findings_name_the_applications_kernel_file",
        "source_files.py",
        "pyopencl source files: PASS on ShadowCL",
        &[
            ("SHADOWCL_REPORT", report.to_str().expect("utf-8 path")),
            ("SHADOWCL_SOURCE_DIR", kernels.to_str().expect("utf-8 path")),
        ],
    );
    if !ran {
        return;
    }
    let text = std::fs::read_to_string(&report).expect("the report is written at exit");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON report");
    let race = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["kind"] == "data-race")
        .unwrap_or_else(|| panic!("no data race: {text}"))
        .clone();
    let file = std::fs::canonicalize(kernels.join("racy_sum.cl")).expect("kernel file");
    for side in ["first", "second"] {
        let l = &race[side]["location"];
        assert_eq!(
            l["file"],
            file.to_str().expect("utf-8 path"),
            "{side}: {race:#}"
        );
        // `total[0] += v;` is line 5 of the file (line 6 of the program that was built).
        assert_eq!(l["line"], 5, "{side}: {race:#}");
        assert!(
            race[side]["source"]
                .as_str()
                .is_some_and(|s| s.contains("total[0] += v")),
            "{side}: {race:#}"
        );
    }
}

/// A read on a transfer queue that nothing orders after the kernel writing the buffer races
/// with it; the same read waiting for the kernel's event does not (host commands against
/// kernels, whichever ran first).
#[test]
fn pyopencl_transfer_queue_read_races_with_the_unordered_kernel_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let ran = run_pyopencl_script_with(
        "pyopencl_transfer_queue_read_races_with_the_unordered_kernel_only",
        "host_transfers.py",
        "pyopencl host transfers: PASS on ShadowCL",
        &[("SHADOWCL_REPORT", report.to_str().expect("utf-8 path"))],
    );
    if !ran {
        return;
    }
    let text = std::fs::read_to_string(&report).expect("the report is written at exit");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON report");
    let findings = v["findings"].as_array().expect("findings");
    let races: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["kind"] == "data-race")
        .collect();
    assert_eq!(
        races.len(),
        1,
        "one race, produce_a against the read: {text}"
    );
    let r = races[0];
    assert_eq!(r["scope"], "host-command", "{text}");
    // Either may have run first: one side is the kernel's write, the other the read.
    let sides = [&r["first"], &r["second"]];
    let kernel = sides
        .iter()
        .find(|s| s["host"] == false)
        .unwrap_or_else(|| panic!("a kernel side: {text}"));
    let host = sides
        .iter()
        .find(|s| s["host"] == true)
        .unwrap_or_else(|| panic!("a host side: {text}"));
    assert_eq!(
        (&kernel["kernel"], &kernel["access"]),
        (&serde_json::json!("produce_a"), &serde_json::json!("write")),
        "{text}"
    );
    assert_eq!(
        (&host["kernel"], &host["access"]),
        (
            &serde_json::json!("clEnqueueReadBuffer"),
            &serde_json::json!("read")
        ),
        "{text}"
    );
    // The launches are the two kernels; the reads are not launches.
    assert_eq!(v["launches"].as_array().map(Vec::len), Some(2), "{text}");
}

/// A checked run ended by SIGTERM writes its report, marked incomplete, with the race the
/// launch still running had met; the process still ends with SIGTERM's status.
#[test]
fn a_run_ended_by_sigterm_leaves_its_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    run_pyopencl_script_with(
        "a_run_ended_by_sigterm_leaves_its_report",
        "killed_run.py",
        "killed run: PASS",
        &[("SHADOWCL_REPORT", report.to_str().expect("utf-8 path"))],
    );
}

/// `clCompileProgram` of a function and of a kernel calling it, then `clLinkProgram` of
/// both, under the source-faithful build (pyopencl's own `test_compile_link`).
#[test]
fn pyopencl_compile_then_link_on_shadowcl() {
    run_pyopencl_script(
        "pyopencl_compile_then_link_on_shadowcl",
        "compile_link.py",
        "pyopencl compile and link: PASS on ShadowCL",
    );
}

/// A launch's local memory is the application's build's: a dead `__local` array the
/// checked build keeps does not make the launch fail.
#[test]
fn pyopencl_local_memory_is_the_applications_builds() {
    run_pyopencl_script(
        "pyopencl_local_memory_is_the_applications_builds",
        "local_resources.py",
        "pyopencl local resources: PASS on ShadowCL",
    );
}

/// The OpenCL C versions and features the device lists are what builds and runs: OpenCL C
/// 2.0 is refused, OpenCL C 3.0's generic address space and program-scope globals compute
/// what the specification says.
#[test]
fn pyopencl_opencl_c_is_what_the_device_lists() {
    run_pyopencl_script(
        "pyopencl_opencl_c_is_what_the_device_lists",
        "opencl_c_3.py",
        "pyopencl OpenCL C 3.0: PASS on ShadowCL",
    );
}
