//! Where sysbench's bundled scripts say what they say: qpslab runs
//! oltp_read_write & co. natively, but sysbench's messages name the line
//! of its Lua file that raised them (`oltp_common.lua:349: connection
//! creation failed`). This reads the installed scripts to find that
//! line, so the text is what this host's sysbench prints; without them
//! the location is left out. Owns no behaviour, only the lookup.

use std::path::PathBuf;

/// The file holding bundled test `test`'s common functions (the OLTP
/// scripts share oltp_common.lua), when sysbench's scripts are installed.
fn common_file(test: &str) -> Option<PathBuf> {
    let script = crate::workload::script::find_script(test).ok()?;
    // (named or given by path)
    let name = script.file_name()?.to_string_lossy();
    if name.starts_with("oltp_") {
        Some(script.with_file_name("oltp_common.lua"))
    } else {
        Some(script)
    }
}

/// `FILE:LINE: ` for the first line of function `func` of `test`'s
/// script that contains `needle` (e.g. `thread_init`,
/// `sysbench.sql.driver(`), else "".
pub fn function_at(test: &str, func: &str, needle: &str) -> String {
    let Some(file) = common_file(test) else {
        return String::new();
    };
    at_in(&file, func, needle)
}

/// `FILE:LINE: ` for the first line of function `func` of `file` that
/// contains `needle`, else "".
fn at_in(file: &std::path::Path, func: &str, needle: &str) -> String {
    let Ok(text) = std::fs::read_to_string(file) else {
        return String::new();
    };
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with(&format!("function {func}(")) {
            inside = true;
        } else if inside && line.starts_with("end") {
            break;
        } else if inside && line.contains(needle) {
            return format!("{}:{}: ", file.display(), i + 1);
        }
    }
    String::new()
}

/// What sysbench 1.0.20 says when bundled test `test`'s `command`
/// (prepare, prewarm, cleanup) finds no such driver: the function it
/// names (a command of `sysbench.cmdline.commands` is run through
/// `call_command`) and `FILE:LINE: ` of its `sysbench.sql.driver()` call —
/// in the test's own script, else in oltp_common.lua, which the OLTP and
/// select_random scripts share.
pub fn driver_failure_at(test: &str, command: &str) -> (&'static str, String) {
    let needle = "sysbench.sql.driver(";
    let (own, label) = match command {
        "prepare" => ("prepare", "prepare"),
        "cleanup" => ("cleanup", "cleanup"),
        _ => ("", ""),
    };
    let script = crate::workload::script::find_script(test).ok();
    if !own.is_empty() {
        if let Some(s) = &script {
            let at = at_in(s, own, needle);
            if !at.is_empty() {
                return (label, at);
            }
        }
    }
    let common = script.map(|s| s.with_file_name("oltp_common.lua"));
    let (func, label) = match command {
        "prepare" => ("cmd_prepare", "sysbench.cmdline.call_command"),
        "prewarm" => ("cmd_prewarm", "sysbench.cmdline.call_command"),
        _ => ("cleanup", "cleanup"),
    };
    (
        label,
        common.map(|c| at_in(&c, func, needle)).unwrap_or_default(),
    )
}

/// The message of a Lua error as sysbench prints it: qpslab's wrapping
/// (`script PATH: `, mlua's `runtime error: ` / `syntax error: `, a
/// trailing hint, the traceback) taken off.
pub fn lua_message(m: &str) -> &str {
    let mut m = m.lines().next().unwrap_or("");
    if let Some(rest) = m.strip_prefix("script ") {
        // ("script PATH: …": a script's path ends in .lua, or the error
        // kind follows it)
        for sep in ["runtime error: ", "syntax error: ", ".lua: "] {
            if let Some((_, msg)) = rest.split_once(sep) {
                m = msg;
                break;
            }
        }
    }
    m.strip_suffix(" (see --help)").unwrap_or(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lua_messages_lose_qpslabs_wrapping_only() {
        assert_eq!(
            lua_message("script a.lua: syntax error: a.lua:2: ')' expected near '(' (see --help)"),
            "a.lua:2: ')' expected near '('"
        );
        assert_eq!(
            lua_message("script /x/o.lua: runtime error: /x/o.lua:28: Command is required\nstack traceback:"),
            "/x/o.lua:28: Command is required"
        );
        assert_eq!(
            lua_message("script /x/o.lua: /x/c.lua:28: Command is required"),
            "/x/c.lua:28: Command is required"
        );
        assert_eq!(lua_message("plain"), "plain");
    }
}
