//! The case format: one `.cl` file whose leading `//` comment block declares the
//! launch(es) and the expectations. See `tests/kernels/README.md`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

mod parse;
#[cfg(test)]
mod tests;

pub use parse::parse;

/// Header keys. A header line is `// key: value`; several `key: value` pairs may share
/// one line (`// global: 64  local: 32`). Comment lines whose first word is not one of
/// these keys are free-text description.
const KEYS: &[&str] = &[
    "kernel",
    "launch",
    "command",
    "global",
    "local",
    "offset",
    "arg",
    "after",
    "on",
    "host-wait",
    "queue",
    "queues",
    "release-before-launch",
    "expect",
    "checks",
    "compile",
    "compare",
    "options",
    "reference-options",
    "requires",
    "oclgrind",
    "twin",
    "schedule-dependent",
];

/// Finding kinds of the JSON report contract.
pub const KINDS: &[&str] = &[
    "data-race",
    "benign-race",
    "barrier-divergence",
    "out-of-bounds",
    "uninitialized-read",
    "use-after-release",
    "schedule-dependent-output",
    "async-copy-misuse",
    "misaligned-access",
    "invalid-access",
];

/// Fields of a finding an expectation may pin (`lines` is `FIRST/SECOND`, the source lines
/// of the two sides, `?` where the report names none; `sync` the reason of the
/// synchronisation the race's report explains, `release-scope`, `acquire-scope`,
/// `relaxed-write`, `relaxed-read` or `fence-memory`, or `none` when it explains none;
/// `says` words the finding's message holds, `-` between them).
pub const EXPECT_FIELDS: &[&str] = &[
    "race", "scope", "memory", "buffer", "count", "lines", "sync", "says",
];

#[derive(Debug)]
pub struct CaseError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.file, self.line, self.msg)
        } else {
            write!(f, "{}: {}", self.file, self.msg)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
}

impl Scalar {
    pub fn parse(s: &str) -> Option<Scalar> {
        Some(match s {
            "char" => Scalar::Char,
            "uchar" => Scalar::UChar,
            "short" => Scalar::Short,
            "ushort" => Scalar::UShort,
            "int" => Scalar::Int,
            "uint" => Scalar::UInt,
            "long" => Scalar::Long,
            "ulong" => Scalar::ULong,
            "float" => Scalar::Float,
            "double" => Scalar::Double,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
    pub fn size(self) -> usize {
        match self {
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float | Scalar::Double)
    }

    /// Encodes a number given as f64 (for float types / random fills).
    fn encode_f64(self, v: f64, out: &mut Vec<u8>) {
        match self {
            Scalar::Float => out.extend_from_slice(&(v as f32).to_le_bytes()),
            Scalar::Double => out.extend_from_slice(&v.to_le_bytes()),
            _ => self.encode_int(v as i128, out),
        }
    }
    fn encode_int(self, v: i128, out: &mut Vec<u8>) {
        match self {
            Scalar::Float | Scalar::Double => self.encode_f64(v as f64, out),
            _ => {
                let b = (v as u128).to_le_bytes();
                out.extend_from_slice(&b[..self.size()]);
            }
        }
    }
    /// Encodes one literal value of this type.
    pub fn encode(self, lit: &str, out: &mut Vec<u8>) -> Result<(), String> {
        let lit = lit.trim();
        if self.is_float() {
            let v = parse_float(lit).ok_or_else(|| format!("`{lit}` is not a {}", self.name()))?;
            self.encode_f64(v, out);
        } else {
            let v = parse_int(lit).ok_or_else(|| format!("`{lit}` is not a {}", self.name()))?;
            self.encode_int(v, out);
        }
        Ok(())
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_float(s: &str) -> Option<f64> {
    if let Some(h) = s.strip_prefix("bits:") {
        let v = parse_int(h)?;
        return Some(f64::from_bits(v as u64));
    }
    s.parse::<f64>().ok()
}

/// How a buffer is initialised.
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    /// Created without host data and never written.
    None,
    Zero,
    Ones,
    Iota {
        start: f64,
        step: f64,
    },
    Random {
        seed: u64,
        range: Option<(f64, f64)>,
    },
    Values(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct BufferDecl {
    pub name: String,
    pub elem: Scalar,
    pub count: usize,
    pub fill: Fill,
    /// An RGBA image of this width, height and depth (depth 1: 2-D) instead of a buffer;
    /// `count` is then width × height × depth × 4 channels of `elem`.
    pub image: Option<[usize; 3]>,
    /// What kernels may do with it: the `CL_MEM_READ_WRITE` / `_READ_ONLY` / `_WRITE_ONLY`
    /// creation flag (`flags=`).
    pub access: KernelAccess,
    /// A sub-buffer of an earlier buffer (`arg: sub`): it holds no data of its own.
    pub sub: Option<SubRegion>,
}

/// Where a sub-buffer lies in its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubRegion {
    /// Index of the parent in `Case::buffers`.
    pub parent: usize,
    /// First element, in the parent's element type.
    pub offset: usize,
}

/// A memory object's kernel access flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KernelAccess {
    #[default]
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

impl BufferDecl {
    pub fn bytes(&self) -> usize {
        self.elem.size() * self.count
    }
    /// The initial contents, or `None` for an uninitialised buffer.
    pub fn initial(&self) -> Result<Option<Vec<u8>>, String> {
        let mut out = Vec::with_capacity(self.bytes());
        match &self.fill {
            Fill::None => return Ok(None),
            Fill::Zero => out.resize(self.bytes(), 0),
            Fill::Ones => (0..self.count).for_each(|_| self.elem.encode_int(1, &mut out)),
            Fill::Iota { start, step } => {
                for i in 0..self.count {
                    let v = start + step * i as f64;
                    if self.elem.is_float() {
                        self.elem.encode_f64(v, &mut out);
                    } else {
                        self.elem.encode_int(v as i128, &mut out);
                    }
                }
            }
            Fill::Random { seed, range } => {
                let mut state = *seed;
                for _ in 0..self.count {
                    let r = splitmix64(&mut state);
                    match (range, self.elem.is_float()) {
                        (Some((lo, hi)), true) => {
                            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
                            self.elem.encode_f64(lo + (hi - lo) * u, &mut out);
                        }
                        (None, true) => {
                            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
                            self.elem.encode_f64(-1.0 + 2.0 * u, &mut out);
                        }
                        (Some((lo, hi)), false) => {
                            let (lo, hi) = (*lo as i128, *hi as i128);
                            let span = (hi - lo + 1).max(1) as u128;
                            let v = lo + (r as u128 % span) as i128;
                            self.elem.encode_int(v, &mut out);
                        }
                        (None, false) => self.elem.encode_int(r as i128, &mut out),
                    }
                }
            }
            Fill::Values(vals) => {
                if vals.is_empty() {
                    return Err("values() needs at least one value".into());
                }
                for i in 0..self.count {
                    self.elem.encode(&vals[i % vals.len()], &mut out)?;
                }
            }
        }
        Ok(Some(out))
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Debug, Clone)]
pub enum Arg {
    /// Index into `Case::buffers`.
    Buffer(usize),
    /// A sampler object: normalized coordinates, `CL_ADDRESS_*`, `CL_FILTER_*`.
    Sampler {
        normalized: bool,
        addressing: u32,
        filter: u32,
    },
    /// `__local` pointer argument of this many bytes.
    Local(usize),
    /// Raw bytes of a by-value argument.
    Scalar(Vec<u8>),
}

/// A host command enqueued among the launches (`command:`), on whole buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostCommand {
    /// `clEnqueueReadBuffer` (`clEnqueueReadImage`) of the whole buffer (image) into host
    /// memory.
    Read(usize),
    /// `clEnqueueWriteBuffer` (`clEnqueueWriteImage`) of its initial contents (zeros when it
    /// has none).
    Write(usize),
    /// `clEnqueueCopyBuffer` from the first buffer to the second (same size).
    Copy(usize, usize),
    /// `clEnqueueFillBuffer` with zeros.
    Fill(usize),
    /// `clEnqueueMapBuffer` for reading and writing, then `clEnqueueUnmapMemObject` after it
    /// (the step's event is the unmap's).
    MapUnmap(usize),
}

/// One enqueued step: a kernel launch, or (`command` set) a host command, which has no
/// kernel, sizes or arguments.
#[derive(Debug, Clone)]
pub struct Launch {
    pub command: Option<HostCommand>,
    pub kernel: String,
    pub global: Vec<usize>,
    pub local: Option<Vec<usize>>,
    pub offset: Option<Vec<usize>>,
    pub args: Vec<Arg>,
    /// Launch indices whose events this launch waits for.
    pub after: Vec<usize>,
    /// Index of the queue the launch is enqueued on.
    pub on: usize,
    /// The host calls `clFinish` on every queue before enqueueing this launch.
    pub host_wait: bool,
}

impl Launch {
    /// A step named `kernel` (a host command's text until it is parsed), with nothing set.
    fn new(kernel: String) -> Launch {
        Launch {
            command: None,
            kernel,
            global: Vec::new(),
            local: None,
            offset: None,
            args: Vec::new(),
            after: Vec::new(),
            on: 0,
            host_wait: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    pub kind: String,
    pub fields: BTreeMap<String, String>,
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        for (k, v) in &self.fields {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum CompareMode {
    Exact,
    Ulp(u64),
}

#[derive(Debug, Clone)]
pub struct Compare {
    pub mode: CompareMode,
    /// Buffer names, or `stdout`.
    pub targets: Vec<String>,
}

/// A declared, explained difference from Oclgrind's verdict.
#[derive(Debug, Clone)]
pub struct OclgrindOverride {
    /// Kinds Oclgrind is expected to report (empty = none).
    pub kinds: Vec<String>,
    /// Oclgrind is expected to stop with a fatal error or crash instead of reporting
    /// (`fatal`).
    pub fatal: bool,
    /// Oclgrind is expected to refuse to build the program (`unbuildable`: an OpenCL C
    /// version or feature it lacks).
    pub unbuildable: bool,
    /// Oclgrind does not finish the case in reasonable time (`unfinished`: it runs what
    /// other compilers delete): it is skipped there.
    pub unfinished: bool,
    pub reason: String,
}

#[derive(Debug, Clone)]
pub struct Case {
    pub path: PathBuf,
    pub source: String,
    pub out_of_order: bool,
    /// Number of command queues (all of the `queue:` kind).
    pub queues: usize,
    pub buffers: Vec<BufferDecl>,
    pub launches: Vec<Launch>,
    /// Buffer indices released (clReleaseMemObject) after clSetKernelArg, before the launch.
    pub release_before_launch: Vec<usize>,
    /// `None`: no expectation declared. `Some(vec![])`: `expect: none`.
    pub expects: Option<Vec<Expect>>,
    pub checks: Option<String>,
    /// `SHADOWCL_COMPILE` for ShadowCL's runs (`app` or `source`); `None`: its default.
    pub compile: Option<String>,
    pub compares: Vec<Compare>,
    pub options: String,
    /// `reference-options:` the differential reference builds with these instead of
    /// `options:` (a reference that offers as OpenCL C 2.0 what the candidate's OpenCL C 3.0
    /// has as a feature).
    pub reference_options: Option<String>,
    pub requires: Vec<String>,
    pub oclgrind: Option<OclgrindOverride>,
    /// File name (same folder) of the race-free twin of a racy case.
    pub twin: Option<String>,
    /// Why the racing pairs may differ between schedules (which accesses happen depends on
    /// how the race went); without it they must be the same under every schedule.
    pub schedule_dependent: Option<String>,
}

impl Case {
    pub fn display_name(&self, root: &Path) -> String {
        self.path
            .strip_prefix(root)
            .unwrap_or(&self.path)
            .display()
            .to_string()
    }

    /// The checks in force for this case (the ShadowCL default when not given).
    pub fn checks_list(&self) -> Vec<String> {
        match &self.checks {
            Some(c) => c.split(',').map(|s| s.trim().to_string()).collect(),
            None => ["races", "divergence", "bounds", "uninit"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }

    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let file = path.display().to_string();
        let source = std::fs::read_to_string(path).map_err(|e| CaseError {
            file: file.clone(),
            line: 0,
            msg: format!("cannot read: {e}"),
        })?;
        parse(path, source)
    }
}

/// The `CL_*` channel data type of an RGBA image whose channels are `elem`.
pub fn image_channel_type(elem: Scalar) -> Option<u32> {
    Some(match elem {
        Scalar::Char => 0x10D7,
        Scalar::Short => 0x10D8,
        Scalar::Int => 0x10D9,
        Scalar::UChar => 0x10DA,
        Scalar::UShort => 0x10DB,
        Scalar::UInt => 0x10DC,
        Scalar::Float => 0x10DE,
        _ => return None,
    })
}
