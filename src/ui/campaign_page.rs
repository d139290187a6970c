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

pub fn campaign_page(store: &Store, id: i64, mode: Mode) -> Result<Option<String>> {
    Ok(campaign_body(store, id, mode)?.map(|(title, b, live)| page(&title, &b, mode, live)))
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
    let mut b = format!(
        "<h1>{}</h1><p class=\"meta\">{} finished runs together; each campaign's own sections follow</p>",
        esc(&title),
        all.len()
    );
    b.push_str(&scalability_section("Scalability, all campaigns", &all));
    if !all.is_empty() {
        b.push_str("<h2>Best to best, all campaigns</h2>");
        b.push_str(&crate::report::analysis::best_table(&all, Format::Html));
    }
    let mut live = false;
    for (_, (_, body, l), _) in parts {
        b.push_str("<hr>");
        b.push_str(&body);
        live |= l;
    }
    Ok(page(&title, &b, mode, live))
}

/// The scalability charts (QPS, p95, and NOPM where runs have it) and the
/// scalability table of finished runs, under heading `title`.
fn scalability_section(title: &str, ok: &[RunRow]) -> String {
    let mut b = format!("<h2>{}</h2>", esc(title));
    // One pair of charts per workload: its series (label and variant)
    // compared on their own scale.
    let workloads: std::collections::BTreeSet<&str> =
        ok.iter().map(|r| r.workload.as_str()).collect();
    if workloads.is_empty() {
        b.push_str(&scalability_chart(ok, Metric::Qps).html());
    }
    for w in workloads {
        let runs: Vec<RunRow> = ok.iter().filter(|r| r.workload == w).cloned().collect();
        let _ = write!(b, "<h3>{}</h3><div class=\"charts\">", esc(w));
        let mut metrics = vec![Metric::Qps, Metric::P95];
        if runs.iter().any(|r| r.nopm.is_some()) {
            metrics.push(Metric::Nopm);
        }
        for m in metrics {
            let mut c = scalability_chart(&runs, m);
            c.title = format!("{}: {w}", c.title);
            for s in c.series.iter_mut().filter(|s| s.guide.is_none()) {
                s.name = series_name_without(&s.name, w);
            }
            b.push_str(&c.html());
        }
        b.push_str("</div>");
    }
    if !ok.is_empty() {
        b.push_str(&crate::report::analysis::scalability_table(
            ok,
            Format::Html,
        ));
    }
    b
}

/// A campaign's title, its page's body and whether it is still running;
/// None for no such campaign.
fn campaign_body(store: &Store, id: i64, mode: Mode) -> Result<Option<(String, String, bool)>> {
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
    if let Some(p) = super::progress::progress_of(store, id, &runs)? {
        let _ = write!(
            b,
            "<p class=\"live\" id=\"live\">running: {}</p>",
            esc(&p.text())
        );
    }
    let ok: Vec<RunRow> = runs.iter().filter(|r| r.status == "ok").cloned().collect();
    b.push_str(&scalability_section("Scalability", &ok));
    if !ok.is_empty() {
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
    b.push_str(&variants_section(store, id, &ok)?);
    b.push_str(&environment_section(store, &runs)?);
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
    Ok(Some((title, b, live)))
}

/// Variables listed per variant on a page before "and N more".
const VARIABLES_ON_PAGE: usize = 40;

/// One environment section per server and variant (from its first run):
/// what a reader needs to check and reproduce the campaign.
fn environment_section(store: &Store, runs: &[RunRow]) -> Result<String> {
    let mut seen: Vec<(Option<String>, Option<String>)> = Vec::new();
    let mut b = String::new();
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
            b.push_str(&super::environment::section(&d, &title));
        }
    }
    Ok(if b.is_empty() {
        b
    } else {
        format!("<h2>Environment</h2><p class=\"meta\">Per server and variant, as its first run captured it; the variables that differ between variants are listed above.</p>{b}")
    })
}

/// What each variant sets, and each variant's server variables that
/// differ from the reference variant's as its runs captured them ("" for
/// a sweep, or a campaign of one variant that sets nothing).
fn variants_section(store: &Store, id: i64, ok: &[RunRow]) -> Result<String> {
    let Some(c) = crate::lab::campaign_file(store, id)? else {
        return Ok(String::new());
    };
    if c.variants.len() < 2
        && c.variants
            .iter()
            .all(|v| v.set.is_empty() && v.sql.is_empty())
    {
        return Ok(String::new());
    }
    let mut b = String::from(
        "<h2>Variants</h2><table class=\"runs\"><tr><th class=\"l\">variant</th><th class=\"l\">what it sets</th></tr>",
    );
    for (name, what) in crate::report::campaign::variant_settings(&c) {
        let _ = write!(
            b,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            esc(&name),
            esc(&what)
        );
    }
    b.push_str("</table>");
    let diffs = crate::lab::variant_diffs(store, &c, ok)?;
    if !diffs.is_empty() {
        let reference = c.reference_variant();
        let _ = write!(
            b,
            "<h3>Server variables that differ from '{}' (as the runs captured them)</h3>",
            esc(reference)
        );
        for d in &diffs {
            let _ = write!(
                b,
                "<p><b>{} {}</b>: {} differ{}</p>",
                esc(&d.server),
                esc(&d.variant),
                d.diff.len(),
                if d.diff.len() > VARIABLES_ON_PAGE {
                    format!(" (the first {VARIABLES_ON_PAGE} by name)")
                } else {
                    String::new()
                }
            );
            if d.diff.is_empty() {
                continue;
            }
            let _ = write!(
                b,
                "<table class=\"runs\"><tr><th class=\"l\">variable</th><th class=\"l\">{}</th><th class=\"l\">{}</th></tr>",
                esc(reference),
                esc(&d.variant)
            );
            for (n, x, y) in d.diff.iter().take(VARIABLES_ON_PAGE) {
                let _ = write!(
                    b,
                    "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
                    esc(n),
                    esc(x),
                    esc(y)
                );
            }
            b.push_str("</table>");
        }
    }
    Ok(b)
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
        let svg = c.html();
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
}
