//! The case format: one `.cl` file whose leading `//` comment block declares the
//! launch(es) and the expectations. See `tests/kernels/README.md`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Header keys. A header line is `// key: value`; several `key: value` pairs may share
/// one line (`// global: 64  local: 32`). Comment lines whose first word is not one of
/// these keys are free-text description.
const KEYS: &[&str] = &[
    "kernel",
    "launch",
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
    "compare",
    "options",
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

/// Fields of a finding an expectation may pin.
pub const EXPECT_FIELDS: &[&str] = &["race", "scope", "memory", "buffer", "count"];

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

#[derive(Debug, Clone)]
pub struct Launch {
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
    pub compares: Vec<Compare>,
    pub options: String,
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

/// Splits `global: 64  local: 32` into [("global","64"),("local","32")], only on known keys.
fn split_pairs(text: &str) -> Option<Vec<(String, String)>> {
    // Find positions of "key:" where key is known and starts at a word boundary.
    let mut marks: Vec<(usize, usize, &str)> = Vec::new(); // (start, value_start, key)
    let bytes = text.as_bytes();
    for key in KEYS {
        let pat = format!("{key}:");
        let mut from = 0;
        while let Some(pos) = text[from..].find(&pat) {
            let at = from + pos;
            let boundary = at == 0 || bytes[at - 1].is_ascii_whitespace();
            if boundary {
                marks.push((at, at + pat.len(), key));
            }
            from = at + pat.len();
        }
    }
    marks.sort_by_key(|m| m.0);
    // Keys that take free text must not be split further.
    let mut pairs = Vec::new();
    let first = marks.first()?;
    if first.0 != 0 {
        return None;
    }
    let free_text = ["expect", "oclgrind", "options", "compare", "arg"];
    let mut i = 0;
    while i < marks.len() {
        let (_, vstart, key) = marks[i];
        let end = if free_text.contains(&key) {
            text.len()
        } else {
            marks.get(i + 1).map(|m| m.0).unwrap_or(text.len())
        };
        pairs.push((key.to_string(), text[vstart..end].trim().to_string()));
        if free_text.contains(&key) {
            break;
        }
        i += 1;
    }
    Some(pairs)
}

fn parse_dims(v: &str) -> Result<Vec<usize>, String> {
    let dims: Result<Vec<usize>, _> = v.split(',').map(|d| d.trim().parse::<usize>()).collect();
    let dims = dims.map_err(|_| format!("`{v}` is not a list of 1-3 sizes"))?;
    if dims.is_empty() || dims.len() > 3 {
        return Err(format!("`{v}` must have 1-3 dimensions"));
    }
    Ok(dims)
}

fn parse_fill(v: &str) -> Result<Fill, String> {
    let (head, inner) = match v.find('(') {
        Some(p) if v.ends_with(')') => (&v[..p], Some(&v[p + 1..v.len() - 1])),
        _ => (v, None),
    };
    let nums = |s: &str| -> Result<Vec<f64>, String> {
        s.split(',')
            .filter(|x| !x.trim().is_empty())
            .map(|x| {
                parse_float(x.trim())
                    .or_else(|| parse_int(x.trim()).map(|i| i as f64))
                    .ok_or_else(|| format!("bad number `{x}` in fill"))
            })
            .collect()
    };
    Ok(match (head, inner) {
        ("none", None) => Fill::None,
        ("zero", None) => Fill::Zero,
        ("ones", None) => Fill::Ones,
        ("iota", None) => Fill::Iota {
            start: 0.0,
            step: 1.0,
        },
        ("iota", Some(a)) => {
            let n = nums(a)?;
            Fill::Iota {
                start: n.first().copied().unwrap_or(0.0),
                step: n.get(1).copied().unwrap_or(1.0),
            }
        }
        ("random", Some(a)) => {
            let parts: Vec<&str> = a.split(',').map(str::trim).collect();
            let seed = parts
                .first()
                .and_then(|s| parse_int(s))
                .ok_or_else(|| format!("random(seed[,lo,hi]) needs an integer seed, got `{a}`"))?
                as u64;
            let range = if parts.len() == 3 {
                let n = nums(&parts[1..].join(","))?;
                Some((n[0], n[1]))
            } else if parts.len() == 1 {
                None
            } else {
                return Err(format!("random(seed[,lo,hi]) got `{a}`"));
            };
            Fill::Random { seed, range }
        }
        ("values", Some(a)) => Fill::Values(a.split(',').map(|s| s.trim().to_string()).collect()),
        _ => {
            return Err(format!(
                "unknown fill `{v}` (zero|ones|iota[(start,step)]|random(seed[,lo,hi])|values(a,b,..)|none)"
            ))
        }
    })
}

/// Encodes a by-value argument: `int 5`, `float4 1,2,3,4`, `struct(int,float) 3,2.5`.
fn encode_scalar(ty: &str, value: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    if let Some(fields) = ty.strip_prefix("struct(").and_then(|s| s.strip_suffix(')')) {
        // Fields may be scalars or vectors; each field is aligned to its own size (a
        // 3-vector occupies and aligns like a 4-vector) and consumes one value per lane.
        let mut vals = value.split(',').map(str::trim);
        let mut max_align = 1;
        for t in fields.split(',').map(str::trim) {
            let (s, lanes) = split_vector(t)?;
            let stored = if lanes == 3 { 4 } else { lanes };
            let a = s.size() * stored;
            max_align = max_align.max(a);
            while out.len() % a != 0 {
                out.push(0);
            }
            for _ in 0..lanes {
                let v = vals
                    .next()
                    .ok_or_else(|| format!("struct field `{t}` has too few values"))?;
                s.encode(v, &mut out)?;
            }
            out.extend(std::iter::repeat_n(0, s.size() * (stored - lanes)));
        }
        if vals.next().is_some() {
            return Err("struct has more values than fields".into());
        }
        while out.len() % max_align != 0 {
            out.push(0);
        }
        return Ok(out);
    }
    let (base, lanes) = split_vector(ty)?;
    let vals: Vec<&str> = value.split(',').map(str::trim).collect();
    if vals.len() != lanes {
        return Err(format!("{ty} needs {lanes} values, got {}", vals.len()));
    }
    for v in vals {
        base.encode(v, &mut out)?;
    }
    if lanes == 3 {
        // A 3-vector occupies 4 lanes.
        let pad = base.size();
        out.extend(std::iter::repeat_n(0, pad));
    }
    Ok(out)
}

fn split_vector(ty: &str) -> Result<(Scalar, usize), String> {
    let digits = ty.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let base = &ty[..ty.len() - digits.len()];
    let s = Scalar::parse(base).ok_or_else(|| format!("unknown type `{ty}`"))?;
    let lanes = if digits.is_empty() {
        1
    } else {
        match digits.parse::<usize>() {
            Ok(n @ (2 | 3 | 4 | 8 | 16)) => n,
            _ => return Err(format!("bad vector width in `{ty}`")),
        }
    };
    Ok((s, lanes))
}

pub fn parse(path: &Path, source: String) -> Result<Case, CaseError> {
    let file = path.display().to_string();
    let err = |line: usize, msg: String| CaseError {
        file: file.clone(),
        line,
        msg,
    };
    let mut case = Case {
        path: path.to_path_buf(),
        source: String::new(),
        out_of_order: false,
        queues: 1,
        buffers: Vec::new(),
        launches: Vec::new(),
        release_before_launch: Vec::new(),
        expects: None,
        checks: None,
        compares: Vec::new(),
        options: String::new(),
        requires: Vec::new(),
        oclgrind: None,
        schedule_dependent: None,
        twin: None,
    };
    let mut release_refs: Vec<(usize, String)> = Vec::new();
    for (i, raw) in source.lines().enumerate() {
        let lineno = i + 1;
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        let Some(body) = t.strip_prefix("//") else {
            break; // end of the header block
        };
        let body = body.trim();
        let Some(pairs) = split_pairs(body) else {
            continue; // description text
        };
        for (key, value) in pairs {
            let e = |m: String| err(lineno, format!("{key}: {m}"));
            match key.as_str() {
                "kernel" | "launch" => {
                    if value.is_empty() {
                        return Err(e("needs a kernel name".into()));
                    }
                    case.launches.push(Launch {
                        kernel: value,
                        global: Vec::new(),
                        local: None,
                        offset: None,
                        args: Vec::new(),
                        after: Vec::new(),
                        on: 0,
                        host_wait: false,
                    });
                }
                "global" | "local" | "offset" | "arg" | "after" | "on" | "host-wait" => {
                    let nbuf = case.buffers.len();
                    let Some(l) = case.launches.last_mut() else {
                        return Err(e("must follow a `kernel:` or `launch:` line".into()));
                    };
                    match key.as_str() {
                        "global" => l.global = parse_dims(&value).map_err(e)?,
                        "local" if value == "none" => l.local = None,
                        "local" => l.local = Some(parse_dims(&value).map_err(e)?),
                        "offset" => l.offset = Some(parse_dims(&value).map_err(e)?),
                        "on" => {
                            l.on = value
                                .parse()
                                .map_err(|_| e(format!("`{value}` is not a queue index")))?
                        }
                        "host-wait" => {
                            l.host_wait = match value.as_str() {
                                "finish" => true,
                                _ => return Err(e(format!("`{value}`: finish"))),
                            }
                        }
                        "after" => {
                            for a in value.split(',') {
                                let n = a
                                    .trim()
                                    .parse::<usize>()
                                    .map_err(|_| e(format!("`{a}` is not a launch index")))?;
                                l.after.push(n);
                            }
                        }
                        _ => {
                            let argi = l.args.len();
                            let launchi = case.launches.len() - 1;
                            let arg =
                                parse_arg(&value, argi, launchi, &case.buffers, nbuf).map_err(e)?;
                            let l = case
                                .launches
                                .last_mut()
                                .ok_or_else(|| err(lineno, "arg: no launch".to_string()))?;
                            match arg {
                                ParsedArg::New(b) => {
                                    case.buffers.push(b);
                                    l.args.push(Arg::Buffer(nbuf));
                                }
                                ParsedArg::Arg(a) => l.args.push(a),
                            }
                        }
                    }
                }
                "queues" => {
                    case.queues = value
                        .parse()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| e(format!("`{value}` is not a queue count")))?
                }
                "queue" => match value.as_str() {
                    "out-of-order" => case.out_of_order = true,
                    "in-order" => case.out_of_order = false,
                    _ => return Err(e(format!("`{value}`: in-order | out-of-order"))),
                },
                "release-before-launch" => {
                    for v in value.split(',') {
                        release_refs.push((lineno, v.trim().to_string()));
                    }
                }
                "expect" => {
                    let mut words = value.split_whitespace();
                    let kind = words.next().unwrap_or("");
                    let list = case.expects.get_or_insert_with(Vec::new);
                    if kind == "none" {
                        if words.next().is_some() {
                            return Err(e("`none` takes no fields".into()));
                        }
                        continue;
                    }
                    if !KINDS.contains(&kind) {
                        return Err(e(format!(
                            "unknown kind `{kind}` (one of {})",
                            KINDS.join(", ")
                        )));
                    }
                    let mut fields = BTreeMap::new();
                    for w in words {
                        let (k, v) = w
                            .split_once('=')
                            .ok_or_else(|| e(format!("field `{w}` is not key=value")))?;
                        if !EXPECT_FIELDS.contains(&k) {
                            return Err(e(format!(
                                "unknown field `{k}` (one of {})",
                                EXPECT_FIELDS.join(", ")
                            )));
                        }
                        fields.insert(k.to_string(), v.to_string());
                    }
                    list.push(Expect {
                        kind: kind.to_string(),
                        fields,
                    });
                }
                "checks" => case.checks = Some(value),
                "twin" => case.twin = Some(value),
                "schedule-dependent" => {
                    if value.is_empty() {
                        return Err(e("`schedule-dependent: REASON` needs a reason".into()));
                    }
                    case.schedule_dependent = Some(value)
                }
                "options" => case.options = value,
                "requires" => case
                    .requires
                    .extend(value.split(',').map(|s| s.trim().to_string())),
                "compare" => {
                    let mut words = value.split_whitespace();
                    let mode = match words.next() {
                        Some("exact") => CompareMode::Exact,
                        Some(m) if m.starts_with("ulp=") => CompareMode::Ulp(
                            m[4..]
                                .parse()
                                .map_err(|_| e(format!("`{m}`: ulp=N needs a number")))?,
                        ),
                        other => {
                            return Err(e(format!(
                                "`{}`: exact | ulp=N, then buffer names or `stdout`",
                                other.unwrap_or("")
                            )))
                        }
                    };
                    let targets: Vec<String> = words.map(str::to_string).collect();
                    if targets.is_empty() {
                        return Err(e("names no buffer (or `stdout`) to compare".into()));
                    }
                    case.compares.push(Compare { mode, targets });
                }
                "oclgrind" => {
                    let (kinds, reason) = match value.split_once(char::is_whitespace) {
                        Some((k, r)) => (k, r.trim()),
                        None => (value.as_str(), ""),
                    };
                    if reason.is_empty() {
                        return Err(e("`oclgrind: KINDS|none REASON` needs a reason".into()));
                    }
                    let kinds: Vec<String> = if kinds == "none" {
                        Vec::new()
                    } else {
                        kinds.split(',').map(str::to_string).collect()
                    };
                    for k in &kinds {
                        if !KINDS.contains(&k.as_str()) {
                            return Err(e(format!("unknown kind `{k}`")));
                        }
                    }
                    case.oclgrind = Some(OclgrindOverride {
                        kinds,
                        reason: reason.to_string(),
                    });
                }
                _ => {}
            }
        }
    }
    if case.launches.is_empty() {
        return Err(err(0, "declares no `// kernel:` line".into()));
    }
    for (i, l) in case.launches.iter().enumerate() {
        if l.global.is_empty() {
            return Err(err(
                0,
                format!("launch {i} ({}) has no `global:`", l.kernel),
            ));
        }
        if let Some(loc) = &l.local {
            if loc.len() != l.global.len() {
                return Err(err(0, format!("launch {i}: local and global dims differ")));
            }
            for (g, lo) in l.global.iter().zip(loc) {
                if *lo == 0 || g % lo != 0 {
                    return Err(err(
                        0,
                        format!("launch {i}: local {lo} does not divide {g}"),
                    ));
                }
            }
        }
        if l.on >= case.queues {
            return Err(err(
                0,
                format!(
                    "launch {i}: on: {} but the case has {} queue(s)",
                    l.on, case.queues
                ),
            ));
        }
        for a in &l.after {
            if *a >= i {
                return Err(err(
                    0,
                    format!("launch {i}: after: {a} is not an earlier launch"),
                ));
            }
        }
    }
    for (lineno, r) in release_refs {
        let idx = if let Ok(n) = r.parse::<usize>() {
            match case.launches[0].args.get(n) {
                Some(Arg::Buffer(b)) => *b,
                _ => {
                    return Err(err(
                        lineno,
                        format!("release-before-launch: argument {n} is not a buffer"),
                    ))
                }
            }
        } else {
            case.buffers
                .iter()
                .position(|b| b.name == r)
                .ok_or_else(|| err(lineno, format!("release-before-launch: no buffer `{r}`")))?
        };
        case.release_before_launch.push(idx);
    }
    for c in &case.compares {
        for t in &c.targets {
            if t != "stdout" && !case.buffers.iter().any(|b| &b.name == t) {
                return Err(err(0, format!("compare: no buffer named `{t}`")));
            }
        }
    }
    case.source = source;
    Ok(case)
}

enum ParsedArg {
    New(BufferDecl),
    Arg(Arg),
}

/// `buffer TYPE COUNT [fill=..] [name=..] [flags=..]` | `use NAME` | `local TYPE COUNT` | `scalar TYPE VALUE`
fn parse_arg(
    v: &str,
    argi: usize,
    launchi: usize,
    buffers: &[BufferDecl],
    _nbuf: usize,
) -> Result<ParsedArg, String> {
    let words: Vec<&str> = v.split_whitespace().collect();
    match words.first().copied() {
        Some(kind @ ("buffer" | "image2d" | "image3d")) => {
            let dims = match kind {
                "buffer" => 1,
                "image2d" => 2,
                _ => 3,
            };
            if words.len() < 2 + dims {
                return Err(match kind {
                    "buffer" => "buffer TYPE COUNT [fill=..] [name=..]",
                    "image2d" => "image2d TYPE WIDTH HEIGHT [fill=..] [name=..]",
                    _ => "image3d TYPE WIDTH HEIGHT DEPTH [fill=..] [name=..]",
                }
                .into());
            }
            let elem = Scalar::parse(words[1])
                .ok_or_else(|| format!("unknown buffer element type `{}` (scalar types only; declare float4 data as float ×4)", words[1]))?;
            let mut sizes = [1usize; 3];
            for k in 0..dims {
                sizes[k] = words[2 + k]
                    .parse::<usize>()
                    .map_err(|_| format!("`{}` is not a count", words[2 + k]))?;
            }
            let image = (dims > 1).then_some(sizes);
            if image.is_some() && image_channel_type(elem).is_none() {
                return Err(format!("no image channel type for `{}`", words[1]));
            }
            let count = match image {
                Some([w, h, d]) => w * h * d * 4,
                None => sizes[0],
            };
            let words: Vec<&str> = [&words[..2], &["_"], &words[2 + dims..]].concat();
            let mut fill = Fill::Zero;
            let mut access = KernelAccess::ReadWrite;
            let mut name = if launchi == 0 {
                format!("arg{argi}")
            } else {
                format!("l{launchi}.arg{argi}")
            };
            for w in &words[3..] {
                if let Some(f) = w.strip_prefix("fill=") {
                    fill = parse_fill(f)?;
                } else if let Some(n) = w.strip_prefix("name=") {
                    name = n.to_string();
                } else if let Some(f) = w.strip_prefix("flags=") {
                    access = match f {
                        "read-write" => KernelAccess::ReadWrite,
                        "read-only" => KernelAccess::ReadOnly,
                        "write-only" => KernelAccess::WriteOnly,
                        _ => return Err(format!("`flags={f}`: read-write, read-only or write-only")),
                    };
                } else if *w == "none" {
                    fill = Fill::None;
                } else {
                    return Err(format!(
                        "unknown buffer option `{w}` (fill=.., name=.. or flags=..)"
                    ));
                }
            }
            if buffers.iter().any(|b| b.name == name) {
                return Err(format!("buffer name `{name}` used twice (use `arg: use {name}`)"));
            }
            Ok(ParsedArg::New(BufferDecl {
                name,
                elem,
                count,
                fill,
                image,
                access,
            }))
        }
        Some("sampler") => {
            let [_, n, a, f] = words[..] else {
                return Err("sampler normalized|unnormalized ADDRESSING nearest|linear".into());
            };
            let normalized = match n {
                "normalized" => true,
                "unnormalized" => false,
                _ => return Err(format!("`{n}`: normalized or unnormalized")),
            };
            let addressing = match a {
                "none" => 0x1130,
                "clamp_to_edge" => 0x1131,
                "clamp" => 0x1132,
                "repeat" => 0x1133,
                "mirrored_repeat" => 0x1134,
                _ => return Err(format!("`{a}`: none, clamp_to_edge, clamp, repeat or mirrored_repeat")),
            };
            let filter = match f {
                "nearest" => 0x1140,
                "linear" => 0x1141,
                _ => return Err(format!("`{f}`: nearest or linear")),
            };
            Ok(ParsedArg::Arg(Arg::Sampler {
                normalized,
                addressing,
                filter,
            }))
        }
        Some("use") => {
            let n = words.get(1).ok_or("use NAME")?;
            let i = buffers
                .iter()
                .position(|b| b.name == *n)
                .ok_or_else(|| format!("no earlier buffer named `{n}`"))?;
            Ok(ParsedArg::Arg(Arg::Buffer(i)))
        }
        Some("local") => {
            if words.len() != 3 {
                return Err("local TYPE COUNT".into());
            }
            let (s, lanes) = split_vector(words[1])?;
            let lanes = if lanes == 3 { 4 } else { lanes };
            let count = words[2]
                .parse::<usize>()
                .map_err(|_| format!("`{}` is not an element count", words[2]))?;
            Ok(ParsedArg::Arg(Arg::Local(s.size() * lanes * count)))
        }
        Some("scalar") => {
            if words.len() < 3 {
                return Err("scalar TYPE VALUE".into());
            }
            let value = words[2..].join("");
            Ok(ParsedArg::Arg(Arg::Scalar(encode_scalar(words[1], &value)?)))
        }
        _ => Err(format!(
            "`{v}`: buffer TYPE COUNT [fill=..] [name=..] | image2d TYPE W H [..] | image3d TYPE W H D [..] | sampler .. | use NAME | local TYPE COUNT | scalar TYPE VALUE"
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_header() {
        let src = "// A comment: free text\n// kernel: k\n// global: 64   local: 32\n\
                   // arg: buffer float 64 fill=iota name=out\n// arg: local float 32\n\
                   // arg: scalar int 7\n// arg: scalar struct(char,int) 1,2\n\
                   // expect: data-race race=read-write memory=local\n\
                   // compare: ulp=4 out\n__kernel void k() {}\n";
        let c = parse(Path::new("x.cl"), src.to_string()).map_err(|e| e.to_string());
        let c = match c {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(c.launches[0].global, vec![64]);
        assert_eq!(c.launches[0].local, Some(vec![32]));
        assert_eq!(c.launches[0].args.len(), 4);
        assert!(matches!(&c.launches[0].args[3], Arg::Scalar(b) if b.len() == 8));
        assert_eq!(
            encode_scalar("struct(int2,float)", "1,2,3").map(|b| b.len()),
            Ok(16)
        );
        assert_eq!(
            encode_scalar("struct(char,double)", "1,2").map(|b| b.len()),
            Ok(16)
        );
        assert_eq!(encode_scalar("float3", "1,2,3").map(|b| b.len()), Ok(16));
        assert_eq!(c.buffers[0].name, "out");
        let ex = c.expects.unwrap_or_default();
        assert_eq!(
            ex[0].fields.get("race").map(String::as_str),
            Some("read-write")
        );
        assert_eq!(c.compares[0].mode, CompareMode::Ulp(4));
    }

    #[test]
    fn random_fill_is_deterministic() {
        let b = BufferDecl {
            name: "b".into(),
            elem: Scalar::Float,
            count: 8,
            fill: Fill::Random {
                seed: 3,
                range: Some((0.0, 1.0)),
            },
            image: None,
            access: KernelAccess::ReadWrite,
        };
        assert_eq!(b.initial().ok(), b.initial().ok());
    }
}
