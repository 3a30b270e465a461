//! The one wrapper every `extern "C"` entry point goes through: logging set-up, panic
//! containment and the translation of `Result<_, cl_int>` to the C conventions.

use crate::consts::*;
use crate::core::settings::settings;
use crate::types::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

static LOG: Once = Once::new();

thread_local! {
    /// The entry point this thread is in, for reports that name the application's call.
    static CURRENT: std::cell::Cell<&'static str> = const { std::cell::Cell::new("") };
}

/// The entry point the calling thread is in (empty outside one).
pub(crate) fn current_entry() -> &'static str {
    CURRENT.with(|c| c.get())
}

/// Installs the `SHADOWCL_LOG` tracing filter (default `warn`, to stderr) once per process.
pub fn init_logging() {
    LOG.call_once(|| {
        let filter = tracing_subscriber::EnvFilter::try_new(&settings().log)
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        // Another subscriber (for example the CLI's, in the same process) wins; that is fine.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    });
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Runs an entry point returning a status code.
pub fn call(name: &'static str, f: impl FnOnce() -> Result<(), cl_int>) -> cl_int {
    init_logging();
    tracing::trace!("{name}");
    let outer = CURRENT.with(|c| c.replace(name));
    let result = catch_unwind(AssertUnwindSafe(f));
    CURRENT.with(|c| c.set(outer));
    match result {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(e)) => {
            tracing::debug!("{name} -> {e}");
            e
        }
        Err(p) => {
            tracing::error!("internal error in {name}: {}", panic_text(&*p));
            CL_OUT_OF_HOST_MEMORY
        }
    }
}

/// Writes `code` through the optional `errcode_ret` pointer of a create function.
pub(crate) fn set_errcode(errcode_ret: *mut cl_int, code: cl_int) {
    if !errcode_ret.is_null() {
        // SAFETY: a non-NULL errcode_ret points to a cl_int the application owns (spec).
        unsafe { errcode_ret.write(code) };
    }
}

/// Runs an entry point returning an object (or pointer) with an `errcode_ret` out-parameter.
pub fn call_ptr<T>(
    name: &'static str,
    errcode_ret: *mut cl_int,
    f: impl FnOnce() -> Result<*mut T, cl_int>,
) -> *mut T {
    let mut out = std::ptr::null_mut();
    let code = call(name, || {
        out = f()?;
        Ok(())
    });
    set_errcode(errcode_ret, code);
    if code == CL_SUCCESS {
        out
    } else {
        std::ptr::null_mut()
    }
}

/// Body of the generated stubs for entry points ShadowCL does not support.
pub fn unsupported(name: &'static str, code: cl_int) -> cl_int {
    init_logging();
    tracing::info!("{name}: not supported by ShadowCL, returning {code}");
    code
}

/// As [`unsupported`], for create functions: sets `errcode_ret`, returns NULL.
pub fn unsupported_ptr<T>(name: &'static str, errcode_ret: *mut cl_int, code: cl_int) -> *mut T {
    set_errcode(errcode_ret, unsupported(name, code));
    std::ptr::null_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_error_codes() {
        assert_eq!(call("t", || panic!("boom")), CL_OUT_OF_HOST_MEMORY);
        assert_eq!(call("t", || Err(CL_INVALID_VALUE)), CL_INVALID_VALUE);
        let mut code = 1;
        let p: *mut u8 = call_ptr("t", &mut code, || Err(CL_INVALID_CONTEXT));
        assert!(p.is_null());
        assert_eq!(code, CL_INVALID_CONTEXT);
    }
}
