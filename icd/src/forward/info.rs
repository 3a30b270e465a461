//! `clGet*Info` answers that are handles: the vendor writes its own handles, the application
//! must get our wrappers.

use super::handles::{wrap_new, Kind};
use crate::consts::*;
use crate::types::*;
use std::ffi::c_void;

/// How a handle sits in an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    One(Kind),
    Array(Kind),
    /// A `cl_context_properties` list (`CL_CONTEXT_PLATFORM`'s value is a platform).
    ContextProps,
}

/// Which answers of which query hold handles.
pub(crate) fn handle_answer(func: &str, param: cl_uint) -> Option<Shape> {
    use Shape::*;
    Some(match (func, param) {
        ("clGetDeviceInfo", CL_DEVICE_PLATFORM) => One(Kind::Platform),
        ("clGetDeviceInfo", CL_DEVICE_PARENT_DEVICE) => One(Kind::Device),
        ("clGetContextInfo", CL_CONTEXT_DEVICES) => Array(Kind::Device),
        ("clGetContextInfo", CL_CONTEXT_PROPERTIES) => ContextProps,
        ("clGetCommandQueueInfo", CL_QUEUE_CONTEXT) => One(Kind::Context),
        ("clGetCommandQueueInfo", CL_QUEUE_DEVICE) => One(Kind::Device),
        ("clGetCommandQueueInfo", CL_QUEUE_DEVICE_DEFAULT) => One(Kind::Queue),
        ("clGetMemObjectInfo", CL_MEM_CONTEXT) => One(Kind::Context),
        ("clGetMemObjectInfo", CL_MEM_ASSOCIATED_MEMOBJECT) => One(Kind::Mem),
        ("clGetImageInfo", CL_IMAGE_BUFFER) => One(Kind::Mem),
        ("clGetSamplerInfo", CL_SAMPLER_CONTEXT) => One(Kind::Context),
        ("clGetProgramInfo", CL_PROGRAM_CONTEXT) => One(Kind::Context),
        ("clGetProgramInfo", CL_PROGRAM_DEVICES) => Array(Kind::Device),
        ("clGetKernelInfo", CL_KERNEL_CONTEXT) => One(Kind::Context),
        ("clGetKernelInfo", CL_KERNEL_PROGRAM) => One(Kind::Program),
        ("clGetEventInfo", CL_EVENT_COMMAND_QUEUE) => One(Kind::Queue),
        ("clGetEventInfo", CL_EVENT_CONTEXT) => One(Kind::Context),
        _ => return None,
    })
}

const W: usize = std::mem::size_of::<usize>();

/// Rewrites the vendor handles in an answer of `len` bytes at `value` (after a successful
/// call; nothing to do without a value).
pub(crate) fn fix_info(func: &str, param: cl_uint, value: *mut c_void, len: usize) {
    if value.is_null() {
        return;
    }
    let Some(shape) = handle_answer(func, param) else {
        return;
    };
    let words = value.cast::<usize>();
    let n = len / W;
    // SAFETY (all reads and writes below): the vendor wrote `len` bytes of pointer-sized
    // handles or properties at `value`, a buffer the application owns; we stay within them
    // and use unaligned access because the application's buffer need not be aligned.
    match shape {
        Shape::One(kind) | Shape::Array(kind) => {
            let n = if matches!(shape, Shape::One(_)) {
                n.min(1)
            } else {
                n
            };
            for i in 0..n {
                let p = unsafe { words.add(i) };
                let v = unsafe { p.read_unaligned() };
                unsafe { p.write_unaligned(wrap_new(kind, v as *mut c_void, false) as usize) };
            }
        }
        Shape::ContextProps => {
            let mut i = 0;
            while i + 1 < n {
                let name = unsafe { words.add(i).read_unaligned() };
                if name == 0 {
                    break;
                }
                if name == CL_CONTEXT_PLATFORM as usize {
                    let p = unsafe { words.add(i + 1) };
                    let v = unsafe { p.read_unaligned() };
                    unsafe {
                        p.write_unaligned(wrap_new(Kind::Platform, v as *mut c_void, false) as usize)
                    };
                }
                i += 2;
            }
        }
    }
}

/// For tests: whether a handle in an answer is ours.
#[cfg(test)]
fn vendor_of(kind: Kind, h: usize) -> Option<usize> {
    super::handles::un(kind, h as *mut c_void)
        .ok()
        .map(|p| p as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_answers_are_translated_and_others_left_alone() {
        let mut one = [0x4000_0010usize];
        fix_info(
            "clGetMemObjectInfo",
            CL_MEM_CONTEXT,
            one.as_mut_ptr().cast(),
            W,
        );
        assert_eq!(vendor_of(Kind::Context, one[0]), Some(0x4000_0010));
        let mut devs = [0x4000_0020usize, 0x4000_0030];
        fix_info(
            "clGetContextInfo",
            CL_CONTEXT_DEVICES,
            devs.as_mut_ptr().cast(),
            2 * W,
        );
        assert_eq!(vendor_of(Kind::Device, devs[0]), Some(0x4000_0020));
        assert_eq!(vendor_of(Kind::Device, devs[1]), Some(0x4000_0030));
        let mut props = [CL_CONTEXT_PLATFORM as usize, 0x4000_0040, 0];
        fix_info(
            "clGetContextInfo",
            CL_CONTEXT_PROPERTIES,
            props.as_mut_ptr().cast(),
            3 * W,
        );
        assert_eq!(vendor_of(Kind::Platform, props[1]), Some(0x4000_0040));
        // Not a handle answer; a NULL parent device stays NULL.
        let mut size = [1234usize];
        fix_info(
            "clGetMemObjectInfo",
            CL_MEM_SIZE,
            size.as_mut_ptr().cast(),
            W,
        );
        assert_eq!(size[0], 1234);
        let mut parent = [0usize];
        fix_info(
            "clGetDeviceInfo",
            CL_DEVICE_PARENT_DEVICE,
            parent.as_mut_ptr().cast(),
            W,
        );
        assert_eq!(parent[0], 0);
    }

    #[test]
    fn the_table_names_the_queries_the_issue_lists() {
        for (f, p) in [
            ("clGetMemObjectInfo", CL_MEM_ASSOCIATED_MEMOBJECT),
            ("clGetCommandQueueInfo", CL_QUEUE_DEVICE),
            ("clGetProgramInfo", CL_PROGRAM_DEVICES),
            ("clGetKernelInfo", CL_KERNEL_PROGRAM),
            ("clGetEventInfo", CL_EVENT_COMMAND_QUEUE),
            ("clGetDeviceInfo", CL_DEVICE_PLATFORM),
        ] {
            assert!(handle_answer(f, p).is_some(), "{f} {p:#x}");
        }
        assert_eq!(handle_answer("clGetKernelInfo", CL_KERNEL_NUM_ARGS), None);
    }
}
