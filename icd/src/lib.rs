//! The OpenCL ICD: C ABI entry points, dispatch table and object model.
//!
//! - [`api`]: the entry points, their argument checks and the C conventions;
//! - [`core`]: the objects behind the handles and what they do (queues, their executor
//!   threads, the ordering of commands, kernel launches);
//! - [`forward`]: forwarding mode (`SHADOWCL_FORWARD`), which hands every call to a vendor;
//! - [`gen`]: code generated from the OpenCL headers (`icd/tools/gen_*.py`).
//!
//! Every handle is the address of a [`core::object::Obj`] whose first field is the dispatch
//! table pointer (`cl_icd.h`); entry points are thin `extern "C"` shims that call a Rust
//! function returning `Result<_, cl_int>` through [`api::entry::call`], which also stops
//! panics at the ABI.

#![allow(non_snake_case)] // entry points carry their OpenCL names

pub mod api;
/// The numeric `CL_*` constants (generated: [`gen::consts`]).
pub use gen::consts;
/// The compile driver lives in its own crate, shared with replay.
pub use shadowcl_compiler as compiler;
pub mod core;
pub mod forward;
pub mod gen;
pub mod types;
