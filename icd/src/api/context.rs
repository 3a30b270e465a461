//! The context entry points.
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use crate::api::entry::{call, call_ptr};
use crate::api::info::{properties, properties_as_passed, slice, v, write_info};
use crate::api::platform::{check_device, check_device_type, check_platform};
use crate::consts::*;
use crate::core::context::{get, Context, ContextDestructorFn, NotifyFn};
use crate::core::object;
use crate::core::platform::device_id;
use crate::core::UserPtr;
use crate::types::*;
use std::ffi::c_void;

fn parse_properties(
    props: *const cl_context_properties,
) -> Result<Vec<cl_context_properties>, cl_int> {
    let pairs = properties(props)?;
    let mut seen = Vec::new();
    for &(name, value) in &pairs {
        if seen.contains(&name) {
            return Err(CL_INVALID_PROPERTY);
        }
        seen.push(name);
        match name as cl_uint {
            CL_CONTEXT_PLATFORM => {
                if value == 0 {
                    return Err(CL_INVALID_PLATFORM);
                }
                check_platform(value as cl_platform_id)?;
            }
            // A cl_bool: any other value is invalid for this supported property.
            CL_CONTEXT_INTEROP_USER_SYNC => {
                if value != CL_FALSE as cl_context_properties
                    && value != CL_TRUE as cl_context_properties
                {
                    return Err(CL_INVALID_PROPERTY);
                }
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
    }
    Ok(properties_as_passed(props, &pairs))
}

fn create(
    props: *const cl_context_properties,
    pfn_notify: Option<NotifyFn>,
    user_data: *mut c_void,
) -> Result<cl_context, cl_int> {
    if pfn_notify.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    let properties = parse_properties(props)?;
    let ctx = Context::new(properties, pfn_notify.map(|f| (f, UserPtr(user_data))));
    Ok(object::into_handle(ctx))
}

pub unsafe extern "C" fn clCreateContext(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: Option<NotifyFn>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    call_ptr("clCreateContext", errcode_ret, || {
        if num_devices == 0 || devices.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        for &d in slice(devices, num_devices as usize, CL_INVALID_VALUE)? {
            check_device(d)?;
        }
        create(properties, pfn_notify, user_data)
    })
}

pub unsafe extern "C" fn clCreateContextFromType(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: Option<NotifyFn>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    call_ptr("clCreateContextFromType", errcode_ret, || {
        check_device_type(device_type)?;
        if device_type != CL_DEVICE_TYPE_ALL
            && device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0
        {
            // Validate the rest first, so the error order matches other platforms.
            parse_properties(properties)?;
            return Err(CL_DEVICE_NOT_FOUND);
        }
        create(properties, pfn_notify, user_data)
    })
}

pub unsafe extern "C" fn clRetainContext(context: cl_context) -> cl_int {
    call("clRetainContext", || object::retain::<Context, _>(context))
}

pub unsafe extern "C" fn clReleaseContext(context: cl_context) -> cl_int {
    call("clReleaseContext", || {
        object::release::<Context, _>(context)
    })
}

pub unsafe extern "C" fn clGetContextInfo(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetContextInfo", || {
        let c = get(context)?;
        let answer = match param_name {
            CL_CONTEXT_REFERENCE_COUNT => v(&object::ref_count(&c)),
            CL_CONTEXT_NUM_DEVICES => v(&1u32),
            CL_CONTEXT_DEVICES => v(&device_id()),
            CL_CONTEXT_PROPERTIES => v(&c.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

pub unsafe extern "C" fn clSetContextDestructorCallback(
    context: cl_context,
    pfn_notify: Option<ContextDestructorFn>,
    user_data: *mut c_void,
) -> cl_int {
    call("clSetContextDestructorCallback", || {
        let c = get(context)?;
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        c.add_destructor(f, UserPtr(user_data));
        Ok(())
    })
}

/// A context on ShadowCL's device, for the unit tests of every module.
#[cfg(test)]
pub(crate) fn test_context() -> cl_context {
    let d = device_id();
    let mut err = 0;
    // SAFETY: one live device handle, no callback, a live errcode out-pointer.
    let c = unsafe {
        clCreateContext(
            std::ptr::null(),
            1,
            &d,
            None,
            std::ptr::null_mut(),
            &mut err,
        )
    };
    assert_eq!(err, CL_SUCCESS);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::platform::platform_id;

    #[test]
    fn properties_are_validated() {
        let good = [CL_CONTEXT_PLATFORM as isize, platform_id() as isize, 0];
        assert_eq!(parse_properties(good.as_ptr()).map(|p| p.len()), Ok(3));
        let dup = [
            CL_CONTEXT_PLATFORM as isize,
            platform_id() as isize,
            CL_CONTEXT_PLATFORM as isize,
            platform_id() as isize,
            0,
        ];
        assert_eq!(parse_properties(dup.as_ptr()), Err(CL_INVALID_PROPERTY));
        let bad_platform = [CL_CONTEXT_PLATFORM as isize, 0x10, 0];
        assert_eq!(
            parse_properties(bad_platform.as_ptr()),
            Err(CL_INVALID_PLATFORM)
        );
        let unknown = [0x7777isize, 1, 0];
        assert_eq!(parse_properties(unknown.as_ptr()), Err(CL_INVALID_PROPERTY));
        // CL_CONTEXT_INTEROP_USER_SYNC takes a cl_bool.
        let sync = |v: isize| [CL_CONTEXT_INTEROP_USER_SYNC as isize, v, 0];
        assert_eq!(parse_properties(sync(1).as_ptr()).map(|p| p.len()), Ok(3));
        assert_eq!(parse_properties(sync(0).as_ptr()).map(|p| p.len()), Ok(3));
        assert_eq!(
            parse_properties(sync(-1).as_ptr()),
            Err(CL_INVALID_PROPERTY)
        );
    }

    #[test]
    fn context_handles_and_refcounts() {
        let c = test_context();
        assert!(get(c).is_ok());
        // SAFETY: c is a live context.
        unsafe {
            assert_eq!(clRetainContext(c), CL_SUCCESS);
            let mut n = 0u32;
            let r = clGetContextInfo(
                c,
                CL_CONTEXT_REFERENCE_COUNT,
                4,
                (&mut n as *mut u32).cast(),
                std::ptr::null_mut(),
            );
            assert_eq!((r, n), (CL_SUCCESS, 2));
            assert_eq!(clReleaseContext(c), CL_SUCCESS);
            assert_eq!(clReleaseContext(c), CL_SUCCESS);
            // Released: the handle is no longer one of ours.
            assert_eq!(clReleaseContext(c), CL_INVALID_CONTEXT);
            assert_eq!(clRetainContext(0x40usize as cl_context), CL_INVALID_CONTEXT);
        }
    }
}
