//! A tiny hand-written FFI over the OpenCL ICD loader (`libOpenCL.so`).
//! Only the entry points the runner needs are declared.

#![allow(non_camel_case_types)]

use std::ffi::c_void;

pub type cl_int = i32;
pub type cl_uint = u32;
pub type cl_bitfield = u64;
pub type cl_platform_id = *mut c_void;
pub type cl_device_id = *mut c_void;
pub type cl_context = *mut c_void;
pub type cl_command_queue = *mut c_void;
pub type cl_program = *mut c_void;
pub type cl_kernel = *mut c_void;
pub type cl_mem = *mut c_void;
pub type cl_event = *mut c_void;
pub type cl_sampler = *mut c_void;

#[repr(C)]
pub struct cl_image_format {
    pub order: cl_uint,
    pub data_type: cl_uint,
}

#[repr(C)]
pub struct cl_image_desc {
    pub image_type: cl_uint,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    pub row_pitch: usize,
    pub slice_pitch: usize,
    pub num_mip_levels: cl_uint,
    pub num_samples: cl_uint,
    pub buffer: cl_mem,
}

pub const CL_RGBA: cl_uint = 0x10B5;
pub const CL_MEM_OBJECT_IMAGE2D: cl_uint = 0x10F1;
pub const CL_MEM_OBJECT_IMAGE3D: cl_uint = 0x10F2;

pub const CL_SUCCESS: cl_int = 0;
pub const CL_BUFFER_CREATE_TYPE_REGION: cl_uint = 0x1220;
pub const CL_PLATFORM_NAME: cl_uint = 0x0902;
pub const CL_DEVICE_TYPE_ALL: cl_bitfield = 0xFFFF_FFFF;
pub const CL_DEVICE_NAME: cl_uint = 0x102B;
pub const CL_DEVICE_EXTENSIONS: cl_uint = 0x1030;
pub const CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE: cl_bitfield = 1 << 0;
pub const CL_MEM_READ_WRITE: cl_bitfield = 1 << 0;
pub const CL_MEM_WRITE_ONLY: cl_bitfield = 1 << 1;
pub const CL_MEM_READ_ONLY: cl_bitfield = 1 << 2;
pub const CL_PROGRAM_BUILD_LOG: cl_uint = 0x1183;
pub const CL_TRUE: cl_uint = 1;

#[link(name = "OpenCL")]
extern "C" {
    pub fn clGetPlatformIDs(
        n: cl_uint,
        platforms: *mut cl_platform_id,
        num: *mut cl_uint,
    ) -> cl_int;
    pub fn clGetPlatformInfo(
        p: cl_platform_id,
        param: cl_uint,
        size: usize,
        value: *mut c_void,
        size_ret: *mut usize,
    ) -> cl_int;
    pub fn clGetDeviceIDs(
        p: cl_platform_id,
        ty: cl_bitfield,
        n: cl_uint,
        devices: *mut cl_device_id,
        num: *mut cl_uint,
    ) -> cl_int;
    pub fn clGetDeviceInfo(
        d: cl_device_id,
        param: cl_uint,
        size: usize,
        value: *mut c_void,
        size_ret: *mut usize,
    ) -> cl_int;
    pub fn clCreateContext(
        props: *const isize,
        n: cl_uint,
        devices: *const cl_device_id,
        notify: *const c_void,
        user: *mut c_void,
        err: *mut cl_int,
    ) -> cl_context;
    pub fn clCreateCommandQueue(
        ctx: cl_context,
        dev: cl_device_id,
        props: cl_bitfield,
        err: *mut cl_int,
    ) -> cl_command_queue;
    pub fn clCreateProgramWithSource(
        ctx: cl_context,
        count: cl_uint,
        strings: *const *const i8,
        lengths: *const usize,
        err: *mut cl_int,
    ) -> cl_program;
    pub fn clBuildProgram(
        prog: cl_program,
        n: cl_uint,
        devices: *const cl_device_id,
        options: *const i8,
        notify: *const c_void,
        user: *mut c_void,
    ) -> cl_int;
    pub fn clGetProgramBuildInfo(
        prog: cl_program,
        dev: cl_device_id,
        param: cl_uint,
        size: usize,
        value: *mut c_void,
        size_ret: *mut usize,
    ) -> cl_int;
    pub fn clCreateKernel(prog: cl_program, name: *const i8, err: *mut cl_int) -> cl_kernel;
    pub fn clSetKernelArg(k: cl_kernel, idx: cl_uint, size: usize, value: *const c_void) -> cl_int;
    pub fn clCreateBuffer(
        ctx: cl_context,
        flags: cl_bitfield,
        size: usize,
        host: *mut c_void,
        err: *mut cl_int,
    ) -> cl_mem;
    pub fn clCreateSubBuffer(
        parent: cl_mem,
        flags: cl_bitfield,
        kind: cl_uint,
        info: *const c_void,
        err: *mut cl_int,
    ) -> cl_mem;
    pub fn clEnqueueWriteBuffer(
        q: cl_command_queue,
        mem: cl_mem,
        blocking: cl_uint,
        offset: usize,
        size: usize,
        ptr: *const c_void,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clEnqueueReadBuffer(
        q: cl_command_queue,
        mem: cl_mem,
        blocking: cl_uint,
        offset: usize,
        size: usize,
        ptr: *mut c_void,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clEnqueueCopyBuffer(
        q: cl_command_queue,
        src: cl_mem,
        dst: cl_mem,
        src_offset: usize,
        dst_offset: usize,
        size: usize,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clEnqueueFillBuffer(
        q: cl_command_queue,
        mem: cl_mem,
        pattern: *const c_void,
        pattern_size: usize,
        offset: usize,
        size: usize,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clEnqueueMapBuffer(
        q: cl_command_queue,
        mem: cl_mem,
        blocking: cl_uint,
        flags: cl_bitfield,
        offset: usize,
        size: usize,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
        err: *mut cl_int,
    ) -> *mut c_void;
    pub fn clEnqueueUnmapMemObject(
        q: cl_command_queue,
        mem: cl_mem,
        ptr: *mut c_void,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clEnqueueNDRangeKernel(
        q: cl_command_queue,
        k: cl_kernel,
        dims: cl_uint,
        offset: *const usize,
        global: *const usize,
        local: *const usize,
        n: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clFinish(q: cl_command_queue) -> cl_int;
    pub fn clCreateImage(
        ctx: cl_context,
        flags: cl_bitfield,
        format: *const cl_image_format,
        desc: *const cl_image_desc,
        host: *mut c_void,
        err: *mut cl_int,
    ) -> cl_mem;
    pub fn clEnqueueReadImage(
        q: cl_command_queue,
        image: cl_mem,
        blocking: cl_uint,
        origin: *const usize,
        region: *const usize,
        row_pitch: usize,
        slice_pitch: usize,
        ptr: *mut c_void,
        num: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clEnqueueWriteImage(
        q: cl_command_queue,
        image: cl_mem,
        blocking: cl_uint,
        origin: *const usize,
        region: *const usize,
        row_pitch: usize,
        slice_pitch: usize,
        ptr: *const c_void,
        num: cl_uint,
        wait: *const cl_event,
        ev: *mut cl_event,
    ) -> cl_int;
    pub fn clCreateSampler(
        ctx: cl_context,
        normalized: cl_uint,
        addressing: cl_uint,
        filter: cl_uint,
        err: *mut cl_int,
    ) -> cl_sampler;
    pub fn clReleaseSampler(s: cl_sampler) -> cl_int;
    pub fn clReleaseMemObject(m: cl_mem) -> cl_int;
    pub fn clReleaseEvent(e: cl_event) -> cl_int;
    pub fn clReleaseKernel(k: cl_kernel) -> cl_int;
    pub fn clReleaseProgram(p: cl_program) -> cl_int;
    pub fn clReleaseCommandQueue(q: cl_command_queue) -> cl_int;
    pub fn clReleaseContext(c: cl_context) -> cl_int;
}
