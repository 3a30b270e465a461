//! `fuzz-run TARGET FILE...`: runs TARGET on each file, to reproduce a crash or a hang that
//! a campaign or the smoke test saved.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: fuzz-run TARGET FILE...");
        return ExitCode::from(2);
    };
    let Some(run) = shadowcl_fuzz_targets::TARGETS
        .iter()
        .find(|t| t.0 == target)
        .map(|t| t.1)
    else {
        eprintln!("fuzz-run: unknown target `{target}`");
        return ExitCode::from(2);
    };
    for f in files {
        match std::fs::read(f) {
            Ok(bytes) => {
                eprintln!("fuzz-run: {target} {f}");
                run(&bytes);
            }
            Err(e) => {
                eprintln!("fuzz-run: {f}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
