//! Every fuzz target on its seeds, its saved regressions (inputs that once crashed it) and
//! deterministic mutations of the seeds. `SHADOWCL_FUZZ_SMOKE` sets the mutations per target
//! (default 1,500); the long campaigns are `ci/fuzz TARGET SECONDS` (libFuzzer, nightly).

use std::path::{Path, PathBuf};

use shadowcl_fuzz_targets::{mutate, seeds, Rng, TARGETS};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = repo().join("tools/fuzz-targets/regressions").join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), bytes))
        })
        .collect();
    out.sort();
    out
}

fn smoke(target: &str) {
    let run = TARGETS
        .iter()
        .find(|t| t.0 == target)
        .map(|t| t.1)
        .expect("target listed");
    let iterations: usize = std::env::var("SHADOWCL_FUZZ_SMOKE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    // Every 8th corpus kernel keeps the compile time of the seeds to a few seconds.
    let seeds = seeds(target, &repo(), 8);
    assert!(
        !seeds.is_empty(),
        "{target}: no seeds (clang-15 and llvm-spirv-15 installed?)"
    );
    for (name, input) in seeds.iter().chain(&regressions(target)) {
        eprintln!("{target}: {name}");
        run(input);
    }
    // SHADOWCL_FUZZ_TRACE=1 writes each input to a file before running it: after a hang,
    // that file is the input to give `fuzz-run`.
    let trace = std::env::var_os("SHADOWCL_FUZZ_TRACE")
        .map(|_| std::env::temp_dir().join(format!("shadowcl-fuzz-{target}-last.bin")));
    let mut rng = Rng(0x5EED ^ target.len() as u64);
    for i in 0..iterations {
        let (name, seed) = &seeds[i % seeds.len()];
        let input = mutate(seed, &mut rng);
        if let Some(t) = &trace {
            let _ = std::fs::write(t, &input);
        }
        // Printed only if the target panics: the test output then names the input to save.
        let saved = std::panic::catch_unwind(|| run(&input));
        if saved.is_err() {
            let p = std::env::temp_dir().join(format!("shadowcl-fuzz-{target}-{i}.bin"));
            let _ = std::fs::write(&p, &input);
            panic!(
                "{target}: mutation {i} of seed {name} panicked; input saved to {}",
                p.display()
            );
        }
    }
}

#[test]
fn spirv_load() {
    smoke("spirv_load");
}

#[test]
fn launch() {
    smoke("launch");
}

#[test]
fn capture_record() {
    smoke("capture_record");
}

#[test]
fn build_options() {
    smoke("build_options");
}
