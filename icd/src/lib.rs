//! The OpenCL ICD: C ABI entry points, dispatch table and object model.
//!
//! Every handle is the address of an [`object::Obj`] whose first field is the dispatch table
//! pointer (`cl_icd.h`); entry points are thin `extern "C"` shims that call a Rust function
//! returning `Result<_, cl_int>` through [`entry::call`], which also stops panics at the ABI.

#![allow(non_snake_case)] // entry points carry their OpenCL names

/// The numeric `CL_*` constants (generated: [`gen::consts`]).
pub use gen::consts;
/// The compile driver lives in its own crate, shared with replay.
pub use shadowcl_compiler as compiler;
pub mod context;
pub mod entry;
pub mod forward;
pub mod gen;
pub mod image;
pub mod info;
pub mod kernel;
pub mod launch;
pub mod mem;
pub mod object;
pub mod order;
pub mod platform;
pub mod program;
pub mod queue;
pub mod types;
