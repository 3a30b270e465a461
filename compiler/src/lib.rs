//! The OpenCL C compile driver, one for the platform library and replay alike, so a replay
//! checks the very kernel the run checked.
//!
//! OpenCL C source goes through Debian's `clang-15` (driver form, `-target spir64`, with
//! `-g` and `-cl-kernel-arg-info` so argument names and source lines survive) to SPIR
//! LLVM bitcode, and `llvm-spirv-15` turns that into SPIR-V. Linking goes through
//! `llvm-link-15` and then `llvm-spirv-15` again.
//!
//! This module knows nothing about OpenCL handles or error codes: callers map a
//! [`FailureKind`] onto `CL_INVALID_BUILD_OPTIONS`, `CL_BUILD_PROGRAM_FAILURE`,
//! `CL_COMPILER_NOT_AVAILABLE` and friends.
//!
//! The kernel that is checked is built source-faithfully by default ([`BuildMode`]): every
//! global, constant, local and generic access of the source survives the optimiser (see
//! [`faithful`]); `SHADOWCL_COMPILE=app` builds exactly as the application asked instead.
//!
//! Results are cached in `$XDG_CACHE_HOME/shadowcl` (else `~/.cache/shadowcl`), keyed by
//! a sha256 of the sources, headers, options and tool versions. `SHADOWCL_CACHE=0`
//! disables the cache.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

pub mod barriers;
pub mod faithful;

/// The clang driver used to compile OpenCL C.
pub const CLANG: &str = "clang-15";
/// The LLVM bitcode ↔ SPIR-V translator.
pub const LLVM_SPIRV: &str = "llvm-spirv-15";
/// The LLVM bitcode linker.
pub const LLVM_LINK: &str = "llvm-link-15";
/// The LLVM optimiser (source-faithful builds optimise after marking accesses volatile).
pub const OPT: &str = "opt-15";
/// The LLVM assembler (application builds: rewritten IR back to bitcode).
pub const LLVM_AS: &str = "llvm-as-15";
/// The LLVM bitcode disassembler (reads kernel argument metadata).
pub const LLVM_DIS: &str = "llvm-dis-15";

/// The device's extensions (`CL_DEVICE_EXTENSIONS`); the driver defines exactly these macros.
pub const DEVICE_EXTENSIONS: &[&str] = &[
    "cl_khr_byte_addressable_store",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_il_program",
    "cl_khr_3d_image_writes",
];
/// OpenCL C 3.0 optional features (`CL_DEVICE_OPENCL_C_FEATURES`); the compile driver
/// defines exactly these feature macros.
pub const OPENCL_C_FEATURES: &[&str] = &[
    "__opencl_c_int64",
    "__opencl_c_fp64",
    "__opencl_c_images",
    "__opencl_c_3d_image_writes",
];

/// Name given to the program source inside the scratch directory; it shows up in
/// diagnostics (`program.cl:3:5: error: ...`) and in the SPIR-V debug info.
pub const SOURCE_NAME: &str = "program.cl";

/// What to compile: the program's source strings (concatenated, as the OpenCL
/// specification says), the build options as the application passed them, and the
/// embedded headers of `clCompileProgram` (include name, source).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileRequest {
    pub sources: Vec<String>,
    pub options: String,
    pub headers: Vec<(String, String)>,
}

/// A successful compile or link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The SPIR-V module (little-endian words as bytes).
    pub spirv: Vec<u8>,
    /// The SPIR LLVM bitcode the SPIR-V was made from (input to [`link`]).
    pub bitcode: Vec<u8>,
    /// Diagnostics (warnings) of the tools; empty when there were none.
    pub log: String,
    /// True when the result came from the on-disk cache.
    pub from_cache: bool,
}

/// Why a compile or link failed; maps onto the OpenCL error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// An option is unknown or malformed: `CL_INVALID_BUILD_OPTIONS`,
    /// `CL_INVALID_COMPILER_OPTIONS` or `CL_INVALID_LINKER_OPTIONS`.
    InvalidOptions,
    /// The source (or a link input) is wrong, or a tool failed:
    /// `CL_BUILD_PROGRAM_FAILURE`, `CL_COMPILE_PROGRAM_FAILURE`, `CL_LINK_PROGRAM_FAILURE`.
    BuildFailed,
    /// A tool is not installed: `CL_COMPILER_NOT_AVAILABLE` / `CL_LINKER_NOT_AVAILABLE`.
    ToolMissing,
}

/// A failed compile or link; `log` is what `CL_PROGRAM_BUILD_LOG` should return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileFailure {
    pub log: String,
    pub kind: FailureKind,
}

impl CompileFailure {
    fn new(kind: FailureKind, log: impl Into<String>) -> Self {
        CompileFailure {
            log: log.into(),
            kind,
        }
    }

    fn io(what: &str, err: std::io::Error) -> Self {
        CompileFailure::new(
            FailureKind::BuildFailed,
            format!("shadowcl: {what}: {err}\n"),
        )
    }
}

impl fmt::Display for CompileFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.log.trim_end())
    }
}

impl std::error::Error for CompileFailure {}

/// Link options understood by [`link`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// `-create-library`: the result is a library, not an executable.
    pub create_library: bool,
    /// `-enable-link-options`: the math options below apply to a library.
    pub enable_link_options: bool,
}

/// Compiles OpenCL C with the process-wide compiler (tools on PATH, cache from the
/// environment).
pub fn compile(req: &CompileRequest) -> Result<Compiled, CompileFailure> {
    Compiler::global().compile(req)
}

/// Links SPIR LLVM bitcode modules (the `bitcode` of earlier [`compile`] results) with
/// the process-wide compiler.
pub fn link(bitcodes: &[Vec<u8>], options: &str) -> Result<Compiled, CompileFailure> {
    Compiler::global().link(bitcodes, options)
}

/// Turns SPIR-V back into SPIR LLVM bitcode (`llvm-spirv-15 -r`), so programs created
/// with `clCreateProgramWithIL` can take part in [`link`].
pub fn spirv_to_bitcode(spirv: &[u8]) -> Result<Vec<u8>, CompileFailure> {
    Compiler::global().spirv_to_bitcode(spirv)
}

/// Reads the OpenCL kernel argument metadata (`-cl-kernel-arg-info`) of SPIR bitcode:
/// kernel name → its arguments in order. SPIR-V loses part of it (`const` on pointees,
/// type names), so `clGetKernelArgInfo` should answer from this.
pub fn kernel_arg_metadata(
    bitcode: &[u8],
) -> Result<BTreeMap<String, Vec<KernelArgMeta>>, CompileFailure> {
    let dir = scratch_dir()?;
    let root = dir.path();
    std::fs::write(root.join("module.bc"), bitcode)
        .map_err(|e| CompileFailure::io("cannot write the bitcode", e))?;
    let mut cmd = Command::new(LLVM_DIS);
    cmd.current_dir(root).args(["module.bc", "-o", "module.ll"]);
    let mut log = String::new();
    run_tool(cmd, LLVM_DIS, "llvm-15", &mut log)?;
    let text = std::fs::read_to_string(root.join("module.ll"))
        .map_err(|e| CompileFailure::io("llvm-dis wrote nothing", e))?;
    Ok(parse_kernel_arg_metadata(&text))
}

/// One kernel argument as clang describes it with `-cl-kernel-arg-info`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelArgMeta {
    /// `kernel_arg_name`, e.g. `in`.
    pub name: String,
    /// `kernel_arg_type`, e.g. `float4*`, `int`, `image2d_t`.
    pub type_name: String,
    /// SPIR address space: 0 private, 1 global, 2 constant, 3 local.
    pub address_space: u32,
    /// `kernel_arg_access_qual`: `none`, `read_only`, `write_only`, `read_write`.
    pub access: String,
    /// `kernel_arg_type_qual`: space-separated `const`, `restrict`, `volatile`, `pipe`.
    pub type_qual: String,
}

impl KernelArgMeta {
    pub fn is_const(&self) -> bool {
        self.type_qual.split_whitespace().any(|q| q == "const")
    }
    pub fn is_restrict(&self) -> bool {
        self.type_qual.split_whitespace().any(|q| q == "restrict")
    }
    pub fn is_volatile(&self) -> bool {
        self.type_qual.split_whitespace().any(|q| q == "volatile")
    }
    pub fn is_pipe(&self) -> bool {
        self.type_qual.split_whitespace().any(|q| q == "pipe")
    }
}

/// Parses the kernel argument metadata out of textual LLVM IR.
pub fn parse_kernel_arg_metadata(ir: &str) -> BTreeMap<String, Vec<KernelArgMeta>> {
    // `!N = !{...}` lines.
    let mut nodes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for line in ir.lines() {
        if let Some(rest) = line.strip_prefix('!') {
            if let Some((id, body)) = rest.split_once(" = !{") {
                if id.bytes().all(|b| b.is_ascii_digit()) {
                    let body = body.trim_end().trim_end_matches('}');
                    nodes.insert(id, split_md_list(body));
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for line in ir.lines() {
        if !line.starts_with("define ") || !line.contains("spir_kernel") {
            continue;
        }
        let Some(name) = kernel_name(line) else {
            continue;
        };
        let get = |key: &str| -> Vec<String> {
            let tag = format!("!{key} !");
            line.find(&tag)
                .map(|i| &line[i + tag.len()..])
                .map(|r| r.split(|c: char| !c.is_ascii_digit()).next().unwrap_or(""))
                .and_then(|id| nodes.get(id).cloned())
                .unwrap_or_default()
        };
        let names = get("kernel_arg_name");
        let types = get("kernel_arg_type");
        let spaces = get("kernel_arg_addr_space");
        let access = get("kernel_arg_access_qual");
        let quals = get("kernel_arg_type_qual");
        let n = names.len().max(types.len()).max(spaces.len());
        let args = (0..n)
            .map(|i| KernelArgMeta {
                name: names.get(i).cloned().unwrap_or_default(),
                type_name: types.get(i).cloned().unwrap_or_default(),
                address_space: spaces
                    .get(i)
                    .and_then(|s| s.trim_start_matches("i32 ").parse().ok())
                    .unwrap_or(0),
                access: access.get(i).cloned().unwrap_or_else(|| "none".to_string()),
                type_qual: quals.get(i).cloned().unwrap_or_default(),
            })
            .collect();
        out.insert(name, args);
    }
    out
}

/// `@name(` or `@"name"(` of a `define` line.
fn kernel_name(line: &str) -> Option<String> {
    let at = line.find(" @")? + 2;
    let rest = &line[at..];
    if let Some(q) = rest.strip_prefix('"') {
        q.split_once('"').map(|(n, _)| n.to_string())
    } else {
        rest.split_once('(').map(|(n, _)| n.to_string())
    }
}

/// Splits `!"a", !"b c", i32 1` into `a`, `b c`, `i32 1`.
fn split_md_list(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = body.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ' ' || *c == ',') {
            chars.next();
        }
        let Some(&c) = chars.peek() else {
            break;
        };
        let mut item = String::new();
        if c == '!' {
            chars.next();
            if chars.peek() == Some(&'"') {
                chars.next();
                for ch in chars.by_ref() {
                    if ch == '"' {
                        break;
                    }
                    item.push(ch);
                }
                out.push(item);
                continue;
            }
            item.push('!');
        }
        while let Some(&ch) = chars.peek() {
            if ch == ',' {
                break;
            }
            item.push(ch);
            chars.next();
        }
        out.push(item.trim().to_string());
    }
    out
}

/// How OpenCL C becomes the kernel that runs and is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuildMode {
    /// Every global/constant/local/generic memory access the source makes is kept, whatever
    /// `-O` option the application gave: a dead `__local` store or an unused load is where
    /// a race hides. Private variables are still promoted and helpers inlined (at `-O2`).
    #[default]
    SourceFaithful,
    /// Exactly the application's options (`SHADOWCL_COMPILE=app`): what an optimising
    /// compiler would run, with whatever accesses it deleted.
    Application,
}

impl std::str::FromStr for BuildMode {
    type Err = String;
    fn from_str(s: &str) -> Result<BuildMode, String> {
        match s.trim() {
            "" | "source" => Ok(BuildMode::SourceFaithful),
            "app" => Ok(BuildMode::Application),
            other => Err(format!(
                "SHADOWCL_COMPILE={other}: expected `source` (the default) or `app`"
            )),
        }
    }
}

impl BuildMode {
    /// `SHADOWCL_COMPILE`; a bad value is reported and the default used.
    pub fn from_env() -> BuildMode {
        let v = std::env::var("SHADOWCL_COMPILE").unwrap_or_default();
        v.parse().unwrap_or_else(|e| {
            tracing::warn!("{e}");
            eprintln!("shadowcl: {e}");
            BuildMode::default()
        })
    }
}

/// The compile driver: tool names, build mode and the cache folder.
#[derive(Debug)]
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

    /// Debian's tool names, the cache folder ([`default_cache_dir`]) and the build mode
    /// ([`BuildMode::from_env`]) from the environment.
    pub fn from_env() -> Self {
        Compiler::new()
            .with_cache_dir(default_cache_dir())
            .with_mode(BuildMode::from_env())
    }

    pub fn with_mode(mut self, mode: BuildMode) -> Self {
        self.mode = mode;
        self
    }

    pub fn mode(&self) -> BuildMode {
        self.mode
    }

    /// The process-wide compiler (made by [`Compiler::from_env`] on first use).
    pub fn global() -> &'static Compiler {
        static GLOBAL: OnceLock<Compiler> = OnceLock::new();
        GLOBAL.get_or_init(Compiler::from_env)
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

        let mut hasher = Sha256::new();
        // Bump when the fixed clang or llvm-spirv flags below change: they are not hashed.
        hash_part(&mut hasher, b"shadowcl-compile-v9");
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
        let key = hex(&hasher.finalize());
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
            let front_opt = match self.mode {
                BuildMode::SourceFaithful => '0',
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
                // Unoptimised IR to mark, without the optnone that would stop `opt` later.
                cmd.args(["-Xclang", "-disable-O0-optnone"]);
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
        hash_part(&mut hasher, b"shadowcl-link-v1");
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
        let mut cmd = Command::new(&self.llvm_link);
        cmd.current_dir(root);
        for (i, b) in bitcodes.iter().enumerate() {
            let name = format!("input{i}.bc");
            std::fs::write(root.join(&name), b)
                .map_err(|e| CompileFailure::io("cannot write a link input", e))?;
            cmd.arg(name);
        }
        cmd.args(["-o", "linked.bc"]);
        let mut log = String::new();
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
        let mut ir = barriers::rewrite_dynamic_flags(&ir);
        if self.mode == BuildMode::SourceFaithful {
            ir = faithful::mark_watched_accesses_volatile(&ir);
        }
        std::fs::write(root.join("rewritten.ll"), ir)
            .map_err(|e| CompileFailure::io("cannot write the rewritten IR", e))?;
        let (mut cmd, tool) = match self.mode {
            BuildMode::SourceFaithful => {
                let mut c = Command::new(&self.opt);
                c.arg(format!("-O{level}"))
                    // As clang's -fno-vectorize / -fno-slp-vectorize above.
                    .args(["--vectorize-loops=false", "--vectorize-slp=false"]);
                (c, self.opt.as_str())
            }
            BuildMode::Application => (Command::new(LLVM_AS), LLVM_AS),
        };
        cmd.current_dir(root)
            .args(["rewritten.ll", "-o", "program.bc"]);
        run_tool(cmd, tool, "llvm-15", log)
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

/// `$XDG_CACHE_HOME/shadowcl`, else `$HOME/.cache/shadowcl`; `None` when
/// `SHADOWCL_CACHE=0` (or `off`/`false`/`no`) or neither variable is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Ok(v) = std::env::var("SHADOWCL_CACHE") {
        let v = v.trim().to_ascii_lowercase();
        if matches!(v.as_str(), "0" | "off" | "false" | "no") {
            return None;
        }
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        let p = PathBuf::from(x);
        if p.is_absolute() {
            return Some(p.join("shadowcl"));
        }
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".cache").join("shadowcl"))
}

/// Splits an option string like a shell would: whitespace separates words, single and
/// double quotes group, backslash escapes the next character (outside single quotes).
pub fn split_options(options: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated ' quote".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\')) => cur.push(ch),
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err("unterminated \" quote".to_string()),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated \" quote".to_string()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(ch) = chars.next() {
                    cur.push(ch);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

const PASS_THROUGH: &[&str] = &[
    "-cl-mad-enable",
    "-cl-fast-relaxed-math",
    "-cl-single-precision-constant",
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-uniform-work-group-size",
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-w",
    "-Werror",
];

/// Options accepted and dropped: always on (`-g`, `-cl-kernel-arg-info`) or without
/// effect here.
const IGNORED: &[&str] = &[
    "-g",
    "-cl-kernel-arg-info",
    "-cl-strict-aliasing",
    "-cl-no-subgroup-ifp",
];

const CL_STD: &[&str] = &["CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"];

/// Translates OpenCL build options into clang driver arguments. `-cl-opt-disable`
/// becomes `-O0` (an explicit `-O<n>` is kept); relative `-I` folders are made absolute.
/// The error message names every option that is unknown or malformed.
pub fn translate_options(options: &str) -> Result<Vec<String>, String> {
    let words = split_options(options).map_err(|e| format!("invalid build options: {e}\n"))?;
    let mut out = Vec::new();
    let mut bad = Vec::new();
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        let w = w.as_str();
        if w == "-D" || w == "-I" {
            match it.next() {
                Some(v) if !v.is_empty() => {
                    if w == "-I" {
                        out.push(format!("-I{}", absolute(&v)));
                    } else {
                        out.push(format!("-D{v}"));
                    }
                }
                _ => bad.push(format!("{w} (missing its argument)")),
            }
        } else if let Some(v) = w.strip_prefix("-D") {
            if v.starts_with('=') {
                bad.push(w.to_string());
            } else {
                out.push(w.to_string());
            }
        } else if let Some(v) = w.strip_prefix("-I") {
            out.push(format!("-I{}", absolute(v)));
        } else if let Some(v) = w.strip_prefix("-cl-std=") {
            if CL_STD.iter().any(|s| s.eq_ignore_ascii_case(v)) {
                out.push(format!("-cl-std={}", v.to_ascii_uppercase()));
            } else {
                bad.push(w.to_string());
            }
        } else if w == "-cl-opt-disable" {
            out.push("-O0".to_string());
        } else if is_opt_arg(w) || PASS_THROUGH.contains(&w) {
            out.push(w.to_string());
        } else if IGNORED.contains(&w) {
        } else if w.starts_with("-W") && w.len() > 2 && !w.contains(',') {
            // Warning controls (-Wall, -Wno-foo, -Werror=foo) go to clang as they are.
            out.push(w.to_string());
        } else {
            bad.push(w.to_string());
        }
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "shadowcl: unknown or unsupported build option(s): {}\n",
            bad.join(", ")
        ))
    }
}

/// Checks `clLinkProgram` options: `-create-library`, `-enable-link-options` and the
/// math options (`-cl-denorms-are-zero`, `-cl-no-signed-zeros`,
/// `-cl-unsafe-math-optimizations`, `-cl-finite-math-only`, `-cl-fast-relaxed-math`,
/// `-cl-no-subgroup-ifp`).
pub fn parse_link_options(options: &str) -> Result<LinkOptions, String> {
    let words = split_options(options).map_err(|e| format!("invalid link options: {e}\n"))?;
    let mut out = LinkOptions::default();
    let mut bad = Vec::new();
    for w in &words {
        match w.as_str() {
            "-create-library" => out.create_library = true,
            "-enable-link-options" => out.enable_link_options = true,
            "-cl-denorms-are-zero"
            | "-cl-no-signed-zeros"
            | "-cl-unsafe-math-optimizations"
            | "-cl-finite-math-only"
            | "-cl-fast-relaxed-math"
            | "-cl-no-subgroup-ifp" => {}
            other => bad.push(other.to_string()),
        }
    }
    if out.enable_link_options && !out.create_library {
        bad.push("-enable-link-options (only with -create-library)".to_string());
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "shadowcl: unknown or unsupported link option(s): {}\n",
            bad.join(", ")
        ))
    }
}

/// Included after clang's own OpenCL header, which defines some extension and feature
/// macros for every spir64 device whatever `-cl-ext` says.
const DEVICE_HEADER: &str = "shadowcl-device.h";

/// Extension and feature macros clang-15 may predefine for spir64 (its `-cl-ext` set and
/// `opencl-c-base.h`).
const CLANG_OPTIONAL_MACROS: &[&str] = &[
    "__opencl_c_3d_image_writes",
    "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst",
    "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_atomic_scope_device",
    "__opencl_c_device_enqueue",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_min_max",
    "__opencl_c_fp64",
    "__opencl_c_generic_address_space",
    "__opencl_c_images",
    "__opencl_c_int64",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images",
    "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "cl_ext_float_atomics",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "cl_khr_extended_bit_ops",
    "cl_khr_fp16",
    "cl_khr_gl_msaa_sharing",
    "cl_khr_integer_dot_product",
    "cl_khr_mipmap_image",
    "cl_khr_mipmap_image_writes",
    "cl_khr_srgb_image_writes",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_rotate",
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroups",
];

fn device_supports(name: &str) -> bool {
    DEVICE_EXTENSIONS.contains(&name) || OPENCL_C_FEATURES.contains(&name)
}

/// `-cl-ext=-all,+...`: the device's extensions and OpenCL C features, so clang's checks
/// (e.g. `half` arithmetic needs cl_khr_fp16) match the device.
fn cl_ext_option() -> String {
    let mut v = vec!["-all".to_string()];
    for name in DEVICE_EXTENSIONS
        .iter()
        .chain(OPENCL_C_FEATURES)
        .filter(|n| CLANG_OPTIONAL_MACROS.contains(n) || n.starts_with("cl_khr_"))
    {
        v.push(format!("+{name}"));
    }
    format!("-cl-ext={}", v.join(","))
}

/// The device header: `#undef` of every macro clang may define that the device lacks.
fn device_macros() -> String {
    let mut text = String::from("/* ShadowCL: macros of features the device lacks */\n");
    for m in CLANG_OPTIONAL_MACROS.iter().filter(|m| !device_supports(m)) {
        text.push_str(&format!("#undef {m}\n"));
    }
    text
}

fn is_opt_arg(a: &str) -> bool {
    matches!(a, "-O0" | "-O1" | "-O2" | "-O3")
}

/// The last `-O<n>` of the translated options, else 2.
fn opt_level(args: &[String]) -> char {
    args.iter()
        .rev()
        .find(|a| is_opt_arg(a))
        .and_then(|a| a.chars().nth(2))
        .unwrap_or('2')
}

fn absolute(p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() {
        return p.to_string();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path).to_string_lossy().into_owned(),
        Err(_) => p.to_string(),
    }
}

/// A relative path below the header folder, or `None` for names that would escape it.
fn header_path(name: &str) -> Option<PathBuf> {
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

fn scratch_dir() -> Result<tempfile::TempDir, CompileFailure> {
    tempfile::Builder::new()
        .prefix("shadowcl-cc-")
        .tempdir()
        .map_err(|e| CompileFailure::io("cannot create a scratch folder", e))
}

fn tool_missing(tool: &str, package: &str) -> CompileFailure {
    CompileFailure::new(
        FailureKind::ToolMissing,
        format!(
            "shadowcl: the tool `{tool}` was not found; install the Debian package {package} \
             (apt-get install {package})\n"
        ),
    )
}

fn tool_version(tool: &str, package: &str) -> Result<String, CompileFailure> {
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
fn run_tool(
    mut cmd: Command,
    tool: &str,
    package: &str,
    log: &mut String,
) -> Result<(), CompileFailure> {
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
fn strip_paths(log: &str, root: &Path) -> String {
    let prefix = format!("{}/", root.display());
    log.replace(&prefix, "")
}

fn hash_part(h: &mut Sha256, data: &[u8]) {
    h.update((data.len() as u64).to_le_bytes());
    h.update(data);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    /// driver falls back to line tables, which keep the source lines.
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
    /// (issue #11, R2 and R3); the application's own -O2 build deletes them.
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
        let src =
            "__kernel void info(__global const float *restrict in, __global volatile int *out,\n\
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
                     || defined(__opencl_c_atomic_order_seq_cst) || defined(cl_khr_subgroups) \
                     || defined(cl_khr_subgroup_ballot)\n\
                 #error a feature the device lacks\n#endif\n\
                 #if !defined(cl_khr_fp64) || !defined(cl_khr_int64_base_atomics) \
                     || !defined(cl_khr_global_int32_base_atomics) \
                     || !defined(cl_khr_3d_image_writes) || !defined(cl_khr_fp16) \
                     || (__OPENCL_C_VERSION__ == 300 && !defined(__opencl_c_fp64))\n\
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
    fn default_cache_dir_is_under_shadowcl() {
        // Only checks the shape; the environment is not modified (tests run in parallel).
        if let Some(d) = default_cache_dir() {
            assert!(d.ends_with("shadowcl"));
        }
        assert_eq!(hex(&[0, 0xab, 0x10]), "00ab10");
    }
}
