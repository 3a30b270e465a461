//! The `SHADOWCL_*` settings are read in one place, the platform library's
//! `icd/src/core/settings.rs` (ARCHITECTURE.md, "a `SHADOWCL_*` setting"): the crates below
//! it read no environment at all, and no other file of the platform reads a `SHADOWCL_`
//! variable. The command line (`cli/`) sets and reads variables for its child and its own
//! commands; `tools/` and `tests/` may read what they like.

use shadowcl_tests::workspace_root;
use std::path::{Path, PathBuf};

/// What reading the environment looks like in Rust source.
const READS: [&str; 5] = [
    "env::var(",
    "env::var_os(",
    "env::vars(",
    "from_env",
    "getenv",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// `(file:line, text)` of every line under `dir` that reads the environment, comments aside.
fn readers(dir: &str) -> Vec<(String, String)> {
    let root = workspace_root();
    let mut files = Vec::new();
    rust_files(&root.join(dir), &mut files);
    assert!(!files.is_empty(), "no Rust files under {dir}");
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("source file");
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if READS.iter().any(|r| code.contains(r)) {
                let at = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
                found.push((format!("{at}:{}", i + 1), code.to_string()));
            }
        }
    }
    found
}

#[test]
fn crates_below_the_platform_read_no_environment() {
    for dir in [
        "interpreter/src",
        "shadow-memory/src",
        "compiler/src",
        "capture/src",
    ] {
        let found = readers(dir);
        assert!(found.is_empty(), "reads the environment: {found:#?}");
    }
}

#[test]
fn the_platform_reads_shadowcl_variables_only_in_its_settings() {
    let found = readers("icd/src");
    assert!(
        found
            .iter()
            .any(|(at, _)| at.starts_with("icd/src/core/settings.rs:")),
        "the settings read the environment: {found:#?}"
    );
    let elsewhere: Vec<_> = found
        .iter()
        .filter(|(at, text)| {
            !at.starts_with("icd/src/core/settings.rs:")
                && (text.contains("SHADOWCL_") || text.contains("from_env"))
        })
        .collect();
    assert!(
        elsewhere.is_empty(),
        "read outside the settings: {elsewhere:#?}"
    );
}
