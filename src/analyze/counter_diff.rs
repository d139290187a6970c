//! Two runs' server counters side by side, per transaction (per event
//! where the workload has none): each run's counters (SHOW GLOBAL STATUS
//! as the monitor stored it) differenced over the measured window its
//! polls cover, divided by that run's own events over the same window;
//! then the relative change, largest first. Also which runs an analysis
//! leaves out (`leave_out_excluded`). Pure: takes rows and tables, returns
//! typed results; reads nothing and prints nothing.

use super::counters::{Counters, Keep};
use crate::store::{MetricTable, RunRow, SampleRow};
use serde::Serialize;
use std::collections::BTreeMap;

/// The monitor source the counters come from.
pub const SOURCE: &str = "status";

/// Status counters worth a diff: cumulative ones, by prefix.
const PREFIXES: &[&str] = &[
    "Handler_",
    "Innodb_",
    "Com_",
    "Created_tmp_",
    "Sort_",
    "Select_",
    "Bytes_",
    "Questions",
    "Table_locks_",
    "Key_read",
    "Key_write",
    "Opened_",
    "Slow_queries",
    "Table_open_cache_",
];

/// Names under those prefixes that are gauges or sizes, not counts.
const GAUGES: &[&str] = &[
    "_pages_data",
    "_pages_dirty",
    "_pages_free",
    "_pages_misc",
    "_pages_total",
    "_pages_old",
    "_bytes_data",
    "_bytes_dirty",
    "page_size",
    "current_waits",
    "_time_avg",
    "_time_max",
    "history_list_length",
    "checkpoint_age",
    "checkpoint_max_age",
    "_mem_",
    "num_open_files",
    "_open_files",
    "_size",
    "_percent",
    "_capacity",
    "_lsn",
    "_max_trx_id",
    "_oldest_view_low_limit",
    "_undo_truncations",
    "Innodb_have_",
    "_status",
    "_encryption_",
];

/// Whether `name` is a cumulative counter this diff shows.
pub fn is_counter(name: &str) -> bool {
    PREFIXES.iter().any(|p| name.starts_with(p)) && !GAUGES.iter().any(|g| name.contains(g))
}

/// The derived line: rows read per query (not per transaction): InnoDB's
/// count where the server keeps it (MySQL, MariaDB before 10.6), else the
/// handler's row reads (`HANDLER_READS`, temporary tables included).
pub const ROWS_PER_QUERY: &str = "rows read per query";

/// The handler calls that each read one row.
const HANDLER_READS: &[&str] = &[
    "Handler_read_first",
    "Handler_read_key",
    "Handler_read_last",
    "Handler_read_next",
    "Handler_read_prev",
    "Handler_read_rnd",
    "Handler_read_rnd_next",
];

/// One run's counters over its measured window, per unit of work.
#[derive(Debug, Clone, Serialize)]
pub struct RunCounters {
    /// "transaction" when the server counted commits, else "event".
    pub unit: &'static str,
    /// The window the counters cover, seconds since measuring began.
    pub window: (f64, f64),
    /// Events (transactions) the run completed in that window.
    pub events: f64,
    /// Queries it sent in that window.
    pub queries: f64,
    /// Each counter's growth over the window per event (in the JSON
    /// document through the diff's rows only).
    #[serde(skip)]
    pub per_unit: BTreeMap<String, f64>,
}

/// How much of `s`'s interval, (t − dur, t], lies in [a, b].
fn overlap(s: &SampleRow, a: f64, b: f64) -> f64 {
    if s.dur <= 0.0 {
        return if s.t > a && s.t <= b { 1.0 } else { 0.0 };
    }
    let (lo, hi) = ((s.t - s.dur).max(a), s.t.min(b));
    ((hi - lo) / s.dur).clamp(0.0, 1.0)
}

/// A run's counters per event over the measured part its polls cover;
/// None without polls inside it or without events in it.
pub fn run_counters(tab: &MetricTable, samples: &[SampleRow]) -> Option<RunCounters> {
    let end = samples
        .iter()
        .filter(|s| !s.warmup)
        .map(|s| s.t)
        .fold(f64::NAN, f64::max);
    let (first, last) = (tab.rows.first()?.0, tab.rows.last()?.0);
    let (a, b) = (first.max(0.0), last.min(end));
    if a.is_nan() || b.is_nan() || b <= a {
        return None;
    }
    let mut c = Counters::default();
    let cols: Vec<usize> = (0..tab.names.len())
        .filter(|&i| is_counter(&tab.names[i]))
        .collect();
    for (t, _, vals) in &tab.rows {
        for &i in &cols {
            if let Some(v) = vals[i] {
                c.push(tab.names[i].clone(), Keep::Ends, *t, v);
            }
        }
    }
    let measured = samples.iter().filter(|s| !s.warmup);
    let (mut events, mut queries) = (0.0, 0.0);
    for s in measured {
        let f = overlap(s, a, b);
        events += f * s.events as f64;
        queries += f * s.queries() as f64;
    }
    let units = if events > 0.0 { events } else { queries };
    if units <= 0.0 {
        return None;
    }
    let mut per_unit: BTreeMap<String, f64> = cols
        .iter()
        .filter_map(|&i| {
            let n = &tab.names[i];
            Some((n.clone(), c.delta(n, a, b)? / units))
        })
        .collect();
    let commits = ["Com_commit", "Com_rollback"]
        .iter()
        .filter_map(|k| per_unit.get(*k))
        .sum::<f64>();
    let rows = per_unit.get("Innodb_rows_read").copied().or_else(|| {
        let reads: Vec<f64> = HANDLER_READS
            .iter()
            .filter_map(|k| per_unit.get(*k).copied())
            .collect();
        (!reads.is_empty()).then(|| reads.iter().sum())
    });
    if let (Some(rows), true) = (rows, queries > 0.0) {
        per_unit.insert(ROWS_PER_QUERY.into(), rows * units / queries);
    }
    Some(RunCounters {
        unit: if commits > 0.0 && events > 0.0 {
            "transaction"
        } else {
            "event"
        },
        window: (a, b),
        events,
        queries,
        per_unit,
    })
}

/// One counter in both runs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiffRow {
    /// The counter's name (or the derived line's).
    pub name: String,
    /// Per unit in run A (None: A did not report it).
    pub a: Option<f64>,
    /// Per unit in run B.
    pub b: Option<f64>,
    /// (B − A) / A; None where A is zero or either is missing (a counter
    /// that appears from zero sorts first).
    pub change: Option<f64>,
}

/// The diff's rows, largest absolute relative change first.
#[derive(Debug, Clone, Serialize)]
pub struct CounterDiff {
    /// Every counter shown.
    pub rows: Vec<DiffRow>,
    /// Counters zero (or absent) in both runs, left out unless asked for.
    pub hidden_zero: usize,
}

/// The sort key: appearing from zero first, then |change| descending.
fn rank(r: &DiffRow) -> f64 {
    match (r.a, r.b, r.change) {
        (_, _, Some(c)) => c.abs(),
        (Some(a), Some(b), None) if a == 0.0 && b != 0.0 => f64::INFINITY,
        (None, Some(_), _) | (Some(_), None, _) => f64::INFINITY,
        _ => -1.0,
    }
}

/// A's and B's counters side by side; `all` keeps the counters that are
/// zero in both.
pub fn diff(a: &RunCounters, b: &RunCounters, all: bool) -> CounterDiff {
    let names: std::collections::BTreeSet<&String> =
        a.per_unit.keys().chain(b.per_unit.keys()).collect();
    let mut rows = Vec::new();
    let mut hidden_zero = 0;
    for n in names {
        let (va, vb) = (a.per_unit.get(n).copied(), b.per_unit.get(n).copied());
        let zero = va.unwrap_or(0.0) == 0.0 && vb.unwrap_or(0.0) == 0.0;
        if zero && !all {
            hidden_zero += 1;
            continue;
        }
        let change = match (va, vb) {
            (Some(x), Some(y)) if x != 0.0 => Some((y - x) / x),
            _ => None,
        };
        rows.push(DiffRow {
            name: n.clone(),
            a: va,
            b: vb,
            change,
        });
    }
    rows.sort_by(|x, y| {
        rank(y)
            .total_cmp(&rank(x))
            .then_with(|| x.name.cmp(&y.name))
    });
    CounterDiff { rows, hidden_zero }
}

/// What differs between two runs beyond the change measured (each a
/// warning line): workload, users, server version.
pub fn mismatches(a: &RunRow, b: &RunRow) -> Vec<String> {
    let mut w = Vec::new();
    if a.workload != b.workload {
        w.push(format!(
            "different workloads ({} and {})",
            a.workload, b.workload
        ));
    }
    if a.threads != b.threads {
        w.push(format!("different users ({} and {})", a.threads, b.threads));
    }
    if a.server_version != b.server_version {
        let v = |r: &RunRow| r.server_version.clone().unwrap_or_else(|| "unknown".into());
        w.push(format!("different server versions ({} and {})", v(a), v(b)));
    }
    w
}

/// Two runs' counters compared (what `qpslab diff` and the run page show).
#[derive(Debug, Clone, Serialize)]
pub struct RunDiff {
    /// Run A (the baseline, when diffed against one).
    pub a: RunRow,
    /// Run B.
    pub b: RunRow,
    /// Whether A is B's workload's pinned baseline, found for it.
    pub against_baseline: bool,
    /// A's counters per unit.
    pub a_counters: RunCounters,
    /// B's counters per unit.
    pub b_counters: RunCounters,
    /// What differs between the two besides the change (warnings).
    pub mismatches: Vec<String>,
    /// The counters side by side.
    pub diff: CounterDiff,
}

/// The diff of `a` and `b` (their rows and counters).
pub fn run_diff(
    a: (RunRow, RunCounters),
    b: (RunRow, RunCounters),
    against_baseline: bool,
    all: bool,
) -> RunDiff {
    RunDiff {
        mismatches: mismatches(&a.0, &b.0),
        diff: diff(&a.1, &b.1, all),
        a: a.0,
        b: b.0,
        against_baseline,
        a_counters: a.1,
        b_counters: b.1,
    }
}

/// Removes the excluded runs from `runs`; says how many went ("2 excluded
/// runs left out"), None when none did.
pub fn leave_out_excluded(runs: &mut Vec<RunRow>) -> Option<String> {
    let before = runs.len();
    runs.retain(|r| !r.excluded);
    let n = before - runs.len();
    (n > 0).then(|| format!("{} left out", crate::out::counted(n as i64, "excluded run")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64, events: i64, reads: i64) -> SampleRow {
        SampleRow {
            seq: 0,
            t,
            dur: 1.0,
            warmup: t <= 0.0,
            events,
            reads,
            writes: 0,
            others: 0,
            errors: serde_json::Value::Null,
            reconnects: 0,
            backlog: 0,
            lat_p95_ms: None,
            lat_p99_ms: None,
            client_cpu_s: None,
            lat_p50_ms: None,
            lat_max_ms: None,
        }
    }

    /// Polls at -1, 0.5 … 4.5: Handler_read_key grows 100 a second,
    /// Com_commit 10, Innodb_rows_read 50; Threads_running is a gauge.
    fn table() -> MetricTable {
        let names = [
            "Handler_read_key",
            "Com_commit",
            "Innodb_rows_read",
            "Threads_running",
            "Select_scan",
        ];
        let mut t = MetricTable {
            names: names.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        };
        for k in [-1.0, 0.5, 1.5, 2.5, 3.5, 4.5] {
            let s = k + 1.0;
            t.rows.push((
                k,
                0,
                vec![
                    Some(100.0 * s),
                    Some(10.0 * s),
                    Some(50.0 * s),
                    Some(3.0),
                    Some(0.0),
                ],
            ));
        }
        t
    }

    #[test]
    fn per_transaction_over_the_window_the_polls_cover() {
        // 10 events a second, 20 reads; the run measures 0..4 s, the polls
        // cover -1..4.5: the window is [0, 4], 40 events.
        let samples: Vec<SampleRow> = (0..=4).map(|i| sample(i as f64, 10, 20)).collect();
        let c = run_counters(&table(), &samples).unwrap();
        assert_eq!(c.window, (0.0, 4.0));
        assert!((c.events - 40.0).abs() < 1e-9, "{}", c.events);
        assert_eq!(c.unit, "transaction");
        assert!((c.per_unit["Handler_read_key"] - 10.0).abs() < 1e-9);
        assert!((c.per_unit["Com_commit"] - 1.0).abs() < 1e-9);
        assert!((c.per_unit[ROWS_PER_QUERY] - 2.5).abs() < 1e-9);
        assert!(!c.per_unit.contains_key("Threads_running"), "a gauge");
        // Without Innodb_rows_read (MariaDB 10.6 on): the handler's reads.
        let mut no_innodb = table();
        no_innodb.names[2] = "Innodb_rows_gone".into();
        let c2 = run_counters(&no_innodb, &samples).unwrap();
        assert!((c2.per_unit[ROWS_PER_QUERY] - 5.0).abs() < 1e-9);
        // Polls from 0.5 only: the events are counted over [0.5, 4] too.
        let mut late = table();
        late.rows.remove(0);
        let c = run_counters(&late, &samples).unwrap();
        assert_eq!(c.window, (0.5, 4.0));
        assert!((c.events - 35.0).abs() < 1e-9, "{}", c.events);
        assert!((c.per_unit["Handler_read_key"] - 10.0).abs() < 1e-9);
    }

    #[test]
    fn largest_relative_change_first_and_zeros_hidden() {
        let mk = |pairs: &[(&str, f64)]| RunCounters {
            unit: "event",
            window: (0.0, 1.0),
            events: 1.0,
            queries: 1.0,
            per_unit: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        };
        let a = mk(&[
            ("Handler_read_key", 10.0),
            ("Innodb_rows_read", 100.0),
            ("Select_scan", 0.0),
            ("Sort_rows", 0.0),
        ]);
        let b = mk(&[
            ("Handler_read_key", 11.0),
            ("Innodb_rows_read", 50.0),
            ("Select_scan", 2.0),
            ("Sort_rows", 0.0),
        ]);
        let d = diff(&a, &b, false);
        let names: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["Select_scan", "Innodb_rows_read", "Handler_read_key"]
        );
        assert_eq!(d.hidden_zero, 1);
        assert_eq!(d.rows[1].change, Some(-0.5));
        assert_eq!(diff(&a, &b, true).rows.len(), 4);
    }

    #[test]
    fn no_events_in_the_window_is_no_figure() {
        let samples = vec![sample(1.0, 0, 0)];
        assert!(run_counters(&table(), &samples).is_none());
        assert!(run_counters(&MetricTable::default(), &samples).is_none());
    }

    #[test]
    fn excluded_runs_are_left_out_and_counted() {
        let mut runs = vec![
            RunRow {
                id: 1,
                excluded: true,
                ..Default::default()
            },
            RunRow {
                id: 2,
                ..Default::default()
            },
            RunRow {
                id: 3,
                excluded: true,
                ..Default::default()
            },
        ];
        assert_eq!(
            leave_out_excluded(&mut runs).as_deref(),
            Some("2 excluded runs left out")
        );
        assert_eq!(runs.len(), 1);
        assert_eq!(leave_out_excluded(&mut runs), None);
    }
}
