//! Finds, before anything runs, the sysbench API a script calls that qpslab
//! does not provide: every `sysbench.x.y(…)` the script (and the modules it
//! requires from the search path) calls, outside its comments and strings,
//! is looked up in the loaded state; a name under sysbench's own tables
//! that resolves to nothing is reported with its file and line. A name
//! only read (`if sysbench.rand.hash then`: a feature test) is nil there,
//! as under sysbench. (Methods of connections, statements and result sets
//! are checked when called: their names are not visible statically.)

use mlua::{Table, Value};
use std::path::{Path, PathBuf};

/// Tables whose every member is sysbench's API (a script only reads them);
/// `sysbench.opt` and `sysbench.cmdline` hold the script's own names.
const API_TABLES: &[&str] = &[
    "sysbench",
    "sysbench.rand",
    "sysbench.sql",
    "sysbench.sql.type",
    "sysbench.sql.error",
    "sysbench.error",
    "sysbench.histogram",
    "sysbench.db",
    "sysbench.qpslab",
];

/// Hooks qpslab calls; a script installing another is told so.
const HOOKS: &[&str] = &[
    "sql_error_ignorable",
    "report_intermediate",
    "report_cumulative",
    "before_restart_event",
];

/// A use of the API: where, and the dotted name.
struct Use {
    file: PathBuf,
    line: usize,
    name: String,
}

fn uses_in(file: &Path, text: &str, out: &mut Vec<Use>) {
    let code = code_only(text);
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("sysbench.") {
            let before = rest[..at].chars().last();
            let tail = &rest[at..];
            let len = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(tail.len());
            let called = is_called(&tail[len..]);
            if called && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                out.push(Use {
                    file: file.to_path_buf(),
                    line: n + 1,
                    name: tail[..len].trim_end_matches('.').to_string(),
                });
            }
            rest = &tail[len.max(1)..];
        }
    }
}

/// Whether what follows a name calls it (`(`, a string or table argument,
/// a method call); a string argument is blanked by `code_only`, so a quote
/// shows as the blank run's opening quote kept.
fn is_called(after: &str) -> bool {
    let a = after.trim_start_matches([' ', '\t']);
    a.starts_with(['(', '"', '\'', '{', ':']) || a.starts_with("[[") || a.starts_with("[=")
}

/// `text` with its comments and the insides of its strings blanked (each
/// character a space, new lines kept: the lines keep their numbers; a
/// string's opening quote or bracket is kept, so that a call with a string
/// argument still reads as one).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let blank = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|&c| if c == b'\n' { c } else { b' ' }))
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"--") {
            // a long comment --[[ ]] / --[==[ ]==], else to the line's end
            let end = long_bracket(&rest[2..])
                .map(|n| 2 + n)
                .unwrap_or_else(|| rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len()));
            blank(&mut out, &rest[..end]);
            i += end;
        } else if let Some(n) = long_bracket(rest) {
            out.push(b'[');
            blank(&mut out, &rest[1..n]);
            i += n;
        } else if rest[0] == b'"' || rest[0] == b'\'' {
            let q = rest[0];
            let mut j = 1;
            while j < rest.len() && rest[j] != q && rest[j] != b'\n' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            out.push(q);
            blank(&mut out, &rest[1..end]);
            i += end;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    // (only ASCII bytes were blanked or kept whole: still UTF-8, but a
    // multi-byte character cut by a blank run is replaced)
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The length of the long bracket (`[[ … ]]`, `[==[ … ]==]`) `s` starts
/// with, to its close or the text's end; None when it starts with none.
fn long_bracket(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'[') {
        return None;
    }
    let eqs = s[1..].iter().take_while(|&&c| c == b'=').count();
    if s.get(1 + eqs) != Some(&b'[') {
        return None;
    }
    let mut close = vec![b']'];
    close.extend(std::iter::repeat_n(b'=', eqs));
    close.push(b']');
    let body = 2 + eqs;
    let end = s[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(s.len(), |p| body + p + close.len());
    Some(end)
}

/// Modules `require`d by `text` that are found in `dirs`.
fn required(text: &str, dirs: &[String]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("require") {
        rest = &rest[at + 7..];
        let arg = rest.trim_start_matches(|c: char| c == '(' || c.is_whitespace());
        let Some(q) = arg.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let Some(end) = arg[1..].find(q) else {
            continue;
        };
        let module = arg[1..1 + end].replace('.', "/");
        if let Some(p) = dirs
            .iter()
            .map(|d| Path::new(d).join(format!("{module}.lua")))
            .find(|p| p.is_file())
        {
            found.push(p);
        }
    }
    found
}

/// Looks `name` up from `sysbench`: Err names what is missing.
fn check(sb: &Table, name: &str) -> Result<(), String> {
    let parts: Vec<&str> = name.split('.').collect();
    let mut cur = sb.clone();
    let mut path = String::from("sysbench");
    for (i, part) in parts.iter().enumerate().skip(1) {
        if path == "sysbench.hooks" && i == parts.len() - 1 {
            return if HOOKS.contains(part) {
                Ok(())
            } else {
                Err(format!(
                    "sysbench API sysbench.hooks.{part} is not supported by qpslab (it calls {})",
                    HOOKS.join(", ")
                ))
            };
        }
        // (through metatables: `sysbench.qpslab` is reachable, not listed)
        let v: Value = cur.get(*part).unwrap_or(Value::Nil);
        match v {
            Value::Table(t) => cur = t,
            Value::Nil if API_TABLES.contains(&path.as_str()) => {
                return Err(format!(
                    "sysbench API {path}.{part} is not supported by qpslab"
                ));
            }
            _ => return Ok(()),
        }
        path.push('.');
        path.push_str(part);
    }
    Ok(())
}

/// Checks the script's uses of the API against `sb` (the loaded
/// `sysbench` table); Err is "file:line: sysbench API … is not supported".
pub(crate) fn unsupported_api(
    sb: &Table,
    script: &Path,
    text: &str,
    dirs: &[String],
) -> Result<(), String> {
    let mut uses = Vec::new();
    uses_in(script, text, &mut uses);
    for module in required(text, dirs) {
        if let Ok(t) = std::fs::read_to_string(&module) {
            uses_in(&module, &t, &mut uses);
        }
    }
    for u in uses {
        if let Err(m) = check(sb, &u.name) {
            return Err(format!("{}:{}: {m}", u.file.display(), u.line));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_with_their_lines() {
        let mut u = Vec::new();
        let text = "local a = sysbench.rand.uniform(1, 2)\n-- sysbench.nope()\nx = mysysbench.y(); sysbench.sql.type.INT\n\
            --[[ sysbench.in_comment()\n sysbench.too() ]] s = 'sysbench.in_string()'\n\
            if sysbench.rand.hash then end; sysbench.report_csv { } sysbench.opt:x() sysbench.f \"a\"\n\
            t = [==[ sysbench.long() ]==] sysbench.after()";
        uses_in(Path::new("s.lua"), text, &mut u);
        let got: Vec<(usize, &str)> = u.iter().map(|u| (u.line, u.name.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (1, "sysbench.rand.uniform"),
                (6, "sysbench.report_csv"),
                (6, "sysbench.opt"),
                (6, "sysbench.f"),
                (7, "sysbench.after")
            ]
        );
    }

    #[test]
    fn missing_api_names_are_reported() {
        let lua = mlua::Lua::new();
        let sb: Table = lua
            .load("return { rand = { uniform = 1 }, opt = {}, hooks = {} }")
            .eval()
            .unwrap();
        assert!(check(&sb, "sysbench.rand.uniform").is_ok());
        assert!(check(&sb, "sysbench.opt.anything").is_ok());
        assert!(check(&sb, "sysbench.hooks.report_cumulative").is_ok());
        let e = check(&sb, "sysbench.rand.hash").unwrap_err();
        assert_eq!(
            e,
            "sysbench API sysbench.rand.hash is not supported by qpslab"
        );
        assert!(check(&sb, "sysbench.hooks.sql_error_ignorable").is_ok());
        assert!(check(&sb, "sysbench.hooks.no_such_hook").is_err());
    }

    /// Script text made of the pieces the scanner looks for, and anything.
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            any::<String>(),
            Just("sysbench.".to_string()),
            Just("sysbench.rand.".to_string()),
            Just("sysbench.hooks.".to_string()),
            Just("require".to_string()),
            Just("(\"".to_string()),
            Just("'".to_string()),
            Just("--".to_string()),
            Just("\n".to_string()),
            Just("é.x".to_string()),
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 500, failure_persistence: None, ..Default::default() })]

        /// Any text scans without a panic; a refusal is one line naming
        /// the file and line.
        #[test]
        fn any_text_scans_to_ok_or_one_line(t in text()) {
            let lua = mlua::Lua::new();
            let sb: Table = lua
                .load("return { rand = { uniform = 1 }, opt = {}, hooks = {}, sql = {} }")
                .eval()
                .unwrap();
            let dirs = [std::env::temp_dir().display().to_string()];
            if let Err(e) = unsupported_api(&sb, Path::new("s.lua"), &t, &dirs) {
                proptest::prop_assert!(e.starts_with("s.lua:") && !e.contains('\n'), "{e:?}");
            }
        }
    }
}
