//! Keeping the password out of the process title and out of anything we
//! record. glibc hands (argc, argv, envp) to functions in `.init_array`;
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

/// Overwrites password values in the original argv with 'x'.
pub fn scrub_process_title() {
    let argc = ARGC.load(Ordering::SeqCst);
    let argv = ARGV.load(Ordering::SeqCst);
    if argv.is_null() {
        return;
    }
    let mut prev_was_flag = false;
    for i in 0..argc {
        let p = unsafe { *argv.add(i) };
        if p.is_null() {
            break;
        }
        let len = unsafe { libc::strlen(p) };
        let bytes = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) };
        let mask_from = if prev_was_flag {
            Some(0)
        } else {
            SECRET_FLAGS.iter().find_map(|f| {
                let f = f.as_bytes();
                (bytes.len() > f.len() && bytes.starts_with(f) && bytes[f.len()] == b'=')
                    .then_some(f.len() + 1)
            })
        };
        // mysql://user:secret@host → mask "secret"
        let dsn_mask = std::str::from_utf8(bytes).ok().and_then(dsn_password_span);
        prev_was_flag = SECRET_FLAGS.iter().any(|f| bytes == f.as_bytes());
        if let Some(from) = mask_from {
            bytes[from..].iter_mut().for_each(|b| *b = b'x');
        } else if let Some((a, b)) = dsn_mask {
            bytes[a..b].iter_mut().for_each(|c| *c = b'x');
        }
    }
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
    fn dsn_span() {
        let s = "--dsn=mysql://u:pw@h:1/db";
        let (a, b) = dsn_password_span(s).unwrap();
        assert_eq!(&s[a..b], "pw");
        assert!(dsn_password_span("mysql://u@h/db").is_none());
    }
}
