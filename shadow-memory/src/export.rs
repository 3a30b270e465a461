//! Report formats behind one seam: each format is an [`Exporter`], and [`EXPORTERS`] is the
//! registry the platform (`SHADOWCL_EXPORT`, `SHADOWCL_REPORT`, `SHADOWCL_SARIF`,
//! `SHADOWCL_HTML`) and the
//! CLI (`shadowcl run --export`, `shadowcl formats`) take them from. A new format is one
//! more `impl Exporter` and one more entry in [`EXPORTERS`].

use crate::report::Report;

/// A report format.
pub trait Exporter: Sync {
    /// The name users give (`SHADOWCL_EXPORT=NAME=PATH`, `--export NAME=PATH`).
    fn name(&self) -> &'static str;
    /// The usual file extension, without the dot.
    fn extension(&self) -> &'static str;
    /// One line for listings.
    fn description(&self) -> &'static str;
    /// The whole file.
    fn render(&self, report: &Report) -> String;
}

/// Every finding with both accesses and their source lines, as printed to stderr.
pub struct Text;

/// The JSON report (docs/design.md, "Contracts"; field names are a contract).
pub struct Json;

/// SARIF 2.1.0, for CI code-scanning views.
pub struct Sarif;

/// One self-contained HTML page to read the findings in a browser (`html.rs`).
pub struct Html;

impl Exporter for Text {
    fn name(&self) -> &'static str {
        "text"
    }
    fn extension(&self) -> &'static str {
        "txt"
    }
    fn description(&self) -> &'static str {
        "human-readable findings, as printed to stderr"
    }
    fn render(&self, report: &Report) -> String {
        report.render_text()
    }
}

/// Pretty-printed JSON with a final newline, as both JSON files have always been written.
fn pretty(v: &serde_json::Value) -> String {
    // A `Value` has string keys only, so printing it cannot fail.
    serde_json::to_string_pretty(v).expect("a JSON value prints") + "\n"
}

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }
    fn extension(&self) -> &'static str {
        "json"
    }
    fn description(&self) -> &'static str {
        "the JSON report (launches, findings with both accesses)"
    }
    fn render(&self, report: &Report) -> String {
        pretty(&report.to_json())
    }
}

impl Exporter for Sarif {
    fn name(&self) -> &'static str {
        "sarif"
    }
    fn extension(&self) -> &'static str {
        "sarif"
    }
    fn description(&self) -> &'static str {
        "SARIF 2.1.0, for code-scanning views"
    }
    fn render(&self, report: &Report) -> String {
        pretty(&report.to_sarif())
    }
}

impl Exporter for Html {
    fn name(&self) -> &'static str {
        "html"
    }
    fn extension(&self) -> &'static str {
        "html"
    }
    fn description(&self) -> &'static str {
        "one self-contained page: findings filterable by kind and kernel, with their source"
    }
    fn render(&self, report: &Report) -> String {
        crate::html::render(report)
    }
}

/// Every report format, in the order listings show them.
pub static EXPORTERS: &[&dyn Exporter] = &[&Text, &Json, &Sarif, &Html];

/// The format called `name`; the error lists the registered ones.
pub fn exporter(name: &str) -> Result<&'static dyn Exporter, String> {
    EXPORTERS
        .iter()
        .copied()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            format!(
                "unknown report format `{name}` (one of {})",
                exporter_names()
            )
        })
}

/// The registered format names, comma-separated.
pub fn exporter_names() -> String {
    EXPORTERS
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses `NAME=PATH[,NAME=PATH...]` (`SHADOWCL_EXPORT`, `--export`).
pub fn parse_exports(
    list: &str,
) -> Result<Vec<(&'static dyn Exporter, std::path::PathBuf)>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            let (name, path) = item
                .split_once('=')
                .filter(|(_, p)| !p.is_empty())
                .ok_or_else(|| {
                    format!(
                        "`{item}` is not FORMAT=PATH (formats: {})",
                        exporter_names()
                    )
                })?;
            Ok((exporter(name.trim())?, path.into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for e in EXPORTERS {
            assert_eq!(exporter(e.name()).map(|x| x.name()), Ok(e.name()));
        }
        let mut names: Vec<_> = EXPORTERS.iter().map(|e| e.name()).collect();
        names.dedup();
        assert_eq!(names.len(), EXPORTERS.len());
        let err = exporter("xml").map(|e| e.name()).unwrap_err();
        assert!(err.contains("text, json, sarif, html"), "{err}");
    }

    #[test]
    fn exports_parse_and_refuse_unknown_formats() {
        let v = parse_exports("json=a.json, text=b.txt").unwrap();
        let got: Vec<_> = v.iter().map(|(e, p)| (e.name(), p.clone())).collect();
        assert_eq!(got, [("json", "a.json".into()), ("text", "b.txt".into())]);
        assert!(parse_exports("xml=a").is_err());
        assert!(parse_exports("json").is_err());
        assert!(parse_exports("").unwrap().is_empty());
    }
}
