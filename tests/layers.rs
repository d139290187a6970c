//! The layer rules, checked: reads every file under src/, collects the
//! crate paths it uses (`use` trees, `crate::`/`super::`/`self::` paths
//! in code and inside macro calls, paths through a child module), and
//! fails on an import against the flow between top-level modules, on a
//! cycle between files (a parent mod.rs and its child included), and on
//! printing outside the front ends.
//!
//! The rules are written once here and in src/lib.rs's doc; change both
//! together, on purpose, saying why.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// What each top-level module may import from (besides itself and the
/// shared leaves, which every module may use).
///
/// Why the rows are what they are:
/// - `secret`, `out`, `stats`, `interrupt` are leaves: no qpslab imports.
///   `out` holds the inert-text helpers anyone may use; *printing* with it
///   is checked apart (see `PRINTERS`). `interrupt` is the process's
///   Ctrl-C flag, which the run engine, scripts and the UI all honour.
/// - `server` knows sandboxes and server builds; it talks SQL through no
///   one (it spawns the server's own tools).
/// - `protocol` speaks the wire protocol to a server it is handed.
/// - `workload` builds statements and runs them through `protocol`;
///   it knows `server` only for flavours and versions.
/// - `exec` runs a workload's sessions: it may see `workload` and
///   `protocol`, never the store or anything that renders.
/// - `monitor` and `profiler` sit beside exec: they read the server
///   (`protocol`, `server`) and the host, and nothing of the run.
/// - `hostbench` runs sysbench's built-in host tests (cpu, memory,
///   threads, mutex, fileio): it measures the host alone, no server.
/// - `store` keeps results; `analyze` reads them and the monitor's and
///   profiler's types to judge; `campaign` parses campaign files.
/// - `report` renders results to text, SVG and HTML: it may read what it
///   renders (store, analyze, monitor/profiler types, campaign, workload
///   options, server descriptions), never run anything (`exec`, `lab`).
/// - `lab` composes the layers into use cases (runs, sweeps, campaigns,
///   sandboxes); it never renders (`report`) and never prints.
/// - `ui` and `cli` are the two front ends: they call lab's use cases and
///   render through report. (`ui` may call `lab` — a changed rule: the
///   UI is a front end like the command line, and the use cases it needs,
///   a stored run or a campaign's variants, are lab's, not a copy in ui.)
const ALLOWED: &[(&str, &[&str])] = &[
    ("secret", &[]),
    ("out", &[]),
    ("stats", &[]),
    ("interrupt", &[]),
    ("server", &[]),
    ("protocol", &["server"]),
    ("workload", &["protocol", "server"]),
    ("exec", &["workload", "protocol", "server"]),
    ("monitor", &["protocol", "server"]),
    ("profiler", &["protocol", "server"]),
    ("hostbench", &[]),
    ("store", &["workload", "server"]),
    ("campaign", &["workload", "server", "hostbench"]),
    (
        "analyze",
        &[
            "store", "workload", "server", "monitor", "profiler", "campaign",
        ],
    ),
    (
        "report",
        &[
            "analyze",
            "store",
            "workload",
            "server",
            "monitor",
            "profiler",
            "campaign",
            "protocol",
            "hostbench",
        ],
    ),
    (
        "lab",
        &[
            "analyze",
            "store",
            "workload",
            "server",
            "monitor",
            "profiler",
            "campaign",
            "protocol",
            "exec",
            "hostbench",
        ],
    ),
    (
        "ui",
        &[
            "lab", "report", "analyze", "store", "workload", "server", "monitor", "profiler",
            "campaign", "protocol",
        ],
    ),
    (
        "cli",
        &[
            "ui",
            "lab",
            "report",
            "analyze",
            "store",
            "workload",
            "server",
            "monitor",
            "profiler",
            "campaign",
            "protocol",
            "exec",
            "hostbench",
        ],
    ),
];

/// Modules every module may import.
const LEAVES: &[&str] = &["secret", "out", "stats", "interrupt"];

/// The only top-level modules that print (to stdout or stderr): the
/// front ends. Everything below them hands text or progress events up.
const PRINTERS: &[&str] = &["cli", "ui", "out"];

/// One source file: its path under src/ and its module path.
struct File {
    rel: String,
    module: Vec<String>,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn files() -> Vec<File> {
    let mut out = Vec::new();
    let mut stack = vec![src_dir()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(src_dir())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if rel == "main.rs" || rel.starts_with("bin/") {
                    continue;
                }
                let mut module: Vec<String> = rel
                    .trim_end_matches(".rs")
                    .split('/')
                    .map(String::from)
                    .collect();
                let name = module.last().cloned().unwrap();
                if name == "mod" || rel == "lib.rs" {
                    module.pop();
                }
                out.push(File { rel, module });
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// Collects the paths a file names: each as segments, with a flag for
/// whether it was a print macro.
#[derive(Default)]
struct Names {
    paths: Vec<(Vec<String>, Vec<String>)>,
    prints: Vec<String>,
    /// Names a `use` brings into the file's module (alias → path as
    /// written): `super::Thing` in a child, when `Thing` is only
    /// imported or re-exported by the parent, depends on where `Thing`
    /// is defined, not on the parent.
    aliases: BTreeMap<String, Vec<String>>,
    /// Inline modules (`mod tests { … }`) the visitor is inside: a path
    /// there starts from the file's module plus these.
    inline: Vec<String>,
}

impl Names {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut v = prefix.clone();
                v.push(n.ident.to_string());
                if !self.inline.is_empty() {
                    // An inline module's imports are its own.
                } else if n.ident != "self" {
                    self.aliases.insert(n.ident.to_string(), v.clone());
                } else if let Some(last) = prefix.last() {
                    self.aliases.insert(last.clone(), prefix.clone());
                }
                self.paths.push((self.inline.clone(), v));
            }
            syn::UseTree::Rename(r) => {
                let mut v = prefix.clone();
                v.push(r.ident.to_string());
                if self.inline.is_empty() {
                    self.aliases.insert(r.rename.to_string(), v.clone());
                }
                self.paths.push((self.inline.clone(), v));
            }
            syn::UseTree::Glob(_) => self.paths.push((self.inline.clone(), prefix.clone())),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// Paths inside a macro call's tokens: `crate :: a :: b`, `super :: x`.
    fn tokens(&mut self, ts: TokenStream) {
        let toks: Vec<TokenTree> = ts.into_iter().collect();
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id)
                    if matches!(id.to_string().as_str(), "crate" | "super" | "self")
                        && is_colons(&toks, i + 1) =>
                {
                    let mut v = vec![id.to_string()];
                    let mut j = i + 1;
                    while is_colons(&toks, j) {
                        match toks.get(j + 2) {
                            Some(TokenTree::Ident(n)) => {
                                v.push(n.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    self.paths.push((self.inline.clone(), v));
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

fn is_colons(toks: &[TokenTree], i: usize) -> bool {
    matches!((toks.get(i), toks.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':')
}

impl<'a> Visit<'a> for Names {
    /// `pub(super)`, `pub(in crate::x)`: a visibility, not a dependency.
    fn visit_vis_restricted(&mut self, _: &'a syn::VisRestricted) {}
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        self.inline.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.inline.pop();
    }
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        let mut prefix = Vec::new();
        if u.leading_colon.is_none() {
            self.use_tree(&mut prefix, &u.tree);
        }
    }
    fn visit_path(&mut self, p: &'a syn::Path) {
        if p.leading_colon.is_none() {
            let v = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.paths.push((self.inline.clone(), v));
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if matches!(
            name.as_str(),
            "println"
                | "eprintln"
                | "print"
                | "eprint"
                | "outln"
                | "out"
                | "errln"
                | "errout"
                | "dbg"
        ) {
            self.prints.push(name);
        }
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// Makes a path as written in a file absolute (segments from the crate
/// root), or `None` for a path that does not start in this crate.
fn absolute(
    p: &[String],
    here: &[String],
    by_module: &BTreeMap<Vec<String>, usize>,
) -> Option<Vec<String>> {
    match p.first().map(String::as_str) {
        Some("crate") => Some(p[1..].to_vec()),
        Some("self") => Some(here.iter().chain(&p[1..]).cloned().collect()),
        Some("super") => {
            let mut base = here.to_vec();
            let mut rest = p;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
            Some(base.into_iter().chain(rest.iter().cloned()).collect())
        }
        Some(first) => {
            // A path through a child module of this one.
            let mut child = here.to_vec();
            child.push(first.to_string());
            by_module
                .contains_key(&child)
                .then(|| here.iter().chain(p).cloned().collect())
        }
        None => None,
    }
}

/// The files a file depends on (by index), resolved from the paths it
/// names, following `use` aliases to where an item is defined.
fn edges(all: &[File]) -> Vec<BTreeMap<usize, String>> {
    let by_module: BTreeMap<Vec<String>, usize> = all
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let names: Vec<Names> = all
        .iter()
        .map(|f| {
            let text = fs::read_to_string(src_dir().join(&f.rel)).unwrap();
            let ast = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("src/{} does not parse: {e}", f.rel));
            let mut names = Names::default();
            names.visit_file(&ast);
            names
        })
        .collect();
    // The file an absolute path lands in: the longest prefix that is a
    // module, then through that module's aliases (bounded: an alias
    // chain longer than 8 is cut where it is).
    let resolve = |abs: Vec<String>| -> Option<usize> {
        let mut abs = abs;
        let mut hops = 0;
        loop {
            let n = (1..=abs.len())
                .rev()
                .find(|&n| by_module.contains_key(&abs[..n]))?;
            let file = by_module[&abs[..n]];
            let via = abs.get(n).and_then(|name| names[file].aliases.get(name));
            match via {
                Some(target) if hops < 8 => {
                    let target = absolute(target, &all[file].module, &by_module)?;
                    abs = target
                        .into_iter()
                        .chain(abs[n + 1..].iter().cloned())
                        .collect();
                    hops += 1;
                }
                _ => return Some(file),
            }
        }
    };
    all.iter()
        .zip(&names)
        .map(|(f, n)| {
            let mut out = BTreeMap::new();
            for (inline, p) in &n.paths {
                let here: Vec<String> = f.module.iter().chain(inline).cloned().collect();
                let Some(t) = absolute(p, &here, &by_module).and_then(&resolve) else {
                    continue;
                };
                if all[t].module != f.module {
                    out.entry(t).or_insert_with(|| p.join("::"));
                }
            }
            out
        })
        .collect()
}

fn top(f: &File) -> &str {
    f.module.first().map(String::as_str).unwrap_or("lib")
}

#[test]
fn imports_follow_the_layers() {
    let all = files();
    let deps = edges(&all);
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut bad = Vec::new();
    for (i, f) in all.iter().enumerate() {
        let from = top(f);
        if from == "lib" {
            continue;
        }
        let Some(may) = allowed.get(from) else {
            bad.push(format!(
                "src/{}: module '{from}' has no row in ALLOWED",
                f.rel
            ));
            continue;
        };
        for &d in deps[i].keys() {
            let to = top(&all[d]);
            if to != from && !LEAVES.contains(&to) && !may.contains(&to) {
                bad.push(format!(
                    "src/{} → src/{} ({from} → {to})",
                    f.rel, all[d].rel
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} import(s) against the layers (rules in tests/layers.rs and src/lib.rs):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Cycles tolerated for now, each to be broken; a cycle found must lie
/// inside one of these (files given by their path under src/), so none
/// grows and no new one appears. Empty since issue 30 broke the last
/// three (workload, cli/args, cli): keep it empty. Typical cure: a type
/// the children use moves out of mod.rs into a file of its own.
const KNOWN_CYCLES: &[&[&str]] = &[];

#[test]
fn no_cycles_between_files() {
    let all = files();
    let deps = edges(&all);
    let sets: Vec<BTreeSet<usize>> = deps.iter().map(|d| d.keys().copied().collect()).collect();
    let known = |c: &Vec<usize>| {
        KNOWN_CYCLES
            .iter()
            .any(|k| c.iter().all(|&i| k.contains(&all[i].rel.as_str())))
    };
    let cycles: Vec<Vec<usize>> = strongly_connected(&sets)
        .into_iter()
        .filter(|c| !known(c))
        .collect();
    // Each cycle with the edges inside it and a path that makes each.
    let text: Vec<String> = cycles
        .iter()
        .map(|c| {
            let mut lines = vec![format!("{} files:", c.len())];
            for &a in c {
                for (&b, via) in &deps[a] {
                    if c.contains(&b) {
                        lines.push(format!("  src/{} → src/{} ({via})", all[a].rel, all[b].rel));
                    }
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "{} cycle(s) between files (beyond KNOWN_CYCLES):\n{}",
        cycles.len(),
        text.join("\n")
    );
}

#[test]
fn only_the_front_ends_print() {
    let mut bad = Vec::new();
    for f in files() {
        if PRINTERS.contains(&top(&f)) || f.rel == "lib.rs" {
            continue;
        }
        let text = fs::read_to_string(src_dir().join(&f.rel)).unwrap();
        let ast = syn::parse_file(&text).unwrap();
        let mut names = Names::default();
        names.visit_file(&ast);
        if !names.prints.is_empty() {
            let kinds: BTreeSet<_> = names.prints.into_iter().collect();
            bad.push(format!(
                "src/{}: {}",
                f.rel,
                kinds.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "files below the front ends that print (hand text or progress events up instead):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_binary_is_a_shell_over_the_library() {
    let main = fs::read_to_string(src_dir().join("main.rs")).unwrap();
    let code: Vec<&str> = main
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect();
    assert!(
        code.len() <= 3 && !main.contains("mod "),
        "src/main.rs should only call qpslab::cli::main():\n{main}"
    );
}

/// File names say what a file holds. The front end's files name its
/// commands (`cli/sweep.rs`) and the stored document's its sections
/// (`stats/document/tpcc.rs`); elsewhere a file is named by its role
/// (`analyze/live_rates.rs`, `report/live_text.rs`, `lab/live_session.rs`
/// rather than four `live.rs`). So a name other than mod.rs may be shared
/// by two folders at most (a command and its use case: `cli/sweep.rs`,
/// `lab/sweep.rs`), and never by a folder and a folder inside it
/// (`workload/options.rs` beside `workload/script/options.rs` reads as
/// one module's two halves).
#[test]
fn file_names_say_what_they_hold() {
    let mut by_name: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<PathBuf>>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name != "mod.rs" && p.parent() != Some(root) {
                    let folder = p
                        .parent()
                        .unwrap()
                        .strip_prefix(root)
                        .unwrap()
                        .to_path_buf();
                    out.entry(name).or_default().push(folder);
                }
            }
        }
    }
    let root = src_dir();
    walk(&root, &root, &mut by_name);
    assert!(
        by_name.len() > 100,
        "read only {} file names under src/",
        by_name.len()
    );
    let mut bad = Vec::new();
    for (name, folders) in &by_name {
        if folders.len() > 2 {
            bad.push(format!("{name} in {} folders: {folders:?}", folders.len()));
        }
        for a in folders {
            for b in folders {
                if a != b && b.starts_with(a) {
                    bad.push(format!(
                        "{name} in {} and inside it in {}",
                        a.display(),
                        b.display()
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "file names that repeat (name each by what it holds):\n{}",
        bad.join("\n")
    );
}

/// Tarjan's strongly connected components with more than one file.
fn strongly_connected(deps: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        deps: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in t.deps[v].iter() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut c = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                t.out.push(c);
            }
        }
    }
    let n = deps.len();
    let mut t = T {
        deps,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}
