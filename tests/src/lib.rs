//! Support for the integration tests: finds the built `libshadowcl.so`, writes a vendors
//! folder for the ICD loader, compiles the C hosts in `tests/c`, and runs child processes
//! with `OCL_ICD_VENDORS` pointing at ShadowCL (or PoCL, to check the hosts themselves).
//!
//! Tests call [`Icd::shadowcl`] and return early when it gives `None`: the library has
//! not been built, and a `SKIP:` line saying so goes straight to the terminal (not through
//! the test harness's output capture, so it is seen even when the test "passes").

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The platform name ShadowCL reports.
pub const PLATFORM_NAME: &str = "ShadowCL";

/// Default time limit for a child process.
pub const TIMEOUT: Duration = Duration::from_secs(180);

/// The workspace root (`tests/..`).
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(Path::to_path_buf).unwrap_or(here)
}

/// This crate's folder (`tests/`).
pub fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Prints a line on the real stderr, past the test harness's capture.
pub fn notice(msg: &str) {
    let mut err = std::io::stderr();
    let _ = writeln!(err, "{msg}");
}

/// Reports a skipped test: `SKIP: <test>: <why>` on the real stderr. With
/// `SHADOWCL_REQUIRE_LIB=1` (set by ci/test, which builds the library first) a missing
/// `libshadowcl.so` is a failure instead.
pub fn skip(test: &str, why: &str) {
    notice(&format!("SKIP: {test}: {why}"));
}

fn lib_missing(test: &str, why: &str) {
    if std::env::var("SHADOWCL_REQUIRE_LIB").is_ok_and(|v| v == "1") {
        panic!("{test}: {why}, and SHADOWCL_REQUIRE_LIB=1");
    }
    skip(test, why);
}

/// Where `libshadowcl.so` is: `$SHADOWCL_LIB`, else the `debug` folder of the target
/// folder this test binary was built in, else `$CARGO_TARGET_DIR/debug`, else
/// `<workspace>/target/debug`. `None` when none exists.
pub fn find_shadowcl_lib() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SHADOWCL_LIB").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        // <target>/debug/deps/<test binary>
        if let Some(profile_dir) = exe.parent().and_then(Path::parent) {
            candidates.push(profile_dir.join("libshadowcl.so"));
            candidates.push(profile_dir.join("deps").join("libshadowcl.so"));
        }
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        candidates.push(PathBuf::from(t).join("debug").join("libshadowcl.so"));
    }
    candidates.push(workspace_root().join("target/debug/libshadowcl.so"));
    candidates.into_iter().find(|p| p.is_file())
}

/// The `shadowcl` binary built beside the library (`cargo build -p shadowcl`); `None` (after
/// a `SKIP:` notice naming `test`) when it or the library is missing.
pub fn shadowcl_cli(test: &str) -> Option<PathBuf> {
    let Some(lib) = find_shadowcl_lib() else {
        lib_missing(
            test,
            "libshadowcl.so not found (build it first, or set SHADOWCL_LIB)",
        );
        return None;
    };
    let cli = lib
        .parent()
        .map(|d| d.join("shadowcl"))
        .filter(|c| c.is_file());
    if cli.is_none() {
        skip(
            test,
            "the shadowcl binary is not built (cargo build -p shadowcl)",
        );
    }
    cli
}

/// A vendors folder for the ICD loader.
pub struct Icd {
    dir: tempfile::TempDir,
    /// What the folder registers, for messages.
    pub label: String,
}

impl Icd {
    /// A vendors folder holding only `shadowcl.icd`; `None` (after a `SKIP:` notice naming
    /// `test`) when `libshadowcl.so` has not been built.
    pub fn shadowcl(test: &str) -> Option<Icd> {
        let Some(lib) = find_shadowcl_lib() else {
            lib_missing(
                test,
                "libshadowcl.so not found (build it with `cargo build -p shadowcl-icd`, \
                 or set SHADOWCL_LIB)",
            );
            return None;
        };
        Some(Icd::with_libs("ShadowCL", &[("shadowcl.icd", lib)]))
    }

    /// ShadowCL and PoCL side by side (so a host must pick its platform by name); PoCL is
    /// left out when it is not installed.
    pub fn shadowcl_and_pocl(test: &str) -> Option<Icd> {
        let lib = match find_shadowcl_lib() {
            Some(lib) => lib,
            None => {
                lib_missing(
                    test,
                    "libshadowcl.so not found (build it first, or set SHADOWCL_LIB)",
                );
                return None;
            }
        };
        let mut libs = vec![("shadowcl.icd", lib)];
        if let Some(pocl) = pocl_lib() {
            libs.push(("pocl.icd", pocl));
        }
        Some(Icd::with_libs("ShadowCL+PoCL", &libs))
    }

    /// A vendors folder holding only PoCL; `None` (after a `SKIP:` notice) when PoCL is
    /// not installed.
    pub fn pocl(test: &str) -> Option<Icd> {
        let Some(lib) = pocl_lib() else {
            skip(
                test,
                "PoCL is not installed (apt-get install pocl-opencl-icd)",
            );
            return None;
        };
        Some(Icd::with_libs("PoCL", &[("pocl.icd", lib)]))
    }

    fn with_libs(label: &str, libs: &[(&str, PathBuf)]) -> Icd {
        let dir = tempfile::Builder::new()
            .prefix("shadowcl-vendors-")
            .tempdir()
            .expect("temp vendors dir");
        for (name, lib) in libs {
            let abs = std::fs::canonicalize(lib).unwrap_or_else(|_| lib.clone());
            std::fs::write(dir.path().join(name), format!("{}\n", abs.display()))
                .expect("write .icd file");
        }
        Icd {
            dir,
            label: label.to_string(),
        }
    }

    /// The vendors folder (the value of `OCL_ICD_VENDORS`).
    pub fn vendors(&self) -> &Path {
        self.dir.path()
    }

    /// A command for `program` that will see only this folder's platforms.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("OCL_ICD_VENDORS", self.vendors())
            .env_remove("OPENCL_VENDOR_PATH")
            .env_remove("OCL_ICD_FILENAMES")
            .env_remove("SHADOWCL_FORWARD")
            .env_remove("PYOPENCL_CTX")
            .env_remove("HOST_PLATFORM");
        cmd
    }
}

/// The PoCL ICD library named by `/etc/OpenCL/vendors/pocl.icd`, if installed.
pub fn pocl_lib() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/etc/OpenCL/vendors/pocl.icd").ok()?;
    let name = text.trim();
    if name.is_empty() {
        return None;
    }
    let p = PathBuf::from(name);
    if p.is_absolute() {
        return p.is_file().then_some(p);
    }
    // A bare soname: the loader finds it on the library path.
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
    ]
    .iter()
    .map(|d| Path::new(d).join(name))
    .find(|p| p.is_file())
}

/// Whether `program` runs (`program --version` or `program` with `arg`).
pub fn have_program(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// What a child process did.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub what: String,
}

impl Outcome {
    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// A description for assertion messages.
    pub fn describe(&self) -> String {
        use std::os::unix::process::ExitStatusExt;
        let how = if self.timed_out {
            "timed out (killed)".to_string()
        } else {
            match self.status {
                Some(s) => match (s.code(), s.signal()) {
                    (Some(c), _) => format!("exit code {c}"),
                    (None, Some(sig)) => format!("killed by signal {sig}"),
                    _ => format!("{s}"),
                },
                None => "did not run".to_string(),
            }
        };
        format!(
            "{}: {how}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.what,
            tail(&self.stdout, 6000),
            tail(&self.stderr, 6000)
        )
    }

    /// Panics with the whole story unless the process exited 0.
    pub fn assert_success(&self) -> &Self {
        assert!(self.success(), "{}", self.describe());
        self
    }
}

fn tail(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut start = s.len() - n;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Runs `cmd` to completion or until `timeout`, collecting its output.
pub fn run(mut cmd: Command, timeout: Duration) -> Outcome {
    let what = format!("{cmd:?}");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                status: None,
                stdout: String::new(),
                stderr: format!("cannot start: {e}"),
                timed_out: false,
                what,
            }
        }
    };
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_thread = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out_pipe.read_to_end(&mut b);
        b
    });
    let err_thread = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err_pipe.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&out_thread.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_thread.join().unwrap_or_default()).into_owned();
    Outcome {
        status,
        stdout,
        stderr,
        timed_out,
        what,
    }
}

/// The folder C hosts are compiled into (one per test process).
fn build_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("shadowcl-hosts-")
            .tempdir()
            .expect("temp build dir")
    })
    .path()
}

/// Compiles `tests/c/<name>.c` (once per test process) with `cc ... -lOpenCL` and returns
/// the executable. Panics with the compiler's output when it fails.
pub fn c_host(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let map = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = map.get(name) {
        return p.clone();
    }
    let src = tests_dir().join("c").join(format!("{name}.c"));
    let exe = build_dir().join(name);
    let mut cmd = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".to_string()));
    cmd.args([
        "-std=c11",
        "-D_POSIX_C_SOURCE=200809L",
        "-O1",
        "-g",
        "-Wall",
        "-Wextra",
        "-Werror",
    ])
    .arg("-I")
    .arg(tests_dir().join("c"))
    .arg("-o")
    .arg(&exe)
    .arg(&src)
    .args(["-lOpenCL", "-lm"]);
    run(cmd, Duration::from_secs(120)).assert_success();
    map.insert(name.to_string(), exe.clone());
    exe
}

/// Compiles an OpenCL C file to SPIR-V with clang-15 + llvm-spirv-15 (the same tool chain
/// ShadowCL uses), into the build folder. `None` when the tools are missing.
pub fn spirv_of(cl_source: &str, name: &str) -> Option<PathBuf> {
    let dir = build_dir();
    let cl = dir.join(format!("{name}.cl"));
    let bc = dir.join(format!("{name}.bc"));
    let spv = dir.join(format!("{name}.spv"));
    std::fs::write(&cl, cl_source).expect("write .cl");
    let mut clang = Command::new("clang-15");
    clang
        .args(["-c", "-target", "spir64", "-emit-llvm", "-O2", "-o"])
        .arg(&bc)
        .arg(&cl);
    let o = run(clang, Duration::from_secs(120));
    o.status?;
    o.assert_success();
    let mut tr = Command::new("llvm-spirv-15");
    tr.arg(&bc).arg("-o").arg(&spv);
    let o = run(tr, Duration::from_secs(120));
    o.status?;
    o.assert_success();
    Some(spv)
}

/// Debian's interpreter, where python3-pyopencl and python3-numpy install to.
pub const PYTHON: &str = "/usr/bin/python3";

/// Runs `tests/python/<script>` under pyopencl on ShadowCL (PoCL registered beside it, so
/// `PYOPENCL_CTX=ShadowCL` picks the platform by name), with `envs` added. `None` (after a
/// `SKIP:` notice naming `test`) when the library is not built or `/usr/bin/python3` cannot
/// import pyopencl and numpy.
pub fn pyopencl_script(test: &str, script: &str, envs: &[(&str, &str)]) -> Option<Outcome> {
    let icd = Icd::shadowcl_and_pocl(test)?;
    let mut probe = Command::new(PYTHON);
    probe.args(["-c", "import pyopencl, numpy"]);
    if !run(probe, TIMEOUT).success() {
        skip(
            test,
            "/usr/bin/python3 cannot import pyopencl and numpy (apt-get install python3-pyopencl python3-numpy)",
        );
        return None;
    }
    let mut cmd = icd.command(PYTHON);
    // No cache: every run compiles through ShadowCL. No PYTHONPATH/PYTHONHOME: the
    // system's pyopencl and numpy, not whatever the caller's environment points at.
    cmd.arg(tests_dir().join("python").join(script))
        .env("PYOPENCL_CTX", "ShadowCL")
        .env("PYOPENCL_NO_CACHE", "1")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME");
    cmd.envs(envs.iter().copied());
    Some(run(cmd, TIMEOUT))
}
