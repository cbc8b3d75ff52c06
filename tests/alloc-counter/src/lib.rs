//! A global allocator that forwards to the system's and counts, per thread, what each
//! closure allocates: the tests use it to show declared lengths allocate nothing, zero-copy
//! fields allocate nothing, and hostile input stays within a multiple of its size.
//!
//! ```
//! use thrift_alloc_counter::{measure, Counting};
//!
//! #[global_allocator]
//! static ALLOCATOR: Counting = Counting;
//!
//! let (v, allocated) = measure(|| Vec::<u8>::with_capacity(100));
//! assert_eq!((allocated.count, allocated.bytes), (1, 100));
//! assert!(allocated.peak >= 100);
//! drop(v);
//! ```

// A global allocator can only be written with `unsafe`; the lint is denied workspace-wide.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting what the current thread allocates. Install it with
/// `#[global_allocator]` in the test binary that measures.
pub struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not see each other's allocations;
    // `const` initialisation needs no allocation inside `alloc`.
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Records `grown` new bytes (and one allocation call), `shrunk` bytes released.
fn record(calls: usize, grown: usize, shrunk: usize) {
    // `try_with`: the slots may already be gone while the thread is being torn down.
    let _ = COUNT.try_with(|c| c.set(c.get() + calls));
    let _ = BYTES.try_with(|b| b.set(b.get().saturating_add(grown.saturating_sub(shrunk))));
    let _ = LIVE.try_with(|l| {
        l.set((l.get() + grown).saturating_sub(shrunk));
        let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
    });
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only thread-locals.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(1, layout.size(), 0);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(1, layout.size(), 0);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(1, new_size, layout.size());
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        record(0, 0, layout.size());
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// What a closure allocated on this thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocated {
    /// Allocation and reallocation calls.
    pub count: usize,
    /// Bytes allocated, counting a reallocation's growth only.
    pub bytes: usize,
    /// The most bytes live at once, above what was live before.
    pub peak: usize,
}

/// Runs `f`, returning its result and what it allocated on this thread (all zero unless
/// [`Counting`] is the global allocator).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Allocated) {
    let (count, bytes, live) = (COUNT.with(Cell::get), BYTES.with(Cell::get), LIVE.with(Cell::get));
    PEAK.with(|p| p.set(live));
    let out = f();
    let allocated = Allocated {
        count: COUNT.with(Cell::get) - count,
        bytes: BYTES.with(Cell::get) - bytes,
        peak: PEAK.with(Cell::get) - live,
    };
    (out, allocated)
}
