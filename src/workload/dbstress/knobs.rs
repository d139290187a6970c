//! dbSTRESS's options: their declarations on the command line and their
//! values checked (ranges, plain engine names). Knows nothing of the
//! schema or the transactions.

use crate::workload::options::{OptKind, OptSpec, OptValues};

/// More history tables than any run needs (each connection prepares
/// three statements per table).
const MAX_TABLES: u32 = 64;
/// More history rows per object than the benchmark ever keeps.
const MAX_HISTORY: u32 = 10_000;
/// The longest think time, in milliseconds (an hour).
const MAX_THINK_MS: u32 = 3_600_000;

/// dbSTRESS's options.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DbstressOpts {
    /// Rows of the objects table (10,000,000 at the original's scale).
    pub objects: u32,
    /// History rows per object (20 at the original's scale).
    pub history_per_object: u32,
    /// History tables the objects' history is spread over; table 1 is
    /// the hot one.
    pub history_tables: u32,
    /// Percent of the transactions whose object's history is in the hot
    /// table (the rest spread evenly over the others).
    pub hot_share: u32,
    /// Read transactions per write transaction; 0: read-only.
    pub rw_ratio: u32,
    /// Milliseconds a session waits after each transaction.
    pub think_time_ms: u32,
    /// The tables' engine at prepare.
    pub storage_engine: String,
}

pub(crate) fn option_specs() -> Vec<OptSpec> {
    use OptKind::*;
    let o = |n: &str, k: OptKind, d: &str, h: &str| OptSpec::new(n, k, d, h);
    vec![
        o(
            "objects",
            Count,
            "100000",
            "rows of the objects table (10000000 at the original's full scale)",
        ),
        o(
            "history_per_object",
            Count,
            "20",
            "history rows per object (20 at full scale: 200M rows for 10M objects)",
        ),
        o(
            "history_tables",
            Count,
            "4",
            "history tables the objects are spread over; dbs_history1 is the hot one",
        ),
        o(
            "hot_share",
            Count,
            "80",
            "percent of the transactions that land on the hot table (dbs_history1 and its objects)",
        ),
        o(
            "rw_ratio",
            Count,
            "1",
            "read transactions per write transaction (RW=1: one of each); 0: read-only",
        ),
        o(
            "think_time",
            Count,
            "0",
            "milliseconds each session waits after a transaction",
        ),
        o("storage_engine", Text, "InnoDB", "engine of the tables").alias("mysql_storage_engine"),
    ]
}

impl DbstressOpts {
    /// The options from their parsed values, checked.
    pub fn from_values(v: &OptValues) -> Result<DbstressOpts, String> {
        let o = DbstressOpts {
            objects: v.count_in("objects", 1, u32::MAX)?,
            history_per_object: v.count_in("history_per_object", 1, MAX_HISTORY)?,
            history_tables: v.count_in("history_tables", 1, MAX_TABLES)?,
            hot_share: v.count_in("hot_share", 0, 100)?,
            rw_ratio: v.count("rw_ratio"),
            think_time_ms: v.count_in("think_time", 0, MAX_THINK_MS)?,
            storage_engine: v.text("storage_engine").to_string(),
        };
        if o.objects < o.history_tables {
            return Err(format!(
                "--objects {} is fewer than --history-tables {}: each history table needs objects",
                o.objects, o.history_tables
            ));
        }
        if o.history_tables > 1 && o.hot_share < 100 / o.history_tables {
            return Err(format!(
                "--hot-share {} makes dbs_history1 colder than the others' even share ({}%): the hot table must get at least that",
                o.hot_share,
                100 / o.history_tables
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
        Ok(o)
    }

    /// Whether the sessions only read.
    pub fn read_only(&self) -> bool {
        self.rw_ratio == 0
    }
}
