//! The crate's one SQL string quoter against a real sandbox MariaDB under
//! its default sql_mode: every awkward byte (quotes, backslashes, NUL,
//! line breaks, Ctrl-Z, a trailing backslash) reads back exactly as given.

mod common;
use common::lab;
use qpslab::protocol::string_literal;

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02X}")).collect()
}

#[test]
fn literals_read_back_byte_for_byte() {
    let lab = lab();
    let cases = [
        "plain",
        "",
        "it's",
        "''",
        r#"say "hi""#,
        r"C:\dir\new",
        "ends in a backslash\\",
        r"\'",
        "nul\0inside",
        "two\nlines\r\n",
        "ctrl-z \u{1a}",
        "tab\there",
        "percent % and _ stay",
        "é ü ✓",
    ];
    for s in cases {
        let got = lab.sql("mysql", &format!("SELECT HEX({})", string_literal(s)));
        assert_eq!(got.trim(), hex(s), "{s:?} as {}", string_literal(s));
    }
}
