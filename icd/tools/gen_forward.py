#!/usr/bin/env python3
"""Generates icd/src/gen/forward.rs: the dispatch table of forwarding mode
(SHADOWCL_FORWARD), one function per slot of CL/cl_icd.h.

Each generated function translates ShadowCL's wrapper handles into the vendor's by C type and
calls the same slot of the vendor's dispatch table:
  - a handle parameter (cl_context, cl_mem, ...): checked against the wrapper registry
    (garbage or wrong type -> CL_INVALID_<TYPE>), NULL passed through; a cl_mem named
    *image* / *buffer* must be an image / a buffer;
  - `const cl_xxx *` after a `cl_uint` count (wait lists, device/mem/program lists): copied and
    translated element by element;
  - `cl_event *` out-parameters and returned handles: wrapped (created objects get a fresh
    wrapper, handles the vendor already had keep theirs);
  - out-arrays of handles followed by a `cl_uint *` count (clGetDeviceIDs, sub-devices);
  - `const cl_context_properties *`: the CL_CONTEXT_PLATFORM value; `const cl_image_desc *`:
    its buffer;
  - callbacks that receive a handle: a trampoline hands the application the wrapper;
  - clGet*Info answers that are handles: translated back (forward/info.rs's table).
A slot implemented by hand (`pub unsafe extern "C" fn clXxx` anywhere under icd/src/forward/)
is used instead; a slot whose parameters this script cannot translate returns
CL_INVALID_OPERATION. Run after changing the rules or adding a hand-written slot:
    python3 icd/tools/gen_forward.py
`--check` writes nothing and exits 1 when the committed gen/forward.rs is out of date, after
checking the translation rules on real signatures (ci/test and a unit test run it).
"""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_dispatch as g  # noqa: E402  (parses cl_icd.h)
import genutil  # noqa: E402

FWD = os.path.join(genutil.SRC, "forward")
OUT = os.path.join(genutil.GEN, "forward.rs")

KIND = {
    "cl_platform_id": "Platform", "cl_device_id": "Device", "cl_context": "Context",
    "cl_command_queue": "Queue", "cl_mem": "Mem", "cl_program": "Program",
    "cl_kernel": "Kernel", "cl_event": "Event", "cl_sampler": "Sampler",
}
# Callbacks by signature: trampoline name, or None when no handle crosses it (passed as is).
CALLBACKS = {
    'Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>': None,
    'Option<unsafe extern "C" fn(*mut c_void)>': None,
    'Option<unsafe extern "C" fn(cl_program, *mut c_void)>': "program_cb",
    'Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>': "event_cb",
    'Option<unsafe extern "C" fn(cl_mem, *mut c_void)>': "mem_cb",
    'Option<unsafe extern "C" fn(cl_context, *mut c_void)>': "context_cb",
    'Option<unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void)>':
        "svm_free_cb",
}
# Functions that create the handle they return / write (a fresh wrapper, never a stale one).
# Argument checks the specification requires and some vendors skip (they crash or succeed):
# done before forwarding, as ShadowCL's own platform does them.
GUARDS = {
    "clEnqueueMapBuffer": "crate::forward::special::check_map_flags(map_flags)?;",
}
# Run after a successful call, for launch records: what the vendor cannot tell later.
AFTER = {
    "clGetProgramInfo": "crate::forward::record::binaries_given(program as usize, param_name, param_value, "
                        "param_value_size.min(size_ret_v));",
}
# Run after a creating call succeeded, with `h` the new wrapper's handle.
AFTER_NEW = {
    "clLinkProgram": "crate::forward::record::linked(h, num_input_programs, input_programs, options);",
    "clCreateProgramWithBinary": "crate::forward::record::from_binaries(h, num_devices, lengths, binaries);",
}


def creates(name):
    return bool(re.match(r"cl(Create|Link|Clone)", name))


class Untranslatable(Exception):
    pass


def translate(name, ps, ret):
    """(pre lines, call args, post lines run on success) for one slot."""
    pre, args, post, always = [], [], [], []
    if name in GUARDS:
        pre.append(GUARDS[name])
    names = [n for _, n in ps]
    info = re.match(r"clGet\w*Info(KHR)?$", name) and len(ps) >= 4 and ps[-1][0] == "*mut usize"
    skip = set()
    for i, (t, n) in enumerate(ps):
        if n in skip:
            continue
        if t == "cl_mem" and "image" in n:
            pre.append(f"let {n} = un_image({n})?;")
            args.append(n)
        elif t == "cl_mem" and "buffer" in n:
            pre.append(f"let {n} = un_buffer({n})?;")
            args.append(n)
        elif t in KIND:
            pre.append(f"let {n} = un(Kind::{KIND[t]}, {n})?;")
            args.append(n)
        elif t.startswith("*const ") and t[7:] in KIND:
            k = KIND[t[7:]]
            if i == 0 or ps[i - 1][0] != "cl_uint":
                raise Untranslatable(f"{n}: handle array without a count")
            count = ps[i - 1][1]
            err = f"Kind::{k}.invalid()"
            if k == "Event" and name != "clWaitForEvents":
                err = "CL_INVALID_EVENT_WAIT_LIST"
            pre.append(f"let {n}_v = un_list(Kind::{k}, {err}, {count}, {n})?;")
            args.append(f"list_ptr(&{n}_v, {n})")
        elif t == "*mut cl_event" and (n == "event" or i == len(ps) - 1):
            args.append(n)
            post.append(f"wrap_out(Kind::Event, {n}, true);")
        elif t.startswith("*mut ") and t[5:] in KIND:
            k = KIND[t[5:]]
            if i + 1 < len(ps) and ps[i + 1][0] == "*mut cl_uint" and i > 0 and ps[i - 1][0] == "cl_uint":
                cnt, ret_n = ps[i - 1][1], ps[i + 1][1]
                # The count the vendor reports is needed to wrap; ask for it even if the
                # application did not.
                pre.append(f"let mut {ret_n}_n: cl_uint = 0;")
                args.append(n)
                # Both NULL stays both NULL: the vendor reports CL_INVALID_VALUE.
                args.append(f"if {n}.is_null() && {ret_n}.is_null() {{ std::ptr::null_mut() }} else {{ &mut {ret_n}_n }}")
                skip.add(ret_n)
                always.append(f"out({ret_n}, {ret_n}_n);")
                post.append(f"wrap_out_array(Kind::{k}, {n}, {cnt}.min({ret_n}_n), {str(creates(name) or 'SubDevices' in name).lower()});")
            else:
                raise Untranslatable(f"{n}: handle out-parameter")
        elif t == "*const cl_context_properties":
            pre.append(f"let {n}_v = context_props({n})?;")
            args.append(f"list_ptr(&{n}_v, {n})")
        elif t == "*const cl_image_desc":
            pre.append(f"let {n}_v = translate_image_desc({n})?;")
            args.append(f"{n}_v.as_ref().map_or({n}, |d| d as *const cl_image_desc)")
        elif t.startswith("Option<"):
            if t not in CALLBACKS:
                raise Untranslatable(f"{n}: callback {t}")
            tramp = CALLBACKS[t]
            if tramp is None:
                args.append(n)
                continue
            ud = ps[i + 1][1]
            if ps[i + 1][0] != "*mut c_void":
                raise Untranslatable(f"{n}: callback without user data")
            pre.append(f"let ({n}, {ud}) = tramp::{tramp}({n}, {ud});")
            args.append(n)
            args.append(ud)
            skip.add(ud)
            # The trampoline's box is the vendor's now; on failure it is never called.
            post.append(f"/* failure: */")
        elif t.split()[-1] in KIND:
            raise Untranslatable(f"{n}: {t}")
        else:
            args.append(n)
    # Callback boxes are freed when the vendor refuses the call.
    cb_uds = [(n, ps[i + 1][1]) for i, (t, n) in enumerate(ps) if t in CALLBACKS and CALLBACKS[t]]
    post = [p for p in post if p != "/* failure: */"]
    fail = [f"tramp::discard({n}.is_some(), {ud});" for n, ud in cb_uds]
    if info:
        pn, psz, pv, pret = names[-4], names[-3], names[-2], names[-1]
        # Our own size_ret, so the answer's real length is known when translating it.
        args[-1] = "&mut size_ret_v"
        pre.append("let mut size_ret_v: usize = 0;")
        post.append(f"out({pret}, size_ret_v);")
        post.append(f'fix_info("{name}", {pn} as u32, {pv}, {psz}.min(size_ret_v));')
    if name in AFTER:
        post.append(AFTER[name])
    return pre, args, always, post, fail


def self_test():
    """The translation rules on a few real signatures."""
    def sig(name):
        for tyname, field in g.fields:
            if field == name:
                ret, params = g.fn_typedefs.get(tyname) or g.raw_typedefs[tyname]
                return g.parse_params(params), g.rust_type(ret, False)[0]
        raise KeyError(name)
    pre, args, always, post, fail = translate("clWaitForEvents", *sig("clWaitForEvents"))
    assert "un_list(Kind::Event, Kind::Event.invalid()" in pre[0], pre
    pre, args, always, post, fail = translate("clEnqueueCopyBuffer", *sig("clEnqueueCopyBuffer"))
    assert any("un_buffer(src_buffer)" in p for p in pre), pre
    assert any("CL_INVALID_EVENT_WAIT_LIST" in p for p in pre), pre
    assert post == ["wrap_out(Kind::Event, event, true);"], post
    pre, args, always, post, fail = translate("clGetDeviceIDs", *sig("clGetDeviceIDs"))
    assert always == ["out(num_devices, num_devices_n);"] and "wrap_out_array" in post[0], post
    pre, args, always, post, fail = translate("clSetEventCallback", *sig("clSetEventCallback"))
    assert any("tramp::event_cb" in p for p in pre) and fail and "discard" in fail[0], (pre, fail)
    pre, args, always, post, fail = translate("clGetMemObjectInfo", *sig("clGetMemObjectInfo"))
    assert any('fix_info("clGetMemObjectInfo"' in p for p in post), post
    pre, args, always, post, fail = translate("clCreateContext", *sig("clCreateContext"))
    assert pre[0].startswith("let properties_v = context_props(") and "pfn_notify" in args, (pre, args)


def gen(check=False):
    hand = genutil.entry_points(FWD, {field for _, field in g.fields})
    out = ["// @generated by icd/tools/gen_forward.py from CL/cl_icd.h — do not edit by hand.",
           "//! Forwarding mode's dispatch table: every slot translates handles and calls the vendor.",
           "#![allow(non_snake_case, unused_mut, clippy::all)]", "",
           "use crate::consts::*;", "use crate::forward::handles::*;",
           "use crate::forward::info::fix_info;", "use crate::forward::tramp;",
           "use crate::gen::dispatch::IcdDispatch;",
           "use crate::api::info::out;", "use crate::types::*;",
           "use std::ffi::{c_char, c_int, c_void};", "", ""]
    table, fns, untranslated = [], [], []
    for tyname, field in g.fields:
        ret, params = g.fn_typedefs.get(tyname) or g.raw_typedefs[tyname]
        rret = g.rust_type(ret, False)[0]
        ps = g.parse_params(params)
        if field in hand:
            table.append(f"    {field}: {hand[field]},")
            continue
        table.append(f"    {field}: {field},")
        sig = ", ".join(f"{n}: {t}" for t, n in ps)
        rsuffix = "" if rret == "c_void" else f" -> {rret}"
        try:
            pre, args, always, post, fail = translate(field, ps, rret)
        except Untranslatable as e:
            untranslated.append((field, str(e)))
            errp = [n for t, n in ps if n == "errcode_ret" or t == "*mut cl_int"]
            if rret == "cl_int":
                body = f'    crate::api::entry::unsupported("{field}", CL_INVALID_OPERATION)'
            elif errp:
                body = f'    crate::api::entry::unsupported_ptr("{field}", {errp[-1]}, CL_INVALID_OPERATION)'
            elif rret == "c_void":
                body = f'    crate::api::entry::unsupported("{field}", CL_INVALID_OPERATION);'
            else:
                body = f'    crate::api::entry::unsupported("{field}", CL_INVALID_OPERATION);\n    std::ptr::null_mut()'
            fns.append(f"/// Not forwarded ({e}): CL_INVALID_OPERATION.\n"
                       f"unsafe extern \"C\" fn {field}({sig}){rsuffix} {{\n{body}\n}}\n")
            continue
        slot = f"vendor_slot!({field})"
        call = f"(f)({', '.join(args)})"
        pre_s = "".join(f"        {l}\n" for l in pre)
        post_s = "".join(f"            {l}\n" for l in post)
        always_s = "".join(f"        {l}\n" for l in always)
        fail_s = "".join(f"            {l}\n" for l in fail)
        if rret == "cl_int":
            rel = re.match(r"clRelease(\w+)$", field)
            if rel and len(ps) == 1 and ps[0][0] in KIND:
                k = KIND[ps[0][0]]
                body = (f"    forward(\"{field}\", || {{\n        un(Kind::{k}, {ps[0][1]})?;\n        let f = {slot}?;\n"
                        f"        release(Kind::{k}, {ps[0][1]}, |v| {{\n"
                        f"            // SAFETY: the vendor's own slot, called with its own handle.\n"
                        f"            unsafe {{ (f)(v) }}\n        }})\n    }})")
            else:
                body = (f"    forward(\"{field}\", || {{\n{pre_s}        let f = {slot}?;\n"
                        f"        // SAFETY: the vendor's slot of this very signature; handles translated above.\n"
                        f"        let r = unsafe {{ {call} }};\n"
                        + always_s
                        + (f"        if r == CL_SUCCESS {{\n{post_s}        }}" if post_s else
                           f"        if r != CL_SUCCESS {{\n{fail_s}        }}\n" if fail_s else "")
                        + (f" else {{\n{fail_s}        }}" if post_s and fail_s else "")
                        + ("\n" if post_s else "")
                        + f"        Ok(r)\n    }})")
        elif rret in KIND:
            k = KIND[rret]
            errp = [n for t, n in ps if t in ("*mut cl_int", "*mut c_int")][-1]
            args = [("&mut e" if a == errp else a) for a in args]
            call = f"(f)({', '.join(args)})"
            body = (f"    crate::api::entry::call_ptr(\"{field}\", {errp}, || {{\n{pre_s}        let f = {slot}?;\n"
                    f"        let mut e: cl_int = CL_SUCCESS;\n"
                    f"        // SAFETY: the vendor's slot of this very signature; handles translated above.\n"
                    f"        let r = unsafe {{ {call} }};\n"
                    f"        if r.is_null() {{\n{fail_s}            return Err(if e == CL_SUCCESS {{ CL_OUT_OF_HOST_MEMORY }} else {{ e }});\n        }}\n"
                    f"{post_s.replace('            ', '        ')}"
                    + (f"        let h = wrap_new(Kind::{k}, r, {str(creates(field)).lower()});\n"
                       f"        {AFTER_NEW[field]}\n        Ok(h)\n    }})" if field in AFTER_NEW else
                       f"        Ok(wrap_new(Kind::{k}, r, {str(creates(field)).lower()}))\n    }})"))
        elif rret.startswith("*mut"):
            errp = [n for t, n in ps if t in ("*mut cl_int", "*mut c_int")]
            if errp:
                errp = errp[-1]
                args = [("&mut e" if a == errp else a) for a in args]
                call = f"(f)({', '.join(args)})"
                body = (f"    crate::api::entry::call_ptr(\"{field}\", {errp}, || {{\n{pre_s}        let f = {slot}?;\n"
                        f"        let mut e: cl_int = CL_SUCCESS;\n"
                        f"        // SAFETY: the vendor's slot of this very signature; handles translated above.\n"
                        f"        let r = unsafe {{ {call} }};\n"
                        f"        if e != CL_SUCCESS {{\n            return Err(e);\n        }}\n"
                        f"{post_s.replace('            ', '        ')}"
                        f"        Ok(r)\n    }})")
            else:
                body = (f"    let mut r = std::ptr::null_mut();\n"
                        f"    forward(\"{field}\", || {{\n{pre_s}        let f = {slot}?;\n"
                        f"        // SAFETY: the vendor's slot of this very signature; handles translated above.\n"
                        f"        r = unsafe {{ {call} }};\n        Ok(CL_SUCCESS)\n    }});\n    r")
        elif rret == "c_void":
            body = (f"    forward(\"{field}\", || {{\n{pre_s}        let f = {slot}?;\n"
                    f"        // SAFETY: the vendor's slot of this very signature; handles translated above.\n"
                    f"        unsafe {{ {call} }};\n        Ok(CL_SUCCESS)\n    }});")
        else:
            sys.exit(f"{field}: return type {rret}")
        fns.append(f"unsafe extern \"C\" fn {field}({sig}){rsuffix} {{\n{body}\n}}\n")
    out.append("/// The table every forwarding wrapper points to.")
    out.append("pub static FORWARD: IcdDispatch = IcdDispatch {")
    out += table
    out.append("};\n")
    out.append("/// Slots this generator could not translate (they return CL_INVALID_OPERATION).")
    out.append("pub const UNTRANSLATED: &[&str] = &[" + ", ".join(f'"{f}"' for f, _ in untranslated) + "];\n")
    out += fns
    ok = genutil.emit(OUT, "\n".join(out), check)
    print(f"{len(g.fields)} slots: {len(hand)} by hand, {len(untranslated)} untranslated "
          f"({', '.join(f for f, _ in untranslated)})", file=sys.stderr if check else sys.stdout)
    return ok


if __name__ == "__main__":
    check = genutil.check_flag()
    self_test()
    sys.exit(0 if gen(check) else 1)
