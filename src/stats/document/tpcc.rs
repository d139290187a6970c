//! The TPC-C block of a run's document: NOPM, TPM, rollbacks, deadlocks,
//! the server's tally and the headline, and each transaction type's count
//! and latency. Owns the types; analyze::tpcc_figures computes them.

use super::latency::LatencyMs;
use crate::stats::{Headline, Tally};
use serde::{Deserialize, Serialize};

/// A TPC-C run's figures (the document's "tpcc"; null for other families).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TpccBlock {
    /// New-Order transactions per minute.
    pub nopm: f64,
    /// All transactions per minute.
    pub tpm: f64,
    /// New-Orders rolled back on purpose, in % of New-Orders.
    pub new_order_rollback_pct: f64,
    /// Deadlocks (error 1213).
    pub deadlocks: u64,
    /// Lock-wait timeouts (error 1205).
    pub lock_wait_timeouts: u64,
    /// The server's count of a class against the client's.
    pub server_tally: Option<Tally>,
    /// tpmC, or why the run does not allow it.
    pub headline: Option<Headline>,
    /// Each transaction type, in the family's order.
    pub transactions: Vec<TpccTransaction>,
}

/// One TPC-C transaction type's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TpccTransaction {
    /// The type ("new_order").
    #[serde(rename = "type")]
    pub kind: String,
    /// Transactions of the type.
    pub count: u64,
    /// Of the type per minute.
    pub per_minute: f64,
    /// Its latency (no minimum).
    pub latency_ms: LatencyMs,
}
