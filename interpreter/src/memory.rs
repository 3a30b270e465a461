//! Device memory: buffers shared by the platform library (host commands) and the executor.
//!
//! Kernels may race on purpose (that is what we detect), and host commands may touch a buffer
//! while a kernel runs. To keep that defined behaviour in Rust, every access to buffer bytes is
//! a relaxed atomic of the access width (on x86 and ARM these compile to plain moves).

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// Identity of an allocation, stable for the buffer's lifetime and unique in the process.
/// Local-memory allocations use [`AllocId::local`]: slot numbers with the top bit set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AllocId(pub u64);

impl AllocId {
    const LOCAL_BIT: u64 = 1 << 63;

    pub fn local(slot: u32) -> AllocId {
        AllocId(Self::LOCAL_BIT | slot as u64)
    }
    pub fn is_local(self) -> bool {
        self.0 & Self::LOCAL_BIT != 0
    }
    /// The slot of a local allocation.
    pub fn local_slot(self) -> Option<u32> {
        self.is_local()
            .then_some((self.0 & !Self::LOCAL_BIT) as u32)
    }
    fn fresh() -> AllocId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        AllocId(NEXT.fetch_add(1, Relaxed))
    }
}

/// A range outside a buffer.
fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bytes {offset}..{offset}+{size} are outside a buffer of {len} bytes")]
pub struct OutOfRange {
    pub offset: usize,
    pub size: usize,
    pub len: usize,
}

/// One 128-byte line of owned buffer memory. Buffers start on such a line, the alignment the
/// device reports (`CL_DEVICE_MEM_BASE_ADDR_ALIGN`), and no other allocation shares their
/// first or last cache line.
#[repr(C, align(128))]
#[derive(Default)]
struct Line([AtomicU64; 16]);

const LINE: usize = std::mem::size_of::<Line>();

enum Storage {
    /// Zero-initialised memory we own; u64 words so every naturally aligned access is aligned.
    Owned(#[allow(dead_code)] Box<[Line]>),
    /// The application's memory (`CL_MEM_USE_HOST_PTR`), which it keeps alive while the
    /// buffer exists, as the OpenCL specification requires.
    Host,
}

/// A global-memory allocation.
pub struct Buffer {
    id: AllocId,
    base: *mut u8,
    len: usize,
    _storage: Storage,
}

// SAFETY: all access to the bytes behind `base` goes through atomics (see the module comment),
// and `base` stays valid for the buffer's lifetime (owned storage, or the host pointer the
// application guarantees).
unsafe impl Send for Buffer {}
// SAFETY: as above.
unsafe impl Sync for Buffer {}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("id", &self.id)
            .field("len", &self.len)
            .finish()
    }
}

impl Buffer {
    /// A zero-filled buffer of `len` bytes; `None` when the memory cannot be had.
    pub fn new(len: usize) -> Option<Arc<Buffer>> {
        let lines = len.div_ceil(LINE).max(1);
        let mut v: Vec<Line> = Vec::new();
        v.try_reserve_exact(lines).ok()?;
        v.resize_with(lines, Line::default);
        let mut storage = v.into_boxed_slice();
        let base = storage.as_mut_ptr() as *mut u8;
        Some(Arc::new(Buffer {
            id: AllocId::fresh(),
            base,
            len,
            _storage: Storage::Owned(storage),
        }))
    }

    /// A buffer that lives in the application's memory.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes for the whole life of the
    /// returned buffer, and must not be accessed by the host through non-atomic means while a
    /// command that uses the buffer runs (the OpenCL rule for `CL_MEM_USE_HOST_PTR`).
    pub unsafe fn from_host_ptr(ptr: *mut u8, len: usize) -> Arc<Buffer> {
        Arc::new(Buffer {
            id: AllocId::fresh(),
            base: ptr,
            len,
            _storage: Storage::Host,
        })
    }

    pub fn id(&self) -> AllocId {
        self.id
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Base address in this process (for `CL_MEM_USE_HOST_PTR` and map pointers).
    pub fn host_ptr(&self) -> *mut u8 {
        self.base
    }

    fn check(&self, offset: usize, size: usize) -> Result<(), OutOfRange> {
        match offset.checked_add(size) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(OutOfRange {
                offset,
                size,
                len: self.len,
            }),
        }
    }

    fn byte(&self, i: usize) -> &AtomicU8 {
        debug_assert!(i < self.len);
        // SAFETY: i < len, base is valid for len bytes (type invariant); AtomicU8 has no
        // alignment requirement.
        unsafe { AtomicU8::from_ptr(self.base.add(i)) }
    }

    /// Bytes from `offset` before the first 8-byte aligned address (at most `size`).
    fn head(&self, offset: usize, size: usize) -> usize {
        let addr = (self.base as usize).wrapping_add(offset);
        (addr.wrapping_neg() % 8).min(size)
    }

    /// Copies bytes out of the buffer (word by word where aligned: a big read stays fast).
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), OutOfRange> {
        self.check(offset, dst.len())?;
        let head = self.head(offset, dst.len());
        let (h, rest) = dst.split_at_mut(head);
        for (i, d) in h.iter_mut().enumerate() {
            *d = self.byte(offset + i).load(Relaxed);
        }
        let mut words = rest.chunks_exact_mut(8);
        let mut at = offset + head;
        for w in &mut words {
            // In range (checked above) and aligned: `load` takes the 8-byte atomic.
            let v = self.load(at, 8).unwrap_or(0);
            w.copy_from_slice(&v.to_le_bytes());
            at += 8;
        }
        for (i, d) in words.into_remainder().iter_mut().enumerate() {
            *d = self.byte(at + i).load(Relaxed);
        }
        Ok(())
    }

    /// Copies bytes into the buffer (word by word where aligned).
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<(), OutOfRange> {
        self.check(offset, src.len())?;
        let head = self.head(offset, src.len());
        let (h, rest) = src.split_at(head);
        for (i, s) in h.iter().enumerate() {
            self.byte(offset + i).store(*s, Relaxed);
        }
        let words = rest.chunks_exact(8);
        let tail = words.remainder();
        let mut at = offset + head;
        for w in words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            let _ = self.store(at, 8, u64::from_le_bytes(b));
            at += 8;
        }
        for (i, s) in tail.iter().enumerate() {
            self.byte(at + i).store(*s, Relaxed);
        }
        Ok(())
    }

    /// Repeats `pattern` over `size` bytes from `offset` (`clEnqueueFillBuffer`): byte by
    /// byte up to an aligned address, then a cycle of 8-byte words (a fill of hundreds of
    /// megabytes must not cost a division per byte).
    pub fn fill(&self, offset: usize, size: usize, pattern: &[u8]) -> Result<(), OutOfRange> {
        self.check(offset, size)?;
        let n = pattern.len();
        if n == 0 {
            return Ok(());
        }
        let head = self.head(offset, size);
        for i in 0..head {
            self.byte(offset + i).store(pattern[i % n], Relaxed);
        }
        // From `head` on, the bytes repeat with period lcm(n, 8): that many words of them.
        let period = n / gcd(n, 8) * 8;
        let cycle: Vec<u64> = (0..period / 8)
            .map(|w| {
                let mut b = [0u8; 8];
                for (k, x) in b.iter_mut().enumerate() {
                    *x = pattern[(head + w * 8 + k) % n];
                }
                u64::from_le_bytes(b)
            })
            .collect();
        let words = (size - head) / 8;
        for (w, v) in (0..words).zip(cycle.iter().cycle()) {
            let _ = self.store(offset + head + w * 8, 8, *v);
        }
        for i in head + words * 8..size {
            self.byte(offset + i).store(pattern[i % n], Relaxed);
        }
        Ok(())
    }

    /// A new buffer holding these bytes as they are now (a snapshot; another id); `None` when
    /// the memory cannot be had.
    pub fn copy(&self) -> Option<Arc<Buffer>> {
        let copy = Buffer::new(self.len)?;
        copy.overwrite_with(self).ok()?;
        Some(copy)
    }

    /// Makes these bytes those of `src`, a buffer of the same length, word by word.
    pub fn overwrite_with(&self, src: &Buffer) -> Result<(), OutOfRange> {
        src.check(0, self.len)?;
        self.check(0, src.len)?;
        let words = self.len / 8;
        for w in 0..words {
            let v = src.load(w * 8, 8).ok_or(OutOfRange {
                offset: w * 8,
                size: 8,
                len: src.len,
            })?;
            self.store(w * 8, 8, v);
        }
        for i in words * 8..self.len {
            self.byte(i).store(src.byte(i).load(Relaxed), Relaxed);
        }
        Ok(())
    }

    /// Copies `size` bytes from `src` (which may be `self`; overlapping ranges behave as memmove).
    pub fn copy_from(
        &self,
        dst_offset: usize,
        src: &Buffer,
        src_offset: usize,
        size: usize,
    ) -> Result<(), OutOfRange> {
        self.check(dst_offset, size)?;
        src.check(src_offset, size)?;
        let mut tmp = vec![0u8; size];
        src.read(src_offset, &mut tmp)?;
        self.write(dst_offset, &tmp)
    }

    /// Loads a little-endian value of 1, 2, 4 or 8 bytes (the executor's fast path).
    /// Unaligned or odd-sized loads fall back to bytes. Returns `None` out of range.
    #[inline(always)] // the executor's hottest call; LLVM would not inline it across its many uses
    pub fn load(&self, offset: usize, size: usize) -> Option<u64> {
        self.check(offset, size).ok()?;
        // SAFETY: in range (checked above); each typed atomic is used only at its alignment.
        let p = unsafe { self.base.add(offset) };
        Some(match size {
            1 => self.byte(offset).load(Relaxed) as u64,
            2 if (p as usize).is_multiple_of(2) => {
                unsafe { AtomicU16::from_ptr(p as *mut u16) }.load(Relaxed) as u64
            }
            4 if (p as usize).is_multiple_of(4) => {
                unsafe { AtomicU32::from_ptr(p as *mut u32) }.load(Relaxed) as u64
            }
            8 if (p as usize).is_multiple_of(8) => {
                unsafe { AtomicU64::from_ptr(p as *mut u64) }.load(Relaxed)
            }
            _ => {
                let mut b = [0u8; 8];
                let n = size.min(8);
                for (i, x) in b[..n].iter_mut().enumerate() {
                    *x = self.byte(offset + i).load(Relaxed);
                }
                u64::from_le_bytes(b)
            }
        })
    }

    /// Stores the low `size` bytes (1, 2, 4 or 8) of `value`, little-endian. `None` out of range.
    #[inline(always)] // as `load`
    pub fn store(&self, offset: usize, size: usize, value: u64) -> Option<()> {
        self.check(offset, size).ok()?;
        // SAFETY: as in `load`.
        let p = unsafe { self.base.add(offset) };
        match size {
            1 => self.byte(offset).store(value as u8, Relaxed),
            2 if (p as usize).is_multiple_of(2) => {
                unsafe { AtomicU16::from_ptr(p as *mut u16) }.store(value as u16, Relaxed)
            }
            4 if (p as usize).is_multiple_of(4) => {
                unsafe { AtomicU32::from_ptr(p as *mut u32) }.store(value as u32, Relaxed)
            }
            8 if (p as usize).is_multiple_of(8) => {
                unsafe { AtomicU64::from_ptr(p as *mut u64) }.store(value, Relaxed)
            }
            _ => {
                let b = value.to_le_bytes();
                for (i, x) in b[..size.min(8)].iter().enumerate() {
                    self.byte(offset + i).store(*x, Relaxed);
                }
            }
        }
        Some(())
    }

    /// The 32-bit atomic at `offset`, when in range and 4-byte aligned.
    pub fn atomic_u32(&self, offset: usize) -> Option<&AtomicU32> {
        self.check(offset, 4).ok()?;
        // SAFETY: in range; alignment checked before the cast.
        let p = unsafe { self.base.add(offset) };
        (p as usize)
            .is_multiple_of(4)
            .then(|| unsafe { AtomicU32::from_ptr(p as *mut u32) })
    }

    /// The 32-bit atomics of the `count` words from `offset`, when in range and 4-byte
    /// aligned: the lanes of a lockstep operation over one span of words then look each of
    /// theirs up with no range test of its own.
    pub fn atomic_u32s(&self, offset: usize, count: usize) -> Option<&[AtomicU32]> {
        self.check(offset, count.checked_mul(4)?).ok()?;
        // SAFETY: `offset` is in range (checked above).
        let p = unsafe { self.base.add(offset) };
        // SAFETY: the `4 * count` bytes from `p` are inside the buffer, `p` is 4-byte aligned
        // (tested before the cast), and the buffer's bytes live as long as `self` and are
        // read and written only through atomics while it is shared.
        (p as usize)
            .is_multiple_of(4)
            .then(|| unsafe { std::slice::from_raw_parts(p as *const AtomicU32, count) })
    }

    /// The 64-bit atomic at `offset`, when in range and 8-byte aligned.
    pub fn atomic_u64(&self, offset: usize) -> Option<&AtomicU64> {
        self.check(offset, 8).ok()?;
        // SAFETY: in range; alignment checked before the cast.
        let p = unsafe { self.base.add(offset) };
        (p as usize)
            .is_multiple_of(8)
            .then(|| unsafe { AtomicU64::from_ptr(p as *mut u64) })
    }
}

/// A window of a buffer's bytes for the executor's hot path: one range check against the
/// window, then the same atomics as [`Buffer::load`]/[`Buffer::store`].
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    base: *mut u8,
    len: u64,
    _buf: std::marker::PhantomData<&'a Buffer>,
}

// SAFETY: a view only reaches its buffer's bytes through atomics, like `Buffer` itself, and
// borrows the buffer for its lifetime.
unsafe impl Send for View<'_> {}
// SAFETY: as above.
unsafe impl Sync for View<'_> {}

impl View<'_> {
    /// A view no access fits in.
    pub(crate) const EMPTY: View<'static> = View {
        base: std::ptr::null_mut(),
        len: 0,
        _buf: std::marker::PhantomData,
    };

    #[inline(always)]
    fn at(&self, off: i64, size: usize) -> Option<*mut u8> {
        let end = (off as u64).checked_add(size as u64)?;
        if off < 0 || end > self.len {
            return None;
        }
        // SAFETY: off + size <= len, and base is valid for len bytes (`Buffer::view`).
        Some(unsafe { self.base.add(off as usize) })
    }

    /// As [`Buffer::load`], at `off` bytes into the view; `None` outside it.
    #[inline(always)]
    pub(crate) fn load(&self, off: i64, size: usize) -> Option<u64> {
        let p = self.at(off, size)?;
        // SAFETY: `p..p + size` is inside the buffer (`at`); each typed atomic is used only
        // at its alignment; bytes are read as AtomicU8 (no alignment needed).
        Some(unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).load(Relaxed) as u64,
                2 if (p as usize).is_multiple_of(2) => {
                    AtomicU16::from_ptr(p as *mut u16).load(Relaxed) as u64
                }
                4 if (p as usize).is_multiple_of(4) => {
                    AtomicU32::from_ptr(p as *mut u32).load(Relaxed) as u64
                }
                8 if (p as usize).is_multiple_of(8) => {
                    AtomicU64::from_ptr(p as *mut u64).load(Relaxed)
                }
                _ => {
                    let mut b = [0u8; 8];
                    for (i, x) in b[..size.min(8)].iter_mut().enumerate() {
                        *x = AtomicU8::from_ptr(p.add(i)).load(Relaxed);
                    }
                    u64::from_le_bytes(b)
                }
            }
        })
    }

    /// As [`Buffer::store`], at `off` bytes into the view; `None` (nothing written) outside it.
    #[inline(always)]
    pub(crate) fn store(&self, off: i64, size: usize, value: u64) -> Option<()> {
        let p = self.at(off, size)?;
        // SAFETY: as in `load`.
        unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).store(value as u8, Relaxed),
                2 if (p as usize).is_multiple_of(2) => {
                    AtomicU16::from_ptr(p as *mut u16).store(value as u16, Relaxed)
                }
                4 if (p as usize).is_multiple_of(4) => {
                    AtomicU32::from_ptr(p as *mut u32).store(value as u32, Relaxed)
                }
                8 if (p as usize).is_multiple_of(8) => {
                    AtomicU64::from_ptr(p as *mut u64).store(value, Relaxed)
                }
                _ => {
                    let b = value.to_le_bytes();
                    for (i, x) in b[..size.min(8)].iter().enumerate() {
                        AtomicU8::from_ptr(p.add(i)).store(*x, Relaxed);
                    }
                }
            }
        }
        Some(())
    }
}

impl Buffer {
    /// The bytes `offset..offset + len` as a [`View`]; `None` when they are not all inside.
    pub(crate) fn view(&self, offset: u64, len: u64) -> Option<View<'_>> {
        let end = offset.checked_add(len)?;
        if end > self.len as u64 {
            return None;
        }
        Some(View {
            // SAFETY: offset <= len (checked above), base is valid for len bytes.
            base: unsafe { self.base.add(offset as usize) },
            len,
            _buf: std::marker::PhantomData,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_hold_the_bytes_and_spares_take_new_ones() {
        let src = Buffer::new(21).unwrap();
        let bytes: Vec<u8> = (1..=21).collect();
        src.write(0, &bytes).unwrap();
        let copy = src.copy().unwrap();
        assert_ne!(copy.id(), src.id());
        let mut got = vec![0; 21];
        copy.read(0, &mut got).unwrap();
        assert_eq!(got, bytes);
        src.fill(0, 21, &[7]).unwrap();
        copy.overwrite_with(&src).unwrap();
        copy.read(0, &mut got).unwrap();
        assert_eq!(got, vec![7; 21]);
        assert!(copy.overwrite_with(&Buffer::new(20).unwrap()).is_err());
    }

    #[test]
    fn word_spans_are_the_buffers_words_in_range_and_aligned_only() {
        let b = Buffer::new(40).unwrap();
        b.write(0, &(0..40).collect::<Vec<u8>>()).unwrap();
        let words = b.atomic_u32s(8, 8).unwrap();
        assert_eq!(words.len(), 8);
        assert_eq!(words[0].load(Relaxed), u32::from_le_bytes([8, 9, 10, 11]));
        words[7].store(0xDEAD_BEEF, Relaxed);
        assert_eq!(b.load(36, 4), Some(0xDEAD_BEEF));
        // Past the end, misaligned, or a count whose bytes overflow: none.
        assert!(b.atomic_u32s(8, 9).is_none());
        assert!(b.atomic_u32s(2, 1).is_none());
        assert!(b.atomic_u32s(4, usize::MAX / 2).is_none());
        assert_eq!(b.atomic_u32s(40, 0).map(<[_]>::len), Some(0));
    }

    #[test]
    fn owned_buffers_start_on_the_reported_alignment() {
        for len in [1, 100, 128, 4096, 300_000] {
            let b = Buffer::new(len).unwrap();
            assert_eq!(b.base as usize % 128, 0, "{len}");
            assert_eq!(b.len(), len);
            assert!(b.write(len - 1, &[7]).is_ok() && b.write(len, &[7]).is_err());
        }
    }

    #[test]
    fn word_wise_fill_read_and_write_match_byte_by_byte() {
        // Every phase of start and end against the 8-byte words, patterns of every length
        // OpenCL allows and some it does not.
        let b = Buffer::new(96).unwrap();
        for n in [1usize, 2, 3, 4, 8, 12, 16, 64] {
            let pattern: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
            for offset in 0..9 {
                for size in [0usize, 1, 7, 8, 9, 15, 16, 17, 64, 80] {
                    b.write(0, &[0xEE; 96]).unwrap();
                    b.fill(offset, size, &pattern).unwrap();
                    let mut got = [0u8; 96];
                    b.read(0, &mut got).unwrap();
                    let mut want = [0xEEu8; 96];
                    for i in 0..size {
                        want[offset + i] = pattern[i % n];
                    }
                    assert_eq!(got, want, "fill {n}-byte pattern at {offset}, {size} bytes");
                    let src: Vec<u8> = (0..size as u8).collect();
                    b.write(offset, &src).unwrap();
                    let mut back = vec![0u8; size];
                    b.read(offset, &mut back).unwrap();
                    assert_eq!(back, src);
                    for i in 0..size {
                        assert_eq!(b.load(offset + i, 1), Some(i as u64));
                    }
                }
            }
        }
    }

    #[test]
    fn read_write_fill_copy_and_bounds() {
        let b = Buffer::new(16).unwrap();
        b.write(2, &[1, 2, 3]).unwrap();
        let mut out = [0u8; 5];
        b.read(1, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 0]);
        assert!(b.write(15, &[1, 2]).is_err());
        assert!(b.read(usize::MAX, &mut out).is_err());
        b.fill(8, 8, &[0xAB, 0xCD]).unwrap();
        assert_eq!(b.load(8, 2), Some(0xCDAB));
        b.copy_from(0, &b, 8, 4).unwrap();
        assert_eq!(b.load(0, 4), Some(0xCDABCDAB));
        assert_eq!(b.load(13, 4), None);
        b.store(3, 4, 0x11223344).unwrap(); // unaligned path
        assert_eq!(b.load(3, 4), Some(0x11223344));
        assert_ne!(b.id(), Buffer::new(1).unwrap().id());
        assert!(AllocId::local(3).is_local() && AllocId::local(3).local_slot() == Some(3));
    }

    #[test]
    fn views_access_their_window_only() {
        let b = Buffer::new(16).unwrap();
        let v = b.view(4, 8).unwrap();
        assert_eq!(v.store(0, 4, 0x11223344), Some(()));
        assert_eq!(b.load(4, 4), Some(0x11223344));
        assert_eq!(v.store(1, 4, 0xAABBCCDD), Some(())); // unaligned path
        assert_eq!(v.load(1, 4), Some(0xAABBCCDD));
        assert_eq!(b.load(5, 4), Some(0xAABBCCDD));
        assert_eq!(v.load(4, 4), b.load(8, 4));
        assert_eq!(v.load(5, 4), None);
        assert_eq!(v.load(-1, 1), None);
        assert_eq!(v.store(8, 1, 0), None);
        assert_eq!(v.load(i64::MAX, 8), None);
        assert!(b.view(12, 8).is_none() && b.view(u64::MAX, 2).is_none());
        assert_eq!(View::EMPTY.load(0, 1), None);
    }
}
