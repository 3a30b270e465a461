#!/usr/bin/env python3
"""Generates icd/src/gen/dispatch.rs from the system's CL/cl_icd.h.

The dispatch struct keeps the header's exact field order; each field holds a correctly typed
function: the real entry point when `pub unsafe extern "C" fn clXxx` exists in some module
under icd/src (any depth; forward/ is forwarding mode's and has its own table, gen_forward.py),
else a generated stub that returns the proper error. Run after adding entry points:
    python3 icd/tools/gen_dispatch.py
`--check` writes nothing and exits 1 when the committed file is not what it would write
(ci/test runs it).
"""
import os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import genutil  # noqa: E402

SRC = genutil.SRC
OUT = os.path.join(genutil.GEN, "dispatch.rs")
INC = "/usr/include/CL"

pre = subprocess.run(
    ["cpp", "-P", "-DCL_TARGET_OPENCL_VERSION=300", "-DCL_USE_DEPRECATED_OPENCL_1_0_APIS",
     "-DCL_USE_DEPRECATED_OPENCL_1_1_APIS", "-DCL_USE_DEPRECATED_OPENCL_1_2_APIS",
     "-DCL_USE_DEPRECATED_OPENCL_2_0_APIS", "-"],
    input="#include <CL/cl_icd.h>\n", capture_output=True, text=True, check=True).stdout
pre = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", pre)
raw = ""
for f in ["cl_d3d10.h", "cl_d3d11.h", "cl_dx9_media_sharing.h"]:
    raw += open(os.path.join(INC, f)).read()
raw = re.sub(r"/\*.*?\*/", "", raw, flags=re.S)
raw = re.sub(r"\bCL_API_CALL\b|\bCL_CALLBACK\b|\bCL_API_SUFFIX__\w+|\bCL_API_PREFIX__\w+", "", raw)

struct = re.search(r"typedef struct _cl_icd_dispatch\s*\{(.*?)\}\s*cl_icd_dispatch;", pre, re.S).group(1)
fields = re.findall(r"cl_api_(\w+)\s+(\w+)\s*;", struct)

def typedefs(text, suffix_re):
    out = {}
    for m in re.finditer(r"typedef\s+([\w\s\*]+?)\s*\(\s*\*\s*" + suffix_re + r"\s*\)\s*\((.*?)\)\s*;", text, re.S):
        out[m.group(2)] = (m.group(1).strip(), m.group(3))
    return out

fn_typedefs = typedefs(pre, r"cl_api_(\w+)")
raw_typedefs = typedefs(raw, r"(\w+)_fn")

TYPE_MAP = {
    "void": "c_void", "char": "c_char", "size_t": "usize", "int": "c_int",
    "UINT": "u32", "ID3D10Buffer": "c_void", "ID3D10Texture2D": "c_void", "ID3D10Texture3D": "c_void",
    "ID3D11Buffer": "c_void", "ID3D11Texture2D": "c_void", "ID3D11Texture3D": "c_void",
}

def split_top(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur); cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip() and p.strip() != "void"]

def rust_type(decl, want_name=True):
    """(rust type, name or None) of a C declaration (no function pointers)."""
    decl = re.sub(r"(\w+)\s*\[\s*\d*\s*\]", r"* \1", decl)
    toks = re.findall(r"\w+|\*", decl)
    name = None
    if want_name and len(toks) >= 2 and toks[-1] not in ("*",) and re.match(r"\w+", toks[-1]) \
            and any(t != "const" for t in toks[:-1] if t != "*") and toks[-1] not in TYPE_MAP \
            and not toks[-1].startswith("cl_") and toks[-1] not in ("const",):
        name = toks.pop()
    base, levels, const_now = None, [], False
    unsigned = "unsigned" in toks
    for t in toks:
        if t == "const":
            const_now = True
        elif t == "*":
            levels.append(const_now); const_now = False
        elif t in ("struct", "unsigned", "signed"):
            continue
        else:
            base = t
    base_const_first = levels[0] if levels else False
    r = {"char": "u8", "int": "u32"}.get(base) if unsigned else None
    r = r or TYPE_MAP.get(base, base)
    # levels[i] = const-ness of the pointee at depth i (innermost first)
    for i, c in enumerate(levels):
        r = ("*const " if c else "*mut ") + r
    return r, name

def parse_params(params):
    out = []
    for i, p in enumerate(split_top(params)):
        m = re.match(r"(.*?)\(\s*\*\s*(\w*)\s*\)\s*\((.*)\)\s*$", p, re.S)
        if m:
            ret = rust_type(m.group(1), False)[0]
            args = ", ".join(t for t, _ in (rust_type(q, True) for q in split_top(m.group(3))))
            r = f'Option<unsafe extern "C" fn({args})' + ("" if ret == "c_void" else f" -> {ret}") + ">"
            out.append((r, m.group(2) or f"a{i}"))
        else:
            t, n = rust_type(p)
            out.append((t, n or f"a{i}"))
    return out

ERR = {
    "clCreateFromGLBuffer": "CL_INVALID_CONTEXT", "clCreateFromGLTexture2D": "CL_INVALID_CONTEXT",
    "clCreateFromGLTexture3D": "CL_INVALID_CONTEXT", "clCreateFromGLRenderbuffer": "CL_INVALID_CONTEXT",
    "clCreateFromGLTexture": "CL_INVALID_CONTEXT", "clGetGLObjectInfo": "CL_INVALID_GL_OBJECT",
    "clGetGLTextureInfo": "CL_INVALID_GL_OBJECT", "clEnqueueAcquireGLObjects": "CL_INVALID_CONTEXT",
    "clEnqueueReleaseGLObjects": "CL_INVALID_CONTEXT", "clCreateEventFromGLsyncKHR": "CL_INVALID_CONTEXT",
    "clCreateFromEGLImageKHR": "CL_INVALID_CONTEXT", "clCreateEventFromEGLSyncKHR": "CL_INVALID_CONTEXT",
    "clCreateSubDevices": "CL_INVALID_VALUE", "clCreateSubDevicesEXT": "CL_INVALID_VALUE",
    "clCreateProgramWithBuiltInKernels": "CL_INVALID_VALUE", "clGetPipeInfo": "CL_INVALID_MEM_OBJECT",
    "clSetKernelArgSVMPointer": "CL_INVALID_OPERATION", "clGetKernelSubGroupInfoKHR": "CL_INVALID_OPERATION",
}

def err_for(name):
    if name in ERR:
        return ERR[name]
    return "CL_INVALID_OPERATION"


def main(check=False):
    slots = {field for _, field in fields}
    impls = genutil.entry_points(SRC, slots, skip=("gen", "forward"))

    lines = ["// @generated by icd/tools/gen_dispatch.py from CL/cl_icd.h — do not edit by hand.",
             "#![allow(non_snake_case, clippy::all)]", "",
             "use crate::consts::*;", "use crate::types::*;", "use std::ffi::{c_char, c_int, c_void};", "",
             "/// `struct _cl_icd_dispatch`, field for field in the header's order.",
             "#[repr(C)]", "pub struct IcdDispatch {"]
    stubs, table, sigs = [], [], {}
    for tyname, field in fields:
        if tyname in fn_typedefs:
            ret, params = fn_typedefs[tyname]
        elif tyname in raw_typedefs:
            ret, params = raw_typedefs[tyname]
        else:
            sys.exit(f"no signature for {tyname}")
        rret = rust_type(ret, False)[0]
        ps = parse_params(params)
        sig_args = ", ".join(t for t, _ in ps)
        rsuffix = "" if rret == "c_void" else f" -> {rret}"
        lines.append(f'    pub {field}: unsafe extern "C" fn({sig_args}){rsuffix},')
        if field in impls:
            table.append(f"    {field}: {impls[field]},")
            continue
        args = ", ".join(f"_{n}: {t}" for t, n in ps)
        e = err_for(field)
        if rret == "cl_int":
            body = f"    crate::api::entry::unsupported(\"{field}\", {e})"
        elif rret == "c_void":
            body = f"    crate::api::entry::unsupported(\"{field}\", {e});"
        else:
            errp = [n for t, n in ps if n == "errcode_ret" or t == "*mut cl_int"]
            if errp:
                body = f"    crate::api::entry::unsupported_ptr(\"{field}\", _{errp[-1]}, {e})"
            else:
                body = f"    crate::api::entry::unsupported(\"{field}\", {e});\n    std::ptr::null_mut()"
        stubs.append(f"/// Unsupported by ShadowCL: returns `{e}`.\n"
                     f"unsafe extern \"C\" fn {field}({args}){rsuffix} {{\n{body}\n}}\n")
        table.append(f"    {field}: {field},")
    lines.append("}\n")
    lines.append("/// The table every ShadowCL handle points to.")
    lines.append("pub static DISPATCH: IcdDispatch = IcdDispatch {")
    lines += table
    lines.append("};\n")
    lines += stubs
    ok = genutil.emit(OUT, "\n".join(lines), check)
    print(f"{len(fields)} slots, {len(fields) - len(stubs)} real, {len(stubs)} stubs",
          file=sys.stderr if check else sys.stdout)
    return ok


if __name__ == "__main__":
    sys.exit(0 if main(genutil.check_flag()) else 1)
