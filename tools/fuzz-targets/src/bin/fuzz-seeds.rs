//! `fuzz-seeds TARGET OUT_DIR [STRIDE]`: writes TARGET's seed inputs into OUT_DIR (for
//! `ci/fuzz`); STRIDE > 1 takes every STRIDE-th corpus kernel, as the smoke test does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (target, out, stride) = match args.as_slice() {
        [t, o] => (t, o, 1),
        [t, o, s] if s.parse::<usize>().is_ok_and(|s| s > 0) => (t, o, s.parse().unwrap_or(1)),
        _ => {
            eprintln!("usage: fuzz-seeds TARGET OUT_DIR [STRIDE]");
            return ExitCode::from(2);
        }
    };
    if !shadowcl_fuzz_targets::TARGETS.iter().any(|t| t.0 == target) {
        eprintln!("fuzz-seeds: unknown target `{target}`");
        return ExitCode::from(2);
    }
    let repo: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("fuzz-seeds: {out}: {e}");
        return ExitCode::FAILURE;
    }
    let seeds = shadowcl_fuzz_targets::seeds(target, &repo, stride);
    for (name, bytes) in &seeds {
        if let Err(e) = std::fs::write(Path::new(out).join(name), bytes) {
            eprintln!("fuzz-seeds: {name}: {e}");
            return ExitCode::FAILURE;
        }
    }
    println!("{} seeds for {target} in {out}", seeds.len());
    ExitCode::SUCCESS
}
