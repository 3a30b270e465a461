//! Kernel argument metadata (`-cl-kernel-arg-info`) read back from SPIR bitcode.

use crate::driver::{run_tool, scratch_dir};
use crate::{CompileFailure, LLVM_DIS};
use std::collections::BTreeMap;
use std::process::Command;

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
pub(crate) fn kernel_name(line: &str) -> Option<String> {
    let at = line.find(" @")? + 2;
    let rest = &line[at..];
    if let Some(q) = rest.strip_prefix('"') {
        q.split_once('"').map(|(n, _)| n.to_string())
    } else {
        rest.split_once('(').map(|(n, _)| n.to_string())
    }
}

/// Splits `!"a", !"b c", i32 1` into `a`, `b c`, `i32 1`.
pub(crate) fn split_md_list(body: &str) -> Vec<String> {
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
