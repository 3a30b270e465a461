//! The OpenCL ICD: C ABI entry points, dispatch table and object model. Its modules are
//! private (the loader reaches the entry points through the dispatch table):
//!
//! - `api`: the entry points, their argument checks and the C conventions;
//! - `core`: the objects behind the handles and what they do (queues, their executor
//!   threads, the ordering of commands, kernel launches);
//! - `forward`: forwarding mode (`SHADOWCL_FORWARD`), which hands every call to a vendor;
//! - `gen`: code generated from the OpenCL headers (`icd/tools/gen_*.py`).
//!
//! Every handle is the address of a `core::object::Obj` whose first field is the dispatch
//! table pointer (`cl_icd.h`); entry points are thin `extern "C"` shims that call a Rust
//! function returning `Result<_, cl_int>` through `api::entry::call`, which also stops
//! panics at the ABI.

#![allow(non_snake_case)] // entry points carry their OpenCL names

mod api;
mod core;
mod forward;
mod gen;

/// The numeric `CL_*` constants of the OpenCL headers (generated).
pub use gen::consts;
/// The compile driver lives in its own crate, shared with replay.
pub use shadowcl_compiler as compiler;
pub mod types;

/// What the integration tests (`icd/tests/`) call directly, without an ICD loader: the entry
/// points they use and ShadowCL's device handle. Applications reach the entry points only
/// through the loader (the dispatch table); besides this module, only [`types`], [`consts`]
/// and [`compiler`] are public. Add an entry point here when a test needs one.
pub mod test_support {
    pub use crate::api::buffer::{clCreateBuffer, clEnqueueReadBuffer};
    pub use crate::api::context::{clCreateContext, clReleaseContext};
    pub use crate::api::event::{
        clCreateUserEvent, clGetEventInfo, clReleaseEvent, clSetUserEventStatus, clWaitForEvents,
    };
    pub use crate::api::kernel::{
        clCreateKernel, clEnqueueNDRangeKernel, clGetKernelArgInfo, clReleaseKernel, clSetKernelArg,
    };
    pub use crate::api::mem::clReleaseMemObject;
    pub use crate::api::program::{
        clBuildProgram, clCreateProgramWithBinary, clCreateProgramWithIL,
        clCreateProgramWithSource, clGetProgramBuildInfo, clGetProgramInfo, clReleaseProgram,
    };
    pub use crate::api::queue::{clCreateCommandQueue, clFinish, clReleaseCommandQueue};
    pub use crate::core::platform::device_id;
}
