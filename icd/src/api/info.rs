//! The size protocol of every `clGet*Info` query, and the raw-pointer helpers of the C ABI.

use crate::consts::*;
use crate::types::*;
use std::ffi::{c_char, c_void, CStr};

/// Plain C data that can be copied out byte for byte.
///
/// # Safety
/// Implementors must have no padding and no invalid bit patterns.
pub unsafe trait Pod: Copy + 'static {}
macro_rules! pod {
    ($($t:ty),*) => {$(
        // SAFETY: integer / pointer types and arrays of them have no padding.
        unsafe impl Pod for $t {}
    )*};
}
pod!(
    i8,
    u8,
    i16,
    u16,
    i32,
    u32,
    i64,
    u64,
    isize,
    usize,
    [usize; 3],
    cl_image_format
);
// SAFETY: raw pointers are plain addresses.
unsafe impl<T: 'static> Pod for *mut T {}
// SAFETY: u32 then [u8; 64]: no padding.
unsafe impl Pod for cl_name_version {}

/// Bytes of one value.
pub fn bytes_of<T: Pod>(v: &T) -> Vec<u8> {
    bytes_of_slice(std::slice::from_ref(v))
}

/// Bytes of a slice of values.
pub fn bytes_of_slice<T: Pod>(v: &[T]) -> Vec<u8> {
    // SAFETY: T is Pod (no padding), the slice is valid for size_of_val bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        .to_vec()
}

/// A query answer in its C representation.
pub trait InfoValue {
    fn info_bytes(&self) -> Vec<u8>;
}
impl<T: Pod> InfoValue for T {
    fn info_bytes(&self) -> Vec<u8> {
        bytes_of(self)
    }
}
impl<T: Pod> InfoValue for [T] {
    fn info_bytes(&self) -> Vec<u8> {
        bytes_of_slice(self)
    }
}
impl<T: Pod> InfoValue for Vec<T> {
    fn info_bytes(&self) -> Vec<u8> {
        bytes_of_slice(self)
    }
}
impl InfoValue for str {
    fn info_bytes(&self) -> Vec<u8> {
        let mut v = self.as_bytes().to_vec();
        v.push(0);
        v
    }
}
impl InfoValue for String {
    fn info_bytes(&self) -> Vec<u8> {
        self.as_str().info_bytes()
    }
}

/// Shorthand used by the query functions.
pub fn v<T: InfoValue + ?Sized>(x: &T) -> Result<Vec<u8>, cl_int> {
    Ok(x.info_bytes())
}

/// `cl_name_version` with a name truncated to 63 bytes.
pub fn name_version(name: &str, version: cl_version) -> cl_name_version {
    let mut n = [0u8; 64];
    for (d, s) in n.iter_mut().zip(name.bytes().take(63)) {
        *d = s;
    }
    cl_name_version { version, name: n }
}

/// The size protocol shared by every `clGet*Info`: reports the size through
/// `param_value_size_ret`, copies into `param_value` when it is not NULL, and fails with
/// `CL_INVALID_VALUE` when the application's buffer is too small.
pub(crate) fn write_info(
    answer: Result<Vec<u8>, cl_int>,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> Result<(), cl_int> {
    let bytes = answer?;
    if !param_value.is_null() {
        if param_value_size < bytes.len() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: the application guarantees param_value has param_value_size bytes, which we
        // checked is at least bytes.len().
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), param_value.cast::<u8>(), bytes.len())
        };
    }
    if !param_value_size_ret.is_null() {
        // SAFETY: a non-NULL size_ret points to a size_t (spec).
        unsafe { param_value_size_ret.write(bytes.len()) };
    }
    Ok(())
}

/// Reads the application's array `(ptr, n)`; `Err(err)` when `n > 0` and `ptr` is NULL.
pub(crate) fn slice<'a, T>(ptr: *const T, n: usize, err: cl_int) -> Result<&'a [T], cl_int> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(err);
    }
    // SAFETY: the application passes an array of n elements (spec of every such parameter).
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// Writes an out-parameter when it is not NULL.
pub(crate) fn out<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL out-parameters point to storage of their type (spec).
        unsafe { ptr.write(value) };
    }
}

/// A NUL-terminated C string, or `None` for NULL.
pub(crate) fn cstr(ptr: *const c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the application passes a NUL-terminated string (spec).
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// A zero-terminated property list (`cl_context_properties`, `cl_queue_properties`, ...),
/// as (name, value) pairs; the terminating 0 not included.
pub(crate) fn properties<T: Copy + Default + PartialEq>(
    ptr: *const T,
) -> Result<Vec<(T, T)>, cl_int> {
    let mut out = Vec::new();
    if ptr.is_null() {
        return Ok(out);
    }
    let mut i = 0usize;
    loop {
        // SAFETY: the list is zero-terminated with name/value pairs (spec); we stop at 0.
        let name = unsafe { ptr.add(i).read() };
        if name == T::default() {
            return Ok(out);
        }
        // SAFETY: as above: a non-zero name is followed by its value.
        let value = unsafe { ptr.add(i + 1).read() };
        out.push((name, value));
        i += 2;
        if i > 1024 {
            return Err(CL_INVALID_PROPERTY);
        }
    }
}

/// The property list as the application passed it, kept for the `*_PROPERTIES` queries:
/// the pairs and the terminating 0, or an empty list when `ptr` was NULL (the queries then
/// answer with size 0).
pub(crate) fn properties_as_passed<T: Copy + Default>(ptr: *const T, pairs: &[(T, T)]) -> Vec<T> {
    let mut list: Vec<T> = pairs.iter().flat_map(|&(n, v)| [n, v]).collect();
    if !ptr.is_null() {
        list.push(T::default());
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_protocol() {
        let mut size = 0usize;
        // Size only.
        write_info(v(&7u32), 0, std::ptr::null_mut(), &mut size).ok();
        assert_eq!(size, 4);
        // Too small.
        let mut buf = [0u8; 2];
        let r = write_info(v(&7u32), 2, buf.as_mut_ptr().cast(), &mut size);
        assert_eq!(r, Err(CL_INVALID_VALUE));
        // Exact.
        let mut x = 0u32;
        let r = write_info(
            v(&7u32),
            4,
            (&mut x as *mut u32).cast(),
            std::ptr::null_mut(),
        );
        assert_eq!((r, x), (Ok(()), 7));
        // Strings carry their NUL.
        let mut s = [0xffu8; 8];
        write_info(v("abc"), 8, s.as_mut_ptr().cast(), &mut size).ok();
        assert_eq!((&s[..4], size), (&b"abc\0"[..], 4));
        // Errors of the query pass through without touching anything.
        size = 99;
        let r = write_info(Err(CL_INVALID_VALUE), 8, s.as_mut_ptr().cast(), &mut size);
        assert_eq!((r, size), (Err(CL_INVALID_VALUE), 99));
    }

    #[test]
    fn property_lists() {
        let p: [isize; 5] = [1, 2, 3, 4, 0];
        assert_eq!(properties(p.as_ptr()), Ok(vec![(1, 2), (3, 4)]));
        assert_eq!(properties::<isize>(std::ptr::null()), Ok(vec![]));
        assert_eq!(slice::<u8>(std::ptr::null(), 1, -30), Err(-30));
    }
}
