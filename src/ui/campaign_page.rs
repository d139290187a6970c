//! A campaign's page: scalability charts (QPS and p95 against users on a
//! log2 axis, one line per series), the scalability table, best-to-best and
//! the ratio matrix with ratios below 0.95 and above 1.05 in colour.

use super::page::{link, num, page, Mode};
use crate::analyze;
use crate::report::chart::Chart;
use crate::report::table::Format;
use crate::store::{RunFilter, RunParts, RunRow, Store};
use anyhow::Result;
use maud::{html, Markup, PreEscaped};
use std::collections::BTreeMap;

/// Which figure a scalability chart plots against users.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    /// Queries per second.
    Qps,
    /// 95th percentile of the query latency, in ms.
    P95,
    /// TPC-C's New-Orders per minute (series without it are left out).
    Nopm,
}

/// QPS, p95 or NOPM against users for each series of `runs`.
pub(crate) fn scalability_chart(runs: &[RunRow], metric: Metric) -> Chart {
    let (title, y) = match metric {
        Metric::P95 => ("p95 latency against users", "ms"),
        Metric::Qps => ("QPS against users", "queries per second"),
        Metric::Nopm => ("NOPM against users (TPC-C)", "New-Orders per minute"),
    };
    let mut c = Chart::new(title, "users", y);
    c.log2_x = true;
    let all = analyze::series(runs);
    // The USL fit and the ideal line are drawn for a few series only (more
    // would hide the data).
    let guides = metric == Metric::Qps && all.len() <= GUIDED_SERIES;
    for ((w, l, v), cells) in all {
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
        let errors: Vec<(f64, f64, f64)> = cells
            .iter()
            .map(|(t, cell)| {
                let sp = match metric {
                    Metric::Qps => &cell.qps_spread,
                    Metric::P95 => &cell.p95_spread,
                    Metric::Nopm => &cell.nopm_spread,
                };
                (*t, sp)
            })
            .filter(|(_, sp)| sp.n > 1)
            .map(|(t, sp)| (t as f64, sp.min, sp.max))
            .collect();
        if !pts.is_empty() {
            let at = c.series.len();
            c.add_with_errors(&name, pts.clone(), errors);
            if guides {
                add_scaling_guides(&mut c, &pts, at);
            }
        }
    }
    c
}

/// A series name on a one-workload chart: the workload left out.
fn series_name_without(name: &str, workload: &str) -> String {
    let rest = name.strip_prefix(workload).unwrap_or(name).trim();
    if rest.is_empty() {
        workload.to_string()
    } else {
        rest.to_string()
    }
}

/// Scalability charts draw the USL fit and the ideal line for up to this
/// many series.
const GUIDED_SERIES: usize = 3;

/// Beside a QPS series (users, QPS): its USL fit (dashed) over the users
/// measured, and the ideal linear scaling from its fewest users (dotted),
/// cut where it leaves the chart's range (1.3 × the series' peak). Both in
/// the series' colour, which is what names them in the legend.
fn add_scaling_guides(c: &mut Chart, pts: &[(f64, f64)], of: usize) {
    let (Some(&(n0, x0)), Some(&(n1, _))) = (pts.first(), pts.last()) else {
        return;
    };
    if pts.len() < 3 || n0 <= 0.0 || x0 <= 0.0 {
        return;
    }
    let steps = 32;
    let grid: Vec<f64> = (0..=steps)
        .map(|i| n0 * (n1 / n0).powf(i as f64 / steps as f64))
        .collect();
    let as_users: Vec<(i64, f64)> = pts.iter().map(|(n, x)| (*n as i64, *x)).collect();
    if let Some(u) = analyze::usl::of_points(&as_users).and_then(|s| s.usl) {
        let curve: Vec<(f64, f64)> = grid.iter().map(|n| (*n, u.throughput(*n))).collect();
        c.add_guide(&format!("USL fit, R² {:.2}", u.r2), curve, of, "6 4");
    }
    let top = 1.3 * pts.iter().map(|p| p.1).fold(0.0, f64::max);
    let per_user = x0 / n0;
    let ideal: Vec<(f64, f64)> = grid
        .iter()
        .map(|n| (*n, per_user * n))
        .take_while(|(_, x)| *x <= top)
        .collect();
    if ideal.len() >= 2 {
        c.add_guide("ideal (linear)", ideal, of, "2 3");
    }
}

/// The page of campaign `id`: its scalability charts, variants and runs; None
/// when there is no such campaign.
pub fn campaign_page(store: &Store, id: i64, mode: Mode) -> Result<Option<String>> {
    Ok(campaign_body(store, id, mode)?
        .map(|(title, b, live)| page(&title, with_contents(b), mode, live)))
}

/// `body` with a table of contents before its first section: a link to
/// each `h2` (given an id where it has none), the runs' own sections of a
/// report nested under the one before them. The headings are maud's
/// output, already escaped: their inner HTML is reused as it is.
fn with_contents(body: Markup) -> Markup {
    let html = body.into_string();
    let mut out = String::with_capacity(html.len() + 4096);
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut rest = html.as_str();
    while let Some(at) = rest.find("<h2") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let Some(open_end) = from.find('>') else {
            break;
        };
        let Some(close) = from.find("</h2>") else {
            break;
        };
        let attrs = &from[3..open_end];
        let inner = &from[open_end + 1..close];
        let id = match attrs
            .split("id=\"")
            .nth(1)
            .and_then(|a| a.split('"').next())
        {
            Some(id) => id.to_string(),
            None => format!("section-{}", entries.len() + 1),
        };
        if attrs.contains("id=\"") {
            out.push_str(&from[..close + 5]);
        } else {
            out.push_str(&format!("<h2 id=\"{id}\"{attrs}>{inner}</h2>"));
        }
        entries.push((id, inner.to_string()));
        rest = &from[close + 5..];
    }
    out.push_str(rest);
    if entries.len() < 3 {
        return PreEscaped(out);
    }
    let mut nav = String::from("<nav class=\"toc\"><b>Contents</b><ol>");
    let mut nested = false;
    for (id, inner) in &entries {
        let run = id.starts_with("run-");
        match (run, nested) {
            (true, false) => nav.push_str("<ol>"),
            (false, true) => nav.push_str("</ol></li>"),
            (false, false) if nav.ends_with("</a>") => nav.push_str("</li>"),
            _ => {}
        }
        nested = run;
        nav.push_str(&format!("<li><a href=\"#{id}\">{inner}</a>"));
        if run {
            nav.push_str("</li>");
        }
    }
    nav.push_str(if nested {
        "</ol></li></ol></nav>"
    } else {
        "</li></ol></nav>"
    });
    let first = out.find("<h2").unwrap_or(out.len());
    out.insert_str(first, &nav);
    PreEscaped(out)
}

/// An analysis table in HTML as markup: `report::analysis` writes its
/// `Format::Html` output with maud (report::table), so it is maud's own
/// markup, not text from the store.
fn analysis_html(html: String) -> Markup {
    PreEscaped(html)
}

/// Several campaigns on one page: their finished runs together first (the
/// scalability charts and table, best to best; a series found in more
/// than one campaign is named with its campaign, "label (c3)", never
/// pooled), then each campaign's own sections. Err names an id not in the
/// store.
pub fn campaigns_page(store: &Store, ids: &[i64], mode: Mode) -> Result<String> {
    let mut parts = Vec::new();
    for &id in ids {
        let part = campaign_body(store, id, mode)?
            .ok_or_else(|| anyhow::anyhow!("no campaign {id} in the store (see `qpslab runs`)"))?;
        let ok = store.list_runs(&RunFilter {
            campaign: Some(id),
            status: Some("ok".into()),
            ..Default::default()
        })?;
        parts.push((id, part, ok));
    }
    let key = |r: &RunRow| (r.workload.clone(), r.label.clone(), r.variant.clone());
    let mut campaigns_of: std::collections::BTreeMap<_, std::collections::BTreeSet<i64>> =
        Default::default();
    for (id, _, ok) in &parts {
        for r in ok {
            campaigns_of.entry(key(r)).or_default().insert(*id);
        }
    }
    let mut all: Vec<RunRow> = Vec::new();
    for (id, _, ok) in &parts {
        for r in ok {
            let mut r = r.clone();
            if campaigns_of[&key(&r)].len() > 1 {
                r.label = Some(
                    format!("{} (c{id})", r.label.as_deref().unwrap_or(""))
                        .trim()
                        .to_string(),
                );
            }
            all.push(r);
        }
    }
    let names: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    let title = format!("Campaigns {}", names.join(", "));
    let live = parts.iter().any(|(_, (_, _, l), _)| *l);
    let body = html! {
        h1 { (title) }
        p.meta { (all.len()) " finished runs together; each campaign's own sections follow" }
        (scalability_section("Scalability, all campaigns", &all))
        @if !all.is_empty() {
            h2 { "Best to best, all campaigns" }
            (analysis_html(crate::report::analysis::best_table(&all, Format::Html)))
        }
        @for (_, (_, part, _), _) in parts {
            hr;
            (part)
        }
    };
    Ok(page(&title, with_contents(body), mode, live))
}

/// The scalability charts (QPS, p95, and NOPM where runs have it) and the
/// scalability table of finished runs, under heading `title`.
fn scalability_section(title: &str, ok: &[RunRow]) -> Markup {
    // One pair of charts per workload: its series (label and variant)
    // compared on their own scale.
    let workloads: std::collections::BTreeSet<&str> =
        ok.iter().map(|r| r.workload.as_str()).collect();
    html! {
        h2 { (title) }
        @if workloads.is_empty() {
            (scalability_chart(ok, Metric::Qps).html())
        }
        @for w in workloads {
            h3 { (w) }
            div.charts { (workload_charts(ok, w)) }
        }
        @if !ok.is_empty() {
            (analysis_html(crate::report::analysis::scalability_table(ok, Format::Html)))
        }
    }
}

/// Workload `w`'s scalability charts, its series named without it.
fn workload_charts(ok: &[RunRow], w: &str) -> Markup {
    let runs: Vec<RunRow> = ok.iter().filter(|r| r.workload == w).cloned().collect();
    let mut metrics = vec![Metric::Qps, Metric::P95];
    if runs.iter().any(|r| r.nopm.is_some()) {
        metrics.push(Metric::Nopm);
    }
    html! {
        @for m in metrics {
            @let c = {
                let mut c = scalability_chart(&runs, m);
                c.title = format!("{}: {w}", c.title);
                for s in c.series.iter_mut().filter(|s| s.guide.is_none()) {
                    s.name = series_name_without(&s.name, w);
                }
                c
            };
            (c.html())
        }
    }
}

/// A campaign's title, its page's body and whether it is still running;
/// None for no such campaign.
fn campaign_body(store: &Store, id: i64, mode: Mode) -> Result<Option<(String, Markup, bool)>> {
    let Some(c) = store.list_campaigns()?.into_iter().find(|c| c.id == id) else {
        return Ok(None);
    };
    let runs = store.list_runs(&RunFilter {
        campaign: Some(id),
        ..Default::default()
    })?;
    let title = format!("Campaign {id}: {}", c.name);
    let progress = super::run_progress::progress_of(store, id, &runs)?;
    // each run's pre-flight check and operations, in one read
    let parts = store.campaign_parts(id)?;
    let mut ok: Vec<RunRow> = runs.iter().filter(|r| r.status == "ok").cloned().collect();
    let left_out = crate::analyze::counter_diff::leave_out_excluded(&mut ok);
    let mut run_charts = Vec::new();
    if mode == Mode::Report {
        for r in &runs {
            run_charts.push((r, super::run_page::run_summary_svgs(store, r.id)?));
        }
    }
    let body = html! {
        h1 { (title) }
        p.meta { (c.kind) " · created " (c.created_at) " · " (runs.len()) " runs" }
        @if let Some(l) = left_out { p.excluded { (l) " of the tables and charts" } }
        @if let Some(p) = progress {
            p.live #live { "running: " (p.text()) }
        }
        (conditions_section(&parts, &runs))
        (super::phase_section::campaign_section(store, id)?)
        (super::dbt3_section::campaign_section(store, &ok)?)
        (super::operations_section::campaign_section(&parts, &ok))
        (scalability_section("Scalability", &ok))
        (comparisons(&ok))
        (super::latency_overlay::campaign_section(store, id, &ok)?)
        (variants_section(store, id, &ok)?)
        (environment_section(store, &runs)?)
        h2 { "Runs" }
        (runs_table(&runs, mode, Ticks::No))
        // A report has no run pages to link to: each run's main graphs.
        @for (r, charts) in run_charts {
            h2 id={"run-" (r.id)} {
                "Run " (r.id) ": " (r.workload) " × " (crate::out::counted(r.threads, "user"))
                @if let Some(v) = &r.variant { ", variant " (v) }
                @if let Some(l) = &r.label { " on " (l) }
                " — " (r.hint.as_deref().unwrap_or(""))
            }
            div.charts { (charts) }
        }
    };
    let live = runs.iter().any(|r| r.status == "running");
    Ok(Some((title, body, live)))
}

/// How trustworthy the campaign's figures are, shown before them as
/// prominently as the terminal says it: each round's pre-flight check
/// (the idle host's noise, flagged when not quiet), how many runs a busy
/// host shared, and whether points were measured once only.
fn conditions_section(parts: &BTreeMap<i64, RunParts>, runs: &[RunRow]) -> Markup {
    let mut rounds: Vec<String> = Vec::new();
    let mut noisy = 0;
    for r in runs {
        let Some(v) = parts.get(&r.id).and_then(|p| p.preflight.as_ref()) else {
            continue;
        };
        let line = crate::lab::preflight_line(rounds.len() as u32 + 1, v);
        // Runs of one round share their pre-flight document.
        let body = line
            .split_once(": ")
            .map_or(line.as_str(), |x| x.1)
            .to_string();
        if !rounds.iter().any(|l| l.ends_with(&body)) {
            if crate::lab::preflight_noisy(v) {
                noisy += 1;
            }
            rounds.push(line);
        }
    }
    let finished: Vec<&RunRow> = runs.iter().filter(|r| r.status == "ok").collect();
    let shared = finished
        .iter()
        .filter(|r| r.hint.as_deref().is_some_and(|h| h.contains("host shared")))
        .count();
    let mut per_point: std::collections::BTreeMap<(String, i64, String, String), usize> =
        Default::default();
    for r in &finished {
        *per_point
            .entry((
                r.workload.clone(),
                r.threads,
                r.label.clone().unwrap_or_default(),
                r.variant.clone().unwrap_or_default(),
            ))
            .or_default() += 1;
    }
    let single = per_point.values().filter(|n| **n == 1).count();
    let warn = noisy > 0 || shared > 0 || (single > 0 && single == per_point.len());
    html! {
        @if !rounds.is_empty() || shared > 0 || single > 0 {
            h2 { "Measurement conditions" }
            @if warn {
                p.note #conditions {
                    @if noisy > 0 { b { (crate::out::counted(noisy, "round")) " of " (rounds.len()) " started on a host that was not quiet" } ": their figures carry its noise. " }
                    @if shared > 0 { b { (shared) " of " (crate::out::counted(finished.len(), "finished run")) " measured on a shared host" } " (other processes took CPU; marked [host shared] below). " }
                    @if single > 0 && single == per_point.len() { b { "Every point was measured once" } ": ratios carry no interval (marked (1 run)); repeat the campaign (--repeat 3) before drawing a conclusion." }
                }
            }
            @if !rounds.is_empty() {
                ul.notes { @for l in &rounds { li { (l) } } }
            }
        }
    }
}

/// Scaling limiters, best to best and the ratios to the first variant, of
/// a campaign's finished runs.
fn comparisons(ok: &[RunRow]) -> Markup {
    if ok.is_empty() {
        return html! {};
    }
    let limiters = crate::analyze::limiter::of_series(ok);
    let mut variants: Vec<String> = Vec::new();
    for r in ok {
        let v = r.variant.clone().unwrap_or_default();
        if !variants.contains(&v) {
            variants.push(v);
        }
    }
    html! {
        @if !limiters.is_empty() {
            h2 { "Scaling limiters" }
            p.meta {
                "From the runs' profiles: the lock family whose share of connection-thread time grows with users; each run's page has its stacks."
            }
            ul {
                @for (name, sentence) in &limiters { li { b { (name) } ": " (sentence) } }
            }
        }
        h2 { "Best to best" }
        (analysis_html(crate::report::analysis::best_table(ok, Format::Html)))
        @if variants.len() > 1 {
            h2 { "Ratios to variant '" (variants[0]) "'" }
            (analysis_html(crate::report::analysis::ratio_matrix(ok, &variants[0], Format::Html)))
        }
    }
}

/// Variables listed per variant on a page before "and N more".
const VARIABLES_ON_PAGE: usize = 40;

/// One environment section per server and variant (from its first run):
/// what a reader needs to check and reproduce the campaign.
fn environment_section(store: &Store, runs: &[RunRow]) -> Result<Markup> {
    let mut seen: Vec<(Option<String>, Option<String>)> = Vec::new();
    let mut sections = Vec::new();
    for r in runs {
        let key = (r.label.clone(), r.variant.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        if let Some(d) = store.run_detail(r.id)? {
            let title = [r.label.as_deref(), r.variant.as_deref()]
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            let title = if title.is_empty() {
                format!("run {}", r.id)
            } else {
                format!("{title} (run {})", r.id)
            };
            sections.push(super::environment_section::section(&d, &title));
        }
    }
    if sections.is_empty() {
        return Ok(html! {});
    }
    Ok(html! {
        h2 { "Environment" }
        p.meta {
            "Per server and variant, as its first run captured it; the variables that differ between variants are listed above."
        }
        @for s in sections { (s) }
    })
}

/// What each variant sets, and each variant's server variables that
/// differ from the reference variant's as its runs captured them (empty
/// for a sweep, or a campaign of one variant that sets nothing).
fn variants_section(store: &Store, id: i64, ok: &[RunRow]) -> Result<Markup> {
    let Some(c) = crate::lab::campaign_file(store, id)? else {
        return Ok(html! {});
    };
    if c.variants.len() < 2
        && c.variants
            .iter()
            .all(|v| v.set.is_empty() && v.sql.is_empty())
    {
        return Ok(html! {});
    }
    let settings = crate::report::campaign_text::variant_settings(&c);
    let diffs = crate::lab::variant_diffs(store, &c, ok)?;
    let reference = c.reference_variant();
    Ok(html! {
        h2 { "Variants" }
        table.runs {
            tr { th.l { "variant" } th.l { "what it sets" } }
            @for (name, what) in &settings { tr { td.l { (name) } td.l { (what) } } }
        }
        @if !diffs.is_empty() {
            h3 { "Server variables that differ from '" (reference) "' (as the runs captured them)" }
            @for d in &diffs {
                p {
                    b { (d.server) " " (d.variant) } ": " (d.diff.len()) " differ"
                    @if d.diff.len() > VARIABLES_ON_PAGE { " (the first " (VARIABLES_ON_PAGE) " by name)" }
                }
                @if !d.diff.is_empty() {
                    table.runs {
                        tr { th.l { "variable" } th.l { (reference) } th.l { (d.variant) } }
                        @for (n, x, y) in d.diff.iter().take(VARIABLES_ON_PAGE) {
                            tr { td.l { (n) } td.l { (x) } td.l { (y) } }
                        }
                    }
                }
            }
        }
    })
}

/// Whether a runs table has a tick box before each run (the start page's
/// overlay form).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ticks {
    Yes,
    No,
}

/// Runs as a table with links to their pages.
pub fn runs_table(runs: &[RunRow], mode: Mode, ticks: Ticks) -> Markup {
    // On a narrow window the key columns (run, workload, users, status,
    // qps, p95, bottleneck) stay; the others (class "opt") come back with
    // the "all columns" box (CSS only: see ui.css).
    html! {
        label.allcols { input type="checkbox" .allcols; " all columns" }
        table.runs {
            tr {
                th { "run" } th.l.opt { "started" } th.l { "workload" } th { "users" } th.l.opt { "label" }
                th.l.opt { "variant" } th.l.opt { "server" } th.l { "status" } th { "qps" } th { "p95 ms" }
                th.opt { "srv µs/q" } th.l { "bottleneck" } th.l.opt { "tags, note" }
            }
            @for r in runs {
                tr {
                    td {
                        @if ticks == Ticks::Yes {
                            input type="checkbox" name="run" value=(r.id);
                            " "
                        }
                        (link(mode, &format!("/run/{}", r.id), &r.id.to_string()))
                    }
                    td.l.opt { (r.started_at) }
                    td.l { (r.workload) }
                    td { (r.threads) }
                    td.l.opt { (r.label.as_deref().unwrap_or("")) }
                    td.l.opt { (r.variant.as_deref().unwrap_or("")) }
                    td.l.opt { (crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref())) }
                    td class={ "l status-" (r.status) } {
                        (r.status)
                        @if r.excluded { " " span.excluded title="left out of analyses" { "(excluded)" } }
                    }
                    td { (num(r.qps, 1)) }
                    td { (num(r.lat_p95_ms, 3)) }
                    td.opt { (num(r.server_us_per_q, 1)) }
                    td.l.verdict-cell { (r.hint.as_deref().unwrap_or("")) }
                    td.l.opt { (super::run_curation::tags_and_note(r)) }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::tests::row;

    #[test]
    fn a_qps_chart_draws_the_usl_fit_and_the_ideal_line_beside_its_series() {
        let runs: Vec<RunRow> = [(1, 10.0), (2, 19.0), (4, 34.0), (8, 50.0), (16, 48.0)]
            .iter()
            .enumerate()
            .flat_map(|(i, &(t, q))| {
                // two repeats a point: error bars too
                [
                    row(2 * i as i64, "a", t, q * 1000.0),
                    row(2 * i as i64 + 1, "a", t, q * 1100.0),
                ]
            })
            .collect();
        let c = scalability_chart(&runs, Metric::Qps);
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names[1].starts_with("USL fit, R²"), "{names:?}");
        assert_eq!(names[2], "ideal (linear)");
        assert!(c.series[1..]
            .iter()
            .all(|s| s.guide.is_some_and(|g| g.of == 0)));
        assert_eq!(c.series[0].errors.len(), 5);
        // the ideal line stops before it leaves the chart (1.3 x the peak)
        let peak = c.series[0].points.iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(c.series[2].points.iter().all(|p| p.1 <= 1.3 * peak));
        let svg = c.html().into_string();
        assert!(
            svg.contains("stroke-dasharray=\"6 4\"") && svg.contains("stroke-dasharray=\"2 3\"")
        );
        // p95 has error bars and no guides
        let p = scalability_chart(&runs, Metric::P95);
        assert_eq!(p.series.len(), 1);
        // more series than GUIDED_SERIES: data only
        let many: Vec<RunRow> = (0..4)
            .flat_map(|v| {
                [1, 2, 4].map(|t| row(100 + v * 10 + t, &format!("v{v}"), t, 1000.0 * t as f64))
            })
            .collect();
        assert_eq!(scalability_chart(&many, Metric::Qps).series.len(), 4);
    }

    /// Every section heading gets an id and a link, the runs' sections
    /// nested under the one before them; ids already there are kept.
    #[test]
    fn contents_link_every_section() {
        let body = html! {
            h1 { "Campaign 1: a<b" }
            h2 { "Scalability" }
            h2 { "Runs" }
            h2 id="run-7" { "Run 7: x & y" }
            h2 id="run-8" { "Run 8" }
        };
        let out = with_contents(body).into_string();
        assert!(
            out.contains("<h2 id=\"section-1\">Scalability</h2>"),
            "{out}"
        );
        assert!(
            out.contains("<li><a href=\"#section-2\">Runs</a><ol><li><a href=\"#run-7\">Run 7: x &amp; y</a></li><li><a href=\"#run-8\">Run 8</a></li></ol></li></ol></nav>"),
            "{out}"
        );
        let nav = out.find("<nav").unwrap();
        assert!(
            out.find("<h1>").unwrap() < nav && nav < out.find("<h2").unwrap(),
            "{out}"
        );
    }
}
