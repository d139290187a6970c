//! A script's own options: what it puts in `sysbench.cmdline.options`
//! when loaded (`name = {"description", default}`), typed by the default
//! as sysbench does (a boolean, a number, else text).

use super::def::{BuiltIns, ScriptDef};
use super::guard::StepKind;
use super::state;
use crate::workload::options::{OptKind, OptSpec, OptValues};
use crate::workload::RandParams;
use mlua::{Table, Value};
use std::path::Path;

/// Loads the script at `path` for `command` and returns the options it
/// declares, in name order. Err is one line (the Lua error's first line,
/// which names the file and line).
pub(crate) fn script_options(path: &Path, command: &str) -> Result<Vec<OptSpec>, String> {
    declared_options(path, command).map(Option::unwrap_or_default)
}

/// sysbench's words for a `sysbench.cmdline.options` entry that is not
/// `name = {…}` (its cmdline module's assertion, as sysbench 1.0.20 prints
/// it).
const WRONG_STRUCTURE: &str = "`sysbench.cmdline.read_cmdline_options' function failed: \
     [string \"sysbench.cmdline.lua\"]:132: wrong table structure in sysbench.cmdline.options";

/// As `script_options`; None when the script declares no options at all
/// (sysbench then takes any `--name=value`, as the script may read it).
pub(crate) fn declared_options(path: &Path, command: &str) -> Result<Option<Vec<OptSpec>>, String> {
    let st =
        bare_state(path, command).map_err(|m| m.lines().next().unwrap_or("error").to_string())?;
    let first_line = |e: mlua::Error| state::first_line(&e);
    let options: Table = st
        .sysbench()
        .and_then(|s| s.get::<Table>("cmdline"))
        .and_then(|c| c.get::<Table>("options"))
        .map_err(first_line)?;
    let untouched = options
        .metatable()
        .is_some_and(|m| m.get::<bool>("__qpslab_undeclared").unwrap_or(false));
    if untouched && options.is_empty() {
        return Ok(None);
    }
    let mut specs = Vec::new();
    for pair in options.pairs::<Value, Value>() {
        let (name, v) = pair.map_err(first_line)?;
        let (Value::String(name), Value::Table(_)) = (&name, &v) else {
            return Err(WRONG_STRUCTURE.to_string());
        };
        let name = name.to_string_lossy().to_string();
        if name.is_empty()
            || name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '=')
        {
            return Err(format!(
                "script {}: sysbench.cmdline.options has an option named {name:?}, which no \
                 command line can give (a name has no spaces, control characters or '=')",
                path.display()
            ));
        }
        let Value::Table(t) = v else {
            return Err(WRONG_STRUCTURE.to_string());
        };
        let help: String = t.get(1).unwrap_or_default();
        let default: Value = t.get(2).unwrap_or(Value::Nil);
        let declared: Option<i64> = t.get(3).ok();
        let (kind, default) = match default {
            Value::Boolean(b) => (OptKind::Bool, if b { "on" } else { "off" }.to_string()),
            // Lua numbers are doubles: 10 is shown as 10, 0.5 as 0.5.
            Value::Integer(i) => (OptKind::Float, i.to_string()),
            Value::Number(n) => (OptKind::Float, n.to_string()),
            Value::String(s) => (OptKind::Text, s.to_string_lossy().to_string()),
            Value::Table(items) => (OptKind::List, list_text(&items)),
            _ => (OptKind::Text, String::new()),
        };
        // sysbench.cmdline.ARG_*: the type a script names overrides the
        // one its default suggests.
        let kind = match declared {
            Some(1) => OptKind::Bool,
            Some(2 | 4) => OptKind::Float,
            Some(3) => OptKind::Size,
            Some(6) => OptKind::List,
            Some(5 | 7) => OptKind::Text,
            _ => kind,
        };
        specs.push(OptSpec::new(&name, kind, &default, &help));
    }
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Some(specs))
}

/// A list option's default as the command line would give it: the
/// table's items joined with commas.
fn list_text(items: &Table) -> String {
    let words: Vec<String> = items
        .clone()
        .sequence_values::<Value>()
        .filter_map(Result::ok)
        .map(|v| match v {
            Value::String(s) => s.to_string_lossy().to_string(),
            Value::Integer(i) => i.to_string(),
            Value::Number(n) => n.to_string(),
            Value::Boolean(b) => b.to_string(),
            _ => String::new(),
        })
        .collect();
    words.join(",")
}

/// Runs the script's own `help()` function, if it defines one (it prints
/// what it wants), as `sysbench SCRIPT help` does; returns whether it did.
pub fn script_help(path: &Path) -> Result<bool, String> {
    // help() sees its options at their defaults, as in sysbench.
    let specs = script_options(path, "help")?;
    let def = ScriptDef::new(
        path,
        &OptValues::new(specs),
        &BuiltIns::default(),
        RandParams::default(),
        1,
    )?;
    let st = state::main_state(&def, "help", 1, true)?;
    let Some(f) = st.global_fn("help") else {
        return Ok(false);
    };
    st.host.guard.set_command("help");
    let lua_error = |m| format!("script {}: {m}", path.display());
    match st.call(StepKind::Command, f, (), lua_error) {
        Ok(()) => Ok(true),
        // help() that ends with os.exit(0), as some scripts' do, is done.
        Err(m) if super::guard::exit_code_for(&m) == Some(0) => Ok(true),
        Err(m) => Err(m),
    }
}

/// Loads the script with no command, as sysbench does when none is
/// given: its main chunk runs (and may print or raise); Err is the
/// script's error.
pub fn load_only(path: &Path) -> Result<(), String> {
    bare_state(path, "").map(|_| ())
}

/// The script loaded for `command` with no option given (what it declares
/// and defines, before any value is known).
fn bare_state(path: &Path, command: &str) -> Result<state::ScriptState, String> {
    let def = ScriptDef::new(
        path,
        &OptValues::default(),
        &BuiltIns::default(),
        RandParams::default(),
        1,
    )?;
    // (the script's main state: its chunk runs once in the process, as in
    // sysbench, whatever reads its options or runs it next)
    state::main_state(&def, command, 1, false)
}

#[cfg(test)]
mod tests {
    //! A property target for what reads a script's options and the
    //! command line's `--name=value` words for them: any declaration and
    //! any words give options or one line of error, never a panic.
    use super::*;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// `s` as a Lua string literal (every byte a decimal escape).
    fn lua_str(s: &str) -> String {
        let mut o = String::from("\"");
        for b in s.bytes() {
            o.push_str(&format!("\\{b}"));
        }
        o.push('"');
        o
    }

    fn lua_default() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<bool>().prop_map(|b| b.to_string()),
            any::<f64>().prop_map(|f| if f.is_finite() {
                format!("{f:e}")
            } else {
                "0/0".into()
            }),
            any::<i64>().prop_map(|i| format!("({i})")),
            any::<String>().prop_map(|s| lua_str(&s)),
            Just("nil".to_string()),
            Just("{}".to_string()),
        ]
    }

    /// (the option's name as written, its Lua key, its Lua value)
    fn declaration() -> impl Strategy<Value = (String, String, String)> {
        let name = prop_oneof![
            any::<String>(),
            Just("rows".to_string()),
            Just("skip-trx".to_string()),
            any::<u8>().prop_map(|n| n.to_string()),
        ];
        (name, any::<String>(), lua_default(), any::<bool>()).prop_map(|(n, help, d, table)| {
            let key = match n.parse::<u8>() {
                Ok(i) => i.to_string(),
                Err(_) => lua_str(&n),
            };
            let v = if table {
                format!("{{{}, {d}}}", lua_str(&help))
            } else {
                d
            };
            (n, key, v)
        })
    }

    /// A value for an option: anything, or one with a line break.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            any::<String>().prop_map(|s| format!("1\n{s}")),
            any::<String>().prop_map(|s| format!("{s}\r\non")),
        ]
    }

    fn word(names: Vec<String>) -> impl Strategy<Value = String> {
        let name = proptest::sample::select(if names.is_empty() {
            vec!["x".to_string()]
        } else {
            names
        });
        prop_oneof![
            (name.clone(), value()).prop_map(|(n, v)| format!("--{n}={v}")),
            name.prop_map(|n| format!("--{n}")),
            any::<String>(),
            any::<String>().prop_map(|s| format!("--{s}")),
        ]
    }

    fn one_line(e: &str) -> bool {
        !e.is_empty() && !e.contains('\n') && !e.contains('\r')
    }

    static CASE: AtomicU32 = AtomicU32::new(0);

    /// Declarations, and command-line words naming them (or not).
    fn case() -> impl Strategy<Value = (Vec<(String, String, String)>, Vec<String>)> {
        prop::collection::vec(declaration(), 0..5).prop_flat_map(|decls| {
            let names = decls.iter().map(|(n, _, _)| n.clone()).collect();
            (Just(decls), prop::collection::vec(word(names), 0..6))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn any_declaration_and_any_words_give_options_or_one_line((decls, words) in case()) {
            let fields: Vec<String> = decls.iter().map(|(_, k, v)| format!("[{k}] = {v}")).collect();
            let text = format!(
                "sysbench.cmdline.options = {{ {} }}\nfunction event() end\n",
                fields.join(", ")
            );
            let n = CASE.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("qpslab-optprop-{}-{n}.lua", std::process::id()));
            std::fs::write(&path, &text).unwrap();
            let got = script_options(&path, "run");
            let _ = std::fs::remove_file(&path);
            match got {
                Ok(specs) => {
                    let mut values = OptValues::new(specs);
                    if let Err(e) = values.take_from(&words) {
                        prop_assert!(one_line(&e), "{words:?}: {e:?}");
                    }
                }
                Err(e) => prop_assert!(one_line(&e), "{e:?}"),
            }
        }
    }
    #[test]
    fn no_options_empty_options_and_a_wrong_structure_are_told_apart() {
        let write = |name: &str, text: &str| {
            let p = std::env::temp_dir()
                .join(format!("qpslab-optdecl-{}-{name}.lua", std::process::id()));
            std::fs::write(&p, text).unwrap();
            p
        };
        let none = write("none", "function event() end\n");
        let empty = write(
            "empty",
            "sysbench.cmdline.options = {}\nfunction event() end\n",
        );
        let wrong = write(
            "wrong",
            "sysbench.cmdline.options = { {} }\nfunction event() end\n",
        );
        // (none declared: sysbench takes any option; an empty table: none)
        assert_eq!(
            declared_options(&none, "run").map(|o| o.is_none()),
            Ok(true)
        );
        assert_eq!(
            declared_options(&empty, "run").map(|o| o.map(|v| v.len())),
            Ok(Some(0))
        );
        assert_eq!(
            declared_options(&wrong, "run").err().as_deref(),
            Some(WRONG_STRUCTURE)
        );
        for p in [none, empty, wrong] {
            let _ = std::fs::remove_file(p);
        }
    }
}
