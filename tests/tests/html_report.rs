//! The HTML report in a real browser. A pyopencl application runs two
//! buggy kernels (`tests/python/kernels/two_bugs.cl`) on ShadowCL with `SHADOWCL_HTML` and
//! `SHADOWCL_REPORT` set; Debian's Chromium, headless, then takes a screenshot of the page
//! and dumps its DOM after the page's script ran: one row per finding of the JSON report,
//! with its kind and kernel, both accesses' lines highlighted in the source, and the filter
//! read from the URL fragment hiding the rows that do not match.
//!
//! Without Chromium the test is skipped, unless `SHADOWCL_REQUIRE_BROWSER` is set (ci/test
//! sets it), which makes a missing browser a failure.

use serde_json::Value;
use shadowcl_tests::{pyopencl_script, run, skip, tests_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const TEST: &str = "html_report_in_headless_chromium";
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);

/// The Chromium binary: `$SHADOWCL_CHROMIUM`, else `chromium` or `chromium-browser` on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SHADOWCL_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `url` with `mode` (`--screenshot=...` or `--dump-dom`) and
/// returns its stdout. A fresh profile folder each time: nothing of a user's profile is read.
fn browse(browser: &Path, profile: &Path, mode: &str, url: &str) -> String {
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        "--window-size=1200,900",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(mode)
    .arg(url);
    let o = run(cmd, BROWSER_TIMEOUT);
    o.assert_success();
    o.stdout
}

/// The start tags `<tr class="finding ...>` in a serialised DOM.
fn finding_rows(dom: &str) -> Vec<&str> {
    dom.match_indices("<tr class=\"finding ")
        .map(|(at, _)| &dom[at..at + dom[at..].find('>').expect("a closed tag")])
        .collect()
}

/// The value of attribute `name` in start tag `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    tag[at..].find('"').map(|end| &tag[at..at + end])
}

fn visible<'a>(rows: &[&'a str]) -> Vec<&'a str> {
    rows.iter()
        .copied()
        .filter(|r| attr(r, "hidden").is_none())
        .collect()
}

/// The finding detail `<article id="finding-N">...</article>` in a serialised DOM.
fn article(dom: &str, n: usize) -> &str {
    let key = format!("id=\"finding-{n}\"");
    let at = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no {key} in the DOM"));
    let end = dom[at..].find("</article>").expect("a closed article");
    &dom[at..at + end]
}

#[test]
fn html_report_in_headless_chromium() {
    let Some(browser) = chromium() else {
        if std::env::var_os("SHADOWCL_REQUIRE_BROWSER").is_some() {
            panic!("{TEST}: chromium not found, and SHADOWCL_REQUIRE_BROWSER is set");
        }
        skip(
            TEST,
            "chromium not found (apt-get install chromium, or set SHADOWCL_CHROMIUM)",
        );
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("report.html");
    let json = dir.path().join("report.json");
    let kernels = tests_dir().join("python").join("kernels");
    let Some(o) = pyopencl_script(
        TEST,
        "html_report.py",
        &[
            ("SHADOWCL_HTML", html.to_str().expect("utf-8 path")),
            ("SHADOWCL_REPORT", json.to_str().expect("utf-8 path")),
            ("SHADOWCL_SOURCE_DIR", kernels.to_str().expect("utf-8 path")),
        ],
    ) else {
        return;
    };
    o.assert_success();
    assert!(
        o.stdout.contains("pyopencl html report: PASS on ShadowCL"),
        "{}",
        o.describe()
    );
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&json).expect("the JSON report is written at exit"),
    )
    .expect("JSON report");
    let findings = report["findings"].as_array().expect("findings").clone();
    let kinds_of = |kind: &str| findings.iter().filter(|f| f["kind"] == kind).count();
    assert!(
        kinds_of("data-race") > 0 && kinds_of("uninitialized-read") > 0,
        "the application's two bugs: {report:#}"
    );
    let page = std::fs::read_to_string(&html).expect("the HTML report is written at exit");
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "nothing fetched"
    );
    let url = format!("file://{}", html.display());
    let profile = dir.path().join("profile");

    // A screenshot of a rendered page: a 1200x900 PNG well past a blank one's few KiB.
    let png = dir.path().join("report.png");
    browse(
        &browser,
        &profile,
        &format!("--screenshot={}", png.display()),
        &url,
    );
    let image = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert_eq!(&image[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let size = |at: usize| u32::from_be_bytes(image[at..at + 4].try_into().expect("4 bytes"));
    assert_eq!((size(16), size(20)), (1200, 900), "IHDR width and height");
    assert!(
        image.len() > 20_000,
        "a near-blank screenshot: {} bytes",
        image.len()
    );

    // The page as the browser built it: one visible row per finding, with its kind and
    // kernel, in the report's order.
    let dom = browse(&browser, &profile, "--dump-dom", &url);
    assert!(
        dom.contains("data-filter=\"\""),
        "the page's script ran: {dom}"
    );
    let rows = finding_rows(&dom);
    assert_eq!(rows.len(), findings.len(), "{dom}");
    assert_eq!(
        visible(&rows).len(),
        rows.len(),
        "no filter: every row shows"
    );
    for (row, f) in rows.iter().zip(&findings) {
        assert_eq!(attr(row, "data-kind"), f["kind"].as_str(), "{row}");
        assert_eq!(attr(row, "data-kernel"), f["kernel"].as_str(), "{row}");
    }
    assert!(dom.contains(&format!(
        "<span id=\"shown-count\">{}</span>",
        findings.len()
    )));
    // Each finding's accesses are marked on their own lines of the kernel file.
    let file = std::fs::canonicalize(kernels.join("two_bugs.cl")).expect("kernel file");
    for (i, f) in findings.iter().enumerate() {
        let a = article(&dom, i + 1);
        for side in ["first", "second"] {
            let Some(line) = f[side]["location"]["line"].as_u64() else {
                continue;
            };
            assert_eq!(
                f[side]["location"]["file"],
                file.to_str().expect("utf-8 path"),
                "{f:#}"
            );
            let tag = format!("data-line=\"{line}\"");
            let at = a
                .find(&tag)
                .unwrap_or_else(|| panic!("line {line} not shown for finding {}: {a}", i + 1));
            let start = a[..at].rfind("<span ").expect("the line's span");
            let class = attr(&a[start..at], "class").unwrap_or_default();
            assert!(
                class.contains(&format!("hl-{side}")),
                "the {side} access's line {line} is not highlighted: {class}"
            );
        }
    }
    // The read-write race is between two lines: the marks above tell the two sides apart.
    let race = findings
        .iter()
        .position(|f| f["race"] == "read-write")
        .unwrap_or_else(|| panic!("a read-write race: {report:#}"));
    let (first, second) = (&findings[race]["first"], &findings[race]["second"]);
    assert_ne!(
        first["location"]["line"], second["location"]["line"],
        "{report:#}"
    );
    let a = article(&dom, race + 1);
    assert!(
        a.contains("int sum = total[0];") && a.contains("total[0] = sum + v;"),
        "{a}"
    );
    assert!(
        a.contains("if (v &lt; 0 &amp;&amp; v &gt; -100)"),
        "kernel source escaped and shown as text: {a}"
    );
    assert!(
        dom.contains("<tr class=\"launch\""),
        "the launches table: {dom}"
    );

    // Filters from the URL fragment: only the matching rows stay visible.
    for (fragment, key, value) in [
        ("#kind=data-race", "kind", "data-race"),
        ("#kernel=scale", "kernel", "scale"),
    ] {
        let dom = browse(
            &browser,
            &profile,
            "--dump-dom",
            &format!("{url}{fragment}"),
        );
        let rows = finding_rows(&dom);
        let shown = visible(&rows);
        let expected = findings.iter().filter(|f| f[key] == value).count();
        assert!(expected > 0 && expected < findings.len(), "{report:#}");
        assert_eq!(shown.len(), expected, "{fragment}: {dom}");
        assert!(
            shown
                .iter()
                .all(|r| attr(r, &format!("data-{key}")) == Some(value)),
            "{fragment}: {shown:#?}"
        );
        assert_eq!(rows.len(), findings.len(), "hidden, not removed");
        assert!(
            dom.contains(&format!("data-filter=\"{key}={value}\"")),
            "{dom}"
        );
        assert!(dom.contains(&format!("<span id=\"shown-count\">{expected}</span>")));
    }
}
