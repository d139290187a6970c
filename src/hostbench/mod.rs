//! hostbench: sysbench's built-in tests that characterise the host before
//! a database run — `cpu` (primes), `memory`, `threads`, `mutex`,
//! `fileio` — as honest implementations of the same work. It measures the
//! host alone: it talks to no server, imports nothing of qpslab's but the
//! shared leaves, and never prints (report renders its results).
//!
//! driver.rs runs any test's events on OS threads under sysbench's limits;
//! latency.rs is sysbench's latency histogram; one file per test.

pub mod cpu;
pub mod driver;
pub mod fileio;
pub mod fileio_async;
pub mod latency;
pub mod memory;
pub mod mutex;
pub mod outcome;
pub mod pacing;
pub mod threads;

/// sysbench's built-in tests: (name, the line `sysbench --help` gives it).
pub const BUILTINS: [(&str, &str); 5] = [
    ("fileio", "File I/O test"),
    ("cpu", "CPU performance test"),
    ("memory", "Memory functions speed test"),
    ("threads", "Threads subsystem performance test"),
    ("mutex", "Mutex performance test"),
];

/// Whether `name` is one of sysbench's built-in tests.
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.iter().any(|(n, _)| *n == name)
}

/// Why a built-in test could not run. The text is sysbench's for the same
/// failure (report prefixes `FATAL: `).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HostError {
    /// --cpu-max-prime not positive.
    #[error("Invalid value of cpu-max-prime: {0}.")]
    CpuMaxPrime(i64),
    /// An option's value out of what the test takes.
    #[error("Invalid value for {option}: {value}")]
    InvalidValue {
        /// The option, as sysbench names it in the message.
        option: &'static str,
        /// The value given.
        value: String,
    },
    /// --memory-hugetlb: the pool had no room.
    #[error("Failed to allocate {bytes} bytes from HugeTLB memory. errno = {errno} ({why})\nFATAL: Failed to allocate buffer{whose}!")]
    HugeTlb {
        /// Bytes asked for.
        bytes: u64,
        /// The OS error number.
        errno: i32,
        /// Its text.
        why: String,
        /// " for thread #N" for a thread's own buffer, else empty.
        whose: String,
    },
    /// --file-block-size not positive.
    #[error("Invalid value for file-block-size: {0}.")]
    FileBlockSize(i64),
    /// --file-io-mode not one of sysbench's.
    #[error("unknown I/O mode: {0}")]
    IoMode(String),
    /// An asynchronous request failed (sysbench's words).
    #[error("{0}")]
    Async(String),
    /// --file-test-mode not one of sysbench's.
    #[error("Invalid IO operations mode: {0}.")]
    FileTestMode(String),
    /// --file-extra-flags with a word sysbench does not know.
    #[error("Invalid value for file-extra-flags: {0}")]
    ExtraFlag(String),
    /// A test file missing at `run`.
    #[error("Cannot open file '{name}' errno = {errno} ({why})\nWARNING: Did you forget to run the prepare step?")]
    NoFile {
        /// The file's name.
        name: String,
        /// The OS error number.
        errno: i32,
        /// Its text.
        why: String,
    },
    /// A test file shorter than the options say.
    #[error("Size of file '{name}' is {}, but at least {} is expected.\nWARNING: Did you run 'prepare' with different --file-total-size or --file-num values?", size_text(*have), size_text(*want))]
    ShortFile {
        /// The file's name.
        name: String,
        /// Its length.
        have: u64,
        /// The length the options give.
        want: u64,
    },
    /// A read, write or fsync failed.
    #[error("Failed to operate on file '{name}', errno = {errno} ({why})")]
    FileIo {
        /// The file's name.
        name: String,
        /// The OS error number.
        errno: i32,
        /// Its text.
        why: String,
    },
    /// A worker thread panicked (a bug: no test panics by design).
    #[error("a worker thread panicked")]
    WorkerPanicked,
}

/// A size as sysbench's fileio writes it: whole MiB from 1 MiB, else KiB.
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{}MiB", bytes >> 20)
    } else {
        format!("{}KiB", bytes >> 10)
    }
}
