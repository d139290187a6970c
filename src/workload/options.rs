//! A workload family's own options, as sysbench scripts declare theirs
//! (`sysbench.cmdline.options`): a name, a description, a default and a
//! type. The command line takes them as `--name=value`, `--name value` or
//! `--name` (a boolean turned on); dashes and underscores are the same.
//! The OLTP family declares sysbench's oltp_common options here; a Lua
//! script will declare its own, and both are parsed and shown the same way.

use std::collections::BTreeMap;

/// The type of an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptKind {
    /// A whole number from 0 to 2^32 - 1.
    Count,
    /// Any finite number (a script's numeric option).
    Float,
    /// on/off, true/false, yes/no, 1/0.
    Bool,
    /// Any text.
    Text,
    /// A byte size: digits with an optional K, M, G or T (powers of 1024),
    /// given to a script as the number of bytes.
    Size,
    /// Comma-separated words, given to a script as a table of strings.
    List,
}

/// A size as sysbench reads one: digits and an optional K, M, G or T
/// (either case, powers of 1024).
pub fn parse_size(v: &str) -> Option<u64> {
    let (digits, mult) = match v.chars().last()?.to_ascii_uppercase() {
        'K' => (&v[..v.len() - 1], 1u64 << 10),
        'M' => (&v[..v.len() - 1], 1 << 20),
        'G' => (&v[..v.len() - 1], 1 << 30),
        'T' => (&v[..v.len() - 1], 1 << 40),
        _ => (v, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// One option a family declares.
#[derive(Debug, Clone)]
pub struct OptSpec {
    /// With underscores, as the family reads it (`table_size`).
    pub name: String,
    /// One line of help for `qpslab workloads` and `--help`.
    pub help: String,
    /// The default as text (parsed like a given value).
    pub default: String,
    /// The value's type, checked when set.
    pub kind: OptKind,
    /// Other names accepted for it (sysbench's older spellings).
    pub aliases: Vec<String>,
}

impl OptSpec {
    /// An option without aliases.
    pub fn new(name: &str, kind: OptKind, default: &str, help: &str) -> OptSpec {
        OptSpec {
            name: name.into(),
            help: help.into(),
            default: default.into(),
            kind,
            aliases: Vec::new(),
        }
    }

    /// Accepts `a` as another name for it.
    pub fn alias(mut self, a: &str) -> OptSpec {
        self.aliases.push(a.into());
        self
    }

    /// `name` is normalized; so is a name a script declared with dashes
    /// (sysbench's `["dash-opt"]`).
    fn answers_to(&self, name: &str) -> bool {
        self.name == name || normalize(&self.name) == name || self.aliases.iter().any(|a| a == name)
    }
}

/// `--table-size` and `--table_size` are both `table_size`.
fn normalize(name: &str) -> String {
    name.replace('-', "_")
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// Checks `value` against `spec`; the error is one line naming the option.
fn check(spec: &OptSpec, value: &str) -> Result<(), String> {
    let flag = format!("--{}", spec.name.replace('_', "-"));
    let ok = match spec.kind {
        OptKind::Count => value.trim().parse::<u32>().is_ok(),
        OptKind::Float => value.trim().parse::<f64>().is_ok_and(f64::is_finite),
        OptKind::Bool => parse_bool(value).is_some(),
        OptKind::Size => parse_size(value.trim()).is_some(),
        OptKind::Text | OptKind::List => true,
    };
    if ok {
        return Ok(());
    }
    // Shown escaped: the error stays one line whatever the value holds.
    let value = value.escape_debug();
    Err(match spec.kind {
        OptKind::Count => format!("{flag} '{value}' is not a whole number from 0 to 4294967295"),
        OptKind::Float => format!("{flag} '{value}' is not a number"),
        OptKind::Bool => format!("{flag} '{value}' is not one of on, off"),
        OptKind::Size => format!("{flag} '{value}' is not a size (digits and K, M, G or T)"),
        OptKind::Text | OptKind::List => unreachable!(),
    })
}

/// The values of a family's options: given ones, else the defaults.
#[derive(Debug, Clone, Default)]
pub struct OptValues {
    specs: Vec<OptSpec>,
    given: BTreeMap<String, String>,
}

impl OptValues {
    /// Values for `specs`, each at its default until set.
    pub fn new(specs: Vec<OptSpec>) -> OptValues {
        OptValues {
            specs,
            given: BTreeMap::new(),
        }
    }

    /// Accepts `name` as a text option (for a script that declares none).
    pub fn declare_text(&mut self, name: &str) {
        if self.spec(name).is_none() {
            let help = "(not declared by the script)";
            self.specs
                .push(OptSpec::new(&normalize(name), OptKind::Text, "", help));
        }
    }

    fn spec(&self, name: &str) -> Option<&OptSpec> {
        let n = normalize(name);
        self.specs.iter().find(|s| s.answers_to(&n))
    }

    /// Sets an option from text, checked against its type.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let spec = self
            .spec(name)
            .ok_or_else(|| format!("unknown option --{}", name.escape_debug()))?;
        check(spec, value)?;
        let key = spec.name.clone();
        self.given.insert(key, value.trim().to_string());
        Ok(())
    }

    fn raw(&self, name: &str) -> &str {
        match self.given.get(name) {
            Some(v) => v,
            None => self
                .specs
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.default.as_str())
                .unwrap_or(""),
        }
    }

    /// Every option with its value (given or default), in the specs' order.
    pub fn entries(&self) -> impl Iterator<Item = (&OptSpec, &str)> + '_ {
        self.specs.iter().map(|s| (s, self.raw(&s.name)))
    }

    /// Whether `name` was given (set), not left at its default.
    pub fn is_given(&self, name: &str) -> bool {
        self.spec(name)
            .is_some_and(|s| self.given.contains_key(&s.name))
    }

    /// A count option's value (0 when unset and without a default).
    pub fn count(&self, name: &str) -> u32 {
        self.raw(name).parse().unwrap_or(0)
    }

    /// A flag's value (false when unset and without a default).
    pub fn flag(&self, name: &str) -> bool {
        parse_bool(self.raw(name)).unwrap_or(false)
    }

    /// A text option's value, given or default ("" for neither).
    pub fn text(&self, name: &str) -> &str {
        self.raw(name)
    }

    /// Takes this family's options out of `words` (command-line words
    /// after the command): `--name=value`, `--name value`, or a bare
    /// `--name` for a boolean (on). Returns the other words, in order.
    pub fn take_from(&mut self, words: &[String]) -> Result<Vec<String>, String> {
        let mut rest = Vec::with_capacity(words.len());
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            i += 1;
            let Some(body) = w.strip_prefix("--") else {
                rest.push(w.clone());
                continue;
            };
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let Some(spec) = self.spec(name) else {
                rest.push(w.clone());
                continue;
            };
            let value = match inline {
                Some(v) => v,
                None if spec.kind == OptKind::Bool => {
                    // `--skip-trx` alone (or before another option) turns it
                    // on; a word after it is its value, checked like one.
                    match words.get(i).filter(|v| !v.starts_with('-')) {
                        Some(v) => {
                            i += 1;
                            v.clone()
                        }
                        None => "on".into(),
                    }
                }
                None => {
                    let v = words.get(i).cloned().ok_or_else(|| {
                        let (name, default) = (name.escape_debug(), spec.default.escape_debug());
                        format!("--{name} needs a value (default {default})")
                    })?;
                    i += 1;
                    v
                }
            };
            self.set(name, &value)?;
        }
        Ok(rest)
    }

    /// The options as sysbench 1.0.20's `SCRIPT help` lists them: sorted
    /// by name, sysbench's type marks, the descriptions in one column.
    pub fn sysbench_help(&self) -> String {
        let mut rows: Vec<(String, &OptSpec)> = self
            .specs
            .iter()
            .map(|s| {
                let kind = match s.kind {
                    OptKind::Count | OptKind::Float => "=N",
                    OptKind::Bool => "[=on|off]",
                    OptKind::Text => "=STRING",
                    OptKind::Size => "=SIZE",
                    OptKind::List => "=[LIST,...]",
                };
                (format!("--{}{kind}", s.name), s)
            })
            .collect();
        rows.sort_by(|a, b| a.1.name.cmp(&b.1.name));
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let mut out = String::new();
        for (flag, s) in rows {
            // (a text option without a default shows none)
            if s.default.is_empty() && matches!(s.kind, OptKind::Text | OptKind::List) {
                out.push_str(&format!("  {flag:<w$} {}\n", s.help));
            } else {
                out.push_str(&format!("  {flag:<w$} {} [{}]\n", s.help, s.default));
            }
        }
        out
    }

    /// The options as qpslab's `--help` shows a workload's: name=type,
    /// description and default.
    pub fn help(&self) -> String {
        let mut out = String::new();
        for s in &self.specs {
            let kind = match s.kind {
                OptKind::Count | OptKind::Float => "N",
                OptKind::Bool => "[=on|off]",
                OptKind::Text => "=STRING",
                OptKind::Size => "=SIZE",
                OptKind::List => "=LIST",
            };
            let flag = format!(
                "--{}{}",
                s.name.replace('_', "-"),
                if kind == "N" { "=N" } else { kind }
            );
            out.push_str(&format!("  {flag:<34} {} [{}]\n", s.help, s.default));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> OptValues {
        OptValues::new(vec![
            OptSpec::new("table_size", OptKind::Count, "10000", "rows per table"),
            OptSpec::new("skip_trx", OptKind::Bool, "off", "no BEGIN/COMMIT"),
            OptSpec::new("storage_engine", OptKind::Text, "innodb", "engine")
                .alias("mysql_storage_engine"),
        ])
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn spellings_and_forms() {
        let mut v = values();
        let rest = v
            .take_from(&words(
                "x --table-size 5 --threads 4 --skip_trx --mysql-storage-engine=myisam",
            ))
            .unwrap();
        assert_eq!(rest, words("x --threads 4"));
        assert_eq!((v.count("table_size"), v.flag("skip_trx")), (5, true));
        assert_eq!(v.text("storage_engine"), "myisam");
        let mut v = values();
        v.take_from(&words("--skip-trx off --table_size=7"))
            .unwrap();
        assert_eq!((v.count("table_size"), v.flag("skip_trx")), (7, false));
        assert_eq!(values().count("table_size"), 10000);
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        let e = values().take_from(&words("--table-size -1")).unwrap_err();
        assert!(e.contains("--table-size '-1'") && !e.contains('\n'), "{e}");
        let e = values().take_from(&words("--skip-trx=maybe")).unwrap_err();
        assert!(e.contains("on, off"), "{e}");
        let e = values().take_from(&words("--skip-trx maybe")).unwrap_err();
        assert!(e.contains("--skip-trx 'maybe'"), "{e}");
        let e = values().take_from(&words("--table-size")).unwrap_err();
        assert!(e.contains("needs a value"), "{e}");
    }
}
