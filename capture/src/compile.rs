//! A small OpenCL C → SPIR-V driver for replaying records that carry source only
//! (`clang-15 -target spir64` then `llvm-spirv-15`, as DESIGN.md "Compilation" says).
//! The platform library has its own, fuller driver (headers, caching, linking).

use crate::error::{CaptureError, Result};
use std::path::Path;
use std::process::Command;

/// The clang driver (override with `SHADOWCL_CLANG`).
pub fn clang() -> String {
    std::env::var("SHADOWCL_CLANG").unwrap_or_else(|_| "clang-15".into())
}

/// The SPIR-V translator (override with `SHADOWCL_LLVM_SPIRV`).
pub fn llvm_spirv() -> String {
    std::env::var("SHADOWCL_LLVM_SPIRV").unwrap_or_else(|_| "llvm-spirv-15".into())
}

/// Options as clang takes them: `-cl-opt-disable` → `-O0`, a lone `-D X` / `-I d` kept as
/// pairs; everything else passed through.
fn translate_options(options: &str) -> (Vec<String>, char) {
    let mut out = Vec::new();
    let mut opt = '2';
    for w in options.split_whitespace() {
        match w {
            "-cl-opt-disable" => opt = '0',
            "-O0" | "-O1" | "-O2" | "-O3" => opt = w.as_bytes()[2] as char,
            // Already passed, or meaningless for the translator.
            "-g" | "-cl-kernel-arg-info" | "-create-library" | "-enable-link-options" => {}
            _ => out.push(w.to_string()),
        }
    }
    (out, opt)
}

/// Compiles OpenCL C `source` with the application's build `options` to SPIR-V bytes.
/// The error carries the tools' output.
pub fn compile_to_spirv(source: &str, options: &str) -> Result<Vec<u8>> {
    compile_to_spirv_in(source, options, None)
}

/// As [`compile_to_spirv`]; debug information names the source `debug_dir/program.cl` (so
/// findings point at a record's own `program.cl` rather than a deleted temp folder).
pub fn compile_to_spirv_in(
    source: &str,
    options: &str,
    debug_dir: Option<&Path>,
) -> Result<Vec<u8>> {
    let dir = tempfile::Builder::new()
        .prefix("shadowcl-capture-")
        .tempdir()
        .map_err(|e| CaptureError::io(std::env::temp_dir(), e))?;
    let root = dir.path();
    let src = root.join("program.cl");
    std::fs::write(&src, source).map_err(|e| CaptureError::io(&src, e))?;
    let (args, opt) = translate_options(options);
    // llvm-spirv-15 aborts on some optimised variable locations; line tables alone still give
    // every instruction its source line, so retry with those (as the platform's driver does).
    const DEBUG_LEVELS: [&str; 2] = ["-g", "-gline-tables-only"];
    let mut last_err = None;
    for debug in DEBUG_LEVELS {
        let mut cmd = Command::new(clang());
        cmd.current_dir(root)
            .args(["-c", "-target", "spir64", "-emit-llvm"])
            .arg(format!("-O{opt}"))
            .args([debug, "-Xclang", "-cl-kernel-arg-info"])
            .args([
                "-Wno-unused-command-line-argument",
                "-fno-color-diagnostics",
            ]);
        if let Some(d) = debug_dir {
            cmd.arg(format!(
                "-fdebug-prefix-map={}={}",
                root.display(),
                d.display()
            ));
        }
        cmd.args(&args)
            .args(["-x", "cl", "program.cl", "-o", "program.bc"]);
        // A source error is final; only the translator gets a second chance.
        run(cmd, &clang(), root)?;
        let mut cmd = Command::new(llvm_spirv());
        cmd.current_dir(root)
            .args(["program.bc", "-o", "program.spv"]);
        match run(cmd, &llvm_spirv(), root) {
            Ok(()) => {
                let out = root.join("program.spv");
                return std::fs::read(&out).map_err(|e| CaptureError::io(&out, e));
            }
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| CaptureError::Compile("no compile attempt ran".into())))
}

fn run(mut cmd: Command, tool: &str, root: &Path) -> Result<()> {
    let output = cmd
        .output()
        .map_err(|e| CaptureError::Compile(format!("cannot run {tool}: {e}")))?;
    if output.status.success() {
        return Ok(());
    }
    let mut log = String::from_utf8_lossy(&output.stderr).into_owned();
    log.push_str(&String::from_utf8_lossy(&output.stdout));
    let log = log.replace(&format!("{}/", root.display()), "");
    Err(CaptureError::Compile(format!(
        "{tool} failed ({}):\n{log}",
        output.status
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_translate() {
        let (a, o) = translate_options("-D N=4 -cl-opt-disable -g -cl-std=CL1.2");
        assert_eq!(a, vec!["-D", "N=4", "-cl-std=CL1.2"]);
        assert_eq!(o, '0');
        assert_eq!(translate_options("").1, '2');
    }

    /// llvm-spirv-15 aborts on this kernel's -O2 debug info with full `-g`; the helper falls
    /// back to line tables and keeps the source file name.
    #[test]
    fn falls_back_to_line_tables_when_llvm_spirv_aborts() {
        let src = "__kernel void reduce(__global const int *in, __global int *out,\n\
                   __local int *scratch) {\n  size_t l = get_local_id(0);\n\
                   scratch[l] = in[get_global_id(0)];\n  barrier(CLK_LOCAL_MEM_FENCE);\n\
                   for (size_t k = get_local_size(0) / 2; k > 0; k /= 2) {\n\
                   if (l < k)\n      scratch[l] += scratch[l + k];\n  }\n\
                   if (l == 0)\n    out[get_group_id(0)] = scratch[0];\n}\n";
        let spv = compile_to_spirv_in(src, "", Some(Path::new("/rec/launch-0001"))).unwrap();
        assert_eq!(&spv[..4], &[0x03, 0x02, 0x23, 0x07]);
        let text = String::from_utf8_lossy(&spv);
        assert!(text.contains("/rec/launch-0001"), "debug info not remapped");
        assert!(text.contains("scratch"), "argument names lost");
    }

    #[test]
    fn compiles_and_reports_errors() {
        let spv = compile_to_spirv(
            "__kernel void k(__global int* a) { a[get_global_id(0)] = N; }",
            "-D N=3",
        )
        .unwrap();
        assert_eq!(&spv[..4], &[0x03, 0x02, 0x23, 0x07]);
        let err = compile_to_spirv("__kernel void k() { nope(); }", "").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("nope"), "{msg}");
    }
}
