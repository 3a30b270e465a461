//! `shadowcl report`: renders a saved JSON report again, in any registered format (e.g. the
//! HTML page from a CI run's `r.json` artifact).

use clap::Args;
use std::path::PathBuf;

const ABOUT: &str = "\
Without --export the findings are printed as text on stdout.
Exit status: 0 when the report has no findings, 1 when it has, 2 when it cannot be read.";

#[derive(Args, Debug)]
#[command(after_help = ABOUT)]
pub struct ReportArgs {
    /// A JSON report (`shadowcl run --report`, `SHADOWCL_REPORT`).
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
    /// Write it in FORMAT to FILE (repeatable; `shadowcl formats` lists the formats).
    #[arg(long, value_name = "FORMAT=FILE", value_parser = crate::run::parse_export)]
    pub export: Vec<String>,
}

pub fn report(args: ReportArgs) -> i32 {
    match render(&args) {
        Ok(found) => i32::from(found),
        Err(e) => {
            eprintln!("shadowcl report: {e}");
            2
        }
    }
}

/// Writes the exports (or prints the text); whether the report has findings.
fn render(args: &ReportArgs) -> Result<bool, String> {
    let path = args.report.display();
    let text = std::fs::read_to_string(&args.report).map_err(|e| format!("{path}: {e}"))?;
    let report = shadowcl_shadow::Report::from_json(&text)
        .map_err(|e| format!("{path} is not a ShadowCL JSON report: {e}"))?;
    if args.export.is_empty() {
        print!("{}", report.render_text());
    }
    for (exporter, file) in shadowcl_shadow::parse_exports(&args.export.join(","))? {
        std::fs::write(&file, exporter.render(&report))
            .map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(!report.is_clean())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(report: &std::path::Path, export: &[String]) -> ReportArgs {
        ReportArgs {
            report: report.to_path_buf(),
            export: export.to_vec(),
        }
    }

    #[test]
    fn renders_a_saved_report_in_every_format() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let racy = r#"{"tool": "shadowcl", "launches": [], "findings": [{"kind": "data-race",
            "race": "write-write", "scope": "inter-group", "memory": "global", "launch": 0,
            "kernel": "k", "buffer": "out", "offset": 0, "index": 0, "count": 2, "message": "",
            "first": null, "second": null}]}"#;
        std::fs::write(&json, racy).unwrap();
        let outs: Vec<String> = shadowcl_shadow::EXPORTERS
            .iter()
            .map(|e| format!("{}={}", e.name(), dir.path().join(e.name()).display()))
            .collect();
        assert_eq!(report(args(&json, &outs)), 1);
        let html = std::fs::read_to_string(dir.path().join("html")).unwrap();
        assert!(html.contains("data-race") && html.contains("out"), "{html}");
        let text = std::fs::read_to_string(dir.path().join("text")).unwrap();
        assert!(
            text.contains("data-race (write-write, inter-group)"),
            "{text}"
        );
        let sarif = std::fs::read_to_string(dir.path().join("sarif")).unwrap();
        assert!(sarif.contains("\"ruleId\": \"data-race\""), "{sarif}");
        // The JSON export reads back as the same report.
        let again = std::fs::read_to_string(dir.path().join("json")).unwrap();
        assert_eq!(
            shadowcl_shadow::Report::from_json(&again).unwrap(),
            shadowcl_shadow::Report::from_json(racy).unwrap()
        );

        // A clean report exits 0; a missing or malformed one exits 2.
        std::fs::write(&json, r#"{"launches": [], "findings": []}"#).unwrap();
        assert_eq!(report(args(&json, &[])), 0);
        std::fs::write(&json, r#"{"findings": 3}"#).unwrap();
        assert_eq!(report(args(&json, &[])), 2);
        assert_eq!(report(args(&dir.path().join("none.json"), &[])), 2);
    }
}
