//! Robustness survey: compiles every `.cl` file under the given folders (clang-15 +
//! llvm-spirv-15), loads it and runs each kernel with dummy arguments under a watchdog.
//! `cargo run --release -p shadowcl-interpreter --example corpus -- tests/kernels`
use std::path::{Path, PathBuf};
use std::process::Command;

use shadowcl_interpreter::*;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "cl") {
            out.push(p);
        }
    }
}

fn compile(cl: &Path, opt: &str, tmp: &Path) -> Option<Vec<u8>> {
    let bc = tmp.join("k.bc");
    let spv = tmp.join("k.spv");
    let ok = Command::new("clang-15")
        .args([
            "-c",
            "-target",
            "spir64",
            "-cl-std=CL1.2",
            opt,
            "-Xclang",
            "-cl-kernel-arg-info",
            "-emit-llvm",
            "-o",
        ])
        .arg(&bc)
        .arg(cl)
        .output()
        .ok()?
        .status
        .success()
        && Command::new("llvm-spirv-15")
            .arg(&bc)
            .arg("-o")
            .arg(&spv)
            .output()
            .ok()?
            .status
            .success();
    ok.then(|| std::fs::read(&spv).ok()).flatten()
}

fn main() {
    let mut all = vec![];
    for d in std::env::args().skip(1) {
        files(Path::new(&d), &mut all);
    }
    all.sort();
    let tmp = std::env::temp_dir().join(format!("shadowcl-corpus-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let (mut loaded, mut ran, mut bad) = (0, 0, 0);
    for f in &all {
        for opt in ["-O0", "-O2"] {
            let Some(spv) = compile(f, opt, &tmp) else {
                println!("SKIP (compile) {} {opt}", f.display());
                continue;
            };
            let p = match Program::load(&spv) {
                Ok(p) => p,
                Err(e) => {
                    bad += 1;
                    println!("LOAD {} {opt}: {e}", f.display());
                    continue;
                }
            };
            loaded += 1;
            for k in p.kernels() {
                let args = k
                    .args
                    .iter()
                    .map(|a| match a.address {
                        ArgAddress::Global | ArgAddress::Constant => {
                            let b = Buffer::new(1 << 16).expect("alloc");
                            ArgValue::Buffer {
                                buffer: b,
                                offset: 0,
                                size: 1 << 16,
                            }
                        }
                        ArgAddress::Local => ArgValue::Local(1024),
                        ArgAddress::Private => {
                            let mut v = vec![0u8; a.size.max(4)];
                            v[0] = 16;
                            ArgValue::Bytes(v)
                        }
                    })
                    .collect();
                let l = Launch {
                    kernel: k.name.clone(),
                    work_dim: 1,
                    global_offset: [0; 3],
                    global_size: [64, 1, 1],
                    local_size: [
                        if k.reqd_work_group_size[0] > 0 {
                            k.reqd_work_group_size[0]
                        } else {
                            16
                        },
                        1,
                        1,
                    ],
                    args,
                };
                match Device::new(1).with_instruction_limit(50_000_000).run(
                    &p,
                    &l,
                    &Schedule::default(),
                    &NoObserver,
                ) {
                    Ok(_) => ran += 1,
                    Err(e) => {
                        bad += 1;
                        println!("RUN {} {opt} {}: {e}", f.display(), k.name);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!(
        "{} files, {loaded} modules loaded, {ran} kernel runs ok, {bad} problems",
        all.len()
    );
}
