//! Forwarding mode (SHADOWCL_FORWARD) through the real loader: the vendors folder lists only
//! ShadowCL, ShadowCL loads PoCL and forwards every call to it. The C hosts must behave as on
//! PoCL directly, their launches must be recorded, and a racy launch recorded over PoCL must
//! show its race when replayed on ShadowCL.

use shadowcl_tests::{
    c_host, find_shadowcl_lib, pocl_lib, run, skip, tests_dir, Icd, Outcome, TIMEOUT,
};
use std::path::{Path, PathBuf};
use std::process::Command;

/// ShadowCL's vendors folder and the PoCL library to forward to.
fn setup(test: &str) -> Option<(Icd, PathBuf)> {
    let icd = Icd::shadowcl(test)?;
    let Some(pocl) = pocl_lib() else {
        skip(
            test,
            "PoCL is not installed (apt-get install pocl-opencl-icd)",
        );
        return None;
    };
    Some((icd, pocl))
}

fn forwarded(icd: &Icd, forward: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = icd.command(program);
    cmd.env("SHADOWCL_FORWARD", forward);
    cmd
}

/// `launch-*` records under a capture root, sorted.
fn records(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in std::fs::read_dir(root).into_iter().flatten().flatten() {
        for r in std::fs::read_dir(p.path()).into_iter().flatten().flatten() {
            let r = r.path();
            let name = r
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with("launch-") && r.join("record.json").is_file() {
                out.push(r);
            }
        }
    }
    out.sort();
    out
}

fn record_json(rec: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(rec.join("record.json")).expect("record.json");
    serde_json::from_str(&text).expect("record.json is JSON")
}

/// The same host on PoCL directly and through ShadowCL's forwarding: same exit status and
/// output, and every kernel it launched recorded.
#[test]
fn c_hosts_over_pocl_match_pocl_and_are_recorded() {
    let test = "c_hosts_over_pocl_match_pocl_and_are_recorded";
    let (Some((icd, pocl)), Some(direct)) = (setup(test), Icd::pocl(test)) else {
        return;
    };
    let mut failed = Vec::new();
    // events waits on user events it completes later: capture must never block on them.
    // PoCL does not tell a sampler from an image in clSetKernelArg: images skips those checks
    // (ABUSE_LENIENT) on both sides.
    let lenient: &[(&str, &str)] = &[("ABUSE_LENIENT", "1")];
    for (host, args, env, data, min_records) in [
        ("vadd", vec!["source"], &[][..], "none", 1),
        ("buffers", vec![], &[], "inputs", 1),
        ("events", vec![], &[], "inputs+outputs", 5),
        ("events", vec![], &[], "inputs", 5),
        ("kernel_info", vec![], &[], "inputs", 2),
        ("images", vec![], lenient, "inputs", 2),
        ("programs", vec![], &[], "inputs", 3),
        ("threads", vec![], &[], "none", 1),
    ] {
        let mut cmd = direct.command(c_host(host));
        cmd.args(&args).envs(env.iter().copied());
        let want = run(cmd, TIMEOUT);
        let cap = tempfile::tempdir().unwrap();
        let mut cmd = forwarded(&icd, pocl.to_str().unwrap(), c_host(host));
        cmd.args(&args)
            .envs(env.iter().copied())
            .env("SHADOWCL_CAPTURE", cap.path())
            .env("SHADOWCL_CAPTURE_DATA", data);
        let got = run(cmd, TIMEOUT);
        let recs = records(cap.path());
        if !(want.success() && got.success() && got.stdout == want.stdout) {
            failed.push(format!(
                "{host}: differs from PoCL\n== PoCL: {}\n== forwarded: {}",
                want.describe(),
                got.describe()
            ));
        } else if recs.len() < min_records {
            failed.push(format!(
                "{host}: {} record(s)\n{}",
                recs.len(),
                got.describe()
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn platform_and_device_names_say_capture_and_a_platform_name_finds_the_vendor() {
    let test = "platform_and_device_names_say_capture_and_a_platform_name_finds_the_vendor";
    let Some((icd, _)) = setup(test) else {
        return;
    };
    if !shadowcl_tests::have_program("clinfo", "--version") {
        skip(test, "clinfo is not installed");
        return;
    }
    // By name: looked up in the system's vendors folder, as OCL_ICD_VENDORS lists only us.
    let mut cmd = forwarded(&icd, "Portable", "clinfo");
    cmd.arg("-l");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(
        o.stdout
            .contains("Platform #0: ShadowCL capture: Portable Computing Language"),
        "{}",
        o.describe()
    );
    assert!(
        o.stdout.contains("Device #0: ShadowCL capture: "),
        "{}",
        o.describe()
    );
    assert!(
        !o.stdout.contains("Platform #1"),
        "only the vendor's platform: {}",
        o.describe()
    );
}

#[test]
fn pyopencl_vadd_in_forwarding_mode() {
    let test = "pyopencl_vadd_in_forwarding_mode";
    let Some((icd, pocl)) = setup(test) else {
        return;
    };
    let python = "/usr/bin/python3";
    let mut probe = Command::new(python);
    probe.args(["-c", "import pyopencl, numpy"]);
    if !run(probe, TIMEOUT).success() {
        skip(test, "/usr/bin/python3 cannot import pyopencl and numpy");
        return;
    }
    let cap = tempfile::tempdir().unwrap();
    let mut cmd = forwarded(&icd, pocl.to_str().unwrap(), python);
    cmd.arg(tests_dir().join("python/vadd.py"))
        .env("PYOPENCL_CTX", "ShadowCL capture")
        .env("PYOPENCL_NO_CACHE", "1")
        .env("SHADOWCL_CAPTURE", cap.path())
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(
        o.stdout.contains("pyopencl vadd: PASS on ShadowCL capture"),
        "{}",
        o.describe()
    );
    let recs = records(cap.path());
    assert!(
        !recs.is_empty(),
        "pyopencl's launch was not recorded\n{}",
        o.describe()
    );
    let r = record_json(&recs[0]);
    assert!(
        recs[0]
            .join(r["args"][0]["contents"].as_str().unwrap_or("missing"))
            .is_file(),
        "input contents recorded by default: {r}"
    );
}

#[test]
fn api_abuse_passes_in_forwarding_mode() {
    let test = "api_abuse_passes_in_forwarding_mode";
    let Some((icd, pocl)) = setup(test) else {
        return;
    };
    // Garbage and wrong-type handles must be refused before they reach PoCL (which crashes on
    // them when used directly); only the checks whose error code is the vendor's own
    // (image descriptors, sampler modes) are left out: forwarding passes those through.
    let mut cmd = forwarded(&icd, pocl.to_str().unwrap(), c_host("api_abuse"));
    cmd.env("ABUSE_LENIENT", "vendor");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(o.stdout.contains("api_abuse: PASS"), "{}", o.describe());
}

#[test]
fn an_unusable_vendor_is_reported_and_leaves_no_platform() {
    let test = "an_unusable_vendor_is_reported_and_leaves_no_platform";
    let Some(icd) = Icd::shadowcl(test) else {
        return;
    };
    for bad in ["/nonexistent/libvendor.so", "NoSuchPlatformName"] {
        let mut cmd = forwarded(&icd, bad, c_host("vadd"));
        cmd.arg("source");
        let o = run(cmd, TIMEOUT);
        assert!(
            !o.success(),
            "vadd cannot run without a platform: {}",
            o.describe()
        );
        assert!(
            o.stderr.contains(&format!("SHADOWCL_FORWARD={bad}")),
            "no message naming the setting: {}",
            o.describe()
        );
        assert!(!o.stderr.contains("panicked"), "{}", o.describe());
    }
}

/// The `shadowcl` binary built beside the library.
fn shadowcl_cli(test: &str) -> Option<PathBuf> {
    let cli = find_shadowcl_lib()?.parent()?.join("shadowcl");
    if cli.is_file() {
        Some(cli)
    } else {
        skip(
            test,
            "the shadowcl binary is not built (cargo build -p shadowcl)",
        );
        None
    }
}

fn replay(cli: &Path, record: &Path, report: &Path) -> Outcome {
    let mut cmd = Command::new(cli);
    cmd.arg("replay").arg(record).arg("--report").arg(report);
    run(cmd, TIMEOUT)
}

/// A C host run over PoCL with its launches and their inputs and outputs recorded in `cap`;
/// it must succeed.
fn recorded_over_pocl(icd: &Icd, pocl: &Path, host: &str, cap: &Path) -> Outcome {
    let mut cmd = forwarded(icd, pocl.to_str().unwrap(), c_host(host));
    cmd.env("SHADOWCL_CAPTURE", cap)
        .env("SHADOWCL_CAPTURE_DATA", "inputs+outputs");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    o
}

/// The racy reduction runs on PoCL (which reports nothing), its launch is recorded with its
/// inputs, and the replay on ShadowCL's interpreter finds the local-memory race.
#[test]
fn racy_launch_recorded_over_pocl_replays_with_the_race() {
    let test = "racy_launch_recorded_over_pocl_replays_with_the_race";
    let (Some((icd, pocl)), Some(cli)) = (setup(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap");
    let o = recorded_over_pocl(&icd, &pocl, "racy_reduction", &cap);
    assert!(
        !o.stderr.contains("data-race"),
        "PoCL itself checks nothing: {}",
        o.describe()
    );
    let recs = records(&cap);
    assert_eq!(recs.len(), 1, "one launch, one record: {recs:?}");
    let r = record_json(&recs[0]);
    assert_eq!(r["kernel"], "reduce");
    assert_eq!(
        r["args"][2]["name"], "scratch",
        "argument names from the vendor: {r}"
    );
    assert_eq!(r["args"][2]["address"], "local");
    assert!(recs[0].join("arg-0.bin").is_file() && recs[0].join("arg-1.out.bin").is_file());

    let report = dir.path().join("replay.json");
    let o = replay(&cli, &recs[0], &report);
    assert_eq!(
        o.code(),
        Some(1),
        "replay with findings exits 1\n{}",
        o.describe()
    );
    let text = std::fs::read_to_string(&report).expect("replay report");
    let v: serde_json::Value = serde_json::from_str(&text).expect("report is JSON");
    let found =
        v["findings"].as_array().into_iter().flatten().any(|f| {
            f["kind"] == "data-race" && f["memory"] == "local" && f["buffer"] == "scratch"
        });
    assert!(found, "no race on scratch in the replay: {text}");
}

/// Launches the vendor alone cannot describe, recorded over PoCL: image and sampler arguments
/// (texels read back packed, sampler bits from the vendor's sampler), clEnqueueTask (a one-item
/// launch), a program made from a binary (its source found by the binary's digest) and a linked
/// program (compiled and linked again by ShadowCL). Every record replays clean on ShadowCL with
/// the outputs PoCL produced.
#[test]
fn launches_the_vendor_cannot_describe_are_recorded_and_replay_with_pocls_outputs() {
    let test = "launches_the_vendor_cannot_describe_are_recorded_and_replay_with_pocls_outputs";
    let (Some((icd, pocl)), Some(cli)) = (setup(test), shadowcl_cli(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut recs = Vec::new();
    for host in ["images", "kernel_info", "programs"] {
        let cap = dir.path().join(host);
        recorded_over_pocl(&icd, &pocl, host, &cap);
        recs.extend(records(&cap));
    }
    let kinds: Vec<(String, String)> = recs
        .iter()
        .flat_map(|r| {
            let j = record_json(r);
            let kernel = j["kernel"].as_str().unwrap_or("").to_string();
            j["args"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |a| {
                    (
                        kernel.clone(),
                        a["type_name"].as_str().unwrap_or("").to_string(),
                    )
                })
        })
        .collect();
    let has = |k: &str, t: &str| kinds.iter().any(|(a, b)| a == k && b == t);
    assert!(
        has("blur", "image2d_t") && has("blur", "sampler_t"),
        "image launch not recorded with its image and sampler: {kinds:?}"
    );
    let task = recs
        .iter()
        .map(|r| record_json(r))
        .find(|j| j["kernel"] == "other")
        .expect("the task of kernel_info is recorded");
    assert_eq!(task["global_size"][0], 1, "a task is one work-item: {task}");
    let programs: Vec<serde_json::Value> = recs.iter().map(|r| record_json(r)).collect();
    for (kernel, field) in [("value", "source"), ("linked", "spirv")] {
        assert!(
            programs
                .iter()
                .any(|j| j["kernel"] == kernel && j["program"][field].is_string()),
            "{kernel} not recorded with its {field}"
        );
    }
    for rec in &recs {
        let report = dir.path().join("replay.json");
        let o = replay(&cli, rec, &report);
        assert_eq!(o.code(), Some(0), "clean replay exits 0\n{}", o.describe());
        assert!(
            !o.stdout.contains("replay differs from the recorded output"),
            "{}",
            o.describe()
        );
    }
}

/// `shadowcl run --forward NAME --capture DIR -- APP`: the CLI's own vendors folder lists
/// only ShadowCL, the name finds PoCL in the system's folder, and the launches are recorded.
#[test]
fn shadowcl_run_forward_records_the_apps_launches() {
    let test = "shadowcl_run_forward_records_the_apps_launches";
    let (Some(_), Some(cli)) = (setup(test), shadowcl_cli(test)) else {
        return;
    };
    let Some(lib) = find_shadowcl_lib() else {
        return;
    };
    let cap = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(&cli);
    cmd.env("SHADOWCL_LIB", &lib)
        .env_remove("SHADOWCL_FORWARD")
        .env("HOST_PLATFORM", "ShadowCL capture: Portable")
        .args(["run", "--forward", "Portable", "--capture"])
        .arg(cap.path())
        .arg("--")
        .arg(c_host("vadd"))
        .arg("source");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(o.stdout.contains("vadd-source: PASS"), "{}", o.describe());
    let recs = records(cap.path());
    assert!(!recs.is_empty(), "no record\n{}", o.describe());
    assert_eq!(record_json(&recs[0])["kernel"], "vadd");
}
