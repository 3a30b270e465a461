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
pub use shadowcl_compiler::{DEVICE_EXTENSIONS, OPENCL_C_FEATURES, OPENCL_C_VERSIONS};
pub const MAX_WORK_GROUP_SIZE: usize = 1024;
pub const GLOBAL_MEM_SIZE: u64 = 4 << 30;
pub const MAX_ALLOC: u64 = 1 << 30;
/// `CL_DEVICE_LOCAL_MEM_SIZE` ([`shadowcl_limits::Limits::device_local_memory`]).
pub const LOCAL_MEM_SIZE: u64 = shadowcl_limits::LIMITS.device_local_memory;
pub const MAX_PARAMETER_SIZE: usize = 1024;
pub const MAX_CONSTANT_BUFFER: u64 = 1 << 20;
pub const MEM_BASE_ADDR_ALIGN_BITS: u32 = 1024;

pub fn compute_units() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1)
}

/// The host's monotonic clock (`CLOCK_MONOTONIC`) in nanoseconds: what
/// `clGetHostTimer` returns, and the device's clock too (profiling timestamps,
/// `clGetDeviceAndHostTimer`), since the device runs on the host. Applications compare it
/// with their own `clock_gettime(CLOCK_MONOTONIC)` readings.
pub fn now_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given; CLOCK_MONOTONIC always exists
    // on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_the_hosts_monotonic_clock_in_nanoseconds() {
        let read = || {
            let mut t = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: as in `now_ns`.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
            t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
        };
        let before = read();
        let ours = now_ns();
        let after = read();
        assert!(before <= ours && ours <= after, "{before} {ours} {after}");
        // Not counted from ShadowCL's start: the machine has been up for more than a
        // millisecond.
        assert!(ours > 1_000_000);
        assert!(now_ns() >= ours);
    }
}
