//! sysbench 1.0-style output: the per-interval line and the final summary,
//! followed by qpslab's extra sections.

use super::{error_name, CLIENT_SHARE_WARNING};
use crate::stats::pct_label;
use crate::stats::{Interval, RunResult, RunStatus, Sample};
use crate::workload::family::ReportStat;
use std::fmt::Write;

/// The percentile shown in interval lines: 95 when asked for, else the first.
pub fn line_percentile(pcts: &[f64]) -> f64 {
    if pcts.contains(&95.0) {
        95.0
    } else {
        pcts.first().copied().unwrap_or(95.0)
    }
}

/// An interval (or the run's total) as a family's report hook takes it:
/// `dur` seconds ending `t` seconds into the measurement.
pub fn report_stat(iv: &Interval, dur: f64, t: f64, threads: u32, pct: f64) -> ReportStat {
    ReportStat {
        time_interval: dur,
        time_total: t,
        threads_running: threads,
        events: iv.events,
        reads: iv.reads,
        writes: iv.writes,
        other: iv.others,
        errors: iv.errors.total(),
        reconnects: iv.reconnects,
        latency_pct_s: iv.hist.quantile_ms(pct / 100.0) / 1000.0,
        latency_min_s: iv.hist.min_ms() / 1000.0,
        latency_avg_s: iv.hist.mean_ms() / 1000.0,
        latency_max_s: iv.hist.max_ms() / 1000.0,
        latency_sum_s: iv.hist.mean_ms() * iv.hist.count() as f64 / 1000.0,
    }
}

/// One interval line in sysbench's wording (`[ 10s ] thds: ...`): rates per
/// second over the sample, latency at percentile `pct` in ms; `rate_mode` (a
/// fixed-rate run) adds the backlog and the arrival lag.
pub fn interval_line(s: &Sample, threads: u32, pct: f64, rate_mode: bool, tpcc: bool) -> String {
    let d = s.dur.max(1e-9);
    let iv = &s.iv;
    let t = s.t;
    // Whole seconds when the sample ends within 50 ms of one (the last
    // interval ends a few ms late: "[ 10s ]", not "[ 10.0s ]").
    let when = if (t - t.round()).abs() < 0.05 {
        format!("{}s", t.round() as i64)
    } else {
        format!("{t:.1}s")
    };
    let mut line = sql_rates(&when, iv, d, threads, pct);
    line.push_str(&super::tpcc_text::interval_suffix(iv, d, tpcc));
    if rate_mode {
        let _ = write!(line, " backlog: {}", iv.backlog);
        if let Some(l) = iv.lag_p99_ms() {
            let _ = write!(line, " lag p99: {l:.3}");
            if iv.generator_late() {
                line.push_str(" (generator late)");
            }
        }
    }
    if iv.failed + iv.failed_connects > 0 {
        let _ = write!(
            line,
            " failed: {} conn-failed: {}",
            iv.failed, iv.failed_connects
        );
    }
    if s.warmup {
        line.push_str(" (warm-up)");
    }
    line
}

/// Rate mode's lines on the generator's own lateness: how late the
/// connections woke for their arrivals (kept out of the latency above),
/// and the intervals where it exceeded the events' latency.
fn schedule_lag(lag: &crate::stats::Hist, r: &RunResult, pcts: &[f64]) -> String {
    let mut o = String::from(
        "\nSchedule lag (ms; how late connections woke for their arrivals, not in the latency above):\n   ",
    );
    for p in pcts {
        let _ = write!(o, " p{}: {:.3}", pct_label(*p), lag.quantile_ms(p / 100.0));
    }
    let _ = writeln!(o, " max: {:.3}", lag.max_ms());
    let measured: Vec<&Sample> = r.samples.iter().filter(|s| !s.warmup).collect();
    let late = measured.iter().filter(|s| s.iv.generator_late()).count();
    if late > 0 {
        let _ = writeln!(
            o,
            "    the generator was late in {late} of {} intervals (its lag p99 above the events' p95): those intervals' rate and latency say more about the client than the server",
            measured.len()
        );
    }
    o
}

/// One line of sysbench 1.0.20's statistics: the label padded to 41
/// columns, then the value.
fn label_value(o: &mut String, label: &str, v: String) {
    let _ = writeln!(o, "{label:<41}{v}");
}

/// The final summary, sysbench's sections first.
pub fn summary(r: &RunResult, pcts: &[f64], histogram: bool) -> String {
    let mut o = String::new();
    let part = Part::of(r);
    sql_statistics(&mut o, &part);
    general_and_latency(&mut o, &part, pcts);
    connection_spread(&mut o, r);
    additions(&mut o, r, pcts);
    load_generator(&mut o, r);
    if histogram {
        latency_histogram(&mut o, r);
    }
    status_line(&mut o, r);
    o
}

/// sysbench's SQL statistics: queries by kind, transactions, errors,
/// reconnects (and failures when there were any).
fn sql_statistics(o: &mut String, r: &Part) {
    let t = r.total;
    let secs = r.secs;
    let w = label_value;
    o.push_str("SQL statistics:\n    queries performed:\n");
    w(o, "        read:", t.reads.to_string());
    w(o, "        write:", t.writes.to_string());
    w(o, "        other:", t.others.to_string());
    w(o, "        total:", t.queries().to_string());
    w(
        o,
        "    transactions:",
        format!("{:<6} ({:.2} per sec.)", t.events, t.tps(secs)),
    );
    w(
        o,
        "    queries:",
        format!("{:<6} ({:.2} per sec.)", t.queries(), t.qps(secs)),
    );
    w(
        o,
        "    ignored errors:",
        format!(
            "{:<6} ({:.2} per sec.)",
            t.ignored_errors(),
            t.ignored_errors() as f64 / secs
        ),
    );
    w(
        o,
        "    reconnects:",
        format!(
            "{:<6} ({:.2} per sec.)",
            t.reconnects,
            t.reconnects as f64 / secs
        ),
    );
    if t.failed + t.failed_connects > 0 || r.unreachable_s > 0.0 {
        w(
            o,
            "    failed events:",
            format!("{:<6} ({:.2} per sec.)", t.failed, t.failed as f64 / secs),
        );
        w(
            o,
            "    failed reconnect attempts:",
            t.failed_connects.to_string(),
        );
        w(
            o,
            "    server unreachable:",
            format!("{:.1}s", r.unreachable_s),
        );
    }
}

/// sysbench's general statistics, latency and threads fairness.
fn general_and_latency(o: &mut String, r: &Part, pcts: &[f64]) {
    let t = r.total;
    o.push_str("\nGeneral statistics:\n");
    let secs = r.elapsed;
    let w = label_value;
    w(o, "    total time:", format!("{secs:.4}s"));
    w(o, "    total number of events:", t.events.to_string());
    o.push_str("\nLatency (ms):\n");
    // sysbench 1.0.20's layout: the values end in column 53.
    let lw = |o: &mut String, label: &str, v: f64| {
        let label = format!("         {label}");
        let _ = writeln!(
            o,
            "{label}{v:>w$.2}",
            w = 53usize.saturating_sub(label.len())
        );
    };
    lw(o, "min:", t.hist.min_ms());
    lw(o, "avg:", t.hist.mean_ms());
    lw(o, "max:", t.hist.max_ms());
    let lp = line_percentile(pcts);
    if lp > 0.0 {
        lw(
            o,
            &format!("{}th percentile:", pct_label(lp)),
            t.hist.quantile_ms(lp / 100.0),
        );
    }
    lw(o, "sum:", t.hist.mean_ms() * t.hist.count() as f64);
    o.push_str("\nThreads fairness:\n");
    match r.fairness {
        Fairness::PerConnection(events, time) => {
            let ev: Vec<f64> = events.iter().map(|&e| e as f64).collect();
            let (em, esd) = crate::stats::mean_stddev(&ev);
            let (tm, tsd) = crate::stats::mean_stddev(time);
            let _ = writeln!(o, "    events (avg/stddev):           {em:.4}/{esd:.2}");
            let _ = writeln!(o, "    execution time (avg/stddev):   {tm:.4}/{tsd:.2}");
        }
        Fairness::MeanOf(n) => {
            // (part of a run: its connections' own counts are not kept
            // per part, so their spread is not known)
            let n = f64::from(n.max(1));
            let em = t.events as f64 / n;
            let tm = t.hist.mean_ms() * t.hist.count() as f64 / 1000.0 / n;
            let sd = if n == 1.0 { "0.00" } else { "n/a" };
            let _ = writeln!(o, "    events (avg/stddev):           {em:.4}/{sd}");
            let _ = writeln!(o, "    execution time (avg/stddev):   {tm:.4}/{sd}");
        }
    }
}

/// What sysbench's SQL, general and latency blocks read: the run's
/// totals, or (`--report-checkpoints`) the part of the run since the last
/// checkpoint report.
pub struct Part<'a> {
    /// What the part counted.
    pub total: &'a Interval,
    /// Seconds since the run's start, printed as its total time.
    pub elapsed: f64,
    /// The part's own seconds, which its per-second rates are over.
    pub secs: f64,
    /// Seconds no connection could reach the server.
    pub unreachable_s: f64,
    /// How the connections shared its events.
    pub fairness: Fairness<'a>,
}

/// The threads-fairness block's source.
pub enum Fairness<'a> {
    /// Each connection's events and busy seconds (a whole run's, or a
    /// one-connection part's).
    PerConnection(&'a [u64], &'a [f64]),
    /// Only the part's totals over this many connections: the means are
    /// printed, the spread as n/a (0 for one connection).
    MeanOf(u32),
}

impl<'a> Part<'a> {
    /// A whole run.
    pub fn of(r: &'a RunResult) -> Part<'a> {
        Part {
            total: &r.total,
            elapsed: r.elapsed,
            secs: r.elapsed,
            unreachable_s: r.unreachable_s,
            fairness: Fairness::PerConnection(&r.thread_events, &r.thread_time),
        }
    }
}

/// sysbench's checkpoint report (`--report-checkpoints`): at `at_s`
/// seconds, the SQL, general and latency blocks of the part of the run
/// since the last one.
pub fn sysbench_checkpoint(at_s: u64, part: &Part, pct: f64, sql: bool) -> String {
    let mut o = format!("[ {at_s}s ] Checkpoint report:\n");
    if sql {
        sql_statistics(&mut o, part);
    }
    general_and_latency(&mut o, part, &[pct]);
    o.push('\n');
    o
}

/// qpslab's addition to sysbench's threads fairness: the spread of
/// events per connection (sysbench mode prints sysbench's block alone).
fn connection_spread(o: &mut String, r: &RunResult) {
    if let Some(s) = crate::stats::document::EventSpread::of(&r.thread_events) {
        let _ = writeln!(
            o,
            "    events per connection:         min {} / median {} / max {}, stddev {:.1} ({:.1}% of the mean)",
            s.min,
            s.median,
            s.max,
            s.stddev,
            s.stddev_over_mean * 100.0
        );
    }
}

/// qpslab's additions: percentiles, schedule lag, latency by statement,
/// TPC-C's block, errors by code, text fallbacks, stability.
fn additions(o: &mut String, r: &RunResult, pcts: &[f64]) {
    let t = &r.total;
    // qpslab's additions.
    o.push_str("\nLatency percentiles (ms):\n   ");
    for p in pcts {
        let _ = write!(
            o,
            " p{}: {:.3}",
            pct_label(*p),
            t.hist.quantile_ms(p / 100.0)
        );
    }
    let _ = writeln!(o, " max: {:.3}", t.hist.max_ms());
    if let Some(lag) = &t.lag {
        o.push_str(&schedule_lag(lag, r, pcts));
    }
    if !r.kinds.is_empty() {
        o.push_str("\nLatency by statement (ms):\n");
        let _ = writeln!(
            o,
            "    {:<18} {:>10} {:>9} {:>9} {:>9} {:>9}",
            "statement", "count", "avg", "p95", "p99", "max"
        );
        for k in &r.kinds {
            let _ = writeln!(
                o,
                "    {:<18} {:>10} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
                k.name,
                k.count,
                k.hist.mean_ms(),
                k.hist.quantile_ms(0.95),
                k.hist.quantile_ms(0.99),
                k.hist.max_ms()
            );
        }
    }
    o.push_str(&super::tpcc_text::block(r, pcts));
    if t.errors.total() > 0 {
        o.push_str(
            "\nErrors by code (ignored ones retry the event; a lost connection fails it):\n",
        );
        for (c, n) in &t.errors.0 {
            let _ = writeln!(o, "    {c:<6} {:<36} {n}", error_name(*c));
        }
    }
    if r.text_fallbacks > 0 {
        let _ = writeln!(o, "\nNote: {} statement preparations fell back to the text protocol: the server refused them (max_prepared_stmt_count reached, or a statement it cannot prepare, e.g. BEGIN on MySQL 5.5)", r.text_fallbacks);
    }
    if let Some(st) = crate::analyze::stability::of_run(r) {
        let _ = writeln!(
            o,
            "\nStability over {} intervals: CoV {:.1}%, trend {:+.1}% across the run, {} outlier interval(s){}",
            st.intervals,
            st.cov * 100.0,
            st.trend * 100.0,
            st.outliers,
            st.flag.as_deref().map(|f| format!(" -- {f}")).unwrap_or_default()
        );
        if let Some(a) = &st.advice {
            let _ = writeln!(o, "Note: {a}");
        }
    }
}

/// The load generator's section: threads, I/O, CPU per query, share of
/// the host.
fn load_generator(o: &mut String, r: &RunResult) {
    let t = &r.total;
    let share = if r.host_cpu_s > 0.0 {
        r.client_cpu_s / r.host_cpu_s
    } else {
        0.0
    };
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    o.push_str("\nLoad generator:\n");
    let all = r.thread_events.len();
    let direct = match r.direct_ring_connections {
        0 => "direct send/poll/receive",
        n if n == r.direct_connections => "direct io_uring send+receive",
        _ => "direct send/poll/receive (some on io_uring)",
    };
    let io = match (r.direct_connections, r.uring_connections) {
        (0, 0) => "epoll".to_string(),
        (0, n) if n == all => "io_uring".to_string(),
        (n, 0) if n == all => direct.to_string(),
        (0, n) => format!(
            "io_uring for {}, epoll for the rest",
            crate::out::counted(n, "connection")
        ),
        (n, 0) => format!(
            "{direct} for {}, epoll for the rest",
            crate::out::counted(n, "connection")
        ),
        (d, u) => format!(
            "{direct} for {}, io_uring for {u}, epoll for the rest",
            crate::out::counted(d, "connection")
        ),
    };
    let pinned = if r.client_cpus.is_empty() {
        String::new()
    } else {
        format!("; on CPUs {}", crate::stats::cpu_list_text(&r.client_cpus))
    };
    let _ = writeln!(
        o,
        "    client threads:                {} ({}; {io}{pinned})",
        r.client_shards,
        if r.client_sched_batch {
            "SCHED_BATCH"
        } else {
            "normal scheduling"
        }
    );
    if r.metadata_off_connections > 0 {
        let _ = writeln!(
            o,
            "    result metadata:               not sent by the server on {} of {all} connections (resultset_metadata = NONE; sysbench's client gets it every time)",
            r.metadata_off_connections
        );
    }
    if t.queries() > 0 {
        let _ = writeln!(
            o,
            "    load CPU per query:            {:.2} us ({:.2} s CPU in the load threads for {} queries)",
            r.load_us_per_query(),
            t.load_cpu_s,
            t.queries()
        );
    } else {
        let _ = writeln!(
            o,
            "    load CPU per query:            - (no query completed; {:.2} s CPU in the load threads)",
            t.load_cpu_s
        );
    }
    let _ = writeln!(
        o,
        "    tool overhead:                 {:.1} CPU-ms/s (monitor, store, profiler: qpslab outside the load threads)",
        r.tool_cpu_ms_per_s()
    );
    let _ = writeln!(
        o,
        "    qpslab process CPU per query:  {:.2} us ({:.2} s, load and tool overhead together)",
        r.client_us_per_query(),
        r.client_cpu_s
    );
    let _ = writeln!(
        o,
        "    share of host CPU:             {:.1}% (host busy {:.1}%, {cores} CPUs)",
        share * 100.0,
        r.host_busy * 100.0
    );
    if share > CLIENT_SHARE_WARNING {
        let _ = writeln!(
            o,
            "WARNING: qpslab used {:.0}% of the host's CPU (over {:.0}%): the load generator may be the bottleneck",
            share * 100.0,
            CLIENT_SHARE_WARNING * 100.0
        );
    }
}

/// sysbench's latency histogram.
fn latency_histogram(o: &mut String, r: &RunResult) {
    let t = &r.total;
    o.push_str("\nLatency histogram (values are in milliseconds)\n       value  ------------- distribution ------------- count\n");
    let b = t.hist.buckets();
    let maxc = b.iter().map(|x| x.1).max().unwrap_or(1).max(1);
    for (v, c) in b {
        let bar = "*".repeat(((c as f64 / maxc as f64) * 40.0).ceil() as usize);
        let _ = writeln!(o, "{v:>12.3} |{bar:<40} {c}");
    }
}

/// How the run ended, when not ok.
fn status_line(o: &mut String, r: &RunResult) {
    match &r.status {
        RunStatus::Ok => {}
        RunStatus::Failed(m) => {
            // Whole in the store; printed inert and bounded, line by line.
            let m: Vec<String> = m
                .lines()
                .take(crate::out::MAX_LINES)
                .map(|l| crate::out::inert_line(l, crate::out::MAX_LINE))
                .collect();
            let _ = writeln!(
                o,
                "\nFAILED: {}\n(the figures above cover what ran before the failure)",
                m.join("\n")
            );
        }
        RunStatus::Aborted(m) => {
            let _ = writeln!(
                o,
                "\nABORTED: {m}\n(the figures above cover what ran before the stop)"
            );
        }
        RunStatus::Degraded(m) => {
            let _ = writeln!(
                o,
                "\nDEGRADED: {m}\n(failed events are not counted as transactions or in the latencies)"
            );
        }
    }
}

/// The load's shape as the header before a run shows it.
pub struct RunHeader {
    /// Client connections.
    pub threads: u32,
    /// Target events per second (0: as fast as it goes).
    pub rate: f64,
    /// Seconds of interval lines (0: none).
    pub report_interval: f64,
    /// Seconds run before counting starts.
    pub warmup: f64,
    /// The random generator's seed.
    pub seed: u64,
}

/// sysbench's lines before a run: version, threads, rate, intervals, seed.
pub fn run_header(cfg: &RunHeader) -> String {
    let report_interval = cfg.report_interval;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "qpslab {} ({})\n",
        env!("CARGO_PKG_VERSION"),
        env!("QPSLAB_GIT_HASH")
    );
    let _ = writeln!(o, "Running the test with following options:");
    let _ = writeln!(o, "Number of threads: {}", cfg.threads);
    if cfg.rate > 0.0 {
        let _ = writeln!(o, "Target transaction rate: {}/sec", cfg.rate);
    }
    if report_interval > 0.0 {
        let _ = writeln!(
            o,
            "Report intermediate results every {} second(s)",
            report_interval
        );
    }
    if cfg.warmup > 0.0 {
        let _ = writeln!(o, "Warm-up: {} second(s), not counted", cfg.warmup);
    }
    let _ = writeln!(
        o,
        "Initializing random number generator from seed ({}).\n\n",
        cfg.seed
    );
    let _ = writeln!(o, "Initializing worker threads...\n\nThreads started!\n");
    o
}

/// `qpslab workloads`: each workload with the statements of one event.
pub fn workloads_text() -> String {
    use crate::workload::{Kind, OltpOpts, Workload, ALL};
    let opts = OltpOpts {
        tables: 1,
        ..Default::default()
    };
    let mut o = String::new();
    for w in ALL {
        let _ = writeln!(o, "{:<24} {}", w.name(), w.description());
        for (kind, n) in w.groups(&opts) {
            let sql = kind
                .sql(1, w.arity(kind, &opts))
                .replace("sbtest1", "sbtestN");
            let _ = writeln!(o, "    {n} x {sql}");
            if kind == Kind::Delete && w != Workload::Delete {
                let insert = Kind::Insert.sql(1, 0).replace("sbtest1", "sbtestN");
                let _ = writeln!(o, "    {n} x {insert}");
            }
        }
    }
    let _ = writeln!(
        o,
        "{:<24} TPC-C's five transactions (45/43/4/4/4), terminals on home warehouses; NOPM (docs/TPCC.md)",
        "tpcc"
    );
    let _ = writeln!(
        o,
        "\nOptions follow sysbench's names; see `qpslab run --help` (and `qpslab run tpcc --help`)."
    );
    o
}

/// What `run` prints after the load: sysbench's summary, the monitor's
/// figures, and the run's id when it is stored.
pub fn run_end(
    r: &RunResult,
    figures: Option<&crate::analyze::run_figures::MonitorFigures>,
    run_id: Option<i64>,
    (pcts, histogram): (&[f64], bool),
) -> String {
    let mut o = format!("\n{}", summary(r, pcts, histogram));
    if let Some(f) = figures {
        o += &super::monitor::run_text(f);
    }
    if let Some(id) = run_id {
        o += &format!("\nStored as run {id} (qpslab show {id}).\n");
    }
    o
}

/// What `prepare` says at the end: a line, or a JSON object with `json`.
pub fn prepared(rep: &crate::workload::PrepareReport, table_size: u32, json: bool) -> String {
    if json {
        return serde_json::json!({"tables": rep.tables, "rows": rep.rows, "seconds": rep.seconds,
            "load_via": rep.load_via(), "pipe_note": rep.pipe_note})
        .to_string();
    }
    format!(
        "prepared {} tables x {} rows in {:.2} s ({:.0} rows/s, {})",
        rep.tables,
        table_size,
        rep.seconds,
        rep.rows as f64 / rep.seconds.max(1e-9),
        super::load_route(rep)
    )
}

/// sysbench mode: the option echo before a database test's threads
/// start, at verbosity `v`, up to "Initializing worker threads...".
pub fn sysbench_header(v: u32, echo: &super::host_text::Echo) -> String {
    use super::host_text::{options_echo, Lines};
    let mut l = Lines::new(v);
    l.notice("Initializing worker threads...\n");
    options_echo(v, echo, &[]) + &l.text()
}

/// sysbench mode: an interval line exactly as sysbench 1.0.20 prints it.
/// `sql`: the run used the SQL driver (else sysbench says events/s only).
pub fn sysbench_interval_line(s: &Sample, threads: u32, pct: f64, sql: bool) -> String {
    let d = s.dur.max(1e-9);
    let iv = &s.iv;
    let when = format!("{}s", s.t.round() as i64);
    if !sql {
        let lat = if pct > 0.0 {
            iv.hist.quantile_ms(pct / 100.0)
        } else {
            0.0
        };
        return format!(
            "[ {when} ] thds: {threads} eps: {:.2} lat (ms,{}%): {lat:.2}",
            iv.tps(d),
            pct_label(pct)
        );
    }
    sql_rates(&when, iv, d, threads, pct)
}

/// sysbench's interval line of a SQL run, `d` seconds long: rates per
/// second, the latency at `pct` (0: none) in ms.
fn sql_rates(when: &str, iv: &Interval, d: f64, threads: u32, pct: f64) -> String {
    format!(
        "[ {when} ] thds: {threads} tps: {:.2} qps: {:.2} (r/w/o: {:.2}/{:.2}/{:.2}) lat (ms,{}%): {:.2} err/s: {:.2} reconn/s: {:.2}",
        iv.tps(d),
        iv.qps(d),
        iv.reads as f64 / d,
        iv.writes as f64 / d,
        iv.others as f64 / d,
        pct_label(pct),
        if pct > 0.0 { iv.hist.quantile_ms(pct / 100.0) } else { 0.0 },
        iv.errors.total() as f64 / d,
        iv.reconnects as f64 / d,
    )
}

/// sysbench mode: the summary as sysbench 1.0.20 prints it — its
/// sections only (SQL statistics when the run used the SQL driver, `sql`,
/// followed by the driver's debug statistics with `db_debug`), and its
/// latency histogram with `histogram`.
pub fn sysbench_summary(
    r: &RunResult,
    pct: f64,
    histogram: bool,
    sql: bool,
    db_debug: bool,
) -> String {
    sysbench_summary_of(r, &Part::of(r), pct, histogram, sql, db_debug)
}

/// As `sysbench_summary`, of `part` of run `r` (after checkpoint reports,
/// sysbench's summary covers the time since the last one).
pub fn sysbench_summary_of(
    r: &RunResult,
    part: &Part,
    pct: f64,
    histogram: bool,
    sql: bool,
    db_debug: bool,
) -> String {
    let mut o = String::new();
    if histogram {
        sysbench_histogram(&mut o, &part.total.hist);
    }
    if sql {
        sql_statistics(&mut o, part);
        if db_debug {
            super::sysbench_db_debug::db_debug_statistics(&mut o, r);
        }
    }
    general_and_latency(&mut o, part, &[pct]);
    o.push('\n');
    o
}

/// sysbench's latency histogram: the run's latencies in sysbench's own
/// 1024 buckets (`hostbench::latency`, which the built-in tests record
/// into), drawn as the built-in tests draw theirs.
fn sysbench_histogram(o: &mut String, h: &crate::stats::Hist) {
    use crate::hostbench::latency::{bucket_of, Counts};
    let mut counts = Counts::default();
    for (us, n) in h.recorded() {
        counts.0[bucket_of(us as f64 / 1000.0)] += n;
    }
    o.push_str("Latency histogram (values are in milliseconds)\n");
    o.push_str(&super::host_text::histogram_rows(&counts));
    // (sysbench ends its histogram with a line of one blank)
    o.push_str("\n \n");
}

/// sysbench mode: how sysbench's MySQL driver says a connection failed
/// (two lines, no trailing newline). An I/O error is given as the client
/// library gives it (error 2002 with the system's errno).
pub fn sysbench_connect_failure(
    endpoint: &crate::protocol::Endpoint,
    e: &crate::protocol::ProtoError,
) -> String {
    use crate::protocol::{Endpoint, ProtoError};
    let (on, lost) = match endpoint {
        Endpoint::Unix(p) => (
            format!("socket '{}'", p.display()),
            format!(
                "Can't connect to local server through socket '{}'",
                p.display()
            ),
        ),
        Endpoint::Tcp { host, port } => (
            format!("host '{host}', port {port}"),
            format!("Can't connect to server on '{host}'"),
        ),
    };
    let why = match e {
        ProtoError::Server(se) => format!("error {}: {}", se.code, se.message),
        ProtoError::Io(io) => {
            let mut errno = io.raw_os_error().unwrap_or(0);
            // libmariadb connects over TCP without blocking and reports
            // the connect call's errno, EINPROGRESS (115), whatever the
            // socket's own error (refused, unreachable, timed out) was.
            if matches!(endpoint, Endpoint::Tcp { .. }) && matches!(errno, 101 | 110 | 111 | 113) {
                errno = 115;
            }
            format!("error 2002: {lost} ({errno})")
        }
        other => format!("error 2002: {lost} ({other})"),
    };
    format!("FATAL: unable to connect to MySQL server on {on}, aborting...\nFATAL: {why}")
}
