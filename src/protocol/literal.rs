//! SQL string literals: text made safe to splice into a statement as
//! `'…'`. The one quoter of the crate: the text protocol's bound values
//! (`Binder::bytes` on a text statement) and the SQL the lab and the
//! profiler build (SET GLOBAL values, instrument names) all go through it.
//!
//! The escapes are the ones a server reads in a single-quoted literal under
//! the default sql_mode (backslash escapes on) in MariaDB and MySQL alike,
//! and the set `mysql_real_escape_string` writes: `\0` for NUL, `\'`, `\"`,
//! `\\`, `\n`, `\r` and `\Z` (Ctrl-Z). Under `NO_BACKSLASH_ESCAPES` a
//! backslash is an ordinary character there, and these literals would read
//! wrong: nothing in qpslab turns that mode on for its own sessions.

/// Appends `v` to `out` as a single-quoted SQL string literal.
#[inline]
pub(crate) fn push_string_literal(out: &mut Vec<u8>, v: &[u8]) {
    out.push(b'\'');
    for &b in v {
        match b {
            b'\'' | b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            0 => out.extend_from_slice(b"\\0"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x1a => out.extend_from_slice(b"\\Z"),
            _ => out.push(b),
        }
    }
    out.push(b'\'');
}

/// `s` as a single-quoted SQL string literal (see the module doc).
pub fn string_literal(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    push_string_literal(&mut out, s.as_bytes());
    // Only ASCII bytes were inserted, each before or instead of an ASCII
    // byte: the UTF-8 of `s` is kept whole.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::string_literal;

    #[test]
    fn plain_text_is_only_wrapped() {
        assert_eq!(string_literal(""), "''");
        assert_eq!(string_literal("wait/io/file/%"), "'wait/io/file/%'");
        assert_eq!(string_literal("é ü"), "'é ü'");
    }

    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(string_literal("it's"), r"'it\'s'");
        assert_eq!(string_literal(r#"say "hi""#), r#"'say \"hi\"'"#);
        assert_eq!(string_literal(r"C:\dir"), r"'C:\\dir'");
        // a trailing backslash must not escape the closing quote
        assert_eq!(string_literal("x\\"), r"'x\\'");
        assert_eq!(string_literal(r"\'"), r"'\\\''");
        // the old doubling form is not used: '' inside stays escaped
        assert_eq!(string_literal("''"), r"'\'\''");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(string_literal("a\0b"), r"'a\0b'");
        assert_eq!(string_literal("a\nb\r"), r"'a\nb\r'");
        assert_eq!(string_literal("\u{1a}"), r"'\Z'");
        assert_eq!(string_literal("tab\tstays"), "'tab\tstays'");
    }
}
