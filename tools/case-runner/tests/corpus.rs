//! The corpus in tests/kernels must always parse and follow its layout rules
//! (no OpenCL platform needed).

use std::path::PathBuf;
use std::process::Command;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/kernels")
}

#[test]
fn corpus_lints_clean() {
    let out = Command::new(env!("CARGO_BIN_EXE_case-runner"))
        .arg("lint")
        .arg(corpus())
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run case-runner: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "lint failed:\n{text}");
}

#[test]
fn corpus_has_the_promised_size() {
    let count = |sub: &str| {
        fn walk(d: &std::path::Path, n: &mut usize) {
            if let Ok(rd) = std::fs::read_dir(d) {
                for e in rd.flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        walk(&p, n);
                    } else if p.extension().is_some_and(|x| x == "cl") {
                        *n += 1;
                    }
                }
            }
        }
        let mut n = 0;
        walk(&corpus().join(sub), &mut n);
        n
    };
    assert!(count("races") >= 90, "races: {}", count("races"));
    assert!(count("diff") >= 55, "diff: {}", count("diff"));
}
