//! The HTML report: one self-contained page (inline CSS and script, nothing fetched) that a
//! user opens to understand a finding: counts by kind, a table of findings filterable by kind
//! and kernel, each finding with both accesses' source lines highlighted in their file, the
//! work-items, buffer and byte offset, and the launches.
//!
//! Filtering is done by the page's script over the `data-kind` / `data-kernel` attributes of
//! the findings' rows and detail sections; it also reads the filter from the URL fragment
//! (`report.html#kind=data-race&kernel=reduce`), so a filtered view can be linked to, and
//! tested with a headless browser's DOM dump without a driver.

use crate::report::{ids, source_lines, space_name, Finding, FindingKind, Report, Side};
use shadowcl_interpreter::SourceLoc;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// Lines of source shown around each access.
const CONTEXT: usize = 4;
/// Excerpts of the same file closer than this many lines are shown as one.
const JOIN_GAP: usize = 6;

/// The whole page.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let n = report.findings.len();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>ShadowCL report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&plural(n as u64, "finding", "findings"))
    );
    let _ = write!(
        out,
        "<header>\n<h1>ShadowCL report</h1>\n<p class=\"summary\">{}</p>\n</header>\n<main>\n",
        esc(&summary(report))
    );
    if let Some(why) = &report.incomplete {
        let _ = writeln!(
            out,
            "<p class=\"incomplete\"><strong>Incomplete:</strong> {}</p>",
            esc(why)
        );
    }
    counts(&mut out, report);
    findings_table(&mut out, report);
    if n > 0 {
        out.push_str("<section id=\"details\">\n<h2>Details</h2>\n");
        for (i, f) in report.findings.iter().enumerate() {
            detail(&mut out, i + 1, f);
        }
        out.push_str("</section>\n");
    }
    launches(&mut out, report);
    let _ = write!(
        out,
        "</main>\n<footer>shadowcl {}</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        esc(env!("CARGO_PKG_VERSION"))
    );
    out
}

/// Text made safe for element content and quoted attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `1 launch`, `2 launches`.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Findings and occurrences of each kind present, in `FindingKind::ALL` order.
fn by_kind(report: &Report) -> BTreeMap<FindingKind, (u64, u64)> {
    let mut m = BTreeMap::new();
    for f in &report.findings {
        let e = m.entry(f.kind).or_insert((0, 0));
        e.0 += 1;
        e.1 += f.count;
    }
    m
}

/// `3 findings (2 data-race, 1 out-of-bounds) in 2 launches`.
fn summary(report: &Report) -> String {
    let kinds: Vec<String> = by_kind(report)
        .iter()
        .map(|(k, (n, _))| format!("{n} {}", k.name()))
        .collect();
    let mut s = plural(report.findings.len() as u64, "finding", "findings");
    if !kinds.is_empty() {
        let _ = write!(s, " ({})", kinds.join(", "));
    }
    let _ = write!(
        s,
        " in {}",
        plural(report.launches.len() as u64, "launch", "launches")
    );
    if report.dropped > 0 {
        let _ = write!(
            s,
            "; {} more distinct findings were dropped (per-launch cap)",
            report.dropped
        );
    }
    if report.suppressed > 0 {
        let _ = write!(s, "; {} suppressed", report.suppressed);
    }
    s
}

fn counts(out: &mut String, report: &Report) {
    out.push_str("<section id=\"counts\">\n<h2>Findings by kind</h2>\n");
    let kinds = by_kind(report);
    if kinds.is_empty() {
        out.push_str("<p class=\"clean\">No findings.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<table class=\"counts\">\n<thead><tr><th>Kind</th><th>Findings</th>\
         <th>Occurrences</th><th>What it means</th></tr></thead>\n<tbody>\n",
    );
    for (k, (n, times)) in kinds {
        let _ = writeln!(
            out,
            "<tr class=\"count level-{}\" data-count-kind=\"{}\"><td><button type=\"button\" \
             data-filter-kind=\"{1}\" title=\"show only these\">{1}</button></td>\
             <td class=\"num\">{n}</td><td class=\"num\">{times}</td><td>{}</td></tr>",
            k.level(),
            esc(k.name()),
            esc(k.description()),
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The kernels findings name, sorted, for the kernel filter.
fn kernels(report: &Report) -> Vec<&str> {
    let mut k: Vec<&str> = report.findings.iter().map(|f| f.kernel.as_str()).collect();
    k.sort_unstable();
    k.dedup();
    k
}

fn findings_table(out: &mut String, report: &Report) {
    if report.findings.is_empty() {
        return;
    }
    out.push_str("<section id=\"findings\">\n<h2>Findings</h2>\n<form class=\"filters\">\n");
    out.push_str("<label>Kind <select id=\"filter-kind\"><option value=\"\">all kinds</option>");
    for k in by_kind(report).keys() {
        let _ = write!(out, "<option>{}</option>", esc(k.name()));
    }
    out.push_str("</select></label>\n<label>Kernel <select id=\"filter-kernel\"><option value=\"\">all kernels</option>");
    for k in kernels(report) {
        let _ = write!(out, "<option>{}</option>", esc(k));
    }
    let _ = write!(
        out,
        "</select></label>\n<span class=\"shown\"><span id=\"shown-count\">{n}</span> of {n} shown</span>\n</form>\n",
        n = report.findings.len()
    );
    out.push_str(
        "<table class=\"findings\">\n<thead><tr><th>#</th><th>Kind</th><th>Kernel</th>\
         <th>Launch</th><th>Buffer</th><th>Byte offset</th><th>Accesses</th><th>Count</th>\
         </tr></thead>\n<tbody>\n",
    );
    for (i, f) in report.findings.iter().enumerate() {
        let i = i + 1;
        let accesses = [&f.first, &f.second]
            .into_iter()
            .flatten()
            .map(|s| match &s.location {
                Some(l) => format!("{} at line {}", s.access, l.line),
                None => s.access.clone(),
            })
            .collect::<Vec<_>>()
            .join(" / ");
        let _ = writeln!(
            out,
            "<tr class=\"finding level-{}\" id=\"row-{i}\" {}><td><a href=\"#finding-{i}\">{i}</a></td>\
             <td class=\"kind\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td>\
             <td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            f.kind.level(),
            filter_attrs(f),
            esc(&kind_label(f)),
            esc(&f.kernel),
            f.launch,
            esc(&buffer_label(f)),
            esc(&offset_label(f)),
            esc(&accesses),
            f.count,
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The attributes the page's filter matches on.
fn filter_attrs(f: &Finding) -> String {
    format!(
        "data-kind=\"{}\" data-kernel=\"{}\"",
        esc(f.kind.name()),
        esc(&f.kernel)
    )
}

/// `data-race (read-write, intra-group)`.
fn kind_label(f: &Finding) -> String {
    let mut s = f.kind.name().to_string();
    let detail: Vec<&str> = f
        .race
        .map(|r| r.name())
        .into_iter()
        .chain(f.scope.map(|s| s.name()))
        .collect();
    if !detail.is_empty() {
        let _ = write!(s, " ({})", detail.join(", "));
    }
    s
}

/// `scratch (local)`, or empty.
fn buffer_label(f: &Finding) -> String {
    match (&f.buffer, f.memory) {
        (Some(b), Some(m)) => format!("{b} ({})", space_name(m)),
        (Some(b), None) => b.clone(),
        (None, Some(m)) => format!("({} memory)", space_name(m)),
        (None, None) => String::new(),
    }
}

/// `12 (element 3)`, or empty.
fn offset_label(f: &Finding) -> String {
    match (f.offset, f.index) {
        (Some(o), Some(i)) => format!("{o} (element {i})"),
        (Some(o), None) => o.to_string(),
        _ => String::new(),
    }
}

fn work_item(s: &Side) -> String {
    if s.host {
        return format!("host command {}", s.kernel);
    }
    match (s.global_id, s.local_id, s.group_id) {
        (_, _, Some(w)) if s.group_copy => format!("the async copy of work-group {}", ids(&w)),
        (Some(g), Some(l), Some(w)) => {
            format!("global {} local {} group {}", ids(&g), ids(&l), ids(&w))
        }
        _ => "unidentified (the record kept only the kind of access)".to_string(),
    }
}

/// Where a side's access is: its line, or the sites that may have made it.
fn side_location(s: &Side) -> String {
    match (&s.location, s.candidates.as_slice()) {
        (Some(l), _) if s.unidentified() => {
            format!(
                "{} (the only site that made such an access)",
                location_label(l)
            )
        }
        (Some(l), _) => location_label(l),
        (None, _) if s.host => "none (a host command)".to_string(),
        (None, []) => "unknown".to_string(),
        (None, cs) => {
            let list: Vec<String> = cs
                .iter()
                .map(|c| {
                    let at = c
                        .location
                        .as_ref()
                        .map_or_else(|| "unknown line".to_string(), location_label);
                    format!("{at} ({} launch {})", c.kernel, c.launch)
                })
                .collect();
            format!("one of: {}", list.join("; "))
        }
    }
}

fn location_label(l: &SourceLoc) -> String {
    format!("{}:{}:{}", l.file, l.line, l.column)
}

fn detail(out: &mut String, i: usize, f: &Finding) {
    let _ = writeln!(
        out,
        "<article class=\"finding-detail level-{}\" id=\"finding-{i}\" {}>\n\
         <h3><a href=\"#row-{i}\">#{i}</a> {}</h3>",
        f.kind.level(),
        filter_attrs(f),
        esc(&f.headline())
    );
    let _ = writeln!(out, "<p class=\"what\">{}.</p>", esc(f.kind.description()));
    out.push_str("<dl class=\"facts\">");
    let mut fact = |name: &str, value: String| {
        if !value.is_empty() {
            let _ = write!(out, "<dt>{name}</dt><dd>{}</dd>", esc(&value));
        }
    };
    if f.second.as_ref().is_some_and(|s| s.host) {
        fact(
            "Host command",
            format!("{} (command {})", f.kernel, f.launch),
        );
    } else {
        fact("Kernel", format!("{} (launch {})", f.kernel, f.launch));
    }
    fact("Buffer", buffer_label(f));
    fact("Byte offset", offset_label(f));
    fact("Seen", format!("{} {}", f.count, f.kind.counted()));
    out.push_str("</dl>\n");
    let sides: Vec<(&str, &Side)> = [("first", &f.first), ("second", &f.second)]
        .into_iter()
        .filter_map(|(role, s)| s.as_ref().map(|s| (role, s)))
        .collect();
    if !sides.is_empty() {
        out.push_str(
            "<table class=\"sides\">\n<thead><tr><th></th><th>Access</th><th>Work-item</th>\
             <th>Kernel (launch)</th><th>Location</th></tr></thead>\n<tbody>\n",
        );
        for (role, s) in &sides {
            let _ = writeln!(
                out,
                "<tr class=\"side-{role}\"><th>{role}</th><td>{}</td><td>{}</td>\
                 <td>{} ({})</td><td>{}</td></tr>",
                esc(&s.access),
                esc(&work_item(s)),
                esc(&s.kernel),
                s.launch,
                esc(&side_location(s)),
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    let located: Vec<(&str, &SourceLoc)> = sides
        .iter()
        .filter_map(|(role, s)| s.location.as_ref().map(|l| (*role, l)))
        .collect();
    source_excerpts(out, &located);
    out.push_str("</article>\n");
}

/// For each file the accesses are in, its lines around them, the accesses' lines marked.
fn source_excerpts(out: &mut String, located: &[(&str, &SourceLoc)]) {
    let mut files: Vec<&Arc<str>> = Vec::new();
    for (_, l) in located {
        if !files.contains(&&l.file) {
            files.push(&l.file);
        }
    }
    for file in files {
        let here: Vec<(&str, usize)> = located
            .iter()
            .filter(|(_, l)| l.file == *file)
            .map(|(role, l)| (*role, l.line as usize))
            .collect();
        let lines = source_lines(file);
        let count = lines.as_ref().map_or(0, |l| l.len());
        let shown: Vec<usize> = here
            .iter()
            .map(|(_, n)| *n)
            .filter(|n| (1..=count).contains(n))
            .collect();
        let _ = write!(
            out,
            "<div class=\"source\">\n<div class=\"file\">{}</div>\n",
            esc(file)
        );
        let Some(lines) = lines.filter(|_| !shown.is_empty()) else {
            let _ = writeln!(
                out,
                "<p class=\"no-source\">The source is not readable here (line {}).</p>\n</div>",
                here.iter()
                    .map(|(_, n)| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            continue;
        };
        out.push_str("<pre>");
        for (k, (from, to)) in ranges(&shown, count).into_iter().enumerate() {
            if k > 0 {
                out.push_str("<span class=\"gap\">⋯</span>");
            }
            for n in from..=to {
                let roles: Vec<&str> = here
                    .iter()
                    .filter(|(_, line)| *line == n)
                    .map(|(role, _)| *role)
                    .collect();
                let (class, mark) = match roles.as_slice() {
                    [] => ("line", ""),
                    [r] if *r == "first" => ("line hl hl-first", "first"),
                    [_] => ("line hl hl-second", "second"),
                    _ => ("line hl hl-first hl-second", "both"),
                };
                // No newline between lines: each is a block already, and a `pre` would show it.
                let _ = write!(
                    out,
                    "<span class=\"{class}\" data-line=\"{n}\"><span class=\"ln\">{n}</span><span class=\"mark\">{mark}</span><code>{}</code></span>",
                    esc(&lines[n - 1])
                );
            }
        }
        out.push_str("</pre>\n</div>\n");
    }
}

/// The 1-based line ranges to show around `marked` in a file of `count` lines, joined when
/// close.
fn ranges(marked: &[usize], count: usize) -> Vec<(usize, usize)> {
    let mut want: Vec<(usize, usize)> = marked
        .iter()
        .map(|&n| (n.saturating_sub(CONTEXT).max(1), (n + CONTEXT).min(count)))
        .collect();
    want.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (from, to) in want {
        match out.last_mut() {
            Some(last) if from <= last.1 + JOIN_GAP => last.1 = last.1.max(to),
            _ => out.push((from, to)),
        }
    }
    out
}

fn launches(out: &mut String, report: &Report) {
    out.push_str("<section id=\"launches\">\n<h2>Launches</h2>\n");
    if report.launches.is_empty() {
        out.push_str("<p>No kernel launch was checked.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<table class=\"launches\">\n<thead><tr><th>Launch</th><th>Kernel</th>\
         <th>Global size</th><th>Local size</th><th>Global offset</th><th>Schedule</th>\
         <th>Findings</th></tr></thead>\n<tbody>\n",
    );
    for l in &report.launches {
        let found = report.findings.iter().filter(|f| f.launch == l.id).count();
        let _ = writeln!(
            out,
            "<tr class=\"launch\" data-launch=\"{}\"><td class=\"num\">{0}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{found}</td></tr>",
            l.id,
            esc(&l.kernel),
            ids(&l.global_size),
            ids(&l.local_size),
            ids(&l.global_offset),
            esc(&l.schedule),
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

const STYLE: &str = r##"
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #fbfbfd; --card: #fff;
  --line: #d9dde6; --first: #fff1c2; --first-bar: #d49b00; --second: #ffd9d6; --second-bar: #c9342b;
  --error: #c9342b; --warning: #b86e00; --note: #3b6fb6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e7ee; --muted: #9aa3b5; --bg: #15181e;
  --card: #1d2129; --line: #343a46; --first: #4a3d10; --second: #4e2020; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header, main, footer { max-width: 1200px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 1.5em; margin: 0 0 4px; }
h2 { font-size: 1.15em; margin: 28px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1em; margin: 0 0 6px; }
.summary { margin: 0; color: var(--muted); }
footer { color: var(--muted); font-size: .85em; padding: 24px 20px; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { font-size: .85em; color: var(--muted); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.level-error .kind, .level-error button, .level-error h3 a { color: var(--error); }
.level-warning .kind, .level-warning button, .level-warning h3 a { color: var(--warning); }
.level-note .kind, .level-note button, .level-note h3 a { color: var(--note); }
button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; text-decoration: underline dotted; }
.filters { display: flex; gap: 18px; align-items: center; margin: 0 0 10px; }
.filters select { font: inherit; padding: 2px 4px; }
.shown { color: var(--muted); }
.finding-detail { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: 4px; padding: 12px 14px; margin: 0 0 16px; }
.finding-detail.level-error { border-left-color: var(--error); }
.finding-detail.level-warning { border-left-color: var(--warning); }
.finding-detail.level-note { border-left-color: var(--note); }
.finding-detail:target { outline: 2px solid var(--note); }
.what { margin: 0 0 8px; color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 10px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.sides { margin: 0 0 10px; }
.side-first th { box-shadow: inset 4px 0 var(--first-bar); }
.side-second th { box-shadow: inset 4px 0 var(--second-bar); }
.source { border: 1px solid var(--line); border-radius: 3px; margin: 8px 0 0; overflow-x: auto; }
.source .file { font: .85em ui-monospace, monospace; color: var(--muted); padding: 4px 8px; border-bottom: 1px solid var(--line); }
.source pre { margin: 0; padding: 4px 0; font: 13px/1.5 ui-monospace, "DejaVu Sans Mono", monospace; tab-size: 4; }
.line { display: block; padding-right: 8px; }
.ln { display: inline-block; width: 4.5em; padding-right: 8px; text-align: right; color: var(--muted); user-select: none; }
.mark { display: inline-block; width: 4.5em; font-size: .8em; font-weight: 700; user-select: none; }
.hl-first { background: var(--first); box-shadow: inset 4px 0 var(--first-bar); }
.hl-second { background: var(--second); box-shadow: inset 4px 0 var(--second-bar); }
.hl-first.hl-second { background: linear-gradient(90deg, var(--first), var(--second)); }
.gap { display: block; padding-left: 4.5em; color: var(--muted); }
.no-source { margin: 6px 8px; color: var(--muted); }
.clean { font-weight: 600; }
"##;

/// Filters rows and details by kind and kernel; the filter lives in the URL fragment
/// (`#kind=K&kernel=N`) so a view can be linked to. Unknown values show everything.
const SCRIPT: &str = r##"
(function () {
  var kind = document.getElementById("filter-kind");
  var kernel = document.getElementById("filter-kernel");
  if (!kind || !kernel) return;
  function pick(select, value) {
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === value) { select.selectedIndex = i; return; }
    }
    select.selectedIndex = 0;
  }
  function apply(remember) {
    var k = kind.value, n = kernel.value, shown = 0;
    document.querySelectorAll("[data-kind]").forEach(function (el) {
      var ok = (!k || el.dataset.kind === k) && (!n || el.dataset.kernel === n);
      el.hidden = !ok;
      if (ok && el.matches("tr.finding")) shown++;
    });
    document.getElementById("shown-count").textContent = shown;
    document.body.dataset.filter = (k ? "kind=" + k : "") + (k && n ? "&" : "") + (n ? "kernel=" + n : "");
    if (remember) {
      var parts = [];
      if (k) parts.push("kind=" + encodeURIComponent(k));
      if (n) parts.push("kernel=" + encodeURIComponent(n));
      try { history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname + location.search); } catch (e) {}
    }
  }
  function fromFragment() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (!params.has("kind") && !params.has("kernel")) return false;
    pick(kind, params.get("kind") || "");
    pick(kernel, params.get("kernel") || "");
    return true;
  }
  kind.addEventListener("change", function () { apply(true); });
  kernel.addEventListener("change", function () { apply(true); });
  document.querySelectorAll("[data-filter-kind]").forEach(function (b) {
    b.addEventListener("click", function () { pick(kind, b.dataset.filterKind); apply(true); });
  });
  window.addEventListener("hashchange", function () { if (fromFragment()) apply(false); });
  fromFragment();
  apply(false);
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Candidate, LaunchSummary, RaceKind, Scope};
    use shadowcl_interpreter::AddressSpace;

    fn side(access: &str, item: u64, file: &str, line: u32) -> Side {
        Side {
            access: access.into(),
            global_id: Some([item, 0, 0]),
            local_id: Some([item as u32, 0, 0]),
            group_id: Some([0, 0, 0]),
            location: Some(SourceLoc {
                file: Arc::from(file),
                line,
                column: 3,
            }),
            launch: 0,
            kernel: "k<1>".into(),
            group_copy: false,
            host: false,
            candidates: Vec::new(),
        }
    }

    fn race(kernel: &str, file: &str, lines: (u32, u32)) -> Finding {
        Finding {
            synchronisation: None,
            kind: FindingKind::DataRace,
            race: Some(RaceKind::ReadWrite),
            scope: Some(Scope::IntraGroup),
            memory: Some(AddressSpace::Local),
            launch: 0,
            kernel: kernel.into(),
            buffer: Some("tile".into()),
            offset: Some(12),
            index: Some(3),
            first: Some(side("write", 1, file, lines.0)),
            second: Some(side("read", 2, file, lines.1)),
            count: 5,
            message: String::new(),
        }
    }

    fn report(findings: Vec<Finding>) -> Report {
        Report {
            incomplete: None,
            launches: vec![LaunchSummary {
                id: 0,
                kernel: "k<1>".into(),
                global_size: [8, 1, 1],
                local_size: [4, 1, 1],
                global_offset: [0, 0, 0],
                schedule: "wg=in-order & wi=reverse".into(),
            }],
            findings,
            dropped: 0,
            suppressed: 0,
            suppressions: vec![],
        }
    }

    fn kernel_file(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("shadowcl-html-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn text_is_escaped_everywhere() {
        assert_eq!(
            esc(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let file = kernel_file(
            "escape.cl",
            "__kernel void k(__global int *a) {\n  if (a[0] < 3 && a[1] > 2)\n    a[0] = 1;\n}\n",
        );
        let mut f = race("k<1>", &file, (2, 3));
        f.buffer = Some("<b>\"x\"".into());
        f.message = "a </script> in a message".into();
        let html = render(&report(vec![f]));
        assert!(
            html.contains("if (a[0] &lt; 3 &amp;&amp; a[1] &gt; 2)"),
            "{html}"
        );
        assert!(html.contains("data-kernel=\"k&lt;1&gt;\""), "{html}");
        assert!(html.contains("&lt;b&gt;&quot;x&quot;"), "{html}");
        assert!(html.contains("wg=in-order &amp; wi=reverse"), "{html}");
        // Outside the page's own style and script, nothing of the report's text is raw.
        assert_eq!(html.matches("<script>").count(), 1);
        let (head, rest) = html.split_once("</style>").unwrap();
        let body = rest.split_once("<script>").unwrap().0;
        for raw in ["<1>", "<b>", "</script> in", "< 3", "&& "] {
            assert!(!body.contains(raw), "unescaped {raw:?} in\n{body}");
        }
        assert!(head.contains("<title>ShadowCL report: 1 finding</title>"));
    }

    #[test]
    fn one_row_and_one_detail_per_finding_with_counts_by_kind() {
        let file = kernel_file(
            "rows.cl",
            &(1..=40).map(|i| format!("line {i}\n")).collect::<String>(),
        );
        let mut bounds = race("other", &file, (30, 30));
        bounds.kind = FindingKind::OutOfBounds;
        bounds.race = None;
        bounds.scope = None;
        bounds.first = None;
        bounds.count = 1;
        let r = report(vec![
            race("k<1>", &file, (3, 5)),
            race("k<1>", &file, (3, 25)),
            bounds,
        ]);
        let html = render(&r);
        assert_eq!(html.matches("<tr class=\"finding ").count(), 3);
        assert_eq!(html.matches("<article class=\"finding-detail ").count(), 3);
        assert_eq!(html.matches("data-kind=\"data-race\"").count(), 4);
        assert_eq!(html.matches("data-kind=\"out-of-bounds\"").count(), 2);
        assert!(html.contains(
            "<td class=\"num\">2</td><td class=\"num\">10</td><td>Two work-items access"
        ));
        assert!(html.contains("3 findings (2 data-race, 1 out-of-bounds) in 1 launch"));
        // Both filters list what the findings name, once each.
        assert_eq!(html.matches("<option>data-race</option>").count(), 1);
        assert_eq!(html.matches("<option>k&lt;1&gt;</option>").count(), 1);
        assert_eq!(html.matches("<option>other</option>").count(), 1);
        // Lines 3 and 25 are far apart: two excerpts of the file with a gap between.
        assert_eq!(html.matches("class=\"line hl hl-first\"").count(), 2);
        assert_eq!(html.matches("class=\"line hl hl-second\"").count(), 3);
        assert!(html.contains("data-line=\"25\"><span class=\"ln\">25</span><span class=\"mark\">second</span><code>line 25</code>"));
        assert_eq!(html.matches("class=\"gap\"").count(), 1);
        assert_eq!(html.matches("<tr class=\"launch\"").count(), 1);
    }

    #[test]
    fn excerpts_join_close_lines_and_stay_in_the_file() {
        assert_eq!(ranges(&[3, 5], 40), [(1, 9)]);
        assert_eq!(ranges(&[3, 25], 40), [(1, 7), (21, 29)]);
        assert_eq!(ranges(&[38], 40), [(34, 40)]);
        assert_eq!(ranges(&[5, 5], 6), [(1, 6)]);
    }

    #[test]
    fn a_line_both_accesses_share_and_an_unreadable_file() {
        let file = kernel_file("same.cl", "a\nb\nc[i] += 1;\nd\n");
        let html = render(&report(vec![race("k", &file, (3, 3))]));
        assert!(html.contains(
            "<span class=\"line hl hl-first hl-second\" data-line=\"3\"><span class=\"ln\">3</span><span class=\"mark\">both</span><code>c[i] += 1;</code>"
        ));
        let html = render(&report(vec![race("k", "/nonexistent/k.cl", (3, 4))]));
        assert!(html.contains("The source is not readable here (line 3, 4)."));
        assert!(html.contains("/nonexistent/k.cl:4:3"));
    }

    #[test]
    fn an_unidentified_first_access_shows_its_site_or_candidates() {
        let mut r = race("k", "/nonexistent/k.cl", (3, 4));
        let first = r.first.as_mut().unwrap();
        (first.global_id, first.local_id, first.group_id) = (None, None, None);
        let html = render(&report(vec![r.clone()]));
        assert!(html.contains("unidentified (the record kept only the kind of access)"));
        assert!(html.contains("/nonexistent/k.cl:3:3 (the only site that made such an access)"));

        let first = r.first.as_mut().unwrap();
        first.location = None;
        first.candidates = ["a.cl", "b.cl"]
            .iter()
            .enumerate()
            .map(|(i, f)| Candidate {
                launch: i as u64,
                kernel: format!("k{i}"),
                location: Some(SourceLoc {
                    file: Arc::from(*f),
                    line: 7,
                    column: 1,
                }),
            })
            .collect();
        let html = render(&report(vec![r]));
        assert!(
            html.contains("one of: a.cl:7:1 (k0 launch 0); b.cl:7:1 (k1 launch 1)"),
            "{html}"
        );
    }

    #[test]
    fn a_host_command_side_is_named_as_the_command() {
        let mut r = race("k", "/nonexistent/k.cl", (3, 4));
        r.scope = Some(Scope::HostCommand);
        (r.kernel, r.launch) = ("clEnqueueReadBuffer".into(), 7);
        let second = r.second.as_mut().unwrap();
        (second.global_id, second.local_id, second.group_id) = (None, None, None);
        (second.location, second.host, second.launch) = (None, true, 7);
        second.kernel = "clEnqueueReadBuffer".into();
        let text = report(vec![r.clone()]).render_text();
        assert!(
            text.contains("read by host command clEnqueueReadBuffer (command 7)"),
            "{text}"
        );
        assert!(
            text.contains("in host command clEnqueueReadBuffer (command 7)"),
            "{text}"
        );
        assert!(!text.contains("unknown line"), "{text}");
        let html = render(&report(vec![r]));
        assert!(html.contains("<dt>Host command</dt><dd>clEnqueueReadBuffer (command 7)</dd>"));
        assert!(html.contains("host command clEnqueueReadBuffer"), "{html}");
        assert!(html.contains("none (a host command)"), "{html}");
        assert!(html.contains("host-command"), "{html}");
    }

    #[test]
    fn a_clean_report_says_so() {
        let html = render(&Report::default());
        assert!(html.contains("0 findings in 0 launches"));
        assert!(html.contains("No findings."));
        assert!(!html.contains("<tr class=\"finding "));
        assert!(html.ends_with("</html>\n"));
    }
}
