//! Prometheus metric families being gathered and written out: the one
//! place that knows the two text formats (Prometheus text 0.0.4 and
//! OpenMetrics 1.0), label escaping, the latency buckets, and
//! mysqld_exporter's names for SHOW GLOBAL STATUS. Used by the export of
//! stored runs (openmetrics.rs) and the live endpoint (exposition.rs);
//! gathers nothing itself.

use crate::stats::Hist;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The text format a scraper asked for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// Prometheus text exposition 0.0.4 (`text/plain; version=0.0.4`).
    Text,
    /// OpenMetrics 1.0 (`application/openmetrics-text; version=1.0.0`),
    /// ending in `# EOF`.
    OpenMetrics,
    /// Prometheus' protobuf format (length-delimited MetricFamily
    /// messages), the one that carries native histograms.
    Protobuf,
}

impl Format {
    /// The format an HTTP `Accept` header asks for: OpenMetrics when it
    /// names it, else the Prometheus text format.
    pub fn negotiate(accept: &str) -> Format {
        // a scraper lists what it takes best first
        let first = accept.split(',').next().unwrap_or("");
        if first.contains("application/vnd.google.protobuf")
            && first.contains("io.prometheus.client.MetricFamily")
        {
            Format::Protobuf
        } else if accept.contains("application/openmetrics-text") {
            Format::OpenMetrics
        } else {
            Format::Text
        }
    }

    /// Its Content-Type.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::Protobuf => {
                "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
            }
        }
    }
}

/// Latency histograms' bucket bounds, seconds (100 µs to 10 s): where
/// database statements and transactions fall, a bucket a 2–2.5× step.
pub const BUCKETS_S: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// One sample: the suffix after the family name (`_total`, `_bucket` …
/// or ""), its labels (rendered), value and timestamp (Unix seconds;
/// None: the scrape's time).
pub struct Point {
    /// After the family name: `_total`, `_bucket`, `_count`, `_sum` or "".
    pub suffix: &'static str,
    /// Rendered labels (`k="v",…`).
    pub labels: String,
    /// The value.
    pub value: f64,
    /// Unix seconds; None: the scrape's time.
    pub ts: Option<f64>,
}

/// A metric family being gathered: its type, help and samples.
pub struct Family {
    /// counter, gauge, histogram or unknown (OpenMetrics' words).
    pub kind: &'static str,
    /// The HELP text.
    pub help: &'static str,
    /// Its samples, in the order written.
    pub samples: Vec<Point>,
    /// A histogram family's histograms whole (for the protobuf format),
    /// one a label set, beside their text samples.
    pub hists: Vec<HistPoint>,
}

/// The zero bucket's bound, seconds: only 0 µs observations fall in it.
pub const ZERO_THRESHOLD: f64 = 1e-7;

/// Schema of the native histograms: 2^3 buckets per power of two, each
/// about 9% wide.
pub const NATIVE_SCHEMA: i32 = 3;

/// One histogram of a family, whole: its labels, classic buckets and its
/// native (exponential) buckets.
pub struct HistPoint {
    /// Rendered labels, without `le`.
    pub labels: String,
    /// Observations.
    pub count: u64,
    /// Their sum, seconds.
    pub sum: f64,
    /// (upper bound seconds, cumulative count) over `BUCKETS_S`.
    pub classic: Vec<(f64, u64)>,
    /// Observations of 0 (the zero bucket).
    pub zero_count: u64,
    /// Native buckets at `NATIVE_SCHEMA`: (index, count), indexes
    /// ascending; bucket i holds (2^((i-1)/8), 2^(i/8)] seconds.
    pub native: Vec<(i32, u64)>,
}

impl HistPoint {
    /// `h` (microseconds) with `labels`.
    pub fn of(labels: &str, h: &Hist) -> HistPoint {
        let recorded = h.recorded();
        let mut classic = Vec::with_capacity(BUCKETS_S.len());
        let (mut at, mut n) = (0, 0u64);
        for le in BUCKETS_S {
            while at < recorded.len() && (recorded[at].0 as f64) <= le * 1e6 {
                n += recorded[at].1;
                at += 1;
            }
            classic.push((le, n));
        }
        let mut native: Vec<(i32, u64)> = Vec::new();
        let mut zero_count = 0;
        let per_octave = f64::from(1 << NATIVE_SCHEMA);
        for (us, c) in &recorded {
            if *us == 0 {
                zero_count += c;
                continue;
            }
            let i = ((*us as f64 / 1e6).log2() * per_octave).ceil() as i32;
            match native.last_mut() {
                Some((last, n)) if *last == i => *n += c,
                _ => native.push((i, *c)),
            }
        }
        let count = h.count();
        HistPoint {
            labels: labels.to_string(),
            count,
            sum: h.mean_ms() / 1000.0 * count as f64,
            classic,
            zero_count,
            native,
        }
    }
}

impl HistPoint {
    /// The native buckets as Prometheus encodes them: spans of adjacent
    /// buckets ((offset from the previous span's end, or the first index;
    /// length)) and each bucket's count as a delta from the previous one.
    pub fn native_spans(&self) -> (Vec<(i32, u32)>, Vec<i64>) {
        let mut spans: Vec<(i32, u32)> = Vec::new();
        let mut deltas = Vec::with_capacity(self.native.len());
        let (mut prev_index, mut prev_count): (Option<i32>, i64) = (None, 0);
        for &(i, n) in &self.native {
            match prev_index {
                Some(p) if i == p + 1 => {
                    if let Some(s) = spans.last_mut() {
                        s.1 += 1;
                    }
                }
                Some(p) => spans.push((i - p - 1, 1)),
                None => spans.push((i, 1)),
            }
            deltas.push(n as i64 - prev_count);
            prev_count = n as i64;
            prev_index = Some(i);
        }
        (spans, deltas)
    }
}

/// The families by name, in name order (each family's samples together).
#[derive(Default)]
pub struct Families(pub BTreeMap<String, Family>);

impl Families {
    /// Adds a sample of family `name` (created with `kind` and `help` if new).
    pub fn add(&mut self, name: &str, kind: &'static str, help: &'static str, p: Point) {
        self.family(name, kind, help).samples.push(p);
    }

    fn family(&mut self, name: &str, kind: &'static str, help: &'static str) -> &mut Family {
        self.0.entry(name.to_string()).or_insert_with(|| Family {
            kind,
            help,
            samples: Vec::new(),
            hists: Vec::new(),
        })
    }

    /// A counter's value now (the scrape's time).
    pub fn counter(&mut self, name: &str, help: &'static str, labels: String, value: f64) {
        let p = Point {
            suffix: "_total",
            labels,
            value,
            ts: None,
        };
        self.add(name, "counter", help, p);
    }

    /// A gauge's value now.
    pub fn gauge(&mut self, name: &str, help: &'static str, labels: String, value: f64) {
        let p = Point {
            suffix: "",
            labels,
            value,
            ts: None,
        };
        self.add(name, "gauge", help, p);
    }

    /// Histogram `name` from `h` (microseconds) over `BUCKETS_S`, with
    /// `base` labels, at `ts`: cumulative buckets, `+Inf`, count and sum
    /// in seconds — never percentile gauges, so that histograms of several
    /// runs or hosts add up in PromQL.
    pub fn histogram(
        &mut self,
        name: &str,
        help: &'static str,
        base: &str,
        h: &Hist,
        ts: Option<f64>,
    ) {
        let hp = HistPoint::of(base, h);
        let sep = if base.is_empty() { "" } else { "," };
        for (le, n) in &hp.classic {
            let labels = format!("{base}{sep}le=\"{le}\"");
            self.add(
                name,
                "histogram",
                help,
                point("_bucket", labels, *n as f64, ts),
            );
        }
        let count = hp.count as f64;
        let inf = format!("{base}{sep}le=\"+Inf\"");
        self.add(name, "histogram", help, point("_bucket", inf, count, ts));
        self.add(
            name,
            "histogram",
            help,
            point("_count", base.to_string(), count, ts),
        );
        let sum = hp.sum;
        self.add(
            name,
            "histogram",
            help,
            point("_sum", base.to_string(), sum, ts),
        );
        self.family(name, "histogram", help).hists.push(hp);
    }

    /// The families as text in `format`, each sample with its timestamp
    /// when it has one.
    pub fn render(&self, format: Format) -> String {
        let mut out = String::with_capacity(64 * 1024);
        for (name, fam) in &self.0 {
            let (type_name, kind) = match (format, fam.kind) {
                (Format::Text, "counter") => (format!("{name}_total"), "counter"),
                (Format::Text, "unknown") => (name.clone(), "untyped"),
                (_, kind) => (name.clone(), kind),
            };
            let _ = writeln!(out, "# HELP {type_name} {}", fam.help);
            let _ = writeln!(out, "# TYPE {type_name} {kind}");
            for p in &fam.samples {
                let _ = write!(out, "{name}{}", p.suffix);
                if !p.labels.is_empty() {
                    let _ = write!(out, "{{{}}}", p.labels);
                }
                let _ = write!(out, " {}", p.value);
                match (p.ts, format) {
                    (Some(ts), Format::OpenMetrics) => {
                        let _ = write!(out, " {ts:.3}");
                    }
                    // the text format's timestamps are milliseconds
                    (Some(ts), Format::Text | Format::Protobuf) => {
                        let _ = write!(out, " {}", (ts * 1000.0).round() as i64);
                    }
                    (None, _) => {}
                }
                out.push('\n');
            }
        }
        if format == Format::OpenMetrics {
            out.push_str("# EOF\n");
        }
        out
    }
}

/// A sample of `suffix` with `labels`, `value` at `ts`.
pub fn point(suffix: &'static str, labels: String, value: f64, ts: Option<f64>) -> Point {
    Point {
        suffix,
        labels,
        value,
        ts,
    }
}

/// A label value escaped as both formats want it.
pub fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `name` made a valid metric name part (lower case, `[a-z0-9_]`).
pub fn metric_part(name: &str) -> String {
    name.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Labels rendered (`k="v",…`), values escaped.
pub fn render_labels<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push(',');
        }
        let _ = write!(out, "{}=\"{}\"", k.as_ref(), escape(v.as_ref()));
    }
    out
}

/// Rendered labels (`k="v",…`, values escaped) back into pairs.
pub fn parse_labels(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some((name, after)) = rest.split_once("=\"") {
        let mut value = String::new();
        let mut chars = after.char_indices();
        let mut end = after.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c)) => value.push(c),
                    None => {}
                },
                '"' => {
                    end = i + 1;
                    break;
                }
                c => value.push(c),
            }
        }
        out.push((name.trim_start_matches(',').to_string(), value));
        rest = &after[end..];
    }
    out
}

/// `base` labels (rendered) with `extra` appended.
pub fn labels(base: &str, extra: &[(&str, &str)]) -> String {
    let mut out = base.to_string();
    for (k, v) in extra {
        if !out.is_empty() {
            out.push(',');
        }
        let _ = write!(out, "{k}=\"{}\"", escape(v));
    }
    out
}

/// mysqld_exporter's name, type, help and label for a SHOW GLOBAL STATUS
/// variable (lower-cased): its grouped families, else the generic one.
pub fn status_family(
    key: &str,
) -> (
    String,
    &'static str,
    &'static str,
    Option<(&'static str, String)>,
) {
    const GROUPS: [(&str, &str, &str, &str); 6] = [
        ("com_", "commands", "command", "Total number of executed MySQL commands."),
        ("handler_", "handlers", "handler", "Total number of executed MySQL handlers."),
        ("connection_errors_", "connection_errors", "error", "Total number of MySQL connection errors."),
        ("innodb_rows_", "innodb_row_ops", "operation", "Total number of MySQL InnoDB row operations."),
        (
            "performance_schema_",
            "performance_schema_lost",
            "instrumentation",
            "Total number of MySQL instrumentations that could not be loaded or created due to memory constraints.",
        ),
        ("innodb_buffer_pool_pages_", "", "", ""),
    ];
    for (prefix, family, label, help) in GROUPS {
        let Some(rest) = key.strip_prefix(prefix) else {
            continue;
        };
        if family.is_empty() {
            return if ["data", "dirty", "free", "misc"].contains(&rest) {
                (
                    "mysql_global_status_buffer_pool_pages".into(),
                    "gauge",
                    "Innodb buffer pool pages by state.",
                    Some(("state", rest.to_string())),
                )
            } else {
                (
                    "mysql_global_status_buffer_pool_page_changes".into(),
                    "counter",
                    "Innodb buffer pool page state changes.",
                    Some(("operation", rest.to_string())),
                )
            };
        }
        return (
            format!("mysql_global_status_{family}"),
            "counter",
            help,
            Some((label, rest.to_string())),
        );
    }
    (
        format!("mysql_global_status_{key}"),
        "unknown",
        "Generic metric from SHOW GLOBAL STATUS.",
        None,
    )
}
