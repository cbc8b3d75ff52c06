//! A counting global allocator: the bytes the Rust code allocates while one decode runs,
//! in total and at the peak, and the bound they must stay within.
//!
//! libFuzzer's own allocations go through C's `malloc`, not through Rust's global allocator,
//! so only the code under test is counted. The targets run on one thread; the counters are
//! atomics only because a global allocator must be `Sync`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::shapes::max_element_size;

/// Forwards to [`System`], counting.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    TOTAL.fetch_add(by, Relaxed);
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

fn shrank(by: usize) {
    LIVE.fetch_sub(by, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counting touches only atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A realloc may move: count the new block as allocated while the old one still is.
        grew(new_size);
        shrank(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What one measured call allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Bytes allocated, every allocation and every reallocation's new block added up.
    pub total: usize,
    /// The most bytes live at once, above what was live when the call began.
    pub peak: usize,
}

/// Runs `f`, returning its result and what it allocated.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    let total = TOTAL.load(Relaxed);
    let out = f();
    let usage = Usage { total: TOTAL.load(Relaxed) - total, peak: PEAK.load(Relaxed).saturating_sub(live) };
    (out, usage)
}

/// Bytes of Rust values one input byte may become, for the shapes.
///
/// Every value that ends up in a container or a box costs at least one input byte (a struct
/// its stop byte, a string its length byte, a nested container its header), and is at most
/// [`max_element_size`] bytes in memory (about 80: a `BTreeSet` and a `Point`). The
/// containers holding them are at most twice as large as their contents (a `Vec` doubles; a
/// hash table keeps at most 8 buckets per 7 entries, rounded up to a power of two, plus one
/// control byte per bucket; a B-tree node holds up to 11 entries, so a one-entry map pays
/// 11 slots for its at least 4 input bytes: under 3 entries' worth per input byte). A
/// string's heap bytes are its input bytes. With each allocated value counted once more for
/// the reallocation that moves it (the old block is counted when it was made), 8 element
/// sizes per input byte covers every combination with room to spare, and stays far below
/// what a declared-length bug gives (a count of 2^31 for a few bytes: millions per byte).
pub fn bytes_per_input_byte() -> usize {
    8 * max_element_size()
}

/// Bytes any call may allocate whatever its input: the error (a box, its field path of at
/// most 64 segments of 40 bytes, a formatted message); the room that containers whose
/// elements can nest reserve before their elements are read once `thrift-core`'s budget for
/// such reservations (16 bytes per input byte, within the per-byte bound above) is spent (at
/// most 32 KiB each, one per open level, at most 64 levels); and the codecs' minimum buffer
/// reservation (8 KiB), with slack for the skip stack.
pub const CONSTANT_BYTES: usize = 64 * 32 * 1024 + 64 * 1024;

/// Checks that `usage` is within `bytes_per_input_byte() * input_len + CONSTANT_BYTES`, in
/// total and at the peak; panics (a libFuzzer finding) otherwise.
#[track_caller]
pub fn assert_bounded(what: &str, input_len: usize, usage: Usage) {
    let bound = bytes_per_input_byte() * input_len + CONSTANT_BYTES;
    assert!(
        usage.total <= bound && usage.peak <= bound,
        "{what}: allocated {usage:?} for {input_len} input bytes, bound {bound} \
         ({} per byte + {CONSTANT_BYTES})",
        bytes_per_input_byte()
    );
}
