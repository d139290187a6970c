//! The insert benchmark's options, under its own names (iibench.py's
//! flags: rows_per_commit, inserts_per_second, delete_per_insert,
//! query_threads, rows_per_query, query_pk_only, data_length_min/max,
//! data_random_pct, num_secondary_indexes, num_partitions, …), checked.
//! Knows nothing of the statements.

use crate::workload::options::{OptKind, OptSpec, OptValues};

/// The most rows one INSERT carries (six placeholders each).
const MAX_ROWS_PER_COMMIT: u32 = 10_000;
/// The data column's size.
const MAX_DATA: u32 = 4_000;

/// The insert benchmark's options.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IbenchOpts {
    /// Rows per INSERT (each its own transaction).
    pub rows_per_commit: u32,
    /// Rows per second each inserter holds (0: as fast as it goes).
    pub inserts_per_second: u32,
    /// Each INSERT is followed by a DELETE of as many of the oldest rows.
    pub delete_per_insert: bool,
    /// Connections (of --threads) that query instead of inserting.
    pub query_threads: u32,
    /// Rows each query fetches.
    pub rows_per_query: u32,
    /// Point queries on the primary key instead of range queries on the
    /// secondary indexes.
    pub query_pk_only: bool,
    /// Bounds of the data column's length.
    pub data_length_min: u32,
    /// (see data_length_min)
    pub data_length_max: u32,
    /// Percent of the data that is random (the rest compresses).
    pub data_random_pct: u32,
    /// Value ranges of the generated columns.
    pub cashregisters: u32,
    /// (see cashregisters)
    pub products: u32,
    /// (see cashregisters)
    pub customers: u32,
    /// (see cashregisters)
    pub max_price: u32,
    /// Secondary indexes, 0 to 3: marketsegment, registersegment, pdc.
    pub num_secondary_indexes: u32,
    /// Range partitions on transactionid (0: none).
    pub num_partitions: u32,
    /// Rows per partition.
    pub rows_per_partition: u32,
    /// The table's engine and any further CREATE TABLE options.
    pub engine: String,
    /// (see engine)
    pub engine_options: String,
    /// `run`: the phases to run in order, each a stored run of one
    /// campaign (phases.rs); empty: one run with the options as given.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phases: String,
    /// The rows l.i0 loads.
    pub rows: u32,
    /// Seconds each timed phase runs (0: the run's --time).
    pub duration: u32,
    /// Most seconds the settle step before the first query phase waits
    /// for purge and flushing to calm (0: no settle step).
    pub settle: u32,
}

pub(crate) fn option_specs() -> Vec<OptSpec> {
    use OptKind::*;
    let o = |n: &str, k: OptKind, d: &str, h: &str| OptSpec::new(n, k, d, h);
    vec![
        o("rows_per_commit", Count, "1000", "rows per INSERT, each its own transaction"),
        o("inserts_per_second", Count, "0", "rows per second each inserter holds, on a fixed schedule (0: as fast as it goes)"),
        o("delete_per_insert", Bool, "off", "after each INSERT, DELETE as many of the oldest rows (the table keeps its size)"),
        o("query_threads", Count, "0", "connections of --threads that run queries instead of inserts"),
        o("rows_per_query", Count, "10", "rows each query fetches"),
        o("query_pk_only", Bool, "off", "point queries on the primary key (transactionid IN …) instead of range queries on the secondary indexes"),
        o("data_length_min", Count, "10", "shortest data column"),
        o("data_length_max", Count, "10", "longest data column (at most 4000)"),
        o("data_random_pct", Count, "50", "percent of the data column that is random (the rest compresses)"),
        o("cashregisters", Count, "1000", "cashregisterid values"),
        o("products", Count, "10000", "productid values"),
        o("customers", Count, "100000", "customerid values"),
        o("max_price", Count, "500", "price values"),
        o("num_secondary_indexes", Count, "3", "secondary indexes, 0 to 3: marketsegment, registersegment, pdc"),
        o("num_partitions", Count, "0", "range partitions on transactionid (0: none)"),
        o("rows_per_partition", Count, "0", "rows per partition (needed with --num-partitions)"),
        o("engine", Text, "InnoDB", "engine of the table").alias("storage_engine"),
        o("engine_options", Text, "", "appended to CREATE TABLE, e.g. ROW_FORMAT=COMPRESSED"),
        o("phases", Text, "", "run these phases in order, each a stored run of one campaign: l.i0,l.x,l.i1,l.i2,qr100,qp100,… or all"),
        o("rows", Count, "1000000", "rows the l.i0 phase loads"),
        o("duration", Count, "0", "seconds each of the l.i1, l.i2 and query phases runs (0: --time)"),
        o("settle", Count, "60", "most seconds to wait before the first query phase for purge and flushing to calm (0: do not wait)"),
    ]
}

fn plain(name: &str, v: &str) -> Result<(), String> {
    if v.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_= ,'".contains(c))
    {
        Ok(())
    } else {
        Err(format!(
            "--{name}: '{v}' has characters a table option never needs"
        ))
    }
}

impl IbenchOpts {
    /// The options from their parsed values, checked.
    pub fn from_values(v: &OptValues) -> Result<IbenchOpts, String> {
        let c = |n: &str| v.count(n);
        let mut o = IbenchOpts {
            rows_per_commit: c("rows_per_commit"),
            inserts_per_second: c("inserts_per_second"),
            delete_per_insert: v.flag("delete_per_insert"),
            query_threads: c("query_threads"),
            rows_per_query: c("rows_per_query"),
            query_pk_only: v.flag("query_pk_only"),
            data_length_min: c("data_length_min"),
            data_length_max: c("data_length_max"),
            data_random_pct: c("data_random_pct"),
            cashregisters: c("cashregisters"),
            products: c("products"),
            customers: c("customers"),
            max_price: c("max_price"),
            num_secondary_indexes: c("num_secondary_indexes"),
            num_partitions: c("num_partitions"),
            rows_per_partition: c("rows_per_partition"),
            engine: v.text("engine").to_string(),
            engine_options: v.text("engine_options").to_string(),
            phases: v.text("phases").to_string(),
            rows: c("rows"),
            duration: c("duration"),
            settle: c("settle"),
        };
        for (name, n, min, max) in [
            ("rows-per-commit", o.rows_per_commit, 1, MAX_ROWS_PER_COMMIT),
            ("rows-per-query", o.rows_per_query, 1, 10_000),
            ("data-length-max", o.data_length_max, 0, MAX_DATA),
            ("data-random-pct", o.data_random_pct, 0, 100),
            ("num-secondary-indexes", o.num_secondary_indexes, 0, 3),
            ("cashregisters", o.cashregisters, 1, u32::MAX),
            ("products", o.products, 1, u32::MAX),
            ("customers", o.customers, 1, u32::MAX),
            ("max-price", o.max_price, 1, u32::MAX),
        ] {
            if n < min || n > max {
                return Err(format!("--{name} must be from {min} to {max}, got {n}"));
            }
        }
        if o.data_length_min > o.data_length_max {
            return Err(format!(
                "--data-length-min {} is above --data-length-max {}",
                o.data_length_min, o.data_length_max
            ));
        }
        if o.num_partitions > 0 && o.rows_per_partition == 0 {
            return Err("--num-partitions needs --rows-per-partition N (the insert benchmark's max_rows / num_partitions)".into());
        }
        if o.query_threads > 0 && !o.query_pk_only && o.num_secondary_indexes == 0 {
            return Err("range queries need the secondary indexes: --num-secondary-indexes 1..3, or --query-pk-only".into());
        }
        // (as iibench.py: a commit never carries more rows than a second's)
        if o.inserts_per_second > 0 {
            o.rows_per_commit = o.rows_per_commit.min(o.inserts_per_second);
        }
        plain("engine", &o.engine)?;
        plain("engine-options", &o.engine_options)?;
        Ok(o)
    }
}
