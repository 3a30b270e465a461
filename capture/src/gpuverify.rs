//! GPUVerify export: the `log.json` of kernel instantiations (GPUVerify's documented JSON
//! format, as KernelInterceptor wrote it) and a `gpuverify` command line for one record.
//!
//! GPUVerify's loader rejects unknown keys and checks that `local_size`, `global_size` and
//! `global_offset` hold numbers > 0, that scalar values are `0x…` strings, that array sizes
//! are > 0 and that address spaces are `global`, `local` or `constant`; what we cannot say
//! within those rules (a NULL buffer's size, a zero offset component) is left unconstrained.

use crate::record::{AddressQualifier, ArgValueRecord, LaunchRecord};
use serde::Serialize;

/// Name of the GPUVerify log in each process folder.
pub const LOG_FILE: &str = "log.json";

/// One kernel instantiation of GPUVerify's JSON format.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct KernelInstantiation {
    pub language: &'static str,
    pub endianness: &'static str,
    /// Path of the `.cl` relative to the JSON file.
    pub kernel_file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_size: Option<Vec<u64>>,
    pub global_size: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_offset: Option<Vec<u64>>,
    pub compiler_flags: String,
    pub entry_point: String,
    pub kernel_arguments: Vec<KernelArgument>,
}

/// A `kernel_argument`.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum KernelArgument {
    Scalar {
        value: String,
    },
    Array {
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        address_space: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        flags: Option<Vec<String>>,
        /// Binary file with the contents at launch, relative to the JSON file.
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<String>,
    },
}

/// Little-endian bytes as a GPUVerify hex value (`0x…`, most significant digit first, no
/// superfluous leading zeros, `0x0` for zero).
pub fn scalar_hex(bytes: &[u8]) -> String {
    let mut s = String::from("0x");
    let mut started = false;
    for b in bytes.iter().rev() {
        if started {
            s.push_str(&format!("{b:02x}"));
        } else if *b != 0 {
            s.push_str(&format!("{b:x}"));
            started = true;
        }
    }
    if !started {
        s.push('0');
    }
    s
}

fn dims(v: &[u64; 3], work_dim: u32) -> Vec<u64> {
    v[..work_dim.clamp(1, 3) as usize].to_vec()
}

/// The kernel instantiation of `record`, whose folder is `rel_dir` relative to the JSON file.
/// `Err` (with the reason) when GPUVerify cannot take it: it needs OpenCL C source.
pub fn instantiation(record: &LaunchRecord, rel_dir: &str) -> Result<KernelInstantiation, String> {
    let Some(src) = &record.program.source else {
        return Err("the program was given as SPIR-V only; GPUVerify needs OpenCL C".into());
    };
    let join = |f: &str| {
        if rel_dir.is_empty() {
            f.to_string()
        } else {
            format!("{rel_dir}/{f}")
        }
    };
    let global = dims(&record.global_size, record.work_dim);
    let local = record
        .local_size_given
        .map(|l| dims(&l, record.work_dim))
        // GPUVerify requires every local size to divide the global size (uniform groups).
        .filter(|l| l.iter().zip(&global).all(|(l, g)| *l > 0 && g % l == 0));
    let offset = dims(&record.global_offset, record.work_dim);
    let offset = (offset.iter().all(|o| *o > 0)).then_some(offset);
    let kernel_arguments = record
        .args
        .iter()
        .map(|a| match &a.value {
            ArgValueRecord::Scalar { bytes } => KernelArgument::Scalar {
                value: scalar_hex(&bytes.0),
            },
            ArgValueRecord::Buffer {
                size,
                flag_names,
                contents,
                ..
            } => KernelArgument::Array {
                size: Some(*size),
                address_space: if a.address == AddressQualifier::Constant {
                    "constant"
                } else {
                    "global"
                },
                flags: Some(flag_names.clone()),
                data: contents.as_deref().map(join),
            },
            ArgValueRecord::Local { size } => KernelArgument::Array {
                size: Some(*size),
                address_space: "local",
                flags: None,
                data: None,
            },
            ArgValueRecord::Null => KernelArgument::Array {
                size: None,
                address_space: if a.address == AddressQualifier::Constant {
                    "constant"
                } else {
                    "global"
                },
                flags: None,
                data: None,
            },
        })
        .collect();
    Ok(KernelInstantiation {
        language: "OpenCL",
        endianness: "little",
        kernel_file: join(src),
        local_size: local,
        global_size: global,
        global_offset: offset,
        compiler_flags: record.program.build_options.clone(),
        entry_point: record.kernel.clone(),
        kernel_arguments,
    })
}

/// [`instantiation`] as a JSON value (what the recorder appends to `log.json`).
pub fn log_entry(record: &LaunchRecord, rel_dir: &str) -> Result<serde_json::Value, String> {
    let inst = instantiation(record, rel_dir)?;
    serde_json::to_value(inst).map_err(|e| e.to_string())
}

/// Rebuilds the `log.json` array from the records of a process folder (e.g. after a crash
/// between two periodic writes). Records that cannot be read or have no source are left out.
pub fn log_from_records(proc_dir: &std::path::Path) -> crate::Result<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    for dir in crate::record::find_records(proc_dir)? {
        let Ok(rd) = crate::record::RecordDir::open(&dir) else {
            continue;
        };
        let rel = dir
            .strip_prefix(proc_dir)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Ok(v) = log_entry(&rd.record, &rel) {
            out.push(v);
        }
    }
    Ok(out)
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=.,/:+@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn vec_arg(v: &[u64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(","))
}

/// Splits build options the way a shell would for plain words (`-D X=1 -I dir`).
fn split_options(opts: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in opts.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The `gpuverify` command line that checks `record` with the preconditions observed at run
/// time: sizes, offset, scalar values (`--kernel-args`) and array sizes (`--kernel-arrays`:
/// every pointer argument in order, `*` for NULL). `kernel_file` is the `.cl` path to name.
/// `-D`/`-I` build options are passed on; other build options go through `--clang-opt=`.
pub fn gpuverify_command(record: &LaunchRecord, kernel_file: &str) -> String {
    let wd = record.work_dim;
    let global = dims(&record.global_size, wd);
    let mut parts: Vec<String> = vec!["gpuverify".into()];
    match record.local_size_given.map(|l| dims(&l, wd)) {
        Some(local) if local.iter().zip(&global).all(|(l, g)| g % l == 0) => {
            let groups: Vec<u64> = global.iter().zip(&local).map(|(g, l)| g / l).collect();
            parts.push(format!("--local_size={}", vec_arg(&local)));
            parts.push(format!("--num_groups={}", vec_arg(&groups)));
        }
        Some(local) => {
            // Non-uniform work-groups: say the real sizes, GPUVerify will complain itself.
            parts.push(format!("--local_size={}", vec_arg(&local)));
            parts.push(format!("--global_size={}", vec_arg(&global)));
        }
        None => {
            let stars = vec!["*"; global.len()].join(",");
            parts.push(format!("--local_size={stars}"));
            parts.push(format!("--global_size={}", vec_arg(&global)));
        }
    }
    let offset = dims(&record.global_offset, wd);
    if offset.iter().any(|o| *o != 0) {
        parts.push(format!("--global_offset={}", vec_arg(&offset)));
    }
    let mut scalars = vec![record.kernel.clone()];
    let mut arrays = vec![record.kernel.clone()];
    for a in &record.args {
        match &a.value {
            ArgValueRecord::Scalar { bytes } => scalars.push(scalar_hex(&bytes.0)),
            ArgValueRecord::Buffer { size, .. } | ArgValueRecord::Local { size } => {
                arrays.push(size.to_string())
            }
            ArgValueRecord::Null => arrays.push("*".into()),
        }
    }
    if scalars.len() > 1 {
        parts.push(format!("--kernel-args={}", scalars.join(",")));
    }
    if arrays.len() > 1 {
        parts.push(format!("--kernel-arrays={}", arrays.join(",")));
    }
    parts.push("--pointer-bitwidth=64".into());
    let opts = split_options(&record.program.build_options);
    let mut i = 0;
    while i < opts.len() {
        let o = &opts[i];
        if (o == "-D" || o == "-I") && i + 1 < opts.len() {
            parts.push(o.clone());
            parts.push(opts[i + 1].clone());
            i += 2;
            continue;
        }
        if o.starts_with("-D") || o.starts_with("-I") {
            parts.push(o.clone());
        } else {
            parts.push(format!("--clang-opt={o}"));
        }
        i += 1;
    }
    parts.push(kernel_file.to_string());
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| if i == 0 { p.clone() } else { shell_quote(p) })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_values() {
        assert_eq!(scalar_hex(&[0x08, 0xa2, 0, 0]), "0xa208");
        assert_eq!(scalar_hex(&[0, 0, 0, 0]), "0x0");
        assert_eq!(scalar_hex(&[1]), "0x1");
        assert_eq!(scalar_hex(&[0, 1]), "0x100");
        assert_eq!(scalar_hex(&[0xff; 8]), "0xffffffffffffffff");
    }

    #[test]
    fn options_split_and_quote() {
        assert_eq!(
            split_options(" -D N=4  -I'my dir' -cl-fast-relaxed-math"),
            vec!["-D", "N=4", "-Imy dir", "-cl-fast-relaxed-math"]
        );
        assert_eq!(shell_quote("--local_size=*"), "'--local_size=*'");
        assert_eq!(shell_quote("--num_groups=[4]"), "'--num_groups=[4]'");
        assert_eq!(shell_quote("-DN=4"), "-DN=4");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
