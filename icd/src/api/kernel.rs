//! The kernel entry points: creation, arguments, queries and launches.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::api::entry::{call, call_ptr};
use crate::api::event::wait_list;
use crate::api::info::{cstr, out, slice, v, write_info};
use crate::api::platform::check_device;
use crate::api::queue::enqueue;
use crate::consts::*;
use crate::core::context::Context;
use crate::core::event::Event;
use crate::core::kernel::{
    get_kernel, launch_work, local_mem_size, make_kernel, max_wg_size, ArgSet, Kernel, Range,
};
use crate::core::mem::{get_mem, Mem};
use crate::core::object::{self, Ref};
use crate::core::platform::{MAX_PARAMETER_SIZE, MAX_WORK_GROUP_SIZE};
use crate::core::program::{apply_arg_meta, get_program, Program};
use crate::core::queue::{get_queue, Queue};
use crate::core::sampler::get_sampler;
use crate::types::*;
use shadowcl_interpreter::{ArgAccess, ArgAddress, KernelInfo};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

pub unsafe extern "C" fn clCreateKernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    call_ptr("clCreateKernel", errcode_ret, || {
        let p = get_program(program)?;
        let (loaded, nu, na, meta) = p.executable()?;
        // CL_INVALID_VALUE if kernel_name is NULL.
        let name = cstr(kernel_name).ok_or(CL_INVALID_VALUE)?;
        // CL_INVALID_KERNEL_NAME if kernel_name is not found in program.
        let mut info = loaded
            .kernel(&name)
            .cloned()
            .ok_or(CL_INVALID_KERNEL_NAME)?;
        apply_arg_meta(&mut info, meta.as_deref());
        Ok(make_kernel(&p, info, loaded, (nu, na)))
    })
}

pub unsafe extern "C" fn clCreateKernelsInProgram(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    call("clCreateKernelsInProgram", || {
        let p = get_program(program)?;
        let (loaded, nu, na, meta) = p.executable()?;
        let mut infos = loaded.kernels().to_vec();
        for info in &mut infos {
            apply_arg_meta(info, meta.as_deref());
        }
        // CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number
        // of kernels in program.
        if !kernels.is_null() && (num_kernels as usize) < infos.len() {
            return Err(CL_INVALID_VALUE);
        }
        if !kernels.is_null() {
            for (i, info) in infos.iter().enumerate() {
                let k = make_kernel(&p, info.clone(), loaded.clone(), (nu, na));
                // SAFETY: `kernels` has num_kernels >= infos.len() entries (checked above).
                unsafe { kernels.add(i).write(k) };
            }
        }
        out(num_kernels_ret, infos.len() as cl_uint);
        Ok(())
    })
}

pub unsafe extern "C" fn clCloneKernel(
    source_kernel: cl_kernel,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    call_ptr("clCloneKernel", errcode_ret, || {
        let k = get_kernel(source_kernel)?;
        let h = make_kernel(
            &k.program,
            k.info.clone(),
            k.loaded.clone(),
            (k.non_uniform, k.no_arg_info),
        );
        let n = get_kernel(h)?;
        *n.args.lock() = k.args.lock().clone();
        Ok(h)
    })
}

pub unsafe extern "C" fn clRetainKernel(k: cl_kernel) -> cl_int {
    call("clRetainKernel", || object::retain::<Kernel, _>(k))
}

pub unsafe extern "C" fn clReleaseKernel(k: cl_kernel) -> cl_int {
    call("clReleaseKernel", || object::release::<Kernel, _>(k))
}

/// Checks one `clSetKernelArg` against the kernel's signature.
pub fn check_arg(
    info: &KernelInfo,
    index: cl_uint,
    size: usize,
    value: *const c_void,
) -> Result<ArgSet, cl_int> {
    // CL_INVALID_ARG_INDEX if arg_index is not a valid argument index.
    let arg = info.args.get(index as usize).ok_or(CL_INVALID_ARG_INDEX)?;
    let handle_size = std::mem::size_of::<cl_mem>();
    if arg.is_sampler {
        // CL_INVALID_ARG_SIZE if the argument is a sampler and arg_size !=
        // sizeof(cl_sampler).
        if size != handle_size {
            return Err(CL_INVALID_ARG_SIZE);
        }
        // CL_INVALID_SAMPLER for an argument declared to be of type sampler_t when the
        // specified arg_value is not a valid sampler object.
        if value.is_null() {
            return Err(CL_INVALID_SAMPLER);
        }
        // SAFETY: value points to arg_size == sizeof(cl_sampler) bytes (checked).
        let h = unsafe { value.cast::<cl_sampler>().read_unaligned() };
        return Ok(ArgSet::Sampler(get_sampler(h)?.bits()));
    }
    let is_image = arg.access != ArgAccess::None;
    match arg.address {
        ArgAddress::Global | ArgAddress::Constant => {
            // CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size !=
            // sizeof(cl_mem).
            if size != handle_size {
                return Err(CL_INVALID_ARG_SIZE);
            }
            // SAFETY: value points to arg_size == sizeof(cl_mem) bytes (checked).
            let h = (!value.is_null()).then(|| unsafe { value.cast::<cl_mem>().read_unaligned() });
            let Some(h) = h.filter(|h| !h.is_null()) else {
                // Only buffer arguments may be NULL.
                return if is_image {
                    Err(CL_INVALID_MEM_OBJECT)
                } else {
                    Ok(ArgSet::Mem(None))
                };
            };
            // CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
            // specified arg_value is not a valid memory object.
            let m = get_mem(h).map_err(|_| CL_INVALID_MEM_OBJECT)?;
            if is_image {
                image_arg(&m, arg.access)?;
            } else if m.image.is_some() {
                return Err(CL_INVALID_MEM_OBJECT);
            }
            Ok(ArgSet::Mem(Some(Arc::downgrade(&m))))
        }
        ArgAddress::Local => {
            // CL_INVALID_ARG_VALUE if arg_value is not NULL for an argument declared with the
            // local qualifier.
            if !value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            // CL_INVALID_ARG_SIZE if arg_size is zero and the argument is declared with the
            // local qualifier.
            if size == 0 {
                return Err(CL_INVALID_ARG_SIZE);
            }
            Ok(ArgSet::Local(size as u64))
        }
        ArgAddress::Private => {
            // CL_INVALID_ARG_VALUE if arg_value specified is not a valid value (NULL for an
            // argument not declared with the local qualifier).
            if value.is_null() {
                return Err(CL_INVALID_ARG_VALUE);
            }
            // CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for
            // an argument that is not a memory object.
            if size != arg.size || size > MAX_PARAMETER_SIZE {
                return Err(CL_INVALID_ARG_SIZE);
            }
            Ok(ArgSet::Bytes(
                slice(value.cast::<u8>(), size, CL_INVALID_ARG_VALUE)?.to_vec(),
            ))
        }
    }
}

/// Checks a memory object given for an image argument against the kernel's access qualifier.
fn image_arg(m: &Ref<Mem>, access: ArgAccess) -> Result<(), cl_int> {
    // A buffer where an image is declared: not a memory object of the right kind.
    if m.image.is_none() {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    let a = m.flags & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY);
    // CL_INVALID_ARG_VALUE if the argument is an image declared with the read_only qualifier
    // and arg_value refers to an image object created with CL_MEM_WRITE_ONLY, or declared
    // with the write_only qualifier and created with CL_MEM_READ_ONLY.
    match access {
        ArgAccess::ReadOnly if a == CL_MEM_WRITE_ONLY => Err(CL_INVALID_ARG_VALUE),
        ArgAccess::WriteOnly if a == CL_MEM_READ_ONLY => Err(CL_INVALID_ARG_VALUE),
        _ => Ok(()),
    }
}

pub unsafe extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    call("clSetKernelArg", || {
        let k = get_kernel(kernel)?;
        let a = check_arg(&k.info, arg_index, arg_size, arg_value)?;
        if let Some(slot) = k.args.lock().get_mut(arg_index as usize) {
            *slot = Some(a);
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clGetKernelInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelInfo", || {
        let k = get_kernel(kernel)?;
        let answer = match param_name {
            CL_KERNEL_FUNCTION_NAME => v(&k.info.name),
            CL_KERNEL_NUM_ARGS => v(&(k.info.args.len() as cl_uint)),
            CL_KERNEL_REFERENCE_COUNT => v(&object::ref_count(&k)),
            CL_KERNEL_CONTEXT => v(&object::handle::<Context>(&k.program.context)),
            CL_KERNEL_PROGRAM => v(&object::handle::<Program>(&k.program)),
            CL_KERNEL_ATTRIBUTES => v(&k.info.attributes),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

pub unsafe extern "C" fn clGetKernelArgInfo(
    kernel: cl_kernel,
    arg_index: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelArgInfo", || {
        let k = get_kernel(kernel)?;
        let a = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        let answer = match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => v(&match a.address {
                ArgAddress::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                ArgAddress::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                ArgAddress::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                ArgAddress::Private => CL_KERNEL_ARG_ADDRESS_PRIVATE,
            }),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => v(&match a.access {
                ArgAccess::ReadOnly => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                ArgAccess::WriteOnly => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                ArgAccess::ReadWrite => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                ArgAccess::None => CL_KERNEL_ARG_ACCESS_NONE,
            }),
            CL_KERNEL_ARG_TYPE_NAME | CL_KERNEL_ARG_TYPE_QUALIFIER | CL_KERNEL_ARG_NAME
                if k.no_arg_info =>
            {
                Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
            }
            CL_KERNEL_ARG_TYPE_NAME if a.type_name.is_empty() => {
                Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
            }
            CL_KERNEL_ARG_TYPE_NAME => v(&a.type_name),
            CL_KERNEL_ARG_TYPE_QUALIFIER => v(&a.type_qualifier),
            CL_KERNEL_ARG_NAME if a.name.is_empty() => Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
            CL_KERNEL_ARG_NAME => v(&*a.name),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelWorkGroupInfo", || {
        let k = get_kernel(kernel)?;
        if !device.is_null() {
            check_device(device)?;
        }
        let r = k.info.reqd_work_group_size;
        let answer = match param_name {
            CL_KERNEL_WORK_GROUP_SIZE => v(&max_wg_size(&k)),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => v(&[r[0] as usize, r[1] as usize, r[2] as usize]),
            CL_KERNEL_LOCAL_MEM_SIZE => v(&local_mem_size(&k)),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => v(&1usize),
            CL_KERNEL_PRIVATE_MEM_SIZE => v(&k.info.private_mem_size),
            CL_KERNEL_GLOBAL_WORK_SIZE => Err(CL_INVALID_VALUE),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// Largest divisor of `n` that is at most `limit`.
fn largest_divisor(n: u64, limit: u64) -> u64 {
    (1..=limit.min(n).max(1))
        .rev()
        .find(|d| n.is_multiple_of(*d))
        .unwrap_or(1)
}

/// Validates the geometry of `clEnqueueNDRangeKernel` and picks a local size when none is
/// given.
pub fn check_range(
    work_dim: cl_uint,
    offset: Option<&[usize]>,
    global: Option<&[usize]>,
    local: Option<&[usize]>,
    reqd: [u64; 3],
    non_uniform: bool,
) -> Result<Range, cl_int> {
    if !(1..=3).contains(&work_dim) {
        return Err(CL_INVALID_WORK_DIMENSION);
    }
    let d = work_dim as usize;
    // OpenCL 2.1 on (the device reports 3.0): a NULL global size, or a zero in any of its
    // dimensions, is a launch of no work-item that completes once its wait list has.
    let zeros = [0usize; 3];
    let global = global.unwrap_or(&zeros);
    let mut r = Range {
        offset: [0; 3],
        global: [1; 3],
        local: [1; 3],
    };
    for i in 0..d {
        r.global[i] = global[i] as u64;
        if let Some(o) = offset {
            r.offset[i] = o[i] as u64;
            if global[i].checked_add(o[i]).is_none() {
                return Err(CL_INVALID_GLOBAL_OFFSET);
            }
        }
    }
    let has_reqd = reqd.iter().any(|&x| x != 0);
    match local {
        Some(l) => {
            for (dst, &li) in r.local.iter_mut().zip(&l[..d]) {
                *dst = li as u64;
                if li == 0 {
                    return Err(CL_INVALID_WORK_GROUP_SIZE);
                }
                if li > MAX_WORK_GROUP_SIZE {
                    return Err(CL_INVALID_WORK_ITEM_SIZE);
                }
            }
            if r.local.iter().product::<u64>() > MAX_WORK_GROUP_SIZE as u64 {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
            if has_reqd && (0..3).any(|i| reqd[i].max(1) != r.local[i]) {
                return Err(CL_INVALID_WORK_GROUP_SIZE);
            }
        }
        None if has_reqd => {
            for (i, l) in r.local.iter_mut().enumerate() {
                *l = reqd[i].max(1);
            }
        }
        None => {
            r.local[0] = largest_divisor(r.global[0], 64);
        }
    }
    if !non_uniform && (0..d).any(|i| !r.global[i].is_multiple_of(r.local[i])) {
        return Err(CL_INVALID_WORK_GROUP_SIZE);
    }
    Ok(r)
}

/// A queue and a kernel whose program belongs to the queue's context.
fn queue_and_kernel(
    q: cl_command_queue,
    kernel: cl_kernel,
) -> Result<(Ref<Queue>, Ref<Kernel>), cl_int> {
    let q = get_queue(q)?;
    let k = get_kernel(kernel)?;
    if !Arc::ptr_eq(&q.context, &k.program.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok((q, k))
}

pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    q: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueNDRangeKernel", || {
        let (q, k) = queue_and_kernel(q, kernel)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if k.args.lock().iter().any(Option::is_none) {
            return Err(CL_INVALID_KERNEL_ARGS);
        }
        let d = work_dim as usize;
        let opt = |p: *const usize| -> Result<Option<&[usize]>, cl_int> {
            if p.is_null() || !(1..=3).contains(&d) {
                Ok(None)
            } else {
                slice(p, d, CL_INVALID_VALUE).map(Some)
            }
        };
        let range = check_range(
            work_dim,
            opt(global_work_offset)?,
            opt(global_work_size)?,
            opt(local_work_size)?,
            k.info.reqd_work_group_size,
            k.non_uniform,
        )?;
        let given = opt(local_work_size)?
            .map(|l| std::array::from_fn(|i| l.get(i).map_or(1, |&v| v as u64)));
        enqueue_kernel(&q, &k, work_dim, range, given, waits, event)
    })
}

pub unsafe extern "C" fn clEnqueueTask(
    q: cl_command_queue,
    kernel: cl_kernel,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueTask", || {
        let (q, k) = queue_and_kernel(q, kernel)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        let one = [1usize];
        let range = check_range(
            1,
            None,
            Some(&one),
            Some(&one),
            k.info.reqd_work_group_size,
            k.non_uniform,
        )?;
        enqueue_kernel(&q, &k, 1, range, Some([1, 1, 1]), waits, event)
    })
}

fn enqueue_kernel(
    q: &Ref<Queue>,
    k: &Ref<Kernel>,
    work_dim: cl_uint,
    range: Range,
    local_size_given: Option<[u64; 3]>,
    waits: Vec<Ref<Event>>,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let work = launch_work(q, k, work_dim, range, local_size_given)?;
    enqueue(q, CL_COMMAND_NDRANGE_KERNEL, waits, event, false, work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::context;
    use crate::api::image::{clCreateImage, desc_of};
    use crate::api::sampler::{clCreateSampler, clReleaseSampler};
    use crate::types::cl_image_format;
    use shadowcl_interpreter::KernelArg;

    fn fmt(o: u32, t: u32) -> cl_image_format {
        cl_image_format {
            image_channel_order: o,
            image_channel_data_type: t,
        }
    }

    fn arg(address: ArgAddress, size: usize) -> KernelArg {
        KernelArg {
            name: "a".into(),
            type_name: "int".into(),
            address,
            access: ArgAccess::None,
            type_qualifier: 0,
            size,
            pointee_size: 4,
            is_sampler: false,
            never_written: false,
        }
    }

    #[test]
    fn set_kernel_arg_rules() {
        let info = KernelInfo {
            name: "k".into(),
            args: vec![
                arg(ArgAddress::Global, 8),
                arg(ArgAddress::Local, 0),
                arg(ArgAddress::Private, 4),
            ],
            reqd_work_group_size: [0; 3],
            work_group_size_hint: [0; 3],
            attributes: String::new(),
            local_mem_size: 0,
            private_mem_size: 0,
        };
        let null: cl_mem = std::ptr::null_mut();
        let x = 5i32;
        let garbage = 0x1000usize as cl_mem;
        let p = |r: &cl_mem| (r as *const cl_mem).cast::<c_void>();
        assert!(matches!(
            check_arg(&info, 0, 8, p(&null)),
            Ok(ArgSet::Mem(None))
        ));
        assert!(matches!(
            check_arg(&info, 0, 8, std::ptr::null()),
            Ok(ArgSet::Mem(None))
        ));
        assert_eq!(
            check_arg(&info, 0, 4, p(&null)).err(),
            Some(CL_INVALID_ARG_SIZE)
        );
        assert_eq!(
            check_arg(&info, 0, 8, p(&garbage)).err(),
            Some(CL_INVALID_MEM_OBJECT)
        );
        assert!(matches!(
            check_arg(&info, 1, 64, std::ptr::null()),
            Ok(ArgSet::Local(64))
        ));
        assert_eq!(
            check_arg(&info, 1, 0, std::ptr::null()).err(),
            Some(CL_INVALID_ARG_SIZE)
        );
        assert_eq!(
            check_arg(&info, 1, 4, (&x as *const i32).cast()).err(),
            Some(CL_INVALID_ARG_VALUE)
        );
        assert!(
            matches!(check_arg(&info, 2, 4, (&x as *const i32).cast()), Ok(ArgSet::Bytes(b)) if b == 5i32.to_le_bytes())
        );
        assert_eq!(
            check_arg(&info, 2, 8, (&x as *const i32).cast()).err(),
            Some(CL_INVALID_ARG_SIZE)
        );
        assert_eq!(
            check_arg(&info, 2, 4, std::ptr::null()).err(),
            Some(CL_INVALID_ARG_VALUE)
        );
        assert_eq!(
            check_arg(&info, 3, 4, std::ptr::null()).err(),
            Some(CL_INVALID_ARG_INDEX)
        );
    }

    #[test]
    fn ndrange_rules() {
        let g = [100usize, 6, 1];
        assert_eq!(
            check_range(0, None, Some(&g), None, [0; 3], false),
            Err(CL_INVALID_WORK_DIMENSION)
        );
        // No global size, or a zero in it: an empty launch (OpenCL 2.1 on).
        assert_eq!(
            check_range(3, None, None, None, [0; 3], false).map(|r| r.global),
            Ok([0, 0, 0])
        );
        assert_eq!(
            check_range(2, None, Some(&[4, 0]), None, [0; 3], false).map(|r| r.global),
            Ok([4, 0, 1])
        );
        // A local size is picked: the largest divisor of 100 up to 64.
        assert_eq!(
            check_range(2, None, Some(&g), None, [0; 3], false).map(|r| r.local),
            Ok([50, 1, 1])
        );
        let l = [8usize, 2, 1];
        assert_eq!(
            check_range(2, None, Some(&g), Some(&l), [0; 3], false),
            Err(CL_INVALID_WORK_GROUP_SIZE)
        );
        assert_eq!(
            check_range(2, None, Some(&g), Some(&l), [0; 3], true).map(|r| r.local),
            Ok([8, 2, 1])
        );
        let big = [1024usize, 2, 1];
        assert_eq!(
            check_range(2, None, Some(&[1024, 2]), Some(&big), [0; 3], true),
            Err(CL_INVALID_WORK_GROUP_SIZE)
        );
        assert_eq!(
            check_range(1, None, Some(&[2048]), Some(&[2048]), [0; 3], true),
            Err(CL_INVALID_WORK_ITEM_SIZE)
        );
        // reqd_work_group_size wins and must match.
        assert_eq!(
            check_range(1, None, Some(&[64]), None, [16, 1, 1], false).map(|r| r.local),
            Ok([16, 1, 1])
        );
        assert_eq!(
            check_range(1, None, Some(&[64]), Some(&[32]), [16, 1, 1], false),
            Err(CL_INVALID_WORK_GROUP_SIZE)
        );
        assert_eq!(
            check_range(1, Some(&[usize::MAX]), Some(&[2]), None, [0; 3], false),
            Err(CL_INVALID_GLOBAL_OFFSET)
        );
    }

    /// clSetKernelArg kinds: images for image parameters (with the access qualifier
    /// respected), buffers for buffer parameters, sampler objects for samplers.
    #[test]
    fn kernel_argument_kinds() {
        let arg = |access, is_sampler| KernelArg {
            name: "a".into(),
            type_name: String::new(),
            address: if is_sampler {
                ArgAddress::Private
            } else {
                ArgAddress::Global
            },
            access,
            type_qualifier: 0,
            size: 8,
            pointee_size: 0,
            is_sampler,
            never_written: false,
        };
        let info = KernelInfo {
            name: "k".into(),
            args: vec![
                arg(ArgAccess::ReadOnly, false),
                arg(ArgAccess::None, false),
                arg(ArgAccess::None, true),
            ],
            reqd_work_group_size: [0; 3],
            work_group_size_hint: [0; 3],
            attributes: String::new(),
            local_mem_size: 0,
            private_mem_size: 0,
        };
        let mut err = 0;
        let fmt = fmt(CL_RGBA, CL_FLOAT);
        let desc = desc_of(CL_MEM_OBJECT_IMAGE2D, [2, 2, 0], [0, 0]);
        // SAFETY: valid pointers to live values throughout.
        unsafe {
            let c = context::test_context();
            let img = clCreateImage(
                c,
                CL_MEM_READ_WRITE,
                &fmt,
                &desc,
                std::ptr::null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let wo = clCreateImage(
                c,
                CL_MEM_WRITE_ONLY,
                &fmt,
                &desc,
                std::ptr::null_mut(),
                &mut err,
            );
            let buf = crate::api::buffer::clCreateBuffer(c, 0, 16, std::ptr::null_mut(), &mut err);
            let smp = clCreateSampler(c, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &mut err);
            assert_eq!(err, CL_SUCCESS);
            let p = |h: &*mut c_void| (h as *const *mut c_void).cast::<c_void>();
            let (img_h, wo_h, buf_h, smp_h) = (img.cast(), wo.cast(), buf.cast(), smp.cast());
            assert!(check_arg(&info, 0, 8, p(&img_h)).is_ok());
            assert_eq!(
                check_arg(&info, 0, 8, p(&wo_h)).err(),
                Some(CL_INVALID_ARG_VALUE)
            );
            assert_eq!(
                check_arg(&info, 0, 8, p(&buf_h)).err(),
                Some(CL_INVALID_MEM_OBJECT)
            );
            assert_eq!(
                check_arg(&info, 0, 8, std::ptr::null()).err(),
                Some(CL_INVALID_MEM_OBJECT)
            );
            assert_eq!(
                check_arg(&info, 1, 8, p(&img_h)).err(),
                Some(CL_INVALID_MEM_OBJECT)
            );
            assert!(matches!(
                check_arg(&info, 2, 8, p(&smp_h)),
                Ok(ArgSet::Sampler(0x27))
            ));
            assert_eq!(
                check_arg(&info, 2, 8, p(&img_h)).err(),
                Some(CL_INVALID_SAMPLER)
            );
            assert_eq!(
                check_arg(&info, 2, 4, p(&smp_h)).err(),
                Some(CL_INVALID_ARG_SIZE)
            );
            assert_eq!(clReleaseSampler(smp), CL_SUCCESS);
            for m in [img, wo, buf] {
                assert_eq!(crate::api::mem::clReleaseMemObject(m), CL_SUCCESS);
            }
            assert_eq!(context::clReleaseContext(c), CL_SUCCESS);
        }
    }
}
