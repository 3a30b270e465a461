//! Forwarding mode (`SHADOWCL_FORWARD`): ShadowCL loads a vendor ICD, exposes the vendor's
//! platforms (names prefixed `ShadowCL capture: `) instead of its own, forwards every call to
//! the vendor with handles translated ([`handles`], the generated [`crate::gen::forward`]) and
//! records launches ([`record`]).

pub(crate) mod handles;
pub(crate) mod info;
pub(crate) mod record;
pub(crate) mod special;
pub(crate) mod tramp;
pub(crate) mod vendor;

use crate::api::info::out;
use crate::consts::*;
use crate::types::*;
use std::sync::OnceLock;

/// `SHADOWCL_FORWARD`, when set and not empty.
pub(crate) fn setting() -> Option<&'static str> {
    crate::core::settings::settings().forward.as_deref()
}

/// The vendor, loaded on first use; `None` when forwarding is off or the vendor is unusable
/// (then the reason was printed once).
pub(crate) fn vendor() -> Option<&'static vendor::Vendor> {
    static V: OnceLock<Option<vendor::Vendor>> = OnceLock::new();
    V.get_or_init(|| setting().and_then(vendor::load)).as_ref()
}

/// The platform list in forwarding mode (`None`: forwarding is off, ShadowCL's own platform
/// is listed). A vendor that cannot be used leaves an empty list: ShadowCL offers no platform
/// rather than silently running the application on its interpreter.
pub(crate) fn platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> Option<Result<(), cl_int>> {
    setting()?;
    if (num_entries == 0 && !platforms.is_null())
        || (platforms.is_null() && num_platforms.is_null())
    {
        return Some(Err(CL_INVALID_VALUE));
    }
    let Some(v) = vendor() else {
        out(num_platforms, 0);
        return Some(Err(CL_PLATFORM_NOT_FOUND_KHR));
    };
    if !platforms.is_null() {
        for (i, p) in v.platforms.iter().take(num_entries as usize).enumerate() {
            // SAFETY: the application's array has num_entries entries.
            unsafe { platforms.add(i).write(*p as cl_platform_id) };
        }
    }
    out(num_platforms, v.platforms.len() as cl_uint);
    Some(Ok(()))
}

/// Whether `h` is one of forwarding mode's handles.
pub(crate) fn is_forwarded<T>(h: *mut T) -> bool {
    setting().is_some() && handles::is_wrapper(h)
}
