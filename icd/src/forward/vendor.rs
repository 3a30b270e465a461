//! Finding and loading the vendor ICD that `SHADOWCL_FORWARD` names.
//!
//! The value is a library (it contains `/` or `.so`) or a platform-name substring. Names are
//! looked up in the `.icd` files the loader reads: `OCL_ICD_VENDORS` (a folder or one file),
//! then `/etc/OpenCL/vendors` (so `shadowcl run --forward`, whose private vendors folder lists
//! only ShadowCL, still finds the system's vendors). ShadowCL's own library is skipped.

use super::handles::{set_table, wrap_new, Kind};
use crate::consts::*;
use crate::types::*;
use std::ffi::{c_char, c_void};
use std::path::{Path, PathBuf};

type IcdGetPlatformIds = unsafe extern "C" fn(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;
type GetExtAddr = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type GetPlatformInfo =
    unsafe extern "C" fn(cl_platform_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;

/// A loaded vendor and the wrapped platforms it exposes through us.
pub struct Vendor {
    _lib: libloading::Library,
    /// Our wrappers of the vendor's (matching) platforms.
    pub platforms: Vec<usize>,
}

/// Whether `SHADOWCL_FORWARD` names a library rather than a platform.
pub(crate) fn is_library(setting: &str) -> bool {
    setting.contains('/') || setting.contains(".so")
}

/// Library names listed by the `.icd` files of the folders the loader reads, in order.
pub(crate) fn icd_libraries(ocl_icd_vendors: Option<&Path>) -> Vec<PathBuf> {
    let icd_files = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "icd"))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let mut files = Vec::new();
    if let Some(v) = ocl_icd_vendors {
        if v.is_dir() {
            files.extend(icd_files(v));
        } else {
            files.push(v.to_path_buf());
        }
    }
    files.extend(icd_files(Path::new("/etc/OpenCL/vendors")));
    let mut libs = Vec::new();
    for f in files {
        if let Ok(text) = std::fs::read_to_string(&f) {
            let lib = PathBuf::from(text.trim());
            if !text.trim().is_empty() && !libs.contains(&lib) {
                libs.push(lib);
            }
        }
    }
    libs
}

/// Loads the vendor `setting` names, or says on stderr why not.
pub(crate) fn load(setting: &str) -> Option<Vendor> {
    let (candidates, name) = if is_library(setting) {
        (vec![PathBuf::from(setting)], None)
    } else {
        let dir = std::env::var_os("OCL_ICD_VENDORS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        (icd_libraries(dir.as_deref()), Some(setting))
    };
    let mut why = Vec::new();
    for lib in &candidates {
        match try_library(lib, name) {
            Ok(Some(v)) => return Some(v),
            Ok(None) => {}
            Err(e) => why.push(format!("{}: {e}", lib.display())),
        }
    }
    let what = match name {
        Some(n) => format!("no vendor library has a platform named like `{n}`"),
        None => "cannot use the vendor library".to_string(),
    };
    eprintln!(
        "ShadowCL: SHADOWCL_FORWARD={setting}: {what}{}{}; ShadowCL exposes no platform",
        if why.is_empty() { "" } else { " (" },
        if why.is_empty() {
            String::new()
        } else {
            why.join("; ") + ")"
        },
    );
    None
}

/// Loads one library and returns it when it has platforms (matching `name`, if given).
fn try_library(path: &Path, name: Option<&str>) -> Result<Option<Vendor>, String> {
    // SAFETY: loading an OpenCL ICD runs its initialisers, as the ICD loader itself would.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
    // SAFETY: the ICD entry points have these C signatures (cl_khr_icd).
    let get_ids: IcdGetPlatformIds = unsafe {
        match lib.get::<IcdGetPlatformIds>(b"clIcdGetPlatformIDsKHR\0") {
            Ok(f) => *f,
            Err(_) => {
                let ext = lib
                    .get::<GetExtAddr>(b"clGetExtensionFunctionAddress\0")
                    .map_err(|_| "not an OpenCL ICD: no clIcdGetPlatformIDsKHR".to_string())?;
                let p = ext(c"clIcdGetPlatformIDsKHR".as_ptr());
                if p.is_null() {
                    return Err("not an OpenCL ICD: no clIcdGetPlatformIDsKHR".into());
                }
                std::mem::transmute::<*mut c_void, IcdGetPlatformIds>(p)
            }
        }
    };
    let ours: IcdGetPlatformIds = crate::api::platform::clIcdGetPlatformIDsKHR;
    if get_ids as usize == ours as usize {
        return Ok(None); // ourselves
    }
    let mut n: cl_uint = 0;
    // SAFETY: size query of the vendor's platform list.
    let r = unsafe { get_ids(0, std::ptr::null_mut(), &mut n) };
    if r != CL_SUCCESS || n == 0 {
        return Err(format!("clIcdGetPlatformIDsKHR found no platform ({r})"));
    }
    let mut ps = vec![std::ptr::null_mut(); n as usize];
    // SAFETY: ps has room for n platforms.
    let r = unsafe { get_ids(n, ps.as_mut_ptr(), std::ptr::null_mut()) };
    if r != CL_SUCCESS {
        return Err(format!("clIcdGetPlatformIDsKHR failed ({r})"));
    }
    let mut keep = Vec::new();
    for p in ps.into_iter().filter(|p| !p.is_null()) {
        // SAFETY: an ICD platform handle starts with its dispatch table pointer (cl_khr_icd).
        let table = unsafe { (p as *const usize).read() };
        if table == 0 {
            continue;
        }
        if let Some(n) = name {
            if !platform_name(table, p).is_some_and(|pn| pn.contains(n)) {
                continue;
            }
        }
        set_table(table);
        keep.push(wrap_new(Kind::Platform, p, false) as usize);
    }
    if keep.is_empty() {
        return Ok(None);
    }
    Ok(Some(Vendor {
        _lib: lib,
        platforms: keep,
    }))
}

fn platform_name(table: usize, p: cl_platform_id) -> Option<String> {
    let off = std::mem::offset_of!(crate::gen::dispatch::IcdDispatch, clGetPlatformInfo);
    // SAFETY: table is the vendor's dispatch table (cl_icd.h layout).
    let w = unsafe { ((table + off) as *const usize).read() };
    if w == 0 {
        return None;
    }
    // SAFETY: the clGetPlatformInfo slot.
    let f = unsafe { std::mem::transmute::<usize, GetPlatformInfo>(w) };
    let mut buf = vec![0u8; 1024];
    let mut len = 0usize;
    // SAFETY: buf has 1024 bytes.
    let r = unsafe {
        f(
            p,
            CL_PLATFORM_NAME,
            buf.len(),
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if r != CL_SUCCESS {
        return None;
    }
    buf.truncate(len.min(1024));
    Some(
        String::from_utf8_lossy(&buf)
            .trim_end_matches('\0')
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_or_name() {
        assert!(is_library("/usr/lib/x86_64-linux-gnu/libpocl.so.2"));
        assert!(is_library("libpocl.so.2"));
        assert!(!is_library("Portable"));
    }

    #[test]
    fn icd_files_are_read_in_order_without_duplicates() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("b.icd"), "/x/libb.so\n").unwrap();
        std::fs::write(d.path().join("a.icd"), "/x/liba.so\n").unwrap();
        std::fs::write(d.path().join("a.icd.txt"), "/x/ignored.so\n").unwrap();
        let libs = icd_libraries(Some(d.path()));
        assert_eq!(
            &libs[..2],
            &[PathBuf::from("/x/liba.so"), PathBuf::from("/x/libb.so")]
        );
        assert!(!libs.contains(&PathBuf::from("/x/ignored.so")));
        let one = icd_libraries(Some(&d.path().join("b.icd")));
        assert_eq!(one[0], PathBuf::from("/x/libb.so"));
    }

    #[test]
    fn a_missing_library_is_an_error_not_a_crash() {
        assert!(try_library(Path::new("/nonexistent/libvendor.so"), None).is_err());
        assert!(load("/nonexistent/libvendor.so").is_none());
    }
}
