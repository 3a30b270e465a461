//! Image texels: the memory interface `crate::image` reads and writes an image through.

use super::access::ItemMemory;
use crate::ir::ptr;
use crate::observer::{AccessKind, Observer};

/// Image texels go through the work-item's checked, observed memory path.
pub(super) struct Texels<'m, 'l, 'g, 'p, 'a, O: Observer> {
    pub(super) mx: &'m mut ItemMemory<'l, 'g, 'p, 'a, O>,
    pub(super) pc: usize,
}

impl<O: Observer> crate::image::TexelMem for Texels<'_, '_, '_, '_, '_, O> {
    fn desc(&self, image: u64) -> Option<crate::ImageDesc> {
        let (tag, idx, _) = ptr::dec(image);
        match self.mx.lx.allocs.get(idx) {
            Some(Some(a)) if tag == ptr::TAG_LAUNCH => a.image,
            _ => None,
        }
    }
    fn load(&mut self, p: u64, n: usize) -> u64 {
        self.mx.load(p, n, self.pc)
    }
    fn store(&mut self, p: u64, n: usize, v: u64) {
        self.mx.store(p, n, v, self.pc)
    }
    fn outside(&mut self, image: u64, offset: i64, size: usize, write: bool) {
        let kind = if write {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        self.mx
            .bad(image.wrapping_add(offset as u64), size, kind, self.pc);
    }
}
