//! Printing that survives its reader: `outln!`/`out!` (stdout) and
//! `errln!`/`errout!` (stderr) never panic. std's `println!` panics when
//! stdout is a closed pipe (`qpslab run … | head`) or a full device,
//! which would kill a run mid-measurement. Here a failed write ends the
//! printing to that stream, not the program: the run goes on and is
//! recorded. A closed pipe is the reader's choice and goes unremarked; any
//! other failure (a full disk) is said once on stderr at exit, and turns
//! an exit code of 0 into `EXIT_OUTPUT_LOST`.
//!
//! Owns nothing but the two streams' state; what to print is report's and
//! cli's business.

use std::io::Write;
use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};

/// The exit code of a command that completed but whose output could not
/// be written (other than to a closed pipe).
pub const EXIT_OUTPUT_LOST: i32 = 5;

const OPEN: u8 = 0;
const PIPE_CLOSED: u8 = 1;
const FAILED: u8 = 2;

static STDOUT: AtomicU8 = AtomicU8::new(OPEN);
static STDERR: AtomicU8 = AtomicU8::new(OPEN);
/// The errno of stdout's first failed write (0: none).
static STDOUT_ERRNO: AtomicI32 = AtomicI32::new(0);

fn write_to(state: &AtomicU8, mut w: impl Write, args: std::fmt::Arguments, newline: bool) {
    if state.load(Ordering::Relaxed) != OPEN {
        return;
    }
    let r = w
        .write_fmt(args)
        .and_then(|_| if newline { w.write_all(b"\n") } else { Ok(()) });
    if let Err(e) = r {
        give_up(state, &e);
    }
}

/// A write to `state`'s stream failed: no more writes to it (and stdout's
/// error is kept for `settle`).
fn give_up(state: &AtomicU8, e: &std::io::Error) {
    let closed = e.kind() == std::io::ErrorKind::BrokenPipe;
    state.store(if closed { PIPE_CLOSED } else { FAILED }, Ordering::Relaxed);
    if std::ptr::eq(state, &STDOUT) {
        STDOUT_ERRNO.store(e.raw_os_error().unwrap_or(-1), Ordering::Relaxed);
    }
}

/// Writes to stdout (used by `out!`/`outln!`).
pub fn stdout(args: std::fmt::Arguments, newline: bool) {
    write_to(&STDOUT, std::io::stdout().lock(), args, newline);
}

/// Writes to stderr (used by `errout!`/`errln!`).
pub fn stderr(args: std::fmt::Arguments, newline: bool) {
    write_to(&STDERR, std::io::stderr().lock(), args, newline);
}

/// Makes C's stdout line-buffered, as qpslab's own is: a Lua script's
/// `print` (LuaJIT writes through C's stdio) then lands between qpslab's
/// lines in the order it was printed, also into a pipe or a file, where
/// C would otherwise hold it back until exit.
pub fn line_buffer_c_stdout() {
    extern "C" {
        static mut stdout: *mut libc::FILE;
    }
    // SAFETY: glibc's `stdout` is a valid FILE* for the whole process;
    // setvbuf is called once, at start-up, before any output on it.
    unsafe {
        libc::setvbuf(stdout, std::ptr::null_mut(), libc::_IOLBF, 0);
    }
}

/// Flushes stdout; a failure counts like a failed write.
pub fn flush() {
    if STDOUT.load(Ordering::Relaxed) != OPEN {
        return;
    }
    if let Err(e) = std::io::stdout().lock().flush() {
        give_up(&STDOUT, &e);
    }
}

/// The exit code to use for a command that would exit with `code`: a
/// failed stdout (not a closed pipe) is said on stderr, and a 0 becomes
/// `EXIT_OUTPUT_LOST`.
pub fn settle(code: i32) -> i32 {
    flush();
    if STDOUT.load(Ordering::Relaxed) != FAILED {
        return code;
    }
    let errno = STDOUT_ERRNO.load(Ordering::Relaxed);
    let why = if errno > 0 {
        std::io::Error::from_raw_os_error(errno).to_string()
    } else {
        "write error".to_string()
    };
    crate::errln!(
        "qpslab: could not write the output ({why}); the rest of it was dropped (runs are still recorded)"
    );
    if code == 0 {
        EXIT_OUTPUT_LOST
    } else {
        code
    }
}

/// `n` and `noun`, the noun plural unless `n` is 1 ("1 user", "16 users",
/// "1 warehouse"); for nouns whose plural adds an s.
pub fn counted(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// One line of text from elsewhere (a server's message, a script's
/// error) made fit to print: control characters other than a tab escaped,
/// and at most `max` characters, the rest counted.
pub fn inert_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max) + 16);
    for (i, c) in s.chars().enumerate() {
        if i >= max {
            let rest = s.chars().count() - max;
            out.push_str(&format!("... ({rest} more characters)"));
            break;
        }
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The longest line an error message prints (what is stored is whole).
pub const MAX_LINE: usize = 1000;
/// The most lines an error message prints.
pub const MAX_LINES: usize = 40;

/// `println!` that never panics (see the module doc).
#[macro_export]
macro_rules! outln {
    () => { $crate::out::stdout(format_args!(""), true) };
    ($($t:tt)*) => { $crate::out::stdout(format_args!($($t)*), true) };
}

/// `print!` that never panics.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::out::stdout(format_args!($($t)*), false) };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    () => { $crate::out::stderr(format_args!(""), true) };
    ($($t:tt)*) => { $crate::out::stderr(format_args!($($t)*), true) };
}

/// `eprint!` that never panics.
#[macro_export]
macro_rules! errout {
    ($($t:tt)*) => { $crate::out::stderr(format_args!($($t)*), false) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_lines_are_inert_and_bounded() {
        assert_eq!(inert_line("a\x1b[2Jb\tc", 100), "a\\u{1b}[2Jb\tc");
        let long = "x".repeat(3000);
        let l = inert_line(&long, MAX_LINE);
        assert!(l.starts_with(&"x".repeat(MAX_LINE)) && l.ends_with("(2000 more characters)"));
    }
}
