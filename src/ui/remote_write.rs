//! `--remote-write URL`: pushes the live figures (the same series as
//! `/metrics`) to a Prometheus remote-write 1.0 receiver (Prometheus with
//! its receiver on, VictoriaMetrics, Mimir, Grafana Cloud) every interval:
//! a protobuf WriteRequest, snappy-compressed, with the user's extra
//! headers (`--remote-write-header K=V`, e.g. an Authorization). A thread
//! of its own builds and sends; a bounded queue keeps what a slow or
//! absent receiver has not taken yet, retried oldest first, and drops the
//! oldest (counted) when full — never slowing the load.

use crate::report::exposition;
use crate::report::metric_families::{parse_labels, Families, NATIVE_SCHEMA, ZERO_THRESHOLD};
use anyhow::{bail, Result};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Payloads kept for a receiver that does not take them (two minutes at 1 s).
const QUEUE: usize = 120;

/// How long a send may take before it is retried later.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the end waits to deliver what is queued.
const FINAL_FLUSH: Duration = Duration::from_secs(15);

#[derive(Clone, PartialEq, prost::Message)]
struct WriteRequest {
    #[prost(message, repeated, tag = "1")]
    timeseries: Vec<TimeSeries>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct TimeSeries {
    #[prost(message, repeated, tag = "1")]
    labels: Vec<Label>,
    #[prost(message, repeated, tag = "2")]
    samples: Vec<PbSample>,
    #[prost(message, repeated, tag = "4")]
    histograms: Vec<PbHistogram>,
}

/// A native histogram as remote write 1.0 carries it (prompb.Histogram:
/// integer counts, positive buckets only — latencies are never negative).
#[derive(Clone, PartialEq, prost::Message)]
struct PbHistogram {
    #[prost(uint64, tag = "1")]
    count_int: u64,
    #[prost(double, tag = "3")]
    sum: f64,
    #[prost(sint32, tag = "4")]
    schema: i32,
    #[prost(double, tag = "5")]
    zero_threshold: f64,
    #[prost(uint64, tag = "6")]
    zero_count_int: u64,
    #[prost(message, repeated, tag = "11")]
    positive_spans: Vec<PbBucketSpan>,
    #[prost(sint64, repeated, tag = "12")]
    positive_deltas: Vec<i64>,
    #[prost(int64, tag = "15")]
    timestamp: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PbBucketSpan {
    #[prost(sint32, tag = "1")]
    offset: i32,
    #[prost(uint32, tag = "2")]
    length: u32,
}

/// One push, encoded twice: with the latency histograms also as native
/// histograms, and with classic buckets only (for a receiver that
/// refuses native histograms — Prometheus without the feature).
struct Payload {
    native: Vec<u8>,
    classic: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Label {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PbSample {
    #[prost(double, tag = "1")]
    value: f64,
    #[prost(int64, tag = "2")]
    timestamp: i64,
}

/// What the pusher did, said at the end.
#[derive(Default, Debug, Clone)]
pub struct PushReport {
    /// Payloads the receiver took.
    pub sent: u64,
    /// Payloads dropped: the queue was full, or the receiver refused them.
    pub dropped: u64,
    /// The last failure, in words.
    pub last_error: Option<String>,
}

/// The pusher while it runs.
pub struct RemoteWriter {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<PushReport>>,
}

/// A `K=V` header of `--remote-write-header`.
pub fn parse_header(s: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => bail!("--remote-write-header {s:?}: give NAME=VALUE, e.g. --remote-write-header 'Authorization=Bearer TOKEN'"),
    }
}

/// Starts pushing to `url` every `every`.
pub fn start(url: &str, headers: Vec<(String, String)>, every: Duration) -> Result<RemoteWriter> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        bail!("--remote-write {url:?}: give the receiver's URL, e.g. http://127.0.0.1:9090/api/v1/write");
    }
    let live = crate::stats::live::enable();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let url = url.to_string();
    let thread = std::thread::Builder::new()
        .name("qpslab-remote-write".into())
        .spawn(move || push_loop(live, &url, &headers, every, &flag))?;
    Ok(RemoteWriter {
        stop,
        thread: Some(thread),
    })
}

impl RemoteWriter {
    /// Pushes the final figures and what is queued (for a bounded time),
    /// and says what was sent and dropped.
    pub fn finish(mut self) -> PushReport {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for RemoteWriter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn push_loop(
    live: &crate::stats::live::LiveMetrics,
    url: &str,
    headers: &[(String, String)],
    every: Duration,
    stop: &AtomicBool,
) -> PushReport {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(SEND_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let mut queue: VecDeque<Payload> = VecDeque::new();
    let mut report = PushReport::default();
    // native histograms until the receiver refuses them
    let mut native = true;
    let mut next = Instant::now();
    loop {
        let last = stop.load(Ordering::Relaxed);
        let payload = live.read(|s| {
            let (f, ts) = (exposition::families(s), now_ms());
            Payload {
                native: encode(&f, ts, true),
                classic: encode(&f, ts, false),
            }
        });
        if queue.len() >= QUEUE {
            queue.pop_front();
            report.dropped += 1;
        }
        queue.push_back(payload);
        let deadline = Instant::now() + if last { FINAL_FLUSH } else { every };
        while let Some(p) = queue.front() {
            if Instant::now() >= deadline {
                break;
            }
            let body = if native { &p.native } else { &p.classic };
            match send(&agent, url, headers, body) {
                Sent::Taken => {
                    report.sent += 1;
                    queue.pop_front();
                }
                Sent::Refused(why) | Sent::Later(why) if native && refuses_native(&why) => {
                    log::info!("remote write: the receiver refused native histograms; sending classic buckets only ({why})");
                    native = false;
                }
                Sent::Refused(why) => {
                    report.dropped += 1;
                    report.last_error = Some(why);
                    queue.pop_front();
                }
                Sent::Later(why) => {
                    report.last_error = Some(why);
                    if !last {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
        }
        if last {
            report.dropped += queue.len() as u64;
            return report;
        }
        next += every;
        while Instant::now() < next && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20).min(every));
        }
    }
}

/// Whether a receiver's refusal is of native histograms (Prometheus
/// without `--enable-feature=native-histograms` says so by name).
fn refuses_native(why: &str) -> bool {
    why.to_ascii_lowercase().contains("histogram")
}

enum Sent {
    Taken,
    /// Not retryable (a 4xx other than 429): dropped.
    Refused(String),
    /// Retry later (network, 5xx, 429).
    Later(String),
}

fn send(agent: &ureq::Agent, url: &str, headers: &[(String, String)], body: &[u8]) -> Sent {
    let mut req = agent
        .post(url)
        .header("Content-Encoding", "snappy")
        .header("Content-Type", "application/x-protobuf")
        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
        .header("User-Agent", concat!("qpslab/", env!("CARGO_PKG_VERSION")));
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    match req.send(body) {
        Ok(r) if r.status().is_success() => Sent::Taken,
        Ok(mut r) if r.status().as_u16() == 429 || r.status().is_server_error() => {
            let why = r.body_mut().read_to_string().unwrap_or_default();
            Sent::Later(format!("{url} answered {}: {}", r.status(), why.trim()))
        }
        Ok(mut r) => {
            let why = r.body_mut().read_to_string().unwrap_or_default();
            Sent::Refused(format!(
                "{url} refused the samples ({}): {}",
                r.status(),
                why.trim()
            ))
        }
        Err(e) => Sent::Later(format!("{url}: {e}")),
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The families as one snappy-compressed WriteRequest at `ts_ms`; with
/// `native`, each latency histogram also as a native histogram series
/// named as the family (beside its classic `_bucket` series).
fn encode(f: &Families, ts_ms: i64, native: bool) -> Vec<u8> {
    let mut req = WriteRequest::default();
    for (name, fam) in f.0.iter().filter(|_| native) {
        for h in &fam.hists {
            let (spans, deltas) = h.native_spans();
            req.timeseries.push(TimeSeries {
                labels: series_labels(name, "", &h.labels),
                histograms: vec![PbHistogram {
                    count_int: h.count,
                    sum: h.sum,
                    schema: NATIVE_SCHEMA,
                    zero_threshold: ZERO_THRESHOLD,
                    zero_count_int: h.zero_count,
                    positive_spans: spans
                        .into_iter()
                        .map(|(offset, length)| PbBucketSpan { offset, length })
                        .collect(),
                    positive_deltas: deltas,
                    timestamp: ts_ms,
                }],
                ..TimeSeries::default()
            });
        }
    }
    for (name, fam) in &f.0 {
        for p in &fam.samples {
            req.timeseries.push(TimeSeries {
                labels: series_labels(name, p.suffix, &p.labels),
                samples: vec![PbSample {
                    value: p.value,
                    timestamp: p.ts.map_or(ts_ms, |t| (t * 1000.0) as i64),
                }],
                ..TimeSeries::default()
            });
        }
    }
    let bytes = prost::Message::encode_to_vec(&req);
    snap::raw::Encoder::new()
        .compress_vec(&bytes)
        .unwrap_or_default()
}

/// A series' labels, `__name__` (the family's name and `suffix`)
/// among them, sorted by name as remote write asks.
fn series_labels(name: &str, suffix: &str, rendered: &str) -> Vec<Label> {
    let mut labels: Vec<Label> = parse_labels(rendered)
        .into_iter()
        .map(|(name, value)| Label { name, value })
        .collect();
    labels.push(Label {
        name: "__name__".into(),
        value: format!("{name}{suffix}"),
    });
    labels.sort_by(|a, b| a.name.cmp(&b.name));
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_labels_parse_back() {
        let l = parse_labels(r#"a="x",b="q\"u\\o\nte",c="""#);
        let pairs: Vec<_> = l.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("a", "x"), ("b", "q\"u\\o\nte"), ("c", "")]);
    }
}
