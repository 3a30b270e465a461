//! The report model and its files: JSON field names, SARIF structure, text, settings.

mod common;

use common::*;
use shadowcl_shadow::Exporter as _;
use shadowcl_shadow::{Candidate, Finding, Report, RuleHits};

#[test]
fn json_report_uses_the_contract_field_names() {
    let s = session(Checks::default());
    let r = launch(&s, 3, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    let j = r.to_json();
    assert_eq!(j["tool"], "shadowcl");
    assert_eq!(j["version"], env!("CARGO_PKG_VERSION"));
    let l = &j["launches"][0];
    assert_eq!(
        (l["id"].as_u64(), l["kernel"].as_str()),
        (Some(3), Some("k"))
    );
    assert_eq!(l["global_size"], serde_json::json!([8, 1, 1]));
    assert_eq!(l["local_size"], serde_json::json!([4, 1, 1]));
    assert_eq!(l["global_offset"], serde_json::json!([0, 0, 0]));
    assert!(l["schedule"].as_str().unwrap().contains("wg=in-order"));
    let f = &j["findings"][0];
    for (k, v) in [
        ("kind", "data-race"),
        ("race", "read-write"),
        ("scope", "intra-group"),
        ("memory", "local"),
        ("kernel", "k"),
        ("buffer", "tile"),
    ] {
        assert_eq!(f[k], v, "{k}");
    }
    assert_eq!(
        (
            f["launch"].as_u64(),
            f["offset"].as_i64(),
            f["index"].as_i64(),
            f["count"].as_u64()
        ),
        (Some(3), Some(0), Some(0), Some(1))
    );
    for side in ["first", "second"] {
        let a = &f[side];
        for key in [
            "access",
            "global_id",
            "local_id",
            "group_id",
            "location",
            "source",
        ] {
            assert!(a.get(key).is_some(), "{side}.{key}");
        }
        assert_eq!(a["location"]["file"], "kernel.cl");
        assert_eq!(a["location"]["column"], 5);
    }
    assert_eq!(f["first"]["access"], "write");
    assert_eq!(f["second"]["local_id"], serde_json::json!([1, 0, 0]));
}

#[test]
fn sarif_has_the_2_1_0_structure_with_related_locations() {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    let v = r.to_sarif();
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "shadowcl");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "data-race"));
    let res = &run["results"][0];
    assert_eq!(
        (res["ruleId"].as_str(), res["level"].as_str()),
        (Some("data-race"), Some("error"))
    );
    assert!(res["message"]["text"]
        .as_str()
        .unwrap()
        .contains("read-write"));
    let pl = &res["locations"][0]["physicalLocation"];
    assert_eq!(pl["artifactLocation"]["uri"], "kernel.cl");
    assert_eq!(
        (
            pl["region"]["startLine"].as_u64(),
            pl["region"]["startColumn"].as_u64()
        ),
        (Some(11), Some(5))
    );
    let rel = &res["relatedLocations"][0]["physicalLocation"];
    assert_eq!(rel["region"]["startLine"], 10);
}

#[test]
fn text_names_both_accesses_and_quotes_source_lines() {
    let dir = std::env::temp_dir().join(format!("shadowcl-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.cl");
    std::fs::write(
        &file,
        "kernel void k(local int *t) {\n  t[0] = 1;\n  int x = t[0];\n}\n",
    )
    .unwrap();
    let path: Arc<str> = Arc::from(file.to_str().unwrap());
    let locate = move |i: InstId| {
        Some(SourceLoc {
            file: path.clone(),
            line: i.0,
            column: 3,
        })
    };
    let s = session(Checks::default());
    let c = s.launch(&locate, 0, "serial", &Sequential);
    start(&c, "k");
    let mut g = group(&c, 0);
    for l in 0..3 {
        write(&c, &mut g, Local, AllocId::local(0), 0, wi(0, l), 2);
        read(&c, &mut g, Local, AllocId::local(0), 0, wi(0, l + 1), 3);
    }
    c.group_end(g);
    c.launch_end();
    drop(c);
    let text = s.take_new_text();
    assert!(
        text.contains(
            "data-race (read-write, intra-group) on local memory `tile` at byte 0 (element 0)"
        ),
        "{text}"
    );
    // Three times write-then-read, once read-then-write (item l+1 writes after its own
    // read): the same pair of lines, one finding.
    assert!(text.contains("(4 times)"), "{text}");
    assert!(
        text.contains("| t[0] = 1;") && text.contains("| int x = t[0];"),
        "{text}"
    );
    assert!(
        text.contains("local (0,0,0)") && text.contains("local (1,0,0)"),
        "{text}"
    );
    // Already printed: the next call has nothing new.
    assert!(s.take_new_text().is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn checks_parse_from_the_environment_syntax() {
    assert_eq!("none".parse::<Checks>().unwrap(), Checks::none());
    let c: Checks = "races, uninit".parse().unwrap();
    assert!(c.races && c.uninit && !c.benign && !c.divergence && !c.bounds);
    assert!("races,bogus"
        .parse::<Checks>()
        .unwrap_err()
        .contains("bogus"));
    assert_eq!(Checks::default().list(), "races,divergence,bounds,uninit");
    let cfg = Config::from_lookup(|k| (k == "SHADOWCL_REPORT").then(|| "r.json".into())).unwrap();
    assert_eq!(
        (cfg.checks, cfg.report.as_deref()),
        (Checks::default(), Some(std::path::Path::new("r.json")))
    );
    assert!(Config::from_lookup(|k| (k == "SHADOWCL_CHECKS").then(|| "racez".into())).is_err());
}

#[test]
fn write_files_writes_json_sarif_and_html() {
    let dir = std::env::temp_dir().join(format!("shadowcl-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("r.html");
    let config = Config::from_lookup(|k| match k {
        "SHADOWCL_REPORT" => Some(dir.join("r.json").display().to_string()),
        "SHADOWCL_SARIF" => Some(dir.join("r.sarif").display().to_string()),
        "SHADOWCL_HTML" => Some(html.display().to_string()),
        _ => None,
    })
    .unwrap();
    assert_eq!(config.html.as_deref(), Some(html.as_path()));
    let s = Session::new(config);
    s.write_files().unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("No findings."));
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(j["findings"].as_array().map(Vec::len), Some(0));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.sarif")).unwrap()).unwrap();
    assert_eq!(v["version"], "2.1.0");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn exports_write_each_registered_format_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("shadowcl-exports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = format!(
        "text={},json={},sarif={},html={}",
        dir.join("r.txt").display(),
        dir.join("r.json").display(),
        dir.join("r.sarif").display(),
        dir.join("r.html").display()
    );
    let config = Config::from_lookup(|k| (k == "SHADOWCL_EXPORT").then(|| list.clone())).unwrap();
    let s = Session::new(config);
    s.write_files().unwrap();
    let r = s.report();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(read("r.txt"), r.render_text());
    let pretty = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap() + "\n";
    assert_eq!(read("r.json"), pretty(r.to_json()));
    assert_eq!(read("r.sarif"), pretty(r.to_sarif()));
    assert_eq!(read("r.html"), shadowcl_shadow::Html.render(&r));
    std::fs::remove_dir_all(&dir).unwrap();
    let bad = Config::from_lookup(|k| (k == "SHADOWCL_EXPORT").then(|| "xml=r.xml".into()));
    assert!(bad.unwrap_err().contains("text, json, sarif, html"));
}

/// The line printed at exit: findings by kind, launches, report files; nothing before any
/// launch.
#[test]
fn summary_line_counts_findings_by_kind_and_names_the_reports() {
    let s = session(Checks::default());
    assert_eq!(s.summary(), None);
    launch(&s, 0, false, |c| {
        let g = group(c, 0);
        c.group_end(g);
    });
    assert_eq!(
        s.summary().as_deref(),
        Some("shadowcl: no findings in 1 launch")
    );
    launch(&s, 1, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    let line = s.summary().unwrap();
    assert_eq!(
        line, "shadowcl: 1 finding (data-race 1) in 2 launches",
        "{line}"
    );
    // Named, not written: the summary only says where the report goes.
    let path = std::env::temp_dir().join("shadowcl-summary-test-r.json");
    let with_files = Session::new(Config {
        report: Some(path.clone()),
        ..Config::default()
    });
    launch(&with_files, 0, false, |c| {
        let g = group(c, 0);
        c.group_end(g);
    });
    let line = with_files.summary().unwrap();
    assert!(
        line.ends_with(&format!("; report: {}", path.display())),
        "{line}"
    );
}

/// SARIF locations under the source root are relative URIs against `%SRCROOT%` (what code
/// scanning needs to place them); others are percent-encoded `file://` URIs.
#[test]
fn sarif_uris_are_relative_to_the_source_root() {
    let s = session(Checks::default());
    let mut r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    let f = &mut r.findings[0];
    let at = |file: &str| SourceLoc {
        file: Arc::from(file),
        line: 3,
        column: 1,
    };
    f.second.as_mut().unwrap().location = Some(at("/work/project/src/k ernel.cl"));
    f.first.as_mut().unwrap().location = Some(at("/elsewhere/cache/program.cl"));
    let v = r.to_sarif_with_root(Some(std::path::Path::new("/work/project")));
    let run = &v["runs"][0];
    assert_eq!(
        run["originalUriBaseIds"]["SRCROOT"]["uri"],
        "file:///work/project/"
    );
    let res = &run["results"][0];
    let primary = &res["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(primary["uri"], "src/k%20ernel.cl");
    assert_eq!(primary["uriBaseId"], "SRCROOT");
    let related = &res["relatedLocations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(related["uri"], "file:///elsewhere/cache/program.cl");
    assert!(related.get("uriBaseId").is_none(), "{related}");
}

/// Suppressed findings are left out of the findings and the printed text, and counted: in the
/// JSON (`suppressed`, per-rule `suppressions`), the text report and the exit summary. A
/// finding seen again in a later launch is still one suppressed finding.
#[test]
fn suppressed_findings_are_counted_not_listed() {
    let rules = Suppressions::parse(
        "known.supp",
        "# the tile race is known\nkind:data-race buffer:tile file:kernel.cl:1?\nkernel:other\n",
    )
    .unwrap();
    let s = Session::new(Config {
        suppressions: rules,
        ..Config::default()
    });
    s.buffer_created(BUF, 256, true);
    let racy = |c: &LaunchChecker<'_>| {
        let mut g = group(c, 0);
        // A local race on `tile` (lines 10, 11) and a global one on `data` (lines 20, 21).
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        write(c, &mut g, Global, BUF, 0, wi(0, 0), 20);
        read(c, &mut g, Global, BUF, 0, wi(0, 1), 21);
        c.group_end(g);
    };
    launch(&s, 0, false, racy);
    let r = launch(&s, 1, false, racy);
    assert_eq!(r.findings.len(), 1, "{}", r.render_text());
    assert_eq!(r.findings[0].buffer.as_deref(), Some("data"));
    assert_eq!(r.suppressed, 1);
    let j = r.to_json();
    assert_eq!(j["suppressed"], 1);
    assert_eq!(
        j["suppressions"],
        serde_json::json!([
            { "rule": "kind:data-race buffer:tile file:kernel.cl:1?", "file": "known.supp",
              "line": 2, "hits": 1 },
            { "rule": "kernel:other", "file": "known.supp", "line": 3, "hits": 0 },
        ])
    );
    let printed = s.take_new_text();
    assert!(
        printed.contains("`data`") && !printed.contains("`tile`"),
        "{printed}"
    );
    let text = r.render_text();
    assert!(
        text.ends_with(
            "shadowcl: 1 finding suppressed: known.supp:2 `kind:data-race buffer:tile file:kernel.cl:1?` 1\n"
        ),
        "{text}"
    );
    assert_eq!(
        s.summary().as_deref(),
        Some("shadowcl: 1 finding (data-race 1) in 2 launches, 1 suppressed (known.supp:2 1)")
    );
}

/// `SHADOWCL_SUPPRESSIONS` names a file read at startup: a malformed one is an error naming
/// its line; `SHADOWCL_KERNELS` is a comma list of globs.
#[test]
fn suppressions_and_kernels_come_from_the_environment() {
    let dir = std::env::temp_dir().join(format!("shadowcl-supp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.supp");
    std::fs::write(&good, "kind:hang\n").unwrap();
    let bad = dir.join("bad.supp");
    std::fs::write(&bad, "# fine\nkind:data-race kernal:reduce\n").unwrap();
    let lookup = |file: &std::path::Path| {
        let file = file.display().to_string();
        move |k: &str| match k {
            "SHADOWCL_SUPPRESSIONS" => Some(file.clone()),
            "SHADOWCL_KERNELS" => Some("reduce*,scan".into()),
            _ => None,
        }
    };
    let cfg = Config::from_lookup(lookup(&good)).unwrap();
    assert_eq!(cfg.suppressions.rules.len(), 1);
    let s = Session::new(cfg);
    assert!(s.checks_kernel("reduce_sum") && s.checks_kernel("scan"));
    assert!(!s.checks_kernel("vadd"));
    let err = Config::from_lookup(lookup(&bad)).unwrap_err();
    assert_eq!(
        err,
        format!(
            "SHADOWCL_SUPPRESSIONS: {}:2: unknown field `kernal` (fields: kind, kernel, buffer, file)",
            bad.display()
        )
    );
    let missing = Config::from_lookup(lookup(&dir.join("none.supp"))).unwrap_err();
    assert!(missing.contains("none.supp"), "{missing}");
    // Unset: nothing suppressed, every kernel checked.
    let cfg = Config::from_lookup(|_| None).unwrap();
    assert!(cfg.suppressions.is_empty() && cfg.kernels.matches("anything"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The intra-group race of item 0's write (line 10) and item 1's read (line 11) of a local
/// byte, as a session reports it.
fn local_write_read_race() -> Finding {
    let s = session(Checks::default());
    let r = launch(&s, 0, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    r.findings[0].clone()
}

/// A race seen again with its first access unidentified folds into the identified finding of
/// the same pair; when that one was suppressed, so is the fold (even when the rule named the
/// first access's line, which the unidentified one lacks).
#[test]
fn unidentified_first_accesses_fold_into_suppressed_races() {
    let identified = local_write_read_race();
    let mut unidentified = identified.clone();
    let first = unidentified.first.as_mut().unwrap();
    (
        first.global_id,
        first.local_id,
        first.group_id,
        first.location,
    ) = (None, None, None, None);

    let suppressing = Session::new(Config {
        suppressions: Suppressions::parse("s", "file:kernel.cl:10").unwrap(),
        ..Config::default()
    });
    suppressing.add_finding(identified.clone());
    suppressing.add_finding(unidentified.clone());
    let r = suppressing.report();
    assert!(r.findings.is_empty(), "{}", r.render_text());
    assert_eq!((r.suppressed, r.suppressions[0].hits), (1, 1));

    // Without the rule the same two fold into one listed finding; alone, the unidentified
    // one is listed.
    let plain = Session::new(Config::default());
    plain.add_finding(identified);
    plain.add_finding(unidentified.clone());
    assert_eq!(plain.report().findings.len(), 1);
    let alone = Session::new(Config {
        suppressions: Suppressions::parse("s", "file:kernel.cl:10").unwrap(),
        ..Config::default()
    });
    alone.add_finding(unidentified);
    assert_eq!(alone.report().findings.len(), 1);
    // The text says why the first access has no line instead of leaving it blank.
    let text = alone.report().render_text();
    assert!(
        text.contains("first: read by an unidentified work-item")
            || text.contains("first: write by an unidentified work-item"),
        "{text}"
    );
    assert!(
        text.contains("at an unknown line: the bytes' record kept only the kind of this access"),
        "{text}"
    );

    // With several sites that could have made it, the text and JSON list them instead.
    let mut candidates = unidentified_with_candidates(&alone.report().findings[0]);
    let listing = Session::new(Config::default());
    listing.add_finding(candidates.clone());
    let r = listing.report();
    let text = r.render_text();
    assert!(text.contains("of one of the launches below"), "{text}");
    assert!(text.contains("at one of these sites"), "{text}");
    assert!(text.contains("a.cl:3:1 (kernel ka, launch 0)"), "{text}");
    assert!(text.contains("b.cl:4:1 (kernel kb, launch 1)"), "{text}");
    let json = r.findings[0].to_json();
    assert_eq!(json["first"]["candidates"][1]["kernel"], "kb");
    assert_eq!(json["first"]["candidates"][1]["location"]["line"], 4);
    // Without candidates the JSON list is empty, not absent.
    candidates.first.as_mut().unwrap().candidates.clear();
    assert_eq!(
        candidates.to_json()["first"]["candidates"],
        serde_json::json!([])
    );
}

/// `f` with a first side the record kept only the kind of, and two candidate sites.
fn unidentified_with_candidates(f: &Finding) -> Finding {
    let mut f = f.clone();
    let at = |file: &str, line| {
        Some(SourceLoc {
            file: std::sync::Arc::from(file),
            line,
            column: 1,
        })
    };
    f.first.as_mut().unwrap().candidates = vec![
        Candidate {
            launch: 0,
            kernel: "ka".into(),
            location: at("a.cl", 3),
        },
        Candidate {
            launch: 1,
            kernel: "kb".into(),
            location: at("b.cl", 4),
        },
    ];
    f
}

#[test]
fn json_report_reads_back_as_the_same_model() {
    let s = session(Checks::default());
    let mut r = launch(&s, 3, false, |c| {
        let mut g = group(c, 0);
        write(c, &mut g, Local, AllocId::local(0), 0, wi(0, 0), 10);
        read(c, &mut g, Local, AllocId::local(0), 0, wi(0, 1), 11);
        c.group_end(g);
    });
    assert!(!r.findings.is_empty());
    r.findings
        .push(unidentified_with_candidates(&r.findings[0]));
    r.dropped = 1;
    r.suppressed = 2;
    r.suppressions.push(RuleHits {
        rule: "kind: data-race".into(),
        file: "known.supp".into(),
        line: 3,
        hits: 2,
    });
    let text = serde_json::to_string_pretty(&r.to_json()).unwrap();
    assert_eq!(Report::from_json(&text).unwrap(), r);

    // A report from before `candidates` and the suppression fields reads too.
    let mut old = r.to_json();
    for f in old["findings"].as_array_mut().unwrap() {
        for side in ["first", "second"] {
            f[side].as_object_mut().unwrap().remove("candidates");
        }
    }
    for key in ["suppressed", "suppressions", "dropped"] {
        old.as_object_mut().unwrap().remove(key);
    }
    let back = Report::from_json(&old.to_string()).unwrap();
    assert_eq!(back.findings.len(), r.findings.len());
    assert!(back.findings[1]
        .first
        .as_ref()
        .unwrap()
        .candidates
        .is_empty());
    assert_eq!((back.suppressed, back.dropped), (0, 0));

    // Anything else is an error, not a panic or a guess.
    for bad in [
        "",
        "[]",
        r#"{"launches": [], "findings": 3}"#,
        r#"{"launches": [], "findings": [{"kind": "no-such-kind"}]}"#,
    ] {
        assert!(Report::from_json(bad).is_err(), "{bad}");
    }
    let mut wrong_space = r.to_json();
    wrong_space["findings"][0]["memory"] = serde_json::json!("shared");
    assert!(Report::from_json(&wrong_space.to_string()).is_err());
}

#[test]
fn refused_host_accesses_are_findings_of_the_host() {
    let s = session(Checks::default());
    s.host_access_refused(
        BUF,
        16,
        "clEnqueueReadBuffer",
        "read",
        "CL_MEM_HOST_NO_ACCESS",
    );
    s.host_access_refused(
        BUF,
        16,
        "clEnqueueReadBuffer",
        "read",
        "CL_MEM_HOST_NO_ACCESS",
    );
    let r = s.report();
    assert_eq!(r.findings.len(), 1, "{}", r.render_text());
    let f = &r.findings[0];
    assert_eq!(
        (f.kind, f.count, f.kernel.as_str()),
        (FindingKind::InvalidAccess, 2, "")
    );
    let text = r.render_text();
    assert!(
        text.contains(
            "invalid-access on global memory `buffer#1000` at byte 16 by the host (after 0 \
             launches): clEnqueueReadBuffer: host read of a memory object created with \
             CL_MEM_HOST_NO_ACCESS (refused with CL_INVALID_OPERATION)"
        ),
        "{text}"
    );
}

/// A race is one finding whichever of its accesses ran first: a host command running beside
/// a kernel meets some bytes before the kernel's writes and some after, and each launch
/// notices the pair from its own side. Distinct pairs stay distinct.
#[test]
fn a_race_seen_in_both_orders_is_one_finding() {
    let seen = local_write_read_race();
    let mut swapped = seen.clone();
    std::mem::swap(&mut swapped.first, &mut swapped.second);
    swapped.kernel = "clEnqueueReadBuffer".into();
    swapped.launch += 1;
    let mut other = seen.clone();
    other
        .second
        .as_mut()
        .unwrap()
        .location
        .as_mut()
        .unwrap()
        .line = 12;

    let merged = Session::new(Config::default());
    merged.add_finding(seen);
    merged.add_finding(swapped);
    merged.add_finding(other);
    let r = merged.report();
    assert_eq!(r.findings.len(), 2, "{}", r.render_text());
    assert_eq!(r.findings[0].count, 2, "{}", r.render_text());
    assert_eq!(r.findings[1].count, 1, "{}", r.render_text());
}

/// An out-of-bounds line is one finding across launches whatever offset each launch met
/// first (dwt2d's index depends on its own race, so on the schedule); another line is another.
#[test]
fn an_out_of_bounds_line_is_one_finding_whatever_its_offsets() {
    let out_of_bounds = |launch: u64, offset: i64, line: u32| {
        let mut f = local_write_read_race();
        f.kind = shadowcl_shadow::FindingKind::OutOfBounds;
        f.race = None;
        f.first = None;
        f.launch = launch;
        f.offset = Some(offset);
        f.message = format!("4-byte access at offset {offset} of a 64-byte allocation");
        let second = f.second.as_mut().expect("the race has a second side");
        second.location.as_mut().expect("the read has a line").line = line;
        f
    };
    let s = Session::new(Config::default());
    s.add_finding(out_of_bounds(2, -8, 11));
    s.add_finding(out_of_bounds(3, -136, 11));
    s.add_finding(out_of_bounds(3, 64, 12));
    let r = s.report();
    assert_eq!(r.findings.len(), 2, "{}", r.render_text());
    assert_eq!(r.findings[0].count, 2, "{}", r.render_text());
    assert_eq!(
        r.findings[0].offset,
        Some(-8),
        "the first launch's example is kept"
    );
    assert_eq!(r.findings[1].count, 1, "{}", r.render_text());
    // One access, no pair: the text does not call it a second one.
    let text = r.render_text();
    assert!(text.contains("\n  access: read by work-item"), "{text}");
    assert!(!text.contains("second:"), "{text}");
}

/// The side of a barrier divergence that ended the kernel without reaching the barrier has a
/// work-item and no line: the text says so, not that a record forgot who it was.
#[test]
fn an_item_that_skipped_the_barrier_is_described_as_ending_the_kernel() {
    let mut f = local_write_read_race();
    f.kind = shadowcl_shadow::FindingKind::BarrierDivergence;
    f.race = None;
    let second = f.second.as_mut().expect("the race has a second side");
    second.access = "exit".into();
    second.location = None;
    let s = Session::new(Config::default());
    s.add_finding(f);
    let text = s.report().render_text();
    assert!(
        text.contains("(it ended the kernel without reaching the barrier)"),
        "{text}"
    );
    assert!(!text.contains("record kept only"), "{text}");
}

/// A race on a field of a `__local` struct variable names its byte, not an "element 0" that
/// every field of the struct would share (Rodinia dwt2d); an array still names its element.
#[test]
fn a_local_struct_variable_has_no_element_index() {
    let s = session(Checks::default());
    let c = s.launch(
        &loc,
        0,
        "wg=in-order,wi=in-order,q=0,seed=0,serial",
        &Sequential,
    );
    let local = [
        LocalAlloc {
            name: "fdwt53".into(),
            size: 48,
            arg_index: None,
            elem_size: 48,
        },
        LocalAlloc {
            name: "tile".into(),
            size: 64,
            arg_index: None,
            elem_size: 4,
        },
    ];
    c.launch_start(&one_group_launch("k", LOCAL as u64, &[], &local));
    let mut g = group(&c, 0);
    for slot in 0..2 {
        write(&c, &mut g, Local, AllocId::local(slot), 40, wi(0, 0), 10);
        read(&c, &mut g, Local, AllocId::local(slot), 40, wi(0, 1), 11);
    }
    c.group_end(g);
    c.launch_end();
    let r = s.report();
    let at = |name: &str| {
        r.findings
            .iter()
            .find(|f| f.buffer.as_deref() == Some(name))
            .map(|f| (f.offset, f.index))
    };
    assert_eq!(at("fdwt53"), Some((Some(40), None)), "{}", r.render_text());
    assert_eq!(
        at("tile"),
        Some((Some(40), Some(10))),
        "{}",
        r.render_text()
    );
}
