//! Ctrl-C (SIGINT/SIGTERM). Inside a phase that polls `interrupted()` (a
//! run, a prepare, a sweep or campaign loop, a monitor session: see
//! `Cooperative`), the first signal asks it to stop cleanly and print what
//! was measured; elsewhere (connecting, starting a server) it exits at
//! once. Either way it is acknowledged on stderr at once, and a second
//! signal always exits at once.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static COOPERATIVE: AtomicUsize = AtomicUsize::new(0);

fn say(msg: &[u8]) {
    // rustix's write is the bare write(2) syscall, async-signal-safe;
    // stderr()'s descriptor is borrowed without taking its lock. Nothing
    // here allocates. A failed or short write only loses the message.
    let _ = rustix::io::write(std::io::stderr(), msg);
}

extern "C" fn on_signal(_: libc::c_int) {
    let before = SIGNALS.fetch_add(1, Ordering::SeqCst);
    if before >= 1 {
        say(b"\nqpslab: interrupted again: exiting now\n");
        // SAFETY: _exit(2) is async-signal-safe (std's exit is not: it
        // runs handlers); it touches no memory of ours. Kept on libc:
        // rustix offers it only in its low-level runtime module.
        unsafe { libc::_exit(130) };
    }
    if COOPERATIVE.load(Ordering::SeqCst) == 0 {
        say(b"\nqpslab: interrupted\n");
        // SAFETY: as above, _exit(2) is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
    say(b"\nqpslab: stopping (Ctrl-C again to exit at once)...\n");
}

/// Installs the SIGINT/SIGTERM handler described in the module doc; call once,
/// early in `main`.
pub fn install_ctrl_c() {
    // SAFETY: `on_signal` is an `extern "C" fn(c_int)`, the handler type
    // signal(2) expects, and does only async-signal-safe work (atomics,
    // write(2), _exit(2)). rustix installs handlers only through its
    // unsafe low-level runtime module, so libc stays.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// True once SIGINT or SIGTERM has arrived (never reset).
pub fn interrupted() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}

/// While one of these lives, the first Ctrl-C only sets `interrupted()`:
/// the code holding it polls that and stops cleanly.
pub struct Cooperative(());

impl Cooperative {
    /// Marks the start of a phase that polls `interrupted()`; the phase ends
    /// when the guard is dropped.
    pub fn enter() -> Cooperative {
        COOPERATIVE.fetch_add(1, Ordering::SeqCst);
        Cooperative(())
    }
}

impl Drop for Cooperative {
    fn drop(&mut self) {
        COOPERATIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Sleeps up to `d`, returning early (false) when interrupted.
pub fn sleep_unless_interrupted(d: std::time::Duration) -> bool {
    let end = std::time::Instant::now() + d;
    while !interrupted() {
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(50)));
    }
    false
}
