//! analyze: comparisons over stored runs.
//!
//! Owns grouping runs into series (workload × label × variant) per
//! concurrency, with medians over repeats, the scalability table and the
//! ratio matrix (each variant's QPS relative to a reference variant, per
//! concurrency, with min / median / max). It reads `RunRow`s; it does not
//! query the store or print by itself.

pub mod bottleneck;
pub mod compare;
pub mod counters;
pub mod efficiency;
pub mod run_figures;

use crate::report::num;
use crate::report::table::{Format, Table};
use crate::store::RunRow;
use std::collections::BTreeMap;

/// Median of the values (NaN-free input expected).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// A series' figures at one concurrency: medians over its runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Cell {
    pub qps: f64,
    pub tps: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub runs: usize,
    /// Medians of the monitor's figures (NaN without the monitor).
    pub server_us: f64,
    pub client_us: f64,
    pub csw: f64,
    /// The most frequent bottleneck verdict among the runs.
    pub hint: String,
}

/// The most frequent value (the first among equals).
fn mode(v: Vec<&str>) -> String {
    let mut best = ("", 0);
    for x in &v {
        let n = v.iter().filter(|y| *y == x).count();
        if n > best.1 {
            best = (x, n);
        }
    }
    best.0.to_string()
}

type SeriesKey = (String, String, String);
/// A series' cells by concurrency.
type Cells = BTreeMap<i64, Cell>;
/// workload → threads → label → (best QPS, variant that won).
type Best = BTreeMap<String, BTreeMap<i64, BTreeMap<String, (f64, String)>>>;

/// (workload, label, variant) → threads → cell.
pub fn series(runs: &[RunRow]) -> BTreeMap<SeriesKey, BTreeMap<i64, Cell>> {
    let mut groups: BTreeMap<SeriesKey, BTreeMap<i64, Vec<&RunRow>>> = BTreeMap::new();
    for r in runs
        .iter()
        .filter(|r| r.status == "ok" && r.workload != "monitor")
    {
        let key = (
            r.workload.clone(),
            r.label.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
        );
        groups
            .entry(key)
            .or_default()
            .entry(r.threads)
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .map(|(k, by_threads)| {
            let cells = by_threads
                .into_iter()
                .map(|(t, rs)| {
                    let m = |f: fn(&RunRow) -> Option<f64>| {
                        median(rs.iter().filter_map(|r| f(r)).collect())
                    };
                    let cell = Cell {
                        qps: m(|r| r.qps),
                        tps: m(|r| r.tps),
                        p95_ms: m(|r| r.lat_p95_ms),
                        p99_ms: m(|r| r.lat_p99_ms),
                        runs: rs.len(),
                        server_us: m(|r| r.server_us_per_q),
                        client_us: m(|r| {
                            Some(crate::stats::us_per_query(
                                r.client_cpu_s?,
                                r.queries? as f64,
                            ))
                        }),
                        csw: m(|r| r.csw_per_q),
                        hint: mode(rs.iter().filter_map(|r| r.hint.as_deref()).collect()),
                    };
                    (t, cell)
                })
                .collect();
            (k, cells)
        })
        .collect()
}

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
    let mut t = Table::new(&[
        "workload",
        "label",
        "variant",
        "threads",
        "qps",
        "tps",
        "p95 ms",
        "p99 ms",
        "srv us/q",
        "cli us/q",
        "cs/q",
        "runs",
        "bottleneck",
    ]);
    for ((w, l, v), cells) in &s {
        for (th, c) in cells {
            t.push(vec![
                w.clone(),
                l.clone(),
                v.clone(),
                th.to_string(),
                format!("{:.2}", c.qps),
                format!("{:.2}", c.tps),
                format!("{:.2}", c.p95_ms),
                format!("{:.2}", c.p99_ms),
                num(Some(c.server_us), 1),
                num(Some(c.client_us), 1),
                num(Some(c.csw), 2),
                c.runs.to_string(),
                c.hint.clone(),
            ]);
        }
    }
    t.render(f)
}

/// Best-to-best: for each workload, concurrency and series label, the best
/// median QPS over the label's variants, naming the variant that won; with
/// two or more labels, each label's best relative to the first label's.
pub fn best_table(runs: &[RunRow], f: Format) -> String {
    let s = series(runs);
    // (workload) → threads → label → (qps, variant)
    let mut best: Best = BTreeMap::new();
    let mut labels: Vec<String> = Vec::new();
    for ((w, l, v), cells) in &s {
        if !labels.contains(l) {
            labels.push(l.clone());
        }
        for (th, c) in cells {
            let slot = best.entry(w.clone()).or_default().entry(*th).or_default();
            let better = slot.get(l).is_none_or(|(q, _)| c.qps > *q);
            if better {
                slot.insert(l.clone(), (c.qps, v.clone()));
            }
        }
    }
    if f == Format::Json {
        return serde_json::to_string_pretty(&best).unwrap_or_default() + "\n";
    }
    let mut headers = vec!["workload".to_string(), "threads".to_string()];
    for l in &labels {
        headers.push(format!("{l} best qps"));
        headers.push(format!("{l} variant"));
    }
    for l in labels.iter().skip(1) {
        headers.push(format!("{l} / {}", labels[0]));
    }
    let mut t = Table {
        headers,
        rows: Vec::new(),
    };
    for (w, by_threads) in &best {
        for (th, by_label) in by_threads {
            let mut row = vec![w.clone(), th.to_string()];
            for l in &labels {
                match by_label.get(l) {
                    Some((q, v)) => {
                        row.push(format!("{q:.2}"));
                        row.push(v.clone());
                    }
                    None => row.extend(["-".to_string(), "-".to_string()]),
                }
            }
            let base = by_label.get(&labels[0]).map(|x| x.0);
            for l in labels.iter().skip(1) {
                row.push(match (by_label.get(l), base) {
                    (Some((q, _)), Some(b)) if b > 0.0 => format!("{:.3}", q / b),
                    _ => "-".into(),
                });
            }
            t.rows.push(row);
        }
    }
    t.render(f)
}

/// The ratio matrix: per workload and label, rows are concurrencies and
/// columns variants; each cell is the variant's median QPS divided by the
/// reference variant's at the same concurrency. Closing rows give min,
/// median and max of each column.
pub fn ratio_matrix(runs: &[RunRow], reference: &str, f: Format) -> String {
    let s = series(runs);
    let mut out = String::new();
    let mut groups: BTreeMap<(String, String), Vec<(&String, &Cells)>> = BTreeMap::new();
    for ((w, l, v), cells) in &s {
        groups
            .entry((w.clone(), l.clone()))
            .or_default()
            .push((v, cells));
    }
    let mut docs = Vec::new();
    for ((w, l), variants) in groups {
        let Some(reference_cells) = variants
            .iter()
            .find(|(v, _)| v.as_str() == reference)
            .map(|(_, c)| *c)
        else {
            continue;
        };
        // Variants in the order they first ran (a campaign file's order).
        let first_run = |v: &str| {
            runs.iter()
                .filter(|r| r.variant.as_deref() == Some(v))
                .map(|r| r.id)
                .min()
                .unwrap_or(i64::MAX)
        };
        let mut others: Vec<_> = variants
            .iter()
            .filter(|(v, _)| v.as_str() != reference)
            .collect();
        others.sort_by_key(|(v, _)| first_run(v));
        let mut headers = vec!["threads".to_string(), format!("{reference} qps")];
        headers.extend(others.iter().map(|(v, _)| format!("{v} / {reference}")));
        let mut t = Table {
            headers,
            rows: Vec::new(),
        };
        let mut columns: Vec<Vec<f64>> = vec![Vec::new(); others.len()];
        let mut rows_json = Vec::new();
        for (th, rc) in reference_cells {
            let mut row = vec![th.to_string(), format!("{:.2}", rc.qps)];
            let mut ratios = serde_json::Map::new();
            for (i, (v, cells)) in others.iter().enumerate() {
                match cells.get(th) {
                    Some(c) if rc.qps > 0.0 => {
                        let ratio = c.qps / rc.qps;
                        columns[i].push(ratio);
                        ratios.insert((*v).clone(), ratio.into());
                        row.push(format!("{ratio:.3}"));
                    }
                    _ => row.push("-".into()),
                }
            }
            rows_json.push(
                serde_json::json!({"threads": th, "reference_qps": rc.qps, "ratios": ratios}),
            );
            t.rows.push(row);
        }
        for (name, pick) in [("min", 0usize), ("median", 1), ("max", 2)] {
            let mut row = vec![name.to_string(), String::new()];
            for col in &columns {
                let v = match pick {
                    0 => col.iter().cloned().fold(f64::NAN, f64::min),
                    1 => median(col.clone()),
                    _ => col.iter().cloned().fold(f64::NAN, f64::max),
                };
                row.push(num(Some(v), 3));
            }
            t.rows.push(row);
        }
        if f == Format::Json {
            docs.push(serde_json::json!({"workload": w, "label": l, "reference": reference, "rows": rows_json}));
        } else {
            out.push_str(&format!(
                "Ratio matrix, {w}, {l} (QPS of each variant / {reference}):\n"
            ));
            out.push_str(&t.render(f));
            out.push('\n');
        }
    }
    if f == Format::Json {
        return serde_json::to_string_pretty(&docs).unwrap_or_default() + "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, variant: &str, threads: i64, qps: f64) -> RunRow {
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
            seconds: Some(10.0),
            tps: Some(qps),
            qps: Some(qps),
            lat_p95_ms: Some(1.0),
            lat_p99_ms: Some(2.0),
            client_cpu_s: None,
            queries: None,
            server_us_per_q: None,
            csw_per_q: None,
            hint: None,
        }
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
