//! Build and link options: split like a shell, translated to clang's, validated.

use crate::device::OPENCL_C_VERSIONS;
use crate::LinkOptions;
use std::path::Path;

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

pub(crate) const PASS_THROUGH: &[&str] = &[
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
pub(crate) const IGNORED: &[&str] = &[
    "-g",
    "-cl-kernel-arg-info",
    "-cl-strict-aliasing",
    "-cl-no-subgroup-ifp",
];

/// Translates OpenCL build options into clang driver arguments. `-cl-opt-disable`
/// becomes `-O0` (an explicit `-O<n>` is kept); relative `-I` folders are made absolute.
/// The error message names every option that is unknown or malformed.
pub fn translate_options(options: &str) -> Result<Vec<String>, String> {
    let words = split_options(options).map_err(|e| format!("invalid build options: {e}\n"))?;
    let mut out = Vec::new();
    let mut bad = Vec::new();
    // Whole messages, for options that are known but name what the device lacks.
    let mut unsupported = Vec::new();
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
            match cl_std_version(v) {
                Some(version) if OPENCL_C_VERSIONS.contains(&version) => {
                    out.push(format!("-cl-std={}", v.to_ascii_uppercase()))
                }
                // OpenCL API 5.8.6.5: a version CL_DEVICE_OPENCL_C_ALL_VERSIONS does not
                // list fails the build.
                Some((major, minor)) => unsupported.push(format!(
                    "shadowcl: {w}: the device compiles OpenCL C {} \
                     (CL_DEVICE_OPENCL_C_ALL_VERSIONS), not {major}.{minor}\n",
                    versions_list()
                )),
                None => bad.push(w.to_string()),
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
    if !bad.is_empty() {
        unsupported.push(format!(
            "shadowcl: unknown or unsupported build option(s): {}\n",
            bad.join(", ")
        ));
    }
    if unsupported.is_empty() {
        Ok(out)
    } else {
        Err(unsupported.concat())
    }
}

/// The version a `-cl-std=` value names (`CL1.2`, `cl3.0`), if it is of that form.
fn cl_std_version(v: &str) -> Option<(u32, u32)> {
    let digits = v.strip_prefix("CL").or_else(|| v.strip_prefix("cl"))?;
    let (major, minor) = digits.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The device's OpenCL C versions as a sentence: `1.0, 1.1, 1.2 and 3.0`.
fn versions_list() -> String {
    let names: Vec<String> = (OPENCL_C_VERSIONS.iter())
        .map(|(major, minor)| format!("{major}.{minor}"))
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
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

pub(crate) fn is_opt_arg(a: &str) -> bool {
    matches!(a, "-O0" | "-O1" | "-O2" | "-O3")
}

/// The last `-O<n>` of the translated options, else 2.
pub(crate) fn opt_level(args: &[String]) -> char {
    args.iter()
        .rev()
        .find(|a| is_opt_arg(a))
        .and_then(|a| a.chars().nth(2))
        .unwrap_or('2')
}

pub(crate) fn absolute(p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() {
        return p.to_string();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path).to_string_lossy().into_owned(),
        Err(_) => p.to_string(),
    }
}
