//! The forwarding slots written by hand (gen_forward.py uses these instead of generating):
//! platform discovery and names, extension lookup, and the kernel calls that launch records
//! need (arguments, launches, clones).
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use super::handles::*;
use super::info::fix_info;
use super::record::{self, ArgRole};
use crate::api::info::{out, write_info};
use crate::consts::*;
use crate::types::*;
use std::ffi::{c_char, c_void};

/// Prefix of the platform and device names the application sees.
pub const NAME_PREFIX: &str = "ShadowCL capture: ";

pub unsafe extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    crate::api::entry::call("clGetPlatformIDs", || {
        super::platform_ids(num_entries, platforms, num_platforms)
            .unwrap_or(Err(CL_PLATFORM_NOT_FOUND_KHR))
    })
}

/// A string answer with [`NAME_PREFIX`] in front, in the size protocol.
fn prefixed(
    kind: Kind,
    vendor: usize,
    param: cl_uint,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> Result<(), cl_int> {
    let mut b = vendor_info_bytes(kind, vendor, param)?;
    while b.last() == Some(&0) {
        b.pop();
    }
    let mut s = NAME_PREFIX.as_bytes().to_vec();
    s.extend_from_slice(&b);
    s.push(0);
    write_info(Ok(s), size, value, size_ret)
}

pub unsafe extern "C" fn clGetPlatformInfo(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    crate::api::entry::call("clGetPlatformInfo", || {
        let p = get(Kind::Platform, platform)?;
        if param_name == CL_PLATFORM_NAME {
            return prefixed(
                Kind::Platform,
                p.vendor,
                param_name,
                param_value_size,
                param_value,
                param_value_size_ret,
            );
        }
        let f = info_fn(Kind::Platform)?;
        // SAFETY: the vendor's clGetPlatformInfo with its own handle and the application's buffer.
        let r = unsafe {
            f(
                p.vendor as *mut c_void,
                param_name,
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        };
        if r == CL_SUCCESS {
            Ok(())
        } else {
            Err(r)
        }
    })
}

pub unsafe extern "C" fn clGetDeviceInfo(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    crate::api::entry::call("clGetDeviceInfo", || {
        let d = get(Kind::Device, device)?;
        if param_name == CL_DEVICE_NAME {
            return prefixed(
                Kind::Device,
                d.vendor,
                param_name,
                param_value_size,
                param_value,
                param_value_size_ret,
            );
        }
        let f = info_fn(Kind::Device)?;
        let mut n = 0usize;
        // SAFETY: the vendor's clGetDeviceInfo with its own handle and the application's buffer.
        let r = unsafe {
            f(
                d.vendor as *mut c_void,
                param_name,
                param_value_size,
                param_value,
                &mut n,
            )
        };
        if r != CL_SUCCESS {
            return Err(r);
        }
        out(param_value_size_ret, n);
        fix_info(
            "clGetDeviceInfo",
            param_name,
            param_value,
            n.min(param_value_size),
        );
        Ok(())
    })
}

fn extension(name: Option<String>) -> *mut c_void {
    match name.as_deref() {
        Some("clIcdGetPlatformIDsKHR") => {
            crate::api::platform::clIcdGetPlatformIDsKHR as *mut c_void
        }
        Some("clGetPlatformInfo") => crate::api::platform::clGetPlatformInfo as *mut c_void,
        Some("clCreateProgramWithILKHR") => {
            crate::gen::forward::FORWARD.clCreateProgramWithIL as *mut c_void
        }
        // Other extension functions would reach the vendor with our handles: not offered.
        _ => std::ptr::null_mut(),
    }
}

pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    let mut p = std::ptr::null_mut();
    crate::api::entry::call("clGetExtensionFunctionAddress", || {
        p = extension(crate::api::info::cstr(func_name));
        Ok(())
    });
    p
}

pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    let mut p = std::ptr::null_mut();
    crate::api::entry::call("clGetExtensionFunctionAddressForPlatform", || {
        get(Kind::Platform, platform)?;
        p = extension(crate::api::info::cstr(func_name));
        Ok(())
    });
    p
}

const W: usize = std::mem::size_of::<usize>();

pub unsafe extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    forward("clSetKernelArg", || {
        let k = get(Kind::Kernel, kernel)?;
        let f = vendor_slot!(clSetKernelArg)?;
        let mut mem = None;
        let vendor_h: usize;
        let mut value = arg_value;
        let mut h = 0usize;
        if arg_size == W && !arg_value.is_null() {
            // SAFETY: arg_value points to arg_size bytes (spec); unaligned: any host memory.
            h = unsafe { arg_value.cast::<usize>().read_unaligned() };
        }
        let role = record::arg_role(&k, arg_index);
        if h != 0 {
            let w = lookup(h);
            let kind = w.as_ref().map(|w| (w.kind, w.mem_type));
            // A buffer argument takes a buffer, an image argument an image, a sampler argument
            // a sampler (mem_type 0: not known). A handle that is not ours for any of them
            // must not reach the vendor.
            let fits = match role {
                ArgRole::Buffer => matches!(kind, Some((Kind::Mem, 0 | CL_MEM_OBJECT_BUFFER))),
                ArgRole::Image => {
                    matches!(kind, Some((Kind::Mem, t)) if t != CL_MEM_OBJECT_BUFFER)
                }
                ArgRole::Sampler => matches!(kind, Some((Kind::Sampler, _))),
                ArgRole::Other => true,
            };
            match w {
                _ if !fits && role == ArgRole::Sampler => return Err(CL_INVALID_SAMPLER),
                _ if !fits => return Err(CL_INVALID_MEM_OBJECT),
                Some(w) if matches!(w.kind, Kind::Mem | Kind::Sampler) => {
                    vendor_h = w.vendor;
                    value = (&vendor_h as *const usize).cast();
                    mem = Some(w);
                }
                _ => {}
            }
        }
        // SAFETY: the vendor's slot; a buffer argument now holds the vendor's handle.
        let r = unsafe { f(k.vendor as cl_kernel, arg_index, arg_size, value) };
        if r == CL_SUCCESS && record::recorder().is_some() {
            let v = match mem {
                Some(w) => ArgVal::Mem(w),
                None if arg_value.is_null() => ArgVal::NullValue(arg_size),
                None => {
                    // SAFETY: arg_value points to arg_size bytes (spec).
                    ArgVal::Bytes(
                        unsafe { std::slice::from_raw_parts(arg_value.cast::<u8>(), arg_size) }
                            .to_vec(),
                    )
                }
            };
            let mut args = k.args.lock();
            let i = arg_index as usize;
            if args.len() <= i {
                args.resize(i + 1, None);
            }
            args[i] = Some(v);
        }
        Ok(r)
    })
}

pub unsafe extern "C" fn clCloneKernel(
    source_kernel: cl_kernel,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    crate::api::entry::call_ptr("clCloneKernel", errcode_ret, || {
        let k = get(Kind::Kernel, source_kernel)?;
        let f = vendor_slot!(clCloneKernel)?;
        let mut e = CL_SUCCESS;
        // SAFETY: the vendor's slot with its own kernel.
        let r = unsafe { f(k.vendor as cl_kernel, &mut e) };
        if r.is_null() {
            return Err(if e == CL_SUCCESS {
                CL_OUT_OF_HOST_MEMORY
            } else {
                e
            });
        }
        let h = wrap_new(Kind::Kernel, r, true);
        // A clone has the source kernel's arguments.
        if let Ok(c) = get(Kind::Kernel, h) {
            *c.args.lock() = k.args.lock().clone();
        }
        Ok(h)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    forward("clEnqueueNDRangeKernel", || {
        let q = un(Kind::Queue, command_queue)?;
        let k = get(Kind::Kernel, kernel)?;
        let f = vendor_slot!(clEnqueueNDRangeKernel)?;
        let wait = un_list(
            Kind::Event,
            CL_INVALID_EVENT_WAIT_LIST,
            num_events_in_wait_list,
            event_wait_list,
        )?;
        let wait_ptr = list_ptr(&wait, event_wait_list);
        // Required by the specification; some vendors run a launch without global size.
        if global_work_size.is_null() && (1..=3).contains(&work_dim) {
            return Err(CL_INVALID_GLOBAL_WORK_SIZE);
        }
        if !global_work_offset.is_null() && (1..=3).contains(&work_dim) {
            for d in 0..work_dim as usize {
                // SAFETY: the application passes work_dim offsets and sizes (spec).
                let (o, g) = unsafe {
                    (
                        global_work_offset.add(d).read(),
                        global_work_size.add(d).read(),
                    )
                };
                if o.checked_add(g).is_none() {
                    return Err(CL_INVALID_GLOBAL_OFFSET);
                }
            }
        }
        let launch = match record::recorder() {
            Some(rec) if !q.is_null() => record::Launch::gather(
                rec,
                &k,
                q as usize,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
                &wait,
            ),
            _ => None,
        };
        // The kernel waits for the reads of its inputs, too.
        let extra = launch
            .as_ref()
            .map(|l| l.input_events())
            .unwrap_or_default();
        let mut all = Vec::new();
        let (num_wait, wait_ptr) = if extra.is_empty() {
            (num_events_in_wait_list, wait_ptr)
        } else {
            all.extend_from_slice(&wait);
            all.extend(extra);
            (all.len() as cl_uint, all.as_ptr())
        };
        // Outputs are read after the kernel: that needs its event even if the application
        // did not ask for one.
        let want_outputs = launch.as_ref().is_some_and(|l| l.wants_outputs());
        let mut own_event: cl_event = std::ptr::null_mut();
        let ev_ptr = if event.is_null() && want_outputs {
            &mut own_event as *mut cl_event
        } else {
            event
        };
        // SAFETY: the vendor's slot; handles and the wait list translated above.
        let r = unsafe {
            f(
                q,
                k.vendor as cl_kernel,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
                num_wait,
                wait_ptr,
                ev_ptr,
            )
        };
        if r == CL_SUCCESS {
            let kernel_event = if ev_ptr.is_null() {
                std::ptr::null_mut()
            } else {
                // SAFETY: the vendor wrote the launch's event.
                unsafe { ev_ptr.read() }
            };
            if let Some(l) = launch {
                l.finish(kernel_event, !own_event.is_null());
            }
            wrap_out(Kind::Event, event, true);
        } else if let Some(l) = launch {
            l.abandon();
        }
        Ok(r)
    })
}

/// The specification defines a task as a launch of one work-item in one work-group: forwarded
/// (and recorded) as that launch.
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one = [1usize];
    // SAFETY: the application's arguments, passed on; `one` outlives the call.
    unsafe {
        clEnqueueNDRangeKernel(
            command_queue,
            kernel,
            1,
            std::ptr::null(),
            one.as_ptr(),
            one.as_ptr(),
            num_events_in_wait_list,
            event_wait_list,
            event,
        )
    }
}

/// `CL_MAP_WRITE_INVALIDATE_REGION` excludes reading and writing (spec: CL_INVALID_VALUE).
pub(crate) fn check_map_flags(flags: cl_map_flags) -> Result<(), cl_int> {
    if flags & CL_MAP_WRITE_INVALIDATE_REGION != 0 && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Asked of the vendor on every build so launch records get argument names and address
/// qualifiers (and `clSetKernelArg` can refuse non-buffers for buffer arguments); records
/// leave it out of the build options again.
pub const ARG_INFO_OPTION: &str = " -cl-kernel-arg-info";

fn with_arg_info(options: *const c_char) -> std::ffi::CString {
    let mut o = crate::api::info::cstr(options).unwrap_or_default();
    if !o.contains("-cl-kernel-arg-info") {
        o.push_str(ARG_INFO_OPTION);
    }
    // A C string read up to its NUL has no NUL inside.
    std::ffi::CString::new(o).unwrap_or_default()
}

pub unsafe extern "C" fn clBuildProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: super::tramp::ProgramCb,
    user_data: *mut c_void,
) -> cl_int {
    forward("clBuildProgram", || {
        let program = un(Kind::Program, program)?;
        let devs = un_list(Kind::Device, CL_INVALID_DEVICE, num_devices, device_list)?;
        let f = vendor_slot!(clBuildProgram)?;
        let opts = with_arg_info(options);
        let given = pfn_notify.is_some();
        let (cb, ud) = super::tramp::program_cb(pfn_notify, user_data);
        // SAFETY: the vendor's slot; handles translated above.
        let r = unsafe {
            f(
                program,
                num_devices,
                list_ptr(&devs, device_list),
                opts.as_ptr(),
                cb,
                ud,
            )
        };
        if r != CL_SUCCESS {
            super::tramp::discard(given, ud);
        }
        Ok(r)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn clCompileProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: super::tramp::ProgramCb,
    user_data: *mut c_void,
) -> cl_int {
    forward("clCompileProgram", || {
        let wrapper = get(Kind::Program, program);
        let program = un(Kind::Program, program)?;
        let devs = un_list(Kind::Device, CL_INVALID_DEVICE, num_devices, device_list)?;
        let f = vendor_slot!(clCompileProgram)?;
        let headers = un_list(
            Kind::Program,
            CL_INVALID_PROGRAM,
            num_input_headers,
            input_headers,
        )?;
        let opts = with_arg_info(options);
        let given = pfn_notify.is_some();
        let (cb, ud) = super::tramp::program_cb(pfn_notify, user_data);
        // SAFETY: the vendor's slot; handles translated above.
        let r = unsafe {
            f(
                program,
                num_devices,
                list_ptr(&devs, device_list),
                opts.as_ptr(),
                num_input_headers,
                list_ptr(&headers, input_headers),
                header_include_names,
                cb,
                ud,
            )
        };
        if r != CL_SUCCESS {
            super::tramp::discard(given, ud);
        } else if let (Ok(w), true) = (wrapper, record::recorder().is_some()) {
            let names = (0..headers.len()).map(|i| {
                // SAFETY: the application's array of num_input_headers include names, which
                // the vendor just accepted.
                let name = unsafe { header_include_names.add(i).read() };
                crate::api::info::cstr(name).unwrap_or_default()
            });
            let headers: Vec<(String, usize)> =
                names.zip(headers.iter().map(|&h| h as usize)).collect();
            let options = crate::api::info::cstr(options).unwrap_or_default();
            record::compiled(&w, &options, &headers);
        }
        Ok(r)
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
    forward("clGetProgramBuildInfo", || {
        let program = un(Kind::Program, program)?;
        let device = un(Kind::Device, device)?;
        let f = vendor_slot!(clGetProgramBuildInfo)?;
        if param_name != CL_PROGRAM_BUILD_OPTIONS {
            // SAFETY: the vendor's slot; handles translated above.
            return Ok(unsafe {
                f(
                    program,
                    device,
                    param_name,
                    param_value_size,
                    param_value,
                    param_value_size_ret,
                )
            });
        }
        // The options as the application gave them, without the one forwarding adds.
        let mut n = 0usize;
        // SAFETY: size query.
        let r = unsafe { f(program, device, param_name, 0, std::ptr::null_mut(), &mut n) };
        if r != CL_SUCCESS {
            return Ok(r);
        }
        let mut b = vec![0u8; n];
        // SAFETY: b has the n bytes asked for.
        let r = unsafe {
            f(
                program,
                device,
                param_name,
                n,
                b.as_mut_ptr().cast(),
                std::ptr::null_mut(),
            )
        };
        if r != CL_SUCCESS {
            return Ok(r);
        }
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        let s = String::from_utf8_lossy(&b[..end]).replace(ARG_INFO_OPTION, "");
        let mut v = s.into_bytes();
        v.push(0);
        write_info(Ok(v), param_value_size, param_value, param_value_size_ret)?;
        Ok(CL_SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::forward::FORWARD;

    /// Garbage and wrong-type handles are refused by the generated and the hand-written slots
    /// before anything reaches a vendor (none is loaded here).
    #[test]
    fn forwarding_slots_refuse_handles_that_are_not_wrappers() {
        let garbage = 0xdead_b000usize;
        let ctx = wrap_new(Kind::Context, 0x5000_0010usize as cl_context, true);
        let mut err = 0;
        // SAFETY: every slot validates its handles before using any pointer argument.
        unsafe {
            assert_eq!(
                (FORWARD.clRetainContext)(garbage as cl_context),
                CL_INVALID_CONTEXT
            );
            assert_eq!((FORWARD.clFinish)(ctx.cast()), CL_INVALID_COMMAND_QUEUE);
            assert_eq!(
                (FORWARD.clReleaseMemObject)(ctx.cast()),
                CL_INVALID_MEM_OBJECT
            );
            let m = (FORWARD.clCreateBuffer)(
                garbage as cl_context,
                0,
                4,
                std::ptr::null_mut(),
                &mut err,
            );
            assert!(m.is_null());
            assert_eq!(err, CL_INVALID_CONTEXT);
            let bad_wait = [garbage as cl_event];
            assert_eq!(
                (FORWARD.clEnqueueMarkerWithWaitList)(
                    std::ptr::null_mut(),
                    1,
                    bad_wait.as_ptr(),
                    std::ptr::null_mut()
                ),
                CL_INVALID_EVENT_WAIT_LIST
            );
            assert_eq!(
                (FORWARD.clWaitForEvents)(1, bad_wait.as_ptr()),
                CL_INVALID_EVENT
            );
            assert_eq!(
                (FORWARD.clSetKernelArg)(ctx.cast(), 0, 0, std::ptr::null()),
                CL_INVALID_KERNEL
            );
            assert_eq!(
                (FORWARD.clGetDeviceInfo)(
                    garbage as cl_device_id,
                    CL_DEVICE_NAME,
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                CL_INVALID_DEVICE
            );
            // A valid handle but no vendor slot to call: CL_INVALID_OPERATION, no crash.
            assert_eq!((FORWARD.clRetainContext)(ctx), CL_INVALID_OPERATION);
        }
    }

    #[test]
    fn map_flag_conflicts_and_arg_info_option() {
        assert_eq!(
            check_map_flags(CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(check_map_flags(CL_MAP_WRITE_INVALIDATE_REGION), Ok(()));
        assert_eq!(
            with_arg_info(c"-DX=1".as_ptr()).to_str(),
            Ok("-DX=1 -cl-kernel-arg-info")
        );
        assert_eq!(
            with_arg_info(std::ptr::null()).to_str(),
            Ok(" -cl-kernel-arg-info")
        );
        assert_eq!(
            with_arg_info(c"-cl-kernel-arg-info".as_ptr()).to_str(),
            Ok("-cl-kernel-arg-info")
        );
    }
}
