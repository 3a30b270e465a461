//! Programs: their state, ShadowCL's binaries, and building, compiling and linking them (with
//! the compile driver, [`crate::compiler`]).

use crate::compiler::{self, CompileFailure, CompileRequest, FailureKind};
use crate::consts::*;
use crate::core::context::Context;
use crate::core::object::{self, ClObject, Ref};
use crate::core::platform::LOCAL_MEM_SIZE;
use crate::core::settings::settings;
use crate::types::*;
use parking_lot::Mutex;
use shadowcl_interpreter::Program as Loaded;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

const SPIRV_MAGIC: u32 = 0x0723_0203;
/// The binary of [`encode_binary`]; `SCLBIN01` binaries (no local-memory section) still read.
const BINARY_MAGIC: &[u8; 8] = b"SCLBIN02";
const BINARY_MAGIC_V1: &[u8; 8] = b"SCLBIN01";

#[derive(Clone, Default)]
pub struct ProgramState {
    pub status: cl_build_status,
    pub log: String,
    pub options: String,
    pub binary_type: cl_program_binary_type,
    /// Shared with the launches that run it (each takes a reference, not a copy).
    pub spirv: Option<Arc<[u8]>>,
    pub bitcode: Option<Vec<u8>>,
    pub loaded: Option<Arc<Loaded>>,
    /// Built for OpenCL C 2.0 or later (or from IL): non-uniform work-groups allowed.
    pub non_uniform: bool,
    /// Built from source without `-cl-kernel-arg-info`: argument names and types are not
    /// available through `clGetKernelArgInfo` (the compiler keeps them for ShadowCL's reports).
    pub no_arg_info: bool,
    /// clang's `-cl-kernel-arg-info` metadata per kernel (type names and qualifiers as
    /// written, which SPIR-V does not keep), when the program was compiled from source.
    pub arg_meta: Option<Arc<ArgMeta>>,
    /// Kernel -> the local memory its own `__local` variables take in the application's
    /// build, for kernels whose checked build takes more than the device has (see
    /// [`app_local_sizes`]); kept in the program's binary.
    pub app_local: AppLocal,
}

/// Kernel name -> local memory of its own variables in the application's build.
pub type AppLocal = std::collections::BTreeMap<String, u64>;

/// Kernel name → its arguments as clang described them.
pub type ArgMeta = std::collections::BTreeMap<String, Vec<compiler::KernelArgMeta>>;

/// Reads the argument metadata of freshly compiled or linked bitcode (best effort).
fn arg_meta(bitcode: &[u8]) -> Option<Arc<ArgMeta>> {
    match compiler::kernel_arg_metadata(bitcode) {
        Ok(m) => Some(Arc::new(m)),
        Err(e) => {
            tracing::debug!("no kernel argument metadata: {e}");
            None
        }
    }
}

/// Completes the interpreter's view of a kernel's arguments with clang's metadata.
pub fn apply_arg_meta(info: &mut shadowcl_interpreter::KernelInfo, meta: Option<&ArgMeta>) {
    let Some(args) = meta.and_then(|m| m.get(&info.name)) else {
        return;
    };
    if args.len() != info.args.len() {
        return;
    }
    for (a, m) in info.args.iter_mut().zip(args) {
        if !m.name.is_empty() {
            a.name = m.name.as_str().into();
        }
        if !m.type_name.is_empty() {
            a.type_name = m.type_name.clone();
        }
        let mut q = 0;
        for (set, bit) in [
            (m.is_const(), CL_KERNEL_ARG_TYPE_CONST),
            (m.is_restrict(), CL_KERNEL_ARG_TYPE_RESTRICT),
            (m.is_volatile(), CL_KERNEL_ARG_TYPE_VOLATILE),
            (m.is_pipe(), CL_KERNEL_ARG_TYPE_PIPE),
        ] {
            if set {
                q |= bit;
            }
        }
        a.type_qualifier = q;
    }
}

pub struct Program {
    pub context: Ref<Context>,
    pub source: Option<String>,
    pub il: Option<Vec<u8>>,
    pub state: Mutex<ProgramState>,
    /// Kernel objects alive (building is refused while there are any).
    pub kernels_live: AtomicUsize,
}

impl ClObject for Program {
    const TAG: u32 = 0x5C1_0006;
    const INVALID: i32 = CL_INVALID_PROGRAM;
    type Handle = cl_program;
}

pub fn get_program(p: cl_program) -> Result<Ref<Program>, cl_int> {
    object::get::<Program, _>(p)
}

/// See [`Program::executable`].
pub type Executable = (Arc<Loaded>, bool, bool, Option<Arc<ArgMeta>>);

impl Program {
    /// A program not built yet, from source or IL (or neither: from a binary or a link).
    pub fn new(context: Ref<Context>, source: Option<String>, il: Option<Vec<u8>>) -> Program {
        Program {
            context,
            source,
            il,
            state: Mutex::new(ProgramState {
                status: CL_BUILD_NONE,
                binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
                ..ProgramState::default()
            }),
            kernels_live: AtomicUsize::new(0),
        }
    }

    /// A program from a decoded binary ([`decode_binary`]). Executables are usable at once
    /// (kernels may be created before clBuildProgram, as other platforms allow);
    /// `CL_INVALID_BINARY` when the SPIR-V of one does not load.
    pub fn from_binary(context: Ref<Context>, decoded: Decoded) -> Result<Program, cl_int> {
        let Decoded {
            binary_type: ty,
            spirv,
            bitcode,
            non_uniform,
            no_arg_info,
            app_local,
        } = decoded;
        let loaded = if ty == CL_PROGRAM_BINARY_TYPE_EXECUTABLE {
            Some(load(&spirv).map_err(|e| {
                tracing::info!("binary rejected: {e}");
                CL_INVALID_BINARY
            })?)
        } else {
            None
        };
        let p = Program::new(context, None, None);
        {
            let mut st = p.state.lock();
            st.binary_type = ty;
            st.spirv = Some(spirv.into());
            st.bitcode = bitcode;
            st.loaded = loaded;
            st.non_uniform = non_uniform;
            st.no_arg_info = no_arg_info;
            st.app_local = app_local;
        }
        Ok(p)
    }

    /// The loaded module, when the program has been built into an executable, whether it
    /// allows non-uniform work-groups, whether argument information is hidden, and clang's
    /// argument metadata.
    pub fn executable(&self) -> Result<Executable, cl_int> {
        let st = self.state.lock();
        match (&st.loaded, st.binary_type) {
            (Some(l), CL_PROGRAM_BINARY_TYPE_EXECUTABLE) => Ok((
                l.clone(),
                st.non_uniform,
                st.no_arg_info,
                st.arg_meta.clone(),
            )),
            _ => Err(CL_INVALID_PROGRAM_EXECUTABLE),
        }
    }
}

/// Whether kernels of a program built with `options` accept a non-uniform NDRange: from
/// OpenCL C 2.0 on (`-cl-std=CL2.0` or later, or `cl2` already true: SPIR-V, a program built
/// that way before), unless `-cl-uniform-work-group-size` asks for uniform work-groups.
fn non_uniform(options: &str, cl2: bool) -> bool {
    (cl2 || wants_cl2(options))
        && !options
            .split_whitespace()
            .any(|w| w == "-cl-uniform-work-group-size")
}

/// `-cl-std=CL2.0` or later.
fn wants_cl2(options: &str) -> bool {
    options.split_whitespace().any(|w| {
        w.strip_prefix("-cl-std=CL")
            .and_then(|v| v.split('.').next())
            .and_then(|m| m.parse::<u32>().ok())
            .is_some_and(|m| m >= 2)
    })
}

/// Whether `b` is a SPIR-V module (either byte order).
pub fn is_spirv(b: &[u8]) -> bool {
    b.len() >= 20
        && b.len().is_multiple_of(4)
        && (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) == SPIRV_MAGIC
            || u32::from_be_bytes([b[0], b[1], b[2], b[3]]) == SPIRV_MAGIC)
}

/// Flags kept in the binary type word (bits 16 and up).
const FLAG_NON_UNIFORM: u32 = 1 << 16;
const FLAG_NO_ARG_INFO: u32 = 1 << 17;

/// What a binary holds.
#[derive(Debug, PartialEq)]
pub struct Decoded {
    pub binary_type: cl_program_binary_type,
    pub spirv: Vec<u8>,
    pub bitcode: Option<Vec<u8>>,
    /// Non-uniform work-groups allowed.
    pub non_uniform: bool,
    /// Argument information hidden.
    pub no_arg_info: bool,
    pub app_local: AppLocal,
}

/// ShadowCL's program binary: magic, binary type (with flags), SPIR-V length, bitcode length,
/// local-memory section length, SPIR-V, bitcode, then the section: per kernel of
/// [`ProgramState::app_local`] its name's length, name and figure (all words little-endian,
/// u32 but the figure, u64).
pub fn encode_binary(st: &ProgramState) -> Vec<u8> {
    let spirv = st.spirv.as_deref().unwrap_or(&[]);
    let bc = st.bitcode.as_deref().unwrap_or(&[]);
    if spirv.is_empty() && bc.is_empty() {
        return Vec::new();
    }
    let mut section = Vec::new();
    for (name, size) in &st.app_local {
        section.extend_from_slice(&(name.len() as u32).to_le_bytes());
        section.extend_from_slice(name.as_bytes());
        section.extend_from_slice(&size.to_le_bytes());
    }
    let mut out = BINARY_MAGIC.to_vec();
    let flags = if st.non_uniform { FLAG_NON_UNIFORM } else { 0 }
        | if st.no_arg_info { FLAG_NO_ARG_INFO } else { 0 };
    out.extend_from_slice(&(st.binary_type | flags).to_le_bytes());
    out.extend_from_slice(&(spirv.len() as u32).to_le_bytes());
    out.extend_from_slice(&(bc.len() as u32).to_le_bytes());
    out.extend_from_slice(&(section.len() as u32).to_le_bytes());
    out.extend_from_slice(spirv);
    out.extend_from_slice(bc);
    out.extend_from_slice(&section);
    out
}

/// Parses a binary from [`encode_binary`], or plain SPIR-V (taken as an executable).
pub fn decode_binary(b: &[u8]) -> Option<Decoded> {
    if is_spirv(b) {
        return Some(Decoded {
            binary_type: CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            spirv: b.to_vec(),
            bitcode: None,
            non_uniform: true,
            no_arg_info: false,
            app_local: AppLocal::new(),
        });
    }
    let (rest, words) = match b.strip_prefix(BINARY_MAGIC.as_slice()) {
        Some(rest) => (rest, 4),
        None => (b.strip_prefix(BINARY_MAGIC_V1.as_slice())?, 3),
    };
    let word = |i: usize| -> Option<u32> {
        Some(u32::from_le_bytes(
            rest.get(i * 4..i * 4 + 4)?.try_into().ok()?,
        ))
    };
    let (w0, sl, bl) = (word(0)?, word(1)? as usize, word(2)? as usize);
    let ll = if words == 4 { word(3)? as usize } else { 0 };
    let ty = w0 & 0xffff;
    let body = rest.get(words * 4..)?;
    if body.len() != sl.checked_add(bl)?.checked_add(ll)? || sl == 0 {
        return None;
    }
    if ![
        CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
        CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
        CL_PROGRAM_BINARY_TYPE_LIBRARY,
    ]
    .contains(&ty)
    {
        return None;
    }
    let mut app_local = AppLocal::new();
    let mut section = &body[sl + bl..];
    while !section.is_empty() {
        let n = u32::from_le_bytes(section.get(..4)?.try_into().ok()?) as usize;
        let name = std::str::from_utf8(section.get(4..4 + n)?).ok()?;
        let size = u64::from_le_bytes(section.get(4 + n..12 + n)?.try_into().ok()?);
        app_local.insert(name.to_string(), size);
        section = &section[12 + n..];
    }
    Some(Decoded {
        binary_type: ty,
        spirv: body[..sl].to_vec(),
        bitcode: (bl > 0).then(|| body[sl..sl + bl].to_vec()),
        non_uniform: w0 & FLAG_NON_UNIFORM != 0,
        no_arg_info: w0 & FLAG_NO_ARG_INFO != 0,
        app_local,
    })
}

/// The local memory of the kernels' own variables in the application's build of `source`,
/// for the kernels of the checked build `loaded` whose own figure passes the device's
/// local memory: the checked build keeps every `__local` access the source makes, so it
/// keeps arrays the application's build deletes (one read only into a dead variable), and
/// a launch's resources are the application's build's. Empty when no kernel passes it, the
/// settings build as the application asked already, or that build fails.
fn app_local_sizes(loaded: &Loaded, source: &str, options: &str) -> AppLocal {
    let compiler = &settings().compiler;
    let big = |k: &shadowcl_interpreter::KernelInfo| k.local_mem_size > LOCAL_MEM_SIZE;
    if compiler.mode() == compiler::BuildMode::Application || !loaded.kernels().iter().any(big) {
        return AppLocal::new();
    }
    let request = CompileRequest {
        sources: vec![source.to_string()],
        options: options.to_string(),
        headers: Vec::new(),
    };
    let built = compiler
        .clone()
        .with_mode(compiler::BuildMode::Application)
        .compile(&request);
    let Some(app) = built.ok().and_then(|c| Loaded::load(&c.spirv).ok()) else {
        return AppLocal::new();
    };
    (loaded.kernels().iter().filter(|k| big(k)))
        .filter_map(|k| Some((k.name.clone(), app.kernel(&k.name)?.local_mem_size)))
        .collect()
}

fn failure_code(f: &CompileFailure, options: cl_int, failed: cl_int, missing: cl_int) -> cl_int {
    match f.kind {
        FailureKind::InvalidOptions => options,
        FailureKind::BuildFailed => failed,
        FailureKind::ToolMissing => missing,
    }
}

/// Loads SPIR-V into the interpreter; the error text goes to the build log.
fn load(spirv: &[u8]) -> Result<Arc<Loaded>, String> {
    Loaded::load(spirv).map(Arc::new).map_err(|e| e.to_string())
}

/// The build proper: fills in the program's state; returns the error code of a failure.
pub fn build(p: &Program, options: &str) -> Result<(), cl_int> {
    let mut st = ProgramState {
        options: options.to_owned(),
        status: CL_BUILD_ERROR,
        binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
        ..ProgramState::default()
    };
    let result = (|| {
        let spirv = if let Some(src) = &p.source {
            let req = CompileRequest {
                sources: vec![src.clone()],
                options: options.to_owned(),
                headers: Vec::new(),
            };
            let c = settings().compiler.compile(&req).map_err(|f| {
                st.log = f.log.clone();
                failure_code(
                    &f,
                    CL_INVALID_BUILD_OPTIONS,
                    CL_BUILD_PROGRAM_FAILURE,
                    CL_COMPILER_NOT_AVAILABLE,
                )
            })?;
            st.log = c.log;
            st.arg_meta = arg_meta(&c.bitcode);
            st.bitcode = Some(c.bitcode);
            st.non_uniform = non_uniform(options, false);
            st.no_arg_info = !options
                .split_whitespace()
                .any(|w| w == "-cl-kernel-arg-info");
            c.spirv.into()
        } else if let Some(il) = &p.il {
            st.non_uniform = non_uniform(options, true);
            il.as_slice().into()
        } else {
            let old = p.state.lock().clone();
            st.arg_meta = old.bitcode.as_deref().and_then(arg_meta);
            st.bitcode = old.bitcode;
            st.non_uniform = non_uniform(options, old.non_uniform);
            st.no_arg_info = old.no_arg_info;
            old.spirv.ok_or(CL_INVALID_PROGRAM)?
        };
        let loaded = load(&spirv).map_err(|e| {
            st.log.push_str(&e);
            st.log.push('\n');
            CL_BUILD_PROGRAM_FAILURE
        })?;
        if let Some(src) = &p.source {
            st.app_local = app_local_sizes(&loaded, src, options);
        } else if p.il.is_none() {
            st.app_local = p.state.lock().app_local.clone();
        }
        st.spirv = Some(spirv);
        st.loaded = Some(loaded);
        st.status = CL_BUILD_SUCCESS as cl_build_status;
        st.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
        Ok(())
    })();
    if result.is_err() {
        tracing::info!("build failed: {}", st.log.trim_end());
    }
    *p.state.lock() = st;
    result
}

/// `clCompileProgram` proper: compiles the program's source (with `headers`: include name and
/// source) or its IL into an object; fills in the program's state; returns the error code of
/// a failure.
pub fn compile(p: &Program, options: &str, headers: Vec<(String, String)>) -> Result<(), cl_int> {
    let mut st = ProgramState {
        options: options.to_owned(),
        status: CL_BUILD_ERROR,
        binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
        ..ProgramState::default()
    };
    let r = if let Some(src) = &p.source {
        let req = CompileRequest {
            sources: vec![src.clone()],
            options: options.to_owned(),
            headers,
        };
        settings()
            .compiler
            .compile(&req)
            .map(|c| {
                st.log = c.log;
                st.spirv = Some(c.spirv.into());
                st.bitcode = Some(c.bitcode);
            })
            .map_err(|f| {
                st.log = f.log.clone();
                failure_code(
                    &f,
                    CL_INVALID_COMPILER_OPTIONS,
                    CL_COMPILE_PROGRAM_FAILURE,
                    CL_COMPILER_NOT_AVAILABLE,
                )
            })
    } else if let Some(il) = &p.il {
        settings()
            .compiler
            .spirv_to_bitcode(il)
            .map(|bc| {
                st.spirv = Some(il.as_slice().into());
                st.bitcode = Some(bc);
            })
            .map_err(|f| {
                st.log = f.log.clone();
                failure_code(
                    &f,
                    CL_INVALID_COMPILER_OPTIONS,
                    CL_COMPILE_PROGRAM_FAILURE,
                    CL_COMPILER_NOT_AVAILABLE,
                )
            })
    } else {
        Err(CL_INVALID_OPERATION)
    };
    if r.is_ok() {
        st.status = CL_BUILD_SUCCESS as cl_build_status;
        st.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
        st.non_uniform = non_uniform(options, p.il.is_some());
    }
    *p.state.lock() = st;
    r
}

/// `clLinkProgram` proper: a new program of `ctx` linked from `bitcodes` (into a library with
/// `create_library`), with the error code of a failure. A failed link still yields the
/// program, whose log says why.
pub fn link(
    ctx: Ref<Context>,
    bitcodes: &[Vec<u8>],
    non_uniform: bool,
    options: &str,
    create_library: bool,
) -> (Ref<Program>, Result<(), cl_int>) {
    let p = object::create(Program::new(ctx, None, None));
    let mut st = ProgramState {
        options: options.to_owned(),
        status: CL_BUILD_ERROR,
        binary_type: CL_PROGRAM_BINARY_TYPE_NONE,
        non_uniform,
        ..ProgramState::default()
    };
    let res = match settings().compiler.link(bitcodes, options) {
        Ok(c) => {
            st.log = c.log;
            st.arg_meta = arg_meta(&c.bitcode);
            st.bitcode = Some(c.bitcode);
            if create_library {
                st.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
                st.status = CL_BUILD_SUCCESS as cl_build_status;
                st.spirv = Some(c.spirv.into());
                Ok(())
            } else {
                match load(&c.spirv) {
                    Ok(l) => {
                        st.loaded = Some(l);
                        st.spirv = Some(c.spirv.into());
                        st.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                        st.status = CL_BUILD_SUCCESS as cl_build_status;
                        Ok(())
                    }
                    Err(e) => {
                        st.log.push_str(&e);
                        Err(CL_LINK_PROGRAM_FAILURE)
                    }
                }
            }
        }
        Err(f) => {
            st.log = f.log.clone();
            Err(failure_code(
                &f,
                CL_INVALID_LINKER_OPTIONS,
                CL_LINK_PROGRAM_FAILURE,
                CL_LINKER_NOT_AVAILABLE,
            ))
        }
    };
    *p.state.lock() = st;
    (p, res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_round_trip() {
        let spirv: Vec<u8> = [SPIRV_MAGIC, 0x10000, 0, 8, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let st = ProgramState {
            binary_type: CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
            spirv: Some(spirv.as_slice().into()),
            bitcode: Some(vec![1, 2, 3]),
            non_uniform: true,
            ..ProgramState::default()
        };
        let b = encode_binary(&st);
        let decoded = Decoded {
            binary_type: CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
            spirv: spirv.clone(),
            bitcode: Some(vec![1, 2, 3]),
            non_uniform: true,
            no_arg_info: false,
            app_local: AppLocal::new(),
        };
        assert_eq!(decode_binary(&b).as_ref(), Some(&decoded));
        // The application's build's local sizes travel with the binary.
        let app_local: AppLocal = [("big".to_string(), 12), ("k".to_string(), 0)].into();
        let with_sizes = encode_binary(&ProgramState {
            app_local: app_local.clone(),
            ..st.clone()
        });
        assert_eq!(
            decode_binary(&with_sizes).map(|d| d.app_local),
            Some(app_local)
        );
        assert!(decode_binary(&with_sizes[..with_sizes.len() - 1]).is_none());
        // A binary of the first format (no local-memory section) still reads.
        let mut v1 = BINARY_MAGIC_V1.to_vec();
        v1.extend_from_slice(&b[8..12]);
        v1.extend_from_slice(&b[12..20]);
        v1.extend_from_slice(&b[24..]);
        assert_eq!(decode_binary(&v1).as_ref(), Some(&decoded));
        assert_eq!(
            decode_binary(&spirv).map(|d| d.binary_type),
            Some(CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
        );
        assert_eq!(decode_binary(b"garbage!garbage!garbage!"), None);
        assert_eq!(decode_binary(&b[..b.len() - 1]), None);
    }

    #[test]
    fn cl_std_detection() {
        assert!(wants_cl2("-cl-std=CL2.0 -g"));
        assert!(wants_cl2("-cl-std=CL3.0"));
        assert!(!wants_cl2("-cl-std=CL1.2"));
        assert!(!wants_cl2(""));
        assert!(non_uniform("-cl-std=CL3.0", false));
        assert!(!non_uniform(
            "-cl-std=CL3.0 -cl-uniform-work-group-size",
            false
        ));
        assert!(!non_uniform("-cl-uniform-work-group-size", true));
        assert!(non_uniform("", true));
        assert!(!non_uniform("-cl-std=CL1.2", false));
    }
}
