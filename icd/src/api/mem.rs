//! The entry points common to every memory object (buffers and images), and the argument
//! checks the buffer and image entry points share.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)] // entry points: see the spec

use crate::api::entry::call;
use crate::api::event::wait_list;
use crate::api::info::{slice, v, write_info};
use crate::api::queue::enqueue;
use crate::consts::*;
use crate::core::context::Context;
use crate::core::mem::{get_mem, HostTransfer, Mem, MemDestructorFn};
use crate::core::object::{self, Ref};
use crate::core::queue::{get_queue, Queue};
use crate::core::UserPtr;
use crate::types::*;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_PTR_FLAGS: cl_mem_flags =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
const HOST_ACCESS: cl_mem_flags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

/// Validates `cl_mem_flags` for `clCreateBuffer`; returns them with the default access added.
pub fn check_buffer_flags(flags: cl_mem_flags, host_ptr: bool) -> Result<cl_mem_flags, cl_int> {
    if flags & !(ACCESS | HOST_PTR_FLAGS | HOST_ACCESS) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if (flags & ACCESS).count_ones() > 1 || (flags & HOST_ACCESS).count_ones() > 1 {
        return Err(CL_INVALID_VALUE);
    }
    if flags & CL_MEM_USE_HOST_PTR != 0
        && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0
    {
        return Err(CL_INVALID_VALUE);
    }
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr != host_ptr {
        return Err(CL_INVALID_HOST_PTR);
    }
    Ok(if flags & ACCESS == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    })
}

/// Flags of a sub-buffer: checks them against the parent's and inherits what is not given.
pub fn sub_buffer_flags(parent: cl_mem_flags, flags: cl_mem_flags) -> Result<cl_mem_flags, cl_int> {
    if flags & !(ACCESS | HOST_ACCESS) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    if (flags & ACCESS).count_ones() > 1 || (flags & HOST_ACCESS).count_ones() > 1 {
        return Err(CL_INVALID_VALUE);
    }
    let pa = parent & ACCESS;
    let a = flags & ACCESS;
    if (pa == CL_MEM_WRITE_ONLY && a & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
        || (pa == CL_MEM_READ_ONLY && a & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    let ph = parent & HOST_ACCESS;
    let h = flags & HOST_ACCESS;
    if (ph == CL_MEM_HOST_WRITE_ONLY && h == CL_MEM_HOST_READ_ONLY)
        || (ph == CL_MEM_HOST_READ_ONLY && h == CL_MEM_HOST_WRITE_ONLY)
        || (ph == CL_MEM_HOST_NO_ACCESS
            && h & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    let access = if a == 0 { pa } else { a };
    let host = if h == 0 { ph } else { h };
    Ok(access | host | (parent & HOST_PTR_FLAGS))
}

pub unsafe extern "C" fn clRetainMemObject(m: cl_mem) -> cl_int {
    call("clRetainMemObject", || object::retain::<Mem, _>(m))
}

pub unsafe extern "C" fn clReleaseMemObject(m: cl_mem) -> cl_int {
    call("clReleaseMemObject", || object::release::<Mem, _>(m))
}

pub unsafe extern "C" fn clSetMemObjectDestructorCallback(
    m: cl_mem,
    pfn_notify: Option<MemDestructorFn>,
    user_data: *mut c_void,
) -> cl_int {
    call("clSetMemObjectDestructorCallback", || {
        let m = get_mem(m)?;
        let f = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        m.add_destructor(f, UserPtr(user_data));
        Ok(())
    })
}

pub unsafe extern "C" fn clGetMemObjectInfo(
    m: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetMemObjectInfo", || {
        let m = get_mem(m)?;
        let answer = match param_name {
            CL_MEM_TYPE => v(&m
                .image
                .as_ref()
                .map_or(CL_MEM_OBJECT_BUFFER, |i| i.mem_type)),
            CL_MEM_FLAGS => v(&m.flags),
            CL_MEM_SIZE => v(&m.size),
            CL_MEM_HOST_PTR => v(&m.host_ptr.0),
            CL_MEM_MAP_COUNT => v(&m.map_count.load(Ordering::Relaxed)),
            CL_MEM_REFERENCE_COUNT => v(&object::ref_count(&m)),
            CL_MEM_CONTEXT => v(&object::handle::<Context>(&m.context)),
            CL_MEM_ASSOCIATED_MEMOBJECT => v(&m
                .parent
                .as_ref()
                .or(m.image.as_ref().and_then(|i| i.buffer.as_ref()))
                .map(object::handle::<Mem>)
                .unwrap_or(std::ptr::null_mut())),
            CL_MEM_OFFSET => v(&(m.offset - m.parent.as_ref().map(|p| p.offset).unwrap_or(0))),
            CL_MEM_USES_SVM_POINTER => v(&CL_FALSE),
            CL_MEM_PROPERTIES => v(&m.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}

/// A queue and a memory object (buffer or image) of the same context.
pub(crate) fn queue_and_any_mem(
    q: cl_command_queue,
    m: cl_mem,
) -> Result<(Ref<Queue>, Ref<Mem>), cl_int> {
    let q = get_queue(q)?;
    let m = get_mem(m)?;
    if !Arc::ptr_eq(&q.context, &m.context) {
        return Err(CL_INVALID_CONTEXT);
    }
    Ok((q, m))
}

/// `map_flags` of `clEnqueueMapBuffer` and `clEnqueueMapImage`: known bits,
/// WRITE_INVALIDATE_REGION alone, and host access the memory object allows for them.
pub(crate) fn check_map_flags(m: &Mem, map_flags: cl_map_flags) -> Result<(), cl_int> {
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if map_flags & !known != 0
        || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
            && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
    {
        return Err(CL_INVALID_VALUE);
    }
    if map_flags & CL_MAP_READ != 0 {
        host_readable(m)?;
    }
    if map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
        host_writable(m)?;
    }
    Ok(())
}

pub(crate) fn host_readable(m: &Mem) -> Result<(), cl_int> {
    host_may(m, "read", CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)
}

pub(crate) fn host_writable(m: &Mem) -> Result<(), cl_int> {
    host_may(m, "write", CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
}

/// Refuses (`CL_INVALID_OPERATION`, as the specification says) and reports a host access
/// `m`'s creation flags forbid: an application that ignores the error reads or keeps
/// stale data, which is what the report is for.
fn host_may(m: &Mem, access: &str, forbidding: cl_mem_flags) -> Result<(), cl_int> {
    let flags = m.flags & forbidding;
    if flags == 0 {
        return Ok(());
    }
    let flag = if flags & CL_MEM_HOST_NO_ACCESS != 0 {
        "CL_MEM_HOST_NO_ACCESS"
    } else if flags & CL_MEM_HOST_READ_ONLY != 0 {
        "CL_MEM_HOST_READ_ONLY"
    } else {
        "CL_MEM_HOST_WRITE_ONLY"
    };
    crate::core::launch::host_access_refused(
        &m.storage,
        m.offset,
        crate::api::entry::current_entry(),
        access,
        flag,
    );
    Err(CL_INVALID_OPERATION)
}

/// The host access `m`'s flags must allow for a transfer in direction `dir`.
pub(crate) fn check_host_access(dir: HostTransfer, m: &Mem) -> Result<(), cl_int> {
    match dir {
        HostTransfer::Read => host_readable(m),
        HostTransfer::Write => host_writable(m),
    }
}

pub(crate) fn triple(p: *const usize) -> Result<[usize; 3], cl_int> {
    let s = slice(p, 3, CL_INVALID_VALUE)?;
    Ok([s[0], s[1], s[2]])
}

/// The `region` argument of a rectangle command: three sizes, none of them 0.
pub(crate) fn region_of(p: *const usize) -> Result<[usize; 3], cl_int> {
    let r = triple(p)?;
    if r.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(r)
}

pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    q: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueUnmapMemObject", || {
        let (q, m) = queue_and_any_mem(q, memobj)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        let mapping = m.unmap(mapped_ptr)?;
        enqueue(
            &q,
            CL_COMMAND_UNMAP_MEM_OBJECT,
            waits,
            event,
            false,
            Box::new(move || {
                if let Some(mapping) = &mapping {
                    mapping.unmapped(&m);
                }
                drop(m);
                Ok(())
            }),
        )
    })
}

pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    q: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num: cl_uint,
    list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueMigrateMemObjects", || {
        let q = get_queue(q)?;
        let waits = wait_list(Some(&q.context), num, list)?;
        if num_mem_objects == 0 || mem_objects.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        let mut objs = Vec::new();
        for &m in slice(mem_objects, num_mem_objects as usize, CL_INVALID_VALUE)? {
            let m = get_mem(m)?;
            if !Arc::ptr_eq(&q.context, &m.context) {
                return Err(CL_INVALID_CONTEXT);
            }
            objs.push(m);
        }
        // One device with host-unified memory: nothing moves.
        enqueue(
            &q,
            CL_COMMAND_MIGRATE_MEM_OBJECTS,
            waits,
            event,
            false,
            Box::new(move || {
                drop(objs);
                Ok(())
            }),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_flag_rules() {
        assert_eq!(check_buffer_flags(0, false), Ok(CL_MEM_READ_WRITE));
        assert_eq!(
            check_buffer_flags(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, false),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_buffer_flags(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, true),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_buffer_flags(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, true),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_buffer_flags(CL_MEM_COPY_HOST_PTR, false),
            Err(CL_INVALID_HOST_PTR)
        );
        assert_eq!(check_buffer_flags(0, true), Err(CL_INVALID_HOST_PTR));
        assert_eq!(
            check_buffer_flags(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, false),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(check_buffer_flags(1 << 40, false), Err(CL_INVALID_VALUE));
        assert_eq!(
            check_buffer_flags(
                CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
                true
            ),
            Ok(CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY)
        );
    }

    #[test]
    fn sub_buffer_flag_rules() {
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            sub_buffer_flags(CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_WRITE, CL_MEM_USE_HOST_PTR),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            sub_buffer_flags(CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 0),
            Ok(CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
        );
        assert_eq!(
            sub_buffer_flags(
                CL_MEM_HOST_NO_ACCESS | CL_MEM_READ_WRITE,
                CL_MEM_HOST_READ_ONLY
            ),
            Err(CL_INVALID_VALUE)
        );
    }
}
