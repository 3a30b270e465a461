//! The OpenCL C types ShadowCL's ABI uses (from `CL/cl.h`, `cl_platform.h` and the sharing headers).
#![allow(non_camel_case_types)]

use std::ffi::c_void;

pub type cl_char = i8;
pub type cl_uchar = u8;
pub type cl_short = i16;
pub type cl_ushort = u16;
pub type cl_int = i32;
pub type cl_uint = u32;
pub type cl_long = i64;
pub type cl_ulong = u64;
pub type cl_bool = cl_uint;
pub type cl_bitfield = cl_ulong;
pub type cl_properties = cl_ulong;

macro_rules! opaque {
    ($($handle:ident => $st:ident),* $(,)?) => {$(
        #[doc = concat!("The C type behind `", stringify!($handle), "`.")]
        #[repr(C)]
        pub struct $st {
            _private: [u8; 0],
        }
        pub type $handle = *mut $st;
    )*};
}
opaque!(
    cl_platform_id => _cl_platform_id,
    cl_device_id => _cl_device_id,
    cl_context => _cl_context,
    cl_command_queue => _cl_command_queue,
    cl_mem => _cl_mem,
    cl_program => _cl_program,
    cl_kernel => _cl_kernel,
    cl_event => _cl_event,
    cl_sampler => _cl_sampler,
);

pub type cl_device_type = cl_bitfield;
pub type cl_platform_info = cl_uint;
pub type cl_device_info = cl_uint;
pub type cl_device_fp_config = cl_bitfield;
pub type cl_device_mem_cache_type = cl_uint;
pub type cl_device_local_mem_type = cl_uint;
pub type cl_device_exec_capabilities = cl_bitfield;
pub type cl_device_svm_capabilities = cl_bitfield;
pub type cl_command_queue_properties = cl_bitfield;
pub type cl_device_partition_property = isize;
pub type cl_device_partition_property_ext = cl_ulong;
pub type cl_device_affinity_domain = cl_bitfield;
pub type cl_context_properties = isize;
pub type cl_context_info = cl_uint;
pub type cl_queue_properties = cl_properties;
pub type cl_command_queue_info = cl_uint;
pub type cl_channel_order = cl_uint;
pub type cl_channel_type = cl_uint;
pub type cl_mem_flags = cl_bitfield;
pub type cl_svm_mem_flags = cl_bitfield;
pub type cl_mem_object_type = cl_uint;
pub type cl_mem_info = cl_uint;
pub type cl_mem_migration_flags = cl_bitfield;
pub type cl_image_info = cl_uint;
pub type cl_buffer_create_type = cl_uint;
pub type cl_addressing_mode = cl_uint;
pub type cl_filter_mode = cl_uint;
pub type cl_sampler_info = cl_uint;
pub type cl_map_flags = cl_bitfield;
pub type cl_pipe_properties = isize;
pub type cl_pipe_info = cl_uint;
pub type cl_program_info = cl_uint;
pub type cl_program_build_info = cl_uint;
pub type cl_program_binary_type = cl_uint;
pub type cl_build_status = cl_int;
pub type cl_kernel_info = cl_uint;
pub type cl_kernel_arg_info = cl_uint;
pub type cl_kernel_arg_address_qualifier = cl_uint;
pub type cl_kernel_arg_access_qualifier = cl_uint;
pub type cl_kernel_arg_type_qualifier = cl_bitfield;
pub type cl_kernel_work_group_info = cl_uint;
pub type cl_kernel_sub_group_info = cl_uint;
pub type cl_event_info = cl_uint;
pub type cl_command_type = cl_uint;
pub type cl_profiling_info = cl_uint;
pub type cl_sampler_properties = cl_properties;
pub type cl_kernel_exec_info = cl_uint;
pub type cl_device_atomic_capabilities = cl_bitfield;
pub type cl_device_device_enqueue_capabilities = cl_bitfield;
pub type cl_khronos_vendor_id = cl_uint;
pub type cl_mem_properties = cl_properties;
pub type cl_version = cl_uint;

pub type cl_GLuint = u32;
pub type cl_GLint = i32;
pub type cl_GLenum = u32;
pub type cl_GLsync = *mut c_void;
pub type cl_gl_object_type = cl_uint;
pub type cl_gl_texture_info = cl_uint;
pub type cl_gl_context_info = cl_uint;
pub type CLeglImageKHR = *mut c_void;
pub type CLeglDisplayKHR = *mut c_void;
pub type CLeglSyncKHR = *mut c_void;
pub type cl_egl_image_properties_khr = isize;
pub type cl_d3d10_device_source_khr = cl_uint;
pub type cl_d3d10_device_set_khr = cl_uint;
pub type cl_d3d11_device_source_khr = cl_uint;
pub type cl_d3d11_device_set_khr = cl_uint;
pub type cl_dx9_media_adapter_type_khr = cl_uint;
pub type cl_dx9_media_adapter_set_khr = cl_uint;

/// `cl_image_format`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cl_image_format {
    pub image_channel_order: cl_channel_order,
    pub image_channel_data_type: cl_channel_type,
}

/// `cl_image_desc`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cl_image_desc {
    pub image_type: cl_mem_object_type,
    pub image_width: usize,
    pub image_height: usize,
    pub image_depth: usize,
    pub image_array_size: usize,
    pub image_row_pitch: usize,
    pub image_slice_pitch: usize,
    pub num_mip_levels: cl_uint,
    pub num_samples: cl_uint,
    pub buffer: cl_mem,
}

/// `cl_buffer_region`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct cl_buffer_region {
    pub origin: usize,
    pub size: usize,
}

/// `cl_name_version`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cl_name_version {
    pub version: cl_version,
    pub name: [u8; 64],
}

pub const fn cl_make_version(major: u32, minor: u32, patch: u32) -> cl_version {
    (major << 22) | (minor << 12) | patch
}
