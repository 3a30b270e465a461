//! The program entry points: programs from source, IL and binaries; build, compile, link and
//! their queries.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::api::entry::{call, call_ptr, set_errcode};
use crate::api::info::{cstr, out, slice, v, write_info};
use crate::api::platform::check_device;
use crate::compiler;
use crate::consts::*;
use crate::core::context::{self, Context};
use crate::core::object;
use crate::core::platform::device_id;
use crate::core::program::{
    self, build, decode_binary, encode_binary, get_program, is_spirv, Program,
};
use crate::types::*;
use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub type BuildCallback = unsafe extern "C" fn(cl_program, *mut c_void);

fn check_devices(num: cl_uint, list: *const cl_device_id) -> Result<(), cl_int> {
    // CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
    // device_list is not NULL and num_devices is zero.
    if (num == 0) != list.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    for &d in slice(list, num as usize, CL_INVALID_VALUE)? {
        check_device(d)?;
    }
    Ok(())
}

pub unsafe extern "C" fn clCreateProgramWithSource(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    call_ptr("clCreateProgramWithSource", errcode_ret, || {
        let ctx = context::get(context)?;
        // CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL.
        if count == 0 || strings.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let strs = slice(strings.cast_const(), count as usize, CL_INVALID_VALUE)?;
        let lens = if lengths.is_null() {
            None
        } else {
            Some(slice(lengths, count as usize, CL_INVALID_VALUE)?)
        };
        let mut src = String::new();
        for (i, &s) in strs.iter().enumerate() {
            if s.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            match lens.map(|l| l[i]).filter(|&l| l > 0) {
                Some(l) => {
                    let b = slice(s.cast::<u8>(), l, CL_INVALID_VALUE)?;
                    src.push_str(&String::from_utf8_lossy(b));
                }
                None => src.push_str(&cstr(s).unwrap_or_default()),
            }
        }
        let p = object::create(Program::new(ctx, Some(src), None));
        Ok(object::into_handle(p))
    })
}

pub unsafe extern "C" fn clCreateProgramWithIL(
    context: cl_context,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    call_ptr("clCreateProgramWithIL", errcode_ret, || {
        let ctx = context::get(context)?;
        // CL_INVALID_VALUE if il is NULL or if length is zero.
        if il.is_null() || length == 0 {
            return Err(CL_INVALID_VALUE);
        }
        let bytes = slice(il.cast::<u8>(), length, CL_INVALID_VALUE)?.to_vec();
        // CL_INVALID_VALUE if the length-byte memory pointed to by il does not contain
        // well-formed intermediate language input that can be consumed by the OpenCL runtime.
        if !is_spirv(&bytes) {
            return Err(CL_INVALID_VALUE);
        }
        let p = object::create(Program::new(ctx, None, Some(bytes)));
        Ok(object::into_handle(p))
    })
}

pub unsafe extern "C" fn clCreateProgramWithBinary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const u8,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    call_ptr("clCreateProgramWithBinary", errcode_ret, || {
        let ctx = context::get(context)?;
        // CL_INVALID_VALUE if device_list is NULL or num_devices is zero.
        if num_devices == 0 || device_list.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        check_devices(num_devices, device_list)?;
        let n = num_devices as usize;
        let lens = slice(lengths, n, CL_INVALID_VALUE)?;
        let bins = slice(binaries.cast_const(), n, CL_INVALID_VALUE)?;
        // CL_INVALID_VALUE if lengths or binaries is NULL or if any entry in lengths[i] is
        // zero or binaries[i] is NULL.
        if lens.contains(&0) || bins.iter().any(|b| b.is_null()) {
            return Err(CL_INVALID_VALUE);
        }
        let bytes = slice(bins[0], lens[0], CL_INVALID_VALUE)?;
        let decoded = decode_binary(bytes);
        if !binary_status.is_null() {
            // SAFETY: binary_status has num_devices entries (spec).
            let st = unsafe { std::slice::from_raw_parts_mut(binary_status, n) };
            st.fill(if decoded.is_some() {
                CL_SUCCESS
            } else {
                CL_INVALID_BINARY
            });
        }
        let p = Program::from_binary(ctx, decoded.ok_or(CL_INVALID_BINARY)?)?;
        Ok(object::into_handle(object::create(p)))
    })
}

pub unsafe extern "C" fn clRetainProgram(p: cl_program) -> cl_int {
    call("clRetainProgram", || object::retain::<Program, _>(p))
}

pub unsafe extern "C" fn clReleaseProgram(p: cl_program) -> cl_int {
    call("clReleaseProgram", || object::release::<Program, _>(p))
}

fn before_build(
    p: &Program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    pfn: Option<BuildCallback>,
    user_data: *mut c_void,
) -> Result<(), cl_int> {
    check_devices(num_devices, device_list)?;
    // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
    if pfn.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    // CL_INVALID_OPERATION if there are kernel objects attached to program.
    if p.kernels_live.load(Ordering::SeqCst) > 0 {
        return Err(CL_INVALID_OPERATION);
    }
    // CL_INVALID_OPERATION if the build of a program executable for any of the devices
    // listed in device_list by a previous call for program has not completed.
    if p.state.lock().status == CL_BUILD_IN_PROGRESS {
        return Err(CL_INVALID_OPERATION);
    }
    Ok(())
}

fn notify(program: cl_program, pfn: Option<BuildCallback>, user_data: *mut c_void) {
    if let Some(f) = pfn {
        // SAFETY: the application's build callback, with its program handle.
        unsafe { f(program, user_data) };
    }
}

pub unsafe extern "C" fn clBuildProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: Option<BuildCallback>,
    user_data: *mut c_void,
) -> cl_int {
    call("clBuildProgram", || {
        let p = get_program(program)?;
        before_build(&p, num_devices, device_list, pfn_notify, user_data)?;
        if p.source.is_none() && p.il.is_none() {
            let ty = p.state.lock().binary_type;
            if ty != CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                && ty != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
            {
                return Err(CL_INVALID_BINARY);
            }
        }
        let r = build(&p, &cstr(options).unwrap_or_default());
        notify(program, pfn_notify, user_data);
        r
    })
}

pub unsafe extern "C" fn clCompileProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: Option<BuildCallback>,
    user_data: *mut c_void,
) -> cl_int {
    call("clCompileProgram", || {
        let p = get_program(program)?;
        before_build(&p, num_devices, device_list, pfn_notify, user_data)?;
        // CL_INVALID_VALUE if num_input_headers is zero and header_include_names or
        // input_headers are not NULL, or if num_input_headers is not zero and
        // header_include_names or input_headers are NULL.
        if (num_input_headers == 0) != input_headers.is_null()
            || (num_input_headers == 0) != header_include_names.is_null()
        {
            return Err(CL_INVALID_VALUE);
        }
        let n = num_input_headers as usize;
        let mut headers = Vec::new();
        let names = slice(header_include_names.cast_const(), n, CL_INVALID_VALUE)?;
        for (i, &h) in slice(input_headers, n, CL_INVALID_VALUE)?
            .iter()
            .enumerate()
        {
            let hp = get_program(h)?;
            let name = cstr(names[i]).ok_or(CL_INVALID_VALUE)?;
            headers.push((name, hp.source.clone().unwrap_or_default()));
        }
        let options = cstr(options).unwrap_or_default();
        let r = program::compile(&p, &options, headers);
        notify(program, pfn_notify, user_data);
        r
    })
}

pub unsafe extern "C" fn clLinkProgram(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: Option<BuildCallback>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let mut code = CL_SUCCESS;
    let mut out: cl_program = std::ptr::null_mut();
    let r = call("clLinkProgram", || {
        let ctx = context::get(context)?;
        check_devices(num_devices, device_list)?;
        // CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL.
        if pfn_notify.is_none() && !user_data.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // CL_INVALID_VALUE if num_input_programs is zero and input_programs is NULL or if
        // num_input_programs is zero and input_programs is not NULL or if
        // num_input_programs is not zero and input_programs is NULL.
        if num_input_programs == 0 || input_programs.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let options = cstr(options).unwrap_or_default();
        // CL_INVALID_LINKER_OPTIONS if the linker options specified by options are invalid.
        let link_opts =
            compiler::parse_link_options(&options).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
        let mut bitcodes = Vec::new();
        let mut non_uniform = true;
        for &ip in slice(
            input_programs,
            num_input_programs as usize,
            CL_INVALID_VALUE,
        )? {
            let ip = get_program(ip)?;
            // (An input program of another context is not a program of this context's.)
            if !Arc::ptr_eq(&ip.context, &ctx) {
                return Err(CL_INVALID_CONTEXT);
            }
            let st = ip.state.lock();
            // CL_INVALID_OPERATION if the compilation or build of a program executable for
            // any of the devices listed in device_list by a previous call to
            // clCompileProgram or clBuildProgram for program has not completed.
            if st.binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                && st.binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY
            {
                return Err(CL_INVALID_OPERATION);
            }
            non_uniform &= st.non_uniform;
            bitcodes.push(st.bitcode.clone().ok_or(CL_INVALID_OPERATION)?);
        }
        let (p, res) = program::link(
            ctx,
            &bitcodes,
            non_uniform,
            &options,
            link_opts.create_library,
        );
        let h: cl_program = object::into_handle(p);
        notify(h, pfn_notify, user_data);
        out = h;
        res
    });
    code = if r == CL_SUCCESS { code } else { r };
    set_errcode(errcode_ret, code);
    // A failed link still returns the program so its log can be read (spec).
    if code == CL_SUCCESS || code == CL_LINK_PROGRAM_FAILURE {
        out
    } else {
        std::ptr::null_mut()
    }
}

pub unsafe extern "C" fn clGetProgramInfo(
    program: cl_program,
    param_name: cl_program_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetProgramInfo", || {
        let p = get_program(program)?;
        let st = p.state.lock().clone();
        let kernels = || -> Result<Vec<String>, cl_int> {
            match (&st.loaded, st.binary_type) {
                (Some(l), CL_PROGRAM_BINARY_TYPE_EXECUTABLE) => {
                    Ok(l.kernels().iter().map(|k| k.name.clone()).collect())
                }
                _ => Err(CL_INVALID_PROGRAM_EXECUTABLE),
            }
        };
        let answer = match param_name {
            CL_PROGRAM_REFERENCE_COUNT => v(&object::ref_count(&p)),
            CL_PROGRAM_CONTEXT => v(&object::handle::<Context>(&p.context)),
            CL_PROGRAM_NUM_DEVICES => v(&1u32),
            CL_PROGRAM_DEVICES => v(&device_id()),
            CL_PROGRAM_SOURCE => v(p.source.as_deref().unwrap_or("")),
            CL_PROGRAM_IL => v(p.il.as_deref().unwrap_or(&[])),
            CL_PROGRAM_BINARY_SIZES => v(&encode_binary(&st).len()),
            CL_PROGRAM_BINARIES => {
                let bin = encode_binary(&st);
                let size = std::mem::size_of::<*mut u8>();
                if !param_value.is_null() {
                    if param_value_size < size {
                        return Err(CL_INVALID_VALUE);
                    }
                    // SAFETY: param_value is an array of one (device) pointer (spec).
                    let dst = unsafe { param_value.cast::<*mut u8>().read() };
                    if !dst.is_null() {
                        // SAFETY: the application allocated CL_PROGRAM_BINARY_SIZES bytes.
                        unsafe { std::ptr::copy_nonoverlapping(bin.as_ptr(), dst, bin.len()) };
                    }
                }
                out(param_value_size_ret, size);
                return Ok(());
            }
            CL_PROGRAM_NUM_KERNELS => kernels().and_then(|k| v(&k.len())),
            CL_PROGRAM_KERNEL_NAMES => kernels().and_then(|k| v(&k.join(";"))),
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                v(&CL_FALSE)
            }
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

pub unsafe extern "C" fn clGetProgramBuildInfo(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetProgramBuildInfo", || {
        let p = get_program(program)?;
        check_device(device)?;
        let st = p.state.lock().clone();
        let answer = match param_name {
            CL_PROGRAM_BUILD_STATUS => v(&st.status),
            CL_PROGRAM_BUILD_OPTIONS => v(&st.options),
            CL_PROGRAM_BUILD_LOG => v(&st.log),
            CL_PROGRAM_BINARY_TYPE => v(&st.binary_type),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => v(&0usize),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}
