//! report: turns a run's results into text for people and scripts.
//!
//! Owns sysbench-compatible interval lines and final summary (so scripts that
//! parse sysbench keep working), qpslab's extra sections (percentiles,
//! latency per statement, errors by code, client CPU), the monitor's
//! figures, the live views' lines and screens, campaign/sweep/quickstart
//! text, metric exports, SVG charts, and analyze's tables (scalability,
//! best-to-best, ratio matrices, run comparisons). It computes nothing
//! that stats, exec or analyze did not, never talks to a server or writes
//! the store, and never calls lab (lab calls it through cli).

pub mod analysis;
pub mod campaign;
pub mod chart;
pub mod flame;
pub mod live;
pub mod metrics;
pub mod monitor;
pub mod profile;
pub mod runs;
pub mod sysbench;
pub mod table;
pub mod tpcc;

/// Error codes a performance engineer meets under load, by name.
pub(crate) fn error_name(code: u16) -> &'static str {
    match code {
        1205 => "ER_LOCK_WAIT_TIMEOUT",
        1213 => "ER_LOCK_DEADLOCK",
        1020 => "ER_CHECKREAD",
        1062 => "ER_DUP_ENTRY",
        1040 => "ER_CON_COUNT_ERROR",
        1461 => "ER_MAX_PREPARED_STMT_COUNT_REACHED",
        1146 => "ER_NO_SUCH_TABLE",
        1927 => "ER_CONNECTION_KILLED",
        1053 => "ER_SERVER_SHUTDOWN",
        2006 => "CR_SERVER_GONE_ERROR",
        2013 => "CR_SERVER_LOST (lost, or no answer in time)",
        _ => "",
    }
}

/// The share of the host's CPU above which the client may limit the result.
pub(crate) const CLIENT_SHARE_WARNING: f64 = 0.25;

/// A figure with `digits` decimals, or "-" when absent (or NaN).
pub fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "-".into(),
    }
}
