//! A profiled run's section of its page: the limiting lock and each
//! family's share, flame graphs (on- and off-CPU; searchable, click to
//! zoom; served beside the page, or embedded in a report), top-function
//! tables, syscalls per query over time, and a form for the differential
//! flame graph against another run.

use super::page::{esc, Mode};
use crate::profiler::{Folded, Kind};
use crate::report::chart::Chart;
use crate::store::{RunDetail, Store};
use anyhow::Result;
use base64::Engine;
use serde_json::Value;
use std::fmt::Write;

/// A run's folded stacks of `kind` from the store.
pub fn stacks(store: &Store, run: i64, kind: Kind) -> Result<Folded> {
    Ok(Folded {
        stacks: store.profile_stacks(run, kind.name())?,
    })
}

fn kind_of(name: &str) -> Option<Kind> {
    [Kind::Cpu, Kind::OffCpu]
        .into_iter()
        .find(|k| k.name() == name)
}

/// The flame graph of run `run`'s `kind` stacks (`cpu` or `offcpu`).
pub fn flame_svg(store: &Store, run: i64, kind: &str) -> Result<Option<String>> {
    let Some(k) = kind_of(kind) else {
        return Ok(None);
    };
    let f = stacks(store, run, k)?;
    let title = format!("run {run}: {} stacks", k.name());
    crate::report::flame::svg(&f, k, &title).map(Some)
}

/// The differential flame graph from run `a` to run `b` (`kind` stacks).
pub fn diff_svg(store: &Store, a: i64, b: i64, kind: &str) -> Result<Option<String>> {
    let Some(k) = kind_of(kind) else {
        return Ok(None);
    };
    let (fa, fb) = (stacks(store, a, k)?, stacks(store, b, k)?);
    let title = format!(
        "{} stacks: run {a} → run {b} (red: more in {b}, blue: less)",
        k.name()
    );
    crate::report::flame::diff_svg(&fa, &fb, k, &title).map(Some)
}

fn frame(src: &str) -> String {
    format!("<iframe class=\"flame\" src=\"{src}\"></iframe>")
}

fn shares_table(b: &mut String, title: &str, rows: &[Value], unit: &str) {
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        b,
        "<table><tr><th class=\"l\">{}</th><th>share</th><th>{unit}</th></tr>",
        esc(title)
    );
    for r in rows {
        let _ = write!(
            b,
            "<tr><td class=\"l\">{}</td><td>{:.2}%</td><td>{}</td></tr>",
            esc(r["name"].as_str().unwrap_or("")),
            r["pct"].as_f64().unwrap_or(0.0),
            r["samples"]
        );
    }
    b.push_str("</table>");
}

/// The section, empty for a run that was not profiled.
pub fn section(store: &Store, d: &RunDetail, mode: Mode) -> Result<String> {
    let id = d.run.id;
    let Some(p) = store.run_profile(id)? else {
        return Ok(String::new());
    };
    let mut b = String::from("<h2>Profile</h2>");
    if let Some(locks) = p["locks"].as_object() {
        let shares = locks["shares"].as_array().cloned().unwrap_or_default();
        let _ = write!(b, "<p>Lock families, share of connection-thread time (from {}):</p><table><tr><th class=\"l\">family</th><th>share</th></tr>", esc(locks["source"].as_str().unwrap_or("")));
        for s in shares.iter().take(8) {
            let _ = write!(
                b,
                "<tr><td class=\"l\">{}</td><td>{:.1}%</td></tr>",
                esc(s[0].as_str().unwrap_or("")),
                100.0 * s[1].as_f64().unwrap_or(0.0)
            );
        }
        b.push_str("</table>");
        if let Some(st) = locks["top_stack"].as_str() {
            let tail: Vec<&str> = st.rsplit(';').take(10).collect();
            let _ = write!(
                b,
                "<p class=\"meta\">top stack of the first family (innermost first): {}</p>",
                esc(&tail.join(" ‹ "))
            );
        }
    }
    for k in p["kinds"].as_array().cloned().unwrap_or_default() {
        let name = k["kind"].as_str().unwrap_or("");
        if let Some(e) = k["error"].as_str() {
            let _ = write!(b, "<p class=\"meta\">{name}: not recorded: {}</p>", esc(e));
            continue;
        }
        let cost = k["collector_cpu_s"]
            .as_f64()
            .map(|c| format!(" · collector CPU {c:.2} s"))
            .unwrap_or_default();
        match name {
            "cpu" | "offcpu" => {
                let title = if name == "cpu" {
                    "On-CPU stacks"
                } else {
                    "Off-CPU stacks (µs blocked)"
                };
                let _ = write!(
                    b,
                    "<h3>{title}</h3><p class=\"meta\">{} s{cost}</p>",
                    num(k["seconds"].as_f64())
                );
                let src = match mode {
                    Mode::Ui => format!("/run/{id}/flame/{name}.svg"),
                    Mode::Report => {
                        let svg = flame_svg(store, id, name)?.unwrap_or_default();
                        format!(
                            "data:image/svg+xml;base64,{}",
                            base64::engine::general_purpose::STANDARD.encode(svg)
                        )
                    }
                };
                b.push_str(&frame(&src));
                let unit = if name == "cpu" { "samples" } else { "µs" };
                let top = k["top_self"].as_array().cloned().unwrap_or_default();
                shares_table(&mut b, "innermost function", &top, unit);
                if mode == Mode::Ui {
                    let _ = write!(
                        b,
                        "<form action=\"/flame/diff\" method=\"get\"><input type=\"hidden\" name=\"a\" value=\"{id}\"><input type=\"hidden\" name=\"kind\" value=\"{name}\">Differential flame graph from this run to run <input name=\"b\" size=\"6\"> <button>show</button></form>"
                    );
                }
            }
            "syscalls" => {
                b.push_str("<h3>Syscalls</h3>");
                syscalls(&mut b, store, d, &k)?;
            }
            "waits" => {
                let _ = write!(b, "<h3>Performance Schema waits</h3><p class=\"meta\">{} of {} wait instruments timed; shares of {} threads' time</p><table><tr><th class=\"l\">event</th><th>share</th></tr>", k["timed_instruments"], k["instruments"], k["threads"]);
                for e in k["top_events"].as_array().cloned().unwrap_or_default() {
                    let _ = write!(
                        b,
                        "<tr><td class=\"l\">{}</td><td>{:.2}%</td></tr>",
                        esc(e[0].as_str().unwrap_or("")),
                        100.0 * e[1].as_f64().unwrap_or(0.0)
                    );
                }
                b.push_str("</table>");
            }
            _ => {}
        }
    }
    Ok(b)
}

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_default()
}

/// Per-side totals per second and per query, top names, and the chart of
/// syscalls per query over time.
fn syscalls(b: &mut String, store: &Store, d: &RunDetail, k: &Value) -> Result<()> {
    b.push_str("<table><tr><th class=\"l\">whose</th><th>per second</th><th>per query</th><th class=\"l\">most frequent (per query)</th></tr>");
    for side in crate::profiler::syscalls::SIDES {
        let s = &k["sides"][side];
        let top: Vec<String> = s["top"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .take(5)
            .map(|t| {
                format!(
                    "{} {:.2}",
                    t["name"].as_str().unwrap_or(""),
                    t["per_query"].as_f64().unwrap_or(0.0)
                )
            })
            .collect();
        let _ =
            write!(
            b,
            "<tr><td class=\"l\">{side}</td><td>{:.0}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            s["per_second"].as_f64().unwrap_or(0.0),
            s["per_query"].as_f64().map(|x| format!("{x:.2}")).unwrap_or_default(),
            esc(&top.join(", "))
        );
    }
    b.push_str("</table>");
    // per second: entries / queries of the same second of the run
    let series = store.profile_series(d.run.id, "syscalls")?;
    let mut c = Chart::new("Syscalls per query", "seconds", "syscalls / query");
    for side in ["server", "load"] {
        let mut per_s: Vec<f64> = Vec::new();
        for (name, v) in &series {
            if name.starts_with(&format!("{side}/")) {
                per_s.resize(per_s.len().max(v.len()), 0.0);
                for (o, x) in per_s.iter_mut().zip(v) {
                    *o += x;
                }
            }
        }
        let pts: Vec<(f64, f64)> = d
            .samples
            .iter()
            .filter_map(|s| {
                let q = s.queries();
                let n = *per_s.get(s.t.floor() as usize)?;
                (q > 0 && s.dur >= 0.5).then(|| (s.t, n / (q as f64 / s.dur)))
            })
            .collect();
        c.add(side, pts);
    }
    if !c.is_empty() {
        b.push_str(&c.html());
    }
    Ok(())
}
