//! Global-memory shadow of one buffer: MARs in lazily allocated pages of atomics.

use crate::mar;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The shadow memory all buffers of a session may use together (`SHADOWCL_SHADOW_LIMIT`).
/// Past it, pages of shadow are not allocated: accesses to their bytes go unchecked and the
/// buffer is marked degraded, which the report says (issue #15 item 4).
#[derive(Debug)]
pub(crate) struct ShadowBudget {
    limit: u64,
    used: AtomicU64,
}

impl ShadowBudget {
    pub(crate) fn new(limit: u64) -> Arc<ShadowBudget> {
        Arc::new(ShadowBudget {
            limit,
            used: AtomicU64::new(0),
        })
    }

    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    fn reserve(&self, bytes: u64) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                u.checked_add(bytes).filter(|&n| n <= self.limit)
            })
            .is_ok()
    }

    fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// Bytes of device memory per shadow page (the page itself is 8x that).
const PAGE: u64 = 4096;

pub(crate) struct Shadow {
    len: u64,
    /// Record a fresh page starts with: `INITIALISED` for buffers created from host data.
    fresh: u64,
    pages: Box<[OnceLock<Box<[AtomicU64]>>]>,
    /// Pages touched since the last reset: a reset after each in-order launch sweeps only
    /// those, not every page a big buffer ever had.
    dirty: Box<[AtomicBool]>,
    /// Pages the host wrote whole before any access allocated them: they start
    /// `INITIALISED` when allocated, so a host write of a big buffer allocates no shadow.
    host_written: Box<[AtomicBool]>,
    budget: Arc<ShadowBudget>,
    /// A page could not be had within the budget: some accesses went unchecked.
    degraded: AtomicBool,
    /// The report already says so.
    pub(crate) degraded_reported: AtomicBool,
}

impl Shadow {
    pub fn new(len: u64, initialised: bool, budget: Arc<ShadowBudget>) -> Shadow {
        let n = len.div_ceil(PAGE) as usize;
        Shadow {
            len,
            fresh: if initialised { mar::INITIALISED } else { 0 },
            pages: (0..n).map(|_| OnceLock::new()).collect(),
            dirty: (0..n).map(|_| AtomicBool::new(false)).collect(),
            host_written: (0..n).map(|_| AtomicBool::new(false)).collect(),
            budget,
            degraded: AtomicBool::new(false),
            degraded_reported: AtomicBool::new(false),
        }
    }

    /// Whether some bytes went unchecked for want of shadow memory.
    pub fn degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }

    /// The record of byte `offset`, allocating its page on first touch.
    pub fn cell(&self, offset: u64) -> Option<&AtomicU64> {
        if offset >= self.len {
            return None;
        }
        let index = offset / PAGE;
        let page = self.pages.get(index as usize)?;
        let dirty = self.dirty.get(index as usize)?;
        if !dirty.load(Ordering::Relaxed) {
            dirty.store(true, Ordering::Relaxed);
        }
        let at = (offset % PAGE) as usize;
        if let Some(p) = page.get() {
            return p.get(at);
        }
        let fresh = self.fresh;
        // The last page covers only the buffer's tail.
        let n = PAGE.min(self.len - index * PAGE);
        if !self.budget.reserve(n * 8) {
            self.degraded.store(true, Ordering::Relaxed);
            return None;
        }
        let host_written = self.host_written.get(index as usize)?;
        let mut made_fresh = None;
        let p = page.get_or_init(|| {
            let start = if host_written.load(Ordering::SeqCst) {
                fresh | mar::INIT_BIT
            } else {
                fresh
            };
            made_fresh = Some(start);
            (0..n).map(|_| AtomicU64::new(start)).collect()
        });
        match made_fresh {
            // Another thread allocated the page meanwhile: its reservation counts.
            None => self.budget.release(n * 8),
            // A host write of the whole page may have come between the choice above and
            // the page's publication, and not seen the page: mark it here then.
            Some(start) if start & mar::INIT_BIT == 0 => {
                fence(Ordering::SeqCst);
                if host_written.load(Ordering::SeqCst) {
                    for c in p.iter() {
                        c.fetch_or(mar::INIT_BIT, Ordering::Relaxed);
                    }
                }
            }
            Some(_) => {}
        }
        p.get(at)
    }

    /// Applies `f` to every record of the pages touched since the last call (untouched pages
    /// hold `fresh` or were already swept).
    fn for_each_touched(&self, f: impl Fn(u64) -> u64) {
        let touched = self.pages.iter().zip(self.dirty.iter());
        for (page, _) in touched.filter(|(_, d)| d.swap(false, Ordering::Relaxed)) {
            let Some(page) = page.get() else { continue };
            for c in page.iter() {
                // A loop, not load-then-store: the host may mark bytes initialised from another
                // thread meanwhile, and that mark must survive.
                let _ = c.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(f(v)));
            }
        }
    }

    /// Applies `f` to every allocated record while other work-groups may be accessing the
    /// buffer: a record that changed meanwhile belongs to a newer access and is left alone.
    pub fn update_allocated(&self, f: impl Fn(u64) -> u64) {
        for page in self.pages.iter().filter_map(|p| p.get()) {
            for c in page.iter() {
                let old = c.load(Ordering::Relaxed);
                let new = f(old);
                if new != old {
                    let _ = c.compare_exchange(old, new, Ordering::Relaxed, Ordering::Relaxed);
                }
            }
        }
    }

    /// Full synchronisation: forget every access, keep "initialised".
    pub fn reset(&self) {
        self.for_each_touched(mar::reset);
    }

    /// The host wrote `offset..offset+len`.
    pub fn initialise(&self, offset: u64, len: u64) {
        let end = offset.saturating_add(len).min(self.len);
        let mut o = offset;
        while o < end {
            let index = (o / PAGE) as usize;
            let page_start = index as u64 * PAGE;
            let page_end = (page_start + PAGE).min(self.len);
            let to = page_end.min(end);
            let (Some(page), Some(host_written)) =
                (self.pages.get(index), self.host_written.get(index))
            else {
                return;
            };
            if o == page_start && to == page_end {
                // The whole page: an unallocated one only remembers it (no shadow is
                // allocated for bytes no kernel touched yet); see `cell` for the other side.
                host_written.store(true, Ordering::SeqCst);
                fence(Ordering::SeqCst);
                if let Some(p) = page.get() {
                    for c in p.iter() {
                        c.fetch_or(mar::INIT_BIT, Ordering::Relaxed);
                    }
                }
            } else if self.fresh == mar::INITIALISED && page.get().is_none() {
                // Untouched page of an initialised buffer: already initialised.
            } else {
                for at in o..to {
                    if let Some(c) = self.cell(at) {
                        c.fetch_or(mar::INIT_BIT, Ordering::Relaxed);
                    }
                }
            }
            o = to;
        }
    }

    /// Bytes of shadow currently allocated (for tests, statistics and the budget).
    pub fn allocated_bytes(&self) -> usize {
        self.pages
            .iter()
            .filter_map(OnceLock::get)
            .map(|p| p.len() * 8)
            .sum()
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        self.budget.release(self.allocated_bytes() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_allocated_on_first_touch_and_reset_keeps_init() {
        let budget = ShadowBudget::new(u64::MAX);
        let s = Shadow::new(3 * PAGE, false, budget.clone());
        assert_eq!(s.allocated_bytes(), 0);
        s.cell(PAGE + 5).unwrap().store(u64::MAX, Ordering::Relaxed);
        assert_eq!(s.allocated_bytes(), PAGE as usize * 8);
        let small = Shadow::new(10, true, budget.clone());
        small.cell(9).unwrap();
        assert_eq!(small.allocated_bytes(), 80);
        assert!(s.cell(3 * PAGE).is_none());
        s.reset();
        assert!(s.dirty.iter().all(|d| !d.load(Ordering::Relaxed)));
        assert_eq!(
            s.cell(PAGE + 5).unwrap().load(Ordering::Relaxed),
            mar::INIT_BIT
        );
        s.initialise(0, 2);
        assert_eq!(s.cell(1).unwrap().load(Ordering::Relaxed), mar::INIT_BIT);
        assert_eq!(s.cell(2).unwrap().load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_host_write_of_whole_pages_allocates_no_shadow() {
        let budget = ShadowBudget::new(u64::MAX);
        let s = Shadow::new(4 * PAGE + 100, false, budget);
        // Pages 1 and 2 whole, the tail of page 0 and the head of page 3.
        s.initialise(PAGE - 10, 2 * PAGE + 20);
        assert_eq!(
            s.allocated_bytes(),
            2 * PAGE as usize * 8,
            "only the partial pages"
        );
        for o in [PAGE - 10, PAGE, 2 * PAGE + 7, 3 * PAGE - 1, 3 * PAGE + 9] {
            assert_eq!(
                s.cell(o).unwrap().load(Ordering::Relaxed),
                mar::INIT_BIT,
                "{o}"
            );
        }
        for o in [PAGE - 11, 3 * PAGE + 10, 4 * PAGE] {
            assert_eq!(s.cell(o).unwrap().load(Ordering::Relaxed), 0, "{o}");
        }
        // A page already allocated gets the mark in place, keeping its accesses.
        s.cell(2 * PAGE + 7).unwrap().store(5, Ordering::Relaxed);
        s.initialise(2 * PAGE, PAGE);
        assert_eq!(
            s.cell(2 * PAGE + 7).unwrap().load(Ordering::Relaxed),
            5 | mar::INIT_BIT
        );
        // The last, short page counts as whole when the write reaches the end.
        let t = Shadow::new(PAGE + 100, false, ShadowBudget::new(u64::MAX));
        t.initialise(PAGE, 100);
        assert_eq!(t.allocated_bytes(), 0);
        assert_eq!(
            t.cell(PAGE + 99).unwrap().load(Ordering::Relaxed),
            mar::INIT_BIT
        );
    }

    #[test]
    fn past_the_budget_pages_go_unchecked_and_the_buffer_says_so() {
        let budget = ShadowBudget::new(PAGE * 8 + 80);
        let a = Shadow::new(3 * PAGE, false, budget.clone());
        assert!(a.cell(0).is_some());
        assert!(a.cell(PAGE).is_none(), "a second page is past the budget");
        assert!(a.degraded());
        let small = Shadow::new(10, false, budget.clone());
        assert!(small.cell(3).is_some(), "80 bytes of shadow still fit");
        assert!(!small.degraded());
        drop(a);
        assert_eq!(
            budget.used.load(Ordering::Relaxed),
            80,
            "a dropped shadow gives back"
        );
        let b = Shadow::new(3 * PAGE, false, budget.clone());
        assert!(b.cell(2 * PAGE).is_some());
    }
}
