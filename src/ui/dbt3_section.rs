//! DBT3's sections: on a run page, a per-query bar chart of seconds (an
//! inline SVG) and the per-query table (seconds, status, rows, plan
//! fingerprint); on a campaign page, each series' per-query time ratios
//! against the first series (min/median/max over repeats) with plan
//! changes flagged. Renders; reads only the runs' stored `dbt3` blocks.

use super::page::num;
use crate::analyze::dbt3_compare::{compare, QueryRatio};
use crate::report::dbt3_text::ordered;
use crate::stats::document::Dbt3Block;
use crate::store::{RunRow, Store};
use anyhow::Result;
use maud::{html, Markup};

/// Horizontal bars, one a query: `(name, value, flagged)`; the longest
/// bar is the greatest value; `unit` follows each value.
fn bar_chart(title: &str, bars: &[(String, f64, bool)], unit: &str) -> Markup {
    let max = bars.iter().map(|b| b.1).fold(0.0_f64, f64::max).max(1e-9);
    let (row, left, width) = (18.0, 48.0, 420.0);
    let height = row * bars.len() as f64 + 8.0;
    html! {
        svg.dbt3-bars xmlns="http://www.w3.org/2000/svg" width=(left + width + 110.0) height=(height)
            role="img" aria-label=(title) {
            title { (title) }
            @for (i, (name, v, flagged)) in bars.iter().enumerate() {
                @let y = 4.0 + row * i as f64;
                text x="0" y=(y + 13.0) font-size="12" { (name) }
                rect x=(left) y=(y + 2.0) width=(format!("{:.1}", width * v / max)) height=(row - 5.0)
                    fill=(if *flagged { "#d62728" } else { "#1f77b4" }) {}
                text x=(left + width * v / max + 4.0) y=(y + 13.0) font-size="11" {
                    (num(Some(*v), 4)) " " (unit) @if *flagged { " (plan changed)" }
                }
            }
        }
    }
}

/// A DBT3 run's per-query chart and table (with each query's innermost
/// on-CPU functions when it was profiled, linked to its flame graph
/// when `flame_of` is the run's id in the UI); empty for other runs.
pub fn run_section(b: Option<&Dbt3Block>, flame_of: Option<i64>) -> Markup {
    let Some(b) = b else {
        return html! {};
    };
    let qs = ordered(b);
    let bars: Vec<(String, f64, bool)> = qs
        .iter()
        .map(|(q, f)| ((*q).clone(), f.seconds, f.status() != "ok"))
        .collect();
    let profiled = qs.iter().any(|(_, f)| f.cpu.is_some());
    html! {
        h2 { "DBT3 " (b.test) " test, scale " (b.scale) }
        p {
            "Geometric mean " (num(b.geomean_s, 4)) " s · " (b.composite_name) ": "
            (num(b.composite, 1))
        }
        (bar_chart("DBT3 seconds per query", &bars, "s"))
        table.dbt3 {
            tr {
                th.l { "query" } th { "seconds" } th.l { "status" } th { "rows" } th.l { "plan" }
                @if profiled { th.l { "on-CPU (innermost functions)" } }
            }
            @for (q, f) in &qs {
                tr {
                    td.l { (q) } td { (num(Some(f.seconds), 4)) } td.l { (f.status()) }
                    td { (f.rows) } td.l { code { (f.fingerprint().unwrap_or_else(|| "-".into())) } }
                    @if profiled {
                        td.l {
                            @if let Some(c) = &f.cpu {
                                (c.top_text())
                                @if let Some(id) = flame_of {
                                    " · " a href=(format!("/run/{id}/flame/{}.svg", c.stacks)) { "flame graph" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A run's series name on the campaign page: label/variant.
/// A run's series on a campaign page: label/variant.
pub(super) fn series_of(r: &RunRow) -> String {
    match (&r.label, &r.variant) {
        (Some(l), Some(v)) => format!("{l}/{v}"),
        (Some(n), None) | (None, Some(n)) => n.clone(),
        (None, None) => "(unlabelled)".into(),
    }
}

fn ratio_table(ratios: &[QueryRatio]) -> Markup {
    html! {
        table.dbt3 {
            tr {
                th.l { "query" } th { "ref s" } th { "other s" } th { "min" } th { "median" }
                th { "max" } th.l { "plan" }
            }
            @for r in ratios {
                tr {
                    td.l { (r.query) } td { (num(Some(r.reference_s), 4)) }
                    td { (num(Some(r.other_s), 4)) } td { (num(Some(r.ratio_min), 3)) }
                    td { (num(Some(r.ratio_median), 3)) } td { (num(Some(r.ratio_max), 3)) }
                    td.l { @if r.plan_changed { strong { "plan changed" } } @else { "same" } }
                }
            }
        }
    }
}

/// A campaign's DBT3 comparison: each series' per-query time ratios
/// against the first series'; empty without two series of DBT3 runs.
pub fn campaign_section(store: &Store, ok: &[RunRow]) -> Result<Markup> {
    let mut series: Vec<(String, Vec<Dbt3Block>)> = Vec::new();
    // DBT3 runs are stored as `dbt3-sf<scale>`
    let is_dbt3 = |w: &str| w == "dbt3" || w.starts_with("dbt3-");
    for r in ok.iter().filter(|r| is_dbt3(&r.workload)) {
        let Some(b) = store.run_detail(r.id)?.and_then(|d| d.dbt3) else {
            continue;
        };
        let name = series_of(r);
        match series.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(b),
            None => series.push((name, vec![b])),
        }
    }
    if series.len() < 2 {
        return Ok(html! {});
    }
    let reference: Vec<&Dbt3Block> = series[0].1.iter().collect();
    Ok(html! {
        h2 { "DBT3 per-query time ratios against " (series[0].0) }
        @for (name, blocks) in &series[1..] {
            @let other: Vec<&Dbt3Block> = blocks.iter().collect();
            @let ratios = compare(&reference, &other);
            @let bars: Vec<(String, f64, bool)> = ratios.iter()
                .map(|r| (r.query.clone(), r.ratio_median, r.plan_changed)).collect();
            h3 { (name) " (" (blocks.len()) " run(s)) over " (series[0].0) " (" (reference.len()) " run(s))" }
            (bar_chart(&format!("DBT3 median time ratio, {name}"), &bars, "×"))
            (ratio_table(&ratios))
        }
    })
}
