//! The heap, counted: the allocator of the `ggufscope` binary is the system's, wrapped to keep
//! the bytes in use, so that the header budget measures what reading headers really takes, and
//! to hold the chat template renders under their own cap.
//!
//! A render runs on a thread of its own marked [`meter_this_thread`]. An allocation there that
//! would take the renders past their cap is never made: the thread records it and sleeps for
//! good (it holds no lock: the allocation is refused before the system allocator is entered),
//! and the thread waiting for it reports the cap ([`renders_over_cap`]). The process ends
//! normally after, with the sleeping thread and what it had.
#![allow(unsafe_code)] // `GlobalAlloc` is an unsafe trait; this module only counts and forwards.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

/// The system allocator, counted.
pub struct Counted;

#[global_allocator]
static ALLOCATOR: Counted = Counted;

/// Bytes allocated and not yet freed, on every thread.
static IN_USE: AtomicUsize = AtomicUsize::new(0);
/// The most [`IN_USE`] has been since [`reset_peak`]; a block being grown counts with its new
/// size and its old one, as a copying `realloc` holds both.
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Bytes held by metered threads (net: a metered thread may free what another allocated).
static METERED: AtomicIsize = AtomicIsize::new(0);
/// The cap on [`METERED`].
static METERED_CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set when a metered allocation was refused.
static OVER: AtomicBool = AtomicBool::new(false);

thread_local! {
    static IS_METERED: Cell<bool> = const { Cell::new(false) };
}

/// Bytes of heap in use now, on all threads.
pub fn in_use() -> u64 {
    IN_USE.load(Relaxed) as u64
}

/// The most heap in use since the last [`reset_peak`].
pub fn peak() -> u64 {
    PEAK.load(Relaxed) as u64
}

/// Starts a new [`peak`] from the heap in use now.
pub fn reset_peak() {
    PEAK.store(IN_USE.load(Relaxed), Relaxed);
}

fn add(size: usize) {
    let now = IN_USE.fetch_add(size, Relaxed) + size;
    PEAK.fetch_max(now, Relaxed);
}

/// Marks the calling thread as a render's: its allocations count against `cap` bytes, shared by
/// every metered thread of the process.
pub fn meter_this_thread(cap: u64) {
    METERED_CAP.store(usize::try_from(cap).unwrap_or(usize::MAX), Relaxed);
    IS_METERED.with(|m| m.set(true));
}

/// Whether a metered thread was stopped at the cap.
pub fn renders_over_cap() -> bool {
    OVER.load(Relaxed)
}

/// Charges `size` more bytes to a metered thread; past the cap the thread stops here for good.
fn charge(size: usize) {
    if !IS_METERED.with(Cell::get) {
        return;
    }
    let held = METERED.fetch_add(size as isize, Relaxed) + size as isize;
    if held > 0 && held as usize > METERED_CAP.load(Relaxed) {
        METERED.fetch_sub(size as isize, Relaxed);
        OVER.store(true, Relaxed);
        // `sleep` does not allocate; the waiting thread reports the cap and the process ends.
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

fn refund(size: usize) {
    if IS_METERED.with(Cell::get) {
        METERED.fetch_sub(size as isize, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counting around it never touches
// the memory, and a refused allocation never returns (the thread sleeps).
unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            refund(layout.size());
        } else {
            add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        charge(layout.size());
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            refund(layout.size());
        } else {
            add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Relaxed);
        refund(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let grown = new_size.saturating_sub(layout.size());
        charge(grown);
        add(new_size); // the old block and the new, while the one is copied to the other
        // SAFETY: as for `alloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            IN_USE.fetch_sub(new_size, Relaxed);
            refund(grown);
        } else {
            IN_USE.fetch_sub(layout.size(), Relaxed);
            refund(layout.size().saturating_sub(new_size));
        }
        p
    }
}
