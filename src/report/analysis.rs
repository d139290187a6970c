//! analyze's results as tables: the scalability table, best-to-best and the
//! ratio matrices, in text, markdown, CSV, JSON or HTML (written with
//! maud, which escapes every name). Formatting only: every figure comes
//! computed from analyze.

use super::num;
use super::table::{Format, Table};
use crate::analyze::compare::{Comparison, SeriesStats};
use crate::analyze::{best_to_best, ratio_matrices, series, RunRow};
use crate::store::RunDetail;

/// QPS, TPS, p95 and p99 against users, per series.
pub fn scalability_table(runs: &[RunRow], f: Format) -> String {
    let s = series(runs);
    if f == Format::Json {
        let v: Vec<_> = s
            .iter()
            .map(|((w, l, v), cells)| serde_json::json!({"workload": w, "label": l, "variant": v, "points": cells.iter().map(|(t, c)| serde_json::json!({"threads": t, "cell": c})).collect::<Vec<_>>()}))
            .collect();
        return serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
    }
    let tpcc = s
        .values()
        .flat_map(|c| c.values())
        .any(|c| c.nopm.is_finite());
    let mut headers = vec![
        "workload",
        "label",
        "variant",
        "threads",
        "qps",
        "qps min-max",
        "tps",
        "p95 ms",
        "p99 ms",
        "srv us/q",
        "load us/q",
        "cs/q",
        "runs",
        "bottleneck",
    ];
    if tpcc {
        headers.insert(7, "nopm");
    }
    let mut t = Table::new(&headers);
    for ((w, l, v), cells) in &s {
        for (th, c) in cells {
            let mut row = vec![
                w.clone(),
                l.clone(),
                v.clone(),
                th.to_string(),
                format!("{:.2}", c.qps),
                c.qps_spread.range_text(0),
                format!("{:.2}", c.tps),
                format!("{:.2}", c.p95_ms),
                format!("{:.2}", c.p99_ms),
                num(Some(c.server_us), 1),
                num(Some(c.load_us), 1),
                num(Some(c.csw), 2),
                c.runs.to_string(),
                c.hint.clone(),
            ];
            if tpcc {
                row.insert(7, num(Some(c.nopm).filter(|n| n.is_finite()), 1));
            }
            t.push(row);
        }
    }
    let mut out = t.render(f);
    if matches!(f, Format::Text | Format::Markdown) {
        if s.values().any(|cells| cells.values().any(|c| c.runs > 1)) {
            out.push_str(&format!("({})\n", crate::analyze::VERDICT_RULE));
        }
        let stops: Vec<String> = s
            .iter()
            .filter_map(|((w, l, v), cells)| {
                let points: Vec<(i64, f64)> = cells.iter().map(|(t, c)| (*t, c.qps)).collect();
                let sc = crate::analyze::usl::of_points(&points)?;
                // How far to trust it: points measured once, or on a
                // shared host, said beside the description.
                let once = cells.values().filter(|c| c.runs < 2).count();
                let shared = cells.values().filter(|c| c.host_shared).count();
                let mut marks = Vec::new();
                if once > 0 {
                    marks.push(format!("{once} of {} points measured once", cells.len()));
                }
                if shared > 0 {
                    marks.push(format!("{shared} of {} on a shared host", cells.len()));
                }
                let marks = if marks.is_empty() {
                    String::new()
                } else {
                    format!(" [{}: the fit carries their noise]", marks.join(", "))
                };
                Some(format!(
                    "{w} {l}/{v}: {}{marks}",
                    crate::analyze::usl::describe(&sc)
                ))
            })
            .collect();
        if !stops.is_empty() {
            out.push_str("\nWhere each series stops scaling (against its 1-user point):\n");
            for line in stops {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    out
}

/// Best-to-best: each label's best variant per concurrency and, with two
/// or more labels, each label's best relative to the first label's.
pub fn best_table(runs: &[RunRow], f: Format) -> String {
    let b = best_to_best(runs);
    if f == Format::Json {
        return serde_json::to_string_pretty(&b.best).unwrap_or_default() + "\n";
    }
    let labels = &b.labels;
    let mut headers = vec!["workload".to_string(), "threads".to_string()];
    for l in labels {
        headers.push(format!("{l} best qps"));
        headers.push(format!("{l} variant"));
    }
    for l in labels.iter().skip(1) {
        headers.push(format!("{l} / {}", labels[0]));
    }
    let mut t = Table {
        headers,
        rows: Vec::new(),
        slowdown: false,
    };
    for (w, by_threads) in &b.best {
        for (th, by_label) in by_threads {
            let mut row = vec![w.clone(), th.to_string()];
            for l in labels {
                match by_label.get(l) {
                    Some((q, v)) => {
                        row.push(format!("{q:.2}"));
                        // CSV keeps the bare name (JSON has the figures).
                        let mut name = v.clone();
                        if f != Format::Csv {
                            if let Some(m) = b.margin(w, *th, l) {
                                name.push_str(&format!(" ({})", m.text()));
                            }
                            if b.host_shared(w, *th, l) {
                                name.push_str(" [host shared]");
                            }
                        }
                        row.push(name);
                    }
                    None => row.extend(["-".to_string(), "-".to_string()]),
                }
            }
            for l in labels.iter().skip(1) {
                row.push(
                    b.ratio(w, *th, l)
                        .map_or_else(|| "-".into(), |r| ratio_text(&r, f)),
                );
            }
            t.rows.push(row);
        }
    }
    let servers = servers_of_labels(runs, labels);
    let mut out = t.render(f);
    if labels.len() > 1 {
        out.push_str(&legend(f));
    }
    match f {
        Format::Text | Format::Markdown if !servers.is_empty() => {
            out.push_str(&format!("servers: {servers}\n"));
        }
        Format::Html if !servers.is_empty() => {
            out.push_str(&maud::html! { p.servers { "servers: " (servers) } }.into_string());
        }
        _ => {}
    }
    out
}

/// A ratio cell: with its interval and mark, or the bare number in CSV
/// (JSON carries the intervals as fields).
fn ratio_text(c: &crate::analyze::spread::RatioCell, f: Format) -> String {
    match f {
        Format::Csv => format!("{:.3}", c.ratio),
        _ => c.text(),
    }
}

/// The ratio legend under a table, in the table's format ("" for CSV/JSON).
pub fn legend(f: Format) -> String {
    use crate::analyze::spread::RATIO_LEGEND;
    match f {
        Format::Text | Format::Markdown => format!("\n{RATIO_LEGEND}\n"),
        Format::Html => maud::html! {
            p.legend {
                (RATIO_LEGEND)
                " Coloured: a difference (green faster, red slower); grey: within noise or one run."
            }
        }
        .into_string(),
        Format::Csv | Format::Json => String::new(),
    }
}

/// `label = MySQL 5.5.9; label2 = MariaDB 11.4.5`: what each label ran
/// on (several builds under one label are listed together).
fn servers_of_labels(runs: &[RunRow], labels: &[String]) -> String {
    labels
        .iter()
        .filter_map(|l| {
            let mut names: Vec<String> = runs
                .iter()
                .filter(|r| r.label.as_deref().unwrap_or("") == l)
                .map(|r| {
                    crate::server::server_label(
                        r.server_flavor.as_deref(),
                        r.server_version.as_deref(),
                    )
                })
                .filter(|n| !n.is_empty())
                .collect();
            names.sort();
            names.dedup();
            (!names.is_empty()).then(|| format!("{l} = {}", names.join(", ")))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The ratio matrices: rows are concurrencies, columns variants, each cell
/// a variant's median QPS over the reference's; min, median and max close
/// each column.
pub fn ratio_matrix(runs: &[RunRow], reference: &str, f: Format) -> String {
    ratio_matrix_as(runs, reference, false, f)
}

/// The ratio matrices in either form: variant / reference (> 1 = the
/// variant is faster), or with `slowdown` reference / variant (> 1 = the
/// variant is slower: the form of published overhead tables).
pub fn ratio_matrix_as(runs: &[RunRow], reference: &str, slowdown: bool, f: Format) -> String {
    let mut ms = ratio_matrices(runs, reference);
    if slowdown {
        ms = ms.into_iter().map(|m| m.inverted()).collect();
    }
    if f == Format::Json {
        let docs: Vec<_> = ms
            .iter()
            .map(|m| {
                let rows: Vec<_> = m
                    .rows
                    .iter()
                    .map(|r| {
                        let ratios: serde_json::Map<String, serde_json::Value> = m
                            .variants
                            .iter()
                            .zip(&r.ratios)
                            .filter_map(|(v, x)| Some((v.clone(), (*x)?.ratio.into())))
                            .collect();
                        let intervals: serde_json::Map<String, serde_json::Value> = m
                            .variants
                            .iter()
                            .zip(&r.ratios)
                            .filter_map(|(v, x)| Some((v.clone(), serde_json::to_value((*x)?).ok()?)))
                            .collect();
                        serde_json::json!({"threads": r.threads, "reference_qps": r.reference_qps, "ratios": ratios, "intervals": intervals, "host_shared": r.host_shared})
                    })
                    .collect();
                serde_json::json!({"workload": m.workload, "label": m.label, "reference": m.reference, "rows": rows})
            })
            .collect();
        return serde_json::to_string_pretty(&docs).unwrap_or_default() + "\n";
    }
    let mut out = String::new();
    for m in &ms {
        let mut headers = vec!["threads".to_string(), format!("{} qps", m.reference)];
        headers.extend(m.variants.iter().map(|v| {
            if slowdown {
                format!("{} / {v}", m.reference)
            } else {
                format!("{v} / {}", m.reference)
            }
        }));
        let mut t = Table {
            headers,
            rows: Vec::new(),
            slowdown,
        };
        for r in &m.rows {
            let threads = if r.host_shared {
                format!("{} [host shared]", r.threads)
            } else {
                r.threads.to_string()
            };
            let mut row = vec![threads, format!("{:.2}", r.reference_qps)];
            row.extend(
                r.ratios
                    .iter()
                    .map(|x| x.map_or_else(|| "-".into(), |v| ratio_text(&v, f))),
            );
            t.rows.push(row);
        }
        for (name, pick) in [("min", 0usize), ("median", 1), ("max", 2)] {
            let mut row = vec![name.to_string(), String::new()];
            for (lo, mid, hi) in &m.summary {
                row.push(num(Some([*lo, *mid, *hi][pick]), 3));
            }
            t.rows.push(row);
        }
        let heading = format!(
            "Ratio matrix, {}, {} ({}):",
            m.workload,
            m.label,
            if slowdown {
                format!(
                    "QPS of {} / each variant: > 1 = the variant is slower",
                    m.reference
                )
            } else {
                format!(
                    "QPS of each variant / {}: > 1 = the variant is faster",
                    m.reference
                )
            }
        );
        match f {
            Format::Html => out.push_str(&maud::html! { p.matrix { (heading) } }.into_string()),
            _ => {
                out.push_str(&heading);
                out.push('\n');
            }
        }
        out.push_str(&t.render(f));
        out.push('\n');
    }
    if !ms.is_empty() {
        out.push_str(&legend(f));
    }
    out
}

/// What a comparison knows beyond the two runs' seconds.
pub struct ComparisonContext {
    /// B / A over the repeats of each run's point (both sides ≥ 2 runs).
    pub across_repeats: Option<crate::analyze::spread::RatioCell>,
    /// What differs between the runs besides server and settings.
    pub differences: Vec<String>,
    /// Both runs measured one configuration (see
    /// `analyze::compare::same_configuration`): repeats, not a comparison.
    pub same_configuration: bool,
    /// QPS of every stored repeat of that configuration's campaign point
    /// (the two runs at least), for its spread.
    pub repeats_qps: Vec<f64>,
}

/// Two stored runs side by side: the test across their points' repeats
/// when both have repeats (the verdict), else the comparison of their
/// per-interval QPS and TPS (mean ± SE, Welch's t), which ignores
/// run-to-run variance and is said to be a lower bound; a warning first
/// when the runs differ in workload, threads or options.
pub fn run_comparison(
    da: &RunDetail,
    db: &RunDetail,
    (cq, ct): (&Comparison, &Comparison),
    ctx: &ComparisonContext,
    f: Format,
) -> String {
    if f == Format::Json {
        let doc = serde_json::json!({"run_a": da.run, "run_b": db.run, "qps": cq, "tps": ct,
            "across_repeats": ctx.across_repeats, "differences": ctx.differences,
            "same_configuration": ctx.same_configuration});
        return serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    }
    let mut head = String::new();
    if ctx.same_configuration {
        head.push_str("Repeats of one configuration: these runs differ in nothing but when they ran (same workload, options, server build and settings), so any difference between them is run-to-run noise, not an effect; the within-run test below does not apply.\n\n");
    }
    if !ctx.differences.is_empty() {
        head.push_str(&format!(
            "WARNING: these runs differ in more than server and settings ({}): the difference below mixes them in\n\n",
            ctx.differences.join("; ")
        ));
    }
    let name = |d: &RunDetail| {
        let r = &d.run;
        format!(
            "run {} {} {}",
            r.id,
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default()
        )
        .trim()
        .to_string()
    };
    let mut t = Table::new(&["", &name(da), &name(db)]);
    let ms = |s: &SeriesStats| {
        format!(
            "{:.1} ± {:.1} (n {}, n_eff {:.1})",
            s.mean, s.se, s.n, s.n_eff
        )
    };
    let opt = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_default();
    let rows: Vec<(&str, String, String)> = vec![
        ("workload", da.run.workload.clone(), db.run.workload.clone()),
        (
            "threads",
            da.run.threads.to_string(),
            db.run.threads.to_string(),
        ),
        (
            "server",
            crate::server::server_label(
                da.run.server_flavor.as_deref(),
                da.run.server_version.as_deref(),
            ),
            crate::server::server_label(
                db.run.server_flavor.as_deref(),
                db.run.server_version.as_deref(),
            ),
        ),
        ("status", da.run.status.clone(), db.run.status.clone()),
        ("host", host_of(da), host_of(db)),
        ("qps mean ± SE", ms(&cq.a), ms(&cq.b)),
        ("tps mean ± SE", ms(&ct.a), ms(&ct.b)),
        ("p95 ms", opt(da.run.lat_p95_ms), opt(db.run.lat_p95_ms)),
        ("p99 ms", opt(da.run.lat_p99_ms), opt(db.run.lat_p99_ms)),
    ];
    for (label, x, y) in rows {
        t.push(vec![label.to_string(), x, y]);
    }
    match &ctx.across_repeats {
        _ if ctx.same_configuration => t.push(repeats_spread(&ctx.repeats_qps)),
        Some(r) => t.push(vec![
            "qps B / A over repeats".into(),
            r.text(),
            format!(
                "{} (repeats: {} and {})",
                if r.significant() { "a difference" } else { "within noise" },
                r.runs_b,
                r.runs_a
            ),
        ]),
        None => t.push(vec![
            "run-to-run".into(),
            "unknown: one run per side".into(),
            "the within-run test below ignores run-to-run variance: a lower bound on the uncertainty (repeat the runs)".into(),
        ]),
    }
    let one_run = ctx.across_repeats.is_none();
    for (what, c) in [("qps", cq), ("tps", ct)] {
        let pct = |v: f64| {
            if c.a.mean != 0.0 {
                v / c.a.mean * 100.0
            } else {
                f64::NAN
            }
        };
        t.push(vec![
            format!("{what} B - A"),
            format!(
                "{:+.1} ({:+.2}%), 95% interval [{:+.2}%, {:+.2}%]",
                c.diff,
                c.diff_pct,
                pct(c.ci_low),
                pct(c.ci_high)
            ),
            format!(
                "t {:.2}, df {:.1}, p {:.4}: {}",
                c.t,
                c.df,
                c.p,
                match (c.significant, one_run) {
                    _ if ctx.same_configuration => "run-to-run noise (one configuration)",
                    (true, true) => "beyond within-run noise (not proof of a difference)",
                    (true, false) => "beyond within-run noise",
                    (false, _) => "inside the within-run noise",
                }
            ),
        ]);
    }
    head + &t.render(f)
}

/// The row that says how far the repeats of one configuration spread.
fn repeats_spread(qps: &[f64]) -> Vec<String> {
    let (lo, hi) = qps
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), q| {
            (l.min(*q), h.max(*q))
        });
    let mut sorted = qps.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    if qps.len() < 2 || median <= 0.0 {
        return vec!["run-to-run".into(), "unknown".into(), String::new()];
    }
    vec![
        "run-to-run (repeats)".into(),
        format!("qps {lo:.0}-{hi:.0} over {} runs", qps.len()),
        format!(
            "a spread of {:.1}% of the median: differences smaller than that say nothing",
            (hi - lo) / median * 100.0
        ),
    ]
}

/// Whether a run's host was its alone, from its verdict's "(host shared:
/// …)" note: "shared: other processes 33% of busy CPU", or "quiet".
fn host_of(d: &RunDetail) -> String {
    let hint = d.run.hint.as_deref().unwrap_or("");
    match hint.split_once("(host shared") {
        Some((_, rest)) => format!("SHARED{}", rest.split(')').next().unwrap_or("").trim_end()),
        None if hint.is_empty() => "not judged (no monitor)".into(),
        None => "quiet (no other process took CPU)".into(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analyze::series;

    /// A finished run of oltp_point_select in campaign 1, label "m".
    pub(crate) fn row(id: i64, variant: &str, threads: i64, qps: f64) -> RunRow {
        RunRow {
            id,
            campaign_id: Some(1),
            started_at: String::new(),
            workload: "oltp_point_select".into(),
            threads,
            label: Some("m".into()),
            variant: Some(variant.into()),
            status: "ok".into(),
            reason: None,
            server_version: None,
            server_flavor: None,
            options_key: None,
            seconds: Some(10.0),
            tps: Some(qps),
            qps: Some(qps),
            lat_p95_ms: Some(1.0),
            lat_p99_ms: Some(2.0),
            client_cpu_s: None,
            load_cpu_s: None,
            queries: None,
            server_us_per_q: None,
            csw_per_q: None,
            hint: None,
            nopm: None,
            locks: None,
            ..Default::default()
        }
    }

    /// Two repeats of one configuration are said to be repeats: their
    /// difference is headlined as run-to-run noise with the repeats'
    /// spread, never as an effect with a p value.
    #[test]
    fn repeats_of_one_configuration_are_not_a_comparison() {
        let mut a = RunDetail {
            run: row(1, "x", 8, 3_027.0),
            ..Default::default()
        };
        let mut b = RunDetail {
            run: row(2, "x", 8, 42_961.0),
            ..Default::default()
        };
        a.samples = Vec::new();
        b.samples = Vec::new();
        assert!(crate::analyze::compare::same_configuration(&a, &b));
        let (q1, q2) = ([3000.0, 3050.0, 3030.0], [42_900.0, 43_000.0, 42_980.0]);
        let c = crate::analyze::compare::compare(&q1, &q2);
        let ctx = ComparisonContext {
            across_repeats: None,
            differences: Vec::new(),
            same_configuration: true,
            repeats_qps: vec![3_027.0, 42_961.0],
        };
        let out = run_comparison(&a, &b, (&c, &c), &ctx, Format::Text);
        assert!(out.starts_with("Repeats of one configuration"), "{out}");
        assert!(
            out.contains("run-to-run noise (one configuration)"),
            "{out}"
        );
        assert!(out.contains("qps 3027-42961 over 2 runs"), "{out}");
        assert!(!out.contains("beyond within-run noise"), "{out}");
        // Another variant is a comparison again.
        b.run.variant = Some("y".into());
        assert!(!crate::analyze::compare::same_configuration(&a, &b));
    }

    #[test]
    fn medians_and_ratios_match_hand_computation() {
        let runs = vec![
            row(1, "off", 1, 100.0),
            row(2, "off", 1, 300.0),
            row(3, "off", 1, 200.0), // median 200
            row(4, "on", 1, 180.0),  // 0.9
            row(5, "off", 4, 400.0),
            row(6, "on", 4, 300.0), // 0.75
            row(7, "on", 8, 50.0),  // no reference at 8: left out
        ];
        let s = series(&runs);
        let off = &s[&("oltp_point_select".into(), "m".into(), "off".into())];
        assert_eq!(off[&1].qps, 200.0);
        assert_eq!(off[&1].runs, 3);
        let j: serde_json::Value =
            serde_json::from_str(&ratio_matrix(&runs, "off", Format::Json)).unwrap();
        let rows = j[0]["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert!((rows[0]["ratios"]["on"].as_f64().unwrap() - 0.9).abs() < 1e-12);
        assert!((rows[1]["ratios"]["on"].as_f64().unwrap() - 0.75).abs() < 1e-12);
        let text = ratio_matrix(&runs, "off", Format::Text);
        assert!(
            text.contains("on / off") && text.contains("0.900") && text.contains("0.750"),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("median") && l.contains("0.825")),
            "{text}"
        );
        let slow = ratio_matrix_as(&runs, "off", true, Format::Text);
        assert!(
            slow.contains("off / on")
                && slow.contains("1.111")
                && slow.contains("> 1 = the variant is slower"),
            "{slow}"
        );
        assert!(scalability_table(&runs, Format::Csv).contains("oltp_point_select,m,off,1,200.00"));
        // best-to-best with two labels: the best variant of each, and their ratio
        let mut other = vec![row(8, "a", 1, 150.0), row(9, "b", 1, 250.0)];
        for r in &mut other {
            r.label = Some("n".into());
        }
        let all: Vec<RunRow> = runs.iter().cloned().chain(other).collect();
        let b = best_table(&all, Format::Csv);
        assert!(
            b.lines()
                .any(|l| l == "oltp_point_select,1,200.00,off,250.00,b,1.250"),
            "{b}"
        );
    }
}
