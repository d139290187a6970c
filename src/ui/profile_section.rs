//! A profiled run's section of its page: the limiting lock and each
//! family's share, flame graphs (on- and off-CPU; searchable, click to
//! zoom; served beside the page, or embedded in a report), top-function
//! tables, syscalls per query over time, and a form for the differential
//! flame graph against another run.

use super::page::Mode;
use crate::analyze::limiter::LockShares;
use crate::profiler::{Folded, Kind};
use crate::report::chart::Chart;
use crate::stats::document::{KindFigures, KindSummary, Share, SyscallSide};
use crate::store::{RunDetail, Store};
use anyhow::Result;
use base64::Engine;
use maud::{html, Markup};

/// A run's folded stacks of `kind` from the store.
pub fn stacks(store: &Store, run: i64, kind: Kind) -> Result<Folded> {
    Ok(Folded {
        stacks: store.profile_stacks(run, kind.name())?,
    })
}

/// The kind of stacks kept as `name`: `cpu`, `offcpu`, or one DBT3
/// query's own (`cpu-Q9`).
fn kind_of(name: &str) -> Option<Kind> {
    let base = name.split_once('-').map_or(name, |(b, _)| b);
    [Kind::Cpu, Kind::OffCpu]
        .into_iter()
        .find(|k| k.name() == base)
}

/// The flame graph of run `run`'s `kind` stacks (`cpu` or `offcpu`, or a
/// DBT3 query's, `cpu-Q9`).
pub fn flame_svg(store: &Store, run: i64, kind: &str) -> Result<Option<String>> {
    let Some(k) = kind_of(kind) else {
        return Ok(None);
    };
    if k.name() != kind {
        let f = Folded {
            stacks: store.profile_stacks(run, kind)?,
        };
        let title = format!("run {run}: {kind} stacks");
        return crate::report::flame::svg(&f, k, &title).map(Some);
    }
    let f = stacks(store, run, k)?;
    flame_of(&f, k, run).map(Some)
}

/// Run `run`'s flame graph of its `kind` stacks `f`.
fn flame_of(f: &Folded, kind: Kind, run: i64) -> Result<String> {
    crate::report::flame::svg(f, kind, &format!("run {run}: {} stacks", kind.name()))
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

/// A share table: a name column titled `title`, the share and `unit`.
fn shares_table(title: &str, rows: &[Share], unit: &str) -> Markup {
    if rows.is_empty() {
        return html! {};
    }
    html! {
        table {
            tr { th.l { (title) } th { "share" } th { (unit) } }
            @for r in rows {
                tr {
                    td.l { (r.name) }
                    td { (format!("{:.2}%", r.pct)) }
                    td { (r.samples) }
                }
            }
        }
    }
}

/// The section, empty for a run that was not profiled.
pub fn section(store: &Store, d: &RunDetail, mode: Mode) -> Result<Markup> {
    let Some(p) = store.run_profile(d.run.id)? else {
        return Ok(html! {});
    };
    let mut kinds = Vec::new();
    for k in &p.kinds {
        kinds.push(kind_section(store, d, mode, k)?);
    }
    Ok(html! {
        h2 { "Profile" }
        @if let Some(locks) = &p.locks { (locks_part(locks)) }
        @for k in kinds { (k) }
    })
}

/// The lock families' shares and the first family's top stack.
fn locks_part(locks: &LockShares) -> Markup {
    let top = locks
        .top_stack
        .as_deref()
        .map(|st| crate::analyze::limiter::lock_stack_text(st, 10));
    html! {
        p { (crate::stats::document::LOCK_SHARES_TITLE) " (from " (locks.source) "):" }
        table {
            tr { th.l { "family" } th { "share" } }
            @for (family, share) in locks.shares.iter().take(8) {
                tr {
                    td.l { (family) }
                    td { (format!("{:.1}%", 100.0 * share)) }
                }
            }
        }
        @if let Some(top) = top {
            p.meta { "top stack of the first family (innermost first): " (top) }
        }
    }
}

/// One profiler kind's part: flame graph and top functions (cpu,
/// offcpu), syscalls, or Performance Schema waits.
fn kind_section(store: &Store, d: &RunDetail, mode: Mode, k: &KindSummary) -> Result<Markup> {
    let name = k.kind.as_str();
    Ok(match &k.figures {
        KindFigures::Failed { error } => html! { p.meta { (name) ": not recorded: " (error) } },
        KindFigures::Stacks { top_self, .. } if name == "cpu" || name == "offcpu" => {
            stacks_part(store, d.run.id, mode, k, top_self)?
        }
        KindFigures::Syscalls { sides, .. } => {
            html! { h3 { "Syscalls" } (syscalls(store, d, sides)?) }
        }
        KindFigures::Waits {
            threads,
            timed_instruments,
            instruments,
            top_events,
            ..
        } => html! {
            h3 { "Performance Schema waits" }
            p.meta {
                (timed_instruments) " of " (instruments)
                " wait instruments timed; shares of " (threads) " threads' time"
            }
            table {
                tr { th.l { "event" } th { "share" } }
                @for (event, share) in top_events {
                    tr {
                        td.l { (event) }
                        td { (format!("{:.2}%", 100.0 * share)) }
                    }
                }
            }
        },
        KindFigures::Stacks { .. } => html! {},
    })
}

/// On- or off-CPU stacks: the flame graph in a frame (served beside the
/// page, or embedded as a data URL in a report), the innermost functions,
/// and in the UI the form for a differential graph.
fn stacks_part(
    store: &Store,
    id: i64,
    mode: Mode,
    k: &KindSummary,
    top: &[Share],
) -> Result<Markup> {
    let name = k.kind.as_str();
    let cost = k
        .collector_cpu_s
        .map(|c| format!(" · collector CPU {c:.2} s"))
        .unwrap_or_default();
    let (title, unit) = if name == "cpu" {
        ("On-CPU stacks", "samples")
    } else {
        ("Off-CPU stacks (µs blocked)", "µs")
    };
    // One read of the stacks: the graph and its unresolved share.
    let folded = kind_of(name)
        .map(|kind| stacks(store, id, kind).map(|f| (kind, f)))
        .transpose()?;
    let svg = match &folded {
        Some((kind, f)) => flame_of(f, *kind, id)?,
        None => String::new(),
    };
    // The frame as tall as the graph: the root frames are at its bottom,
    // and a shorter frame would hide them behind a scroll bar.
    let height = svg_height(&svg).map_or(560, |h| h + 8);
    let src = match mode {
        Mode::Ui => format!("/run/{id}/flame/{name}.svg"),
        Mode::Report => format!(
            "data:image/svg+xml;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&svg)
        ),
    };
    let unresolved = folded.as_ref().and_then(|(_, f)| f.unresolved());
    Ok(html! {
        h3 { (title) }
        p.meta { (num(Some(k.seconds))) " s" (cost) }
        iframe.flame src=(src) height=(height) title=(title) {}
        @if let Some((share, dso)) = unresolved {
            p.note { (crate::report::profile_text::unresolved_note(share, &dso)) "." }
        }
        (shares_table("innermost function", top, unit))
        @if mode == Mode::Ui {
            form action="/flame/diff" method="get" {
                input type="hidden" name="a" value=(id);
                input type="hidden" name="kind" value=(name);
                "Differential flame graph from this run to run "
                input name="b" size="6";
                " "
                button { "show" }
            }
        }
    })
}

/// The `height` attribute of an SVG's root element, in pixels.
fn svg_height(svg: &str) -> Option<u32> {
    let root = &svg[svg.find("<svg")?..];
    let root = &root[..root.find('>')?];
    let at = root.find(" height=\"")? + 9;
    root[at..]
        .split('"')
        .next()?
        .parse::<f64>()
        .ok()
        .map(|h| h as u32)
}

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_default()
}

/// A side's five most frequent syscalls with their count per query.
fn most_frequent(side: &SyscallSide) -> String {
    side.top
        .iter()
        .take(5)
        .map(|t| format!("{} {:.2}", t.name, t.per_query.unwrap_or(0.0)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Per-side totals per second and per query, top names, and the chart of
/// syscalls per query over time.
fn syscalls(
    store: &Store,
    d: &RunDetail,
    sides: &std::collections::BTreeMap<String, SyscallSide>,
) -> Result<Markup> {
    let none = SyscallSide::default();
    let rows = html! {
        table {
            tr {
                th.l { "whose" } th { "per second" } th { "per query" }
                th.l { "most frequent (per query)" }
            }
            @for side in crate::profiler::syscalls::SIDES {
                @let s = sides.get(side).unwrap_or(&none);
                tr {
                    td.l { (side) }
                    td { (format!("{:.0}", s.per_second)) }
                    td { (s.per_query.map(|x| format!("{x:.2}")).unwrap_or_default()) }
                    td.l { (most_frequent(s)) }
                }
            }
        }
    };
    let c = syscalls_chart(store, d)?;
    Ok(html! {
        (rows)
        @if !c.is_empty() { (c.html()) }
    })
}

/// Syscalls per query over time, server and load side: entries in a
/// second of the run over the queries of that second.
fn syscalls_chart(store: &Store, d: &RunDetail) -> Result<Chart> {
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
    Ok(c)
}
