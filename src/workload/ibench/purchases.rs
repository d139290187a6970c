//! The insert benchmark's table, `purchases_index`, its three secondary
//! indexes and optional range partitions, and the statements the
//! connections prepare (iibench.py's shapes: a multi-row INSERT, the
//! DELETE of the oldest rows, three range queries each forced onto its
//! index, a point query on the primary key).

use super::ib_knobs::IbenchOpts;

/// The table.
pub(crate) const TABLE: &str = "purchases_index";

/// The secondary indexes in the order they are added, with their columns.
pub(crate) const INDEXES: [(&str, &str); 3] = [
    ("marketsegment", "productid, customerid, price"),
    ("registersegment", "cashregisterid, customerid, price"),
    ("pdc", "price, dateandtime, customerid"),
];

pub(crate) fn create_sql(o: &IbenchOpts) -> String {
    let mut parts = String::new();
    if o.num_partitions > 0 {
        let rows = u64::from(o.rows_per_partition);
        let mut p: Vec<String> = (0..o.num_partitions - 1)
            .map(|i| {
                format!(
                    "PARTITION p{i} VALUES LESS THAN ({})",
                    (u64::from(i) + 1) * rows
                )
            })
            .collect();
        p.push(format!(
            "PARTITION p{} VALUES LESS THAN (MAXVALUE)",
            o.num_partitions - 1
        ));
        parts = format!(" PARTITION BY RANGE (transactionid) ({})", p.join(", "));
    }
    format!(
        "CREATE TABLE {TABLE} (transactionid BIGINT NOT NULL AUTO_INCREMENT, dateandtime DATETIME,
  cashregisterid INT NOT NULL, customerid INT NOT NULL, productid INT NOT NULL, price INT NOT NULL,
  data VARCHAR(4000), PRIMARY KEY (transactionid)) ENGINE={} {}{parts}",
        o.engine, o.engine_options
    )
}

/// One ALTER TABLE adding the first `n` secondary indexes (None for 0).
pub(crate) fn add_indexes_sql(n: u32) -> Option<String> {
    let adds: Vec<String> = INDEXES
        .iter()
        .take(n as usize)
        .map(|(name, cols)| format!("ADD INDEX {TABLE}_{name} ({cols})"))
        .collect();
    (!adds.is_empty()).then(|| format!("ALTER TABLE {TABLE} {}", adds.join(", ")))
}

/// The statements, by index.
pub(crate) const INSERT: usize = 0;
pub(crate) const DELETE: usize = 1;
/// The range queries (one per secondary index), in INDEXES order.
pub(crate) const RANGE: usize = 2;
pub(crate) const POINT: usize = 5;
pub(crate) const MIN_MAX: usize = 6;

/// The latency classes, by statement index.
pub(crate) const STATS: [&str; 7] = [
    "insert",
    "delete",
    "query_market",
    "query_register",
    "query_pdc",
    "query_pk",
    "min_max",
];

/// Every statement's SQL, by index.
pub(crate) fn statements_sql(o: &IbenchOpts) -> Vec<String> {
    let row = "(NOW(), ?, ?, ?, ?, ?)";
    let rows = vec![row; o.rows_per_commit as usize].join(",");
    let n = o.rows_per_query;
    let range = |i: usize, cmp: &str| {
        let (name, cols) = INDEXES[i];
        let first = cols.split(',').next().unwrap_or(cols);
        format!("SELECT {cols} FROM {TABLE} FORCE INDEX ({TABLE}_{name}) WHERE {first} {cmp} ? ORDER BY {cols} LIMIT {n}")
    };
    vec![
        format!("INSERT INTO {TABLE} (dateandtime, cashregisterid, customerid, productid, price, data) VALUES {rows}"),
        format!("DELETE FROM {TABLE} ORDER BY transactionid LIMIT {}", o.rows_per_commit),
        range(0, ">="),
        range(1, ">"),
        range(2, ">="),
        format!(
            "SELECT transactionid, productid, data FROM {TABLE} WHERE transactionid IN ({})",
            vec!["?"; n as usize].join(",")
        ),
        format!("SELECT MIN(transactionid), MAX(transactionid) FROM {TABLE}"),
    ]
}
