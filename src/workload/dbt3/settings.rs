//! DBT3's options: their declarations on the command line and their
//! values checked (the scale factor, the engine and table options, the
//! run's test, streams, queries and timeout). Knows nothing of the
//! schema, the data or the queries themselves.

use crate::workload::options::{OptKind, OptSpec, OptValues};

/// The largest scale factor taken (TPC-H's published sizes stop at
/// 100000; this host-sized lab stops well before).
const MAX_SCALE: f64 = 1000.0;
/// The most partitions taken (MariaDB's limit is 8192; more than this
/// only slows a lab's load).
const MAX_PARTITIONS: u32 = 1024;
/// The most query streams a throughput test runs.
const MAX_STREAMS: u32 = 64;

/// Which test a run performs (TPC-H clause 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Test {
    /// One stream: RF1, the queries in stream 0's order, RF2.
    Power,
    /// `streams` query streams at once, beside one refresh stream.
    Throughput,
}

/// DBT3's options.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Dbt3Opts {
    /// The scale factor (1: lineitem about 6 million rows).
    pub scale: f64,
    /// The tables' engine at prepare.
    pub storage_engine: String,
    /// Further table options at prepare (e.g. `ROW_FORMAT=COMPRESSED`).
    pub table_options: String,
    /// Partitions of orders and lineitem at prepare, by HASH of the order
    /// key (0: not partitioned).
    pub partition: u32,
    /// Loader connections (0: the lab's default).
    pub loaders: u32,
    /// The run's test.
    pub test: Test,
    /// Query streams of a throughput test.
    pub streams: u32,
    /// The queries run (1..=22), in the stream's order; all by default.
    pub queries: Vec<u32>,
    /// Seconds a query may run before it is killed (0: no limit).
    pub query_timeout_s: u32,
    /// The spec's validation parameters instead of drawn ones.
    pub validation: bool,
    /// Whether the refresh functions run (power: around the queries;
    /// throughput: the refresh stream).
    pub refresh: bool,
    /// `check`: the folder of reference answers (`q1.out` … `q22.out`)
    /// the validation queries' answers are compared with; empty: none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub answers: String,
}

pub(crate) fn option_specs() -> Vec<OptSpec> {
    use OptKind::*;
    let o = |n: &str, k: OptKind, d: &str, h: &str| OptSpec::new(n, k, d, h);
    vec![
        o(
            "scale",
            Text,
            "0.1",
            "the TPC-H scale factor (fractions allowed: 0.01, 0.1, 1; SF 1 is about 1 GB, lineitem 6M rows)",
        ),
        o("storage_engine", Text, "InnoDB", "engine of the tables").alias("mysql_storage_engine"),
        o(
            "table_options",
            Text,
            "",
            "further CREATE TABLE options, e.g. ROW_FORMAT=COMPRESSED",
        ),
        o(
            "partition",
            Count,
            "0",
            "partition orders and lineitem by HASH of the order key into N partitions (0: none)",
        ),
        o("loaders", Count, "0", "loader connections (0: four per CPU)"),
        o(
            "test",
            Text,
            "power",
            "power (one stream: RF1, the queries, RF2) or throughput (--streams query streams and a refresh stream)",
        ),
        o("streams", Count, "2", "query streams of the throughput test"),
        o(
            "queries",
            List,
            "",
            "the queries to run, e.g. 1,6,14 (default: all 22 in the stream's order)",
        ),
        o(
            "query_timeout",
            Count,
            "0",
            "seconds a query may run before it is killed server-side and marked (0: no limit)",
        ),
        o(
            "validation",
            Bool,
            "off",
            "the spec's validation parameters (clause 2.4) instead of qgen-drawn ones",
        ),
        o(
            "refresh",
            Bool,
            "on",
            "run the refresh functions RF1/RF2 (off: queries only)",
        ),
        o(
            "answers",
            Text,
            "",
            "check: a folder of reference answers (q1.out … q22.out, TPC-H's answer-file form) to compare the validation queries' answers with",
        ),
    ]
}

/// A scale factor as given, checked.
pub fn parse_scale(v: &str) -> Result<f64, String> {
    let sf: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("--scale: '{v}' is not a number (e.g. 0.01, 0.1, 1)"))?;
    if !sf.is_finite() || !(0.001..=MAX_SCALE).contains(&sf) {
        return Err(format!(
            "--scale must be from 0.001 to {MAX_SCALE}, got {v}"
        ));
    }
    Ok(sf)
}

/// A query list as given (`1,6,14`), checked; empty: all 22.
pub fn parse_queries(v: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for w in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let n = w
            .trim_start_matches(['Q', 'q'])
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=22).contains(n))
            .ok_or_else(|| format!("--queries: '{w}' is not a query number from 1 to 22"))?;
        if out.contains(&n) {
            return Err(format!("--queries: {n} is named twice"));
        }
        out.push(n);
    }
    Ok(out)
}

impl Dbt3Opts {
    /// The options from their parsed values, checked.
    pub fn from_values(v: &OptValues) -> Result<Dbt3Opts, String> {
        let test = match v.text("test").to_ascii_lowercase().as_str() {
            "power" => Test::Power,
            "throughput" => Test::Throughput,
            t => {
                return Err(format!(
                    "--test: '{t}' is not a DBT3 test: power or throughput"
                ))
            }
        };
        let o = Dbt3Opts {
            scale: parse_scale(v.text("scale"))?,
            storage_engine: v.text("storage_engine").to_string(),
            table_options: v.text("table_options").to_string(),
            partition: v.count("partition"),
            loaders: v.count("loaders"),
            test,
            streams: v.count("streams"),
            queries: parse_queries(v.text("queries"))?,
            query_timeout_s: v.count("query_timeout"),
            validation: v.flag("validation"),
            refresh: v.flag("refresh"),
            answers: v.text("answers").to_string(),
        };
        if o.streams < 1 || o.streams > MAX_STREAMS {
            return Err(format!(
                "--streams must be from 1 to {MAX_STREAMS}, got {}",
                o.streams
            ));
        }
        if !o
            .storage_engine
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(format!(
                "--storage-engine: '{}' is not an engine name",
                o.storage_engine
            ));
        }
        if o.partition > MAX_PARTITIONS {
            return Err(format!(
                "--partition must be from 0 (none) to {MAX_PARTITIONS}, got {}",
                o.partition
            ));
        }
        if o.table_options.contains(';') {
            return Err("--table-options: one table's options, without ';'".into());
        }
        Ok(o)
    }

    /// The queries a stream runs, in `order` (the spec's permutation),
    /// kept to `--queries` when given.
    pub fn chosen(&self, order: &[u32]) -> Vec<u32> {
        order
            .iter()
            .copied()
            .filter(|q| self.queries.is_empty() || self.queries.contains(q))
            .collect()
    }

    /// The scale as written in names and commands (`0.01`, `1`).
    pub fn scale_text(&self) -> String {
        scale_text(self.scale)
    }
}

/// A scale factor as written in names and commands (`0.01`, `1`).
pub fn scale_text(sf: f64) -> String {
    let s = format!("{sf:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_query_lists_are_checked() {
        assert_eq!(parse_scale("0.01"), Ok(0.01));
        assert!(parse_scale("abc").is_err());
        assert!(parse_scale("0").is_err());
        assert_eq!(parse_queries("1, 6,Q14"), Ok(vec![1, 6, 14]));
        assert!(parse_queries("23").is_err());
        assert!(parse_queries("1,1").is_err());
        assert_eq!(scale_text(0.01), "0.01");
        assert_eq!(scale_text(1.0), "1");
    }
}
