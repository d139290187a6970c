//! sysbench's `memory` test: each event reads or writes one
//! `--memory-block-size` block word by word (in order, or at random
//! words), in one buffer all threads share (`--memory-scope=global`) or
//! one per thread (`local`), optionally from the HugeTLB pool, until
//! `--memory-total-size` bytes have passed. Owns the buffers and loops.

use super::driver::Worker;
use super::HostError;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// What each word access does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Oper {
    /// Loads.
    Read,
    /// Stores.
    Write,
    /// Nothing (the loop's cost alone).
    None,
}

/// The memory test's options.
#[derive(Debug, Clone, Copy)]
pub struct MemoryOptions {
    /// --memory-block-size, bytes (a multiple of the word size).
    pub block: u64,
    /// --memory-total-size, bytes.
    pub total: u64,
    /// --memory-scope=global (one shared buffer).
    pub global: bool,
    /// --memory-hugetlb.
    pub hugetlb: bool,
    /// --memory-oper.
    pub oper: Oper,
    /// --memory-access-mode=rnd.
    pub random: bool,
}

const WORD: u64 = std::mem::size_of::<usize>() as u64;

impl MemoryOptions {
    /// Checks the values as sysbench does; `block_text` is the block
    /// size as typed (sysbench's message quotes it).
    pub fn new(
        block: u64,
        block_text: &str,
        total: u64,
        scope: &str,
        hugetlb: bool,
        oper: &str,
        access: &str,
    ) -> Result<MemoryOptions, HostError> {
        let bad = |option: &'static str, v: &str| HostError::InvalidValue {
            option,
            value: v.to_string(),
        };
        if block < WORD || !block.is_multiple_of(WORD) {
            return Err(bad("memory-block-size", block_text));
        }
        let oper = match oper {
            "read" => Oper::Read,
            "write" => Oper::Write,
            "none" => Oper::None,
            _ => return Err(bad("memory-oper", oper)),
        };
        let random = match access {
            "seq" => false,
            "rnd" => true,
            _ => return Err(bad("memory-access-mode", access)),
        };
        let global = match scope {
            "global" => true,
            "local" => false,
            _ => return Err(bad("memory-scope", scope)),
        };
        Ok(MemoryOptions {
            block,
            total,
            global,
            hugetlb,
            oper,
            random,
        })
    }
}

/// A block-sized buffer of words: on the heap, or mapped from HugeTLB.
pub struct Buffer {
    words: &'static [AtomicUsize],
    mapped: Option<(*mut libc::c_void, usize)>,
    _heap: Option<Box<[AtomicUsize]>>,
}

// SAFETY: the words are atomics; the mapping is only unmapped on drop.
unsafe impl Send for Buffer {}
// SAFETY: as above: shared access goes through atomics only.
unsafe impl Sync for Buffer {}

impl Buffer {
    fn new(bytes: u64, hugetlb: bool, thread: Option<u32>) -> Result<Buffer, HostError> {
        let n = (bytes / WORD) as usize;
        if !hugetlb {
            let heap: Box<[AtomicUsize]> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            // SAFETY: the slice lives in `_heap`, which the Buffer owns and
            // never moves out; the 'static borrow never outlives it.
            let words = unsafe { std::slice::from_raw_parts(heap.as_ptr(), n) };
            return Ok(Buffer {
                words,
                mapped: None,
                _heap: Some(heap),
            });
        }
        // sysbench's request: the block plus room to align it to a huge page
        let huge: usize = 2 << 20;
        let len = bytes as usize + 2 * huge - 1;
        // SAFETY: an anonymous private mapping; checked for failure below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_HUGETLB,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            return Err(HostError::HugeTlb {
                bytes: len as u64,
                errno: e.raw_os_error().unwrap_or(0),
                why: e
                    .to_string()
                    .split(" (os error")
                    .next()
                    .unwrap_or("")
                    .to_string(),
                whose: thread
                    .map(|t| format!(" for thread #{t}"))
                    .unwrap_or_default(),
            });
        }
        // SAFETY: the mapping is len >= n words, zeroed, aligned to a page,
        // and lives until drop.
        let words = unsafe { std::slice::from_raw_parts(p as *const AtomicUsize, n) };
        Ok(Buffer {
            words,
            mapped: Some((p, len)),
            _heap: None,
        })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Some((p, len)) = self.mapped {
            // SAFETY: p/len are the mapping made in new, unmapped once.
            unsafe { libc::munmap(p, len) };
        }
    }
}

/// One thread's work on its (or the shared) buffer.
pub struct MemoryWorker {
    o: MemoryOptions,
    buffer: Arc<Buffer>,
    passed: Arc<AtomicU64>,
    rng: SmallRng,
}

/// One worker per thread; `seed` feeds the random word picks.
pub fn workers(o: MemoryOptions, threads: u32, seed: u64) -> Result<Vec<MemoryWorker>, HostError> {
    let passed = Arc::new(AtomicU64::new(0));
    let shared = if o.global {
        Some(Arc::new(Buffer::new(o.block, o.hugetlb, None)?))
    } else {
        None
    };
    (0..threads)
        .map(|t| {
            let buffer = match &shared {
                Some(b) => Arc::clone(b),
                None => Arc::new(Buffer::new(o.block, o.hugetlb, Some(t))?),
            };
            Ok(MemoryWorker {
                o,
                buffer,
                passed: Arc::clone(&passed),
                rng: SmallRng::seed_from_u64(seed.wrapping_add(u64::from(t))),
            })
        })
        .collect()
}

impl Worker for MemoryWorker {
    fn next_event(&mut self) -> bool {
        self.passed.fetch_add(self.o.block, Ordering::Relaxed) < self.o.total
    }

    fn execute(&mut self) -> Result<(), HostError> {
        let w = self.buffer.words;
        let n = w.len();
        let mut sum = 0usize;
        for i in 0..n {
            let at = if self.o.random {
                self.rng.random_range(0..n)
            } else {
                i
            };
            match self.o.oper {
                Oper::Read => sum = sum.wrapping_add(w[at].load(Ordering::Relaxed)),
                Oper::Write => w[at].store(i, Ordering::Relaxed),
                Oper::None => sum = sum.wrapping_add(std::hint::black_box(at)),
            }
        }
        std::hint::black_box(sum);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes_are_whole_words_and_modes_are_sysbenchs() {
        let ok = |b| MemoryOptions::new(b, "x", 1 << 20, "global", false, "write", "seq");
        assert!(ok(1024).is_ok());
        assert!(ok(100).is_err());
        assert!(ok(0).is_err());
        let e = MemoryOptions::new(1024, "1K", 1, "global", false, "foo", "seq").unwrap_err();
        assert_eq!(e.to_string(), "Invalid value for memory-oper: foo");
    }

    #[test]
    fn the_total_size_ends_the_work() {
        let o = MemoryOptions::new(1024, "1K", 4096, "local", false, "read", "rnd").unwrap();
        let mut w = workers(o, 1, 1).unwrap();
        let mut events = 0;
        while w[0].next_event() {
            w[0].execute().unwrap();
            events += 1;
        }
        assert_eq!(events, 4);
    }
}
