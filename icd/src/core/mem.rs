//! Memory objects (buffers and sub-buffers; images are [`crate::core::image`]'s) and what
//! commands do with their bytes.

use crate::consts::*;
use crate::core::context::Context;
use crate::core::image::ImageInfo;
use crate::core::launch;
use crate::core::object::{self, ClObject, Ref};
use crate::core::UserPtr;
use crate::types::*;
use parking_lot::Mutex;
use shadowcl_interpreter::Buffer;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

pub type MemDestructorFn = unsafe extern "C" fn(cl_mem, *mut c_void);

pub struct Mem {
    pub context: Ref<Context>,
    pub flags: cl_mem_flags,
    pub size: usize,
    /// The application's pointer for `CL_MEM_USE_HOST_PTR` (NULL otherwise).
    pub host_ptr: UserPtr,
    /// The storage (shared with the parent for sub-buffers).
    pub storage: Arc<Buffer>,
    /// Offset of this object's bytes in `storage`.
    pub offset: usize,
    pub parent: Option<Ref<Mem>>,
    pub properties: Vec<cl_mem_properties>,
    pub map_count: AtomicU32,
    /// The live mappings, by the pointer handed out (the newest last).
    mappings: Mutex<Vec<(usize, Mapping)>>,
    destructors: Mutex<Vec<(MemDestructorFn, UserPtr)>>,
    /// Set for image objects ([`crate::core::image`]).
    pub image: Option<ImageInfo>,
}

/// A memory object over `storage` (images: [`crate::core::image`] builds them through this).
pub(crate) fn new_mem(
    context: Ref<Context>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: UserPtr,
    storage: Arc<Buffer>,
    properties: Vec<cl_mem_properties>,
    image: Option<ImageInfo>,
) -> Ref<Mem> {
    object::create(Mem {
        context,
        flags,
        size,
        host_ptr,
        storage,
        offset: 0,
        parent: None,
        properties,
        map_count: AtomicU32::new(0),
        mappings: Mutex::new(Vec::new()),
        destructors: Mutex::new(Vec::new()),
        image,
    })
}

impl ClObject for Mem {
    const TAG: u32 = 0x5C1_0005;
    const INVALID: i32 = CL_INVALID_MEM_OBJECT;
    type Handle = cl_mem;
    fn destroyed(&self, handle: *mut c_void) {
        // A 1-D buffer image shares its buffer's storage, which outlives it.
        let shares_storage = self.image.as_ref().is_some_and(|i| i.buffer.is_some());
        if self.parent.is_none() && !shares_storage {
            launch::buffer_released(self.storage.id());
        }
        let cbs = std::mem::take(&mut *self.destructors.lock());
        for (f, user) in cbs.into_iter().rev() {
            // SAFETY: the application's destructor callback, called once.
            unsafe { f(handle.cast(), user.0) };
        }
    }
}

pub fn get_mem(m: cl_mem) -> Result<Ref<Mem>, cl_int> {
    object::get::<Mem, _>(m)
}

impl Mem {
    /// A new buffer of `size` bytes (flags already checked): over the application's memory
    /// for `CL_MEM_USE_HOST_PTR`, else owned, holding `copy` (`CL_MEM_COPY_HOST_PTR`).
    pub fn new_buffer(
        context: Ref<Context>,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: UserPtr,
        copy: Option<&[u8]>,
        properties: Vec<cl_mem_properties>,
    ) -> Result<Ref<Mem>, cl_int> {
        let storage = if flags & CL_MEM_USE_HOST_PTR != 0 {
            // SAFETY: CL_MEM_USE_HOST_PTR: the application keeps `size` bytes at host_ptr valid
            // for the buffer's lifetime and does not touch them while commands use it (spec).
            unsafe { Buffer::from_host_ptr(host_ptr.0.cast(), size) }
        } else {
            let b = Buffer::new(size).ok_or(CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
            if let Some(src) = copy {
                b.write(0, src).map_err(|_| CL_INVALID_HOST_PTR)?;
            }
            b
        };
        launch::buffer_created(
            &storage,
            flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0,
        );
        launch::memory_object_created(&storage, 0, size, flags);
        Ok(object::create(Mem {
            context,
            flags,
            size,
            host_ptr: UserPtr(if flags & CL_MEM_USE_HOST_PTR != 0 {
                host_ptr.0
            } else {
                std::ptr::null_mut()
            }),
            storage,
            offset: 0,
            parent: None,
            properties,
            map_count: AtomicU32::new(0),
            mappings: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
            image: None,
        }))
    }

    /// A sub-buffer of `parent` (region and flags already checked): its bytes are the
    /// parent's from `origin` on.
    pub fn new_sub_buffer(
        parent: &Ref<Mem>,
        flags: cl_mem_flags,
        origin: usize,
        size: usize,
    ) -> Ref<Mem> {
        launch::memory_object_created(&parent.storage, parent.offset + origin, size, flags);
        let host_ptr = if parent.host_ptr.0.is_null() {
            std::ptr::null_mut()
        } else {
            parent.host_ptr.0.wrapping_byte_add(origin)
        };
        object::create(Mem {
            context: parent.context.clone(),
            flags,
            size,
            host_ptr: UserPtr(host_ptr),
            storage: parent.storage.clone(),
            offset: parent.offset + origin,
            parent: Some(parent.clone()),
            properties: Vec::new(),
            map_count: AtomicU32::new(0),
            mappings: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
            image: None,
        })
    }

    /// Registers a callback to run when the object is destroyed (the last registered first).
    pub fn add_destructor(&self, f: MemDestructorFn, user: UserPtr) {
        self.destructors.lock().push((f, user));
    }

    /// The parameter that names this object in a host command of one object (`buffer`,
    /// `image`) or in a copy (`src_buffer`, `dst_image`, ...): reports call it so.
    pub fn param(&self, role: Role) -> &'static str {
        match (self.image.is_some(), role) {
            (false, Role::Only) => "buffer",
            (false, Role::Src) => "src_buffer",
            (false, Role::Dst) => "dst_buffer",
            (true, Role::Only) => "image",
            (true, Role::Src) => "src_image",
            (true, Role::Dst) => "dst_image",
        }
    }

    /// Reads `dst.len()` bytes from `offset` of this object.
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), cl_int> {
        launch::host_read(
            &self.storage,
            self.param(Role::Only),
            self.offset + offset,
            dst.len(),
        );
        self.storage
            .read(self.offset + offset, dst)
            .map_err(|_| CL_OUT_OF_RESOURCES)
    }

    /// Writes `src` at `offset` of this object, as the host.
    pub fn write(&self, offset: usize, src: &[u8]) -> Result<(), cl_int> {
        launch::host_wrote(
            &self.storage,
            self.param(Role::Only),
            self.offset + offset,
            src.len(),
        );
        self.storage
            .write(self.offset + offset, src)
            .map_err(|_| CL_OUT_OF_RESOURCES)
    }

    /// Copies `size` bytes from `src_offset` of `src` to `offset` of this object.
    pub fn copy_from(
        &self,
        offset: usize,
        src: &Mem,
        src_offset: usize,
        size: usize,
    ) -> Result<(), cl_int> {
        let (sa, da) = (src.offset + src_offset, self.offset + offset);
        launch::host_read(&src.storage, src.param(Role::Src), sa, size);
        launch::host_wrote(&self.storage, self.param(Role::Dst), da, size);
        self.storage
            .copy_from(da, &src.storage, sa, size)
            .map_err(|_| CL_OUT_OF_RESOURCES)
    }

    /// Fills `size` bytes from `offset` with `pattern` repeated.
    pub fn fill(&self, offset: usize, size: usize, pattern: &[u8]) -> Result<(), cl_int> {
        launch::host_wrote(
            &self.storage,
            self.param(Role::Only),
            self.offset + offset,
            size,
        );
        self.storage
            .fill(self.offset + offset, size, pattern)
            .map_err(|_| CL_OUT_OF_RESOURCES)
    }

    /// Moves the rectangle `r` of this object (`region` bytes, rows, slices) to or from the
    /// rectangle `h` of `host`.
    pub fn transfer_rect(
        &self,
        dir: HostTransfer,
        r: &Rect,
        host: &mut [u8],
        h: &Rect,
        region: [usize; 3],
    ) -> Result<(), cl_int> {
        for z in 0..region[2] {
            for y in 0..region[1] {
                let (at, ho) = (self.offset + r.offset(y, z), h.offset(y, z));
                dir.move_row(self, at, &mut host[ho..ho + region[0]])?;
            }
        }
        Ok(())
    }

    /// Copies the rectangle `sr` of `src` to the rectangle `dr` of this object.
    pub fn copy_rect_from(
        &self,
        dr: &Rect,
        src: &Mem,
        sr: &Rect,
        region: [usize; 3],
    ) -> Result<(), cl_int> {
        for z in 0..region[2] {
            for y in 0..region[1] {
                let (sa, da) = (src.offset + sr.offset(y, z), self.offset + dr.offset(y, z));
                launch::host_read(&src.storage, src.param(Role::Src), sa, region[0]);
                launch::host_wrote(&self.storage, self.param(Role::Dst), da, region[0]);
                self.storage
                    .copy_from(da, &src.storage, sa, region[0])
                    .map_err(|_| CL_OUT_OF_RESOURCES)?;
            }
        }
        Ok(())
    }

    /// Maps `len` bytes from `offset` (of the storage, from this object's start), whose
    /// bytes in the storage are `mapping`: the pointer is straight into the storage, and the
    /// host may write through it, so the bytes count as initialised.
    pub fn map(&self, offset: usize, len: usize, mapping: Mapping) -> *mut u8 {
        let p = self.storage.host_ptr().wrapping_add(self.offset + offset);
        self.map_count.fetch_add(1, Ordering::Relaxed);
        self.mappings.lock().push((p as usize, mapping));
        launch::buffer_written_by_host(self.storage.id(), self.offset + offset, len);
        p
    }

    /// Ends one mapping, at `mapped_ptr` (`CL_INVALID_VALUE` when that is not a mapping of
    /// this object); returns what it mapped.
    pub fn unmap(&self, mapped_ptr: *mut c_void) -> Result<Option<Mapping>, cl_int> {
        // An image over a sub-buffer starts at its descriptor's base in the storage.
        let image_base = self.image.as_ref().map_or(0, |i| i.desc.base as usize);
        let base = self.storage.host_ptr() as usize + self.offset + image_base;
        let p = mapped_ptr as usize;
        if p < base || p >= base + self.size || self.map_count.load(Ordering::Relaxed) == 0 {
            return Err(CL_INVALID_VALUE);
        }
        self.map_count.fetch_sub(1, Ordering::Relaxed);
        let mut maps = self.mappings.lock();
        Ok(maps
            .iter()
            .rposition(|(at, _)| *at == p)
            .map(|i| maps.remove(i).1))
    }
}

/// A mapping's bytes in the storage (one row for a buffer, the rows of an image box) and
/// what the host may do with them: the map command counts as a read of them when the host
/// may read, the unmap command as a write when it may write (`launch::host_read`,
/// `launch::host_wrote`).
#[derive(Clone, Debug)]
pub struct Mapping {
    pub rows: Vec<(usize, usize)>,
    pub read: bool,
    pub write: bool,
}

impl Mapping {
    /// What a mapping with `map_flags` lets the host do with `rows`.
    pub fn new(rows: Vec<(usize, usize)>, map_flags: cl_map_flags) -> Mapping {
        Mapping {
            rows,
            // Without CL_MAP_WRITE_INVALIDATE_REGION the mapped bytes are the object's, and
            // the host may read them (CL_MAP_WRITE alone included).
            read: map_flags & CL_MAP_WRITE_INVALIDATE_REGION == 0,
            write: map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0,
        }
    }

    /// The map command's access: the host may read the bytes from when it completes.
    pub fn mapped(&self, m: &Mem) {
        if self.read {
            for &(at, len) in &self.rows {
                launch::host_read(&m.storage, m.param(Role::Only), at, len);
            }
        }
    }

    /// The unmap command's access: what the host wrote through the pointer is there now.
    pub fn unmapped(&self, m: &Mem) {
        if self.write {
            for &(at, len) in &self.rows {
                launch::host_wrote(&m.storage, m.param(Role::Only), at, len);
            }
        }
    }
}

/// One side of a rectangular copy: origin (bytes, rows, slices) and pitches.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// Applies the defaults and checks of the `*Rect` commands.
    pub fn new(
        origin: [usize; 3],
        region: [usize; 3],
        row: usize,
        slice: usize,
    ) -> Result<Rect, cl_int> {
        let row_pitch = pitch_or_packed(row, region[0])?;
        let min_slice = region[1].checked_mul(row_pitch).ok_or(CL_INVALID_VALUE)?;
        let slice_pitch = pitch_or_packed(slice, min_slice)?;
        if row_pitch != 0 && slice_pitch % row_pitch != 0 {
            return Err(CL_INVALID_VALUE);
        }
        Ok(Rect {
            origin,
            row_pitch,
            slice_pitch,
        })
    }
    pub fn offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }
    /// One past the last byte touched by `region`.
    pub fn end(&self, region: [usize; 3]) -> Option<usize> {
        let last = |o: usize, r: usize| o.checked_add(r)?.checked_sub(1);
        let z = last(self.origin[2], region[2])?.checked_mul(self.slice_pitch)?;
        let y = last(self.origin[1], region[1])?.checked_mul(self.row_pitch)?;
        z.checked_add(y)?
            .checked_add(self.origin[0].checked_add(region[0])?)
    }
}

/// Whether two rectangles of `region` in one storage, starting at bytes `a` and `b` with the
/// same pitches, share a byte: the test of the specification's "Checking for Memory Copy
/// Overlap" appendix, so an application gets `CL_MEM_COPY_OVERLAP` where other platforms
/// give it. Rectangles whose spans interleave do not overlap when one's columns fit in the
/// other's gap between rows, or one's rows in the other's gap between slices (the slice
/// pitch is a multiple of the row pitch, so `start % pitch` is where a rectangle sits in its
/// row or slice).
pub fn rects_overlap(
    a: usize,
    b: usize,
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> bool {
    let [w, h, d] = region.map(|r| r.max(1));
    let (rp, sp) = (row_pitch.max(1), slice_pitch.max(1));
    let slice = (h - 1).saturating_mul(rp).saturating_add(w);
    let block = (d - 1).saturating_mul(sp).saturating_add(slice);
    if a.saturating_add(block) <= b || b.saturating_add(block) <= a {
        return false;
    }
    // `len` bytes from `x` lie in the gap after the `len` bytes from `y`, within one period.
    let in_gap = |x: usize, y: usize, len: usize, period: usize| {
        x >= y.saturating_add(len) && x.saturating_add(len) <= y.saturating_add(period)
    };
    let apart = |len: usize, period: usize| {
        let (x, y) = (a % period, b % period);
        in_gap(x, y, len, period) || in_gap(y, x, len, period)
    };
    !(apart(w, rp) || apart(slice, sp))
}

/// A row or slice pitch of a rectangle in a buffer or in host memory, as the buffer `*Rect`
/// commands and the image reads and writes take it: 0 asks for the packed pitch, any other
/// value must leave at least that much room.
pub(crate) fn pitch_or_packed(given: usize, packed: usize) -> Result<usize, cl_int> {
    let pitch = if given == 0 { packed } else { given };
    if pitch < packed {
        return Err(CL_INVALID_VALUE);
    }
    Ok(pitch)
}

/// A memory object's part in a host command: the only object, or a copy's source or
/// destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Only,
    Src,
    Dst,
}

/// Which way bytes move between a memory object and host memory (buffer rectangles, image
/// reads and writes).
#[derive(Clone, Copy)]
pub enum HostTransfer {
    Read,
    Write,
}

impl HostTransfer {
    /// Moves one row between the storage of `m` at `at` and `host_row`. The access is
    /// reported to the race detector first (a write makes the bytes initialised).
    pub fn move_row(self, m: &Mem, at: usize, host_row: &mut [u8]) -> Result<(), cl_int> {
        let (storage, param) = (&m.storage, m.param(Role::Only));
        match self {
            HostTransfer::Read => {
                launch::host_read(storage, param, at, host_row.len());
                storage.read(at, host_row)
            }
            HostTransfer::Write => {
                launch::host_wrote(storage, param, at, host_row.len());
                storage.write(at, host_row)
            }
        }
        .map_err(|_| CL_OUT_OF_RESOURCES)
    }
}

/// Mutable bytes the application owns.
pub fn host_bytes<'a>(p: UserPtr, len: usize) -> &'a mut [u8] {
    // SAFETY: the application passed a pointer valid for `len` bytes and keeps it valid and
    // untouched until the command completes (spec of every read command).
    unsafe { std::slice::from_raw_parts_mut(p.0.cast::<u8>(), len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two rectangles share a byte, byte by byte.
    fn share_a_byte(a: usize, b: usize, region: [usize; 3], rp: usize, sp: usize) -> bool {
        let bytes = |start: usize| {
            let mut v = std::collections::HashSet::new();
            for z in 0..region[2] {
                for y in 0..region[1] {
                    v.extend((0..region[0]).map(|x| start + z * sp + y * rp + x));
                }
            }
            v
        };
        !bytes(a).is_disjoint(&bytes(b))
    }

    #[test]
    fn copy_overlap_follows_the_specification_appendix() {
        // The CTS's bufferreadwriterect case: spans interleave, rows do not meet (the
        // slices are far apart) — the copy is valid.
        let (rp, sp) = (438, 438 * 353);
        let start = |o: [usize; 3]| o[2] * sp + o[1] * rp + o[0];
        let region = [224, 5, 226];
        assert!(!rects_overlap(
            start([14, 69, 100]),
            start([176, 181, 171]),
            region,
            rp,
            sp
        ));
        // The same rectangles with packed slices do share bytes.
        let sp2 = 5 * rp;
        let start2 = |o: [usize; 3]| o[2] * sp2 + o[1] * rp + o[0];
        assert!(rects_overlap(
            start2([14, 69, 100]),
            start2([176, 181, 171]),
            region,
            rp,
            sp2
        ));
        // Side by side in every row: no overlap; one column further: overlap.
        assert!(!rects_overlap(0, 4, [4, 3, 1], 8, 24));
        assert!(rects_overlap(0, 3, [4, 3, 1], 8, 24));
        // Never "apart" when a byte is shared (the appendix may be cautious the other way).
        for (w, h, d, rp, sp_rows) in [(2, 2, 2, 3, 3), (1, 3, 2, 2, 4), (3, 1, 3, 4, 1)] {
            let sp = sp_rows * rp;
            let region = [w, h, d];
            for a in 0..2 * sp {
                for b in 0..2 * sp {
                    if share_a_byte(a, b, region, rp, sp) {
                        assert!(rects_overlap(a, b, region, rp, sp), "{a} {b} {region:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn rect_geometry() {
        let r = Rect::new([1, 2, 0], [4, 3, 2], 0, 0);
        assert!(r.is_ok());
        if let Ok(r) = r {
            assert_eq!((r.row_pitch, r.slice_pitch), (4, 12));
            assert_eq!(r.offset(0, 1), 12 + 8 + 1);
        }
        assert_eq!(
            Rect::new([0; 3], [4, 3, 1], 2, 0).map(|_| ()),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            Rect::new([0; 3], [4, 3, 1], 4, 13).map(|_| ()),
            Err(CL_INVALID_VALUE)
        );
        // Origins near usize::MAX are out of range, not an overflow.
        let huge = Rect::new([usize::MAX, 0, 0], [4, 1, 1], 0, 0);
        assert_eq!(huge.map(|r| r.end([4, 1, 1])), Ok(None));
    }
}
