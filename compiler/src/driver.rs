//! The compile driver itself: tools, scratch folders, the on-disk cache.

use crate::device::{cl_ext_option, device_macros, DEVICE_HEADER};
use crate::options::{is_opt_arg, opt_level, parse_link_options, translate_options};
use crate::{
    barriers, faithful, work_items, BuildMode, CompileFailure, CompileRequest, Compiled,
    FailureKind, CLANG, LLVM_AS, LLVM_LINK, LLVM_SPIRV, OPT, SOURCE_NAME,
};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The sources that decide what a compile makes of its inputs (the fixed clang, opt and
/// llvm-spirv flags, the IR rewrites, the device's macros and extensions): part of every
/// cache key, so that a library whose compile differs in any way never takes a result
/// another one cached (a version bumped by hand is easy to forget).
const COMPILE_SOURCES: [&str; 6] = [
    include_str!("driver.rs"),
    include_str!("faithful.rs"),
    include_str!("barriers.rs"),
    include_str!("device.rs"),
    include_str!("options.rs"),
    include_str!("work_items.rs"),
];

/// The compile driver: tool names, build mode and the cache folder.
#[derive(Clone, Debug)]
pub struct Compiler {
    clang: String,
    llvm_spirv: String,
    llvm_link: String,
    opt: String,
    mode: BuildMode,
    cache_dir: Option<PathBuf>,
    /// Folder the debug info names as the source's home (replay: the record folder, whose
    /// `program.cl` reports then quote); `None`: the kept copy of the source.
    debug_dir: Option<PathBuf>,
    versions: OnceLock<Result<String, CompileFailure>>,
}

impl Default for Compiler {
    fn default() -> Self {
        Compiler::new()
    }
}

impl Compiler {
    /// Debian's tool names, no cache.
    pub fn new() -> Self {
        Compiler {
            clang: CLANG.to_string(),
            llvm_spirv: LLVM_SPIRV.to_string(),
            llvm_link: LLVM_LINK.to_string(),
            opt: OPT.to_string(),
            mode: BuildMode::default(),
            cache_dir: None,
            debug_dir: None,
            versions: OnceLock::new(),
        }
    }

    /// Debian's tool names, with the cache folder ([`cache_dir`]) and the build mode
    /// ([`BuildMode::from_lookup`]) a key/value source names (the platform passes its
    /// settings, a test or tool its environment). A bad `SHADOWCL_COMPILE` is an error.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        Ok(Compiler::new()
            .with_mode(BuildMode::from_lookup(&get)?)
            .with_cache_dir(cache_dir(&get)))
    }

    pub fn with_mode(mut self, mode: BuildMode) -> Self {
        self.mode = mode;
        self
    }

    pub fn mode(&self) -> BuildMode {
        self.mode
    }

    /// Uses `dir` as the cache folder (`None`: no cache).
    pub fn with_cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = dir;
        self
    }

    /// Debug info names `dir` as the folder of `program.cl` instead of the kept copy of the
    /// source (replay names the record folder).
    pub fn with_debug_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.debug_dir = dir;
        self
    }

    /// Uses another `opt` (tests: one that fails on purpose).
    #[cfg(test)]
    pub(crate) fn with_opt(mut self, opt: &str) -> Self {
        self.opt = opt.to_string();
        self.versions = OnceLock::new();
        self
    }

    /// Uses other tool programs (names looked up on PATH, or paths).
    pub fn with_tools(mut self, clang: &str, llvm_spirv: &str, llvm_link: &str) -> Self {
        self.clang = clang.to_string();
        self.llvm_spirv = llvm_spirv.to_string();
        self.llvm_link = llvm_link.to_string();
        self.versions = OnceLock::new();
        self
    }

    /// The cache folder in use, if any.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// `clang --version` and `llvm-spirv --version` output, read once; a missing tool
    /// is reported here.
    fn tool_versions(&self) -> Result<&str, CompileFailure> {
        self.versions
            .get_or_init(|| {
                let clang = tool_version(&self.clang, "clang-15")?;
                let spirv = tool_version(&self.llvm_spirv, "llvm-spirv-15")?;
                let opt = match self.mode {
                    BuildMode::SourceFaithful => tool_version(&self.opt, "llvm-15")?,
                    BuildMode::Application => String::new(),
                };
                Ok(format!("{clang}\n{spirv}\n{opt}"))
            })
            .as_ref()
            .map(String::as_str)
            .map_err(Clone::clone)
    }

    /// Compiles OpenCL C source to SPIR-V and SPIR bitcode.
    pub fn compile(&self, req: &CompileRequest) -> Result<Compiled, CompileFailure> {
        let args = translate_options(&req.options)
            .map_err(|msg| CompileFailure::new(FailureKind::InvalidOptions, msg))?;
        let mut headers = Vec::with_capacity(req.headers.len());
        for (name, text) in &req.headers {
            let rel = header_path(name).ok_or_else(|| {
                CompileFailure::new(
                    FailureKind::InvalidOptions,
                    format!("shadowcl: invalid header include name {name:?}\n"),
                )
            })?;
            headers.push((rel, text));
        }
        let versions = self.tool_versions()?;

        let key = self.cache_key(req, versions, &args);
        let source: String = req.sources.concat();
        // Debug info names this folder, so reports can quote the source line after the
        // scratch folder is gone (also for programs that come back from the cache).
        let kept = self.keep_source(&key, &source);
        let debug_dir = self.debug_dir.clone().unwrap_or(kept);
        if let Some(hit) = self.cache_load(&key) {
            return Ok(hit);
        }

        let dir = scratch_dir()?;
        let root = dir.path();
        let header_dir = root.join("headers");
        std::fs::create_dir_all(&header_dir)
            .map_err(|e| CompileFailure::io("cannot create the header folder", e))?;
        for (rel, text) in &headers {
            let path = header_dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| CompileFailure::io("cannot create a header folder", e))?;
            }
            std::fs::write(&path, text.as_bytes())
                .map_err(|e| CompileFailure::io("cannot write a header", e))?;
        }
        std::fs::write(root.join(SOURCE_NAME), source.as_bytes())
            .map_err(|e| CompileFailure::io("cannot write the source", e))?;
        let device_header = root.join(DEVICE_HEADER);
        std::fs::write(&device_header, device_macros())
            .map_err(|e| CompileFailure::io("cannot write the device header", e))?;

        // Source-faithful builds optimise after marking accesses, whatever -O was asked for:
        // what is checked no longer depends on it, so one fixed level serves speed.
        let opt = match self.mode {
            BuildMode::SourceFaithful => '2',
            BuildMode::Application => opt_level(&args),
        };
        // llvm-spirv-15 aborts on some optimised variable locations ("unsupported opcode
        // found in DIExpression"); line tables alone still give every instruction its
        // source line, so retry with those, and as a last resort without optimisation.
        let mut attempts = vec![("-g", opt), ("-gline-tables-only", opt)];
        if opt != '0' {
            attempts.push(("-gline-tables-only", '0'));
        }
        let mut attempt = 0;
        let (bitcode, spirv, log) = loop {
            let (debug, opt) = attempts[attempt];
            // Source-faithful builds take clang's IR before any optimisation (`-O1` with the
            // LLVM passes off, not `-O0`: at `-O0` clang emits no body for a C99 `inline`
            // function, which only optimisation was to inline).
            let front_opt = match self.mode {
                BuildMode::SourceFaithful => '1',
                BuildMode::Application => opt,
            };
            let mut cmd = Command::new(&self.clang);
            cmd.current_dir(root)
                .args(["-c", "-target", "spir64", "-emit-llvm"])
                .arg(format!("-O{front_opt}"))
                // The vectorisers emit llvm.vector.reduce.* that llvm-spirv-15 rejects,
                // and scalar code is what the interpreter and the checkers want anyway.
                .args(["-fno-vectorize", "-fno-slp-vectorize"])
                .args([debug, "-Xclang", "-cl-kernel-arg-info"])
                .arg("-Wno-unused-command-line-argument")
                .arg(format!("-fdebug-compilation-dir={}", debug_dir.display()))
                .arg("-fno-color-diagnostics")
                // The device's predefined macros (OpenCL C spec, "Preprocessor Directives
                // and Macros"): clang-15 does not define __OPENCL_VERSION__ (the device's
                // OpenCL version, 300 for OpenCL 3.0, whatever the -cl-std); its
                // __IMAGE_SUPPORT__ is right, the device supports images.
                .arg("-D__OPENCL_VERSION__=300")
                // Extensions and OpenCL C 3.0 features: exactly the device's (clang-15 turns
                // on every one it knows for spir64).
                .args(["-Xclang", &cl_ext_option()])
                .arg("-include")
                .arg(&device_header)
                .arg("-I")
                .arg(&header_dir)
                .args(args.iter().filter(|a| !is_opt_arg(a)));
            if self.mode == BuildMode::SourceFaithful {
                // Unoptimised IR to mark (`opt` runs after the rewrite).
                cmd.args(["-Xclang", "-disable-llvm-passes"]);
                // `opt` must not delete what the source does on a path with undefined
                // behaviour, which is what the checks are for: a private null pointer's
                // access (made unreachable otherwise) and the code around an uninitialised
                // value passed to a function (`noundef` lets `opt` assume the path is never
                // taken, an atomic loop with it).
                cmd.args([
                    "-fno-delete-null-pointer-checks",
                    "-Xclang",
                    "-no-enable-noundef-analysis",
                ]);
                // A 3-component vector is three components: clang otherwise loads and
                // stores it as four, reading (and rewriting) its padding, which nobody wrote.
                cmd.args(["-Xclang", "-fpreserve-vec3-type"]);
                // The source sees the build the application asked for: clang defines
                // __OPTIMIZE__ at the front end's -O1, which an unoptimised build lacks.
                if opt_level(&args) == '0' {
                    cmd.arg("-U__OPTIMIZE__");
                }
            }
            // Textual IR, rewritten before it becomes bitcode (see `rewrite_ir`).
            cmd.args(["-S", "-x", "cl", SOURCE_NAME, "-o", "program.ll"]);
            let mut log = String::new();
            run_tool(cmd, &self.clang, "clang-15", &mut log)?;
            self.rewrite_ir(root, opt, &mut log)?;
            let bitcode = std::fs::read(root.join("program.bc"))
                .map_err(|e| CompileFailure::io("clang wrote no bitcode", e))?;
            let mut spirv_log = String::new();
            match self.to_spirv(root, "program.bc", &mut spirv_log) {
                Ok(spirv) => {
                    log.push_str(&spirv_log);
                    break (bitcode, spirv, log);
                }
                Err(e) if e.kind == FailureKind::BuildFailed && attempt + 1 < attempts.len() => {
                    // Full debug info rejected: the bitcode already built, cut to its line
                    // tables, is what the -gline-tables-only build would give (debug info does
                    // not change code generation), without running clang and opt again.
                    if debug == "-g" {
                        if let Some((bitcode, spirv)) = self.with_line_tables_only(root) {
                            break (bitcode, spirv, log);
                        }
                    }
                    attempt += 1;
                }
                Err(mut e) => {
                    e.log = strip_paths(&format!("{log}{}", e.log), root);
                    return Err(e);
                }
            }
        };
        let out = Compiled {
            spirv,
            bitcode,
            log: strip_paths(&log, root),
            from_cache: false,
        };
        self.cache_store(&key, &out);
        Ok(out)
    }

    /// The cache key of a compile: everything that decides its result (this crate's compile
    /// code, tool versions, mode,
    /// options, sources and headers, the debug folder, the working directory for relative
    /// `-I` folders).
    fn cache_key(&self, req: &CompileRequest, versions: &str, args: &[String]) -> String {
        let mut hasher = Sha256::new();
        hash_part(&mut hasher, b"shadowcl-compile");
        for source in COMPILE_SOURCES {
            hash_part(&mut hasher, source.as_bytes());
        }
        hash_part(&mut hasher, versions.as_bytes());
        hash_part(&mut hasher, format!("{:?}", self.mode).as_bytes());
        hash_part(&mut hasher, req.options.as_bytes());
        if let Some(d) = &self.debug_dir {
            hash_part(&mut hasher, d.as_os_str().as_encoded_bytes());
        }
        // Relative -I folders depend on the working directory.
        if args.iter().any(|a| a.starts_with("-I")) {
            if let Ok(cwd) = std::env::current_dir() {
                hash_part(&mut hasher, cwd.as_os_str().as_encoded_bytes());
            }
        }
        hash_part(&mut hasher, &(req.sources.len() as u64).to_le_bytes());
        for s in &req.sources {
            hash_part(&mut hasher, s.as_bytes());
        }
        hash_part(&mut hasher, &(req.headers.len() as u64).to_le_bytes());
        for (name, text) in &req.headers {
            hash_part(&mut hasher, name.as_bytes());
            hash_part(&mut hasher, text.as_bytes());
        }
        hex(&hasher.finalize())
    }

    /// Links SPIR LLVM bitcode modules and translates the result to SPIR-V.
    pub fn link(&self, bitcodes: &[Vec<u8>], options: &str) -> Result<Compiled, CompileFailure> {
        parse_link_options(options)
            .map_err(|msg| CompileFailure::new(FailureKind::InvalidOptions, msg))?;
        if bitcodes.is_empty() {
            return Err(CompileFailure::new(
                FailureKind::BuildFailed,
                "shadowcl: nothing to link\n",
            ));
        }
        let versions = self.tool_versions()?;
        let mut hasher = Sha256::new();
        hash_part(&mut hasher, b"shadowcl-link-v2");
        hash_part(&mut hasher, versions.as_bytes());
        hash_part(&mut hasher, options.as_bytes());
        hash_part(&mut hasher, &(bitcodes.len() as u64).to_le_bytes());
        for b in bitcodes {
            hash_part(&mut hasher, b);
        }
        let key = hex(&hasher.finalize());
        if let Some(hit) = self.cache_load(&key) {
            return Ok(hit);
        }

        let dir = scratch_dir()?;
        let root = dir.path();
        let mut log = String::new();
        let mut cmd = Command::new(&self.llvm_link);
        cmd.current_dir(root);
        for (i, b) in bitcodes.iter().enumerate() {
            let name = format!("input{i}.bc");
            std::fs::write(root.join(&name), b)
                .map_err(|e| CompileFailure::io("cannot write a link input", e))?;
            if bitcodes.len() > 1 {
                // llvm-link-15 takes the pointer kind of the first module it reads and
                // refuses opaque-pointer modules after a typed one: the source-faithful
                // build's `opt` writes opaque pointers, the application's build and
                // SPIR-V read back typed ones. Every input is made opaque first (typed
                // bitcode upgrades).
                let mut opaque = Command::new(&self.opt);
                opaque
                    .current_dir(root)
                    .args(["-opaque-pointers", &name, "-o", &name]);
                run_tool(opaque, &self.opt, "llvm-15", &mut log)?;
            }
            cmd.arg(name);
        }
        cmd.args(["-o", "linked.bc"]);
        run_tool(cmd, &self.llvm_link, "llvm-15", &mut log)?;
        let bitcode = std::fs::read(root.join("linked.bc"))
            .map_err(|e| CompileFailure::io("llvm-link wrote no bitcode", e))?;
        let spirv = self.to_spirv(root, "linked.bc", &mut log)?;
        let out = Compiled {
            spirv,
            bitcode,
            log: strip_paths(&log, root),
            from_cache: false,
        };
        self.cache_store(&key, &out);
        Ok(out)
    }

    /// SPIR-V → SPIR LLVM bitcode (`llvm-spirv-15 -r`).
    pub fn spirv_to_bitcode(&self, spirv: &[u8]) -> Result<Vec<u8>, CompileFailure> {
        let dir = scratch_dir()?;
        let root = dir.path();
        std::fs::write(root.join("module.spv"), spirv)
            .map_err(|e| CompileFailure::io("cannot write the SPIR-V", e))?;
        let mut cmd = Command::new(&self.llvm_spirv);
        cmd.current_dir(root)
            .args(["-r", "module.spv", "-o", "module.bc"]);
        let mut log = String::new();
        run_tool(cmd, &self.llvm_spirv, "llvm-spirv-15", &mut log)?;
        std::fs::read(root.join("module.bc"))
            .map_err(|e| CompileFailure::io("llvm-spirv wrote no bitcode", e))
    }

    /// `program.ll` → barriers with run-time flags made translatable ([`barriers`]) and, in
    /// source-faithful builds, watched accesses marked volatile ([`faithful`]) and then
    /// `opt -O<level>` → `program.bc`.
    fn rewrite_ir(&self, root: &Path, level: char, log: &mut String) -> Result<(), CompileFailure> {
        let ir = std::fs::read_to_string(root.join("program.ll"))
            .map_err(|e| CompileFailure::io("clang wrote no IR", e))?;
        let ir = barriers::rewrite_dynamic_flags(&ir);
        if self.mode == BuildMode::Application {
            std::fs::write(root.join("rewritten.ll"), ir)
                .map_err(|e| CompileFailure::io("cannot write the rewritten IR", e))?;
            let mut cmd = Command::new(LLVM_AS);
            cmd.current_dir(root)
                .args(["rewritten.ll", "-o", "program.bc"]);
            return run_tool(cmd, LLVM_AS, "llvm-15", log);
        }
        let ir = work_items::not_convergent(&ir);
        let optimise = |narrow: bool, log: &mut String| -> Result<(), CompileFailure> {
            std::fs::write(
                root.join("rewritten.ll"),
                faithful::mark_watched_accesses_volatile(&ir, narrow),
            )
            .map_err(|e| CompileFailure::io("cannot write the rewritten IR", e))?;
            let mut cmd = Command::new(&self.opt);
            cmd.current_dir(root)
                .arg(format!("-O{level}"))
                // As clang's -fno-vectorize / -fno-slp-vectorize above.
                .args(["--vectorize-loops=false", "--vectorize-slp=false"])
                // Two branches' like accesses merged into one (sunk below or hoisted
                // above the branch) take a merged debug location, line 0: a race between
                // them would be reported without its lines.
                .args([
                    "--simplifycfg-sink-common=false",
                    "--simplifycfg-hoist-common=false",
                ])
                .args(["rewritten.ll", "-o", "program.bc"]);
            run_tool(cmd, &self.opt, "llvm-15", log)
        };
        // The component rewrite is textual: should `opt` ever reject what it made, the
        // program still builds, with whole-vector accesses, and the log says so.
        let mut tried = String::new();
        match optimise(true, &mut tried) {
            Err(e) if e.kind == FailureKind::BuildFailed => {
                tracing::warn!(
                    "opt rejected the vector component rewrite: {}",
                    e.log.trim()
                );
                log.push_str(
                    "shadowcl: vector components are checked as whole vectors in this program \
                     (the component rewrite failed)\n",
                );
                optimise(false, log)
            }
            r => {
                log.push_str(&tried);
                r
            }
        }
    }

    /// `program.bc` with its debug info cut to line tables (`lines.bc`), and its SPIR-V;
    /// `None` when either step fails (the caller then builds again with line tables).
    fn with_line_tables_only(&self, root: &Path) -> Option<(Vec<u8>, Vec<u8>)> {
        let mut log = String::new();
        let mut cmd = Command::new(&self.opt);
        cmd.current_dir(root).args([
            "-passes=strip-nonlinetable-debuginfo",
            "program.bc",
            "-o",
            "lines.bc",
        ]);
        run_tool(cmd, &self.opt, "llvm-15", &mut log).ok()?;
        let spirv = self.to_spirv(root, "lines.bc", &mut log).ok()?;
        let bitcode = std::fs::read(root.join("lines.bc")).ok()?;
        Some((bitcode, spirv))
    }

    fn to_spirv(&self, root: &Path, bc: &str, log: &mut String) -> Result<Vec<u8>, CompileFailure> {
        let mut cmd = Command::new(&self.llvm_spirv);
        cmd.current_dir(root).args([bc, "-o", "program.spv"]);
        run_tool(cmd, &self.llvm_spirv, "llvm-spirv-15", log)?;
        std::fs::read(root.join("program.spv"))
            .map_err(|e| CompileFailure::io("llvm-spirv wrote no SPIR-V", e))
    }

    /// Keeps a copy of the program source at `<cache>/sources/<key>/program.cl` (or under the
    /// temp folder when the cache is off) and returns its folder. Best effort: when it cannot
    /// be written, reports simply show no source text.
    fn keep_source(&self, key: &str, source: &str) -> PathBuf {
        let base = match &self.cache_dir {
            Some(d) => d.join("sources"),
            None => std::env::temp_dir().join("shadowcl-sources"),
        };
        let dir = base.join(key);
        let path = dir.join(SOURCE_NAME);
        if !path.exists() {
            let tmp = dir.join(format!(".{SOURCE_NAME}.{}", std::process::id()));
            let written = std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(&tmp, source.as_bytes()))
                .and_then(|()| std::fs::rename(&tmp, &path));
            if let Err(e) = written {
                tracing::debug!("cannot keep the source in {}: {e}", dir.display());
            }
        }
        dir
    }

    fn cache_load(&self, key: &str) -> Option<Compiled> {
        let dir = self.cache_dir.as_ref()?;
        let spirv = std::fs::read(dir.join(format!("{key}.spv"))).ok()?;
        let bitcode = std::fs::read(dir.join(format!("{key}.bc"))).ok()?;
        let log = std::fs::read_to_string(dir.join(format!("{key}.log"))).ok()?;
        if spirv.len() < 20 || spirv.len() % 4 != 0 || bitcode.is_empty() {
            return None;
        }
        Some(Compiled {
            spirv,
            bitcode,
            log,
            from_cache: true,
        })
    }

    /// Best effort: a cache that cannot be written is no error.
    fn cache_store(&self, key: &str, out: &Compiled) {
        let Some(dir) = self.cache_dir.as_ref() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        // The log is written last: cache_load needs all three files.
        for (ext, data) in [
            ("spv", out.spirv.as_slice()),
            ("bc", out.bitcode.as_slice()),
            ("log", out.log.as_bytes()),
        ] {
            let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
                return;
            };
            if tmp.write_all(data).is_err() {
                return;
            }
            if tmp.persist(dir.join(format!("{key}.{ext}"))).is_err() {
                return;
            }
        }
    }
}

/// The cache folder `get` (a key/value source: the platform's settings, or the environment)
/// names: `$XDG_CACHE_HOME/shadowcl`, else `$HOME/.cache/shadowcl`; `None` when
/// `SHADOWCL_CACHE=0` (or `off`/`false`/`no`) or neither variable is set.
pub fn cache_dir(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(v) = get("SHADOWCL_CACHE") {
        let v = v.trim().to_ascii_lowercase();
        if matches!(v.as_str(), "0" | "off" | "false" | "no") {
            return None;
        }
    }
    if let Some(x) = get("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        let p = PathBuf::from(x);
        if p.is_absolute() {
            return Some(p.join("shadowcl"));
        }
    }
    let home = get("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".cache").join("shadowcl"))
}

/// A relative path below the header folder, or `None` for names that would escape it.
pub(crate) fn header_path(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    if name.is_empty() || p.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.as_os_str().is_empty() {
        None
    } else {
        Some(out)
    }
}

pub(crate) fn scratch_dir() -> Result<tempfile::TempDir, CompileFailure> {
    tempfile::Builder::new()
        .prefix("shadowcl-cc-")
        .tempdir()
        .map_err(|e| CompileFailure::io("cannot create a scratch folder", e))
}

pub(crate) fn tool_missing(tool: &str, package: &str) -> CompileFailure {
    CompileFailure::new(
        FailureKind::ToolMissing,
        format!(
            "shadowcl: the tool `{tool}` was not found; install the Debian package {package} \
             (apt-get install {package})\n"
        ),
    )
}

pub(crate) fn tool_version(tool: &str, package: &str) -> Result<String, CompileFailure> {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(o) => Err(CompileFailure::new(
            FailureKind::ToolMissing,
            format!(
                "shadowcl: `{tool} --version` failed ({}): {}\n",
                o.status,
                String::from_utf8_lossy(&o.stderr).trim_end()
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(tool_missing(tool, package)),
        Err(e) => Err(CompileFailure::new(
            FailureKind::ToolMissing,
            format!("shadowcl: cannot run `{tool}`: {e} (Debian package {package})\n"),
        )),
    }
}

/// Runs a tool, appends its stderr (and stdout) to `log`, fails with the log when the
/// tool fails.
pub(crate) fn run_tool(
    mut cmd: Command,
    tool: &str,
    package: &str,
    log: &mut String,
) -> Result<(), CompileFailure> {
    // A crashing LLVM tool (llvm-spirv-15 aborts on some debug info, and `compile` then
    // retries) otherwise runs llvm-symbolizer over its stack dump: 0.2-0.3 s a crash, paid on
    // every such build; the dump's addresses are enough in a build log.
    cmd.env("LLVM_DISABLE_SYMBOLIZATION", "1");
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(tool_missing(tool, package))
        }
        Err(e) => return Err(CompileFailure::io(&format!("cannot run `{tool}`"), e)),
    };
    log.push_str(&String::from_utf8_lossy(&out.stderr));
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    if out.status.success() {
        Ok(())
    } else {
        if log.trim().is_empty() {
            log.push_str(&format!("shadowcl: `{tool}` failed ({})\n", out.status));
        }
        Err(CompileFailure::new(FailureKind::BuildFailed, log.clone()))
    }
}

/// Removes the scratch folder's path from diagnostics.
pub(crate) fn strip_paths(log: &str, root: &Path) -> String {
    let prefix = format!("{}/", root.display());
    log.replace(&prefix, "")
}

pub(crate) fn hash_part(h: &mut Sha256, data: &[u8]) {
    h.update((data.len() as u64).to_le_bytes());
    h.update(data);
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
