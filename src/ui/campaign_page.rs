//! A campaign's page: scalability charts (QPS and p95 against users on a
//! log2 axis, one line per series), the scalability table, best-to-best and
//! the ratio matrix with ratios below 0.95 and above 1.05 in colour.

use super::page::{esc, link, page, Mode};
use crate::analyze;
use crate::report::chart::Chart;
use crate::report::table::Format;
use crate::store::{RunFilter, RunRow, Store};
use anyhow::Result;
use std::fmt::Write;

/// Which figure a scalability chart plots against users.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Qps,
    P95,
    /// TPC-C's New-Orders per minute (series without it are left out).
    Nopm,
}

/// QPS, p95 or NOPM against users for each series of `runs`.
pub fn scalability_chart(runs: &[RunRow], metric: Metric) -> Chart {
    let (title, y) = match metric {
        Metric::P95 => ("p95 latency against users", "ms"),
        Metric::Qps => ("QPS against users", "queries per second"),
        Metric::Nopm => ("NOPM against users (TPC-C)", "New-Orders per minute"),
    };
    let mut c = Chart::new(title, "users", y);
    c.log2_x = true;
    for ((w, l, v), cells) in analyze::series(runs) {
        let name = [w.as_str(), l.as_str(), v.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let pts: Vec<(f64, f64)> = cells
            .iter()
            .map(|(t, cell)| {
                let y = match metric {
                    Metric::P95 => cell.p95_ms,
                    Metric::Qps => cell.qps,
                    Metric::Nopm => cell.nopm,
                };
                (*t as f64, y)
            })
            .filter(|p| p.1.is_finite())
            .collect();
        // The spread of the repeats (min to max) where a point has several.
        let errors: Vec<(f64, f64, f64)> = match metric {
            Metric::Qps => cells
                .iter()
                .filter(|(_, cell)| cell.qps_spread.n > 1)
                .map(|(t, cell)| (*t as f64, cell.qps_spread.min, cell.qps_spread.max))
                .collect(),
            _ => Vec::new(),
        };
        if !pts.is_empty() {
            c.add_with_errors(&name, pts, errors);
        }
    }
    c
}

pub fn campaign_page(store: &Store, id: i64, mode: Mode) -> Result<Option<String>> {
    let Some(c) = store.list_campaigns()?.into_iter().find(|c| c.id == id) else {
        return Ok(None);
    };
    let (name, kind, created) = (c.name, c.kind, c.created_at);
    let runs = store.list_runs(&RunFilter {
        campaign: Some(id),
        ..Default::default()
    })?;
    let title = format!("Campaign {id}: {name}");
    let mut b = format!(
        "<h1>{}</h1><p class=\"meta\">{} · created {} · {} runs</p>",
        esc(&title),
        esc(&kind),
        esc(&created),
        runs.len()
    );
    let ok: Vec<RunRow> = runs.iter().filter(|r| r.status == "ok").cloned().collect();
    b.push_str("<h2>Scalability</h2><div class=\"charts\">");
    b.push_str(&scalability_chart(&ok, Metric::Qps).svg());
    b.push_str(&scalability_chart(&ok, Metric::P95).svg());
    if ok.iter().any(|r| r.nopm.is_some()) {
        b.push_str(&scalability_chart(&ok, Metric::Nopm).svg());
    }
    b.push_str("</div>");
    if !ok.is_empty() {
        b.push_str(&crate::report::analysis::scalability_table(
            &ok,
            Format::Html,
        ));
        let limiters = crate::analyze::limiter::of_series(&ok);
        if !limiters.is_empty() {
            b.push_str("<h2>Scaling limiters</h2><p class=\"meta\">From the runs' profiles: the lock family whose share of connection-thread time grows with users; each run's page has its stacks.</p><ul>");
            for (name, sentence) in limiters {
                let _ = write!(b, "<li><b>{}</b>: {}</li>", esc(&name), esc(&sentence));
            }
            b.push_str("</ul>");
        }
        b.push_str("<h2>Best to best</h2>");
        b.push_str(&crate::report::analysis::best_table(&ok, Format::Html));
        let mut variants: Vec<String> = Vec::new();
        for r in &ok {
            let v = r.variant.clone().unwrap_or_default();
            if !variants.contains(&v) {
                variants.push(v);
            }
        }
        if variants.len() > 1 {
            let _ = write!(b, "<h2>Ratios to variant '{}'</h2>", esc(&variants[0]));
            b.push_str(&crate::report::analysis::ratio_matrix(
                &ok,
                &variants[0],
                Format::Html,
            ));
        }
    }
    b.push_str("<h2>Runs</h2>");
    b.push_str(&runs_table(&runs, mode));
    if mode == Mode::Report {
        // A report has no run pages to link to: each run's main graphs.
        for r in &runs {
            let _ = write!(
                b,
                "<h2>Run {}: {} × {} users {}</h2><div class=\"charts\">{}</div>",
                r.id,
                esc(&r.workload),
                r.threads,
                esc(r.hint.as_deref().unwrap_or("")),
                super::run_page::run_summary_svgs(store, r.id)?
            );
        }
    }
    let live = runs.iter().any(|r| r.status == "running");
    Ok(Some(page(&title, &b, mode, live)))
}

/// Runs as a table with links to their pages.
pub fn runs_table(runs: &[RunRow], mode: Mode) -> String {
    let mut o = String::from(
        "<table class=\"runs\"><tr><th>run</th><th class=\"l\">started</th><th class=\"l\">workload</th><th>users</th><th class=\"l\">label</th><th class=\"l\">variant</th><th class=\"l\">server</th><th class=\"l\">status</th><th>qps</th><th>p95 ms</th><th>srv µs/q</th><th class=\"l\">bottleneck</th></tr>",
    );
    for r in runs {
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l status-{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            link(mode, &format!("/run/{}", r.id), &r.id.to_string()),
            esc(&r.started_at),
            esc(&r.workload),
            r.threads,
            esc(r.label.as_deref().unwrap_or("")),
            esc(r.variant.as_deref().unwrap_or("")),
            esc(&crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref())),
            esc(&r.status),
            esc(&r.status),
            super::page::num(r.qps, 1),
            super::page::num(r.lat_p95_ms, 3),
            super::page::num(r.server_us_per_q, 1),
            esc(r.hint.as_deref().unwrap_or(""))
        );
    }
    o.push_str("</table>");
    o
}
