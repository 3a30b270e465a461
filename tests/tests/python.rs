//! pyopencl through Debian's /usr/bin/python3, with PYOPENCL_CTX=ShadowCL picking the
//! platform by name while PoCL is registered too.

use shadowcl_tests::{run, skip, tests_dir, Icd, TIMEOUT};
use std::process::Command;

#[test]
fn pyopencl_vadd_on_shadowcl() {
    let Some(icd) = Icd::shadowcl_and_pocl("pyopencl_vadd_on_shadowcl") else {
        return;
    };
    let python = "/usr/bin/python3";
    let probe = run(
        {
            let mut c = Command::new(python);
            c.args(["-c", "import pyopencl, numpy"]);
            c
        },
        TIMEOUT,
    );
    if !probe.success() {
        skip(
            "pyopencl_vadd_on_shadowcl",
            "/usr/bin/python3 cannot import pyopencl and numpy (apt-get install python3-pyopencl python3-numpy)",
        );
        return;
    }
    let mut cmd = icd.command(python);
    cmd.arg(tests_dir().join("python/vadd.py"))
        .env("PYOPENCL_CTX", "ShadowCL")
        .env("PYOPENCL_NO_CACHE", "1")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(
        o.stdout.contains("pyopencl vadd: PASS on ShadowCL"),
        "{}",
        o.describe()
    );
}

#[test]
fn pyopencl_images_on_shadowcl() {
    let Some(icd) = Icd::shadowcl_and_pocl("pyopencl_images_on_shadowcl") else {
        return;
    };
    let python = "/usr/bin/python3";
    let probe = run(
        {
            let mut c = Command::new(python);
            c.args(["-c", "import pyopencl, numpy"]);
            c
        },
        TIMEOUT,
    );
    if !probe.success() {
        skip(
            "pyopencl_images_on_shadowcl",
            "/usr/bin/python3 cannot import pyopencl and numpy (apt-get install python3-pyopencl python3-numpy)",
        );
        return;
    }
    let mut cmd = icd.command(python);
    cmd.arg(tests_dir().join("python/images.py"))
        .env("PYOPENCL_CTX", "ShadowCL")
        .env("PYOPENCL_NO_CACHE", "1")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME");
    let o = run(cmd, TIMEOUT);
    o.assert_success();
    assert!(
        o.stdout.contains("pyopencl images: PASS on ShadowCL"),
        "{}",
        o.describe()
    );
}
