//! A run's latency as a distribution, on its page and in its report: the
//! percentile spectrum of all events and of each statement kind (from the
//! stored histograms), their percentile table, and each statement kind's
//! p95 (p99 folded) per interval. Reads the store; computes nothing
//! (analyze's) and draws nothing itself (report's charts).

use super::page::num;
use crate::analyze::latency_spectrum::{
    percentile_label, run_percentile_tables, spectrum, Spectrum, ALL_EVENTS, TABLE_PERCENTILES,
};
use crate::report::latency_charts::{spectrum_chart, statement_chart, StatementFigure};
use crate::stats::document::PercentileTable;
use crate::store::{RunDetail, RunHistograms, Store};
use anyhow::Result;
use maud::{html, Markup};

/// Spectra of the run's histograms: each statement kind's in the stored
/// order (the order, hence the colours, of the chart over time), then all
/// events.
pub(crate) fn run_spectra(h: &RunHistograms) -> Vec<Spectrum> {
    let all = h.all.as_ref().and_then(|a| spectrum(ALL_EVENTS, a));
    h.statements
        .iter()
        .filter_map(|(n, s)| spectrum(n, s))
        .chain(all)
        .collect()
}

fn table(rows: &[PercentileTable]) -> Markup {
    html! {
        table.percentiles {
            tr {
                th.l { "latency, ms" } th { "count" } th { "min" }
                @for p in TABLE_PERCENTILES { th { "p" (percentile_label(p)) } }
                th { "max" }
            }
            @for t in rows {
                tr {
                    td.l { (t.name) } td { (t.count) } td { (num(Some(t.min_ms), 3)) }
                    @for p in TABLE_PERCENTILES {
                        @let v = t.rows.iter().find(|r| r.percentile == p).map(|r| r.ms);
                        td title=[v.is_none().then_some("too few values for this percentile")] {
                            (num(v, 3))
                        }
                    }
                    td { (num(Some(t.max_ms), 3)) }
                }
            }
        }
    }
}

/// The x range of the run's samples (where the page has no other time
/// chart to line up with).
fn samples_range(d: &RunDetail) -> Option<(f64, f64)> {
    let (lo, hi) = d
        .samples
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), s| (a.min(s.t), b.max(s.t)));
    (lo < hi).then_some((lo, hi))
}

/// The per-statement latency over time on `x_range` (the page's other
/// time charts'), or the one line saying why it is absent.
fn over_time(store: &Store, d: &RunDetail, x_range: Option<(f64, f64)>) -> Result<Markup> {
    let rows = store.statement_samples(d.run.id)?;
    if rows.is_empty() {
        if d.statements.is_empty() {
            return Ok(html! {});
        }
        return Ok(html! {
            p.chart-note.statement-latency-absent {
                "Latency per statement over time: not stored for this run (it was recorded before qpslab kept each statement's latency per interval)."
            }
        });
    }
    let order: Vec<String> = d.statements.iter().map(|s| s.statement.clone()).collect();
    let charts = [StatementFigure::P95, StatementFigure::P99].map(|f| {
        let mut c = statement_chart(
            &format!("Latency per statement over time, {}", f.label()),
            &rows,
            f,
            &order,
        );
        c.x_range = x_range.or_else(|| samples_range(d));
        c
    });
    Ok(html! {
        (charts[0].html())
        details {
            summary { "p99 per statement over time" }
            (charts[1].html())
        }
    })
}

/// The section: nothing for a run without latency (a monitor session).
/// `time_range` is the x range of the page's time charts, which the
/// statements' chart over time shares.
pub(crate) fn section(
    store: &Store,
    d: &RunDetail,
    time_range: Option<(f64, f64)>,
) -> Result<Markup> {
    if d.run.workload == "monitor" {
        return Ok(html! {});
    }
    let hists = store.run_histograms(d.run.id)?;
    let spectra = run_spectra(&hists);
    let spectrum_part = if spectra.is_empty() {
        html! {
            p.chart-note { "Latency spectrum: no histogram stored (the run did not end normally)." }
        }
    } else {
        let title = if spectra.len() > 1 {
            "Latency spectrum: all events and each statement"
        } else {
            "Latency spectrum"
        };
        html! {
            (spectrum_chart(title, &spectra).html())
            (table(&run_percentile_tables(&hists)))
        }
    };
    Ok(html! {
        h2 id="latency" { "Latency distribution" }
        (spectrum_part)
        (over_time(store, d, time_range)?)
    })
}
