//! Campaigns, sweeps and the quickstart as text: a campaign's status table,
//! the line of each finished point or step, and the closing tables.

use super::analysis::{ratio_matrix, scalability_table};
use super::table::{Format, StepRow, Table};
use crate::analyze::StepFigures;
use crate::campaign::{CampaignFile, Point};
use crate::stats::{RunResult, RunStatus};
use crate::store::RunRow;
use std::collections::HashMap;

/// "server / variant / workload / N threads / repeat R".
pub(crate) fn describe_point(c: &CampaignFile, p: &Point) -> String {
    format!(
        "{} / {} / {} / {} / repeat {}",
        c.servers[p.server].label,
        c.variants[p.variant].name,
        c.workloads[p.workload].name,
        crate::out::counted(p.threads, "thread"),
        p.repeat
    )
}

/// Every point with its state (done with its run, or pending), then a
/// count; `id` is the campaign's id in the store, if it was started.
pub fn status(c: &CampaignFile, id: Option<i64>, done: &HashMap<String, i64>) -> String {
    let points = c.points();
    let mut t = Table::new(&[
        "server", "variant", "workload", "threads", "repeat", "state",
    ]);
    for p in &points {
        t.push(vec![
            c.servers[p.server].label.clone(),
            c.variants[p.variant].name.clone(),
            c.workloads[p.workload].name.clone(),
            p.threads.to_string(),
            p.repeat.to_string(),
            match done.get(&p.hash) {
                Some(run) => format!("done (run {run})"),
                None => "pending".into(),
            },
        ]);
    }
    let n_done = points.iter().filter(|p| done.contains_key(&p.hash)).count();
    let id = id.map_or("not started".to_string(), |id| format!("id {id}"));
    format!(
        "{}\ncampaign '{}' ({id}): {} points, {n_done} done, {} pending\n",
        t.render(Format::Text),
        c.name,
        points.len(),
        points.len() - n_done
    )
}

/// "ok", "aborted", or the status word in capitals with its reason.
fn state(s: &RunStatus) -> String {
    match s {
        RunStatus::Ok => "ok".to_string(),
        RunStatus::Aborted(_) => "aborted".to_string(),
        s => format!(
            "{}: {}",
            s.word().to_uppercase(),
            s.reason().unwrap_or_default()
        ),
    }
}

/// "[i/n] point: qps, run id state" for a finished point.
pub fn point_line(
    i: usize,
    n: usize,
    c: &CampaignFile,
    p: &Point,
    r: &RunResult,
    run_id: i64,
) -> String {
    format!(
        "[{}/{n}] {}: {:.0} qps, run {run_id} {}",
        i + 1,
        describe_point(c, p),
        r.qps(),
        state(&r.status)
    )
}

/// The line a campaign run starts with: its points and the time left.
pub fn campaign_start(c: &CampaignFile, id: i64, points: usize, pending: usize) -> String {
    format!(
        "Campaign '{}' (id {id}): {points} points, {} done, {pending} to run, about {:.0} min.",
        c.name,
        points - pending,
        pending as f64 * (c.time + c.warmup + c.cooldown) / 60.0
    )
}

/// Each variant's name and what it sets (server settings, SQL applied),
/// in the campaign file's order.
pub fn variant_settings(c: &CampaignFile) -> Vec<(String, String)> {
    c.variants
        .iter()
        .map(|v| {
            let mut what: Vec<String> = v
                .set
                .iter()
                .map(|(k, x)| format!("{k}={}", crate::campaign::value_text(x)))
                .collect();
            what.extend(v.sql.iter().map(|q| format!("SQL: {q}")));
            let what = if what.is_empty() {
                "nothing (server defaults)".to_string()
            } else {
                what.join("; ")
            };
            (v.name.clone(), what)
        })
        .collect()
}

/// Variables shown per variant before "and N more".
pub(crate) const VARIABLES_SHOWN: usize = 12;

/// The lines on each variant's server variables that differ from the
/// reference variant's ("" when there are none to show).
pub fn variant_variables(
    reference: &str,
    diffs: &[crate::analyze::variants::VariantDiff],
) -> String {
    if diffs.is_empty() {
        return String::new();
    }
    let mut out =
        format!("\nServer variables that differ from '{reference}' (as the runs captured them):\n");
    for d in diffs {
        let shown: Vec<String> = d
            .diff
            .iter()
            .take(VARIABLES_SHOWN)
            .map(|(n, a, b)| format!("{n} {a} -> {b}"))
            .collect();
        out += &format!(
            "    {} {}: {}{}\n",
            d.server,
            d.variant,
            if shown.is_empty() {
                "none".to_string()
            } else {
                shown.join("; ")
            },
            if d.diff.len() > VARIABLES_SHOWN {
                format!(
                    "; and {} more (qpslab compare)",
                    d.diff.len() - VARIABLES_SHOWN
                )
            } else {
                String::new()
            }
        );
    }
    out
}

/// The scalability table of a campaign's finished runs, the ratio matrix
/// against its reference variant when it has several, and what failed.
pub fn campaign_end(c: &CampaignFile, runs: &[RunRow], failed: usize, degraded: usize) -> String {
    let mut out = format!("\n{}", scalability_table(runs, Format::Text));
    if c.variants.len() > 1
        || c.variants
            .iter()
            .any(|v| !v.set.is_empty() || !v.sql.is_empty())
    {
        out += "\nVariants (what each sets):\n";
        for (name, what) in variant_settings(c) {
            out += &format!("    {name:<16} {what}\n");
        }
    }
    if c.variants.len() > 1 {
        out += &format!(
            "\n{}",
            ratio_matrix(runs, c.reference_variant(), Format::Text)
        );
    }
    out += &limiters_text(runs);
    let drift = crate::analyze::spread::drifting(runs);
    if !drift.is_empty() {
        out += "\nDrift: these points' repeats moved one way at every repeat (the host or the server changed during the campaign; their medians are suspect):\n";
        for d in drift {
            out += &format!("    {d}\n");
        }
    }
    if failed + degraded > 0 {
        out += &format!("\n{failed} point(s) failed, {degraded} degraded (left out of the tables); rerun to retry them.\n");
    }
    out
}

/// A campaign's host characterisation (`[host]`): each test's stored run
/// and figures; "" when it has none.
pub fn host_characterisation(runs: &[(i64, crate::stats::document::HostTestBlock)]) -> String {
    if runs.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("\nHost characterisation (what the host could do; `qpslab show RUN`):\n");
    for (id, h) in runs {
        let figures: Vec<String> = h
            .figures
            .iter()
            .map(|f| format!("{} {:.2}", f.name, f.value))
            .collect();
        out += &format!("    {:<8} run {id:<6} {}\n", h.test, figures.join(", "));
    }
    out
}

/// The scaling limiter of each profiled series, a line each ("" when no
/// run was profiled or no lock limits).
pub(crate) fn limiters_text(runs: &[RunRow]) -> String {
    let lines = crate::analyze::limiter::of_series(runs);
    if lines.is_empty() {
        return String::new();
    }
    let mut o = String::from("\nScaling limiters (from the runs' profiles):\n");
    for (name, s) in lines {
        o += &format!("  {name}: {s}\n");
    }
    o
}

/// "ok", or the status word and its reason, for step lines and tables.
pub(crate) fn status_text(s: &RunStatus) -> String {
    match s.reason() {
        Some(m) => format!("{}: {m}", s.word()),
        None => s.word().to_string(),
    }
}

/// A sweep's line for one finished step (`repeat` of `repeats`).
pub fn sweep_step_line(
    threads: u32,
    (repeat, repeats): (u32, u32),
    f: &StepFigures,
    run_id: i64,
    status: &RunStatus,
) -> String {
    format!(
        "  threads {threads:>5}  repeat {repeat}/{repeats}  qps {:>10.2}  tps {:>9.2}  p95 {:>8.2} ms  run {run_id}  {}",
        f.qps,
        f.tps,
        f.p95,
        status_text(status)
    )
}

/// The quickstart table's row for one finished step.
pub fn quick_row(workload: &str, threads: u32, f: &StepFigures, status: &RunStatus) -> StepRow {
    StepRow {
        workload: workload.to_string(),
        threads,
        figures: f.clone(),
        status: status_text(status),
    }
}

/// What the quickstart says at the end: where the runs, the report and
/// the UI are, and that the sandbox keeps running.
pub fn quickstart_end(
    campaign: i64,
    report: Option<&std::path::Path>,
    sandbox: Option<&str>,
) -> String {
    let mut o = format!(
        "The runs are stored as campaign {campaign}: `qpslab runs --campaign {campaign}`, `qpslab show ID`.\n"
    );
    if let Some(f) = report {
        o += &format!(
            "\nReport (scalability charts and tables, works offline): {}\n",
            f.display()
        );
    }
    o += &format!("Web UI with every run's per-second graphs: `qpslab ui`, then open http://127.0.0.1:8780/campaign/{campaign}\n");
    if let Some(sb) = sandbox {
        o += &format!(
            "The sandbox '{sb}' keeps running; stop it with `qpslab server stop --name {sb}`.\n"
        );
    }
    o
}

/// The line a sweep starts with.
pub fn sweep_start(
    (workload, target, campaign): (&str, String, i64),
    threads: &[u32],
    (time, warmup): (f64, f64),
    repeat: u32,
) -> String {
    let warm = if warmup > 0.0 {
        format!(" after a {warmup} s warm-up")
    } else {
        " with no warm-up".into()
    };
    format!("Sweep of {workload} on {target}: threads {threads:?}, {time} s each{warm}, {}; campaign {campaign}\n", crate::out::counted(repeat, "repeat"))
}

/// A sweep's closing table (medians over repeats), or its JSON document.
pub fn sweep_end(
    workload: &str,
    campaign: i64,
    medians: &[crate::analyze::StepMedians],
    json: bool,
) -> String {
    let points: Vec<(i64, f64)> = medians
        .iter()
        .map(|m| (i64::from(m.threads), m.qps))
        .collect();
    let scaling = crate::analyze::usl::of_points(&points);
    if json {
        let doc = serde_json::json!({"campaign": campaign, "workload": workload, "steps": medians,
            "scaling": scaling});
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut o = format!(
        "\nScalability of {workload} (medians over repeats), campaign {campaign}:\n{}{}\n",
        super::table::sweep_table(medians).render(Format::Text),
        if medians.iter().any(|m| m.runs > 1) {
            format!("({})\n", crate::analyze::VERDICT_RULE)
        } else {
            String::new()
        }
    );
    if let Some(s) = &scaling {
        o.push_str(&format!(
            "Where it stops scaling: {}\n",
            crate::analyze::usl::describe(s)
        ));
    }
    o
}
