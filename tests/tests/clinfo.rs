//! clinfo's full listing through the real loader: exit 0, ShadowCL listed, no error lines.

use shadowcl_tests::{have_program, run, skip, Icd, TIMEOUT};

#[test]
fn clinfo_full_listing_is_clean() {
    let Some(icd) = Icd::shadowcl("clinfo_full_listing_is_clean") else {
        return;
    };
    if !have_program("clinfo", "--version") {
        skip("clinfo_full_listing_is_clean", "clinfo is not installed");
        return;
    }
    let o = run(icd.command("clinfo"), TIMEOUT);
    o.assert_success();
    assert!(
        o.stdout
            .contains("Number of platforms                               1"),
        "{}",
        o.describe()
    );
    assert!(o.stdout.contains("ShadowCL"), "{}", o.describe());
    let errors: Vec<&str> = o
        .stdout
        .lines()
        .chain(o.stderr.lines())
        .filter(|l| {
            l.contains(": error ")
                || l.contains("<error")
                || l.contains("CL_INVALID")
                || l.contains("failed")
        })
        .collect();
    assert!(
        errors.is_empty(),
        "clinfo error lines:\n{}\n\n{}",
        errors.join("\n"),
        o.describe()
    );
    // The NULL-platform section must find ShadowCL as the default platform too.
    assert!(
        o.stdout
            .contains("clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, ...)   Success"),
        "{}",
        o.describe()
    );

    // The raw listing (every property by its CL_ name) must be clean too.
    let mut raw = icd.command("clinfo");
    raw.arg("--raw");
    let r = run(raw, TIMEOUT);
    r.assert_success();
    let raw_errors: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains(": error ") || l.contains("<error"))
        .collect();
    assert!(
        raw_errors.is_empty(),
        "clinfo --raw error lines:\n{}",
        raw_errors.join("\n")
    );
}
