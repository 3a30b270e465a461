//! Driver tests: most run the real tools (skipped, with a note, when they are missing).

use super::*;
use crate::driver::{header_path, hex, run_tool};
use crate::options::opt_level;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Tests propagate setup failures with `?` (the error names what failed).
type TestResult = Result<(), Box<dyn std::error::Error>>;

const VADD: &str = "__kernel void vadd(__global const float *a, __global const float *b,\n\
                    __global float *c) {\n  size_t i = get_global_id(0);\n  c[i] = a[i] + b[i];\n}\n";

fn have_tools() -> bool {
    let ok = [CLANG, LLVM_SPIRV, LLVM_LINK].iter().all(|t| {
        Command::new(t)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    });
    if !ok {
        eprintln!("SKIP: clang-15 / llvm-spirv-15 / llvm-link-15 not installed");
    }
    ok
}

fn req(src: &str, options: &str) -> CompileRequest {
    CompileRequest {
        sources: vec![src.to_string()],
        options: options.to_string(),
        headers: vec![],
    }
}

fn is_spirv(b: &[u8]) -> bool {
    b.len() >= 20 && b[..4] == 0x0723_0203u32.to_le_bytes()
}

fn is_bitcode(b: &[u8]) -> bool {
    b.starts_with(b"BC\xC0\xDE") || b.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

#[test]
fn compiles_vadd_to_spirv_and_bitcode() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let out = Compiler::new().compile(&req(VADD, ""))?;
    assert!(is_spirv(&out.spirv), "not SPIR-V");
    assert!(is_bitcode(&out.bitcode), "not bitcode");
    assert!(!out.from_cache);
    // Names and lines survive.
    let text = String::from_utf8_lossy(&out.spirv);
    assert!(text.contains("vadd"));
    assert!(
        text.contains(SOURCE_NAME),
        "source name missing from debug info"
    );
    Ok(())
}

/// llvm-spirv-15 aborts on this kernel's optimised debug info with full -g; the
/// driver cuts the bitcode's debug info to line tables (`opt -passes=strip-nonlinetable-
/// debuginfo`), which keep the source lines.
#[test]
fn optimised_debug_info_that_llvm_spirv_rejects_still_compiles() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let src = "__kernel void reduce(__global const int *in, __global int *out,\n\
               __local int *scratch) {\n  size_t l = get_local_id(0);\n\
               scratch[l] = in[get_global_id(0)];\n  barrier(CLK_LOCAL_MEM_FENCE);\n\
               for (size_t k = get_local_size(0) / 2; k > 0; k /= 2) {\n\
               if (l < k)\n      scratch[l] += scratch[l + k];\n  }\n\
               if (l == 0)\n    out[get_group_id(0)] = scratch[0];\n}\n";
    let out = Compiler::new().compile(&req(src, ""))?;
    assert!(is_spirv(&out.spirv));
    let text = String::from_utf8_lossy(&out.spirv);
    assert!(text.contains(SOURCE_NAME), "no line information left");
    assert!(text.contains("scratch"), "argument names lost");
    Ok(())
}

/// Replay names the record folder as the source's home, so reports quote its program.cl.
#[test]
fn debug_info_names_the_folder_asked_for() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let out = Compiler::new()
        .with_debug_dir(Some(PathBuf::from("/rec/launch-0001")))
        .compile(&req(VADD, ""))?;
    let text = String::from_utf8_lossy(&out.spirv);
    assert!(text.contains("/rec/launch-0001"), "debug folder not used");
    Ok(())
}

/// The dead `__local` store and the unused load in a helper survive the default build
///; the application's own -O2 build deletes them.
#[test]
fn source_faithful_builds_keep_dead_local_accesses() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let src = "int peek(__local int *p) { return p[get_local_id(0)]; }\n\
               __kernel void poke(__local int *p) { peek(p); p[get_local_id(0) + 1] = 1; }\n\
               __kernel void flag(__global int *in) { __local int last; last = in[get_global_id(0)]; }\n";
    let ir = |mode: BuildMode| -> Result<String, Box<dyn std::error::Error>> {
        let out = Compiler::new().with_mode(mode).compile(&req(src, ""))?;
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("m.bc"), &out.bitcode)?;
        let dis = Command::new(LLVM_DIS)
            .current_dir(dir.path())
            .args(["m.bc", "-o", "-"])
            .output()?;
        Ok(String::from_utf8_lossy(&dis.stdout).into_owned())
    };
    // The body of kernel `name` in a disassembled module.
    fn body<'a>(ir: &'a str, name: &str) -> &'a str {
        let start = ir.find(&format!("@{name}(")).unwrap_or(ir.len());
        let end = ir[start..].find("\n}").map_or(ir.len(), |e| start + e);
        &ir[start..end]
    }
    let faithful = ir(BuildMode::SourceFaithful)?;
    assert!(
        body(&faithful, "flag").contains("store volatile i32 %"),
        "dead local store lost:\n{faithful}"
    );
    assert!(
        body(&faithful, "poke").contains("load volatile i32, i32 addrspace(3)*"),
        "unused local load lost:\n{faithful}"
    );
    let app = ir(BuildMode::Application)?;
    assert!(!body(&app, "flag").contains("store"), "-O2 kept the store");
    assert!(!body(&app, "poke").contains("load"), "-O2 kept the load");
    Ok(())
}

#[test]
fn build_mode_parses() {
    assert_eq!("".parse(), Ok(BuildMode::SourceFaithful));
    assert_eq!("source".parse(), Ok(BuildMode::SourceFaithful));
    assert_eq!("app".parse(), Ok(BuildMode::Application));
    assert!("fast".parse::<BuildMode>().is_err());
}

#[test]
fn kernel_arg_metadata_has_qualifiers_and_type_names() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let src = "__kernel void info(__global const float *restrict in, __global volatile int *out,\n\
               __local float4 *tmp, __constant uint *table, const int n, float2 scale) {\n\
               out[0] = n; }\n\
               __kernel void other(__read_only image2d_t img, __global int *p) { p[0] = 1; }\n";
    let out = Compiler::new().compile(&req(src, ""))?;
    let md = kernel_arg_metadata(&out.bitcode)?;
    let info = &md["info"];
    let names: Vec<_> = info.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["in", "out", "tmp", "table", "n", "scale"]);
    let types: Vec<_> = info.iter().map(|a| a.type_name.as_str()).collect();
    assert_eq!(
        types,
        ["float*", "int*", "float4*", "uint*", "int", "float2"]
    );
    let spaces: Vec<_> = info.iter().map(|a| a.address_space).collect();
    assert_eq!(spaces, [1, 1, 3, 2, 0, 0]);
    assert!(info[0].is_const() && info[0].is_restrict() && !info[0].is_volatile());
    assert!(info[1].is_volatile() && !info[1].is_const());
    assert!(info[3].is_const());
    assert!(!info[4].is_const() && info[4].type_qual.is_empty());
    assert!(info.iter().all(|a| a.access == "none"));
    let other = &md["other"];
    assert_eq!(other[0].type_name, "image2d_t");
    assert_eq!(other[0].access, "read_only");
    assert_eq!(other[1].name, "p");
    Ok(())
}

/// At -O2 the loop vectoriser turns this into llvm.vector.reduce.add, which
/// llvm-spirv-15 rejects (piglit's calls.cl).
#[test]
fn vectorised_reductions_do_not_reach_llvm_spirv() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let src = "__attribute__((noinline)) int f(void) { int ret = 100; volatile int a[20];\n\
               for (int i = 0; i < 20; ++i) a[i] = i;\n\
               for (int i = 0; i < 20; ++i) ret += a[i];\n  return ret; }\n\
               __kernel void k(__global int *p) { p[0] = f(); }\n";
    let out = Compiler::new().compile(&req(src, ""))?;
    assert!(is_spirv(&out.spirv));
    assert!(!String::from_utf8_lossy(&out.spirv).contains("llvm.vector.reduce"));
    Ok(())
}

#[test]
fn sources_are_concatenated_and_headers_found() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let r = CompileRequest {
        sources: vec![
            "#include \"sub/k.h\"\n".to_string(),
            "__kernel void f(__global int *p) { p[0] = K; }\n".to_string(),
        ],
        options: "-D EXTRA=1 -cl-std=CL1.2".to_string(),
        headers: vec![(
            "sub/k.h".to_string(),
            "#define K (41 + EXTRA)\n".to_string(),
        )],
    };
    let out = Compiler::new().compile(&r)?;
    assert!(is_spirv(&out.spirv));
    // Without the header the same source does not compile.
    let bad = CompileRequest {
        headers: vec![],
        ..r
    };
    let err = Compiler::new().compile(&bad).unwrap_err();
    assert_eq!(err.kind, FailureKind::BuildFailed);
    assert!(err.log.contains("sub/k.h"), "log: {}", err.log);
    Ok(())
}

#[test]
fn bad_source_fails_with_clang_log() {
    if !have_tools() {
        return;
    }
    let src = "__kernel void f(__global int *p) {\n  p[0] = undeclared_thing;\n}\n";
    let err = Compiler::new().compile(&req(src, "")).unwrap_err();
    assert_eq!(err.kind, FailureKind::BuildFailed);
    assert!(err.log.contains("program.cl:2:"), "log: {}", err.log);
    assert!(err.log.contains("undeclared_thing"), "log: {}", err.log);
    assert!(err.log.contains("error"), "log: {}", err.log);
    assert!(
        !err.log.contains("shadowcl-cc-"),
        "scratch path leaked: {}",
        err.log
    );
}

#[test]
fn werror_and_w_reach_clang() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let src = "__kernel void f(__global int *p) { int unused_v; p[0] = 1; }\n";
    let warn = Compiler::new().compile(&req(src, "-Wall"))?;
    assert!(warn.log.contains("unused_v"), "log: {}", warn.log);
    let err = Compiler::new()
        .compile(&req(src, "-Wall -Werror"))
        .unwrap_err();
    assert_eq!(err.kind, FailureKind::BuildFailed);
    let quiet = Compiler::new().compile(&req(src, "-Wall -w"))?;
    assert!(!quiet.log.contains("unused_v"), "log: {}", quiet.log);
    Ok(())
}

/// The macros the OpenCL C specification predefines have the values for ShadowCL's
/// device (OpenCL 3.0, OpenCL C 1.2 by default, no images) for every -cl-std.
#[test]
fn predefined_macros_describe_the_device() {
    if !have_tools() {
        return;
    }
    for (std, c_version) in [
        ("", 120),
        ("-cl-std=CL1.0", 100),
        ("-cl-std=CL1.1", 110),
        ("-cl-std=CL1.2", 120),
        ("-cl-std=CL3.0", 300),
    ] {
        let src = format!(
            "#if !defined(__OPENCL_VERSION__) || __OPENCL_VERSION__ != 300\n\
             #error bad __OPENCL_VERSION__\n#endif\n\
             #if __OPENCL_C_VERSION__ != {c_version}\n#error bad __OPENCL_C_VERSION__\n#endif\n\
             #ifndef __IMAGE_SUPPORT__\n#error no __IMAGE_SUPPORT__ on a device with images\n#endif\n\
             #if __OPENCL_C_VERSION__ == 300 && (!defined(__opencl_c_images) \
                 || !defined(__opencl_c_3d_image_writes))\n\
             #error image features missing\n#endif\n\
             #if defined(__opencl_c_pipes) \
                 || defined(__opencl_c_read_write_images) \
                 || defined(__opencl_c_atomic_scope_all_devices) || defined(cl_khr_subgroups) \
                 || defined(cl_khr_subgroup_ballot)\n\
             #error a feature the device lacks\n#endif\n\
             #if !defined(cl_khr_fp64) || !defined(cl_khr_int64_base_atomics) \
                 || !defined(cl_khr_global_int32_base_atomics) \
                 || !defined(cl_khr_3d_image_writes) || !defined(cl_khr_fp16) \
                 || (__OPENCL_C_VERSION__ == 300 && (!defined(__opencl_c_fp64) \
                     || !defined(__opencl_c_atomic_order_acq_rel) \
                     || !defined(__opencl_c_atomic_order_seq_cst) \
                     || !defined(__opencl_c_atomic_scope_device) \
                     || !defined(__opencl_c_work_group_collective_functions)))\n\
             #error a feature the device has is missing\n#endif\n\
             #if __ENDIAN_LITTLE__ != 1 || CL_VERSION_1_2 != 120\n#error bad macros\n#endif\n\
             __kernel void predefined_macros(__global int *p) {{ p[0] = __OPENCL_VERSION__; }}\n"
        );
        match Compiler::new().compile(&req(&src, std)) {
            Ok(out) => assert!(is_spirv(&out.spirv), "{std}"),
            Err(e) => panic!("{std}: {}", e.log),
        }
    }
}

#[test]
fn defines_with_quotes_and_values() {
    if !have_tools() {
        return;
    }
    let src = "__kernel void f(__global int *p) { p[0] = A + B; }\n";
    assert!(Compiler::new().compile(&req(src, "-DA=1 -D B=2")).is_ok());
    assert!(Compiler::new()
        .compile(&req(src, "-D \"A=(1 + 2)\" -D'B=3'"))
        .is_ok());
    assert_eq!(
        Compiler::new()
            .compile(&req(src, "-DA=1"))
            .unwrap_err()
            .kind,
        FailureKind::BuildFailed
    );
}

#[test]
fn options_translation() -> TestResult {
    assert_eq!(translate_options("")?, Vec::<String>::new());
    assert_eq!(
        translate_options("-D FOO=1 -DBAR -cl-opt-disable -cl-std=cl1.2 -w")?,
        vec!["-DFOO=1", "-DBAR", "-O0", "-cl-std=CL1.2", "-w"]
    );
    assert_eq!(
        translate_options("-cl-mad-enable  -cl-fast-relaxed-math -Werror -g")?,
        vec!["-cl-mad-enable", "-cl-fast-relaxed-math", "-Werror"]
    );
    assert_eq!(
        translate_options("-I /abs/inc -I/other -cl-kernel-arg-info")?,
        vec!["-I/abs/inc", "-I/other"]
    );
    let rel = translate_options("-I inc")?;
    assert!(
        rel[0].starts_with("-I/") && rel[0].ends_with("/inc"),
        "{rel:?}"
    );
    assert_eq!(
        translate_options("-D 'MSG=a b' -D\"X=\\\"q\\\"\"")?,
        vec!["-DMSG=a b", "-DX=\"q\""]
    );
    let err = translate_options("-cl-bogus -D FOO --frobnicate").unwrap_err();
    assert!(
        err.contains("-cl-bogus") && err.contains("--frobnicate"),
        "{err}"
    );
    assert!(!err.contains("FOO"), "{err}");
    assert!(translate_options("-cl-std=CL9.9").is_err());
    assert!(translate_options("-cl-std=CL3.0").is_ok());
    // A version the device does not list is refused, and the message says which it has.
    let err = translate_options("-cl-std=CL2.0").unwrap_err();
    assert!(
        err.contains("-cl-std=CL2.0") && err.contains("1.0, 1.1, 1.2 and 3.0"),
        "{err}"
    );
    assert!(translate_options("-cl-std=CL2.1 -bogus")
        .unwrap_err()
        .contains("-bogus"));
    assert!(translate_options("-cl-std=3.0").is_err());
    assert!(translate_options("-D").is_err());
    assert!(translate_options("-D 'unterminated").is_err());
    assert_eq!(opt_level(&translate_options("")?), '2');
    assert_eq!(opt_level(&translate_options("-cl-opt-disable")?), '0');
    Ok(())
}

#[test]
fn unknown_option_is_invalid_options_naming_it() {
    let err = Compiler::new()
        .compile(&req(VADD, "-cl-unknown-thing"))
        .unwrap_err();
    assert_eq!(err.kind, FailureKind::InvalidOptions);
    assert!(err.log.contains("-cl-unknown-thing"), "{}", err.log);
}

#[test]
fn bad_header_names_are_rejected() {
    let r = CompileRequest {
        sources: vec![VADD.to_string()],
        options: String::new(),
        headers: vec![("../escape.h".to_string(), String::new())],
    };
    let err = Compiler::new().compile(&r).unwrap_err();
    assert_eq!(err.kind, FailureKind::InvalidOptions);
    assert!(header_path("/etc/passwd").is_none());
    assert_eq!(header_path("./a/b.h"), Some(PathBuf::from("a/b.h")));
}

#[test]
fn link_options() -> TestResult {
    assert_eq!(parse_link_options("")?, LinkOptions::default());
    let o = parse_link_options("-create-library -enable-link-options -cl-no-signed-zeros")?;
    assert!(o.create_library && o.enable_link_options);
    assert!(parse_link_options("-enable-link-options").is_err());
    assert!(parse_link_options("-D FOO").unwrap_err().contains("-D"));
    Ok(())
}

#[test]
fn missing_tool_names_tool_and_package() {
    let c = Compiler::new().with_tools(
        "/nonexistent/clang-15",
        "/nonexistent/llvm-spirv-15",
        "/nonexistent/llvm-link-15",
    );
    let err = c.compile(&req(VADD, "")).unwrap_err();
    assert_eq!(err.kind, FailureKind::ToolMissing);
    assert!(err.log.contains("clang-15"), "{}", err.log);
    assert!(err.log.contains("apt-get install clang-15"), "{}", err.log);
}

#[test]
fn cache_hit_returns_same_result() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let c = Compiler::new().with_cache_dir(Some(dir.path().to_path_buf()));
    let r = req(VADD, "-cl-mad-enable");
    let first = c.compile(&r)?;
    assert!(!first.from_cache);
    // Cache entries, beside the `sources` folder that keeps each program's text.
    let entries = || -> std::io::Result<usize> {
        let mut n = 0;
        for e in std::fs::read_dir(dir.path())? {
            n += usize::from(e?.file_name() != "sources");
        }
        Ok(n)
    };
    assert_eq!(entries()?, 3);
    let kept = dir.path().join("sources");
    assert_eq!(std::fs::read_dir(&kept)?.count(), 1);
    let second = c.compile(&r)?;
    assert!(second.from_cache, "second compile was not a cache hit");
    assert_eq!(first.spirv, second.spirv);
    assert_eq!(first.bitcode, second.bitcode);
    // Other options are another key.
    let third = c.compile(&req(VADD, ""))?;
    assert!(!third.from_cache);
    // Failures are not cached.
    let bad = req("__kernel void f() { nope; }", "");
    assert!(c.compile(&bad).is_err());
    assert!(c.compile(&bad).is_err());
    assert_eq!(entries()?, 6);
    // One kept source per distinct text: VADD (twice, two option sets) and the bad one.
    assert_eq!(std::fs::read_dir(&kept)?.count(), 3);
    Ok(())
}

#[test]
fn link_two_modules() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let c = Compiler::new();
    let lib = c.compile(&req("int twice(int x) { return 2 * x; }\n", ""))?;
    let main = c.compile(&req(
        "int twice(int x);\n__kernel void k(__global int *p) { p[0] = twice(p[0]); }\n",
        "",
    ))?;
    let linked = c.link(&[main.bitcode.clone(), lib.bitcode], "")?;
    assert!(is_spirv(&linked.spirv));
    assert!(is_bitcode(&linked.bitcode));
    let err = c.link(&[b"not bitcode".to_vec()], "").unwrap_err();
    assert_eq!(err.kind, FailureKind::BuildFailed);
    assert!(!err.log.is_empty());
    assert_eq!(
        c.link(std::slice::from_ref(&main.bitcode), "-bogus")
            .unwrap_err()
            .kind,
        FailureKind::InvalidOptions
    );
    // SPIR-V round-trips to bitcode for linking IL programs.
    let back = c.spirv_to_bitcode(&main.spirv)?;
    assert!(is_bitcode(&back));
    Ok(())
}

#[test]
fn modules_of_either_build_and_read_back_spirv_link_in_any_order() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    // pyopencl's test_compile_link: a library of one function without pointers, compiled
    // apart, then a kernel calling it. The source-faithful build writes opaque pointers,
    // the application's build and SPIR-V read back typed ones.
    let lib_src = "void value_sink(float x) {}
";
    let main_src = "void value_sink(float x);
                    __kernel void k(__global float *p) { value_sink(p[get_global_id(0)]); }
";
    for mode in [BuildMode::SourceFaithful, BuildMode::Application] {
        let c = Compiler::new().with_mode(mode);
        let lib = c.compile(&req(lib_src, ""))?;
        let main = c.compile(&req(main_src, ""))?;
        let read_back = c.spirv_to_bitcode(&main.spirv)?;
        for inputs in [
            [lib.bitcode.clone(), main.bitcode.clone()],
            [main.bitcode.clone(), lib.bitcode.clone()],
            [read_back.clone(), lib.bitcode.clone()],
            [lib.bitcode.clone(), read_back.clone()],
        ] {
            let linked = c.link(&inputs, "")?;
            assert!(is_spirv(&linked.spirv), "{mode:?}");
        }
    }
    Ok(())
}

#[test]
fn settings_name_the_cache_folder_and_build_mode() {
    let lookup = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    };
    let home = lookup(&[("HOME", "/home/u")]);
    assert_eq!(
        cache_dir(home),
        Some(PathBuf::from("/home/u/.cache/shadowcl"))
    );
    let xdg = lookup(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/c")]);
    assert_eq!(cache_dir(xdg), Some(PathBuf::from("/c/shadowcl")));
    // A relative XDG_CACHE_HOME is not used (the XDG rule).
    let rel = lookup(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "c")]);
    assert_eq!(
        cache_dir(rel),
        Some(PathBuf::from("/home/u/.cache/shadowcl"))
    );
    assert_eq!(
        cache_dir(lookup(&[("HOME", "/h"), ("SHADOWCL_CACHE", "off")])),
        None
    );
    assert_eq!(cache_dir(lookup(&[])), None);

    let c = Compiler::from_lookup(lookup(&[("SHADOWCL_COMPILE", "app"), ("HOME", "/h")]));
    let c = c.expect("a valid mode");
    assert_eq!(c.mode(), BuildMode::Application);
    assert_eq!(c.cache_dir(), Some(Path::new("/h/.cache/shadowcl")));
    let err = Compiler::from_lookup(lookup(&[("SHADOWCL_COMPILE", "fast")])).unwrap_err();
    assert!(err.contains("SHADOWCL_COMPILE=fast"), "{err}");
    assert_eq!(
        BuildMode::from_lookup(lookup(&[])),
        Ok(BuildMode::SourceFaithful)
    );
    assert_eq!(hex(&[0, 0xab, 0x10]), "00ab10");
}

/// A source-faithful build compiles at -O0 but must preprocess like the application's build:
/// `__OPTIMIZE__` is defined unless the options disable optimisation.
#[test]
fn optimize_macro_follows_the_application_options() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let src = "#ifndef __OPTIMIZE__\n#error not optimised\n#endif\n\
               __kernel void f(__global int *p) { p[0] = 1; }\n";
    for mode in [BuildMode::SourceFaithful, BuildMode::Application] {
        Compiler::new().with_mode(mode).compile(&req(src, ""))?;
        let off = Compiler::new()
            .with_mode(mode)
            .compile(&req(src, "-cl-opt-disable"))
            .unwrap_err();
        assert_eq!(off.kind, FailureKind::BuildFailed, "{mode:?}");
    }
    Ok(())
}

#[test]
fn tools_run_without_symbolising_their_crash_dumps() -> TestResult {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "printf '%s' \"$LLVM_DISABLE_SYMBOLIZATION\""]);
    let mut log = String::new();
    run_tool(cmd, "sh", "dash", &mut log)?;
    assert_eq!(log, "1");
    Ok(())
}

/// Should `opt` reject the vector component rewrite, the program still builds with whole
/// vectors, and the build log says so: an `opt` that fails on the rewrite's values (named
/// `%scl.`) stands in for a rewrite gone wrong.
#[test]
fn a_component_rewrite_opt_rejects_falls_back_to_whole_vectors() -> TestResult {
    if !have_tools() {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let fake = dir.path().join("opt");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif grep -q '%scl\\.' rewritten.ll; then echo 'error: rejected' >&2; exit 1; fi\nexec {OPT} \"$@\"\n"
        ),
    )?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))?;
    let src = "__kernel void k(__global float4 *v) { v[get_global_id(0)].yz = (float2)(1, 2); }";
    let out = Compiler::new()
        .with_opt(&fake.display().to_string())
        .compile(&req(src, ""))?;
    assert!(is_spirv(&out.spirv));
    assert!(
        out.log.contains("checked as whole vectors"),
        "no word of the fallback: {}",
        out.log
    );
    // The real `opt` takes the rewrite: no such word.
    let out = Compiler::new().compile(&req(src, ""))?;
    assert!(!out.log.contains("whole vectors"), "{}", out.log);
    Ok(())
}
