//! TPC-C's options: their declarations on the command line, their
//! values checked (ranges, isolation level names, plain table options).
//! Knows nothing of the schema or the transactions.

use crate::workload::option_checks::plain_word;
use crate::workload::options::{OptKind, OptSpec, OptValues};

/// More table sets than any run uses (each connection prepares 41
/// statements per set).
const MAX_SETS: u32 = 1_000;
/// More warehouses than one server holds (each is about 70 MB).
const MAX_WAREHOUSES: u32 = 1_000_000;

/// TPC-C's options.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TpccOpts {
    /// Warehouses (the scale: about 70 MB each).
    pub warehouses: u32,
    /// Independent sets of the nine tables (sysbench-tpcc's --tables).
    pub tables: u32,
    /// The tables' engine at prepare.
    pub storage_engine: String,
    /// Appended to each CREATE TABLE (e.g. ROW_FORMAT=COMPRESSED).
    pub table_options: String,
    /// SET SESSION TRANSACTION ISOLATION LEVEL for every terminal; empty:
    /// the server's default.
    pub isolation: String,
    /// The spec's keying and think times between transactions.
    pub keying: bool,
    /// Each transaction is one CALL of a stored procedure.
    pub procedures: bool,
}

pub(crate) fn option_specs() -> Vec<OptSpec> {
    use OptKind::*;
    let o = |n: &str, k: OptKind, d: &str, h: &str| OptSpec::new(n, k, d, h);
    vec![
        o("warehouses", Count, "1", "warehouses in each table set (about 500,000 rows each)").alias("scale"),
        o("tables", Count, "1", "independent sets of the nine tables (warehouse1, warehouse2, …); terminals spread over them"),
        o("storage_engine", Text, "InnoDB", "engine of the tables").alias("mysql_storage_engine"),
        o("table_options", Text, "", "appended to every CREATE TABLE, e.g. ROW_FORMAT=COMPRESSED"),
        o("isolation", Text, "", "transaction isolation of the terminals: RC, RR, SER, RU or a full name; empty: the server's default").alias("trx_level"),
        o("procedures", Bool, "off", "run each transaction as one CALL of a stored procedure (installed before the run), as HammerDB does"),
        o("keying", Bool, "off", "the spec's keying and think times between transactions (needed for tpmC; 10 terminals per warehouse)"),
    ]
}

/// The isolation level's SQL name for a short or long spelling.
fn isolation_name(v: &str) -> Result<&'static str, String> {
    Ok(
        match v
            .trim()
            .to_ascii_uppercase()
            .replace(['-', '_'], " ")
            .as_str()
        {
            "" => "",
            "RC" | "READ COMMITTED" => "READ COMMITTED",
            "RR" | "REPEATABLE READ" => "REPEATABLE READ",
            "SER" | "SERIALIZABLE" => "SERIALIZABLE",
            "RU" | "READ UNCOMMITTED" => "READ UNCOMMITTED",
            _ => return Err(format!("--isolation: '{v}' is not RC, RR, SER or RU")),
        },
    )
}

impl TpccOpts {
    /// The options from their parsed values, checked (ranges, isolation
    /// level names).
    pub fn from_values(v: &OptValues) -> Result<TpccOpts, String> {
        let o = TpccOpts {
            warehouses: v.count_in("warehouses", 1, MAX_WAREHOUSES)?,
            tables: v.count_in("tables", 1, MAX_SETS)?,
            storage_engine: v.text("storage_engine").to_string(),
            table_options: v.text("table_options").to_string(),
            isolation: isolation_name(v.text("isolation"))?.to_string(),
            keying: v.flag("keying"),
            procedures: v.flag("procedures"),
        };
        plain_word("storage-engine", &o.storage_engine)?;
        plain_word("table-options", &o.table_options)?;
        Ok(o)
    }
}
