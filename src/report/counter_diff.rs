//! `qpslab diff`: two runs' server counters per transaction side by side,
//! as text (a header naming both runs, warnings, the table), CSV or JSON;
//! and the table's rows for the run page. Renders only what analyze
//! computed.

use super::num;
use super::table::{Format, Table};
use crate::analyze::counter_diff::{DiffRow, RunDiff};
use crate::store::RunRow;

/// A per-unit figure with enough digits to see a small one.
pub fn figure(v: Option<f64>) -> String {
    match v {
        Some(x) if x.abs() >= 100.0 => num(Some(x), 0),
        Some(x) if x.abs() >= 1.0 => num(Some(x), 2),
        Some(x) => num(Some(x), 4),
        None => "-".into(),
    }
}

/// The relative change in words: "+12.5%", "new" (from zero), "gone".
pub fn change(r: &DiffRow) -> String {
    match (r.a, r.b, r.change) {
        (_, _, Some(c)) => format!("{:+.1}%", c * 100.0),
        (Some(a), Some(b), None) if a == 0.0 && b != 0.0 => "from 0".into(),
        (None, Some(_), _) => "only in B".into(),
        (Some(_), None, _) => "only in A".into(),
        _ => "-".into(),
    }
}

/// One run in the header: "run 12: oltp_read_only × 4 users, 1,234 qps,
/// MariaDB 11.4 (label / variant)".
pub fn run_line(r: &RunRow) -> String {
    let series: Vec<&str> = [r.label.as_deref(), r.variant.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let series = if series.is_empty() {
        String::new()
    } else {
        format!(" ({})", series.join(" / "))
    };
    format!(
        "run {}: {} × {}, {} qps, {}{series}",
        r.id,
        r.workload,
        crate::out::counted(r.threads, "user"),
        num(r.qps, 0),
        crate::server::server_label(r.server_flavor.as_deref(), r.server_version.as_deref()),
    )
}

/// The counters as a table (at most `top` rows; 0: all).
pub fn diff_table(d: &RunDiff, top: usize) -> Table {
    let (ua, ub) = (d.a_counters.unit, d.b_counters.unit);
    let mut t = Table::new(&[
        "counter",
        &format!("A per {ua}"),
        &format!("B per {ub}"),
        "change",
    ]);
    let n = if top == 0 { d.diff.rows.len() } else { top };
    for r in d.diff.rows.iter().take(n) {
        t.push(vec![r.name.clone(), figure(r.a), figure(r.b), change(r)]);
    }
    t
}

/// `qpslab diff` in format `f`.
pub fn diff_text(d: &RunDiff, f: Format) -> String {
    match f {
        Format::Json => serde_json::to_string_pretty(d).unwrap_or_default() + "\n",
        Format::Csv => {
            let header = ["counter", "a", "b", "change", "a_unit", "b_unit"];
            let cell = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
            let rows = d.diff.rows.iter().map(|r| {
                vec![
                    r.name.clone(),
                    cell(r.a),
                    cell(r.b),
                    cell(r.change),
                    d.a_counters.unit.to_string(),
                    d.b_counters.unit.to_string(),
                ]
            });
            let header = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
            super::table::csv_text(header.into_iter().chain(rows))
        }
        _ => {
            let base = if d.against_baseline {
                " (baseline)"
            } else {
                ""
            };
            let mut s = format!("A {}{base}\nB {}\n", run_line(&d.a), run_line(&d.b));
            for w in &d.mismatches {
                s.push_str(&format!(
                    "warning: {w}: the counters differ for that reason too\n"
                ));
            }
            let window = |c: &crate::analyze::counter_diff::RunCounters| {
                format!(
                    "{:.0} {}s in {:.1} s",
                    c.events,
                    c.unit,
                    c.window.1 - c.window.0
                )
            };
            s.push_str(&format!(
                "per {} over each run's monitored window (A: {}; B: {})\n\n",
                if d.a_counters.unit == d.b_counters.unit {
                    d.a_counters.unit
                } else {
                    "unit"
                },
                window(&d.a_counters),
                window(&d.b_counters),
            ));
            s.push_str(&diff_table(d, 0).render(f));
            if d.diff.hidden_zero > 0 {
                s.push_str(&format!(
                    "({} zero in both left out; --all shows them)\n",
                    crate::out::counted(d.diff.hidden_zero, "counter")
                ));
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::counter_diff::{run_diff, RunCounters};

    fn side(id: i64, workload: &str, pairs: &[(&str, f64)]) -> (RunRow, RunCounters) {
        let row = RunRow {
            id,
            workload: workload.into(),
            threads: 4,
            qps: Some(1234.0),
            label: Some("m".into()),
            ..Default::default()
        };
        let c = RunCounters {
            unit: "transaction",
            window: (0.0, 10.0),
            events: 1000.0,
            queries: 14000.0,
            per_unit: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        };
        (row, c)
    }

    #[test]
    fn the_text_names_both_runs_warns_and_lists_the_largest_change_first() {
        let a = side(
            3,
            "oltp_read_only",
            &[
                ("Handler_read_key", 14.0),
                ("Sort_rows", 100.0),
                ("Com_delete", 0.0),
            ],
        );
        let b = side(
            7,
            "oltp_point_select",
            &[
                ("Handler_read_key", 1.0),
                ("Sort_rows", 100.0),
                ("Com_delete", 0.0),
            ],
        );
        let d = run_diff(a, b, true, false);
        let t = diff_text(&d, Format::Text);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("A run 3: oltp_read_only × 4 users, 1234 qps")
                && lines[0].ends_with("(m) (baseline)"),
            "{t}"
        );
        assert!(lines[1].starts_with("B run 7: oltp_point_select"), "{t}");
        assert!(lines[2].starts_with("warning: different workloads"), "{t}");
        let key = t.find("Handler_read_key").unwrap();
        assert!(key < t.find("Sort_rows").unwrap(), "{t}");
        assert!(t.contains("-92.9%") && t.contains("+0.0%"), "{t}");
        assert!(t.contains("1 counter zero in both left out"), "{t}");
        let csv = diff_text(&d, Format::Csv);
        assert!(
            csv.starts_with("counter,a,b,change,a_unit,b_unit\nHandler_read_key,14,1,"),
            "{csv}"
        );
        let json: serde_json::Value = serde_json::from_str(&diff_text(&d, Format::Json)).unwrap();
        assert_eq!(json["diff"]["rows"][0]["name"], "Handler_read_key");
    }
}
