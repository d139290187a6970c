//! hostbench: sysbench's built-in tests that characterise the host before
//! a database run — `cpu` (primes), `memory`, `threads`, `mutex`,
//! `fileio` — as honest implementations of the same work. It measures the
//! host alone: it talks to no server, imports nothing of qpslab's but the
//! shared leaves, and never prints (report renders its results).

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
