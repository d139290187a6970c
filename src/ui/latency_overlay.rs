//! Latency spectra overlaid across runs: several runs' (`qpslab chart 12
//! 15 --metric spectrum`) and a campaign's, one line per series
//! (workload, label, variant) at one user level, its repeats merged by
//! adding their histograms. Reads the store; computing is analyze's,
//! drawing report's.

use super::latency_section::run_spectra;
use crate::analyze::latency_spectrum::{merged, spectrum, Spectrum};
use crate::report::chart::Chart;
use crate::report::latency_charts::spectrum_chart;
use crate::store::{RunRow, Store};
use anyhow::{Context, Result};
use maud::{html, Markup};
use std::collections::BTreeMap;

/// A run's series name: workload × users, with its label and variant.
fn run_name(r: &RunRow) -> String {
    let mut name = format!(
        "run {}: {} × {}",
        r.id,
        r.workload,
        crate::out::counted(r.threads, "user")
    );
    for part in [&r.label, &r.variant].into_iter().flatten() {
        name.push(' ');
        name.push_str(part);
    }
    name
}

/// The spectra of runs `ids`: one run's all events and each statement
/// kind; several runs' all events, one line per run.
pub fn runs_spectrum_chart(store: &Store, ids: &[i64]) -> Result<Chart> {
    if let [id] = ids {
        crate::lab::stored_run(store, *id)?;
        let spectra = run_spectra(&store.run_histograms(*id)?);
        let title = format!("run {id}: latency spectrum, all events and each statement");
        return Ok(spectrum_chart(&title, &spectra));
    }
    let mut spectra: Vec<Spectrum> = Vec::new();
    for id in ids {
        let d = crate::lab::stored_run(store, *id)?;
        let all = store.run_histograms(*id)?.all.with_context(|| {
            format!("run {id} has no stored histogram (it did not end normally)")
        })?;
        spectra.extend(spectrum(&run_name(&d.run), &all));
    }
    Ok(spectrum_chart(
        "latency spectrum of all events, by run",
        &spectra,
    ))
}

/// A campaign series' name: workload, label and variant.
fn series_name(r: &RunRow) -> String {
    [Some(&r.workload), r.label.as_ref(), r.variant.as_ref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The user level a campaign spectrum shows by default: the highest.
fn default_threads(ok: &[RunRow]) -> Option<i64> {
    ok.iter()
        .filter(|r| r.workload != "monitor")
        .map(|r| r.threads)
        .max()
}

/// The spectrum of each series of `ok` (finished runs) at `threads`
/// users (default: the highest), its repeats' histograms added; None
/// when no run there has a histogram.
pub(crate) fn campaign_spectrum(
    store: &Store,
    ok: &[RunRow],
    threads: Option<i64>,
) -> Result<Option<Chart>> {
    let Some(users) = threads.or_else(|| default_threads(ok)) else {
        return Ok(None);
    };
    let mut groups: BTreeMap<String, Vec<crate::stats::Hist>> = BTreeMap::new();
    for r in ok
        .iter()
        .filter(|r| r.threads == users && r.workload != "monitor")
    {
        if let Some(h) = store.run_histograms(r.id)?.all {
            groups.entry(series_name(r)).or_default().push(h);
        }
    }
    let spectra: Vec<Spectrum> = groups
        .iter()
        .filter_map(|(name, hists)| {
            let label = match hists.len() {
                1 => format!("{name} (1 run)"),
                n => format!("{name} ({n} repeats merged)"),
            };
            spectrum(&label, &merged(hists)?)
        })
        .collect();
    if spectra.is_empty() {
        return Ok(None);
    }
    let title = format!(
        "Latency spectrum per series at {} (repeats merged by adding their histograms)",
        crate::out::counted(users, "user")
    );
    Ok(Some(spectrum_chart(&title, &spectra)))
}

/// The campaign page's section: the spectrum per series at the highest
/// user level, and how to draw another level.
pub(crate) fn campaign_section(store: &Store, id: i64, ok: &[RunRow]) -> Result<Markup> {
    let Some(chart) = campaign_spectrum(store, ok, None)? else {
        return Ok(html! {});
    };
    let mut levels: Vec<i64> = ok.iter().map(|r| r.threads).collect();
    levels.sort_unstable();
    levels.dedup();
    Ok(html! {
        h2 id="latency-spectrum" { "Latency distribution" }
        (chart.html())
        @if levels.len() > 1 {
            p.note {
                "Other user levels: qpslab chart --campaign " (id) " --metric spectrum --threads N (N one of "
                (levels.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")) ")."
            }
        }
    })
}
