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

use std::fmt;

mod device;
mod driver;
mod metadata;
mod options;
mod work_items;

pub use device::{DEVICE_EXTENSIONS, OPENCL_C_FEATURES, OPENCL_C_VERSIONS};
pub use driver::{cache_dir, Compiler};
pub use metadata::{kernel_arg_metadata, parse_kernel_arg_metadata, KernelArgMeta};
pub use options::{parse_link_options, split_options, translate_options};

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
    /// The SPIR LLVM bitcode the SPIR-V was made from (input to [`Compiler::link`]).
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

/// Link options understood by [`Compiler::link`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// `-create-library`: the result is a library, not an executable.
    pub create_library: bool,
    /// `-enable-link-options`: the math options below apply to a library.
    pub enable_link_options: bool,
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
    /// `SHADOWCL_COMPILE` from a key/value source (the platform's settings; this crate reads
    /// no environment); unset: the default.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<BuildMode, String> {
        get("SHADOWCL_COMPILE").map_or(Ok(BuildMode::default()), |v| v.parse())
    }
}

#[cfg(test)]
mod tests;
