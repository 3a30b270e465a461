//! Oclgrind `.sim` export ("running kernels in isolation" with `oclgrind-kernel`).
//!
//! A `.sim` file names the program file (opened relative to the directory `oclgrind-kernel`
//! runs in, so we write an absolute path unless told otherwise), the kernel, the NDRange and
//! the work-group size (three numbers each), then one `<…>` argument header per argument,
//! followed by the argument's data. We describe every value as `uchar` bytes so the data are
//! exact whatever the argument's type; buffers are `dump`ed so Oclgrind prints them after the
//! run. `#` starts a comment.

use crate::error::{CaptureError, Result};
use crate::record::{ArgValueRecord, RecordDir};
use std::fmt::Write as _;

/// A `.sim` file's text and what could not be expressed in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimExport {
    pub text: String,
    /// E.g. a non-zero global offset (`.sim` files have none).
    pub warnings: Vec<String>,
}

fn push_bytes(out: &mut String, bytes: &[u8]) {
    for (i, chunk) in bytes.chunks(32).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line: Vec<String> = chunk.iter().map(|b| b.to_string()).collect();
        out.push_str(&line.join(" "));
    }
}

/// The `.sim` text for a record; `program_path` is written as the program file.
pub fn sim_file(rd: &RecordDir, program_path: &str) -> Result<SimExport> {
    let r = &rd.record;
    if r.program.source.is_none() {
        return Err(CaptureError::Unsupported(format!(
            "{}: the program was recorded as SPIR-V only; an Oclgrind .sim needs OpenCL C source",
            rd.dir.display()
        )));
    }
    if program_path.chars().any(char::is_whitespace) {
        return Err(CaptureError::Unsupported(format!(
            "Oclgrind reads the program file name as one word; `{program_path}` has spaces"
        )));
    }
    let mut warnings = Vec::new();
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# ShadowCL launch record {} (kernel {})",
        rd.dir.display(),
        r.kernel
    );
    if !r.program.build_options.trim().is_empty() {
        let _ = writeln!(
            t,
            "# build options: {}  (pass them with oclgrind-kernel --build-options)",
            r.program.build_options.trim()
        );
        warnings.push(format!(
            "build options are not part of .sim files: run oclgrind-kernel --build-options \"{}\"",
            r.program.build_options.trim()
        ));
    }
    if r.global_offset.iter().any(|o| *o != 0) {
        let _ = writeln!(
            t,
            "# NOTE: the launch had global offset {:?}; .sim files run with offset 0",
            r.global_offset
        );
        warnings.push(format!(
            "global offset {:?} dropped: .sim files have no offset",
            r.global_offset
        ));
    }
    let _ = writeln!(t, "{program_path}");
    let _ = writeln!(t, "{}", r.kernel);
    let g = r.global_size;
    let l = r.local_size;
    let _ = writeln!(t, "{} {} {}", g[0], g[1], g[2]);
    let _ = writeln!(t, "{} {} {}", l[0], l[1], l[2]);
    for (i, a) in r.args.iter().enumerate() {
        let _ = writeln!(t, "# arg {i}: {} {}", a.type_name, a.name);
        match &a.value {
            ArgValueRecord::Scalar { bytes } => {
                let _ = write!(t, "<size={} uchar> ", bytes.0.len());
                push_bytes(&mut t, &bytes.0);
                t.push('\n');
            }
            ArgValueRecord::Buffer { size, .. } => match rd.contents(i)? {
                Some(bytes) => {
                    let _ = writeln!(t, "<size={size} uchar dump>");
                    push_bytes(&mut t, &bytes);
                    t.push('\n');
                }
                None => {
                    let _ = writeln!(t, "<size={size} uchar fill=0 dump>");
                    warnings.push(format!(
                        "arg {i} (`{}`): contents not recorded, filled with zeros",
                        a.name
                    ));
                }
            },
            ArgValueRecord::Local { size } => {
                let _ = writeln!(t, "<size={size} uchar>");
            }
            ArgValueRecord::Null => {
                let _ = writeln!(t, "<null>");
            }
        }
    }
    Ok(SimExport { text: t, warnings })
}

/// Parses the buffers `oclgrind-kernel` dumps for `uchar` arguments (`Argument 'out': 16
/// bytes` then `  out[0] = 11` lines) into (name, bytes) pairs, in output order.
pub fn parse_oclgrind_dump(stdout: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("Argument '") {
            if let Some(end) = rest.find('\'') {
                out.push((rest[..end].to_string(), Vec::new()));
            }
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        let l = line.trim();
        if let Some((lhs, rhs)) = l.split_once(" = ") {
            if lhs.starts_with(cur.0.as_str()) && lhs.ends_with(']') {
                if let Ok(v) = rhs.trim().parse::<i64>() {
                    cur.1.push(v as u8);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dump() {
        let out = "\nArgument 'out': 2 bytes\n  out[0] = 11\n  out[1] = 255\n\nArgument 'b': 1 bytes\n  b[0] = 3\n";
        assert_eq!(
            parse_oclgrind_dump(out),
            vec![
                ("out".to_string(), vec![11, 255]),
                ("b".to_string(), vec![3])
            ]
        );
    }
}
