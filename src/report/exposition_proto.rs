//! Metric families in Prometheus' protobuf exposition format
//! (io.prometheus.client.MetricFamily, length-delimited), which a
//! Prometheus with native histograms on asks for first: every family as
//! in the text formats, and each latency histogram both with its classic
//! buckets and as a native (exponential, schema 3) histogram, so that
//! PromQL can merge runs' latencies at about 9% resolution. Encodes only.

use super::metric_families::{parse_labels, Families, HistPoint, NATIVE_SCHEMA, ZERO_THRESHOLD};

#[derive(Clone, PartialEq, prost::Message)]
struct MetricFamily {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    help: String,
    /// COUNTER 0, GAUGE 1, UNTYPED 3, HISTOGRAM 4.
    #[prost(int32, tag = "3")]
    kind: i32,
    #[prost(message, repeated, tag = "4")]
    metric: Vec<Metric>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LabelPair {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Value {
    #[prost(double, tag = "1")]
    value: f64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Metric {
    #[prost(message, repeated, tag = "1")]
    label: Vec<LabelPair>,
    #[prost(message, optional, tag = "2")]
    gauge: Option<Value>,
    #[prost(message, optional, tag = "3")]
    counter: Option<Value>,
    #[prost(message, optional, tag = "5")]
    untyped: Option<Value>,
    #[prost(message, optional, tag = "7")]
    histogram: Option<Histogram>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Bucket {
    #[prost(uint64, tag = "1")]
    cumulative_count: u64,
    #[prost(double, tag = "2")]
    upper_bound: f64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct BucketSpan {
    #[prost(sint32, tag = "1")]
    offset: i32,
    #[prost(uint32, tag = "2")]
    length: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Histogram {
    #[prost(uint64, tag = "1")]
    sample_count: u64,
    #[prost(double, tag = "2")]
    sample_sum: f64,
    #[prost(message, repeated, tag = "3")]
    bucket: Vec<Bucket>,
    #[prost(sint32, tag = "5")]
    schema: i32,
    #[prost(double, tag = "6")]
    zero_threshold: f64,
    #[prost(uint64, tag = "7")]
    zero_count: u64,
    #[prost(message, repeated, tag = "12")]
    positive_span: Vec<BucketSpan>,
    #[prost(sint64, repeated, tag = "13")]
    positive_delta: Vec<i64>,
}

/// The families as length-delimited MetricFamily messages.
pub fn encode(f: &Families) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 * 1024);
    for (name, fam) in &f.0 {
        let (full, kind) = match fam.kind {
            "counter" => (format!("{name}_total"), 0),
            "gauge" => (name.clone(), 1),
            "histogram" => (name.clone(), 4),
            _ => (name.clone(), 3),
        };
        let metric = if kind == 4 {
            fam.hists.iter().map(histogram).collect()
        } else {
            fam.samples
                .iter()
                .map(|p| {
                    let v = Some(Value { value: p.value });
                    Metric {
                        label: labels(&p.labels),
                        counter: if kind == 0 { v.clone() } else { None },
                        gauge: if kind == 1 { v.clone() } else { None },
                        untyped: if kind == 3 { v } else { None },
                        histogram: None,
                    }
                })
                .collect()
        };
        let mf = MetricFamily {
            name: full,
            help: fam.help.to_string(),
            kind,
            metric,
        };
        let _ = prost::Message::encode_length_delimited(&mf, &mut out);
    }
    out
}

fn labels(rendered: &str) -> Vec<LabelPair> {
    parse_labels(rendered)
        .into_iter()
        .map(|(name, value)| LabelPair { name, value })
        .collect()
}

fn histogram(h: &HistPoint) -> Metric {
    let (spans, deltas) = h.native_spans();
    let spans = spans
        .into_iter()
        .map(|(offset, length)| BucketSpan { offset, length })
        .collect();
    Metric {
        label: labels(&h.labels),
        histogram: Some(Histogram {
            sample_count: h.count,
            sample_sum: h.sum,
            bucket: h
                .classic
                .iter()
                .map(|(le, n)| Bucket {
                    cumulative_count: *n,
                    upper_bound: *le,
                })
                .collect(),
            schema: NATIVE_SCHEMA,
            zero_threshold: ZERO_THRESHOLD,
            zero_count: h.zero_count,
            positive_span: spans,
            positive_delta: deltas,
        }),
        ..Metric::default()
    }
}
