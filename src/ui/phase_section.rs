//! The insert benchmark's sections: on a run page, the phase's figures
//! (rates, costs per operation, max stall, size, RSS, sustained or not);
//! on a campaign page, the per-phase table of every series in the
//! benchmark's phase order, and each phase's rate as a ratio to the first
//! series' when there are several. Renders; reads only the store's kept
//! phases.

use super::page::num;
use crate::analyze::phase_figures::series_rates;
use crate::report::ibench_text::sustained_word;
use crate::stats::document::IbenchPhase;
use crate::store::Store;
use anyhow::Result;
use maud::{html, Markup};

fn head() -> Markup {
    html! {
        tr {
            th.l { "phase" } th.l { "series" } th { "secs" } th { "inserts/s" } th { "deletes/s" }
            th { "queries/s" } th.l { "per" } th { "server CPU µs" } th { "load CPU µs" }
            th { "context switches" } th { "KB read" } th { "KB written" } th { "max stall s" }
            th { "size MB" } th { "RSS MB" } th { "target rows/s" } th { "intervals at target %" }
            th.l { "sustained" }
        }
    }
}

fn row(series: &str, p: &IbenchPhase) -> Markup {
    html! {
        tr {
            td.l { (p.phase) } td.l { (series) } td { (num(Some(p.seconds), 1)) }
            td { (num(Some(p.inserts_per_s), 0)) } td { (num(Some(p.deletes_per_s), 0)) }
            td { (num(Some(p.queries_per_s), 1)) } td.l { (p.per) }
            td { (num(p.server_cpu_us, 1)) } td { (num(p.load_cpu_us, 2)) }
            td { (num(p.context_switches, 2)) } td { (num(p.read_kb, 2)) } td { (num(p.write_kb, 2)) }
            td { (num(Some(p.max_stall_s), 2)) } td { (num(p.db_size_mb, 1)) }
            td { (num(p.server_rss_mb, 0)) } td { (num(p.target_inserts_per_s, 0)) }
            td { (num(p.intervals_at_target_pct, 0)) }
            @if p.sustained == Some(false) {
                td.l { strong { "NOT sustained" } }
            } @else {
                td.l { (sustained_word(p)) }
            }
        }
    }
}

/// A run's phase section; empty for other runs.
pub fn run_section(p: Option<&IbenchPhase>) -> Markup {
    let Some(p) = p else {
        return html! {};
    };
    html! {
        h2 { "Insert benchmark phase " (p.phase) }
        p {
            "Phase " (p.order) " of its sequence. Costs are per " (p.per)
            "; a query phase sustained its insert rate when at least 95% of the target was reached in at least 95% of its intervals."
            @if let Some(l) = p.schedule_lag_p99_ms {
                " The inserters' schedule lag (the generator's own lateness) had a p99 of " (num(Some(l), 3)) " ms."
            }
        }
        table { (head()) (row("", p)) }
    }
}

/// A campaign's phases section; empty when it kept none.
pub fn campaign_section(store: &Store, campaign: i64) -> Result<Markup> {
    let mut kept = store.campaign_phases(campaign)?;
    if kept.is_empty() {
        return Ok(html! {});
    }
    let (series, rates) = series_rates(&kept);
    kept.sort_by_key(|(id, _, _, p)| (p.order, *id));
    let name = |l: &Option<String>, v: &Option<String>| {
        [l.clone(), v.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("/")
    };
    Ok(html! {
        h2 { "Insert benchmark phases" }
        table {
            (head())
            @for (_, l, v, p) in &kept { (row(&name(l, v), p)) }
        }
        @if series.len() > 1 {
            h2 { "Each phase's rate as a ratio to " (series[0]) }
            p { "Rows/s in load and insert phases, queries/s in query phases, 1/time for l.x; each series' latest run of the phase." }
            table {
                tr { th.l { "phase" } @for s in &series { th { (s) } } }
                @for (ph, r) in &rates {
                    tr {
                        td.l { (ph) }
                        @for x in r {
                            td { @match (x, r.first().copied().flatten()) {
                                (Some(x), Some(b)) if b > 0.0 => (format!("{:.2}", x / b)),
                                _ => "-",
                            } }
                        }
                    }
                }
            }
        }
    })
}
