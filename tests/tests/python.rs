//! pyopencl through Debian's /usr/bin/python3, with PYOPENCL_CTX=ShadowCL picking the
//! platform by name while PoCL is registered too.

use shadowcl_tests::{run, skip, tests_dir, Icd, TIMEOUT};
use std::process::Command;

/// Debian's interpreter, where python3-pyopencl and python3-numpy install to.
const PYTHON: &str = "/usr/bin/python3";

/// Runs `tests/python/<script>` on ShadowCL (PoCL registered beside it) and checks that it
/// printed `pass_line`. Skips, rather than fails, when pyopencl or numpy is not installed.
fn run_pyopencl_script(test: &str, script: &str, pass_line: &str) {
    run_pyopencl_script_with(test, script, pass_line, &[]);
}

/// [`run_pyopencl_script`] with extra environment variables for the script.
fn run_pyopencl_script_with(test: &str, script: &str, pass_line: &str, envs: &[(&str, &str)]) {
    let Some(icd) = Icd::shadowcl_and_pocl(test) else {
        return;
    };
    let probe = run(
        {
            let mut c = Command::new(PYTHON);
            c.args(["-c", "import pyopencl, numpy"]);
            c
        },
        TIMEOUT,
    );
    if !probe.success() {
        skip(
            test,
            "/usr/bin/python3 cannot import pyopencl and numpy (apt-get install python3-pyopencl python3-numpy)",
        );
        return;
    }
    let mut cmd = icd.command(PYTHON);
    // No cache: every run compiles through ShadowCL. No PYTHONPATH/PYTHONHOME: the
    // system's pyopencl and numpy, not whatever the caller's environment points at.
    cmd.arg(tests_dir().join("python").join(script))
        .env("PYOPENCL_CTX", "ShadowCL")
        .env("PYOPENCL_NO_CACHE", "1")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME");
    cmd.envs(envs.iter().copied());
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(o.stdout.contains(pass_line), "{}", o.describe());
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

/// The watchdog through the loader: a spinning kernel's event fails at SHADOWCL_TIMEOUT and
/// the application goes on (issue #15 item 3).
#[test]
fn pyopencl_spinning_kernel_ends_at_the_timeout() {
    run_pyopencl_script_with(
        "pyopencl_spinning_kernel_ends_at_the_timeout",
        "watchdog.py",
        "pyopencl watchdog: PASS on ShadowCL",
        &[("SHADOWCL_TIMEOUT", "1")],
    );
}
