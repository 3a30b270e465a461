//! The recorder the platform library calls for every launch (docs/design.md, "Capture and replay").
//!
//! Plain Rust types only: the ICD fills [`LaunchInput`] from its objects; nothing here knows the
//! C ABI. Every record is written into a hidden temp folder and renamed into place once
//! complete, so a crash can never leave a `launch-NNNN` folder that replay would accept.

use crate::error::{CaptureError, Result};
use crate::gpuverify;
use crate::record::{
    AddressQualifier, ArgRecord, ArgValueRecord, DataMode, HexBytes, LaunchRecord, ProcessInfo,
    ProgramRecord, FORMAT, RECORD_FILE,
};
use sha2::{Digest, Sha256};
use shadowcl_interpreter::{ArgAccess, ArgValue, Buffer, KernelInfo, Launch};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// `CL_KERNEL_ARG_TYPE_*` bits.
pub const TYPE_CONST: u64 = 1 << 0;
pub const TYPE_RESTRICT: u64 = 1 << 1;
pub const TYPE_VOLATILE: u64 = 1 << 2;
pub const TYPE_PIPE: u64 = 1 << 3;

/// `cl_mem_flags` bits and their names, as recorded in `flag_names` and GPUVerify's `flags`.
pub const MEM_FLAG_NAMES: &[(u64, &str)] = &[
    (1 << 0, "CL_MEM_READ_WRITE"),
    (1 << 1, "CL_MEM_WRITE_ONLY"),
    (1 << 2, "CL_MEM_READ_ONLY"),
    (1 << 3, "CL_MEM_USE_HOST_PTR"),
    (1 << 4, "CL_MEM_ALLOC_HOST_PTR"),
    (1 << 5, "CL_MEM_COPY_HOST_PTR"),
    (1 << 7, "CL_MEM_HOST_WRITE_ONLY"),
    (1 << 8, "CL_MEM_HOST_READ_ONLY"),
    (1 << 9, "CL_MEM_HOST_NO_ACCESS"),
    (1 << 12, "CL_MEM_KERNEL_READ_AND_WRITE"),
];

/// Names of the set `cl_mem_flags` bits (unknown bits as `0x…`).
pub fn mem_flag_names(flags: u64) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = flags;
    for (bit, name) in MEM_FLAG_NAMES {
        if flags & bit != 0 {
            out.push((*name).to_string());
            rest &= !bit;
        }
    }
    if rest != 0 {
        out.push(format!("0x{rest:x}"));
    }
    out
}

fn type_qualifier_names(bits: u64) -> Vec<String> {
    [
        (TYPE_CONST, "const"),
        (TYPE_RESTRICT, "restrict"),
        (TYPE_VOLATILE, "volatile"),
        (TYPE_PIPE, "pipe"),
    ]
    .iter()
    .filter(|(b, _)| bits & b != 0)
    .map(|(_, n)| (*n).to_string())
    .collect()
}

/// Where the bytes of a buffer can be had. Reading is deferred until the recorder knows it
/// wants them (data mode, budget), so a skipped buffer costs nothing.
pub enum Contents<'a> {
    /// Host bytes.
    Bytes(&'a [u8]),
    /// A view of a ShadowCL device buffer, from `offset`, of the argument's size.
    Device { buffer: &'a Buffer, offset: u64 },
    /// Fetched on demand (pass-through mode: a blocking `clEnqueueReadBuffer` on the vendor).
    /// `None` means the bytes could not be had.
    Fetch(&'a dyn Fn() -> Option<Vec<u8>>),
    /// Not available.
    Unavailable,
}

impl Contents<'_> {
    fn get(&self, size: u64) -> std::result::Result<Vec<u8>, String> {
        match self {
            Contents::Bytes(b) => {
                if b.len() as u64 != size {
                    return Err(format!("{} bytes given for a {size}-byte buffer", b.len()));
                }
                Ok(b.to_vec())
            }
            Contents::Device { buffer, offset } => {
                let mut v = vec![0u8; size as usize];
                buffer
                    .read(*offset as usize, &mut v)
                    .map_err(|e| e.to_string())?;
                Ok(v)
            }
            Contents::Fetch(f) => match f() {
                Some(v) if v.len() as u64 == size => Ok(v),
                Some(v) => Err(format!(
                    "{} bytes fetched for a {size}-byte buffer",
                    v.len()
                )),
                None => Err("the platform could not read the buffer".into()),
            },
            Contents::Unavailable => Err("contents not available".into()),
        }
    }
}

/// A buffer argument.
pub struct BufferArg<'a> {
    /// Bytes of the view the kernel sees (the sub-buffer size for sub-buffers).
    pub size: u64,
    /// `cl_mem_flags` of the buffer.
    pub flags: u64,
    /// Identity of the underlying allocation (e.g. [`Buffer::id`] or the parent `cl_mem`
    /// handle): arguments with equal identity alias and are replayed on one buffer.
    pub identity: u64,
    /// Offset of the view inside that allocation (sub-buffer origin), else 0.
    pub origin: u64,
    pub contents: Contents<'a>,
}

/// How an argument was set.
pub enum ArgData<'a> {
    /// By-value bytes exactly as passed to `clSetKernelArg`.
    Scalar(&'a [u8]),
    Buffer(BufferArg<'a>),
    /// An image: the buffer of its texels and its layout.
    Image(BufferArg<'a>, shadowcl_interpreter::ImageDesc),
    /// `__local` pointer: size in bytes.
    Local(u64),
    /// NULL `cl_mem`.
    Null,
}

/// One argument as the platform library knows it (`clGetKernelArgInfo` + `clSetKernelArg`).
pub struct ArgInput<'a> {
    pub index: u32,
    pub name: &'a str,
    pub address: AddressQualifier,
    /// `read_only` / `write_only` / `read_write` / `none`.
    pub access: &'a str,
    pub type_name: &'a str,
    /// `CL_KERNEL_ARG_TYPE_*` bits.
    pub type_qualifier: u64,
    pub value: ArgData<'a>,
}

/// The program of a launch. Give the SPIR-V the launch really ran whenever you have it
/// (replay then needs no compiler and is exact); give the source for exporters.
pub struct ProgramInput<'a> {
    pub source: Option<&'a str>,
    pub spirv: Option<&'a [u8]>,
    pub build_options: &'a str,
}

/// Everything about one `clEnqueueNDRangeKernel`.
pub struct LaunchInput<'a> {
    pub program: ProgramInput<'a>,
    pub kernel: &'a str,
    pub work_dim: u32,
    /// Unused dimensions: offset 0, sizes 1.
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    /// As the application passed it (`None` = NULL).
    pub local_size_given: Option<[u64; 3]>,
    /// As the launch runs.
    pub local_size: [u64; 3],
    pub args: &'a [ArgInput<'a>],
}

/// Identity of a record within its recorder (the number in `launch-NNNN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordId(pub u32);

/// Recorder settings; [`CaptureConfig::from_lookup`] reads the `SHADOWCL_CAPTURE*` variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureConfig {
    /// `SHADOWCL_CAPTURE`: the capture root; records go to `root/<exe>-<pid>/`.
    pub root: PathBuf,
    /// `SHADOWCL_CAPTURE_DATA`.
    pub data: DataMode,
    /// `SHADOWCL_CAPTURE_KERNELS=a,b`: only these kernels (`None`: all).
    pub kernels: Option<Vec<String>>,
    /// `SHADOWCL_CAPTURE_MAX_BYTES`: budget for all files of this process (`None`: no limit).
    pub max_bytes: Option<u64>,
    /// Process folder name, `<exe>-<pid>` by default.
    pub process_name: String,
}

impl CaptureConfig {
    /// From a key/value source (the platform's settings; this crate reads no environment).
    /// `Ok(None)` when `SHADOWCL_CAPTURE` is unset or empty;
    /// malformed values are errors naming the variable.
    pub fn from_lookup(
        get: impl Fn(&str) -> Option<String>,
    ) -> std::result::Result<Option<CaptureConfig>, String> {
        let Some(root) = get("SHADOWCL_CAPTURE").filter(|s| !s.trim().is_empty()) else {
            return Ok(None);
        };
        let data = match get("SHADOWCL_CAPTURE_DATA") {
            Some(v) if !v.trim().is_empty() => v
                .parse::<DataMode>()
                .map_err(|e| format!("SHADOWCL_CAPTURE_DATA: {e}"))?,
            _ => DataMode::Inputs,
        };
        let kernels = get("SHADOWCL_CAPTURE_KERNELS")
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
            })
            .filter(|v| !v.is_empty());
        let max_bytes = match get("SHADOWCL_CAPTURE_MAX_BYTES") {
            Some(v) if !v.trim().is_empty() => Some(parse_bytes(&v).ok_or_else(|| {
                format!("SHADOWCL_CAPTURE_MAX_BYTES: `{v}` is not a byte count (e.g. 1000000, 64K, 10M, 2G)")
            })?),
            _ => None,
        };
        Ok(Some(CaptureConfig {
            root: PathBuf::from(root),
            data,
            kernels,
            max_bytes,
            process_name: default_process_name(),
        }))
    }
}

fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mul)
}

fn default_process_name() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "process".to_string());
    format!("{}-{}", sanitize(&exe), std::process::id())
}

fn sanitize(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let t = t.trim_start_matches('.').to_string();
    if t.is_empty() {
        "process".into()
    } else {
        t
    }
}

struct State {
    used_bytes: u64,
    /// Records whose outputs may still come (inputs+outputs mode).
    pending: HashMap<u32, (PathBuf, LaunchRecord)>,
    /// GPUVerify `log.json` entries, in launch order.
    gv_entries: Vec<serde_json::Value>,
    gv_dirty: bool,
    /// When `log.json` was last written.
    gv_written: Option<std::time::Instant>,
    /// Program files written so far, by name and content hash: a later launch of the same
    /// program links to one instead of writing its own copy.
    programs: HashMap<ProgramFile, PathBuf>,
}

/// A program file of a launch folder: its name and the SHA-256 of its bytes.
type ProgramFile = (&'static str, [u8; 32]);

/// Records launches into one process folder. Shareable between threads (`&self` methods).
pub struct Recorder {
    cfg: CaptureConfig,
    dir: PathBuf,
    exe: String,
    next: AtomicU32,
    state: Mutex<State>,
    /// The "contents not recorded, as asked" notice was printed (once per process).
    told_no_data: AtomicBool,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("dir", &self.dir)
            .field("cfg", &self.cfg)
            .finish()
    }
}

/// The GPUVerify log is rewritten after every launch up to this many entries, then at most
/// once per `GV_LOG_PERIOD` and on [`Recorder::flush`] / drop: each rewrite costs the whole
/// log, so rewriting every few launches made recording quadratic in the launch count
/// (`log_from_records` rebuilds the entries a killed process did not write).
const GV_LOG_EAGER: usize = 64;
const GV_LOG_PERIOD: std::time::Duration = std::time::Duration::from_secs(1);

/// A record's `skipped` entry when buffer contents are off by request.
const NO_DATA_NOTE: &str = "buffer contents: SHADOWCL_CAPTURE_DATA=none";

impl Recorder {
    /// Creates `root/<process_name>` (with a `-2`, `-3`… suffix if it exists already).
    pub fn new(cfg: CaptureConfig) -> Result<Recorder> {
        std::fs::create_dir_all(&cfg.root).map_err(|e| CaptureError::io(&cfg.root, e))?;
        let base = sanitize(&cfg.process_name);
        let mut dir = cfg.root.join(&base);
        let mut n = 1;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {
                    n += 1;
                    dir = cfg.root.join(format!("{base}-{n}"));
                }
                Err(e) => return Err(CaptureError::io(&dir, e)),
            }
        }
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        Ok(Recorder {
            cfg,
            dir,
            exe,
            next: AtomicU32::new(0),
            told_no_data: AtomicBool::new(false),
            state: Mutex::new(State {
                used_bytes: 0,
                pending: HashMap::new(),
                gv_entries: Vec::new(),
                gv_dirty: false,
                gv_written: None,
                programs: HashMap::new(),
            }),
        })
    }

    /// The process folder records go into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn config(&self) -> &CaptureConfig {
        &self.cfg
    }

    /// Whether launches of `kernel` are recorded (`SHADOWCL_CAPTURE_KERNELS`). Cheap: call it
    /// before gathering a [`LaunchInput`].
    pub fn wants(&self, kernel: &str) -> bool {
        self.cfg
            .kernels
            .as_ref()
            .is_none_or(|ks| ks.iter().any(|k| k == kernel))
    }

    /// Whether the platform library should call [`Recorder::record_outputs`] after launches.
    pub fn wants_outputs(&self) -> bool {
        self.cfg.data == DataMode::InputsOutputs
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep recording.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tries to take `n` bytes of the budget.
    fn take_budget(&self, n: u64) -> std::result::Result<(), String> {
        let mut st = self.lock();
        match self.cfg.max_bytes {
            Some(max) if st.used_bytes.saturating_add(n) > max => Err(format!(
                "{n} bytes would exceed SHADOWCL_CAPTURE_MAX_BYTES={max} ({} used)",
                st.used_bytes
            )),
            _ => {
                st.used_bytes += n;
                Ok(())
            }
        }
    }

    /// Records one launch (before it runs). `Ok(None)` when the kernel is filtered out.
    /// Whatever is left out (budget, unreadable buffers) is said on stderr and in the
    /// record's `skipped` list.
    pub fn record(&self, launch: &LaunchInput<'_>) -> Result<Option<RecordId>> {
        if !self.wants(launch.kernel) {
            return Ok(None);
        }
        check_input(launch)?;
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let name = launch_dir_name(id);
        let tmp = self.dir.join(format!(".tmp-{name}"));
        let result = self.write_record(id, &tmp, launch);
        let (record, programs) = match result {
            Ok(r) => r,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        let final_dir = self.dir.join(&name);
        if let Err(e) = std::fs::rename(&tmp, &final_dir) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(CaptureError::io(&final_dir, e));
        }
        for s in &record.skipped {
            // What the user asked for is said once; losses they did not ask for every time.
            if s == NO_DATA_NOTE {
                if self.told_no_data.swap(true, Ordering::Relaxed) {
                    continue;
                }
                eprintln!("shadowcl: capture: buffer contents are not recorded (SHADOWCL_CAPTURE_DATA=none)");
                continue;
            }
            eprintln!("shadowcl: capture {name} ({}): skipped {s}", record.kernel);
        }
        let gv = gpuverify::log_entry(&record, &name);
        let mut st = self.lock();
        for (file, digest) in programs {
            st.programs.insert((file, digest), final_dir.join(file));
        }
        match gv {
            Ok(entry) => {
                st.gv_entries.push(entry);
                st.gv_dirty = true;
            }
            Err(why) => {
                tracing::debug!("launch {name} not in GPUVerify log.json: {why}");
            }
        }
        let n = st.gv_entries.len();
        let due = st.gv_written.is_none_or(|t| t.elapsed() >= GV_LOG_PERIOD);
        if st.gv_dirty && (n <= GV_LOG_EAGER || due) {
            self.write_gv_log(&mut st)?;
        }
        if self.wants_outputs() {
            st.pending.insert(id, (final_dir, record));
        }
        Ok(Some(RecordId(id)))
    }

    /// The launch's record in folder `tmp`, and the program files written there anew (by
    /// name and content hash) for later launches to link to.
    fn write_record(
        &self,
        id: u32,
        tmp: &Path,
        launch: &LaunchInput<'_>,
    ) -> Result<(LaunchRecord, Vec<ProgramFile>)> {
        std::fs::create_dir(tmp).map_err(|e| CaptureError::io(tmp, e))?;
        let mut skipped = Vec::new();
        let p = &launch.program;
        let mut hasher = Sha256::new();
        let mut written = Vec::new();
        let mut source_file = None;
        if let Some(src) = p.source {
            hasher.update(src.as_bytes());
            // The program itself is always kept (a record is useless without it), but counts.
            let _ = self.take_budget(src.len() as u64);
            written.extend(self.write_program(tmp, "program.cl", src.as_bytes())?);
            source_file = Some("program.cl".to_string());
        }
        let mut spirv_file = None;
        if let Some(spv) = p.spirv {
            if p.source.is_none() {
                hasher.update(spv);
            }
            let _ = self.take_budget(spv.len() as u64);
            written.extend(self.write_program(tmp, "program.spv", spv)?);
            spirv_file = Some("program.spv".to_string());
        }
        let sha256 = crate::record::to_hex(&hasher.finalize());

        let mut groups: Vec<u64> = Vec::new();
        let mut args = Vec::with_capacity(launch.args.len());
        for a in launch.args {
            let value = match &a.value {
                ArgData::Scalar(b) => ArgValueRecord::Scalar {
                    bytes: HexBytes(b.to_vec()),
                },
                ArgData::Local(n) => ArgValueRecord::Local { size: *n },
                ArgData::Null => ArgValueRecord::Null,
                ArgData::Buffer(b) | ArgData::Image(b, _) => {
                    let group = match groups.iter().position(|g| *g == b.identity) {
                        Some(i) => i,
                        None => {
                            groups.push(b.identity);
                            groups.len() - 1
                        }
                    } as u32;
                    let file = format!("arg-{}.bin", a.index);
                    let what = format!("arg {} (`{}`) contents", a.index, a.name);
                    let contents = if self.cfg.data == DataMode::None {
                        None
                    } else {
                        match self.take_budget(b.size) {
                            Err(why) => {
                                skipped.push(format!("{what}: {why}"));
                                None
                            }
                            Ok(()) => match b.contents.get(b.size) {
                                Ok(bytes) => {
                                    write_file(&tmp.join(&file), &bytes)?;
                                    Some(file)
                                }
                                Err(why) => {
                                    skipped.push(format!("{what}: {why}"));
                                    None
                                }
                            },
                        }
                    };
                    ArgValueRecord::Buffer {
                        size: b.size,
                        flags: b.flags,
                        flag_names: mem_flag_names(b.flags),
                        group,
                        origin: b.origin,
                        contents,
                        outputs: None,
                    }
                }
            };
            args.push(ArgRecord {
                index: a.index,
                name: a.name.to_string(),
                address: a.address,
                access: a.access.to_string(),
                type_name: a.type_name.to_string(),
                type_qualifiers: type_qualifier_names(a.type_qualifier),
                value,
                image: match &a.value {
                    ArgData::Image(_, d) => Some(crate::record::ImageRecord::from_desc(d)),
                    _ => None,
                },
            });
        }
        if self.cfg.data == DataMode::None && !args.is_empty() {
            // Not a loss the user did not ask for; say it once so replays are understood.
            if launch
                .args
                .iter()
                .any(|a| matches!(a.value, ArgData::Buffer(_) | ArgData::Image(..)))
            {
                skipped.push(NO_DATA_NOTE.to_string());
            }
        }
        let record = LaunchRecord {
            format: FORMAT.to_string(),
            id,
            process: ProcessInfo {
                exe: self.exe.clone(),
                pid: std::process::id(),
            },
            time_unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0),
            program: ProgramRecord {
                source: source_file,
                spirv: spirv_file,
                build_options: p.build_options.to_string(),
                sha256,
            },
            kernel: launch.kernel.to_string(),
            work_dim: launch.work_dim,
            global_offset: launch.global_offset,
            global_size: launch.global_size,
            local_size_given: launch.local_size_given,
            local_size: launch.local_size,
            args,
            data: self.cfg.data,
            skipped,
        };
        write_json(&tmp.join(RECORD_FILE), &record)?;
        Ok((record, written))
    }

    /// [`Recorder::record`] from the executor's own types: the platform library hands over the
    /// [`Launch`] it is about to run (call this inside the queued command, right before
    /// `Device::run`, so buffer contents are the kernel's real inputs), the kernel's
    /// [`KernelInfo`], what the application passed as `local_work_size` and the
    /// `cl_mem_flags` of each argument (0 for non-buffers). Buffers are identified by
    /// [`Buffer::id`], so aliased arguments and sub-buffers of one parent replay correctly.
    pub fn record_launch(
        &self,
        program: ProgramInput<'_>,
        info: &KernelInfo,
        launch: &Launch,
        local_size_given: Option<[u64; 3]>,
        mem_flags: &[u64],
    ) -> Result<Option<RecordId>> {
        if !self.wants(&launch.kernel) {
            return Ok(None);
        }
        if info.args.len() != launch.args.len() {
            return Err(CaptureError::BadInput(format!(
                "kernel `{}` has {} arguments but the launch binds {}",
                info.name,
                info.args.len(),
                launch.args.len()
            )));
        }
        // A sampler is recorded as its `sampler_t` bits in the argument's 8 bytes.
        let sampler_bytes: Vec<[u8; 8]> = launch
            .args
            .iter()
            .map(|v| match v {
                ArgValue::Sampler(bits) => (*bits as u64).to_le_bytes(),
                _ => [0; 8],
            })
            .collect();
        let args: Vec<ArgInput<'_>> = info
            .args
            .iter()
            .zip(&launch.args)
            .enumerate()
            .map(|(i, (ka, v))| ArgInput {
                index: i as u32,
                name: &ka.name,
                address: ka.address.into(),
                access: match ka.access {
                    ArgAccess::ReadOnly => "read_only",
                    ArgAccess::WriteOnly => "write_only",
                    ArgAccess::ReadWrite => "read_write",
                    ArgAccess::None => "none",
                },
                type_name: &ka.type_name,
                type_qualifier: ka.type_qualifier,
                value: match v {
                    ArgValue::Buffer {
                        buffer,
                        offset,
                        size,
                    } => ArgData::Buffer(BufferArg {
                        size: *size,
                        flags: mem_flags.get(i).copied().unwrap_or(0),
                        identity: buffer.id().0,
                        origin: *offset,
                        contents: Contents::Device {
                            buffer,
                            offset: *offset,
                        },
                    }),
                    ArgValue::Null => ArgData::Null,
                    ArgValue::Local(n) => ArgData::Local(*n),
                    ArgValue::Bytes(b) => ArgData::Scalar(b),
                    // Images are recorded as the whole storage of their texels and their
                    // layout (the storage may be shared with a buffer argument).
                    ArgValue::Image { buffer, desc } => ArgData::Image(
                        BufferArg {
                            size: buffer.len() as u64,
                            flags: mem_flags.get(i).copied().unwrap_or(0),
                            identity: buffer.id().0,
                            origin: 0,
                            contents: Contents::Device { buffer, offset: 0 },
                        },
                        *desc,
                    ),
                    ArgValue::Sampler(_) => ArgData::Scalar(&sampler_bytes[i]),
                },
            })
            .collect();
        self.record(&LaunchInput {
            program,
            kernel: &launch.kernel,
            work_dim: launch.work_dim,
            global_offset: launch.global_offset,
            global_size: launch.global_size,
            local_size_given,
            local_size: launch.local_size,
            args: &args,
        })
    }

    /// After `Device::run` returned: [`Recorder::record_outputs`] for every buffer argument of
    /// `launch` (no-op unless `SHADOWCL_CAPTURE_DATA=inputs+outputs`).
    pub fn record_launch_outputs(&self, id: RecordId, launch: &Launch) -> Result<()> {
        if !self.wants_outputs() {
            return Ok(());
        }
        let outs: Vec<(u32, Contents<'_>)> = launch
            .args
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                ArgValue::Buffer { buffer, offset, .. } => Some((
                    i as u32,
                    Contents::Device {
                        buffer,
                        offset: *offset,
                    },
                )),
                ArgValue::Image { buffer, .. } => {
                    Some((i as u32, Contents::Device { buffer, offset: 0 }))
                }
                _ => None,
            })
            .collect();
        self.record_outputs(id, &outs)
    }

    /// After the launch completed: stores the contents of the given buffer arguments
    /// (`(argument index, contents)`) as `arg-N.out.bin` and updates `record.json` atomically.
    /// Does nothing unless the data mode is `inputs+outputs`.
    pub fn record_outputs(&self, id: RecordId, outputs: &[(u32, Contents<'_>)]) -> Result<()> {
        if !self.wants_outputs() {
            return Ok(());
        }
        let Some((dir, mut record)) = self.lock().pending.remove(&id.0) else {
            return Err(CaptureError::UnknownRecord(id.0));
        };
        let mut new_skips = Vec::new();
        for (index, contents) in outputs {
            let Some(arg) = record.args.get_mut(*index as usize) else {
                return Err(CaptureError::BadInput(format!(
                    "record_outputs: launch {} has no argument {index}",
                    id.0
                )));
            };
            let name = arg.name.clone();
            let ArgValueRecord::Buffer { size, outputs, .. } = &mut arg.value else {
                return Err(CaptureError::BadInput(format!(
                    "record_outputs: argument {index} (`{name}`) of launch {} is not a buffer",
                    id.0
                )));
            };
            let what = format!("arg {index} (`{name}`) outputs");
            let bytes = self.take_budget(*size).and_then(|()| contents.get(*size));
            match bytes {
                Ok(bytes) => {
                    let file = format!("arg-{index}.out.bin");
                    write_file_atomic(&dir.join(&file), &bytes)?;
                    *outputs = Some(file);
                }
                Err(why) => new_skips.push(format!("{what}: {why}")),
            }
        }
        for s in &new_skips {
            eprintln!(
                "shadowcl: capture {} ({}): skipped {s}",
                launch_dir_name(id.0),
                record.kernel
            );
        }
        record.skipped.extend(new_skips);
        let tmp = dir.join(format!(".{RECORD_FILE}.tmp"));
        write_json(&tmp, &record)?;
        std::fs::rename(&tmp, dir.join(RECORD_FILE))
            .map_err(|e| CaptureError::io(dir.join(RECORD_FILE), e))
    }

    /// Writes `log.json` (GPUVerify's format) if launches were added since the last write.
    pub fn flush(&self) -> Result<()> {
        let mut st = self.lock();
        if st.gv_dirty {
            self.write_gv_log(&mut st)?;
        }
        Ok(())
    }

    fn write_gv_log(&self, st: &mut State) -> Result<()> {
        let path = self.dir.join(gpuverify::LOG_FILE);
        let tmp = self.dir.join(format!(".{}.tmp", gpuverify::LOG_FILE));
        let text = serde_json::to_string_pretty(&st.gv_entries)
            .map_err(|e| CaptureError::BadInput(format!("log.json: {e}")))?;
        write_file(&tmp, text.as_bytes())?;
        std::fs::rename(&tmp, &path).map_err(|e| CaptureError::io(&path, e))?;
        st.gv_dirty = false;
        st.gv_written = Some(std::time::Instant::now());
        Ok(())
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            eprintln!("shadowcl: capture: cannot write GPUVerify log: {e}");
        }
    }
}

/// `launch-0007`.
pub fn launch_dir_name(id: u32) -> String {
    format!("launch-{id:04}")
}

fn check_input(l: &LaunchInput<'_>) -> Result<()> {
    let bad = |m: String| Err(CaptureError::BadInput(m));
    if !(1..=3).contains(&l.work_dim) {
        return bad(format!("work_dim {} (must be 1, 2 or 3)", l.work_dim));
    }
    if l.kernel.is_empty() {
        return bad("empty kernel name".into());
    }
    if l.program.source.is_none() && l.program.spirv.is_none() {
        return bad("neither program source nor SPIR-V given".into());
    }
    for d in 0..3 {
        if l.global_size[d] == 0 || l.local_size[d] == 0 {
            return bad(format!(
                "global size {:?} / local size {:?}: dimension {d} is 0 (unused dimensions must be 1)",
                l.global_size, l.local_size
            ));
        }
    }
    for (i, a) in l.args.iter().enumerate() {
        if a.index as usize != i {
            return bad(format!(
                "argument at position {i} says index {} (arguments must be in order)",
                a.index
            ));
        }
        match &a.value {
            ArgData::Buffer(b) | ArgData::Image(b, _) if b.size == 0 => {
                return bad(format!("argument {i} (`{}`): buffer of size 0", a.name))
            }
            ArgData::Local(0) => return bad(format!("argument {i} (`{}`): local size 0", a.name)),
            ArgData::Scalar([]) => {
                return bad(format!("argument {i} (`{}`): no by-value bytes", a.name))
            }
            _ => {}
        }
    }
    Ok(())
}

impl Recorder {
    /// Program file `name` of the launch folder `tmp`: a hard link to the same file of an
    /// earlier launch that held the same bytes (a kernel launched 10,000 times keeps one copy
    /// of its program; creating files was most of the capture thread's time, taken from the
    /// application's device threads), else a new file, whose name and hash are returned.
    /// Every folder stays whole on its own: a link is a name of the same file.
    fn write_program(
        &self,
        tmp: &Path,
        name: &'static str,
        bytes: &[u8],
    ) -> Result<Option<ProgramFile>> {
        let digest: [u8; 32] = Sha256::digest(bytes).into();
        let path = tmp.join(name);
        let earlier = self.lock().programs.get(&(name, digest)).cloned();
        if let Some(earlier) = earlier {
            if std::fs::hard_link(&earlier, &path).is_ok() {
                return Ok(None);
            }
        }
        write_file(&path, bytes)?;
        Ok(Some((name, digest)))
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::File::create(path).map_err(|e| CaptureError::io(path, e))?;
    f.write_all(bytes).map_err(|e| CaptureError::io(path, e))?;
    Ok(())
}

fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    write_file(&tmp, bytes)?;
    std::fs::rename(&tmp, path).map_err(|e| CaptureError::io(path, e))
}

/// Not synced to disk: records are renamed into place whole, which is what a reader needs
/// when the application dies (its written pages stay with the kernel); an fsync per launch
/// was most of the capture thread's time, taken from the application's device threads.
fn write_json(path: &Path, record: &LaunchRecord) -> Result<()> {
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| CaptureError::BadInput(format!("record.json: {e}")))?;
    let mut f = std::fs::File::create(path).map_err(|e| CaptureError::io(path, e))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.write_all(b"\n"))
        .map_err(|e| CaptureError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_from_lookup() {
        let cfg = CaptureConfig::from_lookup(|k| match k {
            "SHADOWCL_CAPTURE" => Some("/tmp/cap".into()),
            "SHADOWCL_CAPTURE_DATA" => Some("inputs+outputs".into()),
            "SHADOWCL_CAPTURE_KERNELS" => Some("a, b,".into()),
            "SHADOWCL_CAPTURE_MAX_BYTES" => Some("10M".into()),
            _ => None,
        })
        .unwrap()
        .unwrap();
        assert_eq!(cfg.root, PathBuf::from("/tmp/cap"));
        assert_eq!(cfg.data, DataMode::InputsOutputs);
        assert_eq!(cfg.kernels, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(cfg.max_bytes, Some(10 << 20));
        assert!(cfg
            .process_name
            .ends_with(&format!("-{}", std::process::id())));

        assert_eq!(CaptureConfig::from_lookup(|_| None).unwrap(), None);
        let err = CaptureConfig::from_lookup(|k| match k {
            "SHADOWCL_CAPTURE" => Some("/tmp/cap".into()),
            "SHADOWCL_CAPTURE_MAX_BYTES" => Some("lots".into()),
            _ => None,
        })
        .unwrap_err();
        assert!(err.contains("SHADOWCL_CAPTURE_MAX_BYTES"), "{err}");
        let err = CaptureConfig::from_lookup(|k| match k {
            "SHADOWCL_CAPTURE" => Some("/tmp/cap".into()),
            "SHADOWCL_CAPTURE_DATA" => Some("everything".into()),
            _ => None,
        })
        .unwrap_err();
        assert!(err.contains("SHADOWCL_CAPTURE_DATA"), "{err}");
    }

    #[test]
    fn flag_names() {
        assert_eq!(
            mem_flag_names(1 | 1 << 5),
            vec!["CL_MEM_READ_WRITE", "CL_MEM_COPY_HOST_PTR"]
        );
        assert_eq!(mem_flag_names(1 << 40), vec!["0x10000000000"]);
        assert_eq!(
            type_qualifier_names(TYPE_CONST | TYPE_VOLATILE),
            vec!["const", "volatile"]
        );
        assert_eq!(parse_bytes("64K"), Some(65536));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(sanitize("../a b"), "_a_b");
    }
}
