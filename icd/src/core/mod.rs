//! Objects and behaviour: what a handle stands for and what commands do, without the C
//! conventions (the entry points of [`crate::api`] check arguments and call in here).
//!
//! - [`object`]: handles, the application's reference counts, the registry of live objects;
//! - [`platform`]: the platform and its one device, their limits and clock;
//! - [`context`], [`mem`] (buffers), [`image`], [`sampler`], [`program`], [`kernel`]: the
//!   objects and what they do;
//! - [`queue`] and [`event`]: commands and their completion; [`executor`]: the thread of each
//!   queue that runs them; [`order`]: happens-before between commands, for the race checker;
//! - [`launch`]: the one place a kernel launch meets the interpreter, the checkers and capture.

pub mod context;
pub mod event;
pub mod executor;
pub mod image;
pub mod kernel;
pub mod launch;
pub mod mem;
pub mod object;
pub mod order;
pub mod platform;
pub mod program;
pub mod queue;
pub mod sampler;

use std::ffi::c_void;

/// A `Send + Sync` raw pointer that the application owns (callback user data, host pointers).
#[derive(Clone, Copy, Debug)]
pub struct UserPtr(pub *mut c_void);

// SAFETY: we only hand it back to the application (callbacks) or use it under the rules the
// OpenCL specification gives for that pointer.
unsafe impl Send for UserPtr {}

// SAFETY: as above.
unsafe impl Sync for UserPtr {}
