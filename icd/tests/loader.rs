//! Loads the built libshadowcl.so through the system's ICD loader with `clinfo`.
//!
//! Builds nothing itself: when the cdylib is not there (a test-only build), it says so and
//! checks nothing else.

use std::path::PathBuf;
use std::process::Command;

fn cdylib() -> Option<PathBuf> {
    let mut dirs = Vec::new();
    if let Ok(d) = std::env::var("CARGO_TARGET_DIR") {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    dirs.into_iter()
        .map(|d| d.join("debug/libshadowcl.so"))
        .find(|p| p.exists())
        .and_then(|p| p.canonicalize().ok())
}

fn have_clinfo() -> bool {
    Command::new("clinfo").arg("--version").output().is_ok()
}

#[test]
fn clinfo_lists_shadowcl_through_the_loader() {
    let Some(lib) = cdylib() else {
        eprintln!("libshadowcl.so not built yet: run `cargo build -p shadowcl-icd` first");
        return;
    };
    if !have_clinfo() {
        eprintln!("clinfo is not installed (ci/setup installs it)");
        return;
    }
    let vendors = tempfile::tempdir().ok();
    let Some(vendors) = vendors else {
        panic!("cannot create a temporary folder");
    };
    let icd = vendors.path().join("shadowcl.icd");
    std::fs::write(&icd, format!("{}\n", lib.display())).ok();
    assert!(icd.exists(), "could not write {}", icd.display());
    let out = Command::new("clinfo")
        .env("OCL_ICD_VENDORS", vendors.path())
        .env("SHADOWCL_LOG", "error")
        .output();
    let Ok(out) = out else {
        panic!("clinfo did not run");
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "clinfo failed: {stdout}\n{stderr}");
    assert!(
        stdout.contains("ShadowCL"),
        "ShadowCL missing from clinfo:\n{stdout}"
    );
    assert!(
        stdout.contains("Number of devices                                 1"),
        "{stdout}"
    );
    let bad: Vec<&str> = stdout
        .lines()
        .chain(stderr.lines())
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("error") && !l.contains("error correction") || l.contains("cl_invalid")
        })
        .collect();
    assert!(
        bad.is_empty(),
        "clinfo reported errors:\n{}",
        bad.join("\n")
    );
}
