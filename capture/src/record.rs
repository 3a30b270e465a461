//! The launch record format (`record.json` and the files next to it) and its reader.
//!
//! Layout of one record (a folder, created atomically by renaming a finished temp folder):
//!
//! ```text
//! DIR/<exe>-<pid>/launch-0007/record.json     this file's `LaunchRecord`
//!                             program.cl      OpenCL C source, when the program had source
//!                             program.spv     SPIR-V, when the platform library had it
//!                             arg-N.bin       contents of buffer argument N before the launch
//!                             arg-N.out.bin   contents after the launch (inputs+outputs mode)
//! ```
//!
//! The program files of launches of one program in one process are hard links of one file
//! (the recorder writes a program once, not once per launch): each folder still holds its
//! whole record, but a program file edited in place changes in every folder that shares it.

use crate::error::{CaptureError, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Value of `record.json`'s `format` field.
pub const FORMAT: &str = "shadowcl-launch/1";
/// Name of the record file inside a record folder.
pub const RECORD_FILE: &str = "record.json";

/// Which buffer contents a recorder stores (`SHADOWCL_CAPTURE_DATA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum DataMode {
    #[serde(rename = "none")]
    None,
    #[default]
    #[serde(rename = "inputs")]
    Inputs,
    #[serde(rename = "inputs+outputs")]
    InputsOutputs,
}

impl std::str::FromStr for DataMode {
    type Err = String;
    fn from_str(s: &str) -> Result<DataMode, String> {
        match s.trim() {
            "none" => Ok(DataMode::None),
            "inputs" => Ok(DataMode::Inputs),
            "inputs+outputs" | "all" => Ok(DataMode::InputsOutputs),
            other => Err(format!(
                "unknown capture data mode `{other}` (expected none, inputs or inputs+outputs)"
            )),
        }
    }
}

impl std::fmt::Display for DataMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DataMode::None => "none",
            DataMode::Inputs => "inputs",
            DataMode::InputsOutputs => "inputs+outputs",
        })
    }
}

/// `CL_KERNEL_ARG_ADDRESS_*` of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressQualifier {
    Global,
    Constant,
    Local,
    /// By value.
    Private,
}

impl AddressQualifier {
    pub fn as_str(self) -> &'static str {
        match self {
            AddressQualifier::Global => "global",
            AddressQualifier::Constant => "constant",
            AddressQualifier::Local => "local",
            AddressQualifier::Private => "private",
        }
    }
}

impl From<shadowcl_interpreter::ArgAddress> for AddressQualifier {
    fn from(a: shadowcl_interpreter::ArgAddress) -> Self {
        use shadowcl_interpreter::ArgAddress as A;
        match a {
            A::Global => AddressQualifier::Global,
            A::Constant => AddressQualifier::Constant,
            A::Local => AddressQualifier::Local,
            A::Private => AddressQualifier::Private,
        }
    }
}

/// Bytes stored in JSON as a lowercase hex string, in memory order (little-endian values).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct HexBytes(pub Vec<u8>);

impl Serialize for HexBytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(&self.0))
    }
}

impl<'de> Deserialize<'de> for HexBytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HexBytes, D::Error> {
        let s = String::deserialize(d)?;
        from_hex(&s).map(HexBytes).map_err(serde::de::Error::custom)
    }
}

pub(crate) fn to_hex(b: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(D[(x >> 4) as usize] as char);
        s.push(D[(x & 15) as usize] as char);
    }
    s
}

pub(crate) fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("hex string `{s}` has an odd number of digits"));
    }
    let digit = |c: u8| -> Result<u8, String> {
        (c as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| format!("`{}` is not a hex digit", c as char))
    };
    s.as_bytes()
        .chunks(2)
        .map(|p| Ok(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// Who recorded the launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessInfo {
    pub exe: String,
    pub pid: u32,
}

/// The program a launch ran: file names inside the record folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramRecord {
    /// `program.cl`, when the application gave OpenCL C source.
    pub source: Option<String>,
    /// `program.spv`, when SPIR-V was available (built by the platform, or given as IL).
    pub spirv: Option<String>,
    /// Options the application passed to `clBuildProgram` / `clCompileProgram`.
    pub build_options: String,
    /// SHA-256 of the source (or, without source, of the SPIR-V), hex.
    pub sha256: String,
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgRecord {
    pub index: u32,
    pub name: String,
    pub address: AddressQualifier,
    /// `read_only`, `write_only`, `read_write` (images) or `none`.
    #[serde(default = "none_string")]
    pub access: String,
    /// OpenCL C type as written (`float*`, `int4`).
    pub type_name: String,
    /// Subset of `const`, `restrict`, `volatile`, `pipe`.
    #[serde(default)]
    pub type_qualifiers: Vec<String>,
    #[serde(flatten)]
    pub value: ArgValueRecord,
    /// For image arguments (recorded as the buffer of their texels): the image's layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageRecord>,
}

/// Geometry and format of an image argument (`shadowcl_interpreter::ImageDesc`; order and
/// data type in SPIR-V numbering, i.e. `CL_*` minus 0x10B0 / 0x10D0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageRecord {
    /// `1d`, `1d_buffer`, `1d_array`, `2d`, `2d_array` or `3d`.
    pub dim: String,
    pub order: u32,
    pub data_type: u32,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    pub array_size: u64,
    pub row_pitch: u64,
    pub slice_pitch: u64,
    /// Byte offset of the first texel in the buffer.
    #[serde(default)]
    pub base: u64,
}

impl ImageRecord {
    pub fn from_desc(d: &shadowcl_interpreter::ImageDesc) -> ImageRecord {
        use shadowcl_interpreter::ImageDim as D;
        ImageRecord {
            dim: match d.dim {
                D::D1 => "1d",
                D::D1Buffer => "1d_buffer",
                D::D1Array => "1d_array",
                D::D2 => "2d",
                D::D2Array => "2d_array",
                D::D3 => "3d",
            }
            .to_string(),
            order: d.format.order,
            data_type: d.format.data_type,
            width: d.width,
            height: d.height,
            depth: d.depth,
            array_size: d.array_size,
            row_pitch: d.row_pitch,
            slice_pitch: d.slice_pitch,
            base: d.base,
        }
    }

    /// The descriptor, or `None` for an unknown dimensionality.
    pub fn to_desc(&self) -> Option<shadowcl_interpreter::ImageDesc> {
        use shadowcl_interpreter::ImageDim as D;
        let dim = match self.dim.as_str() {
            "1d" => D::D1,
            "1d_buffer" => D::D1Buffer,
            "1d_array" => D::D1Array,
            "2d" => D::D2,
            "2d_array" => D::D2Array,
            "3d" => D::D3,
            _ => return None,
        };
        Some(shadowcl_interpreter::ImageDesc {
            dim,
            format: shadowcl_interpreter::ImageFormat {
                order: self.order,
                data_type: self.data_type,
            },
            width: self.width,
            height: self.height,
            depth: self.depth,
            array_size: self.array_size,
            row_pitch: self.row_pitch,
            slice_pitch: self.slice_pitch,
            base: self.base,
        })
    }
}

fn none_string() -> String {
    "none".to_string()
}

/// How an argument was bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ArgValueRecord {
    /// By-value bytes exactly as given to `clSetKernelArg`, hex.
    Scalar { bytes: HexBytes },
    /// A global or constant buffer (or sub-buffer view).
    Buffer {
        /// Bytes of the view the kernel sees.
        size: u64,
        /// `cl_mem_flags` bits of the buffer.
        flags: u64,
        /// The same bits as `CL_MEM_*` names.
        #[serde(default)]
        flag_names: Vec<String>,
        /// Arguments with the same group share one buffer (aliasing, sub-buffers).
        group: u32,
        /// Offset of this view inside the group's buffer.
        #[serde(default)]
        origin: u64,
        /// `arg-N.bin`: the view's bytes before the launch; `null` when not recorded.
        contents: Option<String>,
        /// `arg-N.out.bin`: the view's bytes after the launch; `null` when not recorded.
        #[serde(default)]
        outputs: Option<String>,
    },
    /// `__local` pointer: bytes per work-group.
    Local { size: u64 },
    /// A NULL buffer.
    Null,
}

/// The `record.json` of one launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchRecord {
    pub format: String,
    /// Sequence number inside the process folder (`launch-0007` has id 7).
    pub id: u32,
    pub process: ProcessInfo,
    /// Milliseconds since the Unix epoch when the launch was recorded.
    pub time_unix_ms: u64,
    pub program: ProgramRecord,
    pub kernel: String,
    pub work_dim: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    /// The local size the application passed, `null` for a NULL `local_work_size`.
    pub local_size_given: Option<[u64; 3]>,
    /// The local size the launch ran with.
    pub local_size: [u64; 3],
    pub args: Vec<ArgRecord>,
    /// What contents this record holds.
    pub data: DataMode,
    /// What the recorder left out (budget, data mode) and why.
    #[serde(default)]
    pub skipped: Vec<String>,
}

impl LaunchRecord {
    /// Number of work-groups per dimension (rounded up).
    pub fn num_groups(&self) -> [u64; 3] {
        let mut n = [1u64; 3];
        for (d, g) in n.iter_mut().enumerate() {
            *g = self.global_size[d].div_ceil(self.local_size[d].max(1));
        }
        n
    }

    /// Checks everything that does not need the files; `path` names the record in errors.
    pub fn validate(&self, path: &Path) -> Result<()> {
        let bad = |msg: String| Err(CaptureError::bad(path, msg));
        if self.format != FORMAT {
            return bad(format!(
                "field `format`: expected \"{FORMAT}\", found \"{}\"",
                self.format
            ));
        }
        if !(1..=3).contains(&self.work_dim) {
            return bad(format!(
                "field `work_dim`: must be 1, 2 or 3, found {}",
                self.work_dim
            ));
        }
        if self.kernel.is_empty() {
            return bad("field `kernel`: empty kernel name".into());
        }
        for d in 0..3 {
            if self.global_size[d] == 0 {
                return bad(format!("field `global_size[{d}]`: must be positive"));
            }
            if self.local_size[d] == 0 {
                return bad(format!("field `local_size[{d}]`: must be positive"));
            }
            if let Some(given) = self.local_size_given {
                if given[d] == 0 {
                    return bad(format!("field `local_size_given[{d}]`: must be positive"));
                }
            }
        }
        if self.program.source.is_none() && self.program.spirv.is_none() {
            return bad("field `program`: neither `source` nor `spirv` is set".into());
        }
        for (field, name) in [
            ("program.source", &self.program.source),
            ("program.spirv", &self.program.spirv),
        ] {
            if let Some(n) = name {
                check_file_name(path, field, n)?;
            }
        }
        for (i, a) in self.args.iter().enumerate() {
            let what = format!("field `args[{i}]`");
            if a.index as usize != i {
                return bad(format!("{what}.index: expected {i}, found {}", a.index));
            }
            match &a.value {
                ArgValueRecord::Buffer {
                    size,
                    contents,
                    outputs,
                    ..
                } => {
                    if *size == 0 {
                        return bad(format!("{what}.size: a buffer cannot be empty"));
                    }
                    if a.address != AddressQualifier::Global
                        && a.address != AddressQualifier::Constant
                    {
                        return bad(format!(
                            "{what}.address: a buffer argument must be global or constant, found {}",
                            a.address.as_str()
                        ));
                    }
                    for (f, n) in [("contents", contents), ("outputs", outputs)] {
                        if let Some(n) = n {
                            check_file_name(path, &format!("args[{i}].{f}"), n)?;
                        }
                    }
                }
                ArgValueRecord::Local { size } => {
                    if *size == 0 {
                        return bad(format!("{what}.size: a local argument needs a size"));
                    }
                }
                ArgValueRecord::Scalar { bytes } => {
                    if bytes.0.is_empty() {
                        return bad(format!("{what}.bytes: empty by-value argument"));
                    }
                }
                ArgValueRecord::Null => {}
            }
        }
        Ok(())
    }
}

fn check_file_name(path: &Path, field: &str, name: &str) -> Result<()> {
    if name.is_empty()
        || name.contains('/')
        || name.contains('\\')
        || name == "."
        || name == ".."
        || name.starts_with('.')
    {
        return Err(CaptureError::bad(
            path,
            format!("field `{field}`: `{name}` is not a plain file name in the record folder"),
        ));
    }
    Ok(())
}

/// A record folder, read and validated: `record.json` parsed, every file it names present
/// with the size the record says.
#[derive(Clone, Debug)]
pub struct RecordDir {
    pub dir: PathBuf,
    pub record: LaunchRecord,
}

impl RecordDir {
    /// Reads `dir/record.json` and checks the files it names.
    pub fn open(dir: impl AsRef<Path>) -> Result<RecordDir> {
        let dir = dir.as_ref().to_path_buf();
        let file = dir.join(RECORD_FILE);
        let text = std::fs::read_to_string(&file).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                CaptureError::bad(
                    &dir,
                    format!("missing {RECORD_FILE} (not a launch record folder?)"),
                )
            } else {
                CaptureError::io(&file, e)
            }
        })?;
        let record: LaunchRecord = serde_json::from_str(&text)
            .map_err(|e| CaptureError::bad(&dir, format!("{RECORD_FILE}: {e}")))?;
        record.validate(&dir)?;
        let rd = RecordDir { dir, record };
        rd.check_files()?;
        Ok(rd)
    }

    fn check_files(&self) -> Result<()> {
        let p = &self.record.program;
        for (field, name) in [("program.source", &p.source), ("program.spirv", &p.spirv)] {
            if let Some(n) = name {
                self.file_len(field, n)?;
            }
        }
        for (i, a) in self.record.args.iter().enumerate() {
            if let ArgValueRecord::Buffer {
                size,
                contents,
                outputs,
                ..
            } = &a.value
            {
                for (f, n) in [("contents", contents), ("outputs", outputs)] {
                    if let Some(n) = n {
                        let len = self.file_len(&format!("args[{i}].{f}"), n)?;
                        if len != *size {
                            return Err(CaptureError::bad(
                                &self.dir,
                                format!(
                                    "field `args[{i}].{f}`: {n} has {len} bytes but `args[{i}].size` is {size}"
                                ),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn file_len(&self, field: &str, name: &str) -> Result<u64> {
        match std::fs::metadata(self.dir.join(name)) {
            Ok(m) => Ok(m.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CaptureError::bad(
                &self.dir,
                format!("field `{field}`: file {name} is missing"),
            )),
            Err(e) => Err(CaptureError::io(self.dir.join(name), e)),
        }
    }

    fn read(&self, field: &str, name: &str) -> Result<Vec<u8>> {
        std::fs::read(self.dir.join(name)).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                CaptureError::bad(
                    &self.dir,
                    format!("field `{field}`: file {name} is missing"),
                )
            } else {
                CaptureError::io(self.dir.join(name), e)
            }
        })
    }

    /// The OpenCL C source, if the record has it.
    pub fn source(&self) -> Result<Option<String>> {
        let Some(name) = &self.record.program.source else {
            return Ok(None);
        };
        let bytes = self.read("program.source", name)?;
        String::from_utf8(bytes).map(Some).map_err(|_| {
            CaptureError::bad(
                &self.dir,
                format!("field `program.source`: {name} is not UTF-8 text"),
            )
        })
    }

    /// Path of the source file, if any.
    pub fn source_path(&self) -> Option<PathBuf> {
        self.record
            .program
            .source
            .as_ref()
            .map(|n| self.dir.join(n))
    }

    /// The SPIR-V module, if the record has it.
    pub fn spirv(&self) -> Result<Option<Vec<u8>>> {
        let Some(name) = &self.record.program.spirv else {
            return Ok(None);
        };
        let bytes = self.read("program.spirv", name)?;
        if bytes.len() < 20 || bytes.len() % 4 != 0 || bytes[..4] != [0x03, 0x02, 0x23, 0x07] {
            return Err(CaptureError::bad(
                &self.dir,
                format!(
                    "field `program.spirv`: {name} is not a SPIR-V module ({} bytes, bad magic or length)",
                    bytes.len()
                ),
            ));
        }
        Ok(Some(bytes))
    }

    fn buffer_file(&self, index: usize, outputs: bool) -> Result<Option<Vec<u8>>> {
        let Some(arg) = self.record.args.get(index) else {
            return Err(CaptureError::bad(
                &self.dir,
                format!("field `args[{index}]`: no such argument"),
            ));
        };
        let ArgValueRecord::Buffer {
            size,
            contents,
            outputs: outs,
            ..
        } = &arg.value
        else {
            return Ok(None);
        };
        let (field, name) = if outputs {
            ("outputs", outs)
        } else {
            ("contents", contents)
        };
        let Some(name) = name else { return Ok(None) };
        let field = format!("args[{index}].{field}");
        let bytes = self.read(&field, name)?;
        if bytes.len() as u64 != *size {
            return Err(CaptureError::bad(
                &self.dir,
                format!(
                    "field `{field}`: {name} has {} bytes but `args[{index}].size` is {size}",
                    bytes.len()
                ),
            ));
        }
        Ok(Some(bytes))
    }

    /// Contents of buffer argument `index` before the launch (`None`: not recorded / not a buffer).
    pub fn contents(&self, index: usize) -> Result<Option<Vec<u8>>> {
        self.buffer_file(index, false)
    }

    /// Contents of buffer argument `index` after the launch, when recorded.
    pub fn recorded_outputs(&self, index: usize) -> Result<Option<Vec<u8>>> {
        self.buffer_file(index, true)
    }
}

/// Every record folder under `dir`: `dir` itself if it is a record, the `launch-*` folders of a
/// process folder, or those of every process folder of a capture root. Sorted by path.
/// Folders starting with `.` (unfinished records) are ignored.
pub fn find_records(dir: &Path) -> Result<Vec<PathBuf>> {
    if dir.join(RECORD_FILE).is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut out = Vec::new();
    walk(dir, 0, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|e| CaptureError::io(dir, e))?;
    for e in rd {
        let e = e.map_err(|e| CaptureError::io(dir, e))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let p = e.path();
        if !p.is_dir() {
            continue;
        }
        if p.join(RECORD_FILE).is_file() {
            out.push(p);
        } else if depth < 1 {
            walk(&p, depth + 1, out)?;
        }
    }
    Ok(())
}

/// Element size of a pointer argument's pointee from its OpenCL C type name (`float4*` → 16);
/// 1 when unknown.
pub fn pointee_size(type_name: &str) -> u64 {
    let t = type_name.trim().trim_end_matches('*').trim();
    let t = t
        .trim_start_matches("const ")
        .trim_start_matches("volatile ")
        .trim();
    let (base, lanes) = split_vector(t);
    let size = match base {
        "char" | "uchar" | "unsigned char" | "signed char" | "bool" => 1,
        "short" | "ushort" | "unsigned short" | "half" => 2,
        "int" | "uint" | "unsigned int" | "unsigned" | "float" => 4,
        "long" | "ulong" | "unsigned long" | "double" | "size_t" | "ptrdiff_t" | "intptr_t"
        | "uintptr_t" => 8,
        _ => return 1,
    };
    size * if lanes == 3 { 4 } else { lanes }
}

fn split_vector(t: &str) -> (&str, u64) {
    let digits = t.bytes().rev().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits == t.len() {
        return (t, 1);
    }
    let (base, n) = t.split_at(t.len() - digits);
    match n.parse::<u64>() {
        Ok(l @ (2 | 3 | 4 | 8 | 16)) => (base, l),
        _ => (t, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_errors() {
        assert_eq!(to_hex(&[0x0a, 0xff, 0]), "0aff00");
        assert_eq!(from_hex("0aff00").unwrap(), vec![0x0a, 0xff, 0]);
        assert!(from_hex("abc").unwrap_err().contains("odd"));
        assert!(from_hex("zz").unwrap_err().contains("hex digit"));
    }

    #[test]
    fn pointee_sizes() {
        assert_eq!(pointee_size("float*"), 4);
        assert_eq!(pointee_size("float4*"), 16);
        assert_eq!(pointee_size("int3*"), 16);
        assert_eq!(pointee_size("double*"), 8);
        assert_eq!(pointee_size("struct foo*"), 1);
        assert_eq!(pointee_size("uchar*"), 1);
    }

    #[test]
    fn data_mode_parses() {
        assert_eq!("none".parse::<DataMode>().unwrap(), DataMode::None);
        assert_eq!(
            "inputs+outputs".parse::<DataMode>().unwrap(),
            DataMode::InputsOutputs
        );
        assert!("bogus".parse::<DataMode>().is_err());
        assert_eq!(DataMode::InputsOutputs.to_string(), "inputs+outputs");
    }
}
