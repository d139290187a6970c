//! The live `/metrics` endpoint (`--metrics-listen`) against a real
//! Prometheus (Debian's `prometheus`, started on loopback by the harness):
//! it scrapes a run, and its answers equal qpslab's own figures — the
//! query counts exactly, the p99 from the latency histogram within one
//! bucket; the page passes `promtool check metrics` but for the names
//! mysqld_exporter itself gives, and the server's metrics carry
//! mysqld_exporter's names and types. Without Prometheus the test fails
//! with the reason.

mod common;
use common::prometheus::{free_port, Prometheus};
use common::{json, lab, outcome};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Latency buckets of the exposition, seconds (report/metric_families.rs).
const BUCKETS_S: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Which bucket a latency (seconds) falls in.
fn bucket(s: f64) -> usize {
    BUCKETS_S
        .iter()
        .position(|le| s <= *le)
        .unwrap_or(BUCKETS_S.len())
}

/// A scratch store path, removed on drop.
struct Scratch(std::path::PathBuf);

impl Scratch {
    /// An empty scratch folder named by `tag` and this process, and the
    /// path of a results store in it.
    fn store(tag: &str) -> (Scratch, String) {
        let s = Scratch(std::env::temp_dir().join(format!("qpslab-{tag}-{}", std::process::id())));
        let _ = std::fs::remove_dir_all(&s.0);
        std::fs::create_dir_all(&s.0).unwrap();
        let store = s.0.join("r.db").display().to_string();
        (s, store)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn prometheus_scrapes_a_run_and_its_answers_equal_qpslab_s_own() {
    scraped_run_matches(false);
}

#[test]
fn with_native_histograms_the_p99_is_within_a_native_bucket() {
    scraped_run_matches(true);
}

/// A run scraped by a Prometheus (with native histograms when `native`:
/// it then takes the protobuf format) gives qpslab's own figures back.
fn scraped_run_matches(native: bool) {
    let l = lab();
    let db = l.prepared_db(if native { "promdbn" } else { "promdb" }, 1000);
    let (_scratch, store) = Scratch::store("prom-store");
    let port = free_port();
    let target = format!("127.0.0.1:{port}");
    let prom = Prometheus::start_with(std::slice::from_ref(&target), native);
    // the run waits (--metrics-linger) for a scrape of its final figures
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_read_only",
            "--table-size",
            "1000",
            "--time",
            "3",
            "--threads",
            "2",
            "--format",
            "json",
            "--store",
            &store,
            "--metrics-listen",
            &target,
            "--metrics-linger",
            "60",
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("no scrape read the final figures"),
        "Prometheus never scraped the final figures: {err}\n{}",
        prom.log()
    );
    let doc = json(&o);
    let id = doc["run_id"].as_i64().expect("run_id");
    let totals = &doc["totals"];
    let sel = format!("run_id=\"{id}\"");
    // the final scrape is ingested a moment after it was served; the
    // figures are read at its time (the target is stale a scrape later)
    let reads_q = format!("qpslab_queries_total{{{sel},kind=\"read\"}}");
    let want_reads = totals["reads"].as_f64().unwrap();
    let mut at = None;
    common::await_cond(
        Duration::from_secs(30),
        "the final scrape in Prometheus",
        || {
            at = prom.last_time_of(&reads_q, want_reads);
            at.is_some()
        },
    );
    // a native histogram's count and quantile come from the histogram
    // itself; a classic one's from its _count and _bucket series
    let statements = if native {
        format!("sum(histogram_count(qpslab_statement_latency_seconds{{{sel}}}))")
    } else {
        format!("sum(qpslab_statement_latency_seconds_count{{{sel}}})")
    };
    for (q, key) in [
        (
            format!("qpslab_queries_total{{{sel},kind=\"other\"}}"),
            "other",
        ),
        (
            format!("qpslab_transactions_total{{{sel}}}"),
            "transactions",
        ),
        (statements, "queries"),
    ] {
        assert_eq!(
            prom.value_at(&q, at),
            totals[key].as_f64(),
            "{q} vs totals.{key}"
        );
    }
    let own_p99 = totals["latency_ms"]["p99"].as_f64().unwrap() / 1000.0;
    if native {
        let q = format!("histogram_quantile(0.99, sum(qpslab_event_latency_seconds{{{sel}}}))");
        let prom_p99 = prom.value_at(&q, at).expect("p99 from Prometheus");
        // schema 3: a bucket is 2^(1/8) wide; HDR's value is its own
        // bucket's top, so the two may sit one native bucket apart
        let width = 2f64.powf(1.0 / 8.0);
        assert!(
            prom_p99 <= own_p99 * width * width && prom_p99 >= own_p99 / (width * width),
            "p99: Prometheus {prom_p99} s, qpslab {own_p99} s: more than a native bucket apart"
        );
    } else {
        let q = format!(
            "histogram_quantile(0.99, sum by (le) (qpslab_event_latency_seconds_bucket{{{sel}}}))"
        );
        let prom_p99 = prom.value_at(&q, at).expect("p99 from Prometheus");
        assert!(
            bucket(prom_p99).abs_diff(bucket(own_p99)) <= 1,
            "p99: Prometheus {prom_p99} s, qpslab {own_p99} s: more than one bucket apart"
        );
    }
    assert_eq!(
        prom.value_at(&format!("qpslab_run_ended{{{sel}}}"), at),
        Some(1.0),
        "the last scrape saw the run's end"
    );
    // the server under mysqld_exporter's names, with its types
    let typed = |name: &str| {
        let r = prom.query_at(&format!("{name}{{{sel}}}"), at);
        assert!(!r.is_empty(), "{name}: no series in Prometheus");
    };
    for name in [
        "mysql_up",
        "mysql_global_status_commands_total",
        "mysql_global_status_handlers_total",
        "mysql_global_status_buffer_pool_pages",
        "mysql_global_status_threads_connected",
        "mysql_global_variables_max_connections",
        "qpslab_server_process_cpu_seconds_total",
    ] {
        typed(name);
    }
}

#[test]
fn the_metrics_page_speaks_both_formats_and_passes_promtool() {
    let l = lab();
    let db = l.prepared_db("promdb2", 1000);
    let port = free_port();
    let target = format!("127.0.0.1:{port}");
    let mut child = l
        .command()
        .args([
            "run",
            "oltp_point_select",
            "--db",
            &db,
            "--server",
            common::SANDBOX,
            "--table-size",
            "1000",
            "--time",
            "60",
            "--threads",
            "1",
            "--metrics-listen",
            &target,
            "--metrics-linger",
            "0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("qpslab run");
    let url = format!("http://{target}/metrics");
    let get = |accept: &str| -> Option<(String, String)> {
        let mut r = ureq::get(&url).header("Accept", accept).call().ok()?;
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        Some((ct, r.body_mut().read_to_string().ok()?))
    };
    let mut page = None;
    common::await_cond(
        Duration::from_secs(60),
        "a page with the status counters",
        || {
            page = get("text/plain").filter(|(_, b)| {
                b.contains("mysql_global_status_commands_total")
                    && b.contains("qpslab_queries_total")
            });
            page.is_some()
        },
    );
    let (ct, text) = page.unwrap();
    let (om_ct, om) = get("application/openmetrics-text; version=1.0.0,text/plain;q=0.5")
        .expect("an OpenMetrics page");
    let _ = child.kill();
    let _ = child.wait();
    assert!(ct.starts_with("text/plain; version=0.0.4"), "{ct}");
    assert!(om_ct.starts_with("application/openmetrics-text"), "{om_ct}");
    assert!(om.ends_with("# EOF\n") && !text.contains("# EOF"));
    assert!(text.contains("# TYPE qpslab_queries_total counter"));
    assert!(om.contains("# TYPE qpslab_queries counter"));
    for (name, kind) in [
        ("mysql_global_status_commands_total", "counter"),
        ("mysql_global_status_handlers_total", "counter"),
        ("mysql_global_status_buffer_pool_pages", "gauge"),
        ("mysql_global_status_threads_connected", "untyped"),
        ("mysql_global_variables_max_connections", "gauge"),
        ("qpslab_event_latency_seconds", "histogram"),
    ] {
        assert!(
            text.contains(&format!("# TYPE {name} {kind}\n")),
            "{name} is not a {kind}"
        );
    }
    assert!(
        !text.contains("_p99") && !text.contains("quantile="),
        "no percentile gauges"
    );
    let mut lint = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run promtool (apt-get install prometheus): {e}"));
    lint.stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = lint.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // mysqld_exporter's own names for some variables (…_count, …_days)
    // do not follow Prometheus' naming advice; everything else must
    let ours: Vec<&str> = said
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("mysql_global_variables_"))
        .collect();
    assert!(ours.is_empty(), "promtool check metrics: {ours:?}");
}

#[test]
fn remote_write_delivers_the_run_s_series_to_prometheus() {
    remote_write_delivers(false);
}

#[test]
fn remote_write_delivers_native_histograms_to_a_prometheus_that_takes_them() {
    remote_write_delivers(true);
}

/// A run pushes to a Prometheus (native histograms on when `native`; a
/// receiver without them keeps the classic buckets of the same pushes).
fn remote_write_delivers(native: bool) {
    let l = lab();
    let db = l.prepared_db(if native { "promdb3n" } else { "promdb3" }, 1000);
    // a Prometheus that scrapes nothing: what it holds came by remote write
    let prom = Prometheus::start_with(&[], native);
    let url = format!("{}/api/v1/write", prom.url);
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_point_select",
            "--table-size",
            "1000",
            "--time",
            "2",
            "--threads",
            "2",
            "--format",
            "json",
            "--no-store",
            "--remote-write",
            &url,
            "--remote-write-header",
            "X-Scope-OrgID=qpslab-test",
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("dropped"), "{err}\n{}", prom.log());
    let doc = json(&o);
    let reads = doc["totals"]["reads"].as_f64().unwrap();
    let q = "qpslab_queries_total{workload=\"oltp_point_select\",kind=\"read\"}";
    common::await_cond(Duration::from_secs(30), "the pushed final figures", || {
        prom.value(q) == Some(reads)
    });
    assert!(
        !prom
            .query("mysql_global_status_commands_total{command=\"select\"}")
            .is_empty(),
        "the server's series came too"
    );
    let events = doc["totals"]["transactions"].as_f64();
    let sel = "{workload=\"oltp_point_select\"}";
    assert_eq!(
        prom.value(&format!("sum(qpslab_event_latency_seconds_count{sel})")),
        events,
        "the classic histogram"
    );
    let native_count = prom.value(&format!(
        "sum(histogram_count(qpslab_event_latency_seconds{sel}))"
    ));
    if native {
        assert_eq!(native_count, events, "the native histogram");
        let p99 = prom.value(&format!(
            "histogram_quantile(0.99, sum(qpslab_event_latency_seconds{sel}))"
        ));
        assert!(p99.is_some_and(|v| v > 0.0), "a native p99: {p99:?}");
    } else {
        assert_eq!(
            native_count, None,
            "no native histogram without the feature"
        );
    }
}

#[test]
fn the_ui_serves_the_last_finished_run_s_metrics() {
    let l = lab();
    let db = l.prepared_db("promdbui", 1000);
    let (_scratch, store) = Scratch::store("prom-ui");
    let o = l.on_db(
        &db,
        &[
            "run",
            "oltp_point_select",
            "--table-size",
            "1000",
            "--time",
            "2",
            "--threads",
            "2",
            "--format",
            "json",
            "--store",
            &store,
        ],
    );
    assert!(o.status.success(), "{}", outcome(&o));
    let doc = json(&o);
    let id = doc["run_id"].as_i64().expect("run_id");
    let (ui_port, metrics_port) = (free_port(), free_port());
    let metrics = format!("127.0.0.1:{metrics_port}");
    let mut ui = l
        .command()
        .args(["ui", "--store", &store, "--port", &ui_port.to_string()])
        .args(["--metrics-listen", &metrics])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("qpslab ui");
    let url = format!("http://{metrics}/metrics");
    let mut page = None;
    common::await_cond(Duration::from_secs(30), "the UI's /metrics page", || {
        page = ureq::get(&url)
            .call()
            .ok()
            .and_then(|mut r| r.body_mut().read_to_string().ok());
        page.is_some()
    });
    let _ = ui.kill();
    let _ = ui.wait();
    let page = page.unwrap();
    // one series of a family with the run's labels: its value
    let value = |series: &str| -> Option<f64> {
        page.lines()
            .find(|l| l.starts_with(series) && l.contains(&format!("run_id=\"{id}\"")))
            .and_then(|l| l.rsplit(' ').next()?.parse().ok())
    };
    let totals = &doc["totals"];
    assert_eq!(
        value("qpslab_transactions_total{"),
        totals["transactions"].as_f64(),
        "{page}"
    );
    assert_eq!(
        value("qpslab_event_latency_seconds_count{"),
        totals["transactions"].as_f64(),
        "the run's latency histogram"
    );
    assert_eq!(value("qpslab_run_ended{"), Some(1.0));
    assert!(
        value("mysql_global_status_commands_total{").is_some(),
        "the monitor's last poll of the server: {page}"
    );
}

#[test]
fn two_runs_summed_in_promql_give_the_merged_hdr_p99() {
    let l = lab();
    let db = l.prepared_db("promdbm", 1000);
    let (_scratch, store) = Scratch::store("prom-merge");
    let targets: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let prom = Prometheus::start(&targets);
    // two runs at once, of different sizes, each waiting for a scrape of
    // its final figures
    let runs: Vec<_> = targets
        .iter()
        .zip(["1", "3"])
        .map(|(target, threads)| {
            l.command()
                .args([
                    "run",
                    "oltp_read_only",
                    "--db",
                    &db,
                    "--server",
                    common::SANDBOX,
                ])
                .args(["--table-size", "1000", "--time", "3", "--threads", threads])
                .args(["--format", "json", "--store", &store])
                .args(["--metrics-listen", target, "--metrics-linger", "60"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("qpslab run")
        })
        .collect();
    let mut ids = Vec::new();
    let mut at: f64 = 0.0;
    for child in runs {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", outcome(&o));
        let doc = json(&o);
        let id = doc["run_id"].as_i64().expect("run_id");
        let q = format!("qpslab_transactions_total{{run_id=\"{id}\"}}");
        let want = doc["totals"]["transactions"].as_f64().unwrap();
        let mut t = None;
        common::await_cond(
            Duration::from_secs(30),
            "a run's final scrape in Prometheus",
            || {
                t = prom.last_time_of(&q, want);
                t.is_some()
            },
        );
        at = at.max(t.unwrap());
        ids.push(id);
    }
    // the merged HDR histogram of the two stored runs
    let st = qpslab::lab::read_store(Some(std::path::Path::new(&store))).unwrap();
    let mut merged = qpslab::stats::Hist::new();
    for id in &ids {
        let bytes = st
            .run_detail(*id)
            .unwrap()
            .unwrap()
            .histogram
            .expect("histogram");
        merged.merge(&qpslab::stats::Hist::from_v2_bytes(&bytes).unwrap());
    }
    let own_p99 = merged.quantile_ms(0.99) / 1000.0;
    // a run that ended first is stale by then: its last values count
    let q = format!(
        "histogram_quantile(0.99, sum by (le) (last_over_time(qpslab_event_latency_seconds_bucket{{run_id=~\"{}|{}\"}}[10m])))",
        ids[0], ids[1]
    );
    let prom_p99 = prom
        .value_at(&q, Some(at))
        .expect("merged p99 from Prometheus");
    assert!(
        bucket(prom_p99).abs_diff(bucket(own_p99)) <= 1,
        "merged p99: Prometheus {prom_p99} s, qpslab's merged histogram {own_p99} s: more than one bucket apart"
    );
}
