//! The commands that read stored runs: `runs`, `show`, `scalability`,
//! `best`, `ratio` and `compare`.

use super::args::{AnalysisArgs, CompareArgs, RunsArgs, ShowArgs};
use crate::analyze::compare::compare_runs as compare_runs_intervals;
use crate::analyze::run_figures::MonitorFigures;
use crate::lab::{read_store, stored_run};
use crate::report;
use anyhow::{bail, Context, Result};

/// The finished ("ok") runs an analysis reads.
/// The finished runs an analysis reads; runs of other workload options
/// are kept apart, and what was pooled is said (on stderr, so tables stay
/// machine-readable).
pub(super) fn finished_runs(a: &AnalysisArgs) -> Result<Vec<crate::store::RunRow>> {
    let mut runs = read_store(a.store.path())?.list_runs(&a.select.filter(Some("ok"), None))?;
    let left_out = crate::analyze::counter_diff::leave_out_excluded(&mut runs);
    if runs.is_empty() {
        let excluded = left_out.map(|l| format!(" ({l})")).unwrap_or_default();
        bail!("no finished runs match{excluded}; see `qpslab runs`");
    }
    if let Some(l) = left_out {
        errln!("note: {l} (`qpslab exclude RUN --undo` takes one back)");
    }
    if let Some(pooled) = crate::analyze::keep_apart(&mut runs) {
        errln!("note: {pooled}");
    }
    Ok(runs)
}

/// `ratio` of DBT3 runs: per query, each variant against the reference
/// (`--reference`, the pair's second, else the earliest run's variant:
/// a campaign's reference variant runs first).
fn dbt3_ratio(
    a: &AnalysisArgs,
    r: &super::args::RatioArgs,
    runs: &mut Vec<crate::store::RunRow>,
    json: bool,
) -> Result<String> {
    let pair = (r.a.as_deref(), r.b.as_deref());
    let reference = match crate::analyze::ratio_runs(runs, pair, r.reference.clone()) {
        Ok(v) => v,
        Err(_) => runs
            .iter()
            .min_by_key(|r| r.id)
            .and_then(|r| r.variant.clone())
            .context("these DBT3 runs have no variant: give --reference VARIANT or two series")?,
    };
    let store = read_store(a.store.path())?;
    let out = super::dbt3::campaign_ratios(&store, runs, &reference, json)?;
    if out.trim().is_empty() || out.trim() == "[]" {
        bail!("no DBT3 runs of another variant to compare with '{reference}'");
    }
    Ok(out)
}

/// `scalability` (ratio = None) and `ratio` over the stored ok runs.
pub(super) fn analysis(a: &AnalysisArgs, ratio: Option<&super::args::RatioArgs>) -> Result<()> {
    let f = report::table::Format::from(a.format.format);
    let mut runs = finished_runs(a)?;
    match ratio {
        None => out!("{}", report::analysis::scalability_table(&runs, f)),
        Some(r)
            if runs
                .iter()
                .all(|r| r.workload.starts_with(crate::workload::dbt3::NAME)) =>
        {
            let json = matches!(f, report::table::Format::Json);
            out!("{}", dbt3_ratio(a, r, &mut runs, json)?);
        }
        Some(r) => {
            let pair = (r.a.as_deref(), r.b.as_deref());
            let reference = crate::analyze::ratio_runs(&mut runs, pair, r.reference.clone())
                .map_err(anyhow::Error::msg)?;
            let out = report::analysis::ratio_matrix_as(&runs, &reference, r.slowdown, f);
            if out.trim().is_empty() || out.trim() == "[]" {
                bail!("no runs of '{reference}' to compare with");
            }
            out!("{out}");
        }
    }
    Ok(())
}

pub(super) fn compare_runs(a: &CompareArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let (da, db) = (stored_run(&store, a.run_a)?, stored_run(&store, a.run_b)?);
    let f = report::table::Format::from(a.format.format);
    if da.dbt3.is_some() && db.dbt3.is_some() {
        let json = f == report::table::Format::Json;
        outln!(
            "{}",
            super::dbt3::comparison(&store, &da, &db, json)?.trim_end()
        );
        return Ok(());
    }
    let (cq, ct) = compare_runs_intervals(&da, &db).map_err(anyhow::Error::msg)?;
    // The repeats of each point, picked implicitly: the excluded ones
    // left out (the two runs named stay), and said.
    let qps = |id: i64| -> Result<Vec<f64>> {
        let reps = store.repeats_of(id)?;
        let kept = |r: &&crate::store::RunRow| r.id == id || !r.excluded;
        let left_out = reps.len() - reps.iter().filter(kept).count();
        if left_out > 0 {
            let n = crate::out::counted(left_out, "excluded repeat");
            errln!("note: run {id}'s point: {n} left out");
        }
        Ok(reps.iter().filter(kept).filter_map(|r| r.qps).collect())
    };
    let (ra, rb) = (qps(a.run_a)?, qps(a.run_b)?);
    let same = crate::analyze::compare::same_configuration(&da, &db);
    let mut repeats_qps = ra.clone();
    if da.run.campaign_id != db.run.campaign_id || repeats_qps.len() < 2 {
        // Repeats by hand, of two campaigns, or of a sweep's step (no
        // point to find the others by): the two runs themselves.
        repeats_qps = [da.run.qps, db.run.qps].into_iter().flatten().collect();
    }
    let ctx = report::analysis::ComparisonContext {
        across_repeats: crate::analyze::spread::ratio(&rb, &ra).filter(|c| c.lo.is_some()),
        differences: crate::analyze::compare::differences(&da, &db),
        same_configuration: same,
        repeats_qps,
    };
    out!(
        "{}",
        report::analysis::run_comparison(&da, &db, (&cq, &ct), &ctx, f)
    );
    Ok(())
}

pub(super) fn cmd_runs(a: &RunsArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let f = report::table::Format::from(a.format.format);
    // a listing shows a campaign's host characterisation runs too
    let rows = store.list_runs(&crate::store::RunFilter {
        host_tests: true,
        ..a.select.filter(a.status.as_deref(), a.limit)
    })?;
    out!("{}", report::runs::runs_table(&rows, f));
    Ok(())
}

pub(super) fn cmd_show(a: &ShowArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let f = report::table::Format::from(a.format.format);
    let d = stored_run(&store, a.run)?;
    let percentiles =
        crate::analyze::latency_spectrum::run_percentile_tables(&store.run_histograms(a.run)?);
    out!("{}", report::runs::show(&d, &percentiles, f));
    if f == report::table::Format::Text {
        if let Some(m) = MonitorFigures::load(&store, a.run)?.filter(|m| m.bottleneck.is_some()) {
            out!("{}", report::monitor::run_text(&m));
        }
    }
    Ok(())
}

/// `qpslab export`: stored runs as OpenMetrics, on stdout or into a file.
pub(super) fn export(a: &crate::cli::args::ExportArgs) -> Result<()> {
    let store = read_store(a.store.path())?;
    let ids = crate::cli::args::all_ids(&a.runs);
    let data = crate::lab::export_data(&store, &ids, a.campaign)?;
    let runs: Vec<report::openmetrics::ExportRun> = data
        .iter()
        .map(|d| report::openmetrics::ExportRun {
            detail: &d.detail,
            end_unix: d.end_unix,
            status: d.status.as_ref(),
            latency: d.latency.as_ref(),
        })
        .collect();
    let text = report::openmetrics::render(&runs);
    match &a.output {
        None => out!("{text}"),
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("cannot write {}", p.display()))?;
            errln!(
                "Wrote {} ({} runs); backfill with: promtool tsdb create-blocks-from openmetrics {} DATA_DIR",
                p.display(),
                runs.len(),
                p.display()
            );
        }
    }
    Ok(())
}
