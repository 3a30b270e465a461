//! The platform and device entry points: discovery, queries, timers and extension functions.
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use crate::api::entry::call;
use crate::api::info::{cstr, name_version, out, v, write_info};
use crate::consts::*;
use crate::core::image;
use crate::core::object::is_static;
use crate::core::platform::*;
use crate::types::*;
use std::ffi::{c_char, c_void};

/// Validates a platform handle (NULL selects ShadowCL's platform, as the spec allows).
pub fn check_platform(p: cl_platform_id) -> Result<(), cl_int> {
    if p.is_null() || is_static(p, &PLATFORM) {
        Ok(())
    } else {
        Err(CL_INVALID_PLATFORM)
    }
}

pub fn check_device(d: cl_device_id) -> Result<(), cl_int> {
    if is_static(d, &DEVICE) {
        Ok(())
    } else {
        Err(CL_INVALID_DEVICE)
    }
}

/// Validates a `cl_device_type` a caller selects devices by: CL_DEVICE_TYPE_ALL or a mix
/// of the known type bits (whether ShadowCL's CPU device matches is the caller's question).
pub fn check_device_type(device_type: cl_device_type) -> Result<(), cl_int> {
    let known = CL_DEVICE_TYPE_CPU
        | CL_DEVICE_TYPE_GPU
        | CL_DEVICE_TYPE_ACCELERATOR
        | CL_DEVICE_TYPE_CUSTOM
        | CL_DEVICE_TYPE_DEFAULT;
    // No bit at all names no type: invalid, not merely a type without devices.
    if device_type == 0 || (device_type != CL_DEVICE_TYPE_ALL && device_type & !known != 0) {
        return Err(CL_INVALID_DEVICE_TYPE);
    }
    Ok(())
}

fn platform_info(param: cl_platform_info) -> Result<Vec<u8>, cl_int> {
    let ver = cl_make_version(3, 0, 0);
    match param {
        CL_PLATFORM_PROFILE => v("FULL_PROFILE"),
        CL_PLATFORM_VERSION => v("OpenCL 3.0 ShadowCL 0.1.0"),
        CL_PLATFORM_NAME => v(PLATFORM_NAME),
        CL_PLATFORM_VENDOR => v("ShadowCL"),
        CL_PLATFORM_EXTENSIONS => v(PLATFORM_EXTENSIONS),
        CL_PLATFORM_ICD_SUFFIX_KHR => v("SCL"),
        CL_PLATFORM_HOST_TIMER_RESOLUTION => v(&1u64),
        CL_PLATFORM_NUMERIC_VERSION => v(&ver),
        CL_PLATFORM_EXTENSIONS_WITH_VERSION => v(&vec![
            name_version("cl_khr_icd", cl_make_version(1, 0, 0)),
            name_version("cl_khr_il_program", cl_make_version(1, 0, 0)),
        ]),
        _ => Err(CL_INVALID_VALUE),
    }
}

fn versions(list: &[(&str, cl_version)]) -> Vec<cl_name_version> {
    list.iter().map(|(n, v)| name_version(n, *v)).collect()
}

fn device_info(param: cl_device_info) -> Result<Vec<u8>, cl_int> {
    let v10 = cl_make_version(1, 0, 0);
    let fp = CL_FP_DENORM
        | CL_FP_INF_NAN
        | CL_FP_ROUND_TO_NEAREST
        | CL_FP_ROUND_TO_ZERO
        | CL_FP_ROUND_TO_INF
        | CL_FP_FMA;
    match param {
        CL_DEVICE_TYPE => v(&CL_DEVICE_TYPE_CPU),
        CL_DEVICE_VENDOR_ID => v(&0x10006u32),
        CL_DEVICE_MAX_COMPUTE_UNITS => v(&compute_units()),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => v(&3u32),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => v(&[MAX_WORK_GROUP_SIZE; 3]),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => v(&MAX_WORK_GROUP_SIZE),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR | CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => v(&16u32),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT | CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => v(&8u32),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT | CL_DEVICE_NATIVE_VECTOR_WIDTH_INT => v(&4u32),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG | CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG => v(&2u32),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT | CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => v(&4u32),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE | CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => v(&2u32),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF | CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => v(&8u32),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => v(&1000u32),
        CL_DEVICE_ADDRESS_BITS => v(&64u32),
        CL_DEVICE_MAX_READ_IMAGE_ARGS => v(&image::MAX_READ_IMAGE_ARGS),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => v(&image::MAX_WRITE_IMAGE_ARGS),
        // read_write images are OpenCL C 2.0, which the device does not offer.
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => v(&0u32),
        CL_DEVICE_MAX_SAMPLERS => v(&image::MAX_SAMPLERS),
        // Only for 2-D images from buffers (cl_khr_image2d_from_buffer), not offered.
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT | CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => v(&0u32),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => v(&MAX_ALLOC),
        CL_DEVICE_IMAGE2D_MAX_WIDTH | CL_DEVICE_IMAGE2D_MAX_HEIGHT => v(&image::IMAGE2D_MAX),
        CL_DEVICE_IMAGE3D_MAX_WIDTH
        | CL_DEVICE_IMAGE3D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_DEPTH => v(&image::IMAGE3D_MAX),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => v(&image::IMAGE_MAX_BUFFER_SIZE),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => v(&image::IMAGE_MAX_ARRAY_SIZE),
        CL_DEVICE_IMAGE_SUPPORT => v(&CL_TRUE),
        CL_DEVICE_MAX_PARAMETER_SIZE => v(&MAX_PARAMETER_SIZE),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => v(&MEM_BASE_ADDR_ALIGN_BITS),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => v(&128u32),
        CL_DEVICE_SINGLE_FP_CONFIG => v(&(fp | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)),
        CL_DEVICE_DOUBLE_FP_CONFIG => v(&fp),
        // half arithmetic is computed in f32/f64 and rounded once to f16 (denormals kept).
        CL_DEVICE_HALF_FP_CONFIG => v(&fp),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => v(&CL_READ_WRITE_CACHE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => v(&64u32),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => v(&(1u64 << 20)),
        CL_DEVICE_GLOBAL_MEM_SIZE => v(&GLOBAL_MEM_SIZE),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => v(&MAX_CONSTANT_BUFFER),
        CL_DEVICE_MAX_CONSTANT_ARGS => v(&8u32),
        CL_DEVICE_LOCAL_MEM_TYPE => v(&CL_LOCAL),
        CL_DEVICE_LOCAL_MEM_SIZE => v(&LOCAL_MEM_SIZE),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => v(&CL_FALSE),
        CL_DEVICE_HOST_UNIFIED_MEMORY => v(&CL_TRUE),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => v(&1usize),
        CL_DEVICE_ENDIAN_LITTLE => v(&CL_TRUE),
        CL_DEVICE_AVAILABLE | CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
            v(&CL_TRUE)
        }
        CL_DEVICE_EXECUTION_CAPABILITIES => v(&CL_EXEC_KERNEL),
        CL_DEVICE_QUEUE_PROPERTIES => {
            v(&(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE))
        }
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => v(&0u64),
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE
        | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE
        | CL_DEVICE_MAX_ON_DEVICE_QUEUES
        | CL_DEVICE_MAX_ON_DEVICE_EVENTS
        | CL_DEVICE_MAX_PIPE_ARGS
        | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
        | CL_DEVICE_PIPE_MAX_PACKET_SIZE
        | CL_DEVICE_MAX_NUM_SUB_GROUPS => v(&0u32),
        CL_DEVICE_NAME => v("ShadowCL CPU (shadow-memory interpreter)"),
        CL_DEVICE_VENDOR => v("ShadowCL"),
        CL_DRIVER_VERSION => v("0.1.0"),
        CL_DEVICE_PROFILE => v("FULL_PROFILE"),
        CL_DEVICE_VERSION => v("OpenCL 3.0 ShadowCL"),
        CL_DEVICE_OPENCL_C_VERSION => v("OpenCL C 1.2 ShadowCL"),
        CL_DEVICE_EXTENSIONS => v(&DEVICE_EXTENSIONS.join(" ")),
        CL_DEVICE_PLATFORM => v(&platform_id()),
        CL_DEVICE_PARENT_DEVICE => v(&std::ptr::null_mut::<_cl_device_id>()),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => v(&0u32),
        CL_DEVICE_PARTITION_PROPERTIES | CL_DEVICE_PARTITION_TYPE => v(&0isize),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => v(&0u64),
        CL_DEVICE_REFERENCE_COUNT => v(&1u32),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => v(&CL_TRUE),
        CL_DEVICE_PRINTF_BUFFER_SIZE => v(&(1usize << 20)),
        CL_DEVICE_BUILT_IN_KERNELS => v(""),
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => v(&Vec::<cl_name_version>::new()),
        CL_DEVICE_IL_VERSION => v("SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2"),
        CL_DEVICE_ILS_WITH_VERSION => v(&versions(&[
            ("SPIR-V", cl_make_version(1, 0, 0)),
            ("SPIR-V", cl_make_version(1, 1, 0)),
            ("SPIR-V", cl_make_version(1, 2, 0)),
        ])),
        // Program-scope global variables are a feature the device lists: module data of up
        // to this much in all (OpenCL API 4.2: at least 64 KiB when supported).
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE | CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => {
            v(&(shadowcl_limits::LIMITS.module_data as usize))
        }
        CL_DEVICE_SVM_CAPABILITIES => v(&0u64),
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => v(&0u32),
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => v(&CL_FALSE),
        CL_DEVICE_NUMERIC_VERSION => v(&cl_make_version(3, 0, 0)),
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => v(&versions(
            &OPENCL_C_VERSIONS
                .iter()
                .map(|&(major, minor)| ("OpenCL C", cl_make_version(major, minor, 0)))
                .collect::<Vec<_>>(),
        )),
        CL_DEVICE_OPENCL_C_FEATURES => v(&OPENCL_C_FEATURES
            .iter()
            .map(|f| name_version(f, cl_make_version(3, 0, 0)))
            .collect::<Vec<_>>()),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => v(&DEVICE_EXTENSIONS
            .iter()
            .map(|e| name_version(e, v10))
            .collect::<Vec<_>>()),
        // Every order and every scope but all_svm_devices (no SVM), as the OpenCL C
        // features above: atomics run sequentially consistent, and the race check follows
        // release/acquire at each scope (OpenCL API 3.3.6).
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES | CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => {
            v(&(CL_DEVICE_ATOMIC_ORDER_RELAXED
                | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
                | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
                | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM
                | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
                | CL_DEVICE_ATOMIC_SCOPE_DEVICE))
        }
        // Work-group functions, as `__opencl_c_work_group_collective_functions` says.
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT
        | CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT
        | CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => v(&CL_TRUE),
        CL_DEVICE_PIPE_SUPPORT => v(&CL_FALSE),
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => v(&0u64),
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => v(&1usize),
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => v("v0000-01-01-00"),
        _ => Err(CL_INVALID_VALUE),
    }
}

/// Exported: the ICD loader's entry (`cl_khr_icd`).
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    call("clIcdGetPlatformIDsKHR", || {
        get_platform_ids(num_entries, platforms, num_platforms)
    })
}

fn get_platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> Result<(), cl_int> {
    // SHADOWCL_FORWARD: the vendor's platforms, wrapped, instead of ours.
    if let Some(r) = crate::forward::platform_ids(num_entries, platforms, num_platforms) {
        return r;
    }
    if (num_entries == 0 && !platforms.is_null())
        || (platforms.is_null() && num_platforms.is_null())
    {
        return Err(CL_INVALID_VALUE);
    }
    out(platforms, platform_id());
    out(num_platforms, 1);
    Ok(())
}

pub unsafe extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    call("clGetPlatformIDs", || {
        get_platform_ids(num_entries, platforms, num_platforms)
    })
}

/// Exported (the loader asks every platform for its name and suffix before dispatching).
#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    if crate::forward::is_forwarded(platform) {
        // SAFETY: forwarding's own clGetPlatformInfo, with the application's arguments.
        return unsafe {
            crate::forward::special::clGetPlatformInfo(
                platform,
                param_name,
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        };
    }
    call("clGetPlatformInfo", || {
        check_platform(platform)?;
        write_info(
            platform_info(param_name),
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}

pub unsafe extern "C" fn clGetDeviceIDs(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    call("clGetDeviceIDs", || {
        check_platform(platform)?;
        check_device_type(device_type)?;
        if (num_entries == 0 && !devices.is_null()) || (devices.is_null() && num_devices.is_null())
        {
            return Err(CL_INVALID_VALUE);
        }
        if device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0 {
            out(num_devices, 0);
            return Err(CL_DEVICE_NOT_FOUND);
        }
        out(devices, device_id());
        out(num_devices, 1);
        Ok(())
    })
}

pub unsafe extern "C" fn clGetDeviceInfo(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetDeviceInfo", || {
        check_device(device)?;
        write_info(
            device_info(param_name),
            param_value_size,
            param_value,
            param_value_size_ret,
        )
    })
}

pub unsafe extern "C" fn clRetainDevice(device: cl_device_id) -> cl_int {
    call("clRetainDevice", || check_device(device))
}

pub unsafe extern "C" fn clReleaseDevice(device: cl_device_id) -> cl_int {
    call("clReleaseDevice", || check_device(device))
}

pub unsafe extern "C" fn clUnloadCompiler() -> cl_int {
    CL_SUCCESS
}

pub unsafe extern "C" fn clUnloadPlatformCompiler(platform: cl_platform_id) -> cl_int {
    call("clUnloadPlatformCompiler", || check_platform(platform))
}

pub unsafe extern "C" fn clGetHostTimer(
    device: cl_device_id,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    call("clGetHostTimer", || {
        check_device(device)?;
        if host_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        out(host_timestamp, now_ns());
        Ok(())
    })
}

pub unsafe extern "C" fn clGetDeviceAndHostTimer(
    device: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    call("clGetDeviceAndHostTimer", || {
        check_device(device)?;
        if host_timestamp.is_null() || device_timestamp.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let t = now_ns();
        out(device_timestamp, t);
        out(host_timestamp, t);
        Ok(())
    })
}

fn extension_address(name: Option<String>) -> *mut c_void {
    match name.as_deref() {
        Some("clIcdGetPlatformIDsKHR") => clIcdGetPlatformIDsKHR as *mut c_void,
        Some("clGetPlatformInfo") => clGetPlatformInfo as *mut c_void,
        // cl_khr_il_program's entry point is the core clCreateProgramWithIL.
        Some("clCreateProgramWithILKHR") => {
            crate::api::program::clCreateProgramWithIL as *mut c_void
        }
        _ => std::ptr::null_mut(),
    }
}

/// Exported: the loader looks up `clIcdGetPlatformIDsKHR` through it.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    if crate::forward::setting().is_some() {
        // SAFETY: forwarding's own lookup, with the application's argument.
        return unsafe { crate::forward::special::clGetExtensionFunctionAddress(func_name) };
    }
    let mut p = std::ptr::null_mut();
    call("clGetExtensionFunctionAddress", || {
        p = extension_address(cstr(func_name));
        Ok(())
    });
    p
}

/// Exported, as `clGetExtensionFunctionAddress` for one platform.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    if crate::forward::is_forwarded(platform) {
        // SAFETY: forwarding's own lookup, with the application's arguments.
        return unsafe {
            crate::forward::special::clGetExtensionFunctionAddressForPlatform(platform, func_name)
        };
    }
    let mut p = std::ptr::null_mut();
    call("clGetExtensionFunctionAddressForPlatform", || {
        if platform.is_null() {
            return Err(CL_INVALID_PLATFORM);
        }
        check_platform(platform)?;
        p = extension_address(cstr(func_name));
        Ok(())
    });
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_and_device_handles_validate() {
        assert!(check_platform(platform_id()).is_ok());
        assert!(check_platform(std::ptr::null_mut()).is_ok());
        assert_eq!(check_device(std::ptr::null_mut()), Err(CL_INVALID_DEVICE));
        let garbage = 0x1234usize as cl_device_id;
        assert_eq!(check_device(garbage), Err(CL_INVALID_DEVICE));
        assert_eq!(check_platform(device_id().cast()), Err(CL_INVALID_PLATFORM));
        assert!(check_device(device_id()).is_ok());
    }

    #[test]
    fn device_types_validate() {
        assert_eq!(check_device_type(0), Err(CL_INVALID_DEVICE_TYPE));
        assert_eq!(check_device_type(1 << 40), Err(CL_INVALID_DEVICE_TYPE));
        assert!(check_device_type(CL_DEVICE_TYPE_ALL).is_ok());
        assert!(check_device_type(CL_DEVICE_TYPE_GPU).is_ok());
        assert!(check_device_type(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT).is_ok());
    }

    #[test]
    fn extension_functions_resolve() {
        let name = |s: &str| Some(s.to_owned());
        assert!(!extension_address(name("clIcdGetPlatformIDsKHR")).is_null());
        assert!(!extension_address(name("clCreateProgramWithILKHR")).is_null());
        assert!(extension_address(name("clNoSuchFunction")).is_null());
        assert!(extension_address(None).is_null());
    }

    #[test]
    fn extension_address_for_an_invalid_platform_is_null() {
        let name = c"clIcdGetPlatformIDsKHR";
        // SAFETY: NUL-terminated name; the platform handles are only compared, never read.
        unsafe {
            assert!(
                !clGetExtensionFunctionAddressForPlatform(platform_id(), name.as_ptr()).is_null()
            );
            assert!(
                clGetExtensionFunctionAddressForPlatform(std::ptr::null_mut(), name.as_ptr())
                    .is_null()
            );
            let garbage = 0x1234usize as cl_platform_id;
            assert!(clGetExtensionFunctionAddressForPlatform(garbage, name.as_ptr()).is_null());
            assert!(
                clGetExtensionFunctionAddressForPlatform(device_id().cast(), name.as_ptr())
                    .is_null()
            );
            assert!(clGetExtensionFunctionAddressForPlatform(
                platform_id(),
                c"invalid_name".as_ptr()
            )
            .is_null());
        }
    }

    /// cl_khr_fp16 is advertised with what the extension requires of the device: a half
    /// FP config with round-to-nearest and INF/NaN, and non-zero half vector widths.
    #[test]
    fn fp16_is_advertised_consistently() {
        let exts = text(device_info(CL_DEVICE_EXTENSIONS));
        assert!(exts.split(' ').any(|e| e == "cl_khr_fp16"), "{exts}");
        let cfg = device_info(CL_DEVICE_HALF_FP_CONFIG).unwrap_or_default();
        let cfg = u64::from_ne_bytes(cfg.try_into().unwrap_or_default());
        let need = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM;
        assert_eq!(cfg & need, need, "{cfg:#x}");
        for p in [
            CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
            CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
        ] {
            let w = device_info(p).unwrap_or_default();
            assert!(u32::from_ne_bytes(w.try_into().unwrap_or_default()) > 0);
        }
        let with_version = device_info(CL_DEVICE_EXTENSIONS_WITH_VERSION).unwrap_or_default();
        assert!(with_version.windows(11).any(|w| w == b"cl_khr_fp16"));
    }

    /// Each OpenCL C feature with a device query of its own is listed exactly when its query
    /// says it is supported (OpenCL API 4.2).
    #[test]
    fn features_and_their_device_queries_agree() {
        let features = device_info(CL_DEVICE_OPENCL_C_FEATURES).unwrap_or_default();
        let listed = |name: &str| {
            let name = name.as_bytes();
            features.windows(name.len()).any(|w| w == name)
        };
        let number = |param| {
            let b = device_info(param).unwrap_or_default();
            let mut word = [0u8; 8];
            word[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
            u64::from_ne_bytes(word)
        };
        for (feature, query) in [
            (
                "__opencl_c_work_group_collective_functions",
                CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
            ),
            (
                "__opencl_c_generic_address_space",
                CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
            ),
            ("__opencl_c_pipes", CL_DEVICE_PIPE_SUPPORT),
        ] {
            assert_eq!(
                listed(feature),
                number(query) == CL_TRUE as u64,
                "{feature}"
            );
        }
        assert!(listed("__opencl_c_program_scope_global_variables"));
        assert!(number(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) >= 64 << 10);
    }

    fn text(b: Result<Vec<u8>, cl_int>) -> String {
        let b = b.unwrap_or_default();
        assert_eq!(b.last(), Some(&0), "strings are NUL-terminated");
        String::from_utf8_lossy(&b[..b.len() - 1]).into_owned()
    }

    /// The formats the specification gives: "OpenCL<space><major.minor><space><vendor>" for
    /// the platform and device versions, "OpenCL<space>C<space><major.minor><space><vendor>"
    /// for the OpenCL C version, and the numeric versions agreeing with them.
    #[test]
    fn version_strings_follow_the_specified_format() {
        let platform = text(platform_info(CL_PLATFORM_VERSION));
        let device = text(device_info(CL_DEVICE_VERSION));
        let c = text(device_info(CL_DEVICE_OPENCL_C_VERSION));
        for (s, prefix) in [
            (&platform, "OpenCL 3.0 "),
            (&device, "OpenCL 3.0 "),
            (&c, "OpenCL C 1.2 "),
        ] {
            let vendor = s.strip_prefix(prefix).unwrap_or_default();
            assert!(
                !vendor.trim().is_empty(),
                "{s:?} has no vendor part after {prefix:?}"
            );
        }
        assert_eq!(text(platform_info(CL_PLATFORM_PROFILE)), "FULL_PROFILE");
        assert_eq!(text(device_info(CL_DEVICE_PROFILE)), "FULL_PROFILE");
        assert!(!text(device_info(CL_DRIVER_VERSION)).is_empty());
        let v300 = cl_make_version(3, 0, 0).to_ne_bytes().to_vec();
        assert_eq!(platform_info(CL_PLATFORM_NUMERIC_VERSION), Ok(v300.clone()));
        assert_eq!(device_info(CL_DEVICE_NUMERIC_VERSION), Ok(v300));
    }

    /// Sub-buffer origins must be multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bits, whose
    /// minimum for a FULL_PROFILE device that is not CL_DEVICE_TYPE_CUSTOM is the size of a
    /// long16: 1024 bits.
    #[test]
    fn base_address_alignment_is_the_long16_minimum() {
        assert_eq!(
            device_info(CL_DEVICE_MEM_BASE_ADDR_ALIGN),
            Ok(1024u32.to_ne_bytes().to_vec())
        );
        assert_eq!(
            device_info(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE),
            Ok(128u32.to_ne_bytes().to_vec())
        );
    }

    #[test]
    fn every_answer_has_the_right_shape() {
        assert_eq!(
            device_info(CL_DEVICE_MAX_WORK_ITEM_SIZES).map(|b| b.len()),
            Ok(24)
        );
        assert_eq!(device_info(CL_DEVICE_IMAGE_SUPPORT), Ok(vec![1, 0, 0, 0]));
        assert_eq!(device_info(CL_DEVICE_TYPE).map(|b| b.len()), Ok(8));
        assert_eq!(device_info(0xdead), Err(CL_INVALID_VALUE));
        assert_eq!(
            platform_info(CL_PLATFORM_ICD_SUFFIX_KHR),
            Ok(b"SCL\0".to_vec())
        );
        assert_eq!(
            device_info(CL_DEVICE_OPENCL_C_ALL_VERSIONS).map(|b| b.len()),
            Ok(4 * 68)
        );
    }
}
