//! secret: keeps passwords out of the process title and out of anything we
//! record, show or log (command lines, DSNs in campaign files). Knows
//! nothing about connections or the store; callers pass it text.
//! glibc hands (argc, argv, envp) to functions in `.init_array`;
//! we keep argv so that a `--password=…` given on the command line can be
//! overwritten in place after parsing, as the mysql client does.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

static ARGC: AtomicUsize = AtomicUsize::new(0);
static ARGV: AtomicPtr<*mut libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn capture(
    argc: libc::c_int,
    argv: *mut *mut libc::c_char,
    _envp: *mut *mut libc::c_char,
) {
    ARGC.store(argc.max(0) as usize, Ordering::SeqCst);
    ARGV.store(argv, Ordering::SeqCst);
}

#[used]
#[link_section = ".init_array"]
static CAPTURE: extern "C" fn(libc::c_int, *mut *mut libc::c_char, *mut *mut libc::c_char) =
    capture;

const SECRET_FLAGS: [&str; 2] = ["--password", "--mysql-password"];

/// Rewrites the original argument area so that no password shows in
/// /proc/PID/cmdline or `ps`: each secret becomes `***`, later arguments
/// move left over the freed bytes, the tail is zeroed, and the `argv`
/// pointers are moved with their strings (so `std::env::args()` reads the
/// redacted line). A mask of the same length would keep the password's
/// length; this keeps only the total, which mixes every argument.
pub fn scrub_process_title() {
    let argc = ARGC.load(Ordering::SeqCst);
    let argv = ARGV.load(Ordering::SeqCst);
    if argv.is_null() || argc == 0 {
        return;
    }
    // Read every argument first (the area is rewritten below).
    let mut args: Vec<Vec<u8>> = Vec::with_capacity(argc);
    for i in 0..argc {
        // SAFETY: `argv` is the array the C runtime passed to `capture`,
        // with `argc` entries (plus a null), alive for the whole process;
        // nothing else in the program writes it.
        let p = unsafe { *argv.add(i) };
        if p.is_null() {
            return;
        }
        // SAFETY: a non-null argv entry is a NUL-terminated string that
        // lives as long as the process.
        args.push(unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes().to_vec());
    }
    // SAFETY: argc > 0, so entry 0 exists (checked non-null above).
    let base = unsafe { *argv } as *mut u8;
    // The kernel lays the arguments out back to back: the area ends after
    // the last one's NUL. Anything else (already moved?) is left alone.
    let mut expect = base;
    for (i, a) in args.iter().enumerate() {
        // SAFETY: i < argc, an entry of the argv array.
        if unsafe { *argv.add(i) } as *mut u8 != expect {
            return;
        }
        // SAFETY: `expect` is argument i's start and the string and its NUL
        // are `a.len() + 1` bytes: one past its end stays in (or just past)
        // the argument area.
        expect = unsafe { expect.add(a.len() + 1) };
    }
    let area = expect as usize - base as usize;
    let redacted = redact_args(&args);
    if redacted == args {
        return;
    }
    let mut at = 0usize;
    for (i, a) in redacted.iter().enumerate() {
        // Never longer than the original: "***" replaces a non-empty secret.
        if at + a.len() + 1 > area {
            return;
        }
        // SAFETY: `at + a.len() + 1 <= area` (checked above), so the bytes
        // written lie inside the argument area the kernel laid out, which we
        // own; `copy` allows overlap. The argv entry written is i < argc.
        // No other reference to the area exists (`args` holds copies).
        unsafe {
            std::ptr::copy(a.as_ptr(), base.add(at), a.len());
            *base.add(at + a.len()) = 0;
            *argv.add(i) = base.add(at) as *mut libc::c_char;
        }
        at += a.len() + 1;
    }
    // SAFETY: `at <= area`, so `[at, area)` is inside the argument area.
    unsafe { std::ptr::write_bytes(base.add(at), 0, area - at) };
}

/// The arguments with every password value (after `--password`, in
/// `--password=…`, or inside `scheme://user:password@`) replaced by `***`.
fn redact_args(args: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(args.len());
    let mut prev_was_flag = false;
    for a in args {
        let flag_value = SECRET_FLAGS.iter().find_map(|f| {
            let f = f.as_bytes();
            (a.len() > f.len() && a.starts_with(f) && a[f.len()] == b'=').then_some(f.len() + 1)
        });
        let dsn = std::str::from_utf8(a).ok().and_then(dsn_password_span);
        let r = if prev_was_flag && !a.is_empty() {
            b"***".to_vec()
        } else if let Some(from) = flag_value {
            [&a[..from], b"***"].concat()
        } else if let Some((x, y)) = dsn {
            [&a[..x], b"***", &a[y..]].concat()
        } else {
            a.clone()
        };
        prev_was_flag = SECRET_FLAGS.iter().any(|f| a.as_slice() == f.as_bytes());
        out.push(r);
    }
    out
}

/// The byte span of the password inside `…://user:password@…`, if any.
pub fn dsn_password_span(s: &str) -> Option<(usize, usize)> {
    let scheme = s.find("://")? + 3;
    let at = s[scheme..].find('@')? + scheme;
    let colon = s[scheme..at].find(':')? + scheme;
    (colon + 1 < at).then_some((colon + 1, at))
}

/// `text` with the password of every `scheme://user:password@` replaced.
pub fn redact_dsns(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        // the DSN runs until whitespace or a quote
        let end = rest[i..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .map_or(rest.len(), |e| i + e);
        let start = rest[..i]
            .rfind(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '=')
            .map_or(0, |s| s + 1);
        let dsn = &rest[start..end];
        out.push_str(&rest[..start]);
        match dsn_password_span(dsn) {
            Some((a, b)) => {
                out.push_str(&dsn[..a]);
                out.push_str("***");
                out.push_str(&dsn[b..]);
            }
            None => out.push_str(dsn),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The command line as it may be recorded or shown: secrets replaced.
pub fn redacted_command_line() -> String {
    let mut out = Vec::new();
    let mut hide_next = false;
    for a in std::env::args() {
        if hide_next {
            out.push("***".to_string());
            hide_next = false;
            continue;
        }
        if SECRET_FLAGS.contains(&a.as_str()) {
            hide_next = true;
            out.push(a);
            continue;
        }
        if let Some(f) = SECRET_FLAGS
            .iter()
            .find(|f| a.starts_with(&format!("{f}=")))
        {
            out.push(format!("{f}=***"));
            continue;
        }
        match dsn_password_span(&a) {
            Some((x, y)) => out.push(format!("{}***{}", &a[..x], &a[y..])),
            None => out.push(a),
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsns_in_text_are_redacted() {
        let t = "dsn = \"mysql://u:p1@h:1/db\"\nother = \"mysql://v@h/db\" x=mysql://w:p2@h";
        assert_eq!(
            redact_dsns(t),
            "dsn = \"mysql://u:***@h:1/db\"\nother = \"mysql://v@h/db\" x=mysql://w:***@h"
        );
    }

    #[test]
    fn arguments_lose_their_secrets_and_their_lengths() {
        let v = |s: &[&str]| s.iter().map(|x| x.as_bytes().to_vec()).collect::<Vec<_>>();
        let r = redact_args(&v(&[
            "qpslab",
            "--password",
            "long-secret",
            "--mysql-password=another-one",
            "--dsn=mysql://u:pw@h/db",
            "--db",
            "x",
        ]));
        assert_eq!(
            r,
            v(&[
                "qpslab",
                "--password",
                "***",
                "--mysql-password=***",
                "--dsn=mysql://u:***@h/db",
                "--db",
                "x"
            ])
        );
    }

    #[test]
    fn dsn_span() {
        let s = "--dsn=mysql://u:pw@h:1/db";
        let (a, b) = dsn_password_span(s).unwrap();
        assert_eq!(&s[a..b], "pw");
        assert!(dsn_password_span("mysql://u@h/db").is_none());
    }
}
