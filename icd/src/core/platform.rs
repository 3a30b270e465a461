//! The platform and its one CPU device: the static objects behind their handles, the device's
//! limits and the clock host and device share. Their queries are `crate::api::platform`'s.

use crate::consts::*;
use crate::core::object::{static_handle, ClObject, Obj};
use crate::types::*;

pub struct Platform;

pub struct Device;

impl ClObject for Platform {
    const TAG: u32 = 0x5C1_0001;
    const INVALID: i32 = CL_INVALID_PLATFORM;
    type Handle = cl_platform_id;
}

impl ClObject for Device {
    const TAG: u32 = 0x5C1_0002;
    const INVALID: i32 = CL_INVALID_DEVICE;
    type Handle = cl_device_id;
}

pub static PLATFORM: Obj<Platform> = Obj::new_static(Platform::TAG, Platform);
pub static DEVICE: Obj<Device> = Obj::new_static(Device::TAG, Device);

pub fn platform_id() -> cl_platform_id {
    static_handle(&PLATFORM)
}
pub fn device_id() -> cl_device_id {
    static_handle(&DEVICE)
}

pub const PLATFORM_NAME: &str = "ShadowCL";
pub const PLATFORM_EXTENSIONS: &str = "cl_khr_icd cl_khr_il_program";
/// What the device compiles for: the compile driver defines exactly these extension and
/// feature macros, so they live with it.
pub use shadowcl_compiler::{DEVICE_EXTENSIONS, OPENCL_C_FEATURES};
pub const MAX_WORK_GROUP_SIZE: usize = 1024;
pub const GLOBAL_MEM_SIZE: u64 = 4 << 30;
pub const MAX_ALLOC: u64 = 1 << 30;
pub const LOCAL_MEM_SIZE: u64 = 64 << 10;
pub const MAX_PARAMETER_SIZE: usize = 1024;
pub const MAX_CONSTANT_BUFFER: u64 = 1 << 20;
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;

pub fn compute_units() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1)
}

/// Nanoseconds since the first use of ShadowCL's clock (host and device share it).
pub fn now_ns() -> u64 {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let e = EPOCH.get_or_init(std::time::Instant::now);
    e.elapsed().as_nanos() as u64 + 1
}
