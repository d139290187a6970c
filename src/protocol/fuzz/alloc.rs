//! A test-only global allocator that remembers, per thread, the largest
//! single allocation asked for: the fuzz cases assert that no length read
//! from the wire turns into a huge buffer.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Peak;

thread_local! {
    // Const-initialised and without a destructor: reading it never
    // allocates, so the allocator can use it.
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| {
        if size > l.get() {
            l.set(size);
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only records the requested size in a thread-local cell.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from System with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static PEAK: Peak = Peak;

/// Forgets the largest allocation seen on this thread.
pub fn reset() {
    LARGEST.with(|l| l.set(0));
}

/// The largest single allocation on this thread since `reset`.
pub fn largest() -> usize {
    LARGEST.with(Cell::get)
}
