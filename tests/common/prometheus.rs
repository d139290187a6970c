//! A real Prometheus (Debian's `prometheus` package) for the exposition
//! tests: started on 127.0.0.1 with a data dir of its own, scraping the
//! given targets every second, with the remote-write receiver on (and
//! native histograms when asked: then it scrapes the protobuf format and
//! keeps histograms that have native buckets as native only); stopped and its data dir removed when dropped (also
//! when a test fails). Queries go through its HTTP API.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A port free on 127.0.0.1 now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// A running Prometheus.
pub struct Prometheus {
    child: Child,
    dir: PathBuf,
    /// Its HTTP API's base, `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Prometheus {
    /// Starts one scraping `targets` (`127.0.0.1:PORT`) every second,
    /// classic histograms only.
    pub fn start(targets: &[String]) -> Prometheus {
        Prometheus::start_with(targets, false)
    }

    /// Starts one scraping `targets` every second, with native histograms
    /// on when `native`.
    pub fn start_with(targets: &[String], native: bool) -> Prometheus {
        let dir = std::env::temp_dir().join(format!(
            "qpslab-prom-{}-{}",
            std::process::id(),
            free_port()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("prometheus dir");
        let list = targets
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: qpslab\n    static_configs:\n      - targets: [{list}]\n"
        );
        std::fs::write(dir.join("prometheus.yml"), config).expect("prometheus config");
        let port = free_port();
        let mut cmd = Command::new("prometheus");
        cmd.arg(format!(
            "--config.file={}",
            dir.join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg("--web.enable-remote-write-receiver");
        if native {
            cmd.arg("--enable-feature=native-histograms");
        }
        let child = cmd
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("prometheus.log")).expect("log file"))
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start prometheus (apt-get install prometheus): {e}")
            });
        let p = Prometheus {
            child,
            dir,
            url: format!("http://127.0.0.1:{port}"),
        };
        let ready = format!("{}/-/ready", p.url);
        super::await_cond(Duration::from_secs(60), "prometheus ready", || {
            ureq::get(&ready).call().is_ok()
        });
        // Prometheus hands its scrape loops their targets some seconds
        // after it starts: scraping has begun once each target has an
        // `up` series (0 while nothing listens there yet)
        if !targets.is_empty() {
            super::await_cond(Duration::from_secs(60), "prometheus scraping", || {
                p.query("up").len() >= targets.len()
            });
        }
        p
    }

    /// An instant query's result vector (`data.result`), now.
    pub fn query(&self, q: &str) -> Vec<serde_json::Value> {
        self.query_at(q, None)
    }

    /// An instant query's result at Unix time `at` (None: now). A target
    /// that went away is marked stale a scrape later: a run's figures are
    /// read at the time of its last scrape.
    pub fn query_at(&self, q: &str, at: Option<f64>) -> Vec<serde_json::Value> {
        let url = format!("{}/api/v1/query", self.url);
        let mut req = ureq::get(&url).query("query", q);
        if let Some(t) = at {
            req = req.query("time", format!("{t:.3}"));
        }
        let body = req
            .call()
            .unwrap_or_else(|e| panic!("prometheus query {q}: {e}"))
            .body_mut()
            .read_to_string()
            .expect("prometheus answer");
        let v: serde_json::Value = serde_json::from_str(&body).expect("prometheus JSON");
        v["data"]["result"].as_array().cloned().unwrap_or_default()
    }

    /// The one value of an instant query; None while it has none.
    pub fn value(&self, q: &str) -> Option<f64> {
        self.value_at(q, None)
    }

    /// The one value of an instant query at `at` (None: now).
    pub fn value_at(&self, q: &str, at: Option<f64>) -> Option<f64> {
        let r = self.query_at(q, at);
        let v = r.first()?["value"][1].as_str()?.parse().ok()?;
        Some(v)
    }

    /// When series `selector` last had `value` (its points over the last
    /// ten minutes), Unix seconds.
    pub fn last_time_of(&self, selector: &str, value: f64) -> Option<f64> {
        let r = self.query(&format!("{selector}[10m]"));
        r.first()?["values"]
            .as_array()?
            .iter()
            .rev()
            .find(|p| p[1].as_str().and_then(|v| v.parse::<f64>().ok()) == Some(value))?[0]
            .as_f64()
    }

    /// Its log, for a failing assertion.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
